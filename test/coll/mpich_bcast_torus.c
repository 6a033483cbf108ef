/*
 * mpich_bcast_torus.c -- MPI test of the patched MPICH's torus broadcast
 * (rankmap's MPI layer, MPIR_CVAR_RANKMAP_BCAST) on the machine of
 * MPIR_CVAR_RANKMAP_TOPOLOGY.  Every MPI_Bcast result is compared byte for
 * byte with the expected buffer, which each rank computes locally (the
 * root's pattern packed and unpacked with the datatype into the rank's own
 * initial buffer), so holes of derived types must stay untouched.
 *
 * Communicators, built from the address table (MPIX_Rank2torus):
 *   world        the whole job (a box when it fills the torus)
 *   reversed     the same ranks in reverse order (a box in another order)
 *   planes       split by the last coordinate: sub-tori / sub-meshes
 *   lines        split by every coordinate but the first: 1-D lines
 *   subcube      the ranks with every coordinate < 2: a 2x..x2 sub-cube
 *   self         one rank
 *   not-a-box    the job without its last rank (never a box for >= 3 ranks)
 * Roots: every root of communicators up to 8 ranks, first/middle/last above.
 * Sizes: 0 B .. 1 MiB (+ 16 MiB once on world when it has <= 8 ranks);
 * MPI_BYTE, MPI_INT, a strided vector and a resized struct with holes.
 * quick: the last root with every size and type, the first root (and the
 * middle one above 8 ranks) with an empty, a small and a large message --
 * every path of the schedule (root at either end of a line, below and above
 * the segment size, derived types) at a quarter of the broadcasts.
 *
 * usage: mpich_bcast_torus [world-only] [quick]
 *   world-only: only the world communicator (for 64-rank shapes whose
 *   sub-communicators other runs already cover: CTest's time on 2 cores).
 * Rank 0 prints how many non-empty broadcasts ran on box communicators of
 * two or more ranks ("torus broadcasts expected: N"); with
 * MPIR_CVAR_RANKMAP_BCAST=always and MPIR_CVAR_RANKMAP_VERBOSE=2 the root of
 * every torus broadcast prints one line, and test/coll/torus_check.sh
 * compares the two counts: every box broadcast took the torus schedule and
 * not-a-box took MPICH's own.
 * Exit 0 = pass.
 */
#include <mpi.h>
#include <mpix_rankmap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0, broadcasts = 0, world_rank = 0, quick = 0, torus_expected = 0;

static uint64_t mix(uint64_t x) {
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ULL;
    x ^= x >> 29;
    return x;
}

static void fill(unsigned char *p, size_t n, uint64_t seed) {
    for (size_t i = 0; i < n; ++i) p[i] = (unsigned char)(mix(seed + i) >> 24);
}

/* One MPI_Bcast of count x type (span bytes of memory) from root on comm;
 * box: comm fills a box of the torus (the broadcast must take the torus
 * schedule). */
static int check(MPI_Comm comm, const char *what, int root, int count, MPI_Datatype type,
                  size_t span, int box) {
    int rank, size, tsize, rc, bad = 0, anybad = 0, psize, pos = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Type_size(type, &tsize);
    torus_expected += box && rank == root && size > 1 && count > 0 && tsize > 0;
    unsigned char *buf = malloc(span ? span : 1), *want = malloc(span ? span : 1);
    unsigned char *rootbuf = malloc(span ? span : 1);
    const uint64_t root_seed = 1000003u * (uint64_t)(count + 1) + (uint64_t)root;
    /* everyone knows the root's buffer; non-roots start from their own junk */
    fill(rootbuf, span, root_seed);
    if (rank == root)
        memcpy(buf, rootbuf, span);
    else
        fill(buf, span, 777u * (uint64_t)(rank + 1) + (uint64_t)count);
    memcpy(want, buf, span);
    if (rank != root) {
        MPI_Pack_size(count, type, MPI_COMM_SELF, &psize);
        void *packed = malloc(psize ? (size_t)psize : 1);
        MPI_Pack(rootbuf, count, type, packed, psize, &pos, MPI_COMM_SELF);
        pos = 0;
        MPI_Unpack(packed, psize, &pos, want, count, type, MPI_COMM_SELF);
        free(packed);
    }
    rc = MPI_Bcast(buf, count, type, root, comm);
    bad = rc != MPI_SUCCESS || memcmp(buf, want, span) != 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm);
    if (bad) {
        size_t first = 0;
        while (first < span && buf[first] == want[first]) ++first;
        fprintf(stderr, "FAIL %s: root %d count %d span %zu: rc %d, first wrong byte %zu\n",
                what, root, count, span, rc, first);
    }
    failures += anybad && rank == 0;
    ++broadcasts;
    free(buf);
    free(want);
    free(rootbuf);
    return anybad;
}

static void run_comm(MPI_Comm comm, const char *what, int box, int big) {
    int n, bad = 0;
    MPI_Comm_size(comm, &n);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    const size_t sizes[] = {0, 1, 13, 4099, 65543, 262147, 1048579};
    MPI_Datatype vec, st, rs;
    MPI_Type_vector(1000, 3, 5, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int bl[2] = {1, 2};
    MPI_Aint disp[2] = {0, 16};
    MPI_Datatype ty[2] = {MPI_CHAR, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, disp, ty, &st);
    MPI_Type_create_resized(st, 0, 40, &rs);
    MPI_Type_commit(&rs);
    for (int root = 0; root < n; ++root) {
        const int mid = n / 2;
        if (n > 8 && root != 0 && root != mid && root != n - 1) continue;
        if (quick && root != 0 && root != n - 1 && (n <= 8 || root != mid)) continue;
        if (quick && root != n - 1) {
            /* an empty, a small and a large message */
            for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; ++z)
                if (sizes[z] == 0 || sizes[z] == 13 || sizes[z] == 262147)
                    bad |= check(comm, what, root, (int)sizes[z], MPI_BYTE, sizes[z],
                                 box);
            continue;
        }
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; ++z) {
            if (sizes[z] > 70000 && n > 8 && root != n - 1) continue;
            bad |= check(comm, what, root, (int)sizes[z], MPI_BYTE, sizes[z],
                  box);
        }
        bad |= check(comm, what, root, 70001, MPI_INT, 70001 * sizeof(int), box);
        bad |= check(comm, what, root, 3, vec, 3 * 5000 * sizeof(int), box);
        bad |= check(comm, what, root, 1001, rs, 1001 * 40, box);
        bad |= check(comm, what, root, 0, rs, 40, box);
    }
    if (big) bad |= check(comm, what, n - 1, 16 << 20, MPI_BYTE, 16u << 20, box);
    MPI_Type_free(&vec);
    MPI_Type_free(&st);
    MPI_Type_free(&rs);
    /* one line per kind of communicator: the one holding world rank 0 */
    if (world_rank == 0)
        printf("%-10s %3d ranks%s: %s\n", what, n, box ? "" : " (not a box)", bad ? "FAILED" : "ok");
}

int main(int argc, char **argv) {
    int wrank, wsize, nd = 0, world_only = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "world-only"))
            world_only = 1;
        else if (!strcmp(argv[i], "quick"))
            quick = 1;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    world_rank = wrank;
    MPIX_Torus_ndims(&nd);
    if (nd < 1) {
        if (wrank == 0) fprintf(stderr, "FAIL: no torus address table (MPIR_CVAR_RANKMAP_TOPOLOGY)\n");
        MPI_Finalize();
        return 1;
    }
    int c[16];
    MPIX_Rank2torus(wrank, c);
    MPI_Comm comm;

    run_comm(MPI_COMM_WORLD, "world", 1, wsize <= 8);
    if (world_only)
        goto done;

    MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &comm);
    run_comm(comm, "reversed", 1, 0);
    MPI_Comm_free(&comm);

    if (nd >= 2) {
        MPI_Comm_split(MPI_COMM_WORLD, c[nd - 1], wrank, &comm);
        run_comm(comm, "planes", 1, 0);
        MPI_Comm_free(&comm);
    }

    int key = 0;
    for (int d = 1; d < nd; ++d) key = key * 64 + c[d];
    MPI_Comm_split(MPI_COMM_WORLD, key, wrank, &comm);
    run_comm(comm, "lines", 1, 0);
    MPI_Comm_free(&comm);

    int in_cube = 1;
    for (int d = 0; d < nd; ++d) in_cube &= c[d] < 2;
    MPI_Comm_split(MPI_COMM_WORLD, in_cube ? 0 : MPI_UNDEFINED, wrank, &comm);
    if (comm != MPI_COMM_NULL) {
        run_comm(comm, "subcube", 1, 0);
        MPI_Comm_free(&comm);
    }

    run_comm(MPI_COMM_SELF, "self", 1, 0);

    if (wsize >= 3) {
        MPI_Comm_split(MPI_COMM_WORLD, wrank < wsize - 1 ? 0 : MPI_UNDEFINED, wrank, &comm);
        if (comm != MPI_COMM_NULL) {
            run_comm(comm, "not-a-box", 0, 0);
            MPI_Comm_free(&comm);
        }
    }

done:;
    int total = 0, count = 0, torus = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce(&broadcasts, &count, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&torus_expected, &torus, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (wrank == 0) printf("torus broadcasts expected: %d\n", torus);
    if (wrank == 0) printf("%s: %d broadcasts per rank at most, %d failure(s)\n", total ? "FAIL" : "PASS", count, total);
    MPI_Finalize();
    return total ? 1 : 0;
}

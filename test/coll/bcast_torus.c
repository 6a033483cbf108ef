/*
 * bcast_torus.c -- MPI test of the portable torus broadcast executor
 * (src/coll/bcast_torus_mpi.c): on virtual tori and meshes carved out of
 * MPI_COMM_WORLD (first prod(extents) ranks, coordinates given to the ranks
 * in a scrambled order), for many roots, sizes and colour counts, the result
 * is compared byte for byte with MPI_Bcast of the same data; contiguous and
 * derived (vector, resized struct) datatypes.
 *
 * usage: mpiexec -n 64 bcast_torus [quick]     (exit 0 = pass; shapes larger
 * than the job are skipped, CTest runs -n 16: 4x4, 4x2x2, 3x5, 2x2x2, line,
 * ring, one rank)
 * quick: three roots per shape, every size from the first and three from
 * the others (the CTest default: oversubscribed ranks on a small machine
 * are slow); without it every root.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/bcast_torus_mpi.h"

static int failures = 0;

static uint64_t mix(uint64_t x) {
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ULL;
    x ^= x >> 29;
    return x;
}

static void fill(unsigned char *p, size_t n, uint64_t seed) {
    for (size_t i = 0; i < n; ++i) p[i] = (unsigned char)(mix(seed + i) >> 24);
}

typedef struct shape {
    const char *name;
    int ndims;
    int ext[6];
    int wrap;
} shape_t;

/* Coordinates of `rank` under a seeded scrambled order of the box points. */
static void coords_of(const shape_t *sh, int n, int rank, uint64_t seed, int *c) {
    int *perm = (int *)malloc(sizeof(int) * n);
    for (int i = 0; i < n; ++i) perm[i] = i;
    for (int i = n - 1; i > 0; --i) {
        int j = (int)(mix(seed * 1000003u + (uint64_t)i) % (uint64_t)(i + 1));
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    int idx = perm[rank];
    for (int d = sh->ndims - 1; d >= 0; --d) {
        c[d] = idx % sh->ext[d];
        idx /= sh->ext[d];
    }
    free(perm);
}

/* One broadcast: torus executor vs MPI_Bcast, byte for byte on the whole
 * buffer (so derived types must leave the holes untouched in both). */
static void check(MPI_Comm comm, const rankmap_tbcast *s, const char *what, int root,
                  int count, MPI_Datatype type, size_t span, int colours, size_t segment) {
    int rank, rc, bad = 0, anybad = 0;
    MPI_Comm_rank(comm, &rank);
    unsigned char *a = (unsigned char *)malloc(span ? span : 1);
    unsigned char *b = (unsigned char *)malloc(span ? span : 1);
    /* holes and non-root data: a rank-specific pattern (identical in a and b) */
    fill(a, span, rank == root ? 12345u + (uint64_t)count : 777u * (uint64_t)(rank + 1));
    memcpy(b, a, span);
    rankmap_bcast_torus_opts o;
    memset(&o, 0, sizeof o);
    o.colours = colours;
    o.segment = segment;
    o.cap = 1 + (root % 3);
    rc = rankmap_bcast_torus(b, count, type, root, comm, s, &o);
    MPI_Bcast(a, count, type, root, comm);
    if (rc != MPI_SUCCESS || memcmp(a, b, span) != 0) bad = 1;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm);
    if (anybad && rank == root) {
        fprintf(stderr, "FAIL %s root %d count %d span %zu colours %d segment %zu (rc %d)\n", what,
                root, count, span, colours, segment, rc);
    }
    failures += anybad;
    free(a);
    free(b);
}

int main(int argc, char **argv) {
    int wrank, wsize, quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    const shape_t shapes[] = {
        {"torus 4x4x4", 3, {4, 4, 4}, 1},     {"mesh 4x4x4", 3, {4, 4, 4}, 0},
        {"torus 8x8", 2, {8, 8}, 1},          {"torus 4x4x2x2", 4, {4, 4, 2, 2}, 1},
        {"sub-cube 2x2x2", 3, {2, 2, 2}, 0},  {"line 7", 1, {7}, 0},
        {"ring 9", 1, {9}, 1},                {"one rank", 3, {1, 1, 1}, 1},
        {"torus 3x3x3x2x1x1", 6, {3, 3, 3, 2, 1, 1}, 1},
        /* shapes that fit 16 ranks (CTest runs -n 16) */
        {"torus 4x4", 2, {4, 4}, 1},          {"mesh 4x2x2", 3, {4, 2, 2}, 0},
        {"torus 3x5", 2, {3, 5}, 1},
    };
    const size_t sizes[] = {0, 1, 13, 4099, 65543, 1048579, 3u << 20};
    const int nsizes = sizeof sizes / sizeof sizes[0];
    int tested = 0;
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k) {
        const shape_t *sh = &shapes[k];
        int n = 1;
        for (int d = 0; d < sh->ndims; ++d) n *= sh->ext[d];
        if (n > wsize) continue;
        MPI_Comm comm;
        MPI_Comm_split(MPI_COMM_WORLD, wrank < n ? 0 : MPI_UNDEFINED, wrank, &comm);
        if (comm == MPI_COMM_NULL) continue;
        int c[6], wr[6];
        for (int d = 0; d < sh->ndims; ++d) wr[d] = sh->wrap;
        coords_of(sh, n, wrank, 17 + k, c);
        rankmap_tbcast *s = NULL;
        if (rankmap_bcast_torus_schedule(comm, sh->ndims, sh->ext, wr, c, &s) != MPI_SUCCESS) {
            if (wrank == 0) fprintf(stderr, "FAIL %s: schedule rejected\n", sh->name);
            ++failures;
            MPI_Comm_free(&comm);
            continue;
        }
        /* full: every root with small sizes, every 16th with large ones;
         * quick: three roots (first, middle, last), every size from the first */
        for (int root = 0; root < n; ++root) {
            const int mid = n / 2 + (n > 2);
            if (quick && root != 0 && root != mid && root != n - 1) continue;
            for (int z = 0; z < nsizes; ++z) {
                const int big = sizes[z] > 70000;
                if (!quick && big && root % 16 != 0 && root != n - 1) continue;
                /* quick: the other roots 13 bytes, 4099 and 1 MiB + 3 */
                if (quick && root != 0 && sizes[z] != 13 && sizes[z] != 4099 && sizes[z] != 1048579) continue;
                const int colours = root % 5 == 2 ? 1 + root % 3 : 0;
                /* 64-byte segments for odd roots: a long pipeline; quick:
                 * only up to 4099 bytes (65 segments), 1000 above */
                const size_t seg = big ? 0 : (root % 2 && !(quick && sizes[z] > 4099) ? 64 : 1000);
                check(comm, s, sh->name, root, (int)sizes[z], MPI_BYTE, sizes[z], colours, seg);
                ++tested;
            }
        }
        /* derived types: a strided vector of ints and a resized struct */
        MPI_Datatype vec, st, rs;
        MPI_Type_vector(1000, 3, 5, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        int bl[2] = {1, 2};
        MPI_Aint disp[2] = {0, 16};
        MPI_Datatype ty[2] = {MPI_CHAR, MPI_DOUBLE};
        MPI_Type_create_struct(2, bl, disp, ty, &st);
        MPI_Type_create_resized(st, 0, 40, &rs);
        MPI_Type_commit(&rs);
        for (int root = quick ? n - 1 : 0; root < n; root += (n > 8 ? 7 : 1)) {
            check(comm, s, sh->name, root, 3, vec, 3 * 5000 * sizeof(int), 0, 0);
            check(comm, s, sh->name, root, 1001, rs, 1001 * 40, 0, 512);
            check(comm, s, sh->name, root, 0, rs, 40, 0, 0);
            tested += 3;
        }
        MPI_Type_free(&vec);
        MPI_Type_free(&st);
        MPI_Type_free(&rs);
        rankmap_tbcast_free(s);
        MPI_Comm_free(&comm);
        if (wrank == 0) printf("%-22s ok so far (%d broadcasts, %d failures)\n", sh->name, tested, failures);
    }
    /* the box must be covered: a duplicated coordinate is rejected on every rank */
    if (wsize >= 4) {
        MPI_Comm comm;
        MPI_Comm_split(MPI_COMM_WORLD, wrank < 4 ? 0 : MPI_UNDEFINED, wrank, &comm);
        if (comm != MPI_COMM_NULL) {
            int ext[2] = {2, 2}, wr[2] = {0, 0}, c[2] = {wrank / 2, wrank == 3 ? 0 : wrank % 2};
            rankmap_tbcast *s = NULL;
            if (rankmap_bcast_torus_schedule(comm, 2, ext, wr, c, &s) != MPI_ERR_ARG || s) {
                ++failures;
                if (wrank == 0) fprintf(stderr, "FAIL: duplicate coordinates accepted\n");
            }
            MPI_Comm_free(&comm);
        }
    }
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0) printf("%s: %d failure(s)\n", total ? "FAIL" : "PASS", total);
    MPI_Finalize();
    return total ? 1 : 0;
}

/*
 * halo_app.c -- the MPI program of the profile -> map -> rerun loop test
 * (test/profile/loop.sh) and of the README walkthrough.
 *
 *   halo_app [DIMS [ITERS [BYTES]]] [--expect FILE] [--where FILE]
 *
 * A periodic 3-D halo exchange (default 4x4x4 cells, 20 iterations, 32 KiB
 * messages) whose cells are dealt to ranks in a scrambled order: rank r
 * plays cell cell_of_rank[r], a fixed pseudo-random permutation, so launching
 * ranks in order puts grid neighbours far apart on a torus -- the situation
 * a profile-guided mapping repairs.  Each iteration every rank sends one
 * message of BYTES to the rank of each of its 2 x ndims neighbour cells
 * (MPI_Sendrecv, shifts +1 and -1 per dimension).
 *   --expect FILE  rank 0 writes the exchange it performs, one line
 *                  "SRC DST COUNT BYTES" per ordered pair (what a correct
 *                  profile must contain);
 *   --where FILE   rank 0 writes where every rank runs, as a mapfile (line r
 *                  = torus coordinates of rank r), read from the patched
 *                  MPICH's address table (MPIX_Rank2torus; built with
 *                  -DHAVE_MPIX_RANKMAP); without it the program says so and
 *                  exits 3.
 * The program checks every received message's contents and exits non-zero
 * on a mismatch.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_MPIX_RANKMAP
#include <mpix_rankmap.h>
#endif

#define MAXD 3

static int parse_dims(const char *s, int *dims)
{
    int nd = 0;
    char *end;
    while (*s && nd < MAXD) {
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 1024)
            return -1;
        dims[nd++] = (int) v;
        s = end;
        if (*s == 'x')
            s++;
        else if (*s)
            return -1;
    }
    return *s ? -1 : nd;
}

/* Fisher-Yates with a fixed 64-bit LCG: the same permutation everywhere. */
static void scramble(int n, int *perm)
{
    unsigned long long x = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int j = (int) ((x >> 33) % (unsigned long long) (i + 1));
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/* Cell at offset `delta` along dimension k from cell c (periodic). */
static int shift(int c, int k, int delta, int nd, const int *dims)
{
    int co[MAXD];
    for (int d = nd - 1; d >= 0; d--) {
        co[d] = c % dims[d];
        c /= dims[d];
    }
    co[k] = (co[k] + delta + dims[k]) % dims[k];
    int r = 0;
    for (int d = 0; d < nd; d++)
        r = r * dims[d] + co[d];
    return r;
}

int main(int argc, char **argv)
{
    int rank, size, dims[MAXD], nd = 3, iters = 20, bytes = 32768;
    const char *expect = NULL, *where = NULL;
    dims[0] = dims[1] = dims[2] = 4;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int pos = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--expect") && i + 1 < argc)
            expect = argv[++i];
        else if (!strcmp(argv[i], "--where") && i + 1 < argc)
            where = argv[++i];
        else if (pos == 0 && (nd = parse_dims(argv[i], dims)) > 0)
            pos++;
        else if (pos == 1 && (iters = atoi(argv[i])) > 0)
            pos++;
        else if (pos == 2 && (bytes = atoi(argv[i])) >= 0)
            pos++;
        else {
            if (rank == 0)
                fprintf(stderr, "halo_app: bad argument '%s'\n"
                        "usage: halo_app [DIMS [ITERS [BYTES]]] [--expect FILE] [--where FILE]\n",
                        argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    int ncells = 1;
    for (int k = 0; k < nd; k++)
        ncells *= dims[k];
    if (ncells != size) {
        if (rank == 0)
            fprintf(stderr, "halo_app: %d cells but %d ranks\n", ncells, size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int *cell_of_rank = malloc(sizeof(int) * size), *rank_of_cell = malloc(sizeof(int) * size);
    scramble(size, cell_of_rank);
    for (int r = 0; r < size; r++)
        rank_of_cell[cell_of_rank[r]] = r;

    if (expect && rank == 0) {
        /* Count per ordered pair (dims of 2 or 1 make +1 and -1 the same
         * neighbour, so accumulate). */
        long long *cnt = calloc((size_t) size * size, sizeof(long long));
        for (int r = 0; r < size; r++)
            for (int k = 0; k < nd; k++)
                for (int s = -1; s <= 1; s += 2) {
                    int d = rank_of_cell[shift(cell_of_rank[r], k, s, nd, dims)];
                    if (d != r)
                        cnt[(size_t) r * size + d] += iters;
                }
        FILE *f = fopen(expect, "w");
        if (!f) {
            perror(expect);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int r = 0; r < size; r++)
            for (int d = 0; d < size; d++)
                if (cnt[(size_t) r * size + d])
                    fprintf(f, "%d %d %lld %lld\n", r, d, cnt[(size_t) r * size + d],
                            cnt[(size_t) r * size + d] * bytes);
        fclose(f);
        free(cnt);
    }

    char *sbuf = malloc(bytes ? bytes : 1), *rbuf = malloc(bytes ? bytes : 1);
    int errors = 0;
    for (int it = 0; it < iters; it++)
        for (int k = 0; k < nd; k++)
            for (int s = -1; s <= 1; s += 2) {
                int dst = rank_of_cell[shift(cell_of_rank[rank], k, s, nd, dims)];
                int src = rank_of_cell[shift(cell_of_rank[rank], k, -s, nd, dims)];
                memset(sbuf, (rank + it) & 0xff, bytes);
                MPI_Sendrecv(sbuf, bytes, MPI_BYTE, dst, it, rbuf, bytes, MPI_BYTE, src, it,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (int b = 0; b < bytes; b++)
                    if (rbuf[b] != (char) ((src + it) & 0xff)) {
                        errors++;
                        break;
                    }
            }
    int total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("halo_app: %d ranks, cells %dx%dx%d scrambled, %d iterations of %d-byte messages, %d bad messages\n",
               size, dims[0], nd > 1 ? dims[1] : 1, nd > 2 ? dims[2] : 1, iters, bytes, total);

    int rc = total ? 1 : 0;
    if (where) {
#ifdef HAVE_MPIX_RANKMAP
        int tnd = 0;
        MPIX_Torus_ndims(&tnd);
        int co[16] = { 0 };
        if (tnd < 1 || tnd > 15 || MPIX_Rank2torus(rank, co) != MPI_SUCCESS) {
            if (rank == 0)
                fprintf(stderr, "halo_app: no torus address table (set MPIR_CVAR_RANKMAP_TOPOLOGY)\n");
            rc = 3;
        } else {
            int *all = rank == 0 ? malloc(sizeof(int) * 16 * size) : NULL;
            MPI_Gather(co, 16, MPI_INT, all, 16, MPI_INT, 0, MPI_COMM_WORLD);
            if (rank == 0) {
                FILE *f = fopen(where, "w");
                for (int r = 0; f && r < size; r++) {
                    for (int k = 0; k < tnd; k++)
                        fprintf(f, "%s%d", k ? " " : "", all[16 * r + k]);
                    fprintf(f, "\n");
                }
                if (f)
                    fclose(f);
                else
                    rc = 1;
                free(all);
            }
        }
#else
        if (rank == 0)
            fprintf(stderr, "halo_app: built without MPIX_Rank2torus (patched MPICH); --where ignored\n");
        rc = 3;
#endif
    }
    free(sbuf);
    free(rbuf);
    free(cell_of_rank);
    free(rank_of_cell);
    MPI_Finalize();
    return rc;
}

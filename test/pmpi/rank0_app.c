/*
 * rank0_app.c -- an unmodified MPI program (standard MPI only) for the test
 * of rank 0 under the PMPI reorder plugin (test/pmpi/rank0.sh): many
 * programs read input or print on rank 0 and expect it to be the process
 * that MPI_COMM_WORLD calls rank 0, also in a reordered communicator.
 *
 *   rank0_app EXPECT GRID PERIODIC
 *     EXPECT   keep  cart rank 0 must be world rank 0 and some rank must have
 *                    moved (else a message and MPI_Abort)
 *              any   report only
 *     GRID     the task grid, e.g. 4x4x2 (its size may be below the number of
 *              ranks: the others get MPI_COMM_NULL)
 *     PERIODIC 1 (periodic in every dimension) or 0
 * World rank 0 prints "moved M of N, cart rank 0 on world rank W".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXD 6

int main(int argc, char **argv)
{
    int dims[MAXD], periods[MAXD], nd = 0, wrank, wsize;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (argc != 4 || (strcmp(argv[1], "keep") && strcmp(argv[1], "any"))) {
        if (wrank == 0)
            fprintf(stderr, "usage: rank0_app keep|any GRID PERIODIC\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (const char *s = argv[2]; *s && nd < MAXD;) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || (*end && *end != 'x')) {
            if (wrank == 0)
                fprintf(stderr, "rank0_app: bad grid '%s'\n", argv[2]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        periods[nd] = atoi(argv[3]) != 0;
        dims[nd++] = (int) v;
        s = *end ? end + 1 : end;
    }
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 1, &cart);
    int crank = -1;
    if (cart != MPI_COMM_NULL)
        MPI_Comm_rank(cart, &crank);
    int moved = crank != wrank, nmoved = 0, mine = crank == 0 ? wrank : -1, owner = -1;
    MPI_Allreduce(&moved, &nmoved, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &owner, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (wrank == 0) {
        printf("moved %d of %d, cart rank 0 on world rank %d\n", nmoved, wsize, owner);
        fflush(stdout);
    }
    /* world rank 0 alone fails, after its message, with exit status 1 after
     * MPI_Finalize: an MPI_Abort can end the job before the launcher has
     * forwarded the message */
    int rc = 0;
    if (wrank == 0 && !strcmp(argv[1], "keep") && (owner != 0 || nmoved == 0)) {
        if (owner != 0)
            fprintf(stderr, "rank0_app: cart rank 0 is world rank %d, not world rank 0\n", owner);
        else
            fprintf(stderr, "rank0_app: no rank moved, so the test shows nothing\n");
        fflush(stderr);
        rc = 1;
    }
    if (cart != MPI_COMM_NULL)
        MPI_Comm_free(&cart);
    MPI_Finalize();
    return rc;
}

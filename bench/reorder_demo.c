/*
 * reorder_demo.c -- an ordinary MPI program for the README's main command
 * (maint/demo.sh): nothing rankmap-specific, built with Debian's mpicc.mpich.
 *
 *   reorder_demo DIMS_X DIMS_Y DIMS_Z ITERS BYTES
 *
 * Creates a periodic 3-D process grid with MPI_Cart_create(reorder=1), then
 * exchanges BYTES with each of its six neighbours ITERS times, checking that
 * the data came from the right neighbours.  Rank 0 prints which
 * MPI_COMM_WORLD rank plays each grid position (so a reorder is visible) and
 * whether every message arrived as sent.  Under Debian's MPICH every
 * position keeps its world rank; under the patched MPICH (or with
 * librankmap-pmpi) the ranks follow the declared machine.  It prints no time:
 * the torus is virtual (all ranks share one machine), so placement changes
 * hops and link loads there, not time; the simulated torus measures time.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int world, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 6) {
        if (world == 0)
            fprintf(stderr, "usage: reorder_demo DIMS_X DIMS_Y DIMS_Z ITERS BYTES\n");
        MPI_Finalize();
        return 2;
    }
    int dims[3] = { atoi(argv[1]), atoi(argv[2]), atoi(argv[3]) };
    int iters = atoi(argv[4]), bytes = atoi(argv[5]);
    if (dims[0] * dims[1] * dims[2] != size || iters < 1 || bytes < 1) {
        if (world == 0)
            fprintf(stderr, "reorder_demo: grid %dx%dx%d needs %d ranks (have %d); ITERS, BYTES >= 1\n",
                    dims[0], dims[1], dims[2], dims[0] * dims[1] * dims[2], size);
        MPI_Finalize();
        return 2;
    }
    int periods[3] = { 1, 1, 1 };
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 1, &cart);
    int rank;
    MPI_Comm_rank(cart, &rank);

    /* who plays grid position p: the world rank of cart rank p */
    int *who = rank == 0 ? malloc(sizeof(int) * size) : NULL;
    MPI_Gather(&world, 1, MPI_INT, who, 1, MPI_INT, 0, cart);
    if (rank == 0) {
        printf("reorder_demo: world rank at each grid position (row-major, one line per x plane):");
        for (int p = 0; p < size; p++)
            printf("%s%d", p % (dims[2] * dims[1]) == 0 ? "\n  " : " ", who[p]);
        printf("\n");
        free(who);
    }

    /* the halo exchange: each message carries its sender's grid rank and
     * direction, so every process checks that the grid's neighbours (under
     * the new numbering) are the ones that answered */
    char *sbuf = malloc(6 * (size_t) bytes), *rbuf = malloc(6 * (size_t) bytes);
    MPI_Request req[12];
    MPI_Status st[12];
    long wrong = 0, wrong_all = 0;
    for (int it = 0; it < iters; it++) {
        int n = 0, lo[3], hi[3];
        for (int d = 0; d < 3; d++) {
            MPI_Cart_shift(cart, d, 1, &lo[d], &hi[d]);
            for (int k = 0; k < bytes; k++) {
                sbuf[(2 * d) * (size_t) bytes + k] = (char) (rank * 7 + d + it);
                sbuf[(2 * d + 1) * (size_t) bytes + k] = (char) (rank * 7 + d + 3 + it);
            }
            MPI_Irecv(rbuf + (2 * d) * (size_t) bytes, bytes, MPI_BYTE, lo[d], d, cart, &req[n++]);
            MPI_Irecv(rbuf + (2 * d + 1) * (size_t) bytes, bytes, MPI_BYTE, hi[d], d + 3, cart, &req[n++]);
            MPI_Isend(sbuf + (2 * d) * (size_t) bytes, bytes, MPI_BYTE, hi[d], d, cart, &req[n++]);
            MPI_Isend(sbuf + (2 * d + 1) * (size_t) bytes, bytes, MPI_BYTE, lo[d], d + 3, cart, &req[n++]);
        }
        MPI_Waitall(n, req, st);
        for (int d = 0; d < 3; d++)
            for (int k = 0; k < bytes; k++) {
                wrong += rbuf[(2 * d) * (size_t) bytes + k] != (char) (lo[d] * 7 + d + it);
                wrong += rbuf[(2 * d + 1) * (size_t) bytes + k] != (char) (hi[d] * 7 + d + 3 + it);
            }
    }
    MPI_Reduce(&wrong, &wrong_all, 1, MPI_LONG, MPI_SUM, 0, cart);
    if (rank == 0)
        printf("reorder_demo: %d halo exchanges of %d bytes with each of 6 neighbours: %s\n", iters, bytes,
               wrong_all ? "WRONG DATA" : "every neighbour's data arrived");
    free(sbuf);
    free(rbuf);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return rank == 0 && wrong_all ? 1 : 0;
}

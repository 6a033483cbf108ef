/*
 * cart_launched.c -- an unmodified MPI program for test/pmpi/launched.sh:
 * creates a periodic Cartesian communicator with reorder=0 over
 * MPI_COMM_WORLD, as an application placed at launch does, and checks that
 * every process kept its rank (MPI's promise for reorder=0, which the
 * plugin must not break).  Rank 0 prints PASS or FAIL.
 *
 *   cart_launched GRID      GRID = task grid, e.g. 4x2x2 (as many tasks as ranks)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int dims[6], periods[6], nd = 0, rank, size, crank = -1, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *s = argc == 2 ? argv[1] : "";
    long n = 1;
    while (*s && nd < 6) {
        char *end;
        dims[nd] = (int) strtol(s, &end, 10);
        periods[nd] = 1;
        n *= dims[nd++];
        s = *end == 'x' ? end + 1 : end;
        if (end == s && *end)
            break;
    }
    if (nd == 0 || n != size) {
        if (rank == 0)
            fprintf(stderr, "usage: cart_launched GRID (a grid of %d tasks)\n", size);
        MPI_Finalize();
        return 2;
    }
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &crank);
    if (crank != rank) {
        fprintf(stderr, "cart_launched: world rank %d has rank %d in the reorder=0 grid\n", rank,
                crank);
        bad = 1;
    }
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Comm_free(&cart);
    if (rank == 0)
        printf("%s: %d ranks kept their rank in the %s grid\n", anybad ? "FAIL" : "PASS", size,
               argv[1]);
    MPI_Finalize();
    return anybad;
}

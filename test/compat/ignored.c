/*
 * ignored.c -- correct but gets nothing from a reorder: the program creates a
 * Cartesian communicator with reorder=1, never uses it (nor frees it) and
 * exchanges with the grid neighbours of its MPI_COMM_WORLD rank, computed by
 * arithmetic, on MPI_COMM_WORLD.  Each process sends its world rank and
 * checks that the data comes from that neighbour: right whatever MPI does
 * with the unused communicator.
 */
#include "compat.h"

int main(int argc, char **argv)
{
    int dims[3], crank, wrank;
    MPI_Comm cart;
    compat_cart(&argc, &argv, dims, &wrank, &crank, &cart);
    for (int d = 0; d < 3; d++) {
        int src, dst, got = -1;
        compat_shift_by_hand(dims, wrank, d, &src, &dst);
        MPI_Sendrecv(&wrank, 1, MPI_INT, dst, d, &got, 1, MPI_INT, src, d, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        COMPAT_CHECK(got == src, "rank %d, dimension %d: got world rank %d, expected %d", wrank,
                     d, got, src);
    }
    int rc = compat_report(crank != wrank);
    MPI_Finalize();
    return rc;
}

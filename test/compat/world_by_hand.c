/*
 * world_by_hand.c -- a misuse: the program creates a Cartesian communicator
 * with reorder=1 but computes its grid neighbours by arithmetic on its
 * MPI_COMM_WORLD rank, then exchanges on the new communicator.  Each process
 * sends its rank in the grid and checks that the data comes from its true
 * grid neighbour (MPI_Cart_shift).  Right when MPI keeps every rank; once
 * ranks move, the exchanges wait forever or deliver the wrong data.
 */
#include "compat.h"

int main(int argc, char **argv)
{
    int dims[3], crank, wrank;
    MPI_Comm cart;
    compat_cart(&argc, &argv, dims, &wrank, &crank, &cart);
    for (int d = 0; d < 3; d++) {
        int src, dst, true_src, true_dst, got = -1;
        compat_shift_by_hand(dims, wrank, d, &src, &dst); /* the mistake */
        MPI_Cart_shift(cart, d, 1, &true_src, &true_dst);
        MPI_Sendrecv(&crank, 1, MPI_INT, dst, d, &got, 1, MPI_INT, src, d, cart,
                     MPI_STATUS_IGNORE);
        COMPAT_CHECK(got == true_src, "grid rank %d, dimension %d: got grid rank %d, expected %d",
                     crank, d, got, true_src);
    }
    MPI_Comm_free(&cart);
    int rc = compat_report(crank != wrank);
    MPI_Finalize();
    return rc;
}

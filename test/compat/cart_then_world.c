/*
 * cart_then_world.c -- the LAMMPS pattern (`map cart/reorder`), a misuse:
 * the program creates a Cartesian communicator with reorder=1, reads its
 * grid neighbours there (MPI_Cart_shift), frees it and exchanges with those
 * ranks on MPI_COMM_WORLD, as if ranks did not move.  Each process sends its
 * rank in the grid and checks that the data comes from its grid neighbour.
 * Right when MPI keeps every rank; once ranks move, the exchanges wait
 * forever (or deliver another process's data).
 */
#include "compat.h"

int main(int argc, char **argv)
{
    int dims[3], src[3], dst[3], crank, wrank;
    MPI_Comm cart;
    compat_cart(&argc, &argv, dims, &wrank, &crank, &cart);
    for (int d = 0; d < 3; d++)
        MPI_Cart_shift(cart, d, 1, &src[d], &dst[d]);
    MPI_Comm_free(&cart);
    for (int d = 0; d < 3; d++) {
        int got = -1;
        MPI_Sendrecv(&crank, 1, MPI_INT, dst[d], d, &got, 1, MPI_INT, src[d], d, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        COMPAT_CHECK(got == src[d], "rank %d, dimension %d: got grid rank %d, expected %d",
                     wrank, d, got, src[d]);
    }
    int rc = compat_report(crank != wrank);
    MPI_Finalize();
    return rc;
}

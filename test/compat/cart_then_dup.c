/*
 * cart_then_dup.c -- the LAMMPS pattern on a duplicate of MPI_COMM_WORLD, a
 * misuse: the program duplicates MPI_COMM_WORLD (as libraries do to keep
 * their messages apart), creates a Cartesian communicator from the
 * duplicate with reorder=1, reads its grid neighbours there
 * (MPI_Cart_shift), frees it and exchanges with those ranks on the
 * duplicate, as if ranks did not move.  Right when MPI keeps every rank;
 * once ranks move, the exchanges wait forever (or deliver another
 * process's data).
 */
#include "compat.h"

int main(int argc, char **argv)
{
    int size, dims[3] = { 0, 0, 0 }, periods[3] = { 1, 1, 1 }, src[3], dst[3], crank, wrank;
    MPI_Comm dup, cart;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Dims_create(size, 3, dims);
    MPI_Cart_create(dup, 3, dims, periods, 1, &cart);
    MPI_Comm_rank(cart, &crank);
    for (int d = 0; d < 3; d++)
        MPI_Cart_shift(cart, d, 1, &src[d], &dst[d]);
    MPI_Comm_free(&cart);
    for (int d = 0; d < 3; d++) {
        int got = -1;
        MPI_Sendrecv(&crank, 1, MPI_INT, dst[d], d, &got, 1, MPI_INT, src[d], d, dup,
                     MPI_STATUS_IGNORE);
        COMPAT_CHECK(got == src[d], "rank %d, dimension %d: got grid rank %d, expected %d",
                     wrank, d, got, src[d]);
    }
    MPI_Comm_free(&dup);
    int rc = compat_report(crank != wrank);
    MPI_Finalize();
    return rc;
}

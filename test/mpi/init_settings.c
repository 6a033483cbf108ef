/*
 * init_settings.c -- runs MPI_Init and one MPI_Cart_create(reorder=1) of a
 * ring of all ranks, then prints on rank 0 "ranks moved: N" and, if an
 * address table exists, its dimensions.  test/mpi/bad_settings.sh runs it
 * under good and bad MPIR_CVAR_RANKMAP_* settings and checks the messages.
 */
#include "mpi_check.h"
#include <mpix_rankmap.h>

int main(int argc, char **argv)
{
    int wrank, wsize, rank, moved, total = 0, nd = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    int dims[1] = { wsize }, periods[1] = { 1 };
    MPI_Comm ring;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 1, &ring);
    MPI_Comm_rank(ring, &rank);
    moved = rank != wrank;
    MPI_Reduce(&moved, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPIX_Torus_ndims(&nd);
    if (wrank == 0)
        printf("ranks moved: %d; address table dims: %d\n", total, nd);
    MPI_Comm_free(&ring);
    return finish("init_settings");
}

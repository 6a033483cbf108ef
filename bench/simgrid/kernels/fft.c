/* fft.c -- communication of a volumetric 3-D FFT with a 2-D decomposition
 * (Jagode et al., "Task placement of parallel multi-dimensional FFTs on a
 * mesh communication network", section 3): the P tasks form a Cartesian
 * grid of NROWS rows of ROW tasks; the first transpose is an MPI_Alltoall
 * inside every row, the second one inside every column (MPI_Cart_sub).  The
 * 1-D FFTs themselves are not simulated (no computation).
 *
 *   fft ROW NROWS BYTES_PER_TASK ITERATIONS [REORDER]
 *
 * Grid: MPI_Cart_create(dims = {NROWS, ROW}, reorder = REORDER, default 0),
 * so a row is ROW consecutive ranks of the grid (of MPI_COMM_WORLD without
 * reordering) (the "8x64" grid of Jagode et al., with 8-task rows, is
 * `fft 8 64 ...`).  Every task holds BYTES_PER_TASK bytes of the volume
 * (D_T / P in their model) and each all-to-all redistributes all of it:
 * BYTES_PER_TASK / ROW to every row partner, then BYTES_PER_TASK / NROWS to
 * every column partner.
 * Each phase starts after a barrier; its time is the slowest rank's, averaged
 * over the iterations, printed by rank 0 as
 *   ROW_TIME <s>    COL_TIME <s>    COMM_TIME <row + col>
 * The all-to-all algorithm is SMPI's (the driver selects basic_linear: all
 * messages in flight at once, as their bisection model assumes).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double timed_alltoall(MPI_Comm comm, char *sbuf, char *rbuf, int count, int iters) {
    double total = 0;
    for (int it = 0; it < iters; it++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_Alltoall(sbuf, count, MPI_BYTE, rbuf, count, MPI_BYTE, comm);
        double mine = MPI_Wtime() - t0, worst;
        MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        total += worst;
    }
    return total / iters;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int ok_args = argc == 5 || argc == 6;
    int row = ok_args ? atoi(argv[1]) : 0, nrows = ok_args ? atoi(argv[2]) : 0;
    long long bytes = ok_args ? atoll(argv[3]) : 0;
    int iters = ok_args ? atoi(argv[4]) : 0, reorder = argc == 6 ? atoi(argv[5]) : 0;
    if (!ok_args || (reorder != 0 && reorder != 1) || row < 1 || nrows < 1 || (long long)row * nrows != size || bytes < 1 || iters < 1 || bytes % row ||
        bytes % nrows || bytes > 0x7fffffffLL) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: fft ROW NROWS BYTES_PER_TASK ITERATIONS [REORDER 0|1]  (ROW*NROWS = %d ranks, "
                    "BYTES_PER_TASK a multiple of ROW and NROWS, < 2 GiB)\n",
                    size);
        MPI_Finalize();
        return 2;
    }
    int dims[2] = {nrows, row}, periods[2] = {0, 0};
    MPI_Comm grid, rows, cols;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, reorder, &grid);
    int keep_row[2] = {0, 1}, keep_col[2] = {1, 0};
    MPI_Cart_sub(grid, keep_row, &rows);
    MPI_Cart_sub(grid, keep_col, &cols);

#ifdef SMPI_SHARED_MALLOC
    char *sbuf = SMPI_SHARED_MALLOC((size_t)bytes), *rbuf = SMPI_SHARED_MALLOC((size_t)bytes);
#else
    char *sbuf = calloc((size_t)bytes, 1), *rbuf = calloc((size_t)bytes, 1);
#endif
    double tr = timed_alltoall(rows, sbuf, rbuf, (int)(bytes / row), iters);
    double tc = timed_alltoall(cols, sbuf, rbuf, (int)(bytes / nrows), iters);
    if (rank == 0) {
        printf("ROW_TIME %.9e\nCOL_TIME %.9e\nCOMM_TIME %.9e\n", tr, tc, tr + tc);
        fflush(stdout);
    }
#ifdef SMPI_SHARED_MALLOC
    SMPI_SHARED_FREE(sbuf);
    SMPI_SHARED_FREE(rbuf);
#else
    free(sbuf);
    free(rbuf);
#endif
    MPI_Comm_free(&rows);
    MPI_Comm_free(&cols);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return 0;
}

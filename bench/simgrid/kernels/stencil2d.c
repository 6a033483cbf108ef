/* stencil2d.c -- halo exchange of a 2-D mesh stencil (the 2-D task meshes
 * of Smith and Bode, "Performance effects of node mappings on the IBM
 * BlueGene/L machine", e.g. 16x8 tasks on the 8x4x4 partition): every task
 * exchanges one message with each of its 4 grid neighbours (none across the
 * boundary: the task mesh is not periodic unless asked).
 *
 *   stencil2d NX NY BYTES ITERATIONS [PERIODIC [REORDER]]
 *
 * Grid: MPI_Cart_create(dims = {NX, NY}, reorder = REORDER, default 0),
 * rank = i * NY + j of the grid; the placement of ranks on hosts is the
 * experiment (smpirun -hostfile), or with REORDER = 1 the MPI library's
 * (a reordering library linked in decides inside the call).
 * One iteration: MPI_Irecv from every neighbour, MPI_Isend of BYTES to every
 * neighbour, MPI_Waitany until all complete.  Rank 0 prints
 *   COMM_TIME <s>
 * = the slowest rank's time from the starting barrier, per iteration.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int ok = argc >= 5 && argc <= 7;
    int nx = ok ? atoi(argv[1]) : 0, ny = ok ? atoi(argv[2]) : 0, iters = ok ? atoi(argv[4]) : 0;
    long long bytes = ok ? atoll(argv[3]) : 0;
    int periodic = argc >= 6 ? atoi(argv[5]) : 0, reorder = argc == 7 ? atoi(argv[6]) : 0;
    if (!ok || nx < 1 || ny < 1 || (long long)nx * ny != size || bytes < 1 || bytes > 0x7fffffffLL || iters < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: stencil2d NX NY BYTES ITERATIONS [PERIODIC [REORDER]]  (NX*NY = %d ranks)\n",
                    size);
        MPI_Finalize();
        return 2;
    }
    int dims[2] = {nx, ny}, periods[2] = {periodic, periodic};
    MPI_Comm grid;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, reorder, &grid);
    MPI_Comm_rank(grid, &rank);
    int nb[4], n = 0;
    for (int d = 0; d < 2; d++) {
        int lo, hi;
        MPI_Cart_shift(grid, d, 1, &lo, &hi);
        if (lo != MPI_PROC_NULL) nb[n++] = lo;
        if (hi != MPI_PROC_NULL && !(n > 0 && nb[n - 1] == hi)) nb[n++] = hi;
    }
    char *sbuf = calloc((size_t)bytes, 1);
    char *rbuf = calloc((size_t)bytes * 4, 1);
    MPI_Request req[8];
    MPI_Barrier(grid);
    double t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++) {
        int nr = 0;
        for (int k = 0; k < n; k++)
            MPI_Irecv(rbuf + (size_t)k * bytes, (int)bytes, MPI_BYTE, nb[k], it, grid, &req[nr++]);
        for (int k = 0; k < n; k++)
            MPI_Isend(sbuf, (int)bytes, MPI_BYTE, nb[k], it, grid, &req[nr++]);
        for (int k = 0; k < nr; k++) {
            int idx;
            MPI_Waitany(nr, req, &idx, MPI_STATUS_IGNORE);
        }
    }
    double mine = MPI_Wtime() - t0, worst;
    MPI_Reduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, grid);
    if (rank == 0) {
        printf("COMM_TIME %.9e\n", worst / iters);
        fflush(stdout);
    }
    free(sbuf);
    free(rbuf);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return 0;
}

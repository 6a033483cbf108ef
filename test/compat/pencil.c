/*
 * pencil.c -- the communication of a pencil-decomposed 3-D FFT, written as
 * FFT libraries write it and with standard MPI only: MPI_Cart_create of an
 * R x C grid with reorder=1, MPI_Cart_sub into rows and columns, and
 * MPI_Alltoall in each (the two transposes), repeated a few times.  Every
 * received element is checked against what its sender wrote, so a wrong
 * sub-communicator or a lost message fails the run.
 *
 *   pencil R C
 * Rank 0 of MPI_COMM_WORLD prints "PASS" or "FAIL <errors>"; exit 0 / 1.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define COUNT 16 /* elements per destination */
#define STEPS 3

static long transpose(MPI_Comm line, int step)
{
    int me, n;
    MPI_Comm_rank(line, &me);
    MPI_Comm_size(line, &n);
    int *out = malloc((size_t) n * COUNT * sizeof(int)), *in = malloc((size_t) n * COUNT * sizeof(int));
    long errors = 0;
    if (!out || !in) {
        free(out);
        free(in);
        return 1;
    }
    for (int d = 0; d < n; d++)
        for (int k = 0; k < COUNT; k++)
            out[d * COUNT + k] = ((step * 131 + me) * 131 + d) * 131 + k;
    MPI_Alltoall(out, COUNT, MPI_INT, in, COUNT, MPI_INT, line);
    for (int s = 0; s < n; s++)
        for (int k = 0; k < COUNT; k++)
            errors += in[s * COUNT + k] != ((step * 131 + s) * 131 + me) * 131 + k;
    free(out);
    free(in);
    return errors;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    int dims[2] = { argc > 2 ? atoi(argv[1]) : 0, argc > 2 ? atoi(argv[2]) : 0 }, periods[2] = { 0, 0 };
    if (dims[0] < 1 || dims[1] < 1 || dims[0] * dims[1] != wsize) {
        if (wrank == 0)
            fprintf(stderr, "usage: pencil R C with R x C = %d ranks\n", wsize);
        MPI_Finalize();
        return 2;
    }
    MPI_Comm grid, rows, cols;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid);
    int keep_row[2] = { 0, 1 }, keep_col[2] = { 1, 0 };
    MPI_Cart_sub(grid, keep_row, &rows);
    MPI_Cart_sub(grid, keep_col, &cols);
    long errors = 0, all = 0;
    for (int step = 0; step < STEPS; step++) {
        errors += transpose(rows, step);
        errors += transpose(cols, step);
    }
    MPI_Allreduce(&errors, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&rows);
    MPI_Comm_free(&cols);
    MPI_Comm_free(&grid);
    if (wrank == 0)
        printf(all ? "FAIL %ld\n" : "PASS\n", all);
    MPI_Finalize();
    return all ? 1 : 0;
}

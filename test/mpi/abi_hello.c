/*
 * abi_hello.c -- an unmodified MPI program (standard MPI only, no MPIX), built
 * by test/mpi/abi_debian.sh with Debian's own mpicc (package mpich) and run
 * against the patched libmpi through LD_LIBRARY_PATH.
 *
 *   abi_hello MAPFILE X Y Z
 *
 * Creates a periodic X x Y x Z MPI_Cart_create(reorder=1) and measures, from
 * the mapfile the job was started with (line r = torus coordinates of world
 * rank r), the torus hop distance of every Cartesian neighbour pair.  Prints
 * "moved M worst W" on rank 0; exits 0 when ranks moved and W == 1.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int wrank, wsize, dims[3], periods[3] = { 1, 1, 1 };
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (argc != 5) {
        if (wrank == 0)
            fprintf(stderr, "usage: abi_hello MAPFILE X Y Z\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int d = 0; d < 3; d++)
        dims[d] = atoi(argv[2 + d]);
    int *xyz = malloc(3 * wsize * sizeof(int)), n = 0;
    FILE *f = fopen(argv[1], "r");
    char line[256];
    while (f && n < wsize && fgets(line, sizeof(line), f))
        if (line[0] != '#' && sscanf(line, "%d %d %d", &xyz[3 * n], &xyz[3 * n + 1], &xyz[3 * n + 2]) == 3)
            n++;
    if (f)
        fclose(f);
    if (n != wsize)
        MPI_Abort(MPI_COMM_WORLD, 3);

    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 1, &cart);
    int rank, moved, total, worst = 0, all_worst;
    MPI_Comm_rank(cart, &rank);
    moved = rank != wrank;
    MPI_Group g, w;
    MPI_Comm_group(cart, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    for (int d = 0; d < 3; d++) {
        int src, dst, wdst, hops = 0;
        MPI_Cart_shift(cart, d, 1, &src, &dst);
        MPI_Group_translate_ranks(g, 1, &dst, w, &wdst);
        for (int e = 0; e < 3; e++) {
            int delta = abs(xyz[3 * wrank + e] - xyz[3 * wdst + e]);
            hops += delta < dims[e] - delta ? delta : dims[e] - delta;
        }
        if (hops > worst)
            worst = hops;
    }
    MPI_Allreduce(&moved, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&worst, &all_worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("moved %d worst %d\n", total, all_worst);
    MPI_Group_free(&g);
    MPI_Group_free(&w);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    free(xyz);
    return (total > 0 && all_worst == 1) ? 0 : 1;
}

/*
 * compat.h -- what the programs of test/compat share: a periodic 3-D grid
 * over MPI_COMM_WORLD (MPI_Dims_create), the grid neighbours of a rank
 * computed by hand (row-major, as MPI numbers Cartesian ranks), and the
 * report on rank 0 (stdout: "moved M of N" and PASS or FAIL; exit status 0
 * on PASS).  Standard MPI only: the programs are compiled with Debian's
 * mpicc and run with or without librankmap-pmpi preloaded
 * (test/compat/compat.sh).
 */
#ifndef COMPAT_H
#define COMPAT_H

#include <mpi.h>
#include <stdio.h>

static int compat_failures;

#define COMPAT_CHECK(c, ...)                                                                \
    do {                                                                                   \
        if (!(c) && compat_failures++ < 5) {                                               \
            fprintf(stderr, "check failed (%s): ", #c);                                    \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fputc('\n', stderr);                                                           \
        }                                                                                  \
    } while (0)

/* The start every Cartesian program shares: MPI_Init, then a periodic 3-D
 * grid of all world ranks (MPI_Dims_create) created with reorder=1; its
 * dims, this process's rank in MPI_COMM_WORLD and in the grid. */
static inline void compat_cart(int *argc, char ***argv, int dims[3], int *wrank, int *crank,
                               MPI_Comm *cart)
{
    int size, periods[3] = { 1, 1, 1 };
    MPI_Init(argc, argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, wrank);
    dims[0] = dims[1] = dims[2] = 0;
    MPI_Dims_create(size, 3, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 1, cart);
    MPI_Comm_rank(*cart, crank);
}

/* The neighbours of RANK along dimension D (shift by +1: *src below, *dst
 * above), by arithmetic on the row-major numbering. */
static inline void compat_shift_by_hand(const int dims[3], int rank, int d, int *src, int *dst)
{
    int c[3], r = rank;
    for (int k = 2; k >= 0; k--) {
        c[k] = r % dims[k];
        r /= dims[k];
    }
    int keep = c[d];
    c[d] = (keep + 1) % dims[d];
    *dst = (c[0] * dims[1] + c[1]) * dims[2] + c[2];
    c[d] = (keep - 1 + dims[d]) % dims[d];
    *src = (c[0] * dims[1] + c[1]) * dims[2] + c[2];
}

/* Rank 0 prints how many processes got a new rank and the verdict of all;
 * returns the exit status. */
static inline int compat_report(int moved_here)
{
    int moved = 0, bad = 0, size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&moved_here, &moved, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&compat_failures, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("moved %d of %d\n%s\n", moved, size, bad ? "FAIL" : "PASS");
        fflush(stdout);
    }
    return bad ? 1 : 0;
}

#endif

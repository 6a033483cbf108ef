/*
 * mpi_check.h -- tiny check helpers shared by the MPI tests of the patched
 * MPICH (the C files of test/mpi).  CHECK records a failure with its line; finish()
 * sums failures over MPI_COMM_WORLD, prints one PASS/FAIL line on rank 0
 * and gives the exit status CTest looks at.
 */
#ifndef RANKMAP_MPI_CHECK_H
#define RANKMAP_MPI_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures = 0;

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            int wr_;                                                          \
            MPI_Comm_rank(MPI_COMM_WORLD, &wr_);                              \
            if (check_failures < 5) {                                         \
                fprintf(stderr, "[world %d] %s:%d: check failed: %s: ", wr_,  \
                        __FILE__, __LINE__, #cond);                           \
                fprintf(stderr, __VA_ARGS__);                                 \
                fputc('\n', stderr);                                          \
            }                                                                 \
            check_failures++;                                                 \
        }                                                                     \
    } while (0)

static inline int finish(const char *name)
{
    int total = 0, rank;
    MPI_Allreduce(&check_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("%s: %s (%d failed checks)\n", name, total ? "FAIL" : "PASS", total);
    MPI_Finalize();
    return total ? 1 : 0;
}

/* MPI_COMM_WORLD rank of rank r of comm. */
static inline int world_rank_of(MPI_Comm comm, int r)
{
    MPI_Group g, w;
    int out;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    MPI_Group_translate_ranks(g, 1, &r, w, &out);
    MPI_Group_free(&g);
    MPI_Group_free(&w);
    return out;
}

/* "4x4x4" -> dims, returns ndims (0 on error). */
static inline int parse_dims(const char *s, int *dims, int max)
{
    int n = 0;
    while (*s && n < max) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1)
            return 0;
        dims[n++] = (int) v;
        s = end;
        if (*s == 'x')
            s++;
        else if (*s)
            return 0;
    }
    return n;
}


/* Periodic neighbours of vertex v of an nd-dimensional grid (row-major,
 * last dimension fastest), minus then plus for each dimension; returns 2*nd. */
static inline int grid_neighbours_of(int nd, const int *dims, int v, int *out)
{
    int c[16], k = 0;
    for (int d = nd - 1, r = v; d >= 0; d--) {
        c[d] = r % dims[d];
        r /= dims[d];
    }
    for (int d = 0; d < nd; d++)
        for (int s = -1; s <= 1; s += 2) {
            int save = c[d], u = 0;
            c[d] = (c[d] + s + dims[d]) % dims[d];
            for (int e = 0; e < nd; e++)
                u = u * dims[e] + c[e];
            c[d] = save;
            out[k++] = u;
        }
    return k;
}

#endif

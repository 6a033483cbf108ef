/*
 * bench/mpi_reorder.c -- cost of reorder=1 in the patched MPICH.
 *
 * Times MPI_Cart_create (periodic grid from MPI_Dims_create(size, 3)) and
 * MPI_Dist_graph_create_adjacent (the same grid's neighbour graph) with
 * reorder=0 and reorder=1 in the same run, REPS calls each (slowest rank,
 * median over calls), and the mapper's own share: the seconds rank 0 spent
 * inside rankmap_map (MPIX_Rankmap_last_report), which leaves out the
 * communicator split MPICH does anyway.  Prints Markdown table rows; run it
 * through bench/mpi_reorder.sh, which sets the machine and prints the header.
 *
 *   mpi_reorder [REPS]
 */
#include <mpi.h>
#include <mpix_rankmap.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int dims[3], periods[3] = { 1, 1, 1 };

static int neighbours(int v, int *out)
{
    int c[3], k = 0;
    for (int d = 2, r = v; d >= 0; d--) {
        c[d] = r % dims[d];
        r /= dims[d];
    }
    for (int d = 0; d < 3; d++) {
        if (dims[d] < 2)
            continue;
        for (int s = -1; s <= 1; s += 2) {
            int save = c[d];
            c[d] = (c[d] + s + dims[d]) % dims[d];
            out[k++] = (c[0] * dims[1] + c[1]) * dims[2] + c[2];
            c[d] = save;
        }
    }
    return k;
}

/* one call of kind (0 cart, 1 dist graph); returns the slowest rank's seconds */
static double one_call(int kind, int reorder, double *map_s)
{
    int rank, nb[6], k;
    MPI_Comm comm;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    k = neighbours(rank, nb);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    if (kind == 0)
        MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, reorder, &comm);
    else
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, k, nb, MPI_UNWEIGHTED, k, nb,
                                       MPI_UNWEIGHTED, MPI_INFO_NULL, reorder, &comm);
    t = MPI_Wtime() - t;
    MPIX_Rankmap_report rep;
    MPIX_Rankmap_last_report(&rep);
    *map_s = (reorder && rep.valid) ? rep.map_seconds : 0;
    double tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (comm != MPI_COMM_NULL)
        MPI_Comm_free(&comm);
    return tmax;
}

int main(int argc, char **argv)
{
    int rank, size, reps = argc > 1 ? atoi(argv[1]) : 10;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 3, dims);
    double *t0 = malloc(reps * sizeof(double)), *t1 = malloc(reps * sizeof(double));
    double *m = malloc(reps * sizeof(double));
    const char *names[2] = { "MPI_Cart_create", "MPI_Dist_graph_create_adjacent" };
    for (int kind = 0; kind < 2; kind++) {
        double dummy;
        one_call(kind, 0, &dummy);      /* warm-up: connections, first split */
        one_call(kind, 1, &dummy);
        for (int i = 0; i < reps; i++) {        /* interleaved, same conditions */
            t0[i] = one_call(kind, 0, &dummy);
            t1[i] = one_call(kind, 1, &m[i]);
        }
        double a = median(t0, reps), b = median(t1, reps), c = median(m, reps);
        if (rank == 0)
            printf("| %d | %s | %dx%dx%d | %.2f | %.2f | %+.2f | %.2f |\n", size, names[kind],
                   dims[0], dims[1], dims[2], 1e3 * a, 1e3 * b, 1e3 * (b - a), 1e3 * c);
    }
    free(t0);
    free(t1);
    free(m);
    MPI_Finalize();
    return 0;
}

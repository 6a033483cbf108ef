/*
 * isend_cost.c -- the time one MPI_Isend call takes, for the profiler
 * overhead benchmark (bench/pmpi/run.sh).  Plain MPI, 2 ranks.
 *
 *   isend_cost BYTES BURSTS
 *
 * Rank 1 pre-posts 64 receives; rank 0 times a burst of 64 MPI_Isend calls
 * of BYTES bytes (eager: the call returns without waiting for rank 1) on a
 * duplicate of MPI_COMM_WORLD (so the profiler takes its general path, the
 * rank translation of a communicator other than MPI_COMM_WORLD), then both
 * wait.  The median burst over BURSTS gives the cost per call; timing only
 * the calls keeps the scheduling noise of an oversubscribed machine out.
 *   isend_cost bytes B bursts N ns_per_isend T
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BURST 64

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int bytes = argc > 1 ? atoi(argv[1]) : 8, bursts = argc > 2 ? atoi(argv[2]) : 2000;
    if (size != 2 || bytes < 0 || bursts < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: isend_cost BYTES BURSTS (2 ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    char *buf = calloc((size_t) bytes * BURST + 1, 1);
    double *t = malloc(bursts * sizeof(double));
    MPI_Request rq[BURST];
    MPI_Status st[BURST];
    for (int b = -bursts / 10 - 1; b < bursts; b++) {
        if (rank == 1) {
            for (int i = 0; i < BURST; i++)
                MPI_Irecv(buf + (size_t) i * bytes, bytes, MPI_CHAR, 0, i, comm, &rq[i]);
            MPI_Barrier(comm);
        } else {
            MPI_Barrier(comm);
            double t0 = MPI_Wtime();
            for (int i = 0; i < BURST; i++)
                MPI_Isend(buf + (size_t) i * bytes, bytes, MPI_CHAR, 1, i, comm, &rq[i]);
            double t1 = MPI_Wtime();
            if (b >= 0)
                t[b] = (t1 - t0) / BURST;
        }
        MPI_Waitall(BURST, rq, st);
    }
    if (rank == 0) {
        qsort(t, bursts, sizeof(double), cmp_double);
        printf("isend_cost bytes %d bursts %d ns_per_isend %.1f\n", bytes, bursts,
               1e9 * t[bursts / 2]);
    }
    free(buf);
    free(t);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}

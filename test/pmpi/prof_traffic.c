/*
 * prof_traffic.c -- an MPI program with a known point-to-point pattern, for
 * the profiler test (test/pmpi/profile_check.sh).  Plain MPI: it knows
 * nothing of librankmap-profile, which is preloaded by the test.
 *
 *   prof_traffic EXPECTED_FILE
 *
 * Rank 0 writes to EXPECTED_FILE the pairs, histogram and self-message count
 * the pattern must produce, computed from the pattern's own definition
 * (below), in the profile's line format; the test compares them with the
 * profile written at MPI_Finalize.  Needs at least 2 ranks; every send kind
 * the profiler intercepts is used once or more:
 *   1. MPI_Send x3 (10 ints), MPI_Ssend (1 double), MPI_Bsend (5 chars),
 *      MPI_Rsend (2 ints) to r+1
 *   2. MPI_Isend x2 (100 bytes) to r+2, MPI_Issend (1 int) and MPI_Ibsend
 *      (3 chars) to r+1, MPI_Irsend (4 chars) to r+2
 *   3. persistent MPI_Send_init (7 shorts) to r+3: MPI_Start x2, MPI_Startall x2;
 *      MPI_Ssend_init (1 int) to r+1, started once; a persistent receive is
 *      started too (it must not count)
 *   4. MPI_Sendrecv (3 doubles) to r-1, MPI_Sendrecv_replace (6 ints) to r+1
 *   5. a sub-communicator (parity classes, reversed order): 3 ints to the
 *      next sub-rank
 *   6. an intercommunicator between the parity classes: an empty message
 *      to remote rank (local rank mod remote size)
 *   7. MPI_PROC_NULL sends (not counted) and an MPI_Isend to oneself (not a
 *      pair: meta self_messages)
 *   8. one 70000-byte message to r+4 (histogram bin 17); derived datatypes:
 *      a contiguous type of 3 ints sent twice, freed, then types of 5 and
 *      7 doubles created (one may reuse the freed handle) and sent, so a
 *      stale datatype size would be counted wrong
 *   9. with MPI_THREAD_MULTIPLE: 4 threads x 5 messages of 16 bytes to r+1,
 *      received by 4 threads (tags 100..103)
 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTHREADS 4
#define PER_THREAD 5

static int P, R;
static uint64_t *exp_count, *exp_bytes;
static uint64_t exp_hist[65], exp_self;

/* the expectation: every rank adds its own sends, rank 0 sums them */
static void expect(int src, int dst, uint64_t bytes)
{
    if (src != R)
        return;
    if (dst == src) {
        exp_self++;
        return;
    }
    exp_count[dst]++;
    exp_bytes[dst] += bytes;
    int k = 0;
    while (k < 64 && (bytes >> k) != 0)
        k++;
    exp_hist[k]++;
}

static int wrap(int v)
{
    return ((v % P) + P) % P;
}

static void *thread_send(void *arg)
{
    int t = (int) (intptr_t) arg;
    char buf[16] = { 0 };
    for (int i = 0; i < PER_THREAD; i++)
        MPI_Send(buf, 16, MPI_CHAR, wrap(R + 1), 100 + t, MPI_COMM_WORLD);
    return NULL;
}

static void *thread_recv(void *arg)
{
    int t = (int) (intptr_t) arg;
    char buf[16];
    for (int i = 0; i < PER_THREAD; i++)
        MPI_Recv(buf, 16, MPI_CHAR, wrap(R - 1), 100 + t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &R);
    if (argc != 2 || P < 2) {
        if (R == 0)
            fprintf(stderr, "usage: prof_traffic EXPECTED_FILE (at least 2 ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    exp_count = calloc(P, sizeof(uint64_t));
    exp_bytes = calloc(P, sizeof(uint64_t));
    int next = wrap(R + 1), prev = wrap(R - 1);
    int ints[16] = { 0 };
    double dbl[8] = { 0 };
    char chars[128] = { 0 };
    short shorts[8] = { 0 };
    MPI_Request rq[8];
    static MPI_Status sts[64]; /* (MPI_STATUSES_IGNORE trips gcc 12 -Wstringop-overflow) */

    /* 1. blocking sends to r+1 */
    for (int i = 0; i < 3; i++) {
        MPI_Send(ints, 10, MPI_INT, next, 1, MPI_COMM_WORLD);
        MPI_Recv(ints, 10, MPI_INT, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        expect(R, next, 10 * sizeof(int));
    }
    MPI_Irecv(dbl, 1, MPI_DOUBLE, prev, 2, MPI_COMM_WORLD, &rq[0]);
    MPI_Ssend(dbl + 1, 1, MPI_DOUBLE, next, 2, MPI_COMM_WORLD);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    expect(R, next, sizeof(double));
    int bsize = 1024 + MPI_BSEND_OVERHEAD * 4;
    char *battach = malloc(bsize);
    MPI_Buffer_attach(battach, bsize);
    MPI_Bsend(chars, 5, MPI_CHAR, next, 3, MPI_COMM_WORLD);
    MPI_Recv(chars + 64, 5, MPI_CHAR, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect(R, next, 5);
    MPI_Irecv(ints + 8, 2, MPI_INT, prev, 4, MPI_COMM_WORLD, &rq[0]);
    MPI_Barrier(MPI_COMM_WORLD); /* the receive is posted everywhere */
    MPI_Rsend(ints, 2, MPI_INT, next, 4, MPI_COMM_WORLD);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    expect(R, next, 2 * sizeof(int));

    /* 2. non-blocking sends */
    MPI_Irecv(chars, 100, MPI_BYTE, wrap(R - 2), 5, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(chars, 100, MPI_BYTE, wrap(R - 2), 5, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(chars + 1, 100, MPI_BYTE, wrap(R + 2), 5, MPI_COMM_WORLD, &rq[2]);
    MPI_Isend(chars + 1, 100, MPI_BYTE, wrap(R + 2), 5, MPI_COMM_WORLD, &rq[3]);
    MPI_Irecv(ints, 1, MPI_INT, prev, 6, MPI_COMM_WORLD, &rq[4]);
    MPI_Issend(ints + 1, 1, MPI_INT, next, 6, MPI_COMM_WORLD, &rq[5]);
    MPI_Irecv(chars + 110, 3, MPI_CHAR, prev, 7, MPI_COMM_WORLD, &rq[6]);
    MPI_Ibsend(chars + 120, 3, MPI_CHAR, next, 7, MPI_COMM_WORLD, &rq[7]);
    MPI_Waitall(8, rq, sts);
    expect(R, wrap(R + 2), 100);
    expect(R, wrap(R + 2), 100);
    expect(R, next, sizeof(int));
    expect(R, next, 3);
    MPI_Irecv(chars, 4, MPI_CHAR, wrap(R - 2), 8, MPI_COMM_WORLD, &rq[0]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Irsend(chars + 8, 4, MPI_CHAR, wrap(R + 2), 8, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, sts);
    expect(R, wrap(R + 2), 4);
    void *bdetach;
    MPI_Buffer_detach(&bdetach, &bsize);
    free(battach);

    /* 3. persistent requests */
    MPI_Request ps[2], pss;
    MPI_Send_init(shorts, 7, MPI_SHORT, wrap(R + 3), 9, MPI_COMM_WORLD, &ps[0]);
    MPI_Recv_init(shorts, 7, MPI_SHORT, wrap(R - 3), 9, MPI_COMM_WORLD, &ps[1]);
    for (int i = 0; i < 2; i++) {
        MPI_Start(&ps[1]);
        MPI_Start(&ps[0]);
        MPI_Waitall(2, ps, sts);
        expect(R, wrap(R + 3), 7 * sizeof(short));
    }
    for (int i = 0; i < 2; i++) {
        MPI_Startall(2, ps);
        MPI_Waitall(2, ps, sts);
        expect(R, wrap(R + 3), 7 * sizeof(short));
    }
    MPI_Request_free(&ps[0]);
    MPI_Request_free(&ps[1]);
    MPI_Ssend_init(ints, 1, MPI_INT, next, 10, MPI_COMM_WORLD, &pss);
    MPI_Irecv(ints + 4, 1, MPI_INT, prev, 10, MPI_COMM_WORLD, &rq[0]);
    MPI_Start(&pss);
    MPI_Wait(&pss, MPI_STATUS_IGNORE);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Request_free(&pss);
    expect(R, next, sizeof(int));

    /* 4. sendrecv */
    MPI_Sendrecv(dbl, 3, MPI_DOUBLE, prev, 11, dbl + 4, 3, MPI_DOUBLE, next, 11, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    expect(R, prev, 3 * sizeof(double));
    MPI_Sendrecv_replace(ints, 6, MPI_INT, next, 12, prev, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect(R, next, 6 * sizeof(int));

    /* 5. sub-communicator: parity classes, key -R (descending world rank) */
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, R % 2, -R, &sub);
    int srank, ssize;
    MPI_Comm_rank(sub, &srank);
    MPI_Comm_size(sub, &ssize);
    /* world ranks of my class in descending order: sub rank s = top - 2s */
    int top = (P - 1) % 2 == R % 2 ? P - 1 : P - 2;
    int sdst = (srank + 1) % ssize, ssrc = (srank - 1 + ssize) % ssize;
    MPI_Sendrecv(ints, 3, MPI_INT, sdst, 13, ints + 8, 3, MPI_INT, ssrc, 13, sub,
                 MPI_STATUS_IGNORE);
    expect(R, top - 2 * sdst, 3 * sizeof(int));

    /* 6. intercommunicator between the classes (leaders: the top ranks) */
    MPI_Comm inter;
    int other_top = (P - 1) % 2 == 1 - R % 2 ? P - 1 : P - 2; /* remote leader */
    MPI_Intercomm_create(sub, 0, MPI_COMM_WORLD, other_top, 14, &inter);
    int rsize;
    MPI_Comm_remote_size(inter, &rsize);
    int rdst = srank % rsize;
    MPI_Request irq[64];
    int nirq = 0;
    MPI_Isend(NULL, 0, MPI_INT, rdst, 15, inter, &irq[nirq++]);
    expect(R, other_top - 2 * rdst, 0);
    /* receive from every remote rank whose (rank mod my size) is me */
    for (int q = 0; q < rsize && nirq < 64; q++)
        if (q % ssize == srank)
            MPI_Irecv(NULL, 0, MPI_INT, q, 15, inter, &irq[nirq++]);
    MPI_Waitall(nirq, irq, sts);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&sub);

    /* 7. MPI_PROC_NULL and oneself */
    MPI_Send(ints, 4, MPI_INT, MPI_PROC_NULL, 16, MPI_COMM_WORLD);
    MPI_Isend(ints, 4, MPI_INT, MPI_PROC_NULL, 16, MPI_COMM_WORLD, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Isend(ints, 4, MPI_INT, R, 17, MPI_COMM_WORLD, &rq[0]);
    MPI_Recv(ints + 8, 4, MPI_INT, R, 17, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    expect(R, R, 16);

    /* 8. a large message */
    char *big = calloc(70000, 1), *bigr = calloc(70000, 1);
    MPI_Sendrecv(big, 70000, MPI_CHAR, wrap(R + 4), 18, bigr, 70000, MPI_CHAR, wrap(R - 4), 18,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect(R, wrap(R + 4), 70000);
    free(big);
    free(bigr);
    int dsizes[3] = { 3 * (int) sizeof(int), 5 * (int) sizeof(double), 7 * (int) sizeof(double) };
    MPI_Datatype dt[3];
    MPI_Type_contiguous(3, MPI_INT, &dt[0]);
    MPI_Type_commit(&dt[0]);
    for (int i = 0; i < 2; i++) {
        MPI_Sendrecv(ints, 1, dt[0], next, 19, ints + 8, 1, dt[0], prev, 19, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        expect(R, next, (uint64_t) dsizes[0]);
    }
    MPI_Type_free(&dt[0]);
    for (int k = 1; k < 3; k++) {
        MPI_Type_contiguous(k == 1 ? 5 : 7, MPI_DOUBLE, &dt[k]);
        MPI_Type_commit(&dt[k]);
        double dbuf[16] = { 0 };
        MPI_Sendrecv(dbuf, 1, dt[k], next, 19 + k, dbuf + 8, 1, dt[k], prev, 19 + k,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        expect(R, next, (uint64_t) dsizes[k]);
        MPI_Type_free(&dt[k]);
    }

    /* 9. threads */
    int threaded = provided == MPI_THREAD_MULTIPLE, all_threaded;
    MPI_Allreduce(&threaded, &all_threaded, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all_threaded) {
        pthread_t th[2 * NTHREADS];
        for (int t = 0; t < NTHREADS; t++) {
            pthread_create(&th[t], NULL, thread_recv, (void *) (intptr_t) t);
            pthread_create(&th[NTHREADS + t], NULL, thread_send, (void *) (intptr_t) t);
        }
        for (int t = 0; t < 2 * NTHREADS; t++)
            pthread_join(th[t], NULL);
        for (int i = 0; i < NTHREADS * PER_THREAD; i++)
            expect(R, next, 16);
    } else if (R == 0) {
        fprintf(stderr, "prof_traffic: MPI_THREAD_MULTIPLE not provided, thread part skipped\n");
    }

    /* rank 0 gathers the expectation and writes it */
    uint64_t *row = malloc(2 * P * sizeof(uint64_t)), *all = NULL;
    for (int d = 0; d < P; d++) {
        row[2 * d] = exp_count[d];
        row[2 * d + 1] = exp_bytes[d];
    }
    uint64_t hist[66], histsum[66];
    memcpy(hist, exp_hist, sizeof(exp_hist));
    hist[65] = exp_self;
    if (R == 0)
        all = malloc(2 * (size_t) P * P * sizeof(uint64_t));
    MPI_Gather(row, 2 * P, MPI_UINT64_T, all, 2 * P, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    MPI_Reduce(hist, histsum, 66, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    int rc = 0;
    if (R == 0) {
        FILE *f = fopen(argv[1], "w");
        if (!f) {
            perror(argv[1]);
            rc = 1;
        } else {
            fprintf(f, "tasks %d\n", P);
            fprintf(f, "threads %d\n", all_threaded);
            fprintf(f, "meta self_messages %llu\n", (unsigned long long) histsum[65]);
            for (int k = 0; k < 65; k++)
                if (histsum[k])
                    fprintf(f, "histogram %d %llu\n", k, (unsigned long long) histsum[k]);
            for (int s = 0; s < P; s++)
                for (int d = 0; d < P; d++)
                    if (all[2 * ((size_t) s * P + d)])
                        fprintf(f, "pair %d %d %llu %llu\n", s, d,
                                (unsigned long long) all[2 * ((size_t) s * P + d)],
                                (unsigned long long) all[2 * ((size_t) s * P + d) + 1]);
            fclose(f);
        }
    }
    free(row);
    free(all);
    free(exp_count);
    free(exp_bytes);
    MPI_Finalize();
    return rc;
}

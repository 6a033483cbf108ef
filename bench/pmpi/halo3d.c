/*
 * halo3d.c -- 3-D halo exchange, the workload of the profiler overhead
 * benchmark (bench/pmpi/run.sh).  Plain MPI.
 *
 *   halo3d N ITERS [WORK]
 *
 * Each rank owns an N x N x N block of doubles of a periodic 3-D process grid
 * (MPI_Dims_create, MPI_Cart_create with reorder=0).  One iteration packs
 * its six faces (N*N doubles each), posts six MPI_Irecv and six MPI_Isend,
 * MPI_Waitall, unpacks, and applies a 7-point stencil WORK times (default 1)
 * to the block.  Prints, on rank 0, the slowest rank's wall time per
 * iteration after one untimed warm-up iteration block, and the slowest
 * rank's median over blocks of ITERS/100 iterations of the time per
 * iteration (a block in which the process lost its core to another job is
 * an outlier there, not a share of the mean):
 *   halo3d ranks P n N face_bytes B iters I us_per_iter T median_block_us_per_iter M
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AT(i, j, k) ((size_t) (i) * (n + 2) * (n + 2) + (size_t) (j) * (n + 2) + (size_t) (k))

static int n;
static double *u, *v;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* face f (dim f/2, side f%2) of the interior, packed into buf */
static void pack(int f, double *buf)
{
    int d = f / 2, at = f % 2 ? n : 1, m = 0;
    for (int a = 1; a <= n; a++)
        for (int b = 1; b <= n; b++)
            buf[m++] = d == 0 ? u[AT(at, a, b)] : d == 1 ? u[AT(a, at, b)] : u[AT(a, b, at)];
}

/* face f of the ghost layer, from buf */
static void unpack(int f, const double *buf)
{
    int d = f / 2, at = f % 2 ? n + 1 : 0, m = 0;
    for (int a = 1; a <= n; a++)
        for (int b = 1; b <= n; b++) {
            if (d == 0)
                u[AT(at, a, b)] = buf[m++];
            else if (d == 1)
                u[AT(a, at, b)] = buf[m++];
            else
                u[AT(a, b, at)] = buf[m++];
        }
}

static void stencil(void)
{
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            for (int k = 1; k <= n; k++)
                v[AT(i, j, k)] = (6 * u[AT(i, j, k)] + u[AT(i - 1, j, k)] + u[AT(i + 1, j, k)] +
                                  u[AT(i, j - 1, k)] + u[AT(i, j + 1, k)] + u[AT(i, j, k - 1)] +
                                  u[AT(i, j, k + 1)]) /
                                 12.0;
    double *t = u;
    u = v;
    v = t;
}

int main(int argc, char **argv)
{
    int rank, size, dims[3] = { 0, 0, 0 }, periods[3] = { 1, 1, 1 };
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3 || (n = atoi(argv[1])) < 1 || atoi(argv[2]) < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: halo3d N ITERS [WORK]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int iters = atoi(argv[2]), work = argc > 3 ? atoi(argv[3]) : 1;
    MPI_Dims_create(size, 3, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    int nb[6];
    for (int d = 0; d < 3; d++)
        MPI_Cart_shift(cart, d, 1, &nb[2 * d], &nb[2 * d + 1]);

    size_t cells = (size_t) (n + 2) * (n + 2) * (n + 2), face = (size_t) n * n;
    u = calloc(cells, sizeof(double));
    v = calloc(cells, sizeof(double));
    double *sbuf = malloc(6 * face * sizeof(double)), *rbuf = malloc(6 * face * sizeof(double));
    for (size_t i = 0; i < cells; i++)
        u[i] = (double) ((i * 7 + (size_t) rank) % 13);
    MPI_Request rq[12];
    MPI_Status st[12];

    double t0 = 0, tb = 0;
    int warm = iters / 10 > 0 ? iters / 10 : 1;
    int blk = iters / 100 > 0 ? iters / 100 : 1, nblk = 0;
    double *bt = malloc((size_t) (iters / blk + 1) * sizeof(double));
    if (!bt) {
        fprintf(stderr, "halo3d: out of memory for %d block times\n", iters / blk + 1);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int it = -warm; it < iters; it++) {
        if (it == 0) {
            MPI_Barrier(cart);
            t0 = tb = MPI_Wtime();
        } else if (it > 0 && it % blk == 0) {
            double now = MPI_Wtime();
            bt[nblk++] = (now - tb) / blk;
            tb = now;
        }
        /* face f goes to the neighbour on its side; it arrives as face f^1 there */
        for (int f = 0; f < 6; f++)
            MPI_Irecv(rbuf + f * face, (int) face, MPI_DOUBLE, nb[f], f ^ 1, cart, &rq[f]);
        for (int f = 0; f < 6; f++) {
            pack(f, sbuf + f * face);
            MPI_Isend(sbuf + f * face, (int) face, MPI_DOUBLE, nb[f], f, cart, &rq[6 + f]);
        }
        MPI_Waitall(12, rq, st);
        for (int f = 0; f < 6; f++)
            unpack(f, rbuf + f * face);
        for (int w = 0; w < work; w++)
            stencil();
    }
    double end = MPI_Wtime();
    if (iters % blk == 0)
        bt[nblk++] = (end - tb) / blk;
    qsort(bt, (size_t) nblk, sizeof(double), cmp_double);
    double mine[2] = { (end - t0) / iters, nblk ? bt[nblk / 2] : 0 }, slowest[2];
    MPI_Reduce(mine, slowest, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("halo3d ranks %d n %d face_bytes %zu iters %d us_per_iter %.3f "
               "median_block_us_per_iter %.3f\n",
               size, n, face * sizeof(double), iters, 1e6 * slowest[0], 1e6 * slowest[1]);
    free(bt);
    free(u);
    free(v);
    free(sbuf);
    free(rbuf);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}

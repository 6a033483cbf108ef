/*
 * scan_check.c -- checks smpi_scan.c before bench/apps uses it: MPI_Scan
 * with a commutative operation (MPI_SUM on 3 ints, in place and not) and a
 * non-commutative one (2x2 integer matrix products, which depend on the
 * order of the ranks), against the prefix computed by every rank from the
 * definition.  Prints "scan_check: PASS" on rank 0, or names the rank and
 * the case that differ and exits 1.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void matmul(void *in, void *inout, int *len, MPI_Datatype *type)
{
    /* inout = in * inout, for *len 2x2 matrices of longs (mod 1000003) */
    long *a = in, *b = inout;
    (void)type;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        long c[4] = {(a[0] * b[0] + a[1] * b[2]) % 1000003, (a[0] * b[1] + a[1] * b[3]) % 1000003,
                     (a[2] * b[0] + a[3] * b[2]) % 1000003, (a[2] * b[1] + a[3] * b[3]) % 1000003};
        memcpy(b, c, sizeof c);
    }
}

static void mine(int r, long m[4])
{
    m[0] = r + 1;
    m[1] = 2 * r + 3;
    m[2] = r % 5;
    m[3] = 7;
}

int main(int argc, char **argv)
{
    int rank, size, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int v[3] = {rank, 2 * rank + 1, -rank}, s[3], w[3];
    MPI_Scan(v, s, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    memcpy(w, v, sizeof v);
    MPI_Scan(MPI_IN_PLACE, w, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    long e0 = (long)rank * (rank + 1) / 2;
    if (s[0] != e0 || s[1] != (rank + 1) * (rank + 1) || s[2] != -e0 || memcmp(s, w, sizeof s))
        bad = 1;
    MPI_Datatype mat;
    MPI_Op op;
    MPI_Type_contiguous(4, MPI_LONG, &mat);
    MPI_Type_commit(&mat);
    MPI_Op_create(matmul, 0, &op);
    long m[4], got[4], want[4] = {1, 0, 0, 1};
    mine(rank, m);
    MPI_Scan(m, got, 1, mat, op, MPI_COMM_WORLD);
    for (int r = 0; r <= rank; r++) { /* want = M_0 * M_1 * ... * M_rank */
        long x[4];
        mine(r, x);
        int one = 1;
        matmul(want, x, &one, NULL);
        memcpy(want, x, sizeof x);
    }
    if (memcmp(got, want, sizeof want))
        bad |= 2;
    if (bad)
        fprintf(stderr, "scan_check: rank %d of %d: %s differs\n", rank, size,
                bad == 1 ? "MPI_SUM" : bad == 2 ? "the matrix product" : "both cases");
    int any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
    if (rank == 0 && !any)
        printf("scan_check: PASS\n");
    MPI_Op_free(&op);
    MPI_Type_free(&mat);
    MPI_Finalize();
    return any ? 1 : 0;
}

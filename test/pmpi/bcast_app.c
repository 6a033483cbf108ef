/*
 * bcast_app.c -- an unmodified MPI program (standard MPI only) checking
 * MPI_Bcast byte for byte, for the torus broadcast of the PMPI plugin
 * (MPIR_CVAR_RANKMAP_BCAST=always, test/pmpi/reorder.sh and smpi.sh).
 *
 *   bcast_app [INTS]      (default 262144 ints = 1 MiB)
 *
 * Broadcasts from three roots on MPI_COMM_WORLD, on a duplicate and on a
 * reordered Cartesian communicator (periodic 1-D grid of all ranks): a
 * contiguous buffer of INTS ints, a small one (below the plugin's threshold)
 * and a strided vector datatype; every rank checks every element.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;

static int value(int root, int i, int salt)
{
    return (root * 7919 + i * 31 + salt) ^ 0x5a5a;
}

static void check_contiguous(MPI_Comm comm, int n, int root, int salt)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    int *buf = malloc((size_t) n * sizeof(int));
    for (int i = 0; i < n; i++)
        buf[i] = rank == root ? value(root, i, salt) : -1;
    MPI_Bcast(buf, n, MPI_INT, root, comm);
    for (int i = 0; i < n; i++)
        if (buf[i] != value(root, i, salt)) {
            if (failures++ < 5)
                fprintf(stderr, "bcast_app: %d ints from root %d: element %d wrong\n", n, root, i);
            break;
        }
    free(buf);
}

/* 20 x vector(1000 blocks of 3 ints, stride 5): 240000 bytes of data */
static void check_vector(MPI_Comm comm, int root)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    MPI_Datatype vec;
    MPI_Type_vector(1000, 3, 5, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(vec, &lb, &extent);
    size_t n = (size_t) 20 * extent / sizeof(int);
    int *buf = malloc(n * sizeof(int));
    for (size_t i = 0; i < n; i++)
        buf[i] = rank == root ? value(root, (int) i, 3) : -1;
    MPI_Bcast(buf, 20, vec, root, comm);
    size_t per = (size_t) extent / sizeof(int); /* 4998 ints per vector */
    for (size_t i = 0; i < n; i++) {
        int in_type = (i % per) % 5 < 3; /* the gaps between blocks are not sent */
        int want = in_type || rank == root ? value(root, (int) i, 3) : -1;
        if (buf[i] != want) {
            if (failures++ < 5)
                fprintf(stderr, "bcast_app: vector from root %d: element %zu wrong\n", root, i);
            break;
        }
    }
    free(buf);
    MPI_Type_free(&vec);
}

static void check_comm(MPI_Comm comm, int n)
{
    int size;
    MPI_Comm_size(comm, &size);
    int roots[3] = { 0, size - 1, size / 2 };
    for (int r = 0; r < 3; r++) {
        check_contiguous(comm, n, roots[r], 1);
        check_contiguous(comm, 100, roots[r], 2);
        check_vector(comm, roots[r]);
    }
}

int main(int argc, char **argv)
{
    int rank, size, all;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 262144;
    check_comm(MPI_COMM_WORLD, n);
    MPI_Comm dup, cart;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    check_comm(dup, n);
    int dims[1] = { size }, periods[1] = { 1 };
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 1, &cart);
    check_comm(cart, n);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&cart);
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("bcast_app: %s (%d failed checks)\n", all ? "FAIL" : "PASS", all);
    MPI_Finalize();
    return all ? 1 : 0;
}

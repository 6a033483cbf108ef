/*
 * smpi_scan.c -- MPI_Scan by recursive doubling, linked into the
 * applications that bench/apps runs under SimGrid SMPI.
 *
 * SMPI 3.32 implements MPI_Scan linearly: rank r receives from every lower
 * rank and waits on all of them with MPI_Waitany, whose every call tests
 * every request, so one scan costs the simulator O(P^3) work.  LAMMPS calls
 * it while it numbers its atoms; at 512 simulated ranks that one call takes
 * longer than the whole run.  MPICH and Open MPI scan by recursive doubling
 * (log2 P rounds of MPI_Sendrecv), which is what this file does, on the
 * PMPI_ entry points, so rankmap's profiler (which sees MPI_ calls) does
 * not count its messages as the application's.
 *
 * Round k: rank r exchanges its partial result (the reduction of a block of
 * 2^k ranks ending at r) with r XOR 2^k.  A message from a lower rank is
 * folded into both the partial and the result; one from a higher rank only
 * into the partial, on the right for operations that do not commute.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    int rank, size, commute, err;
    MPI_Aint lb, extent, true_lb, true_extent;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    PMPI_Type_get_extent(type, &lb, &extent);
    PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
    PMPI_Op_commutative(op, &commute);
    if (count == 0)
        return MPI_SUCCESS;
    if (sendbuf != MPI_IN_PLACE) {
        err = PMPI_Sendrecv(sendbuf, count, type, rank, 0, recvbuf, count, type, rank, 0, comm,
                            MPI_STATUS_IGNORE);
        if (err != MPI_SUCCESS)
            return err;
    }
    if (size == 1)
        return MPI_SUCCESS;
    size_t bytes = (size_t)true_extent + (size_t)extent * (size_t)(count - 1);
    char *mem = malloc(2 * bytes);
    if (!mem)
        return MPI_ERR_NO_MEM;
    /* buffers addressed as MPI does: base - true_lb holds element 0 */
    char *partial = mem - true_lb, *tmp = mem + bytes - true_lb;
    err = PMPI_Sendrecv(recvbuf, count, type, rank, 1, partial, count, type, rank, 1, comm, MPI_STATUS_IGNORE);
    for (int mask = 1; err == MPI_SUCCESS && mask < size; mask <<= 1) {
        int peer = rank ^ mask;
        if (peer >= size)
            continue;
        err = PMPI_Sendrecv(partial, count, type, peer, 2, tmp, count, type, peer, 2, comm, MPI_STATUS_IGNORE);
        if (err != MPI_SUCCESS)
            break;
        if (peer < rank) {
            /* tmp reduces ranks below this block: it goes on the left */
            PMPI_Reduce_local(tmp, partial, count, type, op);
            PMPI_Reduce_local(tmp, recvbuf, count, type, op);
        } else if (commute) {
            PMPI_Reduce_local(tmp, partial, count, type, op);
        } else {
            /* partial = partial op tmp: fold into tmp, then swap */
            PMPI_Reduce_local(partial, tmp, count, type, op);
            char *t = partial;
            partial = tmp;
            tmp = t;
        }
    }
    free(mem);
    return err;
}

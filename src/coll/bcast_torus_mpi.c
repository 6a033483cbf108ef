/*
 * bcast_torus_mpi.c -- the multi-colour torus/mesh broadcast (Almasi et
 * al., section 5.3) with MPI point-to-point calls: the executor of
 * torus_bcast.h (rankmap_tbcast_run, bcast_exec.c) over MPI_Isend,
 * MPI_Irecv and MPI_Waitany, for the SimGrid benchmark (bench/bcast) and
 * its test; rankmap's MPI layer runs the same executor over its own
 * operations.  Cost: the executor's, one MPI_Waitany per completion; no
 * copies for contiguous data, one MPI_Pack at the root and one MPI_Unpack
 * per rank otherwise.
 */
#include "coll/bcast_torus_mpi.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TAG 31000
#define DEFAULT_CAP 1

int rankmap_bcast_torus_schedule(MPI_Comm comm, int ndims, const int *extents, const int *wrap,
                                 const int *my_coords, rankmap_tbcast **out) {
    int size, rc, ok;
    int *all;
    char err[256];
    *out = NULL;
    if (ndims < 1 || ndims > RANKMAP_TBCAST_MAX_DIMS) return MPI_ERR_ARG;
    MPI_Comm_size(comm, &size);
    all = (int *)malloc(sizeof(int) * (size_t)size * (size_t)ndims);
    if (!all) return MPI_ERR_NO_MEM;
    rc = MPI_Allgather((void *)my_coords, ndims, MPI_INT, all, ndims, MPI_INT, comm);
    if (rc != MPI_SUCCESS) {
        free(all);
        return rc;
    }
    ok = rankmap_tbcast_create(ndims, extents, wrap, size, all, out, err, sizeof err) == RANKMAP_OK;
    free(all);
    return ok ? MPI_SUCCESS : MPI_ERR_ARG;
}

/* MPI requests in the executor's slots: an MPICH MPI_Request is an int, an
 * Open MPI one a pointer; both fit in a uintptr_t, and MPI_REQUEST_NULL is
 * kept as 0 there. */
static uintptr_t to_slot(MPI_Request r) {
    uintptr_t u = 0;
    memcpy(&u, &r, sizeof(r) < sizeof(u) ? sizeof(r) : sizeof(u));
    return r == MPI_REQUEST_NULL ? 0 : u;
}

static MPI_Request from_slot(uintptr_t u) {
    MPI_Request r = MPI_REQUEST_NULL;
    if (u) memcpy(&r, &u, sizeof(r) < sizeof(u) ? sizeof(r) : sizeof(u));
    return r;
}

static int io_isend(void *ctx, const void *buf, size_t bytes, int dest, int tag, uintptr_t *req) {
    MPI_Request r;
    int rc = MPI_Isend((void *)buf, (int)bytes, MPI_BYTE, dest, tag, *(MPI_Comm *)ctx, &r);
    *req = rc == MPI_SUCCESS ? to_slot(r) : 0;
    return rc;
}

static int io_irecv(void *ctx, void *buf, size_t bytes, int source, int tag, uintptr_t *req) {
    MPI_Request r;
    int rc = MPI_Irecv(buf, (int)bytes, MPI_BYTE, source, tag, *(MPI_Comm *)ctx, &r);
    *req = rc == MPI_SUCCESS ? to_slot(r) : 0;
    return rc;
}

static int io_waitany(void *ctx, int n, uintptr_t *reqs, int *index) {
    MPI_Request stack[64], *r = n <= 64 ? stack : (MPI_Request *)malloc(sizeof(*r) * (size_t)n);
    int rc;
    (void)ctx;
    if (!r) return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; ++i) r[i] = from_slot(reqs[i]);
    /* MPI_Waitany, not MPI_Waitsome: SMPI implements the latter with
     * MPI_Test calls that each inject simulated polling time */
    rc = MPI_Waitany(n, r, index, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && *index == MPI_UNDEFINED) *index = -1;
    if (rc == MPI_SUCCESS && *index >= 0) reqs[*index] = 0;
    if (r != stack) free(r);
    return rc;
}

static void io_cancel(void *ctx, uintptr_t *req) {
    MPI_Request r = from_slot(*req);
    (void)ctx;
    if (r != MPI_REQUEST_NULL) {
        MPI_Cancel(&r);
        MPI_Request_free(&r);
    }
    *req = 0;
}

/* Runs the schedule on `bytes` bytes at `data`. */
static int run(char *data, size_t bytes, int root, MPI_Comm comm, const rankmap_tbcast *s,
               const rankmap_bcast_torus_opts *o) {
    int rank, rc;
    rankmap_tbcast_io io = {&comm, io_isend, io_irecv, io_waitany, io_cancel};
    MPI_Comm_rank(comm, &rank);
    rc = rankmap_tbcast_run(s, rank, root, data, bytes, o->segment, o->colours,
                            o->cap > 0 ? o->cap : DEFAULT_CAP, o->tag > 0 ? o->tag : DEFAULT_TAG, &io);
    if (rc == RANKMAP_ERR_INVALID) return MPI_ERR_ARG;
    if (rc == RANKMAP_ERR_NOMEM) return MPI_ERR_NO_MEM;
    if (rc < 0) return MPI_ERR_INTERN;
    return rc;
}

int rankmap_bcast_torus(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                        const rankmap_tbcast *s, const rankmap_bcast_torus_opts *opts) {
    rankmap_bcast_torus_opts o;
    int size, rank, tsize, rc;
    MPI_Aint lb, extent, tlb, textent;
    memset(&o, 0, sizeof o);
    if (opts) o = *opts;
    if (!s || count < 0) return MPI_ERR_ARG;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    if (size != rankmap_tbcast_nranks(s) || root < 0 || root >= size) return MPI_ERR_ARG;
    MPI_Type_size(type, &tsize);
    if (count == 0 || tsize == 0 || size == 1) return MPI_SUCCESS;
    MPI_Type_get_extent(type, &lb, &extent);
    MPI_Type_get_true_extent(type, &tlb, &textent);
    if (textent == (MPI_Aint)tsize && (count == 1 || extent == (MPI_Aint)tsize)) {
        /* contiguous: the user's bytes are the message */
        return run((char *)buf + tlb, (size_t)count * (size_t)tsize, root, comm, s, &o);
    }
    /* non-contiguous: pack once at the root, unpack at every other rank */
    {
        int psize, pos = 0;
        char *tmp;
        rc = MPI_Pack_size(count, type, comm, &psize);
        if (rc != MPI_SUCCESS) return rc;
        tmp = (char *)calloc((size_t)psize, 1);
        if (!tmp) return MPI_ERR_NO_MEM;
        if (rank == root) rc = MPI_Pack(buf, count, type, tmp, psize, &pos, comm);
        if (rc == MPI_SUCCESS) rc = run(tmp, (size_t)psize, root, comm, s, &o);
        pos = 0;
        if (rc == MPI_SUCCESS && rank != root) rc = MPI_Unpack(tmp, psize, &pos, buf, count, type, comm);
        free(tmp);
        return rc;
    }
}

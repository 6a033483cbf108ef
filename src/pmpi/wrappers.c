/*
 * wrappers.c -- librankmap-pmpi: topology-aware reorder for MPI libraries
 * that ignore `reorder` (Debian's MPICH and Open MPI, SimGrid's SMPI),
 * through the PMPI profiling interface.  Every decision is rankmap's MPI
 * layer's (include/rankmap_mpi.h, src/mpilayer), the same code the patched
 * MPICH calls; this file only hooks the calls:
 *   MPI_Init, MPI_Init_thread, MPI_Finalize    the layer's lifecycle
 *   MPI_Cart_create, _map, MPI_Graph_create, _map,
 *   MPI_Dist_graph_create(_adjacent)          the constructors
 *   MPI_Bcast                                 the torus broadcast
 *   point-to-point, completion, collective and communicator-deriving
 *   calls, MPI_Comm_free, MPI_Cart_sub, _shift, _rank   the safety net
 * The wrappers call the next definition of each function in the lookup
 * order (chain.h), so another tool preloaded after the plugin (rankmap's
 * traffic profiler) still sees every call.  Before a reorder moved a rank a
 * watched call costs one load and a branch more than the call itself.
 * On rankmap's patched MPICH, which runs the same layer itself, the plugin
 * passes every call through.
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi/chain.h"
#include "pmpi/plugin.h"

#define H(c) ((rml_comm) (uintptr_t) (c))
#define COMM(u) ((MPI_Comm) (u))
#define INFO_H(i) ((rml_info) (uintptr_t) (i))

typedef chain_fn any_fn;
#define NEXT(NAME)                                                                           \
    ((__typeof__(&PMPI_##NAME)) chain_next_fn(&next_##NAME, "MPI_" #NAME,                    \
                                              (any_fn) PMPI_##NAME, (any_fn) MPI_##NAME))

/* this plugin was preloaded into a program of another MPI and could not take
 * itself out (chain.h), or the MPI is rankmap's patched MPICH: no call of
 * its own, every call passed through */
static int plugin_off;
/* rml_init ran: the constructors go to the layer */
static int layer_on;

__attribute__((constructor)) static void plugin_check_flavour(int argc, char **argv)
{
    plugin_off = !chain_flavour_ok((void *) plugin_check_flavour, argc, argv);
}

/* ---- MPI_Init / MPI_Finalize ----------------------------------------------- */

#ifndef RANKMAP_PMPI_NO_CHAIN
/* Another library resolves a watched call first (a PMPI tool preloaded
 * before this plugin): calls it makes through PMPI_ bypass the wrappers. */
static const char *first_other_library(void)
{
    static const char *names[] = { "MPI_Send", "MPI_Isend", "MPI_Recv", "MPI_Irecv",
                                   "MPI_Sendrecv", "MPI_Wait", "MPI_Waitall", "MPI_Barrier",
                                   "MPI_Allreduce", "MPI_Bcast", "MPI_Comm_free", "MPI_Cart_sub",
                                   "MPI_Neighbor_alltoall" };
    static char lib[256];
    Dl_info mine, first;
    if (!dladdr((void *) (uintptr_t) &plugin_off, &mine) || !mine.dli_fname)
        return NULL;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        void *f = dlsym(RTLD_DEFAULT, names[i]);
        if (f && dladdr(f, &first) && first.dli_fname && strcmp(first.dli_fname, mine.dli_fname)) {
            const char *b = strrchr(first.dli_fname, '/');
            snprintf(lib, sizeof(lib), "%s", b ? b + 1 : first.dli_fname);
            return lib;
        }
    }
    return NULL;
}
#endif

static int after_init(int rc, char **argv)
{
    if (rc != MPI_SUCCESS || plugin_off)
        return rc;
#ifndef RANKMAP_PMPI_NO_CHAIN
    int rank = 0;
    if (dlsym(RTLD_DEFAULT, "MPIX_Rankmap_last_report")) {
        /* rankmap's patched MPICH runs the same layer below us */
        plugin_off = 1;
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0)
            fprintf(stderr, PLUGIN_SAY_PREFIX "this MPI is rankmap's patched MPICH, which reorders "
                                              "by itself: the plugin passes every call through\n");
        return rc;
    }
#endif
    if (rml_init(plugin_ops(), argv && argv[0] ? argv[0] : NULL) != 0) {
        /* MPIR_CVAR_RANKMAP_STRICT: MPI_Init fails (the default handler aborts) */
        PMPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
        return MPI_ERR_OTHER;
    }
    layer_on = rml_enabled();
#ifndef RANKMAP_PMPI_NO_CHAIN
    const char *other = layer_on ? first_other_library() : NULL;
    if (other) {
        rml_counts_blind();
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0 && getenv("MPIR_CVAR_RANKMAP_VERBOSE") &&
            strcmp(getenv("MPIR_CVAR_RANKMAP_VERBOSE"), "0"))
            fprintf(stderr, PLUGIN_SAY_PREFIX "%s comes before this plugin in the lookup order "
                            "(LD_PRELOAD): calls it makes itself are not seen, so a reordered "
                            "communicator freed or left unused is not diagnosed; preload "
                            "librankmap-pmpi first\n", other);
    }
#endif
    return MPI_SUCCESS;
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = chain_init(argc, argv, (void *) MPI_Init);
    return after_init(rc, argv ? *argv : NULL);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = chain_init_thread(argc, argv, required, provided, (void *) MPI_Init_thread);
    return after_init(rc, argv ? *argv : NULL);
}

int MPI_Finalize(void)
{
    if (!plugin_off)
        rml_finalize();
    layer_on = 0;
    return chain_finalize((void *) MPI_Finalize);
}

/* ---- the constructors --------------------------------------------------------- */

static any_fn next_Cart_create, next_Graph_create, next_Graph_map, next_Dist_graph_create,
    next_Dist_graph_create_adjacent;
#ifndef RANKMAP_PMPI_SMPI
static any_fn next_Cart_map;
#endif

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *newcomm)
{
    if (!layer_on)
        return NEXT(Cart_create)(comm, ndims, dims, periods, reorder, newcomm);
    rml_comm out = H(MPI_COMM_NULL);
    int rc = rml_cart_create(H(comm), ndims, dims, periods, reorder, &out);
    *newcomm = COMM(out);
    return rc;
}

int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
#ifdef RANKMAP_PMPI_SMPI
    if (!layer_on) { /* SMPI 3.32 has no MPI_Cart_map: the standard's identity map */
        long ntasks = 1;
        int rank = 0;
        for (int i = 0; i < ndims && dims; i++)
            ntasks *= dims[i];
        if (comm == MPI_COMM_NULL || ndims < 0 || PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
            return MPI_ERR_COMM;
        *newrank = rank < ntasks ? rank : MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
#else
    if (!layer_on)
        return NEXT(Cart_map)(comm, ndims, dims, periods, newrank);
#endif
    return rml_cart_map(H(comm), ndims, dims, periods, newrank);
}

int MPI_Graph_create(MPI_Comm comm, int nnodes, const int indx[], const int edges[], int reorder,
                     MPI_Comm *newcomm)
{
    if (!layer_on)
        return NEXT(Graph_create)(comm, nnodes, indx, edges, reorder, newcomm);
    rml_comm out = H(MPI_COMM_NULL);
    int rc = rml_graph_create(H(comm), nnodes, indx, edges, reorder, &out);
    *newcomm = COMM(out);
    return rc;
}

int MPI_Graph_map(MPI_Comm comm, int nnodes, const int indx[], const int edges[], int *newrank)
{
    if (!layer_on)
        return NEXT(Graph_map)(comm, nnodes, indx, edges, newrank);
    return rml_graph_map(H(comm), nnodes, indx, edges, newrank);
}

int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info,
                          int reorder, MPI_Comm *newcomm)
{
    if (!layer_on)
        return NEXT(Dist_graph_create)(comm, n, sources, degrees, destinations, weights, info,
                                       reorder, newcomm);
    rml_comm out = H(MPI_COMM_NULL);
    int rc = rml_dist_graph_create(H(comm), n, sources, degrees, destinations, weights,
                                   INFO_H(info), reorder, &out);
    *newcomm = COMM(out);
    return rc;
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[],
                                   MPI_Info info, int reorder, MPI_Comm *newcomm)
{
    if (!layer_on)
        return NEXT(Dist_graph_create_adjacent)(comm, indegree, sources, sourceweights, outdegree,
                                                destinations, destweights, info, reorder,
                                                newcomm);
    rml_comm out = H(MPI_COMM_NULL);
    int rc = rml_dist_graph_create_adjacent(H(comm), indegree, sources, sourceweights, outdegree,
                                            destinations, destweights, INFO_H(info), reorder,
                                            &out);
    *newcomm = COMM(out);
    return rc;
}

/* ---- MPI_Bcast ------------------------------------------------------------------- */

static any_fn next_Bcast;

static int bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    int tsize = 0, rc = MPI_SUCCESS;
    MPI_Aint lb, extent, tlb, textent;
    if (!layer_on || count <= 0 || PMPI_Type_size(type, &tsize) != MPI_SUCCESS || tsize <= 0)
        return NEXT(Bcast)(buf, count, type, root, comm);
    size_t bytes = (size_t) count * (size_t) tsize;
    PMPI_Type_get_extent(type, &lb, &extent);
    PMPI_Type_get_true_extent(type, &tlb, &textent);
    if (textent == (MPI_Aint) tsize && (count == 1 || extent == (MPI_Aint) tsize)) {
        /* contiguous: the program's bytes are the message */
        if (rml_bcast((char *) buf + tlb, bytes, root, H(comm), &rc))
            return rc;
        return NEXT(Bcast)(buf, count, type, root, comm);
    }
    if (!rml_bcast_applies(bytes, H(comm)) || bytes > 0x7fffffffU)
        return NEXT(Bcast)(buf, count, type, root, comm);
    /* non-contiguous: packed once at the root, unpacked everywhere else */
    int rank = 0, pos = 0;
    char *tmp = malloc(bytes);
    PMPI_Comm_rank(comm, &rank);
    if (!tmp)
        return MPI_ERR_NO_MEM; /* an allocation failure; the others fail or wait */
    if (rank == root)
        rc = PMPI_Pack(buf, count, type, tmp, (int) bytes, &pos, comm);
    if (rc == MPI_SUCCESS && rml_bcast(tmp, bytes, root, H(comm), &rc) && rc == MPI_SUCCESS &&
        rank != root) {
        pos = 0;
        rc = PMPI_Unpack(tmp, (int) bytes, &pos, buf, count, type, comm);
    }
    free(tmp);
    return rc;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    int in = __atomic_load_n(&plugin_armed, __ATOMIC_RELAXED) &&
             rml_enter(H(comm), "MPI_Bcast", -1, -1);
    int rc = bcast(buf, count, type, root, comm);
    if (in)
        rml_leave();
    return rc;
}

/* ---- the watched calls ------------------------------------------------------------- */

/* Every wrapper: before the layer armed the hooks, once the next definition
 * is known, a jump to it; otherwise (the first call, or armed) the
 * out-of-line path, so the common path saves no registers. */
#define WRAP(NAME, PARAMS, COMM_ARG, A, B, ...)                                               \
    static any_fn next_##NAME;                                                                \
    __attribute__((noinline)) static int slow_##NAME PARAMS                                   \
    {                                                                                         \
        if (!__atomic_load_n(&plugin_armed, __ATOMIC_RELAXED))                                \
            return NEXT(NAME)(__VA_ARGS__);                                                   \
        int in_ = rml_enter(H(COMM_ARG), "MPI_" #NAME, A, B);                                 \
        int rc_ = NEXT(NAME)(__VA_ARGS__);                                                    \
        if (in_)                                                                              \
            rml_leave();                                                                      \
        return rc_;                                                                           \
    }                                                                                         \
    int MPI_##NAME PARAMS                                                                     \
    {                                                                                         \
        any_fn f_ = __atomic_load_n(&next_##NAME, __ATOMIC_RELAXED);                          \
        if (__builtin_expect(f_ != NULL && !__atomic_load_n(&plugin_armed, __ATOMIC_RELAXED), \
                             1))                                                              \
            return ((__typeof__(&PMPI_##NAME)) f_)(__VA_ARGS__);                              \
        return slow_##NAME(__VA_ARGS__);                                                      \
    }

/* point-to-point: the partners go to MPIR_CVAR_RANKMAP_CHECK */
#define P2P_SEND(NAME)                                                                        \
    WRAP(NAME, (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm), \
         comm, dest, -1, buf, count, type, dest, tag, comm)
#define P2P_ISEND(NAME)                                                                       \
    WRAP(NAME,                                                                                \
         (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,    \
          MPI_Request *req),                                                                  \
         comm, dest, -1, buf, count, type, dest, tag, comm, req)
P2P_SEND(Send)
P2P_SEND(Bsend)
P2P_SEND(Ssend)
P2P_SEND(Rsend)
P2P_ISEND(Isend)
P2P_ISEND(Ibsend)
P2P_ISEND(Issend)
P2P_ISEND(Irsend)
P2P_ISEND(Send_init)
P2P_ISEND(Bsend_init)
P2P_ISEND(Ssend_init)
P2P_ISEND(Rsend_init)
WRAP(Recv,
     (void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
      MPI_Status *status),
     comm, source, -1, buf, count, type, source, tag, comm, status)
WRAP(Irecv,
     (void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
      MPI_Request *req),
     comm, source, -1, buf, count, type, source, tag, comm, req)
WRAP(Recv_init,
     (void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
      MPI_Request *req),
     comm, source, -1, buf, count, type, source, tag, comm, req)
WRAP(Sendrecv,
     (const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
      int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm, MPI_Status *status),
     comm, dest, source, sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
     comm, status)
WRAP(Sendrecv_replace,
     (void *buf, int count, MPI_Datatype type, int dest, int stag, int source, int rtag,
      MPI_Comm comm, MPI_Status *status),
     comm, dest, source, buf, count, type, dest, stag, source, rtag, comm, status)
WRAP(Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status), comm, source, -1, source,
     tag, comm, status)
WRAP(Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *status), comm,
     source, -1, source, tag, comm, msg, status)

/* completion: blocking, no communicator */
WRAP(Wait, (MPI_Request *req, MPI_Status *status), MPI_COMM_NULL, -1, -1, req, status)
WRAP(Waitall, (int n, MPI_Request reqs[], MPI_Status statuses[]), MPI_COMM_NULL, -1, -1, n, reqs,
     statuses)
WRAP(Waitany, (int n, MPI_Request reqs[], int *index, MPI_Status *status), MPI_COMM_NULL, -1, -1,
     n, reqs, index, status)
WRAP(Waitsome, (int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[]),
     MPI_COMM_NULL, -1, -1, n, reqs, outcount, indices, statuses)

/* collectives (MPI_Bcast: above) */
#define COLL(NAME, PARAMS, ...) WRAP(NAME, PARAMS, comm, -1, -1, __VA_ARGS__)
COLL(Barrier, (MPI_Comm comm), comm)
COLL(Ibarrier, (MPI_Comm comm, MPI_Request *req), comm, req)
COLL(Ibcast, (void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req),
     buf, count, type, root, comm, req)
COLL(Reduce,
     (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
      MPI_Comm comm),
     sbuf, rbuf, count, type, op, root, comm)
COLL(Allreduce,
     (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm), sbuf,
     rbuf, count, type, op, comm)
COLL(Iallreduce,
     (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
      MPI_Request *req),
     sbuf, rbuf, count, type, op, comm, req)
COLL(Scan,
     (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm), sbuf,
     rbuf, count, type, op, comm)
COLL(Exscan,
     (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm), sbuf,
     rbuf, count, type, op, comm)
COLL(Reduce_scatter_block,
     (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm), sbuf,
     rbuf, count, type, op, comm)
COLL(Reduce_scatter,
     (const void *sbuf, void *rbuf, const int counts[], MPI_Datatype type, MPI_Op op,
      MPI_Comm comm),
     sbuf, rbuf, counts, type, op, comm)
#define COLL_SR(NAME)                                                                        \
    COLL(NAME,                                                                               \
         (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,          \
          MPI_Datatype rtype, MPI_Comm comm),                                                \
         sbuf, scount, stype, rbuf, rcount, rtype, comm)
#define COLL_SR_ROOT(NAME)                                                                   \
    COLL(NAME,                                                                               \
         (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,          \
          MPI_Datatype rtype, int root, MPI_Comm comm),                                      \
         sbuf, scount, stype, rbuf, rcount, rtype, root, comm)
COLL_SR(Allgather)
COLL_SR(Alltoall)
COLL_SR(Neighbor_allgather)
COLL_SR(Neighbor_alltoall)
COLL_SR_ROOT(Gather)
COLL_SR_ROOT(Scatter)
COLL(Ineighbor_alltoall,
     (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
      MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req),
     sbuf, scount, stype, rbuf, rcount, rtype, comm, req)
COLL(Gatherv,
     (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
      const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm),
     sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm)
COLL(Scatterv,
     (const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype, void *rbuf,
      int rcount, MPI_Datatype rtype, int root, MPI_Comm comm),
     sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm)
COLL(Allgatherv,
     (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
      const int displs[], MPI_Datatype rtype, MPI_Comm comm),
     sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm)
COLL(Neighbor_allgatherv,
     (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
      const int displs[], MPI_Datatype rtype, MPI_Comm comm),
     sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm)
COLL(Alltoallv,
     (const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void *rbuf,
      const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm),
     sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm)
COLL(Neighbor_alltoallv,
     (const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void *rbuf,
      const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm),
     sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm)
COLL(Alltoallw,
     (const void *sbuf, const int scounts[], const int sdispls[], const MPI_Datatype stypes[],
      void *rbuf, const int rcounts[], const int rdispls[], const MPI_Datatype rtypes[],
      MPI_Comm comm),
     sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm)
COLL(Neighbor_alltoallw,
     (const void *sbuf, const int scounts[], const MPI_Aint sdispls[], const MPI_Datatype stypes[],
      void *rbuf, const int rcounts[], const MPI_Aint rdispls[], const MPI_Datatype rtypes[],
      MPI_Comm comm),
     sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm)

/* communicators derived from a reordered one keep its numbering: a use of it */
COLL(Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm), comm, newcomm)
COLL(Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm), comm, info, newcomm)
COLL(Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req), comm, newcomm, req)
COLL(Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm), comm, color, key,
     newcomm)
COLL(Comm_split_type, (MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *newcomm), comm,
     type, key, info, newcomm)
COLL(Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm), comm, group, newcomm)
COLL(Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm), comm, group,
     tag, newcomm)

/* the ranks a program reads from a reordered Cartesian communicator
 * (MPIR_CVAR_RANKMAP_CHECK); queries, not communication */
static any_fn next_Cart_shift, next_Cart_rank, next_Comm_free, next_Cart_sub;

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *source, int *dest)
{
    int rc = NEXT(Cart_shift)(comm, direction, disp, source, dest);
    if (rc == MPI_SUCCESS && __atomic_load_n(&plugin_armed, __ATOMIC_RELAXED))
        rml_handed(H(comm), *source, *dest);
    return rc;
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    int rc = NEXT(Cart_rank)(comm, coords, rank);
    if (rc == MPI_SUCCESS && __atomic_load_n(&plugin_armed, __ATOMIC_RELAXED))
        rml_handed(H(comm), *rank, -1);
    return rc;
}

int MPI_Comm_free(MPI_Comm *comm)
{
    if (layer_on && comm)
        rml_comm_free(H(*comm));
    return NEXT(Comm_free)(comm);
}

/* a collective like the others, and the lines of a watched grid */
int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    if (!__atomic_load_n(&plugin_armed, __ATOMIC_RELAXED))
        return NEXT(Cart_sub)(comm, remain_dims, newcomm);
    int in = rml_enter(H(comm), "MPI_Cart_sub", -1, -1);
    int rc = NEXT(Cart_sub)(comm, remain_dims, newcomm);
    if (in)
        rml_leave();
    if (rc == MPI_SUCCESS && newcomm)
        rml_cart_sub(H(comm), remain_dims, H(*newcomm));
    return rc;
}

/*
 * rankmap_mpi.h -- rankmap's MPI layer (librankmap-mpi): everything between
 * "an MPI call arrived" and "the engine's answer is carried out", written
 * once for every MPI path.  The address table and its agreement check, the
 * machine of a communicator, gathering task graphs, the portfolio and its
 * election, executing the permutation, distributed-graph adjacency, the
 * torus broadcast's rule and executor, and the safety net for programs that
 * assume ranks do not move (tracked communicators, the free and finalize
 * diagnoses, the watchdog, MPIR_CVAR_RANKMAP_CHECK, unsafe marks,
 * MPIR_CVAR_RANKMAP_SKIP_PROGRAMS, learnt hints).
 *
 * The layer makes no MPI call and includes no mpi.h: an MPI path (the PMPI
 * plugin with PMPI_* calls, the patched MPICH with its internal collectives
 * and point-to-point) fills an rml_ops table with a few communication
 * operations and calls the entry points below from its hooks.  So the same
 * code, with the same messages and the same decisions, runs under every MPI,
 * and fixing it rebuilds librankmap-mpi, not MPICH.
 *
 * Handles: communicators, requests and info objects are the path's own,
 * carried as uintptr_t (an MPICH handle is an int, an Open MPI handle a
 * pointer).  Return values: 0 or the path's MPI error code, unless said
 * otherwise.  Collective entry points must be called by every process of
 * the communicator, as the MPI call they serve.
 *
 * Thread safety: the entry points are called with the MPI library's
 * semantics (MPI_THREAD_MULTIPLE callers may enter the watched-call hooks
 * concurrently; the constructors are collective and serialised per
 * communicator by MPI itself).
 */
#ifndef RANKMAP_MPI_H
#define RANKMAP_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of this interface: the MPICH build cache key covers this header
 * (and rankmap.h), not the layer's implementation. */
#define RML_ABI_VERSION 1

typedef uintptr_t rml_comm;
typedef uintptr_t rml_req;
typedef uintptr_t rml_info;

/* element types and reductions of rml_ops.allreduce */
enum { RML_INT, RML_LONG, RML_DOUBLE, RML_DOUBLE_INT };
enum { RML_MIN, RML_MAX, RML_SUM, RML_MINLOC };
/* the layer's point-to-point tags are 1..RML_MAX_TAG */
#define RML_MAX_TAG 64

/* What an MPI path provides.  Every communication operation works in a
 * context the program cannot see (MPICH: the collective context; the
 * plugin: collectives, and point-to-point only on communicators from
 * private_comm), so the layer's messages never meet the program's. */
typedef struct rml_ops {
    const char *prefix; /* of every line the layer prints: "rankmap-pmpi: " */
    const char *path;   /* "plugin" or "mpich", in messages */
    rml_comm world, comm_null;
    int undefined;               /* MPI_UNDEFINED */
    int any_source;              /* MPI_ANY_SOURCE */
    int err_other, err_nomem;    /* MPI_ERR_OTHER, MPI_ERR_NO_MEM */
    const int *unweighted;       /* MPI_UNWEIGHTED */
    const int *weights_empty;    /* MPI_WEIGHTS_EMPTY */

    /* The value of setting NAME (MPIR_CVAR_RANKMAP_NAME without the
     * prefix), NULL when unset. */
    const char *(*setting)(const char *name);

    int (*rank)(rml_comm c);
    int (*size)(rml_comm c);
    int (*is_inter)(rml_comm c);
    /* world[i] = the MPI_COMM_WORLD rank of member i, i < n (n = size);
     * a process outside MPI_COMM_WORLD: -1 */
    int (*world_ranks)(rml_comm c, int n, int *world);

    int (*bcast)(void *buf, size_t bytes, int root, rml_comm c);
    int (*allreduce)(const void *in, void *out, int count, int type, int op, rml_comm c);
    /* bytes per process, in rank order */
    int (*gather)(const void *in, int bytes, void *out, int root, rml_comm c);
    int (*gatherv)(const void *in, int bytes, void *out, const int *counts, const int *displs,
                   int root, rml_comm c);
    int (*scatter)(const void *in, int bytes, void *out, int root, rml_comm c);

    /* Point-to-point on a communicator from private_comm (or the
     * collective context), tags 1..RML_MAX_TAG; requests are completed by
     * waitany, which frees the completed one and sets it to 0: *index of
     * it (< 0 when none is active), *source its sender. */
    int (*isend)(const void *buf, size_t bytes, int dest, int tag, rml_comm c, rml_req *r);
    int (*irecv)(void *buf, size_t bytes, int source, int tag, rml_comm c, rml_req *r);
    int (*waitany)(int n, rml_req *r, int *index, int *source);
    /* a communicator for the layer's point-to-point on C, collective over
     * C (both NULL: C itself, when the path's point-to-point is apart from
     * the program's already, as MPICH's collective context is) */
    int (*private_comm)(rml_comm c, rml_comm *priv);
    void (*private_free)(rml_comm *priv);

    /* color < 0: MPI_UNDEFINED (*out = comm_null) */
    int (*split)(rml_comm c, int color, int key, rml_comm *out);
    int (*split_shared)(rml_comm c, int key, rml_comm *out); /* MPI_COMM_TYPE_SHARED */
    void (*comm_free)(rml_comm *c);
    int (*dims_create)(int nnodes, int ndims, int *dims);

    /* The MPI library's own constructors, with the reorder flag the layer
     * passes on: 0 after the layer ordered the processes, the program's own
     * when the layer leaves the call to the library (an MPI below the
     * plugin may reorder by itself) */
    int (*cart_create)(rml_comm c, int ndims, const int *dims, const int *periods, int reorder,
                       rml_comm *out);
    int (*graph_create)(rml_comm c, int nnodes, const int *index, const int *edges, int reorder,
                        rml_comm *out);
    int (*dist_graph_create)(rml_comm c, int n, const int *sources, const int *degrees,
                             const int *destinations, const int *weights, rml_info info,
                             int reorder, rml_comm *out);
    int (*dist_graph_adjacent)(rml_comm c, int indegree, const int *sources,
                               const int *sourceweights, int outdegree, const int *destinations,
                               const int *destweights, rml_info info, int reorder,
                               rml_comm *out);
    /* value of KEY in INFO (1 when present), 0 when absent or no info */
    int (*info_get)(rml_info info, const char *key, char *value, int len);

    /* The layer's pointer on a communicator (MPI attribute caching: get
     * returns 1 and *value when set); when the communicator goes, the
     * path's delete callback calls rml_cache_free(value). */
    int (*attr_get)(rml_comm c, void **value);
    int (*attr_set)(rml_comm c, void *value);

    /* The path's flag that its watched-call hooks test before calling
     * rml_enter / rml_leave (a load and a branch while nothing is armed). */
    int *armed;

    /* This process's host name (MPI_Get_processor_name: SMPI gives the
     * simulated host's) in NAME of LEN bytes, 0 on success; NULL:
     * gethostname.  The address table's nodes are the host names. */
    int (*processor_name)(char *name, int len);
} rml_ops;

/* ---- lifecycle ------------------------------------------------------------
 * rml_init: collective over MPI_COMM_WORLD, right after MPI_Init: reads the
 * settings, builds and checks the address table, applies the per-program
 * settings.  A bad setting: one warning on rank 0 naming it and reordering
 * off (0); with MPIR_CVAR_RANKMAP_STRICT the warning is an error and the
 * return value ops->err_other (the path makes MPI_Init fail).  The ops
 * table must outlive the layer (until rml_finalize).  argv0 may be NULL. */
int rml_init(const rml_ops *ops, const char *argv0);
/* MPI_Finalize, before the library's: the hints for reordered
 * communicators never used, the watchdog stopped, the table freed. */
void rml_finalize(void);
/* reordering honoured: a usable table and ENABLE */
int rml_enabled(void);

/* ---- constructors ----------------------------------------------------------
 * Each runs the MPI call: the reorder protocol when it applies, else the
 * library's constructor with the order kept; *out as MPI returns it. */
int rml_cart_create(rml_comm c, int ndims, const int *dims, const int *periods, int reorder,
                    rml_comm *out);
int rml_cart_map(rml_comm c, int ndims, const int *dims, const int *periods, int *newrank);
int rml_graph_create(rml_comm c, int nnodes, const int *index, const int *edges, int reorder,
                     rml_comm *out);
int rml_graph_map(rml_comm c, int nnodes, const int *index, const int *edges, int *newrank);
int rml_dist_graph_create(rml_comm c, int n, const int *sources, const int *degrees,
                          const int *destinations, const int *weights, rml_info info,
                          int reorder, rml_comm *out);
int rml_dist_graph_create_adjacent(rml_comm c, int indegree, const int *sources,
                                   const int *sourceweights, int outdegree,
                                   const int *destinations, const int *destweights,
                                   rml_info info, int reorder, rml_comm *out);

/* ---- the torus broadcast ---------------------------------------------------
 * MPI_Bcast of BYTES contiguous bytes: 1 when the layer ran it (its status
 * in *rc), 0 when the library's broadcast must run.  The rule: see
 * doc/mpich.md#the-torus-broadcast (MPIR_CVAR_RANKMAP_BCAST). */
int rml_bcast(void *buf, size_t bytes, int root, rml_comm c, int *rc);
/* The same decision without running it (non-contiguous data: the path
 * packs, calls rml_bcast on the bytes and unpacks). */
int rml_bcast_applies(size_t bytes, rml_comm c);
/* What ops->attr_set attached to a communicator, when it is freed. */
void rml_cache_free(void *value);

/* ---- watched calls (the safety net) ----------------------------------------
 * While *ops->armed is set, the path calls rml_enter before a call that may
 * be watched (point-to-point, completion, collective, communicator-deriving;
 * rml_call_kind tells which, other calls are ignored), with the partners of
 * a point-to-point call (-1: none), and rml_leave after it when rml_enter
 * returned nonzero.  rml_comm_free before MPI_Comm_free, rml_cart_sub after
 * MPI_Cart_sub and rml_handed after MPI_Cart_shift / MPI_Cart_rank. */
enum { RML_CALL_NONE, RML_CALL_P2P, RML_CALL_WAIT, RML_CALL_COLL, RML_CALL_ALLTOALL,
       RML_CALL_NEIGHBOR, RML_CALL_DERIVE };
int rml_call_kind(const char *call); /* "MPI_Send", "MPI_Send_c", "PMPI_Send" ... */
int rml_enter(rml_comm c, const char *call, int peer_a, int peer_b);
void rml_leave(void);
void rml_comm_free(rml_comm c);
void rml_cart_sub(rml_comm parent, const int *remain_dims, rml_comm sub);
void rml_handed(rml_comm c, int rank_a, int rank_b);
/* Another library sees the program's calls first and may hide some from
 * the path's hooks: no "freed without communicating" diagnosis, no hint. */
void rml_counts_blind(void);

/* ---- queries (MPIX_* of the patched MPICH) ---------------------------------
 * 0 on success, -1 without an address table, -2 for a rank outside
 * MPI_COMM_WORLD. */
int rml_torus_ndims(void);
int rml_torus_dims(int *dims);
int rml_rank2torus(int rank, int *coords);
int rml_torus2rank(const int *coords, int *rank); /* *rank -1: nobody there */
int rml_distance(int rank_a, int rank_b, double *distance);
/* the last reorder this process took part in */
typedef struct rml_report {
    int valid;
    double F_before, F_after, F_min, map_seconds;
    char algorithm[32];
} rml_report;
void rml_last_report(rml_report *report);

#ifdef __cplusplus
}
#endif
#endif /* RANKMAP_MPI_H */

/*
 * reorder.c -- the topology constructors with reorder=1: MPI_Cart_create,
 * MPI_Cart_map, MPI_Graph_create, MPI_Graph_map, MPI_Dist_graph_create and
 * MPI_Dist_graph_create_adjacent.  Every call follows one protocol on all
 * processes of the communicator:
 *   1. the task graph reaches rank 0: Cartesian and graph arguments are the
 *      same everywhere; distributed-graph edges are gathered (any process
 *      may name any edge; MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY weigh 1);
 *   2. the first MPIR_CVAR_RANKMAP_PORTFOLIO processes (the portfolio,
 *      rankmap_glue.h) receive it packed, down a binomial tree among them,
 *      and each maps the tasks with its own seed onto the nodes of the
 *      communicator's processes (machine.c) through rankmap_reorder_ranks():
 *      rank 0 stays rank 0 (MPIR_CVAR_RANKMAP_KEEP_RANK0), a process already
 *      on its task's node keeps its rank, and the current order stays unless
 *      the cost model predicts a clear gain (MPIR_CVAR_RANKMAP_GUARD);
 *   3. two allreduces elect the winner: of the members whose F is within
 *      the guard's margin of the lowest, the lowest predicted time for large
 *      messages, the lowest rank on ties;
 *   4. the winner's scatter gives every process its new rank (undefined
 *      beyond the grid) and the old rank that takes over its vertex, and its
 *      broadcast the report (MPIX_Rankmap_last_report);
 *   5. the processes are split in the new order and the MPI library's own
 *      constructor runs on the result with reorder=0.
 * A member whose search fails scores +inf and the others win; when every
 * member fails the identity order stays with one line from the winner; no
 * abort, no hang (every process runs the same collectives).
 *
 * Distributed graphs: by default every process keeps the edges it described
 * (the reading of Open MPI, issue #11756, and of every library written for
 * it), so the traffic between processes cannot change and the order stays.
 * A program that plays the vertex its new rank names opts in (the info key
 * rankmap_vertices=follow_rank, or MPIR_CVAR_RANKMAP_FOLLOW_PROGRAMS): its
 * graph is mapped, and the process with new rank v gets the lists given for
 * vertex v (for the adjacent form, each process's lists move to the process
 * that received its old rank).
 *
 * Cost: the mapper's time on each member at once (bounded by
 * MPIR_CVAR_RANKMAP_TIME_LIMIT); a broadcast of the graph's length, with a
 * portfolio a private communicator and the packed graph (16 bytes per edge)
 * among its members, two allreduces; one scatter of 2 integers per process,
 * a broadcast of the report, one split, and for the safety net one
 * allreduce of 2 integers; distributed graphs add a gather of 3 integers per
 * edge (and for the adjacent form one exchange of each process's lists).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "mpilayer/layer.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_GRAPH 1
#define TAG_ADJ_HEAD 2
#define TAG_ADJ_LISTS 3

/* the info key, and its value, of a program that plays the vertex its new
 * rank names */
#define FOLLOW_KEY "rankmap_vertices"
#define FOLLOW_VALUE "follow_rank"

static int guard_flags(void)
{
    static const int flags[] = { 0, RANKMAP_REORDER_GUARD_F, RANKMAP_REORDER_GUARD_OFF };
    return flags[rml_int(RML_S_GUARD)]; /* model, f, off: settings.cvars' order */
}

static void identity_ranks(int size, int ntasks, int *new_of_member)
{
    for (int i = 0; i < size; i++)
        new_of_member[i] = i < ntasks ? i : -1;
}

/* One member's search of the portfolio. */
typedef struct candidate {
    int status; /* of rankmap_reorder_ranks(), or of what came before it */
    rankmap_report before, after;
    double seconds; /* rankmap_portfolio_time() of its order (+inf: none) */
    char why[600];
} candidate;

/* Member MEMBER maps GRAPH with its own seed and fills new_of_member[size]
 * (the identity on failure, -1 beyond the grid); with ELECT (a portfolio of
 * more than one) c->seconds too. */
static void compute_ranks(rml_comm c, int size, int member, int ntasks, rankmap_graph_t graph,
                          const rankmap_options *base, int elect, int *new_of_member,
                          candidate *cand)
{
    rml_machine m;
    identity_ranks(size, ntasks, new_of_member);
    cand->status = RANKMAP_ERR_INVALID;
    cand->why[0] = '\0';
    if (!graph) {
        /* rank 0's graph failed to build, or this member did not receive it */
        const char *e = member == 0 ? rankmap_last_error() : NULL;
        snprintf(cand->why, sizeof(cand->why), "%s", e && *e ? e : "no task graph on this rank");
        return;
    }
    if (rml_machine_build(c, size, &m, cand->why, sizeof(cand->why)) != 0)
        return;
    rankmap_options opts = *base;
    opts.algorithm = rml_str(RML_S_ALGORITHM);
    opts.seed = rankmap_portfolio_seed((uint64_t) rml_int(RML_S_SEED), member);
    opts.time_limit = rml_double(RML_S_TIME_LIMIT);
    opts.verbose = rml_int(RML_S_VERBOSE) >= 2 && member == 0 ? 2 : 0;
    int flags = guard_flags() | (rml_int(RML_S_KEEP_RANK0) ? 0 : RANKMAP_REORDER_FREE_RANK0);
    cand->status = rankmap_reorder_ranks(m.topo, graph, &opts, size, m.node_of_member, ntasks,
                                         flags, new_of_member, &cand->before, &cand->after,
                                         cand->why, sizeof(cand->why));
    cand->seconds = HUGE_VAL;
    if (elect && cand->status == RANKMAP_OK &&
        rankmap_portfolio_time(m.topo, graph, size, m.node_of_member, new_of_member,
                               &cand->seconds) != RANKMAP_OK) {
        /* an order the model cannot judge takes no part in the election */
        snprintf(cand->why, sizeof(cand->why), "%s", rankmap_last_error());
        cand->status = RANKMAP_ERR_INTERNAL;
        identity_ranks(size, ntasks, new_of_member);
    }
    rml_machine_free(&m);
}

/* The packed graph from rank 0 to members 1..k-1 down a binomial tree over
 * ranks 0..k-1 on a private communicator, piece by piece of the same size
 * on every member, so that a member that cannot hold the bytes still
 * forwards them (through a scratch buffer) and the tree never stalls; it
 * has no graph afterwards.  Every process learns the length first, so all
 * agree on k: rank 0 without a graph, or with one of 2 GiB or more packed,
 * sends nothing, *k becomes 1 and rank 0 maps alone. */
static int share_graph(rml_comm c, int rank, int *k, rankmap_graph_t *graph)
{
    const rml_ops *o = rml.ops;
    void *buf = NULL;
    size_t packed = 0;
    long long len = 0;
    int rc;
    rml_comm priv = o->comm_null;
    if (rank == 0 && *graph && rankmap_graph_pack(*graph, NULL, &packed) == RANKMAP_OK &&
        packed < 0x7fffffffULL && (buf = malloc(packed)) &&
        rankmap_graph_pack(*graph, buf, &packed) == RANKMAP_OK)
        len = (long long) packed;
    if ((rc = o->bcast(&len, sizeof(len), 0, c)) != 0)
        goto out;
    if (len == 0) {
        *k = 1;
        goto out;
    }
    if ((rc = rml_private_comm(c, &priv)) != 0)
        goto out;
    if (rank >= *k)
        goto out;
    if (rank != 0)
        buf = malloc((size_t) len);
    enum { PIECE = 1 << 20 };
    static char scratch[PIECE];
    int ok = buf != NULL, failed = 0;
    int low = rank ? (rank & -rank) : 1 << 30;
    for (long long off = 0; off < len; off += PIECE) {
        size_t n = len - off < PIECE ? (size_t) (len - off) : PIECE;
        char *piece = ok ? (char *) buf + off : scratch;
        rml_req r = 0;
        int idx, src;
        if (rank != 0 && (o->irecv(piece, n, rank - low, TAG_GRAPH, priv, &r) != 0 ||
                          o->waitany(1, &r, &idx, &src) != 0))
            failed = 1;
        for (int step = 1; step < low && rank + step < *k; step <<= 1) {
            r = 0;
            if (o->isend(piece, n, rank + step, TAG_GRAPH, priv, &r) != 0 ||
                o->waitany(1, &r, &idx, &src) != 0)
                failed = 1;
        }
    }
    if (rank != 0 && (!ok || failed || rankmap_graph_unpack(buf, (size_t) len, graph) != RANKMAP_OK))
        *graph = NULL;
out:
    rml_private_free(&priv);
    free(buf);
    return rc;
}

/* The winner's scatter: sendbuf[2i] = member i's new rank, sendbuf[2v + 1] = the
 * old rank whose vertex new rank v gets (-1: none); NULL NEW_OF_MEMBER: identity. */
static void fill_pairs(int *sendbuf, int size, int ntasks, const int *new_of_member)
{
    for (int i = 0; i < size; i++)
        sendbuf[2 * i + 1] = -1;
    for (int i = 0; i < size; i++) {
        int v = new_of_member ? new_of_member[i] : (i < ntasks ? i : -1);
        sendbuf[2 * i] = v;
        if (v >= 0)
            sendbuf[2 * v + 1] = i;
    }
}

/* The winner's REP from its candidate (NULL: out of memory), or why it keeps the order. */
static void report_winner(const char *what, int ntasks, int k, const candidate *cand, rml_report *rep)
{
    if (!cand) {
        rml_say("%s: reorder kept the identity order (out of memory)", what);
    } else if (cand->status != RANKMAP_OK) {
        rml_say("%s: reorder kept the identity order (%s)", what, cand->why);
    } else {
        rep->valid = 1;
        rep->F_before = cand->before.F;
        rep->F_after = cand->after.F;
        rep->F_min = cand->after.F_min;
        rep->map_seconds = cand->after.seconds;
        snprintf(rep->algorithm, sizeof(rep->algorithm), "%s", cand->after.algorithm);
        if (rml_int(RML_S_VERBOSE))
            rml_say("%s: %d tasks, F %g -> %g (F_min %g), %s, %.3f ms%s; %s", what, ntasks, cand->before.F,
                    cand->after.F, cand->after.F_min, cand->after.algorithm, 1e3 * cand->after.seconds,
                    k > 1 ? ", best of the portfolio" : "", cand->why);
    }
}

/* Every process of C: the portfolio maps, elects, and the winner hands
 * every process pair[0] = its new rank (-1: none) and pair[1] = the old
 * rank that receives its vertex (-1: none).  GRAPH is rank 0's; freed. */
static int reorder_collective(rml_comm c, const char *what, int ntasks, rankmap_graph_t graph,
                              const rankmap_options *opts, int pair[2])
{
    const rml_ops *o = rml.ops;
    int rank = o->rank(c), size = o->size(c), rc, k = 1;
    int *sendbuf = NULL, *new_of_member = NULL;
    candidate *cand = NULL;
    struct {
        double score;
        int member;
    } mine, best = { 0, 0 };
    (void) rankmap_portfolio_members((int) rml_int(RML_S_PORTFOLIO), size, &k);
    if (k > 1 && (rc = share_graph(c, rank, &k, &graph)) != 0)
        goto out;
    double F = HUGE_VAL, F_lowest = HUGE_VAL;
    mine.score = HUGE_VAL;
    mine.member = rank;
    /* a member without memory for its search still takes part in every
     * collective: it scores +inf (and sends the identity if it wins) */
    if (rank < k) {
        new_of_member = malloc((size_t) size * sizeof(int));
        cand = calloc(1, sizeof(*cand));
        if (new_of_member && cand) {
            compute_ranks(c, size, rank, ntasks, graph, opts, k > 1, new_of_member, cand);
            F = rankmap_portfolio_score(cand->status, &cand->after);
        } else if (cand) {
            snprintf(cand->why, sizeof(cand->why), "out of memory");
            cand->status = RANKMAP_ERR_NOMEM;
        }
    }
    if (k > 1) {
        if ((rc = o->allreduce(&F, &F_lowest, 1, RML_DOUBLE, RML_MIN, c)) != 0)
            goto out;
        if (cand && new_of_member)
            mine.score = rankmap_portfolio_runoff(F, cand->seconds, F_lowest);
        if ((rc = o->allreduce(&mine, &best, 1, RML_DOUBLE_INT, RML_MINLOC, c)) != 0)
            goto out;
    }
    rml_report rep;
    memset(&rep, 0, sizeof(rep));
    if (rank == best.member) {
        sendbuf = malloc(2 * (size_t) size * sizeof(int));
        if (!sendbuf) {
            /* the scatter's root must send: keep the order through a
             * buffer allocated after freeing the candidate's */
            free(new_of_member);
            new_of_member = NULL;
            sendbuf = malloc(2 * (size_t) size * sizeof(int));
            if (!sendbuf) {
                rc = o->err_nomem;
                goto out; /* cannot happen after the free above but for a broken heap */
            }
        }
        fill_pairs(sendbuf, size, ntasks, cand ? new_of_member : NULL);
        report_winner(what, ntasks, k, new_of_member ? cand : NULL, &rep);
        if (k > 1 && rml_int(RML_S_VERBOSE))
            rml_say("%s: portfolio of %d ranks, rank %d's search won", what, k, rank);
    } else if (cand && cand->status != RANKMAP_OK && best.score < HUGE_VAL) {
        rml_say("%s: rank %d's search of the portfolio failed (%s); the best of the others is "
                "used",
                what, rank, cand->why);
    }
    if ((rc = o->scatter(sendbuf, 2 * (int) sizeof(int), pair, best.member, c)) != 0 ||
        (rc = o->bcast(&rep, sizeof(rep), best.member, c)) != 0)
        goto out;
    rml.last = rep;
out:
    if (graph)
        rankmap_graph_free(graph);
    free(sendbuf);
    free(new_of_member);
    free(cand);
    return rc;
}

/* Rank 0 of C, with MPIR_CVAR_RANKMAP_VERBOSE: a call that keeps the order
 * reports the F of the placement as launched (task r on the node of member
 * r), to be compared with the F `rankmap map` printed for a launch-time
 * placement.  No communication.  Frees GRAPH. */
static void report_as_launched(rml_comm c, const char *what, int ntasks, rankmap_graph_t graph,
                               const char *why)
{
    rml_machine m;
    rankmap_report rep;
    char err[600];
    int size = rml.ops->size(c);
    int *launched = malloc((size_t) ntasks * sizeof(int));
    if (graph && launched && rml_machine_build(c, size, &m, err, sizeof(err)) == 0) {
        for (int r = 0; r < ntasks; r++)
            launched[r] = m.node_of_member[r];
        if (rankmap_evaluate(m.topo, graph, launched, &rep) == RANKMAP_OK)
            rml_say("%s: %d tasks, F %g (F_min %g), as launched (%s)", what, ntasks, rep.F,
                    rep.F_min, why);
        rml_machine_free(&m);
    }
    free(launched);
    if (graph)
        rankmap_graph_free(graph);
}

/* The reorder protocol applies to C for NTASKS tasks. */
static int applies(rml_comm c, int ntasks)
{
    const rml_ops *o = rml.ops;
    if (!rml.enabled || c == o->comm_null || o->is_inter(c))
        return 0;
    return ntasks > 1 && ntasks <= o->size(c);
}

/* The processes in the new order: rank pair[0], or none (comm_null). */
static int split_in_order(rml_comm c, int newrank, rml_comm *out)
{
    return rml.ops->split(c, newrank < 0 ? -1 : 0, newrank < 0 ? 0 : newrank, out);
}

/* ---- MPI_Cart_create / MPI_Cart_map ------------------------------------------- */

/* "MPI_Cart 4px4px4p": the grid in messages (p = periodic) */
static void cart_what(char *what, size_t len, int ndims, const int *dims, const int *periods)
{
    int n = snprintf(what, len, "MPI_Cart ");
    for (int i = 0; i < ndims && n < (int) len - 16; i++)
        n += snprintf(what + n, len - (size_t) n, i ? "x%d%s" : "%d%s", dims[i],
                      periods[i] ? "p" : "");
}

static int cart_ntasks(int ndims, const int *dims)
{
    long ntasks = 1;
    if (ndims <= 0 || ndims > RANKMAP_MAX_DIMS || !dims)
        return 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return 0; /* MPI reports the error */
        ntasks *= dims[i];
        if (ntasks > 0x7fffffffL)
            return 0;
    }
    return (int) ntasks;
}

/* The grid's traffic as declared (MPIR_CVAR_RANKMAP_CART_ALLTOALL) or
 * learnt by an earlier run; NULL when nobody declared it. */
static const char *cart_hint(const char *what, int ndims, const int *dims, char *learnt,
                             size_t len)
{
    const char *hint = rml_str(RML_S_CART_ALLTOALL);
    char path[4096];
    if ((!hint[0] || !strcmp(hint, "unknown")) &&
        rml_learned_hint(ndims, dims, learnt, len, path, sizeof(path))) {
        hint = learnt;
        if (rml_int(RML_S_VERBOSE))
            rml_say("%s: all-to-all hint %s learnt by an earlier run (%s)", what, hint, path);
    }
    return hint;
}

static void cart_as_launched(rml_comm c, int ndims, const int *dims, const int *periods,
                             const char *why)
{
    if (rml.ops->rank(c) != 0)
        return;
    char what[128];
    cart_what(what, sizeof(what), ndims, dims, periods);
    rankmap_graph_t graph = NULL;
    if (rankmap_graph_cartesian(ndims, dims, periods, &graph) != RANKMAP_OK)
        graph = NULL;
    report_as_launched(c, what, cart_ntasks(ndims, dims), graph, why);
}

static int cart_pair(rml_comm c, int ndims, const int *dims, const int *periods, int pair[2])
{
    rankmap_graph_t graph = NULL;
    rankmap_options opts;
    rankmap_options_init(&opts);
    char what[160], learnt[64];
    cart_what(what, sizeof(what), ndims, dims, periods);
    if (rml.ops->rank(c) == 0) {
        const char *hint = cart_hint(what, ndims, dims, learnt, sizeof(learnt));
        if (rankmap_graph_cartesian_alltoall(ndims, dims, periods, hint, &graph) != RANKMAP_OK) {
            graph = NULL; /* compute_ranks reports rankmap_last_error() */
            size_t len = strlen(what);
            snprintf(what + len, sizeof(what) - len, " (MPIR_CVAR_RANKMAP_CART_ALLTOALL)");
        }
    }
    /* every member maps with the grid (the same on all processes) */
    opts.cart_ndims = ndims;
    for (int i = 0; i < ndims; i++) {
        opts.cart_dims[i] = dims[i];
        opts.cart_periods[i] = periods[i] ? 1 : 0;
    }
    return reorder_collective(c, what, cart_ntasks(ndims, dims), graph, &opts, pair);
}

int rml_cart_create(rml_comm c, int ndims, const int *dims, const int *periods, int reorder,
                    rml_comm *out)
{
    const rml_ops *o = rml.ops;
    int ntasks = cart_ntasks(ndims, dims);
    int forced = rml_int(RML_S_FORCE);
    if (!(reorder || forced) || !rml.cart || !periods || !applies(c, ntasks)) {
        if (rml_int(RML_S_VERBOSE) && periods && applies(c, ntasks))
            cart_as_launched(c, ndims, dims, periods, reorder ? "reordering off" : "reorder=0");
        return o->cart_create(c, ndims, dims, periods, reorder && rml.cart, out);
    }
    int pair[2], rc, rank = o->rank(c);
    rml_comm ordered = o->comm_null;
    if ((rc = cart_pair(c, ndims, dims, periods, pair)) != 0 ||
        (rc = split_in_order(c, pair[0], &ordered)) != 0)
        return rc;
    *out = o->comm_null;
    if (ordered != o->comm_null) {
        rc = o->cart_create(ordered, ndims, dims, periods, 0, out);
        o->comm_free(&ordered);
    }
    if (rc == 0) { /* every process of c: the safety net's count */
        rml_track_reordered("MPI_Cart_create", c, *out, rank, pair[0], ndims, dims, periods);
        const char *hint = rml_str(RML_S_CART_ALLTOALL);
        if (!hint[0] || !strcmp(hint, "unknown"))
            rml_track_observe_grid(*out, pair[0], ndims, dims);
    }
    return rc;
}

/* The _map calls of an MPI that does not reorder: the caller's rank, if
 * the topology has room for it. */
static int identity_map(rml_comm c, int ntasks, int *newrank)
{
    int rank = rml.ops->rank(c);
    *newrank = rank < ntasks ? rank : rml.ops->undefined;
    return 0;
}

int rml_cart_map(rml_comm c, int ndims, const int *dims, const int *periods, int *newrank)
{
    const rml_ops *o = rml.ops;
    if (!rml.cart || !periods || !applies(c, cart_ntasks(ndims, dims)))
        return identity_map(c, ndims == 0 ? 1 : cart_ntasks(ndims, dims), newrank);
    int pair[2], rc = cart_pair(c, ndims, dims, periods, pair);
    if (rc == 0) {
        *newrank = pair[0] < 0 ? o->undefined : pair[0];
        rml_track_reordered("MPI_Cart_map", c, o->comm_null, o->rank(c), pair[0], 0, NULL, NULL);
    }
    return rc;
}

/* ---- MPI_Graph_create / MPI_Graph_map ----------------------------------------- */

static int graph_pair(rml_comm c, int nnodes, const int *index, const int *edges, int pair[2])
{
    rankmap_graph_t graph = NULL;
    rankmap_options opts;
    rankmap_options_init(&opts);
    if (rml.ops->rank(c) == 0) {
        int64_t nedges = index[nnodes - 1];
        int *src = nedges >= 0 ? malloc((size_t) (nedges + 1) * sizeof(int)) : NULL;
        if (src) {
            for (int v = 0, e = 0; v < nnodes; v++)
                for (; e < index[v] && e < nedges; e++)
                    src[e] = v;
            if (rankmap_graph_create(nnodes, nedges, src, edges, NULL, &graph) != RANKMAP_OK)
                graph = NULL; /* compute_ranks reports rankmap_last_error() */
        }
        free(src);
    }
    return reorder_collective(c, "MPI_Graph", nnodes, graph, &opts, pair);
}

int rml_graph_create(rml_comm c, int nnodes, const int *index, const int *edges, int reorder,
                     rml_comm *out)
{
    const rml_ops *o = rml.ops;
    if (!(reorder || rml_int(RML_S_FORCE)) || !rml.graph || !index || !edges ||
        !applies(c, nnodes))
        return o->graph_create(c, nnodes, index, edges, reorder && rml.graph, out);
    int pair[2], rc, rank = o->rank(c);
    rml_comm ordered = o->comm_null;
    if ((rc = graph_pair(c, nnodes, index, edges, pair)) != 0 ||
        (rc = split_in_order(c, pair[0], &ordered)) != 0)
        return rc;
    *out = o->comm_null;
    if (ordered != o->comm_null) {
        rc = o->graph_create(ordered, nnodes, index, edges, 0, out);
        o->comm_free(&ordered);
    }
    if (rc == 0)
        rml_track_reordered("MPI_Graph_create", c, *out, rank, pair[0], 0, NULL, NULL);
    return rc;
}

int rml_graph_map(rml_comm c, int nnodes, const int *index, const int *edges, int *newrank)
{
    const rml_ops *o = rml.ops;
    if (!rml.graph || !index || !edges || !applies(c, nnodes))
        return identity_map(c, nnodes, newrank);
    int pair[2], rc = graph_pair(c, nnodes, index, edges, pair);
    if (rc == 0) {
        *newrank = pair[0] < 0 ? o->undefined : pair[0];
        rml_track_reordered("MPI_Graph_map", c, o->comm_null, o->rank(c), pair[0], 0, NULL, NULL);
    }
    return rc;
}

/* ---- MPI_Dist_graph_create(_adjacent) ------------------------------------------- */

static int dist_weight(const int *weights, int i)
{
    const rml_ops *o = rml.ops;
    return (!weights || weights == o->unweighted || weights == o->weights_empty) ? 1 : weights[i];
}

/* Whether the call moves vertices: the program opted in (every process of
 * C, or none: one allreduce unless the whole program opted in). */
static int dist_follows(rml_comm c, rml_info info, int *rc)
{
    const rml_ops *o = rml.ops;
    char value[64];
    *rc = 0;
    if (rml.follow)
        return 1;
    int mine = o->info_get(info, FOLLOW_KEY, value, (int) sizeof(value)) == 1 &&
               !strcmp(value, FOLLOW_VALUE);
    int all = 0;
    if ((*rc = o->allreduce(&mine, &all, 1, RML_INT, RML_MIN, c)) != 0)
        return 0;
    if (mine && !all && o->rank(c) == 0)
        rml_say("MPI_Dist_graph_create: the info key " FOLLOW_KEY "=" FOLLOW_VALUE
                " is not given on every process: every process keeps the edges it described");
    return all;
}

/* The verbose line of a distributed graph that keeps MPI's order. */
static void dist_kept(rml_comm c, const char *what, const char *why)
{
    if (rml_int(RML_S_VERBOSE) && rml.ops->rank(c) == 0)
        rml_say("%s: order kept: %s", what, why);
}

#define KEEP_EDGES                                                                               \
    "every process keeps the edges it described, so the traffic between processes cannot "      \
    "change (a program that plays the vertex its new rank names opts in with the info key " \
    FOLLOW_KEY "=" FOLLOW_VALUE " or MPIR_CVAR_RANKMAP_FOLLOW_PROGRAMS)"

/* Every process: gathers the (source, destination, weight) triples on rank
 * 0, maps, scatters. */
static int gather_and_reorder(rml_comm c, const char *what, int m, const int *triples,
                              int pair[2])
{
    const rml_ops *o = rml.ops;
    int rank = o->rank(c), size = o->size(c), rc, mine = 3 * m * (int) sizeof(int);
    int *counts = NULL, *displs = NULL, *all = NULL, *src = NULL, *dst = NULL;
    double *w = NULL;
    long long total = 0;
    rankmap_graph_t graph = NULL;
    if (rank == 0) {
        counts = malloc((size_t) size * sizeof(int));
        displs = malloc((size_t) size * sizeof(int));
    }
    if ((rc = o->gather(&mine, (int) sizeof(int), counts, 0, c)) != 0)
        goto out;
    int usable = 1;
    if (rank == 0) {
        usable = counts && displs;
        for (int i = 0; usable && i < size; i++) {
            displs[i] = (int) total;
            total += counts[i];
        }
        usable = usable && total < 0x7fffffffLL && (all = malloc((size_t) total + sizeof(int)));
        if (!usable) {
            /* receive nothing; compute_ranks keeps the identity */
            free(counts);
            counts = calloc((size_t) size, sizeof(int));
            free(displs);
            displs = calloc((size_t) size, sizeof(int));
            if (!counts || !displs) {
                rc = o->err_nomem; /* the gatherv's root cannot even receive nothing */
                goto out;
            }
        }
    }
    if ((rc = o->gatherv(triples, mine, all, counts, displs, 0, c)) != 0)
        goto out;
    if (rank == 0 && usable) {
        int64_t ne = total / (3 * (long long) sizeof(int));
        src = malloc((size_t) (ne + 1) * sizeof(int));
        dst = malloc((size_t) (ne + 1) * sizeof(int));
        w = malloc((size_t) (ne + 1) * sizeof(double));
        if (src && dst && w) {
            for (int64_t e = 0; e < ne; e++) {
                src[e] = all[3 * e];
                dst[e] = all[3 * e + 1];
                w[e] = all[3 * e + 2];
            }
            if (rankmap_graph_create(size, ne, src, dst, w, &graph) != RANKMAP_OK)
                graph = NULL;
        }
    }
    rankmap_options opts;
    rankmap_options_init(&opts);
    rc = reorder_collective(c, what, size, graph, &opts, pair);
out:
    free(counts);
    free(displs);
    free(all);
    free(src);
    free(dst);
    free(w);
    return rc;
}

int rml_dist_graph_create(rml_comm c, int n, const int *sources, const int *degrees,
                          const int *destinations, const int *weights, rml_info info,
                          int reorder, rml_comm *out)
{
    const rml_ops *o = rml.ops;
    const char *what = "MPI_Dist_graph_create";
    int size = c != o->comm_null ? o->size(c) : 0, rc;
    if (!rml.dist_graph || !(reorder || rml_int(RML_S_FORCE)) || !applies(c, size) || n < 0)
        return o->dist_graph_create(c, n, sources, degrees, destinations, weights, info,
                                    reorder && rml.dist_graph, out);
    if (!dist_follows(c, info, &rc)) {
        if (rc != 0)
            return rc;
        /* the call as the program made it: an MPI below the plugin that
         * reorders distributed graphs keeps each process's edges too (Open
         * MPI's treematch) */
        dist_kept(c, what, KEEP_EDGES);
        return o->dist_graph_create(c, n, sources, degrees, destinations, weights, info, reorder,
                                    out);
    }
    long m = 0;
    for (int i = 0; i < n; i++)
        m += degrees[i] > 0 ? degrees[i] : 0;
    int *triples = m < 0x7fffffffL / 3 ? malloc((size_t) (3 * m + 1) * sizeof(int)) : NULL;
    if (!triples)
        m = 0; /* this process's edges are not seen by the mapper */
    for (int i = 0, idx = 0; triples && i < n; i++)
        for (int j = 0; j < degrees[i]; j++, idx++) {
            triples[3 * idx] = sources[i];
            triples[3 * idx + 1] = destinations[idx];
            triples[3 * idx + 2] = dist_weight(weights, idx);
        }
    int pair[2], rank = o->rank(c);
    rc = gather_and_reorder(c, what, (int) m, triples, pair);
    free(triples);
    if (rc != 0)
        return rc;
    rml_comm ordered = o->comm_null;
    if ((rc = split_in_order(c, pair[0], &ordered)) != 0)
        return rc;
    /* the edges name ranks of the new communicator: the vertices */
    rc = o->dist_graph_create(ordered, n, sources, degrees, destinations, weights, info, 0, out);
    o->comm_free(&ordered);
    if (rc == 0)
        rml_track_reordered(what, c, *out, rank, pair[0], 0, NULL, NULL);
    return rc;
}

/* After the split: this process gave the lists of vertex OLD (its old rank)
 * and plays vertex NEW (its rank in ORDERED), whose lists another process
 * gave.  The process with new rank OLD plays our vertex: send ours there
 * and receive ours (exactly one message arrives, from whoever held them). */
static int move_adjacency(rml_comm priv, int old, int *indeg, const int **sources,
                          const int **sw, int *outdeg, const int **dests, const int **dw,
                          int **owned)
{
    const rml_ops *o = rml.ops;
    int hdr[4] = { *indeg, *outdeg, *sw != o->unweighted, *dw != o->unweighted }, in[4];
    int *sendbuf = NULL, *recvbuf = NULL, rc, idx, from = -1, src;
    rml_req r[2] = { 0, 0 };
    if ((rc = o->irecv(in, sizeof(in), o->any_source, TAG_ADJ_HEAD, priv, &r[0])) != 0 ||
        (rc = o->isend(hdr, sizeof(hdr), old, TAG_ADJ_HEAD, priv, &r[1])) != 0)
        goto out;
    for (int done = 0; done < 2; done++) {
        if ((rc = o->waitany(2, r, &idx, &src)) != 0)
            goto out;
        if (idx == 0)
            from = src;
    }
    int ns = hdr[0] * (1 + hdr[2]) + hdr[1] * (1 + hdr[3]);
    int nr = in[0] * (1 + in[2]) + in[1] * (1 + in[3]);
    sendbuf = malloc((size_t) (ns + 1) * sizeof(int));
    recvbuf = malloc((size_t) (nr + 1) * sizeof(int));
    if (!sendbuf || !recvbuf) {
        rc = o->err_nomem; /* the partner then waits: out of memory is fatal here */
        goto out;
    }
    int k = 0;
    for (int i = 0; i < hdr[0]; i++)
        sendbuf[k++] = (*sources)[i];
    for (int i = 0; hdr[2] && i < hdr[0]; i++)
        sendbuf[k++] = (*sw)[i];
    for (int i = 0; i < hdr[1]; i++)
        sendbuf[k++] = (*dests)[i];
    for (int i = 0; hdr[3] && i < hdr[1]; i++)
        sendbuf[k++] = (*dw)[i];
    r[0] = r[1] = 0;
    if ((rc = o->irecv(recvbuf, (size_t) nr * sizeof(int), from, TAG_ADJ_LISTS, priv, &r[0])) != 0 ||
        (rc = o->isend(sendbuf, (size_t) ns * sizeof(int), old, TAG_ADJ_LISTS, priv, &r[1])) != 0)
        goto out;
    for (int done = 0; done < 2; done++)
        if ((rc = o->waitany(2, r, &idx, &src)) != 0)
            goto out;
    *indeg = in[0];
    *outdeg = in[1];
    k = 0;
    *sources = recvbuf + k;
    k += in[0];
    if (in[2]) {
        *sw = in[0] ? recvbuf + k : o->weights_empty;
        k += in[0];
    } else {
        *sw = o->unweighted;
    }
    *dests = recvbuf + k;
    k += in[1];
    if (in[3])
        *dw = in[1] ? recvbuf + k : o->weights_empty;
    else
        *dw = o->unweighted;
    *owned = recvbuf;
    recvbuf = NULL;
out:
    free(sendbuf);
    free(recvbuf);
    return rc;
}

int rml_dist_graph_create_adjacent(rml_comm c, int indegree, const int *sources,
                                   const int *sourceweights, int outdegree,
                                   const int *destinations, const int *destweights,
                                   rml_info info, int reorder, rml_comm *out)
{
    const rml_ops *o = rml.ops;
    const char *what = "MPI_Dist_graph_create_adjacent";
    int size = c != o->comm_null ? o->size(c) : 0, rc;
    if (!rml.dist_graph || !(reorder || rml_int(RML_S_FORCE)) || !applies(c, size) ||
        indegree < 0 || outdegree < 0)
        return o->dist_graph_adjacent(c, indegree, sources, sourceweights, outdegree,
                                      destinations, destweights, info, reorder && rml.dist_graph,
                                      out);
    if (!dist_follows(c, info, &rc)) {
        if (rc != 0)
            return rc;
        dist_kept(c, what, KEEP_EDGES);
        return o->dist_graph_adjacent(c, indegree, sources, sourceweights, outdegree,
                                      destinations, destweights, info, reorder, out);
    }
    int rank = o->rank(c);
    int *triples = malloc((size_t) (3 * outdegree + 1) * sizeof(int));
    int m = triples ? outdegree : 0;
    for (int j = 0; j < m; j++) {
        triples[3 * j] = rank;
        triples[3 * j + 1] = destinations[j];
        triples[3 * j + 2] = dist_weight(destweights, j);
    }
    int pair[2];
    rc = gather_and_reorder(c, what, m, triples, pair);
    free(triples);
    if (rc != 0)
        return rc;
    rml_comm ordered = o->comm_null;
    if ((rc = split_in_order(c, pair[0], &ordered)) != 0)
        return rc;
    int *owned = NULL;
    rml_comm priv = o->comm_null;
    rc = rml_private_comm(ordered, &priv); /* collective over ordered */
    if (rc == 0 && pair[0] != rank) /* moved: take over the lists of the vertex it plays */
        rc = move_adjacency(priv, rank, &indegree, &sources, &sourceweights, &outdegree,
                            &destinations, &destweights, &owned);
    rml_private_free(&priv);
    if (rc == 0)
        rc = o->dist_graph_adjacent(ordered, indegree, sources, sourceweights, outdegree,
                                    destinations, destweights, info, 0, out);
    free(owned);
    o->comm_free(&ordered);
    if (rc == 0)
        rml_track_reordered(what, c, *out, rank, pair[0], 0, NULL, NULL);
    return rc;
}

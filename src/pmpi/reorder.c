/*
 * reorder.c -- librankmap-pmpi: topology-aware reorder for MPI libraries
 * that ignore `reorder` (Debian's MPICH and Open MPI, SimGrid's SMPI),
 * through the PMPI profiling interface.
 *
 * Intercepts MPI_Cart_create, MPI_Graph_create, MPI_Dist_graph_create(_adjacent)
 * (when reorder=1, or always with MPIR_CVAR_RANKMAP_FORCE=1), MPI_Cart_map and
 * MPI_Graph_map (MPI_Bcast: bcast.c).  Every call follows the protocol of the patched MPICH
 * (maint/mpich/patches/0003, 0004) on all ranks of the communicator:
 *   1. the task graph reaches rank 0 (Cartesian and graph arguments are the
 *      same everywhere; distributed-graph edges are gathered; MPI_UNWEIGHTED
 *      and MPI_WEIGHTS_EMPTY weigh 1) and, packed, the first
 *      MPIR_CVAR_RANKMAP_PORTFOLIO ranks (the portfolio, rankmap_glue.h);
 *   2. each of them maps the tasks with its own seed onto the nodes of the
 *      communicator's processes (the address table of table.c; a
 *      communicator that does not fill the machine evenly is mapped on the
 *      distance matrix of its own processes, up to MPIR_CVAR_RANKMAP_MAX_MATRIX
 *      processes) and turns the placement into ranks with rankmap_reorder_ranks()
 *      (include/rankmap_glue.h, the glue meant for the patched MPICH too): rank 0
 *      stays rank 0 (MPIR_CVAR_RANKMAP_KEEP_RANK0=0 frees it), new rank r
 *      goes to a process on node place[r], a process already holding r
 *      keeps it, the others lowest rank first; the current order stays
 *      unless the cost model predicts a clear gain (MPIR_CVAR_RANKMAP_GUARD;
 *      MPIR_CVAR_RANKMAP_CART_ALLTOALL tells it which grid lines do
 *      all-to-all); two allreduces elect the winner: of the members
 *      whose F is within the guard's margin of the lowest, the one with the
 *      lowest predicted time for large messages, the lowest rank on ties;
 *   3. the winner's scatter gives every process its new rank (MPI_UNDEFINED
 *      beyond the grid) and the old rank that takes over its vertex, so all
 *      agree;
 *   4. PMPI_Comm_split(comm, 0, new rank) orders the processes and the MPI
 *      library's own constructor runs on the result with reorder=0.
 * MPIR_CVAR_RANKMAP_CART=0, _GRAPH=0 and _DIST_GRAPH=0 keep the order of one
 * kind of call; MPIR_CVAR_RANKMAP_SKIP_PROGRAMS (or a program marked unsafe)
 * of every kind: the call reaches the MPI library with reorder=0, so an MPI
 * that reorders itself (the patched MPICH below the plugin) keeps the order
 * too.  After a reorder that moved ranks, safety.c watches for
 * programs that assume ranks do not move (doc/compatibility.md).
 * As for MPI_Graph_create, the vertices of a reordered distributed graph are
 * ranks of the new communicator: the process with new rank v plays vertex v
 * (for the adjacent form, each process's lists are moved to the process
 * that received its old rank).  A member whose search fails scores +inf
 * and the others win; when every member fails (or times out) the identity
 * order stays with one warning; never an abort or a hang.
 * Cost: the mapper's time (bounded by MPIR_CVAR_RANKMAP_TIME_LIMIT, the
 * portfolio's searches at once), with a portfolio a broadcast of the packed
 * graph (16 bytes per edge) among its members, a broadcast of its length
 * and two allreduces, one scatter of 2 integers per
 * process, one communicator split; distributed graphs add a gather of 3
 * integers per edge (and for the adjacent form one exchange of each
 * process's lists).
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmpi/chain.h"
#include "pmpi/safety.h"
#include "pmpi/table.h"
#include "rankmap_glue.h"

/* ---- rank 0: the machine of one communicator ----------------------------------- */

typedef struct comm_machine {
    rankmap_topology_t topo; /* the global model, or a private distance matrix */
    int owned;               /* topo is private */
    int *node_of_member;     /* [size] */
} comm_machine;

static void machine_free(comm_machine *m)
{
    if (m->owned && m->topo)
        rankmap_topology_free(m->topo);
    free(m->node_of_member);
    memset(m, 0, sizeof(*m));
}

/* Writes the distance matrix of the members' nodes and loads it as a
 * "file:" model (the C API reads distance matrices from files only). */
static int machine_matrix(comm_machine *m, int size, char *why, size_t whylen)
{
    char path[256];
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof(path), "%s/rankmap-pmpi-XXXXXX",
             tmp && *tmp && strlen(tmp) < 200 ? tmp : "/tmp");
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0) {
            close(fd);
            unlink(path);
        }
        snprintf(why, whylen, "cannot write a distance matrix in %s", path);
        return -1;
    }
    for (int i = 0; i < size; i++) {
        for (int j = 0; j < size; j++) {
            double d = 0;
            if (i != j)
                rankmap_topology_distance(pmpi_tab.topo, m->node_of_member[i],
                                          m->node_of_member[j], &d);
            fprintf(f, j ? " %.17g" : "%.17g", d);
        }
        fputc('\n', f);
    }
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    char spec[300];
    snprintf(spec, sizeof(spec), "file:%s", path);
    int rc = bad ? RANKMAP_ERR_IO : rankmap_topology_parse(spec, &m->topo);
    unlink(path);
    if (rc != RANKMAP_OK) {
        snprintf(why, whylen, "distance matrix of the communicator: %s",
                 bad ? "write error" : rankmap_last_error());
        m->topo = NULL;
        return -1;
    }
    m->owned = 1;
    for (int i = 0; i < size; i++)
        m->node_of_member[i] = i;
    return 0;
}

static int machine_build(MPI_Comm comm, int size, comm_machine *m, char *why, size_t whylen)
{
    int *mine = malloc((size_t) size * sizeof(int)), *world = malloc((size_t) size * sizeof(int));
    int *count = calloc((size_t) pmpi_tab.nnodes, sizeof(int));
    int rc = -1;
    MPI_Group g = MPI_GROUP_NULL, wg = MPI_GROUP_NULL;
    memset(m, 0, sizeof(*m));
    m->node_of_member = malloc((size_t) size * sizeof(int));
    if (!mine || !world || !count || !m->node_of_member) {
        snprintf(why, whylen, "out of memory");
        goto done;
    }
    PMPI_Comm_group(comm, &g);
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < size; i++)
        mine[i] = i;
    PMPI_Group_translate_ranks(g, size, mine, wg, world);
    for (int i = 0; i < size; i++) {
        if (world[i] == MPI_UNDEFINED || world[i] < 0 || world[i] >= pmpi_tab.world_size) {
            snprintf(why, whylen, "the communicator has processes outside MPI_COMM_WORLD");
            goto done;
        }
        m->node_of_member[i] = pmpi_tab.node_of_rank[world[i]];
        count[m->node_of_member[i]]++;
    }
    int even = count[0] > 0;
    for (int v = 1; v < pmpi_tab.nnodes; v++)
        if (count[v] != count[0])
            even = 0;
    if (even) {
        m->topo = pmpi_tab.topo;
    } else {
        if (size > pmpi_set.max_matrix) {
            snprintf(why, whylen,
                     "%d processes spread unevenly over the machine "
                     "(> MPIR_CVAR_RANKMAP_MAX_MATRIX)",
                     size);
            goto done;
        }
        if (machine_matrix(m, size, why, whylen) != 0)
            goto done;
    }
    rc = 0;
done:
    if (g != MPI_GROUP_NULL)
        PMPI_Group_free(&g);
    if (wg != MPI_GROUP_NULL)
        PMPI_Group_free(&wg);
    free(mine);
    free(world);
    free(count);
    if (rc)
        machine_free(m);
    return rc;
}

static void identity_ranks(int size, int ntasks, int *new_of_member)
{
    for (int i = 0; i < size; i++)
        new_of_member[i] = i < ntasks ? i : MPI_UNDEFINED;
}

/* The guard setting as flags of rankmap_reorder_ranks(); a bad value warns
 * once and takes the model guard (as the patched MPICH does). */
static int guard_flags(void)
{
    static int warned = 0;
    int flags = 0;
    if (rankmap_guard_flags(pmpi_set.guard, &flags) != RANKMAP_OK && !warned) {
        warned = 1;
        pmpi_say("MPIR_CVAR_RANKMAP_GUARD: %s; using model", rankmap_last_error());
    }
    return flags;
}

/* One member's search of the portfolio (rankmap_glue.h). */
typedef struct candidate {
    int status; /* of rankmap_reorder_ranks(), or of what came before it */
    rankmap_report before, after;
    double seconds; /* rankmap_portfolio_time() of its order (+inf: none) */
    char why[600];
} candidate;

/* Member `member` of the portfolio: maps the graph with its own seed and
 * fills new_of_member[size] through the glue (the identity on failure);
 * with `elect` (a portfolio of more than one) c->seconds too. */
static void compute_ranks(MPI_Comm comm, int size, int member, int ntasks, rankmap_graph_t graph,
                          const rankmap_options *base, int elect, int *new_of_member, candidate *c)
{
    comm_machine m;

    identity_ranks(size, ntasks, new_of_member);
    memset(&m, 0, sizeof(m));
    c->status = RANKMAP_ERR_INVALID;
    c->why[0] = '\0';
    if (!graph) {
        /* rank 0's graph failed to build, or a member did not receive it
         * (out of memory, or a bad packed graph) */
        const char *e = rankmap_last_error();
        snprintf(c->why, sizeof(c->why), "%s", e && *e ? e : "no task graph on this rank");
        return;
    }
    if (machine_build(comm, size, &m, c->why, sizeof(c->why)) != 0)
        return;
    rankmap_options opts = *base;
    opts.algorithm = pmpi_set.algorithm;
    opts.seed = rankmap_portfolio_seed((uint64_t) pmpi_set.seed, member);
    opts.time_limit = pmpi_set.time_limit;
    opts.verbose = pmpi_set.verbose >= 2 && member == 0 ? 2 : 0;
    c->status = rankmap_reorder_ranks(m.topo, graph, &opts, size, m.node_of_member, ntasks,
                                      guard_flags() |
                                          (pmpi_set.keep_rank0 ? 0 : RANKMAP_REORDER_FREE_RANK0),
                                      new_of_member, &c->before, &c->after, c->why,
                                      sizeof(c->why));
    c->seconds = HUGE_VAL;
    if (elect && c->status == RANKMAP_OK &&
        rankmap_portfolio_time(m.topo, graph, size, m.node_of_member, new_of_member, &c->seconds) !=
            RANKMAP_OK) {
        /* an order the model cannot judge takes no part in the election */
        snprintf(c->why, sizeof(c->why), "%s", rankmap_last_error());
        c->status = RANKMAP_ERR_INTERNAL;
        identity_ranks(size, ntasks, new_of_member);
    }
    for (int i = 0; i < size; i++) /* the glue's -1: no rank in the new communicator */
        if (new_of_member[i] < 0)
            new_of_member[i] = MPI_UNDEFINED;
    machine_free(&m);
}

/* The tag of the members' communicator (MPI_Comm_create_group): any value
 * works, a call's members create one such communicator at a time. */
#define MEMBERS_TAG 0x524d

/* The graph from rank 0 to the portfolio's members, packed
 * (rankmap_graph_pack); a member unpacks it into *graph (NULL when it
 * cannot).  Every process learns the length, so all agree on k: rank 0
 * without a graph, or with one of 2 GiB or more packed, sends nothing, *k
 * becomes 1 and rank 0 maps alone.  The bytes go to the members only, over
 * a communicator of ranks 0..k-1 that only they create: the other processes
 * of a large job neither receive nor hold them. */
static int share_graph(MPI_Comm comm, int rank, int *k, rankmap_graph_t *graph)
{
    void *buf = NULL;
    size_t packed = 0;
    long long len = 0;
    int rc;
    MPI_Group group = MPI_GROUP_NULL, first = MPI_GROUP_NULL;
    MPI_Comm members = MPI_COMM_NULL;
    if (rank == 0 && *graph && rankmap_graph_pack(*graph, NULL, &packed) == RANKMAP_OK &&
        packed < 0x7fffffffULL && (buf = malloc(packed)) &&
        rankmap_graph_pack(*graph, buf, &packed) == RANKMAP_OK)
        len = (long long) packed;
    if ((rc = PMPI_Bcast(&len, 1, MPI_LONG_LONG, 0, comm)) != MPI_SUCCESS)
        goto out;
    if (len == 0) {
        *k = 1;
        goto out;
    }
    if (rank >= *k)
        goto out;
    int range[1][3] = { { 0, *k - 1, 1 } };
    if ((rc = PMPI_Comm_group(comm, &group)) != MPI_SUCCESS ||
        (rc = PMPI_Group_range_incl(group, 1, range, &first)) != MPI_SUCCESS ||
        (rc = PMPI_Comm_create_group(comm, first, MEMBERS_TAG, &members)) != MPI_SUCCESS)
        goto out;
    if (rank != 0)
        buf = malloc((size_t) len);
    /* in pieces of the same size on every member, so that a member that
     * cannot hold the bytes still takes part, each piece landing in a
     * scratch buffer; it has no graph afterwards */
    static char scratch[1 << 20];
    int ok = buf != NULL;
    for (long long off = 0; off < len && rc == MPI_SUCCESS; off += (long long) sizeof(scratch)) {
        int n = len - off < (long long) sizeof(scratch) ? (int) (len - off) : (int) sizeof(scratch);
        rc = PMPI_Bcast(ok ? (char *) buf + off : scratch, n, MPI_BYTE, 0, members);
    }
    if (rc == MPI_SUCCESS && rank != 0 && ok && rankmap_graph_unpack(buf, (size_t) len, graph) != RANKMAP_OK)
        *graph = NULL;
out:
    if (members != MPI_COMM_NULL)
        PMPI_Comm_free(&members);
    if (first != MPI_GROUP_NULL)
        PMPI_Group_free(&first);
    if (group != MPI_GROUP_NULL)
        PMPI_Group_free(&group);
    free(buf);
    return rc;
}

/* All ranks: the first k = MPIR_CVAR_RANKMAP_PORTFOLIO members map with
 * their own seeds (rank 0 alone when k = 1), two allreduces elect the
 * winner (rankmap_glue.h, step 3: the lowest F, then among the members
 * within the guard's margin of it the lowest predicted time for large
 * messages, the lowest member on ties), and the winner hands every process
 * pair[0] = its new rank and pair[1] = the old rank that receives its vertex
 * (MPI_UNDEFINED if none).  graph is rank 0's; frees it. */
static int reorder_collective(MPI_Comm comm, const char *what, int ntasks, rankmap_graph_t graph,
                              const rankmap_options *opts, int pair[2])
{
    int rank, size, rc, k = 1;
    int *sendbuf = NULL, *new_of_member = NULL;
    candidate *c = NULL;
    struct {
        double score;
        int member;
    } mine, best = { 0, 0 };
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    (void) rankmap_portfolio_members(pmpi_set.portfolio, size, &k); /* checked in MPI_Init */
    if (k > 1 && (rc = share_graph(comm, rank, &k, &graph)) != MPI_SUCCESS)
        goto out;
    double F = HUGE_VAL, F_lowest = HUGE_VAL;
    mine.score = HUGE_VAL;
    mine.member = rank;
    if (rank < k) {
        new_of_member = malloc((size_t) size * sizeof(int));
        c = calloc(1, sizeof(*c));
        if (new_of_member && c) {
            compute_ranks(comm, size, rank, ntasks, graph, opts, k > 1, new_of_member, c);
            F = rankmap_portfolio_score(c->status, &c->after);
        } else if (c) {
            snprintf(c->why, sizeof(c->why), "out of memory");
            c->status = RANKMAP_ERR_NOMEM;
        }
    }
    if (k > 1) {
        if ((rc = PMPI_Allreduce(&F, &F_lowest, 1, MPI_DOUBLE, MPI_MIN, comm)) != MPI_SUCCESS)
            goto out;
        if (c)
            mine.score = rankmap_portfolio_runoff(F, c->seconds, F_lowest);
        if ((rc = PMPI_Allreduce(&mine, &best, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm)) != MPI_SUCCESS)
            goto out;
    }
    if (rank == best.member) {
        sendbuf = malloc(2 * (size_t) size * sizeof(int));
        if (!sendbuf) {
            /* the scatter's root must send: keep the order through a buffer
             * built after freeing the candidate's */
            free(new_of_member);
            new_of_member = NULL;
            sendbuf = malloc(2 * (size_t) size * sizeof(int));
        }
        for (int i = 0; sendbuf && i < size; i++)
            sendbuf[2 * i + 1] = MPI_UNDEFINED;
        for (int i = 0; sendbuf && i < size; i++) {
            int v = new_of_member ? new_of_member[i] : (i < ntasks ? i : MPI_UNDEFINED);
            sendbuf[2 * i] = v;
            if (v != MPI_UNDEFINED)
                sendbuf[2 * v + 1] = i;
        }
        if (!c)
            pmpi_say("%s: reorder kept the identity order (out of memory)", what);
        else if (c->status != RANKMAP_OK || !new_of_member)
            pmpi_say("%s: reorder kept the identity order (%s)", what,
                     new_of_member ? c->why : "out of memory");
        else if (pmpi_set.verbose)
            pmpi_say("%s: %d tasks, F %g -> %g (F_min %g), %s, %.3f ms%s; %s", what, ntasks,
                     c->before.F, c->after.F, c->after.F_min, c->after.algorithm,
                     1e3 * c->after.seconds, k > 1 ? ", best of the portfolio" : "", c->why);
        if (k > 1 && pmpi_set.verbose)
            pmpi_say("%s: portfolio of %d ranks, rank %d's search won", what, k, rank);
    } else if (c && c->status != RANKMAP_OK && best.score < HUGE_VAL) {
        pmpi_say("%s: rank %d's search of the portfolio failed (%s); the best of the others is "
                 "used",
                 what, rank, c->why);
    }
    rc = PMPI_Scatter(sendbuf, 2, MPI_INT, pair, 2, MPI_INT, best.member, comm);
out:
    if (graph)
        rankmap_graph_free(graph);
    free(sendbuf);
    free(new_of_member);
    free(c);
    return rc;
}

/* Rank 0 of comm, with MPIR_CVAR_RANKMAP_VERBOSE: a topology call that keeps
 * the order reports the F of the placement as launched (task r on the node
 * of member r), to be compared with the F `rankmap map` printed for a
 * launch-time placement.  Rank 0 alone, no communication.  Frees graph. */
static void report_as_launched(MPI_Comm comm, const char *what, int ntasks,
                               rankmap_graph_t graph, const char *why)
{
    comm_machine m;
    rankmap_report rep;
    char err[600];
    int size = 0;
    PMPI_Comm_size(comm, &size);
    int *launched = malloc((size_t) ntasks * sizeof(int));
    if (graph && launched && machine_build(comm, size, &m, err, sizeof(err)) == 0) {
        for (int r = 0; r < ntasks; r++)
            launched[r] = m.node_of_member[r];
        if (rankmap_evaluate(m.topo, graph, launched, &rep) == RANKMAP_OK)
            pmpi_say("%s: %d tasks, F %g (F_min %g), as launched (%s)", what, ntasks, rep.F,
                     rep.F_min, why);
        machine_free(&m);
    }
    free(launched);
    if (graph)
        rankmap_graph_free(graph);
}

static int hooks_apply(MPI_Comm comm, int ntasks)
{
    int inter = 0, size = 0;
    if (!pmpi_tab.enabled || comm == MPI_COMM_NULL)
        return 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return 0;
    PMPI_Comm_size(comm, &size);
    return ntasks > 1 && ntasks <= size;
}

/* The processes in the new order: rank pair[0], or no communicator. */
static int split_in_order(MPI_Comm comm, int newrank, MPI_Comm *out)
{
    return PMPI_Comm_split(comm, newrank == MPI_UNDEFINED ? MPI_UNDEFINED : 0,
                           newrank == MPI_UNDEFINED ? 0 : newrank, out);
}

/* The creators' common step after the mapper: *ordered = comm split into
 * the mapped order, on which the caller runs MPI's own constructor with
 * reorder=0 (and frees it).  A process beyond the topology gets
 * *newcomm = MPI_COMM_NULL and *ordered = MPI_COMM_NULL: nothing to create. */
static int ordered_comm(MPI_Comm comm, const int pair[2], MPI_Comm *ordered, MPI_Comm *newcomm)
{
    int rc = split_in_order(comm, pair[0], ordered);
    if (rc == MPI_SUCCESS && *ordered == MPI_COMM_NULL)
        *newcomm = MPI_COMM_NULL;
    return rc;
}

/* ---- MPI_Init / MPI_Finalize -------------------------------------------------- */

static int after_init(int rc)
{
    if (rc != MPI_SUCCESS)
        return rc;
    if (pmpi_table_init() != MPI_SUCCESS) {
        /* MPIR_CVAR_RANKMAP_STRICT: MPI_Init fails (the default handler aborts) */
        PMPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
        return MPI_ERR_OTHER;
    }
    pmpi_bcast_init();
    pmpi_safety_init();
    return MPI_SUCCESS;
}

/* this plugin was preloaded into a program of another MPI and could not
 * take itself out (chain.h): it makes no MPI call of its own */
static int pmpi_foreign;

__attribute__((constructor)) static void pmpi_check_flavour(int argc, char **argv)
{
    pmpi_foreign = !chain_flavour_ok((void *) pmpi_check_flavour, argc, argv);
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = chain_init(argc, argv, (void *) MPI_Init);
    return pmpi_foreign ? rc : after_init(rc);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = chain_init_thread(argc, argv, required, provided, (void *) MPI_Init_thread);
    return pmpi_foreign ? rc : after_init(rc);
}

int MPI_Finalize(void)
{
    if (!pmpi_foreign) {
        pmpi_safety_finalize();
        pmpi_table_finalize();
    }
    return chain_finalize((void *) MPI_Finalize);
}

/* ---- MPI_Cart_create / MPI_Cart_map --------------------------------------------- */

/* "MPI_Cart 4px4px4p": the grid in messages (p = periodic) */
static void cart_what(char *what, size_t len, int ndims, const int dims[], const int periods[])
{
    int n = snprintf(what, len, "MPI_Cart ");
    for (int i = 0; i < ndims && n < (int) len - 16; i++)
        n += snprintf(what + n, len - (size_t) n, i ? "x%d%s" : "%d%s", dims[i],
                      periods[i] ? "p" : "");
}

/* MPI_Cart_create keeping the order (reorder=0, or reordering off): the
 * verbose report of the placement as launched, on rank 0 */
static void cart_as_launched(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                             const char *why)
{
    int rank = 1, ntasks = 1;
    PMPI_Comm_rank(comm, &rank);
    if (rank != 0)
        return;
    for (int i = 0; i < ndims; i++)
        ntasks *= dims[i];
    char what[96];
    cart_what(what, sizeof(what), ndims, dims, periods);
    rankmap_graph_t graph = NULL;
    if (rankmap_graph_cartesian(ndims, dims, periods, &graph) != RANKMAP_OK)
        graph = NULL;
    report_as_launched(comm, what, ntasks, graph, why);
}

static int cart_pair(MPI_Comm comm, int ndims, const int dims[], const int periods[], int pair[2])
{
    int rank, ntasks = 1;
    PMPI_Comm_rank(comm, &rank);
    for (int i = 0; i < ndims; i++)
        ntasks *= dims[i];
    rankmap_graph_t graph = NULL;
    rankmap_options opts;
    rankmap_options_init(&opts);
    char what[128];
    cart_what(what, sizeof(what), ndims, dims, periods);
    if (rank == 0) {
        /* the hint: the setting, else what an earlier run of this program learnt */
        const char *hint = pmpi_set.cart_alltoall;
        char learnt[64], path[4096];
        if ((!hint[0] || !strcmp(hint, "unknown")) && pmpi_safety_learned_hint(ndims, dims, learnt, sizeof(learnt), path,
                                                 sizeof(path))) {
            hint = learnt;
            if (pmpi_set.verbose)
                pmpi_say("%s: all-to-all hint %s learnt by an earlier run (%s)", what, hint, path);
        }
        if (rankmap_graph_cartesian_alltoall(ndims, dims, periods, hint, &graph) != RANKMAP_OK) {
            graph = NULL; /* compute_ranks reports rankmap_last_error() */
            size_t len = strlen(what);
            snprintf(what + len, sizeof(what) - len, " (MPIR_CVAR_RANKMAP_CART_ALLTOALL)");
        }
    }
    /* every member of the portfolio maps with the grid (the same on all ranks) */
    opts.cart_ndims = ndims;
    for (int i = 0; i < ndims; i++) {
        opts.cart_dims[i] = dims[i];
        opts.cart_periods[i] = periods[i] ? 1 : 0;
    }
    return reorder_collective(comm, what, ntasks, graph, &opts, pair);
}

static int cart_applies(MPI_Comm comm, int ndims, const int dims[])
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
    return hooks_apply(comm, (int) ntasks);
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *newcomm)
{
    if (!(reorder || pmpi_set.force) || !pmpi_set.cart || !cart_applies(comm, ndims, dims)) {
        if (pmpi_set.verbose && periods && cart_applies(comm, ndims, dims))
            cart_as_launched(comm, ndims, dims, periods, reorder ? "reordering off" : "reorder=0");
        return PMPI_Cart_create(comm, ndims, dims, periods, reorder && pmpi_set.cart, newcomm);
    }
    int pair[2], rc, rank;
    MPI_Comm ordered = MPI_COMM_NULL;
    if ((rc = cart_pair(comm, ndims, dims, periods, pair)) != MPI_SUCCESS ||
        (rc = ordered_comm(comm, pair, &ordered, newcomm)) != MPI_SUCCESS)
        return rc;
    if (ordered != MPI_COMM_NULL) {
        rc = PMPI_Cart_create(ordered, ndims, dims, periods, 0, newcomm);
        PMPI_Comm_free(&ordered);
    }
    PMPI_Comm_rank(comm, &rank);
    if (rc == MPI_SUCCESS) { /* every process of comm: the safety net's count */
        pmpi_safety_reordered("MPI_Cart_create", comm, *newcomm, rank, pair[0], ndims, dims,
                              periods);
        if (!pmpi_set.cart_alltoall[0] || !strcmp(pmpi_set.cart_alltoall, "unknown"))
            pmpi_safety_observe_grid(*newcomm, pair[0], ndims, dims);
    }
    return rc;
}

int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    if (!pmpi_set.cart || !cart_applies(comm, ndims, dims)) {
#ifdef RANKMAP_PMPI_SMPI
        /* SMPI 3.32 has no MPI_Cart_map: the identity map of the standard */
        int rank = 0;
        long ntasks = 1;
        for (int i = 0; i < ndims && dims; i++)
            ntasks *= dims[i];
        if (comm == MPI_COMM_NULL || ndims < 0 || PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
            return MPI_ERR_COMM;
        *newrank = rank < ntasks ? rank : MPI_UNDEFINED;
        return MPI_SUCCESS;
#else
        return PMPI_Cart_map(comm, ndims, dims, periods, newrank);
#endif
    }
    int pair[2], rank, rc = cart_pair(comm, ndims, dims, periods, pair);
    if (rc == MPI_SUCCESS) {
        *newrank = pair[0];
        PMPI_Comm_rank(comm, &rank);
        pmpi_safety_reordered("MPI_Cart_map", comm, MPI_COMM_NULL, rank, pair[0], 0, NULL, NULL);
    }
    return rc;
}

/* ---- MPI_Graph_create / MPI_Graph_map --------------------------------------------- */

static int graph_pair(MPI_Comm comm, int nnodes, const int indx[], const int edges[],
                      int pair[2])
{
    int rank;
    PMPI_Comm_rank(comm, &rank);
    rankmap_graph_t graph = NULL;
    rankmap_options opts;
    rankmap_options_init(&opts);
    if (rank == 0) {
        int64_t nedges = indx[nnodes - 1];
        int *src = malloc((size_t) (nedges + 1) * sizeof(int));
        if (src && nedges >= 0) {
            for (int v = 0, e = 0; v < nnodes; v++)
                for (; e < indx[v] && e < nedges; e++)
                    src[e] = v;
            if (rankmap_graph_create(nnodes, nedges, src, edges, NULL, &graph) != RANKMAP_OK)
                graph = NULL; /* compute_ranks reports rankmap_last_error() */
        }
        free(src);
    }
    return reorder_collective(comm, "MPI_Graph", nnodes, graph, &opts, pair);
}

int MPI_Graph_create(MPI_Comm comm, int nnodes, const int indx[], const int edges[], int reorder,
                     MPI_Comm *newcomm)
{
    if (!(reorder || pmpi_set.force) || !pmpi_set.graph || !indx || !hooks_apply(comm, nnodes))
        return PMPI_Graph_create(comm, nnodes, indx, edges, reorder && pmpi_set.graph, newcomm);
    int pair[2], rc, rank;
    MPI_Comm ordered = MPI_COMM_NULL;
    if ((rc = graph_pair(comm, nnodes, indx, edges, pair)) != MPI_SUCCESS ||
        (rc = ordered_comm(comm, pair, &ordered, newcomm)) != MPI_SUCCESS)
        return rc;
    if (ordered != MPI_COMM_NULL) {
        rc = PMPI_Graph_create(ordered, nnodes, indx, edges, 0, newcomm);
        PMPI_Comm_free(&ordered);
    }
    PMPI_Comm_rank(comm, &rank);
    if (rc == MPI_SUCCESS)
        pmpi_safety_reordered("MPI_Graph_create", comm, *newcomm, rank, pair[0], 0, NULL, NULL);
    return rc;
}

int MPI_Graph_map(MPI_Comm comm, int nnodes, const int indx[], const int edges[], int *newrank)
{
    if (!pmpi_set.graph || !indx || !hooks_apply(comm, nnodes))
        return PMPI_Graph_map(comm, nnodes, indx, edges, newrank);
    int pair[2], rank, rc = graph_pair(comm, nnodes, indx, edges, pair);
    if (rc == MPI_SUCCESS) {
        *newrank = pair[0];
        PMPI_Comm_rank(comm, &rank);
        pmpi_safety_reordered("MPI_Graph_map", comm, MPI_COMM_NULL, rank, pair[0], 0, NULL, NULL);
    }
    return rc;
}

/* ---- MPI_Dist_graph_create(_adjacent) ----------------------------------------------- */

static int dist_weight(const int weights[], int i)
{
    return (weights == MPI_UNWEIGHTED || weights == MPI_WEIGHTS_EMPTY || !weights) ? 1
                                                                                   : weights[i];
}

/* All ranks: gathers (src, dst, weight) triples on rank 0, maps, scatters. */
static int gather_and_reorder(MPI_Comm comm, const char *what, int m, const int *triples,
                              int pair[2])
{
    int rank, size, rc, mine = 3 * m;
    int *counts = NULL, *displs = NULL, *all = NULL, *src = NULL, *dst = NULL;
    double *w = NULL;
    long long total = 0;
    rankmap_graph_t graph = NULL;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    if (rank == 0) {
        counts = malloc((size_t) size * sizeof(int));
        displs = malloc((size_t) size * sizeof(int));
    }
    rc = PMPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    if (rc != MPI_SUCCESS)
        goto out;
    int usable = 1;
    if (rank == 0) {
        usable = counts && displs;
        for (int i = 0; usable && i < size; i++) {
            displs[i] = (int) total;
            total += counts[i];
        }
        usable = usable && total < 0x7fffffffLL && (all = malloc((size_t) (total + 1) * sizeof(int)));
        if (!usable) {
            /* receive nothing; compute_ranks falls back to the identity */
            free(counts);
            counts = calloc((size_t) size, sizeof(int));
            free(displs);
            displs = calloc((size_t) size, sizeof(int));
        }
    }
    rc = PMPI_Gatherv(triples, mine, MPI_INT, all, counts, displs, MPI_INT, 0, comm);
    if (rc != MPI_SUCCESS)
        goto out;
    if (rank == 0 && usable) {
        int64_t ne = total / 3;
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
    rc = reorder_collective(comm, what, size, graph, &opts, pair);
out:
    free(counts);
    free(displs);
    free(all);
    free(src);
    free(dst);
    free(w);
    return rc;
}

int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info,
                          int reorder, MPI_Comm *newcomm)
{
    int size = 0;
    if (comm != MPI_COMM_NULL)
        PMPI_Comm_size(comm, &size);
    if (!pmpi_set.dist_graph || !(reorder || pmpi_set.force) || !hooks_apply(comm, size) || n < 0)
        return PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info,
                                      reorder && pmpi_set.dist_graph, newcomm);
    long m = 0;
    for (int i = 0; i < n; i++)
        m += degrees[i] > 0 ? degrees[i] : 0;
    int *triples = malloc((size_t) (3 * m + 1) * sizeof(int));
    if (!triples)
        m = 0; /* this process's edges are not seen by the mapper */
    for (int i = 0, idx = 0; triples && i < n; i++)
        for (int j = 0; j < degrees[i]; j++, idx++) {
            triples[3 * idx] = sources[i];
            triples[3 * idx + 1] = destinations[idx];
            triples[3 * idx + 2] = dist_weight(weights, idx);
        }
    int pair[2], rc = gather_and_reorder(comm, "MPI_Dist_graph_create", (int) m, triples, pair);
    free(triples);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Comm ordered = MPI_COMM_NULL;
    if ((rc = split_in_order(comm, pair[0], &ordered)) != MPI_SUCCESS)
        return rc;
    /* the edges name ranks of the new communicator */
    rc = PMPI_Dist_graph_create(ordered, n, sources, degrees, destinations, weights, info, 0,
                                newcomm);
    PMPI_Comm_free(&ordered);
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    if (rc == MPI_SUCCESS)
        pmpi_safety_reordered("MPI_Dist_graph_create", comm, *newcomm, rank, pair[0], 0, NULL,
                              NULL);
    return rc;
}

/* After the split: this process gave the lists of vertex OLD (its old rank)
 * and plays vertex NEW = its rank in `ordered`, whose lists another process
 * gave.  The process with new rank OLD plays our vertex: send ours there and
 * receive (from whoever holds them: exactly one message arrives) ours. */
static int move_adjacency(MPI_Comm ordered, int old, int *indeg, const int **sources,
                          const int **sw, int *outdeg, const int **dests, const int **dw,
                          int **owned)
{
    int hdr[4] = { *indeg, *outdeg, *sw != MPI_UNWEIGHTED, *dw != MPI_UNWEIGHTED }, in[4];
    MPI_Status st;
    int rc = PMPI_Sendrecv(hdr, 4, MPI_INT, old, 1, in, 4, MPI_INT, MPI_ANY_SOURCE, 1, ordered,
                           &st);
    if (rc != MPI_SUCCESS)
        return rc;
    int from = st.MPI_SOURCE;
    int ns = hdr[0] * (1 + hdr[2]) + hdr[1] * (1 + hdr[3]);
    int nr = in[0] * (1 + in[2]) + in[1] * (1 + in[3]);
    int *sendbuf = malloc((size_t) (ns + 1) * sizeof(int));
    int *recvbuf = malloc((size_t) (nr + 1) * sizeof(int));
    if (!sendbuf || !recvbuf) {
        free(sendbuf);
        free(recvbuf);
        return MPI_ERR_NO_MEM;
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
    rc = PMPI_Sendrecv(sendbuf, ns, MPI_INT, old, 2, recvbuf, nr, MPI_INT, from, 2, ordered,
                       MPI_STATUS_IGNORE);
    free(sendbuf);
    if (rc != MPI_SUCCESS) {
        free(recvbuf);
        return rc;
    }
    *indeg = in[0];
    *outdeg = in[1];
    k = 0;
    *sources = recvbuf + k;
    k += in[0];
    if (in[2]) {
        *sw = in[0] ? recvbuf + k : MPI_WEIGHTS_EMPTY;
        k += in[0];
    } else {
        *sw = MPI_UNWEIGHTED;
    }
    *dests = recvbuf + k;
    k += in[1];
    if (in[3])
        *dw = in[1] ? recvbuf + k : MPI_WEIGHTS_EMPTY;
    else
        *dw = MPI_UNWEIGHTED;
    *owned = recvbuf;
    return MPI_SUCCESS;
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[],
                                   MPI_Info info, int reorder, MPI_Comm *newcomm)
{
    int size = 0, rank = 0;
    if (comm != MPI_COMM_NULL) {
        PMPI_Comm_size(comm, &size);
        PMPI_Comm_rank(comm, &rank);
    }
    if (!pmpi_set.dist_graph || !(reorder || pmpi_set.force) || !hooks_apply(comm, size) || indegree < 0 ||
        outdegree < 0)
        return PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree,
                                               destinations, destweights, info,
                                               reorder && pmpi_set.dist_graph, newcomm);
    int *triples = malloc((size_t) (3 * outdegree + 1) * sizeof(int));
    int m = triples ? outdegree : 0;
    for (int j = 0; j < m; j++) {
        triples[3 * j] = rank;
        triples[3 * j + 1] = destinations[j];
        triples[3 * j + 2] = dist_weight(destweights, j);
    }
    int pair[2], rc = gather_and_reorder(comm, "MPI_Dist_graph_create_adjacent", m, triples, pair);
    free(triples);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Comm ordered = MPI_COMM_NULL;
    if ((rc = split_in_order(comm, pair[0], &ordered)) != MPI_SUCCESS)
        return rc;
    int *owned = NULL;
    if (pair[0] != rank) /* moved: take over the lists of the new vertex */
        rc = move_adjacency(ordered, rank, &indegree, &sources, &sourceweights, &outdegree,
                            &destinations, &destweights, &owned);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Dist_graph_create_adjacent(ordered, indegree, sources, sourceweights,
                                             outdegree, destinations, destweights, info, 0,
                                             newcomm);
    free(owned);
    PMPI_Comm_free(&ordered);
    if (rc == MPI_SUCCESS)
        pmpi_safety_reordered("MPI_Dist_graph_create_adjacent", comm, *newcomm, rank, pair[0], 0,
                              NULL, NULL);
    return rc;
}

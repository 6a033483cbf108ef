/*
 * table.c -- settings and torus address table of the PMPI reorder plugin.
 *
 * The machine node of every MPI_COMM_WORLD rank (seed 004, section 4.2: the
 * BG/L message layer translates ranks to torus coordinates through a
 * programmable mapping), built in MPI_Init exactly as the patched MPICH
 * builds it (maint/mpich/patches/0002), so a job gets the same ranks under
 * either:
 *   1. MPIR_CVAR_RANKMAP_TOPOLOGY (the CLI's topology strings, plus
 *      torus:auto[N] = MPI_Dims_create(world size, N)) with
 *      MPIR_CVAR_RANKMAP_MAPPING: a BG/L order (XYZT, TXYZ, ...), random[:SEED]
 *      (the default order shuffled, for experiments) or a mapfile path;
 *   2. without a declared topology: the node of each process from the host
 *      names (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)), or K consecutive
 *      ranks per node with MPIR_CVAR_RANKMAP_NODE_SIZE=K; with
 *      rankmap_discover() (when librankmap has it) the hwloc tiers inside a
 *      node are added, otherwise the machine is a two-tier tree
 *      (nodes x processes per node, costs 10 and 1).  One node and nothing
 *      declared: every order costs the same, ranks keep their order.
 * A bad setting gives one warning on rank 0 naming it and disables
 * reordering; MPIR_CVAR_RANKMAP_STRICT=1 makes MPI_Init fail instead.
 * Cost: O(world size) per process; one allreduce (plus, without a declared
 * topology, a split and an allgather) so every rank agrees.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "pmpi/table.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

#ifdef RANKMAP_HAVE_DISCOVER
/* rankmap_discover() is used when the loaded librankmap has it */
#pragma weak rankmap_discover
#endif

pmpi_settings pmpi_set;
pmpi_table pmpi_tab;

void pmpi_say(const char *fmt, ...)
{
    char line[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, PMPI_SAY_PREFIX "%s\n", line);
    fflush(stderr);
}

/* MPICH's mpiexec (hydra) exits as soon as the first abort reaches it, and
 * output its proxy has not yet read from a process's stderr pipe is lost with
 * it: an MPI_Init error written just before the abort can vanish.  Wait (at
 * most 5 s) until our stderr pipe has been read; on a terminal or a file there
 * is nothing to wait for. */
void pmpi_stderr_drain(void)
{
    for (int i = 0; i < 500; i++) {
        int pending = 0;
        if (ioctl(STDERR_FILENO, FIONREAD, &pending) != 0 || pending <= 0)
            return;
        usleep(10000);
    }
}

/* ---- settings ------------------------------------------------------------------ */

/* Value of setting NAME: MPICH_RANKMAP_NAME, MPIR_PARAM_RANKMAP_NAME,
 * MPIR_CVAR_RANKMAP_NAME, the later overriding (as MPICH reads CVARs). */
static const char *env_setting(const char *name)
{
    static const char *prefixes[] = { "MPICH_RANKMAP_", "MPIR_PARAM_RANKMAP_",
                                      "MPIR_CVAR_RANKMAP_" };
    const char *value = NULL;
    char var[96];
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        snprintf(var, sizeof(var), "%s%s", prefixes[i], name);
        const char *v = getenv(var);
        if (v)
            value = v;
    }
    return value;
}

static int parse_bool(const char *name, int def, int *out, char *err, size_t errlen)
{
    const char *v = env_setting(name);
    *out = def;
    if (!v || !*v)
        return 0;
    static const char *yes[] = { "1", "yes", "true", "on" }, *no[] = { "0", "no", "false", "off" };
    for (int i = 0; i < 4; i++) {
        if (!strcasecmp(v, yes[i])) {
            *out = 1;
            return 0;
        }
        if (!strcasecmp(v, no[i])) {
            *out = 0;
            return 0;
        }
    }
    snprintf(err, errlen, "MPIR_CVAR_RANKMAP_%s=\"%s\": expected 0/1, yes/no, true/false", name,
             v);
    return -1;
}

static int parse_long(const char *name, long def, long lo, long hi, long *out, char *err,
                      size_t errlen)
{
    const char *v = env_setting(name);
    *out = def;
    if (!v || !*v)
        return 0;
    char *end;
    long x = strtol(v, &end, 10);
    if (end == v || *end != '\0' || x < lo || x > hi) {
        snprintf(err, errlen, "MPIR_CVAR_RANKMAP_%s=\"%s\": expected an integer in %ld..%ld", name,
                 v, lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

/* Reads every setting; the first bad one is described in err (-1). */
static int settings_read(char *err, size_t errlen)
{
    int bad = 0;
    long v;
    const char *s;
    memset(&pmpi_set, 0, sizeof(pmpi_set));
    bad |= parse_bool("ENABLE", 1, &pmpi_set.enable, err, errlen);
    s = env_setting("TOPOLOGY");
    pmpi_set.topology = s ? s : "";
    s = env_setting("MAPPING");
    pmpi_set.mapping = s ? s : "";
    s = env_setting("ALGORITHM");
    pmpi_set.algorithm = s && *s ? s : "auto";
    s = env_setting("TIME_LIMIT");
    pmpi_set.time_limit = 0;
    if (!bad && s && *s) {
        char *end;
        double t = strtod(s, &end);
        if (end == s || *end != '\0' || !(t >= 0) || t > 1e9) {
            snprintf(err, errlen, "MPIR_CVAR_RANKMAP_TIME_LIMIT=\"%s\": expected seconds >= 0", s);
            bad = -1;
        } else {
            pmpi_set.time_limit = t;
        }
    }
    if (!bad)
        bad |= parse_long("SEED", 1, 0, 0x7fffffffL, &pmpi_set.seed, err, errlen);
    if (!bad && !(bad |= parse_long("VERBOSE", 0, 0, 2, &v, err, errlen)))
        pmpi_set.verbose = (int) v;
    if (!bad)
        bad |= parse_bool("STRICT", 0, &pmpi_set.strict, err, errlen);
    if (!bad && !(bad |= parse_long("MAX_MATRIX", 1024, 0, 1 << 20, &v, err, errlen)))
        pmpi_set.max_matrix = (int) v;
    if (!bad)
        bad |= parse_bool("FORCE", 0, &pmpi_set.force, err, errlen);
    if (!bad)
        bad |= parse_bool("DIST_GRAPH", 1, &pmpi_set.dist_graph, err, errlen);
    if (!bad)
        bad |= parse_bool("KEEP_RANK0", 1, &pmpi_set.keep_rank0, err, errlen);
    s = env_setting("GUARD");
    pmpi_set.guard = s ? s : "";
    s = env_setting("CART_ALLTOALL");
    pmpi_set.cart_alltoall = s ? s : "";
    if (!bad && !(bad |= parse_long("NODE_SIZE", 0, 0, 1 << 30, &v, err, errlen)))
        pmpi_set.node_size = (int) v;
    if (!bad)
        bad |= parse_bool("BCAST", 0, &pmpi_set.bcast, err, errlen);
    if (!bad)
        bad |= parse_long("BCAST_MIN", 65536, 0, 0x7fffffffL, &pmpi_set.bcast_min, err, errlen);
    /* in-call reordering and its safety net (safety.c) */
    if (!bad)
        bad |= parse_bool("CART", 1, &pmpi_set.cart, err, errlen);
    if (!bad)
        bad |= parse_bool("GRAPH", 1, &pmpi_set.graph, err, errlen);
    s = env_setting("SKIP_PROGRAMS");
    pmpi_set.skip_programs = s ? s : "";
    if (!bad)
        bad |= parse_long("WATCHDOG", 300, 0, 604800, &pmpi_set.watchdog, err, errlen);
    s = env_setting("WATCHDOG_ACTION");
    if (!bad && s && *s && strcasecmp(s, "warn") && strcasecmp(s, "abort")) {
        snprintf(err, errlen, "MPIR_CVAR_RANKMAP_WATCHDOG_ACTION=\"%s\": expected warn or abort",
                 s);
        bad = -1;
    }
    pmpi_set.watchdog_abort = s && !strcasecmp(s, "abort");
    if (!bad)
        bad |= parse_bool("CHECK", 0, &pmpi_set.check, err, errlen);
    return bad ? -1 : 0;
}

/* ---- the address table ------------------------------------------------------- */

/* "torus:auto3..." -> "torus:4x4x4..." for nprocs processes. */
static int expand_auto(const char *spec, int nprocs, char *out, size_t outlen)
{
    const char *colon = strchr(spec, ':');
    if (!colon || strncmp(colon + 1, "auto", 4) != 0) {
        snprintf(out, outlen, "%s", spec);
        return 0;
    }
    const char *p = colon + 5;
    int nd = 3;
    if (*p >= '1' && *p <= '6')
        nd = *p++ - '0';
    if (*p != '\0' && *p != ':')
        return -1;
    int dims[RANKMAP_MAX_DIMS] = { 0 };
    if (PMPI_Dims_create(nprocs, nd, dims) != MPI_SUCCESS)
        return -1;
    size_t len = (size_t) snprintf(out, outlen, "%.*s", (int) (colon - spec + 1), spec);
    for (int i = 0; i < nd && len < outlen; i++)
        len += (size_t) snprintf(out + len, outlen - len, i ? "x%d" : "%d", dims[i]);
    if (len < outlen)
        snprintf(out + len, outlen - len, "%s", p);
    return len < outlen ? 0 : -1;
}

/* The default order: every lettered dimension, then T (a model whose last
 * dimension is the slot, e.g. torus:8x8x8x2:local=..., has one letter less). */
static int default_placement(rankmap_topology_t topo, int ndims, int nprocs, int *node_of_rank)
{
    char order[16];
    int rc = RANKMAP_ERR_INVALID;
    for (int lettered = ndims; lettered >= ndims - 1 && lettered >= 0; lettered--) {
        snprintf(order, sizeof(order), "%.*sT", lettered, lettered <= 3 ? "XYZ" : "ABCDEF");
        rc = rankmap_order_placement(topo, order, nprocs, node_of_rank);
        if (rc == RANKMAP_OK || rc == RANKMAP_ERR_TOO_SMALL)
            return rc;
    }
    return rc;
}

static int looks_like_order(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 8)
        return 0;
    return strspn(s, "XYZTABCDEFxyztabcdef") == n;
}

/* splitmix64, the generator of the "random" mapping (same sequence as the
 * patched MPICH, so random:SEED scatters ranks identically under both) */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Node index of every world rank from the host names: the processes that
 * share memory form a node; nodes are numbered by their lowest world rank. */
static int nodes_from_hosts(int *node_of_proc)
{
    MPI_Comm shm = MPI_COMM_NULL, leaders = MPI_COMM_NULL;
    int me = pmpi_tab.world_rank, srank = 0, node = 0, rc;
    rc = PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &shm);
    if (rc != MPI_SUCCESS)
        return rc;
    PMPI_Comm_rank(shm, &srank);
    rc = PMPI_Comm_split(MPI_COMM_WORLD, srank == 0 ? 0 : MPI_UNDEFINED, me, &leaders);
    if (rc == MPI_SUCCESS && leaders != MPI_COMM_NULL) {
        PMPI_Comm_rank(leaders, &node);
        PMPI_Comm_free(&leaders);
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Bcast(&node, 1, MPI_INT, 0, shm);
    PMPI_Comm_free(&shm);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Allgather(&node, 1, MPI_INT, node_of_proc, 1, MPI_INT, MPI_COMM_WORLD);
    return rc;
}

/* Without a declared topology.  Returns 1 (table built), 0 (nothing to map
 * on: one node) or -1 (err filled).  Collective over MPI_COMM_WORLD. */
static int table_from_nodes(char *err, size_t errlen)
{
    int n = pmpi_tab.world_size;
    int *node_of_proc = malloc((size_t) n * sizeof(int));
    int *count = NULL, rc = -1;
    char spec[128] = "";
    if (!node_of_proc) {
        snprintf(err, errlen, "out of memory for the address table");
        return -1;
    }
    const char *what = "host names";
    if (pmpi_set.node_size > 0) {
        for (int r = 0; r < n; r++)
            node_of_proc[r] = r / pmpi_set.node_size;
        what = "MPIR_CVAR_RANKMAP_NODE_SIZE";
    } else if (nodes_from_hosts(node_of_proc) != MPI_SUCCESS) {
        snprintf(err, errlen, "cannot group the processes by host");
        goto out;
    }
#ifdef RANKMAP_HAVE_DISCOVER
    if (rankmap_discover) { /* weak: NULL when this librankmap lacks it */
        char settings[256];
        const char *extra = env_setting("DISCOVER");
        int len = 0;
        settings[0] = '\0';
        if (pmpi_set.node_size > 0)
            len = snprintf(settings, sizeof(settings), "node_size=%d", pmpi_set.node_size);
        if (extra && *extra)
            snprintf(settings + len, sizeof(settings) - (size_t) len, "%s%s", len ? ";" : "",
                     extra);
        rankmap_topology_t topo;
        if (rankmap_discover(n, node_of_proc, settings, &topo, pmpi_tab.node_of_rank) !=
            RANKMAP_OK) {
            snprintf(err, errlen, "machine discovery (%s%s%s): %s", what,
                     settings[0] ? ", " : "", settings, rankmap_last_error());
            goto out;
        }
        int nn = 0;
        rankmap_topology_size(topo, &nn);
        if (nn <= 1) {
            rankmap_topology_free(topo);
            rc = 0;
            goto out;
        }
        pmpi_tab.topo = topo;
        snprintf(pmpi_tab.source, sizeof(pmpi_tab.source), "discovered machine (%s%s%s)", what,
                 settings[0] ? ", " : "", settings);
        rc = 1;
        goto out;
    }
#endif
    {
        int nnodes = 0, ppn = 1;
        for (int r = 0; r < n; r++)
            if (node_of_proc[r] + 1 > nnodes)
                nnodes = node_of_proc[r] + 1;
        if (nnodes <= 1) {
            rc = 0;
            goto out;
        }
        count = calloc((size_t) nnodes, sizeof(int));
        if (!count) {
            snprintf(err, errlen, "out of memory for the address table");
            goto out;
        }
        for (int r = 0; r < n; r++)
            if (++count[node_of_proc[r]] > ppn)
                ppn = count[node_of_proc[r]];
        snprintf(spec, sizeof(spec), "tree:%dx%d:cost=10,1", nnodes, ppn);
        rankmap_topology_t topo;
        if (rankmap_topology_parse(spec, &topo) != RANKMAP_OK) {
            snprintf(err, errlen, "%s topology %s: %s", what, spec, rankmap_last_error());
            goto out;
        }
        memset(count, 0, (size_t) nnodes * sizeof(int));
        for (int r = 0; r < n; r++) {
            int c[2] = { node_of_proc[r], count[node_of_proc[r]]++ };
            if (rankmap_topology_node(topo, c, &pmpi_tab.node_of_rank[r]) != RANKMAP_OK) {
                snprintf(err, errlen, "%s topology %s: %s", what, spec, rankmap_last_error());
                rankmap_topology_free(topo);
                goto out;
            }
        }
        pmpi_tab.topo = topo;
        snprintf(pmpi_tab.source, sizeof(pmpi_tab.source), "%s from %s", spec, what);
        rc = 1;
    }
out:
    free(node_of_proc);
    free(count);
    return rc;
}

/* Returns 1 (table built), 0 (nothing to map on) or -1 (err filled). */
static int table_from_settings(char *err, size_t errlen)
{
    int nprocs = pmpi_tab.world_size;
    const char *tspec = pmpi_set.topology, *mapping = pmpi_set.mapping;
    char spec[512];

    if (!*tspec) {
        if (*mapping) {
            snprintf(err, errlen,
                     "MPIR_CVAR_RANKMAP_MAPPING=\"%s\" needs MPIR_CVAR_RANKMAP_TOPOLOGY", mapping);
            return -1;
        }
        return table_from_nodes(err, errlen);
    }
    if (expand_auto(tspec, nprocs, spec, sizeof(spec)) != 0) {
        snprintf(err, errlen,
                 "MPIR_CVAR_RANKMAP_TOPOLOGY=\"%s\": expected torus:auto or torus:autoN with N "
                 "in 1..6",
                 tspec);
        return -1;
    }
    rankmap_topology_t topo;
    if (rankmap_topology_parse(spec, &topo) != RANKMAP_OK) {
        snprintf(err, errlen, "MPIR_CVAR_RANKMAP_TOPOLOGY=\"%s\": %s", tspec, rankmap_last_error());
        return -1;
    }
    pmpi_tab.topo = topo;
    int ndims = 0, rc;
    rankmap_topology_ndims(topo, &ndims);
    const char *what = *mapping ? mapping : "default order";
    if (!*mapping) {
        rc = default_placement(topo, ndims, nprocs, pmpi_tab.node_of_rank);
    } else if (looks_like_order(mapping)) {
        rc = rankmap_order_placement(topo, mapping, nprocs, pmpi_tab.node_of_rank);
    } else if (!strncmp(mapping, "random", 6) && (mapping[6] == '\0' || mapping[6] == ':')) {
        uint64_t state = 1;
        if (mapping[6] == ':') {
            char *end;
            state = strtoull(mapping + 7, &end, 10);
            if (end == mapping + 7 || *end != '\0') {
                snprintf(err, errlen,
                         "MPIR_CVAR_RANKMAP_MAPPING=\"%s\": expected random or random:SEED",
                         mapping);
                return -1;
            }
        }
        rc = default_placement(topo, ndims, nprocs, pmpi_tab.node_of_rank);
        int *p = pmpi_tab.node_of_rank;
        for (int i = nprocs - 1; rc == RANKMAP_OK && i > 0; i--) {
            int j = (int) (next_random(&state) % (uint64_t) (i + 1));
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
    } else {
        rc = rankmap_mapfile_read(topo, mapping, nprocs, pmpi_tab.node_of_rank);
    }
    if (rc != RANKMAP_OK) {
        if (rc == RANKMAP_ERR_TOO_SMALL)
            snprintf(err, errlen,
                     "MPIR_CVAR_RANKMAP_TOPOLOGY=\"%s\" is too small for %d processes "
                     "(MPIR_CVAR_RANKMAP_MAPPING=\"%s\"): %s",
                     tspec, nprocs, what, rankmap_last_error());
        else
            snprintf(err, errlen, "MPIR_CVAR_RANKMAP_MAPPING=\"%s\": %s", what,
                     rankmap_last_error());
        return -1;
    }
    snprintf(pmpi_tab.source, sizeof(pmpi_tab.source), "%s, mapping %s", spec, what);
    return 1;
}

static void table_free(void)
{
    if (pmpi_tab.topo)
        rankmap_topology_free(pmpi_tab.topo);
    free(pmpi_tab.node_of_rank);
    int size = pmpi_tab.world_size, rank = pmpi_tab.world_rank;
    memset(&pmpi_tab, 0, sizeof(pmpi_tab));
    pmpi_tab.world_size = size;
    pmpi_tab.world_rank = rank;
}

int pmpi_table_init(void)
{
    char err[1024] = "";
    int rc;
    memset(&pmpi_tab, 0, sizeof(pmpi_tab));
    PMPI_Comm_size(MPI_COMM_WORLD, &pmpi_tab.world_size);
    PMPI_Comm_rank(MPI_COMM_WORLD, &pmpi_tab.world_rank);

    rc = settings_read(err, sizeof(err));
    if (rc == 0 && !pmpi_set.enable)
        return MPI_SUCCESS; /* off everywhere: no table, no communication */
    if (rc == 0) {
        pmpi_tab.node_of_rank = calloc((size_t) pmpi_tab.world_size, sizeof(int));
        if (!pmpi_tab.node_of_rank) {
            snprintf(err, sizeof(err), "out of memory for the address table");
            rc = -1;
        } else {
            rc = table_from_settings(err, sizeof(err));
        }
    }
    /* every rank must agree (a mapfile may be unreadable on one node, the
     * discovered machines may differ): the table is used only if all built
     * the same one */
    long local[3] = { rc >= 0 ? 1 : 0, rc, 0 }, lo[3], hi[3];
    if (rc > 0) {
        uint64_t h = 1469598103934665603ULL;
        for (int r = 0; r < pmpi_tab.world_size; r++)
            h = (h ^ (uint64_t) pmpi_tab.node_of_rank[r]) * 1099511628211ULL;
        int nn = 0;
        rankmap_topology_size(pmpi_tab.topo, &nn);
        local[2] = (long) ((h ^ (uint64_t) nn) & 0x7fffffffffffffffULL);
    }
    PMPI_Allreduce(local, lo, 3, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
    PMPI_Allreduce(local, hi, 3, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    int agree = lo[0] == 1 && lo[1] == hi[1] && lo[2] == hi[2];
    if (!agree) {
        if (rc >= 0)
            snprintf(err, sizeof(err),
                     lo[0] == 1 ? "the processes built different address tables "
                                  "(MPIR_CVAR_RANKMAP_* settings or machines differ)"
                                : "the address table failed on another rank "
                                  "(MPIR_CVAR_RANKMAP_TOPOLOGY / MPIR_CVAR_RANKMAP_MAPPING)");
        table_free();
        if (pmpi_set.strict) {
            if (pmpi_tab.world_rank == 0) {
                pmpi_say("error: %s (MPIR_CVAR_RANKMAP_STRICT=1)", err);
                pmpi_stderr_drain();
            }
            /* the message is out before any rank aborts the job */
            PMPI_Barrier(MPI_COMM_WORLD);
            return MPI_ERR_OTHER;
        }
        if (pmpi_tab.world_rank == 0)
            pmpi_say("warning: %s; reordering disabled", err);
        return MPI_SUCCESS;
    }
    if (rc == 0) {
        table_free();
        if (pmpi_set.verbose && pmpi_tab.world_rank == 0)
            pmpi_say("single node and no MPIR_CVAR_RANKMAP_TOPOLOGY: ranks keep their order");
        return MPI_SUCCESS;
    }
    rankmap_topology_size(pmpi_tab.topo, &pmpi_tab.nnodes);
    rankmap_topology_ndims(pmpi_tab.topo, &pmpi_tab.ndims);
    rankmap_topology_dims(pmpi_tab.topo, pmpi_tab.dims);
    pmpi_tab.enabled = 1;
    if (pmpi_set.verbose && pmpi_tab.world_rank == 0)
        pmpi_say("address table of %d ranks on %s", pmpi_tab.world_size, pmpi_tab.source);
    return MPI_SUCCESS;
}

void pmpi_table_finalize(void)
{
    table_free();
}

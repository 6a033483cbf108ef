/*
 * table.c -- settings and torus address table of the PMPI reorder plugin.
 *
 * The machine node of every MPI_COMM_WORLD rank, built in MPI_Init by the
 * glue's rankmap_table_declared() / rankmap_table_discover()
 * (include/rankmap_glue.h), the functions the patched MPICH calls, so a job
 * gets the same table under either:
 *   1. MPIR_CVAR_RANKMAP_TOPOLOGY with MPIR_CVAR_RANKMAP_MAPPING;
 *   2. without a declared topology: rank 0 discovers the machine -- the node
 *      of each process from the host names (MPI_Comm_split_type
 *      (MPI_COMM_TYPE_SHARED)) or K consecutive ranks per node with
 *      MPIR_CVAR_RANKMAP_NODE_SIZE=K, hwloc tiers inside a node -- and
 *      broadcasts it.  One leaf: every order costs the same, ranks keep
 *      their order.
 * This file reads the settings from the environment and does the
 * communication.  A bad setting gives one warning on rank 0 naming it and
 * disables reordering; MPIR_CVAR_RANKMAP_STRICT=1 makes MPI_Init fail
 * instead.  Cost: O(world size) per process; two allreduces so every rank
 * agrees on the table (plus, without a declared topology, a split, an
 * allgather and two broadcasts).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "pmpi/table.h"

#include <rankmap_glue.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

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
    /* STRICT first: it decides what every other bad setting does */
    bad |= parse_bool("STRICT", 0, &pmpi_set.strict, err, errlen);
    if (!bad)
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
    if (!bad && !(bad |= parse_long("PORTFOLIO", RANKMAP_PORTFOLIO_DEFAULT, 1, 1L << 20, &v, err,
                                    errlen)))
        pmpi_set.portfolio = (int) v;
    if (!bad && !(bad |= parse_long("VERBOSE", 0, 0, 2, &v, err, errlen)))
        pmpi_set.verbose = (int) v;
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
    if (!bad && !(bad |= parse_long("NODE_SIZE", 0, -(1L << 30), 1L << 30, &v, err, errlen)))
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

static int dims_create(int nnodes, int ndims, int *dims)
{
    return PMPI_Dims_create(nnodes, ndims, dims) == MPI_SUCCESS ? 0 : -1;
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

/* Slurm's switches (topology/tree): every process's SLURM_TOPOLOGY_ADDR,
 * gathered on rank 0 in RANKMAP_SWITCH_ADDR_MAX bytes each (an address that
 * long keeps no NUL, and the glue names it).  *addrs stays NULL on the other
 * ranks and when no process has the variable.  Collective. */
static int switch_addrs(char **addrs)
{
    const char *mine = getenv("SLURM_TOPOLOGY_ADDR");
    char buf[RANKMAP_SWITCH_ADDR_MAX];
    int have = mine && *mine, any = 0, rc;
    *addrs = NULL;
    rc = PMPI_Allreduce(&have, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS || !any)
        return rc;
    memset(buf, 0, sizeof(buf));
    if (have)
        memcpy(buf, mine, strnlen(mine, sizeof(buf)));
    int ready = 1;
    if (pmpi_tab.world_rank == 0) {
        *addrs = malloc((size_t) pmpi_tab.world_size * sizeof(buf));
        ready = *addrs != NULL;
    }
    rc = PMPI_Bcast(&ready, 1, MPI_INT, 0, MPI_COMM_WORLD);  /* nobody waits on a gather rank 0 skips */
    if (rc != MPI_SUCCESS || !ready)
        return rc != MPI_SUCCESS ? rc : MPI_ERR_NO_MEM;
    rc = PMPI_Gather(buf, (int) sizeof(buf), MPI_BYTE, *addrs, (int) sizeof(buf), MPI_BYTE, 0,
                     MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        free(*addrs);
        *addrs = NULL;
    }
    return rc;
}

/* Without a declared topology: rank 0 runs rankmap_table_discover() (the
 * glue, as the patched MPICH) and broadcasts the machine's description and
 * the leaf of every rank.  Collective over MPI_COMM_WORLD.  Returns 1 (table
 * built), 0 (one leaf: ranks keep their order) or -1 (err filled, the same
 * on every rank). */
static int table_from_discovery(char *err, size_t errlen)
{
    int n = pmpi_tab.world_size;
    struct {
        int rc;
        char spec[512];
        char source[256];
        char err[768];
    } res;
    int *node_of_proc = NULL;
    memset(&res, 0, sizeof(res));
    if (pmpi_set.node_size <= 0) {
        /* the host names: collective, before rank 0 decides */
        node_of_proc = malloc((size_t) n * sizeof(int));
        if (!node_of_proc || nodes_from_hosts(node_of_proc) != MPI_SUCCESS) {
            free(node_of_proc);
            node_of_proc = NULL;
            if (pmpi_tab.world_rank == 0)
                snprintf(res.err, sizeof(res.err), "cannot group the processes by host");
            res.rc = -1;
        }
    }
    char *addrs = NULL;
    if (res.rc == 0 && switch_addrs(&addrs) != MPI_SUCCESS) {
        if (pmpi_tab.world_rank == 0)
            snprintf(res.err, sizeof(res.err), "cannot gather SLURM_TOPOLOGY_ADDR");
        res.rc = -1;
    }
    if (pmpi_tab.world_rank == 0 && res.rc == 0) {
        const char *extra = env_setting("DISCOVER");
        if (rankmap_table_discover(n, node_of_proc, pmpi_set.node_size, extra ? extra : "", addrs,
                                   RANKMAP_SWITCH_ADDR_MAX, getenv("SLURM_TOPOLOGY_ADDR_PATTERN"),
                                   pmpi_set.verbose, res.spec, sizeof(res.spec),
                                   pmpi_tab.node_of_rank, res.source, sizeof(res.source))
            != RANKMAP_OK) {
            res.rc = -1;
            snprintf(res.err, sizeof(res.err), "%s", rankmap_last_error());
        } else {
            res.rc = res.spec[0] ? 1 : 0;
        }
    }
    free(node_of_proc);
    free(addrs);
    if (PMPI_Bcast(&res, (int) sizeof(res), MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS ||
        (res.rc > 0 &&
         PMPI_Bcast(pmpi_tab.node_of_rank, n, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS)) {
        snprintf(err, errlen, "broadcast of the discovered machine failed");
        return -1;
    }
    if (res.rc < 0) {
        snprintf(err, errlen, "%s", res.err[0] ? res.err : "cannot group the processes by host");
        return -1;
    }
    if (res.rc == 0)
        return 0;
    if (rankmap_topology_parse(res.spec, &pmpi_tab.topo) != RANKMAP_OK) {
        snprintf(err, errlen, "discovered topology %s: %s", res.spec, rankmap_last_error());
        return -1;
    }
    snprintf(pmpi_tab.source, sizeof(pmpi_tab.source), "%s", res.source);
    return 1;
}

/* Returns 1 (table built), 0 (nothing to map on) or -1 (err filled). */
static int table_from_settings(char *err, size_t errlen)
{
    if (!*pmpi_set.topology) {
        if (*pmpi_set.mapping) {
            snprintf(err, errlen,
                     "MPIR_CVAR_RANKMAP_MAPPING=\"%s\" needs MPIR_CVAR_RANKMAP_TOPOLOGY",
                     pmpi_set.mapping);
            return -1;
        }
        return table_from_discovery(err, errlen);
    }
    if (rankmap_table_declared(pmpi_set.topology, pmpi_set.mapping, pmpi_tab.world_size,
                               dims_create, &pmpi_tab.topo, pmpi_tab.node_of_rank,
                               pmpi_tab.source, sizeof(pmpi_tab.source)) != RANKMAP_OK) {
        snprintf(err, errlen, "%s", rankmap_last_error());
        return -1;
    }
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
    if (rc > 0)
        local[2] = rankmap_table_digest(pmpi_tab.topo, pmpi_tab.world_size, pmpi_tab.node_of_rank);
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
            pmpi_say("one node without a package or NUMA tier and no "
                     "MPIR_CVAR_RANKMAP_TOPOLOGY: ranks keep their order");
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

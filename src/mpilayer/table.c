/*
 * table.c -- the address table: the machine node of every MPI_COMM_WORLD
 * rank (Almasi et al., "Implementing MPI on the BlueGene/L supercomputer":
 * a programmable mapping of ranks to torus coordinates), built by every
 * process in MPI_Init.  What it holds is decided by the glue of librankmap
 * (include/rankmap_glue.h):
 *   1. MPIR_CVAR_RANKMAP_TOPOLOGY with MPIR_CVAR_RANKMAP_MAPPING
 *      (rankmap_table_declared), then checked against the hosts the
 *      processes run on (rankmap_table_hosts: on a tree without a mapping,
 *      the table is where the ranks run);
 *   2. without a declared topology, rank 0 discovers the machine
 *      (rankmap_table_discover: nodes from the processes' host names or
 *      MPIR_CVAR_RANKMAP_NODE_SIZE, hwloc tiers inside a node, Slurm's
 *      switches from SLURM_TOPOLOGY_ADDR) and broadcasts it.
 * Every process then checks that all hold the same table (one allreduce of
 * rankmap_table_digest): a mapfile unreadable on one node, or machines that
 * differ, disable reordering for the job.  Cost: O(world size) per process
 * and, in MPI_Init, a few collectives and no communicator: an allreduce of
 * the table, one of the per-program settings (program.c), and (unless
 * MPIR_CVAR_RANKMAP_NODE_SIZE stands in for the hosts) a broadcast and a
 * gather of the host names, an allreduce (and a broadcast and a gather
 * when there are any) of Slurm's addresses, and one or two broadcasts of
 * rank 0's table.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "mpilayer/layer.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

rml_job rml;

static int dims_create(int nnodes, int ndims, int *dims)
{
    return rml.ops->dims_create(nnodes, ndims, dims) == 0 ? 0 : -1;
}

/* qsort's view of the gathered names */
static const char *sort_names;
static size_t sort_name_len;

static int by_name_then_rank(const void *a, const void *b)
{
    int x = *(const int *) a, y = *(const int *) b;
    int c = strcmp(sort_names + (size_t) x * sort_name_len, sort_names + (size_t) y * sort_name_len);
    return c ? c : (x > y) - (x < y);
}

/* NODE_OF_PROC[r] = the node of the N names of LEN bytes each, nodes
 * numbered by their lowest rank; n log n for a full machine's names. */
static int number_hosts(const char *names, size_t len, int n, int *node_of_proc)
{
    int *order = malloc((size_t) n * sizeof(int));
    if (!order)
        return -1;
    for (int r = 0; r < n; r++)
        order[r] = r;
    sort_names = names, sort_name_len = len;
    qsort(order, (size_t) n, sizeof(int), by_name_then_rank);
    /* each rank's lowest namesake: the first of its run */
    for (int i = 0, first = 0; i < n; i++) {
        if (i > 0 && strcmp(names + (size_t) order[i - 1] * len, names + (size_t) order[i] * len) != 0)
            first = i;
        node_of_proc[order[i]] = order[first];
    }
    free(order);
    /* ascending ranks: a rank that is its own lowest namesake opens a node,
     * the others join that one's, numbered already */
    int nodes = 0;
    for (int r = 0; r < n; r++)
        node_of_proc[r] = node_of_proc[r] == r ? nodes++ : node_of_proc[node_of_proc[r]];
    return 0;
}

/* The node of every world rank, on rank 0, from the host names (the
 * path's MPI_Get_processor_name, or gethostname): nodes numbered by
 * their lowest world rank.  Collective over world: one gather.  Returns
 * nonzero on rank 0 when the names cannot be gathered; NODE_OF_PROC is
 * left alone on the other ranks. */
static int nodes_from_hosts(int *node_of_proc)
{
    const rml_ops *o = rml.ops;
    enum { NAME = HOST_NAME_MAX + 1 };
    char mine[NAME];
    memset(mine, 0, sizeof(mine));
    if ((o->processor_name ? o->processor_name(mine, NAME) : gethostname(mine, NAME - 1)) != 0)
        snprintf(mine, sizeof(mine), "?");
    mine[NAME - 1] = '\0';
    int me = rml.world_rank, n = rml.world_size, ready = 1, rc;
    char *names = NULL;
    if (me == 0)
        ready = (names = malloc((size_t) n * NAME)) != NULL;
    /* nobody waits in a gather that rank 0 cannot receive */
    if ((rc = o->bcast(&ready, sizeof(ready), 0, o->world)) != 0 || !ready)
        return rc ? rc : -1;
    rc = o->gather(mine, NAME, names, 0, o->world);
    if (rc == 0 && me == 0)
        rc = number_hosts(names, NAME, n, node_of_proc);
    free(names);
    return rc;
}

/* Slurm's switches (topology/tree): every process's SLURM_TOPOLOGY_ADDR,
 * gathered on rank 0 in RANKMAP_SWITCH_ADDR_MAX bytes each.  *addrs stays
 * NULL on the other ranks and when no process has the variable. */
static int switch_addrs(char **addrs)
{
    const rml_ops *o = rml.ops;
    const char *mine = getenv("SLURM_TOPOLOGY_ADDR");
    char buf[RANKMAP_SWITCH_ADDR_MAX];
    int have = mine && *mine, any = 0, rc;
    *addrs = NULL;
    rc = o->allreduce(&have, &any, 1, RML_INT, RML_MAX, o->world);
    if (rc != 0 || !any)
        return rc;
    memset(buf, 0, sizeof(buf));
    if (have)
        memcpy(buf, mine, strnlen(mine, sizeof(buf)));
    int ready = 1;
    if (rml.world_rank == 0) {
        *addrs = malloc((size_t) rml.world_size * sizeof(buf));
        ready = *addrs != NULL;
    }
    /* nobody waits in a gather that rank 0 cannot receive */
    rc = o->bcast(&ready, sizeof(ready), 0, o->world);
    if (rc != 0 || !ready)
        return rc != 0 ? rc : o->err_nomem;
    rc = o->gather(buf, (int) sizeof(buf), *addrs, 0, o->world);
    if (rc != 0) {
        free(*addrs);
        *addrs = NULL;
    }
    return rc;
}

/* Without a declared topology.  Returns 1 (table built), 0 (one leaf: every
 * order costs the same) or -1 (err filled, the same on every rank). */
static int table_from_discovery(char *err, size_t errlen)
{
    const rml_ops *o = rml.ops;
    int n = rml.world_size, node_size = (int) rml_int(RML_S_NODE_SIZE);
    struct {
        int rc;
        char spec[512];
        char source[256];
        char err[768];
    } res;
    int *node_of_proc = NULL;
    memset(&res, 0, sizeof(res));
    if (node_size <= 0) {
        /* every process allocates before any enters the collectives */
        node_of_proc = malloc((size_t) n * sizeof(int));
        int ok = node_of_proc != NULL, all = 0;
        if (o->allreduce(&ok, &all, 1, RML_INT, RML_MIN, o->world) != 0 || !all ||
            nodes_from_hosts(node_of_proc) != 0) {
            free(node_of_proc);
            node_of_proc = NULL;
            if (rml.world_rank == 0)
                snprintf(res.err, sizeof(res.err), "cannot group the processes by host");
            res.rc = -1;
        }
    }
    char *addrs = NULL;
    if (switch_addrs(&addrs) != 0) {
        if (rml.world_rank == 0 && res.rc == 0)
            snprintf(res.err, sizeof(res.err), "cannot gather SLURM_TOPOLOGY_ADDR");
        res.rc = -1;
    }
    if (rml.world_rank == 0 && res.rc == 0) {
        if (rankmap_table_discover(n, node_of_proc, node_size, rml_str(RML_S_DISCOVER), addrs,
                                   RANKMAP_SWITCH_ADDR_MAX, getenv("SLURM_TOPOLOGY_ADDR_PATTERN"),
                                   (int) rml_int(RML_S_VERBOSE), res.spec, sizeof(res.spec),
                                   rml.node_of_rank, res.source, sizeof(res.source)) != RANKMAP_OK) {
            res.rc = -1;
            snprintf(res.err, sizeof(res.err), "%s", rankmap_last_error());
        } else {
            res.rc = res.spec[0] ? 1 : 0;
        }
    }
    free(node_of_proc);
    free(addrs);
    if (o->bcast(&res, sizeof(res), 0, o->world) != 0 ||
        (res.rc > 0 && o->bcast(rml.node_of_rank, (size_t) n * sizeof(int), 0, o->world) != 0)) {
        snprintf(err, errlen, "broadcast of the discovered machine failed");
        return -1;
    }
    if (res.rc < 0) {
        snprintf(err, errlen, "%s", res.err[0] ? res.err : "cannot group the processes by host");
        return -1;
    }
    if (res.rc == 0)
        return 0;
    if (rankmap_topology_parse(res.spec, &rml.topo) != RANKMAP_OK) {
        snprintf(err, errlen, "discovered topology %s: %s", res.spec, rankmap_last_error());
        return -1;
    }
    snprintf(rml.source, sizeof(rml.source), "%s", res.source);
    return 1;
}

/* A declared machine against where the processes run
 * (rankmap_table_hosts): the host of every process from the host names or
 * MPIR_CVAR_RANKMAP_NODE_SIZE, Slurm's switches on rank 0; rank 0 decides
 * and broadcasts.  On a tree without MPIR_CVAR_RANKMAP_MAPPING the table
 * becomes where the ranks run; a table that contradicts the hosts gets one
 * warning.  A job whose hosts cannot be told keeps the declared table.
 * Collective over world: every process calls it, built = 0 where the
 * declared table failed (then nothing happens anywhere). */
static void table_hosts(const char *mapping, int built)
{
    const rml_ops *o = rml.ops;
    int n = rml.world_size, node_size = (int) rml_int(RML_S_NODE_SIZE);
    struct {
        int rc, placed;
        char note[768];
    } res;
    memset(&res, 0, sizeof(res));
    int *host = built ? malloc((size_t) n * sizeof(int)) : NULL;
    int ok = host != NULL, all = 0;
    if (o->allreduce(&ok, &all, 1, RML_INT, RML_MIN, o->world) != 0 || !all) {
        free(host);
        return;
    }
    if (node_size > 0) {
        for (int r = 0; r < n; r++)
            host[r] = r / node_size;
    } else if (nodes_from_hosts(host) != 0) {
        res.rc = -1;
    }
    char *addrs = NULL;
    if (switch_addrs(&addrs) != 0)
        addrs = NULL; /* the switches only order the hosts */
    if (rml.world_rank == 0 && res.rc == 0 &&
        rankmap_table_hosts(rml.topo, n, host, mapping, addrs, RANKMAP_SWITCH_ADDR_MAX, rml.node_of_rank,
                            &res.placed, res.note, sizeof(res.note)) != RANKMAP_OK) {
        res.rc = -1;
        snprintf(res.note, sizeof(res.note), "%s", rankmap_last_error());
    }
    free(addrs);
    free(host);
    if (o->bcast(&res, sizeof(res), 0, o->world) != 0)
        return;
    if (res.placed) {
        o->bcast(rml.node_of_rank, (size_t) n * sizeof(int), 0, o->world);
        size_t len = strlen(rml.source);
        snprintf(rml.source + len, sizeof(rml.source) - len, ", ranks where they run: %s", res.note);
    } else if (res.note[0] && rml.world_rank == 0) {
        rml_say("warning: %s", res.note);
    }
}

/* Returns 1 (table built), 0 (nothing to map on) or -1 (err filled). */
static int table_from_settings(char *err, size_t errlen)
{
    const char *topology = rml_str(RML_S_TOPOLOGY), *mapping = rml_str(RML_S_MAPPING);
    if (!*topology) {
        if (*mapping) {
            snprintf(err, errlen, "MPIR_CVAR_RANKMAP_MAPPING=\"%s\" needs MPIR_CVAR_RANKMAP_TOPOLOGY",
                     mapping);
            return -1;
        }
        return table_from_discovery(err, errlen);
    }
    int built = rankmap_table_declared(topology, mapping, rml.world_size, dims_create, &rml.topo,
                                       rml.node_of_rank, rml.source, sizeof(rml.source)) == RANKMAP_OK;
    if (!built)
        snprintf(err, errlen, "%s", rankmap_last_error());
    table_hosts(mapping, built);
    return built ? 1 : -1;
}

int rml_private_comm(rml_comm c, rml_comm *priv)
{
    if (!rml.ops->private_comm) {
        *priv = c;
        return 0;
    }
    return rml.ops->private_comm(c, priv);
}

void rml_private_free(rml_comm *priv)
{
    if (rml.ops->private_free && *priv != rml.ops->comm_null)
        rml.ops->private_free(priv);
    *priv = rml.ops->comm_null;
}

void rml_table_free(void)
{
    if (rml.topo)
        rankmap_topology_free(rml.topo);
    free(rml.node_of_rank);
    free(rml.slot_of_rank);
    rml.topo = NULL;
    rml.node_of_rank = rml.slot_of_rank = NULL;
    rml.enabled = 0;
    rml.nnodes = rml.ndims = 0;
}

int rml_table_init(char *err, size_t errlen, int settings_bad)
{
    const rml_ops *o = rml.ops;
    int rc = settings_bad ? -1 : 0;
    if (rc == 0 && !rml_int(RML_S_ENABLE))
        return 0; /* off everywhere: no table, no communication */
    if (rc == 0) {
        rml.node_of_rank = calloc((size_t) rml.world_size, sizeof(int));
        if (!rml.node_of_rank) {
            snprintf(err, errlen, "out of memory for the address table");
            rc = -1;
        } else {
            rc = table_from_settings(err, errlen);
        }
    }
    /* every process must agree: the table is used only if all built the
     * same one */
    /* one MPI_MIN reduction gives the lowest and (by ~, which reverses the
     * order without overflow) the highest of rc and the digest */
    long digest = rc > 0 ? rankmap_table_digest(rml.topo, rml.world_size, rml.node_of_rank) : 0;
    long local[5] = { rc >= 0 ? 1 : 0, rc, digest, ~(long) rc, ~digest }, lo[5];
    if (o->allreduce(local, lo, 5, RML_LONG, RML_MIN, o->world) != 0) {
        lo[0] = 0;
        snprintf(err, errlen, "the agreement check of the address table failed");
    }
    int agree = lo[0] == 1 && lo[1] == ~lo[3] && lo[2] == ~lo[4];
    if (!agree) {
        if (rc >= 0)
            snprintf(err, errlen, lo[0] == 1 ? "the processes built different address tables "
                                               "(MPIR_CVAR_RANKMAP_* settings or machines differ)"
                                             : "the address table failed on another rank "
                                               "(MPIR_CVAR_RANKMAP_* settings)");
        rml_table_free();
        if (rml_int(RML_S_STRICT)) {
            if (rml.world_rank == 0) {
                rml_say("error: %s (MPIR_CVAR_RANKMAP_STRICT=1)", err);
                rml_stderr_drain();
            }
            /* the message is out before any rank aborts the job */
            o->allreduce(&rc, &agree, 1, RML_INT, RML_MAX, o->world);
            return -1;
        }
        if (rml.world_rank == 0)
            rml_say("warning: %s; reordering disabled", err);
        return 0;
    }
    if (rc == 0) {
        rml_table_free();
        if (rml_int(RML_S_VERBOSE) && rml.world_rank == 0)
            rml_say("one node without a package or NUMA tier and no MPIR_CVAR_RANKMAP_TOPOLOGY: "
                    "ranks keep their order");
        return 0;
    }
    rankmap_topology_size(rml.topo, &rml.nnodes);
    rankmap_topology_ndims(rml.topo, &rml.ndims);
    rankmap_topology_dims(rml.topo, rml.dims);
    int *count = calloc((size_t) rml.nnodes, sizeof(int));
    rml.slot_of_rank = malloc((size_t) rml.world_size * sizeof(int));
    for (int r = 0; count && rml.slot_of_rank && r < rml.world_size; r++)
        rml.slot_of_rank[r] = count[rml.node_of_rank[r]]++;
    free(count);
    rml.enabled = 1;
    if (rml_int(RML_S_VERBOSE) && rml.world_rank == 0)
        rml_say("address table of %d ranks on %s", rml.world_size, rml.source);
    return 0;
}

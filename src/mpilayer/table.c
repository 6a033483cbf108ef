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
 *      (rankmap_table_discover: nodes from the processes that share memory
 *      or MPIR_CVAR_RANKMAP_NODE_SIZE, hwloc tiers inside a node, Slurm's
 *      switches from SLURM_TOPOLOGY_ADDR) and broadcasts it.
 * Every process then checks that all hold the same table (two allreduces of
 * rankmap_table_digest): a mapfile unreadable on one node, or machines that
 * differ, disable reordering for the job.  Cost: O(world size) per process;
 * two allreduces, and (unless MPIR_CVAR_RANKMAP_NODE_SIZE stands in for the
 * hosts) a shared-memory split, a
 * split of the node leaders, a broadcast per node, a gather and a
 * broadcast of the hosts, one allreduce and a gather of Slurm addresses
 * when there are any, and two broadcasts.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "mpilayer/layer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

rml_job rml;

static int dims_create(int nnodes, int ndims, int *dims)
{
    return rml.ops->dims_create(nnodes, ndims, dims) == 0 ? 0 : -1;
}

/* The node of every world rank from the processes that share memory: nodes
 * numbered by their lowest world rank.  Collective over world. */
static int nodes_from_hosts(int *node_of_proc)
{
    const rml_ops *o = rml.ops;
    rml_comm shm = o->comm_null, leaders = o->comm_null;
    int me = rml.world_rank, node = 0, rc;
    if ((rc = o->split_shared(o->world, me, &shm)) != 0)
        return rc;
    int srank = o->rank(shm);
    rc = o->split(o->world, srank == 0 ? 0 : -1, me, &leaders);
    if (rc == 0 && leaders != o->comm_null) {
        node = o->rank(leaders);
        o->comm_free(&leaders);
    }
    if (rc == 0)
        rc = o->bcast(&node, sizeof(node), 0, shm);
    o->comm_free(&shm);
    if (rc == 0)
        rc = o->gather(&node, sizeof(int), node_of_proc, 0, o->world);
    if (rc == 0)
        rc = o->bcast(node_of_proc, (size_t) rml.world_size * sizeof(int), 0, o->world);
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
    long local[3] = { rc >= 0 ? 1 : 0, rc, 0 }, lo[3], hi[3];
    if (rc > 0)
        local[2] = rankmap_table_digest(rml.topo, rml.world_size, rml.node_of_rank);
    if (o->allreduce(local, lo, 3, RML_LONG, RML_MIN, o->world) != 0 ||
        o->allreduce(local, hi, 3, RML_LONG, RML_MAX, o->world) != 0) {
        lo[0] = 0;
        snprintf(err, errlen, "the agreement check of the address table failed");
    }
    int agree = lo[0] == 1 && lo[1] == hi[1] && lo[2] == hi[2];
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

/*
 * init.c -- the layer's lifecycle and the queries of the patched MPICH's
 * MPIX_* functions.  rml_init runs in MPI_Init on every process: the
 * settings, the address table (table.c), the per-program decisions
 * (program.c); rml_finalize in MPI_Finalize: the safety net's last words,
 * then the table.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "mpilayer/layer.h"

#include <stdio.h>
#include <string.h>

int rml_init(const rml_ops *ops, const char *argv0)
{
    char err[1024] = "";
    memset(&rml, 0, sizeof(rml));
    rml.ops = ops;
    rml.world_rank = ops->rank(ops->world);
    rml.world_size = ops->size(ops->world);
    rml_program_names(argv0);
    int bad = rml_settings_read(err, sizeof(err)) != 0;
    if (rml_table_init(err, sizeof(err), bad) != 0)
        return ops->err_other; /* MPIR_CVAR_RANKMAP_STRICT: MPI_Init fails */
    rml.initialized = 1;
    if (rml.enabled)
        rml_program_agree();
    return 0;
}

void rml_finalize(void)
{
    if (!rml.initialized)
        return;
    rml_track_finalize();
    rml_table_free();
    rml.initialized = 0;
}

int rml_enabled(void)
{
    return rml.initialized && rml.enabled;
}

int rml_torus_ndims(void)
{
    return rml_enabled() ? rml.ndims : 0;
}

int rml_torus_dims(int *dims)
{
    if (!rml_enabled())
        return -1;
    memcpy(dims, rml.dims, (size_t) rml.ndims * sizeof(int));
    return 0;
}

int rml_rank2torus(int rank, int *coords)
{
    if (!rml_enabled())
        return -1;
    if (rank < 0 || rank >= rml.world_size)
        return -2;
    if (rankmap_topology_coords(rml.topo, rml.node_of_rank[rank], coords) != RANKMAP_OK)
        return -1;
    coords[rml.ndims] = rml.slot_of_rank ? rml.slot_of_rank[rank] : 0;
    return 0;
}

int rml_torus2rank(const int *coords, int *rank)
{
    int node;
    if (!rml_enabled())
        return -1;
    *rank = -1;
    if (rankmap_topology_node(rml.topo, coords, &node) != RANKMAP_OK || coords[rml.ndims] < 0)
        return 0;
    for (int r = 0; r < rml.world_size; r++)
        if (rml.node_of_rank[r] == node && rml.slot_of_rank && rml.slot_of_rank[r] == coords[rml.ndims]) {
            *rank = r;
            break;
        }
    return 0;
}

int rml_distance(int rank_a, int rank_b, double *distance)
{
    if (!rml_enabled())
        return -1;
    if (rank_a < 0 || rank_a >= rml.world_size || rank_b < 0 || rank_b >= rml.world_size)
        return -2;
    *distance = 0;
    if (rml.node_of_rank[rank_a] != rml.node_of_rank[rank_b])
        rankmap_topology_distance(rml.topo, rml.node_of_rank[rank_a], rml.node_of_rank[rank_b],
                                  distance);
    return 0;
}

void rml_last_report(rml_report *report)
{
    *report = rml.last;
}

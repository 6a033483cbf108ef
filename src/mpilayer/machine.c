/*
 * machine.c -- the machine of one communicator: the node of each of its
 * processes (from the address table), and the model to map on.  Processes
 * that share the job's machine evenly (the same number on every node) map
 * on the job's model; any other communicator maps on the distance matrix of
 * its own processes' nodes (rankmap_topology_restrict, in memory), up to
 * MPIR_CVAR_RANKMAP_MAX_MATRIX processes.  Cost: O(size + nodes), plus
 * O(size^2) for a matrix.  Local: no communication.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "mpilayer/layer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rml_machine_free(rml_machine *m)
{
    if (m->owned && m->topo)
        rankmap_topology_free(m->topo);
    free(m->node_of_member);
    memset(m, 0, sizeof(*m));
}

int rml_machine_build(rml_comm c, int size, rml_machine *m, char *why, size_t whylen)
{
    int *world = malloc((size_t) size * sizeof(int));
    int *count = calloc((size_t) rml.nnodes, sizeof(int));
    int rc = -1;
    memset(m, 0, sizeof(*m));
    m->node_of_member = malloc((size_t) size * sizeof(int));
    if (!world || !count || !m->node_of_member) {
        snprintf(why, whylen, "out of memory");
        goto done;
    }
    if (rml.ops->world_ranks(c, size, world) != 0) {
        snprintf(why, whylen, "cannot translate the communicator's ranks to MPI_COMM_WORLD");
        goto done;
    }
    for (int i = 0; i < size; i++) {
        if (world[i] < 0 || world[i] >= rml.world_size) {
            snprintf(why, whylen, "the communicator has processes outside MPI_COMM_WORLD");
            goto done;
        }
        m->node_of_member[i] = rml.node_of_rank[world[i]];
        count[m->node_of_member[i]]++;
    }
    int even = count[0] > 0;
    for (int v = 1; v < rml.nnodes; v++)
        if (count[v] != count[0])
            even = 0;
    if (even) {
        m->topo = rml.topo;
    } else if (size > rml_int(RML_S_MAX_MATRIX)) {
        snprintf(why, whylen,
                 "%d processes spread unevenly over the machine (> MPIR_CVAR_RANKMAP_MAX_MATRIX)",
                 size);
        goto done;
    } else {
        if (rankmap_topology_restrict(rml.topo, size, m->node_of_member, &m->topo) != RANKMAP_OK) {
            snprintf(why, whylen, "distance matrix of the communicator: %s", rankmap_last_error());
            m->topo = NULL;
            goto done;
        }
        m->owned = 1;
        for (int i = 0; i < size; i++)
            m->node_of_member[i] = i;
    }
    rc = 0;
done:
    free(world);
    free(count);
    if (rc)
        rml_machine_free(m);
    return rc;
}

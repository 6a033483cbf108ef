/*
 * bcast.c -- librankmap-pmpi: MPI_Bcast along the torus broadcast schedule
 * (src/coll, seed 004 section 5.3) on communicators that cover the declared
 * torus or mesh, with MPIR_CVAR_RANKMAP_BCAST=1.
 *
 * A communicator qualifies when MPIR_CVAR_RANKMAP_TOPOLOGY is a torus: or
 * mesh: box without a slot dimension (no :local=), and its processes sit
 * one per node on every node of the box (in any rank order; the address
 * table of table.c says where).  Every rank decides from the table alone,
 * so all ranks agree without communication; messages of fewer than
 * MPIR_CVAR_RANKMAP_BCAST_MIN bytes (default 65536) and every other
 * communicator use the MPI library's MPI_Bcast.  On first use (one
 * allreduce confirms the decision on every rank) the schedule
 * (rankmap_tbcast_create) and a private duplicate of the communicator
 * (its tags cannot meet the user's messages) are cached as an attribute of
 * the communicator and freed with it.  The executor is the portable one,
 * src/coll/bcast_torus_mpi.c.  Cost: O(size) per communicator once; then the
 * executor's O(colours x segments) point-to-point calls per broadcast.
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <stdlib.h>
#include <string.h>

#include "coll/bcast_torus_mpi.h"
#include "pmpi/safety.h"
#include "pmpi/table.h"

typedef struct bcast_cache {
    rankmap_tbcast *schedule; /* NULL: the communicator does not qualify */
    MPI_Comm dup;
} bcast_cache;

static int bcast_keyval = MPI_KEYVAL_INVALID;
static bcast_cache no_schedule = { NULL, MPI_COMM_NULL }; /* when calloc fails */

static int cache_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    bcast_cache *c = value;
    int finalized = 0;
    (void) comm;
    (void) keyval;
    (void) extra;
    if (c == &no_schedule)
        return MPI_SUCCESS;
    PMPI_Finalized(&finalized);
    if (c->dup != MPI_COMM_NULL && !finalized)
        PMPI_Comm_free(&c->dup);
    if (c->schedule)
        rankmap_tbcast_free(c->schedule);
    free(c);
    return MPI_SUCCESS;
}

/* The box of the declared machine: 1 when it is a torus/mesh the schedule
 * can use, with wrap[d] from the topology string (torus: all, mesh: none,
 * ":wrap=101" per dimension). */
static int declared_box(int *wrap)
{
    const char *t = pmpi_set.topology;
    int torus = !strncmp(t, "torus:", 6), mesh = !strncmp(t, "mesh:", 5);
    if ((!torus && !mesh) || strstr(t, ":local=") || strstr(t, ":slots=") ||
        pmpi_tab.ndims < 1 || pmpi_tab.ndims > RANKMAP_TBCAST_MAX_DIMS)
        return 0;
    for (int d = 0; d < pmpi_tab.ndims; d++)
        wrap[d] = torus;
    const char *w = strstr(t, ":wrap=");
    if (w) {
        w += 6;
        for (int d = 0; d < pmpi_tab.ndims; d++) {
            if (w[d] != '0' && w[d] != '1')
                return 0;
            wrap[d] = w[d] == '1';
        }
    }
    return 1;
}

/* Schedule for comm, or NULL if it does not cover the box one rank per node. */
static rankmap_tbcast *build_schedule(MPI_Comm comm, int size)
{
    int wrap[RANKMAP_TBCAST_MAX_DIMS], nd = pmpi_tab.ndims;
    rankmap_tbcast *s = NULL;
    if (!declared_box(wrap) || size != pmpi_tab.nnodes)
        return NULL;
    int *mine = malloc((size_t) size * sizeof(int)), *world = malloc((size_t) size * sizeof(int));
    int *coords = malloc((size_t) size * (size_t) (nd + 1) * sizeof(int));
    char *seen = calloc((size_t) pmpi_tab.nnodes, 1);
    MPI_Group g, wg;
    if (!mine || !world || !coords || !seen)
        goto out;
    PMPI_Comm_group(comm, &g);
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < size; i++)
        mine[i] = i;
    PMPI_Group_translate_ranks(g, size, mine, wg, world);
    PMPI_Group_free(&g);
    PMPI_Group_free(&wg);
    int ok = 1;
    for (int i = 0; ok && i < size; i++) {
        int w = world[i], c[RANKMAP_MAX_DIMS + 1];
        if (w == MPI_UNDEFINED || w < 0 || w >= pmpi_tab.world_size || seen[pmpi_tab.node_of_rank[w]]) {
            ok = 0; /* outside MPI_COMM_WORLD, or two processes on one node */
            break;
        }
        seen[pmpi_tab.node_of_rank[w]] = 1;
        ok = rankmap_topology_coords(pmpi_tab.topo, pmpi_tab.node_of_rank[w], c) == RANKMAP_OK;
        memcpy(coords + (size_t) i * nd, c, (size_t) nd * sizeof(int));
    }
    if (ok && rankmap_tbcast_create(nd, pmpi_tab.dims, wrap, size, coords, &s, NULL, 0) !=
                  RANKMAP_OK)
        s = NULL;
out:
    free(mine);
    free(world);
    free(coords);
    free(seen);
    return s;
}

void pmpi_bcast_init(void)
{
    if (pmpi_set.bcast && pmpi_tab.enabled && bcast_keyval == MPI_KEYVAL_INVALID &&
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, cache_delete, &bcast_keyval, NULL) !=
            MPI_SUCCESS)
        bcast_keyval = MPI_KEYVAL_INVALID;
}

/* Collective over comm on first use (the decision is the same on every rank). */
static bcast_cache *cache_of(MPI_Comm comm, int size, int rank)
{
    bcast_cache *c = NULL;
    int flag = 0;
    if (bcast_keyval == MPI_KEYVAL_INVALID)
        return NULL;
    if (PMPI_Comm_get_attr(comm, bcast_keyval, &c, &flag) == MPI_SUCCESS && flag)
        return c;
    c = calloc(1, sizeof(*c));
    rankmap_tbcast *s = build_schedule(comm, size);
    /* the table gives every rank the same answer; only a failed allocation
     * could differ, so the ranks confirm once per communicator */
    int ok = c && s, all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (all && PMPI_Comm_dup(comm, &c->dup) != MPI_SUCCESS)
        all = 0;
    if (!all && s) {
        rankmap_tbcast_free(s);
        s = NULL;
    }
    if (!c)
        c = &no_schedule;
    else {
        if (!all)
            c->dup = MPI_COMM_NULL;
        c->schedule = s;
    }
    if (pmpi_set.verbose && rank == 0)
        pmpi_say("MPI_Bcast on %d ranks: %s", size,
                 c->schedule ? (rankmap_tbcast_is_torus(c->schedule) ? "torus broadcast schedule"
                                                                      : "mesh broadcast schedule")
                             : "the MPI library's (not one rank per node of the declared box)");
    PMPI_Comm_set_attr(comm, bcast_keyval, c);
    return c;
}

static int bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    int tsize = 0, inter = 0, size = 0, rank = 0;
    if (!pmpi_set.bcast || !pmpi_tab.enabled || bcast_keyval == MPI_KEYVAL_INVALID ||
        comm == MPI_COMM_NULL || count <= 0 ||
        PMPI_Type_size(type, &tsize) != MPI_SUCCESS ||
        (long long) count * tsize < (long long) pmpi_set.bcast_min ||
        PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return PMPI_Bcast(buf, count, type, root, comm);
    PMPI_Comm_size(comm, &size);
    PMPI_Comm_rank(comm, &rank);
    bcast_cache *c = cache_of(comm, size, rank);
    if (!c || !c->schedule)
        return PMPI_Bcast(buf, count, type, root, comm);
    return rankmap_bcast_torus(buf, count, type, root, c->dup, c->schedule, NULL);
}

/* The safety net (safety.c) watches and counts MPI_Bcast like its own wrappers. */
int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    const int armed = pmpi_safety_armed;
    if (armed)
        pmpi_safety_enter(comm, "MPI_Bcast");
    int rc = bcast(buf, count, type, root, comm);
    if (armed)
        pmpi_safety_leave();
    return rc;
}

/*
 * bcast.c -- the torus broadcast of MPI_Bcast (Almasi et al., section 5.3:
 * one colour per link direction, pipelined along torus or mesh lines), one
 * rule for every MPI path.
 *
 * Which communicators: those whose processes sit one per node on a full
 * rectangular box -- a sub-torus or sub-mesh, or the whole machine -- of
 * the torus or mesh that MPIR_CVAR_RANKMAP_TOPOLOGY declares (no slot
 * dimension: no :local=, no :slots=), in any rank order.  Along a ring the
 * box is the smallest cyclic interval holding every coordinate in use; it
 * wraps only when it is the whole ring.
 * When: MPIR_CVAR_RANKMAP_BCAST=auto (the default) for messages of at least
 * MPIR_CVAR_RANKMAP_BCAST_MIN bytes (65536: from 64 KiB up the torus
 * broadcast beats the best of SMPI's built-in ones on an 8x8x8 torus,
 * bench/results/bcast.md), always for every size, off never.
 * Every process decides from the address table it holds whole, so all
 * agree; on first use of a communicator one allreduce confirms it (only an
 * allocation could fail on one process) and the schedule, with a private
 * communicator for its messages, is cached on the communicator (attribute
 * caching) until it is freed.  The executor is librankmap's
 * (rankmap_tbcast_run) over the path's point-to-point operations.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "mpilayer/layer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/torus_bcast.h"

#define TAG_BCAST 16 /* colour c uses TAG_BCAST + c, c < RANKMAP_TBCAST_MAX_COLOURS */
#define MIN_SEGMENT 4096

enum { BCAST_AUTO, BCAST_ALWAYS, BCAST_OFF }; /* settings.cvars' order */

typedef struct bcast_cache {
    rankmap_tbcast *schedule; /* NULL: the communicator does not qualify */
    rml_comm priv;
    int box[RANKMAP_TBCAST_MAX_DIMS], ndims;
} bcast_cache;

static bcast_cache no_schedule; /* when the cache cannot be allocated */

void rml_cache_free(void *value)
{
    bcast_cache *c = value;
    if (!c || c == &no_schedule)
        return;
    rml_private_free(&c->priv);
    if (c->schedule)
        rankmap_tbcast_free(c->schedule);
    free(c);
}

/* The declared machine is a torus or mesh the schedule can use: its
 * extents and wrap-around from the model's distances (the last node of a
 * ring is one link from the first). */
static int machine_is_grid(int *wrap)
{
    const char *spec = rml_str(RML_S_TOPOLOGY);
    if (strncmp(spec, "torus:", 6) && strncmp(spec, "mesh:", 5))
        return 0;
    if (strstr(spec, ":local=") || strstr(spec, ":slots=") || rml.ndims < 1 ||
        rml.ndims > RANKMAP_TBCAST_MAX_DIMS)
        return 0;
    for (int d = 0; d < rml.ndims; d++) {
        int c[RANKMAP_MAX_DIMS] = { 0 }, origin, near, far;
        double d_near, d_far;
        wrap[d] = 0;
        if (rml.dims[d] < 3)
            continue; /* extent 1 or 2: wrap-around adds no link */
        if (rankmap_topology_node(rml.topo, c, &origin) != RANKMAP_OK)
            return 0;
        c[d] = 1;
        if (rankmap_topology_node(rml.topo, c, &near) != RANKMAP_OK)
            return 0;
        c[d] = rml.dims[d] - 1;
        if (rankmap_topology_node(rml.topo, c, &far) != RANKMAP_OK ||
            rankmap_topology_distance(rml.topo, origin, near, &d_near) != RANKMAP_OK ||
            rankmap_topology_distance(rml.topo, origin, far, &d_far) != RANKMAP_OK)
            return 0;
        wrap[d] = d_far <= d_near;
    }
    return 1;
}

/* The extent along one axis of D coordinates of the box holding the used
 * ones, and in *lo its first coordinate.  On a wrapping axis the longest
 * cyclic run of unused coordinates is outside the box. */
static int axis_extent(const unsigned char *used, int D, int wraps, int *lo)
{
    if (wraps) {
        int best = 0, best_end = -1;
        for (int start = 0; start < D; start++) {
            int len = 0;
            if (used[start] || !used[(start + D - 1) % D])
                continue; /* not the first of a run of unused ones */
            while (len < D && !used[(start + len) % D])
                len++;
            if (len > best) {
                best = len;
                best_end = (start + len) % D;
            }
        }
        if (best > 0) {
            *lo = best_end;
            return D - best;
        }
        return D;
    }
    int hi = -1;
    *lo = D;
    for (int x = 0; x < D; x++)
        if (used[x]) {
            *lo = x < *lo ? x : *lo;
            hi = x;
        }
    return hi - *lo + 1;
}

/* Whether the SIZE box coordinates REL (SIZE x ND, within EXT) are all
 * different, so that every node of the box holds one process. */
static int one_per_node(const int *rel, int size, int nd, const int *ext)
{
    unsigned char *seen = calloc((size_t) size, 1);
    int ok = seen != NULL;
    for (int i = 0; ok && i < size; i++) {
        long long idx = 0;
        for (int d = 0; d < nd; d++)
            idx = idx * ext[d] + rel[i * nd + d];
        if (idx >= size || seen[idx])
            ok = 0;
        else
            seen[idx] = 1;
    }
    free(seen);
    return ok;
}

/* The schedule of the box C fills (NULL when it fills none). */
static rankmap_tbcast *find_box(rml_comm c, int size, int *ext, int *box_wrap)
{
    int nd = rml.ndims, mwrap[RANKMAP_TBCAST_MAX_DIMS], maxdim = 0;
    int *world = NULL, *abs = NULL;
    unsigned char *used = NULL;
    long long volume = 1;
    rankmap_tbcast *s = NULL;
    if (!machine_is_grid(mwrap))
        return NULL;
    for (int d = 0; d < nd; d++)
        if (rml.dims[d] > maxdim)
            maxdim = rml.dims[d];
    world = malloc((size_t) size * sizeof(int));
    abs = malloc((size_t) size * (size_t) nd * sizeof(int));
    used = malloc((size_t) maxdim);
    if (!world || !abs || !used || rml.ops->world_ranks(c, size, world) != 0)
        goto done;
    for (int i = 0; i < size; i++) {
        int x[RANKMAP_MAX_DIMS];
        if (world[i] < 0 || world[i] >= rml.world_size ||
            rankmap_topology_coords(rml.topo, rml.node_of_rank[world[i]], x) != RANKMAP_OK)
            goto done;
        memcpy(abs + (size_t) i * nd, x, (size_t) nd * sizeof(int));
    }
    for (int d = 0; d < nd; d++) {
        int D = rml.dims[d], lo = 0, extent;
        memset(used, 0, (size_t) D);
        for (int i = 0; i < size; i++)
            used[abs[i * nd + d]] = 1;
        extent = axis_extent(used, D, mwrap[d], &lo);
        ext[d] = extent;
        box_wrap[d] = mwrap[d] && extent == D;
        volume *= extent;
        for (int i = 0; i < size; i++)
            abs[i * nd + d] = (abs[i * nd + d] - lo + D) % D;
    }
    if (volume != size)
        goto done; /* holes, or several processes on one node */
    if (!one_per_node(abs, size, nd, ext))
        goto done;
    if (rankmap_tbcast_create(nd, ext, box_wrap, size, abs, &s, NULL, 0) != RANKMAP_OK)
        s = NULL;
done:
    free(world);
    free(abs);
    free(used);
    return s;
}

/* Collective over C on its first qualifying broadcast: every process
 * caches a record, so all take the fast path from the next call on. */
static bcast_cache *cache_of(rml_comm c, int size)
{
    const rml_ops *o = rml.ops;
    void *v = NULL;
    if (o->attr_get(c, &v) == 1)
        return v;
    bcast_cache *bc = calloc(1, sizeof(*bc));
    int ext[RANKMAP_TBCAST_MAX_DIMS] = { 0 }, wrap[RANKMAP_TBCAST_MAX_DIMS];
    rankmap_tbcast *s = bc ? find_box(c, size, ext, wrap) : NULL;
    int ok = s != NULL, all = 0;
    if (o->allreduce(&ok, &all, 1, RML_INT, RML_MIN, c) != 0)
        all = 0;
    if (!bc)
        bc = &no_schedule; /* cached as "no schedule" like a communicator that is no box */
    bc->priv = o->comm_null;
    if (all && rml_private_comm(c, &bc->priv) != 0)
        all = 0; /* collective: every process took the same branch */
    if (!all && s) {
        rankmap_tbcast_free(s);
        s = NULL;
    }
    bc->schedule = s;
    bc->ndims = rml.ndims;
    memcpy(bc->box, ext, sizeof(ext));
    if (rml_int(RML_S_VERBOSE) && o->rank(c) == 0) {
        char shape[96] = "";
        size_t len = 0;
        for (int d = 0; s && d < bc->ndims && len < sizeof(shape) - 12; d++)
            len += (size_t) snprintf(shape + len, sizeof(shape) - len, d ? "x%d" : "%d", ext[d]);
        if (s)
            rml_say("MPI_Bcast on %d ranks: the %s broadcast on a %s box", size,
                    rankmap_tbcast_is_torus(s) ? "torus" : "mesh", shape);
        else
            rml_say("MPI_Bcast on %d ranks: the MPI library's (not one rank per node of a box of "
                    "the declared torus or mesh)",
                    size);
    }
    if (o->attr_set(c, bc) != 0) {
        /* not cached: MPI's broadcast now and (with one more allreduce) next time */
        rml_cache_free(bc);
        return &no_schedule;
    }
    return bc;
}

/* the executor's operations: the path's, on the private communicator */
static int x_isend(void *ctx, const void *buf, size_t bytes, int dest, int tag, uintptr_t *req)
{
    return rml.ops->isend(buf, bytes, dest, tag, *(rml_comm *) ctx, req);
}

static int x_irecv(void *ctx, void *buf, size_t bytes, int source, int tag, uintptr_t *req)
{
    return rml.ops->irecv(buf, bytes, source, tag, *(rml_comm *) ctx, req);
}

static int x_waitany(void *ctx, int n, uintptr_t *reqs, int *index)
{
    int source;
    (void) ctx;
    return rml.ops->waitany(n, reqs, index, &source);
}

int rml_bcast_applies(size_t bytes, rml_comm c)
{
    const rml_ops *o = rml.ops;
    long mode = rml_int(RML_S_BCAST);
    if (!rml.enabled || mode == BCAST_OFF || bytes == 0 || c == o->comm_null ||
        (mode == BCAST_AUTO && bytes < (size_t) rml_int(RML_S_BCAST_MIN)) || o->is_inter(c))
        return 0;
    int size = o->size(c);
    if (size < 2 || size > rml.nnodes)
        return 0;
    bcast_cache *bc = cache_of(c, size);
    return bc && bc->schedule;
}

int rml_bcast(void *buf, size_t bytes, int root, rml_comm c, int *rc)
{
    const rml_ops *o = rml.ops;
    if (!rml_bcast_applies(bytes, c))
        return 0;
    void *v = NULL;
    o->attr_get(c, &v);
    bcast_cache *bc = v;
    int rank = o->rank(c);
    size_t segment = (size_t) rml_int(RML_S_BCAST_SEGMENT);
    if (!segment)
        segment = rankmap_tbcast_default_segment(bc->schedule, bytes, 0, MIN_SEGMENT);
    if (rml_int(RML_S_VERBOSE) >= 2 && rank == root) {
        char shape[96] = "";
        size_t len = 0;
        for (int d = 0; d < bc->ndims && len < sizeof(shape) - 12; d++)
            len += (size_t) snprintf(shape + len, sizeof(shape) - len, d ? "x%d" : "%d",
                                     bc->box[d]);
        rml_say("torus broadcast: %zu bytes from rank %d on a %s %s, %d colours, segment %zu "
                "bytes",
                bytes, root, shape, rankmap_tbcast_is_torus(bc->schedule) ? "torus" : "mesh",
                rankmap_tbcast_colours(bc->schedule, 0), segment);
    }
    rankmap_tbcast_io io = { &bc->priv, x_isend, x_irecv, x_waitany, NULL };
    int r = rankmap_tbcast_run(bc->schedule, rank, root, buf, bytes, segment, 0, 1, TAG_BCAST, &io);
    *rc = r > 0 ? r : r < 0 ? (r == RANKMAP_ERR_NOMEM ? o->err_nomem : o->err_other) : 0;
    return 1;
}

/*
 * bcast_exec.c -- the executor of the multi-colour torus/mesh broadcast
 * (torus_bcast.h, rankmap_tbcast_run; Almasi et al., section 5.3) over the
 * nonblocking point-to-point operations its caller supplies: the portable
 * MPI adapter (bcast_torus_mpi.c: the SimGrid benchmark and its test) and
 * rankmap's MPI layer (src/mpilayer/bcast.c: the PMPI plugin and the
 * patched MPICH) run the same loop.  Plain C, no MPI.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/torus_bcast.h"

/* One posted request and what it stands for. */
typedef struct slot {
    int colour;
    int child;  /* -1 for the receive from the parent */
    size_t seg; /* segment index */
} slot_t;

typedef struct colour_state {
    rankmap_tbcast_colour p;
    size_t posted_recv;  /* receives posted so far */
    size_t held;         /* segments 0..held-1 are here */
    unsigned char *done; /* per segment: received */
    size_t posted_send[RANKMAP_TBCAST_MAX_CHILDREN];
    int inflight_recv;
    int inflight_send[RANKMAP_TBCAST_MAX_CHILDREN];
    int recv_base, send_base; /* first request slot of this colour's links */
} colour_state_t;

typedef struct run_state {
    const rankmap_tbcast_io *io;
    char *data;
    int tag, cap;
    uintptr_t *req;
    slot_t *slots;
} run_state;

static size_t seg_len(const rankmap_tbcast_colour *p, size_t j)
{
    size_t rest = p->length - j * p->segment;
    return rest < p->segment ? rest : p->segment;
}

static int find_free(const uintptr_t *req, int base, int cap)
{
    for (int i = 0; i < cap; ++i)
        if (req[base + i] == 0)
            return base + i;
    return -1;
}

/* Posts every send of colour cs that its cap and held data allow. */
static int post_sends(colour_state_t *cs, run_state *r)
{
    for (int i = 0; i < cs->p.nchildren; ++i) {
        while (cs->posted_send[i] < cs->held && cs->inflight_send[i] < r->cap) {
            size_t j = cs->posted_send[i];
            int k = find_free(r->req, cs->send_base + i * r->cap, r->cap), rc;
            if (k < 0)
                return RANKMAP_ERR_INTERNAL;
            rc = r->io->isend(r->io->ctx, r->data + cs->p.offset + j * cs->p.segment,
                              seg_len(&cs->p, j), cs->p.children[i], r->tag + cs->p.colour,
                              &r->req[k]);
            if (rc)
                return rc;
            r->slots[k] = (slot_t) { cs->p.colour, i, j };
            cs->posted_send[i]++;
            cs->inflight_send[i]++;
        }
    }
    return 0;
}

static int post_recvs(colour_state_t *cs, run_state *r)
{
    while (cs->p.parent >= 0 && cs->posted_recv < cs->p.nsegments && cs->inflight_recv < r->cap) {
        size_t j = cs->posted_recv;
        int k = find_free(r->req, cs->recv_base, r->cap), rc;
        if (k < 0)
            return RANKMAP_ERR_INTERNAL;
        rc = r->io->irecv(r->io->ctx, r->data + cs->p.offset + j * cs->p.segment,
                          seg_len(&cs->p, j), cs->p.parent, r->tag + cs->p.colour, &r->req[k]);
        if (rc)
            return rc;
        r->slots[k] = (slot_t) { cs->p.colour, -1, j };
        cs->posted_recv++;
        cs->inflight_recv++;
    }
    return 0;
}

int rankmap_tbcast_run(const rankmap_tbcast *s, int rank, int root, void *data, size_t bytes,
                       size_t segment, int colours, int cap, int tag,
                       const rankmap_tbcast_io *io)
{
    rankmap_tbcast_colour plan[RANKMAP_TBCAST_MAX_COLOURS];
    colour_state_t cs[RANKMAP_TBCAST_MAX_COLOURS];
    int nc = 0, nreq = 0, rc = 0;
    char err[256];
    run_state r = { io, (char *) data, tag, cap > 0 ? cap : 1, NULL, NULL };
    if (!s || !io || !io->isend || !io->irecv || !io->waitany)
        return RANKMAP_ERR_INVALID;
    if (rankmap_tbcast_plan(s, rank, root, bytes, segment, colours, plan, &nc, err,
                            sizeof(err)) != RANKMAP_OK)
        return RANKMAP_ERR_INVALID;
    memset(cs, 0, sizeof(cs));
    for (int c = 0; c < nc; ++c) {
        cs[c].p = plan[c];
        if (plan[c].nsegments == 0)
            continue; /* nothing to move in this colour */
        cs[c].recv_base = nreq;
        if (plan[c].parent >= 0)
            nreq += r.cap;
        cs[c].send_base = nreq;
        nreq += plan[c].nchildren * r.cap;
        cs[c].held = plan[c].parent >= 0 ? 0 : plan[c].nsegments;
        if (plan[c].parent >= 0 && !(cs[c].done = calloc(plan[c].nsegments, 1))) {
            rc = RANKMAP_ERR_NOMEM;
            goto out;
        }
    }
    if (nreq == 0)
        goto out;
    r.req = calloc((size_t) nreq, sizeof(*r.req));
    r.slots = malloc(sizeof(*r.slots) * (size_t) nreq);
    if (!r.req || !r.slots) {
        rc = RANKMAP_ERR_NOMEM;
        goto out;
    }
    for (int c = 0; c < nc; ++c) {
        if (cs[c].p.nsegments == 0)
            continue;
        if ((rc = post_recvs(&cs[c], &r)) || (rc = post_sends(&cs[c], &r)))
            goto out;
    }
    for (;;) {
        int pending = 0, idx = -1;
        for (int i = 0; i < nreq; ++i)
            pending += r.req[i] != 0;
        if (!pending)
            break;
        /* one at a time: SMPI's waitsome polls with simulated test calls */
        if ((rc = io->waitany(io->ctx, nreq, r.req, &idx)))
            goto out;
        if (idx < 0)
            break;
        slot_t *sl = &r.slots[idx];
        colour_state_t *c = &cs[sl->colour];
        if (sl->child < 0) {
            c->inflight_recv--;
            c->done[sl->seg] = 1;
            while (c->held < c->p.nsegments && c->done[c->held])
                c->held++;
        } else {
            c->inflight_send[sl->child]--;
        }
        if ((rc = post_recvs(c, &r)) || (rc = post_sends(c, &r)))
            goto out;
    }
out:
    if (rc && r.req && io->cancel)
        for (int i = 0; i < nreq; ++i)
            if (r.req[i])
                io->cancel(io->ctx, &r.req[i]);
    for (int c = 0; c < nc; ++c)
        free(cs[c].done);
    free(r.req);
    free(r.slots);
    return rc;
}

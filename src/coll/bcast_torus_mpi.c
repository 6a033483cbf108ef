/*
 * bcast_torus_mpi.c -- executes the multi-colour torus/mesh broadcast
 * schedule (bcast_schedule.cpp; seed 004 section 5.3) with nonblocking MPI
 * point-to-point calls.
 *
 * Per colour a rank receives the colour's segments in order from its parent
 * and forwards each one to its children as soon as it holds it.  At most
 * `cap` receives are posted per incoming link and at most `cap` sends per
 * outgoing link: a flow-level network model (SimGrid) or a rendezvous
 * protocol would otherwise share the link among every posted segment and turn
 * the pipeline into store-and-forward.  Receives depend only on earlier
 * receives and sends only on held data, and the trees are acyclic, so the
 * progress loop cannot deadlock (simulated in test/unit/test_bcast_schedule).
 *
 * Cost: per rank O(colours * segments * (1 + children)) MPI calls, one
 * MPI_Waitany per completion; no copies for contiguous data, one
 * MPI_Pack at the root and one MPI_Unpack per rank otherwise.
 */
#include "coll/bcast_torus_mpi.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_TAG 31000
#define DEFAULT_CAP 1

int rankmap_bcast_torus_schedule(MPI_Comm comm, int ndims, const int *extents, const int *wrap,
                                 const int *my_coords, rankmap_tbcast **out) {
    int size, rc, ok;
    int *all;
    char err[256];
    *out = NULL;
    if (ndims < 1 || ndims > RANKMAP_TBCAST_MAX_DIMS) return MPI_ERR_ARG;
    MPI_Comm_size(comm, &size);
    all = (int *)malloc(sizeof(int) * (size_t)size * (size_t)ndims);
    if (!all) return MPI_ERR_NO_MEM;
    rc = MPI_Allgather((void *)my_coords, ndims, MPI_INT, all, ndims, MPI_INT, comm);
    if (rc != MPI_SUCCESS) {
        free(all);
        return rc;
    }
    ok = rankmap_tbcast_create(ndims, extents, wrap, size, all, out, err, sizeof err) == RANKMAP_OK;
    free(all);
    return ok ? MPI_SUCCESS : MPI_ERR_ARG;
}

/* One posted request and what it stands for. */
typedef struct slot {
    int colour;
    int child;  /* -1 for the receive from the parent */
    size_t seg; /* segment index */
} slot_t;

typedef struct colour_state {
    rankmap_tbcast_colour p;
    size_t posted_recv;       /* receives posted so far */
    size_t held;              /* segments 0..held-1 are here */
    unsigned char *done;      /* per segment: received */
    size_t posted_send[RANKMAP_TBCAST_MAX_CHILDREN];
    int inflight_recv;
    int inflight_send[RANKMAP_TBCAST_MAX_CHILDREN];
    int recv_base, send_base; /* first request slot of this colour's links */
} colour_state_t;

static size_t seg_len(const rankmap_tbcast_colour *p, size_t j) {
    size_t off = j * p->segment;
    size_t rest = p->length - off;
    return rest < p->segment ? rest : p->segment;
}

static int find_free(MPI_Request *req, int base, int cap) {
    for (int i = 0; i < cap; ++i)
        if (req[base + i] == MPI_REQUEST_NULL) return base + i;
    return -1;
}

/* Posts every send of colour cs that its cap and held data allow. */
static int post_sends(colour_state_t *cs, char *data, int tag, int cap, MPI_Comm comm,
                      MPI_Request *req, slot_t *slots) {
    for (int i = 0; i < cs->p.nchildren; ++i) {
        while (cs->posted_send[i] < cs->held && cs->inflight_send[i] < cap) {
            size_t j = cs->posted_send[i];
            int k = find_free(req, cs->send_base + i * cap, cap);
            int rc;
            if (k < 0) return MPI_ERR_INTERN;
            rc = MPI_Isend(data + cs->p.offset + j * cs->p.segment, (int)seg_len(&cs->p, j),
                           MPI_BYTE, cs->p.children[i], tag + cs->p.colour, comm, &req[k]);
            if (rc != MPI_SUCCESS) return rc;
            slots[k].colour = cs->p.colour;
            slots[k].child = i;
            slots[k].seg = j;
            cs->posted_send[i]++;
            cs->inflight_send[i]++;
        }
    }
    return MPI_SUCCESS;
}

static int post_recvs(colour_state_t *cs, char *data, int tag, int cap, MPI_Comm comm,
                      MPI_Request *req, slot_t *slots) {
    while (cs->p.parent >= 0 && cs->posted_recv < cs->p.nsegments && cs->inflight_recv < cap) {
        size_t j = cs->posted_recv;
        int k = find_free(req, cs->recv_base, cap);
        int rc;
        if (k < 0) return MPI_ERR_INTERN;
        rc = MPI_Irecv(data + cs->p.offset + j * cs->p.segment, (int)seg_len(&cs->p, j), MPI_BYTE,
                       cs->p.parent, tag + cs->p.colour, comm, &req[k]);
        if (rc != MPI_SUCCESS) return rc;
        slots[k].colour = cs->p.colour;
        slots[k].child = -1;
        slots[k].seg = j;
        cs->posted_recv++;
        cs->inflight_recv++;
    }
    return MPI_SUCCESS;
}

/* Runs the schedule on `bytes` bytes at `data`. */
static int run(char *data, size_t bytes, int root, MPI_Comm comm, const rankmap_tbcast *s,
               const rankmap_bcast_torus_opts *o) {
    rankmap_tbcast_colour plan[RANKMAP_TBCAST_MAX_COLOURS];
    colour_state_t cs[RANKMAP_TBCAST_MAX_COLOURS];
    int nc = 0, rank, nreq = 0, rc = MPI_SUCCESS, pending = 0;
    const int cap = o->cap > 0 ? o->cap : DEFAULT_CAP;
    const int tag = o->tag > 0 ? o->tag : DEFAULT_TAG;
    MPI_Request *req = NULL;
    slot_t *slots = NULL;
    int *idx = NULL;
    MPI_Status *st = NULL;
    char err[256];

    MPI_Comm_rank(comm, &rank);
    if (rankmap_tbcast_plan(s, rank, root, bytes, o->segment, o->colours, plan, &nc, err,
                            sizeof err) != RANKMAP_OK)
        return MPI_ERR_ARG;
    memset(cs, 0, sizeof cs);
    for (int c = 0; c < nc; ++c) {
        cs[c].p = plan[c];
        if (plan[c].nsegments == 0) continue; /* nothing to move in this colour */
        cs[c].recv_base = nreq;
        if (plan[c].parent >= 0) nreq += cap;
        cs[c].send_base = nreq;
        nreq += plan[c].nchildren * cap;
        cs[c].held = plan[c].parent >= 0 ? 0 : plan[c].nsegments;
        if (plan[c].parent >= 0) {
            cs[c].done = (unsigned char *)calloc(plan[c].nsegments, 1);
            if (!cs[c].done) {
                rc = MPI_ERR_NO_MEM;
                goto out;
            }
        }
    }
    if (nreq == 0) goto out;
    req = (MPI_Request *)malloc(sizeof(MPI_Request) * nreq);
    slots = (slot_t *)malloc(sizeof(slot_t) * nreq);
    idx = (int *)malloc(sizeof(int) * nreq);
    st = (MPI_Status *)malloc(sizeof(MPI_Status) * nreq);
    if (!req || !slots || !idx || !st) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (int i = 0; i < nreq; ++i) req[i] = MPI_REQUEST_NULL;

    for (int c = 0; c < nc; ++c) {
        if (cs[c].p.nsegments == 0) continue;
        if ((rc = post_recvs(&cs[c], data, tag, cap, comm, req, slots)) != MPI_SUCCESS) goto out;
        if ((rc = post_sends(&cs[c], data, tag, cap, comm, req, slots)) != MPI_SUCCESS) goto out;
    }
    for (;;) {
        int outcount = 0;
        pending = 0;
        for (int i = 0; i < nreq; ++i) pending += req[i] != MPI_REQUEST_NULL;
        if (!pending) break;
        /* MPI_Waitany, not MPI_Waitsome: SMPI implements the latter with
         * MPI_Test calls that each inject simulated polling time */
        rc = MPI_Waitany(nreq, req, &idx[0], st);
        if (rc != MPI_SUCCESS) goto out;
        if (idx[0] == MPI_UNDEFINED) break;
        outcount = 1;
        for (int t = 0; t < outcount; ++t) {
            slot_t *sl = &slots[idx[t]];
            colour_state_t *c = &cs[sl->colour];
            if (sl->child < 0) {
                c->inflight_recv--;
                c->done[sl->seg] = 1;
                while (c->held < c->p.nsegments && c->done[c->held]) c->held++;
            } else {
                c->inflight_send[sl->child]--;
            }
        }
        for (int t = 0; t < outcount; ++t) {
            colour_state_t *c = &cs[slots[idx[t]].colour];
            if ((rc = post_recvs(c, data, tag, cap, comm, req, slots)) != MPI_SUCCESS) goto out;
            if ((rc = post_sends(c, data, tag, cap, comm, req, slots)) != MPI_SUCCESS) goto out;
        }
    }
out:
    if (rc != MPI_SUCCESS && req) {
        for (int i = 0; i < nreq; ++i)
            if (req[i] != MPI_REQUEST_NULL) {
                MPI_Cancel(&req[i]);
                MPI_Request_free(&req[i]);
            }
    }
    for (int c = 0; c < nc; ++c) free(cs[c].done);
    free(req);
    free(slots);
    free(idx);
    free(st);
    return rc;
}

int rankmap_bcast_torus(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                        const rankmap_tbcast *s, const rankmap_bcast_torus_opts *opts) {
    rankmap_bcast_torus_opts o;
    int size, rank, tsize, rc;
    MPI_Aint lb, extent, tlb, textent;
    memset(&o, 0, sizeof o);
    if (opts) o = *opts;
    if (!s || count < 0) return MPI_ERR_ARG;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    if (size != rankmap_tbcast_nranks(s) || root < 0 || root >= size) return MPI_ERR_ARG;
    MPI_Type_size(type, &tsize);
    if (count == 0 || tsize == 0 || size == 1) return MPI_SUCCESS;
    MPI_Type_get_extent(type, &lb, &extent);
    MPI_Type_get_true_extent(type, &tlb, &textent);
    if (textent == (MPI_Aint)tsize && (count == 1 || extent == (MPI_Aint)tsize)) {
        /* contiguous: the user's bytes are the message */
        return run((char *)buf + tlb, (size_t)count * (size_t)tsize, root, comm, s, &o);
    }
    /* non-contiguous: pack once at the root, unpack at every other rank */
    {
        int psize, pos = 0;
        char *tmp;
        rc = MPI_Pack_size(count, type, comm, &psize);
        if (rc != MPI_SUCCESS) return rc;
        tmp = (char *)calloc((size_t)psize, 1);
        if (!tmp) return MPI_ERR_NO_MEM;
        if (rank == root) rc = MPI_Pack(buf, count, type, tmp, psize, &pos, comm);
        if (rc == MPI_SUCCESS) rc = run(tmp, (size_t)psize, root, comm, s, &o);
        pos = 0;
        if (rc == MPI_SUCCESS && rank != root) rc = MPI_Unpack(tmp, psize, &pos, buf, count, type, comm);
        free(tmp);
        return rc;
    }
}

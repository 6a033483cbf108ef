/*
 * torus_bcast.h -- C interface of the torus/mesh broadcast schedule
 * (src/coll/bcast_schedule.cpp), for the C executors: the portable MPI one
 * (src/coll/bcast_torus_mpi.c, also built with SimGrid's smpicc), the PMPI
 * plugin and the MPICH algorithm.  Pure computation, no MPI.
 *
 * The communicator must cover a full rectangular box (sub-mesh or sub-torus)
 * of 1..6 dimensions, in any rank order: rank r sits at coords[r*ndims ..].
 *
 * Conventions: functions return RANKMAP_OK (0) or a negative rankmap_status
 * (include/rankmap.h); on failure a message naming the faulty argument is
 * written to errbuf (if errbuf != NULL and errlen > 0).  No exception crosses
 * this boundary.  A schedule handle is immutable after creation and may be
 * shared by threads (SimGrid runs every rank in one process).
 *
 * The algorithm (Almasi et al., MPI on BG/L, section 5.3, and its BG/P-BG/Q
 * "rectangle" successors): the message is cut into one part per colour; colour
 * (d, s) broadcasts its part along 1-D lines walking the dimensions in the
 * rotated order d, d+1, ... (mod n), in direction s, pipelined in segments.
 * On a torus (every dimension of extent >= 2 wraps and has extent >= 3) there
 * are 2n colours, one per link direction; on a mesh (or any box with an open
 * or extent-2 dimension) there are n colours, lines run both ways from their
 * origin.  Nodes in the root's hyperplane orthogonal to d get colour d over a
 * dimension-d link from the neighbouring hyperplane (the "closing" stage n),
 * which makes every directed link carry at most one colour: each node receives
 * 1/(2n) of the message on each incoming torus link (1/n per dimension on a
 * mesh).
 */
#ifndef RANKMAP_TORUS_BCAST_H
#define RANKMAP_TORUS_BCAST_H

#include <stddef.h>
#include <stdint.h>

#include "rankmap.h" /* rankmap_status */

#ifdef __cplusplus
extern "C" {
#endif

#define RANKMAP_TBCAST_MAX_DIMS 6
/* A node has at most 2 links per dimension, so a colour has at most this
 * many children at one node. */
#define RANKMAP_TBCAST_MAX_CHILDREN (2 * RANKMAP_TBCAST_MAX_DIMS)
#define RANKMAP_TBCAST_MAX_COLOURS (2 * RANKMAP_TBCAST_MAX_DIMS)

typedef struct rankmap_tbcast_s rankmap_tbcast; /* opaque */

/* Builds the schedule for one communicator.  extents[d] >= 1, wrap[d] != 0
 * when dimension d wraps around; coords has nranks*ndims entries and must
 * place the nranks = prod(extents) ranks on distinct points of the box. */
int rankmap_tbcast_create(int ndims, const int *extents, const int *wrap, int nranks,
                          const int *coords, rankmap_tbcast **out, char *errbuf,
                          size_t errlen);
void rankmap_tbcast_free(rankmap_tbcast *s);

int rankmap_tbcast_nranks(const rankmap_tbcast *s);
/* 1 if the box is used as a torus (2n colours), 0 as a mesh (n colours). */
int rankmap_tbcast_is_torus(const rankmap_tbcast *s);
/* Colours available: 2n (torus) or n (mesh), n = dimensions of extent >= 2. */
int rankmap_tbcast_max_colours(const rankmap_tbcast *s);
/* Colours actually used for a request (0 = all available). */
int rankmap_tbcast_colours(const rankmap_tbcast *s, int colours_requested);
/* Largest tree depth in hops over all colours (pipeline fill time). */
int rankmap_tbcast_depth(const rankmap_tbcast *s);
/* A segment size giving about 8*depth segments per colour, rounded up to a
 * multiple of 64 bytes and kept within [min_segment, 1 MiB]. */
size_t rankmap_tbcast_default_segment(const rankmap_tbcast *s, size_t bytes, int colours,
                                      size_t min_segment);

/* What one rank does for one colour: receive the colour's segments from
 * `parent` (-1 at the root) and forward each to every child, in order. */
typedef struct rankmap_tbcast_colour {
    int colour;        /* 0 .. colours-1 */
    int dim, sign;     /* first dimension of the walk; +1/-1 (torus) or 0 (mesh) */
    size_t offset;     /* the colour's bytes: [offset, offset+length) */
    size_t length;
    size_t segment;    /* segment size; segment j = [offset+j*segment, ...) */
    size_t nsegments;  /* ceil(length / segment), 0 if length == 0 */
    int parent;        /* rank to receive from, -1 at the root */
    int parent_stage;  /* stage of the incoming line (0..n-1, n = closing) */
    int depth;         /* hops from the root in this colour's tree */
    int nchildren;
    int children[RANKMAP_TBCAST_MAX_CHILDREN];
    int child_stage[RANKMAP_TBCAST_MAX_CHILDREN];
} rankmap_tbcast_colour;

/* Fills out[0 .. *ncolours-1] (caller provides RANKMAP_TBCAST_MAX_COLOURS
 * entries) for `rank`.  segment 0 means rankmap_tbcast_default_segment. */
int rankmap_tbcast_plan(const rankmap_tbcast *s, int rank, int root, size_t bytes,
                        size_t segment, int colours, rankmap_tbcast_colour *out,
                        int *ncolours, char *errbuf, size_t errlen);

/* The same plan as an ordered list of operations. */
enum { RANKMAP_TBCAST_RECV = 0, RANKMAP_TBCAST_SEND = 1 };
typedef struct rankmap_tbcast_op {
    int kind;       /* RANKMAP_TBCAST_RECV or RANKMAP_TBCAST_SEND */
    int peer;       /* rank */
    size_t offset;  /* bytes of the message */
    size_t length;
    int colour;
    int stage;      /* line stage of the link: 0..n-1 along the walk, n = closing */
    long step;      /* synchronous pipeline round: segment j reaches depth h at j+h-1 */
    long segment;   /* segment index within the colour */
} rankmap_tbcast_op;

/* Writes up to `cap` operations of `rank`, sorted by (step, receives first,
 * colour, peer), and stores the total count in *nops (call with cap 0 to
 * size the array). */
int rankmap_tbcast_ops(const rankmap_tbcast *s, int rank, int root, size_t bytes,
                       size_t segment, int colours, rankmap_tbcast_op *ops, size_t cap,
                       size_t *nops, char *errbuf, size_t errlen);

/* ---- the executor ------------------------------------------------------------
 * Runs the plan of `rank` on `bytes` bytes at `data` (the root's bytes, the
 * others' buffer) with nonblocking point-to-point operations the caller
 * supplies: per colour a rank receives the colour's segments in order from
 * its parent and forwards each to its children as soon as it holds it, with
 * at most `cap` receives posted per incoming link and `cap` sends per
 * outgoing one (a flow-level network model or a rendezvous protocol would
 * otherwise share the link among every posted segment and turn the
 * pipeline into store-and-forward).  Receives depend only on earlier
 * receives and sends only on held data, and the trees are acyclic, so the
 * loop cannot deadlock.  Colour c uses tag `tag + c`.  Cost per rank:
 * O(colours x segments x (1 + children)) operations, one waitany per
 * completion, no copies.  Returns 0, RANKMAP_ERR_INVALID / NOMEM, or the
 * first nonzero status of an operation (then every posted request is
 * cancelled through `cancel`, when given). */
typedef struct rankmap_tbcast_io {
    void *ctx;
    int (*isend)(void *ctx, const void *buf, size_t bytes, int dest, int tag, uintptr_t *req);
    int (*irecv)(void *ctx, void *buf, size_t bytes, int source, int tag, uintptr_t *req);
    /* waits for one of reqs[0..n-1] (0: inactive), frees it and sets it to
     * 0: *index is its position */
    int (*waitany)(void *ctx, int n, uintptr_t *reqs, int *index);
    void (*cancel)(void *ctx, uintptr_t *req); /* may be NULL */
} rankmap_tbcast_io;

int rankmap_tbcast_run(const rankmap_tbcast *s, int rank, int root, void *data, size_t bytes,
                       size_t segment, int colours, int cap, int tag,
                       const rankmap_tbcast_io *io);

#ifdef __cplusplus
}
#endif
#endif

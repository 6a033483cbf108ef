/*
 * check.c -- MPIR_CVAR_RANKMAP_CHECK: after a Cartesian reorder that moved
 * ranks, the partners of the first point-to-point calls (up to 16
 * observations) are compared with the grid, before each call:
 *   - on the parent communicator, a partner that is a rank the program read
 *     from the new communicator (MPI_Cart_shift, MPI_Cart_rank) and that
 *     reaches another process on the parent: the LAMMPS pattern;
 *   - on the new communicator, for a renumbered process, a partner that is a
 *     grid neighbour of its parent rank and not of its new rank: neighbours
 *     computed by hand from MPI_COMM_WORLD.
 * Two such observations and none that contradicts them are a diagnosis; a
 * partner that fits the correct reading closes the check for that
 * communicator.  Cost: a few comparisons per partner of those first calls.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "mpilayer/layer.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct check_rec {
    int active;
    rml_comm comm, parent;
    int comm_freed;
    const char *call;
    int moved, size;
    int oldrank, newrank; /* this process in parent and in comm */
    int ndims, dims[RANKMAP_MAX_DIMS], periods[RANKMAP_MAX_DIMS];
    int *parent_of;          /* [size] parent rank of each rank of comm */
    int handed[32], nhanded; /* ranks of comm the program read */
    int seen;                /* partner observations so far */
    int p_open, p_evidence, p_peers[2]; /* on parent: ranks of comm used as parent ranks */
    int c_open, c_evidence, c_peers[2]; /* on comm: neighbours of the parent rank */
} check_rec;

#define MAX_CHECKS 4
#define CHECK_WINDOW 16
static check_rec checks[MAX_CHECKS];
int rml_checks_any; /* a record is active: the hooks call rml_check_peers() */
/* the records under MPI_THREAD_MULTIPLE (taken only while a check is active) */
static pthread_mutex_t checks_mu = PTHREAD_MUTEX_INITIALIZER;

static void cart_coords(const check_rec *c, int r, int *x)
{
    for (int d = c->ndims - 1; d >= 0; d--) {
        x[d] = r % c->dims[d];
        r /= c->dims[d];
    }
}

/* P is a grid neighbour of R (one step along one dimension). */
static int cart_adjacent(const check_rec *c, int r, int p)
{
    int a[RANKMAP_MAX_DIMS], b[RANKMAP_MAX_DIMS], diff = -1;
    if (r < 0 || p < 0 || r >= c->size || p >= c->size || r == p)
        return 0;
    cart_coords(c, r, a);
    cart_coords(c, p, b);
    for (int d = 0; d < c->ndims; d++) {
        if (a[d] == b[d])
            continue;
        if (diff >= 0)
            return 0;
        diff = d;
    }
    if (diff < 0)
        return 0;
    int delta = abs(a[diff] - b[diff]);
    return delta == 1 || (c->periods[diff] && delta == c->dims[diff] - 1);
}

static int handed(const check_rec *c, int p)
{
    for (int i = 0; i < c->nhanded; i++)
        if (c->handed[i] == p)
            return 1;
    return 0;
}

/* P is the parent rank of a process the program read a rank of. */
static int handed_target(const check_rec *c, int p)
{
    for (int i = 0; i < c->nhanded; i++)
        if (c->handed[i] >= 0 && c->handed[i] < c->size && c->parent_of[c->handed[i]] == p)
            return 1;
    return 0;
}

static void check_diagnose(check_rec *c, int on_parent, const char *call)
{
    char line[1400], out[640];
    rml_ways_out(c->call, out, sizeof(out));
    const char *parent = c->parent == rml.ops->world ? "MPI_COMM_WORLD" : "the parent communicator";
    if (on_parent) {
        int p = c->p_peers[0];
        snprintf(line, sizeof(line),
                 "rank %d calls %s with partner %d on %s, a rank it read from the communicator "
                 "%s reordered (%d of %d ranks moved); there rank %d is rank %d of %s, so this "
                 "exchange hangs or gets the wrong data. %s",
                 rml.world_rank, call, p, parent, c->call, c->moved, c->size, p, c->parent_of[p],
                 parent, out);
    } else {
        char peers[80];
        if (c->c_peers[0] == c->c_peers[1])
            snprintf(peers, sizeof(peers), "partner %d there, a grid neighbour", c->c_peers[0]);
        else
            snprintf(peers, sizeof(peers), "partners %d and %d there, grid neighbours",
                     c->c_peers[0], c->c_peers[1]);
        snprintf(line, sizeof(line),
                 "rank %d (rank %d of the communicator %s reordered, %d of %d ranks moved) calls "
                 "%s with %s of its rank %d of %s, not of its new rank %d: it computes neighbours "
                 "from its old rank, so this exchange hangs or gets the wrong data. %s",
                 rml.world_rank, c->newrank, c->call, c->moved, c->size, call, peers, c->oldrank,
                 parent, c->newrank, out);
    }
    c->p_open = c->c_open = 0;
    rml_diagnose(line, 1, 1);
}

void rml_check_peers(rml_comm comm, int a, int b, const char *call)
{
    int peers[2] = { a, b }, active = 0;
    pthread_mutex_lock(&checks_mu);
    for (int k = 0; k < MAX_CHECKS; k++) {
        check_rec *c = &checks[k];
        if (!c->active || (!c->p_open && !c->c_open))
            continue;
        int on_parent = comm == c->parent && c->p_open;
        int on_comm = comm == c->comm && !c->comm_freed && c->c_open;
        if (!on_parent && !on_comm)
            continue;
        for (int i = 0; i < 2; i++) {
            int p = peers[i];
            if (p < 0)
                continue;
            if (++c->seen > CHECK_WINDOW) {
                c->p_open = c->c_open = 0;
                break;
            }
            if (on_parent) {
                int h = handed(c, p), t = handed_target(c, p);
                if (h && !t) {
                    if (c->p_evidence < 2)
                        c->p_peers[c->p_evidence] = p;
                    c->p_evidence++;
                } else if (!h) {
                    c->p_open = 0; /* a partner of the correct reading, or unrelated */
                }
            } else {
                int mine_old = cart_adjacent(c, c->oldrank, p);
                int mine_new = cart_adjacent(c, c->newrank, p);
                if (mine_old && !mine_new) {
                    if (c->c_evidence < 2)
                        c->c_peers[c->c_evidence] = p;
                    c->c_evidence++;
                } else if (!mine_old) {
                    c->c_open = 0;
                }
            }
        }
        if (on_parent && c->p_open && c->p_evidence >= 2)
            check_diagnose(c, 1, call);
        else if (on_comm && c->c_open && c->c_evidence >= 2)
            check_diagnose(c, 0, call);
        if (!c->p_open && !c->c_open) {
            free(c->parent_of);
            c->parent_of = NULL;
            c->active = 0;
        }
    }
    for (int k = 0; k < MAX_CHECKS; k++)
        active |= checks[k].active;
    __atomic_store_n(&rml_checks_any, active, __ATOMIC_RELAXED); /* all closed: no more calls */
    pthread_mutex_unlock(&checks_mu);
}

void rml_check_handed(rml_comm comm, int r1, int r2)
{
    pthread_mutex_lock(&checks_mu);
    for (int k = 0; k < MAX_CHECKS; k++) {
        check_rec *c = &checks[k];
        if (!c->active || c->comm != comm || c->comm_freed)
            continue;
        int rs[2] = { r1, r2 };
        for (int i = 0; i < 2; i++)
            if (rs[i] >= 0 && rs[i] < c->size && !handed(c, rs[i]) &&
                c->nhanded < (int) (sizeof(c->handed) / sizeof(c->handed[0])))
                c->handed[c->nhanded++] = rs[i];
    }
    pthread_mutex_unlock(&checks_mu);
}

void rml_check_freed(rml_comm comm)
{
    pthread_mutex_lock(&checks_mu);
    for (int k = 0; k < MAX_CHECKS; k++)
        if (checks[k].active && checks[k].comm == comm)
            checks[k].comm_freed = 1;
    pthread_mutex_unlock(&checks_mu);
}

/* parent_of[i] = rank in PARENT of rank i of NEWCOMM (both in world ranks) */
static int parent_ranks(rml_comm parent, rml_comm newcomm, int size, int *parent_of)
{
    const rml_ops *o = rml.ops;
    int psize = o->size(parent), rc = -1;
    int *pw = malloc((size_t) psize * sizeof(int)), *nw = malloc((size_t) size * sizeof(int));
    int *rank_of_world = malloc((size_t) rml.world_size * sizeof(int));
    if (pw && nw && rank_of_world && o->world_ranks(parent, psize, pw) == 0 &&
        o->world_ranks(newcomm, size, nw) == 0) {
        for (int w = 0; w < rml.world_size; w++)
            rank_of_world[w] = -1;
        for (int i = 0; i < psize; i++)
            if (pw[i] >= 0 && pw[i] < rml.world_size)
                rank_of_world[pw[i]] = i;
        for (int i = 0; i < size; i++)
            parent_of[i] = nw[i] >= 0 && nw[i] < rml.world_size ? rank_of_world[nw[i]] : -1;
        rc = 0;
    }
    free(pw);
    free(nw);
    free(rank_of_world);
    return rc;
}

void rml_check_add(const char *call, rml_comm parent, rml_comm newcomm, int oldrank,
                   int newrank, int moved, int ndims, const int *dims, const int *periods)
{
    check_rec *c = NULL;
    pthread_mutex_lock(&checks_mu);
    for (int k = 0; k < MAX_CHECKS && !c; k++)
        if (!checks[k].active)
            c = &checks[k];
    if (!c || ndims < 1 || ndims > RANKMAP_MAX_DIMS) {
        pthread_mutex_unlock(&checks_mu);
        return;
    }
    memset(c, 0, sizeof(*c));
    c->size = rml.ops->size(newcomm);
    c->parent_of = malloc((size_t) c->size * sizeof(int));
    if (!c->parent_of || parent_ranks(parent, newcomm, c->size, c->parent_of) != 0) {
        free(c->parent_of);
        c->parent_of = NULL;
        pthread_mutex_unlock(&checks_mu);
        return;
    }
    c->comm = newcomm;
    c->parent = parent;
    c->call = call;
    c->moved = moved;
    c->oldrank = oldrank;
    c->newrank = newrank;
    c->ndims = ndims;
    for (int d = 0; d < ndims; d++) {
        c->dims[d] = dims[d];
        c->periods[d] = periods && periods[d] ? 1 : 0;
    }
    /* the hand-computed neighbours can only differ for a renumbered process */
    c->p_open = 1;
    c->c_open = oldrank != newrank && oldrank < c->size;
    c->active = 1;
    __atomic_store_n(&rml_checks_any, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&checks_mu);
}

void rml_check_finalize(void)
{
    pthread_mutex_lock(&checks_mu);
    for (int k = 0; k < MAX_CHECKS; k++) {
        free(checks[k].parent_of);
        memset(&checks[k], 0, sizeof(checks[k]));
    }
    __atomic_store_n(&rml_checks_any, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&checks_mu);
}

/*
 * track.c -- the safety net's bookkeeping (doc/compatibility.md): programs
 * that create a communicator with reorder=1 and then use its ranks
 * elsewhere (LAMMPS `map cart/reorder` reads its neighbours from the new
 * Cartesian communicator, frees it and exchanges on MPI_COMM_WORLD) hang or
 * compute with the wrong neighbours once ranks move.  This file
 *   - remembers the communicators a reorder made (up to 16 at a time) and
 *     which call made them, once the reorder moved a rank, and arms the
 *     path's watched-call hooks;
 *   - counts the watched calls on them and on their MPI_Cart_sub children
 *     (rml_enter: a comparison of the handle with each remembered one);
 *   - diagnoses, in one line flushed at once, MPI_Comm_free of such a
 *     communicator on which its rank 0 made no call (the LAMMPS pattern),
 *     and at MPI_Finalize gives a hint for one never used (the reorder was
 *     wasted, not an error);
 *   - learns what a grid whose traffic nobody declared carries: MPI_Alltoall
 *     on its lines writes their dimensions to
 *     $RANKMAP_WISDOM/alltoall/PROGRAM-DIMS as they come, point-to-point on
 *     the grid and no all-to-all writes "none" at MPI_Finalize; the next
 *     run maps the grid with that hint.
 * The watchdog (watchdog.c) and MPIR_CVAR_RANKMAP_CHECK (check.c) are
 * called from here.  With RANKMAP_WISDOM set, a diagnosis marks the program
 * unsafe ($RANKMAP_WISDOM/unsafe/NAME): its next run keeps MPI's order.
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

typedef struct tracked {
    int live;          /* the slot holds a communicator */
    rml_comm comm, parent; /* the communicator and the one it was made from */
    const char *call;  /* the constructor that made it */
    int moved, size;   /* ranks renumbered, processes in comm */
    int reporter;      /* this process is rank 0 of comm: it prints */
    long used;         /* watched calls on comm and its MPI_Cart_sub children */
    int ndims, dims[RANKMAP_MAX_DIMS]; /* a Cartesian grid (0: other kinds) */
    int alltoall;      /* bit d: MPI_Alltoall* seen on a line of dimension d */
    int learn;         /* the grid's traffic was not declared: record it */
    long p2p;          /* point-to-point calls on comm itself */
} tracked;

#define MAX_TRACKED 16
static tracked trk[MAX_TRACKED];
static int trk_high; /* slots [0, trk_high) have been used */

/* communicators MPI_Cart_sub made from a tracked grid */
typedef struct sub_rec {
    int live;
    rml_comm comm;
    int parent; /* slot in trk */
    int dim;    /* the dimension kept, or -1 for several */
} sub_rec;
#define MAX_SUBS 64
static sub_rec subs[MAX_SUBS];
static int subs_high;

/* another library hides calls from the path's hooks (a PMPI tool preloaded
 * before the plugin): "no call on the communicator" cannot be told */
static int counts_blind;

void rml_counts_blind(void)
{
    counts_blind = 1;
}

const char *rml_comm_name(rml_comm c, char *buf, size_t len)
{
    if (c == rml.ops->world)
        return "MPI_COMM_WORLD";
    for (int i = 0; i < trk_high; i++)
        if (trk[i].live && trk[i].comm == c) {
            snprintf(buf, len, "the communicator %s made", trk[i].call);
            return buf;
        }
    return "a communicator";
}

void rml_diagnose(const char *line, int mark, int fatal)
{
    char path[PATH_MAX] = "";
    int marked = mark && rml_wisdom_path("unsafe", rml_prog_exe, NULL, path, sizeof(path)) &&
                 rml_wisdom_write("unsafe", path, line);
    int ending = fatal && rml_int(RML_S_WATCHDOG_ACTION) == 1; /* warn, abort */
    rml_say("%s%s%s%s", line, marked ? "; marked unsafe in " : "", marked ? path : "",
            ending ? "; MPIR_CVAR_RANKMAP_WATCHDOG_ACTION=abort: exiting" : "");
    if (ending) {
        rml_stderr_drain();
        _exit(1);
    }
}

void rml_arm(void)
{
    __atomic_store_n(rml.ops->armed, 1, __ATOMIC_RELAXED);
}

static int new_slot(void)
{
    for (int i = 0; i < MAX_TRACKED; i++)
        if (!trk[i].live) {
            memset(&trk[i], 0, sizeof(trk[i]));
            if (i + 1 > trk_high)
                trk_high = i + 1;
            return i;
        }
    return -1;
}

void rml_track_reordered(const char *call, rml_comm parent, rml_comm newcomm, int oldrank,
                         int newrank, int ndims, const int *dims, const int *periods)
{
    const rml_ops *o = rml.ops;
    int local[2] = { newrank >= 0 && newrank != oldrank, newrank >= 0 }, sum[2] = { 0, 0 };
    if (o->allreduce(local, sum, 2, RML_INT, RML_SUM, parent) != 0 || sum[0] == 0)
        return; /* the identity order: nothing can go wrong */
    rml_watchdog_reorder(call, sum[0], sum[1]);
    if (newcomm != o->comm_null) {
        int slot = new_slot();
        if (slot >= 0) {
            tracked *t = &trk[slot];
            t->call = call;
            t->moved = sum[0];
            t->size = sum[1];
            t->reporter = newrank == 0;
            t->comm = newcomm;
            t->parent = parent;
            t->ndims = ndims > 0 && ndims <= RANKMAP_MAX_DIMS && dims ? ndims : 0;
            for (int d = 0; d < t->ndims; d++)
                t->dims[d] = dims[d];
            t->live = 1;
        }
        if (rml_int(RML_S_CHECK) && ndims > 0)
            rml_check_add(call, parent, newcomm, oldrank, newrank, sum[0], ndims, dims, periods);
    }
    rml_arm();
    rml_watchdog_start();
}

void rml_track_observe_grid(rml_comm newcomm, int newrank, int ndims, const int *dims)
{
    if (newcomm == rml.ops->comm_null || ndims < 1 || ndims > RANKMAP_MAX_DIMS || !dims)
        return;
    int slot = -1;
    for (int i = 0; i < trk_high; i++)
        if (trk[i].live && trk[i].comm == newcomm)
            slot = i; /* moved: tracked already */
    if (slot < 0) {
        if ((slot = new_slot()) < 0)
            return;
        trk[slot].call = "MPI_Cart_create";
        trk[slot].reporter = newrank == 0;
        trk[slot].comm = newcomm;
        trk[slot].ndims = ndims;
        for (int d = 0; d < ndims; d++)
            trk[slot].dims[d] = dims[d];
        trk[slot].live = 1;
    }
    trk[slot].learn = 1;
    rml_arm(); /* the hooks count; the watchdog waits for a rank that moved */
}

/* ---- the all-to-all hint learnt from a run ---------------------------------------- */

/* PATH = $RANKMAP_WISDOM/alltoall/PROGRAM-D0xD1x...: 1, or 0 without a cache */
static int hint_path(int ndims, const int *dims, char *path, size_t len)
{
    char suffix[16 * RANKMAP_MAX_DIMS] = "-";
    int n = 1;
    for (int d = 0; d < ndims && n < (int) sizeof(suffix); d++)
        n += snprintf(suffix + n, sizeof(suffix) - (size_t) n, d ? "x%d" : "%d", dims[d]);
    return ndims >= 1 && rml_wisdom_path("alltoall", rml_prog_exe, suffix, path, len);
}

int rml_learned_hint(int ndims, const int *dims, char *hint, size_t len, char *path,
                     size_t pathlen)
{
    if (!hint_path(ndims, dims, path, pathlen))
        return 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int ok = fgets(hint, (int) len, f) != NULL;
    fclose(f);
    if (!ok)
        return 0;
    hint[strcspn(hint, "\r\n")] = '\0';
    return hint[0] != '\0';
}

/* MPI_Alltoall* on a line of dimension DIM of the grid in slot T: rank 0 of
 * the grid writes the dimensions seen so far ("0,1"). */
static void remember_alltoall(int t, int dim)
{
    tracked *g = &trk[t];
    if (dim >= g->ndims ||
        (__atomic_fetch_or(&g->alltoall, 1 << dim, __ATOMIC_RELAXED) & (1 << dim)) ||
        !g->reporter)
        return;
    char path[PATH_MAX], list[3 * RANKMAP_MAX_DIMS + 1] = "";
    int mask = __atomic_load_n(&g->alltoall, __ATOMIC_RELAXED), n = 0;
    for (int d = 0; d < g->ndims; d++)
        if (mask & (1 << d))
            n += snprintf(list + n, sizeof(list) - (size_t) n, n ? ",%d" : "%d", d);
    if (!hint_path(g->ndims, g->dims, path, sizeof(path)) ||
        !rml_wisdom_write("alltoall", path, list))
        return;
    if (rml_int(RML_S_VERBOSE))
        rml_say("%s: MPI_Alltoall on the lines of dimension %d; the next run maps the grid with "
                "the all-to-all hint %s (%s)",
                g->call, dim, list, path);
}

/* A grid watched for its traffic, at its free or at MPI_Finalize: rank 0 of
 * the grid records "none" when it carried point-to-point traffic and no
 * MPI_Alltoall on its lines, unless a hint is recorded already. */
static void learn_stencil(int t)
{
    tracked *g = &trk[t];
    char path[PATH_MAX];
    if (!g->learn || !g->reporter || counts_blind || __atomic_load_n(&g->alltoall, __ATOMIC_RELAXED) ||
        __atomic_load_n(&g->p2p, __ATOMIC_RELAXED) == 0 ||
        !hint_path(g->ndims, g->dims, path, sizeof(path)) || access(path, F_OK) == 0 ||
        !rml_wisdom_write("alltoall", path, "none"))
        return;
    if (rml_int(RML_S_VERBOSE))
        rml_say("%s: point-to-point on the grid and no MPI_Alltoall on its lines; the next run "
                "maps the grid as a stencil (the hint none, %s)",
                g->call, path);
}

/* ---- the watched calls --------------------------------------------------------------- */

/* kinds by name, without the P of PMPI_ and a large-count _c suffix */
static const struct {
    const char *name;
    int kind;
} kinds[] = {
    { "Send", RML_CALL_P2P }, { "Bsend", RML_CALL_P2P }, { "Ssend", RML_CALL_P2P },
    { "Rsend", RML_CALL_P2P }, { "Isend", RML_CALL_P2P }, { "Ibsend", RML_CALL_P2P },
    { "Issend", RML_CALL_P2P }, { "Irsend", RML_CALL_P2P }, { "Send_init", RML_CALL_P2P },
    { "Bsend_init", RML_CALL_P2P }, { "Ssend_init", RML_CALL_P2P },
    { "Rsend_init", RML_CALL_P2P }, { "Recv", RML_CALL_P2P }, { "Irecv", RML_CALL_P2P },
    { "Recv_init", RML_CALL_P2P }, { "Sendrecv", RML_CALL_P2P },
    { "Sendrecv_replace", RML_CALL_P2P }, { "Probe", RML_CALL_P2P }, { "Mprobe", RML_CALL_P2P },
    { "Wait", RML_CALL_WAIT }, { "Waitall", RML_CALL_WAIT }, { "Waitany", RML_CALL_WAIT },
    { "Waitsome", RML_CALL_WAIT },
    { "Barrier", RML_CALL_COLL }, { "Ibarrier", RML_CALL_COLL }, { "Bcast", RML_CALL_COLL },
    { "Ibcast", RML_CALL_COLL }, { "Reduce", RML_CALL_COLL }, { "Allreduce", RML_CALL_COLL },
    { "Iallreduce", RML_CALL_COLL }, { "Scan", RML_CALL_COLL }, { "Exscan", RML_CALL_COLL },
    { "Reduce_scatter", RML_CALL_COLL }, { "Reduce_scatter_block", RML_CALL_COLL },
    { "Allgather", RML_CALL_COLL }, { "Allgatherv", RML_CALL_COLL }, { "Gather", RML_CALL_COLL },
    { "Gatherv", RML_CALL_COLL }, { "Scatter", RML_CALL_COLL }, { "Scatterv", RML_CALL_COLL },
    { "Alltoall", RML_CALL_ALLTOALL }, { "Alltoallv", RML_CALL_ALLTOALL },
    { "Alltoallw", RML_CALL_ALLTOALL }, { "Ialltoall", RML_CALL_ALLTOALL },
    { "Neighbor_allgather", RML_CALL_NEIGHBOR }, { "Neighbor_allgatherv", RML_CALL_NEIGHBOR },
    { "Neighbor_alltoall", RML_CALL_NEIGHBOR }, { "Neighbor_alltoallv", RML_CALL_NEIGHBOR },
    { "Neighbor_alltoallw", RML_CALL_NEIGHBOR }, { "Ineighbor_alltoall", RML_CALL_NEIGHBOR },
    { "Ineighbor_alltoallv", RML_CALL_NEIGHBOR }, { "Ineighbor_alltoallw", RML_CALL_NEIGHBOR },
    { "Ineighbor_allgather", RML_CALL_NEIGHBOR }, { "Ineighbor_allgatherv", RML_CALL_NEIGHBOR },
    { "Comm_dup", RML_CALL_DERIVE }, { "Comm_dup_with_info", RML_CALL_DERIVE },
    { "Comm_idup", RML_CALL_DERIVE }, { "Comm_split", RML_CALL_DERIVE },
    { "Comm_split_type", RML_CALL_DERIVE }, { "Comm_create", RML_CALL_DERIVE },
    { "Comm_create_group", RML_CALL_DERIVE }, { "Cart_sub", RML_CALL_DERIVE },
};

int rml_call_kind(const char *call)
{
    if (call[0] == 'P')
        call++;
    if (strncmp(call, "MPI_", 4) != 0)
        return RML_CALL_NONE;
    call += 4;
    size_t n = strlen(call);
    if (n > 2 && !strcmp(call + n - 2, "_c"))
        n -= 2;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (strlen(kinds[i].name) == n && !strncmp(kinds[i].name, call, n))
            return kinds[i].kind;
    return RML_CALL_NONE;
}

/* the kind of CALL, remembered per string (the hooks pass literals) */
static int kind_of(const char *call)
{
    enum { SLOTS = 256 };
    static const char *keys[SLOTS];
    static int vals[SLOTS];
    size_t h = ((uintptr_t) call >> 3) % SLOTS;
    if (__atomic_load_n(&keys[h], __ATOMIC_ACQUIRE) == call)
        return __atomic_load_n(&vals[h], __ATOMIC_RELAXED);
    int k = rml_call_kind(call);
    __atomic_store_n(&vals[h], k, __ATOMIC_RELAXED);
    __atomic_store_n(&keys[h], call, __ATOMIC_RELEASE);
    return k;
}

int rml_enter(rml_comm c, const char *call, int peer_a, int peer_b)
{
    int kind = kind_of(call);
    if (kind == RML_CALL_NONE)
        return 0;
    rml_watchdog_enter(c, call);
    if (kind != RML_CALL_WAIT && c != rml.ops->comm_null) {
        for (int i = 0; i < trk_high; i++)
            if (trk[i].live && trk[i].comm == c) {
                __atomic_add_fetch(&trk[i].used, 1, __ATOMIC_RELAXED);
                if (trk[i].learn && (kind == RML_CALL_P2P || kind == RML_CALL_NEIGHBOR))
                    __atomic_add_fetch(&trk[i].p2p, 1, __ATOMIC_RELAXED);
            }
        for (int i = 0; i < subs_high; i++)
            if (subs[i].live && subs[i].comm == c && trk[subs[i].parent].live) {
                __atomic_add_fetch(&trk[subs[i].parent].used, 1, __ATOMIC_RELAXED);
                if (subs[i].dim >= 0 && kind == RML_CALL_ALLTOALL)
                    remember_alltoall(subs[i].parent, subs[i].dim);
            }
    }
    if (kind == RML_CALL_P2P && __atomic_load_n(&rml_checks_any, __ATOMIC_RELAXED))
        rml_check_peers(c, peer_a, peer_b, call);
    return 1;
}

void rml_leave(void)
{
    rml_watchdog_leave();
}

/* A reordered communicator freed before its rank 0 made a call on it. */
void rml_comm_free(rml_comm c)
{
    if (!__atomic_load_n(rml.ops->armed, __ATOMIC_RELAXED) || c == rml.ops->comm_null)
        return;
    for (int i = 0; i < trk_high; i++) {
        tracked *t = &trk[i];
        if (!t->live || t->comm != c)
            continue;
        if (t->moved && t->reporter && !counts_blind &&
            __atomic_load_n(&t->used, __ATOMIC_RELAXED) == 0) {
            char line[1400], out[640];
            rml_ways_out(t->call, out, sizeof(out));
            snprintf(line, sizeof(line),
                     "%s reordered %d of %d ranks and the program freed the new communicator "
                     "without communicating on it; if it uses those ranks on %s it will hang. %s",
                     t->call, t->moved, t->size,
                     t->parent == rml.ops->world ? "MPI_COMM_WORLD"
                                                 : "the communicator it was made from",
                     out);
            rml_diagnose(line, 1, 0);
        }
        learn_stencil(i);
        t->live = 0;
    }
    rml_check_freed(c);
    for (int i = 0; i < subs_high; i++)
        if (subs[i].live && subs[i].comm == c)
            subs[i].live = 0;
}

void rml_cart_sub(rml_comm parent, const int *remain_dims, rml_comm sub)
{
    if (sub == rml.ops->comm_null || !remain_dims)
        return;
    for (int t = 0; t < trk_high; t++) {
        if (!trk[t].live || trk[t].comm != parent || trk[t].ndims < 1)
            continue;
        int kept = 0, dim = -1;
        for (int d = 0; d < trk[t].ndims; d++)
            if (remain_dims[d])
                kept++, dim = d;
        for (int i = 0; i < MAX_SUBS; i++)
            if (!subs[i].live) {
                subs[i] = (sub_rec) { 1, sub, t, kept == 1 ? dim : -1 };
                if (i + 1 > subs_high)
                    subs_high = i + 1;
                break;
            }
        break;
    }
}

void rml_handed(rml_comm c, int rank_a, int rank_b)
{
    if (__atomic_load_n(&rml_checks_any, __ATOMIC_RELAXED))
        rml_check_handed(c, rank_a, rank_b);
}

void rml_track_finalize(void)
{
    char out[640];
    for (int i = 0; i < trk_high; i++) {
        if (!trk[i].live)
            continue;
        learn_stencil(i);
        if (trk[i].moved && trk[i].reporter && !counts_blind && trk[i].used == 0) {
            rml_ways_out(trk[i].call, out, sizeof(out));
            out[0] = 's'; /* "set ..." inside the sentence */
            rml_say("hint: %s reordered %d of %d ranks but the program never communicated on the "
                    "new communicator, so the reorder brought nothing; if it exchanges with "
                    "neighbours on another communicator, %s",
                    trk[i].call, trk[i].moved, trk[i].size, out);
        }
        trk[i].live = 0;
    }
    trk_high = subs_high = 0;
    memset(subs, 0, sizeof(subs));
    rml_check_finalize();
    if (rml.ops && rml.ops->armed)
        __atomic_store_n(rml.ops->armed, 0, __ATOMIC_RELAXED);
    rml_watchdog_stop();
}

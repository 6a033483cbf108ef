/*
 * safety.c -- librankmap-pmpi: the safety net for programs that assume ranks
 * do not move (issue 26; the patterns, the settings and their costs are in
 * doc/compatibility.md).
 *
 * An MPI that reorders must never leave a silent hang.  Some programs
 * create a communicator with reorder=1 and then use its ranks elsewhere:
 * LAMMPS (`map cart/reorder`) reads its neighbours from the new Cartesian
 * communicator, frees it and exchanges with those ranks on MPI_COMM_WORLD;
 * others compute neighbours from their MPI_COMM_WORLD rank and exchange on
 * the new communicator.  Once the plugin reorders, such programs wait
 * forever or get the wrong data.  This file
 *   - keeps the in-call settings every process agrees on: at MPI_Init one
 *     allreduce over MPI_COMM_WORLD combines MPIR_CVAR_RANKMAP_CART, _GRAPH,
 *     _DIST_GRAPH and whether the program is skipped (its executable's base
 *     name, from /proc/self/exe or argv[0], is in
 *     MPIR_CVAR_RANKMAP_SKIP_PROGRAMS, or the mapping cache holds a marker
 *     $RANKMAP_WISDOM/unsafe/NAME written by an earlier diagnosis): a process
 *     that reorders while another does not would hang the call itself;
 *   - remembers the communicators a reorder made (up to 16 at a time) and
 *     which call made them, once the reorder moved a rank (one allreduce of
 *     two integers per reorder counts the moved ranks);
 *   - counts the calls on them in its wrappers of the point-to-point,
 *     completion, collective and communicator-deriving calls (a comparison
 *     of the handle with the remembered ones; before the first reorder
 *     that moved a rank, one load and a branch);
 *   - diagnoses, in one line flushed at once:
 *       (a) MPI_Comm_free of such a communicator on which its rank 0 made no
 *           call (the LAMMPS pattern), and at MPI_Finalize a hint for one
 *           never used and never freed (the reorder was wasted, not an error);
 *       (b) the watchdog: a thread (no MPI calls) that finds the process
 *           blocked in a wrapped call with no wrapped call completing for
 *           MPIR_CVAR_RANKMAP_WATCHDOG seconds (default 300, 0 off) prints
 *           the diagnosis from that rank; MPIR_CVAR_RANKMAP_WATCHDOG_ACTION=abort
 *           then ends the process (exit status 1), so the launcher ends the
 *           job instead of a batch time limit;
 *       (c) with MPIR_CVAR_RANKMAP_CHECK=1, before the call, the first
 *           point-to-point partners (up to 16 observations) after a
 *           Cartesian reorder: on the parent communicator, partners that are
 *           ranks the program read from the new communicator (MPI_Cart_shift,
 *           MPI_Cart_rank) but reach another process there (the LAMMPS
 *           pattern); on the new communicator, partners that are grid
 *           neighbours of the process's parent rank and not of its new rank
 *           (neighbours computed from MPI_COMM_WORLD by hand).  Two such
 *           observations and none that contradicts them are a diagnosis; a
 *           partner that fits the correct reading closes the check.  With
 *           ACTION=abort a diagnosis of (c) also ends the process.
 *     With RANKMAP_WISDOM set (the engine's mapping cache), a diagnosis of (a)
 *     or (c), and of (b) with ACTION=abort, is written into
 *     $RANKMAP_WISDOM/unsafe/NAME: the next run of the program keeps MPI's
 *     order in the call.  A warning of (b) marks nothing: it may be a long
 *     legitimate wait.
 * The wrappers call the next definition of each function in the lookup
 * order (dlsym(RTLD_NEXT), as chain.h does for MPI_Init), so the traffic
 * profiler preloaded after the plugin still sees every send.
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pmpi/chain.h"
#include "pmpi/safety.h"
#include "pmpi/table.h"

#define DOC_HINT "place ranks at launch (rankmap map --hostfile, see doc/compatibility.md)"

/* ---- the program ------------------------------------------------------------ */

static char prog_exe[256], prog_arg0[256]; /* base names of /proc/self/exe and argv[0] */

/* NAME into OUT, cut to fit (a base name longer than OUT matches no list) */
static void copy_name(char *out, size_t len, const char *name)
{
    size_t n = strlen(name);
    if (n >= len)
        n = len - 1;
    memcpy(out, name, n);
    out[n] = '\0';
}

static void program_names(void)
{
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
    if (n > 0) {
        path[n] = '\0';
        const char *b = strrchr(path, '/');
        copy_name(prog_exe, sizeof(prog_exe), b ? b + 1 : path);
    }
    copy_name(prog_arg0, sizeof(prog_arg0),
              program_invocation_short_name ? program_invocation_short_name : "");
    if (!prog_exe[0])
        copy_name(prog_exe, sizeof(prog_exe), prog_arg0);
}

/* NAME is an entry of the comma-separated LIST (blanks around entries ignored). */
static int in_list(const char *list, const char *name)
{
    size_t len = strlen(name);
    if (!len)
        return 0;
    for (const char *p = list; *p;) {
        while (*p == ',' || *p == ' ' || *p == '\t')
            p++;
        const char *e = p;
        while (*e && *e != ',')
            e++;
        const char *t = e;
        while (t > p && (t[-1] == ' ' || t[-1] == '\t'))
            t--;
        if ((size_t) (t - p) == len && !strncmp(p, name, len))
            return 1;
        p = e;
    }
    return 0;
}

/* PATH = the marker of NAME in the mapping cache: 1, or 0 without a cache. */
static int marker_path(const char *name, char *path, size_t len)
{
    const char *dir = getenv("RANKMAP_WISDOM");
    if (!dir || !*dir || !name[0])
        return 0;
    return snprintf(path, len, "%s/unsafe/%s", dir, name) < (int) len;
}

/* Writes LINE as the marker of this program (through a temporary file and
 * rename(), so concurrent writers leave one whole line); 1 if written. */
static int mark_unsafe(const char *line, char *path, size_t len)
{
    char dir[PATH_MAX], tmp[PATH_MAX + 320];
    if (!marker_path(prog_exe, path, len))
        return 0;
    snprintf(dir, sizeof(dir), "%s", getenv("RANKMAP_WISDOM"));
    mkdir(dir, 0777);
    snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "/unsafe");
    mkdir(dir, 0777);
    /* hidden, so a writer killed before rename() (the launcher ending the
     * job) leaves no file that looks like a marker */
    snprintf(tmp, sizeof(tmp), "%s/.%s.%ld.tmp", dir, prog_exe, (long) getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return 0;
    int bad = fprintf(f, "%s\n", line) < 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        unlink(tmp);
        return 0;
    }
    return 1;
}

/* ---- what was reordered -------------------------------------------------------- */

int pmpi_safety_armed; /* a reorder moved a rank: the wrappers count and watch */
/* another library's wrappers come first in the lookup order (a PMPI tool
 * preloaded before this plugin): calls it makes through PMPI_ bypass ours,
 * so "no call on the communicator" cannot be told and (a) stays silent */
static int counts_blind;
static char blind_lib[256];

typedef struct tracked {
    int live;         /* the slot holds a communicator */
    MPI_Comm comm;
    const char *call; /* the constructor that made it */
    int moved, size;  /* ranks renumbered, processes in comm */
    int reporter;     /* this process is rank 0 of comm: it prints (a) */
    long used;        /* wrapped calls on comm and its MPI_Cart_sub children by this process */
    int ndims, dims[RANKMAP_MAX_DIMS]; /* a Cartesian grid (ndims 0: other kinds) */
    int alltoall;     /* bit d: MPI_Alltoall* seen on a line of dimension d */
    int learn;        /* the grid's traffic was not declared: record it at MPI_Finalize */
    long p2p;         /* point-to-point calls on comm itself by this process */
} tracked;

#define MAX_TRACKED 16
static tracked trk[MAX_TRACKED];
static void learn_stencil(int t);
static int trk_high; /* slots [0, trk_high) have been used */

/* communicators MPI_Cart_sub made from a tracked grid: a call on them counts
 * as use of the grid, and MPI_Alltoall* on a line (one dimension kept)
 * teaches the all-to-all hint (remember_alltoall) */
typedef struct sub_rec {
    int live;
    MPI_Comm comm;
    int parent; /* slot in trk */
    int dim;    /* the dimension kept, or -1 for several */
} sub_rec;
#define MAX_SUBS 64
static sub_rec subs[MAX_SUBS];
static int subs_high;

/* the last reorder that moved ranks, for the watchdog's line */
static const char *last_call = "";
static int last_moved, last_size;

/* MPIR_CVAR_RANKMAP_CHECK state of one Cartesian reorder */
typedef struct check_rec {
    int active;
    MPI_Comm comm, parent;
    int comm_freed;
    const char *call;
    int moved, size;
    int oldrank, newrank; /* this process in parent and in comm */
    int ndims, dims[RANKMAP_MAX_DIMS], periods[RANKMAP_MAX_DIMS];
    int *parent_of; /* [size] parent rank of each rank of comm */
    int handed[32], nhanded; /* ranks of comm the program read (Cart_shift, Cart_rank) */
    int seen;                /* partner observations so far */
    int p_open, p_evidence, p_peers[2];  /* on parent: ranks of comm used as parent ranks */
    int c_open, c_evidence, c_peers[2];  /* on comm: neighbours of the parent rank */
} check_rec;

#define MAX_CHECKS 4
#define CHECK_WINDOW 16
static check_rec checks[MAX_CHECKS];
static int checks_any; /* a record is active: the wrappers call check_peers() */
/* the records under MPI_THREAD_MULTIPLE (taken only while a check is active) */
static pthread_mutex_t checks_mu = PTHREAD_MUTEX_INITIALIZER;

static const char *knob_of(const char *call)
{
    if (!strncmp(call, "MPI_Cart", 8))
        return "MPIR_CVAR_RANKMAP_CART";
    if (!strncmp(call, "MPI_Dist_graph", 14))
        return "MPIR_CVAR_RANKMAP_DIST_GRAPH";
    return "MPIR_CVAR_RANKMAP_GRAPH";
}

/* The two ways out, ending every diagnosis. */
static void ways_out(const char *call, char *buf, size_t len)
{
    snprintf(buf, len, "Set MPIR_CVAR_RANKMAP_SKIP_PROGRAMS=%s (or %s=0), or " DOC_HINT,
             prog_exe[0] ? prog_exe : "PROGRAM", knob_of(call));
}

static const char *comm_name(MPI_Comm comm, char *buf, size_t len)
{
    if (comm == MPI_COMM_WORLD)
        return "MPI_COMM_WORLD";
    for (int i = 0; i < trk_high; i++)
        if (trk[i].live && trk[i].comm == comm) {
            snprintf(buf, len, "the communicator %s made", trk[i].call);
            return buf;
        }
    return "a communicator";
}

/* One diagnosis line: marks the program unsafe (MARK), prints, and with
 * MPIR_CVAR_RANKMAP_WATCHDOG_ACTION=abort ends the process when FATAL. */
static void diagnose(const char *line, int mark, int fatal)
{
    char path[PATH_MAX] = "";
    int marked = mark && mark_unsafe(line, path, sizeof(path));
    int ending = fatal && pmpi_set.watchdog_abort;
    pmpi_say("%s%s%s%s", line, marked ? "; marked unsafe in " : "", marked ? path : "",
             ending ? "; MPIR_CVAR_RANKMAP_WATCHDOG_ACTION=abort: exiting" : "");
    if (ending) {
        pmpi_stderr_drain();
        _exit(1);
    }
}

/* ---- the watchdog ------------------------------------------------------------ */

static int wd_inside;            /* threads inside a wrapped call */
static unsigned long wd_done;    /* wrapped calls completed */
static const char *wd_call = ""; /* the last wrapped call entered, and its communicator */
static MPI_Comm wd_comm = MPI_COMM_NULL;
static pthread_t wd_thread;
static int wd_started, wd_stop;
static pthread_mutex_t wd_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wd_cv;

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static void watchdog_fire(double waited)
{
    char line[1400], out[640], cn[96];
    const char *call = __atomic_load_n(&wd_call, __ATOMIC_RELAXED);
    MPI_Comm comm = __atomic_load_n(&wd_comm, __ATOMIC_RELAXED);
    ways_out(last_call, out, sizeof(out));
    snprintf(line, sizeof(line),
             "rank %d has waited %.0f s in %s%s%s with no MPI call completing, after %s "
             "reordered %d of %d ranks: a program that uses those ranks on another "
             "communicator (or its old ranks on the new one) hangs like this. %s; a legitimately "
             "long wait: raise MPIR_CVAR_RANKMAP_WATCHDOG",
             pmpi_tab.world_rank, waited, call, comm == MPI_COMM_NULL ? "" : " on ",
             comm == MPI_COMM_NULL ? "" : comm_name(comm, cn, sizeof(cn)), last_call, last_moved,
             last_size, out);
    /* only a hang declared fatal marks the program: a warning may be a long wait */
    diagnose(line, pmpi_set.watchdog_abort, 1);
}

static void *watchdog_main(void *arg)
{
    (void) arg;
    double limit = (double) pmpi_set.watchdog, tick = limit < 4 ? 0.25 : 1.0;
    unsigned long seen = __atomic_load_n(&wd_done, __ATOMIC_RELAXED);
    double since = mono_now();
    int fired = 0;
    pthread_mutex_lock(&wd_mu);
    while (!wd_stop) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        long ns = ts.tv_nsec + (long) (tick * 1e9);
        ts.tv_sec += ns / 1000000000L;
        ts.tv_nsec = ns % 1000000000L;
        pthread_cond_timedwait(&wd_cv, &wd_mu, &ts);
        if (wd_stop)
            break;
        unsigned long done = __atomic_load_n(&wd_done, __ATOMIC_RELAXED);
        int inside = __atomic_load_n(&wd_inside, __ATOMIC_RELAXED);
        double now = mono_now();
        if (done != seen || inside <= 0) { /* progress, or computing outside MPI */
            seen = done;
            since = now;
            continue;
        }
        if (!fired && now - since >= limit) {
            fired = 1; /* once per process */
            pthread_mutex_unlock(&wd_mu);
            watchdog_fire(now - since);
            pthread_mutex_lock(&wd_mu);
        }
    }
    pthread_mutex_unlock(&wd_mu);
    return NULL;
}

static void watchdog_start(void)
{
    pthread_condattr_t ca;
    if (wd_started || pmpi_set.watchdog <= 0)
        return;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&wd_cv, &ca);
    pthread_condattr_destroy(&ca);
    wd_stop = 0;
    if (pthread_create(&wd_thread, NULL, watchdog_main, NULL) == 0)
        wd_started = 1;
    else if (pmpi_tab.world_rank == 0)
        pmpi_say("warning: cannot start the watchdog thread; MPIR_CVAR_RANKMAP_WATCHDOG "
                 "is off");
}

static void watchdog_stop(void)
{
    if (!wd_started)
        return;
    pthread_mutex_lock(&wd_mu);
    wd_stop = 1;
    pthread_cond_signal(&wd_cv);
    pthread_mutex_unlock(&wd_mu);
    pthread_join(wd_thread, NULL);
    pthread_cond_destroy(&wd_cv);
    wd_started = 0;
}

/* ---- MPIR_CVAR_RANKMAP_CHECK ------------------------------------------------- */

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
    ways_out(c->call, out, sizeof(out));
    const char *parent = c->parent == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "the parent communicator";
    if (on_parent) {
        int p = c->p_peers[0];
        snprintf(line, sizeof(line),
                 "rank %d calls %s with partner %d on %s, a rank it read from the communicator "
                 "%s reordered (%d of %d ranks moved); there rank %d is rank %d of %s, so this "
                 "exchange hangs or gets the wrong data. %s",
                 pmpi_tab.world_rank, call, p, parent, c->call, c->moved, c->size, p,
                 c->parent_of[p], parent, out);
    } else {
        char peers[80];
        if (c->c_peers[0] == c->c_peers[1])
            snprintf(peers, sizeof(peers), "partner %d there, a grid neighbour", c->c_peers[0]);
        else
            snprintf(peers, sizeof(peers), "partners %d and %d there, grid neighbours",
                     c->c_peers[0], c->c_peers[1]);
        snprintf(line, sizeof(line),
                 "rank %d (rank %d of the communicator %s reordered, %d of %d ranks moved) calls "
                 "%s with %s of its rank %d of %s, not of its new rank %d: "
                 "it computes neighbours from its old rank, so this exchange hangs or gets the "
                 "wrong data. %s",
                 pmpi_tab.world_rank, c->newrank, c->call, c->moved, c->size, call, peers,
                 c->oldrank, parent, c->newrank, out);
    }
    c->p_open = c->c_open = 0;
    diagnose(line, 1, 1);
}

/* The partners of a point-to-point call (negative: none, MPI_ANY_SOURCE,
 * MPI_PROC_NULL), before the call. */
static void check_peers(MPI_Comm comm, int a, int b, const char *call)
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
                    c->p_open = 0; /* a partner of the correct reading or unrelated */
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
    __atomic_store_n(&checks_any, active, __ATOMIC_RELAXED); /* all closed: no more calls */
    pthread_mutex_unlock(&checks_mu);
}

/* Ranks of the new communicator handed to the program. */
static void check_handed(MPI_Comm comm, int r1, int r2)
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

static void check_add(const char *call, MPI_Comm parent, MPI_Comm newcomm, int oldrank,
                      int newrank, int moved, int ndims, const int dims[], const int periods[])
{
    check_rec *c = NULL;
    for (int k = 0; k < MAX_CHECKS && !c; k++)
        if (!checks[k].active)
            c = &checks[k];
    if (!c || ndims < 1 || ndims > RANKMAP_MAX_DIMS)
        return;
    memset(c, 0, sizeof(*c));
    PMPI_Comm_size(newcomm, &c->size);
    c->parent_of = malloc((size_t) c->size * sizeof(int));
    int *mine = malloc((size_t) c->size * sizeof(int));
    MPI_Group g = MPI_GROUP_NULL, pg = MPI_GROUP_NULL;
    if (c->parent_of && mine) {
        for (int i = 0; i < c->size; i++)
            mine[i] = i;
        PMPI_Comm_group(newcomm, &g);
        PMPI_Comm_group(parent, &pg);
        PMPI_Group_translate_ranks(g, c->size, mine, pg, c->parent_of);
        PMPI_Group_free(&g);
        PMPI_Group_free(&pg);
        c->active = 1;
    } else {
        free(c->parent_of);
        c->parent_of = NULL;
    }
    free(mine);
    if (!c->active)
        return;
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
    checks_any = 1;
}

/* ---- hooks of reorder.c ------------------------------------------------------------ */

/* Sets counts_blind when a wrapped function resolves first to another
 * library (it may call PMPI_ directly and bypass this plugin's wrapper). */
static void check_lookup_order(void)
{
    static const char *names[] = { "MPI_Send",      "MPI_Isend",  "MPI_Recv",     "MPI_Irecv",
                                   "MPI_Sendrecv",  "MPI_Wait",   "MPI_Waitall",  "MPI_Barrier",
                                   "MPI_Allreduce", "MPI_Bcast",  "MPI_Comm_free", "MPI_Cart_sub",
                                   "MPI_Neighbor_alltoall" };
    Dl_info mine, first;
    void *self = (void *) (uintptr_t) &counts_blind;
    if (!dladdr(self, &mine) || !mine.dli_fname)
        return;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        void *f = dlsym(RTLD_DEFAULT, names[i]);
        if (f && dladdr(f, &first) && first.dli_fname && strcmp(first.dli_fname, mine.dli_fname)) {
            const char *b = strrchr(first.dli_fname, '/');
            copy_name(blind_lib, sizeof(blind_lib), b ? b + 1 : first.dli_fname);
            counts_blind = 1;
            return;
        }
    }
}

void pmpi_safety_init(void)
{
    char path[PATH_MAX];
    const char *why = NULL;
    if (!pmpi_tab.enabled)
        return;
    program_names();
    check_lookup_order();
    if (counts_blind && pmpi_set.verbose && pmpi_tab.world_rank == 0)
        pmpi_say("%s comes before this plugin in the lookup order (LD_PRELOAD): calls it makes "
                 "itself are not seen, so a reordered communicator freed or left unused is not "
                 "diagnosed; preload librankmap-pmpi first",
                 blind_lib);
    if (in_list(pmpi_set.skip_programs, prog_exe) || in_list(pmpi_set.skip_programs, prog_arg0))
        why = "MPIR_CVAR_RANKMAP_SKIP_PROGRAMS";
    else if ((marker_path(prog_exe, path, sizeof(path)) && access(path, F_OK) == 0) ||
             (marker_path(prog_arg0, path, sizeof(path)) && access(path, F_OK) == 0))
        why = path;
    /* every process must take the same decision, or a constructor would run
     * the reorder protocol on some processes only */
    int local[4] = { pmpi_set.cart, pmpi_set.graph, pmpi_set.dist_graph, why == NULL }, all[4];
    if (PMPI_Allreduce(local, all, 4, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
        all[0] = all[1] = all[2] = all[3] = 0;
    pmpi_set.cart = all[0] && all[3];
    pmpi_set.graph = all[1] && all[3];
    pmpi_set.dist_graph = all[2] && all[3];
    if (pmpi_set.verbose && pmpi_tab.world_rank == 0 && !all[3])
        pmpi_say("%s%s%s: MPI_Cart_create, MPI_Graph_create, MPI_Dist_graph_create and the _map "
                 "calls keep MPI's order in this program (the address table still applies); "
                 "%s",
                 why && why != path ? "this program is in " : "",
                 why ? (why == path ? path : why) : "another process skips this program",
                 why == path ? " marks this program unsafe to reorder in the call (delete it to "
                               "reorder again)"
                             : "",
                 DOC_HINT);
}

void pmpi_safety_reordered(const char *call, MPI_Comm parent, MPI_Comm newcomm, int oldrank,
                           int newrank, int ndims, const int dims[], const int periods[])
{
    int local[2] = { newrank != MPI_UNDEFINED && newrank != oldrank, newrank != MPI_UNDEFINED };
    int sum[2] = { 0, 0 };
    if (PMPI_Allreduce(local, sum, 2, MPI_INT, MPI_SUM, parent) != MPI_SUCCESS || sum[0] == 0)
        return; /* the identity order: nothing can go wrong */
    last_call = call;
    last_moved = sum[0];
    last_size = sum[1];
    if (newcomm != MPI_COMM_NULL) {
        int slot = -1;
        for (int i = 0; i < MAX_TRACKED && slot < 0; i++)
            if (!trk[i].live)
                slot = i;
        if (slot >= 0) {
            trk[slot].call = call;
            trk[slot].moved = sum[0];
            trk[slot].size = sum[1];
            trk[slot].reporter = newrank == 0;
            trk[slot].used = 0;
            trk[slot].comm = newcomm;
            trk[slot].ndims = ndims > 0 && ndims <= RANKMAP_MAX_DIMS && dims ? ndims : 0;
            for (int d = 0; d < trk[slot].ndims; d++)
                trk[slot].dims[d] = dims[d];
            trk[slot].alltoall = 0;
            trk[slot].learn = 0;
            trk[slot].p2p = 0;
            trk[slot].live = 1;
            if (slot + 1 > trk_high)
                trk_high = slot + 1;
        }
        if (pmpi_set.check && ndims > 0)
            check_add(call, parent, newcomm, oldrank, newrank, sum[0], ndims, dims, periods);
    }
    pmpi_safety_armed = 1;
    watchdog_start();
}

void pmpi_safety_observe_grid(MPI_Comm newcomm, int newrank, int ndims, const int dims[])
{
    if (newcomm == MPI_COMM_NULL || ndims < 1 || ndims > RANKMAP_MAX_DIMS || !dims)
        return;
    int slot = -1;
    for (int i = 0; i < trk_high; i++)
        if (trk[i].live && trk[i].comm == newcomm)
            slot = i; /* moved: pmpi_safety_reordered tracks it already */
    if (slot < 0) {
        for (int i = 0; i < MAX_TRACKED && slot < 0; i++)
            if (!trk[i].live)
                slot = i;
        if (slot < 0)
            return;
        memset(&trk[slot], 0, sizeof(trk[slot]));
        trk[slot].call = "MPI_Cart_create";
        trk[slot].reporter = newrank == 0;
        trk[slot].comm = newcomm;
        trk[slot].ndims = ndims;
        for (int d = 0; d < ndims; d++)
            trk[slot].dims[d] = dims[d];
        trk[slot].live = 1;
        if (slot + 1 > trk_high)
            trk_high = slot + 1;
    }
    trk[slot].learn = 1;
    pmpi_safety_armed = 1; /* the wrappers count; the watchdog waits for a rank that moved */
}

void pmpi_safety_finalize(void)
{
    char out[640];
    for (int i = 0; i < trk_high; i++) {
        if (!trk[i].live)
            continue;
        if (trk[i].learn)
            learn_stencil(i);
        if (trk[i].moved && trk[i].reporter && !counts_blind && trk[i].used == 0) {
            ways_out(trk[i].call, out, sizeof(out));
            out[0] = 's'; /* "set ..." inside the sentence */
            pmpi_say("hint: %s reordered %d of %d ranks but the program never communicated on "
                     "the new communicator, so the reorder brought nothing; if it exchanges with "
                     "neighbours on another communicator, %s",
                     trk[i].call, trk[i].moved, trk[i].size, out);
        }
        trk[i].live = 0;
    }
    trk_high = 0;
    for (int i = 0; i < subs_high; i++)
        subs[i].live = 0;
    subs_high = 0;
    for (int k = 0; k < MAX_CHECKS; k++) {
        free(checks[k].parent_of);
        memset(&checks[k], 0, sizeof(checks[k]));
    }
    checks_any = 0;
    pmpi_safety_armed = 0;
    watchdog_stop();
}

/* ---- the all-to-all hint learnt from a run --------------------------------------------- */

/* PATH = $RANKMAP_WISDOM/alltoall/PROGRAM-D0xD1x...: 1, or 0 without a cache. */
static int hint_path(int ndims, const int dims[], char *path, size_t len)
{
    const char *dir = getenv("RANKMAP_WISDOM");
    if (!dir || !*dir || !prog_exe[0] || ndims < 1)
        return 0;
    int n = snprintf(path, len, "%s/alltoall/%s-", dir, prog_exe);
    for (int d = 0; d < ndims && n > 0 && (size_t) n < len; d++)
        n += snprintf(path + n, len - (size_t) n, d ? "x%d" : "%d", dims[d]);
    return n > 0 && (size_t) n < len;
}

/* Writes TEXT as the hint file PATH ($RANKMAP_WISDOM/alltoall/...) through a
 * temporary file and a rename, so a reader never sees half a hint: 1 when
 * written. */
static int write_hint(const char *path, const char *text)
{
    char tmp[PATH_MAX + 64], dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", getenv("RANKMAP_WISDOM"));
    mkdir(dir, 0777);
    snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "/alltoall");
    mkdir(dir, 0777);
    snprintf(tmp, sizeof(tmp), "%s/.hint.%ld.tmp", dir, (long) getpid());
    FILE *f = fopen(tmp, "w");
    int bad = !f || fprintf(f, "%s\n", text) < 0;
    if (f)
        bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        unlink(tmp);
        return 0;
    }
    return 1;
}

/* MPI_Alltoall* on a line of dimension DIM of the grid in slot T: rank 0 of
 * the grid writes the dimensions seen so far ("0,1") where the next run's
 * MPI_Cart_create of this program and grid reads them as its hint. */
static void remember_alltoall(int t, int dim)
{
    tracked *g = &trk[t];
    if (dim >= g->ndims || (__atomic_fetch_or(&g->alltoall, 1 << dim, __ATOMIC_RELAXED) & (1 << dim)) ||
        !g->reporter)
        return;
    char path[PATH_MAX], list[3 * RANKMAP_MAX_DIMS + 1] = "";
    int mask = __atomic_load_n(&g->alltoall, __ATOMIC_RELAXED), n = 0;
    for (int d = 0; d < g->ndims; d++)
        if (mask & (1 << d))
            n += snprintf(list + n, sizeof(list) - (size_t) n, n ? ",%d" : "%d", d);
    if (!hint_path(g->ndims, g->dims, path, sizeof(path)) || !write_hint(path, list))
        return;
    if (pmpi_set.verbose)
        pmpi_say("%s: MPI_Alltoall on the lines of dimension %d; the next run maps the grid with "
                 "the all-to-all hint %s (%s)",
                 g->call, dim, list, path);
}

int pmpi_safety_learned_hint(int ndims, const int dims[], char *hint, size_t len, char *path,
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

/* A point-to-point call or a neighbourhood collective: a stencil's traffic. */
static int is_p2p(const char *call)
{
    static const char *names[] = { "MPI_Send",  "MPI_Isend",    "MPI_Ssend",    "MPI_Issend",
                                   "MPI_Bsend", "MPI_Rsend",    "MPI_Recv",     "MPI_Irecv",
                                   "MPI_Sendrecv", "MPI_Neighbor_", "MPI_Ineighbor_" };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!strncmp(call, names[i], strlen(names[i])))
            return 1;
    return 0;
}

/* MPI_Finalize, for a grid watched by pmpi_safety_observe_grid: its rank 0
 * records the hint "none" when the grid carried point-to-point traffic and
 * no MPI_Alltoall on its lines (those write their own hint as they come),
 * unless a hint is recorded already. */
static void learn_stencil(int t)
{
    tracked *g = &trk[t];
    char path[PATH_MAX];
    if (!g->reporter || counts_blind || __atomic_load_n(&g->alltoall, __ATOMIC_RELAXED) ||
        __atomic_load_n(&g->p2p, __ATOMIC_RELAXED) == 0 || !hint_path(g->ndims, g->dims, path, sizeof(path)) ||
        access(path, F_OK) == 0 || !write_hint(path, "none"))
        return;
    if (pmpi_set.verbose)
        pmpi_say("%s: point-to-point on the grid and no MPI_Alltoall on its lines; the next run "
                 "maps the grid as a stencil (the hint none, %s)",
                 g->call, path);
}

/* ---- the wrappers' bookkeeping ---------------------------------------------------- */

void pmpi_safety_enter(MPI_Comm comm, const char *call)
{
    __atomic_add_fetch(&wd_inside, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&wd_call, call, __ATOMIC_RELAXED);
    __atomic_store_n(&wd_comm, comm, __ATOMIC_RELAXED);
    if (comm == MPI_COMM_NULL)
        return;
    for (int i = 0; i < trk_high; i++)
        if (trk[i].comm == comm && trk[i].live) {
            __atomic_add_fetch(&trk[i].used, 1, __ATOMIC_RELAXED);
            if (trk[i].learn && is_p2p(call))
                __atomic_add_fetch(&trk[i].p2p, 1, __ATOMIC_RELAXED);
        }
    for (int i = 0; i < subs_high; i++)
        if (subs[i].live && subs[i].comm == comm && trk[subs[i].parent].live) {
            __atomic_add_fetch(&trk[subs[i].parent].used, 1, __ATOMIC_RELAXED);
            if (subs[i].dim >= 0 && !strncmp(call, "MPI_Alltoall", 12))
                remember_alltoall(subs[i].parent, subs[i].dim);
        }
}

void pmpi_safety_leave(void)
{
    __atomic_add_fetch(&wd_done, 1, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&wd_inside, 1, __ATOMIC_RELAXED);
}

/* ---- the wrappers -------------------------------------------------------------------- */

typedef chain_fn any_fn;
#define next_fn chain_next_fn
#define NEXT(NAME)                                                                           \
    ((__typeof__(&PMPI_##NAME)) next_fn(&next_##NAME, "MPI_" #NAME, (any_fn) PMPI_##NAME,   \
                                        (any_fn) MPI_##NAME))
/* Every wrapper: before a reorder moved a rank, once the next definition is
 * known, a jump to it; otherwise (the first call, or after such a reorder)
 * the out-of-line path with the bookkeeping, so the common path saves no
 * registers. */
#define WRAP(NAME, PARAMS, COMM, A, B, ...)                                                  \
    static any_fn next_##NAME;                                                               \
    __attribute__((noinline)) static int slow_##NAME PARAMS                                  \
    {                                                                                        \
        if (!pmpi_safety_armed)                                                              \
            return NEXT(NAME)(__VA_ARGS__);                                                  \
        pmpi_safety_enter(COMM, "MPI_" #NAME);                                               \
        if (checks_any)                                                                      \
            check_peers(COMM, A, B, "MPI_" #NAME);                                           \
        int rc_ = NEXT(NAME)(__VA_ARGS__);                                                   \
        pmpi_safety_leave();                                                                 \
        return rc_;                                                                          \
    }                                                                                        \
    int MPI_##NAME PARAMS                                                                    \
    {                                                                                        \
        any_fn f_ = __atomic_load_n(&next_##NAME, __ATOMIC_RELAXED);                         \
        if (__builtin_expect(f_ != NULL && !pmpi_safety_armed, 1))                           \
            return ((__typeof__(&PMPI_##NAME)) f_)(__VA_ARGS__);                             \
        return slow_##NAME(__VA_ARGS__);                                                     \
    }

/* point-to-point: the partners go to MPIR_CVAR_RANKMAP_CHECK */
#define P2P_SEND(NAME)                                                                       \
    WRAP(NAME, (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm), \
         comm, dest, -1, buf, count, type, dest, tag, comm)
#define P2P_ISEND(NAME)                                                                      \
    WRAP(NAME,                                                                               \
         (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,   \
          MPI_Request *req),                                                                 \
         comm, dest, -1, buf, count, type, dest, tag, comm, req)
P2P_SEND(Send)
P2P_SEND(Bsend)
P2P_SEND(Ssend)
P2P_SEND(Rsend)
P2P_ISEND(Isend)
P2P_ISEND(Ibsend)
P2P_ISEND(Issend)
P2P_ISEND(Irsend)
P2P_ISEND(Send_init)
P2P_ISEND(Bsend_init)
P2P_ISEND(Ssend_init)
P2P_ISEND(Rsend_init)
WRAP(Recv,
     (void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
      MPI_Status *status),
     comm, source, -1, buf, count, type, source, tag, comm, status)
WRAP(Irecv,
     (void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
      MPI_Request *req),
     comm, source, -1, buf, count, type, source, tag, comm, req)
WRAP(Recv_init,
     (void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
      MPI_Request *req),
     comm, source, -1, buf, count, type, source, tag, comm, req)
WRAP(Sendrecv,
     (const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
      int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm, MPI_Status *status),
     comm, dest, source, sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
     comm, status)
WRAP(Sendrecv_replace,
     (void *buf, int count, MPI_Datatype type, int dest, int stag, int source, int rtag,
      MPI_Comm comm, MPI_Status *status),
     comm, dest, source, buf, count, type, dest, stag, source, rtag, comm, status)
WRAP(Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status), comm, source, -1, source,
     tag, comm, status)
WRAP(Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *status), comm,
     source, -1, source, tag, comm, msg, status)

/* completion: blocking, no communicator */
WRAP(Wait, (MPI_Request *req, MPI_Status *status), MPI_COMM_NULL, -1, -1, req, status)
WRAP(Waitall, (int n, MPI_Request reqs[], MPI_Status statuses[]), MPI_COMM_NULL, -1, -1, n, reqs,
     statuses)
WRAP(Waitany, (int n, MPI_Request reqs[], int *index, MPI_Status *status), MPI_COMM_NULL, -1, -1,
     n, reqs, index, status)
WRAP(Waitsome, (int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[]),
     MPI_COMM_NULL, -1, -1, n, reqs, outcount, indices, statuses)

/* collectives (MPI_Bcast: bcast.c) */
#define COLL(NAME, PARAMS, ...) WRAP(NAME, PARAMS, comm, -1, -1, __VA_ARGS__)
COLL(Barrier, (MPI_Comm comm), comm)
COLL(Ibarrier, (MPI_Comm comm, MPI_Request *req), comm, req)
COLL(Ibcast, (void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req),
     buf, count, type, root, comm, req)
COLL(Reduce,
     (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
      MPI_Comm comm),
     sbuf, rbuf, count, type, op, root, comm)
COLL(Allreduce,
     (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm), sbuf,
     rbuf, count, type, op, comm)
COLL(Iallreduce,
     (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
      MPI_Request *req),
     sbuf, rbuf, count, type, op, comm, req)
COLL(Scan,
     (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm), sbuf,
     rbuf, count, type, op, comm)
COLL(Exscan,
     (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm), sbuf,
     rbuf, count, type, op, comm)
COLL(Reduce_scatter_block,
     (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm), sbuf,
     rbuf, count, type, op, comm)
COLL(Reduce_scatter,
     (const void *sbuf, void *rbuf, const int counts[], MPI_Datatype type, MPI_Op op,
      MPI_Comm comm),
     sbuf, rbuf, counts, type, op, comm)
#define COLL_SR(NAME)                                                                        \
    COLL(NAME,                                                                               \
         (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,          \
          MPI_Datatype rtype, MPI_Comm comm),                                                \
         sbuf, scount, stype, rbuf, rcount, rtype, comm)
#define COLL_SR_ROOT(NAME)                                                                   \
    COLL(NAME,                                                                               \
         (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,          \
          MPI_Datatype rtype, int root, MPI_Comm comm),                                      \
         sbuf, scount, stype, rbuf, rcount, rtype, root, comm)
COLL_SR(Allgather)
COLL_SR(Alltoall)
COLL_SR(Neighbor_allgather)
COLL_SR(Neighbor_alltoall)
COLL_SR_ROOT(Gather)
COLL_SR_ROOT(Scatter)
COLL(Ineighbor_alltoall,
     (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
      MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req),
     sbuf, scount, stype, rbuf, rcount, rtype, comm, req)
COLL(Gatherv,
     (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
      const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm),
     sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm)
COLL(Scatterv,
     (const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype, void *rbuf,
      int rcount, MPI_Datatype rtype, int root, MPI_Comm comm),
     sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm)
COLL(Allgatherv,
     (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
      const int displs[], MPI_Datatype rtype, MPI_Comm comm),
     sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm)
COLL(Neighbor_allgatherv,
     (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
      const int displs[], MPI_Datatype rtype, MPI_Comm comm),
     sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm)
COLL(Alltoallv,
     (const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void *rbuf,
      const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm),
     sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm)
COLL(Neighbor_alltoallv,
     (const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void *rbuf,
      const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm),
     sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm)
COLL(Alltoallw,
     (const void *sbuf, const int scounts[], const int sdispls[], const MPI_Datatype stypes[],
      void *rbuf, const int rcounts[], const int rdispls[], const MPI_Datatype rtypes[],
      MPI_Comm comm),
     sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm)

COLL(Neighbor_alltoallw,
     (const void *sbuf, const int scounts[], const MPI_Aint sdispls[], const MPI_Datatype stypes[],
      void *rbuf, const int rcounts[], const MPI_Aint rdispls[], const MPI_Datatype rtypes[],
      MPI_Comm comm),
     sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm)

/* communicators derived from a reordered one keep its numbering: a use of it */
COLL(Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm), comm, newcomm)
COLL(Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm), comm, info, newcomm)
COLL(Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req), comm, newcomm, req)
COLL(Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm), comm, color, key,
     newcomm)
COLL(Comm_split_type, (MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *newcomm), comm,
     type, key, info, newcomm)
COLL(Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm), comm, group, newcomm)
COLL(Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm), comm, group,
     tag, newcomm)

/* the ranks a program reads from a reordered Cartesian communicator
 * (MPIR_CVAR_RANKMAP_CHECK); queries, not communication */
static any_fn next_Cart_shift, next_Cart_rank, next_Comm_free;

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *source, int *dest)
{
    int rc = NEXT(Cart_shift)(comm, direction, disp, source, dest);
    if (checks_any && rc == MPI_SUCCESS)
        check_handed(comm, *source, *dest);
    return rc;
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    int rc = NEXT(Cart_rank)(comm, coords, rank);
    if (checks_any && rc == MPI_SUCCESS)
        check_handed(comm, *rank, -1);
    return rc;
}

/* (a): a reordered communicator freed before its rank 0 made a call on it */
int MPI_Comm_free(MPI_Comm *comm)
{
    if (pmpi_safety_armed && comm && *comm != MPI_COMM_NULL) {
        for (int i = 0; i < trk_high; i++) {
            tracked *t = &trk[i];
            if (!t->live || t->comm != *comm)
                continue;
            if (t->moved && t->reporter && !counts_blind &&
                __atomic_load_n(&t->used, __ATOMIC_RELAXED) == 0) {
                char line[1400], out[640];
                ways_out(t->call, out, sizeof(out));
                snprintf(line, sizeof(line),
                         "%s reordered %d of %d ranks and the program freed the new communicator "
                         "without communicating on it; if it uses those ranks on MPI_COMM_WORLD "
                         "it will hang. %s",
                         t->call, t->moved, t->size, out);
                diagnose(line, 1, 0);
            }
            if (t->learn)
                learn_stencil(i);
            t->live = 0;
        }
        for (int k = 0; k < MAX_CHECKS; k++)
            if (checks[k].active && checks[k].comm == *comm)
                checks[k].comm_freed = 1;
        for (int i = 0; i < subs_high; i++)
            if (subs[i].live && subs[i].comm == *comm)
                subs[i].live = 0;
    }
    return NEXT(Comm_free)(comm);
}

/* A collective like the others (it counts as use of the grid), and the
 * lines and slices of a reordered grid are recorded (remember_alltoall). */
static any_fn next_Cart_sub;
int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    if (!pmpi_safety_armed)
        return NEXT(Cart_sub)(comm, remain_dims, newcomm);
    pmpi_safety_enter(comm, "MPI_Cart_sub");
    int rc = NEXT(Cart_sub)(comm, remain_dims, newcomm);
    pmpi_safety_leave();
    if (rc != MPI_SUCCESS || !newcomm || *newcomm == MPI_COMM_NULL || !remain_dims)
        return rc;
    for (int t = 0; t < trk_high; t++) {
        if (!trk[t].live || trk[t].comm != comm || trk[t].ndims < 1)
            continue;
        int kept = 0, dim = -1;
        for (int d = 0; d < trk[t].ndims; d++)
            if (remain_dims[d])
                kept++, dim = d;
        int slot = -1;
        for (int i = 0; i < MAX_SUBS && slot < 0; i++)
            if (!subs[i].live)
                slot = i;
        if (slot < 0)
            break;
        subs[slot] = (sub_rec) { 1, *newcomm, t, kept == 1 ? dim : -1 };
        if (slot + 1 > subs_high)
            subs_high = slot + 1;
        break;
    }
    return rc;
}

/*
 * profile.c -- librankmap-profile.so: a PMPI profiler of point-to-point
 * traffic between MPI_COMM_WORLD ranks, for `rankmap map --profile`.
 *
 * Use it without rebuilding the application (LD_PRELOAD) or link it before
 * the MPI library.  For every ordered pair of world ranks it counts the
 * messages and bytes that the sender hands to MPI: blocking (MPI_Send,
 * _Bsend, _Ssend, _Rsend), non-blocking (MPI_Isend, ...), persistent
 * (MPI_Send_init, ... counted once per MPI_Start / MPI_Startall), the send
 * half of MPI_Sendrecv(_replace) and, with an MPI-4 library, the large-count
 * (_c) and MPI_Isendrecv(_replace) forms.  Ranks of any communicator are
 * translated to world ranks (the remote group of an intercommunicator);
 * MPI_PROC_NULL, messages to oneself and processes outside MPI_COMM_WORLD are
 * not pairs and are left out.  Collectives are not point-to-point traffic
 * and are not counted as pairs; MPI_Alltoall and MPI_Ialltoall on a
 * communicator other than MPI_COMM_WORLD (the rows and columns of a pencil
 * FFT) are recorded as all-to-all groups: the communicator's members as
 * world ranks, the calls and the bytes each member sent to the others
 * (counted by the communicator's rank 0, so each group once; the
 * irregular MPI_Alltoallv/w are not recorded).
 *
 * At MPI_Finalize the rows are gathered on rank 0, which writes one profile
 * (path: $RANKMAP_PROFILE, default "rankmap.prof" in the working directory)
 * through a temporary file and rename(), so a reader never sees half a file
 * (profile_write.c).
 * Format (text, '#' comments, one record per line):
 *     rankmap-profile 1
 *     tasks N
 *     meta KEY VALUE...            free text, ignored by readers
 *     histogram K C                C messages of size 0 (K = 0) or in
 *                                  [2^(K-1), 2^K) bytes (K >= 1)
 *     pair SRC DST COUNT BYTES     SRC != DST, COUNT >= 1, once per pair
 *     alltoall CALLS BYTES M1 ... Mk  a group of k >= 2 world ranks, once
 *
 * Each counted send then goes to the next definition of its function in the
 * lookup order (the reorder plugin, whose safety net counts the same calls,
 * when it is preloaded after the profiler), else to PMPI_.
 * Cost per send: one comparison for MPI_COMM_WORLD; for other communicators
 * a per-thread cache of the last one, else an attribute lookup
 * (MPI_Comm_get_attr); a per-thread cache of the last datatype's size, else
 * MPI_Type_size (MPI_Type_free is wrapped to invalidate it); three counter
 * increments (atomic when the library runs MPI_THREAD_MULTIPLE).
 * Memory: two 64-bit counters per world rank.  The rank translation of a
 * communicator is built once, cached as an attribute and freed with it; the
 * persistent requests live in a small hash table.  Both are guarded by a
 * mutex, so the profiler is safe with MPI_THREAD_MULTIPLE.
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi/chain.h"
#include "pmpi/profile.h"

/* ---- state of this process ------------------------------------------------ */

static int prof_active;      /* counting between MPI_Init and MPI_Finalize */
static int prof_threaded;    /* MPI_THREAD_MULTIPLE: counters are atomic */
static int prof_world_size, prof_world_rank;
static uint64_t *prof_count; /* [world size] messages to each world rank */
static uint64_t *prof_bytes; /* [world size] bytes to each world rank */
static uint64_t prof_hist[PROF_HIST];
static uint64_t prof_self;     /* messages to oneself (not a pair) */
static uint64_t prof_external; /* messages to processes outside MPI_COMM_WORLD */
static int prof_keyval = MPI_KEYVAL_INVALID;
static double prof_t0;
static pthread_mutex_t prof_lock = PTHREAD_MUTEX_INITIALIZER;

static inline void bump(uint64_t *counter, uint64_t v)
{
    if (prof_threaded)
        __atomic_fetch_add(counter, v, __ATOMIC_RELAXED);
    else
        *counter += v;
}

static inline int hist_bin(uint64_t bytes)
{
    return bytes == 0 ? 0 : 64 - __builtin_clzll(bytes);
}

/* ---- ranks of any communicator -> world ranks ------------------------------ */

typedef struct rank_table {
    int n;
    int world[]; /* world rank of each (remote) rank, or MPI_UNDEFINED */
} rank_table;

/* Last communicator looked up by this thread.  A freed communicator's
 * handle may be reused, so every delete of a table bumps the generation and
 * a cache entry from an older generation is not trusted. */
/* initial-exec TLS: no __tls_get_addr call on every send (the library is
 * preloaded or linked, so glibc places it in the static TLS block).  Not
 * under SMPI: smpirun loads one copy of the program per simulated process
 * with dlopen, and hundreds of copies do not fit in the static block. */
#if defined(__GNUC__) && !defined(RANKMAP_PMPI_SMPI)
#define PROF_TLS __thread __attribute__((tls_model("initial-exec")))
#else
#define PROF_TLS __thread
#endif
static uint64_t table_generation;
static PROF_TLS MPI_Comm cache_comm;
static PROF_TLS rank_table *cache_table;
static PROF_TLS uint64_t cache_generation;

static int table_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void) comm;
    (void) keyval;
    (void) extra;
    __atomic_fetch_add(&table_generation, 1, __ATOMIC_ACQ_REL);
    free(value);
    return MPI_SUCCESS;
}

static rank_table *table_build(MPI_Comm comm)
{
    rank_table *t = NULL;
    int flag = 0, inter = 0, n = 0;
    MPI_Group g, world;
    pthread_mutex_lock(&prof_lock);
    /* another thread may have built it meanwhile */
    if (PMPI_Comm_get_attr(comm, prof_keyval, &t, &flag) == MPI_SUCCESS && flag)
        goto out;
    t = NULL;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        goto out;
    if ((inter ? PMPI_Comm_remote_group(comm, &g) : PMPI_Comm_group(comm, &g)) != MPI_SUCCESS)
        goto out;
    PMPI_Group_size(g, &n);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    int *ranks = malloc((size_t) (n > 0 ? n : 1) * sizeof(int));
    t = malloc(sizeof(rank_table) + (size_t) (n > 0 ? n : 1) * sizeof(int));
    if (ranks && t) {
        t->n = n;
        for (int i = 0; i < n; i++)
            ranks[i] = i;
        if (PMPI_Group_translate_ranks(g, n, ranks, world, t->world) != MPI_SUCCESS ||
            PMPI_Comm_set_attr(comm, prof_keyval, t) != MPI_SUCCESS) {
            free(t);
            t = NULL;
        }
    } else {
        free(t);
        t = NULL;
    }
    free(ranks);
    PMPI_Group_free(&g);
    PMPI_Group_free(&world);
out:
    pthread_mutex_unlock(&prof_lock);
    return t;
}

/* World rank of rank r of comm (destination side), or -1 if none. */
static inline int to_world(MPI_Comm comm, int r)
{
    if (comm == MPI_COMM_WORLD)
        return r < prof_world_size ? r : -1;
    rank_table *t = NULL;
    uint64_t gen = __atomic_load_n(&table_generation, __ATOMIC_ACQUIRE);
    if (cache_table && cache_comm == comm && cache_generation == gen) {
        t = cache_table;
    } else {
        int flag = 0;
        if (PMPI_Comm_get_attr(comm, prof_keyval, &t, &flag) != MPI_SUCCESS)
            return -1;
        if (!flag && !(t = table_build(comm)))
            return -1;
        cache_comm = comm;
        cache_table = t;
        cache_generation = gen;
    }
    if (r >= t->n)
        return -1;
    return t->world[r];
}

/* ---- datatype sizes ---------------------------------------------------------
 * Per-thread cache of the last datatype's size: a halo exchange sends the
 * same type over and over, and MPI_Type_size is a call into the library
 * with its own argument checks.  A freed datatype's handle may be reused for
 * another type, so MPI_Type_free (wrapped below) bumps a generation and an
 * entry from an older generation is not trusted. */
static uint64_t type_generation;
static PROF_TLS MPI_Datatype cache_type = MPI_DATATYPE_NULL;
static PROF_TLS int cache_type_size;
static PROF_TLS uint64_t cache_type_generation;

static inline int type_size(MPI_Datatype type)
{
    uint64_t gen = __atomic_load_n(&type_generation, __ATOMIC_ACQUIRE);
    if (type == cache_type && type != MPI_DATATYPE_NULL && cache_type_generation == gen)
        return cache_type_size;
    int tsize = 0;
    if (PMPI_Type_size(type, &tsize) != MPI_SUCCESS || tsize == MPI_UNDEFINED || tsize < 0)
        return 0; /* not cached: an invalid type is the library's error to report */
    cache_type = type;
    cache_type_size = tsize;
    cache_type_generation = gen;
    return tsize;
}

int MPI_Type_free(MPI_Datatype *type)
{
    __atomic_fetch_add(&type_generation, 1, __ATOMIC_ACQ_REL);
    return PMPI_Type_free(type);
}

/* One message of count elements of type to rank dest of comm. */
static inline void record(MPI_Comm comm, int dest, MPI_Count count, MPI_Datatype type)
{
    if (!prof_active || dest < 0) /* MPI_PROC_NULL and invalid ranks */
        return;
    int w = to_world(comm, dest);
    if (w < 0 || w == MPI_UNDEFINED || w >= prof_world_size) {
        bump(&prof_external, 1);
        return;
    }
    if (w == prof_world_rank) {
        bump(&prof_self, 1);
        return;
    }
    int tsize = type_size(type);
    uint64_t bytes = count > 0 ? (uint64_t) count * (uint64_t) tsize : 0;
    bump(&prof_count[w], 1);
    bump(&prof_bytes[w], bytes);
    bump(&prof_hist[hist_bin(bytes)], 1);
}

/* ---- all-to-all groups (profile.h) ------------------------------------------ */

static group_entry *prof_groups;

/* MPI_Alltoall of count elements of type to each member of comm. */
static void record_alltoall(MPI_Comm comm, MPI_Count count, MPI_Datatype type)
{
    int me = -1, n = 0, inter = 0;
    if (!prof_active || comm == MPI_COMM_WORLD || comm == MPI_COMM_NULL)
        return;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter ||
        PMPI_Comm_rank(comm, &me) != MPI_SUCCESS || me != 0 || PMPI_Comm_size(comm, &n) != MPI_SUCCESS ||
        n < 2)
        return;
    int *w = malloc((size_t) n * sizeof(int));
    if (!w)
        return;
    for (int r = 0; r < n; r++) {
        w[r] = to_world(comm, r);
        if (w[r] < 0 || w[r] == MPI_UNDEFINED || w[r] >= prof_world_size) {
            free(w);
            return;
        }
    }
    const uint64_t msg = count > 0 ? (uint64_t) count * (uint64_t) type_size(type) : 0;
    const uint64_t bytes = msg * (uint64_t) (n - 1);
    /* the size histogram: every member sends one such message to each other */
    bump(&prof_hist[hist_bin(msg)], (uint64_t) n * (uint64_t) (n - 1));
    pthread_mutex_lock(&prof_lock);
    group_entry **at = &prof_groups, *e;
    while ((e = *at) && !(e->n == n && !memcmp(e->world, w, (size_t) n * sizeof(int))))
        at = &e->next;
    if (!e && (e = malloc(sizeof(group_entry) + (size_t) n * sizeof(int)))) {
        e->calls = e->bytes = 0;
        e->n = n;
        memcpy(e->world, w, (size_t) n * sizeof(int));
        e->next = NULL;
        *at = e; /* in the order of first use */
    }
    if (e) {
        e->calls++;
        e->bytes += bytes;
    }
    pthread_mutex_unlock(&prof_lock);
    free(w);
}

/* ---- persistent send requests: request -> (comm, dest, count, type) ------- */

typedef struct req_entry {
    uint64_t key;
    MPI_Comm comm;
    int dest;
    MPI_Count count;
    MPI_Datatype type;
    struct req_entry *next;
} req_entry;

#define REQ_BUCKETS 1024
static req_entry *req_table[REQ_BUCKETS];

static inline uint64_t req_key(MPI_Request r)
{
    uint64_t k = 0;
    memcpy(&k, &r, sizeof(r) < sizeof(k) ? sizeof(r) : sizeof(k));
    return k;
}

static inline unsigned req_bucket(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (unsigned) (k % REQ_BUCKETS);
}

static void req_add(MPI_Request r, MPI_Comm comm, int dest, MPI_Count count, MPI_Datatype type)
{
    if (!prof_active || r == MPI_REQUEST_NULL)
        return;
    req_entry *e = malloc(sizeof(*e));
    if (!e)
        return; /* this request's starts go uncounted */
    e->key = req_key(r);
    e->comm = comm;
    e->dest = dest;
    e->count = count;
    e->type = type;
    unsigned b = req_bucket(e->key);
    pthread_mutex_lock(&prof_lock);
    e->next = req_table[b];
    req_table[b] = e;
    pthread_mutex_unlock(&prof_lock);
}

/* Counts one start of r if it is a persistent send. */
static void req_start(MPI_Request r)
{
    if (!prof_active || r == MPI_REQUEST_NULL)
        return;
    uint64_t k = req_key(r);
    int found = 0, dest = 0;
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Count count = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    pthread_mutex_lock(&prof_lock);
    for (req_entry *e = req_table[req_bucket(k)]; e; e = e->next)
        if (e->key == k) {
            found = 1;
            comm = e->comm;
            dest = e->dest;
            count = e->count;
            type = e->type;
            break;
        }
    pthread_mutex_unlock(&prof_lock);
    if (found)
        record(comm, dest, count, type);
}

static void req_remove(MPI_Request r)
{
    if (r == MPI_REQUEST_NULL)
        return;
    uint64_t k = req_key(r);
    req_entry *gone = NULL;
    pthread_mutex_lock(&prof_lock);
    for (req_entry **p = &req_table[req_bucket(k)]; *p; p = &(*p)->next)
        if ((*p)->key == k) {
            gone = *p;
            *p = gone->next;
            break;
        }
    pthread_mutex_unlock(&prof_lock);
    free(gone);
}

/* ---- MPI_Init / MPI_Finalize ------------------------------------------------ */

static void prof_start(void)
{
    int provided = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&provided);
    prof_threaded = provided == MPI_THREAD_MULTIPLE;
    PMPI_Comm_size(MPI_COMM_WORLD, &prof_world_size);
    PMPI_Comm_rank(MPI_COMM_WORLD, &prof_world_rank);
    prof_count = calloc((size_t) prof_world_size, sizeof(uint64_t));
    prof_bytes = calloc((size_t) prof_world_size, sizeof(uint64_t));
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, table_delete, &prof_keyval, NULL) !=
            MPI_SUCCESS)
        prof_keyval = MPI_KEYVAL_INVALID;
    if (!prof_count || !prof_bytes || prof_keyval == MPI_KEYVAL_INVALID) {
        /* every rank must still take part in the gather at MPI_Finalize */
        if (prof_world_rank == 0)
            fprintf(stderr, PROF_NAME ": warning: cannot set up the counters; "
                            "the profile will be empty\n");
        free(prof_count);
        free(prof_bytes);
        prof_count = prof_bytes = NULL;
        return;
    }
    prof_t0 = PMPI_Wtime();
    prof_active = 1;
}

/* preloaded into a program of another MPI and could not take itself out
 * (chain.h): nothing is counted (prof_active and prof_world_size stay 0) */
static int prof_foreign;

__attribute__((constructor)) static void prof_check_flavour(int argc, char **argv)
{
    prof_foreign = !chain_flavour_ok((void *) prof_check_flavour, argc, argv);
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = chain_init(argc, argv, (void *) MPI_Init);
    if (rc == MPI_SUCCESS && !prof_foreign)
        prof_start();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = chain_init_thread(argc, argv, required, provided, (void *) MPI_Init_thread);
    if (rc == MPI_SUCCESS && !prof_foreign)
        prof_start();
    return rc;
}

int MPI_Finalize(void)
{
    int finalized = 0;
    PMPI_Finalized(&finalized);
    if (!finalized && prof_world_size > 0) {
        prof_active = 0;
        const prof_counts c = { prof_world_size, prof_world_rank, prof_count, prof_bytes, prof_hist,
                                prof_self, prof_external, PMPI_Wtime() - prof_t0, prof_groups };
        prof_gather_and_write(&c);
        free(prof_count);
        free(prof_bytes);
        prof_count = prof_bytes = NULL;
        pthread_mutex_lock(&prof_lock);
        while (prof_groups) {
            group_entry *e = prof_groups;
            prof_groups = e->next;
            free(e);
        }
        for (int b = 0; b < REQ_BUCKETS; b++)
            while (req_table[b]) {
                req_entry *e = req_table[b];
                req_table[b] = e->next;
                free(e);
            }
        pthread_mutex_unlock(&prof_lock);
    }
    return chain_finalize((void *) MPI_Finalize);
}

/* ---- the intercepted sends -------------------------------------------------- */

/* The sends the reorder plugin also wraps (its safety net counts them, see
 * safety.c) go to the next definition in the lookup order (chain.h's rule),
 * found once, so either library may come first in LD_PRELOAD; without a
 * next definition (static links) to PMPI_. */
typedef chain_fn prof_fn;
#define prof_next chain_next_fn
#define PROF_NEXT(NAME)                                                                      \
    ((__typeof__(&PMPI_##NAME)) prof_next(&prof_next_##NAME, "MPI_" #NAME,                   \
                                          (prof_fn) PMPI_##NAME, (prof_fn) MPI_##NAME))

#define BLOCKING(NAME)                                                                      \
    static prof_fn prof_next_##NAME;                                                         \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag,       \
                   MPI_Comm comm)                                                          \
    {                                                                                      \
        record(comm, dest, count, type);                                                   \
        return PROF_NEXT(NAME)(buf, count, type, dest, tag, comm);                         \
    }
#define NONBLOCKING(NAME)                                                                   \
    static prof_fn prof_next_##NAME;                                                         \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag,       \
                   MPI_Comm comm, MPI_Request *req)                                        \
    {                                                                                      \
        record(comm, dest, count, type);                                                   \
        return PROF_NEXT(NAME)(buf, count, type, dest, tag, comm, req);                    \
    }
#define PERSISTENT(NAME)                                                                    \
    static prof_fn prof_next_##NAME;                                                         \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag,       \
                   MPI_Comm comm, MPI_Request *req)                                        \
    {                                                                                      \
        int rc_ = PROF_NEXT(NAME)(buf, count, type, dest, tag, comm, req);                 \
        if (rc_ == MPI_SUCCESS)                                                            \
            req_add(*req, comm, dest, count, type);                                        \
        return rc_;                                                                        \
    }

BLOCKING(Send)
BLOCKING(Bsend)
BLOCKING(Ssend)
BLOCKING(Rsend)
NONBLOCKING(Isend)
NONBLOCKING(Ibsend)
NONBLOCKING(Issend)
NONBLOCKING(Irsend)
PERSISTENT(Send_init)
PERSISTENT(Bsend_init)
PERSISTENT(Ssend_init)
PERSISTENT(Rsend_init)

int MPI_Start(MPI_Request *req)
{
    req_start(*req);
    return PMPI_Start(req);
}

int MPI_Startall(int n, MPI_Request reqs[])
{
    for (int i = 0; i < n; i++)
        req_start(reqs[i]);
    return PMPI_Startall(n, reqs);
}

int MPI_Request_free(MPI_Request *req)
{
    MPI_Request r = *req;
    int rc = PMPI_Request_free(req);
    if (rc == MPI_SUCCESS)
        req_remove(r);
    return rc;
}

static prof_fn prof_next_Sendrecv, prof_next_Sendrecv_replace;

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
                 int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                 MPI_Status *status)
{
    record(comm, dest, scount, stype);
    return PROF_NEXT(Sendrecv)(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                               comm, status);
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag, int source,
                         int rtag, MPI_Comm comm, MPI_Status *status)
{
    record(comm, dest, count, type);
    return PROF_NEXT(Sendrecv_replace)(buf, count, type, dest, stag, source, rtag, comm, status);
}

/* all-to-all on a sub-communicator: a group of the profile (MPI_IN_PLACE:
 * the receive arguments say what each member sends) */
static prof_fn prof_next_Alltoall, prof_next_Ialltoall;

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm)
{
    if (sbuf == MPI_IN_PLACE)
        record_alltoall(comm, rcount, rtype);
    else
        record_alltoall(comm, scount, stype);
    return PROF_NEXT(Alltoall)(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

int MPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    if (sbuf == MPI_IN_PLACE)
        record_alltoall(comm, rcount, rtype);
    else
        record_alltoall(comm, scount, stype);
    return PROF_NEXT(Ialltoall)(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
}

#if MPI_VERSION >= 4
/* MPI-4: large counts and non-blocking sendrecv */
#define BLOCKING_C(NAME)                                                                    \
    int MPI_##NAME##_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest,      \
                       int tag, MPI_Comm comm)                                             \
    {                                                                                      \
        record(comm, dest, count, type);                                                   \
        return PMPI_##NAME##_c(buf, count, type, dest, tag, comm);                         \
    }
#define NONBLOCKING_C(NAME)                                                                 \
    int MPI_##NAME##_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest,      \
                       int tag, MPI_Comm comm, MPI_Request *req)                           \
    {                                                                                      \
        record(comm, dest, count, type);                                                   \
        return PMPI_##NAME##_c(buf, count, type, dest, tag, comm, req);                    \
    }
#define PERSISTENT_C(NAME)                                                                  \
    int MPI_##NAME##_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest,      \
                       int tag, MPI_Comm comm, MPI_Request *req)                           \
    {                                                                                      \
        int rc_ = PMPI_##NAME##_c(buf, count, type, dest, tag, comm, req);                 \
        if (rc_ == MPI_SUCCESS)                                                            \
            req_add(*req, comm, dest, count, type);                                        \
        return rc_;                                                                        \
    }
BLOCKING_C(Send)
BLOCKING_C(Bsend)
BLOCKING_C(Ssend)
BLOCKING_C(Rsend)
NONBLOCKING_C(Isend)
NONBLOCKING_C(Ibsend)
NONBLOCKING_C(Issend)
NONBLOCKING_C(Irsend)
PERSISTENT_C(Send_init)
PERSISTENT_C(Bsend_init)
PERSISTENT_C(Ssend_init)
PERSISTENT_C(Rsend_init)

int MPI_Sendrecv_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag,
                   void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int source, int rtag,
                   MPI_Comm comm, MPI_Status *status)
{
    record(comm, dest, scount, stype);
    return PMPI_Sendrecv_c(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                           comm, status);
}

int MPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype type, int dest, int stag,
                           int source, int rtag, MPI_Comm comm, MPI_Status *status)
{
    record(comm, dest, count, type);
    return PMPI_Sendrecv_replace_c(buf, count, type, dest, stag, source, rtag, comm, status);
}

int MPI_Isendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
                  int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                  MPI_Request *req)
{
    record(comm, dest, scount, stype);
    return PMPI_Isendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm,
                          req);
}

int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag, int source,
                          int rtag, MPI_Comm comm, MPI_Request *req)
{
    record(comm, dest, count, type);
    return PMPI_Isendrecv_replace(buf, count, type, dest, stag, source, rtag, comm, req);
}
#endif

/*
 * watchdog.c -- after a reorder that moved ranks, one thread per process
 * that makes no MPI call watches for a hang (MPIR_CVAR_RANKMAP_WATCHDOG,
 * doc/compatibility.md#the-watchdog).  It wakes every second (four times a
 * second below 4 s) and fires once when the process has been inside a
 * watched call -- point-to-point, completion, collective -- with no watched
 * call completing for the limit: one line from that rank naming the call,
 * the reorder and the ways out; with MPIR_CVAR_RANKMAP_WATCHDOG_ACTION=abort
 * it also marks the program unsafe and ends the process, so the launcher
 * ends the job instead of a batch time limit.  A process computing outside
 * MPI, or polling with MPI_Test, is never flagged.  Cost per watched call:
 * two atomic counter updates and two stores.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "mpilayer/layer.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static int wd_inside;            /* threads inside a watched call */
static unsigned long wd_done;    /* watched calls completed */
static const char *wd_call = ""; /* the last watched call entered, and its communicator */
static rml_comm wd_comm;
static pthread_t wd_thread;
static int wd_started, wd_stop;
static pthread_mutex_t wd_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wd_cv;
/* the last reorder that moved ranks */
static const char *last_call = "";
static int last_moved, last_size;

void rml_watchdog_reorder(const char *call, int moved, int size)
{
    last_call = call;
    last_moved = moved;
    last_size = size;
}

void rml_watchdog_enter(rml_comm c, const char *call)
{
    __atomic_add_fetch(&wd_inside, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&wd_call, call, __ATOMIC_RELAXED);
    __atomic_store_n(&wd_comm, c, __ATOMIC_RELAXED);
}

void rml_watchdog_leave(void)
{
    __atomic_add_fetch(&wd_done, 1, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&wd_inside, 1, __ATOMIC_RELAXED);
}

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
    rml_comm c = __atomic_load_n(&wd_comm, __ATOMIC_RELAXED);
    int wait = rml_call_kind(call) == RML_CALL_WAIT;
    rml_ways_out(last_call, out, sizeof(out));
    snprintf(line, sizeof(line),
             "rank %d has waited %.0f s in %s%s%s with no MPI call completing, after %s "
             "reordered %d of %d ranks: a program that uses those ranks on another "
             "communicator (or its old ranks on the new one) hangs like this. %s; a legitimately "
             "long wait: raise MPIR_CVAR_RANKMAP_WATCHDOG",
             rml.world_rank, waited, call, wait ? "" : " on ",
             wait ? "" : rml_comm_name(c, cn, sizeof(cn)), last_call, last_moved, last_size, out);
    /* only a hang declared fatal marks the program: a warning may be a long wait */
    rml_diagnose(line, rml_int(RML_S_WATCHDOG_ACTION) == 1, 1);
}

static void *watchdog_main(void *arg)
{
    (void) arg;
    double limit = (double) rml_int(RML_S_WATCHDOG), tick = limit < 4 ? 0.25 : 1.0;
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

void rml_watchdog_start(void)
{
    pthread_condattr_t ca;
    if (wd_started || rml_int(RML_S_WATCHDOG) <= 0)
        return;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&wd_cv, &ca);
    pthread_condattr_destroy(&ca);
    wd_stop = 0;
    if (pthread_create(&wd_thread, NULL, watchdog_main, NULL) == 0)
        wd_started = 1;
    else if (rml.world_rank == 0)
        rml_say("warning: cannot start the watchdog thread; MPIR_CVAR_RANKMAP_WATCHDOG is off");
}

void rml_watchdog_stop(void)
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
    __atomic_store_n(&wd_inside, 0, __ATOMIC_RELAXED);
}

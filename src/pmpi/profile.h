/*
 * profile.h -- what the profiler's counting half (profile.c) hands its
 * writing half (profile_write.c) at MPI_Finalize.  Internal to
 * librankmap-profile; the functions are hidden from the program.
 */
#ifndef RANKMAP_PMPI_PROFILE_H
#define RANKMAP_PMPI_PROFILE_H

#include <stdint.h>

#define PROF_NAME "rankmap-profile"
#define PROF_HIST 65 /* K = 0 .. 64 */

/* One entry per distinct member list this rank recorded as rank 0 of a
 * communicator; a linear list (a program has a few such communicators). */
typedef struct group_entry {
    uint64_t calls, bytes;
    int n;
    struct group_entry *next;
    int world[]; /* members as world ranks, communicator rank order */
} group_entry;

/* This process's counters. */
typedef struct prof_counts {
    int world_size, world_rank;
    const uint64_t *count; /* [world_size] messages to each world rank, or NULL */
    const uint64_t *bytes; /* [world_size] bytes to each world rank */
    const uint64_t *hist;  /* [PROF_HIST] message sizes */
    uint64_t self;         /* messages to oneself (not a pair) */
    uint64_t external;     /* messages to processes outside MPI_COMM_WORLD */
    double seconds;        /* since MPI_Init */
    const group_entry *groups;
} prof_counts;

/* All ranks of MPI_COMM_WORLD: gathers the counters on rank 0, which writes
 * the profile ($RANKMAP_PROFILE, default rankmap.prof). */
__attribute__((visibility("hidden"))) void prof_gather_and_write(const prof_counts *c);

#endif

/*
 * profile_write.c -- the profiler's MPI_Finalize half: every rank's row of
 * counters and its all-to-all groups are gathered on rank 0, which writes
 * the "rankmap-profile 1" file (format: profile.c) through a temporary file
 * and rename(), so a reader never sees half a file.
 * Cost: one reduce of the size histogram, two gathers of counts and two
 * gathervs (3 words per pair a rank sends to, 3 + k words per group).
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pmpi/profile.h"

static const char *profile_path(void)
{
    const char *p = getenv("RANKMAP_PROFILE");
    return p && *p ? p : "rankmap.prof";
}

/* The header lines: format, tasks and the meta records. */
static void write_header(FILE *f, int world_size, const uint64_t *rows, const int *nrows, uint64_t self,
                         uint64_t external, double seconds)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int liblen = 0;
    PMPI_Get_library_version(lib, &liblen);
    lib[strcspn(lib, "\r\n")] = '\0';
    char date[64] = "";
    time_t now = time(NULL);
    struct tm tmv;
    if (gmtime_r(&now, &tmv))
        strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tmv);

    uint64_t messages = 0, bytes = 0, pairs = 0;
    for (int r = 0, i = 0; r < world_size; r++)
        for (int k = 0; k < nrows[r]; k++, i++) {
            pairs++;
            messages += rows[3 * i + 1];
            bytes += rows[3 * i + 2];
        }
    fprintf(f, "rankmap-profile 1\n");
    fprintf(f, "# point-to-point traffic between MPI_COMM_WORLD ranks, counted at the sender\n");
    fprintf(f, "# by librankmap-profile; all-to-all groups of MPI_Alltoall on sub-communicators\n");
    fprintf(f, "tasks %d\n", world_size);
    fprintf(f, "meta mpi %s\n", lib[0] ? lib : "unknown");
    fprintf(f, "meta date %s\n", date[0] ? date : "unknown");
    fprintf(f, "meta seconds %.6f\n", seconds);
    fprintf(f, "meta pairs %llu\n", (unsigned long long) pairs);
    fprintf(f, "meta messages %llu\n", (unsigned long long) messages);
    fprintf(f, "meta bytes %llu\n", (unsigned long long) bytes);
    fprintf(f, "meta self_messages %llu\n", (unsigned long long) self);
    fprintf(f, "meta external_messages %llu\n", (unsigned long long) external);
}

/* Rank 0: writes the gathered triples (src, dst, count, bytes) and the
 * all-to-all groups (ngrp words: n, calls, bytes, n members, ...)
 * atomically. */
static void write_profile(int world_size, const uint64_t *rows, const int *nrows, const uint64_t *hist,
                          uint64_t self, uint64_t external, double seconds, const uint64_t *grp,
                          long long ngrp)
{
    const char *path = profile_path();
    size_t len = strlen(path) + 64;
    char *tmp = malloc(len);
    if (!tmp) {
        fprintf(stderr, PROF_NAME ": cannot write %s: out of memory\n", path);
        return;
    }
    snprintf(tmp, len, "%s.tmp.%ld", path, (long) getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, PROF_NAME ": cannot write RANKMAP_PROFILE=%s: %s: %s\n", path, tmp,
                strerror(errno));
        free(tmp);
        return;
    }
    write_header(f, world_size, rows, nrows, self, external, seconds);
    for (int k = 0; k < PROF_HIST; k++)
        if (hist[k])
            fprintf(f, "histogram %d %llu\n", k, (unsigned long long) hist[k]);
    for (int r = 0, i = 0; r < world_size; r++)
        for (int k = 0; k < nrows[r]; k++, i++)
            fprintf(f, "pair %d %llu %llu %llu\n", r, (unsigned long long) rows[3 * i],
                    (unsigned long long) rows[3 * i + 1], (unsigned long long) rows[3 * i + 2]);
    for (long long i = 0; grp && i + 3 <= ngrp;) {
        long long n = (long long) grp[i];
        if (i + 3 + n > ngrp)
            break;
        fprintf(f, "alltoall %llu %llu", (unsigned long long) grp[i + 1], (unsigned long long) grp[i + 2]);
        for (long long k = 0; k < n; k++)
            fprintf(f, " %llu", (unsigned long long) grp[i + 3 + k]);
        fputc('\n', f);
        i += 3 + n;
    }
    int bad = ferror(f);
    if (fclose(f) != 0)
        bad = 1;
    if (bad || rename(tmp, path) != 0) {
        fprintf(stderr, PROF_NAME ": cannot write RANKMAP_PROFILE=%s: %s\n", path,
                strerror(errno ? errno : EIO));
        unlink(tmp);
    }
    free(tmp);
}

/* This rank's row, compacted to *m (dst, count, bytes) triples (*m = 0
 * without counters or memory). */
static uint64_t *compact_row(const prof_counts *c, int *m)
{
    *m = 0;
    for (int w = 0; c->count && w < c->world_size; w++)
        if (c->count[w])
            ++*m;
    uint64_t *mine = malloc((size_t) (3 * *m + 3) * sizeof(uint64_t));
    if (!mine)
        *m = 0;
    for (int w = 0, i = 0; mine && c->count && w < c->world_size; w++)
        if (c->count[w]) {
            mine[3 * i] = (uint64_t) w;
            mine[3 * i + 1] = c->count[w];
            mine[3 * i + 2] = c->bytes[w];
            i++;
        }
    return mine;
}

/* The groups as words (n, calls, bytes, n members, ...); *gw of them (0
 * without memory or beyond an int's count). */
static uint64_t *pack_groups(const group_entry *groups, long long *gw)
{
    *gw = 0;
    for (const group_entry *e = groups; e; e = e->next)
        *gw += 3 + e->n;
    uint64_t *gmine = malloc((size_t) (*gw + 1) * sizeof(uint64_t));
    if (!gmine || *gw > 2147483647LL)
        *gw = 0;
    long long at = 0;
    for (const group_entry *e = groups; *gw && e; e = e->next) {
        gmine[at++] = (uint64_t) e->n;
        gmine[at++] = e->calls;
        gmine[at++] = e->bytes;
        for (int k = 0; k < e->n; k++)
            gmine[at++] = (uint64_t) e->world[k];
    }
    return gmine;
}

/* Collective: every rank's CNT words of MINE end on rank 0 in the buffer
 * returned (NULL elsewhere) at displs[r], counts[r] words from rank r, and
 * *total words in all.  COUNTS and DISPLS are rank 0's (NULL: out of
 * memory).  If rank 0 has no room the others still send: it receives
 * nothing and *ok becomes 0.  ROWS (may be NULL): rank 0 stores the row
 * count counts[r] / 3 of every rank there. */
static uint64_t *gather_words(const uint64_t *mine, int cnt, int me, int n, int *counts, int *displs,
                              int *rows, long long *total, int *ok)
{
    uint64_t *all = NULL;
    *total = 0;
    PMPI_Gather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (me == 0 && *ok) {
        for (int r = 0; r < n; r++) {
            displs[r] = (int) *total;
            if (rows)
                rows[r] = counts[r] / 3;
            *total += counts[r];
        }
        all = *total < 2147483647LL ? malloc((size_t) (*total + 1) * sizeof(uint64_t)) : NULL;
        *ok = all != NULL;
    }
    if (me == 0 && !*ok) {
        int *zero = calloc((size_t) n, sizeof(int));
        PMPI_Gatherv(mine, cnt, MPI_UINT64_T, NULL, zero, zero, MPI_UINT64_T, 0, MPI_COMM_WORLD);
        free(zero);
        *total = 0;
    } else {
        PMPI_Gatherv(mine, cnt, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    }
    return all;
}

void prof_gather_and_write(const prof_counts *c)
{
    int n = c->world_size, me = c->world_rank, m;
    uint64_t *mine = compact_row(c, &m);
    uint64_t local[PROF_HIST + 2], total[PROF_HIST + 2];
    memcpy(local, c->hist, PROF_HIST * sizeof(uint64_t));
    local[PROF_HIST] = c->self;
    local[PROF_HIST + 1] = c->external;
    PMPI_Reduce(local, total, PROF_HIST + 2, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);

    int *nrows = NULL, *counts = NULL, *displs = NULL;
    int ok = 1;
    if (me == 0) {
        nrows = malloc((size_t) n * sizeof(int));
        counts = malloc((size_t) n * sizeof(int));
        displs = malloc((size_t) n * sizeof(int));
        ok = nrows && counts && displs;
    }
    long long all, gall;
    uint64_t *rows = gather_words(mine, 3 * m, me, n, counts, displs, nrows, &all, &ok);
    if (me == 0 && !ok)
        fprintf(stderr, PROF_NAME ": out of memory gathering the profile; not written\n");
    /* the all-to-all groups each rank recorded as rank 0 of a communicator */
    long long gw;
    uint64_t *gmine = pack_groups(c->groups, &gw);
    int gok = me != 0 || (counts && displs);
    uint64_t *grp = gather_words(gmine, (int) gw, me, n, counts, displs, NULL, &gall, &gok);
    if (me == 0 && ok)
        write_profile(n, rows, nrows, total, total[PROF_HIST], total[PROF_HIST + 1], c->seconds, grp, gall);
    free(gmine);
    free(grp);
    free(mine);
    free(rows);
    free(nrows);
    free(counts);
    free(displs);
}

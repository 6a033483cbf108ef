/*
 * incall.c -- the mapping step inside an MPI call, measured in SimGrid SMPI
 * (bench/simgrid/incall.py).  Linked with the PMPI plugin's SMPI object,
 * every rank calls MPI_Graph_map on MPI_COMM_WORLD; the plugin runs the
 * portfolio (MPIR_CVAR_RANKMAP_PORTFOLIO ranks map with their own seeds,
 * include/rankmap_glue.h) and hands every rank its new rank.  SMPI runs each
 * rank's computation for real and replays it as simulated time, so the
 * call's simulated time is the time the job would wait.
 *
 *   incall GRAPH
 *     GRAPH  an edge list "src dst weight" (# comments), one task per rank,
 *            integer weights: an edge of weight w is given w times
 *            (MPI_Graph_map carries no weights; the plugin sums repeated
 *            edges back into the weight)
 *
 * Rank 0 prints "incall ranks P seconds T order H": T the longest simulated
 * time of the call over the ranks, H a hash of every rank's new rank (equal
 * hashes, equal permutations).  SMPI runs every rank in one address space:
 * rank 0 reads the graph once and the others are handed its arrays (they are
 * not read by the plugin on other ranks, as MPI_Graph_map's arguments are the
 * same everywhere).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *msg, const char *path, long line)
{
    fprintf(stderr, "incall: %s: %s (line %ld)\n", path, msg, line);
    return -1;
}

/* Reads GRAPH into MPI_Graph_map's index and edges arrays for n tasks. */
static int read_graph(const char *path, int n, int **index_out, int **edges_out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return fail("cannot open", path, 0);
    long cap = 1024, m = 0, line = 0;
    int *src = malloc(cap * sizeof(int)), *dst = malloc(cap * sizeof(int));
    long *w = malloc(cap * sizeof(long));
    char buf[256];
    int rc = 0;
    while (fgets(buf, sizeof buf, f)) {
        line++;
        if (buf[0] == '#' || buf[0] == '\n')
            continue;
        long s, d, x;
        if (sscanf(buf, "%ld %ld %ld", &s, &d, &x) != 3 || s < 0 || s >= n || d < 0 || d >= n ||
            x < 1 || x > 1000) {
            rc = fail("expected 'src dst weight' with tasks below the ranks and weights 1..1000",
                      path, line);
            break;
        }
        if (m == cap) {
            cap *= 2;
            src = realloc(src, cap * sizeof(int));
            dst = realloc(dst, cap * sizeof(int));
            w = realloc(w, cap * sizeof(long));
        }
        src[m] = (int) s;
        dst[m] = (int) d;
        w[m++] = x;
    }
    fclose(f);
    int *index = calloc((size_t) n, sizeof(int)), *edges = NULL;
    long total = 0;
    for (long e = 0; rc == 0 && e < m; e++) {
        index[src[e]] += (int) w[e];
        total += w[e];
    }
    if (rc == 0 && total > 0x7fffffffL)
        rc = fail("more edges than an int counts", path, line);
    if (rc == 0) {
        edges = malloc((size_t) (total + 1) * sizeof(int));
        for (int v = 1; v < n; v++)
            index[v] += index[v - 1];
        int *fill = calloc((size_t) n, sizeof(int));
        for (long e = 0; e < m; e++) {
            int start = src[e] ? index[src[e] - 1] : 0;
            for (long k = 0; k < w[e]; k++)
                edges[start + fill[src[e]]++] = dst[e];
        }
        free(fill);
    }
    free(src);
    free(dst);
    free(w);
    *index_out = index;
    *edges_out = edges;
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    uint64_t shared[3] = { 0, 0, 0 };   /* status, index, edges */
    if (rank == 0) {
        int *index = NULL, *edges = NULL;
        if (argc != 2) {
            fprintf(stderr, "usage: incall GRAPH\n");
            shared[0] = 1;
        } else if (read_graph(argv[1], size, &index, &edges) != 0) {
            shared[0] = 1;
        }
        shared[1] = (uint64_t) (uintptr_t) index;
        shared[2] = (uint64_t) (uintptr_t) edges;
    }
    MPI_Bcast(shared, 3, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (shared[0]) {
        MPI_Finalize();
        return 1;
    }
    const int *index = (const int *) (uintptr_t) shared[1];
    const int *edges = (const int *) (uintptr_t) shared[2];

    int newrank = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &newrank);
    double t = MPI_Wtime() - t0, tmax = 0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    /* every new rank exactly once, and a hash of the permutation */
    int *all = rank == 0 ? malloc((size_t) size * sizeof(int)) : NULL;
    MPI_Gather(&newrank, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int ok = 1;
    if (rank == 0) {
        char *seen = calloc((size_t) size, 1);
        uint64_t h = 1469598103934665603ULL;
        for (int r = 0; r < size; r++) {
            if (all[r] < 0 || all[r] >= size || seen[all[r]]++)
                ok = 0;
            h = (h ^ (uint64_t) all[r]) * 1099511628211ULL;
        }
        printf("incall ranks %d seconds %.6f order %016llx %s\n", size, tmax,
               (unsigned long long) h, ok ? "PASS" : "FAIL (not a permutation)");
        free(seen);
        free(all);
        free((void *) index);
        free((void *) edges);
    }
    MPI_Finalize();
    return ok ? 0 : 1;
}

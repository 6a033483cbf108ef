/*
 * graph_reorder.c -- MPI_Graph_create(reorder=1) and MPI_Graph_map on the
 * patched MPICH, with the neighbour graph of a periodic grid given as a
 * general graph (the mapper does not see the Cartesian structure).
 *
 *   graph_reorder DIMS MAXDIST
 *
 * Checks: ranks moved, MPI_Graph_map agrees with MPI_Graph_create,
 * MPI_Graph_neighbors of the new rank are the grid neighbours of that
 * vertex, no neighbour pair is more than MAXDIST apart on the machine, and
 * F dropped.
 */
#include "mpi_check.h"
#include <mpix_rankmap.h>

#define MAXD 6

static int nd, dims[MAXD];

static int grid_neighbours(int v, int *out)
{
    return grid_neighbours_of(nd, dims, v, out);
}

int main(int argc, char **argv)
{
    int wrank, wsize;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (argc != 3 || !(nd = parse_dims(argv[1], dims, MAXD))) {
        if (wrank == 0)
            fprintf(stderr, "usage: graph_reorder DIMS MAXDIST\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double maxdist = atof(argv[2]);
    int n = 1;
    for (int d = 0; d < nd; d++)
        n *= dims[d];
    int *index = malloc(n * sizeof(int)), *edges = malloc(n * 2 * nd * sizeof(int));
    for (int v = 0, e = 0; v < n; v++) {
        e += grid_neighbours(v, edges + e);
        index[v] = e;
    }
    MPI_Comm graph;
    MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 1, &graph);
    MPIX_Rankmap_report rep;
    MPIX_Rankmap_last_report(&rep);
    int mapped;
    MPI_Graph_map(MPI_COMM_WORLD, n, index, edges, &mapped);
    if (graph == MPI_COMM_NULL) {
        CHECK(mapped == MPI_UNDEFINED, "outside the graph but Graph_map gave %d", mapped);
        return finish("graph_reorder");
    }
    int rank, moved, any_moved;
    MPI_Comm_rank(graph, &rank);
    CHECK(mapped == rank, "MPI_Graph_map gave %d, MPI_Graph_create %d", mapped, rank);
    moved = rank != wrank;
    MPI_Allreduce(&moved, &any_moved, 1, MPI_INT, MPI_LOR, graph);
    CHECK(any_moved, "reorder=1 kept every rank");

    int want[2 * MAXD], got[2 * MAXD], cnt;
    int k = grid_neighbours(rank, want);
    MPI_Graph_neighbors_count(graph, rank, &cnt);
    CHECK(cnt == k, "Graph_neighbors_count %d, expected %d", cnt, k);
    MPI_Graph_neighbors(graph, rank, 2 * MAXD, got);
    double worst = 0;
    for (int i = 0; i < k && i < cnt; i++) {
        CHECK(got[i] == want[i], "neighbour %d of %d is %d, expected %d", i, rank, got[i], want[i]);
        double dist = -1;
        MPIX_Rankmap_distance(wrank, world_rank_of(graph, got[i]), &dist);
        if (dist > worst)
            worst = dist;
    }
    double all_worst;
    MPI_Allreduce(&worst, &all_worst, 1, MPI_DOUBLE, MPI_MAX, graph);
    CHECK(all_worst <= maxdist, "a neighbour pair is %g apart (allowed %g)", all_worst, maxdist);
    if (wrank == 0) {
        CHECK(rep.valid, "rank 0 has no mapper report");
        if (rep.valid) {
            printf("graph_reorder %s: F %g -> %g (F_min %g), %s, %.2f ms, worst distance %g\n",
                   argv[1], rep.F_before, rep.F_after, rep.F_min, rep.algorithm,
                   1e3 * rep.map_seconds, all_worst);
            CHECK(rep.F_after < rep.F_before, "F did not drop: %g -> %g", rep.F_before,
                  rep.F_after);
        }
    }
    MPI_Comm_free(&graph);
    free(index);
    free(edges);
    return finish("graph_reorder");
}

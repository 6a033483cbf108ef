/*
 * dist_graph_reorder.c -- MPI_Dist_graph_create(_adjacent) with reorder=1 on
 * the patched MPICH.
 *
 *   dist_graph_reorder adjacent DIMS   periodic grid, adjacent form
 *   dist_graph_reorder general DIMS    the same graph, but rank r names the
 *                                      edges of vertex r+1 (any rank may name
 *                                      any edge)
 *   dist_graph_reorder weighted N      ring of N whose edges weigh 100, plus
 *                                      chords v -- v+17 that weigh 1
 *                                      (adjacent form)
 *
 * The program plays the vertex its new rank names and says so with the info
 * key rankmap_vertices=follow_rank on the call (without it every process
 * keeps the edges it described and the order stays: test/compat/dist_keep.c):
 * the vertices are ranks of the new communicator, the process with new rank
 * v plays vertex v.  Checks: ranks moved and F dropped; MPI_Dist_graph_neighbors
 * returns vertex v's lists (in the given order for the adjacent form);
 * MPI_Neighbor_allgather / _alltoall / _alltoallv / MPI_Ineighbor_alltoallv
 * deliver the right data; weighted: the heavy ring ends up closer than
 * before and than the light chords (the torus cannot make both 1 hop).
 */
#include "mpi_check.h"
#include <mpix_rankmap.h>

#define MAXD 6

static int nd, dims[MAXD];

static int grid_neighbours(int v, int *out)
{
    return grid_neighbours_of(nd, dims, v, out);
}

/* weighted mode: ring neighbours (weight 100), then chords (weight 1) */
#define CHORD 17
static int weighted_lists(int v, int n, int *nb, int *w)
{
    nb[0] = (v + n - 1) % n;
    nb[1] = (v + 1) % n;
    nb[2] = (v + n - CHORD) % n;
    nb[3] = (v + CHORD) % n;
    w[0] = w[1] = 100;
    w[2] = w[3] = 1;
    return 4;
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *) a - *(const int *) b;
}

/* neighbour collectives on comm: data from in-neighbour s to me is
 * s * 1000 + me */
static void check_collectives(MPI_Comm comm, int me, int indeg, const int *in, int outdeg,
                              const int *out)
{
    int *sb = malloc((outdeg + 1) * sizeof(int)), *rb = malloc((indeg + 1) * sizeof(int));
    int *sc = malloc((outdeg + 1) * sizeof(int)), *sd = malloc((outdeg + 1) * sizeof(int));
    int *rc = malloc((indeg + 1) * sizeof(int)), *rd = malloc((indeg + 1) * sizeof(int));
    for (int j = 0; j < outdeg; j++) {
        sb[j] = me * 1000 + out[j];
        sc[j] = 1;
        sd[j] = j;
    }
    for (int j = 0; j < indeg; j++) {
        rc[j] = 1;
        rd[j] = j;
    }
    for (int pass = 0; pass < 3; pass++) {
        for (int j = 0; j < indeg; j++)
            rb[j] = -1;
        const char *what;
        if (pass == 0) {
            what = "Neighbor_alltoall";
            MPI_Neighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, comm);
        } else if (pass == 1) {
            what = "Neighbor_alltoallv";
            MPI_Neighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, comm);
        } else {
            what = "Ineighbor_alltoallv";
            MPI_Request req;
            MPI_Ineighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, comm, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        for (int j = 0; j < indeg; j++)
            CHECK(rb[j] == in[j] * 1000 + me, "%s: slot %d from %d got %d", what, j, in[j], rb[j]);
    }
    MPI_Neighbor_allgather(&me, 1, MPI_INT, rb, 1, MPI_INT, comm);
    for (int j = 0; j < indeg; j++)
        CHECK(rb[j] == in[j], "Neighbor_allgather: slot %d got %d, expected %d", j, rb[j], in[j]);
    free(sb);
    free(rb);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
}

int main(int argc, char **argv)
{
    int wrank, wsize;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    const char *mode = argc == 3 ? argv[1] : "";
    int weighted = !strcmp(mode, "weighted");
    if (weighted) {
        nd = 1;
        dims[0] = atoi(argv[2]);
    } else if (argc != 3 || (strcmp(mode, "adjacent") && strcmp(mode, "general")) ||
               !(nd = parse_dims(argv[2], dims, MAXD))) {
        if (wrank == 0)
            fprintf(stderr, "usage: dist_graph_reorder adjacent|general DIMS | weighted N\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int n = 1;
    for (int d = 0; d < nd; d++)
        n *= dims[d];
    CHECK(n == wsize, "the graph has %d vertices for %d ranks", n, wsize);

    MPI_Comm comm;
    MPI_Info follow;
    MPI_Info_create(&follow);
    MPI_Info_set(follow, "rankmap_vertices", "follow_rank");
    int nb[2 * MAXD], w[2 * MAXD];
    int k = weighted ? weighted_lists(wrank, n, nb, w) : grid_neighbours(wrank, nb);
    if (weighted) {
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, k, nb, w, k, nb, w, follow, 1, &comm);
    } else if (!strcmp(mode, "adjacent")) {
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, k, nb, MPI_UNWEIGHTED, k, nb,
                                       MPI_UNWEIGHTED, follow, 1, &comm);
    } else {
        int v = (wrank + 1) % n, dst[2 * MAXD];
        int deg = grid_neighbours(v, dst);
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &v, &deg, dst, MPI_UNWEIGHTED, follow, 1, &comm);
    }
    MPI_Info_free(&follow);
    MPIX_Rankmap_report rep;
    MPIX_Rankmap_last_report(&rep);

    int me, moved, any_moved;
    MPI_Comm_rank(comm, &me);
    moved = me != wrank;
    MPI_Allreduce(&moved, &any_moved, 1, MPI_INT, MPI_LOR, comm);
    CHECK(any_moved, "reorder=1 kept every rank");
    int topo;
    MPI_Topo_test(comm, &topo);
    CHECK(topo == MPI_DIST_GRAPH, "not a distributed graph communicator");

    /* my vertex's lists */
    int want[2 * MAXD], wantw[2 * MAXD];
    int kw = weighted ? weighted_lists(me, n, want, wantw) : grid_neighbours(me, want);
    int indeg, outdeg, isw;
    MPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &isw);
    CHECK(indeg == kw && outdeg == kw, "degrees %d/%d, expected %d", indeg, outdeg, kw);
    CHECK(isw == weighted, "weighted flag %d", isw);
    int in[2 * MAXD], out[2 * MAXD], inw[2 * MAXD], outw[2 * MAXD];
    if (indeg == kw && outdeg == kw) {
        MPI_Dist_graph_neighbors(comm, kw, in, isw ? inw : MPI_UNWEIGHTED, kw, out,
                                 isw ? outw : MPI_UNWEIGHTED);
        if (strcmp(mode, "general")) {
            for (int j = 0; j < kw; j++) {
                CHECK(in[j] == want[j] && out[j] == want[j], "vertex %d list slot %d: in %d out %d,"
                      " expected %d", me, j, in[j], out[j], want[j]);
                if (weighted)
                    CHECK(inw[j] == wantw[j] && outw[j] == wantw[j], "weight slot %d", j);
            }
        } else {
            int a[2 * MAXD], b[2 * MAXD];
            memcpy(a, in, kw * sizeof(int));
            memcpy(b, out, kw * sizeof(int));
            qsort(a, kw, sizeof(int), cmp_int);
            qsort(b, kw, sizeof(int), cmp_int);
            qsort(want, kw, sizeof(int), cmp_int);
            for (int j = 0; j < kw; j++)
                CHECK(a[j] == want[j] && b[j] == want[j], "vertex %d sorted slot %d", me, j);
        }
        check_collectives(comm, me, indeg, in, outdeg, out);
    }

    /* where every vertex sits now, for the distance checks */
    int *where = malloc(n * sizeof(int));
    MPI_Allgather(&wrank, 1, MPI_INT, where, 1, MPI_INT, comm);
    if (wrank == 0) {
        CHECK(rep.valid, "rank 0 has no mapper report");
        if (rep.valid) {
            printf("dist_graph_reorder %s %s: F %g -> %g (F_min %g), %s, %.2f ms\n", mode, argv[2],
                   rep.F_before, rep.F_after, rep.F_min, rep.algorithm, 1e3 * rep.map_seconds);
            CHECK(rep.F_after < rep.F_before, "F did not drop: %g -> %g", rep.F_before,
                  rep.F_after);
        }
        if (weighted) {
            double hb = 0, ha = 0, la = 0, d;
            int nh = 0, nl = 0;
            for (int v = 0; v < n; v++) {
                int u = (v + 1) % n, c = (v + CHORD) % n;
                MPIX_Rankmap_distance(v, u, &d);        /* before: vertex v on world rank v */
                hb += d;
                MPIX_Rankmap_distance(where[v], where[u], &d);
                ha += d;
                nh++;
                MPIX_Rankmap_distance(where[v], where[c], &d);
                la += d;
                nl++;
            }
            printf("weighted ring %d: mean distance of heavy ring edges %g -> %g, light chords %g\n",
                   n, hb / nh, ha / nh, la / nl);
            CHECK(ha < hb, "heavy edges did not get closer: %g -> %g", hb / nh, ha / nh);
            CHECK(ha / nh < la / nl, "heavy edges (%g) farther than light ones (%g)", ha / nh,
                  la / nl);
        }
    }
    free(where);
    MPI_Comm_free(&comm);
    return finish("dist_graph_reorder");
}

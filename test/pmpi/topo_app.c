/*
 * topo_app.c -- an unmodified MPI program (standard MPI only, no rankmap
 * header) that declares its communication pattern with reorder=1, for the
 * tests of the PMPI reorder plugin (test/pmpi/reorder.sh).  It is compiled by
 * each MPI's own mpicc and run with or without librankmap-pmpi preloaded.
 *
 *   topo_app MODE EXPECT MAPFILE TORUS GRID
 *     MODE     cart | cart-create | graph | dist-adjacent | dist-general |
 *              dist-random (cart-create: without MPI_Cart_map, which
 *              SimGrid's SMPI lacks; dist-random: each vertex names three
 *              pseudo-random out-edges of weights 1..9 instead of its grid
 *              neighbours, a graph on which differently seeded searches end
 *              apart, for the portfolio's tests)
 *     EXPECT   reorder   ranks moved and every grid neighbour pair is 1 hop
 *                        apart on the torus (F = F_min for a grid that embeds)
 *              identity  every process kept its rank
 *              scattered every process kept its rank and some neighbour pair
 *                        is more than 1 hop apart (what the job gets without
 *                        the plugin on a scrambled mapfile)
 *              any       only the checks of the new communicator below
 *     MAPFILE  the mapfile the job runs with (line r = torus coordinates of
 *              world rank r), read here only to measure hop distances
 *     TORUS    torus extents, e.g. 4x4x2
 *     GRID     the periodic task grid, e.g. 4x4x2 or 4x4 (its size may be
 *              below the number of ranks: the others get MPI_COMM_NULL)
 *
 * The distributed-graph modes are written for the reading in which the
 * process with new rank v plays vertex v, and say so with the info key
 * rankmap_vertices=follow_rank on the call; TOPO_APP_OWN_EDGES=1 in the
 * environment leaves the key out (every process keeps the edges it
 * described: an MPI may then not move its vertices).
 * Besides distances it checks what MPI promises about the new communicator:
 * Cart_map gives the rank Cart_create gave; Cart_coords/Cart_shift agree;
 * Graph_neighbors and Dist_graph_neighbors return the grid neighbours of the
 * caller's new rank (the process with new rank v plays vertex v);
 * MPI_Neighbor_alltoall on the distributed graph delivers each neighbour's
 * data.  Rank 0 prints "moved M worst W members K", "order R0 R1 ..." (the
 * new rank of every world rank, - for none) and PASS/FAIL.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXD 6

static int failures;
#define CHECK(c, ...)                                                                      \
    do {                                                                                   \
        if (!(c)) {                                                                        \
            if (failures++ < 5) {                                                          \
                fprintf(stderr, "topo_app: check failed (%s): ", #c);                      \
                fprintf(stderr, __VA_ARGS__);                                              \
                fputc('\n', stderr);                                                       \
            }                                                                              \
        }                                                                                  \
    } while (0)

static int parse_dims(const char *s, int *d)
{
    int n = 0;
    while (*s && n < MAXD) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1)
            return 0;
        d[n++] = (int) v;
        s = *end == 'x' ? end + 1 : end;
        if (*end && *end != 'x')
            return 0;
    }
    return n;
}

/* the 2*nd periodic neighbours of vertex v (row-major, last dim fastest) */
static int grid_neighbours(int nd, const int *dims, int v, int *out)
{
    int c[MAXD], k = 0;
    for (int d = nd - 1, r = v; d >= 0; d--) {
        c[d] = r % dims[d];
        r /= dims[d];
    }
    for (int d = 0; d < nd; d++)
        for (int s = -1; s <= 1; s += 2) {
            int save = c[d], u = 0;
            c[d] = (c[d] + s + dims[d]) % dims[d];
            for (int e = 0; e < nd; e++)
                u = u * dims[e] + c[e];
            c[d] = save;
            out[k++] = u;
        }
    return k;
}

/* dist-random: three distinct out-neighbours of v (never v) and their
 * weights: v + 1 (so that every vertex has an in-neighbour: MPICH 4.0.2's
 * MPI_Dist_graph_neighbors faults on a weighted vertex without one), then
 * two from a linear congruential sequence of v alone */
static int random_neighbours(int n, int v, int *out, int *w)
{
    unsigned x = 2654435761u * (unsigned) (v + 1), k = 1;
    out[0] = (v + 1) % n;
    w[0] = 1 + v % 9;
    while (k < 3 && n > 3) {
        x = x * 1103515245u + 12345u;
        int u = (int) ((x >> 8) % (unsigned) n), dup = u == v;
        for (unsigned i = 0; i < k; i++)
            dup |= out[i] == u;
        if (!dup) {
            out[k] = u;
            w[k++] = 1 + (int) ((x >> 20) % 9u);
        }
    }
    return (int) k;
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *) a - *(const int *) b;
}

/* same multiset of ranks */
static int same_set(int n, const int *a, const int *b)
{
    int *x = malloc((n + 1) * sizeof(int)), *y = malloc((n + 1) * sizeof(int)), eq = 1;
    memcpy(x, a, n * sizeof(int));
    memcpy(y, b, n * sizeof(int));
    qsort(x, n, sizeof(int), cmp_int);
    qsort(y, n, sizeof(int), cmp_int);
    for (int i = 0; i < n; i++)
        eq &= x[i] == y[i];
    free(x);
    free(y);
    return eq;
}

int main(int argc, char **argv)
{
    int wrank, wsize, tdims[MAXD], gdims[MAXD], periods[MAXD], tnd = 0, gnd = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (argc != 6 || !(tnd = parse_dims(argv[4], tdims)) || !(gnd = parse_dims(argv[5], gdims))) {
        if (wrank == 0)
            fprintf(stderr, "usage: topo_app MODE EXPECT MAPFILE TORUS GRID\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *mode = argv[1], *expect = argv[2];
    int n = 1;
    for (int d = 0; d < gnd; d++) {
        n *= gdims[d];
        periods[d] = 1;
    }
    if (n > wsize) {
        if (wrank == 0)
            fprintf(stderr, "topo_app: grid %s needs %d ranks, have %d\n", argv[5], n, wsize);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    /* torus coordinates of every world rank, from the job's mapfile */
    int *xyz = calloc((size_t) tnd * wsize, sizeof(int)), got = 0;
    FILE *f = fopen(argv[3], "r");
    char line[512];
    while (f && got < wsize && fgets(line, sizeof(line), f)) {
        char *p = line, *end;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        for (int d = 0; d < tnd; d++, p = end)
            xyz[tnd * got + d] = (int) strtol(p, &end, 10);
        got++;
    }
    if (f)
        fclose(f);
    if (got != wsize) {
        if (wrank == 0)
            fprintf(stderr, "topo_app: %s has %d lines for %d ranks\n", argv[3], got, wsize);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }

    /* the grid's neighbour lists, vertex = rank */
    MPI_Comm comm = MPI_COMM_NULL;
    int nb[2 * MAXD], k = 0;
    if (!strcmp(mode, "cart-create")) {
        MPI_Cart_create(MPI_COMM_WORLD, gnd, gdims, periods, 1, &comm);
    } else if (!strcmp(mode, "cart")) {
        MPI_Cart_create(MPI_COMM_WORLD, gnd, gdims, periods, 1, &comm);
        int mapped;
        MPI_Cart_map(MPI_COMM_WORLD, gnd, gdims, periods, &mapped);
        int r = MPI_UNDEFINED;
        if (comm != MPI_COMM_NULL)
            MPI_Comm_rank(comm, &r);
        CHECK(mapped == r, "MPI_Cart_map gave %d, MPI_Cart_create %d", mapped, r);
    } else if (!strcmp(mode, "graph")) {
        int *index = malloc(n * sizeof(int)), *edges = malloc(2 * MAXD * n * sizeof(int)), e = 0;
        for (int v = 0; v < n; v++) {
            e += grid_neighbours(gnd, gdims, v, edges + e);
            index[v] = e;
        }
        MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 1, &comm);
        int mapped;
        MPI_Graph_map(MPI_COMM_WORLD, n, index, edges, &mapped);
        int r = MPI_UNDEFINED;
        if (comm != MPI_COMM_NULL)
            MPI_Comm_rank(comm, &r);
        CHECK(mapped == r, "MPI_Graph_map gave %d, MPI_Graph_create %d", mapped, r);
        free(index);
        free(edges);
    }
    MPI_Info follow = MPI_INFO_NULL;
    if (!strncmp(mode, "dist", 4) && !getenv("TOPO_APP_OWN_EDGES")) {
        MPI_Info_create(&follow);
        MPI_Info_set(follow, "rankmap_vertices", "follow_rank");
    }
    if (!strncmp(mode, "cart", 4) || !strcmp(mode, "graph")) {
        /* created above */
    } else if (!strcmp(mode, "dist-adjacent")) {
        CHECK(n == wsize, "distributed graphs need grid size = ranks");
        k = grid_neighbours(gnd, gdims, wrank, nb);
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, k, nb, MPI_UNWEIGHTED, k, nb,
                                       MPI_UNWEIGHTED, follow, 1, &comm);
    } else if (!strcmp(mode, "dist-general")) {
        /* every process names the out-edges of the next vertex */
        CHECK(n == wsize, "distributed graphs need grid size = ranks");
        int src = (wrank + 1) % wsize, deg;
        deg = grid_neighbours(gnd, gdims, src, nb);
        int w[2 * MAXD];
        for (int i = 0; i < deg; i++)
            w[i] = 5;
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &deg, nb, w, follow, 1, &comm);
    } else if (!strcmp(mode, "dist-random")) {
        CHECK(n == wsize, "distributed graphs need grid size = ranks");
        int w[2 * MAXD], deg = random_neighbours(n, wrank, nb, w);
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &wrank, &deg, nb, w, follow, 1, &comm);
    } else {
        if (wrank == 0)
            fprintf(stderr, "topo_app: unknown mode %s\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (follow != MPI_INFO_NULL)
        MPI_Info_free(&follow);

    int rank = -1, member = comm != MPI_COMM_NULL, members = 0, worst = 0, moved = 0;
    if (member) {
        int size;
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
        CHECK(size == n, "new communicator has %d ranks, grid %d", size, n);
        moved = rank != wrank;
        int wts[2 * MAXD];
        k = strcmp(mode, "dist-random") ? grid_neighbours(gnd, gdims, rank, nb)
                                        : random_neighbours(n, rank, nb, wts);
        /* what MPI says the neighbours are */
        if (!strcmp(mode, "graph")) {
            int cnt, got_nb[2 * MAXD];
            MPI_Graph_neighbors_count(comm, rank, &cnt);
            MPI_Graph_neighbors(comm, rank, 2 * MAXD, got_nb);
            CHECK(cnt == k && same_set(k, nb, got_nb), "Graph_neighbors of %d", rank);
        } else if (!strncmp(mode, "dist", 4)) {
            int indeg, outdeg, wtd, in[4 * MAXD], out[4 * MAXD], iw[4 * MAXD], ow[4 * MAXD];
            MPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &wtd);
            CHECK(outdeg == k, "rank %d: outdegree %d, expected %d", rank, outdeg, k);
            if (outdeg == k) {
                MPI_Dist_graph_neighbors(comm, 4 * MAXD, in, iw, 4 * MAXD, out, ow);
                CHECK(same_set(k, nb, out), "rank %d: Dist_graph_neighbors are not those of vertex %d",
                      rank, rank);
                /* data from each in-neighbour arrives in its slot */
                int sb[4 * MAXD], rb[4 * MAXD];
                for (int i = 0; i < outdeg; i++)
                    sb[i] = rank * 1000 + out[i];
                MPI_Neighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, comm);
                for (int i = 0; i < indeg; i++)
                    CHECK(rb[i] == in[i] * 1000 + rank, "Neighbor_alltoall slot %d: %d from %d", i,
                          rb[i], in[i]);
            }
        } else {
            int coords[MAXD], r2;
            MPI_Cart_coords(comm, rank, gnd, coords);
            MPI_Cart_rank(comm, coords, &r2);
            CHECK(r2 == rank, "Cart_rank(Cart_coords(%d)) = %d", rank, r2);
            for (int d = 0; d < gnd; d++) {
                int s, t;
                MPI_Cart_shift(comm, d, 1, &s, &t);
                CHECK(t == nb[2 * d + 1] && s == nb[2 * d], "Cart_shift dim %d of %d", d, rank);
            }
        }
        /* torus distance to every grid neighbour */
        MPI_Group g, wg;
        MPI_Comm_group(comm, &g);
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        for (int i = 0; i < k; i++) {
            int wn, hops = 0;
            MPI_Group_translate_ranks(g, 1, &nb[i], wg, &wn);
            for (int d = 0; d < tnd; d++) {
                int delta = abs(xyz[tnd * wrank + d] - xyz[tnd * wn + d]);
                hops += delta < tdims[d] - delta ? delta : tdims[d] - delta;
            }
            if (hops > worst)
                worst = hops;
        }
        MPI_Group_free(&g);
        MPI_Group_free(&wg);
    }
    int *order = wrank == 0 ? malloc((size_t) wsize * sizeof(int)) : NULL;
    MPI_Gather(&rank, 1, MPI_INT, order, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int all[4], local[4] = { moved, worst, member, failures };
    MPI_Reduce(local, all, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&worst, &all[1], 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    int ok = 1;
    if (wrank == 0) {
        moved = all[0];
        worst = all[1];
        members = all[2];
        printf("moved %d worst %d members %d\n", moved, worst, members);
        printf("order");
        for (int i = 0; i < wsize; i++)
            printf(order[i] < 0 ? " -" : " %d", order[i]);
        printf("\n");
        free(order);
        if (members != n) {
            printf("%d processes are in the new communicator, expected %d\n", members, n);
            ok = 0;
        }
        if (all[3]) {
            printf("%d failed checks of the new communicator\n", all[3]);
            ok = 0;
        }
        if (!strcmp(expect, "reorder"))
            ok &= moved > 0 && worst == 1;
        else if (!strcmp(expect, "identity"))
            ok &= moved == 0;
        else if (!strcmp(expect, "scattered"))
            ok &= moved == 0 && worst > 1;
        else if (!strcmp(expect, "any"))
            ok &= 1;
        else
            ok = 0;
        printf("topo_app %s expect %s: %s\n", mode, expect, ok ? "PASS" : "FAIL");
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (comm != MPI_COMM_NULL)
        MPI_Comm_free(&comm);
    free(xyz);
    MPI_Finalize();
    return ok ? 0 : 1;
}

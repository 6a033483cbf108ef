/*
 * cart_reorder.c -- MPI_Cart_create(reorder=1) on the patched MPICH.
 *
 *   cart_reorder DIMS PERIODIC MAXDIST FMIN [half]
 *     DIMS      grid, e.g. 4x4x4 or 8x8 (its size = the number of ranks used)
 *     PERIODIC  1: periodic in every dimension, 0: none
 *     MAXDIST   every Cartesian neighbour pair must be at most this far apart
 *               on the machine (MPIX_Rankmap_distance of their world ranks)
 *     FMIN      1: the mapper's F must equal the bound F_min and be below the
 *               scrambled F of the identity order; 0: only F_after < F_before
 *     half      run on the even and on the odd world ranks separately
 *               (MPI_Comm_split): communicators that fill the machine
 *               unevenly are mapped on their own distance matrix
 *
 * Also: MPI_Cart_map gives the rank MPI_Cart_create gave; MPI_Cart_coords,
 * MPI_Cart_rank, MPI_Cart_get, MPI_Cart_shift and MPI_Cart_sub agree with the
 * new ranks; MPI_Neighbor_allgather / _alltoall / _alltoallv and
 * MPI_Ineighbor_alltoallv deliver the right data on the reordered
 * communicator (the class of Open MPI bugs #11756 and #8939).
 */
#include "mpi_check.h"
#include <mpix_rankmap.h>

#define MAXD 8

int main(int argc, char **argv)
{
    int dims[MAXD], periods[MAXD], nd, wrank, wsize;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    int half = argc == 6 && !strcmp(argv[5], "half");
    if ((argc != 5 && !half) || !(nd = parse_dims(argv[1], dims, MAXD))) {
        if (wrank == 0)
            fprintf(stderr, "usage: cart_reorder DIMS PERIODIC MAXDIST FMIN [half]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int periodic = atoi(argv[2]);
    double maxdist = atof(argv[3]);
    int want_fmin = atoi(argv[4]);
    int n = 1;
    for (int d = 0; d < nd; d++) {
        periods[d] = periodic;
        n *= dims[d];
    }
    MPI_Comm base = MPI_COMM_WORLD;
    if (half)
        MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &base);
    int brank, bsize;
    MPI_Comm_rank(base, &brank);
    MPI_Comm_size(base, &bsize);
    CHECK(n <= bsize, "grid of %d needs at least as many ranks (%d)", n, bsize);

    MPI_Comm cart;
    MPI_Cart_create(base, nd, dims, periods, 1, &cart);
    MPIX_Rankmap_report rep;
    MPIX_Rankmap_last_report(&rep);
    int mapped_rank;
    MPI_Cart_map(base, nd, dims, periods, &mapped_rank);

    if (cart == MPI_COMM_NULL) {
        CHECK(mapped_rank == MPI_UNDEFINED, "outside the grid but Cart_map gave %d", mapped_rank);
        return finish("cart_reorder");
    }
    int rank, size;
    MPI_Comm_rank(cart, &rank);
    MPI_Comm_size(cart, &size);
    CHECK(size == n, "cart size %d, expected %d", size, n);
    /* a second mapping is only guaranteed identical when the mapper is not
     * cut by its time budget: true for grids on the torus (exact embedding),
     * not for the annealer on the irregular half machines */
    if (!half)
        CHECK(mapped_rank == rank, "MPI_Cart_map gave %d, MPI_Cart_create %d", mapped_rank, rank);
    else
        CHECK(mapped_rank >= 0 && mapped_rank < n, "MPI_Cart_map gave %d", mapped_rank);

    /* the ranks really moved (the table is scrambled) */
    int moved = rank != brank, any_moved = 0;
    MPI_Allreduce(&moved, &any_moved, 1, MPI_INT, MPI_LOR, cart);
    CHECK(any_moved, "reorder=1 kept every rank");

    /* coordinates and ranks agree */
    int coords[MAXD], c2[MAXD], gd[MAXD], gp[MAXD], gc[MAXD], r2;
    MPI_Cart_coords(cart, rank, nd, coords);
    MPI_Cart_rank(cart, coords, &r2);
    CHECK(r2 == rank, "Cart_rank(Cart_coords(%d)) = %d", rank, r2);
    MPI_Cart_get(cart, nd, gd, gp, gc);
    for (int d = 0; d < nd; d++) {
        CHECK(gd[d] == dims[d] && gp[d] == periods[d] && gc[d] == coords[d], "Cart_get dim %d", d);
    }
    int row_major = 0;
    for (int d = 0; d < nd; d++)
        row_major = row_major * dims[d] + coords[d];
    CHECK(row_major == rank, "coords of %d are not its row-major position", rank);

    /* neighbours: Cart_shift, their coordinates and machine distance */
    double worst = 0;
    int nbr[2 * MAXD];
    for (int d = 0; d < nd; d++) {
        int src, dst;
        MPI_Cart_shift(cart, d, 1, &src, &dst);
        nbr[2 * d] = src;
        nbr[2 * d + 1] = dst;
        if (dst != MPI_PROC_NULL) {
            MPI_Cart_coords(cart, dst, nd, c2);
            for (int e = 0; e < nd; e++) {
                int want = e == d ? (coords[e] + 1) % dims[e] : coords[e];
                CHECK(c2[e] == want, "Cart_shift dim %d: dest coords wrong", d);
            }
            double dist = -1;
            MPIX_Rankmap_distance(wrank, world_rank_of(cart, dst), &dist);
            if (dist > worst)
                worst = dist;
        }
    }
    double all_worst = 0;
    MPI_Allreduce(&worst, &all_worst, 1, MPI_DOUBLE, MPI_MAX, cart);
    CHECK(all_worst <= maxdist, "a neighbour pair is %g apart (allowed %g)", all_worst, maxdist);

    /* Cart_sub keeping one dimension: rank = coordinate in that dimension */
    for (int d = 0; d < nd; d++) {
        int remain[MAXD] = { 0 }, srank, ssize;
        remain[d] = 1;
        MPI_Comm sub;
        MPI_Cart_sub(cart, remain, &sub);
        MPI_Comm_rank(sub, &srank);
        MPI_Comm_size(sub, &ssize);
        CHECK(ssize == dims[d] && srank == coords[d], "Cart_sub dim %d: rank %d size %d", d, srank,
              ssize);
        MPI_Comm_free(&sub);
    }

    /* neighbour collectives: slot 2d = source (minus), 2d+1 = dest (plus) */
    int k = 2 * nd, ag[2 * MAXD], sb[2 * MAXD], rb[2 * MAXD];
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, ag, 1, MPI_INT, cart);
    for (int s = 0; s < k; s++)
        if (nbr[s] != MPI_PROC_NULL)
            CHECK(ag[s] == nbr[s], "Neighbor_allgather slot %d: %d from %d", s, ag[s], nbr[s]);
    for (int s = 0; s < k; s++) {
        sb[s] = rank * 64 + s;
        rb[s] = -1;
    }
    MPI_Neighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, cart);
    for (int d = 0; d < nd; d++) {
        if (dims[d] < 3)
            continue;   /* with 2 the minus and plus neighbour coincide */
        if (nbr[2 * d] != MPI_PROC_NULL)
            CHECK(rb[2 * d] == nbr[2 * d] * 64 + 2 * d + 1, "Neighbor_alltoall dim %d minus", d);
        if (nbr[2 * d + 1] != MPI_PROC_NULL)
            CHECK(rb[2 * d + 1] == nbr[2 * d + 1] * 64 + 2 * d, "Neighbor_alltoall dim %d plus", d);
    }
    /* alltoallv: dimension d carries d+1 integers each way */
    int cnt[2 * MAXD], dis[2 * MAXD], tot = 0;
    for (int s = 0; s < k; s++) {
        cnt[s] = s / 2 + 1;
        dis[s] = tot;
        tot += cnt[s];
    }
    int *sv = malloc(tot * sizeof(int)), *rv = malloc(tot * sizeof(int));
    for (int pass = 0; pass < 2; pass++) {
        for (int s = 0; s < k; s++)
            for (int j = 0; j < cnt[s]; j++) {
                sv[dis[s] + j] = rank * 64 + s + 10000 * j;
                rv[dis[s] + j] = -1;
            }
        if (pass == 0) {
            MPI_Neighbor_alltoallv(sv, cnt, dis, MPI_INT, rv, cnt, dis, MPI_INT, cart);
        } else {
            MPI_Request req;
            MPI_Ineighbor_alltoallv(sv, cnt, dis, MPI_INT, rv, cnt, dis, MPI_INT, cart, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        for (int d = 0; d < nd; d++) {
            if (dims[d] < 3)
                continue;
            for (int side = 0; side < 2; side++) {
                int s = 2 * d + side, from = nbr[s];
                if (from == MPI_PROC_NULL)
                    continue;
                for (int j = 0; j < cnt[s]; j++)
                    CHECK(rv[dis[s] + j] == from * 64 + (2 * d + 1 - side) + 10000 * j,
                          "%s dim %d side %d item %d", pass ? "Ineighbor_alltoallv" :
                          "Neighbor_alltoallv", d, side, j);
            }
        }
    }
    free(sv);
    free(rv);

    /* the mapper's report, on the rank that computed it (rank 0 of base) */
    if (brank == 0) {
        CHECK(rep.valid, "rank 0 has no mapper report");
        if (rep.valid) {
            printf("cart_reorder %s%s periodic=%d: F %g -> %g (F_min %g), %s, %.2f ms, "
                   "worst neighbour distance %g\n", argv[1], half ? (wrank % 2 ? " (odd half)" :
                   " (even half)") : "", periodic, rep.F_before, rep.F_after,
                   rep.F_min, rep.algorithm, 1e3 * rep.map_seconds, all_worst);
            CHECK(rep.F_after < rep.F_before, "F did not drop: %g -> %g", rep.F_before,
                  rep.F_after);
            if (want_fmin)
                CHECK(rep.F_after <= rep.F_min * (1 + 1e-9), "F %g above F_min %g", rep.F_after,
                      rep.F_min);
        }
    }
    MPI_Comm_free(&cart);
    if (half)
        MPI_Comm_free(&base);
    return finish("cart_reorder");
}

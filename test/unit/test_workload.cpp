// test_workload.cpp -- the workload generators of Bhanot et al. ("Optimizing
// task layout on the Blue Gene/L supercomputer"), the METIS partitioner with
// exact sizes, and the Scotch peer mapper.
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <queue>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/rng.hpp"
#include "cost/cost.hpp"
#include "graph/graph.hpp"
#include "map/mapper.hpp"
#include "partition/partition.hpp"
#include "topology/topology.hpp"
#include "workload/workload.hpp"

using namespace rankmap;

namespace {

// Weight of the directed edge u -> v (0 if absent).
double weight_of(const Graph &g, int u, int v) {
    for (int64_t e = g.begin(u); e < g.end(u); ++e)
        if (g.target(e) == v) return g.weight(e);
    return 0;
}

bool symmetric(const Graph &g) {
    for (int u = 0; u < g.n(); ++u)
        for (int64_t e = g.begin(u); e < g.end(u); ++e)
            if (weight_of(g, g.target(e), u) != g.weight(e)) return false;
    return true;
}

bool connected(const Graph &g) {
    if (g.n() == 0) return true;
    std::vector<char> seen(g.n(), 0);
    std::queue<int> q;
    q.push(0);
    seen[0] = 1;
    int count = 1;
    while (!q.empty()) {
        int u = q.front();
        q.pop();
        for (int64_t e = g.begin(u); e < g.end(u); ++e)
            if (!seen[g.target(e)]) {
                seen[g.target(e)] = 1;
                ++count;
                q.push(g.target(e));
            }
    }
    return count == g.n();
}

double cut_of(const Graph &sym, const std::vector<int> &part) {
    double cut = 0;
    for (int u = 0; u < sym.n(); ++u)
        for (int64_t e = sym.begin(u); e < sym.end(u); ++e)
            if (part[u] != part[sym.target(e)]) cut += sym.weight(e);
    return cut / 2;
}

std::vector<int> part_sizes(const std::vector<int> &part, int nparts) {
    std::vector<int> s(nparts, 0);
    for (int p : part) ++s.at(p);
    return s;
}

} // namespace

TEST(Cubic1, EveryTaskHasSixUnitNeighbours) {
    Graph g = workload_cubic1({8, 8, 8});
    ASSERT_EQ(g.n(), 512);
    for (int v = 0; v < g.n(); ++v) {
        EXPECT_EQ(g.degree(v), 6);
        EXPECT_DOUBLE_EQ(g.out_weight(v), 6.0);
    }
    EXPECT_TRUE(symmetric(g));
    EXPECT_DOUBLE_EQ(g.total_weight(), 3072.0);
    // Row-major, last dimension fastest: task (0,0,0) talks to (0,0,1) = 1,
    // (0,1,0) = 8, (1,0,0) = 64 and the wrapped (0,0,7) = 7.
    EXPECT_EQ(weight_of(g, 0, 1), 1.0);
    EXPECT_EQ(weight_of(g, 0, 8), 1.0);
    EXPECT_EQ(weight_of(g, 0, 64), 1.0);
    EXPECT_EQ(weight_of(g, 0, 7), 1.0);
    EXPECT_EQ(weight_of(g, 0, 2), 0.0);
}

TEST(Cubic2, NearestWeighTwoAndStraightNextNearestWeighOne) {
    Graph g = workload_cubic2({8, 8, 8});
    ASSERT_EQ(g.n(), 512);
    for (int v = 0; v < g.n(); ++v) {
        EXPECT_EQ(g.degree(v), 12);
        EXPECT_DOUBLE_EQ(g.out_weight(v), 18.0);
    }
    EXPECT_TRUE(symmetric(g));
    EXPECT_EQ(weight_of(g, 0, 1), 2.0);
    EXPECT_EQ(weight_of(g, 0, 2), 1.0);
    EXPECT_EQ(weight_of(g, 0, 6), 1.0);   // wrapped -2
    EXPECT_EQ(weight_of(g, 0, 128), 1.0); // +2 along the first dimension
    EXPECT_EQ(weight_of(g, 0, 9), 0.0);   // no turns
}

TEST(Cubic1, LowerBoundOnItsTorusIs3072AndRankOrderReachesIt) {
    auto topo = parse_topology("torus:8x8x8");
    Graph g = workload_cubic1({8, 8, 8});
    EXPECT_DOUBLE_EQ(lower_bound(g, *topo), 3072.0);
    std::vector<int> identity(512);
    std::iota(identity.begin(), identity.end(), 0);
    EXPECT_DOUBLE_EQ(free_energy(g, *topo, identity), 3072.0);
}

TEST(Cubic2, LowerBoundOnItsTorusIs12288AndRankOrderReachesIt) {
    auto topo = parse_topology("torus:8x8x8");
    Graph g = workload_cubic2({8, 8, 8});
    EXPECT_DOUBLE_EQ(lower_bound(g, *topo), 12288.0);
    std::vector<int> identity(512);
    std::iota(identity.begin(), identity.end(), 0);
    EXPECT_DOUBLE_EQ(free_energy(g, *topo, identity), 12288.0);
}

TEST(Sage, TasksShareEqualCellsAndSymmetricFaceAreas) {
    // 512 tasks x 4096 cells = 64^3 blocks: 64x8x1-block slabs, so task t
    // shares a 64x1-block face (256 cells) with t+-1 inside a z-plane and a
    // 64x8-block face (2048 cells) with t+-8 across z-planes.
    Graph g = workload_sage(512, 4096);
    ASSERT_EQ(g.n(), 512);
    EXPECT_TRUE(symmetric(g));
    EXPECT_TRUE(connected(g));
    EXPECT_EQ(weight_of(g, 9, 10), 256.0);
    EXPECT_EQ(weight_of(g, 9, 17), 2048.0);
    EXPECT_EQ(weight_of(g, 9, 1), 2048.0);
    EXPECT_EQ(weight_of(g, 7, 8), 0.0);  // last slab row of plane 0 vs first of plane 1
    // Interior task: 2 x 256 + 2 x 2048.
    EXPECT_DOUBLE_EQ(g.out_weight(100), 2 * 256.0 + 2 * 2048.0);
}

TEST(Sage, RaggedSlabsStaySymmetricWithBoundedSurface) {
    // 96 tasks of 64 cells: a 9^3-block cube, 7 or 8 blocks per task, so
    // slab edges fall inside rows; every task's boundary is at most its
    // blocks' 8 x 6 faces of 4 cells.
    Graph g = workload_sage(96, 64);
    ASSERT_EQ(g.n(), 96);
    EXPECT_TRUE(symmetric(g));
    for (int v = 0; v < g.n(); ++v) {
        EXPECT_GT(g.out_weight(v), 0.0);
        EXPECT_LE(g.out_weight(v), 8 * 6 * 4.0);
    }
    EXPECT_THROW(workload_sage(96, 100), Error);  // not a multiple of 8 cells
}

TEST(Umt, GraphIsSymmetricConnectedAndDeterministic) {
    Graph a = workload_umt(64, 7);
    Graph b = workload_umt(64, 7);
    Graph c = workload_umt(64, 8);
    ASSERT_EQ(a.n(), 64);
    EXPECT_TRUE(symmetric(a));
    EXPECT_TRUE(connected(a));
    EXPECT_EQ(a.adj(), b.adj());
    EXPECT_EQ(a.weights(), b.weights());
    EXPECT_TRUE(a.adj() != c.adj() || a.weights() != c.weights());
    for (double w : a.weights()) {
        EXPECT_GT(w, 0.0);
        EXPECT_EQ(w, static_cast<double>(static_cast<long>(w)));  // counts of cut mesh edges
    }
}

TEST(Scramble, IsAPermutationAndDependsOnTheSeed) {
    std::vector<int> p = scramble_permutation(1000, 3);
    std::vector<int> sorted = p;
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < 1000; ++i) EXPECT_EQ(sorted[i], i);
    EXPECT_EQ(p, scramble_permutation(1000, 3));
    EXPECT_NE(p, scramble_permutation(1000, 4));
    std::vector<int> id(1000);
    std::iota(id.begin(), id.end(), 0);
    EXPECT_NE(p, id);
}

TEST(MakeWorkload, UnknownNameGivesAClearError) {
    try {
        make_workload("cubic3", 512, {8, 8, 8}, 1);
        FAIL() << "no error";
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("unknown workload 'cubic3'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("cubic1, cubic2, sage, umt"), std::string::npos) << e.what();
    }
}

TEST(MakeWorkload, CubicNeedsOneTaskPerGridPoint) {
    EXPECT_THROW(make_workload("cubic1", 500, {8, 8, 8}, 1), Error);
    EXPECT_EQ(make_workload("cubic2", 128, {4, 4, 8}, 1).n(), 128);
    EXPECT_EQ(make_workload("sage", 64, {4, 4, 4}, 1).n(), 64);
}

TEST(Partition, GivesExactSizesAndBeatsARandomSplit) {
    Graph sym = workload_cubic1({8, 8, 8}).symmetrized();
    std::vector<int> sizes = {100, 200, 12, 200};
    std::vector<int> part = partition_graph(sym, 4, 5, sizes);
    EXPECT_EQ(part_sizes(part, 4), sizes);
    // A random split with the same sizes.
    std::vector<int> rnd;
    for (int p = 0; p < 4; ++p) rnd.insert(rnd.end(), sizes[p], p);
    Rng rng(1);
    shuffle(rnd, rng);
    EXPECT_LT(cut_of(sym, part), 0.5 * cut_of(sym, rnd));
    EXPECT_EQ(part, partition_graph(sym, 4, 5, sizes));  // same seed, same split
}

TEST(Partition, EqualSizesWithManyPartsAndExactBisection) {
    Graph sym = workload_umt(256, 2).symmetrized();
    std::vector<int> part = partition_graph(sym, 24, 1);
    std::vector<int> s = part_sizes(part, 24);
    EXPECT_EQ(*std::max_element(s.begin(), s.end()) - *std::min_element(s.begin(), s.end()), 1);
    std::vector<int> half = bisect_graph(sym, 77, 9);
    EXPECT_EQ(part_sizes(half, 2), (std::vector<int>{77, 179}));
}

TEST(Partition, TrivialCasesAndBadSizes) {
    Graph sym = workload_cubic1({2, 2, 2}).symmetrized();
    EXPECT_EQ(partition_graph(sym, 1, 1), std::vector<int>(8, 0));
    std::vector<int> one_each = partition_graph(sym, 8, 1);
    EXPECT_EQ(part_sizes(one_each, 8), std::vector<int>(8, 1));
    Graph empty = Graph::from_edges(5, {});
    EXPECT_EQ(part_sizes(partition_graph(empty, 2, 1, {2, 3}), 2), (std::vector<int>{2, 3}));
    EXPECT_THROW(partition_graph(sym, 2, 1, {3, 3}), Error);  // sizes do not sum to 8
    EXPECT_THROW(bisect_graph(sym, 9, 1), Error);
}

#ifdef RANKMAP_HAVE_SCOTCH
namespace {
std::vector<int> scotch_on(const std::string &spec, const Graph &g, const std::string &strategy,
                           uint64_t seed = 1) {
    auto topo = parse_topology(spec);
    ProblemData d = prepare(g, *topo);
    Options opt;
    opt.strategy = strategy;
    opt.seed = seed;
    Problem p{g, d.sym, *topo, d.cap, d.f_min, std::nullopt, opt, Deadline(0), nullptr, {}};
    std::vector<int> place = run_mapper(Algorithm::Scotch, p);
    check_placement(*topo, g.n(), place);  // throws if invalid
    return place;
}
} // namespace

TEST(Scotch, ReturnsValidPlacementsOnASmallTorus) {
    Graph g = workload_cubic1({4, 4, 4});
    for (const char *s : {"default", "quality", "speed"}) {
        std::vector<int> place = scotch_on("torus:4x4x4", g, s);
        EXPECT_EQ(place.size(), 64u);
    }
}

TEST(Scotch, RespectsCapacityWithSeveralTasksPerNode) {
    Graph g = workload_umt(100, 3);
    std::vector<int> place = scotch_on("torus:3x3x4:slots=3", g, "default");  // 100 tasks on 36 nodes
    std::vector<int> count(36, 0);
    for (int n : place) ++count[n];
    for (int c : count) {
        EXPECT_GE(c, 2);
        EXPECT_LE(c, 3);
    }
}

TEST(Scotch, BeatsRandomOnCubic1AndIsDeterministic) {
    Graph g = workload_cubic1({8, 8, 8});
    auto topo = parse_topology("torus:8x8x8");
    std::vector<int> a = scotch_on("torus:8x8x8", g, "default", 4);
    EXPECT_EQ(a, scotch_on("torus:8x8x8", g, "default", 4));
    // Random placements average about 6 x F_min here.
    EXPECT_LT(free_energy(g, *topo, a), 3.0 * 3072);
}

TEST(Scotch, MapsOntoTreesMeshesAndLocalSlots) {
    Graph g = workload_sage(64, 64);
    scotch_on("tree:4x2x8:cost=100,10,1", g, "default");
    scotch_on("mesh:4x4x4", g, "speed");
    scotch_on("torus:4x4x2x2:local=0.5", g, "quality");  // 2 slots per network node
}

TEST(Scotch, PutsEachCliqueOnOneTreeNode) {
    // Four 16-task cliques with scrambled labels on 4 nodes x 16 cores: the
    // optimum keeps every clique inside a node, and Scotch finds it (this
    // also checks that Scotch's leaf numbering is read back correctly).
    std::vector<int> perm = scramble_permutation(64, 5);
    std::vector<Edge> edges;
    for (int c = 0; c < 4; ++c)
        for (int i = 0; i < 16; ++i)
            for (int j = 0; j < 16; ++j)
                if (i != j) edges.push_back({perm[16 * c + i], perm[16 * c + j], 1.0});
    edges.push_back({perm[0], perm[16], 1.0});  // one light link between cliques
    Graph g = Graph::from_edges(64, edges);
    std::vector<int> place = scotch_on("tree:4x16:cost=10,1", g, "default");
    for (int c = 0; c < 4; ++c)
        for (int i = 1; i < 16; ++i) EXPECT_EQ(place[perm[16 * c + i]] / 16, place[perm[16 * c]] / 16);
}

TEST(Scotch, UnknownStrategyIsAnError) {
    Graph g = workload_cubic1({2, 2, 2});
    EXPECT_THROW(scotch_on("torus:2x2x2", g, "fastest"), Error);
}
#endif

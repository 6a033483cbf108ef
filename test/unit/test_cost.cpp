// Free energy, its lower bound F_min and the side metrics.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "common/rng.hpp"
#include "cost/cost.hpp"
#include "graph/graph.hpp"
#include "map/mapper.hpp"
#include "topology/topology.hpp"

using namespace rankmap;

namespace {
// cubic1 / cubic2 of seed 000, built here independently of src/workload.
Graph cubic(int L, bool second) {
    std::vector<Edge> es;
    auto id = [L](int x, int y, int z) { return ((x + L) % L * L + (y + L) % L) * L + (z + L) % L; };
    for (int x = 0; x < L; ++x)
        for (int y = 0; y < L; ++y)
            for (int z = 0; z < L; ++z)
                for (int s = -1; s <= 1; s += 2) {
                    double w1 = second ? 2 : 1;
                    es.push_back({id(x, y, z), id(x + s, y, z), w1});
                    es.push_back({id(x, y, z), id(x, y + s, z), w1});
                    es.push_back({id(x, y, z), id(x, y, z + s), w1});
                    if (second) {
                        es.push_back({id(x, y, z), id(x + 2 * s, y, z), 1});
                        es.push_back({id(x, y, z), id(x, y + 2 * s, z), 1});
                        es.push_back({id(x, y, z), id(x, y, z + 2 * s), 1});
                    }
                }
    return Graph::from_edges(L * L * L, es);
}
std::vector<int> identity(int n) {
    std::vector<int> p(n);
    for (int i = 0; i < n; ++i) p[i] = i;
    return p;
}
} // namespace

TEST(LowerBound, Cubic1And2On8x8x8AreSeed000Values) {
    auto t = parse_topology("torus:8x8x8");
    EXPECT_DOUBLE_EQ(lower_bound(cubic(8, false), *t), 3072);
    EXPECT_DOUBLE_EQ(lower_bound(cubic(8, true), *t), 12288);
}

TEST(FreeEnergy, RankOrderOfACubeOnItsTorusIsIdeal) {
    auto t = parse_topology("torus:8x8x8");
    EXPECT_DOUBLE_EQ(free_energy(cubic(8, false), *t, identity(512)), 3072);
    EXPECT_DOUBLE_EQ(free_energy(cubic(8, true), *t, identity(512)), 12288);
}

TEST(FreeEnergy, RandomPlacementsReproduceSeed000Reference) {
    // Seed 000 Table 1: random F/F_min = 5.94 (cubic1), 4.56 (cubic2); mean of 100.
    auto t = parse_topology("torus:8x8x8");
    for (bool second : {false, true}) {
        Graph g = cubic(8, second);
        ProblemData d = prepare(g, *t);
        double sum = 0;
        for (int s = 0; s < 100; ++s) {
            Options o;
            o.seed = static_cast<uint64_t>(s) + 1;
            Problem p{g, d.sym, *t, d.cap, d.f_min, std::nullopt, o, Deadline(0), nullptr, {}};
            sum += free_energy(g, *t, map_random(p)) / d.f_min;
        }
        double mean = sum / 100, ref = second ? 4.56 : 5.94;
        EXPECT_NEAR(mean, ref, 0.05 * ref) << (second ? "cubic2" : "cubic1");
    }
}

TEST(LowerBound, IsNeverAboveAnyPlacement) {
    Rng rng(7);
    for (const char *spec : {"torus:4x4x2", "mesh:4x4x2", "tree:2x2x8:cost=100,10,1", "torus:4x4:slots=2"}) {
        auto t = parse_topology(spec);
        const int n = t->size() * t->slots();
        std::vector<Edge> es;
        for (int k = 0; k < 4 * n; ++k) es.push_back({static_cast<int>(rng.below(n)), static_cast<int>(rng.below(n)), 1.0 + rng.below(5)});
        Graph g = Graph::from_edges(n, es);
        ProblemData d = prepare(g, *t);
        for (int s = 0; s < 20; ++s) {
            Options o;
            o.seed = static_cast<uint64_t>(s);
            Problem p{g, d.sym, *t, d.cap, d.f_min, std::nullopt, o, Deadline(0), nullptr, {}};
            EXPECT_LE(d.f_min, free_energy(g, *t, map_random(p)) + 1e-9) << spec;
        }
    }
}

TEST(Evaluate, ReportsDilationAndLinkLoad) {
    auto t = parse_topology("torus:4");
    Graph g = Graph::from_edges(4, {{0, 2, 3}, {1, 2, 1}});
    CostReport r = evaluate(g, *t, identity(4));
    EXPECT_DOUBLE_EQ(r.F, 3 * 2 + 1 * 1);
    EXPECT_DOUBLE_EQ(r.avg_dilation, 7.0 / 4.0);
    // 0->2 goes 0->1->2 (ties go the positive way), 1->2 shares link 1->2
    EXPECT_DOUBLE_EQ(r.max_link_load, 4);
}

TEST(Placement, CapacityIsChecked) {
    auto t = parse_topology("torus:2x2:slots=2");
    EXPECT_NO_THROW(check_placement(*t, 6, {0, 0, 1, 2, 3, 1}));
    EXPECT_THROW(check_placement(*t, 6, {0, 0, 0, 2, 3, 1}), Error);  // node 0 holds 3 > 2
    EXPECT_THROW(check_placement(*t, 8, {0, 0, 1, 1, 2, 2, 2, 3}), Error);
    EXPECT_THROW(check_placement(*t, 2, {0, 4}), Error);
}

TEST(Placement, TopologyTooSmallIsAClearError) {
    auto t = parse_topology("torus:2x2");
    Graph g = Graph::from_edges(5, {{0, 4, 1}});
    try {
        prepare(g, *t);
        FAIL() << "accepted 5 tasks on 4 nodes with 1 slot";
    } catch (const Error &e) {
        EXPECT_EQ(e.kind(), ErrorKind::TooSmall);
        EXPECT_NE(std::string(e.what()).find("too small"), std::string::npos);
    }
}

TEST(Mappers, IdentityAndRandomAreValidAndDeterministic) {
    auto t = parse_topology("torus:4x4:slots=3");
    Graph g = Graph::from_edges(37, {{0, 36, 1}});
    ProblemData d = prepare(g, *t);
    Options o;
    o.seed = 5;
    Problem p{g, d.sym, *t, d.cap, d.f_min, std::nullopt, o, Deadline(0), nullptr, {}};
    auto a = run_mapper(Algorithm::Random, p), b = run_mapper(Algorithm::Random, p);
    EXPECT_EQ(a, b);
    EXPECT_NO_THROW(check_placement(*t, 37, run_mapper(Algorithm::Identity, p)));
    EXPECT_THROW(parse_algorithm("simulated"), Error);
}

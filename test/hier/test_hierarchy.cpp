// test_hierarchy.cpp -- the hierarchy mappers (Algorithm::Hier, and auto on
// tree topologies): node-aware Cartesian blocks keep the least inter-node
// surface (checked against this file's own brute-force enumeration of the
// block tilings), placements are valid under every capacity, the same seed
// gives the same mapping, bad tier descriptions give clear errors, and the
// node-tier k-way refinement keeps exact part sizes, never raises the cut
// and mends 3-cycles of misplaced vertices that pair exchanges cannot.
#include <gtest/gtest.h>

#include <memory>
#include <numeric>
#include <string>

#include "common/error.hpp"
#include "common/rng.hpp"
#include "cost/cost.hpp"
#include "map/hier/hier.hpp"
#include "map/mapper.hpp"
#include "workload/workload.hpp"

using namespace rankmap;

namespace {

struct Fixture {
    Graph g;
    std::unique_ptr<Topology> topo;
    ProblemData d;
    Options opt;
    std::optional<CartGrid> grid;
    std::vector<std::string> log;
    Fixture(Graph graph, const std::string &spec, uint64_t seed = 1)
        : g(std::move(graph)), topo(parse_topology(spec)), d(prepare(g, *topo)) {
        opt.seed = seed;
    }
    Problem problem() {
        return Problem{g, d.sym, *topo, d.cap, d.f_min, grid, opt, Deadline(0), nullptr,
                       [this](const std::string &s) { log.push_back(s); }};
    }
    std::vector<int> map(Algorithm a) { return run_mapper(a, problem()); }
};

// Traffic (directed sum of C) between tasks on different nodes, a node
// being `per_node` consecutive leaves.
double internode(const Graph &g, const std::vector<int> &place, int per_node) {
    double t = 0;
    for (int v = 0; v < g.n(); ++v)
        for (int64_t e = g.begin(v); e < g.end(v); ++e)
            if (place[v] / per_node != place[g.target(e)] / per_node) t += g.weight(e);
    return t;
}

// Brute force, independent of the library's block code: every box shape b
// with b_i | dims_i and prod b = per_node; grid point -> node by its box
// index; inter-node traffic counted edge by edge on the graph.  Returns the
// least traffic over all shapes.
double brute_force_min_internode(const Graph &g, const std::vector<int> &dims, int per_node) {
    const int nd = static_cast<int>(dims.size());
    const int N = g.n();
    double best = -1;
    std::vector<int> b(nd, 1);
    std::vector<int> node(N);
    for (;;) {
        int prod = 1;
        for (int x : b) prod *= x;
        if (prod == per_node) {
            for (int p = 0; p < N; ++p) {
                int r = p, box = 0, mul = 1;
                for (int i = nd - 1; i >= 0; --i) {
                    const int c = r % dims[i];
                    r /= dims[i];
                    box += (c / b[i]) * mul;
                    mul *= dims[i] / b[i];
                }
                node[p] = box * per_node;  // any leaf of the box's node
            }
            const double t = internode(g, node, per_node);
            if (best < 0 || t < best) best = t;
        }
        int i = 0;
        for (; i < nd; ++i) {
            if (++b[i] <= dims[i]) break;
            b[i] = 1;
        }
        if (i == nd) break;
    }
    return best;
}

std::vector<int> scramble(int n, uint64_t seed) {
    std::vector<int> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    Rng rng(seed);
    shuffle(perm, rng);
    return perm;
}

struct HaloCase {
    std::vector<int> dims;
    std::vector<int> periods;
};

class CartesianHaloOnFourNodes : public ::testing::TestWithParam<HaloCase> {};

TEST_P(CartesianHaloOnFourNodes, KeepsTheLeastInterNodeSurface) {
    const HaloCase c = GetParam();
    const Graph g = cartesian_graph(c.dims, c.periods);
    ASSERT_EQ(g.n(), 64);
    const double least = brute_force_min_internode(g, c.dims, 16);
    ASSERT_GT(least, 0);
    // Rank order (slabs) is not always the least: the mapper must find it.
    for (Algorithm a : {Algorithm::Hier, Algorithm::Auto}) {
        Fixture f(g, "tree:4x2x8:cost=100,10,1");
        f.grid = CartGrid{c.dims, c.periods};
        const std::vector<int> place = f.map(a);
        EXPECT_DOUBLE_EQ(internode(g, place, 16), least) << algorithm_name(a);
    }
    // Scrambled labels, no grid given: auto and hier recognise the grid.
    const Graph s = g.relabeled(scramble(64, 5));
    for (Algorithm a : {Algorithm::Hier, Algorithm::Auto}) {
        Fixture f(s, "tree:4x2x8:cost=100,10,1");
        EXPECT_DOUBLE_EQ(internode(s, f.map(a), 16), least) << algorithm_name(a) << " (scrambled)";
    }
}

INSTANTIATE_TEST_SUITE_P(Grids, CartesianHaloOnFourNodes,
                         ::testing::Values(HaloCase{{4, 4, 4}, {1, 1, 1}}, HaloCase{{4, 4, 4}, {0, 0, 0}},
                                           HaloCase{{8, 8}, {1, 1}}, HaloCase{{8, 8}, {0, 0}},
                                           HaloCase{{16, 4}, {0, 1}}, HaloCase{{2, 32}, {1, 0}}));

TEST(TreeGridBlocks, ReportsTheShapeOfEachTier) {
    // Non-periodic 4x4x4 on 4 nodes x 2 sockets x 8 cores: least inter-node
    // surface is two cuts (2x2x4-like boxes of 16, 32 edges), and each
    // node's box halves into boxes of 8.
    Fixture f(cartesian_graph({4, 4, 4}, {0, 0, 0}), "tree:4x2x8:cost=100,10,1");
    f.grid = CartGrid{{4, 4, 4}, {0, 0, 0}};
    std::string why;
    std::vector<std::string> shapes;
    const Problem p = f.problem();
    const std::vector<int> nodes = tree_grid_blocks(p, *f.grid, nullptr, &why, &shapes);
    ASSERT_EQ(nodes.size(), 64u) << why;
    ASSERT_EQ(shapes.size(), 3u);
    // Shapes are "AxBxC": the products must be 16, 8 and 1.
    auto product = [](const std::string &s) {
        int prod = 1, cur = 0;
        for (char ch : s + "x") {
            if (ch == 'x') {
                prod *= cur;
                cur = 0;
            } else {
                cur = cur * 10 + (ch - '0');
            }
        }
        return prod;
    };
    EXPECT_EQ(product(shapes[0]), 16);
    EXPECT_EQ(product(shapes[1]), 8);
    EXPECT_EQ(product(shapes[2]), 1);
    EXPECT_NE(shapes[0], "4x4x1");  // slabs cut 48 edges, boxes 32
    std::vector<int> count(64, 0);
    for (int v : nodes) ++count[v];
    for (int c : count) EXPECT_EQ(c, 1);
}

TEST(TreeGridBlocks, FallsBackWhenRanksPerNodeDoNotTileTheGrid) {
    // 60 tasks on 64 leaves: not a whole number per leaf -> no blocks; hier
    // still maps (multisection) and says so on the progress channel.
    Fixture f(cartesian_graph({6, 10}, {0, 0}), "tree:4x2x8:cost=100,10,1");
    f.grid = CartGrid{{6, 10}, {0, 0}};
    std::string why;
    const Problem p = f.problem();
    EXPECT_TRUE(tree_grid_blocks(p, *f.grid, nullptr, &why).empty());
    EXPECT_NE(why.find("60 tasks on 64 leaves"), std::string::npos) << why;
    const std::vector<int> place = f.map(Algorithm::Hier);
    EXPECT_NO_THROW(check_placement(*f.topo, 60, place));
    bool said = false;
    for (const auto &s : f.log) said = said || s.find("partition-based") != std::string::npos;
    EXPECT_TRUE(said);
    // Still better than rank order on the node tier.
    std::vector<int> ident = f.map(Algorithm::Identity);
    EXPECT_LE(free_energy(f.g, *f.topo, place), free_energy(f.g, *f.topo, ident));
}

TEST(HierMapper, GivesValidPlacementsUnderEveryCapacity) {
    const Graph umt = workload_umt(96, 3);
    // one task per leaf, fewer tasks than leaves, several tasks per leaf
    for (const char *spec : {"tree:4x3x8:cost=100,10,1", "tree:4x4x8:cost=100,10,1", "tree:3x2x8:slots=2",
                             "tree:2x2x2x12:cost=1000,100,10,1", "tree:96"}) {
        Fixture f(umt, spec);
        std::vector<int> place;
        ASSERT_NO_THROW(place = f.map(Algorithm::Hier)) << spec;
        EXPECT_NO_THROW(check_placement(*f.topo, 96, place)) << spec;
        std::vector<int> ms = tree_multisection(f.problem(), 1, 2);
        EXPECT_NO_THROW(check_placement(*f.topo, 96, ms)) << spec;
    }
}

TEST(HierMapper, BeatsRankOrderOnScrambledIrregularWorkloads) {
    const Graph g = workload_umt(128, 2).relabeled(scramble(128, 9));
    Fixture f(g, "tree:8x2x8:cost=100,10,1");
    const double hier = free_energy(g, *f.topo, f.map(Algorithm::Hier));
    const double ident = free_energy(g, *f.topo, f.map(Algorithm::Identity));
    EXPECT_LT(hier, 0.8 * ident);
    // The multisection's inter-node traffic is at most rank order's.
    EXPECT_LE(internode(g, tree_multisection(f.problem(), 1, 4), 16), internode(g, f.map(Algorithm::Identity), 16));
}

// (auto's work is clock-independent too, but its safety-net deadline, 10x
// a budget of ~0.13 s at this size, can cut it short on a loaded machine,
// so its determinism is tested on the torus in test_mappers only.)
TEST(HierMapper, SameSeedSameMapping) {
    const Graph g = workload_umt(128, 4).relabeled(scramble(128, 4));
    Fixture f1(g, "tree:8x2x8:cost=100,10,1", 7), f2(g, "tree:8x2x8:cost=100,10,1", 7);
    EXPECT_EQ(f1.map(Algorithm::Hier), f2.map(Algorithm::Hier));
    EXPECT_EQ(tree_multisection(f1.problem(), 3, 4), tree_multisection(f2.problem(), 3, 4));
    // A different seed is allowed to differ but must stay valid.
    Fixture f3(g, "tree:8x2x8:cost=100,10,1", 8);
    EXPECT_NO_THROW(check_placement(*f3.topo, 128, f3.map(Algorithm::Hier)));
}

// The fast strategy's tree path (hier_fast_preset) above 1024 tasks: one
// multisection, no chain, one KL pass per step, fewer node-tier cycles.
// Valid, the same for the same seed, and the inter-node traffic below rank
// order's.  Run through tree_refined_map with the preset, so the safety
// net of auto's clock plays no part.
TEST(HierMapper, FastPresetAbove1024TasksIsValidAndDeterministic) {
    const Graph g = workload_umt(2048, 6).relabeled(scramble(2048, 6));
    Fixture f(g, "tree:128x2x8:cost=100,10,1");
    const HierContext hc = hier_fast_preset(2048);
    ASSERT_EQ(hc.sweeps, 0);
    ASSERT_FALSE(hc.scotch_start);
    const std::vector<int> a = tree_refined_map(f.problem(), Deadline(0), hc);
    EXPECT_NO_THROW(check_placement(*f.topo, 2048, a));
    EXPECT_EQ(a, tree_refined_map(f.problem(), Deadline(0), hc));
    EXPECT_LT(internode(g, a, 16), internode(g, f.map(Algorithm::Identity), 16));
    // Up to 1024 tasks the fast tree path is the quality one.
    EXPECT_EQ(hier_fast_preset(1024).sweeps, hier_preset(1024).sweeps);
}

TEST(HierMapper, ListedByNameAndRefusesNonTrees) {
    EXPECT_EQ(parse_algorithm("hier"), Algorithm::Hier);
    bool listed = false;
    for (const auto &n : algorithm_names()) listed = listed || n == "hier";
    EXPECT_TRUE(listed);
    Fixture f(cartesian_graph({4, 4}, {1, 1}), "torus:4x4");
    try {
        f.map(Algorithm::Hier);
        FAIL() << "hier on a torus did not throw";
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("needs a tree topology"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("torus:4x4"), std::string::npos) << e.what();
    }
}

TEST(TierTraffic, SplitsTheTrafficByTheTierOfTheCommonAncestor) {
    // Ring of 8 tasks in rank order on 2 nodes x 2 sockets x 2 cores.
    std::vector<Edge> es;
    for (int i = 0; i < 8; ++i) {
        es.push_back({i, (i + 1) % 8, 1.0});
        es.push_back({(i + 1) % 8, i, 1.0});
    }
    const Graph g = Graph::from_edges(8, es).symmetrized();
    auto topo = parse_topology("tree:2x2x2:cost=100,10,1");
    std::vector<int> place(8);
    std::iota(place.begin(), place.end(), 0);
    const std::vector<double> t = tier_traffic(*as_tree(*topo), g, place);
    ASSERT_EQ(t.size(), 3u);
    EXPECT_DOUBLE_EQ(t[0], 4);  // 3-4 and 7-0, both directions
    EXPECT_DOUBLE_EQ(t[1], 4);  // 1-2 and 5-6
    EXPECT_DOUBLE_EQ(t[2], 8);  // 0-1, 2-3, 4-5, 6-7
}

std::string parse_error(const std::string &spec) {
    try {
        parse_topology(spec);
    } catch (const Error &e) {
        return e.what();
    }
    return "no error";
}

TEST(TreeDescriptions, BadTiersGiveClearErrorsNamingTheString) {
    struct Bad {
        const char *spec;
        const char *says;
    };
    const Bad cases[] = {
        {"tree:4x0x8", "tier '0' must be at least 1"},
        {"tree:4x-2x8", "tier '-2' must be at least 1"},
        {"tree:4xfourx8", "tier 'four' is not a whole number"},
        {"tree:4x2x8:cost=100,10", "3 tiers but 2 costs"},
        {"tree:4x2x8:cost=100,10,1,0", "3 tiers but 4 costs"},
        {"tree:4x2:cost=1,-1", "tier cost '-1' must be a number >= 0"},
        {"tree:4x2:cost=1,cheap", "tier cost 'cheap' must be a number >= 0"},
        {"tree:4x2:cost=", "empty entry"},
        {"tree:4x2x8:cost=100,,1", "empty entry"},
        {"tree:4x2:cost=nan,1", "tier cost 'nan'"},
        {"tree:4x2x2x2x2x2x2", "at most 6 tiers"},
        {"tree:4096x4096x4", "16,777,216 leaves"},
        {"tree:4x2:wrap=11", "unknown option 'wrap' for tree"},
        {"tree:", "no tiers"},
        {"tree:4xx2", "malformed tiers"},
    };
    for (const Bad &b : cases) {
        const std::string m = parse_error(b.spec);
        EXPECT_NE(m.find(b.says), std::string::npos) << b.spec << " -> " << m;
        EXPECT_NE(m.find(std::string("'") + b.spec + "'"), std::string::npos) << b.spec << " -> " << m;
    }
    // Good ones still parse.
    EXPECT_EQ(parse_topology("tree:4x2x8:cost=100,10,1")->size(), 64);
    EXPECT_EQ(parse_topology("tree:4x2x8")->describe(), "tree:4x2x8:cost=100,10,1");
}

} // namespace

// ---- k-way node-tier refinement (src/map/hier/kway.cpp) ----

namespace {

double cut_of(const Graph &sym, const std::vector<int> &part) {
    double c = 0;
    for (int v = 0; v < sym.n(); ++v)
        for (int64_t e = sym.begin(v); e < sym.end(v); ++e)
            if (sym.target(e) > v && part[sym.target(e)] != part[v]) c += sym.weight(e);
    return c;
}

std::vector<int> sizes_of(const std::vector<int> &part, int k) {
    std::vector<int> s(k, 0);
    for (int p : part) ++s[p];
    return s;
}

} // namespace

TEST(KwayRefineExact, KeepsEveryPartSizeAndNeverRaisesTheCut) {
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        Rng rng(seed);
        const int n = 60 + static_cast<int>(rng.below(80)), k = 3 + static_cast<int>(rng.below(8));
        std::vector<Edge> edges;
        for (int v = 0; v < n; ++v)
            for (int d = 0; d < 4; ++d) {
                const int u = static_cast<int>(rng.below(n));
                if (u != v) edges.push_back({v, u, 1.0 + static_cast<double>(rng.below(9))});
            }
        const Graph sym = Graph::from_edges(n, edges).symmetrized();
        // Unequal part sizes: a random labelling, every part non-empty.
        std::vector<int> part(n);
        for (int v = 0; v < n; ++v) part[v] = v < k ? v : static_cast<int>(rng.below(k));
        std::vector<int> start = part;
        const double before = cut_of(sym, part);
        const double gain = kway_refine_exact(sym, k, part, seed, 6, seed % 2 ? 3 : 0, Deadline(0));
        const double after = cut_of(sym, part);
        EXPECT_EQ(sizes_of(part, k), sizes_of(start, k)) << "seed " << seed;
        EXPECT_LE(after, before + 1e-9) << "seed " << seed;
        EXPECT_NEAR(gain, before - after, 1e-6 * (1 + before)) << "seed " << seed;
        // A random labelling of a connected random graph is far from a
        // local optimum: the refinement must find something.
        EXPECT_LT(after, before) << "seed " << seed;
    }
}

// Planted clusters (cliques of weight 10, joined in a ring by weight-1
// edges) whose labels are rotated along 3-cycles of parts: no single move
// keeps the sizes, and the pair swaps of the other refiners cannot mend a
// 3-cycle in one step.  The refinement must return to the planted cut,
// which is the least possible (any other split cuts a clique edge, weight
// 10, while the planted one cuts only the ring).
TEST(KwayRefineExact, UndoesRotationsAmongPlantedClusters) {
    const int k = 12, m = 6, n = k * m;
    std::vector<Edge> edges;
    for (int c = 0; c < k; ++c) {
        for (int i = 0; i < m; ++i)
            for (int j = i + 1; j < m; ++j) edges.push_back({c * m + i, c * m + j, 10.0});
        edges.push_back({c * m, ((c + 1) % k) * m + 1, 1.0});
    }
    const Graph sym = Graph::from_edges(n, edges).symmetrized();
    std::vector<int> planted(n);
    for (int v = 0; v < n; ++v) planted[v] = v / m;
    std::vector<int> part = planted;
    for (int c = 0; c + 2 < k; c += 3) {  // vertex 2 of c -> c+1, of c+1 -> c+2, of c+2 -> c
        part[c * m + 2] = c + 1;
        part[(c + 1) * m + 2] = c + 2;
        part[(c + 2) * m + 2] = c;
    }
    ASSERT_GT(cut_of(sym, part), cut_of(sym, planted));
    kway_refine_exact(sym, k, part, 1, 4, 0, Deadline(0));
    EXPECT_EQ(sizes_of(part, k), sizes_of(planted, k));
    EXPECT_DOUBLE_EQ(cut_of(sym, part), cut_of(sym, planted));
}

TEST(KwayRefineExact, NodeTierOfAPlacementStaysValidAndLosesNoInterNodeTraffic) {
    const Graph g = workload_umt(256, 5).relabeled(scramble(256, 6));
    Fixture f(g, "tree:16x2x8:cost=100,10,1");
    // A random placement: leaves shuffled.
    std::vector<int> place = scramble(256, 7);
    const std::vector<int> out = refine_node_tier(f.problem(), place, 3, 8, 5, Deadline(0));
    EXPECT_NO_THROW(check_placement(*f.topo, 256, out));
    std::vector<int> n0(16, 0), n1(16, 0);
    for (int t = 0; t < 256; ++t) {
        ++n0[place[t] / 16];
        ++n1[out[t] / 16];
    }
    EXPECT_EQ(n0, n1);
    EXPECT_LT(internode(g, out, 16), internode(g, place, 16));
    // Deterministic for a seed.
    EXPECT_EQ(out, refine_node_tier(f.problem(), place, 3, 8, 5, Deadline(0)));
}

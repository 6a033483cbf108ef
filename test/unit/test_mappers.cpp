// test_mappers.cpp -- the optimising mappers (greedy, anneal, dc-anneal,
// kl, auto) and the incremental energy state they share.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>

#include "common/rng.hpp"
#include "config.h"  // RANKMAP_HAVE_SCOTCH
#include "cost/cost.hpp"
#include "map/cartesian/transpose.hpp"
#include "map/initial/initial.hpp"
#include "map/initial/multilevel.hpp"
#include "map/mapper.hpp"
#include "map/tuning.hpp"
#include "workload/workload.hpp"

using namespace rankmap;

namespace {

// Periodic 3-D grid, weight 1 to the 6 nearest neighbours (cubic1).
Graph grid3(int a, int b, int c, bool periodic = true) {
    return cartesian_graph({a, b, c}, {periodic, periodic, periodic});
}

Graph scrambled(const Graph &g, uint64_t seed) {
    std::vector<int> perm(g.n());
    std::iota(perm.begin(), perm.end(), 0);
    Rng rng(seed);
    shuffle(perm, rng);
    return g.relabeled(perm);
}

// Random graph with varied weights (irregular, like UMT).
Graph random_graph(int n, int deg, uint64_t seed) {
    Rng rng(seed);
    std::vector<Edge> es;
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < deg; ++k) {
            int j = static_cast<int>(rng.below(n));
            if (j != i) es.push_back({i, j, 1.0 + rng.below(9)});
        }
    return Graph::from_edges(n, es);
}

// Owns everything a Problem refers to.
struct Fixture {
    Graph g;
    std::unique_ptr<Topology> topo;
    ProblemData d;
    Options opt;
    Fixture(Graph graph, const std::string &spec, uint64_t seed = 1)
        : g(std::move(graph)), topo(parse_topology(spec)), d(prepare(g, *topo)) {
        opt.seed = seed;
    }
    Problem problem() const {
        return Problem{g, d.sym, *topo, d.cap, d.f_min, std::nullopt, opt, Deadline(0), nullptr, {}};
    }
    double F(const std::vector<int> &place) const { return free_energy(g, *topo, place); }
};

const Algorithm kOptimisers[] = {Algorithm::Greedy, Algorithm::Anneal, Algorithm::DivideAnneal,
                                 Algorithm::KernighanLin, Algorithm::Auto, Algorithm::Congestion};

void expect_capacity(const Fixture &f, const std::vector<int> &place) {
    ASSERT_EQ(place.size(), static_cast<size_t>(f.g.n()));
    std::vector<int> count(f.topo->size(), 0);
    for (int v : place) {
        ASSERT_GE(v, 0);
        ASSERT_LT(v, f.topo->size());
        ++count[v];
    }
    for (int c : count) {
        EXPECT_GE(c, f.d.cap.lo);
        EXPECT_LE(c, f.d.cap.hi);
    }
}

// f's problem, its progress lines appended to `lines`.
Problem recording(const Fixture &f, std::vector<std::string> &lines) {
    Problem p = f.problem();
    p.progress = [&lines](const std::string &m) { lines.push_back(m); };
    return p;
}

// Whether a progress line starts with `prefix`.
bool has_line(const std::vector<std::string> &lines, const std::string &prefix) {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string &m) { return m.rfind(prefix, 0) == 0; });
}

} // namespace

TEST(PlacementState, IncrementalEnergyEqualsFullRecomputationAfterRandomMovesAndSwaps) {
    // 150 tasks on 64 nodes: lo = 2, hi = 3, so moves and swaps both occur.
    Fixture f(random_graph(150, 5, 3), "torus:4x4x4:slots=3");
    Problem p = f.problem();
    std::vector<int> place = run_mapper(Algorithm::Random, p);
    PlacementState st(f.d.sym, *f.topo, f.d.cap, place);
    Rng rng(9);
    int moves = 0, swaps = 0;
    for (int it = 0; it < 5000; ++it) {
        int a = static_cast<int>(rng.below(150));
        if (rng.below(2)) {
            int b = static_cast<int>(rng.below(150));
            if (b == a) continue;
            double before = st.energy();
            double d = st.delta_swap(a, b);
            st.apply_swap(a, b, d);
            EXPECT_NEAR(st.energy(), before + d, 1e-9);
            ++swaps;
        } else {
            int node = static_cast<int>(rng.below(64));
            if (!st.can_move(a, node)) continue;
            st.apply_move(a, node, st.delta_move(a, node));
            ++moves;
        }
        if (it % 250 == 0) {
            ASSERT_NEAR(st.energy(), st.full_energy(), 1e-6);
        }
    }
    EXPECT_GT(moves, 100);
    EXPECT_GT(swaps, 1000);
    EXPECT_NEAR(st.energy(), st.full_energy(), 1e-6);
    EXPECT_NEAR(st.energy(), f.F(st.place()), 1e-6);
    // Moves kept every node within [lo, hi].
    check_placement(*f.topo, 150, st.place());
}

TEST(PlacementState, PartialPlacementCountsOnlyPlacedPairsAndKeepsRoomForTheRest) {
    Fixture f(random_graph(100, 4, 5), "torus:4x4x4:slots=2");  // lo = 1, hi = 2
    PlacementState st(f.d.sym, *f.topo, f.d.cap, std::vector<int>(100, -1));
    EXPECT_EQ(st.energy(), 0.0);
    // Fill nodes with two tasks each while it is allowed; the rule must stop
    // us before the remaining tasks could no longer give every node one.
    int t = 0;
    for (int node = 0; node < 64 && t < 100; ++node)
        for (int k = 0; k < 2 && t < 100; ++k)
            if (st.can_place(node)) st.place_task(t++, node);
    for (int node = 0; node < 64 && t < 100; ++node)
        while (t < 100 && st.can_place(node)) st.place_task(t++, node);
    EXPECT_EQ(t, 100);
    EXPECT_NEAR(st.energy(), st.full_energy(), 1e-9);
    check_placement(*f.topo, 100, st.place());
    st.unplace_task(7);
    EXPECT_NEAR(st.energy(), st.full_energy(), 1e-9);
}

TEST(NearNodes, ComputedNearNodesEqualTheListsOnEveryTorusAndFallBackElsewhere) {
    // Tori compute at() from offsets; a dimension of 2 (the two neighbours
    // coincide) and meshes (no wrap at the faces) may not: there at() must
    // still give the list.
    struct Case { const char *spec; bool computed; };
    for (const Case &c : {Case{"torus:8x8x8", true}, Case{"torus:3x5x7", true}, Case{"torus:16x4", true},
                          Case{"torus:4x4x2", false}, Case{"mesh:4x4x4", false}, Case{"tree:4x4", false}}) {
        auto topo = parse_topology(c.spec);
        NearNodes near(*topo, near_count(*topo));
        if (c.computed) {
            EXPECT_TRUE(near.computed()) << c.spec;
        }
        for (int v = 0; v < topo->size(); ++v)
            for (int i = 0; i < near.k(); ++i) ASSERT_EQ(near.at(v, i), near.of(v)[i]) << c.spec << " node " << v << " i " << i;
    }
}

TEST(Mappers, EveryOptimiserReturnsAValidPlacementWithOneTaskPerNode) {
    Fixture f(scrambled(grid3(4, 4, 4), 2), "torus:4x4x4");
    for (Algorithm a : kOptimisers) {
        SCOPED_TRACE(algorithm_name(a));
        std::vector<int> place = run_mapper(a, f.problem());
        expect_capacity(f, place);
    }
}

TEST(Mappers, EveryOptimiserHandlesSeveralTasksPerNode) {
    // 1024 tasks on 512 nodes: exactly two per node.
    Fixture f(scrambled(grid3(16, 8, 8), 4), "torus:8x8x8:slots=2");
    for (Algorithm a : kOptimisers) {
        SCOPED_TRACE(algorithm_name(a));
        Problem p = f.problem();
        p.opt.time_limit = 0.3;
        std::vector<int> place = run_mapper(a, p);
        expect_capacity(f, place);
    }
}

TEST(Mappers, EveryOptimiserHandlesUnevenLoads) {
    // 100 tasks on 64 nodes: one or two per node.
    Fixture f(random_graph(100, 4, 8), "torus:4x4x4:slots=2");
    for (Algorithm a : kOptimisers) {
        SCOPED_TRACE(algorithm_name(a));
        expect_capacity(f, run_mapper(a, f.problem()));
    }
}

TEST(Mappers, EveryOptimiserHandlesFewerTasksThanNodes) {
    Fixture f(random_graph(40, 3, 11), "torus:4x4x4");
    for (Algorithm a : kOptimisers) {
        SCOPED_TRACE(algorithm_name(a));
        std::vector<int> place = run_mapper(a, f.problem());
        expect_capacity(f, place);
        std::vector<int> sorted = place;
        std::sort(sorted.begin(), sorted.end());
        EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
    }
}

TEST(Mappers, SameSeedGivesSameMapping) {
    Fixture f(random_graph(128, 4, 13), "torus:8x4x4", 42);
    for (Algorithm a : kOptimisers) {
        SCOPED_TRACE(algorithm_name(a));
        EXPECT_EQ(run_mapper(a, f.problem()), run_mapper(a, f.problem()));
    }
}

TEST(Mappers, WorkOnATreeMachine) {
    Fixture f(random_graph(64, 4, 17), "tree:4x4x4:cost=100,10,1");
    for (Algorithm a : kOptimisers) {
        SCOPED_TRACE(algorithm_name(a));
        expect_capacity(f, run_mapper(a, f.problem()));
    }
}

TEST(Greedy, BeatsRandomPlacementOnAGrid) {
    Fixture f(scrambled(grid3(8, 8, 8), 6), "torus:8x8x8");
    double greedy = f.F(run_mapper(Algorithm::Greedy, f.problem()));
    double random = f.F(run_mapper(Algorithm::Random, f.problem()));
    EXPECT_LT(greedy, 0.6 * random);
}

TEST(Anneal, FindsTheOptimumOfAScrambledPeriodicGrid) {
    Fixture f(scrambled(grid3(4, 4, 4), 21), "torus:4x4x4");
    std::vector<int> place = run_mapper(Algorithm::Anneal, f.problem());
    EXPECT_NEAR(f.F(place) / f.d.f_min, 1.0, 1e-12);
}

TEST(Anneal, FillsOneTracePointPerBetaStepAndEndsColderThanItStarts) {
    Fixture f(scrambled(grid3(4, 4, 4), 23), "torus:4x4x4");
    std::vector<TracePoint> trace;
    Problem p = f.problem();
    p.opt.anneal_steps = 40;
    p.trace = &trace;
    int calls = 0;
    p.progress = [&](const std::string &) { ++calls; };
    run_mapper(Algorithm::Anneal, p);
    ASSERT_EQ(trace.size(), 40u);
    EXPECT_GT(trace.back().beta, trace.front().beta);
    EXPECT_LT(trace.back().acceptance, trace.front().acceptance);
    EXPECT_GE(calls, 4);
}

TEST(Anneal, ImprovesOnGreedyForAnIrregularGraph) {
    Fixture f(random_graph(256, 4, 29), "torus:8x8x4");
    double greedy = f.F(run_mapper(Algorithm::Greedy, f.problem()));
    double anneal = f.F(run_mapper(Algorithm::Anneal, f.problem()));
    EXPECT_LT(anneal, greedy);
}

TEST(KernighanLin, NeverIncreasesTheFreeEnergy) {
    for (uint64_t seed : {1, 2, 3}) {
        Fixture f(random_graph(200, 4, 30 + seed), "torus:4x4x4:slots=4", seed);
        Problem p = f.problem();
        std::vector<int> place = run_mapper(Algorithm::Random, p);
        double before = f.F(place);
        kl_refine(p, place, Deadline(0));
        check_placement(*f.topo, 200, place);
        EXPECT_LT(f.F(place), before);
        // A second refinement of a KL-optimal placement changes nothing upward.
        double after = f.F(place);
        kl_refine(p, place, Deadline(0));
        EXPECT_LE(f.F(place), after + 1e-9);
    }
}

TEST(DivideAnneal, StopsSplittingAtTheLRatioLimit) {
    // Halves of a periodic 8x8x8 grid (8x8x4 slabs) have l = 0.917: with
    // L above that the whole graph is one subgraph; lower limits split
    // further, and a lower L never gives fewer subgraphs.
    Fixture f(scrambled(grid3(8, 8, 8), 31), "torus:8x8x8");
    size_t prev = 0;
    for (double L : {0.95, 0.85, 0.7}) {
        SCOPED_TRACE(L);
        Problem p = f.problem();
        p.opt.l_ratio = L;
        std::vector<size_t> leaves;
        std::vector<int> place = divide_anneal_with_leaves(p, &leaves);
        expect_capacity(f, place);
        EXPECT_EQ(std::accumulate(leaves.begin(), leaves.end(), size_t{0}), 512u);
        if (L == 0.95) {
            EXPECT_EQ(leaves.size(), 1u);
        }
        if (L == 0.7) {
            EXPECT_GE(leaves.size(), 4u);
        }
        EXPECT_GE(leaves.size(), prev);
        prev = leaves.size();
    }
}

TEST(DivideAnneal, RejectsAnLRatioAboveOne) {
    Fixture f(grid3(4, 4, 4), "torus:4x4x4");
    Problem p = f.problem();
    p.opt.l_ratio = 1.5;
    EXPECT_THROW(map_divide_anneal(p), Error);
}

TEST(Auto, IsAtLeastAsGoodAsGreedy) {
    Fixture f(random_graph(256, 4, 37), "torus:8x8x4");
    double greedy = f.F(run_mapper(Algorithm::Greedy, f.problem()));
    double best = f.F(run_mapper(Algorithm::Auto, f.problem()));
    EXPECT_LE(best, greedy);
}

// The link-load mapper starts from auto's placement and keeps a result only
// if its busiest link (dimension-order routes) is lighter.
TEST(Congestion, LightensTheBusiestLinkOfAutosPlacement) {
    Fixture f(random_graph(256, 6, 23), "torus:8x8x4");
    const std::vector<int> a = run_mapper(Algorithm::Auto, f.problem());
    const std::vector<int> c = run_mapper(Algorithm::Congestion, f.problem());
    expect_capacity(f, c);
    const double la = evaluate(f.g, *f.topo, a).max_link_load, lc = evaluate(f.g, *f.topo, c).max_link_load;
    EXPECT_LT(lc, la);
}

// Up to 1024 tasks it starts from the lightest of eight auto runs (seeds
// seed..seed+7): its busiest link is no heavier than that of any of the
// first four.  On this SAGE-like graph those four differ (the chain from
// seed 1's start alone ended at 12288, the lightest of them is 9984).
TEST(Congestion, StartsFromTheLightestOfSeveralAutoRuns) {
    Fixture f(workload_sage(512, 13824), "torus:8x8x8", 1);
    std::vector<double> loads;
    for (uint64_t s = 1; s <= 4; ++s) {
        Problem q = f.problem();
        q.opt.seed = s;
        loads.push_back(evaluate(f.g, *f.topo, run_mapper(Algorithm::Auto, q)).max_link_load);
    }
    const double lightest = *std::min_element(loads.begin(), loads.end());
    const std::vector<int> c = run_mapper(Algorithm::Congestion, f.problem());
    expect_capacity(f, c);
    EXPECT_LE(evaluate(f.g, *f.topo, c).max_link_load, lightest);
    EXPECT_LT(lightest, loads[0]);  // the graph is one where the starts differ
}

TEST(Congestion, ReturnsTheStartWhereThereAreNoRoutesToImprove) {
    // one task per node of a 2-node ring: nothing to exchange that helps
    Fixture f(Graph::from_edges(2, {{0, 1, 5.0}, {1, 0, 5.0}}), "torus:2");
    EXPECT_EQ(run_mapper(Algorithm::Congestion, f.problem()), run_mapper(Algorithm::Auto, f.problem()));
}

// ---- strategies (tuning.hpp: auto_fast_preset) -----------------------------

// Up to 1024 tasks the fast strategy is the quality preset: the same
// placement.  Both names parse.
TEST(Strategies, FastIsQualityUpTo1024Tasks) {
    Fixture f(random_graph(256, 4, 41), "torus:8x8x4");
    EXPECT_EQ(run_mapper(Algorithm::Fast, f.problem()), run_mapper(Algorithm::Auto, f.problem()));
    EXPECT_EQ(parse_algorithm("fast"), Algorithm::Fast);
    EXPECT_EQ(parse_algorithm("quality"), Algorithm::Auto);
    EXPECT_STREQ(algorithm_name(Algorithm::Auto), "auto");
}

// Above 1024 tasks fast runs its own settings: a valid placement, the same
// for the same seed, below the graph-drawing start its hot chain begins from.
TEST(Strategies, FastAbove1024TasksIsValidDeterministicAndImprovesItsStart) {
    Fixture f(workload_umt(1280, 3), "torus:16x10x8");
    const std::vector<int> a = run_mapper(Algorithm::Fast, f.problem());
    expect_capacity(f, a);
    EXPECT_EQ(a, run_mapper(Algorithm::Fast, f.problem()));
    std::string why;
    EXPECT_LT(f.F(a), f.F(geometric_map(f.problem(), 1, &why)));
}

// The large-size switches of both strategies (no Scotch or co-bisection
// start, no cold chain, one KL pass, the hot chain from the graph drawing
// with the whole budget, the band search), here on a small SAGE-like graph
// (a band graph), with the band search and without it (then the chain
// runs): valid, deterministic, below the graph drawing.
TEST(Strategies, LargeSizeSwitchesKeepAValidDeterministicPlacement) {
    Fixture f(workload_sage(512, 13824), "torus:8x8x8");
    for (const bool fast : {true, false}) {
        for (const bool band : {true, false}) {
            SCOPED_TRACE(std::string(fast ? "fast" : "quality") + (band ? ", band search" : ", no band search"));
            AutoContext c = fast ? auto_fast_preset(1 << 17) : auto_preset(1 << 17);
            ASSERT_TRUE(c.band_search);
            c.band_search = band;
            ASSERT_EQ(c.cold_share, 0);
            ASSERT_TRUE(c.hot_from_geometric);
            ASSERT_EQ(c.hot_share, 1.0);
            ASSERT_EQ(c.chain_kl_passes, 1);
            c.scotch_start_max_tasks = c.bisection_start_max_tasks = 0;  // 512 tasks are above both
            const std::vector<int> a = map_auto(f.problem(), c);
            expect_capacity(f, a);
            EXPECT_EQ(a, map_auto(f.problem(), c));
            std::string why;
            EXPECT_LT(f.F(a), f.F(geometric_map(f.problem(), 1, &why)));
        }
    }
}

// fast (and the multilevel path's coarse map) keeps the co-bisection start
// for when Scotch gives none: with Scotch it is left out and says so, and
// on UMT-like 512 the placement is the one with it (Scotch's start is the
// lower); quality keeps both starts.
TEST(Strategies, FastLeavesOutTheCoBisectionStartBesideScotch) {
    Fixture f(workload_umt(512, 1), "torus:8x8x8");
    ASSERT_TRUE(auto_fast_preset(512).bisection_without_scotch);
    ASSERT_TRUE(auto_coarse_preset(8192).bisection_without_scotch);
    ASSERT_FALSE(auto_preset(512).bisection_without_scotch);
    for (const bool fast : {true, false}) {
        SCOPED_TRACE(fast ? "fast" : "quality");
        std::vector<std::string> lines;
        Problem p = recording(f, lines);
        const AutoContext c = fast ? auto_fast_preset(512) : auto_preset(512);
        const std::vector<int> a = map_auto(p, c);
        expect_capacity(f, a);
#ifdef RANKMAP_HAVE_SCOTCH
        EXPECT_TRUE(has_line(lines, "auto: start scotch"));
        EXPECT_EQ(has_line(lines, "auto: start co-bisection"), !fast);
        EXPECT_EQ(has_line(lines, "auto: no co-bisection start (Scotch's map is one)"), fast);
#else
        EXPECT_TRUE(has_line(lines, "auto: start co-bisection"));
#endif
        AutoContext both = c;
        both.bisection_without_scotch = false;
        EXPECT_EQ(a, map_auto(f.problem(), both));
    }
}

// Above 1024 tasks both strategies end at a grid embedding within 10 % of
// F_min (the general path never beat one there); up to 1024 only F_min
// ends the search.  A scrambled 64x32 stencil on a 16x16x8 torus: the
// embedding is within 2 % of F_min.
TEST(Strategies, QualityEndsAtAGridEmbeddingCloseToTheBound) {
    ASSERT_EQ(auto_preset(1024).structured_accept, 1.0);
    ASSERT_EQ(auto_fast_preset(1024).structured_accept, 1.0);
    Fixture f(scrambled(cartesian_graph({64, 32}, {0, 0}), 7), "torus:16x16x8");
    std::vector<std::string> lines;
    Problem p = recording(f, lines);
    const std::vector<int> a = map_auto(p);
    expect_capacity(f, a);
    EXPECT_LE(f.F(a), 1.1 * f.d.f_min);
    EXPECT_NE(std::find(lines.begin(), lines.end(),
                        std::string("auto: the structured candidate is within the accepted ratio of F_min")),
              lines.end());
    EXPECT_EQ(a, map_fast(f.problem()));
}

namespace {

// Maps f with c, recording its progress: the search says `why` once, runs
// no cold chain and ends where it would with no cold chain at all.
void expect_no_cold_chain(const Fixture &f, const AutoContext &c, const std::string &why) {
    std::vector<std::string> lines;
    Problem p = recording(f, lines);
    const std::vector<int> a = map_auto(p, c);
    expect_capacity(f, a);
    EXPECT_EQ(std::count(lines.begin(), lines.end(), why), 1);
    EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                            [](const std::string &m) { return m.rfind("auto: cold chain", 0) == 0; }),
              0);
    AutoContext none = c;
    none.cold_share = 0;
    EXPECT_EQ(a, map_auto(f.problem(), none));
}

} // namespace

// Where the context says so (both strategies above 4096 tasks, fast above
// 2048), a cold chain whose start is the hot chain's -- the graph drawing --
// is left out: the search says so and ends where it would with no cold
// chain at all.
TEST(Strategies, NoSecondChainFromTheHotChainsStart) {
    Fixture f(workload_umt(512, 3), "torus:8x8x8");
    AutoContext c = auto_fast_preset(4096);
    ASSERT_TRUE(c.hot_from_geometric);
    ASSERT_FALSE(c.cold_from_hot_start);
    ASSERT_TRUE(auto_fast_preset(2048).cold_from_hot_start);
    ASSERT_FALSE(auto_preset(8192).cold_from_hot_start);
    ASSERT_GT(c.cold_share, 0);
    c.geometric_cold_margin = 1e9;  // the drawing is always the cold chain's start
    expect_no_cold_chain(f, c, "auto: no cold chain (its start is the hot chain's)");
    // from another start the cold chain runs
    c.geometric_cold_margin = 0;
    std::vector<std::string> lines;
    Problem p = recording(f, lines);
    map_auto(p, c);
    EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                            [](const std::string &m) { return m.rfind("auto: cold chain + KL", 0) == 0; }),
              1);
}

// Fast above 4096 tasks leaves out the cold chain from a start other than
// the hot chain's too (Scotch's, when the drawing is far above it): the
// search says so and ends where it would with no cold chain at all; quality
// and fast up to 4096 tasks keep it.
TEST(Strategies, NoColdChainFromAnotherStartAboveMedium) {
    Fixture f(workload_umt(512, 3), "torus:8x8x8");
    AutoContext c = auto_fast_preset(8192);
    ASSERT_FALSE(c.cold_from_other_start);
    ASSERT_TRUE(auto_fast_preset(4096).cold_from_other_start);
    ASSERT_TRUE(auto_preset(8192).cold_from_other_start);
    ASSERT_GT(c.cold_share, 0);
    c.geometric_cold_margin = 0;  // the drawing is never the cold chain's start
    expect_no_cold_chain(f, c, "auto: no cold chain (its start is not the hot chain's)");
}

// When the band result beats every start (a rank-ordered SAGE-like graph),
// the chains and the graph drawing they start from are left out: the search
// says so and ends where it ends with them (they never end lower there).
// On a graph that is no band graph the drawing and the chains still run.
TEST(Strategies, NoChainsAfterAWinningBandResult) {
    ASSERT_FALSE(auto_preset(512).chains_after_band);
    ASSERT_FALSE(auto_fast_preset(4096).chains_after_band);
    ASSERT_TRUE(auto_link_load_preset(512).chains_after_band);
    Fixture f(workload_sage(256), "torus:8x8x4");
    AutoContext c = auto_fast_preset(256);
    c.budget_seconds = {0.1, 0.1, 0.1};  // a short search (work, not the clock)
    std::vector<std::string> lines;
    Problem p = recording(f, lines);
    auto has = [&](const std::string &prefix) { return has_line(lines, prefix); };
    const std::vector<int> a = map_auto(p, c);
    expect_capacity(f, a);
    EXPECT_TRUE(has("auto: no graph drawing and no chains (the band result beats every start)"));
    EXPECT_FALSE(has("auto: start geometric"));
    EXPECT_FALSE(has("auto: hot chain"));
    AutoContext with = c;
    with.chains_after_band = true;
    lines.clear();
    EXPECT_EQ(a, map_auto(p, with));
    EXPECT_TRUE(has("auto: start geometric"));
    EXPECT_TRUE(has("auto: hot chain + KL"));
    // no band graph: the drawing and the chains run
    Fixture u(workload_umt(256, 2), "torus:8x8x4");
    Problem q = u.problem();
    q.progress = p.progress;
    lines.clear();
    expect_capacity(u, map_auto(q, c));
    EXPECT_TRUE(has("auto: no band embedding"));
    EXPECT_TRUE(has("auto: start geometric"));
    EXPECT_TRUE(has("auto: hot chain + KL"));
}

// hot_share 0 leaves the hot chain out (bench/chains --hot); the cold
// chain still runs from its own start.
TEST(Strategies, NoHotChainWhenItsShareIsZero) {
    Fixture u(workload_umt(256, 2), "torus:8x8x4");
    AutoContext c = auto_fast_preset(256);
    c.budget_seconds = {0.1, 0.1, 0.1};  // a short search (work, not the clock)
    c.hot_share = 0;
    Problem q = u.problem();
    std::vector<std::string> lines;
    q.progress = [&](const std::string &m) { lines.push_back(m); };
    auto has = [&](const std::string &prefix) { return has_line(lines, prefix); };
    expect_capacity(u, map_auto(q, c));
    EXPECT_TRUE(has("auto: no hot chain"));
    EXPECT_FALSE(has("auto: hot chain"));
    EXPECT_TRUE(has("auto: cold chain + KL"));
}

// Fast up to 1024 tasks runs no hot chain on a 3-D torus with every
// extent at least 8: the search says why and ends where hot_share 0 ends;
// on a torus with an extent of 4, or with a mesh dimension, and with the
// quality strategy, the hot chain runs.
TEST(Strategies, FastRunsNoHotChainOnADeepTorus) {
    ASSERT_EQ(auto_fast_preset(512).hot_skip_min_extent, 8);
    ASSERT_EQ(auto_fast_preset(4096).hot_skip_min_extent, 0);
    ASSERT_EQ(auto_preset(512).hot_skip_min_extent, 0);
    auto run = [](const char *topo, const AutoContext &c, std::vector<std::string> &lines) {
        Fixture u(workload_umt(512, 2), topo);
        Problem q = u.problem();
        q.progress = [&](const std::string &m) { lines.push_back(m); };
        std::vector<int> a = map_auto(q, c);
        expect_capacity(u, a);
        return a;
    };
    AutoContext c = auto_fast_preset(512);
    c.budget_seconds = {0.1, 0.1, 0.1};  // a short search (work, not the clock)
    std::vector<std::string> lines;
    const std::vector<int> a = run("torus:8x8x8", c, lines);
    EXPECT_TRUE(has_line(lines, "auto: no hot chain (a deep torus: the drawing's layout stands)"));
    EXPECT_FALSE(has_line(lines, "auto: hot chain"));
    EXPECT_TRUE(has_line(lines, "auto: cold chain + KL"));
    AutoContext none = c;
    none.hot_share = 0;
    std::vector<std::string> ignored;
    EXPECT_EQ(a, run("torus:8x8x8", none, ignored));
    for (const char *topo : {"torus:16x8x4", "mesh:8x8x8", "torus:32x16"}) {
        lines.clear();
        run(topo, c, lines);
        EXPECT_TRUE(has_line(lines, "auto: hot chain + KL")) << topo;
    }
    AutoContext quality = auto_preset(512);
    quality.budget_seconds = c.budget_seconds;
    lines.clear();
    run("torus:8x8x8", quality, lines);
    EXPECT_TRUE(has_line(lines, "auto: hot chain + KL"));
}

// ---- multilevel path (multilevel.cpp) ----------------------------------------

// The start: a valid placement, the same for the same seed, whose groups
// of 8 tasks each fill one 2x2x2 block.  On a scrambled periodic grid the
// groups are (nearly all) the grid's 2x2x2 cubes and the coarse map an
// embedding of the halved grid; only the order inside each block is left
// to the fine chain, so the start is within 3 x F_min (a random layout:
// about 6 x, the mean distance on the torus).
TEST(Multilevel, StartFillsBlocksAndEmbedsAScrambledGrid) {
    Fixture f(scrambled(grid3(8, 8, 8), 5), "torus:8x8x8");
    std::string why;
    const std::vector<int> a = multilevel_start(f.problem(), multilevel_preset(), &why);
    ASSERT_EQ(why, "");
    expect_capacity(f, a);
    EXPECT_EQ(a, multilevel_start(f.problem(), multilevel_preset(), &why));
    EXPECT_LE(f.F(a), 3.0 * f.d.f_min);
    // blocks of 2x2x2 nodes (coordinates halved) hold the grid's cubes: a
    // cube keeps 3 of a task's 6 edges inside (a random layout 7 / 511)
    int inside = 0, edges = 0;
    int ca[3], cb[3];
    for (int i = 0; i < f.g.n(); ++i)
        for (int64_t e = f.g.begin(i); e < f.g.end(i); ++e, ++edges) {
            f.topo->coords(a[i], ca);
            f.topo->coords(a[f.g.target(e)], cb);
            inside += ca[0] / 2 == cb[0] / 2 && ca[1] / 2 == cb[1] / 2 && ca[2] / 2 == cb[2] / 2;
        }
    EXPECT_GE(2 * inside, 0.9 * edges);
}

TEST(Multilevel, DeclinesProblemsItDoesNotFit) {
    struct Case {
        int tasks;
        const char *topo, *why;
    };
    for (const Case &c : {Case{512, "tree:8x8x8:cost=100,10,1", "not a torus or mesh"},
                          Case{1024, "torus:8x8x8x2:local=0.5", "a node-local dimension"},
                          Case{256, "torus:8x8x8", "not one task per node"},
                          Case{105, "torus:3x5x7", "too few even extents to halve"},
                          Case{36, "torus:4x3x3", "too few even extents to halve"}}) {
        SCOPED_TRACE(c.topo);
        Fixture f(random_graph(c.tasks, 4, 3), c.topo);
        std::string why;
        EXPECT_TRUE(multilevel_start(f.problem(), multilevel_preset(), &why).empty());
        EXPECT_EQ(why, c.why);
    }
    // blocks of 8 nodes: one halving of every even extent, then the largest
    // coarse extent again where that gives fewer
    struct Shape {
        const char *topo;
        std::vector<int> blk;
    };
    for (const Shape &c : {Shape{"torus:64x32x32", {2, 2, 2}}, Shape{"torus:16x16", {4, 2}},
                           Shape{"torus:4x3x8", {2, 1, 4}}, Shape{"mesh:8x8x8x8", {2, 2, 2, 2}},
                           Shape{"torus:8192", {8}}, Shape{"torus:6x6x2", {2, 2, 1}}}) {
        SCOPED_TRACE(c.topo);
        std::string why;
        EXPECT_EQ(multilevel_blocks(*parse_topology(c.topo), multilevel_preset(), &why), c.blk);
    }
    Fixture f(random_graph(256, 4, 3), "torus:16x16");
    std::string why;
    expect_capacity(f, multilevel_start(f.problem(), multilevel_preset(), &why));
}

// Forced on at 512 tasks: auto takes the multilevel path instead of the
// drawing and the chains (valid, deterministic, below the multilevel
// start); with and_chains both run and the lower F wins, never above
// either alone.
TEST(Multilevel, AutoTakesThePathInsteadOfOrBesideTheChains) {
    EXPECT_EQ(auto_fast_preset(65536).multilevel.min_tasks, 32768);
    EXPECT_FALSE(auto_fast_preset(65536).multilevel.and_chains);
    EXPECT_TRUE(auto_preset(65536).multilevel.and_chains);
    EXPECT_GE(auto_fast_preset(32768).multilevel.min_tasks, 32768);  // 32,768 tasks keep the chains
    Fixture f(workload_umt(512, 3), "torus:8x8x8");
    AutoContext c = auto_fast_preset(512);
    c.budget_seconds = {0.2, 0.2, 0.2};  // a short search (work, not the clock)
    c.multilevel.min_tasks = 0;
    std::vector<std::string> lines;
    Problem p = recording(f, lines);
    auto has = [&](const std::string &prefix) { return has_line(lines, prefix); };
    const std::vector<int> ml = map_auto(p, c);
    expect_capacity(f, ml);
    EXPECT_TRUE(has("multilevel: coarse auto:"));
    EXPECT_TRUE(has("auto: multilevel chain + KL"));
    EXPECT_FALSE(has("auto: hot chain"));
    EXPECT_FALSE(has("auto: cold chain"));
    EXPECT_EQ(ml, map_auto(f.problem(), c));
    std::string why;
    EXPECT_LT(f.F(ml), f.F(multilevel_start(f.problem(), c.multilevel, &why)));
    AutoContext off = c;
    off.multilevel.min_tasks = 1 << 30;
    const std::vector<int> chains = map_auto(f.problem(), off);
    AutoContext both = c;
    both.multilevel.and_chains = true;
    lines.clear();
    const std::vector<int> best = map_auto(p, both);
    EXPECT_TRUE(has("auto: multilevel chain + KL"));
    EXPECT_TRUE(has("auto: cold chain + KL"));  // fast at 512 tasks on 8x8x8: no hot chain
    EXPECT_LE(f.F(best), f.F(ml));
    EXPECT_LE(f.F(best), f.F(chains));
    EXPECT_TRUE(best == ml || best == chains);
    // under a caller's time limit: a valid placement
    Problem q = f.problem();
    q.deadline = Deadline(30);
    expect_capacity(f, map_auto(q, c));
}

// The safety net: a search that only the wall clock ends says so through
// Problem::stopped_by_clock (the C API then names the result "..., safety
// stop", warns, and does not cache it); one the work budget ends does not.
TEST(Strategies, TheSafetyNetSaysWhenItEndsTheSearch) {
    Fixture f(random_graph(256, 4, 43), "torus:8x8x4");
    bool stopped = false;
    Problem p = f.problem();
    p.stopped_by_clock = &stopped;
    expect_capacity(f, map_auto(p, auto_preset(256)));
    EXPECT_FALSE(stopped);
    AutoContext c = auto_preset(256);
    c.net_min = 0;
    c.net_factor = 1e-12;  // a net of a picosecond: expired before the first step ends
    const std::vector<int> a = map_auto(p, c);
    expect_capacity(f, a);
    EXPECT_TRUE(stopped);
}

// Without a caller's limit the work is budgeted in work units and the net
// is only a safety stop: a net barely above the search's own time (its
// steps' old time shares ran out before their work was done) gives the
// same placement as a net of seconds, unless the net itself runs out --
// and then the result says so.
TEST(Strategies, ATightSafetyNetCutsNoStepShort) {
    Fixture f(workload_umt(512, 3), "torus:8x8x8");
    AutoContext wide = auto_preset(512), tight = wide;
    tight.net_min = 0;
    tight.net_factor = 1;  // the net is the budget (0.7 s at 512 tasks; the search takes about half)
    bool stopped_wide = false, stopped_tight = false;
    Problem p = f.problem();
    p.stopped_by_clock = &stopped_wide;
    const std::vector<int> a = map_auto(p, wide);
    p.stopped_by_clock = &stopped_tight;
    const std::vector<int> b = map_auto(p, tight);
    expect_capacity(f, b);
    ASSERT_FALSE(stopped_wide);
    if (stopped_tight) GTEST_SKIP() << "the machine is too slow or loaded for a 0.7 s net: the search said so";
    EXPECT_EQ(a, b);
    // a net's share is the whole net; a limit's share a fraction of it
    const Deadline net = Deadline::safety_net(100), limit(100);
    EXPECT_TRUE(net.share(0.01).is_safety_net());
    EXPECT_GT(net.share(0.01).remaining(), 50);
    EXPECT_LT(limit.share(0.01).remaining(), 2);
    EXPECT_FALSE(limit.share(0.01).is_safety_net());
}

// ---- geometric start (geometric.cpp) ---------------------------------------

// A mesh graph with scrambled labels carries no coordinates; the drawing
// recovers them and the coordinate bisection lays the mesh onto the machine
// in one orientation, much better than the co-bisection start, whose cuts
// are oriented independently at each level.
TEST(Geometric, LaysAScrambledMeshOntoTheMachineInOneOrientation) {
    Fixture f(scrambled(grid3(8, 8, 8, false), 5), "torus:8x8x8");
    std::string why;
    const std::vector<int> geo = geometric_map(f.problem(), 1, &why);
    expect_capacity(f, geo);
    const double fg = f.F(geo), fb = f.F(bisection_map(f.problem(), 1));
    EXPECT_LE(fg, 1.10 * f.d.f_min) << "geometric start F/F_min " << fg / f.d.f_min;
    EXPECT_LT(fg, fb);
}

// UMT-like (METIS parts of random points in a cube): the start `auto`'s
// cold chain is built for.  Its F is below the co-bisection start's, the
// placement respects node capacity with several tasks per node, and the
// same seed gives the same placement.
TEST(Geometric, UmtLikePlacementIsValidDeterministicAndBeatsCoBisection) {
    Fixture f(workload_umt(512, 3), "torus:8x8x8");
    std::string why;
    const std::vector<int> geo = geometric_map(f.problem(), 1, &why);
    expect_capacity(f, geo);
    EXPECT_LT(f.F(geo), f.F(bisection_map(f.problem(), 1)));
    EXPECT_EQ(geo, geometric_map(f.problem(), 1, &why));

    Fixture g(workload_umt(200, 4), "torus:4x4x4:slots=4");
    const std::vector<int> two = geometric_map(g.problem(), 7, &why);
    expect_capacity(g, two);
}

// Two meshes that never talk to each other: the pivot distances leave the
// other component unreached (placed just beyond the farthest task), and
// the drawing still gives a valid, deterministic placement, below the
// co-bisection start in F (1.17 x F_min against 1.39).
TEST(Geometric, DrawsAGraphOfTwoComponents) {
    std::vector<Edge> es;
    for (const Edge &e : grid3(4, 4, 2, false).edges()) {
        es.push_back(e);
        es.push_back({e.src + 32, e.dst + 32, e.w});
    }
    Fixture f(scrambled(Graph::from_edges(64, es), 9), "torus:4x4x4");
    std::string why;
    const std::vector<int> geo = geometric_map(f.problem(), 1, &why);
    expect_capacity(f, geo);
    EXPECT_EQ(geo, geometric_map(f.problem(), 1, &why));
    EXPECT_LT(f.F(geo), f.F(bisection_map(f.problem(), 1)));
    EXPECT_LE(f.F(geo), 1.25 * f.d.f_min) << "F/F_min " << f.F(geo) / f.d.f_min;
}

TEST(Geometric, DeclinesWithoutMachineCoordinatesOrCommunication) {
    std::string why;
    Fixture tree(grid3(4, 4, 4), "tree:4x2x8:cost=100,10,1");
    EXPECT_TRUE(geometric_map(tree.problem(), 1, &why).empty());
    EXPECT_EQ(why, "no machine coordinates");
    Fixture silent(Graph::from_edges(64, {}), "torus:4x4x4");
    EXPECT_TRUE(geometric_map(silent.problem(), 1, &why).empty());
    EXPECT_EQ(why, "no communication");
}

// Mirrored blocks (map/transpose.hpp): a bijection in which every line of the
// chosen dimension fills one block of the halved machine, and the lines of
// the other dimension join mirror images (one hop across the cut of the
// last halving when the block is a single node wide there).
TEST(Transpose, MirroredBlocks) {
    using namespace rankmap;
    auto topo = parse_topology("torus:8x8x8");
    const std::vector<int> dims = {64, 8};  // 64 rows of 8: lines along dimension 0 have 64 tasks
    auto cands = transpose_candidates(*topo, dims, {true, true});
    ASSERT_EQ(cands.size(), 2u);
    for (auto &c : cands) {
        std::vector<int> seen(512, 0);
        for (int v : c.place) ++seen[v];
        EXPECT_EQ(*std::min_element(seen.begin(), seen.end()), 1) << c.name;
    }
    // lines of dimension 0 (64 tasks, same column k) fill the 4x4x4 octants
    const auto &oct = cands[0].place;
    EXPECT_NE(cands[0].name.find("dimension 0"), std::string::npos);
    for (int k = 0; k < 8; ++k) {
        int lo[3] = {8, 8, 8}, hi[3] = {-1, -1, -1};
        for (int q = 0; q < 64; ++q) {
            int c[3];
            topo->coords(oct[q * 8 + k], c);
            for (int d = 0; d < 3; ++d) lo[d] = std::min(lo[d], c[d]), hi[d] = std::max(hi[d], c[d]);
        }
        for (int d = 0; d < 3; ++d) EXPECT_EQ(hi[d] - lo[d], 3) << "column " << k << " dimension " << d;
    }
    // a row (8 tasks, one per octant) holds mirror images: x and 7 - x, ...
    int c0[3], c1[3];
    topo->coords(oct[0], c0);
    topo->coords(oct[1], c1);
    int mirrored = 0;
    for (int d = 0; d < 3; ++d) mirrored += c1[d] == 7 - c0[d];
    EXPECT_EQ(mirrored, 1);
    // no candidate where the construction does not apply
    EXPECT_TRUE(transpose_candidates(*topo, {64, 8}, {false, false}).empty());
    EXPECT_TRUE(transpose_candidates(*topo, {3, 170}, {true, true}).empty());  // 510 tasks
    auto tree = parse_topology("tree:8x64");
    EXPECT_TRUE(transpose_candidates(*tree, dims, {true, true}).empty());
    auto odd = parse_topology("torus:3x3x3");
    EXPECT_TRUE(transpose_candidates(*odd, {9, 3}, {true, true}).empty());  // 9 blocks: not a power of 2
}

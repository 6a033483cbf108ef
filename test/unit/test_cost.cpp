// Free energy, its lower bound F_min and the side metrics.
#include <cmath>
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "common/rng.hpp"
#include "cost/cost.hpp"
#include "cost/model.hpp"
#include "graph/graph.hpp"
#include "map/mapper.hpp"
#include "topology/topology.hpp"

using namespace rankmap;

namespace {
// cubic1 / cubic2 of Bhanot et al., "Optimizing task layout on the Blue
// Gene/L supercomputer", built here independently of src/workload.
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

TEST(LowerBound, Cubic1And2On8x8x8AreBhanotValues) {
    auto t = parse_topology("torus:8x8x8");
    EXPECT_DOUBLE_EQ(lower_bound(cubic(8, false), *t), 3072);
    EXPECT_DOUBLE_EQ(lower_bound(cubic(8, true), *t), 12288);
}

TEST(FreeEnergy, RankOrderOfACubeOnItsTorusIsIdeal) {
    auto t = parse_topology("torus:8x8x8");
    EXPECT_DOUBLE_EQ(free_energy(cubic(8, false), *t, identity(512)), 3072);
    EXPECT_DOUBLE_EQ(free_energy(cubic(8, true), *t, identity(512)), 12288);
}

TEST(FreeEnergy, RandomPlacementsReproduceBhanotReference) {
    // Bhanot et al. Table 1: random F/F_min = 5.94 (cubic1), 4.56 (cubic2); mean of 100.
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

// The annealers' Metropolis test without most exp calls answers as
// u < exp(-x) does: on a grid of x from 1e-9 to 800, for u drawn at random,
// at 0, and at exp(-x) and its neighbouring doubles (where only the exp
// call can decide).
TEST(Metropolis, BelowExpNegAnswersAsExpDoes) {
    Rng rng(11);
    int64_t checked = 0;
    for (double x = 1e-9; x < 800; x *= 1.01) {
        const double e = std::exp(-x);
        std::vector<double> us = {0.0, e, std::nextafter(e, 0.0), std::nextafter(e, 1.0), 1.0 - 0x1.0p-53};
        for (int k = 0; k < 50; ++k) us.push_back(rng.uniform());
        for (double u : us) {
            ASSERT_EQ(below_exp_neg(u, x), u < e) << "u " << u << " x " << x;
            ++checked;
        }
    }
    EXPECT_GT(checked, 100000);
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

// ---- predicted communication time (src/cost/model.hpp) ----------------------
// Expected values are worked out by hand from the model's definition with the
// SimGrid defaults: 154e6 B/s and 100 ns per torus/mesh link.

TEST(TimeModel, ExchangeIsBusiestLinkPlusLongestRouteLatency) {
    // mesh:4 is a line of nodes 0-1-2-3.  Messages 0->2 and 1->3 of 1e6 B.
    auto t = parse_topology("mesh:4");
    Graph g = Graph::from_edges(4, {{0, 2, 1e6}, {1, 3, 1e6}});
    // Identity: both cross link 1->2 (2e6 B there); longest route 2 hops.
    TimePrediction shared = predict_time(g, *t, {0, 1, 2, 3});
    EXPECT_NEAR(shared.seconds, 2e6 / 154e6 + 2 * 100e-9, 1e-12);
    EXPECT_NEAR(shared.busiest_link, 2e6 / 154e6, 1e-12);
    // Task 2 on node 1, task 1 on node 2: 0->1 and 2->3, one link each.
    TimePrediction apart = predict_time(g, *t, {0, 2, 1, 3});
    EXPECT_NEAR(apart.seconds, 1e6 / 154e6 + 100e-9, 1e-12);
    EXPECT_LT(apart.seconds, shared.seconds);
    EXPECT_EQ(shared.phases, 0);
    EXPECT_DOUBLE_EQ(shared.alltoall, 0);
}

TEST(TimeModel, MonotonicInTheBusiestLinksLoad) {
    // Growing a message that crosses the busiest link makes the prediction
    // grow; growing one on a lightly loaded link leaves it unchanged.
    auto t = parse_topology("torus:4x4");
    double last = 0;
    for (double w : {1e5, 2e5, 4e5, 8e5}) {
        Graph g = Graph::from_edges(16, {{0, 1, w}, {0, 2, w}, {5, 6, 1e3}});
        const double now = predict_time(g, *t, identity(16)).seconds;
        EXPECT_GT(now, last);
        last = now;
    }
    const double a = predict_time(Graph::from_edges(16, {{0, 1, 8e5}, {5, 6, 1e3}}), *t, identity(16)).seconds;
    const double b = predict_time(Graph::from_edges(16, {{0, 1, 8e5}, {5, 6, 2e3}}), *t, identity(16)).seconds;
    EXPECT_DOUBLE_EQ(a, b);
    // bytes_per_unit scales the link term.
    ModelParams p;
    p.bytes_per_unit = 2;
    const double c = predict_time(Graph::from_edges(16, {{0, 1, 4e5}}), *t, identity(16), {}, p).seconds;
    EXPECT_NEAR(c, 8e5 / 154e6 + 100e-9, 1e-12);
}

TEST(TimeModel, AllToAllOnARingOfFourByHand) {
    // torus:4x4, a group of 4 tasks on one ring of the last dimension
    // (nodes 0..3), each sending s to each partner.  Pairwise steps, r with
    // r XOR k (p = 4 is a power of two); dimension order, ties (2 hops) the
    // forward way:
    //   k=1: 0<->1, 2<->3, one link each way per message: s/B + 100 ns
    //   k=2: 0<->2, 1<->3, all four forward: every forward link 2s: 2s/B + 200 ns
    //   k=3: 0<->3, 1<->2, one link each: s/B + 100 ns
    // Bisection (Jagode et al., "Task placement of parallel
    // multi-dimensional FFTs on a mesh communication network"):
    // m = min(4, 4/2) = 2, D = 3s x 4/3 = 4s,
    // 2 x 4s / (4B) = 2s/B, below the steps' 4s/B.
    const double s = 1e6, B = 154e6;
    auto t = parse_topology("torus:4x4");
    std::vector<Edge> es;
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            if (i != j) es.push_back({i, j, s});
    Graph g = Graph::from_edges(4, es);
    TimePrediction r = predict_time(g, *t, {0, 1, 2, 3}, {{0, 1, 2, 3}});
    EXPECT_EQ(r.phases, 1);
    EXPECT_NEAR(r.busiest_link, 2 * s / B, 1e-12);
    EXPECT_NEAR(r.bisection, 2 * s / B, 1e-12);
    EXPECT_NEAR(r.seconds, 4 * s / B + 400e-9, 1e-12);
    EXPECT_DOUBLE_EQ(r.exchange, 0);
    // Without the group the same edges are one exchange, all at once:
    // link i->i+1 carries i->i+1, i->i+2 and i-1->i+1.  The one-hop message
    // starts after 100 ns, the two-hop ones after 200 ns, and every link
    // stays busy from 100 ns on: 3s/B + 100 ns.
    EXPECT_NEAR(predict_time(g, *t, {0, 1, 2, 3}).seconds, 3 * s / B + 100e-9, 1e-12);
}

TEST(TimeModel, AnExchangeDrainsFromItsFirstMessagesArrival) {
    // mesh:4, 1 MB/s and 1 ms per link, 1 MB messages.  Both placements
    // load their busiest link with 2 MB, so the busiest link alone cannot
    // tell them apart; the drain can.
    //   near: 1->2 (one hop) and 0->3 (three hops) share link 1->2; the
    //     near message starts after 1 ms and the link is busy from then on:
    //     1 ms + 2 s.
    //   far: 0->2 (two hops) and 0->3 share links 0->1 and 1->2; nothing
    //     moves before 2 ms: 2 ms + 2 s.
    auto t = parse_topology("mesh:4");
    ModelParams p;
    p.bandwidth = {1e6};
    p.latency = {1e-3};
    const double s = 1e6;
    const TimePrediction near =
        predict_time(Graph::from_edges(4, {{1, 2, s}, {0, 3, s}}), *t, identity(4), {}, p);
    const TimePrediction far = predict_time(Graph::from_edges(4, {{0, 2, s}, {0, 3, s}}), *t, identity(4), {}, p);
    EXPECT_NEAR(near.busiest_link, 2.0, 1e-12);
    EXPECT_NEAR(far.busiest_link, 2.0, 1e-12);
    EXPECT_NEAR(near.seconds, 2.001, 1e-9);
    EXPECT_NEAR(far.seconds, 2.002, 1e-9);
}

TEST(TimeModel, AllToAllBisectionFloorBindsForASpreadGroup) {
    // mesh:8, two tasks at the ends (nodes 0 and 7), s each way.  One step:
    // s/B + 7 hops x 100 ns.  Jagode et al.: mesh span m = 8 (g_t = 1),
    // D = s x 2/1 = 2s, 8 x 2s/(4B) = 4s/B, which binds.
    const double s = 1e6, B = 154e6;
    auto t = parse_topology("mesh:8");
    Graph g = Graph::from_edges(2, {{0, 1, s}, {1, 0, s}});
    TimePrediction r = predict_time(g, *t, {0, 7}, {{0, 1}});
    EXPECT_NEAR(r.bisection, 4 * s / B, 1e-12);
    EXPECT_NEAR(r.seconds, 4 * s / B, 1e-12);
    // Neighbours: m = 2, bisection 2 x 2s/(4B) = s/B, below the step's s/B + 100 ns.
    TimePrediction near = predict_time(g, *t, {3, 4}, {{0, 1}});
    EXPECT_NEAR(near.seconds, s / B + 100e-9, 1e-12);
}

TEST(TimeModel, AllToAllOfThreeShiftsInsteadOfXor) {
    // tree:3 (one switch, three leaves), B = 1 B/s, 1 s per link.  p = 3 is
    // not a power of two: step k sends r -> r + k (mod 3), two steps, each
    // loading every uplink and downlink once (s/B) with 2 links of latency.
    // (XOR pairing would take three steps.)
    auto t = parse_topology("tree:3");
    ModelParams p;
    p.bandwidth = {1};
    p.latency = {1};
    std::vector<Edge> es;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (i != j) es.push_back({i, j, 10});
    TimePrediction r = predict_time(Graph::from_edges(3, es), *t, {0, 1, 2}, {{0, 1, 2}}, p);
    EXPECT_NEAR(r.seconds, 2 * (10 + 2), 1e-9);
}

TEST(TimeModel, PhasesOfRowsThenColumnsAddUp) {
    // 2x2 process grid on mesh:4 (identity): rows {0,1},{2,3} at once, then
    // the columns {0,2},{1,3}.  Rows: one step, neighbours, s/B + 100 ns
    // (bisection m = 2: s/B).  Columns: 0->2 and 1->3 share link 1->2: 2s/B
    // + 200 ns (bisection m = 3: 3 x 2s/(4B) = 1.5 s/B).
    const double s = 1e6, B = 154e6;
    auto t = parse_topology("mesh:4");
    Graph g = Graph::from_edges(4, {{0, 1, s}, {1, 0, s}, {2, 3, s}, {3, 2, s},
                                    {0, 2, s}, {2, 0, s}, {1, 3, s}, {3, 1, s}});
    TimePrediction r = predict_time(g, *t, {0, 1, 2, 3}, {{0, 1}, {2, 3}, {0, 2}, {1, 3}});
    EXPECT_EQ(r.phases, 2);
    EXPECT_NEAR(r.seconds, 3 * s / B + 300e-9, 1e-12);
}

TEST(TimeModel, TreeRoutesUpAndDownWithPerTierBandwidth) {
    // tree:2x2x2 (switches x nodes x cores); tiers outermost first.
    auto t = parse_topology("tree:2x2x2");
    ModelParams p;
    p.bandwidth = {10, 100, 1000};  // backbone, node link, core link (B/s)
    p.latency = {1, 0.1, 0.01};
    // 0 -> 4 crosses every tier both sides: busiest = tier 0, 100 B / 10 B/s.
    TimePrediction one = predict_time(Graph::from_edges(8, {{0, 4, 100}}), *t, identity(8), {}, p);
    EXPECT_NEAR(one.seconds, 10 + 2 * (1 + 0.1 + 0.01), 1e-9);
    // The reverse message uses the other direction of the same links.
    TimePrediction both = predict_time(Graph::from_edges(8, {{0, 4, 100}, {4, 0, 100}}), *t, identity(8), {}, p);
    EXPECT_NEAR(both.seconds, one.seconds, 1e-9);
    // A second message up the same switch link doubles the busiest term.
    TimePrediction two = predict_time(Graph::from_edges(8, {{0, 4, 100}, {1, 5, 100}}), *t, identity(8), {}, p);
    EXPECT_NEAR(two.seconds, 20 + 2 * (1 + 0.1 + 0.01), 1e-9);
    // Cores of one node: only the core links.
    TimePrediction local = predict_time(Graph::from_edges(8, {{0, 1, 100}}), *t, identity(8), {}, p);
    EXPECT_NEAR(local.seconds, 0.1 + 2 * 0.01, 1e-9);
    // Defaults: Ethernet (125e6 B/s, 50 us) outside, shared memory (2e9, 1 us) inside.
    auto t2 = parse_topology("tree:2x2");
    TimePrediction d = predict_time(Graph::from_edges(4, {{0, 2, 125e6}}), *t2, identity(4));
    EXPECT_NEAR(d.seconds, 1 + 2 * (50e-6 + 1e-6), 1e-9);
}

// Links of the given bandwidth per tier (B/s, outermost first) and a
// latency negligible beside the link terms; the predicted seconds of edges
// es among n tasks placed by place (identity when empty).
ModelParams links_of(std::vector<double> bw) {
    ModelParams p;
    p.bandwidth = bw;
    p.latency.assign(bw.size(), 1e-9);
    return p;
}
double seconds_on(const Topology &t, int n, std::vector<Edge> es, const ModelParams &p,
                  std::vector<int> place = {}) {
    if (place.empty()) place = identity(n);
    return predict_time(Graph::from_edges(n, es), t, place, {}, p).seconds;
}

TEST(TimeModel, FatTreeRoutesByDestinationModK) {
    // tree:2x2x2:up=2 -- 2 leaf switches x 2 hosts x 2 cores; each leaf
    // switch has 2 uplinks, one to each of 2 spine switches (full bisection).
    // D-mod-K: a message to host h leaves its leaf switch on port h mod 2 and
    // comes down to h's leaf switch from the same spine.  Hosts: leaf / 2.
    auto t = parse_topology("tree:2x2x2:up=2");
    EXPECT_EQ(t->describe(), "tree:2x2x2:cost=100,10,1:up=2");
    const ModelParams p = links_of({10, 10, 1000});
    // Hosts 0, 1 (leaf switch 0) send to hosts 2, 3 (leaf switch 1): ports
    // 2 mod 2 = 0 and 3 mod 2 = 1, two spines, no shared link: 100 B / 10.
    EXPECT_NEAR(seconds_on(*t, 8, {{0, 4, 100}, {2, 6, 100}}, p), 10, 1e-6);
    // Both to host 2 (its cores 4 and 5): both on port 0, sharing leaf
    // switch 0's uplink 0 and host 2's link: 20.
    EXPECT_NEAR(seconds_on(*t, 8, {{0, 4, 100}, {2, 5, 100}}, p), 20, 1e-6);
    // A plain tree, or one uplink per leaf switch (up=1, tapered), puts both
    // on leaf switch 0's one uplink: 20.
    EXPECT_NEAR(seconds_on(*parse_topology("tree:2x2x2"), 8, {{0, 4, 100}, {2, 6, 100}}, p), 20, 1e-6);
    EXPECT_NEAR(seconds_on(*parse_topology("tree:2x2x2:up=1"), 8, {{0, 4, 100}, {2, 6, 100}}, p), 20, 1e-6);
    // Four tasks, one per host (cores 0, 2, 4, 6): the pairwise step task i
    // <-> task i XOR 2 runs contention-free; two hosts of one leaf switch
    // sending to the same host share port 0 and that host's link: 20.
    EXPECT_NEAR(seconds_on(*t, 4, {{0, 2, 100}, {1, 3, 100}, {2, 0, 100}, {3, 1, 100}}, p, {0, 2, 4, 6}), 10,
                1e-6);
    EXPECT_NEAR(seconds_on(*t, 4, {{0, 2, 100}, {1, 2, 100}}, p, {0, 2, 4, 6}), 20, 1e-6);
    // Launch order versus a scrambled host order: tree:4x2:up=2 (4 leaf
    // switches x 2 hosts, 2 uplinks each), the pairwise step task i -> task
    // i + 2 (mod 8).  Task i on host i: host 0 -> 2 (port 0), 1 -> 3 (port
    // 1), ... every leaf uplink carries one message: 10.  Hosts 3 and 4
    // exchanged: task 1 (host 1) -> task 3 (host 4, port 0) joins task 0 ->
    // task 2 (host 2, port 0) on leaf switch 0's uplink 0: 20.  F is the same.
    auto t42 = parse_topology("tree:4x2:up=2");
    std::vector<Edge> step;
    for (int i = 0; i < 8; ++i) step.push_back({i, (i + 2) % 8, 100});
    EXPECT_NEAR(seconds_on(*t42, 8, step, links_of({10, 10})), 10, 1e-6);
    EXPECT_NEAR(seconds_on(*t42, 8, step, links_of({10, 10}), {0, 1, 2, 4, 3, 5, 6, 7}), 20, 1e-6);
}

TEST(TimeModel, FatTreeOfThreeLevelsUsesMixedRadixPorts) {
    // tree:2x2x2:up=2,2 -- 2 pods x 2 leaf switches x 2 hosts (no cores):
    // a leaf switch has 2 uplinks (to the pod's 2 aggregation switches), an
    // aggregation switch 2 uplinks (to core switches).  To host h: leaf port
    // h mod 2, aggregation port (h / 2) mod 2.  Hosts 0 -> 4 and 1 -> 6:
    // leaf ports 0 and 0 (same leaf switch 0, same aggregation switch):
    // shared leaf uplink: 20.  Hosts 0 -> 4 and 1 -> 5: ports 0 and 1: 10.
    auto t = parse_topology("tree:2x2x2:up=2,2");
    const ModelParams p = links_of({10, 10, 10});
    EXPECT_NEAR(seconds_on(*t, 8, {{0, 4, 100}, {1, 6, 100}}, p), 20, 1e-6);
    EXPECT_NEAR(seconds_on(*t, 8, {{0, 4, 100}, {1, 5, 100}}, p), 10, 1e-6);
    // 0 -> 4 and 2 -> 6: different leaf switches, leaf ports 0 and 0 reach
    // aggregation switch 0 of pod 0 from both; its uplink port (4/2) mod 2 =
    // 0 and (6/2) mod 2 = 1: different core links: 10.  0 -> 4 and 2 -> 4:
    // the same core link (and host 4's links): 20.
    EXPECT_NEAR(seconds_on(*t, 8, {{0, 4, 100}, {2, 6, 100}}, p), 10, 1e-6);
    EXPECT_NEAR(seconds_on(*t, 8, {{0, 4, 100}, {2, 4, 100}}, p), 20, 1e-6);
}

TEST(TimeModel, FatTreeStringsAreChecked) {
    EXPECT_THROW(parse_topology("tree:2x2:up=2,2"), Error);   // the hosts' tier has no up=
    EXPECT_THROW(parse_topology("tree:2x2x2:up=0"), Error);
    EXPECT_THROW(parse_topology("tree:2x2x2:up=,2"), Error);
    EXPECT_THROW(parse_topology("tree:2x2x2:up=2:up=2"), Error);
    EXPECT_THROW(parse_topology("torus:2x2:up=2"), Error);
    EXPECT_EQ(parse_topology("tree:4x4x8:cost=100,10,1:up=4:slots=2")->describe(),
              "tree:4x4x8:cost=100,10,1:up=4:slots=2");
}

TEST(TimeModel, RejectsBadParametersAndGroups) {
    auto t = parse_topology("tree:2x2");
    Graph g = Graph::from_edges(4, {{0, 2, 1}});
    ModelParams p;
    p.bandwidth = {1e6};  // a tree needs one value per tier
    EXPECT_THROW(predict_time(g, *t, identity(4), {}, p), Error);
    EXPECT_THROW(predict_time(g, *t, identity(4), {{0, 9}}), Error);
    EXPECT_THROW(predict_time(g, *t, identity(4), {{0, 1, 1}}), Error);
}

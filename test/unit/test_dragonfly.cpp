// The dragonfly model: coordinates, SimGrid's minimal routes written out by
// hand, shells against brute force, the adaptive (valiant) split, the time
// model's link classes, the parser's errors, the guard under undeclared
// routing and the spread of all-to-all phases.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "common/error.hpp"
#include "common/rng.hpp"
#include "cost/cost.hpp"
#include "cost/model.hpp"
#include "map/spread.hpp"
#include "rankmap_glue.h"
#include "topology/coordfile.hpp"
#include "topology/dragonfly.hpp"
#include "topology/mapfile.hpp"
#include "topology/topology.hpp"

using namespace rankmap;

namespace {

const DragonflyTopology &dfly(const std::unique_ptr<Topology> &t) {
    EXPECT_EQ(t->kind(), TopologyKind::Dragonfly);
    return static_cast<const DragonflyTopology &>(*t);
}

int leaf(const Topology &t, std::vector<int> c) { return t.node_at(c.data()); }

std::vector<int> classes_of(const DragonflyTopology &d, int a, int b) {
    std::vector<int64_t> links;
    d.route(a, b, links);
    std::vector<int> out;
    for (int64_t l : links) out.push_back(d.link_class(l));
    return out;
}

std::vector<int> identity(int n) {
    std::vector<int> p(n);
    for (int i = 0; i < n; ++i) p[i] = i;
    return p;
}

std::string error_of(const char *spec) {
    try {
        parse_topology(spec);
    } catch (const Error &e) {
        return e.what();
    }
    return "no error";
}

using C = DragonflyTopology::LinkClass;

} // namespace

TEST(Dragonfly, CoordinatesAreGroupChassisBladeHostCore) {
    auto t = parse_topology("dragonfly:3x2x3x2x4");
    const auto &d = dfly(t);
    EXPECT_EQ(t->size(), 3 * 2 * 3 * 2 * 4);
    EXPECT_EQ(d.classes(), 5);
    int c[5];
    for (int v = 0; v < t->size(); ++v) {
        t->coords(v, c);
        EXPECT_EQ(t->node_at(c), v);
        EXPECT_EQ(d.group(v), c[0]);
        EXPECT_EQ(d.router(v), c[1] * 3 + c[2]);
        EXPECT_EQ(d.host(v), v / 4);
    }
    const int out[5] = {0, 2, 0, 0, 0};
    EXPECT_EQ(t->node_at(out), -1);
}

TEST(Dragonfly, MinimalRoutesFollowSimGridsRule) {
    // 3 groups x 2 chassis x 3 blades x 2 hosts; the link to group j leaves
    // router j = (chassis 0, blade j) of every group.
    auto t = parse_topology("dragonfly:3x2x3x2");
    const auto &d = dfly(t);
    // Same router: up and down the hosts' links.
    EXPECT_EQ(classes_of(d, leaf(d, {0, 0, 0, 0}), leaf(d, {0, 0, 0, 1})), (std::vector<int>{C::Injection, C::Injection}));
    // Same chassis, other blade: one green link.
    EXPECT_EQ(classes_of(d, leaf(d, {1, 1, 0, 0}), leaf(d, {1, 1, 2, 1})),
              (std::vector<int>{C::Injection, C::Green, C::Injection}));
    // Same group, other chassis and blade: green first, then black.
    EXPECT_EQ(classes_of(d, leaf(d, {1, 0, 0, 0}), leaf(d, {1, 1, 2, 0})),
              (std::vector<int>{C::Injection, C::Green, C::Black, C::Injection}));
    // (g0, c1, b2) -> (g2, c1, b0): blade 2 is the attachment's blade, so
    // black to chassis 0, blue, arrive at router 0 of group 2 (chassis 0,
    // blade 0), black to chassis 1.
    const int a = leaf(d, {0, 1, 2, 0}), b = leaf(d, {2, 1, 0, 1});
    EXPECT_EQ(classes_of(d, a, b), (std::vector<int>{C::Injection, C::Black, C::Blue, C::Black, C::Injection}));
    EXPECT_EQ(d.hops(a, b), 5);
    // (g0, c0, b0) -> (g1, c1, b1): green to blade 1, blue, arrive at router
    // 0 of group 1, green to blade 1, black to chassis 1: seven links.
    const int x = leaf(d, {0, 0, 0, 0}), y = leaf(d, {1, 1, 1, 0});
    EXPECT_EQ(classes_of(d, x, y),
              (std::vector<int>{C::Injection, C::Green, C::Blue, C::Green, C::Black, C::Injection}));
    EXPECT_DOUBLE_EQ(d.distance(x, y), 6);
}

TEST(Dragonfly, MoreGroupsThanRoutersShareTheAttachmentRouters) {
    // 5 groups of 2 routers (one chassis): the link to group j leaves router
    // j mod 2, so (g0, b0) -> (g3, b0) goes green to blade 1, blue, and
    // arrives at router 0 of group 3 (0 mod 2): no further link.
    auto t = parse_topology("dragonfly:5x1x2x1");
    const auto &d = dfly(t);
    const int a = leaf(d, {0, 0, 0, 0}), b = leaf(d, {3, 0, 0, 0});
    EXPECT_EQ(classes_of(d, a, b), (std::vector<int>{C::Injection, C::Green, C::Blue, C::Injection}));
    EXPECT_EQ(d.hops(a, b), 4);
    // (g4, b1) -> (g2, b1): leaves from router 2 mod 2 = 0 (green), arrives at
    // router 4 mod 2 = 0 of group 2, green to blade 1.
    const int x = leaf(d, {4, 0, 1, 0}), y = leaf(d, {2, 0, 1, 0});
    EXPECT_EQ(classes_of(d, x, y), (std::vector<int>{C::Injection, C::Green, C::Blue, C::Green, C::Injection}));
    // Two groups' links share router 0 of group 0 yet not a wire.
    std::vector<int64_t> r1, r2;
    d.route(leaf(d, {0, 0, 0, 0}), leaf(d, {2, 0, 0, 0}), r1);
    d.route(leaf(d, {0, 0, 0, 0}), leaf(d, {4, 0, 0, 0}), r2);
    EXPECT_NE(r1[1], r2[1]);
}

TEST(Dragonfly, RoutesAreDirectedAndAsLongAsTheirHops) {
    for (const char *spec : {"dragonfly:4x2x4x2x2", "dragonfly:6x1x2x2x2"}) {
        auto t = parse_topology(spec);
        const auto &d = dfly(t);
        std::vector<int64_t> ab, ba;
        for (int a = 0; a < d.size(); a += 3)
            for (int b = 0; b < d.size(); b += 5) {
                d.route(a, b, ab);
                d.route(b, a, ba);
                EXPECT_EQ(static_cast<int>(ab.size()), d.hops(a, b));
                std::set<int64_t> seen(ab.begin(), ab.end());
                EXPECT_EQ(seen.size(), ab.size()) << "a route crosses a link twice";
                for (int64_t l : ba) EXPECT_EQ(seen.count(l), 0u) << "both directions share a link";
                for (int64_t l : ab) EXPECT_TRUE(l >= 0 && l < d.num_links());
                if (a != b && d.host(a) == d.host(b)) {
                    EXPECT_DOUBLE_EQ(d.distance(a, b), 0.5);
                }
            }
    }
}

TEST(Dragonfly, ShellsMatchBruteForce) {
    for (const char *spec : {"dragonfly:3x2x3x2", "dragonfly:4x2x2x1x3", "dragonfly:2x1x2x3", "dragonfly:5x1x2x2",
                             "dragonfly:7x2x1x1x2"}) {
        auto t = parse_topology(spec);
        for (int v = 0; v < t->size(); v += 5) {
            std::map<double, int64_t> m;
            for (int u = 0; u < t->size(); ++u)
                if (u != v) m[t->distance(u, v)]++;
            auto s = t->shells(v);
            ASSERT_EQ(s.size(), m.size()) << spec << " node " << v;
            size_t i = 0;
            for (auto &[dist, count] : m) {
                EXPECT_DOUBLE_EQ(s[i].distance, dist);
                EXPECT_EQ(s[i].count, count);
                ++i;
            }
        }
    }
}

TEST(Dragonfly, LowerBoundIsNeverAboveAPlacement) {
    auto t = parse_topology("dragonfly:4x2x4x2");
    Rng rng(7);
    std::vector<Edge> es;
    for (int i = 0; i < 64; ++i)
        for (int k = 0; k < 3; ++k) es.push_back({i, static_cast<int>(rng.below(64)), 1.0 + k});
    Graph g = Graph::from_edges(64, es);
    const double lb = lower_bound(g, *t);
    EXPECT_GT(lb, 0);
    std::vector<int> place = identity(64);
    for (int rep = 0; rep < 20; ++rep) {
        EXPECT_LE(lb, free_energy(g, *t, place) + 1e-9);
        for (int i = 63; i > 0; --i) std::swap(place[i], place[rng.below(i + 1)]);
    }
}

TEST(Dragonfly, ValiantSplitsInterGroupTrafficOverTheOtherGroups) {
    auto t = parse_topology("dragonfly:4x1x4x1:valiant=0.25");
    const auto &d = dfly(t);
    std::vector<std::pair<int64_t, double>> w;
    // Inside a group nothing is split.
    d.route_weighted(0, 1, w);
    for (auto &[l, x] : w) EXPECT_DOUBLE_EQ(x, 1.0);
    // Group 0 -> group 1: 0.75 on the direct blue link, 0.125 through each
    // of groups 2 and 3 (two blue links each).
    d.route_weighted(0, 4, w);
    std::map<int64_t, double> blue;
    double inj = 0;
    for (auto &[l, x] : w) {
        if (d.link_class(l) == C::Blue) blue[l] += x;
        if (d.link_class(l) == C::Injection) inj += x;
    }
    EXPECT_DOUBLE_EQ(inj, 2.0);
    ASSERT_EQ(blue.size(), 5u);
    double total = 0;
    for (auto &[l, x] : blue) total += x;
    EXPECT_DOUBLE_EQ(total, 0.75 + 2 * 0.25);
    // Two groups have no third one to go through: all minimal.
    auto two = parse_topology("dragonfly:2x1x2x1:valiant=1");
    dfly(two).route_weighted(0, 2, w);
    for (auto &[l, x] : w) EXPECT_DOUBLE_EQ(x, 1.0);
}

TEST(Dragonfly, TimeModelTakesEachLinkClassBandwidth) {
    auto t = parse_topology("dragonfly:2x1x2x1");  // 4 hosts, one blue link each way
    ModelParams p;
    p.bandwidth = {10, 1000, 1000, 1000};  // blue, black, green, injection (B/s)
    p.latency = {1, 0.1, 0.01, 0.001};
    // Host 0 (g0, router 0) -> host 3 (g1, router 1): green to blade 1 (the
    // link to group 1), blue, arrive at router 0 of group 1, green to blade 1.
    auto one = predict_time(Graph::from_edges(4, {{0, 3, 100}}), *t, identity(4), {}, p);
    EXPECT_NEAR(one.seconds, 100.0 / 10 + (1 + 2 * 0.01 + 2 * 0.001), 1e-9);
    // Two wires on the blue link halve its time.
    auto wide = parse_topology("dragonfly:2x1x2x1:links=2,1,1");
    auto two = predict_time(Graph::from_edges(4, {{0, 3, 100}}), *wide, identity(4), {}, p);
    EXPECT_NEAR(two.seconds, 100.0 / 20 + (1 + 2 * 0.01 + 2 * 0.001), 1e-9);
    // Five classes with cores, and the count is checked.
    auto cores = parse_topology("dragonfly:2x1x2x1x2");
    EXPECT_THROW(predict_time(Graph::from_edges(8, {{0, 1, 1}}), *cores, identity(8), {}, p), Error);
    p.bandwidth.push_back(1e6);
    p.latency.push_back(1e-6);
    auto local = predict_time(Graph::from_edges(8, {{0, 1, 100}}), *cores, identity(8), {}, p);
    EXPECT_NEAR(local.seconds, 100.0 / 1e6 + 2e-6, 1e-12);
}

TEST(Dragonfly, ParserNamesWhatIsWrong) {
    EXPECT_NE(error_of("dragonfly:4x2x4").find("3 extents"), std::string::npos);
    EXPECT_NE(error_of("dragonfly:4x2x4x4:links=1,2").find("needs 3 wire counts"), std::string::npos);
    EXPECT_NE(error_of("dragonfly:4x2x4x4:links=1,,2").find("empty entry"), std::string::npos);
    EXPECT_NE(error_of("dragonfly:4x2x4x4:valiant=2").find("valiant='2'"), std::string::npos);
    EXPECT_NE(error_of("dragonfly:4x2x4x4:local=0.1").find("cores-per-host"), std::string::npos);
    EXPECT_NE(error_of("dragonfly:4x2x4x4:metric=dim").find("metric="), std::string::npos);
    EXPECT_NE(error_of("dragonfly:4x2x4x4:wrap=1111").find("unknown option 'wrap'"), std::string::npos);
    EXPECT_NE(error_of("dragonfly:4x2x0x4").find("at least 1"), std::string::npos);
    for (const char *spec : {"dragonfly:9x2x8x4", "dragonfly:4x2x4x2x8:valiant=0.5:local=0.25",
                             "dragonfly:3x1x4x1:links=2,1,3:slots=2"}) {
        auto t = parse_topology(spec);
        EXPECT_EQ(t->describe(), spec);
        EXPECT_EQ(parse_topology(t->describe())->size(), t->size());
    }
}

TEST(Dragonfly, GuardAsksAllToAllGainsBeyondTheModelsError) {
    // Two all-to-all groups of four on 4 groups of 4 routers, minimal routes
    // declared: the guard takes a new placement of the phases only when it
    // is predicted faster by more than the model's validated over-prediction
    // of the pairwise steps.
    auto t = parse_topology("dragonfly:4x1x4x1:valiant=0");
    std::vector<Edge> es;
    for (int base : {0, 4})
        for (int a = base; a < base + 4; ++a)
            for (int b = base; b < base + 4; ++b)
                if (a != b) es.push_back({a, b, 1});
    Graph g = Graph::from_edges(8, es);
    const std::vector<std::vector<int>> groups{{0, 1, 2, 3}, {4, 5, 6, 7}};
    const std::vector<int> current{0, 1, 7, 4, 5, 6, 14, 13};
    const std::vector<int> near{1, 5, 10, 2, 12, 13, 6, 8};   // about 1.24x faster predicted
    const std::vector<int> far{0, 1, 4, 3, 12, 15, 6, 11};    // about 1.63x faster predicted
    const double now = bandwidth_time(g, *t, current, groups);
    ASSERT_GT(now / bandwidth_time(g, *t, near, groups), 1.1);
    ASSERT_LT(now / bandwidth_time(g, *t, near, groups), 1.3);
    ASSERT_GT(now / bandwidth_time(g, *t, far, groups), 1.4);
    GuardVerdict small = guard_verdict(g, *t, current, near, groups, GuardMode::Model, 0.02);
    EXPECT_FALSE(small.take);
    EXPECT_NE(small.why.find("model's error for all-to-all steps on a dragonfly"), std::string::npos) << small.why;
    GuardVerdict large = guard_verdict(g, *t, current, far, groups, GuardMode::Model, 0.02);
    EXPECT_TRUE(large.take) << large.why;
    // Without all-to-all groups the same traffic is an exchange, judged as on
    // any machine.
    GuardVerdict plain = guard_verdict(g, *t, current, near, {}, GuardMode::Model, 0.02);
    EXPECT_EQ(plain.why.find("dragonfly"), std::string::npos);
}

namespace {
std::string write_tmp(const std::string &name, const std::string &text) {
    const std::string path = ::testing::TempDir() + name;
    std::ofstream(path) << text;
    return path;
}
std::string read_error(const Topology &t, const std::string &path, int n) {
    try {
        read_mapfile(t, path, n);
    } catch (const Error &e) {
        return e.what();
    }
    return "no error";
}
} // namespace

TEST(Dragonfly, ReadsAndWritesMPICHsCoordinatesFile) {
    auto t = parse_topology("dragonfly:2x1x2x2x2");  // 2 groups x 2 switches x 2 hosts x 2 cores
    // Ports need not be 0..N-1: the ports of a switch in ascending order are
    // its hosts; ranks of one port share a host, cores in rank order.
    const std::string path = write_tmp("coords-ok.txt",
                                       "# rank: group switch port\n"
                                       "0: 1 0 17\n1: 1 0 17\n2: 1 0 5\n3: 0 1 9\n\n4: 0 1 9  # comment\n");
    EXPECT_TRUE(is_coordinates_text("# rank: group switch port\n\n0: 1 0 17\n"));
    EXPECT_FALSE(is_coordinates_text("# x y z\n0 1 0\n"));
    std::vector<int> place = read_mapfile(*t, path, 5);
    const int c17[5] = {1, 0, 0, 1, 0}, c5[5] = {1, 0, 0, 0, 0}, c9[5] = {0, 0, 1, 0, 0};
    EXPECT_EQ(place[0], t->node_at(c17));
    EXPECT_EQ(place[1], t->node_at(c17) + 1);
    EXPECT_EQ(place[2], t->node_at(c5));
    EXPECT_EQ(place[3], t->node_at(c9));
    EXPECT_EQ(place[4], t->node_at(c9) + 1);
    // Written back and read again: the same hosts.
    const std::string again = write_tmp("coords-again.txt", coordinates_text(*t, place));
    std::vector<int> back = read_mapfile(*t, again, 5);
    for (int r = 0; r < 5; ++r) EXPECT_EQ(back[r] / 2, place[r] / 2) << "rank " << r;
}

TEST(Dragonfly, CoordinatesFileErrorsNameTheFileAndLine) {
    auto t = parse_topology("dragonfly:2x1x2x2x2");
    auto err = [&](const char *name, const char *text, int n) {
        return read_error(*t, write_tmp(name, text), n);
    };
    EXPECT_NE(err("c1", "0: 1 0\n", 1).find("c1:1: expected 'RANK: GROUP SWITCH PORT'"), std::string::npos);
    EXPECT_NE(err("c2", "0: 1 0 0\n1: x 0 0\n", 2).find("c2:2: expected"), std::string::npos);
    EXPECT_NE(err("c3", "0: 2 0 0\n", 1).find("c3:1: group 2 is outside 0..1"), std::string::npos);
    EXPECT_NE(err("c4", "0: 0 2 0\n", 1).find("c4:1: switch 2 is outside 0..1"), std::string::npos);
    EXPECT_NE(err("c5", "0: 0 0 0\n0: 0 0 1\n", 2).find("c5:2: rank 0 already given at line 1"), std::string::npos);
    EXPECT_NE(err("c6", "0: 0 0 0\n2: 0 0 1\n", 2).find("rank 2 is outside 0..1"), std::string::npos);
    EXPECT_NE(err("c7", "0: 0 0 0\n", 2).find("rank 1 is missing"), std::string::npos);
    EXPECT_NE(err("c8", "0: 0 0 0\n1: 0 0 1\n2: 0 0 2\n", 3).find("3 ports in use"), std::string::npos);
    EXPECT_NE(err("c9", "0: 0 0 4\n1: 0 0 4\n2: 0 0 4\n", 3).find("c9:3: host (group 0, switch 0, port 4) holds more"),
              std::string::npos);
    auto torus = parse_topology("torus:2x2");
    EXPECT_NE(read_error(*torus, write_tmp("c10", "0: 0 0 0\n"), 1).find("need a dragonfly topology"),
              std::string::npos);
}

namespace {
// The lines of a rows x cols grid (task r at row r / cols) as all-to-all
// groups, rows first, and their messages (one unit each way).
Graph lines_graph(int rows, int cols, std::vector<std::vector<int>> &groups) {
    groups.clear();
    for (int r = 0; r < rows; ++r) {
        groups.emplace_back();
        for (int c = 0; c < cols; ++c) groups.back().push_back(r * cols + c);
    }
    for (int c = 0; c < cols; ++c) {
        groups.emplace_back();
        for (int r = 0; r < rows; ++r) groups.back().push_back(r * cols + c);
    }
    std::vector<Edge> es;
    for (auto &line : groups)
        for (int a : line)
            for (int b : line)
                if (a != b) es.push_back({a, b, 1});
    return Graph::from_edges(rows * cols, es);
}
} // namespace

TEST(Dragonfly, UndeclaredRoutingIsAlsoJudgedAdaptive) {
    // Only an explicit valiant= declares the routing, and it survives describe().
    EXPECT_FALSE(dfly(parse_topology("dragonfly:8x1x8x1x2")).routing_declared());
    EXPECT_TRUE(dfly(parse_topology("dragonfly:8x1x8x1x2:valiant=0")).routing_declared());
    EXPECT_EQ(parse_topology("dragonfly:8x1x8x1x2:valiant=0")->describe(), "dragonfly:8x1x8x1x2:valiant=0");
    EXPECT_EQ(parse_topology("dragonfly:8x1x8x1x2")->describe(), "dragonfly:8x1x8x1x2");
    // The transposes of a 32x4 grid in rank order: the columns stride over
    // the groups alike, so under minimal routes every pairwise step loads
    // one global link per group; the spread is faster there and slower when
    // all inter-group traffic goes through a third group (Valiant).
    std::vector<std::vector<int>> groups;
    const Graph g = lines_graph(32, 4, groups);
    auto minimal = parse_topology("dragonfly:8x1x8x1x2:valiant=0");
    auto undeclared = parse_topology("dragonfly:8x1x8x1x2");
    const std::vector<int> block = identity(128);
    const std::vector<int> spread = spread_placement(g, *minimal, block, groups);
    EXPECT_LT(bandwidth_time(g, *minimal, spread, groups) * 1.35, bandwidth_time(g, *minimal, block, groups));
    auto valiant = dfly(undeclared).with_valiant(1);
    EXPECT_GT(bandwidth_time(g, *valiant, spread, groups), bandwidth_time(g, *valiant, block, groups));
    // Declared minimal, the guard takes the spread; undeclared, the regimes
    // disagree and it keeps the current order, naming the setting.
    EXPECT_TRUE(guard_verdict(g, *minimal, block, spread, groups, GuardMode::Model, 0.02).take);
    const GuardVerdict v = guard_verdict(g, *undeclared, block, spread, groups, GuardMode::Model, 0.02);
    EXPECT_FALSE(v.take);
    EXPECT_NE(v.why.find("routes adaptively (valiant=1"), std::string::npos) << v.why;
    EXPECT_NE(v.why.find(":valiant="), std::string::npos) << v.why;
}

TEST(Dragonfly, SpreadKeepsEachNodesLoadAndIsTheSameEverywhere) {
    std::vector<std::vector<int>> groups;
    const Graph g = lines_graph(16, 8, groups);
    auto t = parse_topology("dragonfly:8x1x8x1x2:valiant=0");
    EXPECT_TRUE(spread_applies(*t, groups));
    EXPECT_FALSE(spread_applies(*t, {}));
    EXPECT_FALSE(spread_applies(*parse_topology("torus:4x4x8"), groups));
    std::vector<int> current(128);
    for (int r = 0; r < 128; ++r) current[r] = (r * 37) % 128;  // any placement
    const auto a = spread_placement(g, *t, current, groups);
    EXPECT_EQ(a, spread_placement(g, *t, current, groups));
    EXPECT_NE(a, current);
    std::vector<int> load(128, 0);
    for (int v : a) ++load[v];
    for (int v : current) --load[v];
    for (int x : load) EXPECT_EQ(x, 0);
}

TEST(Dragonfly, InTheCallTheSpreadFollowsTheDeclaredRouting) {
    // MPI_Cart_create of 32x4 with every line doing all-to-all
    // (MPIR_CVAR_RANKMAP_CART_ALLTOALL=all), members in rank order: with
    // minimal routes declared the spread is taken, rank 0 kept and the same
    // twice; with the routing undeclared the current order stays.
    const int dims[2] = {32, 4}, periods[2] = {0, 0};
    rankmap_graph_t g = nullptr;
    ASSERT_EQ(rankmap_graph_cartesian_alltoall(2, dims, periods, "all", &g), RANKMAP_OK) << rankmap_last_error();
    std::vector<int> members(128);
    for (int i = 0; i < 128; ++i) members[i] = i;
    rankmap_options o;
    rankmap_options_init(&o);
    o.cache_dir = "";
    for (const char *spec : {"dragonfly:8x1x8x1x2:valiant=0", "dragonfly:8x1x8x1x2"}) {
        rankmap_topology_t t = nullptr;
        ASSERT_EQ(rankmap_topology_parse(spec, &t), RANKMAP_OK) << rankmap_last_error();
        std::vector<std::vector<int>> ranks(2, std::vector<int>(128));
        rankmap_report before, after;
        char why[1024];
        for (auto &r : ranks)
            ASSERT_EQ(rankmap_reorder_ranks(t, g, &o, 128, members.data(), 128, 0, r.data(), &before, &after, why,
                                            sizeof why),
                      RANKMAP_OK)
                << why;
        EXPECT_EQ(ranks[0], ranks[1]) << spec;
        EXPECT_EQ(ranks[0][0], 0) << spec;
        std::vector<int> sorted = ranks[0];
        std::sort(sorted.begin(), sorted.end());
        EXPECT_EQ(sorted, identity(128)) << spec;
        if (std::string(spec).find("valiant") != std::string::npos) {
            EXPECT_STREQ(after.algorithm, "spread (dragonfly)") << why;
            EXPECT_NE(std::string(why).find("spread over the groups taken"), std::string::npos) << why;
        } else {
            EXPECT_STREQ(after.algorithm, "identity (no gain)") << why;
            EXPECT_EQ(ranks[0], identity(128));
            EXPECT_NE(std::string(why).find("spread over the groups: slower for large messages if the dragonfly "
                                            "routes adaptively"),
                      std::string::npos)
                << why;
        }
        rankmap_topology_free(t);
    }
    rankmap_graph_free(g);
}

// The dragonfly model: coordinates, SimGrid's minimal routes written out by
// hand, shells against brute force, the adaptive (valiant) split, the time
// model's link classes, and the parser's errors.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "common/error.hpp"
#include "common/rng.hpp"
#include "cost/cost.hpp"
#include "cost/model.hpp"
#include "topology/dragonfly.hpp"
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

TEST(Dragonfly, RoutesAreDirectedAndAsLongAsTheirHops) {
    auto t = parse_topology("dragonfly:4x2x4x2x2");
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

TEST(Dragonfly, ShellsMatchBruteForce) {
    for (const char *spec : {"dragonfly:3x2x3x2", "dragonfly:4x2x2x1x3", "dragonfly:2x1x2x3"}) {
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
    EXPECT_NE(error_of("dragonfly:5x1x4x4").find("5 groups need"), std::string::npos);
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

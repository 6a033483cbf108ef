// Machine models: distances from coordinates, wrap-around, shells, parsing,
// mapping orders and mapfiles.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include "common/error.hpp"
#include "cost/cost.hpp"
#include "fixtures.hpp"
#include "topology/mapfile.hpp"
#include "topology/topology.hpp"

using namespace rankmap;

namespace {
int node(const Topology &t, std::vector<int> c) { return t.node_at(c.data()); }

// Brute-force shells, to check the dynamic programme.
std::vector<Shell> brute_shells(const Topology &t, int v) {
    std::map<double, int64_t> m;
    for (int u = 0; u < t.size(); ++u)
        if (u != v) m[t.distance(u, v)]++;
    std::vector<Shell> out;
    for (auto &[d, c] : m) out.push_back({d, c});
    return out;
}
} // namespace

TEST(Torus, DistancesWrapAround) {
    auto t = parse_topology("torus:8x8x8");
    EXPECT_EQ(t->size(), 512);
    EXPECT_EQ(t->distance(node(*t, {0, 0, 0}), node(*t, {7, 0, 0})), 1);
    EXPECT_EQ(t->distance(node(*t, {0, 0, 0}), node(*t, {4, 4, 4})), 12);
    EXPECT_EQ(t->distance(node(*t, {1, 2, 3}), node(*t, {6, 7, 0})), 3 + 3 + 3);
    EXPECT_EQ(t->hops(node(*t, {0, 0, 0}), node(*t, {7, 7, 7})), 3);
}

TEST(Mesh, DistancesDoNotWrap) {
    auto t = parse_topology("mesh:8x4x4");
    EXPECT_EQ(t->distance(node(*t, {0, 0, 0}), node(*t, {7, 0, 0})), 7);
    EXPECT_FALSE(t->uniform());
    auto mixed = parse_topology("torus:8x8:wrap=10");
    EXPECT_EQ(mixed->distance(node(*mixed, {0, 0}), node(*mixed, {7, 7})), 1 + 7);
}

// The metrics of Bhanot et al., "Optimizing task layout on the Blue Gene/L
// supercomputer".
TEST(Torus, MetricsFollowBhanot) {
    auto dim = parse_topology("torus:8x8x8:metric=dim");
    // one dimension used: 3/1 x hops; three dimensions: 3/3 x hops
    EXPECT_DOUBLE_EQ(dim->distance(node(*dim, {0, 0, 0}), node(*dim, {2, 0, 0})), 6.0);
    EXPECT_DOUBLE_EQ(dim->distance(node(*dim, {0, 0, 0}), node(*dim, {1, 1, 1})), 3.0);
    auto eu = parse_topology("torus:8x8x8:metric=euclid");
    EXPECT_DOUBLE_EQ(eu->distance(node(*eu, {0, 0, 0}), node(*eu, {7, 2, 0})), std::sqrt(5.0));
}

TEST(Torus, LocalDimensionCostsItsOwnPrice) {
    auto t = parse_topology("torus:4x4x4x2:local=0.25");
    EXPECT_EQ(t->size(), 128);
    EXPECT_DOUBLE_EQ(t->distance(node(*t, {0, 0, 0, 0}), node(*t, {0, 0, 0, 1})), 0.25);
    EXPECT_DOUBLE_EQ(t->distance(node(*t, {0, 0, 0, 0}), node(*t, {3, 0, 0, 1})), 1.25);
    EXPECT_EQ(t->hops(node(*t, {0, 0, 0, 0}), node(*t, {0, 0, 0, 1})), 0);
}

TEST(Torus, SixDimensionsWork) {
    auto t = parse_topology("torus:2x3x4x2x3x2");
    EXPECT_EQ(t->size(), 288);
    EXPECT_EQ(t->ndims(), 6);
    EXPECT_THROW(parse_topology("torus:2x2x2x2x2x2x2"), Error);
}

TEST(Topology, ShellsMatchBruteForce) {
    for (const char *spec : {"torus:8x8x8", "torus:5x4x3", "torus:8x8x8:metric=dim", "torus:6x6:metric=euclid",
                             "torus:4x4x2:local=0.5", "tree:4x2x8:cost=100,10,1", "mesh:5x4"}) {
        auto t = parse_topology(spec);
        int v = t->uniform() ? 0 : t->size() / 2;
        auto a = t->shells(v), b = brute_shells(*t, v);
        ASSERT_EQ(a.size(), b.size()) << spec;
        for (size_t i = 0; i < a.size(); ++i) {
            EXPECT_NEAR(a[i].distance, b[i].distance, 1e-12) << spec;
            EXPECT_EQ(a[i].count, b[i].count) << spec;
        }
    }
}

TEST(Tree, DistanceIsTheCostOfTheLowestCommonTier) {
    auto t = parse_topology("tree:4x2x8:cost=100,10,1");
    EXPECT_EQ(t->size(), 64);
    EXPECT_EQ(t->distance(0, 0), 0);
    EXPECT_EQ(t->distance(0, 7), 1);     // same socket
    EXPECT_EQ(t->distance(0, 8), 10);    // same node, other socket
    EXPECT_EQ(t->distance(0, 16), 100);  // other node
    auto d = parse_topology("tree:2x2x2");  // default costs 100,10,1
    EXPECT_EQ(d->distance(0, 4), 100);
}

TEST(Topology, NearestListsCloseNodesFirst) {
    for (const char *spec : {"torus:8x8x8", "mesh:4x4", "tree:4x2x8:cost=100,10,1", "torus:4x4x2:local=0.5"}) {
        auto t = parse_topology(spec);
        std::vector<int> near;
        int v = t->size() / 3;
        t->nearest(v, t->size(), near);
        ASSERT_EQ(static_cast<int>(near.size()), t->size()) << spec;
        EXPECT_EQ(near[0], v);
        std::set<int> distinct(near.begin(), near.end());
        EXPECT_EQ(static_cast<int>(distinct.size()), t->size()) << spec;
        // the first few are the closest by hop count
        t->nearest(v, 5, near);
        ASSERT_EQ(near.size(), 5u);
        for (int u : near) EXPECT_LE(t->hops(v, u), 2) << spec;
    }
}

TEST(Topology, RoutesFollowDimensionOrder) {
    auto t = parse_topology("torus:8x8x8");
    std::vector<int64_t> links;
    t->route(node(*t, {0, 0, 0}), node(*t, {2, 7, 0}), links);
    EXPECT_EQ(links.size(), 3u);
    auto tr = parse_topology("tree:4x2x8");
    tr->route(0, 63, links);
    EXPECT_EQ(links.size(), 6u);  // up three tiers and down three
}

TEST(TopologyParser, RejectsBadStringsWithClearMessages) {
    auto msg = [](const char *s) {
        try {
            parse_topology(s);
        } catch (const Error &e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(msg("cube:8x8").find("unknown kind 'cube'"), std::string::npos);
    EXPECT_NE(msg("torus:8xAx8").find("'A'"), std::string::npos);
    EXPECT_NE(msg("torus:8x0x8").find("at least 1"), std::string::npos);
    EXPECT_NE(msg("torus8x8").find("missing ':'"), std::string::npos);
    EXPECT_NE(msg("torus:8x8:metric=manhattan").find("unknown metric"), std::string::npos);
    EXPECT_NE(msg("tree:4x2x8:cost=100,10").find("3 tiers but 2 costs"), std::string::npos);
    EXPECT_NE(msg("tree:4x2:cost=1,-1").find("tier cost"), std::string::npos);
    EXPECT_NE(msg("torus:8x8:wrap=1").find("wrap"), std::string::npos);
    EXPECT_NE(msg("torus:8x8:slots=0").find("slots"), std::string::npos);
    EXPECT_NE(msg("").find("empty"), std::string::npos);
    EXPECT_NE(msg("file:/nonexistent/x.dist").find("cannot open"), std::string::npos);
}

TEST(TopologyParser, DescribeRoundTrips) {
    for (const char *spec : {"torus:8x8x8", "mesh:8x4x4", "torus:8x8:wrap=10", "torus:8x8x8x2:local=0.5",
                             "tree:4x2x8:cost=100,10,1", "torus:4x4:metric=dim:slots=2"}) {
        auto t = parse_topology(spec);
        auto u = parse_topology(t->describe());
        EXPECT_EQ(t->describe(), u->describe());
        EXPECT_EQ(t->size(), u->size());
    }
}

TEST(MatrixTopology, ReadsSymmetricDistanceFiles) {
    auto t = parse_topology("file:" + fixture("ring-4.dist"));
    EXPECT_EQ(t->size(), 4);
    EXPECT_EQ(t->distance(0, 2), 2);
    EXPECT_THROW(parse_topology("file:" + fixture("bad-asymmetric.dist")), Error);
    EXPECT_THROW(parse_topology("file:" + fixture("bad-ragged.dist")), Error);
}

TEST(MappingOrder, XYZTPutsXFastest) {
    auto t = parse_topology("torus:4x4x4");
    auto p = order_placement(*t, "XYZT", 64);
    EXPECT_EQ(p[1], node(*t, {1, 0, 0}));
    EXPECT_EQ(p[4], node(*t, {0, 1, 0}));
    auto z = order_placement(*t, "ZYXT", 64);
    EXPECT_EQ(z[1], node(*t, {0, 0, 1}));
    // TXYZ with two tasks per node: consecutive ranks share a node
    auto tt = parse_topology("torus:4x4x4:slots=2");
    auto p2 = order_placement(*tt, "TXYZ", 128);
    EXPECT_EQ(p2[0], p2[1]);
    EXPECT_NE(p2[1], p2[2]);
    EXPECT_THROW(order_placement(*t, "XYQT", 64), Error);
    EXPECT_THROW(order_placement(*t, "XYT", 64), Error);
    EXPECT_THROW(order_placement(*t, "XXZT", 64), Error);
}

TEST(MappingOrder, UnevenCountsStayBalanced) {
    auto t = parse_topology("torus:2x2x2:slots=2");
    for (const char *order : {"XYZT", "TXYZ", "ZTYX"}) {
        auto p = order_placement(*t, order, 11);
        EXPECT_NO_THROW(check_placement(*t, 11, p)) << order;
    }
}

TEST(Mapfile, RoundTripsAndRejectsBadFiles) {
    auto t = parse_topology("torus:2x2");
    auto p = read_mapfile(*t, fixture("torus-2x2-identity.map"), 4);
    EXPECT_EQ(p, (std::vector<int>{0, 1, 2, 3}));
    auto expect_error = [&](const char *file, const char *needle) {
        try {
            read_mapfile(*t, fixture(file), 4);
            ADD_FAILURE() << file << " was accepted";
        } catch (const Error &e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    expect_error("bad-duplicate-coord.map", ":3: duplicate coordinate");
    expect_error("bad-out-of-range.map", ":4: coordinate 1 = 2 is outside 0..1");
    expect_error("bad-missing-line.map", "3 lines for 4 tasks");
    expect_error("bad-coord-count.map", ":1: expected 2 coordinates");
    expect_error("no-such-file.map", "cannot open");
    // writing then reading gives the same placement, with slots when p > 1
    auto t2 = parse_topology("torus:2x2:slots=2");
    std::vector<int> q = {3, 3, 0, 1, 2, 0, 1, 2};
    std::string path = ::testing::TempDir() + "/rt.map";
    write_mapfile(*t2, path, q);
    EXPECT_EQ(read_mapfile(*t2, path, 8), q);
}

// Communication graphs: CSR construction and the three readers, including
// deliberately broken files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "common/error.hpp"
#include "fixtures.hpp"
#include "graph/graph.hpp"

using namespace rankmap;

namespace {
std::string error_of(const std::string &file, const std::string &format = "auto") {
    try {
        read_graph(fixture(file), format);
    } catch (const Error &e) {
        return e.what();
    }
    return "no error";
}
} // namespace

TEST(Graph, MergesDuplicatesAndDropsSelfLoops) {
    Graph g = Graph::from_edges(3, {{0, 1, 2}, {0, 1, 3}, {1, 1, 9}, {2, 0, 1}});
    EXPECT_EQ(g.n(), 3);
    EXPECT_EQ(g.nedges(), 2);
    EXPECT_DOUBLE_EQ(g.out_weight(0), 5);
    EXPECT_DOUBLE_EQ(g.total_weight(), 6);
}

TEST(Graph, SymmetrizedAddsBothDirections) {
    Graph g = Graph::from_edges(2, {{0, 1, 2}, {1, 0, 3}});
    Graph s = g.symmetrized();
    EXPECT_DOUBLE_EQ(s.weight(s.begin(0)), 5);
    EXPECT_DOUBLE_EQ(s.weight(s.begin(1)), 5);
}

TEST(Graph, RejectsBadEdges) {
    EXPECT_THROW(Graph::from_edges(2, {{0, 2, 1}}), Error);
    EXPECT_THROW(Graph::from_edges(2, {{0, 1, -1}}), Error);
    EXPECT_THROW(Graph::from_edges(2, {{0, 1, std::nan("")}}), Error);
}

TEST(Graph, CartesianGraphHasTwoNeighboursPerDimension) {
    Graph g = cartesian_graph({4, 4, 4}, {1, 1, 1});
    EXPECT_EQ(g.n(), 64);
    for (int v = 0; v < g.n(); ++v) EXPECT_EQ(g.degree(v), 6);
    Graph m = cartesian_graph({4, 3}, {0, 0});
    EXPECT_EQ(m.degree(0), 2);   // corner
    EXPECT_EQ(m.degree(4), 4);   // interior (1,1)
}

TEST(Graph, RelabeledKeepsWeights) {
    Graph g = Graph::from_edges(3, {{0, 1, 2}, {1, 2, 3}});
    Graph r = g.relabeled({2, 0, 1});
    EXPECT_DOUBLE_EQ(r.out_weight(2), 2);
    EXPECT_DOUBLE_EQ(r.out_weight(0), 3);
}

TEST(Readers, ReadMetisAndMatrix) {
    Graph t = read_graph(fixture("triangle-3.graph"));
    EXPECT_EQ(t.n(), 3);
    EXPECT_EQ(t.nedges(), 6);
    Graph w = read_graph(fixture("triangle-weighted-3.graph"));
    EXPECT_DOUBLE_EQ(w.out_weight(0), 6);
    Graph m = read_graph(fixture("path-3.mat"));
    EXPECT_EQ(m.n(), 3);
    EXPECT_DOUBLE_EQ(m.out_weight(0), 3);
    EXPECT_DOUBLE_EQ(m.out_weight(1), 4);
}

TEST(Readers, EdgeListRoundTrips) {
    Graph g = Graph::from_edges(5, {{0, 1, 2.5}, {3, 1, 1}});  // task 4 isolated
    std::string path = ::testing::TempDir() + "/rt.edges";
    write_edge_list(g, path);
    Graph r = read_graph(path);
    EXPECT_EQ(r.n(), 5);
    EXPECT_EQ(r.edges().size(), 2u);
    EXPECT_DOUBLE_EQ(r.out_weight(0), 2.5);
}

TEST(Readers, BadFilesNameTheFileAndLine) {
    EXPECT_NE(error_of("bad-rank-out-of-range.edges").find("bad-rank-out-of-range.edges:4: task 7 is >= the declared task count 4"),
              std::string::npos);
    EXPECT_NE(error_of("bad-negative-weight.edges").find(":2: weight -3 is negative"), std::string::npos);
    EXPECT_NE(error_of("bad-non-numeric.edges").find(":2: task 'x' is not a whole number"), std::string::npos);
    EXPECT_NE(error_of("bad-field-count.edges").find(":1: expected 'src dst [weight]'"), std::string::npos);
    EXPECT_NE(error_of("bad-wrong-count.graph").find("header says 2 edges"), std::string::npos);
    EXPECT_NE(error_of("bad-not-square.mat").find("more rows than columns"), std::string::npos);
    EXPECT_NE(error_of("missing.edges").find("cannot open"), std::string::npos);
    EXPECT_NE(error_of("triangle-3.graph", "xml").find("graph format 'xml' is unknown"), std::string::npos);
}

// A stray huge task number must not silently create millions of idle tasks:
// without "# tasks: N" ids stay below 2^20; with it the declared size rules.
TEST(Readers, HugeTaskNumberNeedsDeclaredCount) {
    std::string path = ::testing::TempDir() + "/huge.edges";
    {
        std::ofstream out(path);
        out << "0 1\n3 10290291\n";
    }
    try {
        read_graph(path);
        ADD_FAILURE() << "an implied task count of 10290292 was accepted";
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("huge.edges:2: task 10290291 needs a '# tasks: N' line"),
                  std::string::npos)
            << e.what();
    }
    {
        std::ofstream out(path);
        out << "# tasks: 2000000\n0 1\n3 1999999 2\n";
    }
    Graph g = read_graph(path);
    EXPECT_EQ(g.n(), 2000000);
    EXPECT_DOUBLE_EQ(g.out_weight(3), 2);
}

// Lines along the all-to-all dimensions: every pair, weight W / extent (W =
// the product of those extents); the other dimensions keep the stencil.
TEST(Graph, CartesianAlltoall) {
    using namespace rankmap;
    std::vector<std::vector<int>> groups;
    Graph g = cartesian_alltoall_graph({4, 2}, {1, 0}, {true, false}, &groups);
    ASSERT_EQ(g.n(), 8);
    // task r = 2 * row + col; dimension 0 (extent 4) does all-to-all
    auto w = [&](int a, int b) {
        for (int64_t e = g.begin(a); e < g.end(a); ++e)
            if (g.target(e) == b) return g.weight(e);
        return 0.0;
    };
    EXPECT_DOUBLE_EQ(w(0, 2), 1.0);  // W = 4, extent 4
    EXPECT_DOUBLE_EQ(w(0, 4), 1.0);  // not a stencil neighbour of 0 along dim 0 on a ring of 4
    EXPECT_DOUBLE_EQ(w(0, 6), 1.0);
    EXPECT_DOUBLE_EQ(w(0, 1), 1.0);  // dimension 1: stencil, not periodic
    EXPECT_DOUBLE_EQ(w(0, 3), 0.0);
    EXPECT_EQ(g.degree(0), 4);
    ASSERT_EQ(groups.size(), 2u);  // the two lines along dimension 0
    EXPECT_EQ(groups[0], (std::vector<int>{0, 2, 4, 6}));
    EXPECT_EQ(groups[1], (std::vector<int>{1, 3, 5, 7}));

    // both dimensions: row pairs weigh W / 4 = 2, column pairs W / 2 = 4;
    // the lines of dimension 0 come first, then those of dimension 1
    g = cartesian_alltoall_graph({4, 2}, {0, 0}, {true, true}, &groups);
    EXPECT_DOUBLE_EQ(w(0, 4), 2.0);
    EXPECT_DOUBLE_EQ(w(0, 1), 4.0);
    ASSERT_EQ(groups.size(), 6u);
    EXPECT_EQ(groups[2], (std::vector<int>{0, 1}));
    EXPECT_EQ(groups[5], (std::vector<int>{6, 7}));

    // no all-to-all dimension: exactly cartesian_graph
    Graph s = cartesian_alltoall_graph({3, 4}, {1, 0}, {false, false}, &groups);
    Graph c = cartesian_graph({3, 4}, {1, 0});
    EXPECT_EQ(s.adj(), c.adj());
    EXPECT_EQ(s.weights(), c.weights());
    EXPECT_TRUE(groups.empty());
    EXPECT_THROW(cartesian_alltoall_graph({3, 4}, {1, 0}, {true}, nullptr), Error);
}

TEST(Graph, CliqueGroupsReadTransposesAsPhases) {
    // the transposes of a 4x8 pencil grid: rows of 8 and columns of 4, each
    // an all-to-all of its own weight
    std::vector<std::vector<int>> lines;
    Graph g = cartesian_alltoall_graph({4, 8}, {0, 0}, {true, true}, &lines);
    auto found = clique_groups(g);
    ASSERT_EQ(found.size(), lines.size());
    auto sorted = [](std::vector<std::vector<int>> v) {
        for (auto &x : v) std::sort(x.begin(), x.end());
        std::sort(v.begin(), v.end());
        return v;
    };
    EXPECT_EQ(sorted(found), sorted(lines));
    // in the program's phases: the 4 rows first (disjoint, one phase), then
    // the 8 columns, whatever order the scan met them in
    for (size_t k = 0; k < found.size(); ++k) EXPECT_EQ(found[k].size(), k < 4 ? 8u : 4u) << "group " << k;
    // the same graph with its tasks relabelled
    std::vector<int> perm(32);
    for (int v = 0; v < 32; ++v) perm[v] = (v * 13 + 5) % 32;
    auto relabelled = clique_groups(g.relabeled(perm));
    for (auto &l : lines)
        for (auto &v : l) v = perm[v];
    EXPECT_EQ(sorted(relabelled), sorted(lines));
    // rows of 2 beside columns of 16: pairs are cliques too
    Graph thin = cartesian_alltoall_graph({16, 2}, {0, 0}, {true, true}, &lines);
    EXPECT_EQ(clique_groups(thin).size(), lines.size());
    // one all-to-all over everybody
    std::vector<Edge> all;
    for (int a = 0; a < 6; ++a)
        for (int b = 0; b < 6; ++b)
            if (a != b) all.push_back({a, b, 2.0});
    EXPECT_EQ(clique_groups(Graph::from_edges(6, all)).size(), 1u);
}

TEST(Graph, CliqueGroupsRejectOtherGraphs) {
    // stencils (periodic or not), rings: no clique of 3
    EXPECT_TRUE(clique_groups(cartesian_graph({4, 4}, {1, 1})).empty());
    EXPECT_TRUE(clique_groups(cartesian_graph({8, 4, 4}, {0, 0, 0})).empty());
    EXPECT_TRUE(clique_groups(cartesian_graph({3}, {1})).size() == 1);  // a ring of 3 is a clique
    // a clique with one pair lighter than the rest
    std::vector<Edge> e;
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
            if (a != b) e.push_back({a, b, a + b == 1 ? 1.0 : 2.0});
    EXPECT_TRUE(clique_groups(Graph::from_edges(4, e)).empty());
    // a clique plus an edge hanging off it
    e.clear();
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
            if (a != b) e.push_back({a, b, 1.0});
    e.push_back({2, 3, 1.0});
    auto groups = clique_groups(Graph::from_edges(4, e));
    EXPECT_EQ(groups.size(), 2u);  // {0,1,2} and the pair {2,3}
    // two cliques sharing a pair
    e.clear();
    for (int a : {0, 1, 2, 3})
        for (int b : {0, 1, 2, 3})
            if (a != b && !(a == 0 && b == 3) && !(a == 3 && b == 0)) e.push_back({a, b, 1.0});
    EXPECT_TRUE(clique_groups(Graph::from_edges(4, e)).empty());
    EXPECT_TRUE(clique_groups(Graph::from_edges(5, {})).empty());
}

// The public C API from C++: status codes and messages, no exception
// crossing, mapping through the handles.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "rankmap.h"

TEST(CApi, ParseErrorsReturnStatusAndMessage) {
    rankmap_topology_t t = nullptr;
    EXPECT_EQ(rankmap_topology_parse("torus:8xQ", &t), RANKMAP_ERR_INVALID);
    EXPECT_NE(std::string(rankmap_last_error()).find("torus:8xQ"), std::string::npos);
    EXPECT_EQ(rankmap_topology_parse(nullptr, &t), RANKMAP_ERR_INVALID);
    rankmap_graph_t g = nullptr;
    EXPECT_EQ(rankmap_graph_read(fixture("bad-negative-weight.edges").c_str(), nullptr, &g), RANKMAP_ERR_INVALID);
    EXPECT_NE(std::string(rankmap_last_error()).find(":2:"), std::string::npos);
    EXPECT_EQ(rankmap_graph_read("/nonexistent", nullptr, &g), RANKMAP_ERR_IO);
}

TEST(CApi, MapsACartesianGridAndReportsCost) {
    rankmap_topology_t t = nullptr;
    ASSERT_EQ(rankmap_topology_parse("torus:4x4x4", &t), RANKMAP_OK);
    int dims[3] = {4, 4, 4}, periods[3] = {1, 1, 1};
    rankmap_graph_t g = nullptr;
    ASSERT_EQ(rankmap_graph_cartesian(3, dims, periods, &g), RANKMAP_OK);
    rankmap_options o;
    rankmap_options_init(&o);
    o.algorithm = "identity";
    std::vector<int> place(64, -1);
    rankmap_report r;
    ASSERT_EQ(rankmap_map(t, g, &o, place.data(), &r), RANKMAP_OK) << rankmap_last_error();
    EXPECT_DOUBLE_EQ(r.F, r.F_min);
    EXPECT_STREQ(r.algorithm, "identity");
    o.algorithm = "no-such";
    EXPECT_EQ(rankmap_map(t, g, &o, place.data(), &r), RANKMAP_ERR_INVALID);
    EXPECT_NE(std::string(rankmap_last_error()).find("no-such"), std::string::npos);
    rankmap_graph_free(g);
    rankmap_topology_free(t);
}

TEST(CApi, TooSmallTopologyIsReported) {
    rankmap_topology_t t = nullptr;
    ASSERT_EQ(rankmap_topology_parse("torus:2x2", &t), RANKMAP_OK);
    int src[1] = {0}, dst[1] = {5};
    rankmap_graph_t g = nullptr;
    ASSERT_EQ(rankmap_graph_create(6, 1, src, dst, nullptr, &g), RANKMAP_OK);
    std::vector<int> place(6);
    EXPECT_EQ(rankmap_map(t, g, nullptr, place.data(), nullptr), RANKMAP_ERR_TOO_SMALL);
    std::vector<int> order(6);
    EXPECT_EQ(rankmap_order_placement(t, "XYT", 6, order.data()), RANKMAP_ERR_TOO_SMALL);
    rankmap_graph_free(g);
    rankmap_topology_free(t);
}

TEST(CApi, CoordinatesAndMapfiles) {
    rankmap_topology_t t = nullptr;
    ASSERT_EQ(rankmap_topology_parse("torus:2x2", &t), RANKMAP_OK);
    int c[2] = {1, 0}, v = -1;
    ASSERT_EQ(rankmap_topology_node(t, c, &v), RANKMAP_OK);
    EXPECT_EQ(v, 2);
    int back[2];
    ASSERT_EQ(rankmap_topology_coords(t, 3, back), RANKMAP_OK);
    EXPECT_EQ(back[0], 1);
    EXPECT_EQ(back[1], 1);
    std::vector<int> place(4);
    EXPECT_EQ(rankmap_mapfile_read(t, fixture("bad-duplicate-coord.map").c_str(), 4, place.data()), RANKMAP_ERR_INVALID);
    EXPECT_NE(std::string(rankmap_last_error()).find("duplicate"), std::string::npos);
    ASSERT_EQ(rankmap_mapfile_read(t, fixture("torus-2x2-identity.map").c_str(), 4, place.data()), RANKMAP_OK);
    EXPECT_EQ(place, (std::vector<int>{0, 1, 2, 3}));
    rankmap_topology_free(t);
}

// The MPI glue (include/rankmap_glue.h): rank 0 kept by a symmetry of the
// machine (exact on tori and trees), the free flag, the guard, failures and
// determinism; the address table of both MPI layers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "rankmap_glue.h"

namespace {

struct Machine {
    rankmap_topology_t t = nullptr;
    rankmap_graph_t g = nullptr;
    int nodes = 0, slots = 1, ntasks = 0;
    Machine(const std::string &spec, std::vector<int> grid, int slots_ = 1) : slots(slots_) {
        EXPECT_EQ(rankmap_topology_parse(spec.c_str(), &t), RANKMAP_OK) << rankmap_last_error();
        rankmap_topology_size(t, &nodes);
        std::vector<int> periods(grid.size(), 1);
        EXPECT_EQ(rankmap_graph_cartesian(static_cast<int>(grid.size()), grid.data(), periods.data(), &g),
                  RANKMAP_OK);
        rankmap_graph_ntasks(g, &ntasks);
    }
    Machine(const Machine &) = delete;
    Machine &operator=(const Machine &) = delete;
    ~Machine() {
        rankmap_graph_free(g);
        rankmap_topology_free(t);
    }
    rankmap_report eval(const std::vector<int> &place) const {
        rankmap_report r;
        EXPECT_EQ(rankmap_evaluate(t, g, place.data(), &r), RANKMAP_OK) << rankmap_last_error();
        return r;
    }
    std::vector<int> map_free() const {
        std::vector<int> place(ntasks, -1);
        rankmap_options o;
        rankmap_options_init(&o);
        o.cache_dir = "";
        EXPECT_EQ(rankmap_map(t, g, &o, place.data(), nullptr), RANKMAP_OK) << rankmap_last_error();
        return place;
    }
    // Member i on node i / slots, with the members shuffled (fixed seed).
    std::vector<int> scrambled_members(unsigned seed) const {
        std::vector<int> m(static_cast<size_t>(nodes) * slots);
        for (size_t i = 0; i < m.size(); ++i) m[i] = static_cast<int>(i) / slots;
        for (size_t i = m.size() - 1; i > 0; --i) {
            seed = seed * 1103515245u + 12345u;
            std::swap(m[i], m[(seed >> 8) % (i + 1)]);
        }
        return m;
    }
};

rankmap_options quiet() {
    rankmap_options o;
    rankmap_options_init(&o);
    o.cache_dir = "";
    return o;
}

// The placement the new ranks imply: task r on the node of the member that
// received rank r.
std::vector<int> implied(const std::vector<int> &node_of_member, const std::vector<int> &new_of_member, int ntasks) {
    std::vector<int> place(ntasks, -1);
    for (size_t i = 0; i < new_of_member.size(); ++i)
        if (new_of_member[i] >= 0) place[new_of_member[i]] = node_of_member[i];
    return place;
}

// Every node as the target of task 0: the symmetry alone puts it there and
// F (and, with translations only, the heaviest link) stays exactly equal.
void expect_exact_for_every_target(const Machine &m, bool same_links) {
    const auto free_place = m.map_free();
    const auto before = m.eval(free_place);
    for (int node = 0; node < m.nodes; ++node) {
        auto place = free_place;
        int exact = -1;
        rankmap_report r;
        ASSERT_EQ(rankmap_place_task0(m.t, m.g, node, place.data(), &r, &exact), RANKMAP_OK) << rankmap_last_error();
        EXPECT_EQ(place[0], node);
        EXPECT_EQ(exact, 1) << "target " << node;
        EXPECT_EQ(r.F, before.F) << "target " << node;
        EXPECT_EQ(m.eval(place).F, before.F);
        if (same_links) {
            EXPECT_EQ(r.max_link_load, before.max_link_load) << "target " << node;
        }
    }
}

} // namespace

TEST(Glue, TorusTranslationKeepsFAndLinkLoadsExactly) {
    {
        Machine m("torus:4x4x4", {4, 4, 4});
        expect_exact_for_every_target(m, true);
    }
    {
        Machine m("torus:8x4", {4, 8});
        expect_exact_for_every_target(m, true);
    }
    {
        Machine m("torus:4x4x2:slots=2", {4, 4, 4}, 2);
        expect_exact_for_every_target(m, true);
    }
    {
        Machine m("torus:4x2x2x4:local=0.5", {4, 4, 4});
        expect_exact_for_every_target(m, true);
    }
    {
        Machine m("torus:4x4x4:metric=euclid", {8, 8});
        expect_exact_for_every_target(m, true);
    }
}

TEST(Glue, TreeSubtreeExchangeIsExact) {
    {
        Machine m("tree:4x2x4:cost=100,10,1", {4, 8});
        expect_exact_for_every_target(m, true);
    }
    {
        Machine m("tree:2x3x2:slots=2", {6, 4}, 2);
        expect_exact_for_every_target(m, true);
    }
}

TEST(Glue, MeshReflectionIsExactWhereOneReachesTheTarget) {
    Machine m("mesh:4x4", {4, 4});
    std::vector<int> id(16);
    for (int i = 0; i < 16; ++i) id[i] = i;  // task 0 on the corner (0,0)
    const double F = m.eval(id).F;
    for (int node : {3, 12, 15}) {  // the other corners: reflections
        auto place = id;
        int exact = -1;
        rankmap_report r;
        ASSERT_EQ(rankmap_place_task0(m.t, m.g, node, place.data(), &r, &exact), RANKMAP_OK);
        EXPECT_EQ(place[0], node);
        EXPECT_EQ(exact, 1);
        EXPECT_EQ(r.F, F);
    }
    // (1,1) is no corner: a symmetry and an exchange, F a little higher
    auto place = id;
    int exact = -1;
    rankmap_report r;
    ASSERT_EQ(rankmap_place_task0(m.t, m.g, 5, place.data(), &r, &exact), RANKMAP_OK);
    EXPECT_EQ(place[0], 5);
    EXPECT_EQ(exact, 0);
    EXPECT_GT(r.F, F);
    EXPECT_LE(r.F, 1.5 * F);
    EXPECT_EQ(m.eval(place).F, r.F);
}

// Every node as the target of task 0 on machines without an exact
// symmetry for most targets.  Measured worst ratios F(pinned) / F(free):
// mesh:6x4 1.14, mesh:4x3x2 1.11, torus:4x4x3:wrap=110 1.06, and 1.82 on
// the 12-node path (file:), whose far end costs the exchange the most; the
// bounds leave room for another mapper, not for a broken pin.
TEST(Glue, MeshAndMatrixPinTask0WithinMeasuredCost) {
    std::string path = testing::TempDir() + "glue-path-12.dist";
    {
        FILE *f = std::fopen(path.c_str(), "w");
        ASSERT_NE(f, nullptr);
        for (int i = 0; i < 12; ++i)
            for (int j = 0; j < 12; ++j) std::fprintf(f, "%d%c", std::abs(i - j), j == 11 ? '\n' : ' ');
        std::fclose(f);
    }
    struct Case {
        std::string spec;
        std::vector<int> grid;
        double bound;
    } cases[] = {{"mesh:6x4", {6, 4}, 1.25},
                 {"mesh:4x3x2", {4, 6}, 1.25},
                 {"torus:4x4x3:wrap=110", {4, 12}, 1.25},
                 {"file:" + path, {12}, 2.0}};
    for (const auto &c : cases) {
        Machine m(c.spec, c.grid);
        const auto free_place = m.map_free();
        const double F = m.eval(free_place).F;
        for (int node = 0; node < m.nodes; ++node) {
            auto place = free_place;
            rankmap_report r;
            ASSERT_EQ(rankmap_place_task0(m.t, m.g, node, place.data(), &r, nullptr), RANKMAP_OK)
                << c.spec << ": " << rankmap_last_error();
            EXPECT_EQ(place[0], node) << c.spec;
            EXPECT_EQ(m.eval(place).F, r.F);
            EXPECT_LE(r.F, c.bound * F) << c.spec << " target " << node;
        }
    }
    std::remove(path.c_str());
}

TEST(Glue, ReorderKeepsRank0AndMovesOthers) {
    for (auto spec : {"torus:4x4x4", "torus:4x4x2:slots=2", "mesh:6x4", "tree:4x2x4:cost=100,10,1"}) {
        const std::string s = spec;
        std::vector<int> grid = s == "mesh:6x4" ? std::vector<int>{6, 4} : std::vector<int>{4, 4, 4};
        if (s.rfind("tree", 0) == 0) grid = {4, 8};
        const int slots = s.find("slots=2") != std::string::npos ? 2 : 1;
        Machine m(s, grid, slots);
        const auto members = m.scrambled_members(7);
        std::vector<int> ranks(members.size());
        rankmap_report before, after;
        char why[200];
        auto o = quiet();
        ASSERT_EQ(rankmap_reorder_ranks(m.t, m.g, &o, static_cast<int>(members.size()), members.data(), m.ntasks, 0,
                                        ranks.data(), &before, &after, why, sizeof why),
                  RANKMAP_OK)
            << s << ": " << why;
        EXPECT_EQ(ranks[0], 0) << s;
        int moved = 0;
        for (size_t i = 0; i < ranks.size(); ++i) moved += ranks[i] != static_cast<int>(i);
        EXPECT_GT(moved, 0) << s;
        EXPECT_LT(after.F, before.F) << s;
        EXPECT_EQ(m.eval(implied(members, ranks, m.ntasks)).F, after.F) << s;
        EXPECT_NE(std::string(why).find("rank 0 kept"), std::string::npos) << why;
        // on a torus and a tree the kept rank 0 costs nothing
        rankmap_report free_after;
        std::vector<int> free_ranks(members.size());
        ASSERT_EQ(rankmap_reorder_ranks(m.t, m.g, &o, static_cast<int>(members.size()), members.data(), m.ntasks,
                                        RANKMAP_REORDER_FREE_RANK0, free_ranks.data(), nullptr, &free_after, why,
                                        sizeof why),
                  RANKMAP_OK);
        if (s[0] != 'm') {
            EXPECT_EQ(after.F, free_after.F) << s;
        }
    }
}

TEST(Glue, FreeFlagLeavesTheMapperPlacement) {
    Machine m("torus:4x4x4", {4, 4, 4});
    const auto members = m.scrambled_members(3);
    const auto mapped = m.map_free();
    std::vector<int> ranks(members.size());
    auto o = quiet();
    ASSERT_EQ(rankmap_reorder_ranks(m.t, m.g, &o, m.ntasks, members.data(), m.ntasks, RANKMAP_REORDER_FREE_RANK0,
                                    ranks.data(), nullptr, nullptr, nullptr, 0),
              RANKMAP_OK);
    EXPECT_EQ(implied(members, ranks, m.ntasks), mapped);
    EXPECT_NE(mapped[0], members[0]);  // so the default would have moved it
}

TEST(Glue, GuardKeepsTheCurrentOrderWithoutGain) {
    Machine m("torus:4x4x4", {4, 4, 4});
    std::vector<int> members(64);
    for (int i = 0; i < 64; ++i) members[i] = i;  // the grid in place: F = F_min
    std::vector<int> ranks(64, -5);
    rankmap_report before, after;
    char why[200];
    auto o = quiet();
    o.algorithm = "random";  // a mapper that cannot beat F_min
    ASSERT_EQ(rankmap_reorder_ranks(m.t, m.g, &o, 64, members.data(), 64, 0, ranks.data(), &before, &after, why,
                                    sizeof why),
              RANKMAP_OK);
    for (int i = 0; i < 64; ++i) EXPECT_EQ(ranks[i], i);
    EXPECT_STREQ(after.algorithm, "identity (no gain)");
    EXPECT_EQ(after.F, before.F);
    EXPECT_NE(std::string(why).find("current order kept"), std::string::npos) << why;

    // an order of equal F is no gain either: the members sit one step along
    // dimension 0 from the identity placement the mapper returns
    for (int i = 0; i < 64; ++i) members[i] = (i + 16) % 64;
    o.algorithm = "identity";
    ASSERT_EQ(rankmap_reorder_ranks(m.t, m.g, &o, 64, members.data(), 64, RANKMAP_REORDER_FREE_RANK0, ranks.data(),
                                    &before, &after, why, sizeof why),
              RANKMAP_OK);
    for (int i = 0; i < 64; ++i) EXPECT_EQ(ranks[i], i);
    EXPECT_STREQ(after.algorithm, "identity (no gain)");
}

// A mapping the guard refuses leaves a second candidate when the launch is
// not the machine's own order: the members sorted by node.  A 16x8 stencil
// launched round robin over the 16 nodes of a tree, the mapper a random
// placement (refused): the block order is taken; launched in block order,
// the current order stays.
TEST(Glue, RefusedMappingLeavesTheMachinesOrder) {
    rankmap_topology_t t = nullptr;
    ASSERT_EQ(rankmap_topology_parse("tree:4x4x8:cost=100,10,1:up=4", &t), RANKMAP_OK);
    const int dims[2] = {16, 8}, periods[2] = {0, 0};
    rankmap_graph_t g = nullptr;
    ASSERT_EQ(rankmap_graph_cartesian_alltoall(2, dims, periods, "none", &g), RANKMAP_OK);
    std::vector<int> block(128), rr(128), ranks(128);
    for (int i = 0; i < 128; ++i) block[i] = i, rr[i] = (i % 16) * 8 + i / 16;
    auto o = quiet();
    o.algorithm = "random";
    rankmap_report before, after;
    char why[2048];
    ASSERT_EQ(rankmap_reorder_ranks(t, g, &o, 128, rr.data(), 128, 0, ranks.data(), &before, &after, why, sizeof why),
              RANKMAP_OK);
    EXPECT_STREQ(after.algorithm, "identity (the machine's order)") << why;
    EXPECT_NE(std::string(why).find("the machine's order taken instead"), std::string::npos) << why;
    EXPECT_EQ(implied(rr, ranks, 128), block) << why;
    EXPECT_LT(after.F, before.F) << why;
    EXPECT_EQ(ranks[0], 0);
    ASSERT_EQ(rankmap_reorder_ranks(t, g, &o, 128, block.data(), 128, 0, ranks.data(), &before, &after, why,
                                    sizeof why),
              RANKMAP_OK);
    EXPECT_STREQ(after.algorithm, "identity (no gain)") << why;
    for (int i = 0; i < 128; ++i) EXPECT_EQ(ranks[i], i) << why;
    rankmap_graph_free(g);
    rankmap_topology_free(t);
}

// The model guard judges two regimes (small messages by F, large ones by the
// predicted time); GUARD_F is F alone; GUARD_OFF takes the mapper's order.
TEST(Glue, GuardSettingsAndRegimes) {
    int flags = -1;
    EXPECT_EQ(rankmap_guard_flags(nullptr, &flags), RANKMAP_OK);
    EXPECT_EQ(flags, 0);
    EXPECT_EQ(rankmap_guard_flags("model", &flags), RANKMAP_OK);
    EXPECT_EQ(flags, 0);
    EXPECT_EQ(rankmap_guard_flags("f", &flags), RANKMAP_OK);
    EXPECT_EQ(flags, RANKMAP_REORDER_GUARD_F);
    EXPECT_EQ(rankmap_guard_flags("off", &flags), RANKMAP_OK);
    EXPECT_EQ(flags, RANKMAP_REORDER_GUARD_OFF);
    EXPECT_EQ(rankmap_guard_flags("sometimes", &flags), RANKMAP_ERR_INVALID);
    EXPECT_EQ(flags, 0);
    EXPECT_NE(std::string(rankmap_last_error()).find("sometimes"), std::string::npos);

    // a pencil-FFT grid 8x64 (lines along both dimensions do all-to-all) in
    // rank order on 8x8x8; a random order is slower in both regimes
    rankmap_topology_t t = nullptr;
    rankmap_graph_t g = nullptr;
    ASSERT_EQ(rankmap_topology_parse("torus:8x8x8", &t), RANKMAP_OK);
    const int dims[2] = {64, 8}, periods[2] = {0, 0};
    ASSERT_EQ(rankmap_graph_cartesian_alltoall(2, dims, periods, "all", &g), RANKMAP_OK) << rankmap_last_error();
    std::vector<int> members(512), ranks(512);
    for (int i = 0; i < 512; ++i) members[i] = i;
    auto o = quiet();
    o.algorithm = "random";
    rankmap_report before, after;
    char why[400];
    ASSERT_EQ(rankmap_reorder_ranks(t, g, &o, 512, members.data(), 512, 0, ranks.data(), &before, &after, why,
                                    sizeof why),
              RANKMAP_OK);
    for (int i = 0; i < 512; ++i) ASSERT_EQ(ranks[i], i);
    EXPECT_NE(std::string(why).find("slower for"), std::string::npos) << why;
    EXPECT_NE(std::string(why).find("predicted"), std::string::npos) << why;
    ASSERT_EQ(rankmap_reorder_ranks(t, g, &o, 512, members.data(), 512, RANKMAP_REORDER_GUARD_F, ranks.data(),
                                    &before, &after, why, sizeof why),
              RANKMAP_OK);
    for (int i = 0; i < 512; ++i) ASSERT_EQ(ranks[i], i);
    EXPECT_NE(std::string(why).find("F not lower"), std::string::npos) << why;
    ASSERT_EQ(rankmap_reorder_ranks(t, g, &o, 512, members.data(), 512, RANKMAP_REORDER_GUARD_OFF, ranks.data(),
                                    &before, &after, why, sizeof why),
              RANKMAP_OK);
    int moved = 0;
    for (int i = 0; i < 512; ++i) moved += ranks[i] != i;
    EXPECT_GT(moved, 400);
    EXPECT_GT(after.F, before.F);
    EXPECT_LT(rankmap_reorder_ranks(t, g, &o, 512, members.data(), 512, 0x40, ranks.data(), nullptr, nullptr, why,
                                    sizeof why),
              0);
    // the default mapper with the hint: the model picks the mirrored blocks,
    // predicted clearly faster than rank order, so the guard takes them
    o = quiet();
    ASSERT_EQ(rankmap_reorder_ranks(t, g, &o, 512, members.data(), 512, 0, ranks.data(), &before, &after, why,
                                    sizeof why),
              RANKMAP_OK);
    EXPECT_EQ(std::string(after.algorithm).rfind("mirrored blocks", 0), 0u) << after.algorithm << ": " << why;
    EXPECT_EQ(ranks[0], 0);
    rankmap_graph_free(g);
    rankmap_topology_free(t);

    // a scrambled stencil: the mapper's order is clearly faster in both
    Machine m("torus:4x4x4", {4, 4, 4});
    members = m.scrambled_members(7);
    ranks.assign(64, -5);
    o = quiet();
    ASSERT_EQ(rankmap_reorder_ranks(m.t, m.g, &o, 64, members.data(), 64, 0, ranks.data(), &before, &after, why,
                                    sizeof why),
              RANKMAP_OK);
    EXPECT_LT(after.F, 0.98 * before.F);
    EXPECT_STRNE(after.algorithm, "identity (no gain)");
    EXPECT_NE(std::string(why).find("predicted"), std::string::npos) << why;
}

TEST(Glue, CartesianAlltoallHint) {
    const int dims[3] = {2, 3, 4}, periods[3] = {1, 1, 0};
    rankmap_graph_t g = nullptr;
    int n = 0;
    for (const char *ok : {"", "unknown", "none", "all", "1", "0, 2", "2,2"}) {
        ASSERT_EQ(rankmap_graph_cartesian_alltoall(3, dims, periods, ok, &g), RANKMAP_OK) << ok;
        rankmap_graph_ntasks(g, &n);
        EXPECT_EQ(n, 24);
        rankmap_graph_free(g);
    }
    ASSERT_EQ(rankmap_graph_cartesian_alltoall(3, dims, periods, nullptr, &g), RANKMAP_OK);
    rankmap_graph_free(g);
    for (const char *bad : {"3", "-1", "x", "1,", "all,1", "1 2"}) {
        g = nullptr;
        EXPECT_EQ(rankmap_graph_cartesian_alltoall(3, dims, periods, bad, &g), RANKMAP_ERR_INVALID) << bad;
        EXPECT_EQ(g, nullptr);
        EXPECT_NE(std::string(rankmap_last_error()).find("all-to-all dimensions"), std::string::npos)
            << rankmap_last_error();
    }
}

// Trees: the mapper's placement is moved by exchanges of subtrees to the
// one closest to the current order.  A 4x8 grid on 4 nodes of 8 cores in
// block order is already optimal (each row on a node): with the guard off,
// whatever equivalent placement the mapper returns, every rank stays.
TEST(Glue, TreeKeepsTheLaunchOrderStructure) {
    rankmap_topology_t t = nullptr;
    rankmap_graph_t g = nullptr;
    ASSERT_EQ(rankmap_topology_parse("tree:4x8:cost=100,1", &t), RANKMAP_OK);
    const int dims[2] = {4, 8}, periods[2] = {0, 0};
    ASSERT_EQ(rankmap_graph_cartesian_alltoall(2, dims, periods, "1", &g), RANKMAP_OK);
    std::vector<int> members(32), ranks(32), free_ranks(32);
    for (int i = 0; i < 32; ++i) members[i] = i;
    auto o = quiet();
    rankmap_report before, after, free_after;
    char why[400];
    ASSERT_EQ(rankmap_reorder_ranks(t, g, &o, 32, members.data(), 32, RANKMAP_REORDER_GUARD_OFF, ranks.data(), &before,
                                    &after, why, sizeof why),
              RANKMAP_OK);
    for (int i = 0; i < 32; ++i) EXPECT_EQ(ranks[i], i) << why;
    EXPECT_NE(std::string(why).find("32 tasks stay on their node"), std::string::npos) << why;
    ASSERT_EQ(rankmap_reorder_ranks(t, g, &o, 32, members.data(), 32,
                                    RANKMAP_REORDER_GUARD_OFF | RANKMAP_REORDER_FREE_RANK0, free_ranks.data(),
                                    &before, &free_after, why, sizeof why),
              RANKMAP_OK);
    EXPECT_EQ(after.F, free_after.F);  // a symmetry: the mapper's F exactly
    int moved_free = 0;
    for (int i = 0; i < 32; ++i) moved_free += free_ranks[i] != i;
    EXPECT_GT(moved_free, 0);  // the mapper's own placement is another of the equivalent ones
    // members scattered over the nodes (a round-robin launch): the same F,
    // and task 0 still on member 0's node
    for (int i = 0; i < 32; ++i) members[i] = (i % 4) * 8 + i / 4;
    ASSERT_EQ(rankmap_reorder_ranks(t, g, &o, 32, members.data(), 32, RANKMAP_REORDER_GUARD_OFF, ranks.data(), &before,
                                    &after, why, sizeof why),
              RANKMAP_OK);
    EXPECT_EQ(after.F, free_after.F);
    EXPECT_EQ(ranks[0], 0);
    rankmap_graph_free(g);
    rankmap_topology_free(t);
}

// A grid on a fat tree of 16 hosts x 8 cores, launched in block order (a
// row per host): its stencil order (2x4 blocks per host) has a lower F, but
// sent one direction at a time every phase of the blocks leaves its host,
// where the rows keep two phases inside, so block order stays whether the
// traffic is undeclared ("" or "unknown") or a stencil ("none").  From a
// round-robin launch, the transposes' order (rows on hosts) is better in
// every reading and is taken.
TEST(Glue, UndeclaredGridIsJudgedAsStencilAndTransposes) {
    rankmap_topology_t t = nullptr;
    ASSERT_EQ(rankmap_topology_parse("tree:4x4x8:cost=100,10,1:up=4", &t), RANKMAP_OK);
    const int dims[2] = {16, 8}, periods[2] = {0, 0};
    std::vector<int> block(128), rr(128), ranks(128);
    for (int i = 0; i < 128; ++i) block[i] = i, rr[i] = (i % 16) * 8 + i / 16;
    auto o = quiet();
    o.cart_ndims = 2;
    o.cart_dims[0] = 16, o.cart_dims[1] = 8;
    rankmap_report before, after;
    char why[2048];
    auto moved = [&] {
        int m = 0;
        for (int i = 0; i < 128; ++i) m += ranks[i] != i;
        return m;
    };
    for (const char *hint : {"", "unknown", "none"}) {
        rankmap_graph_t g = nullptr;
        ASSERT_EQ(rankmap_graph_cartesian_alltoall(2, dims, periods, hint, &g), RANKMAP_OK);
        ASSERT_EQ(rankmap_reorder_ranks(t, g, &o, 128, block.data(), 128, 0, ranks.data(), &before, &after, why,
                                        sizeof why),
                  RANKMAP_OK);
        EXPECT_EQ(moved(), 0) << why;
        EXPECT_STREQ(after.algorithm, "identity (no gain)");
        EXPECT_NE(std::string(why).find("slower for small messages sent one direction at a time"), std::string::npos)
            << why;
        if (std::string(hint) != "none") {
            EXPECT_NE(std::string(why).find("not declared"), std::string::npos) << why;
        }
        if (!*hint) {
            ASSERT_EQ(rankmap_reorder_ranks(t, g, &o, 128, rr.data(), 128, 0, ranks.data(), &before, &after, why,
                                            sizeof why),
                      RANKMAP_OK);
            EXPECT_NE(std::string(after.algorithm).find("(transposes"), std::string::npos) << why;
            EXPECT_LT(after.F, before.F) << why;  // better as a stencil too
            EXPECT_EQ(ranks[0], 0);
        }
        rankmap_graph_free(g);
    }
    rankmap_topology_free(t);
    // nodes of two slots (two members each): every candidate fits them, and
    // the decision is a valid order, not an error
    ASSERT_EQ(rankmap_topology_parse("tree:4x2:cost=100,1:slots=2", &t), RANKMAP_OK);
    const int dims2[2] = {4, 4}, periods2[2] = {1, 1};
    rankmap_graph_t g = nullptr;
    ASSERT_EQ(rankmap_graph_cartesian_alltoall(2, dims2, periods2, "", &g), RANKMAP_OK);
    std::vector<int> members(16), got(16);
    for (int i = 0; i < 16; ++i) members[i] = i / 2;
    for (bool scattered : {false, true}) {
        if (scattered)
            for (int i = 0; i < 16; ++i) members[i] = (i % 8 * 3) % 8;  // each node twice, scattered
        auto o2 = quiet();
        ASSERT_EQ(rankmap_reorder_ranks(t, g, &o2, 16, members.data(), 16, 0, got.data(), &before, &after, why,
                                        sizeof why),
                  RANKMAP_OK)
            << why;
        EXPECT_EQ(std::string(why).find(", outside 0.."), std::string::npos) << why;  // no candidate off the machine
        std::vector<int> seen(16, 0);
        for (int r : got) ASSERT_TRUE(r >= 0 && r < 16 && !seen[r]++) << why;
    }
    rankmap_graph_free(g);
    rankmap_topology_free(t);
}

// A cluster declared as one tier of hosts may hang them from tapered leaf
// switches.  The 4x32 pencil-FFT grid, traffic undeclared, in block order on
// tree:16x8: its stencil order gains on one switch but is slower under leaf
// switches of 4 hosts tapered 2:1 (what SimGrid measured on such a machine),
// so the order stays; declared with its switches (up=2) the same machine
// still gets a new order, and so does the 8x16 grid on the plain tree.
TEST(Glue, PlainTreeGuardsAgainstSwitchesItDoesNotDeclare) {
    auto decide = [](const char *topo, int d0, int d1, std::string &why_out) {
        rankmap_topology_t t = nullptr;
        rankmap_graph_t g = nullptr;
        EXPECT_EQ(rankmap_topology_parse(topo, &t), RANKMAP_OK);
        const int dims[2] = {d0, d1}, periods[2] = {0, 0};
        EXPECT_EQ(rankmap_graph_cartesian_alltoall(2, dims, periods, "", &g), RANKMAP_OK);
        std::vector<int> block(128), ranks(128);
        for (int i = 0; i < 128; ++i) block[i] = i;
        auto o = quiet();
        o.algorithm = "fast";
        o.cart_ndims = 2;
        o.cart_dims[0] = d0, o.cart_dims[1] = d1;
        rankmap_report before, after;
        char why[2048];
        EXPECT_EQ(rankmap_reorder_ranks(t, g, &o, 128, block.data(), 128, 0, ranks.data(), &before, &after, why,
                                        sizeof why),
                  RANKMAP_OK);
        why_out = why;
        rankmap_graph_free(g);
        rankmap_topology_free(t);
        int moved = 0;
        for (int i = 0; i < 128; ++i) moved += ranks[i] != i;
        return moved;
    };
    std::string why;
    EXPECT_EQ(decide("tree:16x8:cost=100,1", 4, 32, why), 0) << why;
    EXPECT_NE(why.find("switches of 4 tapered 2:1"), std::string::npos) << why;
    EXPECT_GT(decide("tree:4x4x8:cost=100,10,1:up=2", 4, 32, why), 0) << why;
    EXPECT_EQ(why.find("tapered 2:1"), std::string::npos) << why;
    EXPECT_GT(decide("tree:16x8:cost=100,1", 8, 16, why), 0) << why;
}

TEST(Glue, FailuresGiveTheIdentityAndAReason) {
    Machine m("torus:2x2", {4});
    std::vector<int> members = {3, 2, 1, 0, 0};
    std::vector<int> ranks(5, -5);
    char why[300];
    auto o = quiet();
    o.algorithm = "no-such";
    EXPECT_LT(rankmap_reorder_ranks(m.t, m.g, &o, 5, members.data(), 4, 0, ranks.data(), nullptr, nullptr, why,
                                    sizeof why),
              0);
    EXPECT_EQ(ranks, (std::vector<int>{0, 1, 2, 3, -1}));
    EXPECT_NE(std::string(why).find("no-such"), std::string::npos) << why;

    // every member on node 0: the placement cannot be turned into ranks
    o = quiet();
    std::vector<int> crowded = {0, 0, 0, 0};
    ranks.assign(4, -5);
    EXPECT_LT(rankmap_reorder_ranks(m.t, m.g, &o, 4, crowded.data(), 4, 0, ranks.data(), nullptr, nullptr, why,
                                    sizeof why),
              0);
    EXPECT_EQ(ranks, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_GT(std::strlen(why), 0u);
    EXPECT_LT(rankmap_reorder_ranks(m.t, m.g, &o, 4, crowded.data(), 4, RANKMAP_REORDER_FREE_RANK0, ranks.data(),
                                    nullptr, nullptr, why, sizeof why),
              0);
    EXPECT_NE(std::string(why).find("than it has members"), std::string::npos) << why;

    // bad arguments: more tasks than members, a node out of range, flags
    members = {0, 1, 2};
    EXPECT_EQ(rankmap_reorder_ranks(m.t, m.g, &o, 3, members.data(), 4, 0, ranks.data(), nullptr, nullptr, why,
                                    sizeof why),
              RANKMAP_ERR_INVALID);
    EXPECT_NE(std::string(why).find("4 tasks for 3 members"), std::string::npos) << why;
    members = {0, 1, 2, 9};
    EXPECT_EQ(rankmap_reorder_ranks(m.t, m.g, &o, 4, members.data(), 4, 0, ranks.data(), nullptr, nullptr, why,
                                    sizeof why),
              RANKMAP_ERR_INVALID);
    EXPECT_NE(std::string(why).find("member 3 on node 9"), std::string::npos) << why;
    members = {0, 1, 2, 3};
    EXPECT_EQ(rankmap_reorder_ranks(m.t, m.g, &o, 4, members.data(), 4, 0x40, ranks.data(), nullptr, nullptr, why,
                                    sizeof why),
              RANKMAP_ERR_INVALID);
    EXPECT_EQ(ranks, (std::vector<int>{0, 1, 2, 3}));
}

TEST(Glue, SameInputsSameRanks) {
    Machine m("mesh:6x4", {6, 4});
    const auto members = m.scrambled_members(11);
    auto o = quiet();
    o.algorithm = "anneal";
    o.seed = 5;
    std::vector<int> a(members.size()), b(members.size());
    ASSERT_EQ(rankmap_reorder_ranks(m.t, m.g, &o, m.ntasks, members.data(), m.ntasks, 0, a.data(), nullptr, nullptr,
                                    nullptr, 0),
              RANKMAP_OK);
    ASSERT_EQ(rankmap_reorder_ranks(m.t, m.g, &o, m.ntasks, members.data(), m.ntasks, 0, b.data(), nullptr, nullptr,
                                    nullptr, 0),
              RANKMAP_OK);
    EXPECT_EQ(a, b);
    EXPECT_EQ(a[0], 0);
}

// ---- the address table (rankmap_table_*), shared by the patched MPICH and
// the plugin: the same settings give the same table and the same messages

namespace {

// MPI_Dims_create's answer for the sizes used below
int fake_dims(int n, int nd, int *dims) {
    if (n == 8 && nd == 3) { dims[0] = dims[1] = dims[2] = 2; return 0; }
    if (n == 8 && nd == 2) { dims[0] = 4; dims[1] = 2; return 0; }
    return -1;
}

struct Table {
    rankmap_topology_t topo = nullptr;
    std::vector<int> node;
    char source[256] = "";
    int rc;
    Table(const char *topology, const char *mapping, int n) : node(n, -1) {
        rc = rankmap_table_declared(topology, mapping, n, fake_dims, &topo, node.data(), source,
                                    sizeof(source));
    }
    ~Table() { rankmap_topology_free(topo); }
    std::string coords(int r) const {
        int c[RANKMAP_MAX_DIMS], nd = 0;
        rankmap_topology_ndims(topo, &nd);
        rankmap_topology_coords(topo, node[r], c);
        std::string s;
        for (int k = 0; k < nd; ++k) s += (k ? " " : "") + std::to_string(c[k]);
        return s;
    }
};

bool is_permutation_of_nodes(const std::vector<int> &v, int nnodes) {
    std::vector<int> seen(nnodes, 0);
    for (int x : v)
        if (x < 0 || x >= nnodes || seen[x]++) return false;
    return true;
}

} // namespace

TEST(Table, DeclaredDefaultOrderIsXYZT) {
    Table t("torus:2x2x2", "", 8);
    ASSERT_EQ(t.rc, RANKMAP_OK) << rankmap_last_error();
    EXPECT_EQ(t.coords(0), "0 0 0");
    EXPECT_EQ(t.coords(1), "1 0 0"); // X fastest
    EXPECT_EQ(t.coords(2), "0 1 0");
    EXPECT_EQ(t.coords(4), "0 0 1");
    EXPECT_STREQ(t.source, "torus:2x2x2, mapping default order");
    Table z("torus:2x2x2", "ZYXT", 8);
    ASSERT_EQ(z.rc, RANKMAP_OK) << rankmap_last_error();
    EXPECT_EQ(z.coords(1), "0 0 1"); // Z fastest
}

TEST(Table, TreeDefaultIsBlockOrderAsLaunchersFill) {
    // 4 hosts x 8 cores: ranks 0-7 on host 0's cores, as Hydra, Open MPI
    // and Slurm launch by default; the same as the CLI's identity
    Table t("tree:4x8:cost=100,1", "", 32);
    ASSERT_EQ(t.rc, RANKMAP_OK) << rankmap_last_error();
    for (int r = 0; r < 32; ++r) EXPECT_EQ(t.node[r], r) << r;
    // one leaf per host with slots: the slots first
    Table s("tree:2x2:cost=10,1:slots=4", "", 16);
    ASSERT_EQ(s.rc, RANKMAP_OK) << rankmap_last_error();
    for (int r = 0; r < 16; ++r) EXPECT_EQ(s.node[r], r / 4) << r;
    // fewer ranks than leaves: the first leaves in turn
    Table f("tree:4x4x8:cost=100,10,1:up=2", "", 20);
    ASSERT_EQ(f.rc, RANKMAP_OK) << rankmap_last_error();
    for (int r = 0; r < 20; ++r) EXPECT_EQ(f.node[r], r) << r;
}

namespace {
struct Hosts {
    Table t;
    int placed = -1, rc;
    char note[768] = "";
    Hosts(const char *topology, const char *mapping, const std::vector<int> &host, const char *addrs = nullptr,
          size_t stride = 0)
        : t(topology, mapping, static_cast<int>(host.size())) {
        rc = t.rc != RANKMAP_OK ? t.rc
                                : rankmap_table_hosts(t.topo, static_cast<int>(host.size()), host.data(), mapping,
                                                      addrs, stride, t.node.data(), &placed, note, sizeof(note));
    }
};
std::vector<int> round_robin(int nprocs, int nhosts) {
    std::vector<int> h(nprocs);
    for (int r = 0; r < nprocs; ++r) h[r] = r % nhosts;
    return h;
}
std::vector<int> blocks(int nprocs, int per) {
    std::vector<int> h(nprocs);
    for (int r = 0; r < nprocs; ++r) h[r] = r / per;
    return h;
}
} // namespace

TEST(Table, TreeWithoutMappingIsWhereTheRanksRun) {
    // launched round-robin over 4 hosts: rank r runs on host r % 4, so the
    // table must put it on the r % 4-th node of the tree, not on leaf r
    Hosts h("tree:4x8:cost=100,1", "", round_robin(32, 4));
    ASSERT_EQ(h.rc, RANKMAP_OK) << rankmap_last_error();
    EXPECT_EQ(h.placed, 1);
    for (int r = 0; r < 32; ++r) EXPECT_EQ(h.t.node[r] / 8, r % 4) << r;
    std::vector<int> seen(32, 0);
    for (int v : h.t.node) EXPECT_EQ(seen[v]++, 0);
    EXPECT_STREQ(h.note, "the 4 hosts the processes run on, 8 leaves each");
    // block launch: the same table as the default
    Hosts b("tree:4x8:cost=100,1", "", blocks(32, 8));
    ASSERT_EQ(b.rc, RANKMAP_OK);
    for (int r = 0; r < 32; ++r) EXPECT_EQ(b.t.node[r], r) << r;
    // with up=, the hosts' tier of the fat tree (4 switches x 4 hosts x 8)
    Hosts u("tree:4x4x8:cost=100,10,1:up=2", "", round_robin(128, 16));
    ASSERT_EQ(u.rc, RANKMAP_OK) << rankmap_last_error();
    EXPECT_EQ(u.placed, 1);
    for (int r = 0; r < 128; ++r) EXPECT_EQ(u.t.node[r] / 8, r % 16) << r;
    // without up=, the coarsest tier with a node per host: 16 hosts on
    // tree:4x4x8 take the middle tier, 2 hosts the switches
    Hosts m("tree:4x4x8:cost=100,10,1", "", round_robin(128, 16));
    ASSERT_EQ(m.placed, 1);
    for (int r = 0; r < 128; ++r) EXPECT_EQ(m.t.node[r] / 8, r % 16) << r;
    Hosts two("tree:4x4x8:cost=100,10,1", "", round_robin(16, 2));
    ASSERT_EQ(two.placed, 1);
    for (int r = 0; r < 16; ++r) EXPECT_EQ(two.t.node[r], (r % 2) * 32 + r / 2) << r;
}

TEST(Table, HostsUnderOneSlurmSwitchGoTogether) {
    // 4 hosts of 2 ranks, hosts 0 and 2 under switch s1, 1 and 3 under s2
    const size_t stride = RANKMAP_SWITCH_ADDR_MAX;
    std::vector<char> addrs(8 * stride, '\0');
    const char *names[4] = {"s0.s1.n0", "s0.s2.n1", "s0.s1.n2", "s0.s2.n3"};
    std::vector<int> host = blocks(8, 2);
    for (int r = 0; r < 8; ++r) std::strcpy(&addrs[r * stride], names[host[r]]);
    Hosts h("tree:2x2x2:cost=100,10,1:up=1", "", host, addrs.data(), stride);
    ASSERT_EQ(h.rc, RANKMAP_OK) << rankmap_last_error();
    ASSERT_EQ(h.placed, 1);
    const int want_host_node[4] = {0, 2, 1, 3};  // s1's hosts on switch 0, s2's on switch 1
    for (int r = 0; r < 8; ++r) EXPECT_EQ(h.t.node[r] / 2, want_host_node[host[r]]) << r;
}

TEST(Table, DeclaredDragonflyWithoutMappingIsWhereTheRanksRun) {
    // 4 hosts of 2 cores each, launched round-robin: rank r on host r % 4,
    // the cores of a host shared by its ranks without a warning
    Hosts h("dragonfly:2x1x2x1x2", "", round_robin(8, 4));
    ASSERT_EQ(h.rc, RANKMAP_OK) << rankmap_last_error();
    EXPECT_EQ(h.placed, 1);
    for (int r = 0; r < 8; ++r) EXPECT_EQ(h.t.node[r] / 2, r % 4) << r;
    EXPECT_STREQ(h.note, "the 4 hosts the processes run on, 2 leaves each");
    // a mapping given is kept: nothing placed from the hosts
    Hosts b("dragonfly:2x1x2x1x2", "random:0", blocks(8, 2));
    ASSERT_EQ(b.rc, RANKMAP_OK);
    EXPECT_EQ(b.placed, 0);
    Hosts same("dragonfly:2x1x2x1x2", "", blocks(8, 2));
    ASSERT_EQ(same.rc, RANKMAP_OK);
    for (int r = 0; r < 8; ++r) EXPECT_EQ(same.t.node[r], r) << r;
}

TEST(Table, AMappingThatContradictsTheHostsWarns) {
    // XYZT on a torus deals ranks 0 and 1 onto different nodes; NODE_SIZE=2
    // (or the host names) says they share a host
    Hosts x("torus:2x2x2", "XYZT", blocks(8, 1 + 1));
    ASSERT_EQ(x.rc, RANKMAP_OK);
    EXPECT_EQ(x.placed, 0);
    EXPECT_NE(std::strstr(x.note, "MPIR_CVAR_RANKMAP_MAPPING=\"XYZT\" puts ranks 0 and 1, which run on one host, "
                                  "on different nodes"),
              nullptr)
        << x.note;
    // the torus's default order is named as such
    Hosts d("torus:2x2x2", "", blocks(8, 2));
    EXPECT_NE(std::strstr(d.note, "the default order of MPIR_CVAR_RANKMAP_TOPOLOGY=\"torus:2x2x2"), nullptr)
        << d.note;
    // one rank per host on a torus agrees
    Hosts one("torus:2x2x2", "ZYXT", blocks(8, 1));
    EXPECT_EQ(one.rc, RANKMAP_OK);
    EXPECT_STREQ(one.note, "");
    // a torus with a local dimension: a host is a node's local slots
    Hosts loc("torus:2x2x2:local=1", "XYT", blocks(8, 2));
    EXPECT_EQ(loc.rc, RANKMAP_OK);
    EXPECT_NE(std::strstr(loc.note, "puts ranks 0 and 1, which run on one host"), nullptr) << loc.note;
    Hosts loct("torus:2x2x2:local=1", "TXY", blocks(8, 2));
    EXPECT_STREQ(loct.note, "") << loct.note;
    // on a tree: a given mapping is kept, and judged against the hosts
    Hosts tr("tree:4x8:cost=100,1", "YX", round_robin(32, 4));
    EXPECT_EQ(tr.placed, 0);
    for (int r = 0; r < 32; ++r) EXPECT_EQ(tr.t.node[r], r);
    EXPECT_NE(std::strstr(tr.note, "puts ranks 0 and 1, which run on different hosts, on one node"), nullptr)
        << tr.note;
    // hosts that fit no tier: the default order stays, with a warning
    Hosts no("tree:2x4:cost=10,1", "", blocks(8, 3));
    EXPECT_EQ(no.placed, 0);
    for (int r = 0; r < 8; ++r) EXPECT_EQ(no.t.node[r], r);
    EXPECT_NE(std::strstr(no.note, "has no tier with a group for each of the 3 hosts"), nullptr) << no.note;
    // one host: nothing to learn
    Hosts all("tree:2x4:cost=10,1", "", std::vector<int>(8, 0));
    EXPECT_EQ(all.placed, 0);
    EXPECT_STREQ(all.note, "");
    // a host number out of range is an error, not a table
    Hosts bad("tree:2x4:cost=10,1", "", std::vector<int>{0, 1, 2, 3, 4, 5, 6, 99});
    EXPECT_EQ(bad.rc, RANKMAP_ERR_INVALID);
}

TEST(Table, TorusAutoUsesTheLayersDimsCreate) {
    Table t("torus:auto", "", 8);
    ASSERT_EQ(t.rc, RANKMAP_OK) << rankmap_last_error();
    EXPECT_STREQ(t.source, "torus:2x2x2, mapping default order");
    Table t2("torus:auto2:local=", "", 8);
    // local= with nothing after it is the parser's error, after the expansion
    EXPECT_NE(t2.rc, RANKMAP_OK);
    Table m("mesh:auto2", "", 8);
    ASSERT_EQ(m.rc, RANKMAP_OK) << rankmap_last_error();
    EXPECT_STREQ(m.source, "mesh:4x2, mapping default order");
    Table bad("torus:auto9", "", 8);
    EXPECT_EQ(bad.rc, RANKMAP_ERR_INVALID);
    EXPECT_NE(std::strstr(rankmap_last_error(), "MPIR_CVAR_RANKMAP_TOPOLOGY=\"torus:auto9\""), nullptr)
        << rankmap_last_error();
    EXPECT_EQ(bad.topo, nullptr);
    // no dims_create: torus:auto cannot be expanded, a plain string still can
    rankmap_topology_t topo = nullptr;
    std::vector<int> node(8);
    EXPECT_NE(rankmap_table_declared("torus:auto", "", 8, nullptr, &topo, node.data(), nullptr, 0),
              RANKMAP_OK);
    EXPECT_EQ(rankmap_table_declared("torus:2x2x2", nullptr, 8, nullptr, &topo, node.data(), nullptr, 0),
              RANKMAP_OK);
    rankmap_topology_free(topo);
}

TEST(Table, RandomOrderIsASeededPermutation) {
    Table a("torus:2x2x2", "random:5", 8), b("torus:2x2x2", "random:5", 8),
        c("torus:2x2x2", "random:6", 8), d("torus:2x2x2", "random", 8), e("torus:2x2x2", "random:1", 8);
    for (auto *t : {&a, &b, &c, &d, &e}) ASSERT_EQ(t->rc, RANKMAP_OK) << rankmap_last_error();
    EXPECT_TRUE(is_permutation_of_nodes(a.node, 8));
    EXPECT_EQ(a.node, b.node);
    EXPECT_NE(a.node, c.node);
    EXPECT_EQ(d.node, e.node); // the seed defaults to 1
    // splitmix64 from seed 5, Fisher-Yates from the top: the sequence both
    // layers have always used (a job's random:SEED table does not change)
    Table plain("torus:2x2x2", "", 8);
    std::uint64_t s = 5;
    std::vector<int> want = plain.node;
    for (int i = 7; i > 0; --i) {
        std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        std::swap(want[i], want[z % static_cast<std::uint64_t>(i + 1)]);
    }
    EXPECT_EQ(a.node, want);
    for (const char *bad : {"random:x1", "random:", "random:-3", "random:5z"}) {
        Table t("torus:2x2x2", bad, 8);
        EXPECT_EQ(t.rc, RANKMAP_ERR_INVALID) << bad;
        EXPECT_NE(std::strstr(rankmap_last_error(), "MPIR_CVAR_RANKMAP_MAPPING="), nullptr)
            << rankmap_last_error();
    }
}

TEST(Table, BadSettingsNameTheSetting) {
    struct Case {
        const char *topology, *mapping, *want;
        int rc;
    } cases[] = {
        {"blob:8", "", "MPIR_CVAR_RANKMAP_TOPOLOGY=\"blob:8\"", RANKMAP_ERR_INVALID},
        {"torus:2x2y2", "", "MPIR_CVAR_RANKMAP_TOPOLOGY=\"torus:2x2y2\"", RANKMAP_ERR_INVALID},
        {"torus:2x2", "XYT", "MPIR_CVAR_RANKMAP_TOPOLOGY=\"torus:2x2\" is too small for 8 processes",
         RANKMAP_ERR_TOO_SMALL},
        {"torus:2x2", "", "MPIR_CVAR_RANKMAP_TOPOLOGY=\"torus:2x2\" is too small for 8 processes",
         RANKMAP_ERR_TOO_SMALL},
        // not an order (Q): read as a mapfile's path
        {"torus:2x2x2", "XQZ", "MPIR_CVAR_RANKMAP_MAPPING=\"XQZ\"", RANKMAP_ERR_IO},
        {"torus:2x2x2", "/nonexistent/rankmap.map", "MPIR_CVAR_RANKMAP_MAPPING=\"/nonexistent/rankmap.map\"",
         RANKMAP_ERR_IO},
    };
    for (const auto &c : cases) {
        Table t(c.topology, c.mapping, 8);
        EXPECT_EQ(t.rc, c.rc) << c.topology << " " << c.mapping;
        EXPECT_NE(std::strstr(rankmap_last_error(), c.want), nullptr) << rankmap_last_error();
        EXPECT_EQ(t.topo, nullptr);
    }
}

TEST(Table, MapfileFromTheFixtures) {
    const char *fix = std::getenv("RANKMAP_FIXTURES");
    if (!fix) GTEST_SKIP() << "RANKMAP_FIXTURES not set";
    std::string good = std::string(fix) + "/torus-2x2-identity.map";
    Table t("torus:2x2", good.c_str(), 4);
    ASSERT_EQ(t.rc, RANKMAP_OK) << rankmap_last_error();
    EXPECT_TRUE(is_permutation_of_nodes(t.node, 4));
    std::string dup = std::string(fix) + "/bad-duplicate-coord.map";
    Table d("torus:2x2", dup.c_str(), 4);
    EXPECT_NE(d.rc, RANKMAP_OK);
    EXPECT_NE(std::strstr(rankmap_last_error(), "MPIR_CVAR_RANKMAP_MAPPING="), nullptr)
        << rankmap_last_error();
}

TEST(Table, DiscoveryGivesAStringEveryRankParsesAlike) {
    const int n = 16;
    std::vector<int> hosts(n), leaf(n, -1);
    for (int r = 0; r < n; ++r) hosts[r] = r / 8; // two nodes of 8 processes
    char spec[512], source[256];
    ASSERT_EQ(rankmap_table_discover(n, hosts.data(), 0, "hwloc=synthetic:pack:2 core:4 pu:1", nullptr, 0, nullptr, 0, spec,
                                     sizeof(spec), leaf.data(), source, sizeof(source)),
              RANKMAP_OK)
        << rankmap_last_error();
    ASSERT_NE(spec[0], '\0');
    EXPECT_NE(std::strstr(source, "nodes from host names"), nullptr) << source;
    rankmap_topology_t topo = nullptr;
    ASSERT_EQ(rankmap_topology_parse(spec, &topo), RANKMAP_OK) << spec << ": " << rankmap_last_error();
    int leaves = 0;
    rankmap_topology_size(topo, &leaves);
    EXPECT_EQ(leaves, 16) << spec; // 2 nodes x 2 packages x 4 cores
    EXPECT_TRUE(is_permutation_of_nodes(leaf, leaves));
    // ranks of one host stay on that host's leaves: the node tier is the first
    for (int r = 0; r < n; ++r) {
        int c[RANKMAP_MAX_DIMS];
        rankmap_topology_coords(topo, leaf[r], c);
        EXPECT_EQ(c[0], hosts[r]) << "rank " << r << " on " << spec;
    }
    // the same machine from MPIR_CVAR_RANKMAP_NODE_SIZE=8 without host names
    std::vector<int> leaf2(n, -1);
    char spec2[512];
    ASSERT_EQ(rankmap_table_discover(n, nullptr, 8, "hwloc=synthetic:pack:2 core:4 pu:1", nullptr, 0, nullptr, 0, spec2,
                                     sizeof(spec2), leaf2.data(), source, sizeof(source)),
              RANKMAP_OK);
    EXPECT_STREQ(spec, spec2);
    EXPECT_EQ(leaf, leaf2);
    EXPECT_NE(std::strstr(source, "MPIR_CVAR_RANKMAP_NODE_SIZE"), nullptr) << source;
    rankmap_topology_free(topo);
}

TEST(Table, DiscoveryOneLeafAndBadSettings) {
    std::vector<int> leaf(4, -1);
    char spec[512] = "x";
    // one node with a flat inside: every order costs the same
    ASSERT_EQ(rankmap_table_discover(4, nullptr, 0, "single_node=flat", nullptr, 0, nullptr, 0, spec, sizeof(spec),
                                     leaf.data(), nullptr, 0),
              RANKMAP_OK)
        << rankmap_last_error();
    EXPECT_STREQ(spec, "");
    EXPECT_EQ(rankmap_table_discover(4, nullptr, -3, "", nullptr, 0, nullptr, 0, spec, sizeof(spec), leaf.data(), nullptr, 0),
              RANKMAP_ERR_INVALID);
    EXPECT_NE(std::strstr(rankmap_last_error(), "MPIR_CVAR_RANKMAP_NODE_SIZE=-3: must be >= 0"), nullptr);
    EXPECT_NE(rankmap_table_discover(4, nullptr, 2, "tiers=gpu", nullptr, 0, nullptr, 0, spec, sizeof(spec), leaf.data(),
                                     nullptr, 0),
              RANKMAP_OK);
    EXPECT_NE(std::strstr(rankmap_last_error(), "MPIR_CVAR_RANKMAP_DISCOVER=\"tiers=gpu\""), nullptr)
        << rankmap_last_error();
    char tiny[8];
    std::vector<int> leaf16(16, -1);
    EXPECT_NE(rankmap_table_discover(16, nullptr, 8, "hwloc=synthetic:pack:2 core:4 pu:1", nullptr, 0, nullptr, 0, tiny,
                                     sizeof(tiny), leaf16.data(), nullptr, 0),
              RANKMAP_OK);
}

// Slurm's SLURM_TOPOLOGY_ADDR of every process, set by hand: 8 nodes of 2
// processes (MPIR_CVAR_RANKMAP_NODE_SIZE=2) under two leaf switches of one
// top switch, nodes 0,1,4,5 on s0 and 2,3,6,7 on s1.
struct SlurmJob {
    static constexpr int n = 16;
    std::vector<char> addrs = std::vector<char>(static_cast<size_t>(n) * RANKMAP_SWITCH_ADDR_MAX, 0);
    void set(int p, const std::string &a) {
        std::snprintf(&addrs[static_cast<size_t>(p) * RANKMAP_SWITCH_ADDR_MAX], RANKMAP_SWITCH_ADDR_MAX, "%s",
                      a.c_str());
    }
    SlurmJob() {
        for (int p = 0; p < n; ++p) {
            const int node = p / 2;
            set(p, "top.s" + std::to_string((node / 2) % 2) + ".n" + std::to_string(node));
        }
    }
    int discover(const char *pattern, std::string &spec, std::vector<int> &leaf, std::string &said,
                 const char *settings = "hwloc=synthetic:core:2 pu:1") {
        char buf[512], source[256];
        leaf.assign(n, -1);
        testing::internal::CaptureStderr();
        const int rc = rankmap_table_discover(n, nullptr, 2, settings, addrs.data(),
                                              RANKMAP_SWITCH_ADDR_MAX, pattern, 0, buf, sizeof(buf), leaf.data(),
                                              source, sizeof(source));
        said = testing::internal::GetCapturedStderr();
        spec = buf;
        return rc;
    }
};

TEST(Table, SlurmSwitchesGoAboveTheNodes) {
    SlurmJob job;
    std::string spec, said;
    std::vector<int> leaf;
    ASSERT_EQ(job.discover("switch.switch.node", spec, leaf, said), RANKMAP_OK) << rankmap_last_error();
    EXPECT_EQ(said, "");
    // the top switch holds every node and is left out; a full-bisection fat
    // tree of 2 leaf switches x 4 nodes x 2 cores
    EXPECT_EQ(spec.compare(0, 12, "tree:2x4x2:c"), 0) << spec;
    EXPECT_NE(spec.find(":up=4"), std::string::npos) << spec;
    rankmap_topology_t topo = nullptr;
    ASSERT_EQ(rankmap_topology_parse(spec.c_str(), &topo), RANKMAP_OK) << spec << ": " << rankmap_last_error();
    EXPECT_TRUE(is_permutation_of_nodes(leaf, 16));
    // nodes keep their order inside a switch: s0 holds nodes 0,1,4,5, s1 2,3,6,7
    const int slot_of_node[8] = {0, 1, 0, 1, 2, 3, 2, 3};
    for (int r = 0; r < SlurmJob::n; ++r) {
        int c[RANKMAP_MAX_DIMS];
        rankmap_topology_coords(topo, leaf[r], c);
        const int node = r / 2;
        EXPECT_EQ(c[0], (node / 2) % 2) << "rank " << r;
        EXPECT_EQ(c[1], slot_of_node[node]) << "rank " << r;
        EXPECT_EQ(c[2], r % 2) << "rank " << r;
    }
    // crossing switches costs more than crossing nodes under one switch
    double same = 0, across = 0;
    rankmap_topology_distance(topo, leaf[0], leaf[8], &same);    // nodes 0 and 4, both on s0
    rankmap_topology_distance(topo, leaf[0], leaf[4], &across);  // nodes 0 and 2
    EXPECT_GT(across, same);
    rankmap_topology_free(topo);

    // without the switches: the nodes alone, as before
    std::string plain;
    char buf[512];
    std::vector<int> leaf0(SlurmJob::n, -1);
    ASSERT_EQ(rankmap_table_discover(SlurmJob::n, nullptr, 2, "hwloc=synthetic:core:2 pu:1", nullptr, 0, nullptr, 0,
                                     buf, sizeof(buf), leaf0.data(), nullptr, 0),
              RANKMAP_OK);
    plain = buf;
    EXPECT_EQ(plain.compare(0, 9, "tree:8x2:"), 0) << plain;

    // one leaf switch for the whole job: nothing to add, no warning
    SlurmJob one;
    for (int p = 0; p < SlurmJob::n; ++p) one.set(p, "top.s0.n" + std::to_string(p / 2));
    ASSERT_EQ(one.discover("switch.switch.node", spec, leaf, said), RANKMAP_OK);
    EXPECT_EQ(spec, plain);
    EXPECT_EQ(said, "");
    EXPECT_EQ(leaf, leaf0);
}

// Node n's coordinates on the discovered machine, from rank 2n's leaf.
std::vector<int> node_coords(const std::string &spec, const std::vector<int> &leaf, int n) {
    rankmap_topology_t topo = nullptr;
    EXPECT_EQ(rankmap_topology_parse(spec.c_str(), &topo), RANKMAP_OK) << spec << ": " << rankmap_last_error();
    int c[RANKMAP_MAX_DIMS] = {0};
    if (topo) rankmap_topology_coords(topo, leaf[static_cast<size_t>(2 * n)], c);
    rankmap_topology_free(topo);
    return std::vector<int>(c, c + 5);
}

TEST(Table, SlurmSwitchesReadAsDragonflyGroups) {
    constexpr const char *kDfly = "network=dragonfly;hwloc=synthetic:core:2 pu:1";
    // topology/tree with groups as top switches: node n in group n % 2,
    // router (n / 2) % 2 of it; groups and routers numbered by their first
    // node, the nodes of a router (its ports) in order.
    SlurmJob job;
    for (int p = 0; p < SlurmJob::n; ++p) {
        const int node = p / 2;
        job.set(p, "g" + std::to_string(node % 2) + ".r" + std::to_string((node / 2) % 2) + ".n" + std::to_string(node));
    }
    std::string spec, said;
    std::vector<int> leaf;
    ASSERT_EQ(job.discover("switch.switch.node", spec, leaf, said, kDfly), RANKMAP_OK) << rankmap_last_error();
    EXPECT_EQ(said, "");
    EXPECT_EQ(spec, "dragonfly:2x1x2x2x2");
    EXPECT_TRUE(is_permutation_of_nodes(leaf, 16));
    for (int node = 0; node < 8; ++node)
        EXPECT_EQ(node_coords(spec, leaf, node), (std::vector<int>{node % 2, 0, (node / 2) % 2, node / 4, 0}))
            << "node " << node;
    for (int p = 0; p < SlurmJob::n; ++p) EXPECT_EQ(leaf[p] % 2, p % 2) << "cores in rank order";
    // the same job read as a fat tree (the default): no dragonfly
    ASSERT_EQ(job.discover("switch.switch.node", spec, leaf, said), RANKMAP_OK);
    EXPECT_EQ(spec.compare(0, 5, "tree:"), 0) << spec;

    // topology/block (block.node): each node a router of its block's group
    SlurmJob blocks;
    for (int p = 0; p < SlurmJob::n; ++p)
        blocks.set(p, "b" + std::to_string((p / 2) % 2) + "." + "n" + std::to_string(p / 2));
    ASSERT_EQ(blocks.discover("block.node", spec, leaf, said, kDfly), RANKMAP_OK) << rankmap_last_error();
    EXPECT_EQ(said, "");
    EXPECT_EQ(spec, "dragonfly:2x1x4x1x2");
    for (int node = 0; node < 8; ++node)
        EXPECT_EQ(node_coords(spec, leaf, node), (std::vector<int>{node % 2, 0, node / 2, 0, 0})) << "node " << node;

    // group.chassis.blade.node: 2 groups of 2 chassis x 2 blades, a node each
    SlurmJob cb;
    for (int p = 0; p < SlurmJob::n; ++p) {
        const int node = p / 2;
        cb.set(p, "g" + std::to_string(node / 4) + ".c" + std::to_string(node / 2 % 2) + ".b" +
                      std::to_string(node % 2) + ".n" + std::to_string(node));
    }
    ASSERT_EQ(cb.discover("switch.switch.switch.node", spec, leaf, said, kDfly), RANKMAP_OK);
    EXPECT_EQ(spec, "dragonfly:2x2x2x1x2");
    for (int p = 0; p < SlurmJob::n; ++p) EXPECT_EQ(leaf[p], p) << "block order stays block order";
}

TEST(Table, DragonflyFromSlurmWarnsAndKeepsTheNodes) {
    constexpr const char *kDfly = "network=dragonfly;hwloc=synthetic:core:2 pu:1";
    char buf[512];
    std::vector<int> l(SlurmJob::n);
    ASSERT_EQ(rankmap_table_discover(SlurmJob::n, nullptr, 2, "hwloc=synthetic:core:2 pu:1", nullptr, 0, nullptr, 0,
                                     buf, sizeof(buf), l.data(), nullptr, 0),
              RANKMAP_OK);
    const std::string plain = buf;
    // asked for, but nobody has an address
    testing::internal::CaptureStderr();
    ASSERT_EQ(rankmap_table_discover(SlurmJob::n, nullptr, 2, kDfly, nullptr, 0, nullptr, 0, buf, sizeof(buf),
                                     l.data(), nullptr, 0),
              RANKMAP_OK);
    std::string said = testing::internal::GetCapturedStderr();
    EXPECT_EQ(buf, plain);
    EXPECT_NE(said.find("rankmap: warning: MPIR_CVAR_RANKMAP_DISCOVER=\"network=dragonfly;"), std::string::npos)
        << said;
    EXPECT_NE(said.find("no process has SLURM_TOPOLOGY_ADDR"), std::string::npos) << said;
    // four switch levels: more than group, chassis and blade
    SlurmJob deep;
    for (int p = 0; p < SlurmJob::n; ++p) deep.set(p, "a.b.c" + std::to_string(p / 8) + ".d.n" + std::to_string(p / 2));
    std::string spec;
    std::vector<int> leaf;
    ASSERT_EQ(deep.discover("switch.switch.switch.switch.node", spec, leaf, said, kDfly), RANKMAP_OK);
    EXPECT_EQ(spec, plain);
    EXPECT_NE(said.find("network=dragonfly: 4 switch levels"), std::string::npos) << said;
    EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1) << said;
    // a bad value names the entry
    EXPECT_EQ(rankmap_table_discover(SlurmJob::n, nullptr, 2, "network=torus", nullptr, 0, nullptr, 0, buf,
                                     sizeof(buf), l.data(), nullptr, 0),
              RANKMAP_ERR_INVALID);
    EXPECT_NE(std::string(rankmap_last_error()).find("network=torus"), std::string::npos) << rankmap_last_error();
    EXPECT_NE(std::string(rankmap_last_error()).find("expected tree or dragonfly"), std::string::npos);
}

TEST(Table, BadSlurmAddressesWarnAndKeepTheNodes) {
    std::string plain;
    {
        char buf[512];
        std::vector<int> l(SlurmJob::n);
        ASSERT_EQ(rankmap_table_discover(SlurmJob::n, nullptr, 2, "hwloc=synthetic:core:2 pu:1", nullptr, 0,
                                         nullptr, 0, buf, sizeof(buf), l.data(), nullptr, 0),
                  RANKMAP_OK);
        plain = buf;
    }
    struct Case {
        const char *what;
        std::function<void(SlurmJob &)> spoil;
        const char *pattern;
        const char *expect;
    };
    const std::vector<Case> cases = {
        {"one process without", [](SlurmJob &j) { j.set(5, ""); }, "switch.switch.node",
         "SLURM_TOPOLOGY_ADDR is set for 15 of 16 processes"},
        {"pattern", [](SlurmJob &) {}, "node.switch", "SLURM_TOPOLOGY_ADDR_PATTERN=\"node.switch\""},
        {"pattern length", [](SlurmJob &) {}, "switch.node", "does not match SLURM_TOPOLOGY_ADDR_PATTERN"},
        {"one node, two switches", [](SlurmJob &j) { j.set(1, "top.s1.n0"); }, "switch.switch.node",
         "the processes of one node report different SLURM_TOPOLOGY_ADDR"},
        {"uneven", [](SlurmJob &j) { j.set(4, "top.s0.n2"), j.set(5, "top.s0.n2"); }, "switch.switch.node",
         "spread unevenly over the leaf switches (5,3 per group)"},
        {"empty name", [](SlurmJob &j) { j.set(0, "top..n0"), j.set(1, "top..n0"); }, "switch.switch.node",
         "has an empty name"},
        {"too long",
         [](SlurmJob &j) {
             for (int p = 0; p < SlurmJob::n; ++p)
                 std::memset(&j.addrs[static_cast<size_t>(p) * RANKMAP_SWITCH_ADDR_MAX], 'a', RANKMAP_SWITCH_ADDR_MAX);
         },
         "switch.switch.node", "is longer than 255 characters"},
    };
    for (const Case &c : cases) {
        SlurmJob job;
        c.spoil(job);
        std::string spec, said;
        std::vector<int> leaf;
        ASSERT_EQ(job.discover(c.pattern, spec, leaf, said), RANKMAP_OK) << c.what << ": " << rankmap_last_error();
        EXPECT_EQ(spec, plain) << c.what;
        EXPECT_NE(said.find("rankmap: warning: "), std::string::npos) << c.what << ": " << said;
        EXPECT_NE(said.find(c.expect), std::string::npos) << c.what << ": " << said;
        EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1) << c.what << ": " << said;
    }
}

TEST(Table, SlurmSwitchesBeyondTheTreesTiersWarn) {
    // 64 processes, 8 per node on pack:2 numa:2 core:2 (node, package, NUMA
    // and core tiers) under three branching switch levels: 7 tiers, one more
    // than a tree holds.
    const int n = 64;
    std::vector<char> addrs(static_cast<size_t>(n) * RANKMAP_SWITCH_ADDR_MAX, 0);
    for (int p = 0; p < n; ++p) {
        const int node = p / 8;
        std::snprintf(&addrs[static_cast<size_t>(p) * RANKMAP_SWITCH_ADDR_MAX], RANKMAP_SWITCH_ADDR_MAX,
                      "a%d.b%d.c%d.n%d", node / 4, (node / 2) % 2, node % 2, node);
    }
    std::vector<int> leaf(n, -1);
    char spec[512];
    testing::internal::CaptureStderr();
    ASSERT_EQ(rankmap_table_discover(n, nullptr, 8, "hwloc=synthetic:pack:2 numa:2 core:2 pu:1", addrs.data(),
                                     RANKMAP_SWITCH_ADDR_MAX, "switch.switch.switch.node", 0, spec, sizeof(spec),
                                     leaf.data(), nullptr, 0),
              RANKMAP_OK)
        << rankmap_last_error();
    const std::string said = testing::internal::GetCapturedStderr();
    EXPECT_NE(said.find("are more than 6"), std::string::npos) << said;
    EXPECT_EQ(std::string(spec).compare(0, 7, "tree:8x"), 0) << spec;  // the nodes alone
    rankmap_topology_t topo = nullptr;
    EXPECT_EQ(rankmap_topology_parse(spec, &topo), RANKMAP_OK) << spec;
    rankmap_topology_free(topo);
}

TEST(Table, DigestTellsTablesApart) {
    Table a("torus:2x2x2", "random:5", 8), b("torus:2x2x2", "random:5", 8), c("torus:2x2x2", "random:6", 8),
        d("torus:2x2x4", "random:5", 8);
    long da = rankmap_table_digest(a.topo, 8, a.node.data());
    EXPECT_GE(da, 0);
    EXPECT_EQ(da, rankmap_table_digest(b.topo, 8, b.node.data()));
    EXPECT_NE(da, rankmap_table_digest(c.topo, 8, c.node.data()));
    EXPECT_NE(rankmap_table_digest(a.topo, 8, d.node.data()), rankmap_table_digest(d.topo, 8, d.node.data()));
}

// ---- the portfolio (rankmap_portfolio_*, rankmap_graph_pack/unpack): what
// the layers need so that the first K ranks map the same graph with their
// own seeds and agree on the winner

TEST(Portfolio, MembersAreTheSettingWithinTheCommunicator) {
    int k = 0;
    EXPECT_EQ(rankmap_portfolio_members(8, 32, &k), RANKMAP_OK);
    EXPECT_EQ(k, 8);
    EXPECT_EQ(rankmap_portfolio_members(8, 3, &k), RANKMAP_OK);
    EXPECT_EQ(k, 3);
    EXPECT_EQ(rankmap_portfolio_members(1, 64, &k), RANKMAP_OK);
    EXPECT_EQ(k, 1);
    EXPECT_EQ(rankmap_portfolio_members(8, 1, &k), RANKMAP_OK);
    EXPECT_EQ(k, 1);
    k = 5;
    EXPECT_EQ(rankmap_portfolio_members(0, 8, &k), RANKMAP_ERR_INVALID);
    EXPECT_EQ(k, 1);
    EXPECT_NE(std::string(rankmap_last_error()).find("portfolio 0"), std::string::npos) << rankmap_last_error();
    EXPECT_EQ(rankmap_portfolio_members(-3, 8, &k), RANKMAP_ERR_INVALID);
    EXPECT_EQ(k, 1);
}

TEST(Portfolio, Member0KeepsTheSeedAndTheOthersGetDistinctOnes) {
    EXPECT_EQ(rankmap_portfolio_seed(5, 0), 5u);
    std::vector<uint64_t> seen{5};
    for (int i = 1; i < 64; ++i) {
        const uint64_t s = rankmap_portfolio_seed(5, i);
        EXPECT_EQ(s, rankmap_portfolio_seed(5, i));
        for (uint64_t t : seen) EXPECT_NE(s, t) << "member " << i;
        seen.push_back(s);
    }
    EXPECT_NE(rankmap_portfolio_seed(5, 1), rankmap_portfolio_seed(6, 1));
}

TEST(Portfolio, ScoreIsTheReturnedFOrInfinity) {
    rankmap_report r{};
    r.F = 42;
    EXPECT_EQ(rankmap_portfolio_score(RANKMAP_OK, &r), 42.0);
    EXPECT_EQ(rankmap_portfolio_score(RANKMAP_ERR_TIMEOUT, &r), HUGE_VAL);
    EXPECT_EQ(rankmap_portfolio_score(RANKMAP_OK, nullptr), HUGE_VAL);
    r.F = NAN;
    EXPECT_EQ(rankmap_portfolio_score(RANKMAP_OK, &r), HUGE_VAL);
}

TEST(Portfolio, TheRunoffTakesTheFastestWithinTheGuardsMarginOfTheLowestF) {
    const double m = RANKMAP_GUARD_MARGIN;
    EXPECT_EQ(rankmap_portfolio_runoff(100, 5, 100), 5.0);
    EXPECT_EQ(rankmap_portfolio_runoff(100 * (1 + m) * 0.999, 3, 100), 3.0);
    EXPECT_EQ(rankmap_portfolio_runoff(100 * (1 + m) * 1.001, 1, 100), HUGE_VAL);
    EXPECT_EQ(rankmap_portfolio_runoff(HUGE_VAL, 1, 100), HUGE_VAL);   // a failed member
    EXPECT_EQ(rankmap_portfolio_runoff(100, 1, HUGE_VAL), HUGE_VAL);   // every member failed
    EXPECT_EQ(rankmap_portfolio_runoff(100, NAN, 100), HUGE_VAL);
    // the election of the MPI layers: the lowest F, then the lowest runoff
    // score, the lowest member on ties
    struct Ballot {
        double F, T;
    };
    auto elect = [](const std::vector<Ballot> &b) {
        double F_lowest = HUGE_VAL;
        for (const Ballot &x : b) F_lowest = std::min(F_lowest, x.F);
        int winner = 0;
        double best = HUGE_VAL;
        for (size_t i = 0; i < b.size(); ++i)
            if (rankmap_portfolio_runoff(b[i].F, b[i].T, F_lowest) < best)
                best = rankmap_portfolio_runoff(b[i].F, b[i].T, F_lowest), winner = static_cast<int>(i);
        return winner;
    };
    EXPECT_EQ(elect({{100, 9}, {101, 7}, {120, 1}}), 1);        // 120 is outside the margin
    EXPECT_EQ(elect({{100, 9}, {99, 9}, {101, 9}}), 0);         // equal times: the lowest member
    EXPECT_EQ(elect({{HUGE_VAL, 0}, {100, 9}}), 1);             // a failed member never wins
    EXPECT_EQ(elect({{HUGE_VAL, 0}, {HUGE_VAL, 0}}), 0);        // nobody mapped: member 0
}

TEST(Portfolio, TimeIsTheBandwidthRegimeOfTheMembersNewRanks) {
    // a ring of 32 tasks on torus:4x4x2 (members on nodes 0..31, a 33rd
    // member without a task): in rank order every edge is one hop or
    // crosses a row; scrambled, most cross the machine
    Machine m("torus:4x4x2", {4, 4, 2});
    std::vector<int> src, dst;
    std::vector<double> w;
    for (int v = 0; v < 32; ++v) src.push_back(v), dst.push_back((v + 1) % 32), w.push_back(1);
    rankmap_graph_t ring = nullptr;
    ASSERT_EQ(rankmap_graph_create(32, 32, src.data(), dst.data(), w.data(), &ring), RANKMAP_OK);
    std::vector<int> node(33), identity(33);
    for (int i = 0; i < 33; ++i) node[i] = i % 32, identity[i] = i < 32 ? i : -1;
    double ordered = 0, scrambled = 0, again = 0;
    EXPECT_EQ(rankmap_portfolio_time(m.t, ring, 33, node.data(), identity.data(), &ordered), RANKMAP_OK)
        << rankmap_last_error();
    std::vector<int> shuffled = identity;
    for (int i = 0; i < 32; ++i) shuffled[i] = (i * 13) % 32;  // 13 is prime to 32: a permutation
    EXPECT_EQ(rankmap_portfolio_time(m.t, ring, 33, node.data(), shuffled.data(), &scrambled), RANKMAP_OK);
    EXPECT_GT(ordered, 0);
    EXPECT_GT(scrambled, ordered);
    // only the placement counts: the same tasks on the same nodes through
    // other members give the same time
    std::vector<int> node2(node.rbegin() + 1, node.rend()), new2(32);
    node2.push_back(0);
    for (int i = 0; i < 32; ++i) new2[i] = identity[31 - i];
    new2.push_back(-1);
    EXPECT_EQ(rankmap_portfolio_time(m.t, ring, 33, node2.data(), new2.data(), &again), RANKMAP_OK);
    EXPECT_EQ(again, ordered);
    // a new rank given twice, out of range, or a task without a member
    for (auto bad : {std::pair<int, int>{1, 0}, {1, 32}, {5, -1}}) {
        std::vector<int> v = identity;
        v[bad.first] = bad.second;
        double t = 0;
        EXPECT_EQ(rankmap_portfolio_time(m.t, ring, 33, node.data(), v.data(), &t), RANKMAP_ERR_INVALID);
        EXPECT_EQ(t, HUGE_VAL);
        EXPECT_NE(std::string(rankmap_last_error()).find("rankmap_portfolio_time"), std::string::npos);
    }
    EXPECT_EQ(rankmap_portfolio_time(m.t, ring, 33, nullptr, identity.data(), &again), RANKMAP_ERR_INVALID);
    rankmap_graph_free(ring);
}

namespace {

std::vector<unsigned char> packed(rankmap_graph_t g) {
    size_t len = 0;
    EXPECT_EQ(rankmap_graph_pack(g, nullptr, &len), RANKMAP_OK) << rankmap_last_error();
    std::vector<unsigned char> buf(len);
    EXPECT_EQ(rankmap_graph_pack(g, buf.data(), &len), RANKMAP_OK) << rankmap_last_error();
    EXPECT_EQ(len, buf.size());
    return buf;
}

// New ranks of the scrambled members of torus:4x4x2, and the report.
std::vector<int> ranks_on_torus(rankmap_graph_t g, uint64_t seed, rankmap_report *after) {
    Machine m("torus:4x4x2", {4, 4, 2});
    const auto members = m.scrambled_members(3);
    auto o = quiet();
    o.seed = seed;
    int ntasks = 0;
    rankmap_graph_ntasks(g, &ntasks);
    std::vector<int> ranks(members.size());
    char why[600];
    EXPECT_EQ(rankmap_reorder_ranks(m.t, g, &o, static_cast<int>(members.size()), members.data(), ntasks, 0,
                                    ranks.data(), nullptr, after, why, sizeof why),
              RANKMAP_OK)
        << why;
    return ranks;
}

} // namespace

TEST(Portfolio, AnUnpackedGraphMapsAsTheOriginal) {
    // a weighted irregular graph and an undeclared grid (all-to-all lines and
    // the grid itself travel with it: the guard reads both)
    std::vector<int> src, dst;
    std::vector<double> w;
    unsigned x = 7;
    for (int v = 0; v < 32; ++v)
        for (int j = 0; j < 3; ++j) {
            x = x * 1103515245u + 12345u;
            src.push_back(v);
            dst.push_back(static_cast<int>((x >> 8) % 32));
            w.push_back(1 + (x >> 20) % 9);
        }
    rankmap_graph_t irregular = nullptr, grid = nullptr;
    ASSERT_EQ(rankmap_graph_create(32, static_cast<int64_t>(src.size()), src.data(), dst.data(), w.data(), &irregular),
              RANKMAP_OK);
    const int dims[3] = {4, 4, 2}, periods[3] = {1, 1, 1};
    ASSERT_EQ(rankmap_graph_cartesian_alltoall(3, dims, periods, "unknown", &grid), RANKMAP_OK);
    for (rankmap_graph_t g : {irregular, grid}) {
        const auto buf = packed(g);
        rankmap_graph_t copy = nullptr;
        ASSERT_EQ(rankmap_graph_unpack(buf.data(), buf.size(), &copy), RANKMAP_OK) << rankmap_last_error();
        EXPECT_EQ(packed(copy), buf);
        for (uint64_t seed : {1u, 9u}) {
            rankmap_report a{}, b{};
            EXPECT_EQ(ranks_on_torus(g, seed, &a), ranks_on_torus(copy, seed, &b));
            EXPECT_EQ(a.F, b.F);
        }
        rankmap_graph_free(copy);
    }
    rankmap_graph_free(irregular);
    rankmap_graph_free(grid);
}

TEST(Portfolio, BadBuffersAreRefusedWithAMessage) {
    rankmap_graph_t g = nullptr;
    const int dims[2] = {4, 4}, periods[2] = {1, 0};
    ASSERT_EQ(rankmap_graph_cartesian_alltoall(2, dims, periods, "1", &g), RANKMAP_OK);
    const auto buf = packed(g);
    // a buffer too small to pack into: nothing written
    std::vector<unsigned char> small(buf.size() - 1, 0xee);
    size_t len = small.size();
    EXPECT_EQ(rankmap_graph_pack(g, small.data(), &len), RANKMAP_ERR_INVALID);
    EXPECT_EQ(small, std::vector<unsigned char>(buf.size() - 1, 0xee));
    // every truncation, a wrong header, bytes after the graph
    rankmap_graph_t out = nullptr;
    for (size_t cut = 0; cut < buf.size(); ++cut) {
        EXPECT_EQ(rankmap_graph_unpack(buf.data(), cut, &out), RANKMAP_ERR_INVALID) << "cut at " << cut;
        EXPECT_EQ(out, nullptr);
    }
    auto bad = buf;
    bad[0] ^= 1;
    EXPECT_EQ(rankmap_graph_unpack(bad.data(), bad.size(), &out), RANKMAP_ERR_INVALID);
    EXPECT_NE(std::string(rankmap_last_error()).find("not a graph packed"), std::string::npos);
    bad = buf;
    bad.push_back(0);
    EXPECT_EQ(rankmap_graph_unpack(bad.data(), bad.size(), &out), RANKMAP_ERR_INVALID);
    // an edge to a task outside the graph (the first edge's target)
    bad = buf;
    const int32_t outside = 99;
    std::memcpy(&bad[4 + 4 + 4 + 8 + 4], &outside, sizeof outside);
    EXPECT_EQ(rankmap_graph_unpack(bad.data(), bad.size(), &out), RANKMAP_ERR_INVALID);
    EXPECT_EQ(out, nullptr);
    EXPECT_EQ(rankmap_graph_unpack(nullptr, 4, &out), RANKMAP_ERR_INVALID);
    rankmap_graph_free(g);
}

// The MPI glue (include/rankmap_glue.h): rank 0 kept by a symmetry of the
// machine (exact on tori and trees), the free flag, the guard, failures and
// determinism.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
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
    for (const char *ok : {"", "none", "all", "1", "0, 2", "2,2"}) {
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

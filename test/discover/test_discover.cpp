// rankmap_discover(): the machine hierarchy from node numbering / node size
// plus hwloc tiers inside a node.  Machines are hwloc synthetic descriptions
// and an XML file with a NUMA distance matrix, so the tests need no special
// hardware; the expected tiers are derived here from the descriptions.
#include <gtest/gtest.h>
#include <hwloc.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "rankmap.h"

namespace {

struct Result {
    int rc = -1;
    std::vector<int> dims;
    std::vector<int> place;
    int nleaves = 0;
    std::string error;
    rankmap_topology_t topo = nullptr;
    ~Result() {
        if (topo) rankmap_topology_free(topo);
    }
    // distance between two leaves
    double d(int a, int b) const {
        double v = -1;
        rankmap_topology_distance(topo, a, b, &v);
        return v;
    }
    std::vector<int> coords(int leaf) const {
        std::vector<int> c(dims.size());
        rankmap_topology_coords(topo, leaf, c.data());
        return c;
    }
};

Result discover(int nprocs, const int *node_of_proc, const std::string &settings) {
    Result r;
    r.place.assign(nprocs, -7);
    r.rc = rankmap_discover(nprocs, node_of_proc, settings.c_str(), &r.topo, r.place.data());
    if (r.rc != RANKMAP_OK) {
        r.error = rankmap_last_error();
        r.topo = nullptr;
        return r;
    }
    int nd = 0;
    rankmap_topology_ndims(r.topo, &nd);
    r.dims.resize(nd);
    rankmap_topology_dims(r.topo, r.dims.data());
    rankmap_topology_size(r.topo, &r.nleaves);
    return r;
}

// Leaf of coordinates c in a tree of dims (row-major, last fastest).
int leaf_of(const std::vector<int> &dims, const std::vector<int> &c) {
    int v = 0;
    for (size_t k = 0; k < dims.size(); ++k) v = v * dims[k] + c[k];
    return v;
}

const std::string kFixtures = RANKMAP_DISCOVER_FIXTURES;

} // namespace

TEST(ASyntheticMachine, GivesNodePackageNumaCoreTiersWithDefaultCosts) {
    // 2 packages x 2 NUMA nodes (each with its own L3, the same partition) x 4 cores
    auto r = discover(64, nullptr, "node_size=16;hwloc=synthetic:pack:2 numa:2 l3:1 core:4 pu:1");
    ASSERT_EQ(r.rc, RANKMAP_OK) << r.error;
    EXPECT_EQ(r.dims, (std::vector<int>{4, 2, 2, 4}));
    // node 100, package 10, NUMA 5, core 1 (L3 = NUMA partition, dropped)
    EXPECT_DOUBLE_EQ(r.d(0, 16), 100);
    EXPECT_DOUBLE_EQ(r.d(0, 8), 10);
    EXPECT_DOUBLE_EQ(r.d(0, 4), 5);
    EXPECT_DOUBLE_EQ(r.d(0, 1), 1);
    // local rank i of node n sits on core i: coordinates (n, i/8, i/4%2, i%4)
    for (int p = 0; p < 64; ++p) {
        int n = p / 16, i = p % 16;
        EXPECT_EQ(r.coords(r.place[p]), (std::vector<int>{n, i / 8, i / 4 % 2, i % 4})) << "process " << p;
    }
}

TEST(ASyntheticMachine, KeepsL3GroupsInsideAPackageAndDropsPrivateL2) {
    // one NUMA node per package (= package partition), 2 L3 per package, private L2
    auto r = discover(32, nullptr, "node_size=16;hwloc=synthetic:pack:2 numa:1 l3:2 l2:4 core:1 pu:2");
    ASSERT_EQ(r.rc, RANKMAP_OK) << r.error;
    EXPECT_EQ(r.dims, (std::vector<int>{2, 2, 2, 4}));
    EXPECT_DOUBLE_EQ(r.d(0, 8), 10);  // package
    EXPECT_DOUBLE_EQ(r.d(0, 4), 2);   // L3
    EXPECT_DOUBLE_EQ(r.d(0, 1), 1);   // core
}

TEST(ASyntheticMachine, KeepsASharedL2Tier) {
    // 8 cores, L2 shared by pairs of cores: tiers node, l2, core
    auto r = discover(16, nullptr, "node_size=8;hwloc=synthetic:pack:1 l3:1 l2:4 core:2 pu:1");
    ASSERT_EQ(r.rc, RANKMAP_OK) << r.error;
    EXPECT_EQ(r.dims, (std::vector<int>{2, 4, 2}));
    EXPECT_DOUBLE_EQ(r.d(0, 2), 1.5);
    EXPECT_DOUBLE_EQ(r.d(0, 1), 1);
}

TEST(ASyntheticMachine, TiersSettingChoosesCandidates) {
    auto r = discover(64, nullptr, "node_size=16;tiers=package,core;hwloc=synthetic:pack:2 numa:2 l3:1 core:4 pu:1");
    ASSERT_EQ(r.rc, RANKMAP_OK) << r.error;
    EXPECT_EQ(r.dims, (std::vector<int>{4, 2, 8}));
    auto n = discover(64, nullptr, "node_size=16;tiers=none;hwloc=synthetic:pack:2 numa:2 l3:1 core:4 pu:1");
    ASSERT_EQ(n.rc, RANKMAP_OK) << n.error;
    EXPECT_EQ(n.dims, (std::vector<int>{4}));
    for (int p = 0; p < 64; ++p) EXPECT_EQ(n.place[p], p / 16);
    // without the core tier, a leaf (package) holds its 8 cores' processes
    auto pk = discover(32, nullptr, "node_size=16;tiers=package;hwloc=synthetic:pack:2 core:8 pu:1");
    ASSERT_EQ(pk.rc, RANKMAP_OK) << pk.error;
    EXPECT_EQ(pk.dims, (std::vector<int>{2, 2}));
    for (int p = 0; p < 32; ++p) EXPECT_EQ(pk.place[p], p / 16 * 2 + p % 16 / 8);
}

TEST(NodeSize, GroupsConsecutiveProcessesAndOversubscribesRoundRobin) {
    // 4 cores per node (2 packages x 2), 8 processes per node: 2 per core,
    // local rank i on core i mod 4
    auto r = discover(24, nullptr, "node_size=8;hwloc=synthetic:pack:2 core:2 pu:1");
    ASSERT_EQ(r.rc, RANKMAP_OK) << r.error;
    EXPECT_EQ(r.dims, (std::vector<int>{3, 2, 2}));
    std::vector<int> per_leaf(r.nleaves, 0);
    for (int p = 0; p < 24; ++p) {
        int n = p / 8, core = p % 8 % 4;
        EXPECT_EQ(r.place[p], leaf_of(r.dims, {n, core / 2, core % 2})) << "process " << p;
        ++per_leaf[r.place[p]];
    }
    for (int c : per_leaf) EXPECT_EQ(c, 2);
    // the topology admits 2 tasks per leaf (:slots=2), not 3
    rankmap_topology_t t = nullptr;
    ASSERT_EQ(rankmap_topology_parse("tree:3x2x2:cost=100,10,1:slots=2", &t), RANKMAP_OK);
    rankmap_topology_free(t);
}

TEST(NodeSize, ALastPartialNodeIsAllowed) {
    auto r = discover(10, nullptr, "node_size=4;hwloc=synthetic:pack:1 core:4 pu:1");
    ASSERT_EQ(r.rc, RANKMAP_OK) << r.error;
    EXPECT_EQ(r.dims, (std::vector<int>{3, 4}));
    for (int p = 0; p < 10; ++p) EXPECT_EQ(r.place[p], p / 4 * 4 + p % 4);
}

TEST(NodeSize, FewerProcessesThanCoresTrimToTheOccupiedSubtree) {
    // 8 processes on 2 packages x 8 cores: the first package, 8 cores
    auto r = discover(16, nullptr, "node_size=8;hwloc=synthetic:pack:2 core:8 pu:1");
    ASSERT_EQ(r.rc, RANKMAP_OK) << r.error;
    EXPECT_EQ(r.dims, (std::vector<int>{2, 8}));
    // 12 processes do not fill a subtree: the whole node, 4 leaves empty
    auto w = discover(24, nullptr, "node_size=12;hwloc=synthetic:pack:2 core:8 pu:1");
    ASSERT_EQ(w.rc, RANKMAP_OK) << w.error;
    EXPECT_EQ(w.dims, (std::vector<int>{2, 2, 8}));
    for (int p = 0; p < 24; ++p) EXPECT_EQ(w.place[p], p / 12 * 16 + p % 12);
}

TEST(HostNames, NodeOfProcGivesTheNodeTierAndLocalRanks) {
    // processes dealt round robin over 3 hosts
    std::vector<int> node(12);
    for (int p = 0; p < 12; ++p) node[p] = p % 3;
    auto r = discover(12, node.data(), "hwloc=synthetic:pack:2 core:2 pu:1");
    ASSERT_EQ(r.rc, RANKMAP_OK) << r.error;
    EXPECT_EQ(r.dims, (std::vector<int>{3, 2, 2}));
    for (int p = 0; p < 12; ++p) {
        int local = p / 3;
        EXPECT_EQ(r.place[p], leaf_of(r.dims, {p % 3, local / 2, local % 2})) << "process " << p;
    }
    // node_size overrides node_of_proc
    auto s = discover(12, node.data(), "node_size=4;hwloc=synthetic:pack:2 core:2 pu:1");
    ASSERT_EQ(s.rc, RANKMAP_OK) << s.error;
    for (int p = 0; p < 12; ++p) EXPECT_EQ(s.place[p] / 4, p / 4);
}

TEST(SingleNode, KeepsTiersOnlyWhenAPackageOrNumaTierBranches) {
    auto flat = discover(8, nullptr, "hwloc=synthetic:pack:1 l3:2 core:4 pu:1;node_size=8");
    ASSERT_EQ(flat.rc, RANKMAP_OK) << flat.error;
    EXPECT_EQ(flat.nleaves, 1);
    auto two = discover(8, nullptr, "hwloc=synthetic:pack:2 core:4 pu:1;node_size=8");
    ASSERT_EQ(two.rc, RANKMAP_OK) << two.error;
    EXPECT_EQ(two.dims, (std::vector<int>{1, 2, 4}));
    auto forced = discover(8, nullptr, "hwloc=synthetic:pack:1 l3:2 core:4 pu:1;node_size=8;single_node=tiers");
    ASSERT_EQ(forced.rc, RANKMAP_OK) << forced.error;
    EXPECT_EQ(forced.dims, (std::vector<int>{1, 2, 4}));
    auto off = discover(8, nullptr, "hwloc=synthetic:pack:2 core:4 pu:1;node_size=8;single_node=flat");
    ASSERT_EQ(off.rc, RANKMAP_OK) << off.error;
    EXPECT_EQ(off.nleaves, 1);
}

TEST(Costs, NamedAndPositionalCostsOverrideTheDefaults) {
    auto r = discover(32, nullptr, "node_size=16;hwloc=synthetic:pack:2 core:8 pu:1;cost=node:1000,core:3");
    ASSERT_EQ(r.rc, RANKMAP_OK) << r.error;
    EXPECT_DOUBLE_EQ(r.d(0, 16), 1000);
    EXPECT_DOUBLE_EQ(r.d(0, 8), 10);
    EXPECT_DOUBLE_EQ(r.d(0, 1), 3);
    auto p = discover(32, nullptr, "node_size=16;hwloc=synthetic:pack:2 core:8 pu:1;cost=50,7,2");
    ASSERT_EQ(p.rc, RANKMAP_OK) << p.error;
    EXPECT_DOUBLE_EQ(p.d(0, 16), 50);
    EXPECT_DOUBLE_EQ(p.d(0, 8), 7);
    EXPECT_DOUBLE_EQ(p.d(0, 1), 2);
}

TEST(Costs, NumaDistancesFromAnXmlMachineScaleThePackageAndNumaTiers) {
    // SLIT: 10 local, 16 within a package, 31 across packages
    const std::string xml = "hwloc=xml:" + kFixtures + "/pack2-numa2-core2-slit.xml";
    auto r = discover(16, nullptr, "node_size=8;" + xml);
    ASSERT_EQ(r.rc, RANKMAP_OK) << r.error;
    EXPECT_EQ(r.dims, (std::vector<int>{2, 2, 2, 2}));
    // documented model: cost = 2 + 8 (r - 1), r = distance / local distance
    EXPECT_NEAR(r.d(0, 4), 2 + 8 * (31.0 / 10 - 1), 1e-6);
    EXPECT_NEAR(r.d(0, 2), 2 + 8 * (16.0 / 10 - 1), 1e-6);
    EXPECT_DOUBLE_EQ(r.d(0, 1), 1);
    auto off = discover(16, nullptr, "node_size=8;distances=off;" + xml);
    ASSERT_EQ(off.rc, RANKMAP_OK) << off.error;
    EXPECT_DOUBLE_EQ(off.d(0, 4), 10);
    EXPECT_DOUBLE_EQ(off.d(0, 2), 5);
    auto named = discover(16, nullptr, "node_size=8;cost=numa:4;" + xml);
    ASSERT_EQ(named.rc, RANKMAP_OK) << named.error;
    EXPECT_DOUBLE_EQ(named.d(0, 2), 4);
}

TEST(HwlocEnvironment, HwlocSyntheticStandsInForTheMachine) {
    const char *desc = "pack:2 numa:2 l3:1 core:4 pu:1";
    auto a = discover(64, nullptr, std::string("node_size=16;hwloc=synthetic:") + desc);
    ASSERT_EQ(a.rc, RANKMAP_OK) << a.error;
    setenv("HWLOC_SYNTHETIC", desc, 1);
    auto b = discover(64, nullptr, "node_size=16");
    unsetenv("HWLOC_SYNTHETIC");
    ASSERT_EQ(b.rc, RANKMAP_OK) << b.error;
    EXPECT_EQ(a.dims, b.dims);
    EXPECT_EQ(a.place, b.place);
    setenv("HWLOC_XMLFILE", (kFixtures + "/pack2-numa2-core2-slit.xml").c_str(), 1);
    auto c = discover(16, nullptr, "node_size=8");
    unsetenv("HWLOC_XMLFILE");
    ASSERT_EQ(c.rc, RANKMAP_OK) << c.error;
    EXPECT_EQ(c.dims, (std::vector<int>{2, 2, 2, 2}));
}

TEST(ThisMachine, EveryCoreIsALeafOnceWhenEveryNodeIsFull) {
    hwloc_topology_t t;
    ASSERT_EQ(hwloc_topology_init(&t), 0);
    ASSERT_EQ(hwloc_topology_load(t), 0);
    int ncores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
    hwloc_topology_destroy(t);
    ASSERT_GT(ncores, 0);
    const int nprocs = 2 * ncores;
    auto r = discover(nprocs, nullptr, "hwloc=system;node_size=" + std::to_string(ncores));
    ASSERT_EQ(r.rc, RANKMAP_OK) << r.error;
    EXPECT_EQ(r.dims.front(), 2);
    EXPECT_EQ(r.nleaves, nprocs);   // one process per core, every core a leaf
    std::vector<int> seen(nprocs, 0);
    for (int p = 0; p < nprocs; ++p) {
        ASSERT_GE(r.place[p], 0);
        ASSERT_LT(r.place[p], nprocs);
        EXPECT_EQ(seen[r.place[p]]++, 0);
        EXPECT_EQ(r.coords(r.place[p])[0], p / ncores);
    }
}

TEST(Determinism, SameInputsGiveTheSameHierarchy) {
    std::vector<int> node(48);
    for (int p = 0; p < 48; ++p) node[p] = (p * 7) % 3;
    const std::string s = "hwloc=synthetic:pack:2 numa:2 l3:2 core:3 pu:2";
    auto a = discover(48, node.data(), s);
    auto b = discover(48, node.data(), s);
    ASSERT_EQ(a.rc, RANKMAP_OK) << a.error;
    ASSERT_EQ(b.rc, RANKMAP_OK) << b.error;
    EXPECT_EQ(a.dims, b.dims);
    EXPECT_EQ(a.place, b.place);
    for (int x = 0; x < a.nleaves; x += 5)
        for (int y = 0; y < a.nleaves; y += 3) EXPECT_EQ(a.d(x, y), b.d(x, y));
}

struct BadCase {
    const char *settings;
    const char *named;   // must appear in the message
    int status;
};

TEST(BadSettings, GiveAStatusAndAMessageNamingTheEntry) {
    const BadCase cases[] = {
        {"node_size=0", "node_size=0", RANKMAP_ERR_INVALID},
        {"node_size=four", "node_size=four", RANKMAP_ERR_INVALID},
        {"node_size=4;tiers=package,gpu", "gpu", RANKMAP_ERR_INVALID},
        {"node_size=4;tiers=", "tiers=", RANKMAP_ERR_INVALID},
        {"node_size=4;cost=100,x", "cost=100,x", RANKMAP_ERR_INVALID},
        {"node_size=4;cost=node:1,l4:2", "l4", RANKMAP_ERR_INVALID},
        {"node_size=4;cost=node:1,2", "cost=node:1,2", RANKMAP_ERR_INVALID},
        {"node_size=4;cost=-1", "cost=-1", RANKMAP_ERR_INVALID},
        {"node_size=4;frobnicate=1", "frobnicate", RANKMAP_ERR_INVALID},
        {"node_size=4;nodes", "nodes", RANKMAP_ERR_INVALID},
        {"node_size=4;hwloc=quantum", "hwloc=quantum", RANKMAP_ERR_INVALID},
        {"node_size=4;hwloc=synthetic:pack:2 bogus:3", "hwloc=synthetic:pack:2 bogus:3", RANKMAP_ERR_INVALID},
        {"node_size=4;hwloc=xml:/nonexistent/machine.xml", "/nonexistent/machine.xml", RANKMAP_ERR_IO},
        {"node_size=4;single_node=maybe", "single_node=maybe", RANKMAP_ERR_INVALID},
        {"node_size=4;distances=sometimes", "distances=sometimes", RANKMAP_ERR_INVALID},
        // 3 costs for a node + core hierarchy
        {"node_size=4;hwloc=synthetic:pack:1 core:4 pu:1;cost=1,2,3", "cost=", RANKMAP_ERR_INVALID},
        // more than 1024 processes on one leaf
        {"node_size=2000;tiers=none", "1024", RANKMAP_ERR_TOO_SMALL},
    };
    for (const auto &c : cases) {
        std::vector<int> place(4000, -7);
        rankmap_topology_t t = nullptr;
        int rc = rankmap_discover(4000, nullptr, c.settings, &t, place.data());
        EXPECT_EQ(rc, c.status) << c.settings;
        EXPECT_EQ(t, nullptr) << c.settings;
        EXPECT_NE(std::string(rankmap_last_error()).find(c.named), std::string::npos)
            << c.settings << " -> " << rankmap_last_error();
        EXPECT_EQ(place[0], -7) << "place written on failure: " << c.settings;
    }
}

TEST(BadArguments, GiveClearErrors) {
    rankmap_topology_t t = nullptr;
    int place[4];
    EXPECT_EQ(rankmap_discover(4, nullptr, "", &t, place), RANKMAP_ERR_INVALID);
    EXPECT_NE(std::string(rankmap_last_error()).find("node_size"), std::string::npos) << rankmap_last_error();
    int gap[4] = {0, 2, 2, 0};   // node 1 unused
    EXPECT_EQ(rankmap_discover(4, gap, nullptr, &t, place), RANKMAP_ERR_INVALID);
    EXPECT_NE(std::string(rankmap_last_error()).find("node 1"), std::string::npos) << rankmap_last_error();
    int neg[4] = {0, -1, 0, 0};
    EXPECT_EQ(rankmap_discover(4, neg, nullptr, &t, place), RANKMAP_ERR_INVALID);
    EXPECT_NE(std::string(rankmap_last_error()).find("node_of_proc[1]"), std::string::npos) << rankmap_last_error();
    EXPECT_EQ(rankmap_discover(0, nullptr, "node_size=1", &t, place), RANKMAP_ERR_INVALID);
    EXPECT_EQ(rankmap_discover(4, nullptr, "node_size=1", nullptr, place), RANKMAP_ERR_INVALID);
    EXPECT_EQ(t, nullptr);
}

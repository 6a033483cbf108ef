// discover.hpp -- the machine hierarchy found by the library itself:
// the node tier from the caller's node numbering (host names) or a declared
// node size, and inside a node the tiers hwloc reports (package, NUMA node,
// shared L3, shared L2, core) that actually branch, with tier costs from a
// documented default model, NUMA distances (libnuma or hwloc) or the
// settings.  The result is a tree topology string (src/topology/tree.cpp)
// and the leaf of every process.  The C entry point is rankmap_discover()
// (include/rankmap.h, src/discover/discover_capi.cpp).
//
// Split in three: settings.cpp parses the settings string, probe.cpp asks
// hwloc and libnuma about the calling machine (the only impure part),
// hierarchy.cpp turns a probed machine plus the process layout into the tree
// (pure: unit-tested with hand-made machines as well as hwloc synthetic ones).
#pragma once
#include <string>
#include <vector>

namespace rankmap::discover {

// Tiers inside a node, coarsest first in canonical order.  The node tier
// itself is not a TierKind: it is always tier 0 of the result.
enum class TierKind { Package, Numa, L3, L2, Core };
constexpr int kNumTierKinds = 5;
const char *tier_name(TierKind k);

// Default cost model: the cost of a message between two processes whose
// first differing tier is this one (core: different cores under the same
// shared cache).  See kDefaultNodeCost for the node tier.
double default_cost(TierKind k);
constexpr double kDefaultNodeCost = 100.0;

// What to do when every process sits on one node.
enum class SingleNode {
    Auto,   // keep the inner tiers only if a package or NUMA tier branches
    Tiers,  // always keep the inner tiers
    Flat    // one leaf: every order costs the same
};

struct Settings {
    int node_size = 0;                  // 0: use node_of_proc
    bool tier_enabled[kNumTierKinds] = {true, true, true, true, true};
    // cost=: either positional (node first, one per resulting tier) ...
    std::vector<double> positional_cost;
    // ... or named overrides (node:100,package:10,...); < 0 = not given
    double node_cost = -1;
    double named_cost[kNumTierKinds] = {-1, -1, -1, -1, -1};
    std::string hwloc_synthetic;        // hwloc=synthetic:DESC
    std::string hwloc_xml;              // hwloc=xml:PATH
    bool use_distances = true;          // distances=on|off
    SingleNode single_node = SingleNode::Auto;
    // network=tree|dragonfly: how the address table reads Slurm's switches
    // above the nodes (SLURM_TOPOLOGY_ADDR): tiers of a fat tree, or a
    // dragonfly's groups and routers.  Discovery itself is the same.
    bool dragonfly = false;
    bool verbose = false;               // verbose=1: one line on stderr
    std::string text;                   // the settings as given, for messages
};

// Parse "key=value;key=value" (see include/rankmap.h).  Throws rankmap::Error
// naming the bad entry.
Settings parse_settings(const char *text);

// One node as probed: for every candidate tier kind, the group of each core
// (cores in hwloc's logical order; group ids arbitrary, -1 = core not covered
// by any object of that kind; empty vector = kind absent), plus the NUMA
// distance matrix if one is known (numa_group = group id of NUMA node i in the
// Numa partition; distance[i * n + j]).
struct Machine {
    int ncores = 0;
    std::vector<int> group[kNumTierKinds];
    std::vector<int> numa_group;
    std::vector<double> numa_distance;
    std::string source;     // "hwloc (this system)", "hwloc synthetic '...'", ...
    std::string distance_source;   // "libnuma", "hwloc", "" (none)
};

// Ask hwloc (and libnuma for distances on the real machine).  hwloc's own
// environment (HWLOC_XMLFILE, HWLOC_SYNTHETIC) is honoured unless the
// settings name a stand-in.  Throws rankmap::Error naming the setting.
Machine probe(const Settings &s);

// One tier of the result.
struct Tier {
    std::string name;   // "node", "package", "numa", "l3", "l2", "core"
    int arity;
    double cost;
};

struct Hierarchy {
    std::vector<Tier> tiers;        // tier 0 = node
    int slots = 1;                  // most processes on one leaf
    std::vector<int> place;         // leaf of every process
    std::string spec;               // tree:AxBx..:cost=..[:slots=K]
};

// Inner tiers of one node (no node tier), coarsest first, and the number of
// cores under each leaf; costs resolved from defaults, distances and named
// overrides.  Pure.
struct NodeTree {
    std::vector<Tier> tiers;
    int cores_per_leaf = 1;
    int ncores = 1;
};
NodeTree node_tree(const Machine &m, const Settings &s);

// The whole result for nprocs processes; node_of_proc may be null when
// s.node_size > 0.  Pure.  Throws rankmap::Error on bad input.
Hierarchy build(int nprocs, const int *node_of_proc, const Settings &s, const NodeTree &inner);

} // namespace rankmap::discover

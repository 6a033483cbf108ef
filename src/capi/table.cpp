// table.cpp -- the address table of the MPI glue (include/rankmap_glue.h):
// the machine node of every MPI_COMM_WORLD rank from the settings, or from
// machine discovery, decided here once for the patched MPICH and the PMPI
// plugin.  The layers read the settings and broadcast; nothing here
// communicates.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "capi/capi.hpp"
#include "common/rng.hpp"
#include "discover/discover.hpp"
#include "topology/dragonfly.hpp"
#include "topology/matrix.hpp"
#include "topology/torus.hpp"
#include "topology/tree.hpp"
#include "rankmap_glue.h"

namespace rankmap {
namespace {

constexpr const char *kTopology = "MPIR_CVAR_RANKMAP_TOPOLOGY";
constexpr const char *kMapping = "MPIR_CVAR_RANKMAP_MAPPING";

void copy_out(char *dst, size_t len, const std::string &s) {
    if (dst && len) std::snprintf(dst, len, "%s", s.c_str());
}

// "torus:auto3:wrap=..." -> "torus:4x4x4:wrap=..." for nprocs processes;
// false when the auto part is malformed or dims_create fails.
bool expand_auto(const std::string &spec, int nprocs, rankmap_dims_create_fn dims_create, std::string &out) {
    auto colon = spec.find(':');
    if (colon == std::string::npos || spec.compare(colon + 1, 4, "auto") != 0) {
        out = spec;
        return true;
    }
    size_t p = colon + 5;
    int nd = 3;
    if (p < spec.size() && spec[p] >= '1' && spec[p] <= '6') nd = spec[p++] - '0';
    if (p < spec.size() && spec[p] != ':') return false;
    if (!dims_create) return false;
    int dims[RANKMAP_MAX_DIMS] = {0};
    if (dims_create(nprocs, nd, dims) != 0) return false;
    out = spec.substr(0, colon + 1);
    for (int i = 0; i < nd; ++i) {
        if (dims[i] < 1) return false;
        out += (i ? "x" : "") + std::to_string(dims[i]);
    }
    out += spec.substr(p);
    return true;
}

// The default order.  A tree or a dragonfly is filled as launchers fill a
// cluster (Hydra, Open MPI and Slurm by default): the slots of a leaf, then
// the leaves in their numbering (the last dimension fastest), i.e. T then
// the letters backwards.  A torus takes the BG/L default: every lettered dimension,
// then T (a model whose last dimension is the slot, e.g.
// torus:8x8x8x2:local=..., has one letter less).
int default_placement(rankmap_topology_t topo, int nprocs, int *node_of_rank) {
    int ndims = 0;
    rankmap_topology_ndims(topo, &ndims);
    const bool tree = topo->t->kind() == TopologyKind::Tree || topo->t->kind() == TopologyKind::Dragonfly;
    int rc = RANKMAP_ERR_INVALID;
    for (int lettered = ndims; lettered >= ndims - 1 && lettered >= 0; --lettered) {
        std::string order = std::string(lettered <= 3 ? "XYZ" : "ABCDEF").substr(0, lettered);
        if (tree)
            order = "T" + std::string(order.rbegin(), order.rend());
        else
            order += "T";
        rc = rankmap_order_placement(topo, order.c_str(), nprocs, node_of_rank);
        if (rc == RANKMAP_OK || rc == RANKMAP_ERR_TOO_SMALL) return rc;
    }
    return rc;
}

bool looks_like_order(const char *s) {
    size_t n = std::strlen(s);
    return n > 0 && n <= 8 && std::strspn(s, "XYZTABCDEFxyztabcdef") == n;
}

// random[:SEED]: true with the seed, false when the text after "random:" is
// not a number; *is_random false when the mapping is something else.
bool random_seed(const char *mapping, bool *is_random, std::uint64_t *seed) {
    *is_random = std::strncmp(mapping, "random", 6) == 0 && (mapping[6] == '\0' || mapping[6] == ':');
    *seed = 1;
    if (!*is_random || mapping[6] == '\0') return true;
    char *end = nullptr;
    *seed = std::strtoull(mapping + 7, &end, 10);
    return end != mapping + 7 && *end == '\0' && mapping[7] != '-';
}

// A tree topology found by discovery as a string every rank parses to the
// same model: its dimensions, the distance of each tier, the most ranks on
// one leaf.
int tree_spec(rankmap_topology_t topo, int nprocs, const int *leaf, std::string &spec) {
    int ndims = 0, nleaves = 0, dims[RANKMAP_MAX_DIMS], c[RANKMAP_MAX_DIMS];
    if (rankmap_topology_ndims(topo, &ndims) != RANKMAP_OK || ndims < 1 ||
        rankmap_topology_dims(topo, dims) != RANKMAP_OK || rankmap_topology_size(topo, &nleaves) != RANKMAP_OK)
        return capi::fail(RANKMAP_ERR_INTERNAL, "the discovered machine has no tree description");
    std::vector<int> count(nleaves, 0);
    int slots = 1;
    for (int r = 0; r < nprocs; ++r)
        if (leaf[r] >= 0 && leaf[r] < nleaves) slots = std::max(slots, ++count[leaf[r]]);
    spec = "tree:";
    for (int k = 0; k < ndims; ++k)
        spec += (k ? "x" : "") + std::to_string(dims[k]);
    for (int k = 0; k < ndims; ++k) {
        // tier k's cost: the distance from leaf 0 to the first leaf differing there
        double d = 0;
        int other = 0;
        for (int i = 0; i < ndims; ++i)
            c[i] = i == k && dims[k] > 1;
        if (dims[k] > 1 && (rankmap_topology_node(topo, c, &other) != RANKMAP_OK ||
                            rankmap_topology_distance(topo, 0, other, &d) != RANKMAP_OK))
            return capi::fail(RANKMAP_ERR_INTERNAL, "the discovered machine has no tree description");
        char buf[40];
        std::snprintf(buf, sizeof(buf), "%s%.17g", k ? "," : ":cost=", d);
        spec += buf;
    }
    if (slots > 1) spec += ":slots=" + std::to_string(slots);
    return RANKMAP_OK;
}


// The switches above the nodes from Slurm's topology/tree plugin: every
// process's SLURM_TOPOLOGY_ADDR (its switches from the top level down, then
// its node, '.'-separated) and SLURM_TOPOLOGY_ADDR_PATTERN (switch...node).
// `spec` and `leaf` are discovery's tree (tier 0 = the nodes) and every
// rank's leaf; on success they describe the same leaves under the switch
// tiers: each switch tier costs kSwitchCost times the tier below it, and
// the fat tree has full bisection (up=: as many uplinks per switch as the
// hosts below it), the common design and what the guard then assumes.
// Switch tiers in which every group has one switch are left out.  Nodes
// keep their order inside a leaf switch and switches are numbered by their
// first node, so block order stays block order.  Returns "" on success or
// when nobody has an address; otherwise why the switches are left out.
constexpr size_t kMaxTreeTiers = 6;  // the tree model's limit (topology strings)
constexpr double kSwitchCost = 10;  // as the fat-tree section's machines (bench/simgrid --fattree: cost=100,10,1)
const std::string kAddrVar = "SLURM_TOPOLOGY_ADDR";

std::vector<std::string> split_on(const std::string &x, char sep) {
    std::vector<std::string> out(1);
    for (char c : x) {
        if (c == sep)
            out.emplace_back();
        else
            out.back().push_back(c);
    }
    return out;
}

// Discovery's tree "tree:N x inner...:cost=...[:slots=K]", in parts.
struct DiscoveredTree {
    std::vector<std::string> dparts;  // the tiers' extents, the nodes first
    std::string costs_txt, slots_txt;  // "c0,c1,..." and ":slots=K" or ""
    int nnodes = 0;
    long inner = 1;  // leaves per node
    double node_cost = 0;
};

// False when `spec` is not such a tree.
bool parse_discovered_tree(const std::string &spec, DiscoveredTree &t) {
    if (spec.compare(0, 5, "tree:") != 0) return false;
    const size_t cpos = spec.find(":cost=");
    const std::string dims_txt = spec.substr(5, cpos - 5);
    t.costs_txt = cpos == std::string::npos ? "" : spec.substr(cpos + 6);
    if (auto k = t.costs_txt.find(':'); k != std::string::npos) t.slots_txt = t.costs_txt.substr(k), t.costs_txt.resize(k);
    t.dparts = split_on(dims_txt, 'x');
    t.nnodes = std::atoi(t.dparts[0].c_str());
    for (size_t k = 1; k < t.dparts.size(); ++k) t.inner *= std::atol(t.dparts[k].c_str());
    t.node_cost = std::atof(t.costs_txt.c_str());
    return !(t.nnodes < 1 || t.inner < 1 || cpos == std::string::npos);
}

// Every node's S switch names from the processes' addresses (the same for
// all processes of a node); "" or why not.
std::string node_switches(int nprocs, const char *addrs, size_t stride, size_t S, const std::string &pat,
                          const std::string &spec, const DiscoveredTree &t, const std::vector<int> &leaf,
                          std::vector<std::vector<std::string>> &sw) {
    const std::string &var = kAddrVar;
    sw.assign(static_cast<size_t>(t.nnodes), {});
    std::vector<char> seen(static_cast<size_t>(t.nnodes), 0);
    for (int p = 0; p < nprocs; ++p) {
        const char *a = addrs + static_cast<size_t>(p) * stride;
        const std::string addr(a, strnlen(a, stride));
        if (addr.size() >= stride) return var + " of process " + std::to_string(p) + " is longer than " + std::to_string(stride - 1) + " characters";
        std::vector<std::string> parts = split_on(addr, '.');
        if (parts.size() != S + 1)
            return var + "=\"" + addr + "\" (process " + std::to_string(p) + ") does not match " + var + "_PATTERN=\"" + pat + "\"";
        for (auto &x : parts)
            if (x.empty()) return var + "=\"" + addr + "\" (process " + std::to_string(p) + ") has an empty name";
        parts.pop_back();
        const auto n = static_cast<size_t>(leaf[static_cast<size_t>(p)] / t.inner);
        if (n >= sw.size()) return "process " + std::to_string(p) + " is on no node of " + spec;
        if (!seen[n]) {
            sw[n] = parts;
            seen[n] = 1;
        } else if (sw[n] != parts) {
            return "the processes of one node report different " + var + " (process " + std::to_string(p) + ": \"" + addr + "\")";
        }
    }
    for (size_t n = 0; n < sw.size(); ++n)
        if (!seen[n]) return "node " + std::to_string(n) + " has no process";
    return "";
}

// Level by level: a group is a prefix of switch names; its children are
// the distinct next names, in order of their first node.  arity[k] is the
// children per group at level k (arity[S] = nodes per leaf switch) and
// coord[k][n] node n's child index there; "" or why the tree is uneven.
std::string switch_levels(const std::vector<std::vector<std::string>> &sw, size_t S, std::vector<int> &arity,
                          std::vector<std::vector<int>> &coord) {
    const int nnodes = static_cast<int>(sw.size());
    std::vector<int> pos(static_cast<size_t>(nnodes), 0);  // index of the node's group among all groups of a level
    coord.assign(S + 1, std::vector<int>(static_cast<size_t>(nnodes)));
    int groups = 1;
    for (size_t k = 0; k <= S; ++k) {
        // children of each group at level k: switch names (k < S) or the nodes (k == S)
        std::vector<std::vector<std::string>> names(static_cast<size_t>(groups));
        std::vector<std::unordered_map<std::string, int>> index(static_cast<size_t>(groups));
        std::vector<int> child(static_cast<size_t>(nnodes));
        for (int n = 0; n < nnodes; ++n) {
            const auto g = static_cast<size_t>(pos[static_cast<size_t>(n)]);
            const std::string key = k < S ? sw[static_cast<size_t>(n)][k] : std::to_string(n);
            auto it = index[g].emplace(key, static_cast<int>(names[g].size())).first;
            if (it->second == static_cast<int>(names[g].size())) names[g].push_back(key);
            child[static_cast<size_t>(n)] = it->second;
        }
        const size_t a = names[0].size();
        for (auto &nm : names)
            if (nm.size() != a) {
                std::string counts;
                for (auto &m : names) counts += (counts.empty() ? "" : ",") + std::to_string(m.size());
                return "the job's nodes are spread unevenly over the " +
                       std::string(k < S ? "switches of level " + std::to_string(k) : "leaf switches") + " (" + counts +
                       " per group)";
            }
        for (int n = 0; n < nnodes; ++n) {
            coord[k][static_cast<size_t>(n)] = child[static_cast<size_t>(n)];
            pos[static_cast<size_t>(n)] = pos[static_cast<size_t>(n)] * static_cast<int>(a) + child[static_cast<size_t>(n)];
        }
        arity.push_back(static_cast<int>(a));
        groups *= static_cast<int>(a);
    }
    return "";
}

// The tree under the kept switch levels, and every rank's leaf in it.
void apply_switches(const DiscoveredTree &t, const std::vector<size_t> &kept, const std::vector<int> &arity,
                    const std::vector<std::vector<int>> &coord, size_t S, std::string &spec, std::vector<int> &leaf) {
    std::vector<int> newnode(static_cast<size_t>(t.nnodes), 0);
    for (int n = 0; n < t.nnodes; ++n) {
        int v = 0;
        for (size_t k : kept) v = v * arity[k] + coord[k][static_cast<size_t>(n)];
        newnode[static_cast<size_t>(n)] = v * arity[S] + coord[S][static_cast<size_t>(n)];
    }
    for (int &l : leaf) l = static_cast<int>(newnode[static_cast<size_t>(l / t.inner)] * t.inner + l % t.inner);
    std::string d, c, up;
    char buf[40];
    for (size_t i = 0; i < kept.size(); ++i) {
        d += std::to_string(arity[kept[i]]) + "x";
        std::snprintf(buf, sizeof(buf), "%.17g,", t.node_cost * std::pow(kSwitchCost, static_cast<double>(kept.size() - i)));
        c += buf;
        up += (i ? "," : "") + std::to_string(i + 1 < kept.size() ? arity[kept[i + 1]] : arity[S]);
    }
    d += std::to_string(arity[S]);
    for (size_t k = 1; k < t.dparts.size(); ++k) d += "x" + t.dparts[k];
    spec = "tree:" + d + ":cost=" + c + t.costs_txt + ":up=" + up + t.slots_txt;
}

// network=dragonfly: the switch levels are the dragonfly's group, then its
// router (group.switch.node), or chassis and blade (group.chassis.blade.node);
// a group alone (topology/block's block.node, or switch.node) makes each
// node a router of its group.  Cores are the leaves of a node, its inner
// tiers flattened; block order stays block order.  "" or why not.
constexpr size_t kMaxDragonflyLevels = 3;

std::string apply_dragonfly(const DiscoveredTree &t, const std::vector<int> &arity,
                            const std::vector<std::vector<int>> &coord, size_t S, std::string &spec,
                            std::vector<int> &leaf) {
    if (S > kMaxDragonflyLevels)
        return "network=dragonfly: " + std::to_string(S) +
               " switch levels in SLURM_TOPOLOGY_ADDR_PATTERN, expected group[.switch[.switch]].node";
    const int G = arity[0], C = S == 3 ? arity[1] : 1, B = S == 1 ? arity[1] : arity[S - 1],
              N = S == 1 ? 1 : arity[S];
    if (t.inner > (1 << 20)) return "network=dragonfly: " + std::to_string(t.inner) + " leaves per node";
    const int K = static_cast<int>(t.inner);
    std::vector<int> host(static_cast<size_t>(t.nnodes));
    for (int n = 0; n < t.nnodes; ++n) {
        const auto u = static_cast<size_t>(n);
        const int g = coord[0][u];
        const int r = S == 3 ? coord[1][u] * B + coord[2][u] : coord[1][u];
        const int port = S == 1 ? 0 : coord[S][u];
        host[u] = (g * C * B + r) * N + port;
    }
    for (int &l : leaf) l = host[static_cast<size_t>(l / K)] * K + l % K;
    spec = "dragonfly:" + std::to_string(G) + "x" + std::to_string(C) + "x" + std::to_string(B) + "x" +
           std::to_string(N) + (K > 1 ? "x" + std::to_string(K) : "") + t.slots_txt;
    return "";
}

std::string add_switches(int nprocs, const char *addrs, size_t stride, const char *pattern, bool dragonfly,
                         std::string &spec, std::vector<int> &leaf, std::string &what) {
    const std::string &var = kAddrVar;
    int have = 0;
    for (int p = 0; p < nprocs; ++p) have += addrs[static_cast<size_t>(p) * stride] != '\0';
    if (have == 0) return "";
    if (have < nprocs) return var + " is set for " + std::to_string(have) + " of " + std::to_string(nprocs) + " processes";
    const std::string pat = pattern ? pattern : "";
    const std::vector<std::string> kinds = split_on(pat, '.');
    size_t S = 0;
    while (S < kinds.size() && (kinds[S] == "switch" || kinds[S] == "block")) ++S;
    if (pat.empty() || S == 0 || S + 1 != kinds.size() || kinds.back() != "node")
        return var + "_PATTERN=\"" + pat + "\": expected switch[.switch...].node or block.node";
    DiscoveredTree t;
    if (!parse_discovered_tree(spec, t)) return "the discovered machine " + spec + " is not a tree";
    std::vector<std::vector<std::string>> sw;
    if (std::string why = node_switches(nprocs, addrs, stride, S, pat, spec, t, leaf, sw); !why.empty()) return why;
    std::vector<int> arity;
    std::vector<std::vector<int>> coord;
    if (std::string why = switch_levels(sw, S, arity, coord); !why.empty()) return why;
    if (dragonfly) {
        if (std::string why = apply_dragonfly(t, arity, coord, S, spec, leaf); !why.empty()) return why;
        what = ", dragonfly groups from " + var;
        return "";
    }
    // levels with one switch per group are left out
    std::vector<size_t> kept;
    for (size_t k = 0; k < S; ++k)
        if (arity[k] > 1) kept.push_back(k);
    if (kept.empty()) {
        what = ", one switch";
        return "";
    }
    if (kept.size() + t.dparts.size() > kMaxTreeTiers)
        return "the " + std::to_string(kept.size()) + " switch tiers and the " + std::to_string(t.dparts.size()) +
               " tiers of " + spec + " are more than " + std::to_string(kMaxTreeTiers) +
               " (MPIR_CVAR_RANKMAP_DISCOVER=tiers=... keeps fewer inside a node)";
    apply_switches(t, kept, arity, coord, S, spec, leaf);
    what = ", switches from " + var;
    return "";
}

// The leaves one host's processes share on a declared machine, as a group
// number per leaf.  A tree: with up= its hosts' tier; otherwise the
// coarsest tier with a group for every host whose groups hold a host's
// processes at the even spread of the engine's placements (ceil(N/P) per
// leaf).  A dragonfly: its host's cores.  A torus: the node (with local=,
// the nodes that differ only in the local dimension).  False when no tier
// of the tree (no dragonfly host) fits the hosts.
struct HostGroups {
    std::vector<int> of_leaf;
    int leaves = 1;  // leaves per group (a tree, a dragonfly)
    bool contiguous = false;  // group g = leaves [g * leaves, (g + 1) * leaves)
};

bool host_groups(const Topology &t, int nprocs, int nhosts, int most, HostGroups &hg) {
    const int P = t.size(), per = (nprocs + P - 1) / P;
    hg.of_leaf.assign(P, 0);
    if (const auto *tree = dynamic_cast<const TreeTopology *>(&t)) {
        const int L = tree->ndims();
        std::vector<int> span(L, 1);
        for (int k = L - 2; k >= 0; --k) span[k] = span[k + 1] * tree->dims()[k + 1];
        auto fits = [&](int k) { return P / span[k] >= nhosts && int64_t{span[k]} * per >= most; };
        int k = tree->up().empty() ? -1 : tree->host_tier();
        if (k < 0) {
            for (int j = 0; j < L && k < 0; ++j)
                if (fits(j)) k = j;
        }
        if (k < 0 || k >= L || !fits(k)) return false;
        hg.leaves = span[k];
        hg.contiguous = true;
        for (int v = 0; v < P; ++v) hg.of_leaf[v] = v / span[k];
        return true;
    }
    if (const auto *d = dynamic_cast<const DragonflyTopology *>(&t)) {
        // a group per host: its cores
        const int K = d->cores();
        if (P / K < nhosts || int64_t{K} * per < most) return false;
        hg.leaves = K;
        hg.contiguous = true;
        for (int v = 0; v < P; ++v) hg.of_leaf[v] = d->host(v);
        return true;
    }
    const auto *torus = dynamic_cast<const TorusTopology *>(&t);
    std::vector<int> c(std::max(t.ndims(), 1));
    for (int v = 0; v < P; ++v) {
        if (torus && torus->has_local()) {
            t.coords(v, c.data());
            c[t.ndims() - 1] = 0;
            hg.of_leaf[v] = t.node_at(c.data());
        } else {
            hg.of_leaf[v] = v;
        }
    }
    return true;
}

// The first pair of ranks on which a table and the hosts disagree: two
// ranks of one host in different groups, or of two hosts in one group.
// "" when they agree.
std::string host_conflict(int nprocs, const int *host, const int *node, const HostGroups &hg) {
    std::unordered_map<int, int> rank_of_host, rank_of_group;
    for (int r = 0; r < nprocs; ++r) {
        const int g = hg.of_leaf[node[r]];
        auto h = rank_of_host.emplace(host[r], r).first->second;
        if (hg.of_leaf[node[h]] != g)
            return "ranks " + std::to_string(h) + " and " + std::to_string(r) +
                   ", which run on one host, on different nodes";
        auto o = rank_of_group.emplace(g, r).first->second;
        if (host[o] != host[r])
            return "ranks " + std::to_string(o) + " and " + std::to_string(r) +
                   ", which run on different hosts, on one node";
    }
    return "";
}
} // namespace
} // namespace rankmap

using namespace rankmap;

extern "C" int rankmap_table_declared(const char *topology, const char *mapping, int nprocs,
                                      rankmap_dims_create_fn dims_create, rankmap_topology_t *topo, int *node_of_rank,
                                      char *source, size_t sourcelen) {
    if (!topology || !*topology || nprocs < 1 || !topo || !node_of_rank)
        return capi::fail(RANKMAP_ERR_INVALID,
                          std::string("rankmap_table_declared: no ") + kTopology + ", no processes or no output");
    *topo = nullptr;
    if (!mapping) mapping = "";
    std::string spec;
    if (!expand_auto(topology, nprocs, dims_create, spec))
        return capi::fail(RANKMAP_ERR_INVALID, std::string(kTopology) + "=\"" + topology +
                                                   "\": expected torus:auto or torus:autoN with N "
                                                   "in 1..6");
    rankmap_topology_t t = nullptr;
    if (rankmap_topology_parse(spec.c_str(), &t) != RANKMAP_OK)
        return capi::fail(RANKMAP_ERR_INVALID,
                          std::string(kTopology) + "=\"" + topology + "\": " + rankmap_last_error());
    const char *what = *mapping ? mapping : "default order";
    bool is_random = false;
    std::uint64_t seed = 1;
    int rc;
    if (!*mapping) {
        rc = default_placement(t, nprocs, node_of_rank);
    } else if (looks_like_order(mapping)) {
        rc = rankmap_order_placement(t, mapping, nprocs, node_of_rank);
    } else if (!random_seed(mapping, &is_random, &seed)) {
        rankmap_topology_free(t);
        return capi::fail(RANKMAP_ERR_INVALID,
                          std::string(kMapping) + "=\"" + mapping + "\": expected random or random:SEED");
    } else if (is_random) {
        rc = default_placement(t, nprocs, node_of_rank);
        for (int i = nprocs - 1; rc == RANKMAP_OK && i > 0; --i) {
            int j = static_cast<int>(splitmix64(seed) % static_cast<std::uint64_t>(i + 1));
            std::swap(node_of_rank[i], node_of_rank[j]);
        }
    } else {
        rc = rankmap_mapfile_read(t, mapping, nprocs, node_of_rank);
    }
    if (rc != RANKMAP_OK) {
        std::string why = rankmap_last_error();
        rankmap_topology_free(t);
        // a model too small for the job is a TOPOLOGY error, a bad order or
        // mapfile a MAPPING error
        if (rc == RANKMAP_ERR_TOO_SMALL)
            return capi::fail(rc, std::string(kTopology) + "=\"" + topology + "\" is too small for " +
                                      std::to_string(nprocs) + " processes (" + kMapping + "=\"" + what +
                                      "\"): " + why);
        return capi::fail(rc, std::string(kMapping) + "=\"" + what + "\": " + why);
    }
    *topo = t;
    copy_out(source, sourcelen, spec + ", mapping " + what);
    return RANKMAP_OK;
}

extern "C" int rankmap_table_discover(int nprocs, const int *node_of_proc, int node_size, const char *discover,
                                      const char *switch_addrs, size_t addr_stride, const char *addr_pattern,
                                      int verbose, char *spec, size_t speclen, int *node_of_rank, char *source,
                                      size_t sourcelen) {
    if (nprocs < 1 || !spec || speclen == 0 || !node_of_rank)
        return capi::fail(RANKMAP_ERR_INVALID, "rankmap_table_discover: no processes or no output");
    spec[0] = '\0';
    if (node_size < 0)
        return capi::fail(RANKMAP_ERR_INVALID, "MPIR_CVAR_RANKMAP_NODE_SIZE=" + std::to_string(node_size) +
                                                   ": must be >= 0 (0: nodes from the host names)");
    if (!discover) discover = "";
    std::string settings;
    if (node_size > 0) settings = "node_size=" + std::to_string(node_size);
    if (*discover) settings += (settings.empty() ? "" : ";") + std::string(discover);
    if (verbose) settings += settings.empty() ? "verbose=1" : ";verbose=1";
    std::vector<int> one_node;
    if (!node_of_proc) {
        one_node.assign(nprocs, 0);
        node_of_proc = one_node.data();
    }
    const std::string from = node_size > 0 ? "MPIR_CVAR_RANKMAP_NODE_SIZE" : "host names";
    rankmap_topology_t topo = nullptr;
    if (rankmap_discover(nprocs, node_of_proc, settings.c_str(), &topo, node_of_rank) != RANKMAP_OK)
        return capi::fail(RANKMAP_ERR_INVALID,
                          "machine discovery (MPIR_CVAR_RANKMAP_NODE_SIZE=" + std::to_string(node_size) +
                              ", MPIR_CVAR_RANKMAP_DISCOVER=\"" + discover + "\"): " + rankmap_last_error());
    int nleaves = 0;
    rankmap_topology_size(topo, &nleaves);
    std::string s;
    int rc = nleaves > 1 ? tree_spec(topo, nprocs, node_of_rank, s) : RANKMAP_OK;
    rankmap_topology_free(topo);
    if (rc != RANKMAP_OK) return rc;
    // one node: discovery's tree has no node tier, and no switch sits inside a node
    int nodes = 1;
    for (int p = 0; p < nprocs; ++p) nodes = std::max(nodes, node_of_proc[p] + 1);
    if (node_size > 0) nodes = (nprocs + node_size - 1) / node_size;
    std::string switches;
    const bool dragonfly = discover::parse_settings(discover).dragonfly;
    if (dragonfly && !(switch_addrs && addr_stride > 0) && !s.empty() && nodes > 1)
        std::fprintf(stderr,
                     "rankmap: warning: MPIR_CVAR_RANKMAP_DISCOVER=\"%s\" asks for network=dragonfly, but no process "
                     "has %s (Slurm's topology/tree or topology/block); the machine is the nodes alone (%s)\n",
                     discover, kAddrVar.c_str(), s.c_str());
    if (switch_addrs && addr_stride > 0 && !s.empty() && nodes > 1) {
        std::vector<int> leaf(node_of_rank, node_of_rank + nprocs);
        std::string with = s;
        const std::string why =
            add_switches(nprocs, switch_addrs, addr_stride, addr_pattern, dragonfly, with, leaf, switches);
        if (!why.empty()) {
            std::fprintf(stderr, "rankmap: warning: %s; the machine is the nodes without their switches (%s)\n",
                         why.c_str(), s.c_str());
            switches.clear();
        } else if (with != s) {
            s = with;
            std::copy(leaf.begin(), leaf.end(), node_of_rank);
        }
    }
    if (s.size() + 1 > speclen)
        return capi::fail(RANKMAP_ERR_INVALID, "the discovered machine's description " + s + " is longer than " +
                                                   std::to_string(speclen - 1) + " characters");
    std::snprintf(spec, speclen, "%s", s.c_str());
    copy_out(source, sourcelen,
             s.empty() ? "one leaf" : s + " discovered (nodes from " + from + ", hwloc inside" + switches + ")");
    return RANKMAP_OK;
}

extern "C" long rankmap_table_digest(rankmap_topology_t topo, int nprocs, const int *node_of_rank) {
    std::uint64_t h = 1469598103934665603ULL; // FNV-1a
    int nn = 0;
    if (topo) rankmap_topology_size(topo, &nn);
    for (int r = 0; node_of_rank && r < nprocs; ++r)
        h = (h ^ static_cast<std::uint64_t>(static_cast<unsigned>(node_of_rank[r]))) * 1099511628211ULL;
    h = (h ^ static_cast<std::uint64_t>(static_cast<unsigned>(nn))) * 1099511628211ULL;
    return static_cast<long>(h & 0x7fffffffffffffffULL);
}

extern "C" int rankmap_topology_restrict(rankmap_topology_t topo, int n, const int *nodes,
                                         rankmap_topology_t *out) {
    if (!topo || !nodes || !out || n < 1)
        return capi::fail(RANKMAP_ERR_INVALID, "rankmap_topology_restrict: NULL argument or no nodes");
    return capi::guarded([&] {
        auto h = std::make_unique<rankmap_topology_s>();
        h->t = std::make_unique<MatrixTopology>(*topo->t, std::vector<int>(nodes, nodes + n),
                                                "matrix of " + std::to_string(n) + " processes of " +
                                                    topo->t->describe());
        *out = h.release();
    });
}

extern "C" int rankmap_table_hosts(rankmap_topology_t topo, int nprocs, const int *host_of_proc, const char *mapping,
                                   const char *switch_addrs, size_t addr_stride, int *node_of_rank, int *placed,
                                   char *note, size_t notelen) {
    if (!topo || nprocs < 1 || !host_of_proc || !node_of_rank || !placed)
        return capi::fail(RANKMAP_ERR_INVALID, "rankmap_table_hosts: no topology, processes or output");
    *placed = 0;
    copy_out(note, notelen, "");
    return capi::guarded([&] {
        const Topology &t = *topo->t;
        int nhosts = 0;
        for (int r = 0; r < nprocs; ++r) {
            if (host_of_proc[r] < 0 || host_of_proc[r] >= nprocs)
                throw Error("rankmap_table_hosts: host of process " + std::to_string(r) + " out of range");
            nhosts = std::max(nhosts, host_of_proc[r] + 1);
        }
        if (nhosts < 2) return;  // one host: nothing to learn or to contradict
        std::vector<int> count(nhosts, 0), first(nhosts, -1);
        int most = 0;
        for (int r = 0; r < nprocs; ++r) {
            most = std::max(most, ++count[host_of_proc[r]]);
            if (first[host_of_proc[r]] < 0) first[host_of_proc[r]] = r;
        }
        const bool given = mapping && *mapping;
        const std::string spec = t.describe();
        HostGroups hg;
        if (!host_groups(t, nprocs, nhosts, most, hg)) {
            copy_out(note, notelen,
                     std::string(kTopology) + "=\"" + spec + "\" has no tier with a group for each of the " +
                         std::to_string(nhosts) + " hosts the processes run on (up to " + std::to_string(most) +
                         " per host); ranks keep " + (given ? std::string(kMapping) + "=\"" + mapping + "\""
                                                            : std::string("the default order")));
            return;
        }
        if (!given && (t.kind() == TopologyKind::Tree || t.kind() == TopologyKind::Dragonfly)) {
            // Hosts in the order of their first rank, those under one
            // Slurm leaf switch together (switches in the order of their
            // first rank): block launch order gives block order.
            std::vector<std::string> sw(nhosts);
            if (switch_addrs && addr_stride > 0)
                for (int h = 0; h < nhosts; ++h) {
                    std::string a(switch_addrs + static_cast<size_t>(first[h]) * addr_stride,
                                  strnlen(switch_addrs + static_cast<size_t>(first[h]) * addr_stride, addr_stride));
                    sw[h] = a.substr(0, a.find_last_of('.') == std::string::npos ? 0 : a.find_last_of('.'));
                }
            std::vector<int> hosts(nhosts);
            for (int h = 0; h < nhosts; ++h) hosts[h] = h;
            std::sort(hosts.begin(), hosts.end(), [&](int a, int b) { return first[a] < first[b]; });
            std::unordered_map<std::string, int> sw_rank;
            for (int h : hosts) sw_rank.emplace(sw[h], static_cast<int>(sw_rank.size()));
            std::stable_sort(hosts.begin(), hosts.end(), [&](int a, int b) { return sw_rank[sw[a]] < sw_rank[sw[b]]; });
            std::vector<int> group_of_host(nhosts), next(nhosts, 0);
            for (int q = 0; q < nhosts; ++q) group_of_host[hosts[q]] = q;
            const int per = (nprocs + t.size() - 1) / t.size();
            for (int r = 0; r < nprocs; ++r) {
                const int h = host_of_proc[r];
                node_of_rank[r] = group_of_host[h] * hg.leaves + next[h]++ / per;
            }
            *placed = 1;
            copy_out(note, notelen, "the " + std::to_string(nhosts) + " hosts the processes run on, " +
                                        std::to_string(hg.leaves) + " leaves each");
            return;
        }
        const std::string why = host_conflict(nprocs, host_of_proc, node_of_rank, hg);
        if (why.empty()) return;
        copy_out(note, notelen,
                 (given ? std::string(kMapping) + "=\"" + mapping + "\""
                        : "the default order of " + std::string(kTopology) + "=\"" + spec + "\" (" + kMapping +
                              " unset)") +
                     " puts " + why + "; the guard judges new orders against this placement, so set " + kMapping +
                     " to the order the job is launched in");
    });
}

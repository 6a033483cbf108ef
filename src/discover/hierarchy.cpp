// hierarchy.cpp -- from a probed node and the process layout to a tree
// topology (src/topology/tree.cpp) and the leaf of every process.  Pure.
//
// Tiers inside a node.  Every candidate kind (package, NUMA node, L3, L2)
// partitions the cores.  Candidates are taken from coarse to fine (fewest
// groups first, canonical order on ties) and kept only if they branch (more
// groups than the tier kept before), nest (each group lies inside one group
// of the tier kept before) and are uniform (every parent has as many
// children) -- a tree model has one arity per tier.  Equal partitions (an L3
// per NUMA node) collapse into the first kind; a cache private to each core
// is the core tier.  The core tier comes last; if the cores per finest group
// are not uniform, the finest kept tiers are dropped until they are.
//
// Costs (distance between processes whose first differing tier is this one):
// node 100, package 10, NUMA 5, L3 2, L2 1.5, core 1.  Where the machine
// reports NUMA distances (libnuma or hwloc), the package and NUMA tiers cost
// 2 + 8 (r - 1), r = mean distance between NUMA nodes first differing at that
// tier over the mean local distance: the usual cross-socket SLIT ratio 2.0
// gives the default 10.  Named costs in the settings override both; positional
// costs replace the whole list.
//
// Placement.  Processes of a node (increasing p) fill its cores in hwloc's
// logical order, round robin when there are more processes than cores: local
// rank i runs on core i mod C (as with hydra's -bind-to core).  The leaf of a
// process is the leaf holding its core; slots = most processes on one leaf.
// When a node holds fewer processes than cores, the occupied cores are the
// first ones; the tree is trimmed to the occupied part when that part is a
// whole subtree (e.g. 8 processes on 2 packages x 8 cores: one package, 8
// cores), otherwise left whole (some leaves then hold fewer processes).
// Cost: O(cores x tiers + nprocs).
#include <algorithm>
#include <map>
#include <sstream>

#include "common/error.hpp"
#include "discover/discover.hpp"

namespace rankmap::discover {

namespace {

struct Partition {
    TierKind kind;
    std::vector<int> id;   // per core, renumbered 0.. by first appearance
    int count;
};

Partition normalize(TierKind kind, const std::vector<int> &raw) {
    Partition p{kind, std::vector<int>(raw.size()), 0};
    std::map<int, int> seen;
    for (size_t c = 0; c < raw.size(); ++c) {
        auto it = seen.find(raw[c]);
        if (it == seen.end()) it = seen.emplace(raw[c], p.count++).first;
        p.id[c] = it->second;
    }
    return p;
}

// Children per parent if `fine` nests uniformly in `coarse`, else 0.
int uniform_children(const Partition &coarse, const Partition &fine) {
    if (fine.count <= coarse.count || fine.count % coarse.count != 0) return 0;
    std::vector<int> parent(fine.count, -1), children(coarse.count, 0);
    for (size_t c = 0; c < fine.id.size(); ++c) {
        int f = fine.id[c], q = coarse.id[c];
        if (parent[f] < 0) {
            parent[f] = q;
            ++children[q];
        } else if (parent[f] != q) {
            return 0;   // a fine group straddles two coarse ones
        }
    }
    const int want = fine.count / coarse.count;
    for (int n : children)
        if (n != want) return 0;
    return want;
}

std::string fmt_cost(double c) {
    std::ostringstream s;
    s.precision(6);
    s << c;
    return s.str();
}

// The enabled kinds that partition every core, coarse to fine.
std::vector<Partition> candidate_partitions(const Machine &m, const Settings &s) {
    const int ncores = m.ncores;
    std::vector<Partition> cand;
    for (int k = 0; k < kNumTierKinds; ++k) {
        const TierKind kind = static_cast<TierKind>(k);
        if (kind == TierKind::Core || !s.tier_enabled[k] || m.group[k].size() != static_cast<size_t>(ncores)) continue;
        if (std::find(m.group[k].begin(), m.group[k].end(), -1) != m.group[k].end()) continue;
        cand.push_back(normalize(kind, m.group[k]));
    }
    std::stable_sort(cand.begin(), cand.end(), [](const Partition &a, const Partition &b) { return a.count < b.count; });
    return cand;
}

// NUMA distances scale the package and NUMA tiers (nt.tiers[t] is kept[t]).
void apply_numa_distances(const Machine &m, const std::vector<Partition> &kept, NodeTree &nt) {
    const int ncores = m.ncores;
    const size_t nn = m.numa_group.size();
    // a representative core of every NUMA node, and the first kept tier
    // at which two representatives differ
    const auto &numa_raw = m.group[static_cast<int>(TierKind::Numa)];
    std::vector<int> rep(nn, -1);
    for (size_t i = 0; i < nn; ++i)
        for (int c = 0; c < ncores && rep[i] < 0; ++c)
            if (numa_raw.size() == static_cast<size_t>(ncores) && numa_raw[c] == m.numa_group[i]) rep[i] = c;
    double local = 0;
    for (size_t i = 0; i < nn; ++i) local += m.numa_distance[i * nn + i];
    local /= static_cast<double>(nn);
    std::vector<double> sum(kept.size(), 0.0);
    std::vector<int> cnt(kept.size(), 0);
    for (size_t i = 0; i < nn; ++i)
        for (size_t j = 0; j < nn; ++j) {
            if (i == j || rep[i] < 0 || rep[j] < 0) continue;
            for (size_t t = 0; t < kept.size(); ++t)
                if (kept[t].id[rep[i]] != kept[t].id[rep[j]]) {
                    sum[t] += m.numa_distance[i * nn + j];
                    ++cnt[t];
                    break;
                }
        }
    if (local > 0)
        for (size_t t = 0; t < kept.size(); ++t)
            if (cnt[t] > 0 && (kept[t].kind == TierKind::Package || kept[t].kind == TierKind::Numa)) {
                double r = sum[t] / cnt[t] / local;
                nt.tiers[t].cost = 2.0 + 8.0 * (r - 1.0);
                if (nt.tiers[t].cost < 0) nt.tiers[t].cost = 0;
            }
}

} // namespace

NodeTree node_tree(const Machine &m, const Settings &s) {
    const int ncores = m.ncores;
    if (ncores < 1) throw Error("rankmap_discover: the probed node has no core", ErrorKind::Internal);
    const std::vector<Partition> cand = candidate_partitions(m, s);
    std::vector<Partition> kept;
    std::vector<int> arity;
    Partition whole{TierKind::Package, std::vector<int>(ncores, 0), 1};
    const bool core_enabled = s.tier_enabled[static_cast<int>(TierKind::Core)];
    for (const Partition &p : cand) {
        if (core_enabled && p.count == ncores) continue;   // private cache = the core tier
        int a = uniform_children(kept.empty() ? whole : kept.back(), p);
        if (a > 0) {
            kept.push_back(p);
            arity.push_back(a);
        }
    }
    // cores per finest group must be uniform
    Partition cores = normalize(TierKind::Core, m.group[static_cast<int>(TierKind::Core)].empty()
                                                    ? std::vector<int>(ncores, 0)
                                                    : m.group[static_cast<int>(TierKind::Core)]);
    int per_leaf = 0;
    while (true) {
        const Partition &finest = kept.empty() ? whole : kept.back();
        per_leaf = finest.count == ncores ? 1 : uniform_children(finest, cores);
        if (per_leaf > 0 || kept.empty()) break;
        kept.pop_back();
        arity.pop_back();
    }
    if (per_leaf <= 0) per_leaf = ncores;   // cannot happen: `whole` holds every core

    NodeTree nt;
    nt.ncores = ncores;
    for (size_t i = 0; i < kept.size(); ++i)
        nt.tiers.push_back({tier_name(kept[i].kind), arity[i], default_cost(kept[i].kind)});
    const bool core_tier = core_enabled && per_leaf > 1;
    if (core_tier) nt.tiers.push_back({"core", per_leaf, default_cost(TierKind::Core)});
    nt.cores_per_leaf = core_tier ? 1 : per_leaf;

    const size_t nn = m.numa_group.size();
    if (s.use_distances && nn >= 2 && m.numa_distance.size() == nn * nn) apply_numa_distances(m, kept, nt);
    for (auto &t : nt.tiers)
        for (int k = 0; k < kNumTierKinds; ++k)
            if (t.name == tier_name(static_cast<TierKind>(k)) && s.named_cost[k] >= 0) t.cost = s.named_cost[k];
    return nt;
}

namespace {

const std::string kWho = "rankmap_discover: ";

// The node of every process (from node_size or node_of_proc); returns the
// number of nodes.
int node_tier(int nprocs, const int *node_of_proc, const Settings &s, std::vector<int> &node) {
    const std::string &who = kWho;
    node.assign(nprocs, 0);
    int nnodes = 0;
    if (s.node_size > 0) {
        for (int p = 0; p < nprocs; ++p) node[p] = p / s.node_size;
        return (nprocs + s.node_size - 1) / s.node_size;
    }
    if (!node_of_proc)
        throw Error(who + "node_of_proc is NULL and the settings '" + s.text + "' declare no node_size");
    for (int p = 0; p < nprocs; ++p) {
        if (node_of_proc[p] < 0 || node_of_proc[p] >= nprocs)
            throw Error(who + "node_of_proc[" + std::to_string(p) + "] = " + std::to_string(node_of_proc[p]) +
                        " is not a node index 0.." + std::to_string(nprocs - 1));
        node[p] = node_of_proc[p];
        nnodes = std::max(nnodes, node[p] + 1);
    }
    std::vector<char> used(nnodes, 0);
    for (int v : node) used[v] = 1;
    for (int v = 0; v < nnodes; ++v)
        if (!used[v])
            throw Error(who + "node_of_proc uses node " + std::to_string(nnodes - 1) + " but no process is on node " +
                        std::to_string(v) + " (node indices must be consecutive from 0)");
    return nnodes;
}

int leaf_count(const std::vector<Tier> &in) {
    int leaves = 1;
    for (auto &t : in) leaves *= t.arity;
    return leaves;
}

// The tiers inside a node trimmed to the occupied cores 0..ppn-1 when they
// are a whole subtree; otherwise `in` unchanged (q = cores per leaf).
void trim_to_occupied(std::vector<Tier> &in, int ppn, int q) {
    std::vector<Tier> trimmed;
    bool whole = true;
    int units = ppn;
    if (q > 1) {
        if (units % q == 0) units /= q;
        else if (units < q) units = 1;
        else whole = false;
    }
    for (int t = static_cast<int>(in.size()) - 1; t >= 0 && whole && units > 1; --t) {
        if (units % in[t].arity == 0) {
            trimmed.insert(trimmed.begin(), in[t]);
            units /= in[t].arity;
        } else if (units < in[t].arity) {
            trimmed.insert(trimmed.begin(), in[t]);
            trimmed.front().arity = units;
            units = 1;
        } else {
            whole = false;
        }
    }
    if (whole) in = trimmed;
}

// cost= of the settings, one per tier, replaces every tier's cost.
void apply_positional_costs(const Settings &s, Hierarchy &h) {
    if (s.positional_cost.empty()) return;
    if (s.positional_cost.size() != h.tiers.size()) {
        std::string names;
        for (auto &t : h.tiers) names += (names.empty() ? "" : ",") + t.name;
        throw Error(kWho + "settings '" + s.text + "': cost= gives " + std::to_string(s.positional_cost.size()) +
                    " costs but the hierarchy found has " + std::to_string(h.tiers.size()) + " tiers (" + names +
                    "); give one per tier or name them (cost=node:100,core:1)");
    }
    for (size_t t = 0; t < h.tiers.size(); ++t) h.tiers[t].cost = s.positional_cost[t];
}

std::string tree_string(const Hierarchy &h) {
    std::ostringstream spec;
    spec << "tree:";
    for (size_t t = 0; t < h.tiers.size(); ++t) spec << (t ? "x" : "") << h.tiers[t].arity;
    spec << ":cost=";
    for (size_t t = 0; t < h.tiers.size(); ++t) spec << (t ? "," : "") << fmt_cost(h.tiers[t].cost);
    if (h.slots > 1) spec << ":slots=" << h.slots;
    return spec.str();
}

} // namespace

Hierarchy build(int nprocs, const int *node_of_proc, const Settings &s, const NodeTree &inner) {
    const std::string &who = kWho;
    if (nprocs < 1) throw Error(who + "nprocs must be at least 1 (got " + std::to_string(nprocs) + ")");
    std::vector<int> node;
    const int nnodes = node_tier(nprocs, node_of_proc, s, node);
    std::vector<int> local(nprocs), count(nnodes, 0);
    for (int p = 0; p < nprocs; ++p) local[p] = count[node[p]]++;
    const int ppn = *std::max_element(count.begin(), count.end());

    // ---- the tiers inside a node, trimmed to the occupied cores
    std::vector<Tier> in = inner.tiers;
    const int C = inner.ncores, q = inner.cores_per_leaf;
    if (ppn < C) trim_to_occupied(in, ppn, q);
    // all processes on one node: inner tiers only where they pay off
    if (nnodes == 1) {
        bool memory_tier = false;
        for (auto &t : in) memory_tier |= t.name == "package" || t.name == "numa";
        if (s.single_node == SingleNode::Flat || (s.single_node == SingleNode::Auto && !memory_tier)) in.clear();
    }
    const int leaves = leaf_count(in);

    Hierarchy h;
    h.tiers.push_back({"node", nnodes, s.node_cost >= 0 ? s.node_cost : kDefaultNodeCost});
    for (auto &t : in) h.tiers.push_back(t);
    if (h.tiers.size() > 6)
        throw Error(who + "the hierarchy has " + std::to_string(h.tiers.size()) + " tiers (at most 6; choose fewer with tiers=)");
    apply_positional_costs(s, h);

    // ---- leaf of every process: local rank i on core i mod C
    h.place.resize(nprocs);
    std::vector<int> per_leaf(static_cast<size_t>(nnodes) * leaves, 0);
    for (int p = 0; p < nprocs; ++p) {
        int core = local[p] % C;
        int leaf = (core / q) % leaves;   // trimmed tree: the occupied prefix
        if (leaves == 1) leaf = 0;
        h.place[p] = node[p] * leaves + leaf;
        h.slots = std::max(h.slots, ++per_leaf[h.place[p]]);
    }
    if (h.slots > 1024)
        throw Error(who + std::to_string(h.slots) + " processes on one leaf (at most 1024; declare more tiers or nodes)",
                    ErrorKind::TooSmall);
    h.spec = tree_string(h);
    return h;
}

} // namespace rankmap::discover

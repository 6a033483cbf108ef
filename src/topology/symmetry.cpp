// symmetry.cpp -- the symmetries of the machine models (topology.hpp):
// maps of the nodes that leave every distance unchanged, used by the MPI
// glue to keep rank 0 on its node and to lay a placement over the current
// order without changing its cost.
//   torus/mesh: wrapped dimensions (and the local one) translate; mesh
//     dimensions are kept or reflected; dimensions of equal extent and wrap
//     may be exchanged.  Up to net! * 2^mesh maps, each built in
//     O(sum of extents).
//   tree: the subtrees of one parent are exchanged; align_to_current()
//     chooses, tier by tier, the exchanges that keep the most tasks on
//     their current node: per tier one pass over the tasks through ordered
//     maps, O(n log n).
//   other models (file:): the identity only.
#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <utility>

#include "topology/topology.hpp"
#include "topology/torus.hpp"
#include "topology/tree.hpp"

namespace rankmap {
namespace {

// x -> x + s modulo n.
std::vector<int> shifted(int n, int s) {
    std::vector<int> v(n);
    for (int x = 0; x < n; ++x) v[x] = ((x + s) % n + n) % n;
    return v;
}

NodeMap identity_map(const Topology &t) {
    NodeMap id;
    id.from.resize(t.ndims());
    std::iota(id.from.begin(), id.from.end(), 0);
    for (int k = 0; k < t.ndims(); ++k) id.value.push_back(shifted(t.dims()[k], 0));
    return id;
}

// The permutation of a parent's `a` children that matches them with the
// current order's: the child of task 0 first (`forced`: its pair, or -1),
// then by the number of tasks each pair shares, the unmatched rest in
// ascending order.
std::vector<int> match_children(int a, const std::map<std::pair<int, int>, int> &overlap,
                                std::pair<int, int> forced) {
    std::vector<int> sigma(a, -1), taken(a, 0);
    if (forced.first >= 0) sigma[forced.first] = forced.second, taken[forced.second] = 1;
    std::vector<std::array<int, 3>> pairs;  // (-overlap, x, y)
    for (auto &o : overlap) pairs.push_back({-o.second, o.first.first, o.first.second});
    std::sort(pairs.begin(), pairs.end());
    for (auto &q : pairs)
        if (sigma[q[1]] < 0 && !taken[q[2]]) sigma[q[1]] = q[2], taken[q[2]] = 1;
    for (int x = 0, y = 0; x < a; ++x) {
        if (sigma[x] >= 0) continue;
        while (taken[y]) ++y;
        sigma[x] = y, taken[y] = 1;
    }
    return sigma;
}

} // namespace

int NodeMap::apply(const Topology &t, int v) const {
    int x[kMaxCoords], y[kMaxCoords];
    t.coords(v, x);
    for (int k = 0; k < t.ndims(); ++k) y[k] = value[k][x[from[k]]];
    return t.node_at(y);
}

int NodeMap::preimage(const Topology &t, int v) const {
    int x[kMaxCoords], y[kMaxCoords];
    t.coords(v, y);
    for (int k = 0; k < t.ndims(); ++k) {
        const auto &val = value[k];
        x[from[k]] = static_cast<int>(std::find(val.begin(), val.end(), y[k]) - val.begin());
    }
    return t.node_at(x);
}

std::vector<NodeMap> Topology::symmetries(int, int) const { return {identity_map(*this)}; }

std::string Topology::symmetry_name(size_t) const { return "the identity"; }

int Topology::align_to_current(std::vector<int> &, const std::vector<int> &, const std::vector<int> &) const {
    return -1;
}

std::vector<int> Topology::hosts_ascending(const std::vector<int> &) const { return {}; }

// Wrapped dimensions (and the local one) translate so that they agree with
// target; mesh dimensions are kept or reflected (every combination);
// dimensions of equal extent and wrap may be exchanged (the unexchanged
// order first, as exchanges change the routing order and so the link loads).
std::vector<NodeMap> TorusTopology::symmetries(int a, int target) const {
    const int nd = ndims();
    int ca[kMaxCoords], ct[kMaxCoords];
    coords(a, ca);
    coords(target, ct);
    const NodeMap id = identity_map(*this);
    std::vector<int> mesh;
    for (int k = 0; k < net_; ++k)
        if (!wrap_[k] && dims_[k] > 1) mesh.push_back(k);
    std::vector<NodeMap> out;
    std::vector<int> perm(net_);
    std::iota(perm.begin(), perm.end(), 0);
    do {
        bool ok = true;
        for (int k = 0; k < net_; ++k) ok = ok && dims_[perm[k]] == dims_[k] && wrap_[perm[k]] == wrap_[k];
        if (!ok) continue;
        for (unsigned mask = 0; mask < (1u << mesh.size()); ++mask) {
            NodeMap m = id;
            for (int k = 0; k < net_; ++k) {
                m.from[k] = perm[k];
                if (wrap_[k]) m.value[k] = shifted(dims_[k], ct[k] - ca[perm[k]]);
            }
            for (size_t i = 0; i < mesh.size(); ++i)
                if (mask & (1u << i)) {
                    const int k = mesh[i];
                    for (int x = 0; x < dims_[k]; ++x) m.value[k][x] = dims_[k] - 1 - x;
                }
            if (has_local()) m.value[nd - 1] = shifted(dims_[nd - 1], ct[nd - 1] - ca[nd - 1]);
            out.push_back(std::move(m));
        }
    } while (std::next_permutation(perm.begin(), perm.end()));
    return out;
}

std::string TorusTopology::symmetry_name(size_t i) const {
    return i == 0 ? "a translation" : "a reflection or exchange of dimensions";
}

// In every tier the two subtrees holding a and target are exchanged (one
// map, always exact).
std::vector<NodeMap> TreeTopology::symmetries(int a, int target) const {
    int ca[kMaxCoords], ct[kMaxCoords];
    coords(a, ca);
    coords(target, ct);
    NodeMap m = identity_map(*this);
    for (int k = 0; k < ndims(); ++k) std::swap(m.value[k][ca[k]], m.value[k][ct[k]]);
    return {std::move(m)};
}

std::string TreeTopology::symmetry_name(size_t) const { return "an exchange of subtrees"; }

// The children of one switch or node exchanged leave F and every tier's load
// unchanged.  Tier by tier from the outermost, each parent's children are
// matched greedily by the number of tasks they share with the current
// order's children (task 0's pair first, so it lands on the node of member
// 0; ties and the unmatched rest in ascending order, as a block launch lays
// groups over nodes).
int TreeTopology::align_to_current(std::vector<int> &place, const std::vector<int> &current,
                                   const std::vector<int> &cap) const {
    const int L = ndims(), n = static_cast<int>(place.size());
    std::vector<std::vector<int>> pc(n, std::vector<int>(L)), cc(n, std::vector<int>(L));
    for (int r = 0; r < n; ++r) {
        coords(place[r], pc[r].data());
        coords(current[r], cc[r].data());
    }
    for (int k = 0; k < L; ++k) {
        // parents: tasks whose place prefix (digits < k) equals their current prefix
        std::map<std::vector<int>, std::vector<int>> by_parent;  // place prefix -> tasks
        for (int r = 0; r < n; ++r) by_parent[std::vector<int>(pc[r].begin(), pc[r].begin() + k)].push_back(r);
        for (auto &kv : by_parent) {
            std::map<std::pair<int, int>, int> overlap;  // (child here, child in the current order) -> tasks
            std::pair<int, int> forced{-1, -1};
            for (int r : kv.second) {
                if (!std::equal(cc[r].begin(), cc[r].begin() + k, kv.first.begin())) continue;
                ++overlap[{pc[r][k], cc[r][k]}];
                if (r == 0) forced = {pc[r][k], cc[r][k]};
            }
            const std::vector<int> sigma = match_children(arity_[k], overlap, forced);
            for (int r : kv.second) pc[r][k] = sigma[pc[r][k]];
        }
    }
    std::vector<int> out(n), load(cap.size(), 0);
    int stay = 0;
    for (int r = 0; r < n; ++r) {
        out[r] = node_at(pc[r].data());
        if (++load[out[r]] > cap[out[r]]) return -1;
        stay += out[r] == current[r];
    }
    place.swap(out);
    return stay;
}

// A tree's hosts are the blocks of its last tier: the host holding the
// lowest task becomes the first host, and so on; each host's tasks fill its
// cores in task order (slots() to a core).  It keeps the placement's
// grouping (the lines of a transposes' order on their hosts) and gives
// neighbouring groups neighbouring hosts, as launch orders do.
std::vector<int> TreeTopology::hosts_ascending(const std::vector<int> &place) const {
    if (ndims() < 2) return {};
    const int cores = arity_.back(), nhosts = size() / cores, n = static_cast<int>(place.size());
    std::vector<int> low(nhosts, n), order(nhosts), rank_of(nhosts), next(nhosts, 0), out(n);
    for (int task = n - 1; task >= 0; --task) low[place[task] / cores] = task;
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return low[a] < low[b]; });
    for (int k = 0; k < nhosts; ++k) rank_of[order[k]] = k;
    for (int task = 0; task < n; ++task) {
        const int h = rank_of[place[task] / cores];
        out[task] = h * cores + next[h]++ / slots();
    }
    return out;
}

} // namespace rankmap

// cobisection.cpp -- recursive co-bisection start placement for the
// annealing chains of `auto` (declared in initial.hpp).
//
// The task graph and the machine are bisected together, level by level
// (the dual recursive bipartitioning idea that Scotch's mapper is built on,
// here as a start for the annealing of Bhanot et al., BG/L task layout): a set
// of nodes is cut in two halves along its longest coordinate extent (torus,
// mesh) or its outermost tier (tree), and its tasks are cut by METIS
// (bisect_graph) into parts of the sizes the two node halves can hold under
// equation 3.  Which task half goes to which node half is chosen by the
// traffic to tasks outside the set, measured against the centres of the
// regions those tasks currently belong to.  The recursion stops at single
// nodes.
//
// Cost: O(E log P) for the METIS bisections (each level touches every
// edge once) plus O(P log P) for the node splits; memory O(N + E + P).
#include <algorithm>
#include <deque>
#include <numeric>

#include "map/initial/initial.hpp"
#include "partition/partition.hpp"

namespace rankmap {

namespace {

struct Region {
    std::vector<int> nodes, tasks;
};

int center_of(const Topology &topo, const std::vector<int> &nodes) {
    const int D = topo.ndims();
    if (D <= 0) return nodes[nodes.size() / 2];
    std::vector<int> c(D), med(D);
    std::vector<std::vector<int>> per(D);
    for (int v : nodes) {
        topo.coords(v, c.data());
        for (int k = 0; k < D; ++k) per[k].push_back(c[k]);
    }
    for (int k = 0; k < D; ++k) {
        auto mid = per[k].begin() + per[k].size() / 2;
        std::nth_element(per[k].begin(), mid, per[k].end());
        med[k] = *mid;
    }
    int v = topo.node_at(med.data());
    if (v >= 0 && std::binary_search(nodes.begin(), nodes.end(), v)) return v;
    return nodes[nodes.size() / 2];
}

// Split a sorted node list in two (halves also sorted).
void split_nodes(const Topology &topo, const std::vector<int> &nodes, std::vector<int> &a,
                 std::vector<int> &b) {
    const int D = topo.ndims();
    std::vector<int> order = nodes;
    if (D > 0 && topo.kind() != TopologyKind::Matrix) {
        std::vector<int> lo(D, 1 << 30), hi(D, -1), c(D);
        for (int v : nodes) {
            topo.coords(v, c.data());
            for (int k = 0; k < D; ++k) {
                lo[k] = std::min(lo[k], c[k]);
                hi[k] = std::max(hi[k], c[k]);
            }
        }
        int dim = -1;
        if (topo.kind() == TopologyKind::Tree || topo.kind() == TopologyKind::Dragonfly) {
            for (int k = 0; k < D && dim < 0; ++k)
                if (hi[k] > lo[k]) dim = k;
        } else {
            int best = 0;
            for (int k = 0; k < D; ++k)
                if (hi[k] - lo[k] > best) {
                    best = hi[k] - lo[k];
                    dim = k;
                }
        }
        if (dim >= 0) {
            std::vector<std::pair<int, int>> key;
            key.reserve(order.size());
            for (int v : order) {
                topo.coords(v, c.data());
                key.push_back({c[dim], v});
            }
            std::stable_sort(key.begin(), key.end());
            for (size_t i = 0; i < key.size(); ++i) order[i] = key[i].second;
        }
    }
    size_t h = order.size() / 2;
    a.assign(order.begin(), order.begin() + h);
    b.assign(order.begin() + h, order.end());
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
}

} // namespace

std::vector<int> bisection_map(const Problem &p, uint64_t seed) {
    const Graph &g = p.sym;
    const int N = g.n(), P = p.topo.size();
    const Capacity cap = p.cap;
    std::vector<int> center(N), place(N, -1), local;
    FastDistance dist(p.topo);
    std::deque<Region> queue;
    Region all;
    all.nodes.resize(P);
    std::iota(all.nodes.begin(), all.nodes.end(), 0);
    all.tasks.resize(N);
    std::iota(all.tasks.begin(), all.tasks.end(), 0);
    int c0 = center_of(p.topo, all.nodes);
    std::fill(center.begin(), center.end(), c0);
    queue.push_back(std::move(all));
    std::vector<char> inside(N, 0);
    uint64_t calls = 0;
    while (!queue.empty()) {
        Region r = std::move(queue.front());
        queue.pop_front();
        if (r.tasks.empty()) continue;
        if (r.nodes.size() == 1) {
            for (int t : r.tasks) place[t] = r.nodes[0];
            continue;
        }
        Region A, B;
        split_nodes(p.topo, r.nodes, A.nodes, B.nodes);
        // Tasks for A: proportional, within A's capacity and leaving B's.
        const int64_t nt = static_cast<int64_t>(r.tasks.size());
        const int64_t na = static_cast<int64_t>(A.nodes.size()), nb = static_cast<int64_t>(B.nodes.size());
        int64_t ta = (nt * na + (na + nb) / 2) / (na + nb);
        ta = std::max(ta, nt - nb * cap.hi);
        ta = std::min(ta, nt - nb * cap.lo);
        ta = std::max(ta, na * cap.lo);
        ta = std::min(ta, na * cap.hi);
        ta = std::clamp<int64_t>(ta, 0, nt);
        std::vector<int> part;
        if (ta == 0 || ta == nt) {
            part.assign(r.tasks.size(), ta == 0 ? 1 : 0);
        } else {
            Graph sub = g.induced(r.tasks, local);
            part = bisect_graph(sub, static_cast<int>(ta), seed + calls++);
        }
        std::vector<int> T0, T1;
        for (size_t i = 0; i < r.tasks.size(); ++i) (part[i] == 0 ? T0 : T1).push_back(r.tasks[i]);
        const int ca = center_of(p.topo, A.nodes), cb = center_of(p.topo, B.nodes);
        if (T0.size() == T1.size() && !T0.empty()) {
            // Orientation by traffic to tasks outside this region.
            for (int t : r.tasks) inside[t] = 1;
            double straight = 0, crossed = 0;
            for (int side = 0; side < 2; ++side)
                for (int t : side == 0 ? T0 : T1)
                    for (int64_t e = g.begin(t); e < g.end(t); ++e) {
                        int j = g.target(e);
                        if (inside[j]) continue;
                        double da = dist(ca, center[j]), db = dist(cb, center[j]);
                        straight += g.weight(e) * (side == 0 ? da : db);
                        crossed += g.weight(e) * (side == 0 ? db : da);
                    }
            for (int t : r.tasks) inside[t] = 0;
            if (crossed < straight) std::swap(T0, T1);
        }
        A.tasks = std::move(T0);
        B.tasks = std::move(T1);
        for (int t : A.tasks) center[t] = ca;
        for (int t : B.tasks) center[t] = cb;
        queue.push_back(std::move(A));
        queue.push_back(std::move(B));
    }
    return place;
}

} // namespace rankmap

// bound.cpp -- F_min, the lower bound of Bhanot et al. (BG/L task layout),
// section "Measure of ... layout quality": for each task i, its partners'
// weights C(i,j) sorted decreasingly are dealt out first to the free slots of
// i's own node (distance 0), then to the nodes of the nearest distance shell,
// then the next shell, and so on; F_min is the sum of these per-task minima.
// Cost: O(E log deg) plus the shells (once for uniform models).
//
// Slots: with N tasks on P nodes a node holds at most hi = ceil(N/P) tasks,
// so i's own node offers hi - 1 partner slots and each node of a shell hi.
// Uniform models (torus, tree) give every node the same shells.  Meshes use
// the central node, whose shells dominate every other node's at every
// radius (for hop and Euclidean metrics), so the bound stays valid.  The
// explicit-matrix model takes, for each task, the best node.
#include <algorithm>
#include <functional>

#include "cost/cost.hpp"
#include "topology/torus.hpp"

namespace rankmap {

namespace {

// Cost of dealing the sorted weights onto (hi-1) zero slots then shells.
double deal(const std::vector<double> &w, const std::vector<Shell> &shells, int hi) {
    double sum = 0;
    size_t k = static_cast<size_t>(std::max(hi - 1, 0));  // same-node slots: distance 0
    for (const Shell &s : shells) {
        if (k >= w.size()) break;
        int64_t slots = s.count * hi;
        for (int64_t j = 0; j < slots && k < w.size(); ++j, ++k) sum += w[k] * s.distance;
    }
    return sum;
}

} // namespace

double lower_bound(const Graph &g, const Topology &topo) {
    const int n = g.n();
    if (n == 0) return 0;
    const int hi = capacity_for(n, topo.size()).hi;
    std::vector<std::vector<Shell>> shell_sets;
    if (topo.uniform()) {
        shell_sets.push_back(topo.shells(0));
    } else if (topo.kind() == TopologyKind::Torus) {
        std::vector<int> c(topo.ndims());
        for (int k = 0; k < topo.ndims(); ++k) c[k] = topo.dims()[k] / 2;
        shell_sets.push_back(topo.shells(topo.node_at(c.data())));
    } else {
        for (int v = 0; v < topo.size(); ++v) shell_sets.push_back(topo.shells(v));
        // Nodes alike (a dragonfly's routers at the same place in their
        // group) share their shells: each distinct set is dealt once.
        auto less = [](const std::vector<Shell> &x, const std::vector<Shell> &y) {
            return std::lexicographical_compare(x.begin(), x.end(), y.begin(), y.end(), [](const Shell &a, const Shell &b) {
                return a.distance != b.distance ? a.distance < b.distance : a.count < b.count;
            });
        };
        auto same = [](const std::vector<Shell> &x, const std::vector<Shell> &y) {
            return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                              [](const Shell &a, const Shell &b) { return a.distance == b.distance && a.count == b.count; });
        };
        std::sort(shell_sets.begin(), shell_sets.end(), less);
        shell_sets.erase(std::unique(shell_sets.begin(), shell_sets.end(), same), shell_sets.end());
    }
    double total = 0;
    std::vector<double> w;
    for (int i = 0; i < n; ++i) {
        w.clear();
        for (int64_t e = g.begin(i); e < g.end(i); ++e) w.push_back(g.weight(e));
        if (w.empty()) continue;
        std::sort(w.begin(), w.end(), std::greater<double>());
        double best = -1;
        for (const auto &s : shell_sets) {
            double c = deal(w, s, hi);
            if (best < 0 || c < best) best = c;
        }
        total += best;
    }
    return total;
}

} // namespace rankmap

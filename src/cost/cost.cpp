// cost.cpp -- free energy and side metrics.
// F = sum_{i,j} C(i,j) d(pi(i), pi(j)) is O(E) distance evaluations; the
// maximum link load routes every edge (O(E x route length)).
#include "cost/cost.hpp"

#include <algorithm>
#include <unordered_map>

#include "common/error.hpp"

namespace rankmap {

double free_energy(const Graph &g, const Topology &topo, const std::vector<int> &place) {
    double F = 0;
    for (int i = 0; i < g.n(); ++i) {
        const int a = place[i];
        for (int64_t e = g.begin(i); e < g.end(i); ++e) F += g.weight(e) * topo.distance(a, place[g.target(e)]);
    }
    return F;
}

CostReport evaluate(const Graph &g, const Topology &topo, const std::vector<int> &place, double f_min) {
    check_placement(topo, g.n(), place);
    CostReport r;
    r.F = free_energy(g, topo, place);
    r.F_min = f_min;
    r.ratio = f_min > 0 ? r.F / f_min : 1.0;
    double hop_sum = 0, wsum = 0;
    const int64_t L = topo.num_links();
    const bool dense = L <= (int64_t{1} << 24);
    std::vector<double> load(dense ? static_cast<size_t>(L) : 0, 0.0);
    std::unordered_map<int64_t, double> sparse;
    std::vector<int64_t> links;
    for (int i = 0; i < g.n(); ++i) {
        for (int64_t e = g.begin(i); e < g.end(i); ++e) {
            const int a = place[i], b = place[g.target(e)];
            const double w = g.weight(e);
            hop_sum += w * topo.hops(a, b);
            wsum += w;
            if (a == b) continue;
            topo.route(a, b, links);
            for (int64_t l : links) {
                if (dense) load[l] += w;
                else sparse[l] += w;
            }
        }
    }
    r.avg_dilation = wsum > 0 ? hop_sum / wsum : 0;
    double mx = 0;
    for (double x : load) mx = std::max(mx, x);
    for (auto &kv : sparse) mx = std::max(mx, kv.second);
    r.max_link_load = mx;
    return r;
}

CostReport evaluate(const Graph &g, const Topology &topo, const std::vector<int> &place) {
    return evaluate(g, topo, place, lower_bound(g, topo));
}

} // namespace rankmap

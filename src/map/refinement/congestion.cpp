// congestion.cpp -- the link-load mapper (Algorithm::Congestion,
// "congestion"): auto's placement, then refined for the busiest link
// instead of the free energy.
//
// Why: F (Bhanot et al., BG/L task layout) is the total traffic x hops, i.e.
// the mean link load.  When every task sends at once, communication time
// follows the most loaded link (a bandwidth-bound phase lasts load / link
// bandwidth), and a map that halves F can leave the busiest link, and the
// time, nearly as they were.  This mapper routes every directed edge of the
// communication graph as the machine does (Topology::route: dimension order,
// the shorter way round) and minimises
//     Phi = sum over links of (load / mean load)^8,
// a smooth stand-in for the maximum (the 8th power makes the heaviest
// links dominate while every link still gives a gradient), by swapping
// the tasks of two nodes at most `radius` hops apart in a simulated
// annealing chain (the Metropolis rule of Bhanot et al. on Phi); the best
// placement seen is returned, and it is kept only if its busiest link is
// lighter than the start's (otherwise the start is returned unchanged).  The
// start is the lightest of several auto runs (see map_congestion).
//
// Cost per proposed swap: O((deg(i) + deg(j)) x route length); memory
// O(N + E + links).  Only for machines with routes (torus/mesh); elsewhere
// the start is returned.  Deterministic for a seed (the deadline only cuts
// the chain short).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/error.hpp"
#include "common/rng.hpp"
#include "map/mapper.hpp"
#include "map/state/near_nodes.hpp"
#include "map/state/placement_state.hpp"
#include "map/tuning.hpp"

namespace rankmap {

namespace {

struct Incident {
    int other;
    double w;
    bool out;  // true: this task -> other; false: other -> this task
};

class LinkLoads {
public:
    LinkLoads(const Graph &g, const Topology &topo, std::vector<int> place, double scale = 0)
        : topo_(topo), place_(std::move(place)), load_(static_cast<size_t>(topo.num_links()), 0.0) {
        const int n = g.n();
        inc_.resize(n);
        for (int i = 0; i < n; ++i)
            for (int64_t e = g.begin(i); e < g.end(i); ++e) {
                const int j = g.target(e);
                if (j == i || g.weight(e) <= 0) continue;
                inc_[i].push_back({j, g.weight(e), true});
                inc_[j].push_back({i, g.weight(e), false});
                total_ += g.weight(e);
            }
        for (int i = 0; i < n; ++i)
            for (const Incident &x : inc_[i])
                if (x.out) add_route(place_[i], place_[x.other], x.w);
        double sum = std::accumulate(load_.begin(), load_.end(), 0.0);
        scale_ = scale > 0 ? scale : sum > 0 ? static_cast<double>(load_.size()) / sum : 1.0;  // 1 / mean load
        phi_ = 0;
        for (double l : load_) phi_ += term(l);
        nodes_.assign(static_cast<size_t>(topo.size()), {});
        for (int t = 0; t < n; ++t) nodes_[place_[t]].push_back(t);
    }

    double phi() const { return phi_; }
    double scale() const { return scale_; }
    double max_load() const { return *std::max_element(load_.begin(), load_.end()); }
    const std::vector<int> &place() const { return place_; }
    const std::vector<int> &tasks_on(int node) const { return nodes_[node]; }

    // Exchanges the nodes of tasks a and b, or (b < 0) moves a to node
    // `to`, and returns the change of Phi.  undo() restores the state.
    double swap(int a, int b, int to = -1) {
        journal_.clear();
        moved_a_ = a;
        moved_b_ = b;
        from_ = place_[a];
        const int na = place_[a], nb = b >= 0 ? place_[b] : to;
        // remove the routes of every edge touching a or b (an a-b edge once)
        reroute(a, b, -1.0);
        place_[a] = nb;
        if (b >= 0) place_[b] = na;
        reroute(a, b, +1.0);
        double delta = 0;
        // journal_ holds each touched link once with its load before the swap
        for (const auto &j : journal_) delta += term(load_[j.first]) - term(j.second);
        phi_ += delta;
        nodes_swap(a, b, na, nb);
        return delta;
    }
    void undo(double delta) {
        const int a = moved_a_, b = moved_b_;
        const int na = place_[a], nb = b >= 0 ? place_[b] : from_;
        place_[a] = nb;
        if (b >= 0) place_[b] = na;
        for (const auto &j : journal_) load_[j.first] = j.second;
        phi_ -= delta;
        nodes_swap(a, b, na, nb);
    }

private:
    double term(double l) const {
        const double x = l * scale_;
        const double x2 = x * x;
        const double x4 = x2 * x2;
        return x4 * x4;
    }
    void touch(int64_t link) {
        if (mark_.size() != load_.size()) mark_.assign(load_.size(), 0);
        if (mark_[link] != stamp_) {
            mark_[link] = stamp_;
            journal_.push_back({link, load_[link]});
        }
    }
    void add_route(int from, int to, double w) {
        if (from == to) return;
        topo_.route(from, to, links_);
        for (int64_t l : links_) load_[l] += w;
    }
    void reroute(int a, int b, double sign) {
        if (sign < 0) ++stamp_;
        if (stamp_ == 0) {
            std::fill(mark_.begin(), mark_.end(), 0);
            stamp_ = 1;
        }
        for (int t : {a, b}) {
            if (t < 0) continue;
            for (const Incident &x : inc_[t]) {
                if (t == b && x.other == a) continue;  // the a-b edges: counted from a
                const int from = x.out ? t : x.other, to = x.out ? x.other : t;
                if (place_[from] == place_[to]) continue;
                topo_.route(place_[from], place_[to], links_);
                for (int64_t l : links_) {
                    touch(l);
                    load_[l] += sign * x.w;
                }
            }
        }
    }
    void nodes_swap(int a, int b, int from_a, int from_b) {
        // a moved from_a -> from_b and b the other way (bookkeeping only)
        auto replace = [&](int node, int oldt, int newt) {
            auto &v = nodes_[node];
            auto it = std::find(v.begin(), v.end(), oldt);
            if (it == v.end()) return;
            if (newt >= 0) *it = newt;
            else v.erase(it);
        };
        if (from_a == from_b) return;
        replace(from_a, a, b);
        if (from_b >= 0) {
            if (b >= 0) replace(from_b, b, a);
            else nodes_[from_b].push_back(a);
        }
    }

    const Topology &topo_;
    std::vector<int> place_;
    std::vector<double> load_;
    std::vector<std::vector<Incident>> inc_;
    std::vector<std::vector<int>> nodes_;
    std::vector<std::pair<int64_t, double>> journal_;
    std::vector<uint32_t> mark_;
    uint32_t stamp_ = 0;
    std::vector<int64_t> links_;
    double total_ = 0, scale_ = 1, phi_ = 0;
    int moved_a_ = -1, moved_b_ = -1, from_ = -1;
};

// auto's placement with the lightest busiest link (then the lowest F) among
// c.starts runs with seeds seed, seed+1, ...: auto optimises F, and among
// its near-equal results the busiest link varies more than the cold chain
// below changes it, so picking among them is the cheap half of the work.
// The runs use auto_link_load_preset, whose band search leaves lighter
// busiest links.
std::vector<int> lightest_start(const Problem &p, const AutoContext &ac, const CongestionContext &c,
                                double &max0) {
    std::vector<int> start = map_auto(p, ac);
    auto F_of = [&](const std::vector<int> &pl) { return PlacementState(p.sym, p.topo, p.cap, pl).energy(); };
    max0 = LinkLoads(p.g, p.topo, start).max_load();
    double f0 = F_of(start);
    int tried = 1;
    for (int k = 1; k < c.starts && !p.deadline.expired(); ++k, ++tried) {
        Problem q = p;
        q.opt.seed = p.opt.seed + static_cast<uint64_t>(k);
        q.progress = nullptr;
        q.trace = nullptr;
        std::vector<int> other = map_auto(q, ac);
        const double m = LinkLoads(p.g, p.topo, other).max_load(), f = F_of(other);
        if (m < max0 || (m == max0 && f < f0)) {
            start = std::move(other);
            max0 = m;
            f0 = f;
        }
    }
    if (tried > 1 && p.progress)
        p.progress("congestion: lightest busiest link of " + std::to_string(tried) +
                   " auto starts: " + std::to_string(max0));
    return start;
}

// Proposals of the chain: task a to a node near its own, swapping with a
// task there unless there is room (and a's node keeps its floor).
class LinkProposer {
public:
    LinkProposer(const Problem &p, const LinkLoads &st, const CongestionContext &c, Rng &rng)
        : p_(p), st_(st), c_(c), rng_(rng), near_(p.topo, std::min(p.topo.size(), c.near_nodes)) {}

    bool operator()(int &a, int &b, int &to) {
        a = static_cast<int>(rng_.below(static_cast<uint32_t>(p_.g.n())));
        const int na = st_.place()[a];
        int nb = na;
        for (int tries = 0; tries < c_.partner_tries && nb == na; ++tries)
            nb = near_.of(na)[rng_.below(static_cast<uint32_t>(near_.k()))];
        if (nb == na) return false;
        const auto &there = st_.tasks_on(nb);
        to = nb;
        if (static_cast<int>(there.size()) < p_.cap.hi) {
            b = -1;  // room at nb: move a there
            // ... if na keeps its capacity floor
            if (static_cast<int>(st_.tasks_on(na).size()) - 1 >= p_.cap.lo) return true;
            if (there.empty()) return false;
        }
        // otherwise swap with one of its tasks
        b = there[rng_.below(static_cast<uint32_t>(there.size()))];
        return true;
    }

private:
    const Problem &p_;
    const LinkLoads &st_;
    const CongestionContext &c_;
    Rng &rng_;
    NearNodes near_;
};

// Mean |delta Phi| of c.temperature_samples proposals (not kept); 0 when
// none could be made.
double mean_abs_delta(LinkLoads &st, LinkProposer &propose, const CongestionContext &c) {
    double mean_abs = 0;
    int samples = 0;
    for (int s = 0; s < c.temperature_samples; ++s) {
        int a, b, to;
        if (!propose(a, b, to)) continue;
        const double d = st.swap(a, b, to);
        st.undo(d);
        mean_abs += std::fabs(d);
        ++samples;
    }
    return samples == 0 ? 0 : mean_abs / samples;
}

// A cold chain on Phi from `st`'s placement (it keeps the start's layout
// and reshapes it locally; hotter starts wander off and end worse): the
// best placement seen.
std::vector<int> cold_chain(const Problem &p, LinkLoads &st, LinkProposer &propose, Rng &rng, double mean_abs,
                            const CongestionContext &c) {
    const int N = p.g.n();
    const double t0 = mean_abs * c.start_temperature, t1 = t0 * c.cooling;
    const int64_t steps = c.sweeps * N;
    std::vector<int> best = st.place();
    double best_phi = st.phi();
    const Deadline &dl = p.deadline;
    for (int64_t k = 0; k < steps; ++k) {
        if ((k & 1023) == 0 && dl.expired()) break;
        const double T = t0 * std::pow(t1 / t0, static_cast<double>(k) / static_cast<double>(steps));
        int a, b, to;
        if (!propose(a, b, to)) continue;
        const double d = st.swap(a, b, to);
        if (!(d <= 0 || below_exp_neg(rng.uniform(), d / T))) st.undo(d);
        // the best state is sampled a few times per sweep (copies are O(N))
        if ((k + 1) % std::max(1, N / c.best_samples_per_sweep) == 0 && st.phi() < best_phi) {
            best_phi = st.phi();
            best = st.place();
        }
    }
    if (st.phi() < best_phi) best = st.place();
    return best;
}

} // namespace

std::vector<int> map_congestion(const Problem &p) {
    const int N = p.g.n(), P = p.topo.size();
    const CongestionContext c = congestion_preset(N);
    double max0 = 0;
    if (p.topo.num_links() <= 0 || p.topo.num_links() > (int64_t{1} << c.max_links_log2) || N < 2 || P < 2)
        return map_auto(p, auto_link_load_preset(p.sym.n()));
    std::vector<int> start = lightest_start(p, auto_link_load_preset(p.sym.n()), c, max0);
    LinkLoads st(p.g, p.topo, start);
    if (max0 <= 0) return start;
    Rng rng = rng_stream(p.opt.seed, 0xc0b9);
    LinkProposer propose(p, st, c, rng);
    const double mean_abs = mean_abs_delta(st, propose, c);
    if (mean_abs <= 0) return start;
    std::vector<int> best = cold_chain(p, st, propose, rng, mean_abs, c);
    const double best_max = LinkLoads(p.g, p.topo, best).max_load();
    if (p.progress) p.progress("congestion: busiest link " + std::to_string(max0) + " -> " + std::to_string(best_max));
    return best_max < max0 ? best : start;
}

} // namespace rankmap

// divide_anneal.cpp -- divide-and-conquer annealing of Bhanot et al. (BG/L
// task layout), "An enhancement", Figure 4.
//
// Partition(S): bisect the task subgraph S with METIS (bisect_graph, exact
// halves S1, S2) and compute each half's l ratio (equation 5),
//     l = sum_{i,j in V_s} w(i,j) / sum_{i in V_s, j in V} w(i,j)
// on the symmetrized weights.  If l1 < L or l2 < L, S is small enough: its
// tasks are placed by the greedy heuristic next to the tasks already mapped
// and annealed with every earlier task fixed (only S's tasks move; later
// tasks are not placed yet and do not count).  Otherwise the half with more
// traffic to the already-mapped tasks is processed first, then the other.
// A final short, cold global annealing pass lets subgraph borders settle
// (the paper stops after the last subgraph; this pass only lowers F).
//
// L = Options::l_ratio, default 0.85.  For a 3-D nearest-neighbour pattern
// a block of side s has l ~ 1 - 1/s, so a subgraph is split only while both
// halves stay blocks of side >= ~7: annealed subgraphs hold a few hundred
// tasks -- big enough for near-optimal local layouts, small enough that the
// recursion pays off beyond a few thousand tasks.  Subgraphs of fewer than
// 16 tasks are never split.  (A larger L means fewer, larger subgraphs.)
//
// Cost: METIS bisections O(E log N) overall, O(N) per recursion level for
// the induced subgraphs, annealing O(sweeps * |S| * degree) per subgraph;
// each subgraph gets a share of the deadline proportional to its size.
#include <algorithm>
#include <numeric>

#include "map/initial/initial.hpp"
#include "map/refinement/refinement.hpp"
#include "partition/partition.hpp"

namespace rankmap {

namespace {

// Tuned numbers: DivideAnnealContext (tuning.hpp).
const DivideAnnealContext kDc = divide_anneal_preset();

class DivideAnneal {
public:
    DivideAnneal(const Problem &p, PlacementState &st, const NearNodes &near, double L, double sweeps)
        : p_(p), g_(p.sym), st_(st), near_(near), L_(L), sweeps_(sweeps), rng_(rng_stream(p.opt.seed, 7, StreamMix::Lcg)) {
        tw_.assign(g_.n(), 0.0);
        for (int t = 0; t < g_.n(); ++t)
            for (int64_t e = g_.begin(t); e < g_.end(t); ++e) tw_[t] += g_.weight(e);
        side_.assign(g_.n(), -1);
    }

    // Recursive partition (Figure 4).
    void run(std::vector<int> S) {
        if (S.size() < kDc.min_split) {
            leaf(S);
            return;
        }
        Graph sub = g_.induced(S, local_);
        int half = static_cast<int>(S.size() / 2);
        std::vector<int> part = bisect_graph(sub, half, p_.opt.seed + calls_++);
        std::vector<int> S1, S2;
        for (size_t i = 0; i < S.size(); ++i) (part[i] == 0 ? S1 : S2).push_back(S[i]);
        if (S1.empty() || S2.empty()) {
            leaf(S);
            return;
        }
        double l1 = l_ratio(S1, 1), l2 = l_ratio(S2, 2);
        if (l1 < L_ || l2 < L_) {
            leaf(S);
            return;
        }
        double c1 = to_mapped(S1), c2 = to_mapped(S2);
        if (c1 >= c2) {
            run(std::move(S1));
            run(std::move(S2));
        } else {
            run(std::move(S2));
            run(std::move(S1));
        }
    }

    const std::vector<size_t> &leaves() const { return leaves_; }

private:
    double l_ratio(const std::vector<int> &S, int mark) {
        for (int t : S) side_[t] = mark;
        double in = 0, all = 0;
        for (int t : S) {
            all += tw_[t];
            for (int64_t e = g_.begin(t); e < g_.end(t); ++e)
                if (side_[g_.target(e)] == mark) in += g_.weight(e);
        }
        for (int t : S) side_[t] = -1;
        return all > 0 ? in / all : 0.0;
    }
    double to_mapped(const std::vector<int> &S) {
        double c = 0;
        for (int t : S)
            for (int64_t e = g_.begin(t); e < g_.end(t); ++e)
                if (st_.node_of(g_.target(e)) >= 0) c += g_.weight(e);
        return c;
    }
    void leaf(const std::vector<int> &S) {
        leaves_.push_back(S.size());
        greedy_fill(st_, S, near_);
        int left = st_.unplaced() + static_cast<int>(S.size());
        Deadline dl = p_.deadline.share(static_cast<double>(S.size()) / std::max(1, left) * kDc.time_share);
        AnnealParams ap;
        ap.steps = p_.opt.anneal_steps;
        ap.sweeps = sweeps_;
        ap.f_norm = 0;  // normalise by the partial F at the start
        ap.progress = nullptr;
        anneal_tasks(st_, S, near_, ap, rng_, dl);
        if (p_.progress) {
            p_.progress("dc-anneal: subgraph of " + std::to_string(S.size()) + " tasks mapped, " +
                        std::to_string(st_.unplaced()) + " left");
        }
    }

    const Problem &p_;
    const Graph &g_;
    PlacementState &st_;
    const NearNodes &near_;
    double L_;
    double sweeps_;
    Rng rng_;
    std::vector<double> tw_;
    std::vector<int> side_, local_;
    std::vector<size_t> leaves_;
    uint64_t calls_ = 0;
};

} // namespace

// Exposed for the tests (declared there): the sizes of the subgraphs the
// recursion annealed, in order.
std::vector<int> divide_anneal_with_leaves(const Problem &p, std::vector<size_t> *leaves, double sweeps) {
    const double L = p.opt.l_ratio > 0 ? p.opt.l_ratio : kDc.l_ratio;
    if (L > 1) throw Error("dc-anneal: l_ratio " + std::to_string(L) + " must be in (0, 1]");
    PlacementState st(p.sym, p.topo, p.cap, std::vector<int>(p.sym.n(), -1));
    NearNodes near(p.topo, near_count(p.topo));
    std::vector<int> all(p.sym.n());
    std::iota(all.begin(), all.end(), 0);
    DivideAnneal dc(p, st, near, L, sweeps);
    dc.run(all);
    if (leaves) *leaves = dc.leaves();
    std::vector<int> place = st.place();
    if (dc.leaves().size() > 1) anneal_refine(p, place, p.deadline, true);
    return place;
}

std::vector<int> map_divide_anneal(const Problem &p) { return divide_anneal_with_leaves(p, nullptr); }

} // namespace rankmap

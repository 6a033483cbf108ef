// kernighan_lin.cpp -- pair-exchange refinement after MPIPP (Chen et al.,
// section 3 and the appendix pseudo-code), with incremental gains.
//
// One pass: every task a has its best exchange (largest gain = decrease of
// F) with a candidate b; the pair with the largest gain is exchanged even
// when the gain is negative, both tasks are locked, and the gains of the
// tasks whose partners moved are recomputed.  At the end of the pass the
// best prefix of exchanges is kept and the rest undone (appendix step 4-5);
// passes repeat until one brings no gain or the deadline passes.  F never
// increases.
//
// Differences from the appendix, for scale: (1) the candidates of a are
// the tasks (or free slots: a move where equation 3 allows it) on the
// nodes nearest to its heaviest partners' nodes, not all N tasks; (2) the
// gains live in a max-heap with lazy re-validation and only the swapped
// tasks' partners are re-evaluated eagerly; (3) a pass stops after a run of
// exchanges that do not improve on the best prefix.  A pass then costs
// O(N * C * degree + S log N) with C candidates per task and S exchanges,
// instead of O(N^3); memory O(N + E).
#include <algorithm>
#include <queue>

#include "map/refinement/refinement.hpp"

namespace rankmap {

namespace {

// Tuned numbers: KlContext (tuning.hpp).
const KlContext kKl = kl_preset();

struct Best {
    double gain = -1e300;
    int b = -1;       // task to swap with, or -1 for a move
    int node = -1;    // node for a move
};

class KL {
public:
    KL(PlacementState &st, const NearNodes &near) : st_(st), g_(st.graph()), near_(near) {
        locked_.assign(st.ntasks(), 0);
        version_.assign(st.ntasks(), 0);
        seen_.assign(st.nnodes(), 0);
    }

    Best best_for(int a) {
        Best best;
        int pa = st_.node_of(a);
        if (pa < 0) return best;
        const size_t np = heaviest_partners(st_, a, kKl.partners_tried, partners_);
        if (partners_.empty()) return best;
        if (++stamp_ == 0) {
            std::fill(seen_.begin(), seen_.end(), 0);
            stamp_ = 1;
        }
        seen_[pa] = stamp_;
        const int kn = std::min(kKl.near_tried, near_.k());
        for (size_t q = 0; q < np; ++q) {
            const int *row = near_.of(partners_[q].second);
            for (int k = 0; k < kn; ++k) {
                int v = row[k];
                if (seen_[v] == stamp_) continue;
                seen_[v] = stamp_;
                const int c = st_.count(v);
                for (int s = 0; s < c; ++s) {
                    int b = st_.task_at(v, s);
                    if (locked_[b]) continue;
                    double gain = -st_.delta_swap(a, b);
                    if (gain > best.gain) best = {gain, b, v};
                }
                if (st_.can_move(a, v)) {
                    double gain = -st_.delta_move(a, v);
                    if (gain > best.gain) best = {gain, -1, v};
                }
            }
        }
        return best;
    }

    // One pass; returns the gain kept.
    double pass(const Deadline &dl) {
        const int N = st_.ntasks();
        std::fill(locked_.begin(), locked_.end(), 0);
        using Item = std::pair<double, std::pair<int, uint32_t>>;  // gain, (-task, version)
        std::priority_queue<Item> heap;
        for (int a = 0; a < N; ++a) {
            Best b = best_for(a);
            if (b.gain > -1e300) heap.push({b.gain, {-a, ++version_[a]}});
            if ((a & 1023) == 0 && dl.expired()) return 0;
        }
        struct Op { int a, b, from; double delta; };
        std::vector<Op> ops;
        double cum = 0, bestcum = 0;
        size_t bestlen = 0;
        int checks = 0;
        while (!heap.empty()) {
            if ((++checks & 255) == 0 && dl.expired()) break;
            auto [gain, key] = heap.top();
            heap.pop();
            int a = -key.first;
            if (locked_[a] || key.second != version_[a]) continue;
            Best b = best_for(a);
            if (b.gain <= -1e300) continue;
            if (b.gain < gain - 1e-12 * (1 + std::abs(gain)) && !heap.empty() &&
                b.gain < heap.top().first) {
                heap.push({b.gain, {-a, ++version_[a]}});
                continue;
            }
            int from = st_.node_of(a);
            if (b.b >= 0) {
                st_.apply_swap(a, b.b, -b.gain);
                locked_[b.b] = 1;
            } else {
                st_.apply_move(a, b.node, -b.gain);
            }
            locked_[a] = 1;
            ops.push_back({a, b.b, from, -b.gain});
            cum += b.gain;
            if (cum > bestcum + 1e-9 * (1 + std::abs(bestcum))) {
                bestcum = cum;
                bestlen = ops.size();
            } else if (ops.size() - bestlen > static_cast<size_t>(kKl.stall_limit)) {
                break;
            }
            refresh(a, heap);
            if (b.b >= 0) refresh(b.b, heap);
        }
        // Undo past the best prefix (reverse order).
        while (ops.size() > bestlen) {
            Op op = ops.back();
            ops.pop_back();
            if (op.b >= 0) st_.apply_swap(op.a, op.b, -op.delta);
            else st_.apply_move(op.a, op.from, -op.delta);
        }
        return bestcum;
    }

private:
    template <class Heap> void refresh(int t, Heap &heap) {
        for (int64_t e = g_.begin(t); e < g_.end(t); ++e) {
            int j = g_.target(e);
            if (locked_[j] || st_.node_of(j) < 0) continue;
            Best b = best_for(j);
            ++version_[j];
            if (b.gain > -1e300) heap.push({b.gain, {-j, version_[j]}});
        }
    }

    PlacementState &st_;
    const Graph &g_;
    const NearNodes &near_;
    std::vector<char> locked_;
    std::vector<uint32_t> version_;
    std::vector<uint32_t> seen_;
    uint32_t stamp_ = 0;
    std::vector<std::pair<double, int>> partners_;
};

} // namespace

void kl_passes(PlacementState &st, const NearNodes &near, const Deadline &dl, int max_passes) {
    KL kl(st, near);
    const double start = st.energy();
    const int passes = max_passes > 0 ? max_passes : kKl.max_passes;
    for (int pass = 0; pass < passes && !dl.expired(); ++pass) {
        double gain = kl.pass(dl);
        if (gain <= 1e-9 * std::max(1.0, start)) break;
    }
    st.resync();
}

void kl_refine(const Problem &p, std::vector<int> &place, const Deadline &dl, int max_passes) {
    PlacementState st(p.sym, p.topo, p.cap, place);
    NearNodes near(p.topo, near_count(p.topo));
    const double before = st.energy();
    kl_passes(st, near, dl, max_passes);
    if (st.energy() <= before) place = st.place();
}

std::vector<int> map_kernighan_lin(const Problem &p) {
    std::vector<int> place = map_greedy(p);
    kl_refine(p, place, p.deadline);
    return place;
}

} // namespace rankmap

// placement_state.hpp -- the placement state of the optimising mappers
// (greedy, annealing, divide-and-conquer, Kernighan-Lin, congestion, hier,
// auto).
//
// PlacementState holds a (possibly partial) placement of tasks on nodes
// together with its free energy F (Bhanot et al., BG/L task layout, equation
// 1), node occupancy arrays (node -> its tasks, O(1) insert/remove) and the
// capacity rule of equation 3.  Every energy change is computed incrementally
// in O(degree):
//   delta_move(t, B)  = sum_j w(t,j) [d(B, pi(j)) - d(pi(t), pi(j))]
//   delta_swap(a, b)  = the same for a -> pi(b) and b -> pi(a), skipping the
//                       a-b edge (its length does not change).
// Unplaced tasks (place = -1) contribute nothing; this is how the
// divide-and-conquer mapper grows the placement one subgraph at a time.
//
// Capacity with unplaced tasks: every node must end with lo <= n <= hi.  We
// keep deficit = sum_nodes max(0, lo - n) and allow an operation only if
// n <= hi afterwards and deficit <= (number of unplaced tasks): the tasks
// still to come can always fill the nodes below lo.  With every task placed
// this is exactly lo <= n <= hi.
//
// heaviest_partners: a task's placed partners, heaviest first, O(degree +
// count log count).
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "graph/graph.hpp"
#include "map/state/fast_distance.hpp"
#include "topology/placement.hpp"
#include "topology/topology.hpp"

namespace rankmap {

class PlacementState {
public:
    // `place` may contain -1 (unplaced).  Throws if a node is over `cap.hi`.
    PlacementState(const Graph &sym, const Topology &topo, Capacity cap,
                   const std::vector<int> &place)
        : sym_(sym), topo_(topo), dist_(topo), cap_(cap), P_(topo.size()), N_(sym.n()) {
        if (static_cast<int>(place.size()) != N_)
            throw Error("placement state: placement has wrong size", ErrorKind::Internal);
        place_.assign(N_, -1);
        pos_.assign(N_, -1);
        count_.assign(P_, 0);
        slots_.assign(static_cast<size_t>(P_) * std::max(1, cap_.hi), -1);
        if (dist_.task_coords()) {
            tc_nd_ = dist_.ndims();
            tc_.assign(static_cast<size_t>(N_) * tc_nd_, 0);
        }
        unplaced_ = N_;
        deficit_ = static_cast<int64_t>(P_) * cap_.lo;
        for (int t = 0; t < N_; ++t)
            if (place[t] >= 0) {
                if (place[t] >= P_ || count_[place[t]] >= cap_.hi)
                    throw Error("placement state: node over capacity", ErrorKind::Internal);
                insert(t, place[t]);
            }
        F_ = full_energy();
    }

    int ntasks() const { return N_; }
    int nnodes() const { return P_; }
    Capacity cap() const { return cap_; }
    const Graph &graph() const { return sym_; }
    const Topology &topo() const { return topo_; }
    const std::vector<int> &place() const { return place_; }
    int node_of(int t) const { return place_[t]; }
    int count(int node) const { return count_[node]; }
    int task_at(int node, int slot) const {
        return slots_[static_cast<size_t>(node) * cap_.hi + slot];
    }
    int unplaced() const { return unplaced_; }
    double energy() const { return F_; }

    double dist(int a, int b) const { return dist_(a, b); }
    bool fast_distance() const { return dist_.fast(); }

    // F over placed pairs: each undirected edge once.
    double full_energy() const {
        double f = 0;
        for (int t = 0; t < N_; ++t) {
            int pt = place_[t];
            if (pt < 0) continue;
            for (int64_t e = sym_.begin(t); e < sym_.end(t); ++e) {
                int j = sym_.target(e);
                if (j > t && place_[j] >= 0) f += sym_.weight(e) * dist(pt, place_[j]);
            }
        }
        return f;
    }
    void resync() { F_ = full_energy(); }

    // Cost of task t (placed or not) if it sat on `node`, to its placed
    // partners other than `skip`.
    double cost_at(int t, int node, int skip = -1) const {
        double c = 0;
        for (int64_t e = sym_.begin(t); e < sym_.end(t); ++e) {
            int j = sym_.target(e);
            int pj = place_[j];
            if (pj < 0 || j == skip) continue;
            c += sym_.weight(e) * dist(node, pj);
        }
        return c;
    }

    // Capacity rules.
    bool can_place(int node) const {
        if (count_[node] >= cap_.hi) return false;
        int64_t d = deficit_ - (count_[node] < cap_.lo ? 1 : 0);
        return d <= unplaced_ - 1;
    }
    bool can_move(int t, int node) const {
        int from = place_[t];
        if (from == node || count_[node] >= cap_.hi) return false;
        int64_t d = deficit_ + (count_[from] <= cap_.lo ? 1 : 0) - (count_[node] < cap_.lo ? 1 : 0);
        return d <= unplaced_;
    }

    double delta_move(int t, int node) const {
        if (tc_nd_ > 0 && unplaced_ == 0) return dist_.row_delta_tasks(sym_, tc_.data(), t, place_[t], node, -1);
        return dist_.row_delta(sym_, place_, t, place_[t], node, -1);
    }
    // Starts loading task t's neighbour and weight rows (a speed hint: on
    // large graphs each row is a cache miss).
    void prefetch_rows(int t) const {
        const int64_t e = sym_.begin(t);
        __builtin_prefetch(sym_.adj().data() + e);
        __builtin_prefetch(sym_.weights().data() + e);
    }
    double delta_swap(int a, int b) const {
        int pa = place_[a], pb = place_[b];
        if (pa == pb) return 0;
        if (tc_nd_ > 0 && unplaced_ == 0)
            return dist_.row_delta_tasks(sym_, tc_.data(), b, pb, pa, a,
                                         dist_.row_delta_tasks(sym_, tc_.data(), a, pa, pb, b));
        return dist_.row_delta(sym_, place_, b, pb, pa, a, dist_.row_delta(sym_, place_, a, pa, pb, b));
    }

    // Operations (the caller checks the capacity rules first).
    void place_task(int t, int node) {
        F_ += cost_at(t, node);
        insert(t, node);
    }
    void unplace_task(int t) {
        F_ -= cost_at(t, place_[t]);
        remove(t);
    }
    void apply_move(int t, int node, double delta) {
        remove(t);
        insert(t, node);
        F_ += delta;
    }
    void apply_swap(int a, int b, double delta) {
        int pa = place_[a], pb = place_[b];
        int sa = pos_[a], sb = pos_[b];
        slots_[static_cast<size_t>(pa) * cap_.hi + sa] = b;
        slots_[static_cast<size_t>(pb) * cap_.hi + sb] = a;
        place_[a] = pb;
        place_[b] = pa;
        for (int k = 0; k < tc_nd_; ++k)
            std::swap(tc_[static_cast<size_t>(a) * tc_nd_ + k], tc_[static_cast<size_t>(b) * tc_nd_ + k]);
        pos_[a] = sb;
        pos_[b] = sa;
        F_ += delta;
    }

private:
    void insert(int t, int node) {
        int c = count_[node]++;
        slots_[static_cast<size_t>(node) * cap_.hi + c] = t;
        pos_[t] = c;
        place_[t] = node;
        if (tc_nd_ > 0) {
            const uint16_t *xc = dist_.coords_of(node);
            for (int k = 0; k < tc_nd_; ++k) tc_[static_cast<size_t>(t) * tc_nd_ + k] = xc[k];
        }
        if (c < cap_.lo) --deficit_;
        --unplaced_;
    }
    void remove(int t) {
        int node = place_[t];
        int c = --count_[node];
        int s = pos_[t];
        int last = slots_[static_cast<size_t>(node) * cap_.hi + c];
        slots_[static_cast<size_t>(node) * cap_.hi + s] = last;
        pos_[last] = s;
        slots_[static_cast<size_t>(node) * cap_.hi + c] = -1;
        place_[t] = -1;
        pos_[t] = -1;
        if (c < cap_.lo) ++deficit_;
        ++unplaced_;
    }

    const Graph &sym_;
    const Topology &topo_;
    FastDistance dist_;
    Capacity cap_;
    int P_, N_;
    std::vector<int> place_, pos_, count_, slots_;
    // Node coordinates of every placed task (FastDistance::task_coords;
    // tc_nd_ = 0: not kept).
    int tc_nd_ = 0;
    std::vector<uint16_t> tc_;
    int unplaced_ = 0;
    int64_t deficit_ = 0;
    double F_ = 0;
};

// The placed partners of task t as (traffic, node) in `out`, the `count`
// heaviest first (ties by the lower node); returns how many are sorted.
inline size_t heaviest_partners(const PlacementState &st, int t, int count, std::vector<std::pair<double, int>> &out) {
    const Graph &g = st.graph();
    out.clear();
    for (int64_t e = g.begin(t); e < g.end(t); ++e) {
        const int pj = st.node_of(g.target(e));
        if (pj >= 0) out.push_back({g.weight(e), pj});
    }
    const size_t np = std::min<size_t>(static_cast<size_t>(count), out.size());
    std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(np), out.end(),
                      [](const auto &x, const auto &y) {
                          return x.first > y.first || (x.first == y.first && x.second < y.second);
                      });
    return np;
}

} // namespace rankmap

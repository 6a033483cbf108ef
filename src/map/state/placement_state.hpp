// placement_state.hpp -- private to the optimising mappers (greedy, anneal,
// divide-and-conquer, Kernighan-Lin, auto).
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
// NearNodes: for every node the K closest nodes (itself first), from
// Topology::nearest; O(P K) memory, used for local proposals.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/rng.hpp"
#include "common/timer.hpp"
#include "map/mapper.hpp"
#include "map/tuning.hpp"

namespace rankmap {

class NearNodes {
public:
    NearNodes() = default;
    NearNodes(const Topology &topo, int k) { build(topo, k); }
    void build(const Topology &topo, int k) {
        const int P = topo.size();
        k_ = std::max(1, std::min(k, P));
        list_.assign(static_cast<size_t>(P) * k_, -1);
        std::vector<int> out;
        for (int v = 0; v < P; ++v) {
            topo.nearest(v, k_, out);
            int *row = &list_[static_cast<size_t>(v) * k_];
            int m = 0;
            for (int u : out)
                if (m < k_) row[m++] = u;
            if (m == 0 || row[0] != v) row[0] = v;
            for (; m < k_; ++m) row[m] = row[m % std::max(1, static_cast<int>(out.size()))];
        }
        find_offsets(topo);
    }
    int k() const { return k_; }
    bool computed() const { return nd_ > 0; }  // at() computes instead of reading the list
    const int *of(int node) const { return &list_[static_cast<size_t>(node) * k_]; }
    // The i-th near node of `node`: of(node)[i].  On a torus every list is
    // its node's coordinates plus the same offsets (checked for every node
    // when built), so it is computed instead of read: the annealing chain
    // asks for one near node per proposal, and on large machines the read
    // is a cache miss.
    int at(int node, int i) const {
        if (nd_ == 0) return list_[static_cast<size_t>(node) * k_ + i];
        const unsigned *o = &off_[static_cast<size_t>(i) * nd_];
        auto v = static_cast<unsigned>(node);
        unsigned r = 0;
        for (int d = nd_ - 1; d >= 0; --d) {
            const unsigned n = dim_[d], x = v % n;
            v /= n;
            unsigned y = x + o[d];
            if (y >= n) y -= n;
            r += y * stride_[d];
        }
        return static_cast<int>(r);
    }

private:
    // Offsets from the first node's list; kept only if they give every
    // node's list (nd_ = 0 otherwise: at() reads the list).
    void find_offsets(const Topology &topo) {
        nd_ = 0;
        const int D = topo.ndims(), P = topo.size();
        if (D <= 0 || D > 8 || P < 2 || static_cast<int>(topo.dims().size()) != D) return;
        std::vector<unsigned> dim(D), stride(D);
        unsigned s = 1;
        for (int d = D - 1; d >= 0; --d) {
            dim[d] = static_cast<unsigned>(topo.dims()[d]);
            stride[d] = s;
            s *= dim[d];
        }
        if (s != static_cast<unsigned>(P)) return;
        std::vector<int> c0(D), c(D);
        topo.coords(0, c0.data());
        off_.assign(static_cast<size_t>(k_) * D, 0);
        for (int i = 0; i < k_; ++i) {
            topo.coords(list_[i], c.data());
            for (int d = 0; d < D; ++d)
                off_[static_cast<size_t>(i) * D + d] = static_cast<unsigned>((c[d] - c0[d] + static_cast<int>(dim[d])) % static_cast<int>(dim[d]));
        }
        dim_ = dim;
        stride_ = stride;
        nd_ = D;
        for (int v = 0; v < P; ++v)
            for (int i = 0; i < k_; ++i)
                if (at(v, i) != list_[static_cast<size_t>(v) * k_ + i]) {
                    nd_ = 0;
                    off_.clear();
                    return;
                }
    }

    int k_ = 0;
    std::vector<int> list_;
    int nd_ = 0;
    std::vector<unsigned> off_, dim_, stride_;
};

// FastDistance: many machine models (torus and mesh under the hop metric,
// with or without the on-node "local" slot dimension) have distances that
// are a sum over dimensions of a function of the coordinate difference.
// Annealing evaluates distances hundreds of millions of times, so when the
// topology passes a check on sampled pairs against Topology::distance (and
// all pairs from a few nodes) we use per-dimension tables instead of the
// virtual call; otherwise (trees, Euclidean / 3/D metrics, file matrices)
// we call Topology::distance.  O(P ndims) memory.
class FastDistance {
public:
    explicit FastDistance(const Topology &topo) : topo_(topo) {
        const int P = topo.size();
        D_ = topo.ndims();
        if (topo.kind() == TopologyKind::Matrix || D_ <= 0 || D_ > 8 || P < 2) return;
        const std::vector<int> &dims = topo.dims();
        coord_.resize(static_cast<size_t>(P) * D_);
        std::vector<int> c(D_);
        for (int v = 0; v < P; ++v) {
            topo.coords(v, c.data());
            for (int k = 0; k < D_; ++k) coord_[static_cast<size_t>(v) * D_ + k] = static_cast<uint16_t>(c[k]);
        }
        base_.resize(D_);
        for (int k = 0; k < D_; ++k) {
            base_[k] = static_cast<int>(tab_.size()) + dims[k] - 1;
            for (int delta = -(dims[k] - 1); delta <= dims[k] - 1; ++delta) {
                std::vector<int> ca(D_, 0), cb(D_, 0);
                ca[k] = std::max(0, -delta);
                cb[k] = std::max(0, delta);
                int a = topo.node_at(ca.data()), b = topo.node_at(cb.data());
                if (a < 0 || b < 0) return;
                tab_.push_back(topo.distance(a, b));
            }
        }
        // Verify: all pairs from a few nodes, then random pairs.
        Rng rng(0x5eed);
        auto ok = [&](int a, int b) { return std::abs(table(a, b) - topo.distance(a, b)) <= 1e-9; };
        for (int rep = 0; rep < 4; ++rep) {
            int a = rep == 0 ? 0 : static_cast<int>(rng.below(P));
            for (int b = 0; b < P && b < 20000; ++b)
                if (!ok(a, b)) return;
        }
        for (int i = 0; i < 20000; ++i)
            if (!ok(static_cast<int>(rng.below(P)), static_cast<int>(rng.below(P)))) return;
        fast_ = true;
        zero_self_ = true;
        for (int k = 0; k < D_; ++k)
            if (tab_[base_[k]] != 0.0) zero_self_ = false;
    }
    bool fast() const { return fast_; }
    // With fast(): node v's coordinates, and dimension k's table indexed by
    // the coordinate difference (d(a, b) = sum over k of
    // dim_table(k)[c_b[k] - c_a[k]], 0 when a == b).
    const uint16_t *coords_of(int v) const { return &coord_[static_cast<size_t>(v) * D_]; }
    const double *dim_table(int k) const { return &tab_[base_[k]]; }
    double operator()(int a, int b) const {
        if (a == b) return 0.0;
        return fast_ ? table(a, b) : topo_.distance(a, b);
    }
    // d plus, over the edges e of `t` (tasks placed by `place`, -1:
    // unplaced) other than to `skip`, w(e) (d(to, p_j) - d(from, p_j)): the
    // energy change of moving t from `from` to `to`, with the same
    // arithmetic as one operator() call per distance (with the tables of
    // 2 to 4 dimensions the coordinates are read once per edge instead of
    // once per distance).
    double row_delta(const Graph &g, const std::vector<int> &place, int t, int from, int to, int skip,
                     double d = 0) const {
        if (fast_) {
            switch (D_) {
            case 2: return row_delta_dims<2>(g, place, t, from, to, skip, d);
            case 3: return row_delta_dims<3>(g, place, t, from, to, skip, d);
            case 4: return row_delta_dims<4>(g, place, t, from, to, skip, d);
            default: break;
            }
        }
        const int64_t e0 = g.begin(t), e1 = g.end(t);
        const int *adj = g.adj().data();
        const double *w = g.weights().data();
        const int *pl = place.data();
        for (int64_t e = e0; e < e1; ++e) {
            const int j = adj[e], pj = pl[j];
            if (pj < 0 || j == skip) continue;
            d += w[e] * ((*this)(to, pj) - (*this)(from, pj));
        }
        return d;
    }

    // Whether row_delta_tasks applies: tables of 2 to 4 dimensions, each 0
    // at a difference of 0.
    bool task_coords() const { return fast_ && zero_self_ && D_ >= 2 && D_ <= 4; }
    int ndims() const { return D_; }
    // row_delta for a placement without unplaced tasks, given every task's
    // node coordinates (tc: ndims() per task, kept by the caller): the same
    // sums without reading the placement (one memory access less per edge).
    double row_delta_tasks(const Graph &g, const uint16_t *tc, int t, int from, int to, int skip,
                           double d = 0) const {
        switch (D_) {
        case 2: return row_delta_tasks_dims<2>(g, tc, t, from, to, skip, d);
        case 3: return row_delta_tasks_dims<3>(g, tc, t, from, to, skip, d);
        default: return row_delta_tasks_dims<4>(g, tc, t, from, to, skip, d);
        }
    }

private:
    template <int D>
    double row_delta_tasks_dims(const Graph &g, const uint16_t *tc, int t, int from, int to, int skip,
                                double d) const {
        return row_delta_loop<D, true>(g, t, from, to, skip, d,
                                       [tc](int j) { return &tc[static_cast<size_t>(j) * D]; });
    }
    // row_delta with D_ == D known at compile time (the loops unrolled).
    template <int D>
    double row_delta_dims(const Graph &g, const std::vector<int> &place, int t, int from, int to, int skip,
                          double d) const {
        const int *pl = place.data();
        auto coords_of_partner = [this, pl](int j) {
            return pl[j] < 0 ? nullptr : &coord_[static_cast<size_t>(pl[j]) * D];
        };
        if (zero_self_) return row_delta_loop<D, true>(g, t, from, to, skip, d, coords_of_partner);
        return row_delta_loop<D, false>(g, t, from, to, skip, d, coords_of_partner);
    }
    // The sums of row_delta.  coords_of_partner(j): partner j's node
    // coordinates, nullptr when unplaced.  kZeroSelf (every table is 0 at a
    // difference of 0): a partner on `to` or `from` adds 0 without a test
    // (no mispredicted branch); else such a partner's distance is 0 by a
    // test (with the placement's coordinates, the same node is the same
    // pointer).
    template <int D, bool kZeroSelf, class CoordsOfPartner>
    double row_delta_loop(const Graph &g, int t, int from, int to, int skip, double d,
                          CoordsOfPartner coords_of_partner) const {
        const int64_t e0 = g.begin(t), e1 = g.end(t);
        const int *adj = g.adj().data();
        const double *w = g.weights().data();
        const uint16_t *cf = &coord_[static_cast<size_t>(from) * D], *ct = &coord_[static_cast<size_t>(to) * D];
        const double *tb[D];
        for (int k = 0; k < D; ++k) tb[k] = &tab_[base_[k]];
        for (int64_t e = e0; e < e1; ++e) {
            const int j = adj[e];
            if (j == skip) continue;
            const uint16_t *cj = coords_of_partner(j);
            if (!cj) continue;
            double dt = 0, df = 0;
            if (kZeroSelf) {
#pragma GCC unroll 4
                for (int k = 0; k < D; ++k) {
                    dt += tb[k][static_cast<int>(cj[k]) - static_cast<int>(ct[k])];
                    df += tb[k][static_cast<int>(cj[k]) - static_cast<int>(cf[k])];
                }
            } else {
                if (cj != ct)
#pragma GCC unroll 4
                    for (int k = 0; k < D; ++k) dt += tb[k][static_cast<int>(cj[k]) - static_cast<int>(ct[k])];
                if (cj != cf)
#pragma GCC unroll 4
                    for (int k = 0; k < D; ++k) df += tb[k][static_cast<int>(cj[k]) - static_cast<int>(cf[k])];
            }
            d += w[e] * (dt - df);
        }
        return d;
    }
    double table(int a, int b) const {
        const uint16_t *ca = &coord_[static_cast<size_t>(a) * D_];
        const uint16_t *cb = &coord_[static_cast<size_t>(b) * D_];
        double s = 0;
        for (int k = 0; k < D_; ++k) s += tab_[base_[k] + static_cast<int>(cb[k]) - static_cast<int>(ca[k])];
        return s;
    }
    const Topology &topo_;
    int D_ = 0;
    bool fast_ = false;
    bool zero_self_ = false;  // every dimension's table is 0 at a difference of 0
    std::vector<uint16_t> coord_;
    std::vector<double> tab_;
    std::vector<int> base_;
};

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

// ---- shared entry points (implemented in greedy.cpp / anneal.cpp /
// kernighan_lin.cpp) ----------------------------------------------------

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

// Greedy placement of the unplaced tasks among `tasks` into `st` (the
// heuristic of Bhanot et al., BG/L task layout, greatest-volume-to-mapped
// first).  Other placed tasks stay.
void greedy_fill(PlacementState &st, const std::vector<int> &tasks, const NearNodes &near,
                 const GreedyContext &gc = greedy_preset());

struct AnnealParams {
    int steps = 100;                // beta steps
    int64_t proposals_per_step = 0; // 0: derived from the movable count
    double sweeps = 0;              // total proposals / movable tasks (0: default)
    bool from_cold = false;         // start at tuning.cold_acceptance instead of hot_acceptance
    std::vector<TracePoint> *trace = nullptr;
    const std::function<void(const std::string &)> *progress = nullptr;
    double f_norm = 0;              // normalisation (F_min); <= 0: F at start
    AnnealContext tuning = anneal_preset();  // the chain's tuned numbers (tuning.hpp)
};

// Metropolis annealing of the tasks in `movable` (all others fixed) in st.
// Returns at the deadline with the best placement seen.
void anneal_tasks(PlacementState &st, const std::vector<int> &movable, const NearNodes &near,
                  const AnnealParams &ap, Rng &rng, const Deadline &dl);

// Kernighan-Lin pair-exchange passes on `st` (all placed tasks movable):
// until a pass gains nothing, the deadline, or max_passes passes (0:
// KlContext::max_passes).
void kl_passes(PlacementState &st, const NearNodes &near, const Deadline &dl, int max_passes = 0);

// Divide-and-conquer mapper that also reports the sizes of the subgraphs
// it annealed, in order (for the tests).
std::vector<int> divide_anneal_with_leaves(const Problem &p, std::vector<size_t> *leaves,
                                           double sweeps = 1000);

// Recursive co-bisection of tasks and machine (initial/cobisection.cpp): a
// valid placement used as an annealing start.
std::vector<int> bisection_map(const Problem &p, uint64_t seed);

// Graph-drawing start (geometric.cpp): the task graph drawn in the
// machine's dimensions (pivot MDS + stress majorization), laid onto the
// machine box by recursive coordinate bisection in the best of several
// orientations.  Empty, with the reason in *why, without machine
// coordinates (trees, distance files) or at the deadline.
std::vector<int> geometric_map(const Problem &p, uint64_t seed, std::string *why);

// Number of near nodes used by the local proposals: the node, its two
// neighbours per dimension and AnnealContext::near_extra more.
inline int near_count(const Topology &topo) {
    return std::min(topo.size(), 1 + 2 * std::max(1, topo.ndims()) + anneal_preset().near_extra);
}

} // namespace rankmap

// fast_distance.hpp -- FastDistance, the one distance policy of the
// annealers, Kernighan-Lin and the band tile annealer: Topology::distance
// through the fastest of three back-ends that give the same values.
//  - Per-dimension tables: many machine models (torus and mesh under the hop
//    metric, with or without the on-node "local" slot dimension) have
//    distances that are a sum over dimensions of a function of the
//    coordinate difference.  When the topology passes a check on sampled
//    pairs against Topology::distance (and all pairs from a few nodes) the
//    tables replace the virtual call: a distance costs O(ndims), an energy
//    change of one task O(degree x ndims); O(P ndims) memory.  Wrapped
//    copies of the tables read a coordinate difference of up to twice a
//    dimension's length, so a distance to a translated node (translated())
//    needs no modulo.
//  - A dense byte table of every pair, on request (the dense_max argument)
//    for machines of at most dense_max nodes whose distances are all hop
//    counts below 256: one read per distance, O(P^2) bytes (256 KiB at
//    512 nodes).  The values are the tables' own, exact small integers, so
//    sums over them, and the placements, are the same.
//  - Topology::distance itself otherwise (trees, Euclidean / 3/D metrics,
//    file matrices).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "common/rng.hpp"
#include "graph/graph.hpp"
#include "topology/topology.hpp"

namespace rankmap {

class FastDistance {
public:
    explicit FastDistance(const Topology &topo, int dense_max = 0) : topo_(topo) {
        build_tables(topo);
        if (topo.size() <= dense_max) build_dense();
    }
    bool fast() const { return fast_; }
    // Every dimension's table is 0 at a difference of 0 (with fast()).
    bool zero_self() const { return zero_self_; }
    // The byte table (row a at a * size()), nullptr when not built.
    const uint8_t *dense_table() const { return dense_.empty() ? nullptr : dense_.data(); }
    // With fast(): node v's coordinates, and dimension k's table indexed by
    // the coordinate difference (d(a, b) = sum over k of
    // dim_table(k)[c_b[k] - c_a[k]], 0 when a == b).
    const uint16_t *coords_of(int v) const { return &coord_[static_cast<size_t>(v) * D_]; }
    const double *dim_table(int k) const { return &tab_[base_[k]]; }
    // With fast() on a torus: the distance from the node of coordinates ca
    // to the node of coordinates cb translated by offsets off (each in
    // [0, L) for a dimension of length L), that is cb + off taken mod the
    // lengths, read from the wrapped tables (no modulo) and added in
    // dimension order.
    double translated(const int *ca, const int *cb, const int *off) const {
        double d = 0;
        if (D_ == 3) {
            d += wrapped_[wbase_[0] + cb[0] + off[0] - ca[0]];
            d += wrapped_[wbase_[1] + cb[1] + off[1] - ca[1]];
            d += wrapped_[wbase_[2] + cb[2] + off[2] - ca[2]];
            return d;
        }
        for (int k = 0; k < D_; ++k) d += wrapped_[wbase_[k] + cb[k] + off[k] - ca[k]];
        return d;
    }
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
    // The per-dimension tables, kept (fast_) when they give every checked
    // pair's distance; then the wrapped tables from them.
    void build_tables(const Topology &topo) {
        const int P = topo.size();
        D_ = topo.ndims();
        if (topo.kind() == TopologyKind::Matrix || D_ <= 0 || D_ > kMaxCoords || P < 2) return;
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
        for (int k = 0; k < D_; ++k) {
            const int L = dims[k];
            wbase_[k] = static_cast<int>(wrapped_.size()) + L - 1;
            for (int x = -(L - 1); x <= 2 * L - 2; ++x) wrapped_.push_back(x < L ? tab_[base_[k] + x] : tab_[base_[k] + x - L]);
        }
    }
    // The byte table of every pair, when every distance is a hop count
    // below 256 (else none: another metric, a long ring).
    void build_dense() {
        const int n = topo_.size();
        dense_.resize(static_cast<size_t>(n) * n);
        for (int a = 0; a < n; ++a)
            for (int b = 0; b < n; ++b) {
                const double d = (*this)(a, b);
                if (!(d >= 0 && d <= 255 && d == std::floor(d))) {
                    dense_.clear();
                    return;
                }
                dense_[static_cast<size_t>(a) * n + b] = static_cast<uint8_t>(d);
            }
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
    std::vector<double> wrapped_;  // dimension k's wrapped table at wbase_[k]: differences -(L-1)..2L-2
    int wbase_[kMaxCoords] = {};
    std::vector<uint8_t> dense_;   // dense_table(), empty when not built
};

} // namespace rankmap

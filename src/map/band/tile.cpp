// tile.cpp -- the band search's tile (tile.hpp): periodisation of a band
// graph, the translation and step tables of the torus, and the tile
// annealing chain.  Cost: see tile.hpp.
#include "map/band/tile.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>

#include "common/error.hpp"
#include "config.h"  // RANKMAP_DEBUG_CHECKS (configure --enable-debug-checks)

namespace rankmap {
namespace band {

double periodise(const Graph &sym, const std::vector<int> &offsets, int P, TileModel &out) {
    const int N = sym.n();
    // Per residue and offset: sum of weights and number of rank pairs.
    const int no = static_cast<int>(offsets.size());
    std::vector<double> sum(static_cast<size_t>(P) * no, 0.0);
    std::vector<int> cnt(static_cast<size_t>(P) * no, 0);
    std::map<int, int> oi;
    for (int k = 0; k < no; ++k) oi[offsets[k]] = k;
    for (int b = 0; b < P; ++b)
        for (int k = 0; k < no; ++k)
            for (int i = b; i + offsets[k] < N; i += P) ++cnt[static_cast<size_t>(b) * no + k];
    double total = 0;
    for (int i = 0; i < N; ++i)
        for (int64_t e = sym.begin(i); e < sym.end(i); ++e) {
            int d = sym.target(e) - i;
            if (d <= 0) continue;
            sum[static_cast<size_t>(i % P) * no + oi[d]] += sym.weight(e);
            total += sym.weight(e);
        }
    if (total <= 0) return 1.0;
    auto mean = [&](int b, int k) {
        size_t x = static_cast<size_t>(b) * no + k;
        return cnt[x] ? sum[x] / cnt[x] : 0.0;
    };
    // Deviation: every rank pair (i, i+d) against its residue's mean.
    double dev = 0;
    std::vector<double> wi(no);
    for (int i = 0; i < N; ++i) {
        std::fill(wi.begin(), wi.end(), 0.0);
        for (int64_t e = sym.begin(i); e < sym.end(i); ++e) {
            int d = sym.target(e) - i;
            if (d > 0) wi[oi[d]] += sym.weight(e);
        }
        for (int k = 0; k < no; ++k)
            if (i + offsets[k] < N) dev += std::abs(wi[k] - mean(i % P, k));
    }
    out.P = P;
    out.adj.assign(P, {});
    out.wsum = 0;
    for (int b = 0; b < P; ++b)
        for (int k = 0; k < no; ++k) {
            double w = mean(b, k);
            if (w <= 0) continue;
            // Rank b + d is residue (b + d) mod P of block (b + d) / P; the
            // mirror edge leads from that residue back to b, kf blocks down.
            const int fwd = b + offsets[k], kf = fwd / P;
            out.adj[b].push_back({fwd - kf * P, kf, w});
            out.adj[fwd - kf * P].push_back({b, -kf, w});
            out.wsum += 2 * w;
        }
    return dev / total;
}

namespace {

// Row-major node-number strides of the torus (the last dimension fastest,
// as TorusTopology numbers its nodes).
std::vector<int> node_strides(const TorusTopology &topo) {
    const auto &dims = topo.dims();
    std::vector<int> stride(dims.size());
    for (int k = static_cast<int>(dims.size()) - 1, s = 1; k >= 0; --k) {
        stride[k] = s;
        s *= dims[k];
    }
    return stride;
}

} // namespace

std::vector<int> translation_table(const TorusTopology &topo, const std::vector<int> &D) {
    const int N = topo.size(), nd = topo.ndims();
    const auto &dims = topo.dims();
    const std::vector<int> stride = node_strides(topo);
    std::vector<int> out(N), x(nd, 0), dk(nd);
    int u = 0;
    for (int k = 0; k < nd; ++k) {
        dk[k] = ((D[k] % dims[k]) + dims[k]) % dims[k];
        u += dk[k] * stride[k];
    }
    for (int v = 0; v < N; ++v) {
        out[v] = u;
        for (int k = nd - 1; k >= 0; --k) {
            u += stride[k];
            if (x[k] + dk[k] == dims[k] - 1) u -= dims[k] * stride[k];  // v + D wraps in dimension k
            if (++x[k] < dims[k]) break;
            x[k] = 0;
        }
    }
#ifdef RANKMAP_DEBUG_CHECKS
    std::vector<int> c(nd);
    for (int v = 0; v < N; ++v) {
        topo.coords(v, c.data());
        for (int k = 0; k < nd; ++k) c[k] = (c[k] + dk[k]) % dims[k];
        if (out[v] != topo.node_at(c.data()))
            throw Error("band: the odometer's translation table differs from the coordinates'", ErrorKind::Internal);
    }
#endif
    return out;
}

std::vector<int> step_table(const TorusTopology &topo) {
    const int N = topo.size(), nd = topo.ndims();
    const auto &dims = topo.dims();
    std::vector<int> out(static_cast<size_t>(N) * 2 * nd), x(nd);
    for (int v = 0; v < N; ++v) {
        topo.coords(v, x.data());
        for (int k = 0; k < nd; ++k)
            for (int s = 0; s < 2; ++s) {
                int keep = x[k];
                x[k] = (x[k] + (s ? 1 : dims[k] - 1)) % dims[k];
                out[(static_cast<size_t>(v) * nd + k) * 2 + s] = topo.node_at(x.data());
                x[k] = keep;
            }
    }
    return out;
}

TileAnnealer::TileAnnealer(const TorusTopology &topo, const TileModel &m, const std::vector<int> &D,
                           const std::vector<int> &step, const FastDistance &dist, int K, const BandContext &c)
    : topo_(topo), m_(m), K_(K), c_(c), step_(step), dist_(dist), dtab_(dist.dense_table()), n_(topo.size()) {
    const int N = topo.size(), nd = topo.ndims();
    wtot_.assign(m_.P, 0.0);
    for (int b = 0; b < m_.P; ++b)
        for (const TileEdge &e : m_.adj[b]) wtot_[b] += e.w;
    // Coordinates: above the dense table's size, with FastDistance's
    // tables, an image's distance is computed from the residues'
    // coordinates and the shift's offset (no table of N nodes per shift
    // is read in the hot loops), and an image's node from the same
    // coordinates, so no shift table of N nodes is built either.  Same
    // placements in less time on large tori, where phase 1 sets up
    // hundreds of translations; on small ones the dense table and trans_
    // are faster (doc/tuning.md, dense_distance_max).
    // A node's distance to itself is 0: the coordinate sums rely on it.
    nd_ = !dtab_ && dist_.fast() && dist_.zero_self() && nd <= kMaxCoords ? nd : 0;
    const std::vector<int> fwd = translation_table(topo, D), stride = node_strides(topo);
    for (int k = 0; k < std::min(nd, kMaxCoords); ++k) len_[k] = topo.dims()[k], stride_[k] = stride[k];
    // Without coordinates: trans_[(s + K) * N + v] = v + s D, s in [-K, K].
    if (nd_ == 0) {
        std::vector<int> inv(N);
        for (int v = 0; v < N; ++v) inv[fwd[v]] = v;
        trans_.assign(static_cast<size_t>(2 * K + 1) * N, 0);
        for (int v = 0; v < N; ++v) trans_[static_cast<size_t>(K) * N + v] = v;
        for (int s = 1; s <= K; ++s)
            for (int v = 0; v < N; ++v) {
                trans_[static_cast<size_t>(K + s) * N + v] = fwd[trans_[static_cast<size_t>(K + s - 1) * N + v]];
                trans_[static_cast<size_t>(K - s) * N + v] = inv[trans_[static_cast<size_t>(K - s + 1) * N + v]];
            }
    }
    // Cosets of <D>: follow v -> v + D until back at v.  Coset c's
    // first member is its first node in node order.
    coset_.assign(N, -1);
    idx_.assign(N, 0);
    members_.reserve(N);
    int ncos = 0;
    for (int v = 0; v < N; ++v) {
        if (coset_[v] >= 0) continue;
        int u = v, j = 0;
        do {
            coset_[u] = ncos;
            idx_[u] = j++;
            members_.push_back(u);
            u = fwd[u];
        } while (u != v);
        if (m_len_ == 0) m_len_ = j;
        if (j != m_len_) m_len_ = -1;  // cannot happen in a group; guarded
        ++ncos;
    }
    ncos_ = ncos;
    shift_off_.assign(static_cast<size_t>(2 * K + 1) * std::max(1, nd_), 0);
    for (int s = -K; s <= K && nd_ > 0; ++s)
        for (int k = 0; k < nd_; ++k) {
            const int64_t x = static_cast<int64_t>(s) * D[k] % len_[k];
            shift_off_[static_cast<size_t>(s + K) * nd_ + k] = static_cast<int>(x < 0 ? x + len_[k] : x);
        }
}

double TileAnnealer::run(int64_t iters, bool ordered, Rng &rng, const Deadline &dl, std::vector<int> &tile) {
    const int P = m_.P;
    start_tile(ordered, rng);
    double E = 0;
    ecache_.assign(P, 0.0);
    for (int b = 0; b < P; ++b) E += (ecache_[b] = energy_of(b));
    best_ = E;
    bestpos_ = pos_;
    const double unit = m_.wsum / P;  // mean energy of a tile task at F = F_min
    // Temperatures in units of a task's energy at F_min (BandContext);
    // large tiles start hotter and end colder.
    const bool large = c_.large_tile > 0 && P >= c_.large_tile;
    const double T0 = large ? c_.large_tile_start_temperature : c_.start_temperature;
    const double T1 = large ? c_.large_tile_end_temperature : c_.end_temperature;
    const double cool = std::pow(T1 / T0, 1.0 / static_cast<double>(std::max<int64_t>(1, iters)));
    double T = T0 / cool;
    for (int64_t it = 0; it < iters; ++it) {
        if ((it & 4095) == 4095 && dl.expired()) break;
        T *= cool;
        const int t = static_cast<int>(rng.below(static_cast<uint32_t>(P)));
        try_move(t, propose_target(t, rng), T, unit, rng, E);
    }
    for (int b = 0; b < P; ++b) set_pos(b, bestpos_[b]);
    double Ef = 0;
    for (int b = 0; b < P; ++b) Ef += energy_of(b);
    tile = pos_;
    return Ef / m_.wsum;
}

// The chain's per-proposal helpers below are inline (called only in this
// file), as they were inside the class: run() keeps them in its loop.
inline int TileAnnealer::image(int b, int shift) const {
    if (nd_ == 0) return trans_[static_cast<size_t>(shift + K_) * topo_.size() + pos_[b]];
    const int *pb = &pc_[static_cast<size_t>(b) * nd_];
    const int *so = &shift_off_[static_cast<size_t>(shift + K_) * nd_];
    int v = 0;
    for (int k = 0; k < nd_; ++k) {
        int y = pb[k] + so[k];
        if (y >= len_[k]) y -= len_[k];
        v += y * stride_[k];
    }
    return v;
}

inline double TileAnnealer::image_dist(const int *c, int b, int shift) const {
    return dist_.translated(c, &pc_[static_cast<size_t>(b) * nd_], &shift_off_[static_cast<size_t>(shift + K_) * nd_]);
}

inline double TileAnnealer::edge_dist(int a, int b, int shift) const {
    if (nd_ == 0) return node_dist(pos_[a], image(b, shift));
    return image_dist(&pc_[static_cast<size_t>(a) * nd_], b, shift);
}

inline void TileAnnealer::start_tile(bool ordered, Rng &rng) {
    const int P = m_.P;
    std::vector<int> order(ncos_);
    std::iota(order.begin(), order.end(), 0);
    if (!ordered)
        for (int i = P - 1; i > 0; --i) std::swap(order[i], order[rng.below(static_cast<uint32_t>(i + 1))]);
    pos_.assign(P, 0);
    pc_.assign(static_cast<size_t>(P) * nd_, 0);
    owner_.assign(ncos_, -1);
    for (int b = 0; b < P; ++b) {
        set_pos(b, members_[static_cast<size_t>(order[b]) * m_len_]);
        owner_[order[b]] = b;
    }
}

inline int TileAnnealer::propose_target(int t, Rng &rng) const {
    const int N = topo_.size(), nd = topo_.ndims();
    const auto &at = m_.adj[t];
    if (at.empty() || static_cast<int>(rng.below(10)) >= c_.local_moves_in_ten)
        return static_cast<int>(rng.below(static_cast<uint32_t>(N)));
    const TileEdge *ep = &at.back();
    if (c_.weighted_partners) {
        double x = rng.uniform() * wtot_[t];
        for (const TileEdge &ed : at)
            if ((x -= ed.w) <= 0) {
                ep = &ed;
                break;
            }
    } else {
        ep = &at[rng.below(static_cast<uint32_t>(at.size()))];
    }
    int v = image(ep->to, ep->shift);
    return step_[(static_cast<size_t>(v) * nd + rng.below(static_cast<uint32_t>(nd))) * 2 + rng.below(2)];
}

inline void TileAnnealer::try_move(int t, int target, double T, double unit, Rng &rng, double &E) {
    const int u = owner_[coset_[target]];
    const int oldt = pos_[t], oldu = pos_[u];
    // Energy before the move from the cache (the t-u edges once).
    double e0 = ecache_[t];
    if (u != t) {
        e0 += ecache_[u];
        for (const TileEdge &ed : m_.adj[t])
            if (ed.to == u) e0 -= ed.w * edge_dist(t, ed.to, ed.shift);
    }
    set_pos(t, target);
    if (u != t) {
        // u takes t's old coset at the offset it had from target.
        int sft = idx_[oldu] - idx_[target];
        int j = idx_[oldt] + sft;  // in (-m_len_, 2 m_len_): wrapped without a division
        if (j < 0) j += m_len_;
        else if (j >= m_len_) j -= m_len_;
        set_pos(u, members_[static_cast<size_t>(coset_[oldt]) * m_len_ + j]);
    }
    // The moved residues' energies after the move, kept for the cache.
    const double et = energy_of(t), eu = u != t ? energy_of(u) : 0.0;
    double dE = 2 * (local(t, u, et, eu) - e0);
    // The cached energy carries rounding the recomputation does not:
    // an exact tie (a move between equivalent spots) stays a tie.
    if (std::abs(dE) < 1e-9 * unit) dE = 0;
    if (!(dE <= 0 || below_exp_neg(rng.uniform(), dE / (T * unit)))) {
        set_pos(t, oldt);
        set_pos(u, oldu);
        return;
    }
    E += dE;
    if (u != t) std::swap(owner_[coset_[pos_[t]]], owner_[coset_[pos_[u]]]);
    update_cache(t, u, oldt, oldu, et, eu);
    if (E < best_ - 1e-9 * std::max(1.0, best_)) {
        best_ = E;
        bestpos_ = pos_;
    }
}

inline void TileAnnealer::update_cache(int t, int u, int oldt, int oldu, double et, double eu) {
    auto update = [&](int a, int olda) {
        if (nd_ > 0) {
            int oc[kMaxCoords];
            const uint16_t *c = dist_.coords_of(olda);
            for (int k = 0; k < nd_; ++k) oc[k] = c[k];
            const int *ac = &pc_[static_cast<size_t>(a) * nd_];
            for (const TileEdge &ed : m_.adj[a]) {
                if (ed.to == t || ed.to == u) continue;
                ecache_[ed.to] += ed.w * (image_dist(ac, ed.to, ed.shift) - image_dist(oc, ed.to, ed.shift));
            }
            return;
        }
        for (const TileEdge &ed : m_.adj[a]) {
            if (ed.to == t || ed.to == u) continue;
            const int q = image(ed.to, ed.shift);
            ecache_[ed.to] += ed.w * (node_dist(pos_[a], q) - node_dist(olda, q));
        }
    };
    update(t, oldt);
    if (u != t) update(u, oldu);
    ecache_[t] = et;
    if (u != t) ecache_[u] = eu;
#ifdef RANKMAP_DEBUG_CHECKS
    for (int b = 0; b < m_.P; ++b)
        if (std::abs(ecache_[b] - energy_of(b)) > 1e-6 * std::max(1.0, ecache_[b]))
            throw Error("band: cached residue energy drifted from the recomputation", ErrorKind::Internal);
#endif
}

inline double TileAnnealer::node_dist(int a, int q) const {
    return dtab_ ? dtab_[static_cast<size_t>(a) * n_ + q] : dist_(a, q);
}

inline double TileAnnealer::energy_of(int b) const {
    if (dtab_) {
        // The dense table's row of b's node, the images from trans_
        // (pointers held in locals: the loop reloads nothing).
        const uint8_t *row = dtab_ + static_cast<size_t>(pos_[b]) * n_;
        const int *tr = trans_.data() + static_cast<size_t>(K_) * n_;
        const int *pos = pos_.data();
        const ptrdiff_t n = n_;
        double e = 0;
        for (const TileEdge &ed : m_.adj[b]) e += ed.w * row[tr[ed.shift * n + pos[ed.to]]];
        return e;
    }
    double e = 0;
    for (const TileEdge &ed : m_.adj[b]) e += ed.w * edge_dist(b, ed.to, ed.shift);
    return e;
}

inline double TileAnnealer::local(int t, int u, double et, double eu) const {
    double e = et;
    if (u != t) {
        e += eu;
        for (const TileEdge &ed : m_.adj[t])
            if (ed.to == u) e -= ed.w * edge_dist(t, ed.to, ed.shift);
    }
    return e;
}

inline void TileAnnealer::set_pos(int b, int node) {
    pos_[b] = node;
    if (nd_ == 0) return;
    const uint16_t *c = dist_.coords_of(node);
    for (int k = 0; k < nd_; ++k) pc_[static_cast<size_t>(b) * nd_ + k] = c[k];
}

} // namespace band
} // namespace rankmap

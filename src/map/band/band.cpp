// band.cpp -- translation-periodic embedding of rank-ordered band graphs.
//
// Many decompositions hand out work in rank order (SAGE's blocks dealt in
// (x,y,z) order, slabs, rank-ordered halos): task t then talks to t +- d for
// a few fixed offsets d, with weights that repeat along the ranks.  Such a
// graph looks the same from every block of P consecutive ranks, so we look
// for placements that do too: node(t + P) = node(t) + D, for a torus
// translation D of order m = N / P.  Block k of the ranks is block 0 moved
// by k D; the m translates of one block tile the torus when block 0 holds
// one node of every coset of <D>.  The search is then over one tile of P
// tasks whose edges leaving the tile reach the neighbouring blocks shifted
// by -+D: a small annealing problem (P tasks, P << N) that the general
// annealer, working on all N tasks, does not find -- it builds locally good
// domains whose seams it cannot remove.
//
// Method.  (1) Applicability: a torus (all dimensions wrapped, no local
// dimension), one task per node, all partners within N/4 ranks, at most
// BandContext::max_offsets distinct offsets.  (2) Orders m are tried from
// the largest (a divisor of the extents' lcm, P = N/m between min_tile and
// max_tile; the smallest tile is the easiest search) and the first whose
// periodised graph -- w(b, d) = mean over ranks i = b (mod P) of C(i, i+d)
// -- explains the graph within max_period_error of its weight is used.
// (3) The translations D of that order are enumerated up to the torus' symmetries
// (per axis reflection, permutation of equal extents) and, when the
// staircase prediction allows some of them, cut to those (below).  They
// share the work by successive halving: every D gets a short annealing of
// its tile (a tenth from the cosets in node order, which is exact for a
// rank-ordered halo, the rest from a random tile), the best third a three
// times longer one (from a random tile), and so on; the last one left gets
// what remains.  (4) The best tile is expanded to all N tasks.  The caller
// (auto) polishes it with Kernighan-Lin, keeps it if its true F is the
// lowest, and may run a second, longer search on the first one's best few
// translations (BandOptions::ranking; auto: three, one above 16,384 tasks).
// Deterministic for a seed.
//
// Staircase prediction.  Short annealings do not rank the translations as
// long ones do (their scatter exceeds the gaps between translations).  So
// D is predicted from the graph: an embedding that keeps
// the heavy edges at one hop walks one hop forward per edge along the
// cheapest rank path from t to t + P (edge cost 1 / total weight of its
// offset), so D is the end of a monotone staircase of that many unit
// steps.  The SAGE-like graph on 8x8x8 (offsets 5 and 6 heavy, P = 64):
// 8 x (+5) + 4 x (+6) = 64, twelve steps; 6 of the 25 translations
// qualify (test/unit/test_grid.cpp checks this).  A rank-ordered 8x8x8 halo: one step of +64, D = (0,0,1).
//
// Cost: O(E) for the periodisation per order, O(iterations * offsets) for
// the tile annealing, O(N * ndims) for tables; memory O(N * (2K+1)) with K
// the number of blocks an edge can span (1-2).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <numeric>

#include "common/error.hpp"
#include "common/rng.hpp"
#include "config.h"  // RANKMAP_DEBUG_CHECKS (configure --enable-debug-checks)
#include "map/band/band.hpp"
#include "map/state/fast_distance.hpp"
#include "topology/torus.hpp"

namespace rankmap {

namespace {

struct TileEdge {
    int to;       // residue of the partner
    int shift;    // block shift of the partner (-K..K)
    double w;
};

struct TileModel {
    int P = 0;
    std::vector<std::vector<TileEdge>> adj;  // per residue
    double wsum = 0;                         // sum of all tile weights (directed)
};

// Periodise `sym` with period P; returns the relative error (L1 of the
// deviations over total weight), the model in `out`.
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

// Node table of the translation x -> x + D: an odometer over the
// coordinates x of v = 0, 1, ... carries u = v + D along (N * 1-2 steps; a
// band search sets up hundreds of these).
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

// Node table of the 2 * ndims unit steps: step[(v * nd + k) * 2 + s].
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

// Distances for the tile annealing, read ~26 times a proposal: a dense
// byte table up to BandContext::dense_distance_max nodes when every
// distance is a hop count below 256 (256 KiB at 512 nodes; faster than
// FastDistance's per-dimension tables, same values, so the same
// placements), FastDistance otherwise.
class TileDistance {
public:
    TileDistance(const TorusTopology &topo, const FastDistance &fd, int dense_max) : fd_(fd), n_(topo.size()) {
        if (n_ > dense_max) return;
        tab_.resize(static_cast<size_t>(n_) * n_);
        for (int a = 0; a < n_; ++a)
            for (int b = 0; b < n_; ++b) {
                const double d = fd(a, b);
                // Only exact small integers (hop counts); otherwise (another
                // metric, a long ring) FastDistance itself.
                if (!(d >= 0 && d <= 255 && d == std::floor(d))) {
                    tab_.clear();
                    return;
                }
                tab_[static_cast<size_t>(a) * n_ + b] = static_cast<uint8_t>(d);
            }
    }
    double operator()(int a, int b) const {
        return tab_.empty() ? fd_(a, b) : tab_[static_cast<size_t>(a) * n_ + b];
    }
    const FastDistance &fast() const { return fd_; }
    bool dense() const { return !tab_.empty(); }
    // The byte table (row a at a * size): nullptr when not dense.
    const uint8_t *dense_table() const { return tab_.empty() ? nullptr : tab_.data(); }

private:
    const FastDistance &fd_;
    int n_;
    std::vector<uint8_t> tab_;
};

// Annealing of one tile for translation D.  Returns the tile energy / wsum
// and the tile (node of residue b) in `tile`.
class TileAnnealer {
public:
    TileAnnealer(const TorusTopology &topo, const TileModel &m, const std::vector<int> &D,
                 const std::vector<int> &step, const TileDistance &dist, int K, const BandContext &c)
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
        const FastDistance &fd = dist_.fast();
        nd_ = !dist_.dense() && fd.fast() && nd <= kMaxDims ? nd : 0;
        for (int k = 0; k < nd_; ++k)
            if (fd.dim_table(k)[0] != 0.0) nd_ = 0;  // a node's distance to itself is 0, the sums below rely on it
        const std::vector<int> fwd = translation_table(topo, D), stride = node_strides(topo);
        for (int k = 0; k < std::min(nd, kMaxDims); ++k) len_[k] = topo.dims()[k], stride_[k] = stride[k];
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
        // ext_[k][x] = the distance in dimension k of coordinates x apart
        // for x in (-L, L), and x - L apart for x in [L, 2L - 1): an image
        // coordinate is taken mod L only through the table.
        ext_.clear();
        std::vector<size_t> at(nd_);
        for (int k = 0; k < nd_; ++k) {
            const double *t = fd.dim_table(k);
            const int L = len_[k];
            at[k] = ext_.size() + static_cast<size_t>(L - 1);
            for (int x = -(L - 1); x <= 2 * L - 2; ++x) ext_.push_back(x < L ? t[x] : t[x - L]);
        }
        for (int k = 0; k < nd_; ++k) tab_[k] = ext_.data() + at[k];
        shift_off_.assign(static_cast<size_t>(2 * K + 1) * std::max(1, nd_), 0);
        for (int s = -K; s <= K && nd_ > 0; ++s)
            for (int k = 0; k < nd_; ++k) {
                const int64_t x = static_cast<int64_t>(s) * D[k] % len_[k];
                shift_off_[static_cast<size_t>(s + K) * nd_ + k] = static_cast<int>(x < 0 ? x + len_[k] : x);
            }
    }

    int ncosets() const { return m_len_ > 0 ? ncos_ : -1; }

    double run(int64_t iters, bool ordered, Rng &rng, const Deadline &dl, std::vector<int> &tile) {
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

    // Node of block-shifted image of residue b.
    int image(int b, int shift) const {
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
    // dist_(node, image(b, shift)) for the node of coordinates `c` (nd_ >
    // 0): the same table values, summed in the same order (on one node all
    // of them are 0, as dist_ returns).
    double image_dist(const int *c, int b, int shift) const {
        const int *pb = &pc_[static_cast<size_t>(b) * nd_];
        const int *so = &shift_off_[static_cast<size_t>(shift + K_) * nd_];
        double d = 0;
        if (nd_ == 3) {
            d += tab_[0][pb[0] + so[0] - c[0]];
            d += tab_[1][pb[1] + so[1] - c[1]];
            d += tab_[2][pb[2] + so[2] - c[2]];
            return d;
        }
        for (int k = 0; k < nd_; ++k) d += tab_[k][pb[k] + so[k] - c[k]];
        return d;
    }
    // dist_(pos_[a], image(b, shift)).
    double edge_dist(int a, int b, int shift) const {
        if (nd_ == 0) return node_dist(pos_[a], image(b, shift));
        return image_dist(&pc_[static_cast<size_t>(a) * nd_], b, shift);
    }

private:
    // Start: residue b at the b-th coset's first node in node order when
    // `ordered` (for a rank-ordered halo whose layers fit D this is already
    // exact, and the chain keeps the best placement it sees), else the
    // cosets dealt at random (more diverse: better on large tiles).
    void start_tile(bool ordered, Rng &rng) {
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

    // Target node for residue t: mostly one unit step from the image of a
    // partner, drawn in proportion to the edge weight (the heavy edges
    // decide the tile) or uniformly (BandContext::weighted_partners off);
    // otherwise any node.
    int propose_target(int t, Rng &rng) const {
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

    // Moves residue t to `target` (the residue u owning target's coset takes
    // t's old coset) and keeps the move by the Metropolis rule at
    // temperature T; E is the tile energy, kept current.
    void try_move(int t, int target, double T, double unit, Rng &rng, double &E) {
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

    // After an accepted move: a partner's energy changes by its edge to t
    // or u (distances are translation invariant, so the mirror edge has the
    // same length); t and u take their energies et and eu after the move.
    void update_cache(int t, int u, int oldt, int oldu, double et, double eu) {
        auto update = [&](int a, int olda) {
            if (nd_ > 0) {
                int oc[kMaxDims];
                const uint16_t *c = dist_.fast().coords_of(olda);
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

    // dist_(a, q), from the byte table directly when there is one.
    double node_dist(int a, int q) const {
        return dtab_ ? dtab_[static_cast<size_t>(a) * n_ + q] : dist_(a, q);
    }
    double energy_of(int b) const {
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
    // Energy of the edges at t and u (et and eu: energy_of(t) and
    // energy_of(u)), each counted once per direction from t's and u's side;
    // edges between t and u appear in both lists and are removed once, so
    // 2 * local is the change of the whole tile energy.
    double local(int t, int u, double et, double eu) const {
        double e = et;
        if (u != t) {
            e += eu;
            for (const TileEdge &ed : m_.adj[t])
                if (ed.to == u) e -= ed.w * edge_dist(t, ed.to, ed.shift);
        }
        return e;
    }
    // Residue b to `node`, its coordinates kept with it.
    void set_pos(int b, int node) {
        pos_[b] = node;
        if (nd_ == 0) return;
        const uint16_t *c = dist_.fast().coords_of(node);
        for (int k = 0; k < nd_; ++k) pc_[static_cast<size_t>(b) * nd_ + k] = c[k];
    }

    static constexpr int kMaxDims = 8;
    const TorusTopology &topo_;
    const TileModel &m_;
    int K_;
    const BandContext &c_;
    const std::vector<int> &step_;
    const TileDistance &dist_;
    const uint8_t *dtab_;        // dist_'s byte table (nullptr: none; then nd_ or dist_)
    int n_;                      // nodes
    std::vector<int> trans_, coset_, idx_, members_, pos_, owner_;
    std::vector<double> ecache_; // energy_of(b), kept current by run()
    std::vector<double> wtot_;   // total edge weight of each residue
    std::vector<int> bestpos_;   // run(): the best tile seen ...
    int nd_ = 0;                 // coordinate distances (0: dist_ and image())
    int len_[kMaxDims] = {};     // torus dimensions
    int stride_[kMaxDims] = {};  // node number = sum of coordinate * stride
    const double *tab_[kMaxDims] = {};  // per-dimension distances by coordinate difference (in ext_)
    std::vector<double> ext_;
    std::vector<int> pc_;        // coordinates of pos_ (nd_ per residue)
    std::vector<int> shift_off_; // shift s's offset s D mod the dimensions, per dimension
    double best_ = 0;            // ... and its energy
    int ncos_ = 0, m_len_ = 0;
};

// Staircase length: the number of edges on the cheapest forward rank path
// from a task to the one P ranks later, an edge of offset d costing
// 1 / W(d) (W = total weight of the offset).  Heavy edges are the ones an
// embedding keeps at one hop, so this path is the one least likely to run
// through a stretched edge; 0 when P is not reachable.
int staircase_steps(const std::vector<int> &offs, const std::vector<double> &W, int P) {
    std::vector<double> cost(P + 1, std::numeric_limits<double>::infinity());
    std::vector<int> steps(P + 1, 0);
    cost[0] = 0;
    for (int x = 1; x <= P; ++x)
        for (size_t k = 0; k < offs.size(); ++k) {
            const int d = offs[k];
            if (d > x || W[k] <= 0 || !std::isfinite(cost[x - d])) continue;
            const double c = cost[x - d] + 1.0 / W[k];
            if (c < cost[x] - 1e-12 * c || (c <= cost[x] + 1e-12 * c && steps[x - d] + 1 < steps[x])) {
                cost[x] = c;
                steps[x] = steps[x - d] + 1;
            }
        }
    return std::isfinite(cost[P]) ? steps[P] : 0;
}

// Whether translation D is the end of a monotone staircase of exactly L
// unit steps: some v with v_k >= 0, v_k = +-D_k (mod dims_k), sum v_k = L
// (each step one hop forward along its axis, the sign of every axis fixed).
bool staircase_reaches(const std::vector<int> &D, const std::vector<int> &dims, int L) {
    std::vector<char> can(L + 1, 0), next;
    can[0] = 1;
    for (size_t k = 0; k < dims.size(); ++k) {
        next.assign(L + 1, 0);
        const int a = D[k] % dims[k], b = (dims[k] - a) % dims[k];
        for (int s = 0; s <= L; ++s) {
            if (!can[s]) continue;
            for (int v0 : {a, b})
                for (int v = v0; s + v <= L; v += dims[k]) next[s + v] = 1;
        }
        can.swap(next);
    }
    return can[L] != 0;
}

struct Cand {
    std::vector<int> D;
    int model;
    double score;
    std::vector<int> tile;
};

// Why the problem is not a band problem, or "" when it may be one.
std::string band_unfit(const Problem &p, const TorusTopology *torus, const BandContext &c) {
    if (!torus || torus->has_local()) return "not a torus";
    for (int w : torus->wrap())
        if (!w) return "a dimension without wrap-around";
    if (p.sym.n() != p.topo.size() || p.cap.hi != 1) return "not one task per node";
    if (p.sym.n() < 2 * c.min_tile) return "too few tasks";
    return "";
}

// The distinct positive rank offsets of the edges, sorted, and the largest;
// "" or the reason the graph is not a band graph.
std::string rank_offsets(const Graph &sym, const BandContext &c, std::vector<int> &offs, int &maxoff) {
    const int N = sym.n();
    std::vector<char> seen(N, 0);
    maxoff = 0;
    for (int i = 0; i < N; ++i)
        for (int64_t e = sym.begin(i); e < sym.end(i); ++e) {
            int d = sym.target(e) - i;
            if (d <= 0 || seen[d]) continue;
            seen[d] = 1;
            offs.push_back(d);
            maxoff = std::max(maxoff, d);
            if (static_cast<int>(offs.size()) > c.max_offsets)
                return "more than " + std::to_string(c.max_offsets) + " distinct rank offsets";
        }
    if (offs.empty()) return "no edges";
    if (maxoff > N / 4) return "partners farther than N/4 ranks apart";
    std::sort(offs.begin(), offs.end());
    return "";
}

// The translations D of order m, up to the torus' symmetries: D[k] in
// [0, L_k/2], non-decreasing within runs of equal extents.
void translations_of_order(const std::vector<int> &dims, long m, int model, std::vector<Cand> &cands) {
    const int nd = static_cast<int>(dims.size());
    std::vector<int> D(nd, 0);
    std::function<void(int)> rec = [&](int k) {
        if (k == nd) {
            long ord = 1;
            for (int j = 0; j < nd; ++j) ord = std::lcm(ord, dims[j] / std::gcd(dims[j], D[j]));
            if (ord == m) cands.push_back({D, model, 0.0, {}});
            return;
        }
        int lo = (k > 0 && dims[k] == dims[k - 1]) ? D[k - 1] : 0;
        for (int v = lo; v <= dims[k] / 2; ++v) {
            D[k] = v;
            rec(k + 1);
        }
        D[k] = 0;
    };
    rec(0);
}

// Orders m: element orders of the torus group (divisors of the lcm of the
// extents) with a tile size in range, largest first (smallest tile: the
// easiest search); only the first order whose periodisation fits is used.
void candidate_translations(const Graph &sym, const std::vector<int> &offs, const std::vector<int> &dims,
                            const BandContext &c, std::vector<TileModel> &models, std::vector<Cand> &cands) {
    const int N = sym.n();
    long lcm = 1;
    for (int L : dims) lcm = std::lcm(lcm, L);
    for (long m = lcm; m >= 2 && cands.empty(); --m) {
        if (lcm % m || N % m) continue;
        int P = static_cast<int>(N / m);
        if (P < c.min_tile || P > c.max_tile) continue;
        TileModel tm;
        double err = periodise(sym, offs, P, tm);
        if (err > c.max_period_error) continue;
        models.push_back(std::move(tm));
        translations_of_order(dims, m, static_cast<int>(models.size()) - 1, cands);
    }
}

// Staircase prediction: an embedding that keeps the heavy edges at one hop
// moves forward along the cheapest rank path (staircase_steps) one hop per
// edge, so the tile's translation is the end of a monotone staircase of
// that many steps.  When some candidates are, only they are searched:
// short annealings rank the translations poorly (see above), so fewer
// candidates leave more work for the right one.  Returns the step count
// (0: no prediction).
int predict_staircase(const Graph &sym, const std::vector<int> &offs, const std::vector<int> &dims, int P,
                      std::vector<Cand> &cands) {
    std::vector<double> W(offs.size(), 0.0);
    for (int i = 0; i < sym.n(); ++i)
        for (int64_t e = sym.begin(i); e < sym.end(i); ++e) {
            const int d = sym.target(e) - i;
            if (d > 0) W[std::lower_bound(offs.begin(), offs.end(), d) - offs.begin()] += sym.weight(e);
        }
    const int stair = staircase_steps(offs, W, P);
    std::vector<Cand> keep;
    if (stair > 0)
        for (const Cand &c : cands)
            if (staircase_reaches(c.D, dims, stair)) keep.push_back(c);
    if (!keep.empty()) cands = std::move(keep);
    return stair;
}

// A previous search's ranking: only its translations, in its order; then,
// on very large tori (thousands of translations), an evenly spaced subset.
void narrow_candidates(const std::vector<std::vector<int>> *ranking, size_t max_candidates,
                       std::vector<Cand> &cands) {
    if (ranking && !ranking->empty()) {
        std::vector<Cand> keep;
        for (const auto &D : *ranking)
            for (const Cand &c : cands)
                if (c.D == D) keep.push_back(c);
        if (!keep.empty()) cands = std::move(keep);
    }
    if (cands.size() > max_candidates) {
        std::vector<Cand> keep;
        for (size_t i = 0; i < max_candidates; ++i) keep.push_back(std::move(cands[i * cands.size() / max_candidates]));
        cands = std::move(keep);
    }
}

// The shared state of a search over the candidate translations.
struct BandSearch {
    const TorusTopology &torus;
    const std::vector<TileModel> &models;
    const BandContext &c;
    int maxoff;
    const Deadline &dl;
    std::vector<int> steps;
    FastDistance fdist;
    TileDistance dist;
    BandSearch(const TorusTopology &t, const std::vector<TileModel> &m, const BandContext &bc, int mo,
               const Deadline &d)
        : torus(t), models(m), c(bc), maxoff(mo), dl(d), steps(step_table(t)), fdist(t),
          dist(t, fdist, bc.dense_distance_max) {}

    // One annealing of candidate `cand`'s tile with `iters` proposals.  In
    // the first round (with the staircase search) 1/ordered_share_divisor
    // of the work goes to the ordered start (exact for a halo whose layers
    // fit D) and the rest to a random one (an ordered start can anneal to
    // a poor tile in a short run).
    // False when <D> has the wrong order (a guard: nothing is run).
    bool anneal(Cand &cand, int64_t iters, bool first_round, Rng &rng) const {
        const TileModel &tm = models[cand.model];
        TileAnnealer an(torus, tm, cand.D, steps, dist, maxoff / tm.P + 2, c);
        if (an.ncosets() != tm.P) return false;
        std::vector<int> tile;
        double s;
        if (first_round && !c.staircase) {
            s = an.run(iters, true, rng, dl, tile);
        } else if (first_round) {
            std::vector<int> t2;
            const int64_t ordered = iters / c.ordered_share_divisor;
            s = an.run(ordered, true, rng, dl, tile);
            const double s2 = an.run(iters - ordered, false, rng, dl, t2);
            if (s2 < s) {
                s = s2;
                tile = std::move(t2);
            }
        } else {
            s = an.run(iters, false, rng, dl, tile);
        }
        if (s < cand.score) {
            cand.score = s;
            cand.tile = std::move(tile);
        }
        return true;
    }

    // Successive halving: every translation gets a short annealing of its
    // tile, the best 1/halving_factor a halving_factor times longer one (a
    // fresh chain; a candidate keeps its best tile), and so on until one is
    // left, which gets what remains.  Each round costs about the same.
    // Leaves the candidates sorted by score.
    void run(std::vector<Cand> &cands, double work, Rng &rng) const {
        const int k = c.halving_factor;
        const double total_iters = work / c.evals_per_proposal;
        std::vector<int> alive(cands.size());
        std::iota(alive.begin(), alive.end(), 0);
        int rounds = 1;
        for (size_t n = cands.size(); n > 1; n = (n + k - 1) / k) ++rounds;
        double len = std::max(c.min_round_proposals, total_iters / (static_cast<double>(cands.size()) * (rounds + 1)));
        double spent = 0;
        for (auto &cd : cands) cd.score = 1e300;
        bool first_round = true;
        while (!alive.empty() && !dl.expired()) {
            const bool last = alive.size() == 1;
            const int64_t iters = static_cast<int64_t>(last ? std::max(len, total_iters - spent) : len);
            for (int ci : alive) {
                if (dl.expired()) break;
                if (anneal(cands[ci], iters, first_round, rng)) spent += static_cast<double>(iters);
            }
            if (last) break;
            first_round = false;
            std::stable_sort(alive.begin(), alive.end(),
                             [&](int a, int b) { return cands[a].score < cands[b].score; });
            alive.resize((alive.size() + k - 1) / k);
            len *= k;
        }
        std::stable_sort(cands.begin(), cands.end(), [](const Cand &a, const Cand &b) { return a.score < b.score; });
    }
};

// The best tile expanded to all N tasks: block k is block 0 moved by k D.
std::vector<int> expand_tile(const TorusTopology &torus, const Cand &best, int P, int N) {
    std::vector<int> place(N);
    std::vector<int> gt = translation_table(torus, best.D), cur = best.tile;
    for (int k = 0; k * P < N; ++k) {
        for (int b = 0; b < P && k * P + b < N; ++b) place[k * P + b] = cur[b];
        for (int &v : cur) v = gt[v];
    }
    return place;
}

void report_band(const Problem &p, const Cand &best, int P, size_t tried, size_t all_cands, int stair) {
    if (!p.progress) return;
    std::string d;
    for (size_t j = 0; j < best.D.size(); ++j) d += (j ? "," : "") + std::to_string(best.D[j]);
    p.progress("band: tile of " + std::to_string(P) + " ranks, translation (" + d + "), " + std::to_string(tried) +
               " of " + std::to_string(all_cands) + " translations tried (staircase of " + std::to_string(stair) +
               " steps), tile F/F_min " + std::to_string(best.score));
}

} // namespace

std::vector<int> band_embedding(const Problem &p, double work, std::string *why, const BandOptions &opt) {
    const BandContext &c = opt.tuning;
    auto fail = [&](const std::string &s) {
        if (why) *why = s;
        return std::vector<int>();
    };
    const auto *torus = dynamic_cast<const TorusTopology *>(&p.topo);
    std::string unfit = band_unfit(p, torus, c);
    if (!unfit.empty()) return fail(unfit);
    std::vector<int> offs;
    int maxoff = 0;
    unfit = rank_offsets(p.sym, c, offs, maxoff);
    if (!unfit.empty()) return fail(unfit);
    const auto &dims = torus->dims();
    std::vector<TileModel> models;
    std::vector<Cand> cands;
    candidate_translations(p.sym, offs, dims, c, models, cands);
    if (cands.empty()) return fail("no rank period fits a torus translation");
    const size_t all_cands = cands.size();
    const int stair = c.staircase ? predict_staircase(p.sym, offs, dims, models[0].P, cands) : 0;
    narrow_candidates(opt.ranking, c.max_candidates, cands);
    Rng rng = rng_stream(p.opt.seed, 0xba4d, StreamMix::Lcg);
    BandSearch(*torus, models, c, maxoff, p.deadline).run(cands, work, rng);
    if (opt.ranking) {
        opt.ranking->clear();
        for (const Cand &cd : cands)
            if (!cd.tile.empty()) opt.ranking->push_back(cd.D);
    }
    const Cand &best = cands[0];
    if (best.tile.empty()) return fail("no tile found in time");
    const int P = models[best.model].P;
    std::vector<int> place = expand_tile(*torus, best, P, p.sym.n());
    report_band(p, best, P, cands.size(), all_cands, stair);
    return place;
}

} // namespace rankmap

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
// Deterministic for a seed.  The tile, its periodised graph and its
// annealing chain are in tile.hpp / tile.cpp; this file is the search.
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
#include "map/band/band.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>

#include "common/rng.hpp"
#include "map/band/tile.hpp"
#include "map/state/fast_distance.hpp"
#include "topology/torus.hpp"

namespace rankmap {

namespace {

using band::periodise;
using band::step_table;
using band::TileAnnealer;
using band::TileModel;
using band::translation_table;

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
    FastDistance dist;  // with the byte table up to dense_distance_max nodes
    BandSearch(const TorusTopology &t, const std::vector<TileModel> &m, const BandContext &bc, int mo,
               const Deadline &d)
        : torus(t), models(m), c(bc), maxoff(mo), dl(d), steps(step_table(t)),
          dist(t, bc.dense_distance_max) {}

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

// auto.cpp -- the default mapper: combines the structured and the general
// methods within a time budget and keeps the placement with the lowest F.
//
//   1. Structured candidate: when the tasks form a Cartesian grid (given in
//      Problem::grid, or found by recognize_grid in the symmetrized graph
//      even with scrambled labels), best_grid_embedding's placement
//      (seed 001 permutations, folds, Gray code ...).  If it reaches F_min
//      it is optimal and returned at once; otherwise Kernighan-Lin polishes
//      it and it stays a candidate.
//      On a tree topology the node-aware block map (hier_grid.cpp: per-node
//      boxes of least surface, then per socket ...) is a candidate too.
//   2. General path.  On a tree topology: the hierarchy mapper's
//      (hier.cpp: top-down multisection along the tiers and Scotch's tleaf
//      map as starts, Kernighan-Lin, cold annealing, the node tier's k-way
//      refinement of hier_kway.cpp, Kernighan-Lin).  On
//      every other topology: starts are the seed 000 greedy map, the
//      recursive co-bisection map (anneal_bisect.cpp), the graph-drawing
//      map (geometric.cpp: the graph drawn by pivot MDS and laid onto the
//      machine by coordinate bisection) and, when built with Scotch,
//      Scotch's map.  The best start is annealed hot (seed 000 schedule,
//      one chain over all tasks), the best non-greedy start -- the
//      geometric one when its F is within 10 % of the best -- is annealed
//      cold (4-6 % initial acceptance: it keeps its large-scale layout and
//      repairs the local one), and Kernighan-Lin pair exchange (seed 002)
//      polishes both.
//   3. Rank-ordered band graphs on a torus with one task per node (task t
//      talks to t +- d for a few fixed offsets d, weights repeating along
//      the ranks: SAGE's blocks dealt in (x,y,z) order): the
//      translation-periodic embedding of band.cpp, KL-polished, is one more
//      candidate.  When it beats every start the chains of step 2 get 40 %
//      of their work and a second band search the rest (see below).
//
// Budget: Options::time_limit when set; otherwise a default that grows
// with N, interpolated log-log through 0.7 s at 512 tasks, 3.8 s at 2048
// and 40 s at 32768 (at least 0.1 s; 75 s at 65536), under the targets of
// 1 s, 5 s and 60 s.  The annealing work is derived from the budget by a
// fixed nominal speed (3e7 partner-distance evaluations per second divided
// by 1 + N/32768 for cache effects, 70 % of the budget), not from the
// clock, so the result is deterministic for a seed (up to 4096 tasks the
// cold chain takes 90-150 % instead of 30 %: see below).  With
// Options::time_limit the deadline is hard (annealing shortens its steps,
// then stops, when behind); without it the default budget is a target and
// the work stops only at a safety net of min(10 x budget, budget + 15 s),
// but never before 10 s: small jobs have budgets of a tenth of a second, and
// a net that tight is reached on a loaded machine or under sanitizers, which
// would make the result depend on the clock.
//
// Cost: that of its parts -- O(N + E) for grid recognition, O(E log N) for
// greedy, O(sweeps * N * degree) for annealing; memory O(N + E + P K).
#include <cmath>
#include <numeric>

#include "map/anneal_state.hpp"
#include "map/band.hpp"
#include "map/grid.hpp"
#include "map/hier.hpp"

namespace rankmap {

namespace {

// Above this many tasks the hot chain is the divide-and-conquer variant.
// Measured at 2048 tasks the single chain beat dc-anneal at equal work on
// every workload, and it fits in memory at any size, so the limit is high.
constexpr int kFullAnnealMax = 1 << 30;
// Nominal annealing speed used to turn seconds into work: partner-distance
// evaluations per second on one core (a conservative figure, measured
// ~4-8e7 on the development machine).
constexpr double kNominalEvalsPerSecond = 3.0e7;
// Band graphs up to 1024 tasks (band.cpp): phase 1's share of the nominal
// work, the chains' scale when the band embedding beats every start, the
// extra work phase 2 then gets, and the tile annealing's start temperature.
// The general chains end far above the band result on such graphs
// (SAGE-like 512: ~1.55 against ~1.30), so up to 1024 tasks the band search
// gets most of the 1 s target.  Measured on SAGE-like 8x8x8, seeds 1-32,
// with the staircase prediction and the tile annealing ending at 0.35:
// F/F_min median 1.308 with phase 1 at 3.5 and phase 2 on the best two
// translations (19 of 32 seeds at or below 1.3096, 0.67 s), 1.295 with
// 4.6 and the best three (25 of 32, 0.75 s).  Start temperature 0.6 up to
// 1024 tasks; at 16x16x8 (tiles of 128) 1.0 did better (seeds 1-4 mean
// 1.423 against 1.434).
constexpr double kBandPhase1Small = 4.6;
constexpr double kBandChainScaleSmall = 0.15;
constexpr double kBandPhase2ExtraSmall = 4.0;
constexpr double kBandStartTemperatureSmall = 0.6;
// Phase 2 searches only phase 1's best few translations.
constexpr size_t kBandPhase2Translations = 3;

double default_budget(int n) {
    const double xs[] = {512, 2048, 32768}, ys[] = {0.7, 3.8, 40.0};
    double x = std::max(1, n), lx = std::log(x);
    int seg = x <= xs[1] ? 0 : 1;
    double t = (lx - std::log(xs[seg])) / (std::log(xs[seg + 1]) - std::log(xs[seg]));
    double ly = std::log(ys[seg]) + t * (std::log(ys[seg + 1]) - std::log(ys[seg]));
    return std::max(0.1, std::exp(ly));
}

double F_of(const Problem &p, const std::vector<int> &place) {
    PlacementState st(p.sym, p.topo, p.cap, place);
    return st.energy();
}

} // namespace

std::vector<int> map_auto(const Problem &p) {
    const int N = p.sym.n();
    // The work is sized from the budget's nominal value (deterministic); the
    // deadline itself is the caller's when given.
    // Without a time limit the default budget only sizes the work and the
    // hard deadline is 10x that, at least 10 s (a safety net for a heavily
    // loaded machine), so the result does not depend on the clock.
    const double budget = p.deadline.limit() > 0 ? p.deadline.limit() : default_budget(N);
    const Deadline dl = p.deadline.limit() > 0 ? p.deadline : Deadline(std::max(10.0, std::min(10 * budget, budget + 15)));
    const double tol = 1e-9 * std::max(1.0, p.f_min);

    std::vector<int> best;
    double bestF = 0;
    auto offer = [&](std::vector<int> &&cand) {
        if (cand.size() != static_cast<size_t>(N)) return;
        double f = F_of(p, cand);
        if (best.empty() || f < bestF - tol) {
            best = std::move(cand);
            bestF = f;
        }
    };

    // 1. Structured candidate.
    std::optional<RecognizedGrid> rec;
    if (!p.grid) rec = recognize_grid(p.sym);
    if (p.grid || rec) {
        try {
            std::vector<int> emb = p.grid ? best_grid_embedding(p, *p.grid, nullptr)
                                          : best_grid_embedding(p, rec->grid, &rec->task_at);
            if (emb.size() == static_cast<size_t>(N)) {
                std::vector<int> place(N, -1);
                for (int g = 0; g < N; ++g) place[p.grid ? g : rec->task_at[g]] = emb[g];
                check_placement(p.topo, N, place);
                offer(std::move(place));
                if (!best.empty() && bestF <= p.f_min + tol) return best;
                // Trees: the node-aware block map (least inter-node surface).
                if (as_tree(p.topo)) {
                    std::string why;
                    std::vector<int> blocks = tree_grid_blocks(p, p.grid ? *p.grid : rec->grid,
                                                               p.grid ? nullptr : &rec->task_at, &why);
                    if (blocks.empty()) {
                        if (p.progress) p.progress("auto: no node-aware grid blocks (" + why + ")");
                    } else {
                        std::vector<int> bp(N, -1);
                        for (int g = 0; g < N; ++g) bp[p.grid ? g : rec->task_at[g]] = blocks[g];
                        offer(std::move(bp));
                    }
                }
                if (!best.empty()) {
                    std::vector<int> pol = best;
                    kl_refine(p, pol, dl.share(0.1));
                    offer(std::move(pol));
                }
            }
        } catch (const Error &) {
            // No structured embedding for this grid/topology: general path only.
        }
    }

    // 2'. Trees: the hierarchy mapper's general path (hier.cpp): top-down
    //     multisection along the tiers and Scotch's tleaf map as starts,
    //     Kernighan-Lin, cold annealing, Kernighan-Lin.
    if (as_tree(p.topo)) {
        offer(tree_refined_map(p, dl));
        return best;
    }

    // 2. General path.  Starts: the seed 000 greedy map, the recursive
    //    co-bisection map, the geometric map and, when built with Scotch,
    //    Scotch's map.  The best start is annealed hot (seed 000 schedule),
    //    the best start other than greedy (or the geometric one, see below)
    //    is annealed cold (it keeps its large-scale layout and repairs the
    //    local one), and Kernighan-Lin polishes both.
    //    Shares of the nominal work: 40 / 30 % (40 / 90 % up to 1024 tasks, 40 / 150 % up to 4096).
    const double degsum = static_cast<double>(p.sym.nedges()) / std::max(1, N);
    // Large graphs run slower per evaluation (cache misses): scale down.
    const double speed = kNominalEvalsPerSecond / (1.0 + N / 32768.0);
    const double props = speed * budget / (2.0 * degsum + 4.0);
    auto sweeps_for = [&](double share) { return std::clamp(props * share / std::max(1, N), 30.0, 5000.0); };
    std::vector<int> greedy = map_greedy(p);
    std::vector<std::pair<double, std::vector<int>>> starts;
    auto add_start = [&](std::vector<int> &&pl) {
        if (pl.size() != static_cast<size_t>(N)) return;
        double f = F_of(p, pl);
        starts.push_back({f, std::move(pl)});
    };
    if (!dl.expired()) add_start(bisection_map(p, p.opt.seed));
    std::vector<int> geo;  // the geometric start (geometric.cpp), if any
    double geoF = 0;
    if (!dl.expired()) {
        std::string why;
        Problem q = p;
        q.deadline = dl.share(0.3);
        geo = geometric_map(q, p.opt.seed, &why);
        if (geo.empty() && p.progress) p.progress("auto: no geometric start (" + why + ")");
        if (!geo.empty()) geoF = F_of(p, geo);
        add_start(std::vector<int>(geo));
    }
    if (!dl.expired()) {
        try {
            add_start(map_scotch(p));
        } catch (const Error &) {
            // built without Scotch, or Scotch declined: fine.
        }
    }
    std::stable_sort(starts.begin(), starts.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    NearNodes near(p.topo, near_count(p.topo));
    // Initial acceptance of the cold chain.  From the geometric start
    // (UMT-like, seeds 1-4, same work) 4 % beat 6 % on 8x8x8 by 0.02-0.04
    // F/F_min on every seed, and lost to it on 16x16x8 by 0.01-0.06.
    const double cold_target = N <= 1024 ? 0.04 : 0.06;
    std::vector<int> all(N);
    std::iota(all.begin(), all.end(), 0);
    auto anneal_from = [&](const std::vector<int> &pl, bool cold, double work, double time_share,
                           uint64_t salt) {
        if (N > kFullAnnealMax && !cold) {
            Problem q = p;
            q.deadline = dl.share(time_share);
            return divide_anneal_with_leaves(q, nullptr, sweeps_for(work));
        }
        PlacementState st(p.sym, p.topo, p.cap, pl);
        AnnealParams ap;
        ap.steps = p.opt.anneal_steps;
        ap.sweeps = sweeps_for(work);
        ap.from_cold = cold;
        ap.cold_target = cold_target;
        ap.f_norm = p.f_min;
        ap.trace = cold ? nullptr : p.trace;
        ap.progress = &p.progress;
        Rng rng(p.opt.seed * 0x9e3779b97f4a7c15ULL + salt);
        anneal_tasks(st, all, near, ap, rng, dl.share(time_share));
        return st.place();
    };
    // Hot: from the best start overall; cold: from the best non-greedy start.
    // The geometric start has the global layout right and its local
    // roughness is what the cold chain repairs, so its F overstates where
    // the chain ends: it is the cold start when within 10 % of the best
    // start's F.  Measured: UMT-like 32x32x32, geometric 2.645 F/F_min and
    // Scotch 2.64; the cold chain from them ends near 1.87 and at 2.20.
    const std::vector<int> &best_start = starts.empty() ? greedy : starts[0].second;
    const std::vector<int> &cold_start =
        !geo.empty() && !starts.empty() && geoF <= 1.1 * starts[0].first ? geo : best_start;
    const double fgreedy = F_of(p, greedy);
    const std::vector<int> &hot_start = (starts.empty() || fgreedy <= starts[0].first) ? greedy : best_start;
    // The cold chain (from Scotch's or the co-bisection map) keeps gaining
    // with work where the hot one saturates, and the nominal speed leaves
    // room under the 1 s / 5 s targets, so up to 4096 tasks it gets 3-5x
    // its old share.  Measured (F/F_min, quiet machine): UMT-like 8x8x8
    // 1.691 -> 1.608 (0.9; hot 0.4 -> 1.2 only gave 1.647), 16x16x8 SAGE
    // 1.619 -> 1.552 and UMT 1.697 -> 1.657 (1.5; 1.0 -> 2.6 s instead of
    // 1.0 s).  Larger problems keep 0.3 (their 60 s target is tighter).
    const double cold_share = N <= 1024 ? 0.9 : N <= 4096 ? 1.5 : 0.3;
    // 3. Rank-ordered band graphs (fixed rank offsets, weights repeating
    //    along the ranks) on a torus: the translation-periodic embedding
    //    (band.cpp), polished by Kernighan-Lin, is one more candidate (it
    //    does not feed the chains).  Phase 1 gets 30 % of the nominal work
    //    (kBandPhase1Small = 4.6 x up to 1024 tasks).  When its F beats
    //    every start, the chains get 40 % of their work (15 % up to 1024
    //    tasks) and phase 2, a band search with another seed on phase 1's
    //    best three translations, gets the difference and more
    //    (kBandPhase2ExtraSmall): on such graphs the chains end well above
    //    the band result (SAGE-like 1.55 against ~1.32), so the work goes
    //    where it pays; on a band graph where the chains would have won,
    //    auto's F can be higher than with full chains.  congestion's starts
    //    (Options::link_starts) keep the band search as it was before
    //    these settings (see band.hpp for why).
    //    Deterministic: decided by F, not by the clock.  Times in the README.
    double chain_scale = 1.0;
    if (!dl.expired()) {
        std::string why;
        // small: the F-tuned shares up to 1024 tasks, unless these are
        // congestion's starts (Options::link_starts: the old shares and
        // uniform partner choice, see band.hpp).
        const bool small = N <= 1024 && !p.opt.link_starts;
        const double phase1 = small ? kBandPhase1Small : N <= 1024 ? 1.5 : 0.3;
        Problem q = p;
        q.deadline = dl.share(0.5);
        std::vector<std::vector<int>> ranking;
        BandOptions bo;
        bo.weighted_partners = !p.opt.link_starts;
        bo.staircase = !p.opt.link_starts;
        bo.start_temperature = small ? kBandStartTemperatureSmall : 1.0;
        if (p.opt.link_starts) bo.end_temperature = 0.05;  // the old schedule
        bo.ranking = &ranking;
        std::vector<int> band = band_embedding(q, speed * budget * phase1, &why, bo);
        if (band.empty()) {
            if (p.progress) p.progress("auto: no band embedding (" + why + ")");
        } else {
            kl_refine(p, band, dl.share(0.1));
            const double fb = F_of(p, band);
            offer(std::move(band));
            if (fb < fgreedy && (starts.empty() || fb < starts[0].first) && !dl.expired()) {
                chain_scale = small ? kBandChainScaleSmall : 0.4;
                // The chains' saved work, plus 0.5 x the nominal budget up to
                // 4096 tasks (room left under the 1 s / 5 s targets).
                const double phase2 = (1 - chain_scale) * (0.4 + cold_share) + (N <= 4096 ? 0.5 : 0.0) +
                                      (small ? kBandPhase2ExtraSmall : 0.0);
                q.opt.seed = p.opt.seed + 0x5eed;
                q.deadline = dl.share(0.5);
                if (p.opt.link_starts) ranking.clear();  // as before: phase 2 searches every translation
                if (ranking.size() > kBandPhase2Translations) ranking.resize(kBandPhase2Translations);
                std::vector<int> band2 = band_embedding(q, speed * budget * phase2, &why, bo);
                if (!band2.empty()) {
                    kl_refine(p, band2, dl.share(0.1));
                    offer(std::move(band2));
                }
            }
        }
    }
    std::vector<int> hot = anneal_from(hot_start, false, 0.4 * chain_scale, 0.5, 0xa070);
    kl_refine(p, hot, dl.share(0.2));
    offer(std::move(hot));
    if (!dl.expired()) {
        std::vector<int> cold = anneal_from(cold_start, true, cold_share * chain_scale, 0.85, 0xc01d);
        kl_refine(p, cold, dl.share(0.9));
        offer(std::move(cold));
    }
    offer(std::move(greedy));
    for (auto &st : starts) offer(std::move(st.second));
    return best;
}

} // namespace rankmap

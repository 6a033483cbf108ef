// anneal.cpp -- simulated annealing of Bhanot et al. (BG/L task layout),
// "The method", equation 4.
//
// A Metropolis Markov chain over placements: a proposal swaps two tasks or
// moves one task to a node with spare room (only moves keeping
// Int(p) <= n <= Int(p+1)), and is accepted iff R < exp(-beta dF / F_min)
// (energies normalised by F_min).  The initial beta is tuned on a sample of
// proposals so that ~15 % of them would be accepted (Bhanot et al.: 10-20 %)
// and raised during a short warm-up until the chain's equilibrium
// acceptance is at most 20 % (a good start otherwise melts); the final beta so that the smallest uphill moves are accepted ~0.1 % of
// the time, with Options::anneal_steps (100) geometric beta steps between.
//
// Speed: each proposal costs O(degree) (PlacementState's incremental
// delta), not a recomputation of F.  90 % of proposals are local -- task a
// goes to one of the K nodes nearest to a partner j (chosen with
// probability proportional to w(a,j)), swapping with whatever sits there --
// and 10 % go to a uniformly random node, so both fine and long-range
// rearrangements are tried.  The amount of work is a fixed number of
// proposals per task (deterministic for a seed); the deadline only cuts a
// run short.  The best placement seen (at the end of a beta step, or the
// start) is returned, so annealing never worsens its start.  from_cold
// (anneal_refine, `auto`) starts at ~3-6 % acceptance instead: a
// refinement that keeps the start's large-scale layout.
//
// Cost: O(sweeps * N * degree) time, O(N + E + P K) memory.
#include <cmath>
#include <cstdio>
#include <numeric>

#include "config.h"  // RANKMAP_DEBUG_CHECKS (configure --enable-debug-checks)
#include "map/refinement/refinement.hpp"

namespace rankmap {

namespace {

struct Proposal {
    int kind = 0;  // 0 none, 1 move (a -> node), 2 swap (a <-> b)
    int a = -1, b = -1, node = -1;
    double delta = 0;
};

class Annealer {
public:
    Annealer(PlacementState &st, const std::vector<int> &movable, const NearNodes &near, Rng &rng,
             double local_fraction)
        : st_(st), g_(st.graph()), mov_(movable), near_(near), rng_(rng), local_(local_fraction) {
        const int N = st.ntasks();
        ismov_.assign(N, 0);
        for (int t : movable) ismov_[t] = 1;
    }

    Proposal propose() {
        Proposal pr;
        const int M = static_cast<int>(mov_.size());
        const int P = st_.nnodes(), K = near_.k(), hi = st_.cap().hi;
        int a = mov_[rng_.below(M)];
        int pa = st_.node_of(a);
        int target;
        int64_t b0 = g_.begin(a), b1 = g_.end(a);
        // a's neighbours and weights are read by the delta below: fetch their
        // rows while the partner is drawn (on large graphs each row is a
        // cache miss, and the misses otherwise come one after another).
        __builtin_prefetch(g_.adj().data() + b0);
        __builtin_prefetch(g_.weights().data() + b0);
        if (b1 > b0 && rng_.uniform() < local_) {
            // Partner drawn with probability proportional to its weight: the
            // first edge whose running weight sum exceeds r.  The sums are
            // taken over the row that the delta reads anyway (a table of
            // them would be one more cache miss per proposal).
            const double *w = g_.weights().data();
            double tot = 0;
            for (int64_t x = b0; x < b1; ++x) tot += w[x];
            int64_t e;
            if (tot > 0) {
                double r = rng_.uniform() * tot, sum = 0;
                for (e = b0; e < b1 - 1; ++e) {
                    sum += w[e];
                    if (sum > r) break;
                }
            } else {
                e = b0 + rng_.below(static_cast<uint32_t>(b1 - b0));
            }
            int pj = st_.node_of(g_.target(e));
            target = pj >= 0 ? near_.at(pj, static_cast<int>(rng_.below(K))) : static_cast<int>(rng_.below(P));
        } else {
            target = static_cast<int>(rng_.below(P));
        }
        if (target == pa) return pr;
        int s = static_cast<int>(rng_.below(hi));
        if (s < st_.count(target)) {
            int b = st_.task_at(target, s);
            if (!ismov_[b]) return pr;
            st_.prefetch_rows(b);
            pr.kind = 2;
            pr.a = a;
            pr.b = b;
            pr.delta = st_.delta_swap(a, b);
        } else {
            if (!st_.can_move(a, target)) return pr;
            pr.kind = 1;
            pr.a = a;
            pr.node = target;
            pr.delta = st_.delta_move(a, target);
        }
        return pr;
    }

    void apply(const Proposal &pr) {
        if (pr.kind == 1) st_.apply_move(pr.a, pr.node, pr.delta);
        else if (pr.kind == 2) st_.apply_swap(pr.a, pr.b, pr.delta);
    }

private:
    PlacementState &st_;
    const Graph &g_;
    const std::vector<int> &mov_;
    const NearNodes &near_;
    Rng &rng_;
    double local_;
    std::vector<char> ismov_;
};

// Beta at which the sampled proposals' acceptance is `target`.
double solve_beta(const std::vector<double> &up, size_t ndown, double target) {
    const double n = static_cast<double>(up.size() + ndown);
    double base = static_cast<double>(ndown) / n;
    double denom = n;
    if (base >= target) {  // zero-cost moves alone exceed the target: tune uphill only
        base = 0;
        denom = static_cast<double>(up.size());
    }
    auto acc = [&](double beta) {
        double s = 0;
        for (double d : up) s += std::exp(-beta * d);
        return base + s / denom;
    };
    double lo = 1e-9, hi = 1e12;
    for (int it = 0; it < 100; ++it) {
        double mid = std::sqrt(lo * hi);
        if (acc(mid) > target) lo = mid;
        else hi = mid;
        if (hi / lo < 1.0001) break;
    }
    return std::sqrt(lo * hi);
}

// Metropolis rule at inverse temperature beta: one proposal, applied when
// accepted.  Returns 0 (no proposal), 1 (rejected) or 2 (accepted).
int metropolis(Annealer &an, Rng &rng, double beta, double fnorm) {
    Proposal pr = an.propose();
    if (pr.kind == 0) return 0;
    double x = beta * pr.delta / fnorm;
    if (x <= 0 || below_exp_neg(rng.uniform(), x)) {
        an.apply(pr);
        return 2;
    }
    return 1;
}

// The beta range, calibrated on a sample of proposals (not applied): the
// initial beta accepts the target share of them, the final one accepts the
// small uphill moves once in uphill_odds tries.  False when no proposal
// goes uphill (nothing to anneal).
bool calibrate(Annealer &an, int M, double fnorm, const AnnealParams &ap, double &beta0, double &beta1) {
    const AnnealContext &c = ap.tuning;
    const int sample = std::min(c.calibration_max, std::max(c.calibration_min, c.calibration_per_task * M));
    std::vector<double> up;
    size_t ndown = 0;
    for (int i = 0; i < sample; ++i) {
        Proposal pr = an.propose();
        if (pr.kind == 0) continue;
        double d = pr.delta / fnorm;
        if (d > 1e-12) up.push_back(d);
        else ++ndown;
    }
    if (up.empty()) return false;
    std::sort(up.begin(), up.end());
    beta0 = solve_beta(up, ndown, ap.from_cold ? c.cold_acceptance : c.hot_acceptance);
    double dsmall = up[up.size() / c.small_uphill_quantile];
    beta1 = std::max(beta0 * c.final_beta_factor, std::log(c.uphill_odds) / dsmall);
    return true;
}

// The sample measured the start placement; once the chain reaches
// equilibrium at beta0 its acceptance may be higher (a good start melts).
// Warm up at beta0 and raise it until the equilibrium acceptance is within
// the limit (at most warmup_rounds rounds of pps / warmup_round_divisor
// proposals).
double warm_up(Annealer &an, Rng &rng, const AnnealParams &ap, double beta0, double beta1, int64_t pps,
               double fnorm, const Deadline &dl) {
    const AnnealContext &c = ap.tuning;
    const double acc_max = ap.from_cold ? c.cold_equilibrium_factor * c.cold_acceptance : c.hot_equilibrium_max;
    for (int round = 0; round < c.warmup_rounds && beta1 > beta0 * 2 && !dl.expired(); ++round) {
        int64_t tried = 0, accepted = 0;
        for (int64_t i = 0; i < pps / c.warmup_round_divisor; ++i) {
            const int r = metropolis(an, rng, beta0, fnorm);
            tried += r > 0;
            accepted += r == 2;
        }
        if (!tried || static_cast<double>(accepted) / tried <= acc_max) break;
        beta0 *= c.warmup_beta_factor;
    }
    return beta0;
}

// Proposals of the next beta step.  On a slow or loaded machine a caller's
// time limit would cut the chain while it is still hot (wasted work): if
// the remaining steps at the measured speed would not fit, shorten them so
// the chain still cools fully.  Never triggers when the time suffices, nor
// against a safety net (results stay deterministic).
int64_t step_length(const Deadline &dl, double t0, int64_t done, int64_t pps, int steps_left, double margin) {
    if (!std::isfinite(dl.remaining()) || dl.is_safety_net() || done <= 0) return pps;
    double per = (dl.elapsed() - t0) / static_cast<double>(done);
    double need = per * static_cast<double>(pps) * steps_left;
    double rem = margin * dl.remaining();
    if (need > rem) return std::max<int64_t>(1, static_cast<int64_t>(pps * std::max(0.0, rem) / need));
    return pps;
}

void check_incremental_energy([[maybe_unused]] const PlacementState &st) {
#ifdef RANKMAP_DEBUG_CHECKS
    double full = st.full_energy();
    if (std::abs(full - st.energy()) > 1e-6 * std::max(1.0, full))
        throw Error("anneal: incremental energy drifted from the full recomputation", ErrorKind::Internal);
#endif
}

void report_step(const AnnealParams &ap, int step, int steps, double beta, double ratio, double acc) {
    if (ap.trace) ap.trace->push_back({step, beta, ratio, acc});
    if (ap.progress && *ap.progress && (step % 10 == 9 || step == steps - 1)) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "anneal step %d/%d beta %.4g F/Fmin %.4f accept %.3f", step + 1, steps,
                      beta, ratio, acc);
        (*ap.progress)(buf);
    }
}

} // namespace

void anneal_tasks(PlacementState &st, const std::vector<int> &movable, const NearNodes &near,
                  const AnnealParams &ap, Rng &rng, const Deadline &dl) {
    const int M = static_cast<int>(movable.size());
    if (M == 0 || st.nnodes() < 2) return;
    st.resync();
    if (st.energy() <= 0) return;  // nothing to gain (distances are >= 0)
    const double fnorm = ap.f_norm > 0 ? ap.f_norm : st.energy();
    Annealer an(st, movable, near, rng, ap.tuning.local_fraction);
    double beta0 = 0, beta1 = 0;
    if (!calibrate(an, M, fnorm, ap, beta0, beta1)) return;
    const int steps = std::max(1, ap.steps);
    int64_t pps = ap.proposals_per_step;
    if (pps <= 0) {
        double sweeps = ap.sweeps > 0 ? ap.sweeps : ap.tuning.default_sweeps;
        pps = std::max<int64_t>(M, static_cast<int64_t>(sweeps * M / steps));
    }
    // Best placement seen (the start included): returned at the end.
    double bestF = st.energy();
    std::vector<int> best(M);
    for (int i = 0; i < M; ++i) best[i] = st.node_of(movable[i]);
    beta0 = warm_up(an, rng, ap, beta0, beta1, pps, fnorm, dl);
    const double ratio = steps > 1 ? std::pow(beta1 / beta0, 1.0 / (steps - 1)) : 1.0;
    bool stop = false;
    double beta = beta0;
    const double t0 = dl.elapsed();
    int64_t done = 0;
    for (int step = 0; step < steps && !stop; ++step, beta *= ratio) {
        int64_t tried = 0, accepted = 0;
        const int64_t len = step_length(dl, t0, done, pps, steps - step, ap.tuning.step_time_margin);
        for (int64_t i = 0; i < len; ++i, ++done) {
            if ((i & 2047) == 0 && dl.expired()) {
                stop = true;
                break;
            }
            const int r = metropolis(an, rng, beta, fnorm);
            tried += r > 0;
            accepted += r == 2;
        }
        check_incremental_energy(st);
        if (st.energy() < bestF - 1e-9 * std::max(1.0, bestF)) {
            bestF = st.energy();
            for (int i = 0; i < M; ++i) best[i] = st.node_of(movable[i]);
        }
        report_step(ap, step, steps, beta, st.energy() / fnorm, tried ? static_cast<double>(accepted) / tried : 0.0);
    }
    st.resync();
    if (bestF < st.energy() - 1e-9 * std::max(1.0, bestF)) {
        for (int t : movable) st.unplace_task(t);
        for (int i = 0; i < M; ++i) st.place_task(movable[i], best[i]);
        st.resync();
    }
}

void anneal_refine(const Problem &p, std::vector<int> &place, const Deadline &dl, bool from_cold) {
    PlacementState st(p.sym, p.topo, p.cap, place);
    NearNodes near(p.topo, near_count(p.topo));
    std::vector<int> all(p.sym.n());
    std::iota(all.begin(), all.end(), 0);
    AnnealParams ap;
    ap.steps = p.opt.anneal_steps;
    ap.from_cold = from_cold;
    ap.sweeps = from_cold ? ap.tuning.refine_sweeps_cold : ap.tuning.refine_sweeps_hot;
    ap.f_norm = p.f_min;
    ap.trace = p.trace;
    ap.progress = &p.progress;
    Rng rng = rng_stream(p.opt.seed, 0xa11ea1);
    anneal_tasks(st, all, near, ap, rng, dl);
    place = st.place();
}

std::vector<int> map_anneal(const Problem &p) {
    std::vector<int> place = map_greedy(p);
    anneal_refine(p, place, p.deadline, false);
    return place;
}

} // namespace rankmap

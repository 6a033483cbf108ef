// auto.cpp -- the default mapper: combines the structured and the general
// methods within a time budget and keeps the placement with the lowest F.
//
//   1. Structured candidate: when the tasks form a Cartesian grid (given in
//      Problem::grid, or found by recognize_grid in the symmetrized graph
//      even with scrambled labels), best_grid_embedding's placement
//      (seed 001 permutations, folds, Gray code ...).  If it reaches F_min
//      it is optimal and returned at once; otherwise Kernighan-Lin polishes
//      it and it stays a candidate.
//   2. General path, always: the seed 000 greedy map, then simulated
//      annealing -- one chain over all tasks up to 8192 tasks, the
//      divide-and-conquer variant (Figure 4) above -- then Kernighan-Lin
//      pair exchange (seed 002) to finish.
//
// Budget: Options::time_limit when set; otherwise a default that grows
// with N, interpolated log-log through 0.5 s at 512 tasks, 3 s at 2048 and
// 40 s at 32768 (about 0.1 s at 64 tasks, 80 s at 65536).  The amount of
// annealing work is derived from the budget by a fixed nominal speed, not
// from the clock, so the result is deterministic for a seed; the deadline
// only cuts work short on a slow or loaded machine.
//
// Cost: that of its parts -- O(N + E) for grid recognition, O(E log N) for
// greedy, O(sweeps * N * degree) for annealing; memory O(N + E + P K).
#include <cmath>
#include <numeric>

#include "map/anneal_state.hpp"
#include "map/grid.hpp"

namespace rankmap {

namespace {

constexpr int kFullAnnealMax = 8192;
// Nominal annealing speed used to turn seconds into work: partner-distance
// evaluations per second on one core (a conservative figure, measured
// ~4-8e7 on the development machine).
constexpr double kNominalEvalsPerSecond = 2.0e7;

double default_budget(int n) {
    const double xs[] = {512, 2048, 32768}, ys[] = {0.5, 3.0, 40.0};
    double x = std::max(1, n), lx = std::log(x);
    int seg = x <= xs[1] ? 0 : 1;
    double t = (lx - std::log(xs[seg])) / (std::log(xs[seg + 1]) - std::log(xs[seg]));
    double ly = std::log(ys[seg]) + t * (std::log(ys[seg + 1]) - std::log(ys[seg]));
    return std::max(0.05, std::exp(ly));
}

double F_of(const Problem &p, const std::vector<int> &place) {
    PlacementState st(p.sym, p.topo, p.cap, place);
    return st.energy();
}

} // namespace

double auto_default_budget(int ntasks) { return default_budget(ntasks); }

std::vector<int> map_auto(const Problem &p) {
    const int N = p.sym.n();
    const double budget = p.deadline.limit() > 0 ? std::max(1e-3, p.deadline.remaining())
                                                 : default_budget(N);
    const Deadline dl(budget);
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

    // 2. General path: greedy -> annealing -> Kernighan-Lin.
    std::vector<int> place = map_greedy(p);
    {
        double degsum = static_cast<double>(p.sym.nedges()) / std::max(1, N);
        double evals_per_prop = 2.0 * degsum + 4.0;
        double work = kNominalEvalsPerSecond * budget * 0.75 / evals_per_prop;  // proposals
        double sweeps = std::clamp(work / std::max(1, N), 50.0, 4000.0);
        Problem q = p;
        if (N <= kFullAnnealMax) {
            PlacementState st(p.sym, p.topo, p.cap, place);
            NearNodes near(p.topo, near_count(p.topo));
            std::vector<int> all(N);
            std::iota(all.begin(), all.end(), 0);
            AnnealParams ap;
            ap.steps = p.opt.anneal_steps;
            ap.sweeps = sweeps;
            ap.f_norm = p.f_min;
            ap.trace = p.trace;
            ap.progress = &p.progress;
            Rng rng(p.opt.seed * 0x9e3779b97f4a7c15ULL + 0xa070);
            anneal_tasks(st, all, near, ap, rng, dl.share(0.9));
            place = st.place();
        } else {
            q.deadline = dl.share(0.9);
            place = map_divide_anneal(q);
        }
    }
    kl_refine(p, place, dl.share(0.9));
    offer(std::move(place));
    return best;
}

} // namespace rankmap

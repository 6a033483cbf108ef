// auto.cpp -- the default mapper: combines the structured and the general
// methods within a time budget and keeps the placement with the lowest F.
// Its numbers are an AutoContext (tuning.hpp; auto_preset by size for the
// quality strategy, auto_fast_preset for the fast one, auto_link_load_preset
// for congestion's starts), documented in doc/tuning.md.  The steps, in the
// order AutoRun::run takes them:
//
//   1. Structured candidate: when the tasks form a Cartesian grid (given in
//      Problem::grid, or found by recognize_grid in the symmetrized graph
//      even with scrambled labels), best_grid_embedding's placement
//      (the permutations, folds, Gray code ... of Smith and Bode, BG/L node
//      mappings).  If it reaches F_min it is optimal and returned at once;
//      otherwise Kernighan-Lin polishes it and it stays a candidate -- or ends
//      auto when within the context's accepted ratio of F_min (above 1024
//      tasks).  On a tree topology the node-aware block map (hier/grid_blocks.cpp) is
//      a candidate too.
//   2. Trees: the hierarchy mapper's general path (hier.cpp: top-down
//      multisection along the tiers and Scotch's tleaf map as starts,
//      Kernighan-Lin, cold annealing, the node tier's k-way refinement,
//      Kernighan-Lin), and auto ends there.
//   3. Every other topology: starts are the greedy map of Bhanot et al. (BG/L
//      task layout), the recursive co-bisection map (initial/cobisection.cpp), the
//      graph-drawing map (geometric.cpp) and, when built with Scotch, Scotch's
//      map (co-bisection and Scotch up to a size set by the context: they cost
//      seconds at 65,536 tasks).
//   4. Rank-ordered band graphs on a torus with one task per node (unless
//      the context turns the band search off; task t
//      talks to t +- d for a few fixed offsets d, weights repeating along
//      the ranks): the translation-periodic embedding of band.cpp,
//      KL-polished, is one more candidate.  When it beats every start the
//      chains of step 5 get a fraction of their work and a second band
//      search the rest: on such graphs the chains end well above the band
//      result, so the work goes where it pays.  Unless the context says
//      otherwise the chains are then left out altogether, and with them the
//      graph drawing (a chain start), which waits for the band search.
//   4b. Above the context's multilevel threshold (32,768 tasks), when the
//      band search has not won: the multilevel start (multilevel.cpp:
//      groups of a 2x2x2 block's size mapped onto the machine of blocks by
//      auto itself, then projected), a cold chain over all tasks and
//      Kernighan-Lin.  It replaces the graph drawing and step 5 unless the
//      context runs them too (quality), and the lower F wins.
//   5. The best start is annealed hot (the schedule of Bhanot et al., one
//      chain over all tasks; the geometric start instead when the context says
//      so; no hot chain when its share is 0, or on a 3-D torus whose extents
//      are all at least the context's hot_skip_min_extent), the best
//      non-greedy start -- the geometric one when its F is close to the best
//      -- is annealed cold (a few % initial acceptance: it keeps its
//      large-scale layout and repairs the local one; no cold chain when its
//      share is 0, or, when the context says so, when the hot chain already
//      annealed the start it would take or when it would take another start),
//      and Kernighan-Lin pair exchange (Chen et al., MPIPP) polishes both (a
//      bounded number of passes when the context says so).
//
// Budget: Options::time_limit when set; otherwise a default that grows
// with N, interpolated log-log through AutoContext::budget_tasks /
// budget_seconds.  The annealing and band work is derived from the budget
// by a fixed nominal speed (AutoContext::evals_per_second, lowered for
// cache effects on large N), not from the clock, so the result is
// deterministic for a seed.  With Options::time_limit the deadline is hard
// (annealing shortens its steps, then stops, when behind); without it the
// default budget is a target and the work stops only at a safety net
// (net_factor x budget or budget + net_extra, at least net_min): small jobs
// have budgets of a tenth of a second, and a net that tight is reached on
// a loaded machine or under sanitizers, which would make the result depend
// on the clock.  The steps' shares of a net are the whole net
// (Deadline::safety_net), so no step is cut short before the net itself
// runs out, and then the result says so (Problem::stopped_by_clock).
//
// Cost: that of its parts -- O(N + E) for grid recognition, O(E log N) for
// greedy, O(sweeps * N * degree) for annealing; memory O(N + E + P K).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/rng.hpp"
#include "map/band/band.hpp"
#include "map/cartesian/grid.hpp"
#include "map/hier/hier.hpp"
#include "map/initial/initial.hpp"
#include "map/initial/multilevel.hpp"
#include "map/refinement/refinement.hpp"
#include "map/tuning.hpp"
#include "topology/torus.hpp"

namespace rankmap {

namespace {

double default_budget(const AutoContext &c, int n) {
    const auto &xs = c.budget_tasks, &ys = c.budget_seconds;
    double x = std::max(1, n), lx = std::log(x);
    int seg = x <= xs[1] ? 0 : 1;
    double t = (lx - std::log(xs[seg])) / (std::log(xs[seg + 1]) - std::log(xs[seg]));
    double ly = std::log(ys[seg]) + t * (std::log(ys[seg + 1]) - std::log(ys[seg]));
    return std::max(c.min_budget, std::exp(ly));
}

double F_of(const Problem &p, const std::vector<int> &place) {
    PlacementState st(p.sym, p.topo, p.cap, place);
    return st.energy();
}

// One run of auto: the candidates offered so far and the steps that make
// them, in the order run() calls them.
class AutoRun {
public:
    AutoRun(const Problem &p, const AutoContext &c)
        : p_(p), c_(c), N_(p.sym.n()),
          budget_(p.deadline.limit() > 0 ? p.deadline.limit() : default_budget(c, N_)),
          dl_(p.deadline.limit() > 0 ? p.deadline
                                     : Deadline::safety_net(std::max(
                                           c.net_min, std::min(c.net_factor * budget_, budget_ + c.net_extra)))),
          tol_(1e-9 * std::max(1.0, p.f_min)) {}

    std::vector<int> run() {
        steps();
        // the safety net (no caller's limit) ran out: say so
        if (p_.deadline.limit() <= 0 && dl_.expired() && p_.stopped_by_clock) *p_.stopped_by_clock = true;
        return std::move(best_);
    }

private:
    void steps() {
        if (structured_candidate()) return;
        if (as_tree(p_.topo)) {
            offer(tree_refined_map(p_, dl_, c_.hier));
            return;
        }
        general_starts();
        band_candidates();
        if (band_won_ && !c_.chains_after_band) {
            if (p_.progress) p_.progress("auto: no graph drawing and no chains (the band result beats every start)");
        } else if (!multilevel() || c_.multilevel.and_chains) {
            if (geometric_deferred_) geometric_start();
            choose_chain_starts();
            chains();
        }
        offer(std::move(greedy_));
        for (auto &st : starts_) offer(std::move(st.second));
    }

    void offer(std::vector<int> &&cand) {
        if (cand.size() != static_cast<size_t>(N_)) return;
        double f = F_of(p_, cand);
        if (best_.empty() || f < bestF_ - tol_) {
            best_ = std::move(cand);
            bestF_ = f;
        }
    }
    // Adds a start where it keeps starts_ sorted by F (after its equals).
    void add_start(const char *name, std::vector<int> &&pl) {
        if (pl.size() != static_cast<size_t>(N_)) return;
        double f = F_of(p_, pl);
        say(std::string("start ") + name, f);
        auto at = std::upper_bound(starts_.begin(), starts_.end(), f,
                                   [](double x, const auto &s) { return x < s.first; });
        starts_.insert(at, {f, std::move(pl)});
    }
    // A step's result on the progress line (verbose output): its F and when it ended.
    void say(const std::string &what, double f) const {
        if (p_.progress)
            p_.progress("auto: " + what + " F/F_min " + std::to_string(f / p_.f_min) + " at " +
                        std::to_string(dl_.elapsed()) + " s");
    }
    void report(const char *what, const std::vector<int> &pl) const {
        if (p_.progress) say(what, F_of(p_, pl));
    }
    // Proposals per task for a chain given `share` of the nominal work.
    double sweeps_for(double share) const {
        return std::clamp(props_ * share / std::max(1, N_), c_.min_sweeps, c_.max_sweeps);
    }
    bool band_beats_starts(double fb) const {
        return fb < fgreedy_ && (starts_.empty() || fb < starts_[0].first);
    }

    bool structured_candidate();
    void tree_block_candidate(const CartGrid &grid, const std::vector<int> *task_at);
    void general_starts();
    void geometric_start();
    void choose_chain_starts();
    void band_candidates();
    bool multilevel();
    std::vector<int> anneal_from(const std::vector<int> &pl, bool cold, double sweeps, double cold_acceptance,
                                 double time_share, uint64_t salt);
    void chain(const std::string &name, const std::vector<int> &start, bool cold, double share, double time_share,
               double kl_share, uint64_t salt);
    void chains();

    const Problem &p_;
    const AutoContext &c_;
    const int N_;
    const double budget_;  // seconds: sizes the work (deterministic)
    const Deadline dl_;    // the caller's deadline, or the safety net
    const double tol_;
    std::vector<int> best_;
    double bestF_ = 0;
    // General path.
    double speed_ = 0, props_ = 0;  // nominal evaluations per second; proposals in the budget
    std::vector<int> greedy_, geo_;
    double geoF_ = 0, fgreedy_ = 0;
    std::vector<std::pair<double, std::vector<int>>> starts_;  // (F, placement), best first
    std::optional<NearNodes> near_;
    const std::vector<int> *hot_start_ = nullptr, *cold_start_ = nullptr;
    double chain_scale_ = 1.0;  // chains' work scale (lowered when the band result wins)
    bool band_won_ = false;     // the band result beats every start
    bool geometric_deferred_ = false;  // the graph-drawing start waits for the band search
};

// 1. Structured candidate: the best grid embedding when the tasks form a
// Cartesian grid, the node-aware block map on a tree, KL-polished.  True
// when it reaches F_min (optimal: auto returns it at once).
bool AutoRun::structured_candidate() {
    std::optional<RecognizedGrid> rec;
    if (!p_.grid) rec = recognize_grid(p_.sym);
    if (!p_.grid && !rec) return false;
    const CartGrid &grid = p_.grid ? *p_.grid : rec->grid;
    const std::vector<int> *task_at = p_.grid ? nullptr : &rec->task_at;
    try {
        std::vector<int> emb = best_grid_embedding(p_, grid, task_at);
        if (emb.size() != static_cast<size_t>(N_)) return false;
        std::vector<int> place(N_, -1);
        for (int g = 0; g < N_; ++g) place[task_at ? (*task_at)[g] : g] = emb[g];
        check_placement(p_.topo, N_, place);
        offer(std::move(place));
        if (!best_.empty() && bestF_ <= p_.f_min + tol_) return true;
        if (as_tree(p_.topo)) tree_block_candidate(grid, task_at);
        if (!best_.empty()) {
            std::vector<int> pol = best_;
            kl_refine(p_, pol, dl_.share(c_.structured_kl_share));
            offer(std::move(pol));
        }
        if (!best_.empty() && c_.structured_accept > 1.0 && bestF_ <= c_.structured_accept * p_.f_min) {
            if (p_.progress) p_.progress("auto: the structured candidate is within the accepted ratio of F_min");
            return true;
        }
    } catch (const Error &) {
        // No structured embedding for this grid/topology: general path only.
    }
    return false;
}

// Trees: the node-aware block map (least inter-node surface, hier/grid_blocks.cpp).
void AutoRun::tree_block_candidate(const CartGrid &grid, const std::vector<int> *task_at) {
    std::string why;
    std::vector<int> blocks = tree_grid_blocks(p_, grid, task_at, &why);
    if (blocks.empty()) {
        if (p_.progress) p_.progress("auto: no node-aware grid blocks (" + why + ")");
        return;
    }
    std::vector<int> bp(N_, -1);
    for (int g = 0; g < N_; ++g) bp[task_at ? (*task_at)[g] : g] = blocks[g];
    offer(std::move(bp));
}

// 2. General path's starts: the greedy map of Bhanot et al. (BG/L task
// layout), Scotch's map (when built with Scotch), the recursive co-bisection
// map (unless the context keeps it for when Scotch gives none) and the
// graph-drawing map, sorted by F.  When the context leaves out the chains
// after a winning band result, the drawing (a chain start, and costly at large
// sizes) waits until the band search has not won.
void AutoRun::general_starts() {
    const double degsum = static_cast<double>(p_.sym.nedges()) / std::max(1, N_);
    speed_ = c_.evals_per_second / (1.0 + N_ / c_.cache_tasks);
    props_ = speed_ * budget_ / (c_.evals_per_degree * degsum + c_.evals_per_proposal);
    greedy_ = map_greedy(p_);
    fgreedy_ = F_of(p_, greedy_);
    bool scotch = false;
    if (!dl_.expired() && N_ <= c_.scotch_start_max_tasks) {
        try {
            add_start("scotch", map_scotch(p_));
            scotch = true;
        } catch (const Error &) {
            // built without Scotch, or Scotch declined: fine.
        }
    }
    if (!dl_.expired() && N_ <= c_.bisection_start_max_tasks) {
        if (!(scotch && c_.bisection_without_scotch))
            add_start("co-bisection", bisection_map(p_, p_.opt.seed));
        else if (p_.progress)
            p_.progress("auto: no co-bisection start (Scotch's map is one)");
    }
    geometric_deferred_ = !c_.chains_after_band && c_.band_search;
    if (!geometric_deferred_) geometric_start();
    near_.emplace(p_.topo, near_count(p_.topo));
}

// The graph-drawing start (geometric.cpp).
void AutoRun::geometric_start() {
    if (dl_.expired()) return;
    std::string why;
    Problem q = p_;
    q.deadline = dl_.share(c_.geometric_share);
    geo_ = geometric_map(q, p_.opt.seed, &why);
    if (geo_.empty() && p_.progress) p_.progress("auto: no geometric start (" + why + ")");
    if (!geo_.empty()) geoF_ = F_of(p_, geo_);
    add_start("geometric", std::vector<int>(geo_));
}

// Hot chain: from the best start overall (greedy included).  Cold chain:
// from the best non-greedy start, or the geometric one when its F is
// within geometric_cold_margin of it -- its global layout is right and its
// local roughness is what the cold chain repairs, so its F overstates
// where the chain ends.
void AutoRun::choose_chain_starts() {
    const std::vector<int> &best_start = starts_.empty() ? greedy_ : starts_[0].second;
    cold_start_ = !geo_.empty() && !starts_.empty() && geoF_ <= c_.geometric_cold_margin * starts_[0].first
                      ? &geo_
                      : &best_start;
    hot_start_ = (starts_.empty() || fgreedy_ <= starts_[0].first) ? &greedy_ : &best_start;
    if (c_.hot_from_geometric && !geo_.empty()) hot_start_ = &geo_;
}

// 3. Rank-ordered band graphs on a torus: the translation-periodic
// embedding (band.cpp), KL-polished (phase 1 with the chains' bound on KL
// passes), is one more candidate (it does not feed the chains).  When it
// beats every start the chains' work is scaled by band_chain_scale and
// phase 2, a band search with another seed on phase 1's best translations,
// gets the saved work and more.  Decided by F, not by the clock.
void AutoRun::band_candidates() {
    if (dl_.expired() || !c_.band_search) return;
    std::string why;
    Problem q = p_;
    q.deadline = dl_.share(c_.band_time_share);
    std::vector<std::vector<int>> ranking;
    BandContext bo = c_.band;
    BandOptions opt{bo, &ranking};
    std::vector<int> band = band_embedding(q, speed_ * budget_ * c_.band_phase1, &why, opt);
    if (band.empty()) {
        if (p_.progress) p_.progress("auto: no band embedding (" + why + ")");
        return;
    }
    kl_refine(p_, band, dl_.share(c_.band_kl_share), c_.chain_kl_passes);
    report("band search + KL", band);
    const double fb = F_of(p_, band);
    offer(std::move(band));
    if (!band_beats_starts(fb) || dl_.expired()) return;
    band_won_ = true;
    chain_scale_ = c_.band_chain_scale;
    const double phase2 = (1 - chain_scale_) * (c_.hot_share + c_.cold_share) + c_.band_phase2_bonus +
                          c_.band_phase2_extra;
    if (c_.band_phase2_translations == 0) ranking.clear();
    if (ranking.size() > c_.band_phase2_translations && c_.band_phase2_translations > 0)
        ranking.resize(c_.band_phase2_translations);
    q.opt.seed = p_.opt.seed + c_.band_phase2_seed;
    q.deadline = dl_.share(c_.band_time_share);
    std::vector<int> band2 = band_embedding(q, speed_ * budget_ * phase2, &why, opt);
    if (!band2.empty()) {
        kl_refine(p_, band2, dl_.share(c_.band_kl_share));
        report("second band search + KL", band2);
        offer(std::move(band2));
    }
}

// 4b. Above the context's multilevel threshold: the multilevel start
// (multilevel.cpp), a cold chain over all tasks (it keeps the coarse map's
// layout and arranges each block and the seams between them) and
// Kernighan-Lin.  It replaces the graph drawing and the chains unless the
// context keeps them too (the lower F wins).  False (and the drawing and
// chains run) when the problem does not fit.
bool AutoRun::multilevel() {
    const MultilevelContext &mc = c_.multilevel;
    if (N_ <= mc.min_tasks || dl_.expired()) return false;
    std::string why;
    Problem q = p_;
    q.deadline = dl_;  // multilevel_start gives a safety net's coarse map its own budget
    std::vector<int> pl;
    try {
        pl = multilevel_start(q, mc, &why);
    } catch (const Error &e) {
        why = e.what();  // METIS declined: the usual path
    }
    if (pl.size() != static_cast<size_t>(N_)) {
        if (p_.progress) p_.progress("auto: no multilevel start (" + why + ")");
        return false;
    }
    report("multilevel start", pl);
    pl = anneal_from(pl, true, mc.sweeps, mc.cold_acceptance, c_.cold_time_share, mc.salt);
    report("multilevel chain", pl);
    kl_refine(p_, pl, dl_.share(c_.cold_kl_share), mc.kl_passes);
    report("multilevel chain + KL", pl);
    offer(std::move(pl));
    return true;
}

// One chain over all tasks from `pl`, `sweeps` proposals per task (a cold
// one starting at `cold_acceptance`).
std::vector<int> AutoRun::anneal_from(const std::vector<int> &pl, bool cold, double sweeps, double cold_acceptance,
                                      double time_share, uint64_t salt) {
    PlacementState st(p_.sym, p_.topo, p_.cap, pl);
    std::vector<int> all(N_);
    std::iota(all.begin(), all.end(), 0);
    AnnealParams ap;
    ap.steps = p_.opt.anneal_steps;
    ap.sweeps = sweeps;
    ap.from_cold = cold;
    ap.tuning.cold_acceptance = cold_acceptance;
    ap.f_norm = p_.f_min;
    ap.trace = cold ? nullptr : p_.trace;
    ap.progress = &p_.progress;
    Rng rng = rng_stream(p_.opt.seed, salt);
    anneal_tasks(st, all, *near_, ap, rng, dl_.share(time_share));
    return st.place();
}

// One chain from `start` with `share` of the nominal work, KL-polished
// and offered; verbose output gives its F before and after KL.
void AutoRun::chain(const std::string &name, const std::vector<int> &start, bool cold, double share,
                    double time_share, double kl_share, uint64_t salt) {
    std::vector<int> pl =
        anneal_from(start, cold, sweeps_for(share * chain_scale_), c_.cold_acceptance, time_share, salt);
    report(name.c_str(), pl);
    kl_refine(p_, pl, dl_.share(kl_share), c_.chain_kl_passes);
    report((name + " + KL").c_str(), pl);
    offer(std::move(pl));
}

// A torus of at least three dimensions, all wrapped, every extent at
// least `min_extent` (0: none is).  There the graph drawing's layout is
// right at large scale, and a hot chain from it melts it and ends no
// lower than the cold chain that repairs it (tuning.cpp: auto_fast_preset).
bool deep_torus(const Topology &topo, int min_extent) {
    const auto *t = dynamic_cast<const TorusTopology *>(&topo);
    if (min_extent <= 0 || !t || t->has_local() || t->ndims() < 3) return false;
    for (int k = 0; k < t->ndims(); ++k)
        if (!t->wrap()[k] || t->dims()[k] < min_extent) return false;
    return true;
}

// The hot chain (the schedule of Bhanot et al., BG/L task layout) and the cold
// one (it keeps its start's large-scale layout and repairs the local one),
// each KL-polished.
void AutoRun::chains() {
    if (c_.hot_share > 0 && !deep_torus(p_.topo, c_.hot_skip_min_extent))
        chain("hot chain", *hot_start_, false, c_.hot_share, c_.hot_time_share, c_.hot_kl_share, c_.hot_salt);
    else if (p_.progress)
        p_.progress(c_.hot_share > 0 ? "auto: no hot chain (a deep torus: the drawing's layout stands)"
                                     : "auto: no hot chain");
    if (dl_.expired() || c_.cold_share <= 0) return;
    // The context may keep the cold chain from a start the hot chain has
    // already annealed with more work (tuning.cpp says where and why).
    if (!c_.cold_from_hot_start && cold_start_ == hot_start_) {
        if (p_.progress) p_.progress("auto: no cold chain (its start is the hot chain's)");
        return;
    }
    if (!c_.cold_from_other_start && cold_start_ != hot_start_) {
        if (p_.progress) p_.progress("auto: no cold chain (its start is not the hot chain's)");
        return;
    }
    chain("cold chain", *cold_start_, true, c_.cold_share, c_.cold_time_share, c_.cold_kl_share, c_.cold_salt);
}

} // namespace

std::vector<int> map_auto(const Problem &p, const AutoContext &ctx) { return AutoRun(p, ctx).run(); }

std::vector<int> map_auto(const Problem &p) { return map_auto(p, auto_preset(p.sym.n())); }

std::vector<int> map_fast(const Problem &p) { return map_auto(p, auto_fast_preset(p.sym.n())); }

} // namespace rankmap

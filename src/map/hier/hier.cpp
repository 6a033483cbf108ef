// hier.cpp -- the hierarchy mapper (Algorithm::Hier, "hier"): top-down
// multisection of the task graph along the tiers of a tree topology,
// refined by Kernighan-Lin pair exchange (Chen et al., MPIPP: the exchange
// heuristic for SMP clusters and multiclusters) and a cold annealing chain
// (Bhanot et al., BG/L task layout) on the tree distance.  With a Cartesian
// task grid (given, or recognised in the graph) the node-aware block map of
// grid_blocks.cpp is a candidate too; the lowest free energy wins.  Tuned
// numbers: HierContext (tuning.hpp).
//
//   multisection   tasks of an entity of tier k are split into its
//                  children (sizes balanced to the children's capacity
//                  under equation 3 of Bhanot et al.) by recursive bisection
//                  with METIS (bisect_graph), every bisection the best of
//                  several seeds (the choice is made at each bisection, where
//                  the cut is decided, not between whole k-way runs);
//                  recursively down to the leaves.  Siblings of a tree are
//                  equidistant (hier.hpp), so no part-to-child assignment is
//                  needed, and the split at tier k minimises the traffic that
//                  pays cost[k].
//   starts         the best (least F) of a few multisections with
//                  different seeds and, when built with Scotch, Scotch's
//                  SCOTCH_archTleaf map (map_scotch), each polished by
//                  kl_passes; the better one goes on.
//   refinement     a cold annealing chain (a low initial acceptance: it
//                  keeps the start's layout and repairs it locally), then
//                  kl_passes again.  Neither can raise F: annealing returns
//                  the best placement it saw.
//   node tier      last, the node partition is refined on its own
//                  (refine_node_tier, kway.cpp): k-way ejection
//                  chains over all nodes in multilevel V-cycles, and every
//                  union of a few neighbouring nodes re-partitioned by
//                  METIS when that lowers its internal cut; exact node
//                  sizes, the inter-node traffic never rises.  Near-leaf KL
//                  and the local annealing moves rarely move tasks between
//                  nodes, so this is where the costliest tier is polished.
//                  Then kl_passes for the inner tiers of the tasks that
//                  moved.

// Work: the annealing sweeps are fixed per task count (deterministic for a
// seed); the deadline (Options::time_limit) only cuts it short.
// Cost: O(2.5 x tries x E log P) for the METIS splits, O(sweeps x N x degree x
// tiers) for the refinement, kway.cpp's for the node tier; memory
// O(N + E + P K).
#include <algorithm>
#include <numeric>

#include "common/error.hpp"
#include "map/cartesian/grid.hpp"
#include "map/hier/hier.hpp"
#include "map/refinement/refinement.hpp"
#include "partition/partition.hpp"
// Cross-module private include: the tree's tier costs and tier() that the
// generic Topology interface does not expose.
#include "topology/tree.hpp"

namespace rankmap {

const TreeTopology *as_tree(const Topology &topo) { return dynamic_cast<const TreeTopology *>(&topo); }

std::vector<double> tier_traffic(const TreeTopology &tree, const Graph &sym, const std::vector<int> &place) {
    std::vector<double> out(tree.dims().size(), 0.0);
    for (int t = 0; t < sym.n(); ++t)
        for (int64_t e = sym.begin(t); e < sym.end(t); ++e) {
            const int j = sym.target(e);
            if (j <= t || place[t] == place[j]) continue;
            out[tree.tier(place[t], place[j])] += sym.weight(e);
        }
    return out;
}

namespace {

double cut_of(const Graph &g, const std::vector<int> &part) {
    double c = 0;
    for (int v = 0; v < g.n(); ++v)
        for (int64_t e = g.begin(v); e < g.end(v); ++e)
            if (g.target(e) > v && part[g.target(e)] != part[v]) c += g.weight(e);
    return c;
}

struct Splitter {
    const Graph &sym;
    std::vector<int> arity, span;  // span[k]: leaves under one child of a tier-k entity
    int tries;
    int inner_tries, few_per_child;  // HierContext
    uint64_t seed;
    std::vector<int> place, local;
    uint64_t calls = 0;

    // Children [lo, hi) of one entity receive the vertices `verts` of `g`
    // (target sizes sizes[lo..hi)): recursive bisection, each bisection
    // the best of n_try METIS seeds.
    void bisect_rec(const Graph &g, const std::vector<int> &verts, int lo, int hi, const std::vector<int> &sizes,
                    std::vector<int> &part, int n_try) {
        if (hi - lo == 1 || verts.empty()) {
            for (int v : verts) part[v] = lo;
            return;
        }
        const int mid = (lo + hi) / 2;
        int size0 = 0;
        for (int c = lo; c < mid; ++c) size0 += sizes[c];
        std::vector<int> loc;
        Graph sub = g.induced(verts, loc);
        std::vector<int> side;
        double best = -1;
        for (int i = 0; i < n_try; ++i) {
            std::vector<int> cand = bisect_graph(sub, size0, seed + 7919 * calls++);
            const double c = cut_of(sub, cand);
            if (best < 0 || c < best) {
                best = c;
                side = std::move(cand);
            }
        }
        std::vector<int> v0, v1;
        for (size_t i = 0; i < verts.size(); ++i) (side[i] == 0 ? v0 : v1).push_back(verts[i]);
        bisect_rec(g, v0, lo, mid, sizes, part, n_try);
        bisect_rec(g, v1, mid, hi, sizes, part, n_try);
    }

    void split(int depth, int base, const std::vector<int> &tasks) {
        if (tasks.empty()) return;
        const int L = static_cast<int>(arity.size());
        if (depth == L) {
            for (int t : tasks) place[t] = base;
            return;
        }
        const int a = arity[depth];
        if (a == 1) {
            split(depth + 1, base, tasks);
            return;
        }
        const int T = static_cast<int>(tasks.size());
        std::vector<int> sizes(a);
        for (int c = 0; c < a; ++c) sizes[c] = T / a + (c < T % a ? 1 : 0);
        std::vector<int> part;
        if (T <= a) {
            part.resize(T);
            std::iota(part.begin(), part.end(), 0);
        } else {
            Graph sub = sym.induced(tasks, local);
            // The outermost split carries the costliest traffic: all the
            // tries there (the cut varies between METIS seeds); inner
            // splits fewer, and splits of a few tasks per child one.
            const int n_try = T <= few_per_child * a ? 1 : depth == 0 ? tries : std::min(tries, inner_tries);
            part.assign(T, 0);
            std::vector<int> verts(T);
            std::iota(verts.begin(), verts.end(), 0);
            bisect_rec(sub, verts, 0, a, sizes, part, n_try);
        }
        std::vector<std::vector<int>> child(a);
        for (int i = 0; i < T; ++i) child[part[i]].push_back(tasks[i]);
        for (int c = 0; c < a; ++c) split(depth + 1, base + c * span[depth], child[c]);
    }
};

double F_of(const Problem &p, const std::vector<int> &place) {
    PlacementState st(p.sym, p.topo, p.cap, place);
    return st.energy();
}

} // namespace

std::vector<int> tree_multisection(const Problem &p, uint64_t seed, int tries) {
    return tree_multisection(p, seed, tries, hier_preset(p.sym.n()));
}

std::vector<int> tree_multisection(const Problem &p, uint64_t seed, int tries, const HierContext &hc) {
    const TreeTopology *tree = as_tree(p.topo);
    if (!tree) throw Error("hierarchical multisection needs a tree topology, got '" + p.topo.describe() + "'");
    Splitter s{p.sym, tree->dims(), {}, std::max(1, tries), hc.inner_tries, hc.few_per_child, seed, {}, {}, 0};
    const int L = static_cast<int>(s.arity.size());
    s.span.assign(L, 1);
    for (int k = L - 2; k >= 0; --k) s.span[k] = s.span[k + 1] * s.arity[k + 1];
    const int N = p.sym.n();
    s.place.assign(N, -1);
    std::vector<int> all(N);
    std::iota(all.begin(), all.end(), 0);
    s.split(0, 0, all);
    return s.place;
}

namespace {

// RNG streams (names, not tuning): the extra multisections' seeds step,
// the cold chain's salt, the node-tier refinement's seed offset.
constexpr uint64_t kMultisectionSeedStep = 1000;
constexpr uint64_t kChainSalt = 0x41e7;
constexpr uint64_t kNodeTierSeed = 99;

void say(const Problem &p, const std::string &s) {
    if (p.progress) p.progress("hier: " + s);
}

// The least-F of 1 + extra_multisections complete multisections, METIS
// seeds apart (the extra ones with half the tries per bisection): the
// whole cut varies between seeds.
std::vector<int> best_multisection(const Problem &p, const HierContext &hc, const Deadline &dl) {
    std::vector<int> ms = tree_multisection(p, p.opt.seed, hc.outer_tries, hc);
    double fm = F_of(p, ms);
    for (uint64_t k = 1; k <= static_cast<uint64_t>(hc.extra_multisections) && !dl.expired(); ++k) {
        std::vector<int> m =
            tree_multisection(p, p.opt.seed + kMultisectionSeedStep * k, std::max(1, hc.outer_tries / 2), hc);
        const double f = F_of(p, m);
        if (f < fm) {
            fm = f;
            ms = std::move(m);
        }
    }
    return ms;
}

// The multisection and (when built with Scotch) Scotch's tleaf map, each
// polished by KL; returns the one of least F.
std::vector<int> best_start(const Problem &p, const HierContext &hc, const NearNodes &near, const Deadline &dl) {
    std::vector<std::vector<int>> starts;
    starts.push_back(best_multisection(p, hc, dl));
    if (!dl.expired() && hc.scotch_start) {
        try {
            starts.push_back(map_scotch(p));
        } catch (const Error &) {
            // built without Scotch, or Scotch declined: the multisection alone.
        }
    }
    std::vector<int> best;
    double bestF = 0;
    for (size_t i = 0; i < starts.size(); ++i) {
        PlacementState st(p.sym, p.topo, p.cap, starts[i]);
        const double f0 = st.energy();
        kl_passes(st, near, dl.share(hc.start_kl_share), hc.kl_passes);
        say(p, std::string(i == 0 ? "multisection" : "scotch") + " start: F = " + std::to_string(f0) +
                   ", after KL " + std::to_string(st.energy()));
        if (best.empty() || st.energy() < bestF) {
            best = st.place();
            bestF = st.energy();
        }
    }
    return best;
}

// The cold annealing chain over all tasks, then KL.
void cold_chain(const Problem &p, const HierContext &hc, PlacementState &st, const NearNodes &near,
                const Deadline &dl) {
    std::vector<int> all(p.sym.n());
    std::iota(all.begin(), all.end(), 0);
    AnnealParams ap;
    ap.steps = p.opt.anneal_steps;
    ap.sweeps = hc.sweeps;
    ap.from_cold = true;
    ap.tuning.cold_acceptance = hc.cold_acceptance;
    ap.f_norm = p.f_min;
    ap.trace = p.trace;
    ap.progress = &p.progress;
    Rng rng = rng_stream(p.opt.seed, kChainSalt);
    if (hc.sweeps > 0 && !dl.expired()) anneal_tasks(st, all, near, ap, rng, dl.share(hc.anneal_share));
    kl_passes(st, near, dl, hc.kl_passes);
}

} // namespace

std::vector<int> tree_refined_map(const Problem &p, const Deadline &dl) {
    return tree_refined_map(p, dl, hier_preset(p.sym.n()));
}

std::vector<int> tree_refined_map(const Problem &p, const Deadline &dl, const HierContext &hc) {
    NearNodes near(p.topo, near_count(p.topo));
    PlacementState st(p.sym, p.topo, p.cap, best_start(p, hc, near, dl));
    cold_chain(p, hc, st, near, dl);
    const double fa = st.energy();
    const Deadline clk;
    PlacementState sn(p.sym, p.topo, p.cap,
                      refine_node_tier(p, st.place(), p.opt.seed + kNodeTierSeed, hc.node_cycles, hc.node_group, dl, hc.kway));
    kl_passes(sn, near, dl, hc.kl_passes);
    say(p, "annealed and polished: F = " + std::to_string(fa) + ", after k-way node refinement and KL " +
               std::to_string(sn.energy()) + " (" + std::to_string(clk.elapsed()) + " s)");
    return sn.place();
}

std::vector<int> map_hier(const Problem &p) {
    if (!as_tree(p.topo))
        throw Error("algorithm 'hier' needs a tree topology (e.g. tree:32x2x8:cost=100,10,1), got '" +
                    p.topo.describe() + "'; 'auto' handles every topology");
    const int N = p.sym.n();
    const Deadline &dl = p.deadline;
    const HierContext hc = hier_preset(N);
    std::vector<int> best;
    double bestF = 0;
    auto offer = [&](std::vector<int> &&cand) {
        const double f = F_of(p, cand);
        if (best.empty() || f < bestF) {
            best = std::move(cand);
            bestF = f;
        }
    };

    // 1. Node-aware block map of a Cartesian grid, polished by KL.
    std::optional<RecognizedGrid> rec;
    if (!p.grid) rec = recognize_grid(p.sym);
    if (p.grid || rec) {
        const CartGrid &grid = p.grid ? *p.grid : rec->grid;
        const std::vector<int> *task_at = p.grid ? nullptr : &rec->task_at;
        std::string why;
        std::vector<std::string> shapes;
        std::vector<int> nodes = tree_grid_blocks(p, grid, task_at, &why, &shapes);
        if (nodes.empty()) {
            say(p, "grid blocks not possible (" + why + "): partition-based multisection instead");
        } else {
            std::vector<int> place(N);
            for (int g = 0; g < N; ++g) place[task_at ? (*task_at)[g] : g] = nodes[g];
            std::string sh;
            for (const auto &x : shapes) sh += (sh.empty() ? "" : " / ") + x;
            PlacementState st(p.sym, p.topo, p.cap, place);
            const double f0 = st.energy();
            NearNodes near(p.topo, near_count(p.topo));
            kl_passes(st, near, dl.share(hc.grid_kl_share));
            say(p, "grid blocks per tier " + sh + ": F = " + std::to_string(f0) + ", after KL " +
                std::to_string(st.energy()));
            offer(std::vector<int>(st.place()));
        }
    }

    // 2. Multisection / Scotch starts, KL, cold annealing, KL.
    offer(tree_refined_map(p, dl));
    return best;
}

} // namespace rankmap

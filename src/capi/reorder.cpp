// reorder.cpp -- the reorder decision (see reorder.hpp and
// include/rankmap_glue.h): the current order's cost, the mapper's
// placement finished into ranks (laid over the current order, rank 0 kept
// by a symmetry of the machine), and the guard that keeps the current order
// unless the new one is cheaper.  Traffic that can be read two ways (a
// graph of equal-weight cliques, a grid whose traffic nobody declared) is
// judged in both readings.  The one place where the PMPI plugin and a
// patched MPICH decide a reorder.
#include "capi/reorder.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "capi/pin.hpp"
#include "common/error.hpp"
#include "map/cartesian/grid.hpp"
#include "map/spread.hpp"
#include "rankmap_glue.h"
#include "topology/placement.hpp"

namespace rankmap {
namespace {

// Largest grid of undeclared traffic also mapped as transposes: above, dense lines cost too much (doc/tuning.md).
constexpr int kTransposesMaxTasks = 1024;

// The algorithm of the current order when the guard keeps it.
constexpr const char *kKept = "identity (no gain)";

// The current order's cost, or false (out: F = -1) when it is not a
// balanced placement and so nothing to compare with.
bool evaluate_if_valid(const Graph &g, const Topology &t, const std::vector<int> &place, double fmin,
                       CostReport &out) {
    out = CostReport{};
    out.F_min = fmin;
    try {
        check_placement(t, g.n(), place);
    } catch (const Error &) {
        out.F = -1;
        return false;
    }
    out = evaluate(g, t, place, fmin);
    return true;
}

// place[r] = node of task r -> new_of_member[i] = task of member i (-1: none).
// A member already on the node of its own task keeps its rank; the other
// tasks of a node go to its remaining members, lowest member first.
// Returns the node that has more tasks than members, or -1.
int placement_to_ranks(int nmembers, const int *node_of_member, int P, const std::vector<int> &place,
                       int *new_of_member) {
    const int ntasks = static_cast<int>(place.size());
    std::vector<int> first(P, -1), next(nmembers, -1);
    for (int i = nmembers - 1; i >= 0; --i) {
        next[i] = first[node_of_member[i]];
        first[node_of_member[i]] = i;
    }
    std::vector<char> taken(nmembers, 0), done(ntasks, 0);
    for (int i = 0; i < nmembers; ++i) new_of_member[i] = -1;
    for (int r = 0; r < ntasks; ++r)
        if (node_of_member[r] == place[r]) {
            new_of_member[r] = r;
            taken[r] = done[r] = 1;
        }
    for (int r = 0; r < ntasks; ++r) {
        if (done[r]) continue;
        int i = first[place[r]];
        while (i >= 0 && taken[i]) i = next[i];
        if (i < 0) return place[r];
        new_of_member[i] = r;
        taken[i] = 1;
    }
    return -1;
}

// The other reading of a grid whose traffic is not declared: every line
// exchanges by MPI_Alltoall (rankmap_graph_cartesian_alltoall with "all").
std::unique_ptr<rankmap_graph_s> transposes_reading(const rankmap_graph_s &grid) {
    auto h = std::make_unique<rankmap_graph_s>();
    h->grid_dims = grid.grid_dims;
    h->grid_periods = grid.grid_periods;
    h->grid_alltoall.assign(grid.grid_dims.size(), true);
    h->g = cartesian_alltoall_graph(h->grid_dims, h->grid_periods, h->grid_alltoall, &h->alltoall);
    return h;
}

// The guard on `place` for the traffic of g with these all-to-all groups.
GuardVerdict judge(const ReorderInput &in, const Graph &g, const std::vector<int> &place,
                   const std::vector<std::vector<int>> &groups, const ExchangePhases *phases = nullptr) {
    return guard_verdict(g, in.t, in.current, place, groups, in.mode, RANKMAP_GUARD_MARGIN, phases);
}

bool slower(const GuardVerdict &x) { return x.why.rfind("slower", 0) == 0; }

// The current order, kept, with the note saying why.
Candidate kept(const ReorderInput &in, std::string note) {
    Candidate k;
    k.res = in.cur;
    k.algorithm = kKept;
    k.note = std::move(note);
    return k;
}

// Candidate c taken, with its note.
Candidate taken(const Candidate &c, std::string note) {
    Candidate x = c;
    x.note = std::move(note);
    return x;
}

// Evaluates c and, unless rank 0 is free, lays it over the current order
// (unless keep_layout) and puts task 0 on member 0's node; then the ranks.
// Returns the node that has more tasks than members, or -1.
int finish(const ReorderInput &in, Candidate &c, bool keep_layout) {
    const Graph &g = in.graph.g;
    c.res = evaluate(g, in.t, c.place, in.fmin);
    if (in.flags & RANKMAP_REORDER_FREE_RANK0) {
        c.note = "rank 0 free";
    } else {
        const double mapped_F = c.res.F;
        const int stay = keep_layout ? -1 : in.t.align_to_current(c.place, in.current, in.cap);
        if (stay >= 0) {
            c.res = evaluate(g, in.t, c.place, in.fmin);
            check_exact(in.t, PinResult{}, mapped_F, c.res.F);
            c.note = "closest to the current order by exchanges of subtrees (" + std::to_string(stay) +
                     " tasks stay on their node); ";
        }
        const double was = c.res.F;
        auto pin = pin_task0(g, in.t, c.place, in.node_of_member[0], &in.cap, was);
        c.res = evaluate(g, in.t, c.place, in.fmin);
        check_exact(in.t, pin, was, c.res.F);
        c.note += "rank 0 kept by " + pin.how;
    }
    c.ranks.resize(in.nmembers);
    return placement_to_ranks(in.nmembers, in.node_of_member, in.t.size(), c.place, c.ranks.data());
}

// The mapper's placement of `reading`, finished.  Throws when the members
// cannot hold it.
Candidate propose(const ReorderInput &in, const rankmap_graph_s &reading) {
    CachedMapping r;
    try {
        r = capi::map_graph(in.t, reading, in.opts);
    } catch (const Error &e) {
        if (e.kind() != ErrorKind::Timeout) throw;
        throw Error(std::string("timeout: ") + e.what(), ErrorKind::Timeout);
    }
    Candidate c;
    c.place = std::move(r.entry.place);
    // the mapper's name as a rankmap_report holds it
    c.algorithm = r.entry.algorithm.substr(0, sizeof(rankmap_report::algorithm) - 1);
    const int over = finish(in, c, false);
    if (over >= 0)
        throw Error("placement of " + c.algorithm + " puts more tasks on node " + std::to_string(over) +
                    " than it has members");
    return c;
}

// `from` with its hosts in ascending order (Topology::hosts_ascending),
// finished as it lies; its place is empty when the machine has no hosts or
// the members cannot hold it.
Candidate sorted_hosts(const ReorderInput &in, const Candidate &from, std::string algorithm) {
    Candidate e;
    e.place = in.t.hosts_ascending(from.place);
    e.algorithm = std::move(algorithm);
    if (!e.place.empty() && finish(in, e, true) >= 0) e.place.clear();
    return e;
}

// A graph whose edges split into equal-weight cliques (transposes,
// all-to-alls; clique_groups) with no all-to-all declared is read both as
// those all-to-alls and as an exchange, and a candidate is taken only when
// both readings gain.  On a tree the candidate with its hosts in ascending
// order comes first: the tree's symmetries leave the model's figures equal,
// and only launch-like host orders keep a fat tree's pairwise steps off
// shared uplinks.  v: the guard's verdict on c as an exchange.
Candidate clique_reading(const ReorderInput &in, const Candidate &c, const GuardVerdict &v,
                         const std::vector<std::vector<int>> &cliques, const ExchangePhases *ph) {
    const Candidate e = sorted_hosts(in, c, c.algorithm + " (sorted hosts)");
    const std::string as_a2a = "as " + std::to_string(cliques.size()) + " all-to-alls";
    std::string refused;
    for (const Candidate *x : {&e, &c}) {
        if (x->place.empty()) continue;
        const GuardVerdict xa = judge(in, in.graph.g, x->place, cliques);
        const GuardVerdict xs = x == &c ? v : judge(in, in.graph.g, x->place, {}, ph);
        if (xa.take && xs.take)
            return taken(*x, x->note + "; " + as_a2a + ": " + xa.figures + "; as an exchange: " + xs.figures);
        refused += std::string(refused.empty() ? "" : "; ") + (x == &e ? "with its hosts in order: " : "") +
                   (xa.take ? xs.why + " as an exchange" : xa.why + " " + as_a2a);
    }
    return kept(in, refused + " (the graph splits into all-to-alls, its traffic read both ways): current order kept (" +
                        c.note + ")");
}

// The machine's own order: task r on the node of the r-th member in node
// order (members sorted by node, a launch's block order), finished as it
// lies.  Its place is empty when that is the current order.
Candidate machine_order(const ReorderInput &in) {
    std::vector<int> nodes(in.node_of_member, in.node_of_member + in.nmembers);
    std::stable_sort(nodes.begin(), nodes.end());
    Candidate m;
    m.algorithm = "identity (the machine's order)";
    m.place.assign(nodes.begin(), nodes.begin() + in.ntasks);
    if (m.place == in.current || finish(in, m, true) >= 0) m.place.clear();
    return m;
}

// All-to-all phases on a dragonfly: the current order's tasks spread over
// its nodes (map/spread.hpp), finished as it lies.  Its place is empty when
// the spread does not apply or the members cannot hold it.
Candidate spread(const ReorderInput &in) {
    Candidate s;
    if (!spread_applies(in.t, in.graph.alltoall)) return s;
    s.algorithm = "spread (dragonfly)";
    s.place = spread_placement(in.graph.g, in.t, in.current, in.graph.alltoall);
    if (finish(in, s, true) >= 0) s.place.clear();
    return s;
}

// The mapper's placement c taken (verdict v): on a dragonfly with
// all-to-all phases the spread replaces it when the guard takes the spread
// too and predicts it faster.
Candidate spread_if_faster(const ReorderInput &in, const Candidate &c, const GuardVerdict &v,
                           const ExchangePhases *ph) {
    const Candidate s = spread(in);
    if (s.place.empty()) return c;
    const GuardVerdict vs = judge(in, in.graph.g, s.place, in.graph.alltoall, ph);
    if (!vs.take || !(vs.T_proposed < v.T_proposed)) return c;
    return taken(s, "the tasks spread over the groups taken instead of " + c.algorithm + ", predicted faster (" +
                        s.note + "; " + vs.figures + ")");
}

// The mapper's placement c refused (verdict v): when the current order is
// not the machine's own, that order is judged as a second candidate, so a
// launch that scatters neighbours (round robin over nodes) can still gain
// where the mapper's placement is not trusted; on a dragonfly with
// all-to-all phases the spread too, and of the two the guard takes, the
// one predicted faster.
Candidate after_refusal(const ReorderInput &in, const Candidate &c, const GuardVerdict &v, const ExchangePhases *ph) {
    std::string why = v.why + ": current order kept (" + c.note + ")";
    const Candidate m = machine_order(in), s = spread(in);
    GuardVerdict vm, vs;
    vm.take = vs.take = false;
    if (!m.place.empty()) vm = judge(in, in.graph.g, m.place, in.graph.alltoall, ph);
    if (!s.place.empty()) vs = judge(in, in.graph.g, s.place, in.graph.alltoall, ph);
    if (vs.take && (!vm.take || vs.T_proposed < vm.T_proposed))
        return taken(s, v.why + " for " + c.algorithm + ": the tasks spread over the groups taken instead (" +
                            s.note + "; " + vs.figures + ")");
    if (vm.take)
        return taken(m, v.why + " for " + c.algorithm + ": the machine's order taken instead (" + m.note +
                            (vm.figures.empty() ? "" : "; " + vm.figures) + ")");
    if (!m.place.empty()) why += "; the machine's order: " + vm.why;
    if (!s.place.empty()) why += "; spread over the groups: " + vs.why;
    return kept(in, why);
}

// The current order kept for a grid whose traffic is not declared.
Candidate grid_kept(const ReorderInput &in, const std::string &reasons, const std::string &details) {
    return kept(in, reasons + " (the grid's traffic is not declared: MPIR_CVAR_RANKMAP_CART_ALLTOALL): current "
                              "order kept (" + details + ")");
}

// The transposes' order, then the same with its hosts in ascending order
// (trees: neighbouring lines on neighbouring hosts).  A candidate the
// members cannot hold, or whose rank 0 cannot be kept, is left out (both,
// when either step fails; `refused` says why): the current order is the
// fallback, not an error.
std::pair<Candidate, Candidate> transposes_candidates(const ReorderInput &in, const rankmap_graph_s &lines,
                                                      std::string &refused) {
    try {
        Candidate d = propose(in, lines);
        Candidate e = sorted_hosts(in, d, d.algorithm + " (transposes, sorted hosts)");
        d.algorithm += " (transposes)";
        return {std::move(d), std::move(e)};
    } catch (const Error &err) {
        if (err.kind() == ErrorKind::Timeout || err.kind() == ErrorKind::Internal) throw;
        refused = std::string("; the transposes' order: ") + err.what();
        return {};
    }
}

// A grid whose traffic nobody declared: its lines may be a stencil's or
// transposes' (MPI_Cart_sub + MPI_Alltoall, as pencil FFTs).  A candidate is
// taken only when it is clearly better in one reading and no slower in the
// other; the stencil's candidate c first (v: its verdict as a stencil), then
// the transposes'.
Candidate grid_reading(const ReorderInput &in, const Candidate &c, const GuardVerdict &v, const ExchangePhases *ph) {
    const auto lines = transposes_reading(in.graph);
    const GuardVerdict va = judge(in, lines->g, c.place, lines->alltoall);
    if (v.take && !slower(va)) return taken(c, c.note + "; as transposes: " + va.figures);
    const std::string stencil_why = v.take ? va.why + " as transposes" : v.why + " as a stencil";
    std::string refused;
    if (in.ntasks <= kTransposesMaxTasks) {
        const auto candidates = transposes_candidates(in, *lines, refused);
        for (const Candidate *x : {&candidates.first, &candidates.second}) {
            if (x->place.empty()) continue;
            const GuardVerdict xa = judge(in, lines->g, x->place, lines->alltoall);
            const GuardVerdict xs = judge(in, in.graph.g, x->place, in.graph.alltoall, ph);
            if (xa.take && !slower(xs))
                return taken(*x, x->note + "; as transposes: " + xa.figures + "; as a stencil: " + xs.figures);
            refused += "; " +
                       std::string(x == &candidates.first ? "the transposes' order: " : "with its hosts in order: ") +
                       (xa.take ? xs.why + " as a stencil" : xa.why + " as transposes") + " (" + xa.figures + ")";
        }
    }
    // last, the machine's own order, in both readings as the others
    const Candidate m = machine_order(in);
    if (!m.place.empty()) {
        const GuardVerdict ms = judge(in, in.graph.g, m.place, in.graph.alltoall, ph);
        const GuardVerdict ma = judge(in, lines->g, m.place, lines->alltoall);
        if (ms.take && !slower(ma))
            return taken(m, "the machine's order taken (" + m.note + "); as a stencil: " + ms.figures +
                                "; as transposes: " + ma.figures);
        refused += "; the machine's order: " + (ms.take ? ma.why + " as transposes" : ms.why + " as a stencil");
    }
    return grid_kept(in, stencil_why + refused, c.note);
}

} // namespace

ReorderInput validate_reorder(const Topology &t, const rankmap_graph_s &graph, const rankmap_options *opts,
                              int nmembers, const int *node_of_member, int ntasks, int flags) {
    if (flags & ~(RANKMAP_REORDER_FREE_RANK0 | RANKMAP_REORDER_GUARD_F | RANKMAP_REORDER_GUARD_OFF))
        throw Error("rankmap_reorder_ranks: unknown flags " + std::to_string(flags));
    const Graph &g = graph.g;
    const int P = t.size();
    if (ntasks < 1 || ntasks > nmembers)
        throw Error(std::to_string(ntasks) + " tasks for " + std::to_string(nmembers) + " members");
    if (g.n() != ntasks)
        throw Error("graph of " + std::to_string(g.n()) + " tasks for " + std::to_string(ntasks) + " ranks");
    std::vector<int> cap(P, 0);
    for (int i = 0; i < nmembers; ++i) {
        if (node_of_member[i] < 0 || node_of_member[i] >= P)
            throw Error("member " + std::to_string(i) + " on node " + std::to_string(node_of_member[i]) +
                        ", outside 0.." + std::to_string(P - 1));
        ++cap[node_of_member[i]];
    }
    const GuardMode mode = (flags & RANKMAP_REORDER_GUARD_OFF) ? GuardMode::Off
                           : (flags & RANKMAP_REORDER_GUARD_F) ? GuardMode::F
                                                               : GuardMode::Model;
    const double fmin = lower_bound(g, t);
    std::vector<int> current(node_of_member, node_of_member + ntasks);
    CostReport cur;
    const bool have_current = evaluate_if_valid(g, t, current, fmin, cur);
    return ReorderInput{t, graph, opts, node_of_member, nmembers, ntasks, flags, mode,
                        std::move(cap), std::move(current), fmin, cur, have_current};
}

Candidate decide_reorder(const ReorderInput &in) {
    const Graph &g = in.graph.g;
    Candidate c = propose(in, in.graph);
    if (!in.have_current) return c;
    // the exchange one direction at a time, when the traffic is a grid's
    const auto phases = in.mode == GuardMode::Model ? grid_exchange_phases(g) : std::nullopt;
    const ExchangePhases *ph = phases ? &*phases : nullptr;
    const GuardVerdict v = judge(in, g, c.place, in.graph.alltoall, ph);
    c.note += v.figures.empty() ? "" : "; " + v.figures;
    const bool read_cliques = !in.graph.grid_unknown && in.graph.alltoall.empty() && in.mode == GuardMode::Model;
    const auto cliques = read_cliques ? clique_groups(g) : std::vector<std::vector<int>>{};
    if (!cliques.empty()) return clique_reading(in, c, v, cliques, ph);
    if (!in.graph.grid_unknown || in.mode != GuardMode::Model)
        return v.take ? spread_if_faster(in, c, v, ph) : after_refusal(in, c, v, ph);
    return grid_reading(in, c, v, ph);
}

} // namespace rankmap

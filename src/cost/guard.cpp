// guard.cpp -- the guard of every reorder path (model.hpp: guard_verdict):
// a new placement replaces the current one only when the cost model
// predicts it clearly better, in the regimes the model cannot tell apart
// without the messages' sizes (small messages by F, large ones by
// predict_time), in the readings of a machine it cannot see whole (switches
// a plain tree does not declare, a dragonfly's undeclared routing), and
// within the model's validated error.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cost/cost.hpp"
#include "cost/model.hpp"
#include "topology/dragonfly.hpp"
#include "topology/placement.hpp"
#include "topology/tree.hpp"

namespace rankmap {

namespace {

// The largest predicted-over-simulated time of an FFT's all-to-all phases
// on the SimGrid dragonfly, with room (doc/tuning.md,
// kDragonflyAlltoallPessimism).
constexpr double kDragonflyAlltoallPessimism = 1.35;
// The shares of inter-group traffic routed through another group under
// which the guard also judges a dragonfly whose routing is not declared:
// half (UGAL under load) and all (Valiant, the regime that favours keeping
// traffic in a group most) (doc/tuning.md, kUndeclaredValiantShares).
constexpr double kUndeclaredValiantShares[] = {0.5, 1.0};

// A plain tree (no up=) says nothing of the network above its outermost
// tier: a cluster declared as tree:HOSTSxCORES may hang its hosts from leaf
// switches whose uplinks are tapered, and a placement that only moves
// traffic between hosts can then load those uplinks more than the launch
// order did (bench/results/smpi-harm.md: an FFT's grid placed as a stencil
// on a 2:1 tapered fat tree declared as one tier of hosts).  The guard
// therefore also reads the outermost tier as groups of L consecutive
// entities (hosts are numbered along their switches by every launcher and
// host file) under leaf switches of L / 2 uplinks, for L = 2, 4, ...,
// kHiddenLeafMax, and refuses a placement predicted slower in any of these
// readings.  The distances are those of the declared tree, so F is the same.
constexpr int kHiddenLeafMax = 32;

std::string hidden_switches_slower(const Graph &g, const Topology &topo, const std::vector<int> &current,
                                   const std::vector<int> &proposed,
                                   const std::vector<std::vector<int>> &alltoall_groups) {
    const auto *tree = topo.kind() == TopologyKind::Tree ? static_cast<const TreeTopology *>(&topo) : nullptr;
    if (!tree || !tree->up().empty() || tree->ndims() < 2) return {};
    const int outer = tree->dims()[0];
    for (int L = 2; L <= kHiddenLeafMax && 2 * L <= outer; L *= 2) {
        if (outer % L) continue;
        std::vector<int> arity = tree->dims();
        std::vector<double> cost = tree->costs();
        arity[0] = L;
        arity.insert(arity.begin(), outer / L);
        cost.insert(cost.begin(), cost[0]);
        const TreeTopology hidden(arity, cost, {L / 2});
        const double before = bandwidth_time(g, hidden, current, alltoall_groups);
        const double after = bandwidth_time(g, hidden, proposed, alltoall_groups);
        if (after > before) {
            char buf[200];
            std::snprintf(buf, sizeof buf,
                          "slower for large messages if the %d entities of the outermost tier hang from switches "
                          "of %d tapered 2:1 (predicted %.4g s before, %.4g s after)",
                          outer, L, before, after);
            return buf;
        }
    }
    return {};
}

// On a dragonfly the all-to-all phases are judged against the model's
// validated error.  The pairwise steps do not wait for each other (a rank
// starts its next step when its own exchange ends), and where the steps
// load the global links unevenly the sum of their busiest links overstates
// a placement's time by up to kDragonflyAlltoallPessimism - 1
// (doc/tuning.md): a new placement must then be predicted faster than the
// current one could truly be.
std::string alltoall_gain_unproven(const Topology &topo, const std::vector<std::vector<int>> &alltoall_groups,
                                   double before, double after) {
    if (topo.kind() != TopologyKind::Dragonfly || alltoall_groups.empty()) return {};
    if (after * kDragonflyAlltoallPessimism <= before) return {};
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "gain within the model's error for all-to-all steps on a dragonfly (predicted %.4g s before, "
                  "%.4g s after, a gain needs %.2fx)",
                  before, after, kDragonflyAlltoallPessimism);
    return buf;
}

// A dragonfly whose topology string declares no routing (no :valiant=) may
// route adaptively, as HPE Slingshot and Cray Aries do: keeping traffic in
// a group then pays, where under minimal routes spreading it over the
// global links pays (Bhatele et al., "Avoiding hot-spots on two-level
// direct networks"; Wang et al., "Trade-off study of localizing
// communication and balancing network traffic on a dragonfly system").
// The guard reads the large-message regime under minimal routes (the
// topology as given) and under each share of kUndeclaredValiantShares, and
// refuses a placement predicted slower in any: where the regimes disagree
// the current placement stays.
std::string adaptive_routing_slower(const Graph &g, const Topology &topo, const std::vector<int> &current,
                                    const std::vector<int> &proposed,
                                    const std::vector<std::vector<int>> &alltoall_groups) {
    const auto *df = topo.kind() == TopologyKind::Dragonfly ? static_cast<const DragonflyTopology *>(&topo) : nullptr;
    if (!df || df->routing_declared() || df->groups() < 3) return {};
    for (double share : kUndeclaredValiantShares) {
        const auto adaptive = df->with_valiant(share);
        const double before = bandwidth_time(g, *adaptive, current, alltoall_groups);
        const double after = bandwidth_time(g, *adaptive, proposed, alltoall_groups);
        if (after > before) {
            char buf[240];
            std::snprintf(buf, sizeof buf,
                          "slower for large messages if the dragonfly routes adaptively (valiant=%g: predicted %.4g s "
                          "before, %.4g s after; declare the routing with :valiant=)",
                          share, before, after);
            return buf;
        }
    }
    return {};
}

} // namespace

GuardVerdict guard_verdict(const Graph &g, const Topology &topo, const std::vector<int> &current,
                           const std::vector<int> &proposed, const std::vector<std::vector<int>> &alltoall_groups,
                           GuardMode mode, double margin, const ExchangePhases *phases, const MessageSizes *sizes) {
    GuardVerdict v;
    if (mode == GuardMode::Off) return v;
    check_placement(topo, g.n(), current);
    check_placement(topo, g.n(), proposed);
    const CostReport cur = evaluate(g, topo, current), pro = evaluate(g, topo, proposed);
    const bool all_traffic = mode == GuardMode::F || alltoall_groups.empty();
    v.F_current = all_traffic ? cur.F : exchange_F(g, topo, current, alltoall_groups);
    v.F_proposed = all_traffic ? pro.F : exchange_F(g, topo, proposed, alltoall_groups);
    char buf[160];
    if (mode == GuardMode::F) {
        std::snprintf(buf, sizeof buf, "F %g before, %g after", v.F_current, v.F_proposed);
        v.figures = buf;
        if (!(v.F_proposed < v.F_current)) v.take = false, v.why = "F not lower";
        return v;
    }
    v.T_current = bandwidth_time(g, topo, current, alltoall_groups);
    v.T_proposed = bandwidth_time(g, topo, proposed, alltoall_groups);
    std::snprintf(buf, sizeof buf, "%s %g before, %g after; predicted",
                  alltoall_groups.empty() ? "F" : "F outside all-to-all", v.F_current, v.F_proposed);
    v.figures = buf;
    std::snprintf(buf, sizeof buf, " %.4g s before, %.4g s after for 1 MiB per unit", v.T_current, v.T_proposed);
    v.figures += buf;
    std::snprintf(buf, sizeof buf, "; busiest link %g before, %g after", cur.max_link_load, pro.max_link_load);
    v.figures += buf;
    if (v.F_proposed > v.F_current)
        v.why = "slower for small messages";
    else if (v.T_proposed > v.T_current)
        v.why = "slower for large messages";
    else if (!(v.F_current > 0 && v.F_proposed <= (1 - margin) * v.F_current) &&
             !(v.T_current > 0 && v.T_proposed <= (1 - margin) * v.T_current))
        v.why = "no clear gain";
    if (v.why.empty()) v.why = hidden_switches_slower(g, topo, current, proposed, alltoall_groups);
    if (v.why.empty()) v.why = alltoall_gain_unproven(topo, alltoall_groups, v.T_current, v.T_proposed);
    if (v.why.empty()) v.why = adaptive_routing_slower(g, topo, current, proposed, alltoall_groups);
    if (phases && !phases->partner.empty() && sizes && sizes->bytes) {
        const double before = phased_time(topo, current, *phases, *sizes);
        const double after = phased_time(topo, proposed, *phases, *sizes);
        std::snprintf(buf, sizeof buf, "; one direction at a time at the given sizes: %.4g s before, %.4g s after",
                      before, after);
        v.figures += buf;
        if (v.why.empty() && after > before) v.why = "slower at the given message sizes sent one direction at a time";
    } else if (phases && !phases->partner.empty()) {
        const double before = phased_latency(topo, current, *phases), after = phased_latency(topo, proposed, *phases);
        std::snprintf(buf, sizeof buf, "; one direction at a time: distance %g before, %g after", before, after);
        v.figures += buf;
        if (v.why.empty() && after > before) v.why = "slower for small messages sent one direction at a time";
    }
    v.take = v.why.empty();
    return v;
}

} // namespace rankmap

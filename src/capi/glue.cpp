// glue.cpp -- the C boundary of the MPI glue (include/rankmap_glue.h): the
// arguments checked, the decision of src/capi/reorder.cpp and the moves of
// src/capi/pin.cpp called inside guarded(), the outputs written.
#include "rankmap_glue.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "capi/capi.hpp"
#include "capi/pin.hpp"
#include "capi/reorder.hpp"
#include "common/error.hpp"
#include "common/timer.hpp"
#include "cost/cost.hpp"
#include "graph/graph.hpp"

namespace {

void say(char *why, size_t whylen, const std::string &m) {
    if (why && whylen) std::snprintf(why, whylen, "%s", m.c_str());
}

} // namespace

using rankmap::capi::fail;
using rankmap::capi::fill_report;
using rankmap::capi::guarded;

extern "C" {

int rankmap_reorder_ranks(rankmap_topology_t topo, rankmap_graph_t graph, const rankmap_options *opts, int nmembers,
                          const int *node_of_member, int ntasks, int flags, int *new_of_member,
                          rankmap_report *before, rankmap_report *after, char *why, size_t whylen) {
    using namespace rankmap;
    const Deadline clock;
    say(why, whylen, "");
    if (!new_of_member || nmembers < 1) {
        say(why, whylen, "rankmap_reorder_ranks: no members or NULL new_of_member");
        return fail(RANKMAP_ERR_INVALID, "rankmap_reorder_ranks: no members or NULL new_of_member");
    }
    for (int i = 0; i < nmembers; ++i) new_of_member[i] = i < ntasks ? i : -1;
    std::string note;
    const int rc = guarded([&] {
        if (!topo || !graph || !node_of_member) throw Error("rankmap_reorder_ranks: NULL argument");
        const ReorderInput in = validate_reorder(*topo->t, *graph, opts, nmembers, node_of_member, ntasks, flags);
        fill_report(before, in.cur, 0, "current");
        const Candidate decided = decide_reorder(in);
        std::copy(decided.ranks.begin(), decided.ranks.end(), new_of_member);
        fill_report(after, decided.res, clock.elapsed(), decided.algorithm.c_str());
        note = decided.note;
    });
    if (rc != RANKMAP_OK) {
        for (int i = 0; i < nmembers; ++i) new_of_member[i] = i < ntasks ? i : -1;
        say(why, whylen, rankmap_last_error());
        return rc;
    }
    say(why, whylen, note);
    return RANKMAP_OK;
}

int rankmap_place_task0(rankmap_topology_t topo, rankmap_graph_t graph, int node, int *node_of_task,
                        rankmap_report *report, int *exact) {
    using namespace rankmap;
    if (!topo || !graph || !node_of_task) return fail(RANKMAP_ERR_INVALID, "rankmap_place_task0: NULL argument");
    return guarded([&] {
        const Topology &t = *topo->t;
        const Graph &g = graph->g;
        if (node < 0 || node >= t.size())
            throw Error("rankmap_place_task0: node " + std::to_string(node) + " outside 0.." +
                        std::to_string(t.size() - 1));
        std::vector<int> place(node_of_task, node_of_task + g.n());
        const double fmin = lower_bound(g, t);
        const CostReport was = evaluate(g, t, place, fmin);
        auto pin = pin_task0(g, t, place, node, nullptr, was.F);
        const CostReport now = evaluate(g, t, place, fmin);
        check_exact(t, pin, was.F, now.F);
        std::copy(place.begin(), place.end(), node_of_task);
        if (report) fill_report(report, now, 0, "evaluate");
        if (exact) *exact = pin.exact ? 1 : 0;
    });
}

int rankmap_guard_flags(const char *setting, int *flags) {
    if (!flags) return fail(RANKMAP_ERR_INVALID, "rankmap_guard_flags: NULL flags");
    *flags = 0;
    const std::string v = setting ? setting : "";
    if (v.empty() || v == "model") return RANKMAP_OK;
    if (v == "f") return *flags = RANKMAP_REORDER_GUARD_F, RANKMAP_OK;
    if (v == "off") return *flags = RANKMAP_REORDER_GUARD_OFF, RANKMAP_OK;
    return fail(RANKMAP_ERR_INVALID, "guard '" + v + "' is not model, f or off");
}

int rankmap_graph_cartesian_alltoall(int ndims, const int *dims, const int *periods, const char *alltoall,
                                     rankmap_graph_t *graph) {
    using namespace rankmap;
    if (!graph || !dims || !periods) return fail(RANKMAP_ERR_INVALID, "rankmap_graph_cartesian_alltoall: NULL argument");
    if (ndims < 1 || ndims > RANKMAP_MAX_DIMS)
        return fail(RANKMAP_ERR_INVALID, "ndims must be 1.." + std::to_string(RANKMAP_MAX_DIMS));
    return guarded([&] {
        const std::vector<bool> a2a = parse_alltoall_dims(alltoall ? alltoall : "", ndims);
        auto h = std::make_unique<rankmap_graph_s>();
        h->grid_dims.assign(dims, dims + ndims);
        for (int k = 0; k < ndims; ++k) h->grid_periods.push_back(periods[k] ? 1 : 0);
        h->grid_alltoall = a2a;
        h->grid_unknown = alltoall_hint_unknown(alltoall ? alltoall : "");
        h->g = cartesian_alltoall_graph(h->grid_dims, h->grid_periods, a2a, &h->alltoall);
        *graph = h.release();
    });
}

} // extern "C"

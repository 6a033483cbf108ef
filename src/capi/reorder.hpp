// reorder.hpp -- the reorder decision of the MPI glue
// (include/rankmap_glue.h, rankmap_reorder_ranks): a communicator's members
// and a graph in, the new rank of every member out.  Private to src/capi;
// src/capi/glue.cpp is its C boundary.
#pragma once
#include <string>
#include <vector>

#include "capi/capi.hpp"
#include "cost/cost.hpp"
#include "cost/model.hpp"

namespace rankmap {

// The arguments of one decision, checked, and the current order's cost.
struct ReorderInput {
    const Topology &t;
    const rankmap_graph_s &graph;   // the graph and the hints of its readings
    const rankmap_options *opts;    // for the mapper (NULL: defaults)
    const int *node_of_member;      // nmembers entries, each a node of t
    int nmembers, ntasks, flags;    // flags: RANKMAP_REORDER_*
    GuardMode mode;                 // the guard the flags ask for
    std::vector<int> cap;           // members per node
    std::vector<int> current;       // node of task r in the current order
    double fmin;                    // the graph's lower bound on t
    CostReport cur;                 // the current order's cost (F = -1: not a balanced placement)
    bool have_current;              // false: nothing to compare with, the guard does not apply
};

// A placement considered for the communicator: the graph of one reading
// mapped, laid over the current order (fewest moves) and with member 0
// keeping rank 0.  The decision is one of them, or the current order
// (ranks empty, res the current cost, algorithm "identity (no gain)").
struct Candidate {
    std::vector<int> place, ranks;  // node of each task; new rank of each member
    CostReport res;
    std::string note, algorithm;
};

// Checks the flags, the task count and the members' nodes against t and the
// graph (throws rankmap::Error naming the first at fault) and evaluates the
// current order.
ReorderInput validate_reorder(const Topology &t, const rankmap_graph_s &graph, const rankmap_options *opts,
                              int nmembers, const int *node_of_member, int ntasks, int flags);

// The decision of rankmap_reorder_ranks (steps 2-5 of include/rankmap_glue.h).
Candidate decide_reorder(const ReorderInput &in);

} // namespace rankmap

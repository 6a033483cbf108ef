// pin.hpp -- rank 0 kept on its node (include/rankmap_glue.h,
// rankmap_reorder_ranks step 3 and rankmap_place_task0): a placement moved
// by a symmetry of the machine, or a symmetry and one exchange, so that task
// 0 sits on a given node.  Private to src/capi.
#pragma once
#include <string>
#include <vector>

#include "graph/graph.hpp"
#include "topology/topology.hpp"

namespace rankmap {

struct PinResult {
    bool exact = true;  // a symmetry alone: F unchanged
    std::string how;    // "a translation", "an exchange of task 0", ...
};

// Moves `place` so that task 0 sits on `target`.  cap (may be null):
// members per node; a result putting more tasks on a node than cap allows
// is skipped for the next move.  F0: the cost of `place`.  Throws when no
// move fits.
PinResult pin_task0(const Graph &g, const Topology &t, std::vector<int> &place, int target,
                    const std::vector<int> *cap, double F0);

// A symmetry alone must leave F exactly as it was (same terms, same order);
// throws an internal error when it does not.
void check_exact(const Topology &t, const PinResult &pin, double was, double now);

} // namespace rankmap

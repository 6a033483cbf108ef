// placement.hpp -- placement validity: the tasks per node (Capacity) and
// the check of a placement against a topology.  Lives in topology/ because
// topology's own readers (mapfiles, stock orders) check placements; cost/
// builds on it.
#pragma once
#include <vector>

#include "topology/topology.hpp"

namespace rankmap {

// Tasks per node: N tasks on P nodes, every node holds between
// floor(N/P) and ceil(N/P) tasks (equation 3 of Bhanot et al., BG/L task
// layout).
struct Capacity {
    int lo;
    int hi;
};
Capacity capacity_for(int ntasks, int nnodes);

// Throws rankmap::Error if `place` is not a valid placement: wrong size, a
// node outside [0,P), or a node holding more than hi or fewer than lo tasks.
void check_placement(const Topology &topo, int ntasks, const std::vector<int> &place);

} // namespace rankmap

// initial.hpp -- placements built from the graph and the machine alone (no
// start placement), for `auto`, dc-anneal and the tests: the greedy fill of Bhanot et al. (BG/L task
// layout, "The method"), divide-and-conquer annealing with its subgraph
// sizes (their Figure 4), the recursive co-bisection and the graph drawing.
// Each one's cost is in its file's header.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "map/mapper.hpp"
#include "map/state/near_nodes.hpp"
#include "map/state/placement_state.hpp"
#include "map/tuning.hpp"

namespace rankmap {

// Greedy placement of the unplaced tasks among `tasks` into `st` (the
// heuristic of Bhanot et al., BG/L task layout, greatest-volume-to-mapped
// first).  Other placed tasks stay.
void greedy_fill(PlacementState &st, const std::vector<int> &tasks, const NearNodes &near,
                 const GreedyContext &gc = greedy_preset());

// Divide-and-conquer mapper that also reports the sizes of the subgraphs
// it annealed, in order (for the tests).
std::vector<int> divide_anneal_with_leaves(const Problem &p, std::vector<size_t> *leaves,
                                           double sweeps = 1000);

// Recursive co-bisection of tasks and machine (cobisection.cpp): a
// valid placement used as an annealing start.
std::vector<int> bisection_map(const Problem &p, uint64_t seed);

// Graph-drawing start (geometric.cpp): the task graph drawn in the
// machine's dimensions (pivot MDS + stress majorization), laid onto the
// machine box by recursive coordinate bisection in the best of several
// orientations.  Empty, with the reason in *why, without machine
// coordinates (trees, distance files) or at the deadline.
std::vector<int> geometric_map(const Problem &p, uint64_t seed, std::string *why);

} // namespace rankmap

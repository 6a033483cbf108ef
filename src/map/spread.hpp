// spread.hpp -- placements that spread all-to-all traffic over a
// dragonfly's global links (spread.cpp).
#pragma once
#include <vector>

#include "graph/graph.hpp"
#include "topology/topology.hpp"

namespace rankmap {

// Whether a spread is offered: a dragonfly, with all-to-all groups declared.
bool spread_applies(const Topology &topo, const std::vector<std::vector<int>> &alltoall_groups);

// The tasks of `current` shuffled over its own slots (each node keeps its
// number of tasks), the fastest of a few fixed seeds by bandwidth_time():
// the same on every process for the same inputs.
std::vector<int> spread_placement(const Graph &g, const Topology &topo, const std::vector<int> &current,
                                  const std::vector<std::vector<int>> &alltoall_groups);

} // namespace rankmap

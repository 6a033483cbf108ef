// cost.hpp -- free energy F (Bhanot et al., BG/L task layout, equation 1), its
// lower bound F_min, and the side metrics reported beside them.
#pragma once
#include <vector>

#include "graph/graph.hpp"
#include "topology/placement.hpp"  // Capacity, check_placement (cost users need both)
#include "topology/topology.hpp"

namespace rankmap {

// F = sum_{i,j} C(i,j) d(pi(i), pi(j)) on the directed graph (or, same
// value, half the symmetrized graph's sum over both directions).
double free_energy(const Graph &g, const Topology &topo, const std::vector<int> &place);

// F_min as Bhanot et al. define it: for each task, its partners' weights
// sorted decreasingly are dealt out first to its own node (hi - 1 slots,
// distance 0), then to the nearest distance shell (count x hi slots), then the
// next, and the per-task minima are summed.  On non-uniform models (mesh,
// file) each task takes its best node, so F_min stays a lower bound.
double lower_bound(const Graph &g, const Topology &topo);

struct CostReport {
    double F = 0;
    double F_min = 0;
    double ratio = 1;          // F / F_min (1 when F_min == 0)
    double avg_dilation = 0;   // weighted mean hops per unit of traffic
    double max_link_load = 0;  // heaviest link under the model's routing
};
CostReport evaluate(const Graph &g, const Topology &topo, const std::vector<int> &place);
// Same with F_min already known (saves the bound's cost in loops).
CostReport evaluate(const Graph &g, const Topology &topo, const std::vector<int> &place,
                    double f_min);

} // namespace rankmap

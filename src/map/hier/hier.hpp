// hier.hpp -- private to src/map (hier.cpp, grid_blocks.cpp, auto.cpp): the
// hierarchy mappers' building blocks on a tree topology (topology/tree.hpp:
// distance = cost of the tier of the lowest common ancestor).
//
// On a tree, siblings are equidistant: which part of a multisection goes to
// which child of an entity changes nothing, so a placement is fully
// described by the nested partition of the tasks along the tiers, and the
// free energy is sum_k cost[k] x (traffic whose endpoints first differ at
// tier k).  Both builders below construct that nested partition top-down.
#pragma once
#include <string>
#include <vector>

#include "map/mapper.hpp"
#include "map/tuning.hpp"

namespace rankmap {

class TreeTopology;

// The tree behind p.topo, or nullptr when p.topo is not a tree.
const TreeTopology *as_tree(const Topology &topo);

// Traffic per tier: out[k] = sum of C(i,j) over task pairs whose nodes
// first differ at tier k (out[0] = traffic leaving a node of the outermost
// tier).  Each undirected pair is counted once (on the symmetrized graph).
std::vector<double> tier_traffic(const TreeTopology &tree, const Graph &sym, const std::vector<int> &place);

// Top-down multisection: the tasks are split with METIS into the children
// of the root (sizes balanced to the children's capacity), each part into
// the children of its entity, and so on down to the leaves.  The split of
// the root is made `tries` times with different METIS seeds, inner splits
// up to HierContext::inner_tries times, and the least cut is kept.  Returns
// a valid placement.
// Throws rankmap::Error if p.topo is not a tree.
std::vector<int> tree_multisection(const Problem &p, uint64_t seed, int tries);
// The same with explicit settings (its bisection tries per split).
std::vector<int> tree_multisection(const Problem &p, uint64_t seed, int tries, const HierContext &hc);

// k-way refinement of `part` (values 0..nparts-1) on `sym` that keeps
// every part's size exactly and never raises the edge cut: multilevel
// V-cycles (coarsening by heavy-edge matching inside the parts) with
// ejection-chain passes over all parts at once, and from the second cycle
// unions of `group` parts re-partitioned by METIS (group < 2: none;
// kway.cpp).  At most `cycles` V-cycles, deterministic for a seed
// unless dl expires.  Returns the cut decrease (>= 0).
double kway_refine_exact(const Graph &sym, int nparts, std::vector<int> &part, uint64_t seed, int cycles, int group,
                         const Deadline &dl, const KwayContext &kc = kway_preset());

// The node tier of a placement on a tree refined by kway_refine_exact:
// tasks that change node take the leaves the leaving tasks freed (the
// inner tiers are left to Kernighan-Lin).  Every node keeps its task
// count; the inter-node traffic never rises.  Returns the new placement.
std::vector<int> refine_node_tier(const Problem &p, const std::vector<int> &place, uint64_t seed, int cycles,
                                  int group, const Deadline &dl, const KwayContext &kc = kway_preset());

// The general path of the hierarchy mapper: multisection (and Scotch's
// tleaf map when built with Scotch) as starts, Kernighan-Lin, a cold
// annealing chain, Kernighan-Lin again, then refine_node_tier and a last
// Kernighan-Lin (hier.cpp).  Used by map_hier and by `auto` on trees
// (with the strategy's settings: hier_preset or hier_fast_preset).
std::vector<int> tree_refined_map(const Problem &p, const Deadline &dl);
std::vector<int> tree_refined_map(const Problem &p, const Deadline &dl, const HierContext &hc);

// Node-aware structured map of a Cartesian task grid: the grid is cut into
// equal boxes, one per entity of the outermost tier, with the least
// crossing traffic (every box shape that tiles the grid is enumerated;
// periodic and non-periodic dimensions are counted on the graph itself),
// then each box into the children of its entity, recursively.  Returns
// node_of_point[g] for every grid point g (row-major, last dimension
// fastest; translated to tasks through task_at when given), or an empty
// vector with *why set when the entity sizes do not tile the grid (or the
// tasks per leaf are not uniform).  `shapes`, when given, receives the box
// shape chosen at each tier ("8x8x4", ...).
std::vector<int> tree_grid_blocks(const Problem &p, const CartGrid &grid, const std::vector<int> *task_at,
                                  std::string *why, std::vector<std::string> *shapes = nullptr);

} // namespace rankmap

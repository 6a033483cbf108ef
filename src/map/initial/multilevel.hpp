// multilevel.hpp -- the multilevel start of auto at large sizes
// (multilevel.cpp): METIS groups of one block's size, mapped by auto on the
// machine of blocks.  Cost: METIS's O(E log(N/B)) plus auto's at N / B
// tasks (B nodes per block).
#pragma once
#include <string>
#include <vector>

#include "map/mapper.hpp"
#include "map/tuning.hpp"

namespace rankmap {

// A placement of one task per node on a torus or mesh: the machine's even
// extents are halved into blocks of c.block nodes (at least c.min_block;
// 2x2x2 on a 3-D torus), the tasks are partitioned into groups of
// one block's size, the graph of the groups is mapped onto the machine of
// blocks by auto (auto_coarse_preset), and every group's tasks
// are laid onto its block in label order.  The caller refines the result
// (auto: a cold chain and Kernighan-Lin).  Returns an empty vector, with
// the reason in *why, when the problem does not fit (another topology, a
// node-local dimension, not one task per node, too few even extents).
// Deterministic for a seed; the coarse map's deadline is a share of the
// caller's time limit when there is one, else its own default budget.
std::vector<int> multilevel_start(const Problem &p, const MultilevelContext &c, std::string *why);

// The block extents multilevel_start uses on `topo` (a block's nodes per
// dimension), or empty, with the reason in *why, when it has none.
std::vector<int> multilevel_blocks(const Topology &topo, const MultilevelContext &c, std::string *why);

} // namespace rankmap

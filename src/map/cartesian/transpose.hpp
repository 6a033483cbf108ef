// transpose.hpp -- placements for Cartesian grids whose lines exchange by
// all-to-all (pencil-FFT transposes: MPI_Cart_sub into lines, MPI_Alltoall
// in each), and the choice among them by the cost model.
//
// Mirrored blocks: the machine is halved, dimension by dimension (the
// longest first), until a block holds one line along the chosen grid
// dimension d; each such line fills one block, so its all-to-all stays
// inside a compact part of the machine.  The blocks are placed as mirror
// images of each other (the second half of a halved dimension runs
// backwards), so the tasks that share a position in their lines -- the
// lines along the other dimensions -- sit at mirror positions, one or a few
// links apart across each cut, instead of a whole block apart as a
// translation would put them.  On the 8x8x8 torus the 8x64 grid's columns
// fill the eight 4x4x4 octants and its rows are mirror images (the FFT rows
// of bench/results/smpi-full.md).
#pragma once
#include <string>
#include <vector>

#include "cost/cost.hpp"
#include "graph/graph.hpp"
#include "topology/topology.hpp"

namespace rankmap {

struct TransposeCandidate {
    std::string name;        // "mirrored blocks (lines of dimension d)"
    std::vector<int> place;  // task -> node
};

// One candidate per all-to-all dimension d of the grid (row-major task
// numbering, as MPI_Cart_create) for which the construction applies: a
// torus or mesh topology with one task per node (ntasks == nodes) whose
// number of blocks, nodes / dims[d], is a power of two reachable by halving
// dimensions of even extent.  Empty when none applies.
std::vector<TransposeCandidate> transpose_candidates(const Topology &topo, const std::vector<int> &dims,
                                                     const std::vector<bool> &alltoall);

// The placement the model predicts fastest among `mapped` (the mapper's
// result, named `mapped_name`) and transpose_candidates(): lowest
// predict_time() in the bandwidth regime of the guard, ties to `mapped`.
// `groups`: the grid's all-to-all lines (cartesian_alltoall_graph()).
TransposeCandidate choose_for_alltoall(const Graph &g, const Topology &topo, const std::vector<int> &dims,
                                       const std::vector<bool> &alltoall,
                                       const std::vector<std::vector<int>> &groups, TransposeCandidate mapped);

// choose_for_alltoall() on a mapping (its placement, cost report and mapper
// name, as rankmap_map() and `rankmap map` hold it): a mirrored-block
// placement the model predicts faster replaces all three.
void prefer_for_alltoall(const Graph &g, const Topology &topo, const std::vector<int> &dims,
                         const std::vector<bool> &alltoall, const std::vector<std::vector<int>> &groups,
                         std::vector<int> &place, CostReport &report, std::string &algorithm);

} // namespace rankmap

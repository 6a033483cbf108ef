// workload.hpp -- generators for the workloads of Bhanot et al. (BG/L task
// layout), for `rankmap gen`, bench/mapping and the tests.  All deterministic
// for a given seed.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.hpp"

namespace rankmap {

// cubic1 (Bhanot et al.): periodic 3-D grid dims[0] x dims[1] x dims[2], each
// task sends 1 unit to each of its 6 nearest neighbours.  Row-major labels.
Graph workload_cubic1(const std::vector<int> &dims);
// cubic2 (Bhanot et al.): as cubic1 with weight 2 to the 6 nearest neighbours
// and weight 1 to the 6 next-nearest along the axes (straight lines only).
Graph workload_cubic2(const std::vector<int> &dims);
// SAGE-like (Bhanot et al.): a cubic grid of cells grouped in 2x2x2-cell
// blocks, blocks distributed in (x,y,z) order with an equal number per task;
// face-adjacent blocks of different owners exchange data proportional to the
// shared face area.  `ntasks` tasks, `cells_per_task` cells each.  The
// default, 13824 = 24^3 cells per task, makes the slab decomposition ragged at
// every task count, so rank order stays well above F_min as in the SAGE runs
// of Bhanot et al. (doc/tuning.md, workload_sage); with 4096 cells, 512 and
// 32768 tasks would get perfectly aligned slabs.
Graph workload_sage(int ntasks, int cells_per_task = 13824);
// UMT-like (Bhanot et al.): random points in a unit cube, k-nearest-neighbour
// mesh, partitioned with METIS into ntasks parts; the weight between two
// parts is the number of mesh edges they share (cut volume).
Graph workload_umt(int ntasks, uint64_t seed, int points_per_task = 64, int k = 6);

// By name: "cubic1", "cubic2", "sage", "umt".  For cubic* the grid dims
// come from `grid_dims` (usually the torus dims).  Throws on a bad name.
Graph make_workload(const std::string &name, int ntasks, const std::vector<int> &grid_dims,
                    uint64_t seed);

// Random permutation relabelling (labels scrambled, so that rank order is
// not the answer).  perm[v] = new label of v.
std::vector<int> scramble_permutation(int n, uint64_t seed);

} // namespace rankmap

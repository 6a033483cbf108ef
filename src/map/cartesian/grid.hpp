// grid.hpp -- structured grid embeddings shared by the Cartesian mapper,
// `auto` and the MPI layers: grid recognition in a graph (recognize.cpp,
// O(N + E)), the grid's exchange phases for the guard, and the best
// structured embedding of a grid (cartesian.cpp, O(candidates * (N + E))).
#pragma once
#include <optional>
#include <vector>

#include "cost/model.hpp"
#include "map/mapper.hpp"

namespace rankmap {

// A Cartesian structure found in a graph whose labels may be scrambled:
// task_at[g] = the task sitting at grid point g (row-major, last dim fastest).
struct RecognizedGrid {
    CartGrid grid;
    std::vector<int> task_at;
};

// Recognise a 1..6-D grid or torus of nearest-neighbour edges in `sym`
// (optionally with heavier/lighter extra edges, as cubic2's straight-line
// next-nearest partners: recognition looks at the heaviest edge class
// first).  Returns nothing when the graph is not such a grid.  Runs in
// O(N + E).
std::optional<RecognizedGrid> recognize_grid(const Graph &sym);

// The exchange of a grid recognised in `g` (any direction of its edges),
// read one direction at a time for the guard (cost/model.hpp): two phases
// per dimension longer than 1, towards lower then higher coordinates,
// across the boundary where the grid wraps.  Nothing when `g` is not a grid.
std::optional<ExchangePhases> grid_exchange_phases(const Graph &g);

// Best structured embedding of a Cartesian task grid onto the topology:
// tries the stock permutations, direct/ folded / Gray-code / unfold / block
// embeddings and returns node_of_point[g] for every grid point g with the
// lowest free energy (evaluated on p.g after translating points to tasks
// through task_at, identity when null).  Respects p.cap.  Throws if the
// grid's size differs from p.g.n().
std::vector<int> best_grid_embedding(const Problem &p, const CartGrid &grid,
                                     const std::vector<int> *task_at);

} // namespace rankmap

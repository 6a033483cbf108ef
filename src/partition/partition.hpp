// partition.hpp -- graph partitioning through METIS (Debian libmetis-dev).
#pragma once
#include <cstdint>
#include <vector>

#include "graph/graph.hpp"

namespace rankmap {

// Split the symmetric graph `sym` into `nparts` parts of the given target
// sizes (sizes sum to sym.n(); empty = as equal as possible), minimising the
// edge cut.  Returns part[v].  Deterministic for a given seed.  Handles the
// trivial cases (nparts == 1, n <= nparts, graphs with no edges) without
// calling METIS; throws rankmap::Error if METIS fails.
std::vector<int> partition_graph(const Graph &sym, int nparts, uint64_t seed,
                                 const std::vector<int> &sizes = {});

// Two-way split with exact part sizes (size0 + size1 == sym.n()).
std::vector<int> bisect_graph(const Graph &sym, int size0, uint64_t seed);

} // namespace rankmap

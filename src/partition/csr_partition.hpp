// csr_partition.hpp -- private to partition/ and workload/: the METIS driver
// behind partition_graph() on a raw symmetric CSR, so that a large mesh (the
// UMT-like generator's millions of points) is partitioned without first
// being built as a rankmap::Graph (which stores a double per edge).
#pragma once
#include <cstdint>
#include <vector>

namespace rankmap {
namespace detail {

// Symmetric CSR: neighbours of v are adj[xadj[v] .. xadj[v+1]), both
// directions present, no self loops.  `w` holds one positive integer weight
// per entry or is empty (all 1).  `sizes` as in partition_graph().
std::vector<int> partition_csr(int n, const std::vector<int64_t> &xadj, const std::vector<int> &adj,
                               const std::vector<int64_t> &w, int nparts, uint64_t seed,
                               const std::vector<int> &sizes);

} // namespace detail
} // namespace rankmap

// graph.hpp -- communication graph in CSR with directed weights.
// C(i,j) = traffic from task i to task j (bytes or messages).  Mappers work
// on the symmetrized form (w = C(i,j) + C(j,i)) because every distance here
// is symmetric: F = sum_i sum_j C(i,j) d = sum over undirected pairs.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace rankmap {

struct Edge {
    int src;
    int dst;
    double w;
};

class Graph {
public:
    Graph() = default;
    // Builds CSR from an edge list: duplicates summed, self loops dropped,
    // neighbours sorted.  Throws on a vertex outside [0, n) or a weight that
    // is negative or not finite.
    static Graph from_edges(int n, const std::vector<Edge> &edges);

    int n() const { return n_; }
    int64_t nedges() const { return static_cast<int64_t>(adj_.size()); }
    int64_t begin(int v) const { return xadj_[v]; }
    int64_t end(int v) const { return xadj_[v + 1]; }
    int degree(int v) const { return static_cast<int>(xadj_[v + 1] - xadj_[v]); }
    const std::vector<int64_t> &xadj() const { return xadj_; }
    const std::vector<int> &adj() const { return adj_; }
    const std::vector<double> &weights() const { return w_; }
    int target(int64_t e) const { return adj_[e]; }
    double weight(int64_t e) const { return w_[e]; }
    double total_weight() const;
    // Sum of outgoing weights of v: c(i), equation 2 of Bhanot et al. (BG/L
    // task layout).
    double out_weight(int v) const;

    // Undirected form: w(i,j) = C(i,j) + C(j,i), both directions stored.
    Graph symmetrized() const;
    // Subgraph induced by `vertices` (in that order); `local` must have size
    // n() and receives the local index or -1.
    Graph induced(const std::vector<int> &vertices, std::vector<int> &local) const;
    // Relabel: task v becomes perm[v] (used to scramble labels).
    Graph relabeled(const std::vector<int> &perm) const;
    std::vector<Edge> edges() const;

private:
    int n_ = 0;
    std::vector<int64_t> xadj_{0};
    std::vector<int> adj_;
    std::vector<double> w_;
};

// Readers.  Every error names the file and line.  `format` is "edges",
// "metis", "matrix" or "auto" (by extension: .graph -> metis, .mat/.matrix ->
// matrix, anything else -> edges).
Graph read_graph(const std::string &path, const std::string &format = "auto");
Graph read_edge_list(const std::string &path);
Graph read_metis(const std::string &path);
Graph read_matrix(const std::string &path);
void write_edge_list(const Graph &g, const std::string &path);

// Implied neighbour graph of a Cartesian grid (row-major task numbering,
// last dimension fastest, as MPI_Cart_create): weight 1 to each neighbour
// in each dimension (periodic or not).
Graph cartesian_graph(const std::vector<int> &dims, const std::vector<int> &periods);

// The all-to-all dimensions of a grid of `ndims` dimensions from a setting:
// "none": none (a stencil); "" or "unknown": none either, the traffic not
// being declared (alltoall_hint_unknown); "all": every one; else a
// comma-separated list of dimensions 0..ndims-1.  Throws Error naming the
// bad entry.
std::vector<bool> parse_alltoall_dims(const std::string &spec, int ndims);

// The graph read as collective phases: when its edges split into complete
// cliques (every pair of a clique joined, in both directions together, by
// the same weight) that share no pair, and at least one has 3 or more
// members -- the transposes of a pencil FFT, one all-to-all -- the cliques,
// in phases: each clique in the first phase whose cliques share no task
// with it (a grid's rows, then its columns); otherwise none.  A stencil or an irregular graph gives none at its first
// edge.  Cost: O(sum of clique sizes squared + degrees) on a decomposition.
std::vector<std::vector<int>> clique_groups(const Graph &g);

// True for a setting that declares nothing ("" or "unknown"): the glue then
// judges a reorder both as a stencil and as transposes (rankmap_glue.h).
bool alltoall_hint_unknown(const std::string &spec);

// The grid of cartesian_graph() whose lines along the dimensions with
// alltoall[k] set exchange by all-to-all: every pair of such a line is an
// edge of weight W / dims[k] per direction (W = the product of those
// dimensions' extents: every task sends the same volume in each
// transpose); the other dimensions keep their stencil edges of weight 1.
// groups (if not null) receives the lines, dimension by dimension, each in
// the order of its coordinate (MPI_Cart_sub's ranks): one phase per
// dimension for predict_time().
Graph cartesian_alltoall_graph(const std::vector<int> &dims, const std::vector<int> &periods,
                               const std::vector<bool> &alltoall, std::vector<std::vector<int>> *groups);

} // namespace rankmap

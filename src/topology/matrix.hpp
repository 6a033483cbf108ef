// matrix.hpp -- explicit distance matrix read from a file (`file:PATH`):
// P lines of P non-negative numbers, symmetric, zero diagonal; '#' starts a
// comment.  Also the distances among some nodes of another model, built in
// memory (the machine of an MPI communicator that fills its machine
// unevenly: rankmap_topology_restrict).  The only model that stores P x P values, so it is meant for
// small or irregular machines.  Coordinates are the node index (1 dim).
#pragma once
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace rankmap {

class MatrixTopology final : public Topology {
public:
    explicit MatrixTopology(const std::string &path);
    // The distances among nodes[0..n-1] of `of` (node i = nodes[i]; a node
    // may repeat, at distance 0 from itself), described as `name`.
    MatrixTopology(const Topology &of, const std::vector<int> &nodes, const std::string &name);
    TopologyKind kind() const override { return TopologyKind::Matrix; }
    int size() const override { return n_; }
    int ndims() const override { return 1; }
    const std::vector<int> &dims() const override { return dims_; }
    void coords(int node, int *c) const override { c[0] = node; }
    int node_at(const int *c) const override { return (c[0] >= 0 && c[0] < n_) ? c[0] : -1; }
    double distance(int a, int b) const override { return d_[static_cast<size_t>(a) * n_ + b]; }
    int hops(int a, int b) const override { return a == b ? 0 : 1; }
    std::vector<Shell> shells(int node) const override;
    bool uniform() const override { return false; }
    int64_t num_links() const override { return static_cast<int64_t>(n_) * n_; }
    void route(int a, int b, std::vector<int64_t> &links) const override;
    std::string describe() const override {
        return (name_.empty() ? "file:" + path_ : name_) + slots_suffix();
    }

private:
    std::string path_, name_;
    int n_ = 0;
    std::vector<int> dims_;
    std::vector<double> d_;
};

} // namespace rankmap

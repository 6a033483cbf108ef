// torus.hpp -- N-D torus / mesh (1..6 network dimensions, wrap-around per
// dimension) with an optional last "local" dimension: tasks on the same
// physical node at their own cost (BG/L virtual-node mode).  Distances come
// from coordinates in O(ndims); nothing is O(P^2).
#pragma once
#include <cstdint>
#include <vector>

#include "topology/topology.hpp"

namespace rankmap {

class TorusTopology final : public Topology {
public:
    // dims: extents; wrap[k]: 1 torus, 0 mesh; local_cost >= 0 makes the
    // last dimension node-local with that cost per differing slot (< 0: no
    // local dimension).
    TorusTopology(std::vector<int> dims, std::vector<int> wrap, double local_cost, Metric metric);

    TopologyKind kind() const override { return TopologyKind::Torus; }
    int size() const override { return size_; }
    int ndims() const override { return static_cast<int>(dims_.size()); }
    const std::vector<int> &dims() const override { return dims_; }
    void coords(int node, int *c) const override;
    int node_at(const int *c) const override;
    double distance(int a, int b) const override;
    int hops(int a, int b) const override;
    std::vector<Shell> shells(int node) const override;
    bool uniform() const override;
    int64_t num_links() const override;
    void route(int a, int b, std::vector<int64_t> &links) const override;
    void nearest(int node, int count, std::vector<int> &out) const override;
    std::string describe() const override;
    std::vector<NodeMap> symmetries(int a, int target) const override;
    std::string symmetry_name(size_t i) const override;

    const std::vector<int> &wrap() const { return wrap_; }
    bool has_local() const { return local_cost_ >= 0; }
    double local_cost() const { return local_cost_; }
    // Number of network (non-local) dimensions.
    int net_dims() const { return net_; }
    // Per-dimension offset between coordinates a and b (wrap-aware).
    int offset(int k, int a, int b) const { return dist1_[k][a > b ? a - b : b - a]; }

private:
    std::vector<int> dims_, wrap_;
    std::vector<std::vector<int>> dist1_;  // dist1_[k][|a-b|]
    std::vector<int> stride_;
    std::vector<uint16_t> coord_;  // coord_[node * nd + k]
    double local_cost_;
    int net_;
    int size_;
    int nd_;
};

} // namespace rankmap

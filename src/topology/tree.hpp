// tree.hpp -- hierarchy model (seed 002's multi-tier clusters): arities per
// tier, outermost first (e.g. 4 nodes x 2 sockets x 8 cores), and the cost of
// a path whose lowest common ancestor is at each tier.  distance(a, b) =
// cost[k] where k is the first tier at which a and b differ; 0 if a == b.
// Nothing is O(P^2): the tier comes from integer division.
#pragma once
#include <vector>

#include "topology/topology.hpp"

namespace rankmap {

class TreeTopology final : public Topology {
public:
    TreeTopology(std::vector<int> arity, std::vector<double> cost);
    TopologyKind kind() const override { return TopologyKind::Tree; }
    int size() const override { return size_; }
    int ndims() const override { return static_cast<int>(arity_.size()); }
    const std::vector<int> &dims() const override { return arity_; }
    void coords(int node, int *c) const override;
    int node_at(const int *c) const override;
    double distance(int a, int b) const override { return a == b ? 0.0 : cost_[tier(a, b)]; }
    int hops(int a, int b) const override;
    std::vector<Shell> shells(int node) const override;
    bool uniform() const override { return true; }
    int64_t num_links() const override;
    void route(int a, int b, std::vector<int64_t> &links) const override;
    void nearest(int node, int count, std::vector<int> &out) const override;
    std::string describe() const override;
    // First tier (0 = outermost) at which leaves a != b differ.
    int tier(int a, int b) const;
    const std::vector<double> &costs() const { return cost_; }

private:
    std::vector<int> arity_;
    std::vector<double> cost_;
    std::vector<int> span_;   // span_[k] = leaves under one entity of tier k
    std::vector<int64_t> link_off_;
    int size_;
};

} // namespace rankmap

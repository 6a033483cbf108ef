// tree.hpp -- hierarchy model (the multi-tier clusters of Chen et al., MPIPP):
// arities per tier, outermost first (e.g. 4 nodes x 2 sockets x 8 cores), and
// the cost of a path whose lowest common ancestor is at each tier.
// distance(a, b) = cost[k] where k is the first tier at which a and b differ;
// 0 if a == b.  Nothing is O(P^2): the tier comes from integer division.
//
// A fat tree (up=u0,...,u(S-1)): the entities of the outer S tiers are
// switches whose uplinks are u_k parallel links (to u_k switches of the
// level above), tier S holds the hosts (the machines; the tiers below it
// are inside a host).  Routes follow D-mod-K, the destination-based rule of
// fat-tree routing engines (and of SimGrid's fat trees): going up from tier
// k the port is (h / (u_(k+1) ... u_(S-1))) mod u_k, h the destination
// host's index, and the way down mirrors it.  Distances (and so F) are
// those of the plain tree; the routes only matter for link loads.
#pragma once
#include <vector>

#include "topology/topology.hpp"

namespace rankmap {

class TreeTopology final : public Topology {
public:
    TreeTopology(std::vector<int> arity, std::vector<double> cost, std::vector<int> up = {});
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
    std::vector<NodeMap> symmetries(int a, int target) const override;
    std::string symmetry_name(size_t i) const override;
    int align_to_current(std::vector<int> &place, const std::vector<int> &current,
                         const std::vector<int> &cap) const override;
    std::vector<int> hosts_ascending(const std::vector<int> &place) const override;
    // First tier (0 = outermost) at which leaves a != b differ.
    int tier(int a, int b) const;
    const std::vector<double> &costs() const { return cost_; }
    // Fat tree: uplinks per switch of the outer tiers (empty: a plain tree,
    // one uplink per entity).  host_tier() = up().size(): the tier of hosts.
    const std::vector<int> &up() const { return up_; }
    int host_tier() const { return static_cast<int>(up_.size()); }
    // Leaves under one entity of tier k.
    int span(int k) const { return span_[k]; }
    // D-mod-K: the combined port index, in [0, u_k * ... * u_(S-1)), of the
    // route from any source whose lowest common ancestor with leaf b is
    // above tier k, at its tier-k uplink (and, mirrored, at b's tier-k
    // downlink).  0 for k >= host_tier().
    int64_t port(int k, int b) const;
    // Parallel links of one tier-k entity: u_k * ... * u_(S-1), or 1.
    int64_t ports(int k) const { return k < host_tier() ? ports_[k] : 1; }

private:
    std::vector<int> arity_;
    std::vector<double> cost_;
    std::vector<int> up_;
    std::vector<int64_t> ports_;  // ports_[k] = u_k * ... * u_(S-1)
    std::vector<int> span_;   // span_[k] = leaves under one entity of tier k
    std::vector<int64_t> link_off_;
    int size_;
};

} // namespace rankmap

// dragonfly.hpp -- two-level direct network (Kim, Dally, Scott and Abts,
// "Technology-driven, highly-scalable dragonfly topology"; Cray Aries, HPE
// Slingshot): G groups of C chassis x B blades (routers), N hosts per router,
// optionally K cores per host.  Inside a chassis every router pair has a
// direct "green" link; inside a group the routers of one blade position in
// different chassis have "black" links; every pair of groups has one "blue"
// (global) link, attached at router index j mod (C B) (chassis and blade
// j / B, j % B when G <= C B) of group i for the pair (i, j) -- SimGrid's
// DragonflyZone (3.32) does the same for G <= B; more groups than routers
// (a job's view of a machine whose routers are unknown) put several global
// links on one router.  A link class of k parallel wires counts as one link of k
// times the bandwidth, as SimGrid builds them.
//
// Minimal routes (SimGrid's rule): host -> router; to another group: green
// to the attachment router's blade in the own chassis, black to its
// chassis, blue, then in the target group green to the target blade and
// black to the target chassis; router -> host.  Cores of one host talk
// through the host (one memory link per core and direction).
//
// Adaptive routing (UGAL-style, as Slingshot and Aries route) is modelled as
// a split: a fraction `valiant` of inter-group traffic goes through an
// intermediate group (the other G - 2 groups equally, as expected load), the
// rest minimally.  distance() and hops() are those of minimal routes; the
// split shows in route_weighted() and so in the time model.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "topology/topology.hpp"

namespace rankmap {

class DragonflyTopology final : public Topology {
public:
    // Link classes, outermost first: bandwidths and latencies of the time
    // model come in this order.
    enum LinkClass { Blue = 0, Black = 1, Green = 2, Injection = 3, Memory = 4 };

    // dims: G, C, B, N and optionally K (cores per host); wires: parallel
    // wires of the blue, black and green links; valiant in [0, 1];
    // local_cost: distance between cores of one host (K > 1);
    // routing_declared: valiant was given (0: minimal routes declared).
    DragonflyTopology(std::vector<int> dims, std::array<int, 3> wires, double valiant, double local_cost,
                      bool routing_declared = true);

    TopologyKind kind() const override { return TopologyKind::Dragonfly; }
    int size() const override { return size_; }
    int ndims() const override { return static_cast<int>(dims_.size()); }
    const std::vector<int> &dims() const override { return dims_; }
    void coords(int node, int *c) const override;
    int node_at(const int *c) const override;
    double distance(int a, int b) const override;
    int hops(int a, int b) const override;
    std::vector<Shell> shells(int node) const override;
    bool uniform() const override { return false; }
    int64_t num_links() const override { return off_[5]; }
    void route(int a, int b, std::vector<int64_t> &links) const override;
    std::string describe() const override;

    // The links of a->b with the fraction of its bytes each carries (1 on a
    // minimal route; under `valiant` the intermediate groups' shares).
    void route_weighted(int a, int b, std::vector<std::pair<int64_t, double>> &links) const;
    // Class of link id l (LinkClass); classes() of them in use (4, or 5
    // with cores).
    int link_class(int64_t l) const;
    int classes() const { return cores() > 1 ? 5 : 4; }

    int groups() const { return dims_[0]; }
    int chassis() const { return dims_[1]; }
    int blades() const { return dims_[2]; }
    int hosts_per_router() const { return dims_[3]; }
    int cores() const { return dims_.size() > 4 ? dims_[4] : 1; }
    const std::array<int, 3> &wires() const { return wires_; }
    double valiant() const { return valiant_; }
    bool routing_declared() const { return routing_declared_; }
    // The same machine (slots included) routed with a valiant share v,
    // declared.
    std::unique_ptr<DragonflyTopology> with_valiant(double v) const;
    double local_cost() const { return local_cost_; }
    // Host (0 .. hosts-1) of leaf v, and its group and router index inside
    // the group (chassis * B + blade).
    int host(int v) const { return v / cores(); }
    int group(int v) const { return host(v) / (routers_per_group_ * hosts_per_router()); }
    int router(int v) const { return (host(v) / hosts_per_router()) % routers_per_group_; }

private:
    template <class Add>
    void intra(int g, int from, int to, double w, Add add) const;
    template <class Add>
    // The links of a -> b; split_routes: with the valiant share (else the
    // minimal route alone).
    void network(int a, int b, bool split_routes, Add add) const;
    int64_t blue(int from, int to) const { return off_[0] + static_cast<int64_t>(from) * groups() + to; }
    // Router index of every group where the link to group h attaches.
    int attach(int h) const { return h % routers_per_group_; }

    std::vector<int> dims_;
    std::array<int, 3> wires_;
    double valiant_, local_cost_;
    bool routing_declared_;
    int routers_per_group_, size_;
    std::array<int64_t, 6> off_{};  // first id of each LinkClass, off_[5] = count
};

} // namespace rankmap

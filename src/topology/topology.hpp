// topology.hpp -- machine models behind one small interface (size,
// coordinates, distance, route), in the manner of Scotch's architecture
// table.  Distances are computed from coordinates; no model stores an N x N
// matrix except the explicit `file:` one.
//
// Node numbering: coordinates are row-major with the LAST dimension varying
// fastest, node = ((c0 * d1) + c1) * d2 + c2 ...
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace rankmap {

// Limits of the machine models: network dimensions of a torus or mesh, and
// tiers of a tree; and coordinates per node (the network dimensions, the
// on-node slot dimension and room), RANKMAP_MAX_DIMS of the C API.
constexpr int kMaxNetworkDims = 6;
constexpr int kMaxTiers = 6;
constexpr int kMaxCoords = 8;

// The distance metrics of Bhanot et al. (BG/L task layout).
enum class Metric {
    Hops,        // shortest-path hop count (default)
    DimScaled,   // n/D * hops, D = number of dimensions the path uses
    Euclidean    // sqrt(sum of squared per-dimension (wrapped) offsets)
};

enum class TopologyKind { Torus, Tree, Dragonfly, Matrix };

// One distance shell around a node: `count` nodes at distance `distance`.
struct Shell {
    double distance;
    int64_t count;
};

class Topology;

// A map of a machine's nodes given on coordinates:
// y[k] = value[k][x[from[k]]], value[k] a permutation of 0..dims()[k]-1.
// Topology::symmetries() builds only maps that leave every distance as it is.
struct NodeMap {
    std::vector<int> from;
    std::vector<std::vector<int>> value;
    // The node this map sends v to.
    int apply(const Topology &t, int v) const;
    // The node this map sends to v.
    int preimage(const Topology &t, int v) const;
};

class Topology {
public:
    virtual ~Topology() = default;
    virtual TopologyKind kind() const = 0;
    // Number of nodes (locations).
    virtual int size() const = 0;
    // Coordinates: ndims() values per node, dims()[k] the extent of dim k.
    virtual int ndims() const = 0;
    virtual const std::vector<int> &dims() const = 0;
    virtual void coords(int node, int *c) const = 0;
    // Node at coordinates, or -1 if out of range.
    virtual int node_at(const int *c) const = 0;
    // Distance between two nodes under the topology's metric; 0 iff a == b
    // for every model except `file:` (which may declare 0 between nodes).
    virtual double distance(int a, int b) const = 0;
    // Hop count (number of network links on a shortest route).
    virtual int hops(int a, int b) const = 0;
    // Distance shells around `node`, increasing distance, self excluded.
    // Used by the lower bound F_min.
    virtual std::vector<Shell> shells(int node) const = 0;
    // True if every node sees the same shells (torus, tree): F_min then
    // needs only one node's shells.
    virtual bool uniform() const = 0;
    // Network links and the links a message from a to b crosses under
    // dimension-order routing (torus/mesh) or up-and-down routing (tree).
    virtual int64_t num_links() const = 0;
    virtual void route(int a, int b, std::vector<int64_t> &links) const = 0;
    // Up to `count` nodes closest to `node` (node itself first).
    virtual void nearest(int node, int count, std::vector<int> &out) const;
    // Canonical text form, parseable by parse_topology().
    virtual std::string describe() const = 0;

    // Symmetries of the machine (src/topology/symmetry.cpp).
    // The maps tried to bring node a onto node target, most natural first;
    // the identity alone unless a model knows better.
    virtual std::vector<NodeMap> symmetries(int a, int target) const;
    // How map i of symmetries() moves the nodes ("a translation"), for messages.
    virtual std::string symmetry_name(size_t i) const;
    // Among the placements the symmetries make of `place`, the one closest to
    // `current` (task r on node current[r]) within `cap` tasks per node.
    // Returns the number of tasks that end on their current node, or -1 when
    // `place` is left unchanged (a model that does not align, as every one
    // but the tree, or a node would exceed cap).
    virtual int align_to_current(std::vector<int> &place, const std::vector<int> &current,
                                 const std::vector<int> &cap) const;
    // `place` with the machine's hosts in ascending order of their lowest
    // task; empty on a machine without hosts.
    virtual std::vector<int> hosts_ascending(const std::vector<int> &place) const;
    Metric metric() const { return metric_; }
    // Tasks a node may hold (":slots=K" in the topology string, default 1).
    // N tasks need ceil(N / size()) <= slots(), or the topology is too small.
    int slots() const { return slots_; }
    void set_slots(int k) { slots_ = k; }

protected:
    std::string slots_suffix() const { return slots_ != 1 ? ":slots=" + std::to_string(slots_) : ""; }
    Metric metric_ = Metric::Hops;
    int slots_ = 1;
};

// The one parser of topology strings (see include/rankmap.h for the syntax).
// Throws rankmap::Error naming the string and the part at fault.
std::unique_ptr<Topology> parse_topology(const std::string &spec);

// Placement of `ntasks` tasks in a BG/L mapping order such as "XYZT"
// (first letter fastest; T = slot on the node).  Throws on a bad order.
std::vector<int> order_placement(const Topology &topo, const std::string &order, int ntasks);

} // namespace rankmap

// order_mapper.cpp -- Algorithm::Order: a BG/L stock mapping order (Smith and Bode
// (BG/L node mappings) section 3: "XYZT", "ZYXT", "TXYZ" ...; the first letter
// varies fastest, T is the slot on a node, as in the BG/L control system's
// mapping files).
// The placement itself is topology/order.cpp's order_placement, shared with
// the C API; this mapper only reads Options::order.  Cost O(N + P).
#include "map/mapper.hpp"

namespace rankmap {

std::vector<int> map_order(const Problem &p) {
    return order_placement(p.topo, p.opt.order, p.g.n());
}

} // namespace rankmap

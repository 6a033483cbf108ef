// order.cpp -- BG/L stock mapping orders ("XYZT", "ZYXT", "TXYZ", ...; seed
// 001): tasks are dealt onto nodes by walking the coordinates with the
// first letter varying fastest.  X, Y, Z name dimensions 0, 1, 2 (A..F are
// accepted for dimensions 0..5, BG/Q style); T is the slot on a node (or
// the node-local dimension of a torus declared with local=...).  A missing
// T goes last.  Nodes receive floor(N/P) or ceil(N/P) tasks: the first
// N mod P nodes in node order take the extra one.
#include <algorithm>
#include <string>

#include "common/error.hpp"
#include "topology/placement.hpp"
#include "topology/topology.hpp"
#include "topology/torus.hpp"

namespace rankmap {

std::vector<int> order_placement(const Topology &topo, const std::string &order_in, int ntasks) {
    const int nd = topo.ndims();
    const int P = topo.size();
    const auto *torus = dynamic_cast<const TorusTopology *>(&topo);
    const bool local = torus && torus->has_local();
    const int lettered = local ? nd - 1 : nd;  // dims named by X/Y/Z or A..F
    if (ntasks < 0) throw Error("mapping order: negative task count");
    std::string order;
    for (char ch : order_in) order.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(ch))));
    const std::string bad_msg = "mapping order '" + order_in + "': expected a permutation of " +
                                std::string(lettered <= 3 ? "XYZ"
                                                          : std::string("ABCDEF").substr(0, lettered)) .substr(0, lettered) +
                                " with an optional T (e.g. XYZT, TXYZ, ZYXT)";
    // axis[i] = dimension index, or -1 for T.
    std::vector<int> axis;
    std::vector<int> used(nd + 1, 0);
    bool has_t = false;
    for (char ch : order) {
        int k;
        if (ch == 'T') {
            k = -1;
            if (has_t) throw Error(bad_msg);
            has_t = true;
        } else if (ch >= 'X' && ch <= 'Z' && lettered <= 3) {
            k = ch - 'X';
        } else if (ch >= 'A' && ch <= 'F') {
            k = ch - 'A';
        } else {
            throw Error(bad_msg);
        }
        if (k >= lettered) throw Error(bad_msg);
        if (k >= 0) {
            if (used[k]) throw Error(bad_msg);
            used[k] = 1;
        }
        axis.push_back(k);
    }
    for (int k = 0; k < lettered; ++k)
        if (!used[k]) throw Error(bad_msg);
    if (!has_t) axis.push_back(-1);

    Capacity cap = capacity_for(ntasks, P);
    // Slot extent: the local dimension (all slots are nodes) or the
    // per-node capacity.
    const int tdim = local ? nd - 1 : -1;
    const int text = local ? topo.dims()[nd - 1] : std::max(cap.hi, 1);
    const int extra = P > 0 ? ntasks % P : 0;
    const int per = P > 0 ? ntasks / P : 0;
    auto node_count = [&](int node) { return node < extra ? per + 1 : per; };

    std::vector<int> extent(axis.size());
    for (size_t i = 0; i < axis.size(); ++i) extent[i] = axis[i] < 0 ? text : topo.dims()[axis[i]];
    std::vector<int> idx(axis.size(), 0), c(nd, 0);
    std::vector<int> place;
    place.reserve(ntasks);
    while (static_cast<int>(place.size()) < ntasks) {
        int slot = 0;
        for (size_t i = 0; i < axis.size(); ++i) {
            if (axis[i] >= 0) c[axis[i]] = idx[i];
            else if (tdim >= 0) c[tdim] = idx[i];
            else slot = idx[i];
        }
        int node = topo.node_at(c.data());
        if (node >= 0 && slot < node_count(node)) place.push_back(node);
        // advance the odometer, first letter fastest
        size_t i = 0;
        while (i < axis.size() && ++idx[i] == extent[i]) idx[i++] = 0;
        if (i == axis.size() && static_cast<int>(place.size()) < ntasks)
            throw Error("mapping order '" + order_in + "': topology " + topo.describe() + " cannot hold " +
                        std::to_string(ntasks) + " tasks", ErrorKind::TooSmall);
    }
    return place;
}

} // namespace rankmap

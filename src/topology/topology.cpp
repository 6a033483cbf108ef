// topology.cpp -- defaults shared by the machine models.
#include "topology/topology.hpp"

#include <algorithm>
#include <numeric>

namespace rankmap {

void Topology::nearest(int node, int count, std::vector<int> &out) const {
    // Generic O(P log P): sort every node by distance (ties by index).  The
    // torus and tree models override this with O(count) enumerations.
    out.resize(size());
    std::iota(out.begin(), out.end(), 0);
    std::stable_sort(out.begin(), out.end(), [&](int a, int b) {
        if (a == node || b == node) return a == node && b != node;
        return distance(node, a) < distance(node, b);
    });
    if (count < static_cast<int>(out.size())) out.resize(std::max(count, 0));
}

} // namespace rankmap

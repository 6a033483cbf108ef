// placement.cpp -- placement validity: how many tasks each node holds
// (equation 3 of Bhanot et al., BG/L task layout) and the check every
// mapper's result passes.
#include "topology/placement.hpp"

#include <string>

#include "common/error.hpp"

namespace rankmap {

Capacity capacity_for(int ntasks, int nnodes) {
    if (nnodes <= 0) throw Error("topology has no nodes");
    Capacity c;
    c.lo = ntasks / nnodes;
    c.hi = (ntasks + nnodes - 1) / nnodes;
    return c;
}

void check_placement(const Topology &topo, int ntasks, const std::vector<int> &place) {
    if (static_cast<int>(place.size()) != ntasks)
        throw Error("placement has " + std::to_string(place.size()) + " entries for " + std::to_string(ntasks) +
                    " tasks");
    const int P = topo.size();
    Capacity cap = capacity_for(ntasks, P);
    std::vector<int> count(P, 0);
    for (int i = 0; i < ntasks; ++i) {
        if (place[i] < 0 || place[i] >= P)
            throw Error("placement puts task " + std::to_string(i) + " on node " + std::to_string(place[i]) +
                        ", outside 0.." + std::to_string(P - 1));
        if (++count[place[i]] > cap.hi)
            throw Error("placement puts more than " + std::to_string(cap.hi) + " tasks on node " +
                        std::to_string(place[i]) + " (" + std::to_string(ntasks) + " tasks on " +
                        std::to_string(P) + " nodes)");
    }
    for (int v = 0; v < P; ++v)
        if (count[v] < cap.lo)
            throw Error("placement leaves node " + std::to_string(v) + " with " + std::to_string(count[v]) +
                        " tasks, fewer than " + std::to_string(cap.lo) + " (unbalanced)");
}

} // namespace rankmap

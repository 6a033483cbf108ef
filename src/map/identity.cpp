// identity.cpp -- rank order: task i on node i when N <= P; with several
// tasks per node, consecutive tasks fill a node (the first N mod P nodes
// take ceil(N/P), the rest floor(N/P)).  O(N).  This is what MPI does without
// reordering ("MPI rank order" in the tables of Bhanot et al., BG/L task
// layout).
#include "map/mapper.hpp"

namespace rankmap {

std::vector<int> map_identity(const Problem &p) {
    const int n = p.g.n(), P = p.topo.size();
    std::vector<int> place;
    place.reserve(n);
    const int extra = n % P;
    for (int v = 0; static_cast<int>(place.size()) < n; ++v) {
        int k = v < extra ? p.cap.hi : p.cap.lo;
        for (int j = 0; j < k; ++j) place.push_back(v);
    }
    return place;
}

} // namespace rankmap

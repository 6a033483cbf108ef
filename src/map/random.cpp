// random.cpp -- a uniformly random valid placement: the identity placement's
// slot list shuffled with the seeded generator (Fisher-Yates), so the node
// loads stay balanced.  O(N).  The "random" reference row of Bhanot et al.
// (BG/L task layout) is the mean of 100 such placements.
#include "common/rng.hpp"
#include "map/mapper.hpp"

namespace rankmap {

std::vector<int> map_random(const Problem &p) {
    // Which nodes get the extra task is random too (not always the first).
    const int n = p.g.n(), P = p.topo.size();
    Rng rng(p.opt.seed);
    std::vector<int> nodes(P);
    for (int v = 0; v < P; ++v) nodes[v] = v;
    shuffle(nodes, rng);
    std::vector<int> place;
    place.reserve(n);
    const int extra = n % P;
    for (int i = 0; static_cast<int>(place.size()) < n; ++i) {
        int k = i < extra ? p.cap.hi : p.cap.lo;
        for (int j = 0; j < k; ++j) place.push_back(nodes[i]);
    }
    shuffle(place, rng);
    return place;
}

} // namespace rankmap

// spread.cpp -- all-to-all phases on a dragonfly under minimal routes: when
// the members of the lines sit in a few groups (a launch's block order puts
// each line of a grid in one group, or strides its columns over the groups
// in the same way for every column), each pairwise step sends the traffic
// of a group over the one global link towards a single other group, and
// that link sets the step's time.  Placements that scatter the tasks at
// random spread every step over all the global links (Bhatele et al.,
// "Avoiding hot-spots on two-level direct networks": random placements
// avoid such hot spots).  F does not see this, so no mapper proposes it;
// the reorder paths offer the spread to the guard after the mapper's
// placement and the machine's order, and the time model decides.
#include "map/spread.hpp"

#include <cmath>

#include "common/rng.hpp"
#include "cost/model.hpp"

namespace rankmap {
namespace {

// Shuffles tried: random placements of one dragonfly differ by a few per
// cent in predicted time (doc/tuning.md, kSpreadTries).
constexpr int kSpreadTries = 2;
// Their seeds: fixed, so the placement depends on the inputs alone.
constexpr uint64_t kSpreadSeed = 0x5350524541440000ULL;

} // namespace

bool spread_applies(const Topology &topo, const std::vector<std::vector<int>> &alltoall_groups) {
    return topo.kind() == TopologyKind::Dragonfly && !alltoall_groups.empty();
}

std::vector<int> spread_placement(const Graph &g, const Topology &topo, const std::vector<int> &current,
                                  const std::vector<std::vector<int>> &alltoall_groups) {
    std::vector<int> best;
    double best_time = HUGE_VAL;
    for (int k = 0; k < kSpreadTries; ++k) {
        std::vector<int> place = current;
        Rng rng(kSpreadSeed + static_cast<uint64_t>(k));
        shuffle(place, rng);
        const double t = bandwidth_time(g, topo, place, alltoall_groups);
        if (t < best_time) best_time = t, best = std::move(place);
    }
    return best;
}

} // namespace rankmap

// refinement.hpp -- the refiners that improve a placement state in place,
// for `auto`, hier and dc-anneal: the Metropolis annealing of Bhanot et al.
// (BG/L task layout, equation 4) and the pair-exchange passes of Chen et al.
// (MPIPP, section 3).  Each one's cost is in its file's header.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/rng.hpp"
#include "common/timer.hpp"
#include "map/mapper.hpp"
#include "map/state/near_nodes.hpp"
#include "map/state/placement_state.hpp"
#include "map/tuning.hpp"

namespace rankmap {

struct AnnealParams {
    int steps = 100;                // beta steps
    int64_t proposals_per_step = 0; // 0: derived from the movable count
    double sweeps = 0;              // total proposals / movable tasks (0: default)
    bool from_cold = false;         // start at tuning.cold_acceptance instead of hot_acceptance
    std::vector<TracePoint> *trace = nullptr;
    const std::function<void(const std::string &)> *progress = nullptr;
    double f_norm = 0;              // normalisation (F_min); <= 0: F at start
    AnnealContext tuning = anneal_preset();  // the chain's tuned numbers (tuning.hpp)
};

// Metropolis annealing of the tasks in `movable` (all others fixed) in st.
// Returns at the deadline with the best placement seen.
void anneal_tasks(PlacementState &st, const std::vector<int> &movable, const NearNodes &near,
                  const AnnealParams &ap, Rng &rng, const Deadline &dl);

// Kernighan-Lin pair-exchange passes on `st` (all placed tasks movable):
// until a pass gains nothing, the deadline, or max_passes passes (0:
// KlContext::max_passes).
void kl_passes(PlacementState &st, const NearNodes &near, const Deadline &dl, int max_passes = 0);

} // namespace rankmap

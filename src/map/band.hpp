// band.hpp -- translation-periodic embedding of rank-ordered band graphs
// (band.cpp), a candidate of `auto`.
#pragma once
#include <string>
#include <vector>

#include "map/mapper.hpp"

namespace rankmap {

// A placement with node(t + P) = node(t) + D (a torus translation of order
// N / P) for a graph whose partners sit at a few fixed rank offsets with
// weights repeating along the ranks; `work` is the number of distance
// evaluations to spend (about).  Returns an empty vector, with the reason
// in *why, when the problem is not of that kind (not a torus, not one task
// per node, partners too far apart in rank, no period).
struct BandOptions {
    // Pick a move's anchor partner in proportion to the edge weight (the
    // heavy offsets decide the tile: lower F); off, uniformly among the
    // partners.  `congestion` starts from auto runs with it off: on
    // SAGE-like 512 the weighted tiles are tighter in F, but every one of
    // eight seeds had a busiest link of 10368 or more, the uniform ones
    // reach 9984 (simulated speed-up 1.88x against 1.73x).
    bool weighted_partners = true;
    // Search only the translations the staircase prediction allows, with a
    // random start beside the ordered one in the first round (band.cpp).
    // Off: every translation, ordered starts first, as before; congestion's
    // starts use that too (SAGE-like 512: with the prediction their
    // lightest busiest link was 12288, without 9984).
    bool staircase = true;
    // Temperatures of the tile annealing (geometric cooling from start to
    // end), in units of a task's energy at F = F_min.  The chain keeps the
    // best tile it sees, and the ordered tiles appear at 0.3-0.7: below that
    // it hardly moves.  Measured with D = (3,3,4) alone on SAGE-like 512,
    // 1e8 of work, seeds 1-12: 0.7 -> 0.05 mean tile F/F_min 1.315,
    // 0.7 -> 0.3 1.289, 0.6 -> 0.35 1.286 (0.5 -> 0.05 1.376); auto on
    // SAGE-like 16x16x8, seeds 1-4: 1.443 -> 1.423 (1.0 -> 0.35), and on
    // 32x32x32 seed 1: 1.690 -> 1.544.
    double start_temperature = 1.0;
    double end_temperature = 0.35;
    // When given: returns the translations searched, best tile first; when
    // it comes in non-empty, only those translations are searched (a second,
    // longer search on a first one's best few).
    std::vector<std::vector<int>> *ranking = nullptr;
};
std::vector<int> band_embedding(const Problem &p, double work, std::string *why, const BandOptions &opt = {});

} // namespace rankmap

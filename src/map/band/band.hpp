// band.hpp -- translation-periodic embedding of rank-ordered band graphs
// (band.cpp), a candidate start of `auto` on tori.  Cost: about `work`
// distance evaluations for the tile search plus O(E) per period tried and
// O(N * ndims) for the expansion (band.cpp).
#pragma once
#include <string>
#include <vector>

#include "map/mapper.hpp"
#include "map/tuning.hpp"

namespace rankmap {

// A placement with node(t + P) = node(t) + D (a torus translation of order
// N / P) for a graph whose partners sit at a few fixed rank offsets with
// weights repeating along the ranks; `work` is the number of distance
// evaluations to spend (about).  Returns an empty vector, with the reason
// in *why, when the problem is not of that kind (not a torus, not one task
// per node, partners too far apart in rank, no period).
struct BandOptions {
    // The search's tuned numbers and modes (tuning.hpp: weighted partner
    // draw, staircase prediction, tile annealing temperatures ...).
    BandContext tuning = band_preset();
    // When given: returns the translations searched, best tile first; when
    // it comes in non-empty, only those translations are searched (a second,
    // longer search on a first one's best few).
    std::vector<std::vector<int>> *ranking = nullptr;
};
std::vector<int> band_embedding(const Problem &p, double work, std::string *why, const BandOptions &opt = {});

} // namespace rankmap

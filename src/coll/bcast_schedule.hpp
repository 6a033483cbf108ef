// bcast_schedule.hpp -- the multi-colour pipelined torus/mesh broadcast
// schedule as a pure function of integers (no MPI); see torus_bcast.h for the
// algorithm and bcast_schedule.cpp for the construction and its proof.
#pragma once
#include <cstddef>
#include <vector>

#include "coll/torus_bcast.h"

namespace rankmap {
namespace coll {

using ColourPlan = rankmap_tbcast_colour;
using BcastOp = rankmap_tbcast_op;

class TorusBcast {
public:
    // Throws rankmap::Error naming the faulty argument.
    TorusBcast(const std::vector<int> &extents, const std::vector<bool> &wrap,
               const std::vector<int> &coords /* nranks * ndims */);

    int nranks() const { return nranks_; }
    int ndims() const { return (int)extent_.size(); }
    bool torus() const { return torus_; }
    int max_colours() const { return (int)active_.size() * (torus_ ? 2 : 1); }
    int colours(int requested) const; // 0 -> all; clamped to [1, max] (0 if 1 rank)
    int depth() const;                // deepest tree over all colours
    size_t default_segment(size_t bytes, int colours, size_t min_segment) const;

    // Per-colour plan of one rank (segment 0 -> default with 4 KiB minimum).
    std::vector<ColourPlan> plan(int rank, int root, size_t bytes, size_t segment,
                                 int colours) const;
    // The plan as ordered operations.
    std::vector<BcastOp> ops(int rank, int root, size_t bytes, size_t segment,
                             int colours) const;

    // Tree of one colour: parent of `rank` (-1 at the root) and the stage of
    // the link it arrives on.  Exposed for tests.
    int parent(int colour, int root, int rank, int *stage) const;

private:
    struct Colour {
        int dim;  // index into extent_ (an active dimension)
        int sign; // +1 / -1 on a torus, 0 on a mesh
        int pos;  // position of dim in active_
    };
    Colour colour_desc(int c) const;
    int rank_at(const int *c) const;
    int depth_of(int colour, int root, int rank) const;

    std::vector<int> extent_;
    std::vector<bool> wrap_;
    std::vector<int> active_; // dimensions of extent >= 2
    bool torus_ = false;
    int nranks_ = 0;
    std::vector<int> coords_;  // rank -> coordinates
    std::vector<int> rank_of_; // linear box index -> rank
};

} // namespace coll
} // namespace rankmap

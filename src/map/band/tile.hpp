// tile.hpp -- the tile of the band search (band.cpp): the periodised graph of
// one block of P consecutive ranks (TileModel, built by periodise), the node
// tables of torus translations and unit steps, and TileAnnealer, the
// Metropolis chain that places one tile for a translation D so that the
// tile and its translates by multiples of D tile the torus.  A proposal
// moves a residue to one unit step from a partner's image (or to any node)
// and swaps cosets of <D> with the residue there; energies are kept per
// residue and updated incrementally.
//
// Cost: periodise O(E) per period; translation_table O(N) per translation;
// a chain O(iterations * offsets) after an O(N * K) set-up; memory
// O(N * (2K + 1)) with K the number of blocks an edge can span (1-2), or
// O(N * ndims) with coordinate distances on large tori.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/rng.hpp"
#include "common/timer.hpp"
#include "graph/graph.hpp"
#include "map/state/fast_distance.hpp"
#include "map/tuning.hpp"
#include "topology/torus.hpp"

namespace rankmap {
namespace band {

struct TileEdge {
    int to;       // residue of the partner
    int shift;    // block shift of the partner (-K..K)
    double w;
};

struct TileModel {
    int P = 0;
    std::vector<std::vector<TileEdge>> adj;  // per residue
    double wsum = 0;                         // sum of all tile weights (directed)
};

// Periodise `sym` with period P; returns the relative error (L1 of the
// deviations over total weight), the model in `out`.
double periodise(const Graph &sym, const std::vector<int> &offsets, int P, TileModel &out);

// Node table of the translation x -> x + D: an odometer over the
// coordinates x of v = 0, 1, ... carries u = v + D along (N * 1-2 steps; a
// band search sets up hundreds of these).
std::vector<int> translation_table(const TorusTopology &topo, const std::vector<int> &D);

// Node table of the 2 * ndims unit steps: step[(v * nd + k) * 2 + s].
std::vector<int> step_table(const TorusTopology &topo);

// Annealing of one tile for translation D.  Returns the tile energy / wsum
// and the tile (node of residue b) in `tile`.
class TileAnnealer {
public:
    TileAnnealer(const TorusTopology &topo, const TileModel &m, const std::vector<int> &D,
                 const std::vector<int> &step, const FastDistance &dist, int K, const BandContext &c);

    int ncosets() const { return m_len_ > 0 ? ncos_ : -1; }

    double run(int64_t iters, bool ordered, Rng &rng, const Deadline &dl, std::vector<int> &tile);

    // Node of block-shifted image of residue b.
    int image(int b, int shift) const;
    // dist_(node, image(b, shift)) for the node of coordinates `c` (nd_ >
    // 0): FastDistance::translated, the same table values summed in the
    // same order (on one node all of them are 0, as dist_ returns).
    double image_dist(const int *c, int b, int shift) const;
    // dist_(pos_[a], image(b, shift)).
    double edge_dist(int a, int b, int shift) const;

private:
    // Start: residue b at the b-th coset's first node in node order when
    // `ordered` (for a rank-ordered halo whose layers fit D this is already
    // exact, and the chain keeps the best placement it sees), else the
    // cosets dealt at random (more diverse: better on large tiles).
    void start_tile(bool ordered, Rng &rng);

    // Target node for residue t: mostly one unit step from the image of a
    // partner, drawn in proportion to the edge weight (the heavy edges
    // decide the tile) or uniformly (BandContext::weighted_partners off);
    // otherwise any node.
    int propose_target(int t, Rng &rng) const;

    // Moves residue t to `target` (the residue u owning target's coset takes
    // t's old coset) and keeps the move by the Metropolis rule at
    // temperature T; E is the tile energy, kept current.
    void try_move(int t, int target, double T, double unit, Rng &rng, double &E);

    // After an accepted move: a partner's energy changes by its edge to t
    // or u (distances are translation invariant, so the mirror edge has the
    // same length); t and u take their energies et and eu after the move.
    void update_cache(int t, int u, int oldt, int oldu, double et, double eu);

    // dist_(a, q), from the byte table directly when there is one.
    double node_dist(int a, int q) const;
    double energy_of(int b) const;
    // Energy of the edges at t and u (et and eu: energy_of(t) and
    // energy_of(u)), each counted once per direction from t's and u's side;
    // edges between t and u appear in both lists and are removed once, so
    // 2 * local is the change of the whole tile energy.
    double local(int t, int u, double et, double eu) const;
    // Residue b to `node`, its coordinates kept with it.
    void set_pos(int b, int node);

    const TorusTopology &topo_;
    const TileModel &m_;
    int K_;
    const BandContext &c_;
    const std::vector<int> &step_;
    const FastDistance &dist_;   // its byte table when built, else its coordinates (nd_) or its call
    const uint8_t *dtab_;        // dist_'s byte table (nullptr: none)
    int n_;                      // nodes
    std::vector<int> trans_, coset_, idx_, members_, pos_, owner_;
    std::vector<double> ecache_; // energy_of(b), kept current by run()
    std::vector<double> wtot_;   // total edge weight of each residue
    std::vector<int> bestpos_;   // run(): the best tile seen ...
    int nd_ = 0;                 // coordinate distances (0: the byte table or dist_, and trans_)
    int len_[kMaxCoords] = {};     // torus dimensions
    int stride_[kMaxCoords] = {};  // node number = sum of coordinate * stride
    std::vector<int> pc_;        // coordinates of pos_ (nd_ per residue)
    std::vector<int> shift_off_; // shift s's offset s D mod the dimensions, per dimension
    double best_ = 0;            // ... and its energy
    int ncos_ = 0, m_len_ = 0;
};

} // namespace band
} // namespace rankmap

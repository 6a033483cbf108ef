// embed.hpp -- private to the Cartesian embedding files (cartesian.cpp,
// factor.cpp, gray.cpp, stock.cpp): the "digit" description
// shared by every structured map of a task grid onto a torus/mesh.
//
// A structured map is described by mixed-radix digits.  Each grid dimension
// of extent g is written as a product of radices r_1 * r_2 * ... (most
// significant first) and a grid coordinate is decomposed into those digits
// by the reflected (boustrophedon) mixed-radix Gray code, so that grid
// neighbours differ in exactly one digit by +-1.  Every digit is sent to a
// target axis: a dimension of the topology, or the "slot" axis (tasks
// sharing a node, the T of Smith and Bode, BG/L node mappings).  An axis's
// coordinate is composed from its digits, plain mixed radix or reflected.  One
// radix per grid dimension gives the direct maps (and sub-boxes when N < P), a
// torus digit plus a slot digit gives Smith and Bode's block and folded maps,
// two torus digits give the "unfold" of a long grid dimension over two torus
// dimensions, radix-2 digits give Smith and Bode's Gray-code embeddings, and a
// grid dimension spread over all axes gives the small-cube maps of Jagode et
// al. (FFT task placement).
//
// Cost: applying a spec is O(N * digits) (digits.cpp); each family's
// enumeration bound is in its file.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cost/cost.hpp"
#include "topology/topology.hpp"

namespace rankmap {
namespace cart {

// The axes a grid may be laid on: the topology's dimensions, plus a slot
// axis (index ndims) when every node holds `slots` > 1 tasks.
struct Target {
    const Topology *topo = nullptr;
    int D = 0;                 // topology dimensions
    std::vector<int> cap;      // extent of each axis (D or D+1 entries)
    std::vector<int> cls;      // equivalence class: axes of one class are
                               // interchangeable by a topology symmetry
    bool exact = false;        // N == P * slots: every axis must be filled
    bool has_slot = false;     // slot axis present (index D)
    bool usable = false;       // false: only the stock permutations apply
    int naxes() const { return static_cast<int>(cap.size()); }
};

// Builds the target for N tasks.  usable is false when N > P and N is not
// a multiple of P (no box shape exists; only stock orders apply).
Target make_target(const Topology &topo, int ntasks, Capacity cap);

// One digit of a grid dimension.
struct Digit {
    int axis;
    int radix;
};

struct DigitSpec {
    std::vector<std::vector<Digit>> dims;     // per grid dimension, MS first
    // per axis: (grid dim, digit index) pairs, most significant first
    std::vector<std::vector<std::pair<int, int>>> axis_digits;
    bool axis_reflect = true;  // compose axis coordinates by reflected Gray
};

// Node of every grid point (row-major over gdims, last fastest) under the
// spec; empty if the spec does not fit the target.  O(N * digits).
std::vector<int> apply(const Target &t, const std::vector<int> &gdims, const DigitSpec &s);

// Reflected mixed-radix Gray digits of x (radices MS first).
void gray_digits(int64_t x, const std::vector<Digit> &radices, int *out);

// Receives each candidate: node of every grid point and the family name.
// Returns false to stop the enumeration.
using Visit = std::function<bool(const std::vector<int> &node_of_point, const std::string &name)>;

// Families (each in its own file).
// factor.cpp: direct / block / fold / unfold / small-cube maps with
// exactly `ndig` digits on the grid dimension that has the most.
// At most max_steps recursion steps (CartContext::factor_steps).
bool factor_family(const Target &t, const std::vector<int> &gdims, int ndig, long max_steps, const Visit &visit);
// factor.cpp: Jagode et al.'s small-cube maps of 2-D grids.
bool small_cube_family(const Target &t, const std::vector<int> &gdims, const Visit &visit);
// gray.cpp: Smith and Bode's Gray-code embeddings (power-of-two shapes).
bool gray_family(const Target &t, const std::vector<int> &gdims, const Visit &visit);
// stock.cpp: Smith and Bode's stock permutations and unfold (snake)
// orders of the grid's row-major rank order, T first or last.  Always
// applicable.
// At most max_perms axis orders (CartContext::stock_permutations).
bool stock_family(const Topology &topo, int ntasks, Capacity cap, const std::vector<int> &cls, int max_perms,
                  const Visit &visit);

// Permutations of 0..n-1 in which axes of one class appear in increasing
// order (one representative per symmetry orbit), at most `limit`.
std::vector<std::vector<int>> canonical_permutations(const std::vector<int> &cls, size_t limit);

} // namespace cart
} // namespace rankmap

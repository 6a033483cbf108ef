// factor.cpp -- factorised embeddings of a Cartesian task grid onto a
// torus/mesh (Smith and Bode (BG/L node mappings) sections 3.1-3.2, Jagode
// et al. (FFT task placement) section 7.1).
//
// Every grid dimension is split into up to `ndig` mixed-radix digits, each
// sent to a different axis (topology dimension or node slot), by a
// depth-first enumeration of the factorisations that fit the axes'
// extents.  Digits are read in reflected (boustrophedon) Gray order, so
// consecutive grid points differ in one digit by one:
//   1 digit per dim  : the direct maps (any permutation of dimensions; a
//                      sub-box of the machine when N < P),
//   torus + slot     : Smith and Bode's "block" maps (slot digit last:
//                      consecutive grid points share a node) and folds (slot
//                      digit first: the grid dimension is folded over the
//                      node),
//   two torus digits : Smith and Bode's "unfold": a long grid dimension snakes
//                      over two torus dimensions and neighbours stay adjacent
//                      (64x8 onto 8x8x8, 8x8 periodic onto 4x4x4),
//   shared axes      : several grid dimensions on one torus dimension, in
//                      either nesting order and plain or reflected.
// small_cube_family builds Jagode et al.'s maps of a 2-D grid whose rows (or
// columns) each fill a small sub-box (2x2x2 "8-cube", 4x4x4 "64-cube") and
// displaced copies tile the machine.
// Equivalent axes (same extent and distances) are used in index order only,
// which removes the machine's symmetric duplicates.  Cost: the enumeration
// is bounded by a number of recursion steps (CartContext::factor_steps); each
// candidate costs O(N).
#include <algorithm>
#include <string>

#include "map/cartesian/embed.hpp"

namespace rankmap {
namespace cart {

namespace {

std::string axis_name(const Target &t, int j) {
    if (t.has_slot && j == t.D) return "T";
    if (t.D <= 3) return std::string(1, static_cast<char>('X' + j));
    return std::string(1, static_cast<char>('A' + j));
}

std::string spec_name(const Target &t, const std::vector<int> &gdims, const DigitSpec &s,
                      const char *family) {
    std::string out = family;
    for (size_t i = 0; i < gdims.size(); ++i) {
        out += i ? " " : " ";
        out += std::to_string(gdims[i]) + "=";
        for (size_t k = 0; k < s.dims[i].size(); ++k) {
            if (k) out += "*";
            out += std::to_string(s.dims[i][k].radix) + axis_name(t, s.dims[i][k].axis);
        }
    }
    return out;
}

struct FactorSearch {
    const Target &t;
    const std::vector<int> &gdims;
    int ndig;
    long max_steps;
    const Visit &visit;
    std::vector<std::vector<Digit>> lists;
    std::vector<int> used;
    long steps = 0;
    bool stop = false;

    FactorSearch(const Target &t_, const std::vector<int> &g, int n, long max, const Visit &v)
        : t(t_), gdims(g), ndig(n), max_steps(max), visit(v), lists(g.size()), used(t_.naxes(), 1) {}

    void emit() {
        size_t most = 0;
        for (auto &l : lists) most = std::max(most, l.size());
        if (static_cast<int>(most) != ndig) return;
        if (t.exact)
            for (int j = 0; j < t.naxes(); ++j)
                if (used[j] != t.cap[j]) return;
        DigitSpec s;
        s.dims = lists;
        bool shared = false;
        for (int j = 0; j < t.D; ++j) {
            int cnt = 0;
            for (auto &l : lists)
                for (const Digit &d : l) cnt += d.axis == j;
            shared = shared || cnt > 1;
        }
        const int nd = static_cast<int>(lists.size());
        for (int desc = 0; desc < (shared ? 2 : 1) && !stop; ++desc) {
            for (int refl = 1; refl >= (shared ? 0 : 1) && !stop; --refl) {
                s.axis_digits.assign(t.naxes(), {});
                for (int ii = 0; ii < nd; ++ii) {
                    int i = desc ? nd - 1 - ii : ii;
                    for (size_t k = 0; k < lists[i].size(); ++k)
                        s.axis_digits[lists[i][k].axis].push_back({i, static_cast<int>(k)});
                }
                s.axis_reflect = refl != 0;
                std::vector<int> nodes = apply(t, gdims, s);
                if (nodes.empty()) continue;
                std::string name = spec_name(t, gdims, s, ndig == 1 ? "direct" : "factor");
                if (shared) name += desc ? " (last dim outer" : " (first dim outer";
                if (shared) name += refl ? ", reflected)" : ", plain)";
                if (!visit(nodes, name)) stop = true;
            }
        }
    }

    // Is axis j allowed for a new digit (canonical use of equivalent axes)?
    bool canonical(int j) const {
        if (used[j] != 1) return true;
        for (int a = 0; a < j; ++a)
            if (t.cls[a] == t.cls[j] && used[a] == 1) return false;
        return true;
    }

    void dim(size_t i) {
        if (stop) return;
        if (i == gdims.size()) {
            emit();
            return;
        }
        digit(i, gdims[i], 0);
    }

    void digit(size_t i, int rem, unsigned mask) {
        if (stop || ++steps > max_steps) {
            stop = true;
            return;
        }
        if (rem == 1) {
            dim(i + 1);
            return;
        }
        if (static_cast<int>(lists[i].size()) == ndig) return;
        for (int j = 0; j < t.naxes(); ++j) {
            if ((mask >> j) & 1u) continue;
            if (!canonical(j)) continue;
            const int room = t.cap[j] / used[j];
            for (int f = 2; f <= std::min(rem, room); ++f) {
                if (rem % f) continue;
                if (t.exact && (t.cap[j] / used[j]) % f) continue;
                lists[i].push_back({j, f});
                used[j] *= f;
                digit(i, rem / f, mask | (1u << j));
                used[j] /= f;
                lists[i].pop_back();
                if (stop) return;
            }
        }
    }
};

} // namespace

bool factor_family(const Target &t, const std::vector<int> &gdims, int ndig, long max_steps, const Visit &visit) {
    if (!t.usable || ndig < 1) return true;
    if (gdims.empty()) return true;
    FactorSearch fs(t, gdims, ndig, max_steps, visit);
    fs.dim(0);
    return !fs.stop || fs.steps > max_steps;
}

bool small_cube_family(const Target &t, const std::vector<int> &gdims, const Visit &visit) {
    if (!t.usable || !t.exact || gdims.size() != 2 || t.D < 2) return true;
    const int slots = t.has_slot ? t.cap[t.D] : 1;
    // For X in {0, 1}: grid dim X packed in sub-boxes k_0 x ... x k_{D-1}
    // (k_j | extent of axis j, at least two k_j > 1), the other dim Y
    // enumerating the displaced copies.
    for (int X = 0; X < 2; ++X) {
        const int Y = 1 - X;
        for (int slot_to_x = 0; slot_to_x < (slots > 1 ? 2 : 1); ++slot_to_x) {
            int gx = gdims[X], gy = gdims[Y];
            if (slots > 1) {
                int &g = slot_to_x ? gx : gy;
                if (g % slots) continue;
                g /= slots;
            }
            std::vector<int> k(t.D, 1);
            // odometer over divisors of each axis extent
            while (true) {
                int64_t prod = 1;
                int big = 0;
                for (int j = 0; j < t.D; ++j) {
                    prod *= k[j];
                    big += k[j] > 1;
                }
                bool ok = prod == gx && big >= 2;
                for (int j = 0; j < t.D && ok; ++j)
                    if (t.cap[j] % k[j]) ok = false;
                int64_t rest = 1;
                for (int j = 0; j < t.D && ok; ++j) rest *= t.cap[j] / k[j];
                if (ok && rest == gy) {
                    for (int refl = 1; refl >= 0; --refl) {
                        DigitSpec s;
                        s.dims.assign(2, {});
                        s.axis_digits.assign(t.naxes(), {});
                        if (slots > 1) s.dims[slot_to_x ? X : Y].push_back({t.D, slots});
                        for (int j = 0; j < t.D; ++j) {
                            if (t.cap[j] / k[j] > 1) s.dims[Y].push_back({j, t.cap[j] / k[j]});
                        }
                        for (int j = 0; j < t.D; ++j)
                            if (k[j] > 1) s.dims[X].push_back({j, k[j]});
                        // Y digits outer (MS) on every axis, X digits inner.
                        for (int i : {Y, X})
                            for (size_t m = 0; m < s.dims[i].size(); ++m)
                                s.axis_digits[s.dims[i][m].axis].push_back({i, static_cast<int>(m)});
                        s.axis_reflect = refl != 0;
                        std::vector<int> nodes = apply(t, gdims, s);
                        if (nodes.empty()) continue;
                        std::string name = "small-cube " + std::string(X == 1 ? "rows" : "columns") + " in ";
                        for (int j = 0; j < t.D; ++j) name += (j ? "x" : "") + std::to_string(k[j]);
                        if (slots > 1) name += slot_to_x ? " (T inside)" : " (T outside)";
                        name += refl ? " reflected" : " translated";
                        if (!visit(nodes, name)) return false;
                    }
                }
                int j = 0;
                while (j < t.D) {
                    do {
                        ++k[j];
                    } while (k[j] <= t.cap[j] && t.cap[j] % k[j]);
                    if (k[j] <= t.cap[j]) break;
                    k[j] = 1;
                    ++j;
                }
                if (j == t.D) break;
            }
        }
    }
    return true;
}

} // namespace cart
} // namespace rankmap

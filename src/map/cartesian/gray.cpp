// gray.cpp -- Gray-code embeddings of a power-of-two task grid in a
// power-of-two torus (Smith and Bode (BG/L node mappings) section 3.1, after
// the hypercube embeddings it cites).  Each grid coordinate is written in
// binary reflected Gray code; the bits of all grid dimensions are concatenated
// into one node address (grid dimensions in a chosen order, most significant
// first), and the address is cut into fields, one per machine axis in a chosen
// order ("Z-first", "T-first" ...).  A field becomes a coordinate either as
// the inverse Gray code of its bits (neighbouring addresses stay close on a
// ring) or as plain binary, as in the paper's 16x8 mesh on 8x4x4 example.
// Cost: up to (grid orders) x (axis orders) x 2 candidates of O(N) each.
#include <algorithm>
#include <string>

#include "map/cartesian/embed.hpp"

namespace rankmap {
namespace cart {

namespace {

int log2_exact(int v) {
    if (v < 1 || (v & (v - 1))) return -1;
    int b = 0;
    while ((1 << b) < v) ++b;
    return b;
}

} // namespace

bool gray_family(const Target &t, const std::vector<int> &gdims, const Visit &visit) {
    if (!t.usable || !t.exact || gdims.empty()) return true;
    const int nd = static_cast<int>(gdims.size());
    std::vector<int> gbits(nd), abits(t.naxes());
    for (int i = 0; i < nd; ++i)
        if ((gbits[i] = log2_exact(gdims[i])) < 0) return true;
    for (int j = 0; j < t.naxes(); ++j)
        if ((abits[j] = log2_exact(t.cap[j])) < 0) return true;
    // Grid dimension orders: all of them for up to 4 dimensions, else the
    // natural order and its reverse.
    std::vector<std::vector<int>> gorders;
    {
        std::vector<int> perm(nd);
        for (int i = 0; i < nd; ++i) perm[i] = i;
        if (nd <= 4) {
            do gorders.push_back(perm);
            while (std::next_permutation(perm.begin(), perm.end()));
        } else {
            gorders.push_back(perm);
            std::reverse(perm.begin(), perm.end());
            gorders.push_back(perm);
        }
    }
    const std::vector<std::vector<int>> aorders = canonical_permutations(t.cls, 120);
    for (const auto &go : gorders) {
        // address bit b (MS first) -> (grid dim, digit index)
        std::vector<std::pair<int, int>> addr;
        for (int i : go)
            for (int k = 0; k < gbits[i]; ++k) addr.push_back({i, k});
        for (const auto &ao : aorders) {
            for (int refl = 1; refl >= 0; --refl) {
                DigitSpec s;
                s.dims.assign(nd, {});
                for (int i = 0; i < nd; ++i) s.dims[i].assign(gbits[i], Digit{-1, 2});
                s.axis_digits.assign(t.naxes(), {});
                size_t b = 0;
                for (int j : ao)
                    for (int m = 0; m < abits[j]; ++m, ++b) {
                        auto [i, k] = addr[b];
                        s.dims[i][k].axis = j;
                        s.axis_digits[j].push_back({i, k});
                    }
                s.axis_reflect = refl != 0;
                std::vector<int> nodes = apply(t, gdims, s);
                if (nodes.empty()) continue;
                std::string name = "gray grid-order ";
                for (int i : go) name += std::to_string(gdims[i]) + (i == go.back() ? "" : ",");
                name += " axis-order ";
                for (int j : ao)
                    name += (t.has_slot && j == t.D) ? std::string("T")
                                                      : std::string(1, static_cast<char>(t.D <= 3 ? 'X' + j : 'A' + j));
                name += refl ? " (gray fields)" : " (binary fields)";
                if (!visit(nodes, name)) return false;
            }
        }
    }
    return true;
}

} // namespace cart
} // namespace rankmap

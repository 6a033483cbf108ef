// digits.cpp -- the digit machinery behind every structured Cartesian
// map (see embed.hpp): target axes and their symmetry classes, the
// reflected mixed-radix Gray code (the boustrophedon "unfold" of Smith and
// Bode (BG/L node mappings) section 3.2, and for radix 2 the binary reflected
// Gray code of section 3.1), and the application of a digit spec to every grid
// point.
// Cost: make_target O(ndims); apply O(N * digits).
#include <algorithm>
#include <map>
#include <tuple>

#include "map/cartesian/embed.hpp"

namespace rankmap {
namespace cart {

Target make_target(const Topology &topo, int ntasks, Capacity cap) {
    Target t;
    t.topo = &topo;
    t.D = topo.ndims();
    const int P = topo.size();
    const std::vector<int> &dims = topo.dims();
    t.cap.assign(dims.begin(), dims.end());
    // Symmetry classes: on a torus/mesh, two dimensions of equal extent and
    // equal distances along them are exchanged by a topology automorphism.
    std::map<std::tuple<int, double, double, double>, int> seen;
    std::vector<int> origin(t.D, 0), c(t.D, 0);
    const int o = topo.node_at(origin.data());
    for (int j = 0; j < t.D; ++j) {
        if (topo.kind() != TopologyKind::Torus || o < 0) {
            t.cls.push_back(j);
            continue;
        }
        auto dist_at = [&](int x) {
            if (x <= 0 || x >= dims[j]) return -1.0;
            c = origin;
            c[j] = x;
            int n = topo.node_at(c.data());
            return n < 0 ? -1.0 : topo.distance(o, n);
        };
        auto key = std::make_tuple(dims[j], dist_at(1), dist_at(dims[j] - 1), dist_at(2));
        auto it = seen.find(key);
        if (it == seen.end()) it = seen.emplace(key, j).first;
        t.cls.push_back(it->second);
    }
    if (ntasks <= P) {
        t.exact = ntasks == P;
        t.usable = cap.hi <= 1;
    } else if (P > 0 && ntasks % P == 0) {
        t.exact = true;
        t.has_slot = true;
        t.cap.push_back(ntasks / P);
        t.cls.push_back(t.D);
        t.usable = true;
    }
    return t;
}

void gray_digits(int64_t x, const std::vector<Digit> &radices, int *out) {
    int64_t w = 1;
    for (const Digit &d : radices) w *= d.radix;
    int64_t rem = x;
    for (size_t i = 0; i < radices.size(); ++i) {
        w /= radices[i].radix;
        int64_t q = rem / w, s = rem % w;
        out[i] = static_cast<int>(q);
        rem = (q & 1) ? w - 1 - s : s;
    }
}

std::vector<int> apply(const Target &t, const std::vector<int> &gdims, const DigitSpec &s) {
    const int nd = static_cast<int>(gdims.size());
    const int na = t.naxes();
    if (static_cast<int>(s.dims.size()) != nd || static_cast<int>(s.axis_digits.size()) != na) return {};
    int64_t N = 1;
    for (int i = 0; i < nd; ++i) {
        int64_t prod = 1;
        for (const Digit &d : s.dims[i]) {
            if (d.axis < 0 || d.axis >= na || d.radix < 2) return {};
            prod *= d.radix;
        }
        if (prod != gdims[i]) return {};
        N *= gdims[i];
    }
    // Axis extents used by the spec.
    std::vector<int64_t> used(na, 1);
    for (int j = 0; j < na; ++j) {
        for (auto [i, k] : s.axis_digits[j]) {
            if (i < 0 || i >= nd || k < 0 || k >= static_cast<int>(s.dims[i].size()) ||
                s.dims[i][k].axis != j)
                return {};
            used[j] *= s.dims[i][k].radix;
        }
        if (used[j] > t.cap[j] || (t.exact && used[j] != t.cap[j])) return {};
    }
    // Digit values of every coordinate of every grid dimension.
    std::vector<std::vector<int>> table(nd);
    for (int i = 0; i < nd; ++i) {
        const int k = static_cast<int>(s.dims[i].size());
        table[i].resize(static_cast<size_t>(gdims[i]) * std::max(k, 1));
        for (int x = 0; x < gdims[i]; ++x)
            if (k > 0) gray_digits(x, s.dims[i], &table[i][static_cast<size_t>(x) * k]);
    }
    std::vector<int> x(nd, 0), coord(na, 0), out(N);
    for (int64_t g = 0; g < N; ++g) {
        for (int j = 0; j < t.D; ++j) {
            const auto &ad = s.axis_digits[j];
            int64_t idx = 0, w = 1;
            for (int m = static_cast<int>(ad.size()) - 1; m >= 0; --m) {
                const int i = ad[m].first, k = ad[m].second;
                const int r = s.dims[i][k].radix;
                const int d = table[i][static_cast<size_t>(x[i]) * s.dims[i].size() + k];
                idx = (s.axis_reflect && (d & 1)) ? d * w + (w - 1 - idx) : d * w + idx;
                w *= r;
            }
            coord[j] = static_cast<int>(idx);
        }
        const int node = t.topo->node_at(coord.data());
        if (node < 0) return {};
        out[g] = node;
        for (int i = nd - 1; i >= 0; --i) {  // odometer, last dimension fastest
            if (++x[i] < gdims[i]) break;
            x[i] = 0;
        }
    }
    return out;
}

std::vector<std::vector<int>> canonical_permutations(const std::vector<int> &cls, size_t limit) {
    const int n = static_cast<int>(cls.size());
    std::vector<int> perm(n);
    for (int i = 0; i < n; ++i) perm[i] = i;
    std::vector<std::vector<int>> out;
    std::vector<int> pos(n);
    do {
        for (int i = 0; i < n; ++i) pos[perm[i]] = i;
        bool ok = true;
        for (int a = 0; a < n && ok; ++a)
            for (int b = a + 1; b < n && ok; ++b)
                if (cls[a] == cls[b] && pos[a] > pos[b]) ok = false;
        if (ok) out.push_back(perm);
    } while (out.size() < limit && std::next_permutation(perm.begin(), perm.end()));
    return out;
}

} // namespace cart
} // namespace rankmap

// recognize.cpp -- recognise a Cartesian grid or torus (1..6
// dimensions, labels scrambled) in a communication graph, so that the
// structured embeddings of Smith and Bode (BG/L node mappings) and Jagode et
// al. (FFT task placement) apply to graphs that come without an
// MPI_Cart_create (the cubic1/cubic2 of Bhanot et al., BG/L task layout, as
// edge lists, say).
//
// Method (a Cartesian-product recognition specialised to paths and cycles):
//   1. Edge classes: the edges of the heaviest weight class are tried first
//      (cubic2's nearest neighbours outweigh its straight next-nearest
//      partners), then the two and three heaviest classes, then all edges.
//   2. Dimension colouring: at every vertex v, two incident edges v-a, v-b
//      of different dimensions span a square v-a-w-b (w = v+e+f), and two of
//      the same dimension span none.  So: opposite edges of every square
//      get one colour, and two edges at v spanning no square get one colour
//      (union-find over edges).  A 4-cycle factor is the product K2 x K2 and
//      shows up as two colours of extent 2; pairs of such colours are merged
//      back into periodic extent-4 dimensions at the end.
//   3. Coordinates: for each colour c, the components of the graph without
//      c-edges are the layers x_c = const; the c-edges must link the layers
//      as a path (mesh dimension) or a cycle (periodic), all layers of the
//      same size, and a layer's position on that path/cycle is x_c.
//   4. Verification: the coordinates must be a bijection onto the grid's
//      points, every edge must join grid neighbours and the edge count must
//      equal the grid's: then the (sub)graph IS that grid, never a guess.
// Cost: O(N * deg^2 + colours * (N + E)) per edge class tried; degrees
// above 12 are rejected at once, so O(N + E) overall.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "map/cartesian/grid.hpp"

namespace rankmap {

namespace {

constexpr int kMaxDegree = 12;   // 6 dimensions x 2 neighbours
constexpr int kMaxColours = 12;  // 4-cycles count twice before merging
constexpr int kMaxDims = 6;

struct Dsu {
    std::vector<int> parent;
    explicit Dsu(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
    int find(int x) {
        while (parent[x] != x) {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    }
    void unite(int a, int b) {
        a = find(a);
        b = find(b);
        if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
};

// Unweighted simple undirected graph in CSR (sorted neighbour lists).
struct Simple {
    int n = 0;
    std::vector<int64_t> xadj;
    std::vector<int> adj;
};

struct Dim {
    int extent;
    bool periodic;
    std::vector<int> coord;  // per vertex
};

bool connected(const Simple &h) {
    std::vector<char> seen(h.n, 0);
    std::vector<int> stack{0};
    seen[0] = 1;
    int count = 1;
    while (!stack.empty()) {
        int v = stack.back();
        stack.pop_back();
        for (int64_t e = h.xadj[v]; e < h.xadj[v + 1]; ++e)
            if (!seen[h.adj[e]]) {
                seen[h.adj[e]] = 1;
                ++count;
                stack.push_back(h.adj[e]);
            }
    }
    return count == h.n;
}

// Step 2: colour of every directed edge position (both directions of an
// edge share it); -1 on failure.
std::vector<int> colour_edges(const Simple &h, int &ncolours) {
    const int64_t E = static_cast<int64_t>(h.adj.size());
    std::vector<int64_t> rev(E);
    for (int v = 0; v < h.n; ++v)
        for (int64_t e = h.xadj[v]; e < h.xadj[v + 1]; ++e) {
            const int x = h.adj[e];
            auto b = h.adj.begin() + h.xadj[x], en = h.adj.begin() + h.xadj[x + 1];
            auto it = std::lower_bound(b, en, v);
            if (it == en || *it != v) return {};  // not symmetric
            rev[e] = it - h.adj.begin();
        }
    Dsu dsu(E);
    for (int64_t e = 0; e < E; ++e) dsu.unite(static_cast<int>(e), static_cast<int>(rev[e]));
    struct Hit {
        int w, i;
        int64_t q;
    };
    std::vector<Hit> hits;
    std::vector<char> squared;
    for (int v = 0; v < h.n; ++v) {
        const int64_t base = h.xadj[v];
        const int k = static_cast<int>(h.xadj[v + 1] - base);
        hits.clear();
        for (int i = 0; i < k; ++i) {
            const int a = h.adj[base + i];
            for (int64_t q = h.xadj[a]; q < h.xadj[a + 1]; ++q)
                if (h.adj[q] != v) hits.push_back({h.adj[q], i, q});
        }
        std::sort(hits.begin(), hits.end(), [](const Hit &x, const Hit &y) {
            return x.w != y.w ? x.w < y.w : x.i < y.i;
        });
        squared.assign(static_cast<size_t>(k) * k, 0);
        for (size_t s = 0; s < hits.size();) {
            size_t t = s;
            while (t < hits.size() && hits[t].w == hits[s].w) ++t;
            for (size_t x = s; x < t; ++x)
                for (size_t y = x + 1; y < t; ++y) {
                    const int i = hits[x].i, j = hits[y].i;
                    // square v - a_i - w - a_j: opposite edges match
                    dsu.unite(static_cast<int>(base + i), static_cast<int>(hits[y].q));
                    dsu.unite(static_cast<int>(base + j), static_cast<int>(hits[x].q));
                    squared[static_cast<size_t>(i) * k + j] = squared[static_cast<size_t>(j) * k + i] = 1;
                }
            s = t;
        }
        for (int i = 0; i < k; ++i)
            for (int j = i + 1; j < k; ++j)
                if (!squared[static_cast<size_t>(i) * k + j])
                    dsu.unite(static_cast<int>(base + i), static_cast<int>(base + j));
    }
    std::vector<int> colour(E, -1), id(E, -1);
    ncolours = 0;
    for (int64_t e = 0; e < E; ++e) {
        int r = dsu.find(static_cast<int>(e));
        if (id[r] < 0) {
            if (ncolours == kMaxColours) return {};
            id[r] = ncolours++;
        }
        colour[e] = id[r];
    }
    return colour;
}

// Step 3 for one colour: the layers x_c = const and their order.
bool layer_coordinates(const Simple &h, const std::vector<int> &colour, int c, Dim &dim) {
    Dsu dsu(h.n);
    for (int v = 0; v < h.n; ++v)
        for (int64_t e = h.xadj[v]; e < h.xadj[v + 1]; ++e)
            if (colour[e] != c) dsu.unite(v, h.adj[e]);
    std::vector<int> layer(h.n), lid(h.n, -1);
    int m = 0;
    for (int v = 0; v < h.n; ++v) {
        int r = dsu.find(v);
        if (lid[r] < 0) lid[r] = m++;
        layer[v] = lid[r];
    }
    if (m < 2 || h.n % m) return false;
    std::vector<int> size(m, 0), nb1(m, -1), nb2(m, -1);
    for (int v = 0; v < h.n; ++v) ++size[layer[v]];
    for (int s : size)
        if (s != h.n / m) return false;
    for (int v = 0; v < h.n; ++v)
        for (int64_t e = h.xadj[v]; e < h.xadj[v + 1]; ++e) {
            if (colour[e] != c) continue;
            const int a = layer[v], b = layer[h.adj[e]];
            if (a == b) return false;
            if (nb1[a] == b || nb2[a] == b) continue;
            if (nb1[a] < 0) nb1[a] = b;
            else if (nb2[a] < 0) nb2[a] = b;
            else return false;
        }
    int ends = 0, start = -1;
    for (int l = 0; l < m; ++l) {
        if (nb1[l] < 0) return false;
        if (nb2[l] < 0) {
            ++ends;
            if (start < 0) start = l;
        }
    }
    const bool cycle = ends == 0;
    if (!cycle && ends != 2) return false;
    if (cycle) start = layer[0];
    std::vector<int> pos(m, -1);
    int prev = -1, cur = start;
    for (int i = 0; i < m; ++i) {
        if (cur < 0 || pos[cur] >= 0) return false;
        pos[cur] = i;
        int next = nb1[cur] != prev ? nb1[cur] : nb2[cur];
        prev = cur;
        cur = next;
    }
    dim.extent = m;
    dim.periodic = cycle && m >= 3;
    dim.coord.resize(h.n);
    for (int v = 0; v < h.n; ++v) dim.coord[v] = pos[layer[v]];
    return true;
}

std::optional<RecognizedGrid> recognize_simple(const Simple &h) {
    const int n = h.n;
    if (n < 2 || h.adj.empty()) return std::nullopt;
    for (int v = 0; v < n; ++v) {
        int64_t d = h.xadj[v + 1] - h.xadj[v];
        if (d < 1 || d > kMaxDegree) return std::nullopt;
    }
    if (!connected(h)) return std::nullopt;
    int ncol = 0;
    std::vector<int> colour = colour_edges(h, ncol);
    if (colour.empty()) return std::nullopt;
    std::vector<Dim> raw(ncol);
    for (int c = 0; c < ncol; ++c)
        if (!layer_coordinates(h, colour, c, raw[c])) return std::nullopt;
    // Merge pairs of extent-2 colours into periodic extent-4 dimensions
    // (K2 x K2 = C4), coordinate by the reflected Gray code 00,01,11,10.
    std::vector<Dim> dims;
    int pending = -1;
    for (int c = 0; c < ncol; ++c) {
        if (raw[c].extent != 2) {
            dims.push_back(std::move(raw[c]));
            continue;
        }
        if (pending < 0) {
            pending = c;
            continue;
        }
        Dim d;
        d.extent = 4;
        d.periodic = true;
        d.coord.resize(n);
        for (int v = 0; v < n; ++v) {
            int b0 = raw[pending].coord[v], b1 = raw[c].coord[v];
            d.coord[v] = 2 * b0 + (b0 ? 1 - b1 : b1);
        }
        dims.push_back(std::move(d));
        pending = -1;
    }
    if (pending >= 0) dims.push_back(std::move(raw[pending]));
    if (dims.empty() || static_cast<int>(dims.size()) > kMaxDims) return std::nullopt;
    std::stable_sort(dims.begin(), dims.end(), [](const Dim &a, const Dim &b) { return a.extent > b.extent; });
    const int nd = static_cast<int>(dims.size());
    // Step 4: bijection onto the grid points, edges = grid edges.
    int64_t npts = 1, expect_edges = 0;
    for (const Dim &d : dims) npts *= d.extent;
    if (npts != n) return std::nullopt;
    for (const Dim &d : dims) expect_edges += static_cast<int64_t>(n / d.extent) * (d.periodic ? d.extent : d.extent - 1);
    if (expect_edges * 2 != static_cast<int64_t>(h.adj.size())) return std::nullopt;
    RecognizedGrid rg;
    rg.task_at.assign(n, -1);
    for (int v = 0; v < n; ++v) {
        int64_t g = 0;
        for (const Dim &d : dims) g = g * d.extent + d.coord[v];
        if (rg.task_at[g] >= 0) return std::nullopt;
        rg.task_at[g] = v;
    }
    for (int v = 0; v < n; ++v)
        for (int64_t e = h.xadj[v]; e < h.xadj[v + 1]; ++e) {
            const int x = h.adj[e];
            int differ = 0;
            for (const Dim &d : dims) {
                int dc = std::abs(d.coord[v] - d.coord[x]);
                if (dc == 0) continue;
                if (!(dc == 1 || (d.periodic && dc == d.extent - 1))) return std::nullopt;
                ++differ;
            }
            if (differ != 1) return std::nullopt;
        }
    for (int k = 0; k < nd; ++k) {
        rg.grid.dims.push_back(dims[k].extent);
        rg.grid.periods.push_back(dims[k].periodic ? 1 : 0);
    }
    return rg;
}

} // namespace

std::optional<RecognizedGrid> recognize_grid(const Graph &sym) {
    const int n = sym.n();
    if (n < 2 || sym.nedges() == 0) return std::nullopt;
    // Distinct weight classes (relative tolerance 1e-9), at most 8 tracked.
    std::vector<double> classes;
    bool many = false;
    auto same = [](double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b)); };
    for (double w : sym.weights()) {
        bool found = false;
        for (double c : classes)
            if (same(c, w)) {
                found = true;
                break;
            }
        if (found) continue;
        if (classes.size() == 8) {
            many = true;
            break;
        }
        classes.push_back(w);
    }
    std::sort(classes.begin(), classes.end(), std::greater<double>());
    std::vector<double> thresholds;
    // The heaviest class, the two and three heaviest, then all edges (only
    // all edges when the weights take more than 8 values).
    const size_t tops = many ? 0 : std::min<size_t>(3, classes.size());
    for (size_t t = 0; t < tops; ++t) thresholds.push_back(classes[t] * (1 - 1e-9));
    if (many || classes.size() > 3) thresholds.push_back(-1.0);
    for (double thr : thresholds) {
        Simple h;
        h.n = n;
        h.xadj.assign(n + 1, 0);
        for (int v = 0; v < n; ++v) {
            for (int64_t e = sym.begin(v); e < sym.end(v); ++e)
                if (sym.weight(e) >= thr && sym.target(e) != v) h.adj.push_back(sym.target(e));
            h.xadj[v + 1] = static_cast<int64_t>(h.adj.size());
        }
        if (auto rg = recognize_simple(h)) return rg;
    }
    return std::nullopt;
}

std::optional<ExchangePhases> grid_exchange_phases(const Graph &g) {
    const auto rec = recognize_grid(g.symmetrized());
    if (!rec) return std::nullopt;
    const auto &dims = rec->grid.dims;
    const int n = static_cast<int>(rec->task_at.size());
    ExchangePhases out;
    int stride = n;
    for (size_t d = 0; d < dims.size(); ++d) {
        stride /= dims[d];
        if (dims[d] < 2) continue;
        const bool wraps = d < rec->grid.periods.size() && rec->grid.periods[d];
        for (int dir : {-1, +1}) {
            std::vector<int> partner(n, -1);
            for (int p = 0; p < n; ++p) {
                const int c = (p / stride) % dims[d];
                int q = c + dir;
                if (q < 0 || q >= dims[d]) {
                    if (!wraps) continue;
                    q = (q + dims[d]) % dims[d];
                }
                partner[rec->task_at[p]] = rec->task_at[p + (q - c) * stride];
            }
            out.partner.push_back(std::move(partner));
        }
    }
    return out;
}

} // namespace rankmap

// workloads.cpp -- generators for the four communication patterns of Bhanot
// et al. (BG/L task layout), section "Results and discussion": Cubic 1,
// Cubic 2, SAGE, UMT2000.  Used by `rankmap gen`, bench/mapping and the tests.
// Every generator is a pure function of its arguments (and seed); task labels
// follow the application's natural rank order, so the identity placement is
// "MPI rank order".
//
// cubic1(dims)  periodic grid (any number of dims, usually 3), task labels
//               row-major with the LAST dimension fastest -- the same order as
//               the torus node numbering, so cubic1 on its own torus in rank
//               order reaches F = F_min.  Weight 1 to each of the 2 x ndims
//               nearest neighbours.  8x8x8: total weight 3072 = F_min.
//               Cost O(N).
// cubic2(dims)  as cubic1 with weight 2 to the nearest neighbours and weight 1
//               to the neighbours at distance 2 along each axis (straight
//               lines, no turns).  8x8x8: F_min = 512 x (6x2x1 + 6x1x2) =
//               12288.  (On rings shorter than 5 the partners coincide and
//               their weights add up.)  Cost O(N).
// sage(ntasks, cells_per_task)
//               SAGE-like, our construction of Bhanot et al.'s description:
//               cells are grouped in 2x2x2 blocks (cells_per_task must be a
//               multiple of 8: B = cells_per_task / 8 blocks per task).  The
//               global domain is a cube of L^3 blocks, L = round(cbrt(ntasks
//               x B)), so the cells per task stay constant up to one block.
//               Blocks are numbered in (x, y, z) order, x fastest, and task t
//               owns the contiguous range [floor(t L^3 / ntasks),
//               floor((t+1) L^3 / ntasks)) -- an equal share, +-1 block.
//               A task thus owns a run of whole or partial x-rows: at small
//               task counts this is the slab-like decomposition Bhanot et al.
//               mention, with slab edges that fall between rows and planes
//               unless the numbers divide evenly (512 tasks x 4096 cells =
//               64^3 blocks: exact 64x8x1-block slabs, task t talking to t+-1
//               and t+-8; 2048 tasks x 4096 cells: L = 102, 518-519 blocks
//               per task, ragged slabs).  Two face-adjacent blocks of
//               different owners add the shared face area, 4 cells, to the
//               weight between the owners, in both directions.  The domain is
//               not periodic.  Cost O(ntasks * B) time, O(ntasks x degree)
//               memory.
// umt(ntasks, seed, points_per_task, k)
//               UMT-like: ntasks * points_per_task uniform random points in
//               the unit cube (Rng(seed)), an undirected k-nearest-neighbour
//               mesh (edge i-j if j is among the k nearest of i or i of j),
//               exact kNN through a uniform bucket grid of about 2 points per
//               bucket searched ring by ring, then METIS splits the mesh into
//               ntasks parts of exactly points_per_task points (partition
//               indices are the ranks); C(a,b) = C(b,a) = number of mesh
//               edges between parts a and b.  Cost O(n k log k) for the kNN,
//               plus METIS; O(n k) memory (the mesh is handed to METIS
//               directly, never built as a rankmap::Graph).
#include "workload/workload.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/rng.hpp"
#include "partition/csr_partition.hpp"

namespace rankmap {

namespace {

int64_t product(const std::vector<int> &dims) {
    int64_t p = 1;
    for (int d : dims) p *= d;
    return p;
}

std::string dims_text(const std::vector<int> &dims) {
    std::string s;
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
    return s;
}

void check_dims(const char *what, const std::vector<int> &dims) {
    if (dims.empty() || dims.size() > 6)
        throw Error(std::string(what) + ": grid must have 1 to 6 dimensions, got " +
                    std::to_string(dims.size()));
    for (int d : dims)
        if (d < 1) throw Error(std::string(what) + ": bad grid extent in '" + dims_text(dims) + "'");
    if (product(dims) > (int64_t(1) << 30))
        throw Error(std::string(what) + ": grid '" + dims_text(dims) + "' is too large");
}

// Periodic grid with weight w[s-1] to the partners at offset +-s along every
// axis (s = 1 .. w.size()).
Graph periodic_stencil(const std::vector<int> &dims, const std::vector<double> &w) {
    const int nd = static_cast<int>(dims.size());
    const int n = static_cast<int>(product(dims));
    std::vector<int64_t> stride(nd, 1);
    for (int k = nd - 2; k >= 0; --k) stride[k] = stride[k + 1] * dims[k + 1];
    std::vector<Edge> edges;
    edges.reserve(static_cast<size_t>(n) * nd * 2 * w.size());
    std::vector<int> c(nd, 0);
    for (int v = 0; v < n; ++v) {
        for (int k = 0; k < nd; ++k) {
            for (size_t s = 1; s <= w.size(); ++s) {
                for (int sign = -1; sign <= 1; sign += 2) {
                    int ck = ((c[k] + sign * static_cast<int>(s)) % dims[k] + dims[k]) % dims[k];
                    int u = static_cast<int>(v + (ck - c[k]) * stride[k]);
                    if (u != v) edges.push_back({v, u, w[s - 1]});
                }
            }
        }
        for (int k = nd - 1; k >= 0; --k) {  // advance row-major coordinates
            if (++c[k] < dims[k]) break;
            c[k] = 0;
        }
    }
    return Graph::from_edges(n, edges);
}

// A uniform grid of g^3 buckets over the unit cube; the points of bucket c
// are start[c]..start[c + 1] - 1 once sort_points has renumbered them.
struct Buckets {
    int g;
    double h;
    std::vector<int64_t> start;

    int cell_of(double x) const {
        int c = static_cast<int>(x * g);
        return c < 0 ? 0 : (c >= g ? g - 1 : c);
    }

    // Renumbers the points of xyz in bucket order and fills start.
    void sort_points(std::vector<float> &xyz) {
        const int64_t n = static_cast<int64_t>(xyz.size() / 3);
        const int64_t ncell = static_cast<int64_t>(g) * g * g;
        start.assign(ncell + 1, 0);
        std::vector<int64_t> cell(n);
        for (int64_t i = 0; i < n; ++i) {
            cell[i] = (static_cast<int64_t>(cell_of(xyz[3 * i])) * g + cell_of(xyz[3 * i + 1])) * g +
                      cell_of(xyz[3 * i + 2]);
            ++start[cell[i] + 1];
        }
        for (int64_t c = 0; c < ncell; ++c) start[c + 1] += start[c];
        std::vector<int64_t> fill(start.begin(), start.end() - 1);
        std::vector<float> sorted(xyz.size());
        for (int64_t i = 0; i < n; ++i) {
            const int64_t to = fill[cell[i]]++;
            for (int d = 0; d < 3; ++d) sorted[3 * to + d] = xyz[3 * i + d];
        }
        xyz.swap(sorted);
    }
};

// The k best candidates of one point: squared distances ascending, ties by index.
struct Nearest {
    int k;
    int found = 0;
    std::vector<double> bd;
    std::vector<int64_t> bi;

    explicit Nearest(int k_) : k(k_), bd(k_ + 1), bi(k_ + 1) {}

    void offer(double d, int64_t j) {
        if (found == k && d >= bd[k - 1]) return;
        int pos = found < k ? found++ : k - 1;
        while (pos > 0 && (bd[pos - 1] > d || (bd[pos - 1] == d && bi[pos - 1] > j))) {
            bd[pos] = bd[pos - 1];
            bi[pos] = bi[pos - 1];
            --pos;
        }
        bd[pos] = d;
        bi[pos] = j;
    }
};

// Offers point i every point of the ring at Chebyshev distance r (in
// buckets) around its bucket (cx, cy, cz).
void search_ring(const std::vector<float> &xyz, const Buckets &b, int64_t i, const int cc[3], int r, Nearest &best) {
    const int g = b.g, cx = cc[0], cy = cc[1], cz = cc[2];
    const double px = xyz[3 * i], py = xyz[3 * i + 1], pz = xyz[3 * i + 2];
    for (int x = std::max(0, cx - r); x <= std::min(g - 1, cx + r); ++x) {
        for (int y = std::max(0, cy - r); y <= std::min(g - 1, cy + r); ++y) {
            const bool inner_xy = std::abs(x - cx) < r && std::abs(y - cy) < r;
            for (int z = std::max(0, cz - r); z <= std::min(g - 1, cz + r); ++z) {
                if (inner_xy && std::abs(z - cz) < r) {
                    z = cz + r - 1;  // skip the interior, already searched
                    continue;
                }
                const int64_t c = (static_cast<int64_t>(x) * g + y) * g + z;
                for (int64_t j = b.start[c]; j < b.start[c + 1]; ++j) {
                    if (j == i) continue;
                    const double dx = xyz[3 * j] - px, dy = xyz[3 * j + 1] - py, dz = xyz[3 * j + 2] - pz;
                    best.offer(dx * dx + dy * dy + dz * dz, j);
                }
            }
        }
    }
}

// Distance from point pc to the nearest face of the block of buckets within
// r of its bucket cc (faces on the cube's boundary do not count).
double face_distance(const Buckets &b, const double pc[3], const int cc[3], int r) {
    double face = 1e300;
    for (int d = 0; d < 3; ++d) {
        if (cc[d] - r > 0) face = std::min(face, pc[d] - (cc[d] - r) * b.h);
        if (cc[d] + r < b.g - 1) face = std::min(face, (cc[d] + r + 1) * b.h - pc[d]);
    }
    return face;
}

// Exact k nearest neighbours (excluding the point itself) of every point in
// the unit cube, through a uniform grid of buckets (about 2 points each)
// searched ring by ring until the k-th candidate is closer than the faces
// of the searched block.  The points are first renumbered in bucket order
// (the order of random points is arbitrary; this keeps the search and
// METIS cache-friendly).  Appends undirected pairs (min, max) packed as
// min * n + max.
void knn_pairs(std::vector<float> &xyz, int k, std::vector<uint64_t> &pairs) {
    const int64_t n = static_cast<int64_t>(xyz.size() / 3);
    const int g = std::max(1, static_cast<int>(std::cbrt(static_cast<double>(n) / 2.0)));
    Buckets b{g, 1.0 / g, {}};
    b.sort_points(xyz);
    pairs.reserve(pairs.size() + static_cast<size_t>(n) * k);
    Nearest best(k);
    for (int64_t i = 0; i < n; ++i) {
        const double pc[3] = {xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]};
        const int cc[3] = {b.cell_of(pc[0]), b.cell_of(pc[1]), b.cell_of(pc[2])};
        best.found = 0;
        for (int r = 0; r <= g; ++r) {
            search_ring(xyz, b, i, cc, r, best);
            if (best.found == k) {
                const double face = face_distance(b, pc, cc, r);
                if (best.bd[k - 1] <= face * face) break;
            }
        }
        for (int q = 0; q < best.found; ++q) {
            const uint64_t a = static_cast<uint64_t>(std::min<int64_t>(i, best.bi[q]));
            const uint64_t c = static_cast<uint64_t>(std::max<int64_t>(i, best.bi[q]));
            pairs.push_back(a * static_cast<uint64_t>(n) + c);
        }
    }
}

// Graph from a list of undirected task pairs (a < b) packed as a * n + b,
// each occurrence adding `unit` in both directions.
Graph graph_from_pairs(int n, std::vector<uint64_t> &pairs, double unit) {
    std::sort(pairs.begin(), pairs.end());
    std::vector<Edge> edges;
    for (size_t i = 0; i < pairs.size();) {
        size_t j = i;
        while (j < pairs.size() && pairs[j] == pairs[i]) ++j;
        const int a = static_cast<int>(pairs[i] / static_cast<uint64_t>(n));
        const int b = static_cast<int>(pairs[i] % static_cast<uint64_t>(n));
        const double w = unit * static_cast<double>(j - i);
        edges.push_back({a, b, w});
        edges.push_back({b, a, w});
        i = j;
    }
    return Graph::from_edges(n, edges);
}

} // namespace

Graph workload_cubic1(const std::vector<int> &dims) {
    check_dims("cubic1", dims);
    return periodic_stencil(dims, {1.0});
}

Graph workload_cubic2(const std::vector<int> &dims) {
    check_dims("cubic2", dims);
    return periodic_stencil(dims, {2.0, 1.0});
}

Graph workload_sage(int ntasks, int cells_per_task) {
    if (ntasks < 1) throw Error("sage: number of tasks must be positive, got " + std::to_string(ntasks));
    if (cells_per_task < 8 || cells_per_task % 8)
        throw Error("sage: cells per task must be a positive multiple of 8 (2x2x2 blocks), got " +
                    std::to_string(cells_per_task));
    const int64_t B = cells_per_task / 8;  // blocks per task (on average)
    if (B * ntasks > (int64_t(1) << 40)) throw Error("sage: domain too large");
    // Cubic domain of L^3 blocks, L = cube root of ntasks * B rounded; task
    // t owns blocks [first(t), first(t+1)), first(t) = floor(t L^3 / ntasks).
    int64_t L = std::max<int64_t>(1, std::llround(std::cbrt(static_cast<double>(B * ntasks))));
    while (L * L * L < ntasks) ++L;  // at least one block per task
    const int64_t bx = L, by = L, bz = L, total = L * L * L;
    auto first = [&](int64_t t) { return static_cast<int64_t>((static_cast<__int128>(t) * total) / ntasks); };
    auto owner = [&](int64_t b) {
        int64_t t = static_cast<int64_t>((static_cast<__int128>(b) * ntasks) / total);
        while (first(t + 1) <= b) ++t;
        while (first(t) > b) --t;
        return static_cast<int>(t);
    };
    // +x/+y/+z neighbours of a block have higher numbers, so each owner pair
    // is met only from its lower task and is emitted once, both directions.
    std::vector<Edge> edges;
    std::vector<std::pair<int, int64_t>> local;  // (other owner, shared faces)
    for (int t = 0; t < ntasks; ++t) {
        local.clear();
        auto add = [&](int64_t other_block) {
            const int o = owner(other_block);
            if (o == t) return;
            for (auto &e : local)
                if (e.first == o) {
                    ++e.second;
                    return;
                }
            local.push_back({o, 1});
        };
        for (int64_t b = first(t); b < first(t + 1); ++b) {
            const int64_t x = b % bx, y = (b / bx) % by, z = b / (bx * by);
            if (x + 1 < bx) add(b + 1);
            if (y + 1 < by) add(b + bx);
            if (z + 1 < bz) add(b + bx * by);
        }
        for (auto &e : local) {
            const double area = 4.0 * static_cast<double>(e.second);  // 2x2 cells a face
            edges.push_back({t, e.first, area});
            edges.push_back({e.first, t, area});
        }
    }
    return Graph::from_edges(ntasks, edges);
}

Graph workload_umt(int ntasks, uint64_t seed, int points_per_task, int k) {
    if (ntasks < 1) throw Error("umt: number of tasks must be positive, got " + std::to_string(ntasks));
    if (points_per_task < 1)
        throw Error("umt: points per task must be positive, got " + std::to_string(points_per_task));
    if (k < 1) throw Error("umt: k (nearest neighbours) must be positive, got " + std::to_string(k));
    const int64_t n64 = static_cast<int64_t>(ntasks) * points_per_task;
    if (n64 > (int64_t(1) << 28)) throw Error("umt: mesh of " + std::to_string(n64) + " points is too large");
    const int n = static_cast<int>(n64);
    if (ntasks == 1) return Graph::from_edges(1, {});
    k = std::min(k, n - 1);
    Rng rng(seed);
    std::vector<float> xyz(static_cast<size_t>(n) * 3);
    for (auto &v : xyz) v = static_cast<float>(rng.uniform());
    std::vector<uint64_t> pairs;
    knn_pairs(xyz, k, pairs);
    std::vector<float>().swap(xyz);
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    // Mesh CSR (both directions) for METIS.
    std::vector<int64_t> xadj(static_cast<size_t>(n) + 1, 0);
    for (uint64_t p : pairs) {
        ++xadj[p / static_cast<uint64_t>(n) + 1];
        ++xadj[p % static_cast<uint64_t>(n) + 1];
    }
    for (int v = 0; v < n; ++v) xadj[v + 1] += xadj[v];
    std::vector<int> adj(static_cast<size_t>(xadj[n]));
    {
        std::vector<int64_t> fill(xadj.begin(), xadj.end() - 1);
        for (uint64_t p : pairs) {
            const int a = static_cast<int>(p / static_cast<uint64_t>(n));
            const int b = static_cast<int>(p % static_cast<uint64_t>(n));
            adj[fill[a]++] = b;
            adj[fill[b]++] = a;
        }
    }
    const std::vector<int> part = detail::partition_csr(n, xadj, adj, {}, ntasks, seed, {});
    std::vector<int64_t>().swap(xadj);
    std::vector<int>().swap(adj);
    // Task graph: one unit per cut mesh edge, both directions.
    std::vector<uint64_t> cut;
    for (uint64_t p : pairs) {
        int a = part[p / static_cast<uint64_t>(n)];
        int b = part[p % static_cast<uint64_t>(n)];
        if (a == b) continue;
        if (a > b) std::swap(a, b);
        cut.push_back(static_cast<uint64_t>(a) * static_cast<uint64_t>(ntasks) + b);
    }
    std::vector<uint64_t>().swap(pairs);
    return graph_from_pairs(ntasks, cut, 1.0);
}

Graph make_workload(const std::string &name, int ntasks, const std::vector<int> &grid_dims,
                    uint64_t seed) {
    if (name == "cubic1" || name == "cubic2") {
        check_dims(name.c_str(), grid_dims);
        if (product(grid_dims) != ntasks)
            throw Error("workload '" + name + "': " + std::to_string(ntasks) +
                        " tasks do not fill the grid " + dims_text(grid_dims) + " (" +
                        std::to_string(product(grid_dims)) + " points); give as many tasks as grid points");
        return name == "cubic1" ? workload_cubic1(grid_dims) : workload_cubic2(grid_dims);
    }
    if (name == "sage") return workload_sage(ntasks);
    if (name == "umt") return workload_umt(ntasks, seed);
    throw Error("unknown workload '" + name + "' (expected cubic1, cubic2, sage, umt)");
}

std::vector<int> scramble_permutation(int n, uint64_t seed) {
    if (n < 0) throw Error("scramble_permutation: negative size " + std::to_string(n));
    std::vector<int> perm(n);
    for (int i = 0; i < n; ++i) perm[i] = i;
    Rng rng(seed);
    shuffle(perm, rng);
    return perm;
}

} // namespace rankmap

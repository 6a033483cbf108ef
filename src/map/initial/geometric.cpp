// geometric.cpp -- graph-drawing start placement for `auto` on tori and
// meshes (declared in initial.hpp).
//
// The task graphs of unstructured meshes (METIS parts of a 3-D domain)
// are geometric: parts that touch are near each other in space.  A placement that keeps one global orientation -- the domain laid
// onto the machine box the way a recursive coordinate bisection would lay
// the parts' centroids -- has far fewer long edges than the recursive graph
// co-bisection (cobisection.cpp), whose cuts at each level are oriented
// independently, and annealing from greedy or co-bisection starts does not
// find that global layout.  The graph carries no coordinates, so this file
// draws it first:
//
//   1. Distances: Dijkstra from k pivots chosen farthest-first
//      (GeometricContext::pivots), edge length min(max_edge_length, mean
//      weight / w) in the symmetrized graph: a heavy edge (a large shared
//      face) is short.
//   2. Pivot MDS (Brandes and Pich, "Eigensolver methods for progressive
//      multidimensional scaling of large data", 2006): double-centred squared
//      distances C (N x k), the top d eigenvectors of C^T C by subspace
//      iteration, coordinates C v.  d = number of machine dimensions with
//      extent > 1.
//   3. Sparse stress majorization: majorize_rounds Jacobi rounds of the
//      SMACOF update over the pivot terms (target the pivot distance, weight
//      1/d^2) and the graph edges (target the edge length), which
//      straightens the drawing where classical scaling bends it.
//   4. Orientation: a drawing is defined up to a rotation, the machine's axes
//      are not.  For the drawing turned to align a box-shaped domain with
//      the axes (Givens rotations to a minimum of the summed 4th powers of
//      the coordinates) and for T - 1 random rotations of it, a
//      recursive coordinate bisection onto the machine box (split the longest
//      extent, tasks ordered by the matching coordinate, counts in
//      proportion to the nodes, so each node ends with lo..hi tasks); the
//      lowest F is returned.  T = GeometricContext::rotations.
//
// The result is a start for the cold annealing chain of `auto` (it keeps the
// global layout and repairs the local one), not a mapping on its own.
// Deterministic for a seed (the rotations); empty, with the reason, for
// topologies without coordinates (trees, distance files) or on a deadline.
//
// Cost: O(k E log N) for the distances, O(N k^2) for C^T C, O(rounds N (k +
// degree) d) for the majorization, O(T (N log N + E)) for the orientations
// (a linear-time selection at each of the log N bisection levels); memory
// O(N k) floats (the pivot distances).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "map/initial/initial.hpp"

namespace rankmap {

namespace {

using Coords = std::vector<std::vector<double>>;  // [axis][task]

// Length of each edge (CSR order) in the drawing: mean weight / weight, at
// most `cap` (a heavy edge, a large shared face, is short).  One model for
// the pivot distances and the majorization targets.
std::vector<double> edge_lengths(const Graph &g, double cap) {
    double mean_w = 0;
    for (double w : g.weights()) mean_w += w;
    mean_w /= std::max<int64_t>(1, g.nedges());
    std::vector<double> len(static_cast<size_t>(g.nedges()));
    for (int64_t e = 0; e < g.nedges(); ++e) {
        const double w = g.weight(e);
        len[static_cast<size_t>(e)] = w > 0 ? std::min(cap, mean_w / w) : cap;
    }
    return len;
}

// Indexed 4-ary min-heap of tasks keyed by their distance (a task is in it
// at most once; update() inserts it or moves it up after its distance
// fell).  Ties go to the lower task, though Dijkstra's distances do not
// depend on the order of equal keys.
class DistanceHeap {
public:
    explicit DistanceHeap(const std::vector<double> &dist) : key_(dist), pos_(dist.size(), -1) {}
    bool empty() const { return heap_.empty(); }
    void update(int v) {
        int i = pos_[v];
        if (i < 0) {
            i = static_cast<int>(heap_.size());
            heap_.push_back(v);
        }
        up(i);
    }
    int pop() {
        const int top = heap_[0];
        pos_[top] = -1;
        const int last = heap_.back();
        heap_.pop_back();
        if (!heap_.empty()) {
            heap_[0] = last;
            down(0);
        }
        return top;
    }

private:
    bool before(int a, int b) const { return key_[a] < key_[b] || (key_[a] == key_[b] && a < b); }
    void place(int i, int v) {
        heap_[i] = v;
        pos_[v] = i;
    }
    void up(int i) {
        const int v = heap_[i];
        while (i > 0) {
            const int parent = (i - 1) / 4;
            if (!before(v, heap_[parent])) break;
            place(i, heap_[parent]);
            i = parent;
        }
        place(i, v);
    }
    void down(int i) {
        const int v = heap_[i], n = static_cast<int>(heap_.size());
        for (;;) {
            const int first = 4 * i + 1;
            if (first >= n) break;
            int best = first;
            for (int c = first + 1; c < std::min(first + 4, n); ++c)
                if (before(heap_[c], heap_[best])) best = c;
            if (!before(heap_[best], v)) break;
            place(i, heap_[best]);
            i = best;
        }
        place(i, v);
    }
    const std::vector<double> &key_;
    std::vector<int> pos_, heap_;
};

// Shortest-path distances from each pivot (row a of D, N entries), pivots
// chosen farthest-first starting at task 0.
std::vector<int> pivot_distances(const Graph &g, const std::vector<double> &len, int k, std::vector<float> &D,
                                 const Deadline &dl) {
    const int n = g.n();
    const int64_t *xadj = g.xadj().data();
    const int *adj = g.adj().data();
    D.assign(static_cast<size_t>(k) * n, 0.0f);
    std::vector<double> dist(n), mind(n, std::numeric_limits<double>::infinity());
    std::vector<int> pivots;
    DistanceHeap heap(dist);
    int piv = 0;
    for (int a = 0; a < k; ++a) {
        if (dl.expired()) {  // fewer pivots (the caller declines below d + 1)
            k = a;
            break;
        }
        pivots.push_back(piv);
        std::fill(dist.begin(), dist.end(), std::numeric_limits<double>::infinity());
        dist[piv] = 0;
        heap.update(piv);
        while (!heap.empty()) {
            const int v = heap.pop();
            const double dv = dist[v];
            for (int64_t e = xadj[v]; e < xadj[v + 1]; ++e) {
                const int u = adj[e];
                const double du = dv + len[static_cast<size_t>(e)];
                if (du < dist[u]) {
                    dist[u] = du;
                    heap.update(u);
                }
            }
        }
        // Unreached tasks (a disconnected graph) sit just beyond the farthest.
        double far = 0;
        for (double d : dist)
            if (std::isfinite(d)) far = std::max(far, d);
        float *row = &D[static_cast<size_t>(a) * n];
        for (int v = 0; v < n; ++v) {
            const double d = std::isfinite(dist[v]) ? dist[v] : far + 1;
            row[v] = static_cast<float>(d);
            mind[v] = std::min(mind[v], d);
        }
        piv = static_cast<int>(std::max_element(mind.begin(), mind.end()) - mind.begin());
        if (mind[piv] <= 0) {  // every task is a pivot already
            k = a + 1;
            break;
        }
    }
    D.resize(static_cast<size_t>(k) * n);
    return pivots;
}

void orthonormalize(Coords &V) {
    for (size_t a = 0; a < V.size(); ++a) {
        for (size_t b = 0; b < a; ++b) {
            double dot = 0;
            for (size_t i = 0; i < V[a].size(); ++i) dot += V[a][i] * V[b][i];
            for (size_t i = 0; i < V[a].size(); ++i) V[a][i] -= dot * V[b][i];
        }
        double nn = 0;
        for (double x : V[a]) nn += x * x;
        nn = std::sqrt(nn);
        if (nn < 1e-300) continue;
        for (double &x : V[a]) x /= nn;
    }
}

// Pivot MDS coordinates (d axes) from the pivot distance rows.  The
// double-centred squared distances C = -1/2 J D^2 J (N x k) are computed on
// the fly from D, not stored.
Coords pivot_mds(const std::vector<float> &D, int n, int k, int d, int iterations, Rng &rng) {
    std::vector<double> row_mean(n, 0), col_mean(k, 0);
    double grand = 0;
    auto sq = [&](int a, int v) {
        const double x = D[static_cast<size_t>(a) * n + v];
        return x * x;
    };
    for (int a = 0; a < k; ++a)
        for (int v = 0; v < n; ++v) {
            const double s = sq(a, v);
            row_mean[v] += s / k;
            col_mean[a] += s / n;
            grand += s / (static_cast<double>(n) * k);
        }
    auto column = [&](int a, double *c) {
        for (int v = 0; v < n; ++v) c[v] = -0.5 * (sq(a, v) - row_mean[v] - col_mean[a] + grand);
    };
    // M = C^T C (k x k); its top d eigenvectors by subspace iteration.
    // Columns a are taken kBlock at a time, so each column b is computed
    // about k / kBlock times instead of k.
    constexpr int kBlock = 8;
    std::vector<double> M(static_cast<size_t>(k) * k);
    std::vector<double> block(static_cast<size_t>(kBlock) * n), ca(n), cb(n);
    for (int a0 = 0; a0 < k; a0 += kBlock) {
        const int a1 = std::min(k, a0 + kBlock);
        for (int a = a0; a < a1; ++a) column(a, &block[static_cast<size_t>(a - a0) * n]);
        for (int b = 0; b < a1; ++b) {
            column(b, cb.data());
            for (int a = std::max(a0, b); a < a1; ++a) {
                const double *c = &block[static_cast<size_t>(a - a0) * n];
                double s = 0;
                for (int v = 0; v < n; ++v) s += c[v] * cb[v];
                M[static_cast<size_t>(a) * k + b] = M[static_cast<size_t>(b) * k + a] = s;
            }
        }
    }
    Coords V(d, std::vector<double>(k));
    for (auto &col : V)
        for (double &x : col) x = rng.uniform() - 0.5;
    orthonormalize(V);
    std::vector<double> y(k);
    for (int it = 0; it < iterations; ++it) {
        for (auto &col : V) {
            for (int a = 0; a < k; ++a) {
                double s = 0;
                for (int b = 0; b < k; ++b) s += M[static_cast<size_t>(a) * k + b] * col[b];
                y[a] = s;
            }
            col = y;
        }
        orthonormalize(V);
    }
    Coords X(d, std::vector<double>(n, 0));
    for (int a = 0; a < k; ++a) {
        column(a, ca.data());
        for (int e = 0; e < d; ++e) {
            const double va = V[e][a];
            for (int v = 0; v < n; ++v) X[e][v] += va * ca[v];
        }
    }
    return X;
}

// Sparse stress majorization (localized SMACOF, Jacobi rounds).
// Takes the pivot distances D (pivot-major) and frees them.
void majorize(const Graph &g, const std::vector<double> &elen, std::vector<float> &D, const std::vector<int> &pivots,
              Coords &X, const GeometricContext &c, const Deadline &dl) {
    const int n = g.n(), k = static_cast<int>(pivots.size()), d = static_cast<int>(X.size());
    const int rounds = c.majorize_rounds;
    auto dist_xy = [&](int v, int j) {
        double s = 0;
        for (int e = 0; e < d; ++e) s += (X[e][v] - X[e][j]) * (X[e][v] - X[e][j]);
        return std::sqrt(s);
    };
    // Scale the drawing to the distances first (least squares over the
    // pivot terms with weights 1/d^2).
    double num = 0, den = 0;
    for (int a = 0; a < k; ++a)
        for (int v = 0; v < n; ++v) {
            const double t = D[static_cast<size_t>(a) * n + v];
            if (v == pivots[a] || t <= 0) continue;
            const double x = dist_xy(v, pivots[a]);
            num += x / t;
            den += x * x / (t * t);
        }
    if (den > 0 && num > 0)
        for (auto &ax : X)
            for (double &x : ax) x *= num / den;
    // The rounds read, per task, its pivot distances and coordinates
    // contiguously: distances transposed to task-major, coordinates
    // interleaved (x[v * d + axis]).
    std::vector<float> Dt(static_cast<size_t>(n) * k);
    for (int a = 0; a < k; ++a)
        for (int v = 0; v < n; ++v) Dt[static_cast<size_t>(v) * k + a] = D[static_cast<size_t>(a) * n + v];
    std::vector<float>().swap(D);
    std::vector<double> x(static_cast<size_t>(n) * d), y(x.size());
    for (int e = 0; e < d; ++e)
        for (int v = 0; v < n; ++v) x[static_cast<size_t>(v) * d + e] = X[e][v];
    std::vector<double> diff(d);
    for (int r = 0; r < rounds && !dl.expired(); ++r) {
        for (int v = 0; v < n; ++v) {
            const double *xv = &x[static_cast<size_t>(v) * d];
            double *yv = &y[static_cast<size_t>(v) * d];
            double wsum = 0;
            for (int e = 0; e < d; ++e) yv[e] = 0;
            auto term = [&](int j, double target, double w) {
                const double *xj = &x[static_cast<size_t>(j) * d];
                double s = 0;
                for (int e = 0; e < d; ++e) {
                    diff[e] = xv[e] - xj[e];
                    s += diff[e] * diff[e];
                }
                s = std::max(std::sqrt(s), 1e-9);
                for (int e = 0; e < d; ++e) yv[e] += w * (xj[e] + target * diff[e] / s);
                wsum += w;
            };
            const float *dv = &Dt[static_cast<size_t>(v) * k];
            for (int a = 0; a < k; ++a) {
                const double t = dv[a];
                if (pivots[a] != v && t > 0) term(pivots[a], t, 1.0 / (t * t));
            }
            for (int64_t e = g.begin(v); e < g.end(v); ++e) {
                const double len = elen[static_cast<size_t>(e)];
                if (g.target(e) != v) term(g.target(e), len, 1.0 / (len * len));
            }
            if (wsum > 0)
                for (int e = 0; e < d; ++e) yv[e] /= wsum;
            else
                for (int e = 0; e < d; ++e) yv[e] = xv[e];
        }
        std::swap(x, y);
    }
    for (int e = 0; e < d; ++e)
        for (int v = 0; v < n; ++v) X[e][v] = x[static_cast<size_t>(v) * d + e];
}

// Recursive coordinate bisection of the tasks onto the machine box: the
// longest extent of a box is halved, its tasks ordered by the coordinate
// of that machine dimension's axis (axis_of[dim]) and split in proportion
// to the nodes.  A box of one node takes all its tasks.
void coordinate_bisection(const Topology &topo, const Coords &X, const std::vector<int> &axis_of,
                          std::vector<int> &order, std::vector<int> &place) {
    const int D = topo.ndims();
    struct Box {
        std::vector<int> lo, hi;  // [lo, hi) per dimension
        size_t b, e;              // tasks order[b, e)
    };
    std::vector<Box> stack;
    stack.push_back({std::vector<int>(D, 0), topo.dims(), 0, order.size()});
    while (!stack.empty()) {
        Box box = std::move(stack.back());
        stack.pop_back();
        int dim = -1, ext = 1;
        for (int k = 0; k < D; ++k)
            if (box.hi[k] - box.lo[k] > ext) {
                ext = box.hi[k] - box.lo[k];
                dim = k;
            }
        if (dim < 0) {
            const int node = topo.node_at(box.lo.data());
            for (size_t i = box.b; i < box.e; ++i) place[order[i]] = node;
            continue;
        }
        const std::vector<double> &key = X[axis_of[dim]];
        const int half = ext / 2;
        // floor(n * half / ext) keeps every node between lo and hi tasks
        // when the box as a whole is (see cost.hpp, equation 3).
        const size_t cut = box.b + (box.e - box.b) * static_cast<size_t>(half) / static_cast<size_t>(ext);
        // Only which tasks fall below the cut matters (each half is split
        // again, or its node takes all its tasks): a selection in the
        // strict order (coordinate, then task), not a sort.
        if (cut > box.b && cut < box.e)
            std::nth_element(order.begin() + static_cast<std::ptrdiff_t>(box.b),
                             order.begin() + static_cast<std::ptrdiff_t>(cut),
                             order.begin() + static_cast<std::ptrdiff_t>(box.e),
                             [&](int a, int b) { return key[a] < key[b] || (key[a] == key[b] && a < b); });
        Box a{box.lo, box.hi, box.b, cut}, b{box.lo, box.hi, cut, box.e};
        a.hi[dim] = box.lo[dim] + half;
        b.lo[dim] = box.lo[dim] + half;
        stack.push_back(std::move(b));
        stack.push_back(std::move(a));
    }
}

Coords rotated(const Coords &X, Rng &rng) {
    const int d = static_cast<int>(X.size());
    Coords R(d, std::vector<double>(d));
    for (auto &r : R)
        for (double &x : r) x = rng.uniform() - 0.5;
    orthonormalize(R);
    const size_t n = X.empty() ? 0 : X[0].size();
    Coords Y(d, std::vector<double>(n, 0));
    for (int a = 0; a < d; ++a)
        for (int i = 0; i < d; ++i)
            for (size_t v = 0; v < n; ++v) Y[a][v] += R[a][i] * X[i][v];
    return Y;
}

// The drawing turned, by Givens rotations in each pair of axes, to a local
// minimum of sum_v sum_a x_a(v)^4: for a box-shaped drawing (a mesh, a
// domain cut into parts) that aligns its edges with the axes.
Coords axis_aligned(Coords X, const GeometricContext &gc) {
    const int d = static_cast<int>(X.size());
    const size_t n = X.empty() ? 0 : X[0].size();
    for (auto &ax : X) {
        double mean = 0;
        for (double x : ax) mean += x;
        mean /= std::max<size_t>(1, n);
        for (double &x : ax) x -= mean;
    }
    const int kAngles = gc.align_angles;
    const double pi = std::acos(-1.0);
    for (int sweep = 0; sweep < gc.align_sweeps; ++sweep)
        for (int a = 0; a < d; ++a)
            for (int b = a + 1; b < d; ++b) {
                double best = 0, bestv = 0;
                for (int i = 0; i < kAngles; ++i) {
                    const double th = 0.5 * pi * i / kAngles, c = std::cos(th), s = std::sin(th);
                    double v4 = 0;
                    for (size_t v = 0; v < n; ++v) {
                        const double u = c * X[a][v] - s * X[b][v], w = s * X[a][v] + c * X[b][v];
                        v4 += u * u * u * u + w * w * w * w;
                    }
                    if (i == 0 || v4 < bestv) {
                        bestv = v4;
                        best = th;
                    }
                }
                const double c = std::cos(best), s = std::sin(best);
                for (size_t v = 0; v < n; ++v) {
                    const double u = c * X[a][v] - s * X[b][v], w = s * X[a][v] + c * X[b][v];
                    X[a][v] = u;
                    X[b][v] = w;
                }
            }
    return X;
}

} // namespace

std::vector<int> geometric_map(const Problem &p, uint64_t seed, std::string *why) {
    auto fail = [&](const char *reason) {
        if (why) *why = reason;
        return std::vector<int>();
    };
    const Topology &topo = p.topo;
    const int N = p.sym.n();
    if (topo.kind() != TopologyKind::Torus) return fail("no machine coordinates");
    std::vector<int> axis_of(topo.ndims(), 0);
    int d = 0;
    for (int k = 0; k < topo.ndims(); ++k)
        if (topo.dims()[k] > 1) axis_of[k] = d++;
    // Effort by size (GeometricContext, tuning.hpp).
    const GeometricContext c = geometric_preset(N);
    if (d == 0 || N < c.min_tasks) return fail("too small");
    if (p.sym.nedges() == 0) return fail("no communication");
    Rng rng = rng_stream(seed, 0x6e0, StreamMix::Lcg);
    const int k = std::min(N, c.pivots);
    const int trials = c.rotations;
    std::vector<float> D;
    const std::vector<double> len = edge_lengths(p.sym, c.max_edge_length);
    const std::vector<int> pivots = pivot_distances(p.sym, len, k, D, p.deadline);
    if (p.deadline.expired()) return fail("deadline");
    if (static_cast<int>(pivots.size()) <= d) return fail("too few distinct distances to draw");
    Coords X = pivot_mds(D, N, static_cast<int>(pivots.size()), d, c.mds_iterations, rng);
    majorize(p.sym, len, D, pivots, X, c, p.deadline);
    if (p.deadline.expired()) return fail("deadline");
    std::vector<int> best, place(N, -1), order(N);
    double bestF = 0;
    for (int t = 0; t < trials && (t == 0 || !p.deadline.expired()); ++t) {
        const Coords Y = t == 0 ? axis_aligned(X, c) : rotated(X, rng);
        std::iota(order.begin(), order.end(), 0);
        coordinate_bisection(topo, Y, axis_of, order, place);
        const double f = free_energy(p.g, topo, place);
        if (best.empty() || f < bestF) {
            best = place;
            bestF = f;
        }
    }
    return best;
}

} // namespace rankmap

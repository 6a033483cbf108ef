// cartesian.cpp -- the Cartesian mapper (Algorithm::Cartesian) and
// best_grid_embedding: the best structured embedding of a Cartesian task
// grid onto the machine (Smith and Bode, BG/L node mappings: stock
// permutations, Gray-code, unfold and block maps; Jagode et al., FFT task
// placement: small-cube maps; Bhanot et al., BG/L task layout: judged by
// the free energy F).
//
// Candidates, in this order, each judged by F on the communication graph
// after translating grid points to tasks:
//   1. direct maps: one digit per grid dimension (every permutation of the
//      dimensions up to machine symmetry; a sub-box when N < P),
//   2. the stock permutations and unfold walks of the row-major rank order
//      (always valid: the fallback for any shape and task count),
//   3. two digits per grid dimension: block / fold over the node slots,
//      unfold of a grid dimension over two torus dimensions,
//   4. Jagode et al.'s small-cube maps of 2-D grids, Smith and Bode's
//      Gray-code maps,
//   5. three digits per grid dimension.
// The search stops early when F reaches the lower bound F_min, after a
// work budget (CartContext: edge evaluations, turned into a bounded number
// of candidates) or at the problem's deadline.
// Cost: O(candidates * (N + E)), never O(N^2).
#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_set>

#include "common/error.hpp"
#include "map/cartesian/embed.hpp"
#include "map/cartesian/grid.hpp"
#include "map/tuning.hpp"

namespace rankmap {

namespace {

std::string shape(const std::vector<int> &dims) {
    std::string s;
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
    return s;
}

uint64_t hash_nodes(const std::vector<int> &v) {
    uint64_t h = 1469598103934665603ULL;
    for (int x : v) {
        h ^= static_cast<uint64_t>(static_cast<uint32_t>(x));
        h *= 1099511628211ULL;
    }
    return h;
}

// Throws rankmap::Error unless the grid has N points and task_at (when
// given) is a permutation of the tasks.
void check_grid(const Problem &p, const CartGrid &grid, const std::vector<int> *task_at) {
    const int N = p.g.n();
    if (grid.dims.empty()) throw Error("Cartesian grid: no dimensions given");
    if (!grid.periods.empty() && grid.periods.size() != grid.dims.size())
        throw Error("Cartesian grid " + shape(grid.dims) + ": " + std::to_string(grid.periods.size()) +
                    " periods for " + std::to_string(grid.dims.size()) + " dimensions");
    int64_t npts = 1;
    for (int d : grid.dims) {
        if (d < 1) throw Error("Cartesian grid " + shape(grid.dims) + ": dimensions must be >= 1");
        npts *= d;
        if (npts > (int64_t{1} << 31)) break;
    }
    if (npts != N)
        throw Error("Cartesian grid " + shape(grid.dims) + " has " + std::to_string(npts) +
                    " points but the graph has " + std::to_string(N) + " tasks");
    if (!task_at) return;
    if (static_cast<int>(task_at->size()) != N)
        throw Error("Cartesian grid " + shape(grid.dims) + ": task_at has the wrong size");
    std::vector<char> seen(N, 0);
    for (int t : *task_at) {
        if (t < 0 || t >= N || seen[t])
            throw Error("Cartesian grid " + shape(grid.dims) + ": task_at is not a permutation");
        seen[t] = 1;
    }
}

// The running search: every candidate judged by F, the best kept, the
// search stopped at F_min, after max_evals candidates or at the deadline.
struct EmbeddingSearch {
    const Problem &p;
    const std::vector<int> *task_at;
    long max_evals;
    double tol;
    long evals = 0;
    bool stop = false;
    std::vector<int> best, place, count;
    double bestF = 0;
    std::string best_name;
    std::unordered_set<uint64_t> tried;

    EmbeddingSearch(const Problem &pr, const std::vector<int> *at, const CartContext &c)
        : p(pr), task_at(at), tol(1e-9 * std::max(1.0, pr.f_min)), place(pr.g.n()), count(pr.topo.size()) {
        const double work = static_cast<double>(pr.g.n()) + static_cast<double>(pr.g.nedges());
        max_evals =
            static_cast<long>(std::clamp(c.work_budget / std::max(1.0, work), c.min_candidates, c.max_candidates));
    }

    // One candidate (node of every grid point); false once the search stops.
    bool visit(const std::vector<int> &nodes, const std::string &name) {
        const int N = p.g.n(), P = p.topo.size();
        if (stop) return false;
        if (static_cast<int>(nodes.size()) != N) return true;
        std::fill(count.begin(), count.end(), 0);
        for (int v : nodes) {
            if (v < 0 || v >= P || ++count[v] > p.cap.hi) return true;
        }
        for (int c : count)
            if (c < p.cap.lo) return true;
        if (!tried.insert(hash_nodes(nodes)).second) return true;
        for (int g = 0; g < N; ++g) place[task_at ? (*task_at)[g] : g] = nodes[g];
        const double F = free_energy(p.g, p.topo, place);
        ++evals;
        if (best.empty() || F < bestF - tol) {
            best = nodes;
            bestF = F;
            best_name = name;
        }
        if (bestF <= p.f_min + tol || evals >= max_evals || p.deadline.expired()) stop = true;
        return !stop;
    }
};

} // namespace

std::vector<int> best_grid_embedding(const Problem &p, const CartGrid &grid,
                                     const std::vector<int> *task_at) {
    const int N = p.g.n();
    const int P = p.topo.size();
    check_grid(p, grid, task_at);
    if (N == 0) return {};
    if (static_cast<int64_t>(p.cap.hi) * P < N)
        throw Error("topology " + p.topo.describe() + " cannot hold " + std::to_string(N) + " tasks",
                    ErrorKind::TooSmall);

    // Grid dimensions of extent 1 carry no digit: drop them (row-major
    // point numbering is unchanged).
    std::vector<int> gdims;
    for (int d : grid.dims)
        if (d > 1) gdims.push_back(d);
    const cart::Target target = cart::make_target(p.topo, N, p.cap);

    const CartContext cc = cart_preset();
    EmbeddingSearch s(p, task_at, cc);
    cart::Visit visit = [&s](const std::vector<int> &nodes, const std::string &name) { return s.visit(nodes, name); };
    cart::factor_family(target, gdims, 1, cc.factor_steps, visit) &&
        cart::stock_family(p.topo, N, p.cap, target.cls, cc.stock_permutations, visit) &&
        cart::factor_family(target, gdims, 2, cc.factor_steps, visit) &&
        cart::small_cube_family(target, gdims, visit) && cart::gray_family(target, gdims, visit) &&
        cart::factor_family(target, gdims, 3, cc.factor_steps, visit);

    if (s.best.empty())  // every candidate failed the capacity check (cannot happen
                         // for the stock family); keep the contract anyway
        throw Error("Cartesian grid " + shape(grid.dims) + ": no valid embedding on " + p.topo.describe(),
                    ErrorKind::Internal);
    if (p.progress)
        p.progress("cart: " + s.best_name + ", F = " + std::to_string(s.bestF) + " (F_min " +
                   std::to_string(p.f_min) + ", " + std::to_string(s.evals) + " candidates)");
    return s.best;
}

std::vector<int> map_cartesian(const Problem &p) {
    if (!p.grid)
        throw Error("algorithm 'cart' needs a Cartesian task grid (give --cart DIMS[:PERIODS] on the "
                    "command line, cart_ndims/cart_dims in rankmap_options, or use MPI_Cart_create; "
                    "'auto' also recognises grids in the graph)");
    return best_grid_embedding(p, *p.grid, nullptr);
}

} // namespace rankmap

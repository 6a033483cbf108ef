// grid_blocks.cpp -- node-aware structured map of a Cartesian task grid on a
// tree (tree_grid_blocks, hier.hpp): the block maps of Smith and Bode (BG/L
// node mappings), done the way a node/socket decomposition of a grid is done
// by hand (Gropp's MPI_Dims_create-on-nodes idea): first cut the grid into one
// box per node with the least surface, then every node box into one box per
// socket, and so on down to the cores.
//
// At tier k every box of tier k-1 (the whole grid at k = 0) has the same
// extent E and is cut into arity[k] equal boxes: counts n_i per grid
// dimension with n_i | E_i and prod n_i = arity[k].  Every such count
// vector is enumerated.  The traffic a choice sends across tier k depends
// only on the choices at tiers 0..k, and is counted on the task graph
// itself, so periodic dimensions (a wrap-around edge crosses a box
// boundary unless the box spans the dimension), non-periodic ones and
// weighted or extra edges are all counted right.  The choice at tier k is
// the one with the least tier-k traffic; ties are broken by the free energy
// of the greedy completion below (each lower tier taking its least-traffic
// shape).  Tier 0 is therefore the exact minimum of the inter-node traffic
// over all equal-box tilings of the grid.
//
// Not possible (empty result, reason in *why): a non-tree topology, tasks
// per leaf not uniform (N not a multiple of the leaf count), or a tier
// whose arity cannot tile the box (e.g. 3 sockets for a 4x4 box).  The
// callers then use the partition-based multisection.
//
// Cost: O(sum over tiers of (ties x candidates) x (N + E)); candidates are
// the ordered factorisations of a tier's arity over the grid dimensions
// (45 for 256 over three dimensions).
#include <cmath>
#include <numeric>

#include "common/error.hpp"
#include "map/hier/hier.hpp"
#include "topology/tree.hpp"  // cross-module private include: tier costs (see hier.cpp)

namespace rankmap {

namespace {

std::string shape_text(const std::vector<int> &v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "x" : "") + std::to_string(v[i]);
    return s;
}

// Every count vector n with n_i | E_i and prod n_i == a.
void counts_for(const std::vector<int> &E, int a, size_t i, std::vector<int> &cur,
                std::vector<std::vector<int>> &out) {
    if (i == E.size()) {
        if (a == 1) out.push_back(cur);
        return;
    }
    for (int n = 1; n <= E[i] && n <= a; ++n) {
        if (E[i] % n != 0 || a % n != 0) continue;
        cur[i] = n;
        counts_for(E, a / n, i + 1, cur, out);
    }
    cur[i] = 1;
}

struct GridBlocks {
    const Problem &p;
    const TreeTopology &tree;
    std::vector<int> dims;      // grid extents
    std::vector<int> arity, span;
    std::vector<int> task_of;   // task at grid point g
    std::vector<int> point_of;  // grid point of task t
    std::vector<std::vector<int>> coord;  // coord[i][g]
    int N = 0;

    // Entity id at depth d+1 (children of tier d) for every point, given
    // the per-tier counts of tiers 0..d.
    std::vector<int64_t> ids(const std::vector<std::vector<int>> &counts) const {
        std::vector<int64_t> id(N, 0);
        const int nd = static_cast<int>(dims.size());
        std::vector<int> E = dims;
        for (const auto &n : counts) {
            std::vector<int> b(nd);
            for (int i = 0; i < nd; ++i) b[i] = E[i] / n[i];
            int64_t a = 1;
            for (int x : n) a *= x;
            for (int g = 0; g < N; ++g) {
                int64_t c = 0;
                for (int i = 0; i < nd; ++i) c = c * n[i] + (coord[i][g] % E[i]) / b[i];
                id[g] = id[g] * a + c;
            }
            E = b;
        }
        return id;
    }

    // Traffic between points with equal `parent` ids but different `child` ids.
    double crossing(const std::vector<int64_t> &parent, const std::vector<int64_t> &child) const {
        const Graph &s = p.sym;
        double c = 0;
        for (int t = 0; t < N; ++t) {
            const int g = point_of[t];
            for (int64_t e = s.begin(t); e < s.end(t); ++e) {
                const int j = s.target(e);
                if (j <= t) continue;
                const int h = point_of[j];
                if (parent[g] == parent[h] && child[g] != child[h]) c += s.weight(e);
            }
        }
        return c;
    }

    std::vector<int> box_after(const std::vector<std::vector<int>> &counts) const {
        std::vector<int> E = dims;
        for (const auto &n : counts)
            for (size_t i = 0; i < E.size(); ++i) E[i] /= n[i];
        return E;
    }

    // Count vectors that cut the box after `counts` into the next tier's
    // arity of equal boxes; empty, with *why, when there is none.
    std::vector<std::vector<int>> tier_candidates(const std::vector<std::vector<int>> &counts, std::string *why) const {
        const int d = static_cast<int>(counts.size());
        const std::vector<int> E = box_after(counts);
        std::vector<std::vector<int>> cands;
        std::vector<int> cur(dims.size(), 1);
        counts_for(E, arity[d], 0, cur, cands);
        if (cands.empty() && why)
            *why = std::to_string(arity[d]) + " entities of tier " + std::to_string(d + 1) + " cannot tile a " +
                   shape_text(E) + " box in equal boxes";
        return cands;
    }

    // Greedy completion from `counts` (tiers 0..counts.size()-1 fixed):
    // each further tier takes its least-traffic count vector.  Returns
    // false (and *why) if a tier cannot be tiled.
    bool complete(std::vector<std::vector<int>> &counts, std::string *why) const {
        const int L = static_cast<int>(arity.size());
        std::vector<int64_t> parent = ids(counts);
        while (static_cast<int>(counts.size()) < L) {
            const std::vector<std::vector<int>> cands = tier_candidates(counts, why);
            if (cands.empty()) return false;
            double best = -1;
            std::vector<int> pick;
            std::vector<int64_t> pick_ids;
            for (const auto &c : cands) {
                counts.push_back(c);
                std::vector<int64_t> child = ids(counts);
                counts.pop_back();
                const double x = crossing(parent, child);
                if (best < 0 || x < best - 1e-9 * std::max(1.0, best)) {
                    best = x;
                    pick = c;
                    pick_ids = std::move(child);
                }
            }
            counts.push_back(pick);
            parent = std::move(pick_ids);
        }
        return true;
    }

    std::vector<int> nodes_of(const std::vector<std::vector<int>> &counts) const {
        std::vector<int> node(N, 0);
        const int nd = static_cast<int>(dims.size());
        std::vector<int> E = dims;
        for (size_t d = 0; d < counts.size(); ++d) {
            const auto &n = counts[d];
            std::vector<int> b(nd);
            for (int i = 0; i < nd; ++i) b[i] = E[i] / n[i];
            for (int g = 0; g < N; ++g) {
                int c = 0;
                for (int i = 0; i < nd; ++i) c = c * n[i] + (coord[i][g] % E[i]) / b[i];
                node[g] += c * span[d];
            }
            E = b;
        }
        return node;
    }

    // Spans, the task <-> point translation and the point coordinates;
    // returns an error text when task_at is not a permutation.
    std::string init(const std::vector<int> *task_at) {
        const int L = static_cast<int>(arity.size());
        span.assign(L, 1);
        for (int k = L - 2; k >= 0; --k) span[k] = span[k + 1] * arity[k + 1];
        task_of.resize(N);
        point_of.assign(N, -1);
        for (int g = 0; g < N; ++g) {
            const int t = task_at ? (*task_at)[g] : g;
            if (t < 0 || t >= N || point_of[t] >= 0) return "task_at is not a permutation";
            task_of[g] = t;
            point_of[t] = g;
        }
        const int nd = static_cast<int>(dims.size());
        coord.assign(nd, std::vector<int>(N));
        for (int g = 0; g < N; ++g) {
            int r = g;
            for (int i = nd - 1; i >= 0; --i) {
                coord[i][g] = r % dims[i];
                r /= dims[i];
            }
        }
        return {};
    }

    // The count vector of the next tier after `counts`: least traffic
    // across that tier, ties broken by the energy of the greedy
    // completion.  Empty, with *why, when no candidate tiles the box.
    std::vector<int> pick_tier(const std::vector<std::vector<int>> &counts, std::string *why) const {
        const std::vector<std::vector<int>> cands = tier_candidates(counts, why);
        if (cands.empty()) return {};
        const std::vector<int64_t> parent = ids(counts);
        std::vector<double> cross(cands.size());
        double least = -1;
        std::vector<std::vector<int>> next = counts;
        for (size_t c = 0; c < cands.size(); ++c) {
            next.push_back(cands[c]);
            cross[c] = crossing(parent, ids(next));
            next.pop_back();
            if (least < 0 || cross[c] < least) least = cross[c];
        }
        const double tol = 1e-9 * std::max(1.0, least);
        double bestF = -1;
        std::vector<int> pick;
        std::string reason;
        for (size_t c = 0; c < cands.size(); ++c) {
            if (cross[c] > least + tol) continue;
            std::vector<std::vector<int>> full = counts;
            full.push_back(cands[c]);
            if (!complete(full, &reason)) continue;
            const double f = energy(full);
            if (bestF < 0 || f < bestF - tol) {
                bestF = f;
                pick = cands[c];
            }
        }
        if (pick.empty() && why) *why = reason;
        return pick;
    }

    double energy(const std::vector<std::vector<int>> &counts) const {
        const std::vector<int> node = nodes_of(counts);
        const Graph &s = p.sym;
        double f = 0;
        for (int t = 0; t < N; ++t)
            for (int64_t e = s.begin(t); e < s.end(t); ++e)
                if (s.target(e) > t) f += s.weight(e) * tree.distance(node[point_of[t]], node[point_of[s.target(e)]]);
        return f;
    }
};

// Why the grid cannot be mapped by blocks onto the tree (empty: it can).
std::string grid_mismatch(const Problem &p, const TreeTopology &tree, const CartGrid &grid,
                          const std::vector<int> *task_at) {
    const int N = p.sym.n(), P = tree.size();
    int64_t npts = 1;
    for (int d : grid.dims) {
        if (d < 1) return "grid dimension below 1";
        npts *= d;
        if (npts > (int64_t{1} << 30)) break;
    }
    if (npts != N) return "the grid has " + std::to_string(npts) + " points for " + std::to_string(N) + " tasks";
    if (task_at && static_cast<int>(task_at->size()) != N) return "task_at has the wrong size";
    if (N % P != 0)
        return std::to_string(N) + " tasks on " + std::to_string(P) + " leaves is not a whole number per leaf";
    return {};
}

} // namespace

std::vector<int> tree_grid_blocks(const Problem &p, const CartGrid &grid, const std::vector<int> *task_at,
                                  std::string *why, std::vector<std::string> *shapes) {
    auto fail = [&](const std::string &w) {
        if (why) *why = w;
        return std::vector<int>{};
    };
    const TreeTopology *tree = as_tree(p.topo);
    if (!tree) return fail("the topology is not a tree");
    std::string bad = grid_mismatch(p, *tree, grid, task_at);
    if (!bad.empty()) return fail(bad);
    GridBlocks gb{p, *tree, grid.dims, tree->dims(), {}, {}, {}, {}, p.sym.n()};
    bad = gb.init(task_at);
    if (!bad.empty()) return fail(bad);

    // Tier by tier (pick_tier).
    std::vector<std::vector<int>> counts;
    while (counts.size() < gb.arity.size()) {
        std::vector<int> pick = gb.pick_tier(counts, why);
        if (pick.empty()) return {};
        counts.push_back(std::move(pick));
    }
    if (shapes) {
        shapes->clear();
        for (size_t d = 1; d <= counts.size(); ++d) {
            std::vector<std::vector<int>> pre(counts.begin(), counts.begin() + static_cast<long>(d));
            shapes->push_back(shape_text(gb.box_after(pre)));
        }
    }
    return gb.nodes_of(counts);
}

} // namespace rankmap

// sg_maps.cpp -- the placements of the SimGrid suite that the `rankmap` CLI
// does not write directly (bench/simgrid/run.py calls it).
//
//   sg_maps cart TOPOLOGY NXxNY FAMILY PREFIX
//       Every distinct map of the row-major NX x NY task grid in one of the
//       engine's structured families (src/map/cartesian): FAMILY = gray
//       (the Gray-code embeddings of Smith and Bode, "Performance effects of
//       node mappings on the IBM BlueGene/L machine") or unfold (their stock
//       orders and unfold walks; only the "unfold ..." ones are written).
//       Writes PREFIX-<k>.map and prints "k <F> <name>" per map, F = the
//       hop-count free energy (Bhanot et al., "Optimizing task layout on the
//       Blue Gene/L supercomputer") of the grid's 4-neighbour stencil, sorted
//       by F.
//   sg_maps partition TOPOLOGY GRAPH NODES OUT.map
//       Plain graph partitioning (the "graph partitioning" peer of Chen et
//       al., "MPIPP: an automatic profile-guided parallel process placement
//       toolset for SMP clusters and multiclusters"):
//       METIS splits the symmetrised graph into NODES parts of equal size
//       (src/partition), and part p goes to the p-th group of N/NODES
//       consecutive leaves of the topology (node p of the cluster), whatever
//       the tiers above the node.  Prints the edge cut.
//   sg_maps optimum TOPOLOGY GRAPH UPPER
//       The least free energy F over every placement of GRAPH on a tree
//       TOPOLOGY of at most 24 leaves, one task per leaf: exhaustive
//       branch and bound below UPPER (an F known to be reachable, e.g.
//       rankmap's).  Leaves of one parent are interchangeable, so a task
//       may enter an empty subtree only when every earlier sibling subtree
//       is already in use: each class of equivalent placements is visited
//       once (8x2 cluster, 16 tasks: at most 7e7 classes, 0.1 s with the
//       bound).  Prints "optimum F <value>" and how many complete
//       placements improved the bound.  Exit 1 on larger or non-tree
//       topologies, or when no placement reaches UPPER.
//
// Exit status 0, 1 on errors (message on stderr), 2 on usage errors.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <set>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "cost/cost.hpp"
#include "graph/graph.hpp"
#include "map/tuning.hpp"
#include "map/cartesian/embed.hpp" // private: the structured families, not in the C API
#include "partition/partition.hpp"
#include "topology/mapfile.hpp"
#include "topology/topology.hpp"

using namespace rankmap;

namespace {

int usage() {
    std::fprintf(stderr, "usage: sg_maps cart TOPOLOGY NXxNY gray|unfold PREFIX\n"
                         "       sg_maps partition TOPOLOGY GRAPH NODES OUT.map\n"
                         "       sg_maps optimum TOPOLOGY GRAPH UPPER\n");
    return 2;
}

Graph stencil_graph(int nx, int ny) {
    std::vector<Edge> e;
    for (int i = 0; i < nx; ++i)
        for (int j = 0; j < ny; ++j) {
            int r = i * ny + j;
            if (i + 1 < nx) e.push_back({r, r + ny, 1.0});
            if (j + 1 < ny) e.push_back({r, r + 1, 1.0});
        }
    return Graph::from_edges(nx * ny, e);
}

int cart_maps(const std::string &topo_spec, const std::string &grid, const std::string &family,
              const std::string &prefix) {
    int nx = 0, ny = 0;
    if (std::sscanf(grid.c_str(), "%dx%d", &nx, &ny) != 2 || nx < 1 || ny < 1) {
        std::fprintf(stderr, "sg_maps: grid '%s' must be NXxNY\n", grid.c_str());
        return 2;
    }
    auto topo = parse_topology(topo_spec);
    const int n = nx * ny;
    const Capacity cap = capacity_for(n, topo->size());
    const cart::Target target = cart::make_target(*topo, n, cap);
    const Graph g = stencil_graph(nx, ny);
    struct Cand {
        double F;
        std::string name;
        std::vector<int> place;
    };
    std::vector<Cand> cands;
    std::set<std::vector<int>> seen;
    const std::vector<int> gdims{nx, ny};
    cart::Visit visit = [&](const std::vector<int> &place, const std::string &name) {
        if (family == "unfold" && name.rfind("unfold", 0) != 0) return true;
        if (!seen.insert(place).second) return true;
        cands.push_back({free_energy(g, *topo, place), name, place});
        return true;
    };
    if (family == "gray")
        cart::gray_family(target, gdims, visit);
    else if (family == "unfold")
        cart::stock_family(*topo, n, cap, target.cls, cart_preset().stock_permutations, visit);
    else
        return usage();
    std::stable_sort(cands.begin(), cands.end(), [](const Cand &a, const Cand &b) { return a.F < b.F; });
    for (size_t k = 0; k < cands.size(); ++k) {
        write_mapfile(*topo, prefix + "-" + std::to_string(k) + ".map", cands[k].place);
        std::printf("%zu %.0f %s\n", k, cands[k].F, cands[k].name.c_str());
    }
    if (cands.empty())
        std::fprintf(stderr, "sg_maps: no %s map of %s on %s\n", family.c_str(), grid.c_str(),
                     topo->describe().c_str());
    return cands.empty() ? 1 : 0;
}

int partition(const std::string &topo_spec, const std::string &graph, const std::string &nodes_s,
              const std::string &out) {
    auto topo = parse_topology(topo_spec);
    const Graph g = read_graph(graph);
    int nodes = std::atoi(nodes_s.c_str());
    const int P = topo->size();
    if (nodes < 1 || P % nodes) {
        std::fprintf(stderr, "sg_maps: NODES=%s must divide the %d leaves of %s\n", nodes_s.c_str(), P,
                     topo->describe().c_str());
        return 2;
    }
    if (g.n() != P) {
        std::fprintf(stderr, "sg_maps: graph %s has %d tasks, topology %s has %d leaves\n", graph.c_str(), g.n(),
                     topo_spec.c_str(), P);
        return 1;
    }
    const int per = P / nodes;
    const Graph sym = g.symmetrized();
    const std::vector<int> part = partition_graph(sym, nodes, 1);
    std::vector<int> fill(nodes, 0), place(P);
    for (int v = 0; v < P; ++v)
        place[v] = part[v] * per + fill[part[v]]++;
    check_placement(*topo, P, place);
    double cut = 0;
    for (int v = 0; v < sym.n(); ++v)
        for (int64_t k = sym.begin(v); k < sym.end(v); ++k)
            if (part[sym.target(k)] != part[v]) cut += sym.weight(k);
    write_mapfile(*topo, out, place);
    std::printf("edge cut %.0f\n", cut / 2);
    return 0;
}

// Exhaustive least F on a small tree (see the header).
class TreeOptimum {
public:
    TreeOptimum(const Topology &topo, const Graph &g) : P_(topo.size()) {
        const std::vector<int> &ar = topo.dims();
        levels_ = static_cast<int>(ar.size());
        // Subtree ids: level l's subtree of a leaf = its coordinates 0..l.
        std::vector<int> c(levels_);
        sub_.assign(static_cast<size_t>(P_) * levels_, 0);
        earlier_.assign(static_cast<size_t>(P_), {});
        for (int leaf = 0; leaf < P_; ++leaf) {
            topo.coords(leaf, c.data());
            int id = 0, base = 0, width = 1;
            for (int l = 0; l < levels_; ++l) {
                id = id * ar[l] + c[l];
                sub_[static_cast<size_t>(leaf) * levels_ + l] = base + id;
                // every earlier sibling at this level must be in use first
                for (int s = 0; s < c[l]; ++s) earlier_[leaf].push_back(base + id - c[l] + s);
                width *= ar[l];
                base += width;
            }
        }
        used_.assign(static_cast<size_t>(P_) * levels_ + P_, 0);
        dist_.assign(static_cast<size_t>(P_) * P_, 0);
        for (int a = 0; a < P_; ++a)
            for (int b = 0; b < P_; ++b) dist_[static_cast<size_t>(a) * P_ + b] = topo.distance(a, b);
        // Tasks in order of falling total weight (tight partial costs early).
        const int n = g.n();
        w_.assign(static_cast<size_t>(n) * n, 0);
        std::vector<double> tot(n, 0);
        for (int v = 0; v < n; ++v)
            for (int64_t k = g.begin(v); k < g.end(v); ++k) {
                w_[static_cast<size_t>(v) * n + g.target(k)] += g.weight(k);
                w_[static_cast<size_t>(g.target(k)) * n + v] += g.weight(k);
                tot[v] += g.weight(k);
                tot[g.target(k)] += g.weight(k);
            }
        order_.resize(n);
        for (int v = 0; v < n; ++v) order_[v] = v;
        std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) { return tot[a] > tot[b]; });
        leaf_of_.assign(n, -1);
        n_ = n;
    }
    // Least F below `upper` (returns `upper` when none is lower).
    double run(double upper) {
        best_ = upper;
        go(0, 0.0);
        return best_;
    }
    long long complete() const { return complete_; }

private:
    void go(int i, double partial) {
        if (partial >= best_) return;
        if (i == n_) {
            best_ = partial;
            ++complete_;
            return;
        }
        const int v = order_[i];
        for (int leaf = 0; leaf < P_; ++leaf) {
            if (used_[leaf_slot(leaf)]) continue;
            bool ok = true;
            for (int s : earlier_[leaf])
                if (!used_[s]) {
                    ok = false;
                    break;
                }
            if (!ok) continue;
            double add = 0;
            for (int j = 0; j < i; ++j) {
                const int u = order_[j];
                const double w = w_[static_cast<size_t>(v) * n_ + u];
                if (w != 0) add += w * dist_[static_cast<size_t>(leaf) * P_ + leaf_of_[u]];
            }
            mark(leaf, +1);
            leaf_of_[v] = leaf;
            go(i + 1, partial + add);
            leaf_of_[v] = -1;
            mark(leaf, -1);
        }
    }
    size_t leaf_slot(int leaf) const { return static_cast<size_t>(sub_[static_cast<size_t>(leaf) * levels_ + levels_ - 1]); }
    void mark(int leaf, int d) {
        for (int l = 0; l < levels_; ++l) used_[sub_[static_cast<size_t>(leaf) * levels_ + l]] += d;
    }

    int P_, levels_ = 0, n_ = 0;
    std::vector<int> sub_, used_, order_, leaf_of_;
    std::vector<std::vector<int>> earlier_;
    std::vector<double> dist_, w_;
    double best_ = 0;
    long long complete_ = 0;
};

int optimum(const std::string &topo_spec, const std::string &graph, const std::string &upper_s) {
    auto topo = parse_topology(topo_spec);
    const Graph g = read_graph(graph);
    if (topo->kind() != TopologyKind::Tree || topo->size() > 24 || g.n() != topo->size()) {
        std::fprintf(stderr, "sg_maps: optimum needs a tree topology of at most 24 leaves and one task per leaf "
                             "(%s, %d tasks)\n", topo->describe().c_str(), g.n());
        return 1;
    }
    char *end = nullptr;
    const double upper = std::strtod(upper_s.c_str(), &end);
    if (end == upper_s.c_str() || *end || !(upper > 0)) {
        std::fprintf(stderr, "sg_maps: UPPER '%s' must be a positive number\n", upper_s.c_str());
        return 2;
    }
    TreeOptimum opt(*topo, g);
    // A hair above UPPER, so that UPPER itself is found and counted.
    const double f = opt.run(upper * (1 + 1e-9) + 1e-9);
    if (opt.complete() == 0) {
        std::fprintf(stderr, "sg_maps: no placement has F <= UPPER %s: UPPER must be an F that is reached\n",
                     upper_s.c_str());
        return 1;
    }
    std::printf("optimum F %.6g (%lld complete placements improved the bound)\n", f, opt.complete());
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    try {
        std::vector<std::string> a(argv + 1, argv + argc);
        if (a.size() == 5 && a[0] == "cart") return cart_maps(a[1], a[2], a[3], a[4]);
        if (a.size() == 5 && a[0] == "partition") return partition(a[1], a[2], a[3], a[4]);
        if (a.size() == 4 && a[0] == "optimum") return optimum(a[1], a[2], a[3]);
        return usage();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "sg_maps: %s\n", e.what());
        return 1;
    }
}

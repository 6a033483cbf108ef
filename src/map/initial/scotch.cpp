// scotch.cpp -- the peer: Scotch 7's static mapper (SCOTCH_graphMap, dual
// recursive bipartitioning of the task graph and of the machine, Pellegrini)
// run on the same problem, so the benchmarks measure rankmap against it in
// the same run.  Not one of the founding papers' algorithms; Bhanot et al.
// (BG/L task layout) compare against METIS-style partitioning, and Scotch is
// that idea done for mapping.
//
//   task graph   p.sym (symmetrized) with integer edge loads: weights kept
//                when integral and small, otherwise scaled so that
//                (total load) x (machine diameter) < 2^30 -- Scotch sums
//                load x distance in its 32-bit SCOTCH_Num -- and every
//                positive weight stays >= 1.  Vertex loads 1.
//   machine      torus/mesh: SCOTCH_archTorusX / SCOTCH_archMeshX on the
//                network dimensions (mixed wrap-around: declined).  A
//                node-local last dimension (torus:...:local=c) is left to
//                us: Scotch maps onto the network nodes, the slots of a node
//                are filled in order.  tree: SCOTCH_archTleaf with link
//                costs such that Scotch's leaf distances (sum of the link
//                costs from the common ancestor's tier down) equal ours, up to
//                integer scaling.  file: (explicit matrix): declined with an
//                Error -- a weighted complete graph would lose the distances.
//                Scotch numbers torus terminals with the FIRST dimension
//                fastest (checked with SCOTCH_archDomDist); we convert via
//                coordinates to our row-major, last-fastest numbering.  Tleaf
//                terminals are already numbered like ours.
//   strategy     Options::strategy: "" or "default" -> SCOTCH_stratInit
//                (Scotch's default mapping strategy); "quality" / "speed" ->
//                SCOTCH_stratGraphMapBuild with SCOTCH_STRATQUALITY /
//                SCOTCH_STRATSPEED and a 1% imbalance.
//   capacity     Scotch balances loads only to a tolerance and has no hard
//                per-terminal capacity, so a balancing repair follows: each
//                task above a node's `hi` moves to the node with room, among
//                the nearest ones, where it costs least; then nodes below
//                `lo` take the cheapest task from the nearest node above
//                `lo`.  Usually a handful of moves.
//   determinism  a Scotch context with SCOTCH_OPTIONNUMDETERMINISTIC, one
//                thread, and its random generator seeded from Options::seed.
// Cost: Scotch's O(E log P) mapping plus O(moves x candidates x degree).
// Scotch reports its own errors on stderr through libscotcherr (linked by
// the build); we turn its status codes into rankmap::Error.
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "map/mapper.hpp"
#include "map/tuning.hpp"

#ifdef RANKMAP_HAVE_SCOTCH
#include <scotch.h>
// Cross-module private includes: the machine models' own parameters
// (wrap-around per dimension, local dimension, tier costs) that the generic
// Topology interface does not expose.
#include "topology/torus.hpp"
#include "topology/tree.hpp"
#endif

namespace rankmap {

#ifndef RANKMAP_HAVE_SCOTCH

std::vector<int> map_scotch(const Problem &) {
    throw Error("algorithm 'scotch': this rankmap was built without Scotch "
                "(install libscotch-dev and re-run configure)");
}

#else

namespace {

// RAII holders so that every early throw releases Scotch's structures.
struct ScotchGraph {
    SCOTCH_Graph g;
    bool ok;
    ScotchGraph() { ok = SCOTCH_graphInit(&g) == 0; }
    ~ScotchGraph() {
        if (ok) SCOTCH_graphExit(&g);
    }
};
struct ScotchArch {
    SCOTCH_Arch a;
    bool ok;
    ScotchArch() { ok = SCOTCH_archInit(&a) == 0; }
    ~ScotchArch() {
        if (ok) SCOTCH_archExit(&a);
    }
};
struct ScotchStrat {
    SCOTCH_Strat s;
    bool ok;
    ScotchStrat() { ok = SCOTCH_stratInit(&s) == 0; }
    ~ScotchStrat() {
        if (ok) SCOTCH_stratExit(&s);
    }
};
struct ScotchCtx {
    SCOTCH_Context c;
    bool ok;
    ScotchCtx() { ok = SCOTCH_contextInit(&c) == 0; }
    ~ScotchCtx() {
        if (ok) SCOTCH_contextExit(&c);
    }
};

void check(int status, const char *what) {
    if (status != 0)
        throw Error(std::string("algorithm 'scotch': ") + what + " failed (Scotch status " +
                        std::to_string(status) + ")",
                    ErrorKind::Internal);
}

// How our machine is handed to Scotch, and how to read its terminals back.
struct Machine {
    std::vector<int> net_dims;  // torus/mesh: the network dimensions
    int slots = 1;              // torus with local dimension: slots per node
    bool tree = false;
    double diameter = 1;        // in Scotch's distance units
};

Machine build_arch(const Topology &topo, SCOTCH_Arch *arch) {
    Machine m;
    if (const auto *torus = dynamic_cast<const TorusTopology *>(&topo)) {
        const int net = torus->net_dims();
        m.net_dims.assign(torus->dims().begin(), torus->dims().begin() + net);
        m.slots = torus->has_local() ? torus->dims().back() : 1;
        int wrapped = 0, unwrapped = 0;
        for (int k = 0; k < net; ++k) {
            if (m.net_dims[k] <= 2) continue;  // wrap-around changes nothing
            (torus->wrap()[k] ? wrapped : unwrapped)++;
        }
        if (wrapped && unwrapped)
            throw Error("algorithm 'scotch': topology '" + topo.describe() +
                        "' mixes wrapped and unwrapped dimensions, which Scotch's torus and "
                        "mesh architectures cannot express");
        std::vector<SCOTCH_Num> d(m.net_dims.begin(), m.net_dims.end());
        m.diameter = 0;
        for (int x : m.net_dims) m.diameter += unwrapped ? x - 1 : x / 2;
        m.diameter = std::max(1.0, m.diameter);
        if (unwrapped)
            check(SCOTCH_archMeshX(arch, static_cast<SCOTCH_Num>(d.size()), d.data()), "SCOTCH_archMeshX");
        else
            check(SCOTCH_archTorusX(arch, static_cast<SCOTCH_Num>(d.size()), d.data()), "SCOTCH_archTorusX");
        return m;
    }
    if (const auto *tree = dynamic_cast<const TreeTopology *>(&topo)) {
        // Scotch: distance of two leaves whose common ancestor is at tier l =
        // link[l] + link[l+1] + ... + link[last].  Ours: cost[l].
        const std::vector<double> &cost = tree->costs();
        const std::vector<int> &arity = tree->dims();
        const int levels = static_cast<int>(arity.size());
        double minc = 0;
        bool integral = true;
        for (double c : cost) {
            if (c > 0 && (minc == 0 || c < minc)) minc = c;
            if (c != std::floor(c)) integral = false;
        }
        const double scale = integral || minc == 0 ? 1.0 : 100.0 / minc;
        std::vector<SCOTCH_Num> size(arity.begin(), arity.end()), link(levels);
        for (int l = 0; l < levels; ++l) {
            const double here = cost[l] * scale;
            const double below = l + 1 < levels ? cost[l + 1] * scale : 0.0;
            link[l] = static_cast<SCOTCH_Num>(std::max(1.0, std::round(here - below)));
        }
        m.tree = true;
        m.diameter = 0;
        for (SCOTCH_Num x : link) m.diameter += x;
        check(SCOTCH_archTleaf(arch, levels, size.data(), link.data()), "SCOTCH_archTleaf");
        return m;
    }
    throw Error("algorithm 'scotch': topology '" + topo.describe() +
                "' (explicit distance matrix) has no Scotch architecture; use another algorithm");
}

// Cost change of moving task t from node a to node b.
double move_delta(const Problem &p, const std::vector<int> &place, int t, int a, int b) {
    double d = 0;
    for (int64_t e = p.sym.begin(t); e < p.sym.end(t); ++e) {
        const int u = place[p.sym.target(e)];
        d += p.sym.weight(e) * (p.topo.distance(b, u) - p.topo.distance(a, u));
    }
    return d;
}

// Nodes near `node` in increasing distance satisfying `ok`, looking at a
// growing neighbourhood until at least one qualifies.
template <class Ok> std::vector<int> near_nodes(const Topology &topo, int node, Ok ok) {
    const int P = topo.size();
    std::vector<int> around, out;
    for (int want = std::min(P, 32);; want = std::min(P, want * 4)) {
        topo.nearest(node, want, around);
        out.clear();
        for (int m : around)
            if (m != node && ok(m)) out.push_back(m);
        if (!out.empty() || want >= P) return out;
    }
}

// Balancing repair: every node ends with lo..hi tasks.
void repair(const Problem &p, std::vector<int> &place) {
    const int P = p.topo.size();
    const int lo = p.cap.lo, hi = p.cap.hi;
    std::vector<std::vector<int>> on(P);
    for (int t = 0; t < static_cast<int>(place.size()); ++t) on[place[t]].push_back(t);
    auto move = [&](int t, int a, int b) {
        auto &v = on[a];
        v.erase(std::find(v.begin(), v.end(), t));
        on[b].push_back(t);
        place[t] = b;
    };
    for (int a = 0; a < P; ++a) {
        while (static_cast<int>(on[a].size()) > hi) {
            std::vector<int> dest = near_nodes(p.topo, a, [&](int m) { return static_cast<int>(on[m].size()) < hi; });
            if (dest.empty()) throw Error("algorithm 'scotch': no node with room in the repair", ErrorKind::Internal);
            int bt = -1, bm = -1;
            double best = 0;
            for (int t : on[a])
                for (int m : dest) {
                    // Fill nodes below lo first.
                    const double d = move_delta(p, place, t, a, m) -
                                     (static_cast<int>(on[m].size()) < lo ? 1e-9 : 0.0);
                    if (bt < 0 || d < best) {
                        bt = t;
                        bm = m;
                        best = d;
                    }
                }
            move(bt, a, bm);
        }
    }
    for (int b = 0; b < P; ++b) {
        while (static_cast<int>(on[b].size()) < lo) {
            std::vector<int> donors = near_nodes(p.topo, b, [&](int m) { return static_cast<int>(on[m].size()) > lo; });
            if (donors.empty()) throw Error("algorithm 'scotch': no donor node in the repair", ErrorKind::Internal);
            int bt = -1, bm = -1;
            double best = 0;
            for (int m : donors)
                for (int t : on[m]) {
                    const double d = move_delta(p, place, t, m, b);
                    if (bt < 0 || d < best) {
                        bt = t;
                        bm = m;
                        best = d;
                    }
                }
            move(bt, bm, b);
        }
    }
}

// The symmetrized task graph in Scotch's arrays, with integer loads
// (scaled so that loads times the machine's diameter fit Scotch's range).
struct ScotchLoads {
    std::vector<SCOTCH_Num> vert, edge, load;
};

ScotchLoads task_loads(const Graph &s, double diameter) {
    const int n = s.n();
    double total = 0, maxw = 0;
    bool integral = true;
    for (double x : s.weights()) {
        if (x <= 0) continue;
        total += x;
        maxw = std::max(maxw, x);
        if (x != std::floor(x)) integral = false;
    }
    const double limit = static_cast<double>(1 << 30) / diameter;
    double scale = 1;
    if (!integral || total > limit)
        scale = std::min(limit / std::max(total, 1.0), scotch_preset().max_edge_load / std::max(maxw, 1e-300));
    ScotchLoads out;
    out.vert.assign(static_cast<size_t>(n) + 1, 0);
    out.edge.reserve(static_cast<size_t>(s.nedges()));
    out.load.reserve(static_cast<size_t>(s.nedges()));
    for (int v = 0; v < n; ++v) {
        for (int64_t e = s.begin(v); e < s.end(v); ++e) {
            if (s.weight(e) <= 0 || s.target(e) == v) continue;
            out.edge.push_back(s.target(e));
            out.load.push_back(static_cast<SCOTCH_Num>(std::max<long long>(1, std::llround(s.weight(e) * scale))));
        }
        if (out.edge.size() > static_cast<size_t>(INT_MAX))
            throw Error("algorithm 'scotch': graph too large for 32-bit SCOTCH_Num", ErrorKind::Internal);
        out.vert[v + 1] = static_cast<SCOTCH_Num>(out.edge.size());
    }
    return out;
}

// Scotch's terminal numbers turned into our nodes (on a torus: the network
// node's coordinates, first dimension fastest, and a slot per task).
std::vector<int> nodes_of_terminals(const Problem &p, const Machine &m, const std::vector<SCOTCH_Num> &term,
                                    SCOTCH_Num terminals) {
    const int n = p.g.n(), P = p.topo.size();
    std::vector<int> place(n);
    if (m.tree) {
        for (int t = 0; t < n; ++t) {
            if (term[t] < 0 || term[t] >= P) throw Error("algorithm 'scotch': bad terminal from Scotch", ErrorKind::Internal);
            place[t] = term[t];
        }
        return place;
    }
    const int nd = p.topo.ndims();
    const int net = static_cast<int>(m.net_dims.size());
    std::vector<int> c(nd, 0);
    std::vector<int> used(terminals, 0);  // slots handed out per network node
    for (int t = 0; t < n; ++t) {
        int x = term[t];
        if (x < 0 || x >= terminals) throw Error("algorithm 'scotch': bad terminal from Scotch", ErrorKind::Internal);
        const int net_node = x;
        for (int k = 0; k < net; ++k) {  // Scotch: first dimension fastest
            c[k] = x % m.net_dims[k];
            x /= m.net_dims[k];
        }
        if (m.slots > 1) c[nd - 1] = used[net_node]++ % m.slots;
        place[t] = p.topo.node_at(c.data());
    }
    return place;
}

} // namespace

std::vector<int> map_scotch(const Problem &p) {
    const int n = p.g.n();
    const int P = p.topo.size();
    if (n == 0) return {};
    std::string strategy = p.opt.strategy.empty() ? "default" : p.opt.strategy;
    if (strategy != "default" && strategy != "quality" && strategy != "speed")
        throw Error("algorithm 'scotch': unknown strategy '" + strategy + "' (expected default, quality, speed)");
    if (p.progress) p.progress("scotch: strategy " + strategy + ", " + std::to_string(n) + " tasks");

    ScotchArch arch;
    check(arch.ok ? 0 : 1, "SCOTCH_archInit");
    const Machine m = build_arch(p.topo, &arch.a);

    ScotchLoads tl = task_loads(p.sym, m.diameter);
    std::vector<SCOTCH_Num> &vert = tl.vert, &edge = tl.edge, &load = tl.load;
    ScotchGraph graph;
    check(graph.ok ? 0 : 1, "SCOTCH_graphInit");
    check(SCOTCH_graphBuild(&graph.g, 0, n, vert.data(), nullptr, nullptr, nullptr,
                            static_cast<SCOTCH_Num>(edge.size()), edge.empty() ? nullptr : edge.data(),
                            load.empty() ? nullptr : load.data()),
          "SCOTCH_graphBuild");

    ScotchCtx ctx;
    check(ctx.ok ? 0 : 1, "SCOTCH_contextInit");
    check(SCOTCH_contextOptionSetNum(&ctx.c, SCOTCH_OPTIONNUMDETERMINISTIC, 1), "SCOTCH_contextOptionSetNum");
    check(SCOTCH_contextRandomClone(&ctx.c), "SCOTCH_contextRandomClone");
    SCOTCH_contextRandomSeed(&ctx.c, static_cast<SCOTCH_Num>(p.opt.seed % static_cast<uint64_t>(INT_MAX)));
    check(SCOTCH_contextThreadSpawn(&ctx.c, 1, nullptr), "SCOTCH_contextThreadSpawn");
    ScotchGraph bound;
    check(bound.ok ? 0 : 1, "SCOTCH_graphInit");
    check(SCOTCH_contextBindGraph(&ctx.c, &graph.g, &bound.g), "SCOTCH_contextBindGraph");

    ScotchStrat strat;
    check(strat.ok ? 0 : 1, "SCOTCH_stratInit");
    const SCOTCH_Num terminals = static_cast<SCOTCH_Num>(P / m.slots);
    const double imbalance = scotch_preset().imbalance;
    if (strategy == "quality")
        check(SCOTCH_stratGraphMapBuild(&strat.s, SCOTCH_STRATQUALITY, terminals, imbalance), "SCOTCH_stratGraphMapBuild");
    else if (strategy == "speed")
        check(SCOTCH_stratGraphMapBuild(&strat.s, SCOTCH_STRATSPEED, terminals, imbalance), "SCOTCH_stratGraphMapBuild");

    std::vector<SCOTCH_Num> term(n, 0);
    check(SCOTCH_graphMap(&bound.g, &arch.a, &strat.s, term.data()), "SCOTCH_graphMap");

    std::vector<int> place = nodes_of_terminals(p, m, term, terminals);
    repair(p, place);
    return place;
}

#endif // RANKMAP_HAVE_SCOTCH

} // namespace rankmap

// bench/hierarchy.cpp -- mapping quality on hierarchies (trees), the
// benchmark behind the README's hierarchy table (a benchmark, never a
// test: it asserts nothing and exits 0 unless its own arguments are wrong).
//
// For every tree (32x2x8 = 512 ranks, 256x2x8 = 4096 ranks, costs 100/10/1;
// and 16x2x128 = 16 nodes of 256 ranks for the Cartesian halos) and
// workload it runs, in the same process and through the same run_mapper()
// call: rank order (identity), Scotch 7's SCOTCH_graphMap onto
// SCOTCH_archTleaf with its three strategies (the peer; "scotch-best" is
// the least F of the three, with the sum of their times), and rankmap's
// `hier` and `auto`.  Columns: F (the cost, the free energy of Bhanot et
// al., "Optimizing task layout on the Blue Gene/L supercomputer", with the
// tree distance), F / best Scotch F, the share of the traffic that
// leaves a node (outermost tier), the inter-node traffic itself, and the
// seconds of the mapping call (wall; the targets judge its CPU time),
// with "(safety stop)" when the wall-clock safety net, not the work
// budget, ended auto or fast: that row's F depends on the machine's speed
// and load.
//
// Workloads: umt (UMT-like: METIS parts of a random 6-nearest-neighbour
// mesh) and sage (SAGE-like, 13824 cells per task), both with labels
// scrambled by a random permutation; halo3d / halo2d: Cartesian halo
// exchanges (weight 1 to each grid neighbour) with the grid handed to the
// mapper as MPI_Cart_create would (rank order is then the application's
// natural order); halo3d-scr: the 3-D halo with scrambled labels and no
// grid given (auto must recognise it).  For the halos the benchmark also
// computes, by itself, the least inter-node traffic any tiling of the grid
// by equal per-node blocks can reach (every block shape b with b_i | g_i
// and prod b = ranks per node: traffic = 2 x sum_i boundaries_i x N / g_i,
// boundaries_i = g_i/b_i if periodic, g_i/b_i - 1 if not, 0 if b_i = g_i)
// and prints it beside rankmap's.
//
// Reference (--algorithms reference, not run by default: minutes per
// graph): how low F can go on a graph, so a target is judged against what
// is reachable, not only against Scotch.  Two rows: the least F of `auto`
// over seeds 1..--reference-seeds (what an election among that many
// ranks could choose), and a long annealing that owes nothing to
// rankmap's methods: pair swaps of two random tasks from a random
// placement, the temperature falling geometrically from 2 to 0.01 x (mean
// edge weight x largest tier cost) over --reference-moves swaps per task.
//
//   bench/hierarchy [--quick] [--trees 32x2x8,256x2x8] [--workloads umt,halo3d]
//                   [--algorithms identity,scotch,hier,auto,fast] [--seed N]
//                   [--time-limit S] [--markdown] [--verbose]
//                   [--reference-seeds K] [--reference-moves M]
// --quick: the 512-rank tree only (under a minute on a quiet machine).
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/text.hpp"
#include "cost/cost.hpp"
#include "graph/graph.hpp"
#include "map/mapper.hpp"
#include "topology/topology.hpp"
#include "workload/workload.hpp"

using namespace rankmap;

namespace {

const char *kCosts = "100,10,1";
const std::vector<std::string> kTrees = {"32x2x8", "256x2x8", "16x2x128"};
const std::vector<std::string> kWorkloads = {"umt", "sage", "halo3d", "halo2d", "halo3d-scr"};
const std::vector<std::string> kAlgorithms = {"identity", "scotch", "hier", "auto", "fast", "reference"};
const std::vector<std::string> kDefaultAlgorithms = {"identity", "scotch", "hier", "auto", "fast"};

struct Args {
    std::vector<std::string> trees = {"32x2x8", "256x2x8", "16x2x128"};
    std::vector<std::string> workloads = kWorkloads;
    std::vector<std::string> algorithms = kDefaultAlgorithms;
    uint64_t seed = 1;
    int reference_seeds = 32;
    double reference_moves = 1e6;
    double time_limit = 0;
    bool markdown = false;
    bool verbose = false;
};

// comma-separated list, empty items dropped
std::vector<std::string> split_list(const std::string &s) { return rankmap::split(s, ","); }

[[noreturn]] void usage(const std::string &msg) {
    std::fprintf(stderr,
                 "bench/hierarchy: %s\n"
                 "usage: bench/hierarchy [--quick] [--trees 32x2x8,256x2x8,16x2x128] "
                 "[--workloads umt,sage,halo3d,halo2d,halo3d-scr] [--algorithms identity,scotch,hier,auto,fast,reference] "
                 "[--seed N] [--time-limit S] [--markdown] [--verbose] [--reference-seeds K] [--reference-moves M]\n",
                 msg.c_str());
    std::exit(2);
}

bool member(const std::vector<std::string> &v, const std::string &x) {
    for (const auto &y : v)
        if (y == x) return true;
    return false;
}

Args parse_args(int argc, char **argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        std::string opt = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage("option " + opt + " needs a value");
            return argv[++i];
        };
        if (opt == "--quick") a.trees = {"32x2x8"};
        else if (opt == "--trees") a.trees = split_list(value());
        else if (opt == "--workloads") a.workloads = split_list(value());
        else if (opt == "--algorithms") a.algorithms = split_list(value());
        else if (opt == "--seed") a.seed = std::strtoull(value().c_str(), nullptr, 10);
        else if (opt == "--time-limit") a.time_limit = std::atof(value().c_str());
        else if (opt == "--markdown") a.markdown = true;
        else if (opt == "--verbose") a.verbose = true;
        else if (opt == "--reference-seeds") a.reference_seeds = std::atoi(value().c_str());
        else if (opt == "--reference-moves") a.reference_moves = std::atof(value().c_str());
        else if (opt == "--help" || opt == "-h") usage("help");
        else usage("unknown option '" + opt + "'");
    }
    for (const auto &w : a.workloads)
        if (!member(kWorkloads, w)) usage("unknown workload '" + w + "'");
    for (const auto &m : a.algorithms)
        if (!member(kAlgorithms, m)) usage("unknown algorithm '" + m + "'");
    if (a.reference_seeds < 1) usage("--reference-seeds must be at least 1");
    if (!(a.reference_moves > 0)) usage("--reference-moves must be positive");
    return a;
}

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// CPU seconds of the process (all threads): on a shared machine the wall
// time of a single-threaded mapper grows with the load, its CPU time much less.
double cpu_now() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double load_average() {
    double l[1] = {0};
    return getloadavg(l, 1) == 1 ? l[0] : -1;
}

std::string fmt(const char *f, double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, x);
    return buf;
}

// The Cartesian grid of a halo workload for N ranks.
CartGrid halo_grid(const std::string &w, int N) {
    CartGrid g;
    if (w == "halo2d") {
        int a = 1;
        while (2 * a * 2 * a <= N) a *= 2;  // a*a <= N < 4a*a
        g.dims = {N / a, a};
        g.periods = {0, 0};  // non-periodic: boundaries count g/b - 1
        return g;
    }
    int a = static_cast<int>(std::lround(std::cbrt(static_cast<double>(N))));
    if (a * a * a == N) g.dims = {a, a, a};
    else {
        int b = 1;
        while (8 * b * b * b <= N) b *= 2;
        g.dims = {N / (b * b), b, b};
    }
    g.periods = {1, 1, 1};
    return g;
}

// The benchmark's own enumeration: least inter-node traffic over the
// equal-block tilings of the grid, weight 1 per direction per neighbour.
double min_internode(const CartGrid &g, int per_node, std::string *shape) {
    const int nd = static_cast<int>(g.dims.size());
    int64_t N = 1;
    for (int d : g.dims) N *= d;
    double best = -1;
    std::vector<int> b(nd, 1);
    // Odometer over b_i | g_i.
    for (;;) {
        int64_t prod = 1;
        for (int x : b) prod *= x;
        if (prod == per_node) {
            double t = 0;
            for (int i = 0; i < nd; ++i) {
                const int n = g.dims[i] / b[i];
                const int bounds = n == 1 ? 0 : (g.periods[i] ? n : n - 1);
                t += 2.0 * bounds * static_cast<double>(N / g.dims[i]);
            }
            if (best < 0 || t < best) {
                best = t;
                std::string s;
                for (int i = 0; i < nd; ++i) s += (i ? "x" : "") + std::to_string(b[i]);
                *shape = s;
            }
        }
        int i = 0;
        for (; i < nd; ++i) {
            int x = b[i] + 1;
            while (x <= g.dims[i] && g.dims[i] % x != 0) ++x;
            if (x <= g.dims[i]) {
                b[i] = x;
                break;
            }
            b[i] = 1;
        }
        if (i == nd) break;
    }
    return best;
}

struct Row {
    std::string tree, workload, mapper;
    bool ok = true;
    std::string message;
    double F = 0, seconds = 0, cpu = 0, internode = 0, total = 0;
    bool safety_stop = false;  // the wall-clock safety net, not the work, ended the search
    double vs_scotch = -1;
    double min_inter = -1;
    std::string min_shape;
};

// Inter-node traffic (pairs on different outermost-tier entities), directed sum.
double internode(const Graph &g, int per_node, const std::vector<int> &place) {
    double t = 0;
    for (int v = 0; v < g.n(); ++v)
        for (int64_t e = g.begin(v); e < g.end(v); ++e)
            if (place[v] / per_node != place[g.target(e)] / per_node) t += g.weight(e);
    return t;
}

Row run(const std::string &label, Algorithm alg, const std::string &strategy, const Graph &g, const Topology &topo,
        const ProblemData &d, const std::optional<CartGrid> &grid, int per_node, const Args &args) {
    Row r;
    r.mapper = label;
    Options opt;
    opt.seed = args.seed;
    opt.time_limit = args.time_limit;
    opt.strategy = strategy;
    opt.verbose = args.verbose ? 2 : 0;
    std::function<void(const std::string &)> progress;
    if (args.verbose) progress = [](const std::string &s) { std::fprintf(stderr, "      %s\n", s.c_str()); };
    try {
        Problem p{g, d.sym, topo, d.cap, d.f_min, grid, opt, Deadline(opt.time_limit), nullptr, progress,
                  &r.safety_stop};
        const double t0 = now(), c0 = cpu_now();
        std::vector<int> place = run_mapper(alg, p);
        r.seconds = now() - t0;
        r.cpu = cpu_now() - c0;
        r.F = free_energy(g, topo, place);
        r.internode = internode(g, per_node, place);
        r.total = g.total_weight();
    } catch (const std::exception &e) {
        r.ok = false;
        r.message = e.what();
    }
    return r;
}

// The least F of `auto` over seeds 1..K (the reference's first row).
Row best_of_seeds(const Graph &g, const Topology &topo, const ProblemData &d, const std::optional<CartGrid> &grid,
                  int per_node, const Args &args) {
    Row best;
    double secs = 0;
    bool stopped = false;
    for (int k = 1; k <= args.reference_seeds; ++k) {
        Args a = args;
        a.seed = static_cast<uint64_t>(k);
        Row r = run("", Algorithm::Auto, "", g, topo, d, grid, per_node, a);
        secs += r.seconds;
        stopped = stopped || r.safety_stop;
        if (!r.ok) return r;
        if (k == 1 || r.F < best.F) best = r;
    }
    best.mapper = "auto-best-of-" + std::to_string(args.reference_seeds);
    best.seconds = secs;
    best.safety_stop = stopped;
    return best;
}

// The reference's long annealing: swaps of two random tasks (one task per
// leaf), Metropolis acceptance, geometric cooling; returns the best
// placement seen.  Distances from a leaf x leaf table (at most 4096 leaves).
Row long_anneal(const Graph &g, const Topology &topo, const ProblemData &d, int per_node, const Args &args) {
    Row r;
    r.mapper = "anneal-long";
    const int n = g.n(), P = topo.size();
    if (n != P || P > 4096) {
        r.ok = false;
        r.message = "anneal-long: one task per leaf and at most 4096 leaves";
        return r;
    }
    const double t0 = now(), c0 = cpu_now();
    std::vector<float> D(static_cast<size_t>(P) * P);
    double dmax = 0;
    for (int a = 0; a < P; ++a)
        for (int b = 0; b < P; ++b) {
            D[static_cast<size_t>(a) * P + b] = static_cast<float>(topo.distance(a, b));
            dmax = std::max(dmax, topo.distance(a, b));
        }
    const Graph &S = d.sym;
    std::mt19937_64 rng(args.seed);
    std::vector<int> place(n);
    for (int t = 0; t < n; ++t) place[t] = t;
    std::shuffle(place.begin(), place.end(), rng);
    // Cost change of task t moving from leaf x to leaf y, its partner `skip`
    // left out (the swapped pair keeps its distance).
    auto move_cost = [&](int t, int x, int y, int skip) {
        double c = 0;
        const float *dx = &D[static_cast<size_t>(x) * P], *dy = &D[static_cast<size_t>(y) * P];
        for (int64_t e = S.begin(t); e < S.end(t); ++e) {
            const int u = S.target(e);
            if (u != skip) c += S.weight(e) * (dy[place[u]] - dx[place[u]]);
        }
        return c;
    };
    const double mean_w = S.total_weight() / std::max<double>(1, static_cast<double>(S.xadj().back()));
    const double T0 = 2.0 * mean_w * dmax, T1 = 0.01 * mean_w * dmax;
    const int64_t M = static_cast<int64_t>(args.reference_moves * n);
    std::uniform_int_distribution<int> pick(0, n - 1);
    std::uniform_real_distribution<double> unit(0, 1);
    double cur = 0, best = 0;
    std::vector<int> best_place = place;
    for (int64_t m = 0; m < M; ++m) {
        const int a = pick(rng), b = pick(rng);
        if (a == b) continue;
        const double T = T0 * std::pow(T1 / T0, static_cast<double>(m) / static_cast<double>(M));
        const int pa = place[a], pb = place[b];
        const double delta = move_cost(a, pa, pb, b) + move_cost(b, pb, pa, a);
        if (delta <= 0 || unit(rng) < std::exp(-delta / T)) {
            place[a] = pb;
            place[b] = pa;
            cur += delta;
            if (cur < best) {
                best = cur;
                best_place = place;
            }
        }
    }
    r.seconds = now() - t0;
    r.cpu = cpu_now() - c0;
    r.F = free_energy(g, topo, best_place);
    r.internode = internode(g, per_node, best_place);
    r.total = g.total_weight();
    return r;
}

void print(const std::vector<Row> &rows, bool markdown) {
    if (markdown) {
        std::printf("| tree | workload | mapper | F | F / best Scotch | traffic leaving a node | inter-node traffic "
                    "| least inter-node (blocks) | seconds |\n");
        std::printf("|---|---|---|---:|---:|---:|---:|---:|---:|\n");
    } else {
        std::printf("%-9s %-10s %-14s %14s %8s %8s %12s %20s %8s\n", "tree", "workload", "mapper", "F",
                    "F/Scotch", "leave%", "inter-node", "least(blocks)", "seconds");
    }
    std::string last;
    for (const Row &r : rows) {
        const std::string vs = r.vs_scotch >= 0 ? fmt("%.3f", r.vs_scotch) : "";
        const std::string leave = r.ok && r.total > 0 ? fmt("%.1f %%", 100.0 * r.internode / r.total) : "-";
        const std::string least =
            r.min_inter >= 0 ? fmt("%.0f", r.min_inter) + " (" + r.min_shape + ")" : "";
        if (!r.ok) {
            std::string m = r.message.size() > 60 ? r.message.substr(0, 57) + "..." : r.message;
            if (markdown)
                std::printf("| %s | %s | %s | error: %s | | | | | |\n", r.tree.c_str(), r.workload.c_str(),
                            r.mapper.c_str(), m.c_str());
            else
                std::printf("%-9s %-10s %-14s error: %s\n", r.tree.c_str(), r.workload.c_str(), r.mapper.c_str(),
                            m.c_str());
            continue;
        }
        // a row the safety net ended depends on the machine's speed and load: said in its time cell
        const char *stop = r.safety_stop ? " (safety stop)" : "";
        if (markdown) {
            std::printf("| %s | %s | %s | %.0f | %s | %s | %.0f | %s | %.3f%s |\n", r.tree.c_str(), r.workload.c_str(),
                        r.mapper.c_str(), r.F, vs.c_str(), leave.c_str(), r.internode, least.c_str(), r.seconds, stop);
        } else {
            const std::string key = r.tree + r.workload;
            if (!last.empty() && key != last) std::printf("\n");
            last = key;
            std::printf("%-9s %-10s %-14s %14.0f %8s %8s %12.0f %20s %8.3f%s\n", r.tree.c_str(), r.workload.c_str(),
                        r.mapper.c_str(), r.F, vs.c_str(), leave.c_str(), r.internode, least.c_str(), r.seconds, stop);
        }
    }
}

const Row *find(const std::vector<Row> &rows, const std::string &tree, const std::string &w, const std::string &m) {
    for (const Row &r : rows)
        if (r.tree == tree && r.workload == w && r.mapper == m && r.ok) return &r;
    return nullptr;
}

} // namespace

int main(int argc, char **argv) {
    const Args args = parse_args(argc, argv);
    std::vector<Row> rows;
    for (const auto &tree : args.trees) {
        std::unique_ptr<Topology> topo;
        try {
            topo = parse_topology("tree:" + tree + ":cost=" + kCosts);
        } catch (const std::exception &e) {
            usage(std::string("bad tree: ") + e.what());
        }
        const int N = topo->size();
        const int per_node = N / topo->dims()[0];
        // The 16-node tree is there for the halos (the large blocks of Smith
        // and Bode, "Performance effects of node mappings on the IBM
        // BlueGene/L machine").
        const bool halos_only = tree == "16x2x128";
        for (const auto &w : args.workloads) {
            const bool halo = w.rfind("halo", 0) == 0;
            if (halos_only && !halo) continue;
            std::fprintf(stderr, "[%s %s] generating...\n", tree.c_str(), w.c_str());
            Graph g;
            std::optional<CartGrid> grid;
            CartGrid hg;
            if (w == "umt") {
                g = workload_umt(N, args.seed).relabeled(scramble_permutation(N, args.seed));
            } else if (w == "sage") {
                g = workload_sage(N).relabeled(scramble_permutation(N, args.seed));
            } else {
                hg = halo_grid(w, N);
                g = cartesian_graph(hg.dims, hg.periods);
                if (w == "halo3d-scr") g = g.relabeled(scramble_permutation(N, args.seed));
                else grid = hg;
            }
            ProblemData d = prepare(g, *topo);
            const size_t first = rows.size();
            double min_inter = -1;
            std::string min_shape;
            if (halo) {
                min_inter = min_internode(hg, per_node, &min_shape);
                std::string s;
                for (size_t i = 0; i < hg.dims.size(); ++i)
                    s += (i ? "x" : "") + std::to_string(hg.dims[i]) + (hg.periods[i] ? "p" : "");
                std::fprintf(stderr, "[%s %s] grid %s, least inter-node traffic %.0f with %s blocks\n", tree.c_str(),
                             w.c_str(), s.c_str(), min_inter, min_shape.c_str());
            }
            auto add = [&](Row r) {
                r.tree = tree;
                r.workload = w == "halo3d" || w == "halo2d" || w == "halo3d-scr" ? w : w + "-scr";
                if (r.ok)
                    std::fprintf(stderr, "[%s %s] %-14s F %.0f, inter-node %.0f, %.3f s%s\n", tree.c_str(), w.c_str(),
                                 r.mapper.c_str(), r.F, r.internode, r.seconds,
                                 r.safety_stop ? " (safety stop)" : "");
                else
                    std::fprintf(stderr, "[%s %s] %-14s %s\n", tree.c_str(), w.c_str(), r.mapper.c_str(),
                                 r.message.c_str());
                rows.push_back(r);
            };
            if (member(args.algorithms, "identity"))
                add(run("rank-order", Algorithm::Identity, "", g, *topo, d, grid, per_node, args));
            if (member(args.algorithms, "scotch")) {
                Row best;
                best.ok = false;
                best.message = "no Scotch strategy succeeded";
                double secs = 0;
                for (const char *s : {"default", "quality", "speed"}) {
                    Row r = run(std::string("scotch-") + s, Algorithm::Scotch, s, g, *topo, d, grid, per_node, args);
                    secs += r.seconds;
                    if (r.ok && (!best.ok || r.F < best.F)) best = r;
                    else if (!r.ok && !best.ok) best.message = r.message;
                    add(r);
                }
                best.mapper = "scotch-best";
                best.seconds = secs;
                add(best);
            }
            if (member(args.algorithms, "hier"))
                add(run("rankmap-hier", Algorithm::Hier, "", g, *topo, d, grid, per_node, args));
            if (member(args.algorithms, "auto"))
                add(run("rankmap-auto", Algorithm::Auto, "", g, *topo, d, grid, per_node, args));
            if (member(args.algorithms, "fast"))
                add(run("rankmap-fast", Algorithm::Fast, "", g, *topo, d, grid, per_node, args));
            if (member(args.algorithms, "reference")) {
                add(best_of_seeds(g, *topo, d, grid, per_node, args));
                add(long_anneal(g, *topo, d, per_node, args));
            }
            double scotchF = -1;
            for (size_t i = first; i < rows.size(); ++i)
                if (rows[i].mapper == "scotch-best" && rows[i].ok) scotchF = rows[i].F;
            for (size_t i = first; i < rows.size(); ++i) {
                if (scotchF > 0 && rows[i].ok) rows[i].vs_scotch = rows[i].F / scotchF;
                if (halo && rows[i].mapper.rfind("rankmap", 0) == 0) {
                    rows[i].min_inter = min_inter;
                    rows[i].min_shape = min_shape;
                }
            }
        }
    }

    std::printf("rankmap hierarchy benchmark: trees tree:AxBxC:cost=%s (nodes x sockets x cores), seed %llu%s\n",
                kCosts, static_cast<unsigned long long>(args.seed),
                args.time_limit > 0 ? (", time limit " + fmt("%g", args.time_limit) + " s").c_str() : "");
    std::printf("F = sum C(i,j) x tier cost of the lowest common ancestor; F/Scotch = F over the least F of "
                "Scotch 7's three strategies on SCOTCH_archTleaf;\nleave%% = share of the traffic between "
                "different nodes; least(blocks) = least inter-node traffic of any equal-block tiling of the "
                "grid (this benchmark's own enumeration).\n\n");
    print(rows, args.markdown);

    // The targets.
    std::printf("\nTargets:\n");
    const std::map<std::string, double> limit = {{"32x2x8", 1.0}, {"256x2x8", 10.0}};
    for (const auto &tree : args.trees) {
        auto lim = limit.find(tree);
        for (const char *w : {"umt-scr", "sage-scr"}) {
            const Row *a = find(rows, tree, w, "rankmap-auto");
            if (!a || a->vs_scotch < 0) continue;
            const bool umt = std::string(w) == "umt-scr";
            // <= 0.95: the hierarchy issue's target; <= 0.90: the scale issue's.
            const std::string also =
                umt ? std::string("; the scale issue's <= 0.90: ") + (a->vs_scotch <= 0.90 ? "PASS" : "MISS")
                    : std::string(", not a stated target");
            std::printf("  %-4s  %s on %s: auto F / best Scotch F = %.3f (target <= 0.95%s)",
                        !umt ? "info" : a->vs_scotch <= 0.95 ? "PASS" : "MISS", w, tree.c_str(), a->vs_scotch,
                        also.c_str());
            if (lim != limit.end())
                std::printf("; %.3f s wall, %.3f s CPU (%s <= %.0f s of one core; load average %.1f)", a->seconds,
                            a->cpu, a->cpu <= lim->second ? "PASS" : "MISS", lim->second, load_average());
            std::printf("\n");
        }
        for (const char *w : {"umt-scr", "sage-scr"}) {
            const Row *b = find(rows, tree, w, "auto-best-of-" + std::to_string(args.reference_seeds));
            const Row *l = find(rows, tree, w, "anneal-long");
            if ((!b || b->vs_scotch < 0) && (!l || l->vs_scotch < 0)) continue;
            std::printf("  info  %s on %s, the lowest F found: F / best Scotch F = %s (auto, best of %d seeds), %s "
                        "(long annealing, %.0f s)\n",
                        w, tree.c_str(), b ? fmt("%.3f", b->vs_scotch).c_str() : "-", args.reference_seeds,
                        l ? fmt("%.3f", l->vs_scotch).c_str() : "-", l ? l->seconds : 0.0);
        }
        for (const char *w : {"halo3d", "halo2d", "halo3d-scr"}) {
            const Row *a = find(rows, tree, w, "rankmap-auto");
            if (!a || a->min_inter < 0) continue;
            std::printf("  %-4s  %s on %s: auto inter-node traffic %.0f, least over block tilings %.0f (%s)\n",
                        a->internode <= a->min_inter + 1e-9 ? "PASS" : "MISS", w, tree.c_str(), a->internode,
                        a->min_inter, a->min_shape.c_str());
        }
    }
    return 0;
}

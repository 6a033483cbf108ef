// bench/scale.cpp -- the strategies at full-machine scale (a benchmark, never
// a test: it asserts nothing and exits 0 unless its own arguments are wrong).
//
// For 512 (8x8x8), 4096 (16x16x16) and 65,536 tasks (64x32x32, a full
// Blue Gene/L) and three held-out workloads -- SAGE-like, UMT-like and a
// scrambled 2-D five-point stencil -- it runs, one core, in the same run:
// the fast strategy (the in-call default), the quality strategy (`auto`,
// the CLI's default), and the peer, Scotch 7's SCOTCH_graphMap with its
// three strategies.  `fast-xK` (K >= 2) is the in-call portfolio of K
// members on one core, one after another: fast with the call's member
// seeds (rankmap_portfolio_seed), the call's election (least F, then among
// those within the guard's margin of it the lowest predicted time for large
// messages, rankmap_portfolio_runoff); its seconds are the slowest member's,
// what the call waits for when every member has a core of its own (the
// graph's broadcast to the members and the election's two allreduces are
// not counted: bench/simgrid/incall.py simulates them).  Every mapping
// runs in a child process that reads the
// graph from a file, so its wall time and peak RSS (the child's VmHWM after
// exec) are its own and not the workload generator's (UMT-like at 65,536
// needs ~1 GiB to generate; getrusage's ru_maxrss would also count the
// parent's pages the child held before exec).  It prints one table and the
// targets of the scale issue; below the in-call targets, an "info" line per
// portfolio gives what the election weighs beside F: the elected member's
// predicted time for 1 MiB per unit of weight (cost/model.hpp:
// bandwidth_time, the guard's) against quality's, and the least F among
// the members.
//
//   bench/scale [--sizes 8x8x8,16x16x16,64x32x32] [--workloads sage,umt,stencil]
//               [--algorithms fast,fast-x32,quality,scotch-default,scotch-quality,scotch-speed]
//               [--seed N] [--markdown] [--keep DIR] [--placements DIR]
//
// --placements DIR writes every placement computed to
// DIR/<size>-<workload>-<mapper>.map (fast-xK: one file per member,
// <mapper> = fast-xK-<i>), one line per task holding its node.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/text.hpp"
#include "cost/cost.hpp"
#include "cost/model.hpp"
#include "rankmap_glue.h"
#include "graph/graph.hpp"
#include "map/mapper.hpp"
#include "topology/topology.hpp"
#include "workload/workload.hpp"
#include "placements.hpp"
#include "self_child.hpp"

using namespace rankmap;

namespace {

struct Mapper {
    std::string label;
    Algorithm algorithm;
    std::string strategy;  // Scotch's
    int members = 1;       // > 1: the in-call portfolio of this many fast searches
};

const std::vector<Mapper> kMappers = {
    {"fast", Algorithm::Fast, ""},
    {"quality", Algorithm::Auto, ""},
    {"scotch-default", Algorithm::Scotch, "default"},
    {"scotch-quality", Algorithm::Scotch, "quality"},
    {"scotch-speed", Algorithm::Scotch, "speed"},
};

struct Args {
    std::vector<std::string> sizes = {"8x8x8", "16x16x16", "64x32x32"};
    std::vector<std::string> workloads = {"sage", "umt", "stencil"};
    std::vector<std::string> algorithms;
    uint64_t seed = 1;
    bool markdown = false;
    std::string keep;  // directory for the graph files ("": a temporary one)
    std::string placements;  // --placements DIR ("": none written)
    // --child: map one graph file and print "ok F/F_min seconds"
    bool child = false;
    std::string child_graph, child_topo, child_alg;
    std::string child_placement;  // --child-placement NAME: the child writes DIR/NAME.map
};

struct Row {
    std::string size, workload, mapper;
    std::string error;
    double ratio = 0, F = 0, seconds = 0, rss_mib = 0;
    double vs_scotch = -1;  // F / best Scotch F, rankmap rows
    double predicted = -1;  // the guard's predicted time for 1 MiB per unit (s), rankmap rows
    double F_least = -1;    // the lowest F among a portfolio's members
};

[[noreturn]] void usage(const std::string &msg) {
    std::fprintf(stderr,
                 "bench/scale: %s\n"
                 "usage: bench/scale [--sizes 8x8x8,16x16x16,64x32x32] [--workloads sage,umt,stencil] "
                 "[--algorithms fast,fast-xK,quality,scotch-default,scotch-quality,scotch-speed] [--seed N] "
                 "[--markdown] [--keep DIR] [--placements DIR]\n",
                 msg.c_str());
    std::exit(2);
}

// A label of kMappers, or fast-xK: the portfolio of K (2..4096) members.
std::optional<Mapper> find_mapper(const std::string &label) {
    for (const auto &m : kMappers)
        if (m.label == label) return m;
    const std::string pre = "fast-x";
    if (label.rfind(pre, 0) == 0 && label.size() > pre.size() &&
        label.find_first_not_of("0123456789", pre.size()) == std::string::npos && label.size() <= pre.size() + 4) {
        const int k = std::stoi(label.substr(pre.size()));
        if (k >= 2 && k <= 4096) return Mapper{label, Algorithm::Fast, "", k};
    }
    return std::nullopt;
}

Args parse_args(int argc, char **argv) {
    Args a;
    for (const auto &m : kMappers) a.algorithms.push_back(m.label);
    for (int i = 1; i < argc; ++i) {
        std::string opt = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage("option " + opt + " needs a value");
            return argv[++i];
        };
        if (opt == "--sizes") a.sizes = split(value(), ",");
        else if (opt == "--workloads") a.workloads = split(value(), ",");
        else if (opt == "--algorithms") a.algorithms = split(value(), ",");
        else if (opt == "--seed") a.seed = std::strtoull(value().c_str(), nullptr, 10);
        else if (opt == "--markdown") a.markdown = true;
        else if (opt == "--keep") a.keep = value();
        else if (opt == "--placements") a.placements = value();
        else if (opt == "--child-placement") a.child_placement = value();
        else if (opt == "--child") {
            a.child = true;
            a.child_graph = value();
            a.child_topo = value();
            a.child_alg = value();
        } else if (opt == "--help" || opt == "-h") usage("help");
        else usage("unknown option '" + opt + "'");
    }
    for (const auto &w : a.workloads)
        if (w != "sage" && w != "umt" && w != "stencil") usage("unknown workload '" + w + "'");
    for (const auto &alg : a.algorithms)
        if (!find_mapper(alg)) usage("unknown algorithm '" + alg + "' (fast-xK: K from 2 to 4096)");
    return a;
}

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string fmt(const char *f, double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, x);
    return buf;
}

// The 2-D stencil's grid: the most nearly square a x b = n (a >= b).
std::vector<int> stencil_dims(int n) {
    int b = static_cast<int>(std::sqrt(static_cast<double>(n)));
    while (b > 1 && n % b) --b;
    return {n / b, b};
}

Graph build_workload(const std::string &w, const Topology &topo, uint64_t seed) {
    if (w == "sage") return workload_sage(topo.size());
    if (w == "umt") return workload_umt(topo.size(), seed);
    Graph g = cartesian_graph(stencil_dims(topo.size()), {0, 0});
    return g.relabeled(scramble_permutation(g.n(), seed));
}

// --child: one mapping, timed from the graph in memory to the placement.
int child(const Args &a) {
    try {
        auto topo = parse_topology(a.child_topo);
        Graph g = read_graph(a.child_graph, "edges");
        const std::optional<Mapper> m = find_mapper(a.child_alg);
        if (!m) usage("unknown algorithm '" + a.child_alg + "'");
        ProblemData d = prepare(g, *topo);
        // member i of a portfolio searches with the call's seed for i (member
        // 0: the seed itself); one member: the plain mapping
        std::vector<double> Fs, Ts;
        double secs = 0, F_lowest = HUGE_VAL;
        for (int i = 0; i < m->members; ++i) {
            Options opt;
            opt.seed = m->members > 1 ? rankmap_portfolio_seed(a.seed, i) : a.seed;
            opt.strategy = m->strategy;
            Problem p{g, d.sym, *topo, d.cap, d.f_min, std::nullopt, opt, Deadline(0), nullptr, nullptr};
            const double t0 = now();
            const std::vector<int> place = run_mapper(m->algorithm, p);
            secs = std::max(secs, now() - t0);
            Fs.push_back(free_energy(g, *topo, place));
            Ts.push_back(m->algorithm == Algorithm::Scotch ? 0 : bandwidth_time(g, *topo, place, {}));
            F_lowest = std::min(F_lowest, Fs.back());
            if (!a.placements.empty())
                rankmap_bench::write_placement(a.placements,
                                               a.child_placement + (m->members > 1 ? "-" + std::to_string(i) : ""),
                                               place);
        }
        // the call's election (include/rankmap_glue.h, step 3)
        size_t won = 0;
        double best = HUGE_VAL;
        for (size_t i = 0; i < Fs.size(); ++i) {
            const double score = m->members > 1 ? rankmap_portfolio_runoff(Fs[i], Ts[i], F_lowest) : 0;
            if (score < best) best = score, won = i;
        }
        const double F = Fs[won];
        std::printf("ok %.9g %.9g %.6f %.0f %.9g %.9g\n", F, d.f_min > 0 ? F / d.f_min : 1.0, secs,
                    rankmap_bench::peak_rss_kib(), Ts[won], d.f_min > 0 ? F_lowest / d.f_min : 1.0);
        return 0;
    } catch (const std::exception &e) {
        std::printf("error %s\n", e.what());
        return 1;
    }
}

// Runs one mapping in a child process (this program with --child).
Row run_child(const Args &a, char **argv, const std::string &graph, const std::string &size,
              const std::string &workload, const Mapper &m) {
    Row r;
    r.size = size;
    r.workload = workload;
    r.mapper = m.label;
    std::vector<std::string> cargs = {"--seed", std::to_string(a.seed), "--child", graph, "torus:" + size, m.label};
    if (!a.placements.empty())
        cargs.insert(cargs.end(), {"--placements", a.placements, "--child-placement", size + "-" + workload + "-" + m.label});
    const rankmap_bench::ChildRun c = rankmap_bench::run_self(argv[0], cargs);
    const std::string &out = c.out;
    const int status = c.status;
    double kib = -1;
    if (std::sscanf(out.c_str(), "ok %lf %lf %lf %lf %lf %lf", &r.F, &r.ratio, &r.seconds, &kib, &r.predicted,
                    &r.F_least) != 6)
        r.error = out.empty() ? "child failed (status " + std::to_string(status) + ")" : out;
    r.rss_mib = kib / 1024.0;
    return r;
}

const Row *find_row(const std::vector<Row> &rows, const std::string &size, const std::string &w,
                    const std::string &mapper) {
    for (const Row &r : rows)
        if (r.size == size && r.workload == w && r.mapper == mapper && r.error.empty()) return &r;
    return nullptr;
}

struct Check {
    std::string what, verdict, numbers;
};

// The scale issue's single-core targets for the fast strategy.
std::vector<Check> targets(const std::vector<Row> &rows) {
    std::vector<Check> out;
    auto add = [&](const std::string &what, const Row *r, bool pass, const std::string &numbers) {
        out.push_back({what, r ? (pass ? "PASS" : "MISS") : "n/a", r ? numbers : "not run"});
    };
    for (const char *w : {"sage", "umt"}) {
        const Row *r = find_row(rows, "8x8x8", w, "fast");
        add(std::string("512 ") + w + ": fast <= 0.25 s", r, r && r->seconds <= 0.25, r ? fmt("%.3f s", r->seconds) : "");
        const bool have = r && r->vs_scotch >= 0;
        add(std::string("512 ") + w + ": fast F <= 0.80 x best Scotch", have ? r : nullptr,
            have && r->vs_scotch <= 0.80, have ? fmt("%.3f", r->vs_scotch) : "");
    }
    for (const char *w : {"sage", "umt", "stencil"}) {
        const Row *r = find_row(rows, "16x16x16", w, "fast");
        add(std::string("4096 ") + w + ": fast <= 2 s", r, r && r->seconds <= 2.0, r ? fmt("%.3f s", r->seconds) : "");
    }
    for (const char *w : {"sage", "umt", "stencil"}) {
        const Row *r = find_row(rows, "64x32x32", w, "fast");
        const Row *s = find_row(rows, "64x32x32", w, "scotch-default");
        add(std::string("65536 ") + w + ": fast <= 15 s and below Scotch's time", r,
            r && r->seconds <= 15.0 && (!s || r->seconds < s->seconds),
            r ? fmt("%.2f s", r->seconds) + (s ? " (scotch-default " + fmt("%.2f s", s->seconds) + ")" : "") : "");
        const bool have = r && r->vs_scotch >= 0;
        add(std::string("65536 ") + w + ": fast F <= 0.70 x best Scotch", have ? r : nullptr,
            have && r->vs_scotch <= 0.70, have ? fmt("%.3f", r->vs_scotch) : "");
        add(std::string("65536 ") + w + ": fast peak RSS < 200 MiB", r, r && r->rss_mib < 200,
            r ? fmt("%.1f MiB", r->rss_mib) : "");
    }
    return out;
}

// The scale issue's in-call targets at 65,536 tasks, for the portfolio rows
// (fast-xK) of this run: its F against Scotch's best and against quality
// on one core, its slowest member against 10 s.
std::vector<Check> portfolio_targets(const std::vector<Row> &rows) {
    std::vector<Check> out;
    for (const Row &r : rows) {
        if (r.size != "64x32x32" || r.mapper.rfind("fast-x", 0) != 0 || !r.error.empty()) continue;
        const std::string who = "65536 " + r.workload + ": " + r.mapper;
        if (r.vs_scotch >= 0)
            out.push_back({who + " F <= 0.70 x best Scotch", r.vs_scotch <= 0.70 ? "PASS" : "MISS", fmt("%.3f", r.vs_scotch)});
        if (const Row *q = find_row(rows, r.size, r.workload, "quality"))
            out.push_back({who + " F <= quality's (one core)", r.F <= q->F ? "PASS" : "MISS",
                           fmt("%.3f", r.ratio) + " (quality " + fmt("%.3f", q->ratio) + ")"});
        out.push_back({who + " slowest member <= 10 s", r.seconds <= 10.0 ? "PASS" : "MISS", fmt("%.2f s", r.seconds)});
        // Not a target: the call elects by the predicted time among members
        // near the least F, so its F may exceed the least member's.
        if (const Row *q = find_row(rows, r.size, r.workload, "quality"))
            out.push_back({who + " predicted s at 1 MiB/unit (quality)", "info",
                           fmt("%.3f", r.predicted) + " (" + fmt("%.3f", q->predicted) + "); least member F " +
                               fmt("%.3f", r.F_least)});
    }
    return out;
}

} // namespace

int main(int argc, char **argv) {
    Args args = parse_args(argc, argv);
    if (args.child) return child(args);
    std::string dir = args.keep;
    if (dir.empty()) {
        char tmpl[] = "/tmp/rankmap-scale-XXXXXX";
        if (!mkdtemp(tmpl)) {
            std::fprintf(stderr, "bench/scale: cannot create a temporary directory\n");
            return 1;
        }
        dir = tmpl;
    } else if (access(dir.c_str(), W_OK) != 0 && mkdir(dir.c_str(), 0755) != 0) {
        std::fprintf(stderr, "bench/scale: cannot create --keep directory %s\n", dir.c_str());
        return 1;
    }
    std::vector<Row> rows;
    for (const auto &size : args.sizes) {
        std::unique_ptr<Topology> topo;
        try {
            topo = parse_topology("torus:" + size);
        } catch (const std::exception &e) {
            usage(std::string("bad size: ") + e.what());
        }
        for (const auto &w : args.workloads) {
            const std::string path = dir + "/" + w + "-" + size + ".edges";
            if (access(path.c_str(), R_OK) != 0) {
                std::fprintf(stderr, "[%s %s] generating...\n", size.c_str(), w.c_str());
                try {
                    write_edge_list(build_workload(w, *topo, args.seed), path);
                } catch (const std::exception &e) {
                    std::fprintf(stderr, "bench/scale: %s\n", e.what());
                    return 1;
                }
            }
            const size_t first = rows.size();
            for (const auto &label : args.algorithms) {
                std::fprintf(stderr, "[%s %s] %-15s ...", size.c_str(), w.c_str(), label.c_str());
                std::fflush(stderr);
                Row r = run_child(args, argv, path, size, w, *find_mapper(label));
                if (r.error.empty())
                    std::fprintf(stderr, " F/F_min %.3f in %.2f s, %.0f MiB\n", r.ratio, r.seconds, r.rss_mib);
                else
                    std::fprintf(stderr, " %s\n", r.error.c_str());
                rows.push_back(r);
            }
            double best = -1;
            for (size_t i = first; i < rows.size(); ++i)
                if (rows[i].error.empty() && rows[i].mapper.rfind("scotch", 0) == 0 && (best < 0 || rows[i].F < best))
                    best = rows[i].F;
            for (size_t i = first; i < rows.size(); ++i)
                if (rows[i].error.empty() && rows[i].mapper.rfind("scotch", 0) != 0 && best > 0)
                    rows[i].vs_scotch = rows[i].F / best;
            if (args.keep.empty()) std::remove(path.c_str());
        }
    }
    if (args.keep.empty()) rmdir(dir.c_str());

    std::printf("rankmap at scale: F/F_min (free energy over the lower bound of Bhanot et al.), wall seconds and peak RSS of "
                "one mapping in its own process (graph read from a file; peak RSS = VmHWM), one core, seed %llu; Scotch 7 "
                "SCOTCH_graphMap is the peer; stencil = 2-D five-point grid, labels scrambled.\n\n",
                static_cast<unsigned long long>(args.seed));
    if (args.markdown) {
        std::printf("| torus | tasks | workload | mapper | F/F_min | seconds | peak RSS (MiB) | F / best Scotch F |\n");
        std::printf("|---|---:|---|---|---:|---:|---:|---:|\n");
    } else {
        std::printf("%-9s %6s %-8s %-15s %8s %9s %9s %12s\n", "torus", "tasks", "workload", "mapper", "F/F_min",
                    "seconds", "RSS MiB", "F/bestScotch");
    }
    for (const Row &r : rows) {
        const int n = parse_topology("torus:" + r.size)->size();
        const std::string ratio = r.error.empty() ? fmt("%.3f", r.ratio) : "-";
        const std::string secs = r.error.empty() ? fmt("%.3f", r.seconds) : "-";
        const std::string rss = r.error.empty() ? fmt("%.0f", r.rss_mib) : "-";
        const std::string vs = r.vs_scotch >= 0 ? fmt("%.3f", r.vs_scotch) : "";
        if (args.markdown)
            std::printf("| %s | %d | %s | %s | %s | %s | %s | %s |%s\n", r.size.c_str(), n, r.workload.c_str(),
                        r.mapper.c_str(), ratio.c_str(), secs.c_str(), rss.c_str(), vs.c_str(),
                        r.error.empty() ? "" : (" error: " + r.error).c_str());
        else
            std::printf("%-9s %6d %-8s %-15s %8s %9s %9s %12s %s\n", r.size.c_str(), n, r.workload.c_str(),
                        r.mapper.c_str(), ratio.c_str(), secs.c_str(), rss.c_str(), vs.c_str(), r.error.c_str());
    }
    std::printf("\nTargets (fast strategy, one core):\n");
    for (const Check &c : targets(rows))
        std::printf("  %-4s  %-55s %s\n", c.verdict.c_str(), c.what.c_str(), c.numbers.c_str());
    const std::vector<Check> pt = portfolio_targets(rows);
    if (!pt.empty()) {
        std::printf("\nTargets in the call, with the job's ranks (fast-xK: its members one after another on one core; "
                    "seconds: the slowest member's, election not counted):\n");
        for (const Check &c : pt)
            std::printf("  %-4s  %-55s %s\n", c.verdict.c_str(), c.what.c_str(), c.numbers.c_str());
    }
    return 0;
}

// bench/mapping.cpp -- the mapping benchmark behind the README table (a
// benchmark, never a test: it asserts nothing and always exits 0 unless its
// own arguments are wrong).
//
// For every torus (8x8x8, 16x16x8, 32x32x32) and workload of Bhanot et al.,
// "Optimizing task layout on the Blue Gene/L supercomputer" (cubic1 and
// cubic2 with labels scrambled by a random permutation, so rank order is not
// the answer; SAGE-like; UMT-like) it runs, in the same process and through
// the same run_mapper() call, rankmap's mappers (identity = MPI rank order,
// random = mean of 100 random placements as in the tables of Bhanot et al.,
// greedy, anneal, dc-anneal, kl, auto) and the peer, Scotch 7's
// SCOTCH_graphMap with its three strategies.  It prints one table
// (F/F_min, seconds, and for auto the ratio of auto's F to the best Scotch
// F), then a summary checking the targets.  A mapper that fails
// (e.g. not built, or not implemented yet) gets its error in the table.
//
//   bench/mapping [--quick] [--sizes 8x8x8,16x16x8] [--workloads cubic1,sage]
//                 [--algorithms auto,scotch-default] [--time-limit S]
//                 [--seed N] [--skip SIZE=alg,alg] [--no-skip]
//                 [--markdown] [--json FILE|-] [--memory] [--sage-cells N]
//                 [--verbose] [--placements DIR]
//
// --placements DIR writes every placement computed to
// DIR/<size>-<workload>-<mapper>.map (random: one file per sample,
// <mapper> = random-<k>), one line per task holding its node.

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
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
#include "placements.hpp"
#include "self_child.hpp"

using namespace rankmap;

namespace {

struct Mapper {
    std::string label;
    Algorithm algorithm;
    std::string strategy;
};

const std::vector<Mapper> kMappers = {
    {"identity", Algorithm::Identity, ""},
    {"random", Algorithm::Random, ""},
    {"greedy", Algorithm::Greedy, ""},
    {"anneal", Algorithm::Anneal, ""},
    {"dc-anneal", Algorithm::DivideAnneal, ""},
    {"kl", Algorithm::KernighanLin, ""},
    {"auto", Algorithm::Auto, ""},
    {"scotch-default", Algorithm::Scotch, "default"},
    {"scotch-quality", Algorithm::Scotch, "quality"},
    {"scotch-speed", Algorithm::Scotch, "speed"},
};

const std::vector<std::string> kSizes = {"8x8x8", "16x16x8", "32x32x32"};
const std::vector<std::string> kWorkloads = {"cubic1", "cubic2", "sage", "umt"};
constexpr int kRandomSamples = 100;

struct Args {
    std::vector<std::string> sizes = kSizes;
    std::vector<std::string> workloads = kWorkloads;
    std::vector<std::string> algorithms;
    std::map<std::string, std::set<std::string>> skip = {{"32x32x32", {"anneal"}}};
    double time_limit = 0;
    uint64_t seed = 1;
    bool markdown = false;
    std::string json;
    bool memory = false;
    std::string memory_workload = "sage";
    bool memory_child = false;
    bool verbose = false;
    int sage_cells = 13824;  // workload_sage's default
    std::string placements;  // --placements DIR ("": none written)
};

struct Row {
    std::string size, workload, mapper;
    std::string status = "ok";  // ok | skipped | error
    std::string message;
    double F = 0, ratio = 0, seconds = 0;
    double auto_vs_scotch = -1;  // auto rows only, when a Scotch row succeeded
};

// comma-separated list, empty items dropped
std::vector<std::string> split_list(const std::string &s) { return rankmap::split(s, ","); }

[[noreturn]] void usage(const std::string &msg) {
    std::fprintf(stderr,
                 "bench/mapping: %s\n"
                 "usage: bench/mapping [--quick] [--sizes 8x8x8,16x16x8,32x32x32] "
                 "[--workloads cubic1,cubic2,sage,umt] [--algorithms identity,...,scotch-speed] "
                 "[--time-limit S] [--seed N] [--skip SIZE=alg,alg] [--no-skip] [--markdown] "
                 "[--json FILE|-] [--memory] [--memory-workload sage|umt] [--sage-cells N] [--verbose] [--placements DIR]\n",
                 msg.c_str());
    std::exit(2);
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
        if (opt == "--quick") a.sizes = {"8x8x8"};
        else if (opt == "--sizes") a.sizes = split_list(value());
        else if (opt == "--workloads") a.workloads = split_list(value());
        else if (opt == "--algorithms") a.algorithms = split_list(value());
        else if (opt == "--time-limit") a.time_limit = std::atof(value().c_str());
        else if (opt == "--seed") a.seed = std::strtoull(value().c_str(), nullptr, 10);
        else if (opt == "--no-skip") a.skip.clear();
        else if (opt == "--skip") {
            std::string v = value();
            size_t eq = v.find('=');
            if (eq == std::string::npos) usage("--skip wants SIZE=alg,alg, got '" + v + "'");
            for (const auto &alg : split_list(v.substr(eq + 1))) a.skip[v.substr(0, eq)].insert(alg);
        } else if (opt == "--markdown") a.markdown = true;
        else if (opt == "--json") a.json = value();
        else if (opt == "--memory") a.memory = true;
        else if (opt == "--memory-workload") a.memory_workload = value();
        else if (opt == "--memory-child") a.memory_child = true;
        else if (opt == "--verbose") a.verbose = true;
        else if (opt == "--sage-cells") a.sage_cells = std::atoi(value().c_str());
        else if (opt == "--placements") a.placements = value();
        else if (opt == "--help" || opt == "-h") usage("help");
        else usage("unknown option '" + opt + "'");
    }
    for (const auto &s : a.sizes)
        if (s.find('x') == std::string::npos) usage("bad size '" + s + "' (expected e.g. 16x16x8)");
    for (const auto &w : a.workloads)
        if (w != "cubic1" && w != "cubic2" && w != "sage" && w != "umt") usage("unknown workload '" + w + "'");
    for (const auto &alg : a.algorithms) {
        bool found = false;
        for (const auto &m : kMappers) found = found || m.label == alg;
        if (!found) usage("unknown algorithm '" + alg + "'");
    }
    if (a.memory_workload != "sage" && a.memory_workload != "umt") usage("--memory-workload is sage or umt");
    return a;
}

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The task graph of `workload` for `topo`, cubic labels scrambled.
Graph build_workload(const std::string &workload, const Topology &topo, const Args &args) {
    const uint64_t seed = args.seed;
    if (workload == "sage") return workload_sage(topo.size(), args.sage_cells);
    Graph g = make_workload(workload, topo.size(), topo.dims(), seed);
    if (workload == "cubic1" || workload == "cubic2") g = g.relabeled(scramble_permutation(g.n(), seed));
    return g;
}

Row run_one(const Mapper &m, const std::string &size, const std::string &workload, const Graph &g,
            const Topology &topo, const ProblemData &d, const Args &args) {
    Row r;
    r.size = size;
    r.workload = workload;
    r.mapper = m.label;
    Options opt;
    opt.seed = args.seed;
    opt.time_limit = args.time_limit;
    opt.strategy = m.strategy;
    opt.verbose = args.verbose ? 2 : 0;
    std::function<void(const std::string &)> progress;
    if (args.verbose) progress = [](const std::string &s) { std::fprintf(stderr, "      %s\n", s.c_str()); };
    try {
        if (m.algorithm == Algorithm::Random) {
            // The "random" of Bhanot et al.: the mean over 100 random placements.
            double sumF = 0, t = 0;
            for (int k = 0; k < kRandomSamples; ++k) {
                opt.seed = args.seed + static_cast<uint64_t>(k);
                Problem p{g, d.sym, topo, d.cap, d.f_min, std::nullopt, opt, Deadline(opt.time_limit), nullptr, progress};
                double t0 = now();
                std::vector<int> place = run_mapper(m.algorithm, p);
                t += now() - t0;
                sumF += free_energy(g, topo, place);
                if (!args.placements.empty())
                    rankmap_bench::write_placement(args.placements,
                                                   size + "-" + workload + "-random-" + std::to_string(k), place);
            }
            r.F = sumF / kRandomSamples;
            r.seconds = t / kRandomSamples;
        } else {
            Problem p{g, d.sym, topo, d.cap, d.f_min, std::nullopt, opt, Deadline(opt.time_limit), nullptr, progress};
            double t0 = now();
            std::vector<int> place = run_mapper(m.algorithm, p);
            r.seconds = now() - t0;
            r.F = free_energy(g, topo, place);
            if (!args.placements.empty())
                rankmap_bench::write_placement(args.placements, size + "-" + workload + "-" + m.label, place);
        }
        r.ratio = d.f_min > 0 ? r.F / d.f_min : 1.0;
    } catch (const std::exception &e) {
        r.status = "error";
        r.message = e.what();
    }
    return r;
}

std::string fmt(const char *f, double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, x);
    return buf;
}

std::string ratio_cell(const Row &r) { return r.status == "ok" ? fmt("%.3f", r.ratio) : "-"; }
std::string seconds_cell(const Row &r) {
    if (r.status != "ok") return "-";
    return r.mapper == "random" ? fmt("%.4f", r.seconds) + " each" : fmt("%.3f", r.seconds);
}
std::string vs_cell(const Row &r) { return r.auto_vs_scotch >= 0 ? fmt("%.3f", r.auto_vs_scotch) : ""; }
std::string note_cell(const Row &r) {
    if (r.status == "skipped") return "skipped at this size (too slow alone)";
    if (r.status == "error") {
        std::string m = r.message;
        if (m.size() > 70) m = m.substr(0, 67) + "...";
        return "error: " + m;
    }
    return "";
}

void print_text(const std::vector<Row> &rows) {
    std::printf("%-9s %-8s %-15s %9s %12s %16s  %s\n", "torus", "workload", "mapper", "F/F_min", "seconds",
                "autoF/bestScotch", "note");
    std::string last;
    for (const Row &r : rows) {
        std::string key = r.size + r.workload;
        if (!last.empty() && key != last) std::printf("\n");
        last = key;
        std::printf("%-9s %-8s %-15s %9s %12s %16s  %s\n", r.size.c_str(), r.workload.c_str(), r.mapper.c_str(),
                    ratio_cell(r).c_str(), seconds_cell(r).c_str(), vs_cell(r).c_str(), note_cell(r).c_str());
    }
}

void print_markdown(const std::vector<Row> &rows) {
    std::printf("| torus | workload | mapper | F/F_min | seconds | auto F / best Scotch F | note |\n");
    std::printf("|---|---|---|---:|---:|---:|---|\n");
    for (const Row &r : rows)
        std::printf("| %s | %s | %s | %s | %s | %s | %s |\n", r.size.c_str(), r.workload.c_str(), r.mapper.c_str(),
                    ratio_cell(r).c_str(), seconds_cell(r).c_str(), vs_cell(r).c_str(), note_cell(r).c_str());
}

std::string json_escape(const std::string &s) {
    std::string o;
    for (char c : s) {
        if (c == '"' || c == '\\') o += '\\';
        if (static_cast<unsigned char>(c) < 0x20) {
            o += ' ';
            continue;
        }
        o += c;
    }
    return o;
}

struct Check {
    std::string what;
    std::string verdict;  // PASS | MISS | n/a
    std::string numbers;
};

const Row *find_row(const std::vector<Row> &rows, const std::string &size, const std::string &workload,
                    const std::string &mapper) {
    for (const Row &r : rows)
        if (r.size == size && r.workload == workload && r.mapper == mapper && r.status == "ok") return &r;
    return nullptr;
}

std::vector<Check> summary(const std::vector<Row> &rows) {
    std::vector<Check> out;
    auto add = [&](const std::string &what, const Row *r, bool pass, const std::string &numbers) {
        out.push_back({what, r ? (pass ? "PASS" : "MISS") : "n/a", r ? numbers : "not run"});
    };
    // Scrambled cubic: auto finds the optimum.
    for (const char *w : {"cubic1", "cubic2"}) {
        const Row *r = find_row(rows, "8x8x8", w, "auto");
        add(std::string("scrambled ") + w + " auto = 1.000 on 8x8x8", r, r && r->ratio <= 1.0005,
            r ? "F/F_min " + fmt("%.4f", r->ratio) : "");
        r = find_row(rows, "16x16x8", w, "auto");
        add(std::string("scrambled ") + w + " auto <= 1.05 on 16x16x8", r, r && r->ratio <= 1.05,
            r ? "F/F_min " + fmt("%.4f", r->ratio) : "");
    }
    // SAGE / UMT: auto against the best Scotch strategy.
    for (const char *w : {"sage", "umt"})
        for (const auto &s : kSizes) {
            const double limit = s == "32x32x32" ? 0.85 : 0.80;
            const Row *r = find_row(rows, s, w, "auto");
            const bool have = r && r->auto_vs_scotch >= 0;
            add(std::string(w) + " auto <= " + fmt("%.2f", limit) + " x best Scotch on " + s, have ? r : nullptr,
                have && r->auto_vs_scotch <= limit,
                have ? "auto/Scotch " + fmt("%.3f", r->auto_vs_scotch) + " (auto F/F_min " + fmt("%.3f", r->ratio) + ")"
                     : "");
        }
    // Time budget of auto.
    const std::map<std::string, double> budget = {{"8x8x8", 1.0}, {"16x16x8", 5.0}, {"32x32x32", 60.0}};
    for (const auto &s : kSizes) {
        const Row *worst = nullptr;
        for (const auto &w : kWorkloads) {
            const Row *r = find_row(rows, s, w, "auto");
            if (r && (!worst || r->seconds > worst->seconds)) worst = r;
        }
        const double lim = budget.at(s);
        add("auto time <= " + fmt("%.0f", lim) + " s on " + s + " (slowest workload)", worst,
            worst && worst->seconds <= lim,
            worst ? fmt("%.3f s", worst->seconds) + " (" + worst->workload + ")" : "");
    }
    // Random placements reproduce Table 1 of Bhanot et al.
    const std::pair<const char *, double> ref[] = {{"cubic1", 5.94}, {"cubic2", 4.56}};
    for (const auto &x : ref) {
        const Row *r = find_row(rows, "8x8x8", x.first, "random");
        add(std::string("random ") + x.first + " within 5% of " + fmt("%.2f", x.second) + " on 8x8x8", r,
            r && std::fabs(r->ratio / x.second - 1) <= 0.05, r ? "mean F/F_min " + fmt("%.3f", r->ratio) : "");
    }
    return out;
}

// --memory-child: one 65,536-task auto run, result on stdout.
int memory_child(const Args &args) {
    auto topo = parse_topology("torus:64x32x32");
    Graph g = build_workload(args.memory_workload, *topo, args);
    ProblemData d = prepare(g, *topo);
    Mapper m{"auto", Algorithm::Auto, ""};
    Row r = run_one(m, "64x32x32", args.memory_workload, g, *topo, d, args);
    if (r.status != "ok") {
        std::printf("error %s\n", r.message.c_str());
        return 1;
    }
    std::printf("ok %.6f %.3f %.0f\n", r.ratio, r.seconds, rankmap_bench::peak_rss_kib());
    return 0;
}

// Runs the child in a fresh process so the high-water mark is its own.
std::string memory_report(const Args &args, char **argv) {
    const rankmap_bench::ChildRun c =
        rankmap_bench::run_self(argv[0], {"--memory-child", "--memory-workload", args.memory_workload, "--seed",
                                          std::to_string(args.seed), "--time-limit", fmt("%g", args.time_limit),
                                          "--sage-cells", std::to_string(args.sage_cells)});
    const std::string &out = c.out;
    std::ostringstream s;
    s << "memory: 65,536 tasks (" << args.memory_workload << ") on torus:64x32x32, auto: ";
    double ratio = 0, secs = 0, kib = -1;
    if (std::sscanf(out.c_str(), "ok %lf %lf %lf", &ratio, &secs, &kib) == 3)
        s << "F/F_min " << fmt("%.3f", ratio) << ", " << fmt("%.1f", secs) << " s; peak RSS " << fmt("%.1f", kib / 1024.0)
          << " MiB (the child's VmHWM: generation and mapping)";
    else
        s << (out.empty() ? "child failed" : out);
    return s.str();
}

} // namespace

int main(int argc, char **argv) {
    Args args = parse_args(argc, argv);
    if (args.memory_child) return memory_child(args);

    std::vector<Row> rows;
    std::vector<std::string> skipped_notes;
    for (const auto &size : args.sizes) {
        std::unique_ptr<Topology> topo;
        try {
            topo = parse_topology("torus:" + size);
        } catch (const std::exception &e) {
            usage(std::string("bad size: ") + e.what());
        }
        for (const auto &workload : args.workloads) {
            std::fprintf(stderr, "[%s %s] generating workload...\n", size.c_str(), workload.c_str());
            double t0 = now();
            Graph g;
            ProblemData d;
            try {
                g = build_workload(workload, *topo, args);
                d = prepare(g, *topo);
            } catch (const std::exception &e) {
                std::fprintf(stderr, "[%s %s] cannot build the problem: %s\n", size.c_str(), workload.c_str(),
                             e.what());
                for (const auto &label : args.algorithms) {
                    Row r;
                    r.size = size;
                    r.workload = workload;
                    r.mapper = label;
                    r.status = "error";
                    r.message = e.what();
                    rows.push_back(r);
                }
                continue;
            }
            std::fprintf(stderr, "[%s %s] %d tasks, %lld edges, F_min %.0f (%.2f s)\n", size.c_str(),
                         workload.c_str(), g.n(), static_cast<long long>(g.nedges()), d.f_min, now() - t0);
            const size_t first = rows.size();
            for (const auto &m : kMappers) {
                bool wanted = false;
                for (const auto &a : args.algorithms) wanted = wanted || a == m.label;
                if (!wanted) continue;
                auto sk = args.skip.find(size);
                if (sk != args.skip.end() && sk->second.count(m.label)) {
                    Row r;
                    r.size = size;
                    r.workload = workload;
                    r.mapper = m.label;
                    r.status = "skipped";
                    rows.push_back(r);
                    continue;
                }
                std::fprintf(stderr, "[%s %s] %-15s ...", size.c_str(), workload.c_str(), m.label.c_str());
                std::fflush(stderr);
                Row r = run_one(m, size, workload, g, *topo, d, args);
                if (r.status == "ok")
                    std::fprintf(stderr, " F/F_min %.3f in %.3f s\n", r.ratio, r.seconds);
                else
                    std::fprintf(stderr, " %s\n", r.message.c_str());
                rows.push_back(r);
            }
            // auto against the best Scotch strategy of this block.
            double best_scotch = -1;
            for (size_t i = first; i < rows.size(); ++i)
                if (rows[i].status == "ok" && rows[i].mapper.rfind("scotch", 0) == 0 &&
                    (best_scotch < 0 || rows[i].F < best_scotch))
                    best_scotch = rows[i].F;
            for (size_t i = first; i < rows.size(); ++i)
                if (rows[i].mapper == "auto" && rows[i].status == "ok" && best_scotch > 0)
                    rows[i].auto_vs_scotch = rows[i].F / best_scotch;
        }
    }
    for (const auto &s : args.skip)
        for (const auto &alg : s.second) {
            bool used = false;
            for (const auto &sz : args.sizes) used = used || sz == s.first;
            if (used) skipped_notes.push_back(alg + " on " + s.first);
        }

    std::printf("rankmap mapping benchmark: F/F_min (free energy over the lower bound of Bhanot et al.), wall seconds "
                "of the mapping call, seed %llu%s\n",
                static_cast<unsigned long long>(args.seed),
                args.time_limit > 0 ? (", time limit " + fmt("%g", args.time_limit) + " s").c_str() : "");
    std::printf("cubic1/cubic2 labels scrambled by a random permutation; random = mean of %d placements; "
                "SAGE-like with %d cells per task; Scotch 7 SCOTCH_graphMap is the peer.\n",
                kRandomSamples, args.sage_cells);
    if (!skipped_notes.empty()) {
        std::printf("skipped (too slow alone at that size; --no-skip runs them):");
        for (const auto &s : skipped_notes) std::printf(" %s;", s.c_str());
        std::printf("\n");
    }
    std::printf("\n");
    if (args.markdown)
        print_markdown(rows);
    else
        print_text(rows);

    std::vector<Check> checks = summary(rows);
    std::printf("\nTargets:\n");
    for (const Check &c : checks)
        std::printf("  %-4s  %-52s %s\n", c.verdict.c_str(), c.what.c_str(), c.numbers.c_str());

    std::string mem;
    if (args.memory) {
        std::fprintf(stderr, "[64x32x32 %s] memory run (65,536 tasks, auto)...\n", args.memory_workload.c_str());
        mem = memory_report(args, argv);
        std::printf("\n%s\n", mem.c_str());
    }

    if (!args.json.empty()) {
        FILE *f = args.json == "-" ? stdout : std::fopen(args.json.c_str(), "w");
        if (!f) {
            std::fprintf(stderr, "bench/mapping: cannot write %s\n", args.json.c_str());
            return 1;
        }
        std::fprintf(f, "{\n  \"seed\": %llu,\n  \"rows\": [\n", static_cast<unsigned long long>(args.seed));
        for (size_t i = 0; i < rows.size(); ++i) {
            const Row &r = rows[i];
            std::fprintf(f,
                         "    {\"torus\": \"%s\", \"workload\": \"%s\", \"mapper\": \"%s\", \"status\": \"%s\", "
                         "\"F\": %.6g, \"ratio\": %.6g, \"seconds\": %.6g, \"auto_vs_scotch\": %s, "
                         "\"message\": \"%s\"}%s\n",
                         r.size.c_str(), r.workload.c_str(), r.mapper.c_str(), r.status.c_str(), r.F, r.ratio,
                         r.seconds, r.auto_vs_scotch >= 0 ? fmt("%.6g", r.auto_vs_scotch).c_str() : "null",
                         json_escape(r.message).c_str(), i + 1 < rows.size() ? "," : "");
        }
        std::fprintf(f, "  ],\n  \"targets\": [\n");
        for (size_t i = 0; i < checks.size(); ++i)
            std::fprintf(f, "    {\"target\": \"%s\", \"verdict\": \"%s\", \"numbers\": \"%s\"}%s\n",
                         json_escape(checks[i].what).c_str(), checks[i].verdict.c_str(),
                         json_escape(checks[i].numbers).c_str(), i + 1 < checks.size() ? "," : "");
        std::fprintf(f, "  ],\n  \"memory\": \"%s\"\n}\n", json_escape(mem).c_str());
        if (f != stdout) std::fclose(f);
    }
    return 0;
}

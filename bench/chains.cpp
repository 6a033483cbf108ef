// bench/chains -- what the cold chain brings after the hot chain when both
// start from the graph drawing (tuning.cpp: kColdFromDrawingMax, the
// AutoContext field cold_from_hot_start).  For every torus and graph it
// runs the fast preset twice in this process, with the cold chain from the
// hot chain's start allowed and left out, and prints F/F_min and seconds
// of both; "cold won" says when the extra chain ended lower.  Graphs:
// UMT-like with graph seeds 1..N (irregular meshes, where the drawing is
// the best start) and SAGE-like with scrambled labels (no band search;
// Scotch's map is the cold chain's start there, so both runs agree).
//
//   bench/chains [--sizes 16x16x8,16x16x16,32x16x16] [--graphs 5] [--markdown]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "common/text.hpp"
#include "cost/cost.hpp"
#include "graph/graph.hpp"
#include "map/mapper.hpp"
#include "map/tuning.hpp"
#include "topology/topology.hpp"
#include "workload/workload.hpp"

using namespace rankmap;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct Run {
    double ratio = 0, seconds = 0;
    std::vector<int> place;
};

Run map_once(const Graph &g, const Topology &topo, bool cold_from_hot_start) {
    ProblemData d = prepare(g, topo);
    Options opt;
    opt.seed = 1;
    Problem p{g, d.sym, topo, d.cap, d.f_min, std::nullopt, opt, Deadline(0), nullptr, nullptr};
    AutoContext c = auto_fast_preset(g.n());
    c.cold_from_hot_start = cold_from_hot_start;
    Run r;
    const double t0 = now();
    r.place = map_auto(p, c);
    r.seconds = now() - t0;
    r.ratio = free_energy(g, topo, r.place) / d.f_min;
    return r;
}

[[noreturn]] void usage(const std::string &why) {
    std::fprintf(stderr, "bench/chains: %s\nusage: bench/chains [--sizes AxBxC,...] [--graphs N] [--markdown]\n",
                 why.c_str());
    std::exit(2);
}

} // namespace

int main(int argc, char **argv) {
    std::vector<std::string> sizes = {"16x16x8", "16x16x16", "32x16x16"};
    int graphs = 5;
    bool markdown = false;
    for (int i = 1; i < argc; ++i) {
        const std::string opt = argv[i];
        if (opt == "--markdown") {
            markdown = true;
            continue;
        }
        if (i + 1 >= argc) usage("option " + opt + " needs a value");
        const std::string v = argv[++i];
        if (opt == "--sizes")
            sizes = split(v, ",");
        else if (opt == "--graphs")
            graphs = std::atoi(v.c_str());
        else
            usage("unknown option " + opt);
    }
    if (graphs < 1 || graphs > 64) usage("--graphs must be 1..64");
    std::printf("fast preset, seed 1, one core: the cold chain from the hot chain's start (the graph drawing) "
                "allowed, and left out (cold_from_hot_start = false); F/F_min and seconds of each\n\n");
    if (markdown)
        std::printf("| torus | tasks | graph | allowed: F/F_min | seconds | left out: F/F_min | seconds | cold won |\n"
                    "|---|---:|---|---:|---:|---:|---:|---|\n");
    else
        std::printf("%-10s %6s %-14s %10s %8s %10s %8s %s\n", "torus", "tasks", "graph", "allowed", "s", "left out",
                    "s", "cold won");
    std::string summary;
    for (const std::string &size : sizes) {
        std::unique_ptr<Topology> topo;
        try {
            topo = parse_topology("torus:" + size);
        } catch (const std::exception &e) {
            usage(std::string("--sizes: ") + e.what());
        }
        const int n = topo->size();
        int won = 0, total = 0;
        for (int k = 0; k <= graphs; ++k) {
            const bool sage = k == graphs;
            const std::string name = sage ? "sage-scrambled" : "umt-" + std::to_string(k + 1);
            Graph g = sage ? workload_sage(n).relabeled(scramble_permutation(n, 1))
                           : workload_umt(n, static_cast<uint64_t>(k + 1));
            const Run a = map_once(g, *topo, true), b = map_once(g, *topo, false);
            const bool same = a.place == b.place, cold_won = !same && a.ratio < b.ratio;
            won += cold_won;
            ++total;
            const char *verdict = cold_won ? "yes" : same ? "no (same placement)" : "no";
            if (markdown)
                std::printf("| %s | %d | %s | %.4f | %.2f | %.4f | %.2f | %s |\n", size.c_str(), n, name.c_str(),
                            a.ratio, a.seconds, b.ratio, b.seconds, verdict);
            else
                std::printf("%-10s %6d %-14s %10.4f %8.2f %10.4f %8.2f %s\n", size.c_str(), n, name.c_str(), a.ratio,
                            a.seconds, b.ratio, b.seconds, verdict);
            std::fflush(stdout);
        }
        summary += "  " + size + ": the cold chain from the hot chain's start ended lower in " + std::to_string(won) +
                   " of " + std::to_string(total) + " graphs\n";
    }
    std::printf("\n%s", summary.c_str());
    return 0;
}

// bench/rank0.cpp -- what "rank 0 stays rank 0" costs (a benchmark, never a
// test: it asserts nothing and exits 0 unless its own arguments are wrong).
//
// For every workload of bench/mapping's quick set (cubic1 and cubic2 with
// labels scrambled, SAGE-like, UMT-like; 512 tasks) on an 8x8x8 torus, an
// 8x8x4 torus of 2-task nodes (local=), the 8x8x8 box with mixed
// wrap-around and as a mesh, and a 3-tier tree of 512 leaves, it maps with `auto` (rankmap_map), then moves the placement so that
// task 0 sits on node 0 -- where the launcher puts rank 0 -- with
// rankmap_place_task0(), the step rankmap_reorder_ranks() takes by default
// (include/rankmap_glue.h).  It prints F free and F kept over F_min, their
// ratio, and the worst ratio over kTargets nodes spread over the machine
// (rank 0 need not start on node 0).
//
//   bench/rank0 [--markdown] [--seed N]
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "graph/graph.hpp"
#include "rankmap_glue.h"
#include "workload/workload.hpp"

namespace {

// Targets of task 0 for the worst-case column: node k * P / kTargets.
constexpr int kTargets = 16;

const char *const kMachines[] = {"torus:8x8x8",          "torus:8x8x4x2:local=0.5", "torus:8x8x8:wrap=110",
                                 "mesh:8x8x8",           "tree:8x8x8"};
const char *const kWorkloads[] = {"cubic1", "cubic2", "sage", "umt"};

struct Row {
    std::string machine, workload, how, error;
    double free_ratio = 0, kept_ratio = 0, ratio = 0, worst = 0;
};

rankmap_graph_t to_handle(const rankmap::Graph &g) {
    std::vector<int> src, dst;
    std::vector<double> w;
    for (const auto &e : g.edges()) {
        src.push_back(e.src);
        dst.push_back(e.dst);
        w.push_back(e.w);
    }
    rankmap_graph_t h = nullptr;
    if (rankmap_graph_create(g.n(), static_cast<int64_t>(src.size()), src.data(), dst.data(), w.data(), &h) !=
        RANKMAP_OK)
        return nullptr;
    return h;
}

Row run(const char *machine, const char *workload, uint64_t seed) {
    Row r;
    r.machine = machine;
    r.workload = workload;
    const std::vector<int> grid = {8, 8, 8};
    rankmap::Graph g = std::string(workload) == "sage" ? rankmap::workload_sage(512)
                                                        : rankmap::make_workload(workload, 512, grid, seed);
    if (r.workload == "cubic1" || r.workload == "cubic2") g = g.relabeled(rankmap::scramble_permutation(g.n(), seed));
    rankmap_topology_t t = nullptr;
    rankmap_graph_t gh = to_handle(g);
    std::vector<int> place(g.n());
    rankmap_report free_rep, kept;
    rankmap_options o;
    rankmap_options_init(&o);
    o.seed = seed;
    o.cache_dir = "";
    int exact = 0;
    if (!gh || rankmap_topology_parse(machine, &t) != RANKMAP_OK ||
        rankmap_map(t, gh, &o, place.data(), &free_rep) != RANKMAP_OK ||
        rankmap_evaluate(t, gh, place.data(), &free_rep) != RANKMAP_OK) {
        r.error = rankmap_last_error();
    } else {
        int nodes = 0;
        rankmap_topology_size(t, &nodes);
        for (int k = 0; k < kTargets && r.error.empty(); ++k) {
            std::vector<int> p = place;
            int ex = 0;
            if (rankmap_place_task0(t, gh, k * nodes / kTargets, p.data(), &kept, &ex) != RANKMAP_OK) {
                r.error = rankmap_last_error();
                break;
            }
            const double ratio = kept.F / free_rep.F;
            if (k == 0) {
                r.kept_ratio = kept.ratio;
                r.ratio = ratio;
                exact = ex;
            }
            if (ratio > r.worst) r.worst = ratio;
        }
        r.free_ratio = free_rep.ratio;
        r.how = exact ? "symmetry" : "symmetry + exchange";
    }
    rankmap_graph_free(gh);
    rankmap_topology_free(t);
    return r;
}

} // namespace

int main(int argc, char **argv) {
    bool markdown = false;
    uint64_t seed = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--markdown") markdown = true;
        else if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
        else {
            std::fprintf(stderr, "usage: bench/rank0 [--markdown] [--seed N]\n");
            return 2;
        }
    }
    std::vector<Row> rows;
    for (const char *m : kMachines)
        for (const char *w : kWorkloads) {
            std::fprintf(stderr, "[%s %s] ...\n", m, w);
            rows.push_back(run(m, w, seed));
        }
    std::printf("rank 0 stays rank 0: auto's placement, seed %llu, moved so that task 0 sits on node 0 "
                "(kept) or left as mapped (free); worst = highest kept/free over %d target nodes\n\n",
                static_cast<unsigned long long>(seed), kTargets);
    if (markdown) {
        std::printf("| machine | workload | F free / F_min | F kept / F_min | kept / free | worst kept / free | "
                    "how (node 0) |\n|---|---|---:|---:|---:|---:|---|\n");
        for (const auto &r : rows) {
            if (!r.error.empty()) {
                std::printf("| %s | %s | - | - | - | - | error: %s |\n", r.machine.c_str(), r.workload.c_str(),
                            r.error.c_str());
                continue;
            }
            std::printf("| %s | %s | %.3f | %.3f | %.3f | %.3f | %s |\n", r.machine.c_str(), r.workload.c_str(),
                        r.free_ratio, r.kept_ratio, r.ratio, r.worst, r.how.c_str());
        }
    } else {
        std::printf("%-22s %-8s %10s %10s %8s %8s  %s\n", "machine", "workload", "free/Fmin", "kept/Fmin",
                    "kept/fr", "worst", "how");
        for (const auto &r : rows) {
            if (!r.error.empty()) {
                std::printf("%-22s %-8s error: %s\n", r.machine.c_str(), r.workload.c_str(), r.error.c_str());
                continue;
            }
            std::printf("%-22s %-8s %10.3f %10.3f %8.3f %8.3f  %s\n", r.machine.c_str(), r.workload.c_str(),
                        r.free_ratio, r.kept_ratio, r.ratio, r.worst, r.how.c_str());
        }
    }
    return 0;
}

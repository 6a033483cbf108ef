// bench/cache.cpp -- the mapping cache ("wisdom") at 4096 tasks: time of a
// cache hit (key digest + load + verification) against the miss it saves
// (the full `auto` mapping plus the store), in the same run.
//
//   bench/cache [--size 16x16x16] [--workloads sage,umt] [--repeat 20] [--markdown]
//
// Workloads are the SAGE-like and UMT-like graphs (src/workload) of Bhanot
// et al., "Optimizing task layout on the Blue Gene/L supercomputer", on
// torus:<size>.  The hit time is the median of --repeat lookups; the table
// also splits it into the key digest and the load + verification.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <dirent.h>
#include <unistd.h>

#include "common/error.hpp"
#include "common/text.hpp"
#include "common/timer.hpp"
#include "profile/cache.hpp"
#include "workload/workload.hpp"

using namespace rankmap;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

void remove_dir(const std::string &dir) {
    if (DIR *d = opendir(dir.c_str())) {
        while (dirent *e = readdir(d))
            if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) unlink((dir + "/" + e->d_name).c_str());
        closedir(d);
    }
    rmdir(dir.c_str());
}

} // namespace

int main(int argc, char **argv) {
    std::string size = "16x16x16", workloads = "sage,umt";
    int repeat = 20;
    bool markdown = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "bench/cache: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--size") size = next();
        else if (a == "--workloads") workloads = next();
        else if (a == "--repeat") repeat = std::max(1, std::atoi(next().c_str()));
        else if (a == "--markdown") markdown = true;
        else {
            std::fprintf(stderr, "usage: bench/cache [--size AxBxC] [--workloads sage,umt] [--repeat N] [--markdown]\n");
            return 2;
        }
    }
    try {
        auto topo = parse_topology("torus:" + size);
        const int n = topo->size();
        char tmpl[] = "/tmp/rankmap-bench-cache-XXXXXX";
        const char *dp = mkdtemp(tmpl);
        if (!dp) throw Error("cannot create a temporary directory", ErrorKind::Io);
        const std::string dir = dp;
        std::printf("rankmap wisdom cache benchmark: torus:%s, %d tasks, mapper auto, seed 1; hit = median of %d lookups\n",
                    size.c_str(), n, repeat);
        if (markdown) {
            std::printf("\n| workload | tasks | edges | miss: map + store (s) | hit (ms) | of which key digest (ms) | "
                        "load + verify (ms) | miss / hit | same placement |\n");
            std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
        } else {
            std::printf("%-9s %6s %8s %12s %9s %10s %13s %11s %s\n", "workload", "tasks", "edges", "miss_s", "hit_ms",
                        "key_ms", "load_ms", "miss/hit", "same");
        }
        bool all_fast = true, all_same = true;
        double worst_hit = 0;
        for (auto &w : split(workloads, ",")) {
            Graph g = make_workload(w, n, topo->dims(), 1);
            Options o;
            auto warn = [](const std::string &m) { std::fprintf(stderr, "bench/cache: warning: %s\n", m.c_str()); };
            CachedMapping miss = map_with_cache(g, *topo, Algorithm::Auto, o, std::nullopt, dir, nullptr, nullptr, warn);
            if (miss.hit) throw Error("first lookup hit: the cache directory was not empty");
            std::vector<double> hit_ms, key_ms, load_ms;
            bool same = true;
            for (int r = 0; r < repeat; ++r) {
                Deadline t0;
                CachedMapping hit = map_with_cache(g, *topo, Algorithm::Auto, o, std::nullopt, dir, nullptr, nullptr, warn);
                hit_ms.push_back(1e3 * t0.elapsed());
                same = same && hit.hit && hit.entry.place == miss.entry.place;
                Deadline t1;
                CacheKey k = cache_key(g, *topo, "auto", o, std::nullopt);
                key_ms.push_back(1e3 * t1.elapsed());
                Deadline t2;
                auto e = cache_load(dir, k, g, *topo, warn);
                load_ms.push_back(1e3 * t2.elapsed());
                same = same && e && e->place == miss.entry.place;
            }
            const double h = median(hit_ms);
            worst_hit = std::max(worst_hit, h);
            all_fast = all_fast && h < 10;
            all_same = all_same && same;
            if (markdown)
                std::printf("| %s | %d | %lld | %.2f | %.2f | %.2f | %.2f | %.0f | %s |\n", w.c_str(), n,
                            static_cast<long long>(g.nedges()), miss.seconds, h, median(key_ms), median(load_ms),
                            miss.seconds / (h / 1e3), same ? "yes" : "NO");
            else
                std::printf("%-9s %6d %8lld %12.2f %9.2f %10.2f %13.2f %11.0f %s\n", w.c_str(), n,
                            static_cast<long long>(g.nedges()), miss.seconds, h, median(key_ms), median(load_ms),
                            miss.seconds / (h / 1e3), same ? "yes" : "NO");
        }
        remove_dir(dir);
        std::printf("\nTargets:\n  %s  cache hit < 10 ms at %d tasks                 slowest median hit %.2f ms\n",
                    all_fast ? "PASS" : "MISS", n, worst_hit);
        std::printf("  %s  a hit returns the placement the miss computed\n", all_same ? "PASS" : "FAIL");
        return all_same ? 0 : 1;
    } catch (const Error &e) {
        std::fprintf(stderr, "bench/cache: error: %s\n", e.what());
        return 1;
    }
}

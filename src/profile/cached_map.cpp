// cached_map.cpp -- mapping through the wisdom cache (see cache.hpp): look
// the job shape up, run the mapper on a miss, store the result.  Shared by
// the C API (rankmap_map, hence the patched MPICH and the PMPI plugin) and
// the CLI.  A hit costs the key digest plus the entry's verification.
#include "common/error.hpp"
#include "profile/cache.hpp"

namespace rankmap {

CachedMapping map_with_cache(const Graph &g, const Topology &topo, Algorithm alg, const Options &opt,
                             const std::optional<CartGrid> &grid, const std::string &dir,
                             std::vector<TracePoint> *trace, const std::function<void(const std::string &)> &progress,
                             const CacheWarn &warn, std::optional<Algorithm> offline) {
    CachedMapping r;
    Deadline clock(0);
    CacheKey key;
    if (!dir.empty()) {
        if (offline && *offline != alg && !trace) {
            CacheKey ok = cache_key(g, topo, algorithm_name(*offline), opt, grid);
            if (auto e = cache_load(dir, ok, g, topo, warn)) {
                r.entry = std::move(*e);
                r.hit = true;
                r.path = cache_path(dir, ok);
                r.seconds = clock.elapsed();
                return r;
            }
        }
        key = cache_key(g, topo, algorithm_name(alg), opt, grid);
        r.path = cache_path(dir, key);
        if (!trace) {
            if (auto e = cache_load(dir, key, g, topo, warn)) {
                r.entry = std::move(*e);
                r.hit = true;
                r.seconds = clock.elapsed();
                return r;
            }
        }
    }
    ProblemData d = prepare(g, topo);
    bool stopped = false;
    Problem p{g, d.sym, topo, d.cap, d.f_min, grid, opt, Deadline(opt.time_limit), trace, progress, &stopped};
    r.entry.place = run_mapper(alg, p);
    r.entry.seconds = clock.elapsed();
    if (opt.time_limit > 0 && r.entry.seconds > 1.5 * opt.time_limit + 0.5)
        throw Error("mapper '" + std::string(algorithm_name(alg)) + "' overran its time limit", ErrorKind::Timeout);
    r.entry.report = evaluate(g, topo, r.entry.place, d.f_min);
    // a search the safety net ended is named so (the report's algorithm)
    // and not cached: it depends on the machine's speed, not only the key
    r.entry.algorithm = std::string(algorithm_name(alg)) + (stopped ? ", safety stop" : "");
    if (stopped && warn)
        warn("the wall-clock safety net ended the '" + std::string(algorithm_name(alg)) +
             "' search; the result depends on the machine's speed and load (set a time limit, or map offline)");
    if (!dir.empty() && !stopped) {
        try {
            cache_store(dir, key, topo, r.entry);
        } catch (const Error &e) {
            if (warn) warn(std::string(e.what()) + "; result not cached");
        }
    }
    r.seconds = clock.elapsed();
    return r;
}

} // namespace rankmap

// fuzz_cache.cpp -- libFuzzer target for the wisdom entry loader
// (src/profile/cache.cpp, cache_load -> cache_decode).  The job is fixed (a
// 16-task ring on torus:2x2x2:slots=2, algorithm "greedy", seed 1); the
// input is the entry file.  An entry that loads must be a valid placement.
// Seeds: LLVMFuzzerInitialize writes a valid entry of this job to
// $RANKMAP_FUZZ_SEED_DIR when that is set (run-fuzz.sh does).
#include <cstdlib>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "common/error.hpp"
#include "cost/cost.hpp"
#include "fuzz_common.hpp"
#include "profile/cache.hpp"

namespace {

struct Job {
    rankmap::Graph g;
    std::unique_ptr<rankmap::Topology> t;
    rankmap::CacheKey key;
    std::string dir;
};

Job &job() {
    static Job j = [] {
        Job k;
        std::vector<rankmap::Edge> es;
        for (int i = 0; i < 16; ++i) es.push_back({i, (i + 1) % 16, 1.0 + i % 3});
        k.g = rankmap::Graph::from_edges(16, es);
        k.t = rankmap::parse_topology("torus:2x2x2:slots=2");
        rankmap::Options o;
        k.key = rankmap::cache_key(k.g, *k.t, "greedy", o, std::nullopt);
        const char *d = std::getenv("TMPDIR");
        k.dir = std::string(d && *d ? d : "/tmp") + "/rankmap-fuzz-wisdom-" + std::to_string(getpid());
        return k;
    }();
    return j;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    const char *seed_dir = std::getenv("RANKMAP_FUZZ_SEED_DIR");
    if (!seed_dir) return 0;
    Job &j = job();
    rankmap::CacheEntry e;
    for (int i = 0; i < 16; ++i) e.place.push_back(i / 2);
    e.report = rankmap::evaluate(j.g, *j.t, e.place);
    e.algorithm = "greedy";
    e.seconds = 0.25;
    std::string bytes = rankmap::cache_encode(j.key, *j.t, e);
    std::ofstream(std::string(seed_dir) + "/seed-valid.wisdom", std::ios::binary) << std::string("\0", 1) << bytes;
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    Job &j = job();
    static bool made = false;
    if (!made) {
        ::mkdir(j.dir.c_str(), 0700);
        made = true;
    }
    // The loader reads DIR/<key>.wisdom: put the input there.
    const std::string path = rankmap::cache_path(j.dir, j.key);
    std::FILE *f = std::fopen(path.c_str(), "wb");
    if (!f) fuzz::cannot_write(path);
    if (size > 1 && std::fwrite(data + 1, 1, size - 1, f) != size - 1) std::abort();
    std::fclose(f);
    std::string warning;
    auto e = rankmap::cache_load(j.dir, j.key, j.g, *j.t, [&](const std::string &w) { warning = w; });
    if (e) {
        if (!warning.empty()) std::abort();
        rankmap::check_placement(*j.t, j.g.n(), e->place);  // throws -> crash: must not happen
    } else if (warning.find(path) == std::string::npos) {
        std::abort();  // a rejected entry is always reported, naming the file
    }
    return 0;
}

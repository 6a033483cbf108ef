// test_cache.cpp -- the mapping cache ("wisdom", src/profile/cache.cpp):
// hits return the stored placement, damaged or stale entries are ignored
// with a warning naming the file and are rewritten, concurrent writers
// leave a valid entry, and the C API honours cache_dir / RANKMAP_WISDOM.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <string>

#include "common/error.hpp"
#include "profile/cache.hpp"
#include "rankmap.h"
#include "workload/workload.hpp"

using namespace rankmap;

namespace {

std::string make_dir() {
    char tmpl[] = "/tmp/rankmap-wisdom-test-XXXXXX";
    const char *d = mkdtemp(tmpl);
    if (!d) std::abort();
    return d;
}

void remove_dir(const std::string &dir) {
    if (DIR *d = opendir(dir.c_str())) {
        while (dirent *e = readdir(d))
            if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) unlink((dir + "/" + e->d_name).c_str());
        closedir(d);
    }
    rmdir(dir.c_str());
}

int count_files(const std::string &dir) {
    int n = 0;
    if (DIR *d = opendir(dir.c_str())) {
        while (dirent *e = readdir(d)) n += e->d_name[0] != '.';
        closedir(d);
    }
    return n;
}

int count_temp_files(const std::string &dir) {
    int n = 0;
    if (DIR *d = opendir(dir.c_str())) {
        while (dirent *e = readdir(d)) n += std::strstr(e->d_name, ".tmp.") != nullptr;
        closedir(d);
    }
    return n;
}

std::string slurp(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void spit(const std::string &path, const std::string &bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// A small job: scrambled cubic1 on torus:4x4x4 (64 tasks), greedy mapper.
struct Job {
    Graph g;
    std::unique_ptr<Topology> t = parse_topology("torus:4x4x4");
    Options o;
    Algorithm alg = Algorithm::Greedy;
    Job() {
        g = make_workload("cubic1", 64, {4, 4, 4}, 1);
        g = g.relabeled(scramble_permutation(64, 7));
    }
    CachedMapping run(const std::string &dir, std::string *warning = nullptr) {
        return map_with_cache(g, *t, alg, o, std::nullopt, dir, nullptr, nullptr, [&](const std::string &w) {
            if (warning) *warning += w + "\n";
        });
    }
    CacheKey key() const { return cache_key(g, *t, algorithm_name(alg), o, std::nullopt); }
};

// The same job through the C API: 64 tasks, task i sends to 7i + 1 mod 64,
// and the default options.
struct CApiJob {
    rankmap_topology_t t = nullptr;
    rankmap_graph_t g = nullptr;
    std::vector<int> src, dst;
    rankmap_options o;  // the defaults
    bool ok = false;
    CApiJob() {
        rankmap_options_init(&o);
        for (int i = 0; i < 64; ++i) src.push_back(i), dst.push_back((i * 7 + 1) % 64);
        ok = rankmap_topology_parse("torus:4x4x4", &t) == RANKMAP_OK &&
             rankmap_graph_create(64, 64, src.data(), dst.data(), nullptr, &g) == RANKMAP_OK;
    }
    ~CApiJob() {
        rankmap_graph_free(g);
        rankmap_topology_free(t);
    }
};

class TheWisdomCache : public ::testing::Test {
protected:
    void SetUp() override { dir = make_dir(); }
    void TearDown() override { remove_dir(dir); }
    std::string dir;
    Job job;
};

} // namespace

TEST_F(TheWisdomCache, ReturnsTheStoredPlacementOnAHit) {
    std::string w;
    CachedMapping first = job.run(dir, &w);
    EXPECT_FALSE(first.hit);
    EXPECT_EQ(first.path, dir + "/" + job.key().hex() + ".wisdom");
    EXPECT_EQ(count_files(dir), 1);
    CachedMapping second = job.run(dir, &w);
    EXPECT_TRUE(second.hit);
    EXPECT_EQ(second.entry.place, first.entry.place);
    EXPECT_DOUBLE_EQ(second.entry.report.F, first.entry.report.F);
    EXPECT_DOUBLE_EQ(second.entry.report.F_min, first.entry.report.F_min);
    EXPECT_EQ(second.entry.algorithm, "greedy");
    EXPECT_EQ(w, "");
    // The stored F is the placement's.
    EXPECT_DOUBLE_EQ(second.entry.report.F, free_energy(job.g, *job.t, second.entry.place));
}

TEST_F(TheWisdomCache, KeysDependOnGraphTopologyAndSettings) {
    const CacheKey k = job.key();
    EXPECT_EQ(k, job.key());
    Options o2 = job.o;
    o2.seed = 2;
    EXPECT_FALSE(k == cache_key(job.g, *job.t, "greedy", o2, std::nullopt));
    EXPECT_FALSE(k == cache_key(job.g, *job.t, "anneal", job.o, std::nullopt));
    auto t2 = parse_topology("mesh:4x4x4");
    EXPECT_FALSE(k == cache_key(job.g, *t2, "greedy", job.o, std::nullopt));
    // One weight changed.
    auto es = job.g.edges();
    es[0].w += 1;
    Graph g2 = Graph::from_edges(job.g.n(), es);
    EXPECT_FALSE(k == cache_key(g2, *job.t, "greedy", job.o, std::nullopt));
    CartGrid grid{{4, 4, 4}, {1, 1, 1}};
    EXPECT_FALSE(k == cache_key(job.g, *job.t, "greedy", job.o, grid));
    // verbose is not part of the key
    Options o3 = job.o;
    o3.verbose = 2;
    EXPECT_EQ(k, cache_key(job.g, *job.t, "greedy", o3, std::nullopt));
}

namespace {
// Damage the entry with `edit`, run again: expect a warning naming the file
// and containing `why`, a recomputed (same) placement, and a rewritten
// entry that then hits.
void expect_ignored(TheWisdomCache *, Job &job, const std::string &dir,
                    const std::function<void(std::string &)> &edit, const std::string &why) {
    CachedMapping first = job.run(dir);
    std::string bytes = slurp(first.path);
    edit(bytes);
    spit(first.path, bytes);
    std::string w;
    CachedMapping again = job.run(dir, &w);
    EXPECT_FALSE(again.hit) << why;
    EXPECT_EQ(again.entry.place, first.entry.place);
    EXPECT_NE(w.find("wisdom entry '" + first.path + "'"), std::string::npos) << w;
    EXPECT_NE(w.find(why), std::string::npos) << w;
    EXPECT_NE(w.find("ignored"), std::string::npos) << w;
    std::string w2;
    EXPECT_TRUE(job.run(dir, &w2).hit) << "entry not rewritten after: " << why;
    EXPECT_EQ(w2, "");
}
} // namespace

TEST_F(TheWisdomCache, IgnoresACorruptPayload) {
    expect_ignored(this, job, dir, [](std::string &b) { b[b.size() - 3] ^= 0x40; }, "checksum mismatch");
}

TEST_F(TheWisdomCache, IgnoresATruncatedEntry) {
    expect_ignored(this, job, dir, [](std::string &b) { b.resize(b.size() - 4); }, "truncated");
    expect_ignored(this, job, dir, [](std::string &b) { b.resize(50); }, "truncated: 50 bytes");
    expect_ignored(this, job, dir, [](std::string &b) { b.clear(); }, "truncated: 0 bytes");
}

TEST_F(TheWisdomCache, IgnoresTrailingBytes) {
    expect_ignored(this, job, dir, [](std::string &b) { b += "xyz"; }, "trailing bytes");
}

TEST_F(TheWisdomCache, IgnoresAStaleFormatVersion) {
    expect_ignored(this, job, dir, [](std::string &b) { b[8] = 2; }, "format version 2");
}

TEST_F(TheWisdomCache, IgnoresAnEntryOfAnotherKey) {
    expect_ignored(this, job, dir, [](std::string &b) { b[20] ^= 1; }, "key does not match");
}

TEST_F(TheWisdomCache, IgnoresSomethingElse) {
    expect_ignored(this, job, dir, [](std::string &b) { b.replace(0, 8, "#!/bin/s"); }, "bad magic");
}

TEST_F(TheWisdomCache, IgnoresAnInvalidPlacementWithAGoodChecksum) {
    // Re-encode (valid checksum) with two tasks on one node.
    CachedMapping first = job.run(dir);
    CacheEntry e = first.entry;
    e.place[1] = e.place[0];
    spit(first.path, cache_encode(job.key(), *job.t, e));
    std::string w;
    CachedMapping again = job.run(dir, &w);
    EXPECT_FALSE(again.hit);
    EXPECT_NE(w.find("invalid placement"), std::string::npos) << w;
    EXPECT_EQ(again.entry.place, first.entry.place);
}

TEST_F(TheWisdomCache, IgnoresAStoredFThatIsNotThePlacements) {
    CachedMapping first = job.run(dir);
    CacheEntry e = first.entry;
    std::swap(e.place[0], e.place[5]);  // still valid, F changes
    spit(first.path, cache_encode(job.key(), *job.t, e));
    std::string w;
    EXPECT_FALSE(job.run(dir, &w).hit);
    EXPECT_NE(w.find("stored F does not match"), std::string::npos) << w;
}

TEST_F(TheWisdomCache, TreatsAnUnwritableDirectoryAsAWarning) {
    std::string w;
    CachedMapping m = job.run("/proc/no-such-dir/wisdom", &w);
    EXPECT_FALSE(m.hit);
    EXPECT_EQ(m.entry.place.size(), 64u);
    EXPECT_NE(w.find("result not cached"), std::string::npos) << w;
}

TEST_F(TheWisdomCache, SurvivesConcurrentWritersOfOneKey) {
    // 6 processes store the same key 30 times each while another loads it
    // in a loop: the reader never sees a damaged entry, no temp file stays.
    CachedMapping base = job.run(dir);
    const CacheKey key = job.key();
    std::vector<pid_t> kids;
    for (int k = 0; k < 6; ++k) {
        pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            CacheEntry e = base.entry;
            for (int i = 0; i < 30; ++i) {
                e.seconds = k * 100 + i;  // entries differ in bytes, all valid
                try {
                    cache_store(dir, key, *job.t, e);
                } catch (...) {
                    _exit(2);
                }
            }
            _exit(0);
        }
        kids.push_back(pid);
    }
    pid_t reader = fork();
    ASSERT_GE(reader, 0);
    if (reader == 0) {
        for (int i = 0; i < 300; ++i) {
            bool bad = false;
            auto e = cache_load(dir, key, job.g, *job.t, [&](const std::string &) { bad = true; });
            if (bad || !e) _exit(3);
        }
        _exit(0);
    }
    kids.push_back(reader);
    for (pid_t p : kids) {
        int status = 0;
        ASSERT_EQ(waitpid(p, &status, 0), p);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
    }
    std::string w;
    auto e = cache_load(dir, key, job.g, *job.t, [&](const std::string &m) { w = m; });
    ASSERT_TRUE(e.has_value()) << w;
    EXPECT_EQ(e->place, base.entry.place);
    EXPECT_EQ(count_temp_files(dir), 0);
    EXPECT_EQ(count_files(dir), 1);
}

TEST_F(TheWisdomCache, IsUsedByTheCApiThroughCacheDirAndTheEnvironment) {
    CApiJob cj;
    ASSERT_TRUE(cj.ok) << rankmap_last_error();
    rankmap_topology_t t = cj.t;
    rankmap_graph_t g = cj.g;
    rankmap_options &o = cj.o;
    EXPECT_EQ(o.cache_dir, nullptr);
    o.algorithm = "greedy";
    o.cache_dir = dir.c_str();
    std::vector<int> p1(64), p2(64), p3(64);
    rankmap_report r1, r2;
    ASSERT_EQ(rankmap_map(t, g, &o, p1.data(), &r1), RANKMAP_OK);
    EXPECT_EQ(count_files(dir), 1);
    ASSERT_EQ(rankmap_map(t, g, &o, p2.data(), &r2), RANKMAP_OK);
    EXPECT_EQ(p1, p2);
    EXPECT_DOUBLE_EQ(r1.F, r2.F);
    EXPECT_STREQ(r2.algorithm, "greedy");
    // cache_dir "" = off even when RANKMAP_WISDOM is set
    const std::string env_dir = dir + "/env";
    setenv("RANKMAP_WISDOM", env_dir.c_str(), 1);
    o.cache_dir = "";
    ASSERT_EQ(rankmap_map(t, g, &o, p3.data(), nullptr), RANKMAP_OK);
    EXPECT_EQ(access(env_dir.c_str(), F_OK), -1);
    // NULL = the environment
    o.cache_dir = nullptr;
    ASSERT_EQ(rankmap_map(t, g, &o, p3.data(), nullptr), RANKMAP_OK);
    EXPECT_EQ(count_files(env_dir), 1);
    EXPECT_EQ(p3, p1);
    unsetenv("RANKMAP_WISDOM");
    remove_dir(env_dir);
}

// The in-call default ("auto" through the C API) is the fast strategy, but a
// quality mapping of the same job computed ahead (`rankmap map`, whose
// default is quality) is taken from the cache first.
TEST_F(TheWisdomCache, TheInCallDefaultTakesAQualityMappingComputedAhead) {
    CApiJob cj;
    ASSERT_TRUE(cj.ok) << rankmap_last_error();
    rankmap_topology_t t = cj.t;
    rankmap_graph_t g = cj.g;
    rankmap_options &o = cj.o;
    EXPECT_STREQ(o.algorithm, "auto");
    o.cache_dir = dir.c_str();
    std::vector<int> p(64);
    rankmap_report r;
    ASSERT_EQ(rankmap_map(t, g, &o, p.data(), &r), RANKMAP_OK) << rankmap_last_error();
    EXPECT_STREQ(r.algorithm, "fast");  // nothing computed ahead: fast, stored under its own name
    EXPECT_EQ(count_files(dir), 1);

    // The same job mapped ahead with the quality strategy, as `rankmap map` does.
    std::vector<Edge> es;
    for (int i = 0; i < 64; ++i) es.push_back({cj.src[i], cj.dst[i], 1.0});
    Graph same = Graph::from_edges(64, es);
    Options mo;
    mo.seed = o.seed;
    CachedMapping ahead = map_with_cache(same, *parse_topology("torus:4x4x4"), Algorithm::Auto, mo, std::nullopt,
                                         dir, nullptr, nullptr, nullptr);
    EXPECT_FALSE(ahead.hit);
    EXPECT_EQ(ahead.entry.algorithm, "auto");
    EXPECT_EQ(count_files(dir), 2);

    ASSERT_EQ(rankmap_map(t, g, &o, p.data(), &r), RANKMAP_OK);
    EXPECT_STREQ(r.algorithm, "auto");  // the quality entry, not a new fast run
    EXPECT_EQ(p, ahead.entry.place);
    // Asking for fast by name does not read the quality entry.
    o.algorithm = "fast";
    ASSERT_EQ(rankmap_map(t, g, &o, p.data(), &r), RANKMAP_OK);
    EXPECT_STREQ(r.algorithm, "fast");
}

// cache.hpp -- the mapping cache ("wisdom"): a placement computed once for a
// job shape is stored under a key of (graph, topology, mapper settings,
// library version), so the next run of the same shape loads it instead of
// annealing again.
//
// One entry = one file DIR/<32 hex digits of the key>.wisdom, binary:
//   0  "RMWISDOM"                  magic, 8 bytes
//   8  u32 format version (1)      12  u32 0x01020304 (byte order)
//   16 u64 key[2]                  the full 128-bit digest of the key material
//   32 u64 N (tasks), u64 P (nodes)
//   48 f64 F, F_min, ratio, avg_dilation, max_link_load, seconds
//   96 char algorithm[32]          NUL-terminated mapper name
//   128 u64 checksum               of bytes 0..127 and of the payload
//   136 i32 node[N]                the placement
// Entries are verified on load (size, magic, version, byte order, key, N, P,
// checksum, a valid placement, and F recomputed from the placement equal to
// the stored F); anything wrong is reported through `warn` naming the file
// and the entry is ignored.  Writes go to a temporary file in the same
// directory, are fsync'ed and renamed over the entry, so a concurrent reader
// or writer never sees half an entry.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cost/cost.hpp"
#include "graph/graph.hpp"
#include "map/mapper.hpp"
#include "topology/topology.hpp"

namespace rankmap {

struct CacheKey {
    uint64_t h[2] = {0, 0};
    std::string hex() const;
    bool operator==(const CacheKey &o) const { return h[0] == o.h[0] && h[1] == o.h[1]; }
};

// Digest of everything that determines the mapper's result.  `algorithm` is
// the canonical mapper name; the verbose level is not part of the key.
CacheKey cache_key(const Graph &g, const Topology &topo, const std::string &algorithm, const Options &opt,
                   const std::optional<CartGrid> &grid);

struct CacheEntry {
    std::vector<int> place;
    CostReport report;
    double seconds = 0;     // time the original mapping took
    std::string algorithm;  // mapper that produced it
};

using CacheWarn = std::function<void(const std::string &)>;

// Environment setting naming the cache directory (unset or empty: no cache).
constexpr const char *kWisdomEnv = "RANKMAP_WISDOM";
std::string cache_dir_from_env();
std::string cache_path(const std::string &dir, const CacheKey &key);

// Serialise / check one entry (the loader's core, also the fuzz target's).
// cache_decode throws rankmap::Error saying what is wrong with `bytes`.
std::string cache_encode(const CacheKey &key, const Topology &topo, const CacheEntry &e);
CacheEntry cache_decode(const std::string &bytes, const CacheKey &key, const Graph &g, const Topology &topo);

// Load the entry of `key` from `dir`: nullopt when there is none (silent) or
// when it fails verification (warn("wisdom entry 'PATH': ...; ignored")).
std::optional<CacheEntry> cache_load(const std::string &dir, const CacheKey &key, const Graph &g,
                                     const Topology &topo, const CacheWarn &warn);
// Store atomically (temp file + fsync + rename); creates `dir` if missing.
// Throws rankmap::Error (Io) naming the file on failure.
void cache_store(const std::string &dir, const CacheKey &key, const Topology &topo, const CacheEntry &e);

// Map through the cache: load the entry of (g, topo, alg, opt, grid) from
// `dir` or run the mapper, then store the result.  dir "" = no cache.  A
// bad entry or a failed store is a warning, never an error.  With `trace`
// the cache is not consulted (a trace needs the annealing to run) but the
// result is stored.  With `offline` set, that strategy's entry (a mapping
// computed ahead with `rankmap map`, e.g. quality) is looked up before
// alg's own: the in-call fast strategy takes it when it is there.
struct CachedMapping {
    CacheEntry entry;
    bool hit = false;
    std::string path;      // the entry's file ("" without a cache)
    double seconds = 0;    // wall time of this call (lookup, or mapping + store)
};
CachedMapping map_with_cache(const Graph &g, const Topology &topo, Algorithm alg, const Options &opt,
                             const std::optional<CartGrid> &grid, const std::string &dir,
                             std::vector<TracePoint> *trace, const std::function<void(const std::string &)> &progress,
                             const CacheWarn &warn, std::optional<Algorithm> offline = std::nullopt);

} // namespace rankmap

// cache.cpp -- mapping cache entries (see cache.hpp): key digest, encoding,
// verification on load, atomic store.  The key hashes the graph's CSR
// (O(N + E) words), so a lookup costs about one pass over the graph plus
// one free-energy evaluation (O(E)) to verify the stored placement.
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "profile/cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/error.hpp"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

namespace rankmap {

namespace {

constexpr char kMagic[8] = {'R', 'M', 'W', 'I', 'S', 'D', 'O', 'M'};
constexpr uint32_t kFormat = 1;
constexpr uint32_t kByteOrder = 0x01020304u;
constexpr size_t kHeader = 136;
constexpr size_t kChecksumAt = 128;

// 128-bit digest: two lanes of 64-bit words, each mixed with the SplitMix64
// finaliser.  Not cryptographic (entries are verified on load anyway: a
// colliding entry can at worst supply another valid placement).
uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

class Hasher {
public:
    void word(uint64_t w) {
        a_ = mix(a_ ^ w) + 0x9e3779b97f4a7c15ULL;
        b_ = mix(b_ + w * 0xff51afd7ed558ccdULL) ^ (b_ >> 17);
        ++n_;
    }
    void bytes(const void *p, size_t len) {
        const unsigned char *c = static_cast<const unsigned char *>(p);
        size_t i = 0;
        for (; i + 8 <= len; i += 8) {
            uint64_t w;
            std::memcpy(&w, c + i, 8);
            word(w);
        }
        uint64_t tail = 0;
        if (len > i) std::memcpy(&tail, c + i, len - i);
        word(tail ^ (static_cast<uint64_t>(len) << 56));
    }
    void str(const std::string &s) { bytes(s.data(), s.size()); }
    void real(double d) {
        uint64_t w;
        std::memcpy(&w, &d, 8);
        word(w);
    }
    CacheKey digest() const {
        CacheKey k;
        k.h[0] = mix(a_ ^ n_);
        k.h[1] = mix(b_ + (n_ << 1));
        return k;
    }

private:
    uint64_t a_ = 0x243f6a8885a308d3ULL, b_ = 0x13198a2e03707344ULL, n_ = 0;
};

template <class T> void put(std::string &s, const T &v) { s.append(reinterpret_cast<const char *>(&v), sizeof v); }
template <class T> T get(const std::string &s, size_t at) {
    T v;
    std::memcpy(&v, s.data() + at, sizeof v);
    return v;
}

uint64_t checksum(const std::string &bytes) {
    Hasher h;
    h.bytes(bytes.data(), kChecksumAt);
    h.bytes(bytes.data() + kHeader, bytes.size() - kHeader);
    return h.digest().h[0];
}

} // namespace

std::string CacheKey::hex() const {
    char buf[33];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h[0]),
                  static_cast<unsigned long long>(h[1]));
    return buf;
}

CacheKey cache_key(const Graph &g, const Topology &topo, const std::string &algorithm, const Options &opt,
                   const std::optional<CartGrid> &grid) {
    Hasher h;
    h.str("rankmap-wisdom-key 1");
    h.str(PACKAGE_VERSION);
    h.str(topo.describe());
    if (topo.kind() == TopologyKind::Matrix) {
        // file: names a path; its contents are what matter.
        const int P = topo.size();
        for (int i = 0; i < P; ++i)
            for (int j = i + 1; j < P; ++j) h.real(topo.distance(i, j));
    }
    h.str(algorithm);
    h.word(opt.seed);
    h.real(opt.time_limit);
    h.str(opt.order);
    h.str(opt.strategy);
    h.real(opt.l_ratio);
    h.word(static_cast<uint64_t>(opt.anneal_steps));
    h.word(grid ? grid->dims.size() : 0);
    if (grid) {
        for (int d : grid->dims) h.word(static_cast<uint64_t>(d));
        for (int p : grid->periods) h.word(static_cast<uint64_t>(p));
    }
    h.word(static_cast<uint64_t>(g.n()));
    const auto &x = g.xadj();
    h.bytes(x.data(), x.size() * sizeof(int64_t));
    h.bytes(g.adj().data(), g.adj().size() * sizeof(int));
    h.bytes(g.weights().data(), g.weights().size() * sizeof(double));
    return h.digest();
}

std::string cache_dir_from_env() {
    const char *d = std::getenv(kWisdomEnv);
    return d ? d : "";
}

std::string cache_path(const std::string &dir, const CacheKey &key) { return dir + "/" + key.hex() + ".wisdom"; }

std::string cache_encode(const CacheKey &key, const Topology &topo, const CacheEntry &e) {
    std::string s;
    s.reserve(kHeader + 4 * e.place.size());
    s.append(kMagic, 8);
    put(s, kFormat);
    put(s, kByteOrder);
    put(s, key.h[0]);
    put(s, key.h[1]);
    put(s, static_cast<uint64_t>(e.place.size()));
    put(s, static_cast<uint64_t>(topo.size()));
    for (double d : {e.report.F, e.report.F_min, e.report.ratio, e.report.avg_dilation, e.report.max_link_load,
                     e.seconds})
        put(s, d);
    char alg[32] = {0};
    std::strncpy(alg, e.algorithm.c_str(), sizeof alg - 1);
    s.append(alg, sizeof alg);
    put(s, uint64_t{0});  // checksum, filled below
    for (int v : e.place) put(s, static_cast<int32_t>(v));
    const uint64_t sum = checksum(s);
    std::memcpy(&s[kChecksumAt], &sum, sizeof sum);
    return s;
}

CacheEntry cache_decode(const std::string &b, const CacheKey &key, const Graph &g, const Topology &topo) {
    if (b.size() < kHeader)
        throw Error("truncated: " + std::to_string(b.size()) + " bytes, the header alone has " +
                    std::to_string(kHeader));
    if (std::memcmp(b.data(), kMagic, 8) != 0) throw Error("not a rankmap wisdom entry (bad magic)");
    const uint32_t fmt = get<uint32_t>(b, 8);
    if (fmt != kFormat)
        throw Error("format version " + std::to_string(fmt) + ", this rankmap reads " + std::to_string(kFormat) +
                    " (stale entry)");
    if (get<uint32_t>(b, 12) != kByteOrder) throw Error("written on a machine of another byte order");
    if (get<uint64_t>(b, 16) != key.h[0] || get<uint64_t>(b, 24) != key.h[1])
        throw Error("its key does not match this job (stale or misplaced entry)");
    const uint64_t n = get<uint64_t>(b, 32), p = get<uint64_t>(b, 40);
    if (n != static_cast<uint64_t>(g.n()) || p != static_cast<uint64_t>(topo.size()))
        throw Error("holds " + std::to_string(n) + " tasks on " + std::to_string(p) + " nodes, the job has " +
                    std::to_string(g.n()) + " on " + std::to_string(topo.size()));
    if (b.size() != kHeader + 4 * n)
        throw Error((b.size() < kHeader + 4 * n ? "truncated: " : "trailing bytes: ") + std::to_string(b.size()) +
                    " bytes, expected " + std::to_string(kHeader + 4 * n));
    if (get<uint64_t>(b, kChecksumAt) != checksum(b)) throw Error("checksum mismatch (corrupt entry)");
    CacheEntry e;
    double *fields[] = {&e.report.F, &e.report.F_min, &e.report.ratio, &e.report.avg_dilation,
                        &e.report.max_link_load, &e.seconds};
    for (int i = 0; i < 6; ++i) {
        *fields[i] = get<double>(b, 48 + 8 * static_cast<size_t>(i));
        if (!std::isfinite(*fields[i]) || *fields[i] < 0) throw Error("a stored figure is negative or not finite");
    }
    const char *alg = b.data() + 96;
    if (std::memchr(alg, 0, 32) == nullptr) throw Error("algorithm name is not terminated");
    e.algorithm = alg;
    e.place.resize(n);
    for (uint64_t i = 0; i < n; ++i) e.place[i] = get<int32_t>(b, kHeader + 4 * i);
    try {
        check_placement(topo, g.n(), e.place);
    } catch (const Error &err) {
        throw Error(std::string("invalid placement: ") + err.what());
    }
    const double F = free_energy(g, topo, e.place);
    if (std::fabs(F - e.report.F) > 1e-9 * std::max(1.0, std::fabs(F)))
        throw Error("stored F does not match its placement's F");
    return e;
}

std::optional<CacheEntry> cache_load(const std::string &dir, const CacheKey &key, const Graph &g,
                                     const Topology &topo, const CacheWarn &warn) {
    const std::string path = cache_path(dir, key);
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;  // no entry: an ordinary miss
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) {
        if (warn) warn("wisdom entry '" + path + "': read error; ignored");
        return std::nullopt;
    }
    try {
        return cache_decode(bytes, key, g, topo);
    } catch (const Error &e) {
        if (warn) warn("wisdom entry '" + path + "': " + e.what() + "; ignored, mapping again");
        return std::nullopt;
    }
}

void cache_store(const std::string &dir, const CacheKey &key, const Topology &topo, const CacheEntry &e) {
    if (dir.empty()) throw Error("wisdom: empty cache directory name");
    if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
        throw Error("wisdom directory '" + dir + "': cannot create: " + std::strerror(errno), ErrorKind::Io);
    const std::string bytes = cache_encode(key, topo, e);
    const std::string path = cache_path(dir, key);
    static std::atomic<unsigned> counter{0};
    const std::string tmp = dir + "/." + key.hex() + ".tmp." + std::to_string(getpid()) + "." +
                            std::to_string(counter++);
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) throw Error("wisdom entry '" + tmp + "': cannot create: " + std::strerror(errno), ErrorKind::Io);
    size_t off = 0;
    while (off < bytes.size()) {
        ssize_t w = ::write(fd, bytes.data() + off, bytes.size() - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            const int err = errno;
            ::close(fd);
            ::unlink(tmp.c_str());
            throw Error("wisdom entry '" + tmp + "': write failed: " + std::strerror(err), ErrorKind::Io);
        }
        off += static_cast<size_t>(w);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        throw Error("wisdom entry '" + tmp + "': fsync failed: " + std::strerror(err), ErrorKind::Io);
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        throw Error("wisdom entry '" + path + "': rename failed: " + std::strerror(err), ErrorKind::Io);
    }
    // Make the rename itself durable.
    int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)::fsync(dfd);
        ::close(dfd);
    }
}

} // namespace rankmap

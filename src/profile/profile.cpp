// profile.cpp -- reader of "rankmap-profile 1" files and the weight choice
// of Chen et al. (MPIPP) §4.1: the median message size decides between
// message count (latency-bound) and volume (bandwidth-bound).  Reading is
// O(lines); the median is O(pairs log pairs) without a histogram, O(65) with
// one.
#include "profile/profile.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <unordered_map>

#include "common/error.hpp"
#include "common/text.hpp"

namespace rankmap {

namespace {

constexpr long long kMaxTasks = 1 << 24;

long long field_int(const std::string &name, long lineno, const std::string &what, const std::string &text,
                    long long lo, long long hi) {
    long long v;
    if (!parse_int(text, v))
        throw Error(where(name, lineno) + what + " '" + text + "' is not a whole number");
    if (v < lo || v > hi)
        throw Error(where(name, lineno) + what + " " + text + " is outside " + std::to_string(lo) + ".." +
                    std::to_string(hi));
    return v;
}

std::string fmt_bytes(double b) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f B", b);
    return buf;
}

// The first line: "rankmap-profile 1", or an error naming what it is.
void check_header(const std::string &line, const std::string &name, long lineno) {
    std::string t = trim(line);
    if (t == "rankmap-profile 1") return;
    auto f = split(t, " \t");
    if (f.size() == 2 && f[0] == "rankmap-profile")
        throw Error(where(name, lineno) + "profile format version '" + f[1] +
                    "' is not supported (this rankmap reads version 1)");
    throw Error(where(name, lineno) + "not a rankmap profile: the first line must be 'rankmap-profile 1'");
}

// The profile read so far and the lines that gave each record, to name
// them in duplicate errors.
struct ProfileReader {
    const std::string &name;
    Profile p;
    long lineno = 0;
    std::unordered_map<uint64_t, long> first_line;  // (src, dst) to its line
    std::array<long, 65> hist_line{};
    std::map<std::vector<int>, long> group_line;  // member list to its line

    explicit ProfileReader(const std::string &n) : name(n) {}
    std::string at() const { return where(name, lineno); }
    long long field(const std::string &what, const std::string &text, long long lo, long long hi) const {
        return field_int(name, lineno, what, text, lo, hi);
    }

    void histogram(const std::vector<std::string> &f) {
        if (f.size() != 3) throw Error(at() + "expected 'histogram K COUNT'");
        int k = static_cast<int>(field("histogram bin", f[1], 0, 64));
        long long c = field("histogram count", f[2], 0, INT64_MAX);
        if (hist_line[k])
            throw Error(at() + "histogram bin " + f[1] + " already given at line " + std::to_string(hist_line[k]));
        hist_line[k] = lineno;
        p.histogram[k] = c;
        p.has_histogram = true;
    }

    void pair(const std::vector<std::string> &f) {
        if (f.size() != 5) throw Error(at() + "expected 'pair SRC DST COUNT BYTES'");
        if (p.ntasks == 0) throw Error(at() + "'pair' before the 'tasks N' line");
        const long long hi = p.ntasks - 1;
        int s = static_cast<int>(field("source task", f[1], 0, hi));
        int d = static_cast<int>(field("destination task", f[2], 0, hi));
        if (s == d) throw Error(at() + "task " + f[1] + " sends to itself");
        long long c = field("message count", f[3], 1, INT64_MAX);
        long long b = field("byte count", f[4], 0, INT64_MAX);
        uint64_t key = static_cast<uint64_t>(s) << 32 | static_cast<uint32_t>(d);
        auto [it, fresh] = first_line.emplace(key, lineno);
        if (!fresh)
            throw Error(at() + "pair " + f[1] + " -> " + f[2] + " already given at line " + std::to_string(it->second));
        p.pairs.push_back({s, d, c, b});
    }

    void alltoall(const std::vector<std::string> &f) {
        if (f.size() < 5) throw Error(at() + "expected 'alltoall CALLS BYTES T1 T2 ...' (2 tasks or more)");
        if (p.ntasks == 0) throw Error(at() + "'alltoall' before the 'tasks N' line");
        ProfileGroup g;
        g.calls = field("call count", f[1], 1, INT64_MAX);
        g.bytes = field("byte count", f[2], 0, INT64_MAX);
        std::set<int> seen;
        for (size_t i = 3; i < f.size(); ++i) {
            int t = static_cast<int>(field("group member", f[i], 0, p.ntasks - 1));
            if (!seen.insert(t).second) throw Error(at() + "task " + f[i] + " is twice in one all-to-all group");
            g.members.push_back(t);
        }
        auto [it, fresh] = group_line.emplace(g.members, lineno);
        if (!fresh)
            throw Error(at() + "this all-to-all group is already given at line " + std::to_string(it->second));
        p.groups.push_back(std::move(g));
    }

    void record(const std::vector<std::string> &f) {
        const std::string &kw = f[0];
        if (kw == "tasks") {
            if (f.size() != 2) throw Error(at() + "expected 'tasks N'");
            if (p.ntasks > 0) throw Error(at() + "second 'tasks' line");
            p.ntasks = static_cast<int>(field("task count", f[1], 1, kMaxTasks));
        } else if (kw == "meta") {
            if (f.size() < 2) throw Error(at() + "expected 'meta KEY VALUE...'");
        } else if (kw == "histogram") {
            histogram(f);
        } else if (kw == "pair") {
            pair(f);
        } else if (kw == "alltoall") {
            alltoall(f);
        } else {
            throw Error(at() + "unknown record '" + kw + "' (tasks, meta, histogram, pair, alltoall)");
        }
    }
};

} // namespace

Profile parse_profile(std::istream &in, const std::string &name) {
    ProfileReader r(name);
    std::string line;
    bool header = false;
    while (std::getline(in, line)) {
        ++r.lineno;
        if (!header) {
            check_header(line, name, r.lineno);
            header = true;
            continue;
        }
        auto hash = line.find('#');
        if (hash != std::string::npos) line.resize(hash);
        auto f = split(line, " \t\r");
        if (!f.empty()) r.record(f);
    }
    if (in.bad()) throw Error("profile '" + name + "': read error", ErrorKind::Io);
    if (!header) throw Error("profile '" + name + "': empty file, expected 'rankmap-profile 1'");
    if (r.p.ntasks == 0) throw Error("profile '" + name + "': no 'tasks N' line");
    return std::move(r.p);
}

Profile read_profile(const std::string &path) {
    std::ifstream in(path);
    if (!in) throw Error("profile '" + path + "': cannot open", ErrorKind::Io);
    return parse_profile(in, path);
}

WeightKind parse_weight_kind(const std::string &name) {
    if (name == "auto") return WeightKind::Auto;
    if (name == "count") return WeightKind::Count;
    if (name == "volume") return WeightKind::Volume;
    throw Error("weights '" + name + "' is unknown (auto, count or volume)");
}

const char *weight_kind_name(WeightKind k) {
    switch (k) {
    case WeightKind::Auto: return "auto";
    case WeightKind::Count: return "count";
    case WeightKind::Volume: return "volume";
    }
    return "?";
}

WeightChoice choose_weights(const Profile &p, WeightKind requested, double threshold) {
    WeightChoice c;
    c.threshold = threshold > 0 ? threshold : kDefaultThresholdBytes;
    if (!std::isfinite(c.threshold)) throw Error("threshold must be a finite number of bytes");
    // Median message size.  With the histogram: the bin holding the middle
    // message, and a geometric interpolation inside the bin.  Without it:
    // each pair's messages are taken at their mean size (bytes / count).
    double total = 0;
    if (p.has_histogram)
        for (int64_t h : p.histogram) total += static_cast<double>(h);
    if (total > 0) {
        c.from_histogram = true;
        c.messages = static_cast<int64_t>(total);
        const double mid = total / 2;
        double before = 0;
        for (int k = 0; k <= 64; ++k) {
            const double h = static_cast<double>(p.histogram[k]);
            if (h <= 0) continue;
            if (before + h >= mid) {
                if (k == 0) c.median_bytes = 0;
                else c.median_bytes = std::ldexp(1.0, k - 1) * std::exp2((mid - before) / h);
                break;
            }
            before += h;
        }
    } else {
        std::vector<std::pair<double, int64_t>> mean;  // (bytes per message, messages)
        mean.reserve(p.pairs.size());
        for (auto &pr : p.pairs) {
            mean.push_back({static_cast<double>(pr.bytes) / static_cast<double>(pr.count), pr.count});
            total += static_cast<double>(pr.count);
        }
        c.messages = static_cast<int64_t>(total);
        std::sort(mean.begin(), mean.end());
        double before = 0;
        for (auto &[size, cnt] : mean) {
            before += static_cast<double>(cnt);
            if (before >= total / 2) {
                c.median_bytes = size;
                break;
            }
        }
    }
    const std::string source = c.from_histogram ? "the size histogram" : "the per-pair mean sizes";
    const std::string median = "median message size " + fmt_bytes(c.median_bytes) + " over " +
                               std::to_string(c.messages) + " messages (from " + source + ")";
    if (requested != WeightKind::Auto) {
        c.kind = requested;
        c.forced = true;
        c.reason = std::string("forced by the user (") + median + ")";
        return c;
    }
    if (c.messages == 0) {
        c.kind = WeightKind::Count;
        c.reason = "no messages in the profile; message count by default";
    } else if (c.median_bytes >= c.threshold) {
        c.kind = WeightKind::Volume;
        c.reason = median + " >= threshold " + fmt_bytes(c.threshold) + ": bandwidth-bound, weights = bytes";
    } else {
        c.kind = WeightKind::Count;
        c.reason = median + " < threshold " + fmt_bytes(c.threshold) + ": latency-bound, weights = message count";
    }
    return c;
}

Graph profile_graph(const Profile &p, WeightKind kind) {
    if (kind == WeightKind::Auto) throw Error("profile_graph: choose count or volume first (choose_weights)");
    std::vector<Edge> es;
    es.reserve(p.pairs.size());
    for (auto &pr : p.pairs)
        es.push_back({pr.src, pr.dst,
                      static_cast<double>(kind == WeightKind::Count ? pr.count : pr.bytes)});
    for (auto &g : p.groups) {
        const double k = static_cast<double>(g.members.size());
        const double w = kind == WeightKind::Count ? static_cast<double>(g.calls) : static_cast<double>(g.bytes) / (k - 1);
        if (!(w > 0)) continue;
        for (int a : g.members)
            for (int b : g.members)
                if (a != b) es.push_back({a, b, w});
    }
    return Graph::from_edges(p.ntasks, es);
}

std::vector<std::vector<int>> profile_groups(const Profile &p) {
    std::vector<std::vector<int>> out;
    out.reserve(p.groups.size());
    for (auto &g : p.groups) out.push_back(g.members);
    return out;
}

} // namespace rankmap

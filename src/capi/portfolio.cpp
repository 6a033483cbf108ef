// portfolio.cpp -- the portfolio of the MPI glue (include/rankmap_glue.h):
// how many members of a communicator map, the seed of each, the score that
// elects the winner, and the graph as bytes for the broadcast that gives
// every member the same graph.
#include "rankmap_glue.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "capi/capi.hpp"
#include "common/rng.hpp"
#include "cost/model.hpp"

namespace {

using rankmap::Error;
using rankmap::check_placement;

// "RMGP" and the layout's version: a buffer from another build of the
// layout is refused, not misread.
constexpr uint32_t kPackMagic = 0x524d4750;
constexpr uint32_t kPackVersion = 1;

class Writer {
public:
    template <class T> void put(const T &v) {
        const auto *p = reinterpret_cast<const unsigned char *>(&v);
        bytes_.insert(bytes_.end(), p, p + sizeof(T));
    }
    template <class T> void put_all(const std::vector<T> &v) {
        put<uint64_t>(v.size());
        for (const T &x : v) put(x);
    }
    std::vector<unsigned char> &bytes() { return bytes_; }

private:
    std::vector<unsigned char> bytes_;
};

class Reader {
public:
    Reader(const unsigned char *p, size_t len) : p_(p), left_(len) {}
    template <class T> T get() {
        if (left_ < sizeof(T)) throw Error("rankmap_graph_unpack: the buffer is truncated");
        T v;
        std::memcpy(&v, p_, sizeof(T));
        p_ += sizeof(T);
        left_ -= sizeof(T);
        return v;
    }
    // A count of items of `size` bytes each that the rest of the buffer can hold.
    size_t count(size_t size) {
        const uint64_t n = get<uint64_t>();
        if (n > left_ / size) throw Error("rankmap_graph_unpack: the buffer is truncated");
        return static_cast<size_t>(n);
    }
    template <class T> std::vector<T> get_all() {
        std::vector<T> v(count(sizeof(T)));
        for (T &x : v) x = get<T>();
        return v;
    }
    size_t left() const { return left_; }

private:
    const unsigned char *p_;
    size_t left_;
};

} // namespace

extern "C" {

using rankmap::capi::fail;
using rankmap::capi::guarded;

int rankmap_portfolio_members(int setting, int nmembers, int *members) {
    if (!members) return fail(RANKMAP_ERR_INVALID, "rankmap_portfolio_members: NULL members");
    *members = 1;
    if (setting < 1)
        return fail(RANKMAP_ERR_INVALID, "portfolio " + std::to_string(setting) +
                                             ": must be at least 1 (1: rank 0 maps alone)");
    *members = nmembers < setting ? (nmembers > 1 ? nmembers : 1) : setting;
    return RANKMAP_OK;
}

uint64_t rankmap_portfolio_seed(uint64_t seed, int member) {
    if (member <= 0) return seed;
    uint64_t state = seed ^ (static_cast<uint64_t>(member) * 0xd1b54a32d192ed03ULL);
    return rankmap::splitmix64(state);
}

double rankmap_portfolio_score(int status, const rankmap_report *after) {
    if (status != RANKMAP_OK || !after || !std::isfinite(after->F)) return HUGE_VAL;
    return after->F;
}

int rankmap_portfolio_time(rankmap_topology_t topo, rankmap_graph_t graph, int nmembers, const int *node_of_member,
                           const int *new_of_member, double *seconds) {
    if (seconds) *seconds = HUGE_VAL;
    if (!topo || !graph || !node_of_member || !new_of_member || !seconds || nmembers < 1)
        return fail(RANKMAP_ERR_INVALID, "rankmap_portfolio_time: NULL or empty argument");
    return guarded([&] {
        const int n = graph->g.n();
        std::vector<int> place(static_cast<size_t>(n), -1);
        for (int i = 0; i < nmembers; ++i) {
            const int v = new_of_member[i];
            if (v < 0) continue;
            if (v >= n || place[v] >= 0)
                throw Error("rankmap_portfolio_time: new rank " + std::to_string(v) + " of member " +
                            std::to_string(i) + " is out of range or given twice");
            place[v] = node_of_member[i];
        }
        for (int v = 0; v < n; ++v)
            if (place[v] < 0) throw Error("rankmap_portfolio_time: task " + std::to_string(v) + " has no member");
        check_placement(*topo->t, n, place);
        *seconds = rankmap::bandwidth_time(graph->g, *topo->t, place, graph->alltoall);
    });
}

double rankmap_portfolio_runoff(double F, double seconds, double F_lowest) {
    if (!std::isfinite(F) || !std::isfinite(F_lowest) || std::isnan(seconds)) return HUGE_VAL;
    return F <= (1 + RANKMAP_GUARD_MARGIN) * F_lowest ? seconds : HUGE_VAL;
}

int rankmap_graph_pack(rankmap_graph_t graph, void *buf, size_t *len) {
    if (!graph || !len) return fail(RANKMAP_ERR_INVALID, "rankmap_graph_pack: NULL argument");
    return guarded([&] {
        Writer w;
        w.put(kPackMagic);
        w.put(kPackVersion);
        w.put<int32_t>(graph->g.n());
        const auto edges = graph->g.edges();
        w.put<uint64_t>(edges.size());
        for (const auto &e : edges) {
            w.put<int32_t>(e.src);
            w.put<int32_t>(e.dst);
            w.put<double>(e.w);
        }
        w.put<uint64_t>(graph->alltoall.size());
        for (const auto &line : graph->alltoall) w.put_all(line);
        w.put_all(graph->grid_dims);
        w.put_all(graph->grid_periods);
        std::vector<uint8_t> a2a(graph->grid_alltoall.begin(), graph->grid_alltoall.end());
        w.put_all(a2a);
        w.put<uint8_t>(graph->grid_unknown ? 1 : 0);
        const auto &bytes = w.bytes();
        if (buf && *len < bytes.size())
            throw Error("rankmap_graph_pack: the buffer holds " + std::to_string(*len) + " bytes, the graph needs " +
                        std::to_string(bytes.size()));
        if (buf) std::memcpy(buf, bytes.data(), bytes.size());
        *len = bytes.size();
    });
}

int rankmap_graph_unpack(const void *buf, size_t len, rankmap_graph_t *graph) {
    if (!buf || !graph) return fail(RANKMAP_ERR_INVALID, "rankmap_graph_unpack: NULL argument");
    return guarded([&] {
        Reader r(static_cast<const unsigned char *>(buf), len);
        if (r.get<uint32_t>() != kPackMagic || r.get<uint32_t>() != kPackVersion)
            throw Error("rankmap_graph_unpack: not a graph packed by this version of rankmap");
        auto h = std::make_unique<rankmap_graph_s>();
        const int n = r.get<int32_t>();
        if (n < 1) throw Error("rankmap_graph_unpack: the graph has no task");
        std::vector<rankmap::Edge> edges(r.count(2 * sizeof(int32_t) + sizeof(double)));
        for (auto &e : edges) {
            e.src = r.get<int32_t>();
            e.dst = r.get<int32_t>();
            e.w = r.get<double>();
        }
        h->g = rankmap::Graph::from_edges(n, edges); // checks every vertex and weight
        h->alltoall.resize(r.count(sizeof(uint64_t)));
        for (auto &line : h->alltoall) {
            line = r.get_all<int>();
            for (int v : line)
                if (v < 0 || v >= n) throw Error("rankmap_graph_unpack: an all-to-all line names a task outside the graph");
        }
        h->grid_dims = r.get_all<int>();
        h->grid_periods = r.get_all<int>();
        const auto a2a = r.get_all<uint8_t>();
        h->grid_alltoall.assign(a2a.begin(), a2a.end());
        h->grid_unknown = r.get<uint8_t>() != 0;
        if (r.left() != 0) throw Error("rankmap_graph_unpack: bytes after the graph");
        *graph = h.release();
    });
}

} // extern "C"

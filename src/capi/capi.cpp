// capi.cpp -- the C boundary (include/rankmap.h): opaque handles, status
// codes plus a thread-local message; no exception crosses it.
#include "config.h"

#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "common/error.hpp"
#include "common/timer.hpp"
#include "cost/cost.hpp"
#include "graph/graph.hpp"
#include "capi/capi.hpp"
#include "map/cartesian/transpose.hpp"
#include "map/mapper.hpp"
#include "profile/cache.hpp"
#include "profile/profile.hpp"
#include "rankmap.h"
#include "topology/mapfile.hpp"
#include "topology/topology.hpp"

namespace {
thread_local std::string g_last_error;
} // namespace

int rankmap::capi::fail(int code, const std::string &msg) {
    g_last_error = msg;
    return code;
}

namespace rankmap::capi {
void fill_report(rankmap_report *report, const CostReport &c, double seconds, const char *alg) {
    if (!report) return;
    std::memset(report, 0, sizeof(*report));
    report->F = c.F;
    report->F_min = c.F_min;
    report->ratio = c.ratio;
    report->avg_dilation = c.avg_dilation;
    report->max_link_load = c.max_link_load;
    report->seconds = seconds;
    std::strncpy(report->algorithm, alg, sizeof(report->algorithm) - 1);
}

namespace {

// The grid of a Cartesian communicator given in the options, if any.
std::optional<CartGrid> cart_grid_of(const rankmap_options &o, int ntasks) {
    if (o.cart_ndims <= 0) return std::nullopt;
    if (o.cart_ndims > RANKMAP_MAX_DIMS) throw Error("cart_ndims is larger than RANKMAP_MAX_DIMS");
    CartGrid cg;
    int64_t n = 1;
    for (int k = 0; k < o.cart_ndims; ++k) {
        cg.dims.push_back(o.cart_dims[k]);
        cg.periods.push_back(o.cart_periods[k] != 0);
        n *= o.cart_dims[k];
    }
    if (n != ntasks)
        throw Error("Cartesian grid of " + std::to_string(n) + " tasks given for a graph of " +
                    std::to_string(ntasks) + " tasks");
    return cg;
}

} // namespace

CachedMapping map_graph(const Topology &t, const rankmap_graph_s &graph, const rankmap_options *opts) {
    rankmap_options defaults;
    rankmap_options_init(&defaults);
    const rankmap_options &o = opts ? *opts : defaults;
    const auto &g = graph.g;
    const std::string requested = o.algorithm ? o.algorithm : "auto";
    // "auto" inside an MPI call is the fast strategy, taking a quality
    // mapping from the cache when one was computed ahead.
    const bool in_call_auto = requested == "auto";
    auto alg = in_call_auto ? Algorithm::Fast : parse_algorithm(requested);
    Options mo;
    mo.seed = o.seed;
    mo.time_limit = o.time_limit;
    mo.verbose = o.verbose;
    const std::optional<CartGrid> grid = cart_grid_of(o, g.n());
    const std::string dir = o.cache_dir ? o.cache_dir : cache_dir_from_env();
    auto warn = [](const std::string &m) { std::fprintf(stderr, "rankmap: warning: %s\n", m.c_str()); };
    auto r = map_with_cache(g, t, alg, mo, grid, dir, nullptr, nullptr, warn,
                            in_call_auto ? std::optional(Algorithm::Auto) : std::nullopt);
    if (!graph.alltoall.empty() && (alg == Algorithm::Auto || alg == Algorithm::Fast))
        // grid lines that do all-to-all: the model picks among the
        // mapper's placement and the mirrored blocks (map/transpose.hpp)
        prefer_for_alltoall(g, t, graph.grid_dims, graph.grid_alltoall, graph.alltoall, r.entry.place,
                            r.entry.report, r.entry.algorithm);
    if (o.verbose > 0 && r.hit)
        std::fprintf(stderr, "rankmap: wisdom hit %s (%.3f ms)\n", r.path.c_str(), 1e3 * r.seconds);
    return r;
}

} // namespace rankmap::capi

namespace {
using rankmap::capi::fail;
using rankmap::capi::fill_report;
using rankmap::capi::guarded;
using rankmap::capi::status_of;

#define CHECK_ARG(cond, what) \
    do { \
        if (!(cond)) return fail(RANKMAP_ERR_INVALID, std::string(__func__) + ": " + (what)); \
    } while (0)

} // namespace

extern "C" {

const char *rankmap_last_error(void) { return g_last_error.c_str(); }
const char *rankmap_version(void) { return PACKAGE_VERSION; }

int rankmap_topology_parse(const char *spec, rankmap_topology_t *topo) {
    CHECK_ARG(spec && topo, "NULL argument");
    return guarded([&] {
        auto h = std::make_unique<rankmap_topology_s>();
        h->t = rankmap::parse_topology(spec);
        *topo = h.release();
    });
}

void rankmap_topology_free(rankmap_topology_t topo) { delete topo; }

int rankmap_topology_size(rankmap_topology_t topo, int *nnodes) {
    CHECK_ARG(topo && nnodes, "NULL argument");
    *nnodes = topo->t->size();
    return RANKMAP_OK;
}

int rankmap_topology_ndims(rankmap_topology_t topo, int *ndims) {
    CHECK_ARG(topo && ndims, "NULL argument");
    *ndims = topo->t->ndims();
    return RANKMAP_OK;
}

int rankmap_topology_dims(rankmap_topology_t topo, int *dims) {
    CHECK_ARG(topo && dims, "NULL argument");
    for (int k = 0; k < topo->t->ndims(); ++k) dims[k] = topo->t->dims()[k];
    return RANKMAP_OK;
}

int rankmap_topology_coords(rankmap_topology_t topo, int node, int *coords) {
    CHECK_ARG(topo && coords, "NULL argument");
    CHECK_ARG(node >= 0 && node < topo->t->size(), "node " + std::to_string(node) + " out of range");
    topo->t->coords(node, coords);
    return RANKMAP_OK;
}

int rankmap_topology_node(rankmap_topology_t topo, const int *coords, int *node) {
    CHECK_ARG(topo && coords && node, "NULL argument");
    int v = topo->t->node_at(coords);
    CHECK_ARG(v >= 0, "coordinates out of range for " + topo->t->describe());
    *node = v;
    return RANKMAP_OK;
}

int rankmap_topology_distance(rankmap_topology_t topo, int a, int b, double *d) {
    CHECK_ARG(topo && d, "NULL argument");
    const int P = topo->t->size();
    CHECK_ARG(a >= 0 && a < P && b >= 0 && b < P, "node out of range");
    *d = topo->t->distance(a, b);
    return RANKMAP_OK;
}

int rankmap_order_placement(rankmap_topology_t topo, const char *order, int ntasks, int *node_of_task) {
    CHECK_ARG(topo && order && node_of_task, "NULL argument");
    CHECK_ARG(ntasks >= 1, "task count must be >= 1");
    return guarded([&] {
        const auto &t = *topo->t;
        if (static_cast<int64_t>(ntasks) > static_cast<int64_t>(t.size()) * t.slots())
            throw rankmap::Error("topology " + t.describe() + " is too small for " + std::to_string(ntasks) +
                                     " tasks (" + std::to_string(t.size()) + " nodes x " +
                                     std::to_string(t.slots()) + " slot(s))",
                                 rankmap::ErrorKind::TooSmall);
        auto place = rankmap::order_placement(t, order, ntasks);
        std::memcpy(node_of_task, place.data(), sizeof(int) * static_cast<size_t>(ntasks));
    });
}

int rankmap_mapfile_read(rankmap_topology_t topo, const char *path, int ntasks, int *node_of_task) {
    CHECK_ARG(topo && path && node_of_task, "NULL argument");
    CHECK_ARG(ntasks >= 1, "task count must be >= 1");
    return guarded([&] {
        auto place = rankmap::read_mapfile(*topo->t, path, ntasks);
        std::memcpy(node_of_task, place.data(), sizeof(int) * static_cast<size_t>(ntasks));
    });
}

int rankmap_mapfile_write(rankmap_topology_t topo, const char *path, int ntasks, const int *node_of_task) {
    CHECK_ARG(topo && path && node_of_task, "NULL argument");
    CHECK_ARG(ntasks >= 1, "task count must be >= 1");
    return guarded([&] {
        std::vector<int> place(node_of_task, node_of_task + ntasks);
        for (int v : place)
            if (v < 0 || v >= topo->t->size()) throw rankmap::Error("placement names a node out of range");
        rankmap::write_mapfile(*topo->t, path, place);
    });
}

int rankmap_graph_create(int ntasks, int64_t nedges, const int *src, const int *dst, const double *weights,
                         rankmap_graph_t *graph) {
    CHECK_ARG(graph, "NULL graph");
    CHECK_ARG(ntasks >= 1, "task count must be >= 1");
    CHECK_ARG(nedges >= 0, "negative edge count");
    CHECK_ARG(nedges == 0 || (src && dst), "NULL edge arrays");
    return guarded([&] {
        std::vector<rankmap::Edge> es(static_cast<size_t>(nedges));
        for (int64_t e = 0; e < nedges; ++e) es[e] = {src[e], dst[e], weights ? weights[e] : 1.0};
        auto h = std::make_unique<rankmap_graph_s>();
        h->g = rankmap::Graph::from_edges(ntasks, es);
        *graph = h.release();
    });
}

int rankmap_graph_read(const char *path, const char *format, rankmap_graph_t *graph) {
    CHECK_ARG(path && graph, "NULL argument");
    return guarded([&] {
        auto h = std::make_unique<rankmap_graph_s>();
        const std::string f = format ? format : "auto";
        const std::string p = path;
        const bool is_prof = f == "profile" || ((f.empty() || f == "auto") && p.size() > 5 &&
                                                p.compare(p.size() - 5, 5, ".prof") == 0);
        if (is_prof) {
            auto prof = rankmap::read_profile(p);
            h->g = rankmap::profile_graph(prof, rankmap::choose_weights(prof, rankmap::WeightKind::Auto).kind);
        } else {
            h->g = rankmap::read_graph(p, f);
        }
        *graph = h.release();
    });
}

int rankmap_graph_cartesian(int ndims, const int *dims, const int *periods, rankmap_graph_t *graph) {
    CHECK_ARG(graph && dims && periods, "NULL argument");
    CHECK_ARG(ndims >= 1 && ndims <= RANKMAP_MAX_DIMS, "ndims must be 1.." + std::to_string(RANKMAP_MAX_DIMS));
    return guarded([&] {
        auto h = std::make_unique<rankmap_graph_s>();
        h->g = rankmap::cartesian_graph(std::vector<int>(dims, dims + ndims), std::vector<int>(periods, periods + ndims));
        *graph = h.release();
    });
}

void rankmap_graph_free(rankmap_graph_t graph) { delete graph; }

int rankmap_graph_ntasks(rankmap_graph_t graph, int *ntasks) {
    CHECK_ARG(graph && ntasks, "NULL argument");
    *ntasks = graph->g.n();
    return RANKMAP_OK;
}

void rankmap_options_init(rankmap_options *opts) {
    if (!opts) return;
    std::memset(opts, 0, sizeof(*opts));
    opts->algorithm = "auto";
    opts->seed = 1;
    opts->cache_dir = nullptr;  // RANKMAP_WISDOM
}

int rankmap_map(rankmap_topology_t topo, rankmap_graph_t graph, const rankmap_options *opts, int *node_of_task,
                rankmap_report *report) {
    CHECK_ARG(topo && graph && node_of_task, "NULL argument");
    return guarded([&] {
        const auto r = rankmap::capi::map_graph(*topo->t, *graph, opts);
        const auto &place = r.entry.place;
        if (report) fill_report(report, r.entry.report, r.seconds, r.entry.algorithm.c_str());
        std::memcpy(node_of_task, place.data(), sizeof(int) * place.size());
    });
}

int rankmap_evaluate(rankmap_topology_t topo, rankmap_graph_t graph, const int *node_of_task, rankmap_report *report) {
    CHECK_ARG(topo && graph && node_of_task && report, "NULL argument");
    return guarded([&] {
        std::vector<int> place(node_of_task, node_of_task + graph->g.n());
        auto c = rankmap::evaluate(graph->g, *topo->t, place);
        fill_report(report, c, 0, "evaluate");
    });
}

int rankmap_profile_read(const char *path, rankmap_weights weights, double threshold, rankmap_graph_t *graph,
                         rankmap_weights *chosen, double *median_bytes) {
    CHECK_ARG(path && graph, "NULL argument");
    // A C caller may pass any int: read it as one (loading an out-of-range
    // value through the enum type is undefined behaviour in C++).
    int w;
    std::memcpy(&w, &weights, sizeof w);
    CHECK_ARG(w == RANKMAP_WEIGHTS_AUTO || w == RANKMAP_WEIGHTS_COUNT || w == RANKMAP_WEIGHTS_VOLUME,
              "weights must be RANKMAP_WEIGHTS_AUTO, _COUNT or _VOLUME");
    CHECK_ARG(threshold == threshold, "threshold is not a number");
    return guarded([&] {
        auto prof = rankmap::read_profile(path);
        const auto want = w == RANKMAP_WEIGHTS_COUNT    ? rankmap::WeightKind::Count
                          : w == RANKMAP_WEIGHTS_VOLUME ? rankmap::WeightKind::Volume
                                                              : rankmap::WeightKind::Auto;
        auto c = rankmap::choose_weights(prof, want, threshold);
        auto h = std::make_unique<rankmap_graph_s>();
        h->g = rankmap::profile_graph(prof, c.kind);
        if (chosen) *chosen = c.kind == rankmap::WeightKind::Volume ? RANKMAP_WEIGHTS_VOLUME : RANKMAP_WEIGHTS_COUNT;
        if (median_bytes) *median_bytes = c.median_bytes;
        *graph = h.release();
    });
}

} // extern "C"

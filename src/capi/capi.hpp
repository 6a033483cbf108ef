// capi.hpp -- private helpers of the C boundary (include/rankmap.h), shared by
// every file that defines a public C entry point (src/capi/capi.cpp,
// src/discover/discover_capi.cpp): status codes, the thread-local message
// behind rankmap_last_error(), and guarded(), which turns every exception
// into a status code so that none crosses into C.  The handles' contents
// are here too, for the C entry points outside capi.cpp (src/capi/glue.cpp),
// and the engine's mapping entry behind rankmap_map(), which the reorder
// decision (src/capi/reorder.cpp) calls directly.
#pragma once
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "cost/cost.hpp"
#include "graph/graph.hpp"
#include "profile/cache.hpp"
#include "rankmap.h"
#include "topology/topology.hpp"

// The C API's coordinate arrays hold every coordinate a machine model has.
static_assert(RANKMAP_MAX_DIMS == rankmap::kMaxCoords, "RANKMAP_MAX_DIMS and kMaxCoords differ");

struct rankmap_topology_s {
    std::unique_ptr<rankmap::Topology> t;
};
struct rankmap_graph_s {
    rankmap::Graph g;
    // Tasks that exchange by MPI_Alltoall (rankmap_graph_cartesian_alltoall),
    // in the order predict_time() reads them; empty for other graphs.
    std::vector<std::vector<int>> alltoall;
    std::vector<int> grid_dims;        // the grid of those lines
    std::vector<int> grid_periods;
    std::vector<bool> grid_alltoall;   // its all-to-all dimensions
    bool grid_unknown = false;         // a grid whose lines' traffic is not declared
};

namespace rankmap::capi {

// Sets the message rankmap_last_error() returns and passes code through.
int fail(int code, const std::string &msg);

inline int status_of(ErrorKind k) {
    switch (k) {
    case ErrorKind::Invalid: return RANKMAP_ERR_INVALID;
    case ErrorKind::Io: return RANKMAP_ERR_IO;
    case ErrorKind::TooSmall: return RANKMAP_ERR_TOO_SMALL;
    case ErrorKind::Timeout: return RANKMAP_ERR_TIMEOUT;
    case ErrorKind::Internal: return RANKMAP_ERR_INTERNAL;
    }
    return RANKMAP_ERR_INTERNAL;
}

// Run f, translating every exception into a status code.
template <class F> int guarded(F &&f) {
    try {
        f();
        return RANKMAP_OK;
    } catch (const Error &e) {
        return fail(status_of(e.kind()), e.what());
    } catch (const std::bad_alloc &) {
        return fail(RANKMAP_ERR_NOMEM, "out of memory");
    } catch (const std::exception &e) {
        return fail(RANKMAP_ERR_INTERNAL, std::string("internal error: ") + e.what());
    } catch (...) {
        return fail(RANKMAP_ERR_INTERNAL, "internal error: unknown exception");
    }
}

// *report = c with the call's time and the name of the mapper (NULL: nothing).
void fill_report(rankmap_report *report, const CostReport &c, double seconds, const char *alg);

// The mapping rankmap_map() returns: the mapper of opts (NULL: defaults)
// through the wisdom cache, and for a grid of all-to-all lines the model's
// choice among it and the mirrored blocks.  Throws rankmap::Error.
CachedMapping map_graph(const Topology &t, const rankmap_graph_s &graph, const rankmap_options *opts);

} // namespace rankmap::capi

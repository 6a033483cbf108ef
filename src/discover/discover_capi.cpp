// discover_capi.cpp -- rankmap_discover(), the C entry point of machine
// discovery (include/rankmap.h): settings -> hwloc/libnuma probe -> tree
// topology + leaf of every process.  No exception crosses it.
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "capi/capi.hpp"
#include "common/error.hpp"
#include "discover/discover.hpp"
#include "rankmap.h"

using rankmap::capi::fail;
using rankmap::capi::status_of;

extern "C" int rankmap_discover(int nprocs, const int *node_of_proc, const char *settings, rankmap_topology_t *topo,
                                int *place) {
    using namespace rankmap::discover;
    if (!topo || !place) return fail(RANKMAP_ERR_INVALID, "rankmap_discover: NULL topo or place");
    try {
        Settings s = parse_settings(settings);
        Machine m = probe(s);
        NodeTree inner = node_tree(m, s);
        Hierarchy h = build(nprocs, node_of_proc, s, inner);
        rankmap_topology_t t = nullptr;
        int rc = rankmap_topology_parse(h.spec.c_str(), &t);
        if (rc != RANKMAP_OK) return rc;   // message already set, quoting the spec
        std::memcpy(place, h.place.data(), sizeof(int) * static_cast<size_t>(nprocs));
        *topo = t;
        if (s.verbose) {
            std::string names;
            for (auto &tier : h.tiers) names += (names.empty() ? "" : ",") + tier.name;
            std::fprintf(stderr, "rankmap_discover: %s (tiers %s; node from %s; %s%s%s)\n", h.spec.c_str(),
                         names.c_str(), s.node_size > 0 ? "node_size" : "node_of_proc", m.source.c_str(),
                         m.distance_source.empty() ? "" : "; NUMA distances from ", m.distance_source.c_str());
        }
        return RANKMAP_OK;
    } catch (const rankmap::Error &e) {
        return fail(status_of(e.kind()), e.what());
    } catch (const std::bad_alloc &) {
        return fail(RANKMAP_ERR_NOMEM, "rankmap_discover: out of memory");
    } catch (const std::exception &e) {
        return fail(RANKMAP_ERR_INTERNAL, std::string("rankmap_discover: internal error: ") + e.what());
    } catch (...) {
        return fail(RANKMAP_ERR_INTERNAL, "rankmap_discover: internal error");
    }
}

// probe.cpp -- what hwloc (and libnuma) say about one node: for every core
// (hwloc logical order) its package, NUMA node, L3 and L2 cache, and the NUMA
// distance matrix when the machine reports one.  The only part of discovery
// that looks at the machine; hierarchy.cpp turns the result into tiers.
//
// Stand-ins for a real machine, for tests and for documentation: the settings
// hwloc=synthetic:DESC and hwloc=xml:PATH, or hwloc's own environment
// variables HWLOC_SYNTHETIC and HWLOC_XMLFILE (honoured by hwloc 2.9 when the
// settings name no stand-in).  Distances come from libnuma (numa_distance,
// the ACPI SLIT of the running kernel) when hwloc describes this system, and
// otherwise from hwloc's own NUMA distance matrix (e.g. one stored in an XML
// file).  Cost: O(cores x objects) bitmap tests, well under a millisecond
// after hwloc's own topology load.
#include "config.h"

#include <cstdlib>
#include <memory>

#include "common/error.hpp"
#include "discover/discover.hpp"

#ifdef RANKMAP_HAVE_HWLOC
#include <hwloc.h>
#endif
#ifdef RANKMAP_HAVE_NUMA
#include <numa.h>
#endif

namespace rankmap::discover {

#ifdef RANKMAP_HAVE_HWLOC
namespace {

struct TopologyCloser {
    void operator()(hwloc_topology *t) const { hwloc_topology_destroy(t); }
};
using TopologyPtr = std::unique_ptr<hwloc_topology, TopologyCloser>;

hwloc_obj_type_t hwloc_type(TierKind k) {
    switch (k) {
    case TierKind::Package: return HWLOC_OBJ_PACKAGE;
    case TierKind::Numa: return HWLOC_OBJ_NUMANODE;
    case TierKind::L3: return HWLOC_OBJ_L3CACHE;
    case TierKind::L2: return HWLOC_OBJ_L2CACHE;
    case TierKind::Core: return HWLOC_OBJ_CORE;
    }
    return HWLOC_OBJ_CORE;
}

std::string setting_name(const Settings &s) {
    if (!s.hwloc_synthetic.empty()) return "hwloc=synthetic:" + s.hwloc_synthetic;
    if (!s.hwloc_xml.empty()) return "hwloc=xml:" + s.hwloc_xml;
    if (const char *x = std::getenv("HWLOC_XMLFILE"); x && *x) return std::string("HWLOC_XMLFILE=") + x;
    if (const char *y = std::getenv("HWLOC_SYNTHETIC"); y && *y) return std::string("HWLOC_SYNTHETIC=") + y;
    return "hwloc (this system)";
}

// NUMA distances among the NUMA objects that hold cores.
void probe_distances(hwloc_topology_t t, const std::vector<hwloc_obj_t> &numa, Machine &m) {
    const size_t n = numa.size();
    if (n < 2) return;
    std::vector<double> d(n * n, 0.0);
#ifdef RANKMAP_HAVE_NUMA
    if (hwloc_topology_is_thissystem(t) && numa_available() >= 0) {
        bool all = true;
        for (size_t i = 0; i < n && all; ++i)
            for (size_t j = 0; j < n && all; ++j) {
                int v = numa_distance(static_cast<int>(numa[i]->os_index), static_cast<int>(numa[j]->os_index));
                if (v <= 0) all = false;
                d[i * n + j] = v;
            }
        if (all) {
            m.numa_distance = d;
            m.distance_source = "libnuma";
            return;
        }
    }
#endif
    unsigned nr = 1;
    hwloc_distances_s *dist = nullptr;
    if (hwloc_distances_get_by_type(t, HWLOC_OBJ_NUMANODE, &nr, &dist, 0, 0) < 0 || nr < 1 || !dist) return;
    bool all = true;
    for (size_t i = 0; i < n && all; ++i)
        for (size_t j = 0; j < n && all; ++j) {
            int a = -1, b = -1;
            for (unsigned k = 0; k < dist->nbobjs; ++k) {
                if (dist->objs[k] == numa[i]) a = static_cast<int>(k);
                if (dist->objs[k] == numa[j]) b = static_cast<int>(k);
            }
            if (a < 0 || b < 0 || dist->values[a * dist->nbobjs + b] == 0) all = false;
            else d[i * n + j] = static_cast<double>(dist->values[a * dist->nbobjs + b]);
        }
    hwloc_distances_release(t, dist);
    if (all) {
        m.numa_distance = d;
        m.distance_source = "hwloc";
    }
}

} // namespace
#endif

Machine probe(const Settings &s) {
    Machine m;
#ifdef RANKMAP_HAVE_HWLOC
    const std::string what = setting_name(s);
    hwloc_topology_t raw = nullptr;
    if (hwloc_topology_init(&raw) < 0) throw Error("rankmap_discover: hwloc_topology_init failed", ErrorKind::Internal);
    TopologyPtr t(raw);
    if (!s.hwloc_synthetic.empty() && hwloc_topology_set_synthetic(raw, s.hwloc_synthetic.c_str()) < 0)
        throw Error("rankmap_discover: settings '" + s.text + "': '" + what +
                    "': hwloc rejects the synthetic description (e.g. \"pack:2 numa:2 l3:1 core:4 pu:1\")");
    if (!s.hwloc_xml.empty() && hwloc_topology_set_xml(raw, s.hwloc_xml.c_str()) < 0)
        throw Error("rankmap_discover: settings '" + s.text + "': '" + what +
                    "': hwloc cannot read this XML file", ErrorKind::Io);
    if (hwloc_topology_load(raw) < 0)
        throw Error("rankmap_discover: " + what + ": hwloc_topology_load failed", ErrorKind::Io);
    m.source = what;

    hwloc_obj_type_t leaf = HWLOC_OBJ_CORE;
    int ncores = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_CORE);
    if (ncores <= 0) {
        leaf = HWLOC_OBJ_PU;   // machines without core objects: one core per PU
        ncores = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_PU);
    }
    if (ncores <= 0) throw Error("rankmap_discover: " + what + ": hwloc finds no core", ErrorKind::Internal);
    m.ncores = ncores;
    std::vector<hwloc_const_cpuset_t> core_set(ncores);
    for (int c = 0; c < ncores; ++c) core_set[c] = hwloc_get_obj_by_type(raw, leaf, c)->cpuset;

    std::vector<hwloc_obj_t> numa_with_cores;
    for (int k = 0; k < kNumTierKinds; ++k) {
        const TierKind kind = static_cast<TierKind>(k);
        auto &g = m.group[k];
        if (kind == TierKind::Core) {
            for (int c = 0; c < ncores; ++c) g.push_back(c);
            continue;
        }
        const int nobj = hwloc_get_nbobjs_by_type(raw, hwloc_type(kind));
        if (nobj <= 0) continue;
        g.assign(ncores, -1);
        std::vector<char> used(nobj, 0);
        for (int c = 0; c < ncores; ++c)
            for (int o = 0; o < nobj; ++o) {
                hwloc_obj_t obj = hwloc_get_obj_by_type(raw, hwloc_type(kind), o);
                if (obj->cpuset && !hwloc_bitmap_iszero(core_set[c]) && hwloc_bitmap_isincluded(core_set[c], obj->cpuset)) {
                    g[c] = o;
                    used[o] = 1;
                    break;
                }
            }
        if (kind == TierKind::Numa)
            for (int o = 0; o < nobj; ++o)
                if (used[o]) {
                    numa_with_cores.push_back(hwloc_get_obj_by_type(raw, HWLOC_OBJ_NUMANODE, o));
                    m.numa_group.push_back(o);
                }
    }
    if (s.use_distances) probe_distances(raw, numa_with_cores, m);
    if (m.numa_distance.empty()) m.numa_group.clear();
#else
    if (!s.hwloc_synthetic.empty() || !s.hwloc_xml.empty())
        throw Error("rankmap_discover: settings '" + s.text + "': hwloc= needs rankmap built with hwloc "
                    "(apt-get install libhwloc-dev, reconfigure)");
    m.ncores = 1;
    m.group[static_cast<int>(TierKind::Core)] = {0};
    m.source = "no hwloc (rankmap built without it): node tier only";
#endif
    return m;
}

} // namespace rankmap::discover

// settings.cpp -- the settings string of rankmap_discover():
// ';'-separated key=value entries (blanks around them ignored), every error
// naming the entry at fault:
//   node_size=K            K consecutive processes per node (overrides node_of_proc)
//   tiers=LIST|none        candidate tiers inside a node: package,numa,l3,l2,core
//   cost=C0,C1,...         one cost per resulting tier, node first, or
//   cost=NAME:C,...        named overrides (node, package, numa, l3, l2, core)
//   hwloc=synthetic:DESC   hwloc synthetic machine instead of this one
//   hwloc=xml:PATH         hwloc XML machine description instead of this one
//   hwloc=system           this machine (hwloc's default, honours HWLOC_XMLFILE
//                          and HWLOC_SYNTHETIC)
//   distances=on|off       NUMA distances (libnuma / hwloc) scale the costs
//   single_node=auto|tiers|flat   all processes on one node (see discover.hpp)
//   network=tree|dragonfly Slurm's switches above the nodes read as a fat
//                          tree or as a dragonfly's groups (see discover.hpp)
//   verbose=0|1            1: print the result and its sources on stderr
#include <cstring>

#include "common/error.hpp"
#include "common/text.hpp"
#include "discover/discover.hpp"
#include "topology/topology.hpp"

namespace rankmap::discover {

namespace {

const char *const kTierNames[kNumTierKinds] = {"package", "numa", "l3", "l2", "core"};

int tier_index(const std::string &name) {
    for (int k = 0; k < kNumTierKinds; ++k)
        if (name == kTierNames[k]) return k;
    return -1;
}

[[noreturn]] void bad(const Settings &s, const std::string &entry, const std::string &why) {
    throw Error("rankmap_discover: settings '" + s.text + "': '" + entry + "': " + why);
}

// tiers=LIST|none
void set_tiers(Settings &s, const std::string &entry, const std::string &val) {
    for (bool &e : s.tier_enabled) e = false;
    if (val == "none") return;
    auto names = split(val, ",");
    if (names.empty()) bad(s, entry, "no tier named (package, numa, l3, l2, core, or none)");
    for (auto &n : names) {
        int k = tier_index(trim(n));
        if (k < 0) bad(s, entry, "unknown tier '" + trim(n) + "' (package, numa, l3, l2, core, or none)");
        s.tier_enabled[k] = true;
    }
}

// cost=C0,C1,... or cost=NAME:C,...
void set_costs(Settings &s, const std::string &entry, const std::string &val) {
    auto parts = split(val, ",");
    if (parts.empty()) bad(s, entry, "no cost given");
    bool named = val.find(':') != std::string::npos;
    for (auto &p : parts) {
        std::string name, num = trim(p);
        if (named) {
            auto colon = p.find(':');
            if (colon == std::string::npos) bad(s, entry, "mixes named and positional costs ('" + trim(p) + "')");
            name = trim(p.substr(0, colon));
            num = trim(p.substr(colon + 1));
        }
        double c;
        if (!parse_double(num, c) || c < 0) bad(s, entry, "cost '" + num + "' must be a number >= 0");
        if (!named) {
            s.positional_cost.push_back(c);
        } else if (name == "node") {
            s.node_cost = c;
        } else {
            int k = tier_index(name);
            if (k < 0) bad(s, entry, "unknown tier '" + name + "' (node, package, numa, l3, l2, core)");
            s.named_cost[k] = c;
        }
    }
    if (static_cast<int>(s.positional_cost.size()) > kMaxTiers) bad(s, entry, "at most " + std::to_string(kMaxTiers) + " tiers");
}

// hwloc=synthetic:DESC|xml:PATH|system
void set_hwloc(Settings &s, const std::string &entry, const std::string &val) {
    s.hwloc_synthetic.clear();
    s.hwloc_xml.clear();
    if (val.rfind("synthetic:", 0) == 0) {
        s.hwloc_synthetic = trim(val.substr(10));
        if (s.hwloc_synthetic.empty()) bad(s, entry, "empty synthetic description");
    } else if (val.rfind("xml:", 0) == 0) {
        s.hwloc_xml = trim(val.substr(4));
        if (s.hwloc_xml.empty()) bad(s, entry, "no XML file name");
    } else if (val != "system") {
        bad(s, entry, "expected synthetic:DESC, xml:PATH or system");
    }
}

} // namespace

const char *tier_name(TierKind k) { return kTierNames[static_cast<int>(k)]; }

double default_cost(TierKind k) {
    switch (k) {
    case TierKind::Package: return 10.0;
    case TierKind::Numa: return 5.0;
    case TierKind::L3: return 2.0;
    case TierKind::L2: return 1.5;
    case TierKind::Core: return 1.0;
    }
    return 1.0;
}

Settings parse_settings(const char *text) {
    Settings s;
    s.text = text ? text : "";
    for (const std::string &raw : split(s.text, ";")) {
        const std::string entry = trim(raw);
        if (entry.empty()) continue;
        auto eq = entry.find('=');
        if (eq == std::string::npos) bad(s, entry, "expected key=value");
        const std::string key = trim(entry.substr(0, eq)), val = trim(entry.substr(eq + 1));
        if (key == "node_size") {
            long long v;
            if (!parse_int(val, v) || v < 1 || v > (1 << 24))
                bad(s, entry, "node_size must be a whole number >= 1");
            s.node_size = static_cast<int>(v);
        } else if (key == "tiers") {
            set_tiers(s, entry, val);
        } else if (key == "cost") {
            set_costs(s, entry, val);
        } else if (key == "hwloc") {
            set_hwloc(s, entry, val);
        } else if (key == "distances") {
            if (val == "on") s.use_distances = true;
            else if (val == "off") s.use_distances = false;
            else bad(s, entry, "expected on or off");
        } else if (key == "verbose") {
            if (val == "1" || val == "on") s.verbose = true;
            else if (val == "0" || val == "off") s.verbose = false;
            else bad(s, entry, "expected 0 or 1");
        } else if (key == "single_node") {
            if (val == "auto") s.single_node = SingleNode::Auto;
            else if (val == "tiers") s.single_node = SingleNode::Tiers;
            else if (val == "flat") s.single_node = SingleNode::Flat;
            else bad(s, entry, "expected auto, tiers or flat");
        } else if (key == "network") {
            if (val == "tree") s.dragonfly = false;
            else if (val == "dragonfly") s.dragonfly = true;
            else bad(s, entry, "expected tree or dragonfly");
        } else {
            bad(s, entry, "unknown key '" + key +
                              "' (node_size, tiers, cost, hwloc, distances, single_node, network, verbose)");
        }
    }
    return s;
}

} // namespace rankmap::discover

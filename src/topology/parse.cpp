// parse.cpp -- the one parser of topology strings, shared by the CLI, the
// C API and through it the patched MPICH and the PMPI plugin.
//
//   torus:8x8x8 | mesh:8x4x4 | torus:8x8x8:wrap=110 | torus:8x8x8x2:local=0.5
//   tree:4x2x8[:cost=100,10,1][:up=4] | file:PATH
//   dragonfly:GxCxBxN[xK][:links=1,1,1][:valiant=0][:local=0.5]
// options: :metric=hops|dim|euclid (torus/mesh), :slots=K (tasks a node may
// hold, default 1; any kind, last)
//
// Every error quotes the string and names the part at fault.
#include <cmath>
#include <memory>

#include "common/error.hpp"
#include "common/text.hpp"
#include "topology/dragonfly.hpp"
#include "topology/matrix.hpp"
#include "topology/topology.hpp"
#include "topology/torus.hpp"
#include "topology/tree.hpp"

namespace rankmap {

namespace {

[[noreturn]] void bad(const std::string &spec, const std::string &why) {
    throw Error("topology '" + spec + "': " + why +
                " (expected e.g. torus:8x8x8, mesh:8x4x4, torus:8x8x8x2:local=0.5, "
                "tree:4x2x8:cost=100,10,1, dragonfly:9x2x8x4, file:PATH)");
}

// `noun`: "dimension" (torus, mesh) or "tier" (tree: the arity of a tier).
std::vector<int> parse_dims(const std::string &spec, const std::string &text, const std::string &noun) {
    auto parts = split(text, "xX");
    if (parts.empty()) bad(spec, "no " + noun + "s");
    if (text.front() == 'x' || text.back() == 'x' || text.find("xx") != std::string::npos)
        bad(spec, "malformed " + noun + "s '" + text + "'");
    std::vector<int> dims;
    for (auto &p : parts) {
        long long v;
        if (!parse_int(p, v)) bad(spec, noun + " '" + p + "' is not a whole number");
        if (v < 1) bad(spec, noun + " '" + p + "' must be at least 1");
        if (v > 65535) bad(spec, noun + " '" + p + "' is too large");
        dims.push_back(static_cast<int>(v));
    }
    return dims;
}

// ":slots=K" may follow any kind (for file:, after the path): takes it off
// `rest` and returns K (1 when absent).
int take_slots(const std::string &spec, std::string &rest) {
    auto pos = rest.rfind(":slots=");
    if (pos == std::string::npos) return 1;
    std::string v = rest.substr(pos + 7);
    long long k;
    if (!parse_int(v, k) || k < 1 || k > 1024) bad(spec, "slots='" + v + "' must be a whole number 1..1024");
    rest.resize(pos);
    return static_cast<int>(k);
}

// The key=value options after the dimensions or tiers.
struct TopologyOptions {
    Metric metric = Metric::Hops;
    std::string wrap_text;
    bool has_local = false;
    double local_cost = -1;
    std::vector<double> costs;
    std::vector<int> up;
    std::vector<int> wires;
    double valiant = -1;
};

// split() drops empty fields: reject them here so that "cost=" or
// "cost=100,,1" is an error, not a default.
bool has_empty_entry(const std::string &val) {
    return val.empty() || val.front() == ',' || val.back() == ',' || val.find(",,") != std::string::npos;
}

void parse_costs(const std::string &spec, const std::string &val, std::vector<double> &costs) {
    if (has_empty_entry(val))
        bad(spec, "tier costs '" + val + "' have an empty entry (expected cost=c1,...,cN, one per tier)");
    if (!costs.empty()) bad(spec, "cost= given twice");
    for (auto &c : split(val, ",")) {
        double v;
        if (!parse_double(c, v) || v < 0) bad(spec, "tier cost '" + c + "' must be a number >= 0");
        costs.push_back(v);
    }
}

void parse_uplinks(const std::string &spec, const std::string &val, std::vector<int> &up) {
    if (has_empty_entry(val))
        bad(spec, "uplinks '" + val + "' have an empty entry (expected up=u1,...,uK, one per switch tier)");
    if (!up.empty()) bad(spec, "up= given twice");
    for (auto &u : split(val, ",")) {
        long long v;
        if (!parse_int(u, v) || v < 1 || v > 4096) bad(spec, "uplink count '" + u + "' must be a whole number 1..4096");
        up.push_back(static_cast<int>(v));
    }
}

// links=blue,black,green: parallel wires of each dragonfly link class.
void parse_wires(const std::string &spec, const std::string &val, std::vector<int> &wires) {
    if (has_empty_entry(val)) bad(spec, "links '" + val + "' have an empty entry (expected links=blue,black,green)");
    if (!wires.empty()) bad(spec, "links= given twice");
    for (auto &w : split(val, ",")) {
        long long v;
        if (!parse_int(w, v) || v < 1 || v > 1024) bad(spec, "wire count '" + w + "' must be a whole number 1..1024");
        wires.push_back(static_cast<int>(v));
    }
    if (wires.size() != 3)
        bad(spec, "links='" + val + "' needs 3 wire counts (blue, black, green), got " + std::to_string(wires.size()));
}

TopologyOptions parse_options(const std::string &spec, const std::string &kind,
                              const std::vector<std::string> &fields) {
    TopologyOptions o;
    for (size_t i = 1; i < fields.size(); ++i) {
        auto eq = fields[i].find('=');
        if (eq == std::string::npos) bad(spec, "option '" + fields[i] + "' is not key=value");
        std::string key = fields[i].substr(0, eq), val = fields[i].substr(eq + 1);
        if (key == "metric") {
            if (val == "hops") o.metric = Metric::Hops;
            else if (val == "dim") o.metric = Metric::DimScaled;
            else if (val == "euclid") o.metric = Metric::Euclidean;
            else bad(spec, "unknown metric '" + val + "' (hops, dim or euclid)");
        } else if (key == "wrap" && (kind == "torus" || kind == "mesh")) {
            o.wrap_text = val;
        } else if (key == "local" && kind != "tree") {
            if (!parse_double(val, o.local_cost) || o.local_cost < 0)
                bad(spec, "local cost '" + val + "' must be a number >= 0");
            o.has_local = true;
        } else if (key == "cost" && kind == "tree") {
            parse_costs(spec, val, o.costs);
        } else if (key == "up" && kind == "tree") {
            parse_uplinks(spec, val, o.up);
        } else if (key == "links" && kind == "dragonfly") {
            parse_wires(spec, val, o.wires);
        } else if (key == "valiant" && kind == "dragonfly") {
            if (o.valiant >= 0) bad(spec, "valiant= given twice");
            if (!parse_double(val, o.valiant) || !(o.valiant >= 0 && o.valiant <= 1))
                bad(spec, "valiant='" + val + "' must be a fraction 0..1 (of inter-group traffic routed through "
                          "another group)");
        } else {
            bad(spec, "unknown option '" + key + "' for " + kind);
        }
    }
    return o;
}

std::unique_ptr<Topology> make_torus(const std::string &spec, const std::string &kind, const std::vector<int> &dims,
                                     const TopologyOptions &o) {
    const int nd = static_cast<int>(dims.size());
    const int net = o.has_local ? nd - 1 : nd;
    if (net < 1) bad(spec, "local=... needs at least one network dimension before the local one");
    if (net > kMaxNetworkDims)
        bad(spec, std::to_string(net) + " network dimensions (at most " + std::to_string(kMaxNetworkDims) + ")");
    std::vector<int> wrap(nd, kind == "torus" ? 1 : 0);
    const std::string &wt = o.wrap_text;
    if (!wt.empty()) {
        if (static_cast<int>(wt.size()) != net)
            bad(spec, "wrap='" + wt + "' needs one 0/1 per network dimension (" + std::to_string(net) + ")");
        for (int k = 0; k < net; ++k) {
            if (wt[k] != '0' && wt[k] != '1') bad(spec, "wrap='" + wt + "' must be 0s and 1s");
            wrap[k] = wt[k] == '1';
        }
    }
    if (o.has_local) wrap[nd - 1] = 0;
    return std::make_unique<TorusTopology>(dims, wrap, o.has_local ? o.local_cost : -1.0, o.metric);
}

std::unique_ptr<Topology> make_tree(const std::string &spec, const std::vector<int> &dims,
                                    const TopologyOptions &o) {
    if (o.metric != Metric::Hops) bad(spec, "metric= applies to torus and mesh only");
    if (static_cast<int>(dims.size()) > kMaxTiers) bad(spec, "at most " + std::to_string(kMaxTiers) + " tiers");
    std::vector<double> costs = o.costs;
    if (costs.empty()) {
        // Default model: each tier outwards costs 10x the one inside it
        // (core 1, socket 10, node 100, ...).
        double c = 1;
        costs.assign(dims.size(), 0);
        for (int k = static_cast<int>(dims.size()) - 1; k >= 0; --k, c *= 10) costs[k] = c;
    }
    if (costs.size() != dims.size())
        bad(spec, std::to_string(dims.size()) + " tiers but " + std::to_string(costs.size()) + " costs");
    try {
        return std::make_unique<TreeTopology>(dims, costs, o.up);
    } catch (const Error &e) {
        // The model's own checks (e.g. too many leaves): name the string.
        std::string why = e.what();
        if (why.rfind("topology: ", 0) == 0) why.erase(0, 10);
        bad(spec, why);
    }
}

std::unique_ptr<Topology> make_dragonfly(const std::string &spec, const std::vector<int> &dims,
                                         const TopologyOptions &o) {
    if (o.metric != Metric::Hops) bad(spec, "metric= applies to torus and mesh only");
    if (dims.size() < 4 || dims.size() > 5)
        bad(spec, std::to_string(dims.size()) + " extents; a dragonfly has groups x chassis x blades x hosts "
                  "[x cores per host]");
    if (o.has_local && dims.size() < 5) bad(spec, "local= needs a cores-per-host extent (a fifth one)");
    std::array<int, 3> wires{1, 1, 1};
    for (size_t k = 0; k < o.wires.size(); ++k) wires[k] = o.wires[k];
    try {
        return std::make_unique<DragonflyTopology>(dims, wires, o.valiant < 0 ? 0.0 : o.valiant,
                                                   o.has_local ? o.local_cost : 0.5, o.valiant >= 0);
    } catch (const Error &e) {
        std::string why = e.what();
        if (why.rfind("topology: ", 0) == 0) why.erase(0, 10);
        bad(spec, why);
    }
}

} // namespace

std::unique_ptr<Topology> parse_topology(const std::string &spec_in) {
    const std::string spec = trim(spec_in);
    auto colon = spec.find(':');
    if (spec.empty()) bad(spec, "empty string");
    if (colon == std::string::npos) bad(spec, "missing ':' after the kind");
    const std::string kind = spec.substr(0, colon);
    std::string rest = spec.substr(colon + 1);
    const int slots = take_slots(spec, rest);
    std::unique_ptr<Topology> t;
    if (kind == "file") {
        if (rest.empty()) bad(spec, "no file name");
        t = std::make_unique<MatrixTopology>(rest);
    } else {
        auto fields = split(rest, ":");
        if (fields.empty()) bad(spec, kind == "tree" ? "no tiers" : "no dimensions");
        std::vector<int> dims = parse_dims(spec, fields[0],
                                           kind == "tree" ? "tier" : kind == "dragonfly" ? "extent" : "dimension");
        const TopologyOptions o = parse_options(spec, kind, fields);
        if (kind == "torus" || kind == "mesh")
            t = make_torus(spec, kind, dims, o);
        else if (kind == "tree")
            t = make_tree(spec, dims, o);
        else if (kind == "dragonfly")
            t = make_dragonfly(spec, dims, o);
        else
            bad(spec, "unknown kind '" + kind + "'");
    }
    t->set_slots(slots);
    return t;
}

} // namespace rankmap

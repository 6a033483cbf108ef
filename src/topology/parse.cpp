// parse.cpp -- the one parser of topology strings, shared by the CLI, the
// C API and through it the patched MPICH and the PMPI plugin.
//
//   torus:8x8x8 | mesh:8x4x4 | torus:8x8x8:wrap=110 | torus:8x8x8x2:local=0.5
//   tree:4x2x8[:cost=100,10,1][:up=4] | file:PATH
// options: :metric=hops|dim|euclid (torus/mesh), :slots=K (tasks a node may
// hold, default 1; any kind, last)
//
// Every error quotes the string and names the part at fault.
#include <cmath>
#include <memory>

#include "common/error.hpp"
#include "common/text.hpp"
#include "topology/matrix.hpp"
#include "topology/topology.hpp"
#include "topology/torus.hpp"
#include "topology/tree.hpp"

namespace rankmap {

namespace {

[[noreturn]] void bad(const std::string &spec, const std::string &why) {
    throw Error("topology '" + spec + "': " + why +
                " (expected e.g. torus:8x8x8, mesh:8x4x4, torus:8x8x8x2:local=0.5, "
                "tree:4x2x8:cost=100,10,1, file:PATH)");
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

} // namespace

std::unique_ptr<Topology> parse_topology(const std::string &spec_in) {
    const std::string spec = trim(spec_in);
    auto colon = spec.find(':');
    if (spec.empty()) bad(spec, "empty string");
    if (colon == std::string::npos) bad(spec, "missing ':' after the kind");
    const std::string kind = spec.substr(0, colon);
    std::string rest = spec.substr(colon + 1);

    // ":slots=K" may follow any kind (for file:, after the path).
    int slots = 1;
    {
        auto pos = rest.rfind(":slots=");
        if (pos != std::string::npos) {
            std::string v = rest.substr(pos + 7);
            long long k;
            if (!parse_int(v, k) || k < 1 || k > 1024) bad(spec, "slots='" + v + "' must be a whole number 1..1024");
            slots = static_cast<int>(k);
            rest.resize(pos);
        }
    }
    auto finish = [slots](std::unique_ptr<Topology> t) {
        t->set_slots(slots);
        return t;
    };
    if (kind == "file") {
        if (rest.empty()) bad(spec, "no file name");
        return finish(std::make_unique<MatrixTopology>(rest));
    }
    auto fields = split(rest, ":");
    if (fields.empty()) bad(spec, kind == "tree" ? "no tiers" : "no dimensions");
    std::vector<int> dims = parse_dims(spec, fields[0], kind == "tree" ? "tier" : "dimension");

    Metric metric = Metric::Hops;
    std::string wrap_text;
    bool has_local = false;
    double local_cost = -1;
    std::vector<double> costs;
    std::vector<int> up;
    for (size_t i = 1; i < fields.size(); ++i) {
        auto eq = fields[i].find('=');
        if (eq == std::string::npos) bad(spec, "option '" + fields[i] + "' is not key=value");
        std::string key = fields[i].substr(0, eq), val = fields[i].substr(eq + 1);
        if (key == "metric") {
            if (val == "hops") metric = Metric::Hops;
            else if (val == "dim") metric = Metric::DimScaled;
            else if (val == "euclid") metric = Metric::Euclidean;
            else bad(spec, "unknown metric '" + val + "' (hops, dim or euclid)");
        } else if (key == "wrap" && kind != "tree") {
            wrap_text = val;
        } else if (key == "local" && kind != "tree") {
            if (!parse_double(val, local_cost) || local_cost < 0)
                bad(spec, "local cost '" + val + "' must be a number >= 0");
            has_local = true;
        } else if (key == "cost" && kind == "tree") {
            // split() drops empty fields: reject them here so that
            // "cost=" or "cost=100,,1" is an error, not a default.
            if (val.empty() || val.front() == ',' || val.back() == ',' || val.find(",,") != std::string::npos)
                bad(spec, "tier costs '" + val + "' have an empty entry (expected cost=c1,...,cN, one per tier)");
            if (!costs.empty()) bad(spec, "cost= given twice");
            for (auto &c : split(val, ",")) {
                double v;
                if (!parse_double(c, v) || v < 0) bad(spec, "tier cost '" + c + "' must be a number >= 0");
                costs.push_back(v);
            }
        } else if (key == "up" && kind == "tree") {
            if (val.empty() || val.front() == ',' || val.back() == ',' || val.find(",,") != std::string::npos)
                bad(spec, "uplinks '" + val + "' have an empty entry (expected up=u1,...,uK, one per switch tier)");
            if (!up.empty()) bad(spec, "up= given twice");
            for (auto &u : split(val, ",")) {
                long long v;
                if (!parse_int(u, v) || v < 1 || v > 4096)
                    bad(spec, "uplink count '" + u + "' must be a whole number 1..4096");
                up.push_back(static_cast<int>(v));
            }
        } else {
            bad(spec, "unknown option '" + key + "' for " + kind);
        }
    }

    if (kind == "torus" || kind == "mesh") {
        const int nd = static_cast<int>(dims.size());
        const int net = has_local ? nd - 1 : nd;
        if (net < 1) bad(spec, "local=... needs at least one network dimension before the local one");
        if (net > 6) bad(spec, std::to_string(net) + " network dimensions (at most 6)");
        std::vector<int> wrap(nd, kind == "torus" ? 1 : 0);
        if (!wrap_text.empty()) {
            if (static_cast<int>(wrap_text.size()) != net)
                bad(spec, "wrap='" + wrap_text + "' needs one 0/1 per network dimension (" + std::to_string(net) + ")");
            for (int k = 0; k < net; ++k) {
                if (wrap_text[k] != '0' && wrap_text[k] != '1') bad(spec, "wrap='" + wrap_text + "' must be 0s and 1s");
                wrap[k] = wrap_text[k] == '1';
            }
        }
        if (has_local) wrap[nd - 1] = 0;
        return finish(std::make_unique<TorusTopology>(dims, wrap, has_local ? local_cost : -1.0, metric));
    }
    if (kind == "tree") {
        if (metric != Metric::Hops) bad(spec, "metric= applies to torus and mesh only");
        if (dims.size() > 6) bad(spec, "at most 6 tiers");
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
            return finish(std::make_unique<TreeTopology>(dims, costs, up));
        } catch (const Error &e) {
            // The model's own checks (e.g. too many leaves): name the string.
            std::string why = e.what();
            if (why.rfind("topology: ", 0) == 0) why.erase(0, 10);
            bad(spec, why);
        }
    }
    bad(spec, "unknown kind '" + kind + "'");
}

} // namespace rankmap

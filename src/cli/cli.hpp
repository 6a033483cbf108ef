// cli.hpp -- what the files of the `rankmap` command line share: the parsed
// options, the report's extra lines, and the guard of `rankmap map`
// (guard.cpp), which judges a mapping against the launch order as an MPI
// call does.
#pragma once
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cost/model.hpp"
#include "graph/graph.hpp"
#include "map/mapper.hpp"
#include "profile/cache.hpp"
#include "topology/topology.hpp"

namespace rankmap::cli {

// A usage error: exit status 2, the message and the usage text.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The command and its --key value options.
struct Args {
    std::string command, positional;
    std::map<std::string, std::string> opt;
    bool has(const std::string &k) const { return opt.count(k) > 0; }
    std::string get(const std::string &k, const std::string &def = "") const {
        auto it = opt.find(k);
        return it == opt.end() ? def : it->second;
    }
    std::string need(const std::string &k) const {
        if (!has(k)) throw UsageError("'" + command + "' needs --" + k);
        return get(k);
    }
};

// Extra report lines: (key, value, JSON value already quoted or numeric).
struct Extra {
    std::string key, text, json;
};

long long int_opt(const Args &a, const std::string &k, long long def, long long lo, long long hi);
double double_opt(const Args &a, const std::string &k, double def);
std::string json_escape(const std::string &s);
std::string quoted(const std::string &s);
std::optional<CartGrid> parse_cart(const std::string &s);

// --bytes-per-unit X, --bandwidth B[,B...], --latency S[,S...]: the cost
// model's unit and machine (cost/model.hpp: ModelParams); usage errors name
// the option.
ModelParams model_params(const Args &a);

// The guard of `rankmap map` (guard.cpp): replaces m's placement by the
// current one (--current, else the machine's order) unless the cost model
// predicts a clear gain; sizes: what is known of the messages' sizes (a
// profile's, or a graph file's with --bytes-per-unit), or null.
void apply_guard(const Args &a, const Graph &g, const Topology &topo, const Options &o,
                 const std::optional<CartGrid> &grid, const CacheWarn &warn, CachedMapping &m,
                 std::vector<Extra> &extras, std::vector<std::vector<int>> groups, const MessageSizes *sizes);

// Traffic the user did not declare, decided as inside an MPI call
// (guard.cpp).
CachedMapping decide_as_in_call(const Args &a, const Topology &topo, const Graph &g, const Options &o,
                                const std::string &cache_dir, std::vector<Extra> &extras);

} // namespace rankmap::cli

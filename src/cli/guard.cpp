// guard.cpp -- the guard of `rankmap map` and the undeclared traffic it
// decides as an MPI call does: the mapping replaces the launch order only
// when the cost model (cost/model.hpp: guard_verdict) predicts a clear gain.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "common/error.hpp"
#include "common/text.hpp"
#include "common/timer.hpp"
#include "cost/cost.hpp"
#include "map/cartesian/grid.hpp"
#include "map/spread.hpp"
#include "rankmap_glue.h"
#include "topology/mapfile.hpp"

namespace rankmap::cli {

ModelParams model_params(const Args &a) {
    ModelParams mp;
    mp.bytes_per_unit = a.has("bytes-per-unit") ? double_opt(a, "bytes-per-unit", 1) : 1;
    if (!(mp.bytes_per_unit > 0)) throw UsageError("--bytes-per-unit '" + a.get("bytes-per-unit") + "' must be > 0");
    auto list_opt = [&](const std::string &k) {
        std::vector<double> v;
        if (!a.has(k)) return v;
        for (auto &x : split(a.get(k), ",")) {
            double d;
            if (!parse_double(x, d) || !(d > 0)) throw UsageError("--" + k + " '" + a.get(k) + "' must be numbers > 0");
            v.push_back(d);
        }
        return v;
    };
    mp.bandwidth = list_opt("bandwidth");
    mp.latency = list_opt("latency");
    return mp;
}

// The guard of every reorder path (cost/model.hpp: guard_verdict): the
// mapping replaces the current placement (--current MAPFILE, else rank order,
// the launch order of mpiexec) only when the cost model predicts a clear
// gain.  --guard model (default) | f | off; --alltoall GROUPS tells the model
// which tasks exchange by all-to-all; `sizes` (a profile's, or a graph
// file's with --bytes-per-unit) lets the one-direction-at-a-time reading
// judge the messages at their sizes instead of by distance alone.
void apply_guard(const Args &a, const Graph &g, const Topology &topo, const Options &o,
                 const std::optional<CartGrid> &grid, const CacheWarn &warn, CachedMapping &m,
                 std::vector<Extra> &extras, std::vector<std::vector<int>> groups, const MessageSizes *sizes) {
    const std::string mode_s = a.get("guard", "model");
    GuardMode mode = GuardMode::Model;
    if (mode_s == "f")
        mode = GuardMode::F;
    else if (mode_s == "off")
        mode = GuardMode::Off;
    else if (mode_s != "model")
        throw UsageError("--guard '" + mode_s + "': expected model, f or off");
    if (mode == GuardMode::Off) return;
    std::vector<int> current;
    std::string cur_name = "rank order";
    if (a.has("current")) {
        current = read_mapfile(topo, a.get("current"), g.n());
        check_placement(topo, g.n(), current);
        cur_name = a.get("current");
    } else {
        current = map_with_cache(g, topo, Algorithm::Identity, o, grid, "", nullptr, {}, warn).entry.place;
    }
    if (a.has("alltoall")) groups = read_groups(a.get("alltoall"));
    const auto phases = mode == GuardMode::Model ? grid_exchange_phases(g) : std::nullopt;
    const ExchangePhases *ph = phases ? &*phases : nullptr;
    const GuardVerdict v = guard_verdict(g, topo, current, m.entry.place, groups, mode, RANKMAP_GUARD_MARGIN, ph, sizes);
    // On a dragonfly with all-to-all phases the tasks spread over the groups
    // (map/spread.hpp) are one more candidate, taken over any other the
    // guard takes when predicted faster.
    std::vector<int> spread;
    GuardVerdict ws;
    if (spread_applies(topo, groups)) {
        spread = spread_placement(g, topo, current, groups);
        ws = guard_verdict(g, topo, current, spread, groups, mode, RANKMAP_GUARD_MARGIN, ph, sizes);
    }
    auto spread_wins = [&](const GuardVerdict &other) {
        return !spread.empty() && ws.take && (!other.take || ws.T_proposed < other.T_proposed);
    };
    auto take = [&](std::vector<int> place, const std::string &algorithm, const std::string &note,
                    const std::string &value) {
        extras.push_back({"guard", note, quoted(value)});
        m.entry.place = std::move(place);
        m.entry.report = evaluate(g, topo, m.entry.place);
        m.entry.algorithm = algorithm;
    };
    const std::string spread_note = "the tasks spread over the groups taken instead of ";
    if (v.take) {
        if (spread_wins(v))
            return take(spread, "spread (dragonfly)",
                        spread_note + "the mapping, predicted faster (" + ws.figures + "; the mapping: " + v.figures +
                            ")",
                        "spread");
        extras.push_back({"guard", "mapping taken (" + v.figures + ")", quoted("taken")});
        return;
    }
    // The mapping refused, the machine's own order is the second candidate
    // when the current placement is another (a round-robin launch, a
    // scattered host file): the order that launchers give by default (cores
    // of a node first on trees, rank order on tori), judged by the same guard.
    const std::vector<int> own =
        map_with_cache(g, topo, Algorithm::Identity, o, grid, "", nullptr, {}, warn).entry.place;
    GuardVerdict w;
    w.take = false;
    if (own != current) w = guard_verdict(g, topo, current, own, groups, mode, RANKMAP_GUARD_MARGIN, ph, sizes);
    if (spread_wins(w))
        return take(spread, "spread (dragonfly)",
                    v.why + ": " + spread_note + cur_name + " (" + ws.figures + "; the mapping: " + v.figures + ")",
                    "spread");
    if (w.take)
        return take(own, "identity (the machine's order)",
                    v.why + ": the machine's order taken instead of " + cur_name + " (" + w.figures +
                        "; the mapping: " + v.figures + ")",
                    "machine order");
    const std::string why = v.why + (spread.empty() ? "" : "; spread over the groups: " + ws.why);
    extras.push_back({"guard", why + ": kept " + cur_name + " (" + v.figures + ")", quoted("kept")});
    m.entry.place = current;
    m.entry.report = evaluate(g, topo, current);
    m.entry.algorithm = "identity (no gain)";
}

// Traffic the user did not declare, decided as inside an MPI call by the
// glue (rankmap_reorder_ranks), in two readings: a grid (--cart-alltoall
// unknown) as a stencil and as transposes; a graph file whose edges split
// into cliques (clique_groups) as all-to-alls and as an exchange.  The
// current placement (--current MAPFILE, else rank order) holds the members.
CachedMapping decide_as_in_call(const Args &a, const Topology &topo, const Graph &g, const Options &o,
                                const std::string &cache_dir, std::vector<Extra> &extras) {
    const bool grid = a.has("cart-alltoall");
    const std::optional<CartGrid> cgo = a.has("cart") ? parse_cart(a.get("cart")) : std::nullopt;
    const CartGrid cg = cgo ? *cgo : CartGrid{};
    const int n = g.n();
    std::vector<int> current = a.has("current") ? read_mapfile(topo, a.get("current"), n)
                                                : map_with_cache(g, topo, Algorithm::Identity, o, cgo, "", nullptr, {},
                                                                 nullptr).entry.place;
    int flags = 0;
    if (rankmap_guard_flags(a.get("guard", "model").c_str(), &flags) != RANKMAP_OK)
        throw UsageError("--guard '" + a.get("guard") + "': expected model, f or off");
    std::vector<int> periods(cg.periods.begin(), cg.periods.end());
    rankmap_topology_t th = nullptr;
    rankmap_graph_t gh = nullptr;
    auto done = [&] {
        rankmap_graph_free(gh);
        rankmap_topology_free(th);
    };
    std::vector<int> src, dst;
    std::vector<double> w;
    if (!grid)
        for (const Edge &e : g.edges()) src.push_back(e.src), dst.push_back(e.dst), w.push_back(e.w);
    if (rankmap_topology_parse(a.get("topology").c_str(), &th) != RANKMAP_OK ||
        (grid ? rankmap_graph_cartesian_alltoall(static_cast<int>(cg.dims.size()), cg.dims.data(), periods.data(),
                                                 "unknown", &gh)
              : rankmap_graph_create(n, static_cast<int64_t>(src.size()), src.data(), dst.data(), w.data(), &gh)) !=
            RANKMAP_OK) {
        const std::string e = rankmap_last_error();
        done();
        throw Error(e);
    }
    rankmap_options opts;
    rankmap_options_init(&opts);
    const std::string alg = a.get("algorithm", "auto");
    opts.algorithm = alg.c_str();
    opts.seed = o.seed;
    opts.time_limit = o.time_limit;
    opts.cache_dir = cache_dir.c_str();
    opts.cart_ndims = static_cast<int>(cg.dims.size());
    for (int k = 0; k < opts.cart_ndims; ++k) opts.cart_dims[k] = cg.dims[k], opts.cart_periods[k] = periods[k];
    std::vector<int> new_of(n);
    rankmap_report before, after;
    char why[1024];
    const Deadline clock;
    const int rc = rankmap_reorder_ranks(th, gh, &opts, n, current.data(), n, flags, new_of.data(), &before, &after,
                                         why, sizeof why);
    done();
    if (rc != RANKMAP_OK) throw Error(why);
    CachedMapping m;
    m.seconds = clock.elapsed();
    m.entry.place.assign(n, -1);
    for (int i = 0; i < n; ++i) m.entry.place[new_of[i]] = current[i];
    m.entry.report = evaluate(g, topo, m.entry.place);
    m.entry.algorithm = after.algorithm;
    const bool kept = m.entry.algorithm == "identity (no gain)";
    extras.push_back({"guard", why, quoted(kept ? "kept" : "taken")});
    return m;
}

} // namespace rankmap::cli

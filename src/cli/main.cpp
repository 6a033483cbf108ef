// main.cpp -- the `rankmap` command line:
//   rankmap map  --topology T (--graph G | --profile P [--weights W] [--threshold B])
//                [--algorithm A] [--seed S] [--time-limit SEC] [--out MAPFILE] [--json]
//                [--format F] [--order XYZT] [--cart DIMS[:PERIODS]] [--strategy S]
//                [--trace FILE] [--cache DIR | --no-cache] [--portfolio K] [-v]
//                [--guard model|f|off] [--current MAPFILE] [--alltoall GROUPS]
//                [--bytes-per-unit X] [--bandwidth B[,B...]] [--latency S[,S...]]
//                [--cart DIMS[:PERIODS] --cart-alltoall all|none|unknown|LIST (instead of --graph)]
//                [--hosts FILE [--rank-order F] [--hostfile F] [--ompi-hostfile F] [--rankfile F]]
//   rankmap eval --topology T (--graph G | --profile P ...) --mapping MAPFILE [--json] [--format F]
//                [--alltoall GROUPS] [--bytes-per-unit X] [--bandwidth B[,B...]] [--latency S[,S...]]
//   rankmap gen  WORKLOAD --topology T [--tasks N] [--seed S] [--scramble] --out G
//   rankmap plot matrix|placement|convergence ...   (python3 + matplotlib script)
// Exit status: 0 success, 1 error (message on stderr naming the file, line
// or setting), 2 usage error.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include "cli/cli.hpp"
#include "common/error.hpp"
#include "common/text.hpp"
#include "common/timer.hpp"
#include "cost/cost.hpp"
#include "cost/model.hpp"
#include "rankmap_glue.h"
#include "graph/graph.hpp"
#include "map/cartesian/grid.hpp"
#include "map/cartesian/transpose.hpp"
#include "map/mapper.hpp"
#include "profile/cache.hpp"
#include "profile/profile.hpp"
#include "topology/coordfile.hpp"
#include "topology/mapfile.hpp"
#include "topology/topology.hpp"
#include "workload/workload.hpp"

using namespace rankmap;
using namespace rankmap::cli;

namespace rankmap::cli {

long long int_opt(const Args &a, const std::string &k, long long def, long long lo, long long hi) {
    if (!a.has(k)) return def;
    long long v;
    if (!parse_int(a.get(k), v) || v < lo || v > hi)
        throw UsageError("--" + k + " '" + a.get(k) + "' must be a whole number in " + std::to_string(lo) + ".." +
                         std::to_string(hi));
    return v;
}

double double_opt(const Args &a, const std::string &k, double def) {
    if (!a.has(k)) return def;
    double v;
    if (!parse_double(a.get(k), v) || v < 0) throw UsageError("--" + k + " '" + a.get(k) + "' must be a number >= 0");
    return v;
}

std::string json_escape(const std::string &s) {
    std::string o;
    for (char c : s) {
        if (c == '"' || c == '\\') o += '\\', o += c;
        else if (static_cast<unsigned char>(c) < 0x20) o += ' ';
        else o += c;
    }
    return o;
}

std::string quoted(const std::string &s) { return "\"" + json_escape(s) + "\""; }

std::optional<CartGrid> parse_cart(const std::string &s) {
    // DIMS[:PERIODS], e.g. 8x8x8 or 8x8:10 (periods default 1 = periodic)
    auto parts = split(s, ":");
    if (parts.empty() || parts.size() > 2) throw UsageError("--cart '" + s + "' must be DIMS[:PERIODS], e.g. 8x8x8:111");
    CartGrid g;
    for (auto &d : split(parts[0], "x")) {
        long long v;
        if (!parse_int(d, v) || v < 1 || v > 1 << 20) throw UsageError("--cart dimension '" + d + "' is not valid");
        g.dims.push_back(static_cast<int>(v));
    }
    g.periods.assign(g.dims.size(), 1);
    if (parts.size() == 2) {
        if (parts[1].size() != g.dims.size() || parts[1].find_first_not_of("01") != std::string::npos)
            throw UsageError("--cart periods '" + parts[1] + "' need one 0/1 per dimension");
        for (size_t k = 0; k < g.dims.size(); ++k) g.periods[k] = parts[1][k] == '1';
    }
    return g;
}

} // namespace rankmap::cli

namespace {

const char *kUsage =
    "usage:\n"
    "  rankmap map  --topology T (--graph G | --profile P) [--algorithm A] [--seed S]\n"
    "               [--time-limit SEC] [--out MAPFILE] [--json] [--format edges|metis|matrix]\n"
    "               [--order XYZT] [--cart DIMS[:PERIODS]] [--strategy default|quality|speed]\n"
    "               [--trace FILE] [--cache DIR | --no-cache] [--portfolio K] [-v]\n"
    "               guard: [--guard model|f|off] (default model: keep --current MAPFILE, else rank\n"
    "               order, unless the cost model predicts a clear gain) [--alltoall GROUPS]\n"
    "               messages' sizes (a profile has its own): [--bytes-per-unit X] [--bandwidth B[,B...]]\n"
    "               [--latency S[,S...]]\n"
    "               all-to-all grid: --cart DIMS[:PERIODS] --cart-alltoall all|none|unknown|LIST (no --graph)\n"
    "               launch files: --hosts FILE (line k: host of node k) with --rank-order F (Cray),\n"
    "               --hostfile F (MPICH Hydra), --ompi-hostfile F (Open MPI --map-by seq), --rankfile F\n"
    "               MPICH's coordinates file (dragonfly): --coordinates F ('rank: group switch port')\n"
    "               profiles: [--weights auto|count|volume] [--threshold BYTES] (default 16384)\n"
    "               cache: --cache DIR or $RANKMAP_WISDOM (unset: no cache)\n"
    "  rankmap eval --topology T (--graph G | --profile P) --mapping MAPFILE [--json] [--format F]\n"
    "               predicted time: [--alltoall GROUPS] [--bytes-per-unit X] [--bandwidth B[,B...]]\n"
    "               [--latency S[,S...]] (bytes/s and s per link; trees: one per tier, outermost first;\n"
    "               dragonfly: blue, black, green, injection[, memory])\n"
    "  rankmap gen  WORKLOAD --topology T [--tasks N] [--seed S] [--scramble] --out G\n"
    "               (WORKLOAD: cubic1, cubic2, sage, umt)\n"
    "  rankmap plot matrix|placement|convergence ... (rankmap plot --help)\n"
    "  rankmap --help | --version\n"
    "topologies: torus:8x8x8  mesh:8x4x4  torus:8x8x8x2:local=0.5  tree:4x2x8:cost=100,10,1\n"
    "            tree:4x4x8:cost=100,10,1:up=4 (fat tree: uplinks per switch)  file:PATH\n"
    "            dragonfly:9x2x8x4[x2][:links=1,1,1][:valiant=F] (groups x chassis x blades x hosts [x cores])\n"
    "            options :metric=hops|dim|euclid  :slots=K (tasks per node)\n"
    "algorithms: auto (default; the quality strategy), quality, fast (the in-call default), identity,\n"
    "            random, order, cart, greedy, anneal, dc-anneal, kl, scotch, hier (trees),\n"
    "            congestion (auto + busiest-link refinement)\n";

Args parse_args(int argc, char **argv) {
    static const char *flags[] = {"json", "scramble", "v", "verbose", "help", "no-cache"};
    Args a;
    if (argc < 2) throw UsageError("no command");
    a.command = argv[1];
    for (int i = 2; i < argc; ++i) {
        std::string s = argv[i];
        if (s.rfind("--", 0) == 0 || s == "-v") {
            std::string key = s.substr(s[1] == '-' ? 2 : 1), val;
            auto eq = key.find('=');
            bool is_flag = false;
            for (auto *f : flags) is_flag |= key == f;
            if (eq != std::string::npos) {
                val = key.substr(eq + 1);
                key = key.substr(0, eq);
            } else if (!is_flag) {
                if (i + 1 >= argc) throw UsageError("option --" + key + " needs a value");
                val = argv[++i];
            }
            a.opt[key] = val;
        } else if (a.positional.empty()) {
            a.positional = s;
        } else {
            throw UsageError("unexpected argument '" + s + "'");
        }
    }
    return a;
}

void print_report(const std::string &alg, const Graph &g, const Topology &topo, const CostReport &r, double secs,
                  bool json, const std::vector<Extra> &extras = {}) {
    if (json) {
        std::printf("{\"algorithm\": \"%s\", \"n\": %d, \"nodes\": %d, \"topology\": \"%s\", \"F\": %.17g, "
                    "\"F_min\": %.17g, \"ratio\": %.6f, \"avg_dilation\": %.6f, \"max_link_load\": %.17g, "
                    "\"seconds\": %.6f",
                    json_escape(alg).c_str(), g.n(), topo.size(), json_escape(topo.describe()).c_str(), r.F, r.F_min,
                    r.ratio, r.avg_dilation, r.max_link_load, secs);
        for (auto &x : extras) std::printf(", \"%s\": %s", x.key.c_str(), x.json.c_str());
        std::printf("}\n");
    } else {
        std::printf("algorithm      %s\n", alg.c_str());
        std::printf("tasks          %d on %s (%d nodes)\n", g.n(), topo.describe().c_str(), topo.size());
        std::printf("F              %.6g\n", r.F);
        std::printf("F_min          %.6g\n", r.F_min);
        std::printf("F/F_min        %.4f\n", r.ratio);
        std::printf("avg dilation   %.4f hops\n", r.avg_dilation);
        std::printf("max link load  %.6g\n", r.max_link_load);
        std::printf("seconds        %.3f\n", secs);
        for (auto &x : extras)
            if (!x.text.empty()) std::printf("%-14s %s\n", x.key.c_str(), x.text.c_str());
    }
}

// The communication graph of `map`/`eval`: --graph G, or --profile P with
// the weight choice of Chen et al., MPIPP (reported in `extras`), and the
// profile's all-to-all groups in *groups (for the cost model; --alltoall
// overrides); for a profile, *message_bytes (when asked for) gets the mean
// size of a message of each pair (bytes over count).
Graph load_graph(const Args &a, std::vector<Extra> &extras, std::vector<std::vector<int>> *groups,
                 std::optional<Graph> *message_bytes = nullptr) {
    if (a.has("profile") == a.has("graph")) throw UsageError("'" + a.command + "' needs --graph G or --profile P (one)");
    if (a.has("graph")) {
        if (a.has("weights") || a.has("threshold")) throw UsageError("--weights and --threshold go with --profile");
        return read_graph(a.get("graph"), a.get("format", "auto"));
    }
    const WeightKind want = parse_weight_kind(a.get("weights", "auto"));
    double threshold = 0;
    if (a.has("threshold")) {
        if (!parse_double(a.get("threshold"), threshold) || threshold <= 0)
            throw UsageError("--threshold '" + a.get("threshold") + "' must be a number of bytes > 0");
    }
    Profile prof = read_profile(a.get("profile"));
    WeightChoice c = choose_weights(prof, want, threshold);
    char num[64];
    std::snprintf(num, sizeof num, "%.17g", c.median_bytes);
    extras.push_back({"weights", std::string(weight_kind_name(c.kind)) + ": " + c.reason,
                      quoted(weight_kind_name(c.kind))});
    extras.push_back({"median_bytes", "", num});  // JSON only: the text line above says it
    std::snprintf(num, sizeof num, "%.17g", c.threshold);
    extras.push_back({"threshold", "", num});
    extras.push_back({"weights_reason", "", quoted(c.reason)});
    if (!prof.groups.empty()) {
        extras.push_back({"alltoall_groups", std::to_string(prof.groups.size()) + " from the profile",
                          std::to_string(prof.groups.size())});
        *groups = profile_groups(prof);
    }
    if (message_bytes) {
        std::vector<Edge> es;
        for (const auto &pr : prof.pairs)
            if (pr.count > 0 && pr.bytes > 0)
                es.push_back({pr.src, pr.dst, static_cast<double>(pr.bytes) / static_cast<double>(pr.count)});
        *message_bytes = Graph::from_edges(prof.ntasks, es);
    }
    return profile_graph(prof, c.kind);
}

// ---- launch-time placement: the placement in the forms launchers read ------

// Line k of --hosts names machine node k (the topology's node order); '#'
// starts a comment and blank lines are skipped.  A name is one word of
// letters, digits, '.', '-' and '_' (':' and blanks would change the meaning
// of the files written from it); every node needs a different name.
std::vector<std::string> read_hosts(const std::string &path, const Topology &topo) {
    std::ifstream in(path);
    if (!in) throw Error("--hosts '" + path + "': cannot open", ErrorKind::Io);
    const int nnodes = topo.size();
    std::vector<std::string> hosts;
    std::map<std::string, std::pair<int, long>> first;  // name -> (node, line)
    std::string line;
    long lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        auto hash = line.find('#');
        if (hash != std::string::npos) line.resize(hash);
        std::string name = trim(line);
        if (name.empty()) continue;
        auto bad = name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_");
        if (bad != std::string::npos)
            throw Error(where(path, lineno) + "expected one host name per line, found '" + name + "' ('" +
                        std::string(1, name[bad]) + "' is not a letter, digit, '.', '-' or '_')");
        if (static_cast<int>(hosts.size()) == nnodes)
            throw Error(where(path, lineno) + "more host names than the " + std::to_string(nnodes) + " nodes of " +
                        topo.describe());
        auto seen = first.find(name);
        if (seen != first.end())
            throw Error(where(path, lineno) + "host '" + name + "' already names node " +
                        std::to_string(seen->second.first) + " at line " + std::to_string(seen->second.second) +
                        " (one line per node)");
        first[name] = {static_cast<int>(hosts.size()), lineno};
        hosts.push_back(name);
    }
    if (static_cast<int>(hosts.size()) < nnodes)
        throw Error("--hosts '" + path + "': " + std::to_string(hosts.size()) + " host names (to line " +
                    std::to_string(lineno) + ") for the " + std::to_string(nnodes) + " nodes of " + topo.describe() +
                    ": line k names node k");
    return hosts;
}

void write_text(const std::string &option, const std::string &path, const std::string &text) {
    std::ofstream out(path);
    if (!out) throw Error("--" + option + " '" + path + "': cannot open for writing", ErrorKind::Io);
    out << text;
    out.flush();
    if (!out) throw Error("--" + option + " '" + path + "': write failed", ErrorKind::Io);
}

// The host names for the launch files, read before mapping so a bad --hosts
// fails at once; empty when no launch file is asked for.
std::vector<std::string> launch_hosts(const Args &a, const Topology &topo) {
    static const char *kinds[] = {"rank-order", "hostfile", "ompi-hostfile", "rankfile"};
    bool any = false;
    for (auto *k : kinds) any |= a.has(k);
    if (!any) {
        if (a.has("hosts"))
            throw UsageError("--hosts goes with --rank-order, --hostfile, --ompi-hostfile or --rankfile");
        return {};
    }
    if (!a.has("hosts"))
        throw UsageError("--rank-order, --hostfile, --ompi-hostfile and --rankfile need --hosts FILE "
                         "(line k: the host name of node k)");
    return read_hosts(a.get("hosts"), topo);
}

// Writes the files of --rank-order, --hostfile, --ompi-hostfile and
// --rankfile for place[r] = node of rank r, and prints on stderr, for each,
// the line that launches with it.  Slot s of a node is its s-th rank in
// rank order (the slot column of the mapfile).
void write_launch_files(const Args &a, const Topology &topo, const std::vector<std::string> &hosts,
                        const std::vector<int> &place) {
    if (hosts.empty()) return;
    const int n = static_cast<int>(place.size());
    std::vector<std::vector<int>> ranks_of(topo.size());
    for (int r = 0; r < n; ++r) ranks_of[place[r]].push_back(r);
    const std::string N = std::to_string(n);

    if (a.has("rank-order")) {
        // Cray MPICH (MPICH_RANK_REORDER_METHOD=3): the i-th listed rank
        // takes the i-th launch slot, slots filled node by node with the same
        // number of ranks on every node; one line per node.
        const size_t per_node = ranks_of[0].size();
        for (int v = 0; v < topo.size(); ++v)
            if (ranks_of[v].size() != per_node)
                throw Error("--rank-order: node " + std::to_string(v) + " (" + hosts[v] + ") holds " +
                            std::to_string(ranks_of[v].size()) + " ranks and node 0 (" + hosts[0] + ") " +
                            std::to_string(per_node) + "; Cray fills every node with the same number of ranks (" +
                            N + " tasks on " + std::to_string(topo.size()) + " nodes)");
        std::ostringstream o;
        for (auto &rs : ranks_of) {
            for (size_t i = 0; i < rs.size(); ++i) o << (i ? "," : "") << rs[i];
            o << "\n";
        }
        write_text("rank-order", a.get("rank-order"), o.str());
        std::fprintf(stderr,
                     "rankmap: wrote %s (Cray rank order); launch: MPICH_RANK_REORDER_METHOD=3 "
                     "MPICH_RANK_REORDER_FILE=%s srun -n %d --ntasks-per-node=%zu ./app, on the nodes of %s in "
                     "that order\n",
                     a.get("rank-order").c_str(), a.get("rank-order").c_str(), n, per_node, a.get("hosts").c_str());
    }
    if (a.has("hostfile")) {
        // Hydra: each "host:k" line takes the next k ranks, so one line per
        // run of consecutive ranks on one node puts rank r on place[r].
        std::ostringstream o;
        for (int r = 0; r < n;) {
            int e = r;
            while (e < n && place[e] == place[r]) ++e;
            o << hosts[place[r]] << ":" << (e - r) << "\n";
            r = e;
        }
        write_text("hostfile", a.get("hostfile"), o.str());
        std::fprintf(stderr, "rankmap: wrote %s (Hydra host file); launch: mpiexec -f %s -n %d ./app\n",
                     a.get("hostfile").c_str(), a.get("hostfile").c_str(), n);
    }
    if (a.has("ompi-hostfile")) {
        // Open MPI's sequential mapper: line r is the host of rank r.
        std::ostringstream o;
        for (int r = 0; r < n; ++r) o << hosts[place[r]] << "\n";
        write_text("ompi-hostfile", a.get("ompi-hostfile"), o.str());
        std::fprintf(stderr,
                     "rankmap: wrote %s (Open MPI host file, one line per rank); launch: mpirun --hostfile %s "
                     "--map-by seq -n %d ./app\n",
                     a.get("ompi-hostfile").c_str(), a.get("ompi-hostfile").c_str(), n);
    }
    if (a.has("rankfile")) {
        // Open MPI rankfile: the host and the slot (logical core) of every rank.
        std::ostringstream o;
        std::vector<int> used(topo.size(), 0);
        for (int r = 0; r < n; ++r) o << "rank " << r << "=" << hosts[place[r]] << " slot=" << used[place[r]]++ << "\n";
        write_text("rankfile", a.get("rankfile"), o.str());
        std::fprintf(stderr, "rankmap: wrote %s (Open MPI rankfile); launch: mpirun --rankfile %s -n %d ./app\n",
                     a.get("rankfile").c_str(), a.get("rankfile").c_str(), n);
    }
}

// A grid whose lines along some dimensions do all-to-all (--cart-alltoall).
struct AlltoallGrid {
    std::vector<int> dims;
    std::vector<bool> alltoall;
    Graph graph;
    std::vector<std::vector<int>> groups;
};

// --cart-alltoall: the grid's own graph, as MPI_Cart_create builds it with
// MPIR_CVAR_RANKMAP_CART_ALLTOALL (rankmap_graph_cartesian_alltoall)
AlltoallGrid cart_alltoall_grid(const Args &a) {
    AlltoallGrid a2a;
    if (!a.has("cart-alltoall")) return a2a;
    if (!a.has("cart")) throw UsageError("--cart-alltoall needs --cart DIMS[:PERIODS]");
    if (a.has("graph") || a.has("profile") || a.has("alltoall"))
        throw UsageError("--cart-alltoall builds the grid's graph and groups: leave out --graph, --profile "
                         "and --alltoall");
    const CartGrid cg = *parse_cart(a.get("cart"));
    a2a.dims = cg.dims;
    a2a.alltoall = parse_alltoall_dims(a.get("cart-alltoall"), static_cast<int>(cg.dims.size()));
    a2a.graph = cartesian_alltoall_graph(cg.dims, cg.periods, a2a.alltoall, &a2a.groups);
    return a2a;
}

// --cart DIMS[:PERIODS], which must hold the graph's tasks.
std::optional<CartGrid> checked_cart(const Args &a, const Graph &g) {
    if (!a.has("cart")) return std::nullopt;
    std::optional<CartGrid> grid = parse_cart(a.get("cart"));
    int64_t n = 1;
    for (int d : grid->dims) n *= d;
    if (n != g.n())
        throw Error("--cart " + a.get("cart") + " has " + std::to_string(n) + " tasks but the graph has " +
                    std::to_string(g.n()));
    return grid;
}

using Search = std::function<CachedMapping(uint64_t, std::vector<Extra> &)>;

// --portfolio K: the K searches of the call's portfolio (rankmap_glue.h: member
// i's seed) one after another on this core, and the call's election (step 3);
// the winner's report lines and the portfolio's go to `extras`.
CachedMapping elect_portfolio(int members, const Search &search, uint64_t seed, const Graph &g, const Topology &topo,
                              const std::vector<std::vector<int>> &groups, bool show, std::vector<Extra> &extras) {
    std::vector<CachedMapping> cand;
    std::vector<std::vector<Extra>> cand_extras(static_cast<size_t>(members));
    std::vector<double> F(static_cast<size_t>(members)), T(static_cast<size_t>(members));
    double all_seconds = 0, F_lowest = HUGE_VAL;
    for (int i = 0; i < members; ++i) {
        cand.push_back(search(rankmap_portfolio_seed(seed, i), cand_extras[i]));
        const CachedMapping &mi = cand.back();
        all_seconds += mi.seconds;
        rankmap_report r{};
        r.F = mi.entry.report.F;
        F[i] = rankmap_portfolio_score(RANKMAP_OK, &r);
        T[i] = bandwidth_time(g, topo, mi.entry.place, groups);
        F_lowest = std::min(F_lowest, F[i]);
    }
    int winner = 0;
    double best = HUGE_VAL;
    for (int i = 0; i < members; ++i) {
        const double score = rankmap_portfolio_runoff(F[i], T[i], F_lowest);
        if (show)
            std::fprintf(stderr,
                         "rankmap: portfolio member %d: F/F_min %.6f, busiest link %g, %.6g s for 1 MiB per unit%s "
                         "(%s, %.3f s)\n", i, cand[i].entry.report.ratio, cand[i].entry.report.max_link_load, T[i],
                         std::isfinite(score) ? "" : ", F above the margin", cand[i].entry.algorithm.c_str(),
                         cand[i].seconds);
        if (score < best) best = score, winner = i;
    }
    extras.insert(extras.end(), cand_extras[winner].begin(), cand_extras[winner].end());
    char line[160];
    std::snprintf(line, sizeof line, "%d members (the call's seeds, one after another): member %d won; %.3f s in all",
                  members, winner, all_seconds);
    extras.push_back({"portfolio", line, std::to_string(members)});
    extras.push_back({"portfolio_winner", "", std::to_string(winner)});
    extras.push_back({"portfolio_seconds", "", std::to_string(all_seconds)});
    return std::move(cand[winner]);
}

// `rankmap map`'s --out, launch files and --trace, and the cache's report lines.
void write_map_outputs(const Args &a, const Topology &topo, const std::vector<std::string> &hosts,
                       const CachedMapping &m, const std::vector<TracePoint> &trace, const std::string &cache_dir,
                       std::vector<Extra> &extras) {
    if (a.has("out")) write_mapfile(topo, a.get("out"), m.entry.place);
    if (a.has("coordinates")) write_text("coordinates", a.get("coordinates"), coordinates_text(topo, m.entry.place));
    write_launch_files(a, topo, hosts, m.entry.place);
    if (a.has("trace")) {
        std::FILE *f = std::fopen(a.get("trace").c_str(), "w");
        if (!f) throw Error("trace file '" + a.get("trace") + "': cannot open for writing", ErrorKind::Io);
        std::fprintf(f, "# step beta ratio acceptance\n");
        for (auto &t : trace) std::fprintf(f, "%d %.9g %.9g %.6f\n", t.step, t.beta, t.ratio, t.acceptance);
        std::fclose(f);
    }
    if (cache_dir.empty()) {
        extras.push_back({"cache", "off", quoted("off")});
        return;
    }
    char ms[64];
    std::snprintf(ms, sizeof ms, "%.3f ms", 1e3 * m.seconds);
    extras.push_back({"cache", m.hit ? "hit " + m.path + " (" + ms + ", first mapped by '" + m.entry.algorithm + "')"
                                     : "miss, stored " + m.path,
                      quoted(m.hit ? "hit" : "miss")});
    extras.push_back({"cache_entry", "", quoted(m.path)});
}

// What the guard knows of the messages' sizes: a profile's, or a graph
// file's weights times --bytes-per-unit; the machine from --bandwidth and
// --latency (the model's defaults otherwise).
std::optional<MessageSizes> message_sizes(const Args &a, const Graph &g, const std::optional<Graph> &profile_bytes) {
    const bool machine = a.has("bandwidth") || a.has("latency");
    if (a.has("cart-alltoall") && (a.has("bytes-per-unit") || machine))
        throw UsageError("--bytes-per-unit, --bandwidth and --latency go with --graph or --profile");
    if (a.has("graph") && !a.has("bytes-per-unit")) {
        if (machine) throw UsageError("--bandwidth and --latency need the messages' sizes: --bytes-per-unit X");
        return std::nullopt;
    }
    if (a.has("profile") && a.has("bytes-per-unit"))
        throw UsageError("--bytes-per-unit goes with --graph (a profile's sizes are its own)");
    if (!a.has("graph") && !profile_bytes) return std::nullopt;
    MessageSizes m;
    m.machine = model_params(a);
    m.bytes = profile_bytes ? &*profile_bytes : &g;
    return m;
}

int cmd_map(const Args &a) {
    auto topo = parse_topology(a.need("topology"));
    std::vector<Extra> extras;
    AlltoallGrid a2a = cart_alltoall_grid(a);
    const bool in_call_grid = a.has("cart-alltoall") && alltoall_hint_unknown(a.get("cart-alltoall"));
    if (in_call_grid && a.has("trace")) throw UsageError("--trace needs a declared --cart-alltoall (all, none or a list)");
    std::vector<std::vector<int>> profile_groups_;
    std::optional<Graph> profile_bytes;
    Graph g = a.has("cart-alltoall") ? a2a.graph : load_graph(a, extras, &profile_groups_, &profile_bytes);
    const std::optional<MessageSizes> sizes = message_sizes(a, g, profile_bytes);
    if (a2a.groups.empty()) a2a.groups = profile_groups_;
    // a graph file whose all-to-alls nobody declared, on a machine it fills
    // (as a job's world communicator): decided as in the call
    const bool in_call =
        in_call_grid || (!a.has("cart-alltoall") && a2a.groups.empty() && !a.has("alltoall") &&
                         a.get("guard", "model") == "model" &&
                         static_cast<int64_t>(g.n()) == static_cast<int64_t>(topo->size()) * topo->slots() &&
                         !clique_groups(g).empty());
    Algorithm alg = parse_algorithm(a.get("algorithm", "auto"));
    Options o;
    o.seed = static_cast<uint64_t>(int_opt(a, "seed", 1, 0, (1LL << 62)));
    o.time_limit = double_opt(a, "time-limit", 0);
    o.verbose = (a.has("v") || a.has("verbose")) ? 2 : 0;
    if (a.has("order")) o.order = a.get("order");
    if (a.has("strategy")) o.strategy = a.get("strategy");
    const std::optional<CartGrid> grid = checked_cart(a, g);
    const std::vector<std::string> hosts = launch_hosts(a, *topo);
    if (a.has("cache") && a.has("no-cache")) throw UsageError("--cache and --no-cache exclude each other");
    if (a.has("cache") && a.get("cache").empty()) throw UsageError("--cache needs a directory");
    const std::string cache_dir = a.has("no-cache") ? "" : a.has("cache") ? a.get("cache") : cache_dir_from_env();
    std::vector<TracePoint> trace;
    const bool show = o.verbose > 0 || isatty(2);
    std::function<void(const std::string &)> progress;
    if (show) progress = [](const std::string &m) { std::fprintf(stderr, "rankmap: %s\n", m.c_str()); };
    if (show)
        std::fprintf(stderr, "rankmap: mapping %d tasks onto %s with '%s'...\n", g.n(), topo->describe().c_str(),
                     algorithm_name(alg));
    auto warn = [](const std::string &m) { std::fprintf(stderr, "rankmap: warning: %s\n", m.c_str()); };
    // --portfolio K (elect_portfolio): the members run the call's own strategy: auto inside
    // an MPI call is the fast one, taking a quality mapping from the cache (rankmap_map()).
    const int members = static_cast<int>(int_opt(a, "portfolio", 1, 1, 4096));
    if (members > 1 && a.has("trace")) throw UsageError("--trace follows one search: leave out --portfolio");
    const bool as_call = members > 1 && alg == Algorithm::Auto;
    // One search with the given seed, guard included; its report lines go to `ex`.
    const Search search = [&](uint64_t seed, std::vector<Extra> &ex) {
        Options os = o;
        os.seed = seed;
        if (in_call) return decide_as_in_call(a, *topo, g, os, cache_dir, ex);
        CachedMapping mi = map_with_cache(g, *topo, as_call ? Algorithm::Fast : alg, os, grid, cache_dir,
                                          a.has("trace") ? &trace : nullptr, progress, warn,
                                          as_call ? std::optional(Algorithm::Auto) : std::nullopt);
        if (!a2a.dims.empty() && !a2a.groups.empty() && (alg == Algorithm::Auto || alg == Algorithm::Fast))  // a grid with the hint, as rankmap_map()
            prefer_for_alltoall(g, *topo, a2a.dims, a2a.alltoall, a2a.groups, mi.entry.place, mi.entry.report,
                                mi.entry.algorithm);
        apply_guard(a, g, *topo, os, grid, warn, mi, ex, a2a.groups, sizes ? &*sizes : nullptr);
        return mi;
    };
    CachedMapping m;
    if (members == 1) {
        m = search(o.seed, extras);
    } else {
        const auto &groups = a.has("alltoall") ? read_groups(a.get("alltoall")) : a2a.groups;
        m = elect_portfolio(members, search, o.seed, g, *topo, in_call ? std::vector<std::vector<int>>{} : groups,
                            show, extras);
    }
    write_map_outputs(a, *topo, hosts, m, trace, cache_dir, extras);
    print_report(m.entry.algorithm, g, *topo, m.entry.report, m.seconds, a.has("json"), extras);
    return 0;
}

int cmd_eval(const Args &a) {
    auto topo = parse_topology(a.need("topology"));
    std::vector<Extra> extras;
    std::vector<std::vector<int>> groups;
    Graph g = load_graph(a, extras, &groups);
    prepare(g, *topo);  // size checks
    std::vector<int> place = read_mapfile(*topo, a.need("mapping"), g.n());
    CostReport r = evaluate(g, *topo, place);
    // The cost model's predicted communication time (src/cost/model.hpp).
    const ModelParams mp = model_params(a);
    if (a.has("alltoall")) groups = read_groups(a.get("alltoall"));
    TimePrediction t = predict_time(g, *topo, place, groups, mp);
    char text[160], num[40];
    std::snprintf(text, sizeof text, "%.6g s (exchange %.6g s, all-to-all %.6g s in %d phase(s))", t.seconds,
                  t.exchange, t.alltoall, t.phases);
    std::snprintf(num, sizeof num, "%.17g", t.seconds);
    extras.push_back({"predicted_time", text, num});
    print_report("mapfile:" + a.get("mapping"), g, *topo, r, 0.0, a.has("json"), extras);
    return 0;
}

// `rankmap plot ...` runs the matplotlib script installed beside the
// binary's libexec directory (RANKMAP_PLOT overrides, for the build tree).
int cmd_plot(int argc, char **argv) {
    // Where the script is: $RANKMAP_PLOT, the installed copy, one beside the
    // binary, the source tree's (build trees).
    std::vector<std::string> candidates;
    if (const char *e = std::getenv("RANKMAP_PLOT")) candidates.push_back(e);
#ifdef RANKMAP_PLOT_SCRIPT
    candidates.push_back(RANKMAP_PLOT_SCRIPT);
#endif
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len > 0) {
        self[len] = 0;
        std::string dir(self);
        dir.resize(dir.rfind('/'));
        candidates.push_back(dir + "/rankmap-plot.py");
    }
#ifdef RANKMAP_PLOT_SRC
    candidates.push_back(RANKMAP_PLOT_SRC);
#endif
    std::string script;
    for (auto &c : candidates)
        if (!c.empty() && access(c.c_str(), R_OK) == 0) {
            script = c;
            break;
        }
    if (script.empty())
        throw Error("plot script rankmap-plot.py not found (set RANKMAP_PLOT to its path)", ErrorKind::Io);
    const char *py = std::getenv("RANKMAP_PYTHON");
    std::string python = py && *py ? py : "/usr/bin/python3";
    std::vector<std::string> args = {python, script};
    for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
    std::vector<char *> av;
    for (auto &x : args) av.push_back(const_cast<char *>(x.c_str()));
    av.push_back(nullptr);
    std::fflush(stdout);
    execv(python.c_str(), av.data());
    throw Error("cannot run '" + python + "': " + std::strerror(errno) + " (plots need python3-matplotlib)",
                ErrorKind::Io);
}

int cmd_gen(const Args &a) {
    if (a.positional.empty()) throw UsageError("'gen' needs a WORKLOAD (cubic1, cubic2, sage, umt)");
    auto topo = parse_topology(a.need("topology"));
    std::string out = a.need("out");
    const long long n = int_opt(a, "tasks", static_cast<long long>(topo->size()) * topo->slots(), 1, 1 << 24);
    const uint64_t seed = static_cast<uint64_t>(int_opt(a, "seed", 1, 0, (1LL << 62)));
    std::vector<int> grid_dims = topo->dims();
    if (a.has("grid")) {
        grid_dims.clear();
        for (auto &d : split(a.get("grid"), "x")) {
            long long v;
            if (!parse_int(d, v) || v < 1) throw UsageError("--grid dimension '" + d + "' is not valid");
            grid_dims.push_back(static_cast<int>(v));
        }
    }
    Graph g = make_workload(a.positional, static_cast<int>(n), grid_dims, seed);
    if (a.has("scramble")) g = g.relabeled(scramble_permutation(g.n(), seed ^ 0x5eed));
    write_edge_list(g, out);
    std::fprintf(stderr, "rankmap: wrote %s: %d tasks, %lld directed edges\n", out.c_str(), g.n(),
                 static_cast<long long>(g.nedges()));
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    try {
        if (argc >= 2 && (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help"))) {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (argc >= 2 && !std::strcmp(argv[1], "--version")) {
            std::printf("rankmap %s\n", rankmap_version());
            return 0;
        }
        if (argc >= 2 && !std::strcmp(argv[1], "plot")) return cmd_plot(argc, argv);
        Args a = parse_args(argc, argv);
        if (a.has("help")) {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (a.command == "map") return cmd_map(a);
        if (a.command == "eval") return cmd_eval(a);
        if (a.command == "gen") return cmd_gen(a);
        throw UsageError("unknown command '" + a.command + "'");
    } catch (const UsageError &e) {
        std::fprintf(stderr, "rankmap: %s\n%s", e.what(), kUsage);
        return 2;
    } catch (const Error &e) {
        std::fprintf(stderr, "rankmap: error: %s\n", e.what());
        return 1;
    } catch (const std::bad_alloc &) {
        std::fprintf(stderr, "rankmap: error: out of memory\n");
        return 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "rankmap: internal error: %s\n", e.what());
        return 1;
    }
}

// glue.cpp -- the MPI glue (include/rankmap_glue.h): a communicator's
// members and a graph in, the new rank of every member out.  The one place
// where the PMPI plugin and a patched MPICH decide a reorder: current cost,
// mapping, rank 0 kept by a symmetry of the machine, placement -> ranks, and
// the guard that keeps the current order unless the new one is cheaper.
#include "rankmap_glue.h"

#include <algorithm>
#include <array>
#include <map>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "capi/capi.hpp"
#include "common/error.hpp"
#include "common/timer.hpp"
#include "cost/cost.hpp"
#include "cost/model.hpp"
#include "graph/graph.hpp"
#include "map/cartesian/grid.hpp"
#include "topology/torus.hpp"
#include "topology/tree.hpp"

namespace rankmap {
namespace {

// Largest grid of undeclared traffic also mapped as transposes: above, dense lines cost too much (doc/tuning.md).
constexpr int kTransposesMaxTasks = 1024;

// A map of the machine's nodes given on coordinates:
// y[k] = value[k][x[from[k]]], value[k] a permutation of 0..dims[k]-1.
// Every map built below is a symmetry (distances unchanged).
struct NodeMap {
    std::vector<int> from;
    std::vector<std::vector<int>> value;
};

int map_node(const Topology &t, const NodeMap &m, int v) {
    int x[RANKMAP_MAX_DIMS], y[RANKMAP_MAX_DIMS];
    t.coords(v, x);
    for (int k = 0; k < t.ndims(); ++k) y[k] = m.value[k][x[m.from[k]]];
    return t.node_at(y);
}

// The node that m sends to v.
int unmap_node(const Topology &t, const NodeMap &m, int v) {
    int x[RANKMAP_MAX_DIMS], y[RANKMAP_MAX_DIMS];
    t.coords(v, y);
    for (int k = 0; k < t.ndims(); ++k) {
        const auto &val = m.value[k];
        x[m.from[k]] = static_cast<int>(std::find(val.begin(), val.end(), y[k]) - val.begin());
    }
    return t.node_at(x);
}

std::vector<int> shifted(int n, int s) {
    std::vector<int> v(n);
    for (int x = 0; x < n; ++x) v[x] = ((x + s) % n + n) % n;
    return v;
}

// Symmetries tried to bring node a onto node target, most natural first:
//   torus/mesh: wrapped dimensions (and the local one) translate so that
//     they agree with target; mesh dimensions are kept or reflected (every
//     combination); dimensions of equal extent and wrap may be exchanged
//     (the unexchanged order first, as exchanges change the routing order
//     and so the link loads);
//   tree: in every tier the two subtrees holding a and target are exchanged
//     (one map, always exact);
//   anything else (file:): the identity only.
std::vector<NodeMap> symmetries(const Topology &t, int a, int target) {
    const int nd = t.ndims();
    const auto &dims = t.dims();
    int ca[RANKMAP_MAX_DIMS], ct[RANKMAP_MAX_DIMS];
    t.coords(a, ca);
    t.coords(target, ct);
    std::vector<NodeMap> out;
    NodeMap id;
    id.from.resize(nd);
    std::iota(id.from.begin(), id.from.end(), 0);
    for (int k = 0; k < nd; ++k) id.value.push_back(shifted(dims[k], 0));

    if (const auto *tt = dynamic_cast<const TorusTopology *>(&t)) {
        const int net = tt->net_dims();
        const auto &wrap = tt->wrap();
        std::vector<int> mesh;
        for (int k = 0; k < net; ++k)
            if (!wrap[k] && dims[k] > 1) mesh.push_back(k);
        std::vector<int> perm(net);
        std::iota(perm.begin(), perm.end(), 0);
        do {
            bool ok = true;
            for (int k = 0; k < net; ++k)
                ok = ok && dims[perm[k]] == dims[k] && wrap[perm[k]] == wrap[k];
            if (!ok) continue;
            for (unsigned mask = 0; mask < (1u << mesh.size()); ++mask) {
                NodeMap m = id;
                for (int k = 0; k < net; ++k) {
                    m.from[k] = perm[k];
                    if (wrap[k]) m.value[k] = shifted(dims[k], ct[k] - ca[perm[k]]);
                }
                for (size_t i = 0; i < mesh.size(); ++i)
                    if (mask & (1u << i)) {
                        const int k = mesh[i];
                        for (int x = 0; x < dims[k]; ++x) m.value[k][x] = dims[k] - 1 - x;
                    }
                if (tt->has_local()) m.value[nd - 1] = shifted(dims[nd - 1], ct[nd - 1] - ca[nd - 1]);
                out.push_back(std::move(m));
            }
        } while (std::next_permutation(perm.begin(), perm.end()));
        return out;
    }
    if (dynamic_cast<const TreeTopology *>(&t)) {
        NodeMap m = id;
        for (int k = 0; k < nd; ++k) std::swap(m.value[k][ca[k]], m.value[k][ct[k]]);
        out.push_back(std::move(m));
        return out;
    }
    out.push_back(std::move(id));
    return out;
}

// One way to put task 0 on the target: exchange task 0 with task `with`
// (-1: move task 0 alone) on node `via`, then apply symmetry `map`, which
// sends `via` to the target.  F = the cost it predicts.
struct Candidate {
    size_t map;
    int via;
    int with;
    bool exact;  // no exchange: a symmetry alone, F unchanged
    double F;
};

// Change of F when task 0 goes from node a to node u and task j (if >= 0)
// from u to a; s is the symmetrized graph, so each pair counts once.
double exchange_delta(const Graph &s, const Topology &t, const std::vector<int> &place, int a, int u, int j) {
    double d = 0;
    for (int64_t e = s.begin(0); e < s.end(0); ++e) {
        const int y = s.target(e);
        if (y == j) continue;
        d += s.weight(e) * (t.distance(u, place[y]) - t.distance(a, place[y]));
    }
    if (j >= 0)
        for (int64_t e = s.begin(j); e < s.end(j); ++e) {
            const int y = s.target(e);
            if (y == 0) continue;
            d += s.weight(e) * (t.distance(a, place[y]) - t.distance(u, place[y]));
        }
    return d;
}

struct PinResult {
    bool exact = true;
    std::string how;
};

// Moves `place` so that task 0 sits on `target` (include/rankmap_glue.h,
// step 3).  cap (may be null): members per node; a result putting more
// tasks on a node than cap allows is skipped for the next candidate.
// Throws when no candidate fits.
PinResult pin_task0(const Graph &g, const Topology &t, std::vector<int> &place, int target,
                    const std::vector<int> *cap, double F0) {
    PinResult res;
    const int a = place[0];
    if (a == target) {
        res.how = "task 0 already on the node of member 0";
        return res;
    }
    const int P = t.size();
    const auto maps = symmetries(t, a, target);
    std::vector<int> count(P, 0);
    for (int v : place) ++count[v];

    std::vector<Candidate> cands;
    std::vector<char> seen(P, 0);
    Graph sym;
    std::vector<int64_t> first(P + 1, 0);
    std::vector<int> on_node;
    for (size_t i = 0; i < maps.size(); ++i) {
        const int u = unmap_node(t, maps[i], target);
        if (u < 0 || seen[u]) continue;  // one map per node: the first, most natural
        seen[u] = 1;
        if (u == a) {
            cands.push_back({i, u, -1, true, F0});
            continue;
        }
        if (sym.n() == 0) {  // the exchanges need the graph's pairs and each node's tasks
            sym = g.symmetrized();
            for (int v : place) ++first[v + 1];
            std::partial_sum(first.begin(), first.end(), first.begin());
            on_node.resize(place.size());
            std::vector<int64_t> fill(first.begin(), first.end() - 1);
            for (size_t r = 0; r < place.size(); ++r) on_node[fill[place[r]]++] = static_cast<int>(r);
        }
        for (int64_t k = first[u]; k < first[u + 1]; ++k) {
            const int j = on_node[k];
            cands.push_back({i, u, j, false, F0 + exchange_delta(sym, t, place, a, u, j)});
        }
        // a node with fewer tasks than a's: task 0 moves alone and the
        // counts stay within floor/ceil of the balanced placement
        if (count[u] < count[a]) cands.push_back({i, u, -1, false, F0 + exchange_delta(sym, t, place, a, u, -1)});
    }
    // a symmetry alone first (F unchanged), else the lowest predicted F
    std::stable_sort(cands.begin(), cands.end(), [](const Candidate &x, const Candidate &y) {
        if (x.exact != y.exact) return x.exact;
        return !x.exact && x.F < y.F;
    });
    std::vector<int> trial(place.size()), load(P);
    for (const auto &c : cands) {
        trial = place;
        if (c.with >= 0) trial[c.with] = a;
        trial[0] = c.via;
        for (auto &v : trial) v = map_node(t, maps[c.map], v);
        if (cap) {
            std::fill(load.begin(), load.end(), 0);
            bool fits = true;
            for (int v : trial) fits = fits && ++load[v] <= (*cap)[v];
            if (!fits) continue;
        }
        place.swap(trial);
        res.exact = c.exact;
        if (c.exact)
            res.how = !dynamic_cast<const TorusTopology *>(&t) ? "an exchange of subtrees"
                      : c.map == 0                                 ? "a translation"
                                                                   : "a reflection or exchange of dimensions";
        else
            res.how = std::string(maps.size() > 1 ? "a symmetry and " : "") + (c.with >= 0 ? "an exchange" : "a move") +
                      " of task 0";
        return res;
    }
    throw Error("no symmetry or exchange puts task 0 on node " + std::to_string(target) +
                " within the members' nodes");
}

// The guard: the new order replaces the current one only if it is strictly
// cheaper.  The one place that decides whether a reorder pays.
// Tree machines: among the placements the tree's symmetries make of
// `place` (children of one switch or node exchanged: F and every tier's
// load unchanged), the one closest to the current order.  Tier by tier from
// the outermost, each parent's children are matched greedily by the number
// of tasks they share with the current order's children (task 0's pair
// first, so it lands on the node of member 0; ties and the unmatched rest in
// ascending order, as a block launch lays groups over nodes).  Returns the
// number of tasks that end on their current node, or -1 when `place` is
// left unchanged (not a tree, or a node would exceed `cap`).
int align_to_current(const Topology &t, std::vector<int> &place, const std::vector<int> &current,
                     const std::vector<int> &cap) {
    const auto *tree = dynamic_cast<const TreeTopology *>(&t);
    if (!tree) return -1;
    const int L = tree->ndims(), n = static_cast<int>(place.size());
    const std::vector<int> &arity = tree->dims();
    std::vector<std::vector<int>> pc(n, std::vector<int>(L)), cc(n, std::vector<int>(L));
    for (int r = 0; r < n; ++r) {
        tree->coords(place[r], pc[r].data());
        tree->coords(current[r], cc[r].data());
    }
    for (int k = 0; k < L; ++k) {
        // parents: tasks whose place prefix (digits < k) equals their current prefix
        std::map<std::vector<int>, std::vector<int>> by_parent;  // place prefix -> tasks
        for (int r = 0; r < n; ++r) by_parent[std::vector<int>(pc[r].begin(), pc[r].begin() + k)].push_back(r);
        for (auto &kv : by_parent) {
            const int a = arity[k];
            std::map<std::pair<int, int>, int> overlap;  // (child here, child in the current order) -> tasks
            int forced_x = -1, forced_y = -1;
            for (int r : kv.second) {
                if (!std::equal(cc[r].begin(), cc[r].begin() + k, kv.first.begin())) continue;
                ++overlap[{pc[r][k], cc[r][k]}];
                if (r == 0) forced_x = pc[r][k], forced_y = cc[r][k];
            }
            std::vector<int> sigma(a, -1), taken(a, 0);
            if (forced_x >= 0) sigma[forced_x] = forced_y, taken[forced_y] = 1;
            std::vector<std::array<int, 3>> pairs;  // (-overlap, x, y)
            for (auto &o : overlap) pairs.push_back({-o.second, o.first.first, o.first.second});
            std::sort(pairs.begin(), pairs.end());
            for (auto &q : pairs)
                if (sigma[q[1]] < 0 && !taken[q[2]]) sigma[q[1]] = q[2], taken[q[2]] = 1;
            for (int x = 0, y = 0; x < a; ++x) {
                if (sigma[x] >= 0) continue;
                while (taken[y]) ++y;
                sigma[x] = y, taken[y] = 1;
            }
            for (int r : kv.second) pc[r][k] = sigma[pc[r][k]];
        }
    }
    std::vector<int> out(n), load(cap.size(), 0);
    int stay = 0;
    for (int r = 0; r < n; ++r) {
        out[r] = tree->node_at(pc[r].data());
        if (++load[out[r]] > cap[out[r]]) return -1;
        stay += out[r] == current[r];
    }
    place.swap(out);
    return stay;
}

// place[r] = node of task r -> new_of_member[i] = task of member i (-1: none).
// A member already on the node of its own task keeps its rank; the other
// tasks of a node go to its remaining members, lowest member first.
// Returns the node that has more tasks than members, or -1.
int placement_to_ranks(int nmembers, const int *node_of_member, int P, const std::vector<int> &place,
                       int *new_of_member) {
    const int ntasks = static_cast<int>(place.size());
    std::vector<int> first(P, -1), next(nmembers, -1);
    for (int i = nmembers - 1; i >= 0; --i) {
        next[i] = first[node_of_member[i]];
        first[node_of_member[i]] = i;
    }
    std::vector<char> taken(nmembers, 0), done(ntasks, 0);
    for (int i = 0; i < nmembers; ++i) new_of_member[i] = -1;
    for (int r = 0; r < ntasks; ++r)
        if (node_of_member[r] == place[r]) {
            new_of_member[r] = r;
            taken[r] = done[r] = 1;
        }
    for (int r = 0; r < ntasks; ++r) {
        if (done[r]) continue;
        int i = first[place[r]];
        while (i >= 0 && taken[i]) i = next[i];
        if (i < 0) return place[r];
        new_of_member[i] = r;
        taken[i] = 1;
    }
    return -1;
}

// The current order's cost, or false (out: F = -1) when it is not a
// balanced placement and so nothing to compare with.
bool evaluate_if_valid(const Graph &g, const Topology &t, const std::vector<int> &place, double fmin,
                       CostReport &out) {
    out = CostReport{};
    out.F_min = fmin;
    try {
        check_placement(t, g.n(), place);
    } catch (const Error &) {
        out.F = -1;
        return false;
    }
    out = evaluate(g, t, place, fmin);
    return true;
}


// A symmetry alone must leave F exactly as it was (same terms, same order).
void check_exact(const Topology &t, const PinResult &pin, double was, double now) {
    if (pin.exact && now != was)
        throw Error("keeping rank 0: " + pin.how + " of " + t.describe() + " changed F", ErrorKind::Internal);
}

ErrorKind kind_of(int status) {
    switch (status) {
    case RANKMAP_ERR_INVALID: return ErrorKind::Invalid;
    case RANKMAP_ERR_IO: return ErrorKind::Io;
    case RANKMAP_ERR_TOO_SMALL: return ErrorKind::TooSmall;
    case RANKMAP_ERR_TIMEOUT: return ErrorKind::Timeout;
    default: return ErrorKind::Internal;
    }
}

// The other reading of a grid whose traffic is not declared: every line
// exchanges by MPI_Alltoall (rankmap_graph_cartesian_alltoall with "all").
std::unique_ptr<rankmap_graph_s> transposes_reading(const rankmap_graph_s &grid) {
    auto h = std::make_unique<rankmap_graph_s>();
    h->grid_dims = grid.grid_dims;
    h->grid_periods = grid.grid_periods;
    h->grid_alltoall.assign(grid.grid_dims.size(), true);
    h->g = cartesian_alltoall_graph(h->grid_dims, h->grid_periods, h->grid_alltoall, &h->alltoall);
    return h;
}

// A placement with its hosts in ascending order: the host holding the
// lowest task becomes the first host, and so on; each host's tasks fill its
// cores in task order (t.slots() to a core).  A tree's hosts are the blocks
// of its last tier.  Empty on other machines.  It keeps the placement's
// grouping (the lines of a transposes' order on their hosts) and gives
// neighbouring groups neighbouring hosts, as launch orders do.
std::vector<int> hosts_ascending(const Topology &t, const std::vector<int> &place) {
    const auto *tree = dynamic_cast<const TreeTopology *>(&t);
    if (!tree || tree->ndims() < 2) return {};
    const int cores = tree->dims().back(), nhosts = t.size() / cores, n = static_cast<int>(place.size());
    const int slots = t.slots();
    std::vector<int> low(nhosts, n), order(nhosts), rank_of(nhosts), next(nhosts, 0), out(n);
    for (int task = n - 1; task >= 0; --task) low[place[task] / cores] = task;
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return low[a] < low[b]; });
    for (int k = 0; k < nhosts; ++k) rank_of[order[k]] = k;
    for (int task = 0; task < n; ++task) {
        const int h = rank_of[place[task] / cores];
        out[task] = h * cores + next[h]++ / slots;
    }
    return out;
}

void say(char *why, size_t whylen, const std::string &m) {
    if (why && whylen) std::snprintf(why, whylen, "%s", m.c_str());
}

} // namespace
} // namespace rankmap

using rankmap::capi::fail;
using rankmap::capi::fill_report;
using rankmap::capi::guarded;

extern "C" {

int rankmap_reorder_ranks(rankmap_topology_t topo, rankmap_graph_t graph, const rankmap_options *opts, int nmembers,
                          const int *node_of_member, int ntasks, int flags, int *new_of_member,
                          rankmap_report *before, rankmap_report *after, char *why, size_t whylen) {
    using namespace rankmap;
    const Deadline clock;
    say(why, whylen, "");
    if (!new_of_member || nmembers < 1) {
        say(why, whylen, "rankmap_reorder_ranks: no members or NULL new_of_member");
        return fail(RANKMAP_ERR_INVALID, "rankmap_reorder_ranks: no members or NULL new_of_member");
    }
    for (int i = 0; i < nmembers; ++i) new_of_member[i] = i < ntasks ? i : -1;
    std::string note;
    const int rc = guarded([&] {
        if (!topo || !graph || !node_of_member) throw Error("rankmap_reorder_ranks: NULL argument");
        if (flags & ~(RANKMAP_REORDER_FREE_RANK0 | RANKMAP_REORDER_GUARD_F | RANKMAP_REORDER_GUARD_OFF))
            throw Error("rankmap_reorder_ranks: unknown flags " + std::to_string(flags));
        const Topology &t = *topo->t;
        const Graph &g = graph->g;
        const int P = t.size();
        if (ntasks < 1 || ntasks > nmembers)
            throw Error(std::to_string(ntasks) + " tasks for " + std::to_string(nmembers) + " members");
        if (g.n() != ntasks)
            throw Error("graph of " + std::to_string(g.n()) + " tasks for " + std::to_string(ntasks) + " ranks");
        std::vector<int> cap(P, 0);
        for (int i = 0; i < nmembers; ++i) {
            if (node_of_member[i] < 0 || node_of_member[i] >= P)
                throw Error("member " + std::to_string(i) + " on node " + std::to_string(node_of_member[i]) +
                            ", outside 0.." + std::to_string(P - 1));
            ++cap[node_of_member[i]];
        }
        const double fmin = lower_bound(g, t);
        const std::vector<int> current(node_of_member, node_of_member + ntasks);
        CostReport cur;
        const bool have_current = evaluate_if_valid(g, t, current, fmin, cur);
        fill_report(before, cur, 0, "current");

        auto commit = [&](const std::vector<int> &ranks, const CostReport &res, const std::string &algorithm,
                          const std::string &n) {
            std::copy(ranks.begin(), ranks.end(), new_of_member);
            fill_report(after, res, clock.elapsed(), algorithm.c_str());
            note = n;
        };
        // A candidate: the graph of one reading mapped, laid over the
        // current order (fewest moves) and with member 0 keeping rank 0.
        struct Candidate {
            std::vector<int> place, ranks;
            CostReport res;
            std::string note, algorithm;
        };
        // laid over the current order unless `keep_layout`; false when the
        // members cannot hold the placement
        auto finish = [&](Candidate &c, bool keep_layout) {
            c.res = evaluate(g, t, c.place, fmin);
            if (flags & RANKMAP_REORDER_FREE_RANK0) {
                c.note = "rank 0 free";
            } else {
                const double mapped_F = c.res.F;
                const int stay = keep_layout ? -1 : align_to_current(t, c.place, current, cap);
                if (stay >= 0) {
                    c.res = evaluate(g, t, c.place, fmin);
                    check_exact(t, PinResult{}, mapped_F, c.res.F);
                    c.note = "closest to the current order by exchanges of subtrees (" + std::to_string(stay) +
                             " tasks stay on their node); ";
                }
                const double was = c.res.F;
                auto pin = pin_task0(g, t, c.place, node_of_member[0], &cap, was);
                c.res = evaluate(g, t, c.place, fmin);
                check_exact(t, pin, was, c.res.F);
                c.note += "rank 0 kept by " + pin.how;
            }
            c.ranks.resize(nmembers);
            return placement_to_ranks(nmembers, node_of_member, P, c.place, c.ranks.data());
        };
        auto propose = [&](rankmap_graph_t reading) {
            Candidate c;
            c.place.resize(ntasks);
            rankmap_report mapped;
            const int mrc = rankmap_map(topo, reading, opts, c.place.data(), &mapped);
            if (mrc != RANKMAP_OK)
                throw Error(std::string(mrc == RANKMAP_ERR_TIMEOUT ? "timeout: " : "") + rankmap_last_error(),
                            kind_of(mrc));
            c.algorithm = mapped.algorithm;
            const int over = finish(c, false);
            if (over >= 0)
                throw Error("placement of " + c.algorithm + " puts more tasks on node " + std::to_string(over) +
                            " than it has members");
            return c;
        };
        const GuardMode mode = (flags & RANKMAP_REORDER_GUARD_OFF) ? GuardMode::Off
                               : (flags & RANKMAP_REORDER_GUARD_F) ? GuardMode::F
                                                                   : GuardMode::Model;
        Candidate c = propose(graph);
        if (!have_current) {
            commit(c.ranks, c.res, c.algorithm, c.note);
            return;
        }
        // the exchange one direction at a time, when the traffic is a grid's
        const auto phases = mode == GuardMode::Model ? grid_exchange_phases(g) : std::nullopt;
        const ExchangePhases *ph = phases ? &*phases : nullptr;
        const GuardVerdict v = guard_verdict(g, t, current, c.place, graph->alltoall, mode, RANKMAP_GUARD_MARGIN, ph);
        c.note += v.figures.empty() ? "" : "; " + v.figures;
        // A graph whose edges split into equal-weight cliques (transposes,
        // all-to-alls; clique_groups) with no all-to-all declared is read
        // both as those all-to-alls and as an exchange, and a candidate is
        // taken only when both readings gain.  On a tree the candidate with
        // its hosts in ascending order comes first: the tree's symmetries
        // leave the model's figures equal, and only launch-like host orders
        // keep a fat tree's pairwise steps off shared uplinks.
        const auto cliques = !graph->grid_unknown && graph->alltoall.empty() && mode == GuardMode::Model
                                 ? clique_groups(g)
                                 : std::vector<std::vector<int>>{};
        if (!cliques.empty()) {
            Candidate e;
            e.place = hosts_ascending(t, c.place);
            e.algorithm = c.algorithm + " (sorted hosts)";
            if (!e.place.empty() && finish(e, true) >= 0) e.place.clear();
            std::string refused;
            for (Candidate *x : {&e, &c}) {
                if (x->place.empty()) continue;
                const GuardVerdict xa = guard_verdict(g, t, current, x->place, cliques, mode, RANKMAP_GUARD_MARGIN);
                const GuardVerdict xs = x == &c ? v
                                                : guard_verdict(g, t, current, x->place, {}, mode, RANKMAP_GUARD_MARGIN,
                                                                ph);
                const std::string as_a2a = "as " + std::to_string(cliques.size()) + " all-to-alls";
                if (xa.take && xs.take)
                    return commit(x->ranks, x->res, x->algorithm,
                                  x->note + "; " + as_a2a + ": " + xa.figures + "; as an exchange: " + xs.figures);
                refused += std::string(refused.empty() ? "" : "; ") + (x == &e ? "with its hosts in order: " : "") +
                           (xa.take ? xs.why + " as an exchange" : xa.why + " " + as_a2a);
            }
            fill_report(after, cur, clock.elapsed(), "identity (no gain)");
            note = refused + " (the graph splits into all-to-alls, its traffic read both ways): current order kept (" +
                   c.note + ")";
            return;
        }
        if (!graph->grid_unknown || mode != GuardMode::Model) {
            if (v.take) return commit(c.ranks, c.res, c.algorithm, c.note);
            fill_report(after, cur, clock.elapsed(), "identity (no gain)");
            note = v.why + ": current order kept (" + c.note + ")";
            return;
        }
        // A grid whose traffic nobody declared: its lines may be a stencil's
        // or transposes' (MPI_Cart_sub + MPI_Alltoall, as pencil FFTs).  A
        // candidate is taken only when it is clearly better in one reading
        // and no slower in the other; the stencil's candidate first, then the
        // transposes'.
        const auto lines = transposes_reading(*graph);
        auto slower = [](const GuardVerdict &x) { return x.why.rfind("slower", 0) == 0; };
        const GuardVerdict va = guard_verdict(lines->g, t, current, c.place, lines->alltoall, mode,
                                              RANKMAP_GUARD_MARGIN);
        if (v.take && !slower(va))
            return commit(c.ranks, c.res, c.algorithm, c.note + "; as transposes: " + va.figures);
        auto kept = [&](const std::string &reasons, const std::string &details) {
            fill_report(after, cur, clock.elapsed(), "identity (no gain)");
            note = reasons + " (the grid's traffic is not declared: MPIR_CVAR_RANKMAP_CART_ALLTOALL): current "
                   "order kept (" + details + ")";
        };
        const std::string stencil_why = v.take ? va.why + " as transposes" : v.why + " as a stencil";
        if (ntasks > kTransposesMaxTasks) return kept(stencil_why, c.note);
        // The transposes' order, then the same with its hosts in ascending
        // order (trees: neighbouring lines on neighbouring hosts).  A
        // candidate the members cannot hold, or whose rank 0 cannot be kept,
        // is left out: the current order is the fallback, not an error.
        Candidate d, e;
        std::string refused;
        try {
            d = propose(lines.get());
            e.place = hosts_ascending(t, d.place);
            e.algorithm = d.algorithm + " (transposes, sorted hosts)";
            d.algorithm += " (transposes)";
            if (!e.place.empty() && finish(e, true) >= 0) e.place.clear();
        } catch (const Error &err) {
            if (err.kind() == ErrorKind::Timeout || err.kind() == ErrorKind::Internal) throw;
            refused = std::string("; the transposes' order: ") + err.what();
            d.place.clear();
            e.place.clear();
        }
        for (Candidate *x : {&d, &e}) {
            if (x->place.empty()) continue;
            const GuardVerdict xa = guard_verdict(lines->g, t, current, x->place, lines->alltoall, mode,
                                                  RANKMAP_GUARD_MARGIN);
            const GuardVerdict xs = guard_verdict(g, t, current, x->place, graph->alltoall, mode,
                                                  RANKMAP_GUARD_MARGIN, ph);
            if (xa.take && !slower(xs))
                return commit(x->ranks, x->res, x->algorithm,
                              x->note + "; as transposes: " + xa.figures + "; as a stencil: " + xs.figures);
            refused += "; " + std::string(x == &d ? "the transposes' order: " : "with its hosts in order: ") +
                       (xa.take ? xs.why + " as a stencil" : xa.why + " as transposes") + " (" + xa.figures + ")";
        }
        kept(stencil_why + refused, c.note);
    });
    if (rc != RANKMAP_OK) {
        for (int i = 0; i < nmembers; ++i) new_of_member[i] = i < ntasks ? i : -1;
        say(why, whylen, rankmap_last_error());
        return rc;
    }
    say(why, whylen, note);
    return RANKMAP_OK;
}

int rankmap_place_task0(rankmap_topology_t topo, rankmap_graph_t graph, int node, int *node_of_task,
                        rankmap_report *report, int *exact) {
    using namespace rankmap;
    if (!topo || !graph || !node_of_task) return fail(RANKMAP_ERR_INVALID, "rankmap_place_task0: NULL argument");
    return guarded([&] {
        const Topology &t = *topo->t;
        const Graph &g = graph->g;
        if (node < 0 || node >= t.size())
            throw Error("rankmap_place_task0: node " + std::to_string(node) + " outside 0.." +
                        std::to_string(t.size() - 1));
        std::vector<int> place(node_of_task, node_of_task + g.n());
        const double fmin = lower_bound(g, t);
        const CostReport was = evaluate(g, t, place, fmin);
        auto pin = pin_task0(g, t, place, node, nullptr, was.F);
        const CostReport now = evaluate(g, t, place, fmin);
        check_exact(t, pin, was.F, now.F);
        std::copy(place.begin(), place.end(), node_of_task);
        if (report) fill_report(report, now, 0, "evaluate");
        if (exact) *exact = pin.exact ? 1 : 0;
    });
}

int rankmap_guard_flags(const char *setting, int *flags) {
    if (!flags) return fail(RANKMAP_ERR_INVALID, "rankmap_guard_flags: NULL flags");
    *flags = 0;
    const std::string v = setting ? setting : "";
    if (v.empty() || v == "model") return RANKMAP_OK;
    if (v == "f") return *flags = RANKMAP_REORDER_GUARD_F, RANKMAP_OK;
    if (v == "off") return *flags = RANKMAP_REORDER_GUARD_OFF, RANKMAP_OK;
    return fail(RANKMAP_ERR_INVALID, "guard '" + v + "' is not model, f or off");
}

int rankmap_graph_cartesian_alltoall(int ndims, const int *dims, const int *periods, const char *alltoall,
                                     rankmap_graph_t *graph) {
    using namespace rankmap;
    if (!graph || !dims || !periods) return fail(RANKMAP_ERR_INVALID, "rankmap_graph_cartesian_alltoall: NULL argument");
    if (ndims < 1 || ndims > RANKMAP_MAX_DIMS)
        return fail(RANKMAP_ERR_INVALID, "ndims must be 1.." + std::to_string(RANKMAP_MAX_DIMS));
    return guarded([&] {
        const std::vector<bool> a2a = parse_alltoall_dims(alltoall ? alltoall : "", ndims);
        auto h = std::make_unique<rankmap_graph_s>();
        h->grid_dims.assign(dims, dims + ndims);
        for (int k = 0; k < ndims; ++k) h->grid_periods.push_back(periods[k] ? 1 : 0);
        h->grid_alltoall = a2a;
        h->grid_unknown = alltoall_hint_unknown(alltoall ? alltoall : "");
        h->g = cartesian_alltoall_graph(h->grid_dims, h->grid_periods, a2a, &h->alltoall);
        *graph = h.release();
    });
}

} // extern "C"

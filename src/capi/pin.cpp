// pin.cpp -- task 0 onto a given node (see pin.hpp).  The moves are the
// machine's symmetries (Topology::symmetries) that bring some node u onto
// the target, each combined with nothing (u is task 0's node: F unchanged),
// an exchange of task 0 with a task of u, or a move of task 0 alone to a
// less loaded u.  A symmetry alone is preferred, else the lowest predicted
// F; each exchange is costed from the edges of the two tasks, O(deg), on
// the symmetrized graph built once.
#include "capi/pin.hpp"

#include <algorithm>
#include <memory>
#include <numeric>

#include "common/error.hpp"

namespace rankmap {
namespace {

// One way to put task 0 on the target: exchange task 0 with task `with`
// (-1: move task 0 alone) on node `via`, then apply symmetry `map`, which
// sends `via` to the target.  F = the cost it predicts.
struct Task0Move {
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

// The tasks of every node: on_node[first[v] .. first[v+1]) in task order.
struct TasksByNode {
    std::vector<int64_t> first;
    std::vector<int> on_node;
    TasksByNode(int P, const std::vector<int> &place) : first(P + 1, 0), on_node(place.size()) {
        for (int v : place) ++first[v + 1];
        std::partial_sum(first.begin(), first.end(), first.begin());
        std::vector<int64_t> fill(first.begin(), first.end() - 1);
        for (size_t r = 0; r < place.size(); ++r) on_node[fill[place[r]]++] = static_cast<int>(r);
    }
};

// Every move of task 0 from node a through the symmetries `maps` onto
// `target`, one symmetry per node u (the first, most natural); a symmetry
// alone first (F unchanged), else by lowest predicted F.
std::vector<Task0Move> task0_moves(const Graph &g, const Topology &t, const std::vector<int> &place,
                                   const std::vector<NodeMap> &maps, int target, double F0) {
    const int P = t.size(), a = place[0];
    std::vector<int> count(P, 0);
    for (int v : place) ++count[v];
    std::vector<Task0Move> moves;
    std::vector<char> seen(P, 0);
    Graph sym;
    std::unique_ptr<TasksByNode> tasks;
    for (size_t i = 0; i < maps.size(); ++i) {
        const int u = maps[i].preimage(t, target);
        if (u < 0 || seen[u]) continue;
        seen[u] = 1;
        if (u == a) {
            moves.push_back({i, u, -1, true, F0});
            continue;
        }
        if (!tasks) {  // the exchanges need the graph's pairs and each node's tasks
            sym = g.symmetrized();
            tasks = std::make_unique<TasksByNode>(P, place);
        }
        for (int64_t k = tasks->first[u]; k < tasks->first[u + 1]; ++k) {
            const int j = tasks->on_node[k];
            moves.push_back({i, u, j, false, F0 + exchange_delta(sym, t, place, a, u, j)});
        }
        // a node with fewer tasks than a's: task 0 moves alone and the
        // counts stay within floor/ceil of the balanced placement
        if (count[u] < count[a]) moves.push_back({i, u, -1, false, F0 + exchange_delta(sym, t, place, a, u, -1)});
    }
    std::stable_sort(moves.begin(), moves.end(), [](const Task0Move &x, const Task0Move &y) {
        if (x.exact != y.exact) return x.exact;
        return !x.exact && x.F < y.F;
    });
    return moves;
}

// Whether no node holds more tasks of `place` than cap allows (null: any).
bool fits(const std::vector<int> &place, const std::vector<int> *cap, std::vector<int> &load) {
    if (!cap) return true;
    std::fill(load.begin(), load.end(), 0);
    bool ok = true;
    for (int v : place) ok = ok && ++load[v] <= (*cap)[v];
    return ok;
}

} // namespace

PinResult pin_task0(const Graph &g, const Topology &t, std::vector<int> &place, int target,
                    const std::vector<int> *cap, double F0) {
    PinResult res;
    const int a = place[0];
    if (a == target) {
        res.how = "task 0 already on the node of member 0";
        return res;
    }
    const auto maps = t.symmetries(a, target);
    std::vector<int> trial(place.size()), load(t.size());
    for (const auto &c : task0_moves(g, t, place, maps, target, F0)) {
        trial = place;
        if (c.with >= 0) trial[c.with] = a;
        trial[0] = c.via;
        for (auto &v : trial) v = maps[c.map].apply(t, v);
        if (!fits(trial, cap, load)) continue;
        place.swap(trial);
        res.exact = c.exact;
        if (c.exact)
            res.how = t.symmetry_name(c.map);
        else
            res.how = std::string(maps.size() > 1 ? "a symmetry and " : "") + (c.with >= 0 ? "an exchange" : "a move") +
                      " of task 0";
        return res;
    }
    throw Error("no symmetry or exchange puts task 0 on node " + std::to_string(target) +
                " within the members' nodes");
}

void check_exact(const Topology &t, const PinResult &pin, double was, double now) {
    if (pin.exact && now != was)
        throw Error("keeping rank 0: " + pin.how + " of " + t.describe() + " changed F", ErrorKind::Internal);
}

} // namespace rankmap

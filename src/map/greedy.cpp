// greedy.cpp -- the heuristic initial map of seed 000 ("The method"), in
// its refined form: "first map the domain with the greatest communication
// volume to already-mapped domains".
//
// Tasks wait in a max-priority queue keyed on their traffic to tasks already
// mapped.  The task on top goes to the node, among the nodes near its
// heaviest mapped partners (their own node first -- several tasks may share
// a node), that has room under equation 3 (Int(p) <= n <= Int(p+1)) and the
// lowest cost to its mapped partners; its unmapped partners then gain
// priority.  When the queue is empty (start, or a new connected component)
// the unmapped task with the largest c(i) = sum_j C(i,j) (equation 2) is
// put on the first node with room.  Seed 000 seeds with the smallest c(i);
// starting from the busiest task keeps the heaviest traffic in the centre
// of the growing region (lower F on bench/mapping --quick).
//
// Cost: O(E log E) queue operations plus O(N * 4K * degree) distance
// evaluations (K near nodes per partner, 4 partners tried); when every
// nearby node is full, a breadth-first search over the near-node lists
// (bounded) finds room.  Memory O(N + E + P K).
#include <algorithm>
#include <numeric>
#include <queue>

#include "map/anneal_state.hpp"

namespace rankmap {

void greedy_fill(PlacementState &st, const std::vector<int> &tasks, const NearNodes &near) {
    const Graph &g = st.graph();
    const int N = st.ntasks(), P = st.nnodes(), K = near.k();
    std::vector<char> todo(N, 0);
    std::vector<int> order;
    for (int t : tasks)
        if (st.node_of(t) < 0 && !todo[t]) {
            todo[t] = 1;
            order.push_back(t);
        }
    if (order.empty()) return;
    std::vector<double> vol(N, 0.0), cw(N, 0.0);
    for (int t : order)
        for (int64_t e = g.begin(t); e < g.end(t); ++e) {
            cw[t] += g.weight(e);
            if (st.node_of(g.target(e)) >= 0) vol[t] += g.weight(e);
        }
    // Seeds: busiest first (ties by label).
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return cw[a] > cw[b]; });
    using Item = std::pair<double, int>;  // (volume to mapped, -task)
    std::priority_queue<Item> heap;
    for (int t : order)
        if (vol[t] > 0) heap.push({vol[t], -t});

    std::vector<uint32_t> seen(P, 0);
    uint32_t stamp = 0;
    std::vector<int> bfs;
    size_t seed_pos = 0;
    int scan = 0;  // rotating start for "first node with room"
    auto first_free = [&]() {
        for (int i = 0; i < P; ++i) {
            int v = (scan + i) % P;
            if (st.can_place(v)) {
                scan = v;
                return v;
            }
        }
        throw Error("greedy: no node has room (capacity accounting error)", ErrorKind::Internal);
    };
    std::vector<std::pair<double, int>> partners;
    size_t remaining = order.size();
    while (remaining > 0) {
        int t = -1;
        while (!heap.empty()) {
            auto [v, mt] = heap.top();
            heap.pop();
            int c = -mt;
            if (todo[c] && v == vol[c]) {
                t = c;
                break;
            }
        }
        if (t < 0) {
            while (seed_pos < order.size() && !todo[order[seed_pos]]) ++seed_pos;
            t = order[seed_pos];
        }
        // Heaviest mapped partners.
        partners.clear();
        for (int64_t e = g.begin(t); e < g.end(t); ++e) {
            int pj = st.node_of(g.target(e));
            if (pj >= 0) partners.push_back({g.weight(e), pj});
        }
        int best = -1;
        if (!partners.empty()) {
            size_t np = std::min<size_t>(4, partners.size());
            std::partial_sort(partners.begin(), partners.begin() + np, partners.end(),
                              [](const auto &a, const auto &b) {
                                  return a.first > b.first || (a.first == b.first && a.second < b.second);
                              });
            if (++stamp == 0) {
                std::fill(seen.begin(), seen.end(), 0);
                stamp = 1;
            }
            double bestc = 0;
            for (size_t q = 0; q < np; ++q) {
                const int *row = near.of(partners[q].second);
                for (int k = 0; k < K; ++k) {
                    int v = row[k];
                    if (seen[v] == stamp) continue;
                    seen[v] = stamp;
                    if (!st.can_place(v)) continue;
                    double c = st.cost_at(t, v);
                    if (best < 0 || c < bestc) {
                        best = v;
                        bestc = c;
                    }
                }
            }
            if (best < 0) {
                // Breadth-first over near lists from the heaviest partner's
                // node; take the cheapest of the first few nodes with room.
                bfs.clear();
                bfs.push_back(partners[0].second);
                int found = 0;
                const size_t limit = 8192;
                for (size_t h = 0; h < bfs.size() && found < 6 && bfs.size() < limit; ++h) {
                    const int *row = near.of(bfs[h]);
                    for (int k = 1; k < K; ++k) {
                        int v = row[k];
                        if (seen[v] == stamp) continue;
                        seen[v] = stamp;
                        bfs.push_back(v);
                        if (!st.can_place(v)) continue;
                        double c = st.cost_at(t, v);
                        ++found;
                        if (best < 0 || c < bestc) {
                            best = v;
                            bestc = c;
                        }
                    }
                }
            }
        }
        if (best < 0) best = first_free();
        st.place_task(t, best);
        todo[t] = 0;
        --remaining;
        for (int64_t e = g.begin(t); e < g.end(t); ++e) {
            int j = g.target(e);
            if (!todo[j]) continue;
            vol[j] += g.weight(e);
            heap.push({vol[j], -j});
        }
    }
}

std::vector<int> map_greedy(const Problem &p) {
    PlacementState st(p.sym, p.topo, p.cap, std::vector<int>(p.sym.n(), -1));
    NearNodes near(p.topo, near_count(p.topo));
    std::vector<int> all(p.sym.n());
    std::iota(all.begin(), all.end(), 0);
    greedy_fill(st, all, near);
    return st.place();
}

} // namespace rankmap

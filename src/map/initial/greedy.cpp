// greedy.cpp -- the heuristic initial map of Bhanot et al. (BG/L task layout,
// "The method"), in its refined form: "first map the domain with the greatest
// communication volume to already-mapped domains".
//
// Tasks wait in a max-priority queue keyed on their traffic to tasks already
// mapped.  The task on top goes to the node, among the nodes near its
// heaviest mapped partners (their own node first -- several tasks may share
// a node), that has room under equation 3 (Int(p) <= n <= Int(p+1)) and the
// lowest cost to its mapped partners; its unmapped partners then gain
// priority.  When the queue is empty (start, or a new connected component)
// the unmapped task with the largest c(i) = sum_j C(i,j) (equation 2) is
// put on the first node with room.  Bhanot et al. start with the smallest
// c(i); starting from the busiest task keeps the heaviest traffic in the
// centre of the growing region.
//
// Cost: O(E log E) queue operations plus O(N * C K * degree) distance
// evaluations (K near nodes per partner, C partners tried); when every
// nearby node is full, a breadth-first search over the near-node lists
// (bounded) finds room.  Memory O(N + E + P K).  Tuned numbers:
// GreedyContext (tuning.hpp).
#include <algorithm>
#include <numeric>
#include <queue>

#include "map/initial/initial.hpp"

namespace rankmap {

namespace {

// One greedy_fill run: the queue of waiting tasks and the node search.
class GreedyFill {
  public:
    GreedyFill(PlacementState &st, const NearNodes &near, const GreedyContext &gc)
        : st_(st), g_(st.graph()), near_(near), gc_(gc), N_(st.ntasks()), P_(st.nnodes()), K_(near.k()),
          todo_(N_, 0), vol_(N_, 0.0), seen_(P_, 0) {}

    void run(const std::vector<int> &tasks) {
        queue_tasks(tasks);
        for (size_t remaining = order_.size(); remaining > 0; --remaining) {
            const int t = next_task();
            int best = partner_node(t);
            if (best < 0) best = first_free();
            place(t, best);
        }
    }

  private:
    // The unplaced tasks among `tasks`, busiest first (ties by label) as
    // seeds; those with traffic to placed tasks enter the queue.
    void queue_tasks(const std::vector<int> &tasks) {
        for (int t : tasks)
            if (st_.node_of(t) < 0 && !todo_[t]) {
                todo_[t] = 1;
                order_.push_back(t);
            }
        std::vector<double> cw(N_, 0.0);
        for (int t : order_)
            for (int64_t e = g_.begin(t); e < g_.end(t); ++e) {
                cw[t] += g_.weight(e);
                if (st_.node_of(g_.target(e)) >= 0) vol_[t] += g_.weight(e);
            }
        std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) { return cw[a] > cw[b]; });
        for (int t : order_)
            if (vol_[t] > 0) heap_.push({vol_[t], -t});
    }

    // The task of greatest volume to placed tasks, or the next seed.
    int next_task() {
        while (!heap_.empty()) {
            auto [v, mt] = heap_.top();
            heap_.pop();
            const int c = -mt;
            if (todo_[c] && v == vol_[c]) return c;
        }
        while (seed_pos_ < order_.size() && !todo_[order_[seed_pos_]]) ++seed_pos_;
        return order_[seed_pos_];
    }

    // The cheapest node with room near t's heaviest placed partners, or
    // -1 (no placed partner, or no room nearby).
    int partner_node(int t) {
        const size_t np = heaviest_partners(st_, t, gc_.partners_tried, partners_);
        if (partners_.empty()) return -1;
        if (++stamp_ == 0) {
            std::fill(seen_.begin(), seen_.end(), 0);
            stamp_ = 1;
        }
        Pick pick;
        for (size_t q = 0; q < np; ++q) {
            const int *row = near_.of(partners_[q].second);
            for (int k = 0; k < K_; ++k) consider(t, row[k], pick);
        }
        return pick.node >= 0 ? pick.node : search_room(t);
    }

    struct Pick {
        int node = -1;
        double cost = 0;
    };

    // Node v for task t, unless already seen this round; false when v has
    // no room.
    bool consider(int t, int v, Pick &pick) {
        if (seen_[v] == stamp_) return false;
        seen_[v] = stamp_;
        if (!st_.can_place(v)) return false;
        const double c = st_.cost_at(t, v);
        if (pick.node < 0 || c < pick.cost) pick = {v, c};
        return true;
    }

    // Breadth-first over near lists from the heaviest partner's node; the
    // cheapest of the first few nodes with room (search_found, searching
    // at most search_limit nodes).
    int search_room(int t) {
        bfs_.clear();
        bfs_.push_back(partners_[0].second);
        Pick pick;
        int found = 0;
        for (size_t h = 0; h < bfs_.size() && found < gc_.search_found && bfs_.size() < gc_.search_limit; ++h) {
            const int *row = near_.of(bfs_[h]);
            for (int k = 1; k < K_; ++k) {
                const int v = row[k];
                if (seen_[v] == stamp_) continue;
                bfs_.push_back(v);
                if (consider(t, v, pick)) ++found;
            }
        }
        return pick.node;
    }

    // The first node with room, from a rotating start.
    int first_free() {
        for (int i = 0; i < P_; ++i) {
            const int v = (scan_ + i) % P_;
            if (st_.can_place(v)) {
                scan_ = v;
                return v;
            }
        }
        throw Error("greedy: no node has room (capacity accounting error)", ErrorKind::Internal);
    }

    // t goes to `node`; its waiting partners gain its traffic.
    void place(int t, int node) {
        st_.place_task(t, node);
        todo_[t] = 0;
        for (int64_t e = g_.begin(t); e < g_.end(t); ++e) {
            const int j = g_.target(e);
            if (!todo_[j]) continue;
            vol_[j] += g_.weight(e);
            heap_.push({vol_[j], -j});
        }
    }

    PlacementState &st_;
    const Graph &g_;
    const NearNodes &near_;
    const GreedyContext &gc_;
    const int N_, P_, K_;
    std::vector<char> todo_;
    std::vector<int> order_;
    std::vector<double> vol_;
    std::priority_queue<std::pair<double, int>> heap_;  // (volume to placed tasks, -task)
    std::vector<uint32_t> seen_;
    uint32_t stamp_ = 0;
    std::vector<int> bfs_;
    size_t seed_pos_ = 0;
    int scan_ = 0;
    std::vector<std::pair<double, int>> partners_;
};

} // namespace

void greedy_fill(PlacementState &st, const std::vector<int> &tasks, const NearNodes &near, const GreedyContext &gc) {
    GreedyFill(st, near, gc).run(tasks);
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

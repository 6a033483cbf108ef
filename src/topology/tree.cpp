// tree.cpp -- hierarchical machine model (see tree.hpp).
// Routing goes up from the source leaf to the lowest common ancestor and
// down again; every entity below the root owns one (bidirectional) uplink,
// or on a fat tree ports(k) of them, chosen by D-mod-K (port()).
#include "topology/tree.hpp"

#include <algorithm>
#include <sstream>

#include "common/error.hpp"

namespace rankmap {

TreeTopology::TreeTopology(std::vector<int> arity, std::vector<double> cost, std::vector<int> up)
    : arity_(std::move(arity)), cost_(std::move(cost)), up_(std::move(up)) {
    const int L = static_cast<int>(arity_.size());
    if (L < 1 || L > kMaxTiers) throw Error("topology: a tree needs 1 to " + std::to_string(kMaxTiers) + " tiers");
    if (static_cast<int>(cost_.size()) != L)
        throw Error("topology: tree has " + std::to_string(L) + " tiers but " +
                    std::to_string(cost_.size()) + " costs (cost=c1,...,c" + std::to_string(L) + ")");
    span_.assign(L, 1);
    int64_t sz = 1;
    for (int k = L - 1; k >= 0; --k) {
        if (arity_[k] < 1) throw Error("topology: tree tier " + std::to_string(k + 1) + " has arity < 1");
        if (cost_[k] < 0) throw Error("topology: tree tier " + std::to_string(k + 1) + " has a negative cost");
        span_[k] = static_cast<int>(sz);
        sz *= arity_[k];
        if (sz > (1 << 24)) throw Error("topology: more than 16,777,216 leaves is not supported");
    }
    size_ = static_cast<int>(sz);
    if (static_cast<int>(up_.size()) >= L)
        throw Error("topology: up= gives " + std::to_string(up_.size()) + " switch tiers of a tree of " +
                    std::to_string(L) + " tiers (at most " + std::to_string(L - 1) +
                    ": the hosts' tier and those inside it have no up=)");
    ports_.assign(up_.size() + 1, 1);
    for (int k = static_cast<int>(up_.size()) - 1; k >= 0; --k) {
        if (up_[k] < 1) throw Error("topology: tree tier " + std::to_string(k + 1) + " has fewer than 1 uplink");
        ports_[k] = ports_[k + 1] * up_[k];
        if (ports_[k] > (int64_t{1} << 20)) throw Error("topology: more than 1,048,576 parallel uplinks");
    }
    // Entities at depth k+1 (k = 0..L-1): size_ / span_[k] of them.
    link_off_.assign(L + 1, 0);
    for (int k = 0; k < L; ++k) link_off_[k + 1] = link_off_[k] + size_ / span_[k] * ports(k);
}

void TreeTopology::coords(int node, int *c) const {
    for (size_t k = 0; k < arity_.size(); ++k) c[k] = (node / span_[k]) % arity_[k];
}

int TreeTopology::node_at(const int *c) const {
    int v = 0;
    for (size_t k = 0; k < arity_.size(); ++k) {
        if (c[k] < 0 || c[k] >= arity_[k]) return -1;
        v += c[k] * span_[k];
    }
    return v;
}

int TreeTopology::tier(int a, int b) const {
    for (size_t k = 0; k < arity_.size(); ++k)
        if (a / span_[k] != b / span_[k]) return static_cast<int>(k);
    return static_cast<int>(arity_.size()) - 1;
}

int64_t TreeTopology::port(int k, int b) const {
    const int S = host_tier();
    if (k >= S) return 0;
    const int64_t h = b / span_[S];
    // ports chosen at tiers S-1 (first hop up) .. k, mixed radix
    int64_t combo = 0, below = 1;
    for (int j = S - 1; j >= k; --j) {
        combo += ((h / below) % up_[j]) * (ports_[j] / up_[j]);
        below *= up_[j];
    }
    return combo;
}

int TreeTopology::hops(int a, int b) const {
    if (a == b) return 0;
    return 2 * (static_cast<int>(arity_.size()) - tier(a, b));
}

std::vector<Shell> TreeTopology::shells(int) const {
    // Leaves whose first differing tier is k: (arity_k - 1) * span_k of them.
    std::vector<std::pair<double, int64_t>> raw;
    for (size_t k = 0; k < arity_.size(); ++k)
        if (arity_[k] > 1) raw.push_back({cost_[k], static_cast<int64_t>(arity_[k] - 1) * span_[k]});
    std::vector<Shell> out;
    std::sort(raw.begin(), raw.end());
    for (auto &r : raw) {
        if (!out.empty() && out.back().distance == r.first) out.back().count += r.second;
        else out.push_back({r.first, r.second});
    }
    return out;
}

int64_t TreeTopology::num_links() const { return link_off_.back(); }

void TreeTopology::route(int a, int b, std::vector<int64_t> &links) const {
    links.clear();
    if (a == b) return;
    const int L = static_cast<int>(arity_.size());
    int t = tier(a, b);
    for (int k = L - 1; k >= t; --k) {
        const int64_t p = port(k, b);
        links.push_back(link_off_[k] + (a / span_[k]) * ports(k) + p);
        links.push_back(link_off_[k] + (b / span_[k]) * ports(k) + p);
    }
}

void TreeTopology::nearest(int node, int count, std::vector<int> &out) const {
    // Siblings under the smallest enclosing entity first (cheaper tiers are
    // the inner ones when costs decrease inwards, as is usual; with other
    // cost orders this is still a valid, if coarser, ordering by subtree).
    out.clear();
    if (count <= 0) return;
    std::vector<std::pair<double, int>> order;  // (cost, tier) inner tiers first
    for (int k = static_cast<int>(arity_.size()) - 1; k >= 0; --k) order.push_back({cost_[k], k});
    std::stable_sort(order.begin(), order.end(),
                     [](const auto &x, const auto &y) { return x.first < y.first; });
    out.push_back(node);
    for (auto &[c, k] : order) {
        (void)c;
        int base = node - node % (span_[k] * arity_[k]);
        for (int j = 0; j < arity_[k] && static_cast<int>(out.size()) < count; ++j) {
            int sub = base + j * span_[k];
            if (sub == node - node % span_[k]) continue;
            for (int i = 0; i < span_[k] && static_cast<int>(out.size()) < count; ++i) out.push_back(sub + i);
        }
        if (static_cast<int>(out.size()) >= count) break;
    }
    if (static_cast<int>(out.size()) > count) out.resize(count);
}

std::string TreeTopology::describe() const {
    std::ostringstream s;
    s << "tree:";
    for (size_t k = 0; k < arity_.size(); ++k) s << (k ? "x" : "") << arity_[k];
    s << ":cost=";
    for (size_t k = 0; k < cost_.size(); ++k) s << (k ? "," : "") << cost_[k];
    if (!up_.empty()) {
        s << ":up=";
        for (size_t k = 0; k < up_.size(); ++k) s << (k ? "," : "") << up_[k];
    }
    s << slots_suffix();
    return s.str();
}

} // namespace rankmap

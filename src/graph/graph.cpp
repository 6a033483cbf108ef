// graph.cpp -- CSR communication graph (see graph.hpp).
#include "graph/graph.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <string>

#include "common/error.hpp"

namespace rankmap {

Graph Graph::from_edges(int n, const std::vector<Edge> &edges_in) {
    if (n < 0) throw Error("graph: negative task count");
    Graph g;
    g.n_ = n;
    std::vector<int64_t> deg(static_cast<size_t>(n) + 1, 0);
    for (const Edge &e : edges_in) {
        if (e.src < 0 || e.src >= n || e.dst < 0 || e.dst >= n)
            throw Error("graph: edge " + std::to_string(e.src) + " -> " + std::to_string(e.dst) +
                        " names a task outside 0.." + std::to_string(n - 1));
        if (!(e.w >= 0) || !std::isfinite(e.w))
            throw Error("graph: edge " + std::to_string(e.src) + " -> " + std::to_string(e.dst) +
                        " has a negative or non-finite weight");
        if (e.src != e.dst && e.w > 0) deg[e.src + 1]++;
    }
    for (int v = 0; v < n; ++v) deg[v + 1] += deg[v];
    std::vector<int> adj(deg[n]);
    std::vector<double> w(deg[n]);
    std::vector<int64_t> pos(deg.begin(), deg.end() - 1);
    for (const Edge &e : edges_in) {
        if (e.src == e.dst || e.w <= 0) continue;
        adj[pos[e.src]] = e.dst;
        w[pos[e.src]++] = e.w;
    }
    // Sort each row and merge duplicates.
    g.xadj_.assign(static_cast<size_t>(n) + 1, 0);
    g.adj_.reserve(adj.size());
    g.w_.reserve(adj.size());
    std::vector<int64_t> idx;
    for (int v = 0; v < n; ++v) {
        idx.resize(deg[v + 1] - deg[v]);
        std::iota(idx.begin(), idx.end(), deg[v]);
        std::sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return adj[a] < adj[b]; });
        for (int64_t e : idx) {
            if (static_cast<int64_t>(g.adj_.size()) > g.xadj_[v] && g.adj_.back() == adj[e]) g.w_.back() += w[e];
            else {
                g.adj_.push_back(adj[e]);
                g.w_.push_back(w[e]);
            }
        }
        g.xadj_[v + 1] = static_cast<int64_t>(g.adj_.size());
    }
    g.adj_.shrink_to_fit();
    g.w_.shrink_to_fit();
    return g;
}

double Graph::total_weight() const { return std::accumulate(w_.begin(), w_.end(), 0.0); }

double Graph::out_weight(int v) const {
    double s = 0;
    for (int64_t e = begin(v); e < end(v); ++e) s += w_[e];
    return s;
}

std::vector<Edge> Graph::edges() const {
    std::vector<Edge> out;
    out.reserve(adj_.size());
    for (int v = 0; v < n_; ++v)
        for (int64_t e = begin(v); e < end(v); ++e) out.push_back({v, adj_[e], w_[e]});
    return out;
}

Graph Graph::symmetrized() const {
    std::vector<Edge> es;
    es.reserve(2 * adj_.size());
    for (int v = 0; v < n_; ++v)
        for (int64_t e = begin(v); e < end(v); ++e) {
            es.push_back({v, adj_[e], w_[e]});
            es.push_back({adj_[e], v, w_[e]});
        }
    return from_edges(n_, es);
}

Graph Graph::induced(const std::vector<int> &vertices, std::vector<int> &local) const {
    local.assign(n_, -1);
    for (size_t i = 0; i < vertices.size(); ++i) local[vertices[i]] = static_cast<int>(i);
    std::vector<Edge> es;
    for (size_t i = 0; i < vertices.size(); ++i) {
        int v = vertices[i];
        for (int64_t e = begin(v); e < end(v); ++e)
            if (local[adj_[e]] >= 0) es.push_back({static_cast<int>(i), local[adj_[e]], w_[e]});
    }
    return from_edges(static_cast<int>(vertices.size()), es);
}

Graph Graph::relabeled(const std::vector<int> &perm) const {
    if (static_cast<int>(perm.size()) != n_) throw Error("graph: relabelling has the wrong size");
    std::vector<Edge> es = edges();
    for (Edge &e : es) {
        e.src = perm[e.src];
        e.dst = perm[e.dst];
    }
    return from_edges(n_, es);
}

Graph cartesian_graph(const std::vector<int> &dims, const std::vector<int> &periods) {
    if (dims.empty()) throw Error("cartesian grid: no dimensions");
    if (periods.size() != dims.size()) throw Error("cartesian grid: periods and dims differ in length");
    int64_t n = 1;
    for (int d : dims) {
        if (d < 1) throw Error("cartesian grid: dimensions must be >= 1");
        n *= d;
        if (n > (1 << 24)) throw Error("cartesian grid: too many tasks");
    }
    const int nd = static_cast<int>(dims.size());
    std::vector<int64_t> stride(nd, 1);
    for (int k = nd - 2; k >= 0; --k) stride[k] = stride[k + 1] * dims[k + 1];
    std::vector<Edge> es;
    std::vector<int> c(nd);
    for (int64_t v = 0; v < n; ++v) {
        int64_t r = v;
        for (int k = 0; k < nd; ++k) {
            c[k] = static_cast<int>(r / stride[k]);
            r %= stride[k];
        }
        for (int k = 0; k < nd; ++k) {
            for (int dir = -1; dir <= 1; dir += 2) {
                int x = c[k] + dir;
                if (x < 0 || x >= dims[k]) {
                    if (!periods[k]) continue;
                    x = (x + dims[k]) % dims[k];
                }
                int64_t u = v + (x - c[k]) * stride[k];
                if (u != v) es.push_back({static_cast<int>(v), static_cast<int>(u), 1.0});
            }
        }
    }
    // A periodic dimension of extent 2 names the same neighbour twice; the
    // merged weight (2) is the traffic MPI_Cart_shift's two directions send.
    return Graph::from_edges(static_cast<int>(n), es);
}

std::vector<std::vector<int>> clique_groups(const Graph &g) {
    const Graph s = g.symmetrized();
    const int n = s.n();
    auto same = [](double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b)); };
    // weight of the pair (u, v), 0 when absent (neighbours are sorted)
    auto weight = [&](int u, int v) {
        const auto first = s.adj().begin() + s.begin(u), last = s.adj().begin() + s.end(u);
        const auto it = std::lower_bound(first, last, v);
        return it != last && *it == v ? s.weight(it - s.adj().begin()) : 0.0;
    };
    std::vector<std::vector<int>> groups;
    std::vector<std::vector<int>> of_vertex(static_cast<size_t>(n));  // cliques each vertex is in
    auto covered = [&](int u, int v) {
        for (int c : of_vertex[u])
            if (std::binary_search(groups[c].begin(), groups[c].end(), v)) return true;
        return false;
    };
    bool big = false;
    for (int u = 0; u < n; ++u) {
        for (int64_t e = s.begin(u); e < s.end(u); ++e) {
            const int v = s.target(e);
            if (v < u || covered(u, v)) continue;
            const double w = s.weight(e);
            std::vector<int> k{u, v};
            // the common neighbours joined to both by w
            int64_t i = s.begin(u), j = s.begin(v);
            while (i < s.end(u) && j < s.end(v)) {
                const int a = s.target(i), b = s.target(j);
                if (a < b) {
                    ++i;
                } else if (b < a) {
                    ++j;
                } else {
                    if (same(s.weight(i), w) && same(s.weight(j), w)) k.push_back(a);
                    ++i, ++j;
                }
            }
            std::sort(k.begin(), k.end());
            for (size_t x = 0; x < k.size(); ++x)
                for (size_t y = x + 1; y < k.size(); ++y)
                    if (!same(weight(k[x], k[y]), w) || covered(k[x], k[y])) return {};
            big = big || k.size() >= 3;
            for (int x : k) of_vertex[x].push_back(static_cast<int>(groups.size()));
            groups.push_back(std::move(k));
        }
    }
    if (!big) return {};
    // In phases, as the model reads groups (predict_time: consecutive groups
    // with no task in common run at the same time): each clique joins the
    // first phase it shares no task with, so the rows of a grid form one
    // phase and its columns the next, as the program runs them.
    std::vector<std::vector<int>> phase_of_task;  // [phase][task] = 1 when taken
    std::vector<std::vector<size_t>> phases;
    for (size_t k = 0; k < groups.size(); ++k) {
        size_t ph = 0;
        while (ph < phases.size() &&
               std::any_of(groups[k].begin(), groups[k].end(), [&](int t) { return phase_of_task[ph][t] != 0; }))
            ++ph;
        if (ph == phases.size()) phases.emplace_back(), phase_of_task.emplace_back(static_cast<size_t>(n), 0);
        phases[ph].push_back(k);
        for (int t : groups[k]) phase_of_task[ph][t] = 1;
    }
    std::vector<std::vector<int>> ordered;
    ordered.reserve(groups.size());
    for (const auto &ph : phases)
        for (size_t k : ph) ordered.push_back(std::move(groups[k]));
    return ordered;
}

bool alltoall_hint_unknown(const std::string &spec) { return spec.empty() || spec == "unknown"; }

std::vector<bool> parse_alltoall_dims(const std::string &spec, int ndims) {
    std::vector<bool> a2a(static_cast<size_t>(std::max(ndims, 0)), false);
    if (spec == "all") return std::vector<bool>(a2a.size(), true);
    if (alltoall_hint_unknown(spec) || spec == "none") return a2a;
    size_t pos = 0;
    while (pos <= spec.size()) {
        const size_t comma = std::min(spec.find(',', pos), spec.size());
        std::string item = spec.substr(pos, comma - pos);
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        char *end = nullptr;
        const long d = std::strtol(item.c_str(), &end, 10);
        if (item.empty() || *end || d < 0 || d >= ndims)
            throw Error("all-to-all dimensions '" + spec + "': '" + item + "' is not a dimension 0.." +
                        std::to_string(ndims - 1) + " of the grid (or all, none, unknown)");
        a2a[static_cast<size_t>(d)] = true;
        pos = comma + 1;
    }
    return a2a;
}

Graph cartesian_alltoall_graph(const std::vector<int> &dims, const std::vector<int> &periods,
                               const std::vector<bool> &alltoall, std::vector<std::vector<int>> *groups) {
    if (alltoall.size() != dims.size()) throw Error("cartesian grid: all-to-all flags and dims differ in length");
    Graph stencil = cartesian_graph(dims, periods);  // checks dims and periods
    const int nd = static_cast<int>(dims.size());
    const int n = stencil.n();
    std::vector<int64_t> stride(nd, 1);
    for (int k = nd - 2; k >= 0; --k) stride[k] = stride[k + 1] * dims[k + 1];
    double W = 1;
    for (int k = 0; k < nd; ++k)
        if (alltoall[k]) W *= dims[k];
    std::vector<Edge> es;
    for (int v = 0; v < n; ++v) {
        for (int k = 0; k < nd; ++k) {
            const int ck = static_cast<int>(v / stride[k] % dims[k]);
            const int64_t base = v - ck * stride[k];
            if (alltoall[k]) {
                for (int x = 0; x < dims[k]; ++x)
                    if (x != ck) es.push_back({v, static_cast<int>(base + x * stride[k]), W / dims[k]});
                continue;
            }
            for (int dir = -1; dir <= 1; dir += 2) {
                int x = ck + dir;
                if (x < 0 || x >= dims[k]) {
                    if (!periods[k]) continue;
                    x = (x + dims[k]) % dims[k];
                }
                if (x != ck) es.push_back({v, static_cast<int>(base + x * stride[k]), 1.0});
            }
        }
    }
    if (groups) {
        groups->clear();
        for (int k = 0; k < nd; ++k) {
            if (!alltoall[k]) continue;
            for (int v = 0; v < n; ++v) {
                if (v / stride[k] % dims[k] != 0) continue;  // v starts its line along k
                std::vector<int> line(dims[k]);
                for (int x = 0; x < dims[k]; ++x) line[x] = static_cast<int>(v + x * stride[k]);
                groups->push_back(std::move(line));
            }
        }
    }
    return Graph::from_edges(n, es);
}

} // namespace rankmap

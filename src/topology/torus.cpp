// torus.cpp -- torus / mesh machine model (see torus.hpp).
// Distance: hop count = sum of per-dimension offsets (shorter way round on
// wrapped dimensions); the n/D x hops and Euclidean metrics of Bhanot et al.
// (BG/L task layout) on top.
// Routing: dimension order (dimension 0 first), shorter direction, ties go
// the positive way, as BG/L's deterministic routing.
#include "topology/torus.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "common/error.hpp"

namespace rankmap {

TorusTopology::TorusTopology(std::vector<int> dims, std::vector<int> wrap, double local_cost,
                             Metric metric)
    : dims_(std::move(dims)), wrap_(std::move(wrap)), local_cost_(local_cost) {
    metric_ = metric;
    nd_ = static_cast<int>(dims_.size());
    net_ = has_local() ? nd_ - 1 : nd_;
    if (nd_ < 1 || net_ < 1 || net_ > kMaxNetworkDims)
        throw Error("topology: a torus or mesh needs 1 to " + std::to_string(kMaxNetworkDims) + " network dimensions");
    int64_t sz = 1;
    stride_.assign(nd_, 1);
    for (int k = nd_ - 1; k >= 0; --k) {
        if (dims_[k] < 1) throw Error("topology: dimension " + std::to_string(k) + " must be >= 1");
        stride_[k] = static_cast<int>(sz);
        sz *= dims_[k];
        if (sz > (1 << 24)) throw Error("topology: more than 16,777,216 nodes is not supported");
    }
    for (int k = 0; k < nd_; ++k)
        if (dims_[k] > 65535) throw Error("topology: a dimension is larger than 65535");
    size_ = static_cast<int>(sz);
    dist1_.resize(nd_);
    for (int k = 0; k < nd_; ++k) {
        dist1_[k].resize(dims_[k]);
        for (int d = 0; d < dims_[k]; ++d)
            dist1_[k][d] = (wrap_[k] && !(has_local() && k == nd_ - 1)) ? std::min(d, dims_[k] - d) : d;
    }
    coord_.resize(static_cast<size_t>(size_) * nd_);
    for (int v = 0; v < size_; ++v) {
        int r = v;
        for (int k = 0; k < nd_; ++k) {
            coord_[static_cast<size_t>(v) * nd_ + k] = static_cast<uint16_t>(r / stride_[k]);
            r %= stride_[k];
        }
    }
}

void TorusTopology::coords(int node, int *c) const {
    for (int k = 0; k < nd_; ++k) c[k] = coord_[static_cast<size_t>(node) * nd_ + k];
}

int TorusTopology::node_at(const int *c) const {
    int v = 0;
    for (int k = 0; k < nd_; ++k) {
        if (c[k] < 0 || c[k] >= dims_[k]) return -1;
        v += c[k] * stride_[k];
    }
    return v;
}

int TorusTopology::hops(int a, int b) const {
    const uint16_t *ca = &coord_[static_cast<size_t>(a) * nd_];
    const uint16_t *cb = &coord_[static_cast<size_t>(b) * nd_];
    int h = 0;
    for (int k = 0; k < net_; ++k) h += offset(k, ca[k], cb[k]);
    return h;
}

double TorusTopology::distance(int a, int b) const {
    const uint16_t *ca = &coord_[static_cast<size_t>(a) * nd_];
    const uint16_t *cb = &coord_[static_cast<size_t>(b) * nd_];
    double local = (has_local() && ca[nd_ - 1] != cb[nd_ - 1]) ? local_cost_ : 0.0;
    switch (metric_) {
    case Metric::Hops: {
        int h = 0;
        for (int k = 0; k < net_; ++k) h += offset(k, ca[k], cb[k]);
        return h + local;
    }
    case Metric::DimScaled: {
        int h = 0, used = 0;
        for (int k = 0; k < net_; ++k) {
            int o = offset(k, ca[k], cb[k]);
            h += o;
            used += o > 0;
        }
        return (used ? static_cast<double>(net_) / used * h : 0.0) + local;
    }
    case Metric::Euclidean: {
        int s = 0;
        for (int k = 0; k < net_; ++k) {
            int o = offset(k, ca[k], cb[k]);
            s += o * o;
        }
        return std::sqrt(static_cast<double>(s)) + local;
    }
    }
    return 0;
}

bool TorusTopology::uniform() const {
    for (int k = 0; k < net_; ++k)
        if (!wrap_[k] && dims_[k] > 2) return false;
    return true;
}

std::vector<Shell> TorusTopology::shells(int node) const {
    // For meshes the node's own position matters; the caller (lower_bound)
    // asks for the central node, whose shells dominate every other node's.
    std::vector<int> c(nd_);
    coords(node, c.data());
    // Dynamic programme over dimensions on (sum, dims used) -> count; the
    // metric maps the pair to a distance.  `sum` is hops or squared offsets.
    std::map<std::pair<int, int>, int64_t> acc{{{0, 0}, 1}};
    for (int k = 0; k < net_; ++k) {
        std::map<int, int64_t> per;  // offset -> count along dimension k
        for (int x = 0; x < dims_[k]; ++x) per[offset(k, c[k], x)]++;
        std::map<std::pair<int, int>, int64_t> next;
        for (auto &[key, cnt] : acc)
            for (auto &[o, n] : per) {
                int add = metric_ == Metric::Euclidean ? o * o : o;
                next[{key.first + add, key.second + (o > 0)}] += cnt * n;
            }
        acc.swap(next);
    }
    std::map<double, int64_t> byd;
    const int T = has_local() ? dims_[nd_ - 1] : 1;
    for (auto &[key, cnt] : acc) {
        double d = 0;
        switch (metric_) {
        case Metric::Hops: d = key.first; break;
        case Metric::DimScaled: d = key.second ? static_cast<double>(net_) / key.second * key.first : 0; break;
        case Metric::Euclidean: d = std::sqrt(static_cast<double>(key.first)); break;
        }
        byd[d] += cnt;                              // same slot index
        if (T > 1) byd[d + local_cost_] += cnt * (T - 1);  // other slots
    }
    std::vector<Shell> out;
    for (auto &[d, cnt] : byd) {
        int64_t n = cnt - (d == 0 ? 1 : 0);  // exclude the node itself
        if (n > 0) out.push_back({d, n});
    }
    return out;
}

int64_t TorusTopology::num_links() const { return static_cast<int64_t>(size_) * 2 * net_; }

void TorusTopology::route(int a, int b, std::vector<int64_t> &links) const {
    links.clear();
    std::vector<int> cur(nd_), dst(nd_);
    coords(a, cur.data());
    coords(b, dst.data());
    for (int k = 0; k < net_; ++k) {
        while (cur[k] != dst[k]) {
            int fwd = (dst[k] - cur[k] + dims_[k]) % dims_[k];
            int dir;
            if (wrap_[k]) dir = (fwd <= dims_[k] - fwd) ? 1 : -1;
            else dir = dst[k] > cur[k] ? 1 : -1;
            int node = node_at(cur.data());
            links.push_back(static_cast<int64_t>(node) * 2 * net_ + 2 * k + (dir > 0 ? 0 : 1));
            cur[k] = (cur[k] + dir + dims_[k]) % dims_[k];
        }
    }
}

void TorusTopology::nearest(int node, int count, std::vector<int> &out) const {
    // Breadth-first search over lattice neighbours (local slots first):
    // nodes come out in non-decreasing hop order.
    out.clear();
    if (count <= 0) return;
    count = std::min(count, size_);
    thread_local std::vector<uint32_t> seen;
    thread_local uint32_t stamp = 0;
    if (seen.size() != static_cast<size_t>(size_)) {
        seen.assign(size_, 0);
        stamp = 0;
    }
    if (++stamp == 0) {
        std::fill(seen.begin(), seen.end(), 0);
        stamp = 1;
    }
    out.push_back(node);
    seen[node] = stamp;
    std::vector<int> c(nd_);
    auto visit_local = [&](int v) {
        if (!has_local()) return;
        coords(v, c.data());
        int base = v - c[nd_ - 1] * stride_[nd_ - 1];
        for (int t = 0; t < dims_[nd_ - 1] && static_cast<int>(out.size()) < count; ++t) {
            int u = base + t * stride_[nd_ - 1];
            if (seen[u] != stamp) {
                seen[u] = stamp;
                out.push_back(u);
            }
        }
    };
    visit_local(node);
    for (size_t head = 0; head < out.size() && static_cast<int>(out.size()) < count; ++head) {
        int v = out[head];
        for (int k = 0; k < net_ && static_cast<int>(out.size()) < count; ++k) {
            for (int dir = -1; dir <= 1; dir += 2) {
                coords(v, c.data());
                int x = c[k] + dir;
                if (x < 0 || x >= dims_[k]) {
                    if (!wrap_[k]) continue;
                    x = (x + dims_[k]) % dims_[k];
                }
                c[k] = x;
                int u = node_at(c.data());
                if (seen[u] != stamp) {
                    seen[u] = stamp;
                    out.push_back(u);
                    visit_local(u);
                    if (static_cast<int>(out.size()) >= count) break;
                }
            }
        }
    }
    if (static_cast<int>(out.size()) > count) out.resize(count);
}

std::string TorusTopology::describe() const {
    std::ostringstream s;
    bool all_wrap = true, none_wrap = true;
    for (int k = 0; k < net_; ++k) {
        if (wrap_[k]) none_wrap = false;
        else all_wrap = false;
    }
    s << (none_wrap && !all_wrap ? "mesh:" : "torus:");
    for (int k = 0; k < nd_; ++k) s << (k ? "x" : "") << dims_[k];
    if (!all_wrap && !none_wrap) {
        s << ":wrap=";
        for (int k = 0; k < net_; ++k) s << wrap_[k];
    }
    if (has_local()) s << ":local=" << local_cost_;
    if (metric_ == Metric::DimScaled) s << ":metric=dim";
    if (metric_ == Metric::Euclidean) s << ":metric=euclid";
    s << slots_suffix();
    return s.str();
}

} // namespace rankmap

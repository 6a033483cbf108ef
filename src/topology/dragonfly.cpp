// dragonfly.cpp -- dragonfly machine model (see dragonfly.hpp).
//
// Link ids, directed, one block per class:
//   blue      G x G             (from group, to group)
//   black     G x B x C x C     (group, blade, from chassis, to chassis)
//   green     G x C x B x B     (group, chassis, from blade, to blade)
//   injection 2 per host        (up to the router, down to the host)
//   memory    2 per core        (K > 1: up from the core, down to the core)
#include "topology/dragonfly.hpp"

#include <map>
#include <sstream>

#include "common/error.hpp"

namespace rankmap {

DragonflyTopology::DragonflyTopology(std::vector<int> dims, std::array<int, 3> wires, double valiant,
                                     double local_cost, bool routing_declared)
    : dims_(std::move(dims)), wires_(wires), valiant_(valiant), local_cost_(local_cost),
      routing_declared_(routing_declared) {
    if (dims_.size() < 4 || dims_.size() > 5)
        throw Error("topology: a dragonfly needs groups x chassis x blades x hosts [x cores]");
    int64_t n = 1;
    for (int d : dims_) {
        if (d < 1) throw Error("topology: a dragonfly extent is below 1");
        n *= d;
        if (n > (1 << 24)) throw Error("topology: more than 16,777,216 leaves is not supported");
    }
    routers_per_group_ = chassis() * blades();
    for (int w : wires_)
        if (w < 1) throw Error("topology: a dragonfly link needs at least 1 wire");
    if (!(valiant_ >= 0 && valiant_ <= 1)) throw Error("topology: valiant must be in [0, 1]");
    if (!(local_cost_ >= 0)) throw Error("topology: local cost must be >= 0");
    size_ = static_cast<int>(n);
    const int64_t G = groups(), C = chassis(), B = blades(), H = size_ / cores();
    off_[Blue] = 0;
    off_[Black] = G * G;
    off_[Green] = off_[Black] + G * B * C * C;
    off_[Injection] = off_[Green] + G * C * B * B;
    off_[Memory] = off_[Injection] + 2 * H;
    off_[5] = off_[Memory] + (cores() > 1 ? 2 * static_cast<int64_t>(size_) : 0);
}

void DragonflyTopology::coords(int node, int *c) const {
    for (int k = ndims() - 1; k >= 0; --k) {
        c[k] = node % dims_[k];
        node /= dims_[k];
    }
}

int DragonflyTopology::node_at(const int *c) const {
    int v = 0;
    for (int k = 0; k < ndims(); ++k) {
        if (c[k] < 0 || c[k] >= dims_[k]) return -1;
        v = v * dims_[k] + c[k];
    }
    return v;
}

// From router index `from` to `to` inside group g: green to the target's
// blade in the own chassis, then black to the target's chassis.
template <class Add>
void DragonflyTopology::intra(int g, int from, int to, double w, Add add) const {
    const int64_t B = blades(), C = chassis();
    const int64_t c = from / B, b = from % B, c2 = to / B, b2 = to % B;
    if (b != b2) add(off_[Green] + ((g * C + c) * B + b) * B + b2, w);
    if (c != c2) add(off_[Black] + ((g * B + b2) * C + c) * C + c2, w);
}

template <class Add>
void DragonflyTopology::network(int a, int b, bool split_routes, Add add) const {
    if (a == b) return;
    const int ha = host(a), hb = host(b);
    if (ha == hb) {
        add(off_[Memory] + 2 * static_cast<int64_t>(a), 1.0);
        add(off_[Memory] + 2 * static_cast<int64_t>(b) + 1, 1.0);
        return;
    }
    add(off_[Injection] + 2 * static_cast<int64_t>(ha), 1.0);
    const int ga = group(a), gb = group(b), ra = router(a), rb = router(b);
    if (ga == gb) {
        intra(ga, ra, rb, 1.0, add);
    } else {
        const int G = groups();
        const double split = split_routes && G > 2 ? valiant_ : 0.0;
        const double m = 1.0 - split;
        if (m > 0) {
            intra(ga, ra, attach(gb), m, add);
            add(blue(ga, gb), m);
            intra(gb, attach(ga), rb, m, add);
        }
        if (split > 0) {
            const double w = split / (G - 2);
            for (int h = 0; h < G; ++h) {
                if (h == ga || h == gb) continue;
                intra(ga, ra, attach(h), w, add);
                add(blue(ga, h), w);
                intra(h, attach(ga), attach(gb), w, add);
                add(blue(h, gb), w);
                intra(gb, attach(h), rb, w, add);
            }
        }
    }
    add(off_[Injection] + 2 * static_cast<int64_t>(hb) + 1, 1.0);
}

void DragonflyTopology::route(int a, int b, std::vector<int64_t> &links) const {
    links.clear();
    network(a, b, false, [&](int64_t l, double) { links.push_back(l); });
}

void DragonflyTopology::route_weighted(int a, int b, std::vector<std::pair<int64_t, double>> &links) const {
    links.clear();
    network(a, b, true, [&](int64_t l, double w) { links.emplace_back(l, w); });
}

std::unique_ptr<DragonflyTopology> DragonflyTopology::with_valiant(double v) const {
    auto twin = std::make_unique<DragonflyTopology>(dims_, wires_, v, local_cost_, true);
    twin->set_slots(slots());
    return twin;
}

int DragonflyTopology::link_class(int64_t l) const {
    int k = 0;
    while (k < 4 && l >= off_[k + 1]) ++k;
    return k;
}

int DragonflyTopology::hops(int a, int b) const {
    if (a == b) return 0;
    if (host(a) == host(b)) return 2;
    const int B = blades();
    auto len = [&](int from, int to) { return (from % B != to % B) + (from / B != to / B); };
    const int ga = group(a), gb = group(b), ra = router(a), rb = router(b);
    if (ga == gb) return 2 + len(ra, rb);
    return 3 + len(ra, attach(gb)) + len(attach(ga), rb);
}

double DragonflyTopology::distance(int a, int b) const {
    if (a == b) return 0.0;
    if (host(a) == host(b)) return local_cost_;
    return hops(a, b);
}

std::vector<Shell> DragonflyTopology::shells(int node) const {
    // Counted by router, O(G + C B): every router's hosts share a distance.
    const int B = blades(), R = routers_per_group_, G = groups();
    const int64_t per_router = static_cast<int64_t>(hosts_per_router()) * cores();
    auto len = [&](int from, int to) { return (from % B != to % B) + (from / B != to / B); };
    std::map<double, int64_t> by;
    if (cores() > 1) by[local_cost_] += cores() - 1;
    if (hosts_per_router() > 1) by[2] += (hosts_per_router() - 1) * static_cast<int64_t>(cores());
    const int g = group(node), r = router(node);
    for (int r2 = 0; r2 < R; ++r2)
        if (r2 != r) by[2 + len(r, r2)] += per_router;
    // Routers of another group at 0, 1 and 2 links from its arrival router.
    std::array<int64_t, 3> at{0, 0, 0};
    for (int r2 = 0; r2 < R; ++r2) ++at[len(attach(g), r2)];
    for (int h = 0; h < G; ++h) {
        if (h == g) continue;
        const int out = 3 + len(r, attach(h));
        for (int k = 0; k < 3; ++k)
            if (at[k]) by[out + k] += at[k] * per_router;
    }
    std::vector<Shell> s;
    for (auto &kv : by) s.push_back({kv.first, kv.second});
    return s;
}

std::string DragonflyTopology::describe() const {
    std::ostringstream s;
    s << "dragonfly:";
    for (size_t k = 0; k < dims_.size(); ++k) s << (k ? "x" : "") << dims_[k];
    if (wires_ != std::array<int, 3>{1, 1, 1}) s << ":links=" << wires_[0] << ',' << wires_[1] << ',' << wires_[2];
    if (valiant_ > 0 || routing_declared_) s << ":valiant=" << valiant_;
    if (cores() > 1 && local_cost_ != 0.5) s << ":local=" << local_cost_;
    s << slots_suffix();
    return s.str();
}

} // namespace rankmap

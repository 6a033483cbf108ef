// model.cpp -- predicted communication time of a placement.
//
// The traffic is cut into phases that run one after another: the
// point-to-point exchange (every edge outside an all-to-all group, all
// messages in flight at once, as an application's halo or irregular
// exchange) and one phase per set of concurrent all-to-all groups.
//
//   exchange  = drain(E)   (link(E) + lat(E) above kDrainMaxMessages messages)
//   phase     = max(sum over its pairwise steps S of link(S) + lat(S), bisection(P))
//   seconds   = exchange + sum over phases
//
// drain(X): the time until the messages of X, posted together, have all
//   arrived under SimGrid's sharing of links (drain_seconds): each message
//   first crosses its route's latency, then shares every link on its route
//   with the others there, max-min fair, in inverse proportion to its
//   route's latency (as TCP's share falls with its round trip).  It is at least link(X) and more when a
//   busy link idles: its messages still in their latency, or held back by
//   another busy link.  Placements with equal busiest links differ here
//   (bench/results/cost-model*.md: the 3-D halo on fat trees, the
//   partitioners' placements whose messages cross two busy links in turn).
// link(X): the busiest link's bytes over its bandwidth when the messages of
//   X are in flight together and follow the machine's own routes (dimension
//   order on tori and meshes, Topology::route; up to the common ancestor and
//   down on trees, each direction of a tier's link its own resource; on a
//   fat tree (tree up=...) the parallel uplinks of a switch are chosen by
//   D-mod-K, TreeTopology::port).  The
//   busiest link finishes last: with max-min fair sharing (SimGrid) this is
//   the time of X up to latency.  The hop-bytes (F under the hops metric, in
//   bytes; reported as hop_bytes) are the sum of all links' loads: spread
//   evenly they give a floor that never exceeds the busiest link, so F adds
//   no term of its own; it is what the busiest link is made of, and stays
//   beside the prediction for comparison.
// pairwise steps: an all-to-all of p tasks runs as p - 1 steps in which
//   every task exchanges with one partner (MPICH's long-message algorithm,
//   SMPI's "pair"), each step after the previous one.  The steps load
//   different links, so the phase takes the sum of the steps' busiest
//   links, not the busiest link of all its messages at once.  The groups of
//   one phase take their steps together.
// bisection(P): Jagode et al. (FFT task placement) equations (15)-(16), the
//   floor of the phase: for each group max_i m_i D / (4 B), D the bytes a
//   member holds for the all-to-all (what it sends to its partners times p /
//   (p - 1): the paper counts the part a task keeps), m_i the effective length
//   of the group's image in direction i: 0 if the image is one layer, else the
//   length of the smallest (cyclic on a torus) interval holding its
//   coordinates, at most n_i / g_t (g_t = 2 on a torus, 1 on a mesh; equation
//   (4)).  Tori and meshes only; on a tree the uplinks are the bisection and
//   the steps' link terms already count them.
// lat(X): the longest route's latency in X (sum of its links' latencies).
#include "cost/model.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <queue>
#include <sstream>
#include <string>
#include <unordered_map>

#include "common/error.hpp"
#include "cost/cost.hpp"
#include "topology/dragonfly.hpp"
#include "topology/placement.hpp"
#include "topology/torus.hpp"
#include "topology/tree.hpp"

namespace rankmap {

namespace {

// Defaults: bench/simgrid/sg_platform.py (TORUS_BW, TORUS_LAT, ETH_BW,
// ETH_LAT, MEM_BW, MEM_LAT), so predictions are the suite's simulated seconds.
constexpr double kTorusBandwidth = 154e6;  // BG/L: 0.25 B/cycle x 89 % payload x 700 MHz
constexpr double kTorusLatency = 100e-9;   // per hop (the platform's assumption)
constexpr double kEthBandwidth = 125e6;    // gigabit Ethernet, per direction
constexpr double kEthLatency = 50e-6;
constexpr double kMemBandwidth = 2e9;      // cores of one node (shared memory)
constexpr double kMemLatency = 1e-6;
// Dragonfly (sg_platform.py DFLY_BW, DFLY_LAT, DFLY_MEM_BW, DFLY_MEM_LAT):
// 200 Gb/s links as HPE Slingshot's, a switch hop's latency, and a host's
// shared memory four times a link.
constexpr double kDflyBandwidth = 25e9;
constexpr double kDflyLatency = 500e-9;
constexpr double kDflyMemBandwidth = 100e9;
constexpr double kDflyMemLatency = 200e-9;
// Largest exchange drained message by message (drain_seconds); above it the
// exchange takes its busiest link and longest latency.  The drain's work
// grows with the messages times the fillings; this bound keeps a prediction
// cheap beside a mapping (doc/tuning.md, kDrainMaxMessages).
constexpr size_t kDrainMaxMessages = 20000;
// Messages that end within this fraction of the busiest link's time (or of
// the elapsed time, when longer) of each other end together in
// drain_seconds, one filling for all of them: the fillings stay few and the
// pairs of placements bench/simgrid/model_check.py checks keep their order
// (doc/tuning.md, kDrainSlack).
constexpr double kDrainSlack = 0.01;

// Per-link bandwidth and latency of every link id the loads use.
struct Links {
    const Topology *topo = nullptr;
    const TreeTopology *tree = nullptr;
    const DragonflyTopology *dfly = nullptr;
    std::vector<double> bw, lat;          // per tier (tree), per link class (dragonfly) or one value
    std::vector<int64_t> span, off;       // tree: leaves per tier-k entity, first link id of tier k
    int64_t count = 0;                    // directed link ids

    // Adds `bytes` from node a to node b to `load` (seconds per link) and
    // returns the route's latency.
    template <class Add>
    double route(int a, int b, double bytes, std::vector<int64_t> &buf, Add add) const {
        if (a == b) return 0;
        if (tree) {
            const int L = tree->ndims();
            double lat_sum = 0;
            for (int k = L - 1; k >= tree->tier(a, b); --k) {
                const int64_t ports = tree->ports(k), port = tree->port(k, b);
                add(2 * (off[k] + (a / span[k]) * ports + port), bytes / bw[k]);      // up from a's side
                add(2 * (off[k] + (b / span[k]) * ports + port) + 1, bytes / bw[k]);  // down into b's side
                lat_sum += 2 * lat[k];
            }
            return lat_sum;
        }
        if (dfly) {
            thread_local std::vector<std::pair<int64_t, double>> wbuf;
            dfly->route_weighted(a, b, wbuf);
            double lat_sum = 0;
            for (auto &[l, w] : wbuf) {
                const int c = dfly->link_class(l);
                add(l, w * bytes / bw[c]);
                lat_sum += w * lat[c];
            }
            return lat_sum;
        }
        topo->route(a, b, buf);
        for (int64_t l : buf) add(l, bytes / bw[0]);
        return static_cast<double>(buf.size()) * lat[0];
    }

    // Bandwidth of link id l (bytes/s).
    double link_bw(int64_t l) const {
        if (dfly) return bw[dfly->link_class(l)];
        if (!tree) return bw[0];
        int k = 0;
        while (k + 1 < static_cast<int>(bw.size()) && l >= 2 * off[k + 1]) ++k;
        return bw[k];
    }
};

Links make_links(const Topology &topo, const ModelParams &p) {
    Links k;
    k.topo = &topo;
    k.tree = topo.kind() == TopologyKind::Tree ? static_cast<const TreeTopology *>(&topo) : nullptr;
    k.dfly = topo.kind() == TopologyKind::Dragonfly ? static_cast<const DragonflyTopology *>(&topo) : nullptr;
    const size_t want = k.tree ? static_cast<size_t>(topo.ndims()) : k.dfly ? static_cast<size_t>(k.dfly->classes()) : 1;
    auto fill = [&](const std::vector<double> &given, std::vector<double> &out, double outer, double inner,
                    double other, const char *what) {
        if (!given.empty()) {
            if (given.size() != want)
                throw Error(std::string("model: ") + what + " needs " + std::to_string(want) + " value(s) for " +
                            topo.describe() + ", got " + std::to_string(given.size()));
            for (double v : given)
                if (!(v > 0)) throw Error(std::string("model: ") + what + " values must be > 0");
            out = given;
        } else if (k.tree) {
            out.assign(want, outer);
            out.back() = inner;
        } else if (k.dfly) {
            const bool is_bw = &out == &k.bw;
            out.assign(want, is_bw ? kDflyBandwidth : kDflyLatency);
            if (want > 4) out[DragonflyTopology::Memory] = is_bw ? kDflyMemBandwidth : kDflyMemLatency;
        } else {
            out.assign(1, other);
        }
    };
    fill(p.bandwidth, k.bw, kEthBandwidth, kMemBandwidth, kTorusBandwidth, "bandwidth");
    fill(p.latency, k.lat, kEthLatency, kMemLatency, kTorusLatency, "latency");
    if (k.dfly)  // a link of k wires: k times one wire's bandwidth, as SimGrid builds it
        for (int c = 0; c < 3; ++c) k.bw[c] *= k.dfly->wires()[c];
    if (k.tree) {
        const int L = topo.ndims();
        k.span.assign(L, 1);
        for (int j = L - 2; j >= 0; --j) k.span[j] = k.span[j + 1] * topo.dims()[j + 1];
        k.off.assign(L + 1, 0);
        for (int j = 0; j < L; ++j) k.off[j + 1] = k.off[j] + topo.size() / k.span[j] * k.tree->ports(j);
        k.count = 2 * k.off[L];
    } else {
        k.count = topo.num_links();
    }
    return k;
}

// Seconds per link of one set of concurrent messages; dense when the
// machine is small enough.  reset() clears only the links it touched, so one
// Load serves every step of an all-to-all.
struct Load {
    std::vector<double> dense;
    std::vector<int64_t> touched;
    std::unordered_map<int64_t, double> sparse;
    explicit Load(int64_t links) {
        if (links <= (int64_t{1} << 22)) dense.assign(static_cast<size_t>(links), 0.0);
    }
    void add(int64_t l, double s) {
        if (dense.empty()) {
            sparse[l] += s;
            return;
        }
        double &x = dense[static_cast<size_t>(l)];
        if (x == 0) touched.push_back(l);
        x += s;
    }
    double max() const {
        double m = 0;
        for (int64_t l : touched) m = std::max(m, dense[static_cast<size_t>(l)]);
        for (auto &kv : sparse) m = std::max(m, kv.second);
        return m;
    }
    void reset() {
        for (int64_t l : touched) dense[static_cast<size_t>(l)] = 0;
        touched.clear();
        sparse.clear();
    }
};

// The effective length m_i (Jagode et al., FFT task placement) of the image of
// `nodes` in direction i.
double effective_length(const TorusTopology &t, const std::vector<int> &nodes, int i) {
    const int n = t.dims()[i];
    std::vector<char> used(n, 0);
    std::vector<int> c(t.ndims());
    for (int v : nodes) {
        t.coords(v, c.data());
        used[c[i]] = 1;
    }
    std::vector<int> xs;
    for (int x = 0; x < n; ++x)
        if (used[x]) xs.push_back(x);
    if (xs.size() <= 1) return 0;  // one layer: no traffic in direction i
    if (!t.wrap()[i]) return xs.back() - xs.front() + 1;
    int gap = 0;  // largest empty stretch between used coordinates, cyclically
    for (size_t k = 0; k < xs.size(); ++k) {
        int next = k + 1 < xs.size() ? xs[k + 1] : xs[0] + n;
        gap = std::max(gap, next - xs[k]);
    }
    return std::min(static_cast<double>(n - gap + 1), n / 2.0);
}

// Working arrays of one progressive filling, per link (fixed: per message).
struct FillScratch {
    std::vector<char> fixed;
    std::vector<double> left;   // bandwidth not yet handed out
    std::vector<double> users;  // sum of 1 / penalty of the unfixed messages
    std::vector<double> scale;  // users at the start of a filling
};

// Max-min fair rates of the live messages: progressive filling with a heap
// of the links' shares.  on[c]: messages crossing link c.
void fair_rates(const std::vector<std::vector<int>> &on, const std::vector<std::vector<int>> &links_of,
                const std::vector<double> &penalty, const std::vector<double> &cap, const std::vector<char> &live,
                std::vector<double> &rate, FillScratch &s) {
    using Entry = std::pair<double, int>;  // share, link
    const size_t L = cap.size();
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
    for (size_t c = 0; c < L; ++c) {
        s.users[c] = 0;
        for (int f : on[c])
            if (live[static_cast<size_t>(f)]) s.users[c] += 1 / penalty[static_cast<size_t>(f)];
        s.scale[c] = s.users[c];
        s.left[c] = cap[c];
        if (s.users[c] > 0) heap.push({s.left[c] / s.users[c], static_cast<int>(c)});
    }
    std::fill(s.fixed.begin(), s.fixed.end(), 0);
    // A link's share only grows as messages on it are fixed by other
    // links, so one entry per link is kept and a stale one is pushed
    // back with its present share when it surfaces.
    while (!heap.empty()) {
        const Entry top = heap.top();
        heap.pop();
        const auto c = static_cast<size_t>(top.second);
        if (s.users[c] <= 1e-9 * s.scale[c]) continue;
        const double share = std::max(0.0, s.left[c]) / s.users[c];
        if (share > top.first * (1 + 1e-12) + 1e-300) {
            heap.push({share, top.second});
            continue;
        }
        for (int f : on[c]) {
            const auto fu = static_cast<size_t>(f);
            if (!live[fu] || s.fixed[fu]) continue;
            s.fixed[fu] = 1;
            rate[fu] = share / penalty[fu];
            for (int c2 : links_of[fu]) {
                const auto cu = static_cast<size_t>(c2);
                s.left[cu] -= rate[fu];
                s.users[cu] -= 1 / penalty[fu];
            }
        }
        s.users[c] = 0;
    }
}

// The time to the next event: a start (`arrive` from now, -1: none left),
// or the messages that end within kDrainSlack of the first to end (they
// end together, at the last of them: the bandwidth the others free
// meanwhile is not handed on, so the time is over-estimated by at most
// that share of it).  -1 when nothing can progress.
double next_event(const std::vector<char> &live, const std::vector<double> &rate, const std::vector<double> &bytes,
                  double arrive, double t, double floor) {
    const size_t F = live.size();
    double first = -1;
    for (size_t f = 0; f < F; ++f)
        if (live[f] && rate[f] > 0 && (first < 0 || bytes[f] / rate[f] < first)) first = bytes[f] / rate[f];
    double dt = first;
    if (first >= 0) {
        const double until = first + kDrainSlack * std::max(t + first, floor);
        for (size_t f = 0; f < F; ++f)
            if (live[f] && rate[f] > 0 && bytes[f] / rate[f] <= until) dt = std::max(dt, bytes[f] / rate[f]);
    }
    if (arrive >= 0 && (dt < 0 || arrive < dt)) dt = arrive;
    return dt;
}

// Time for messages posted together to arrive under max-min fair sharing
// (SimGrid's network model; TCP's steady state to first order).  Message f
// crosses its route's latency start[f] first, then shares the bandwidth of
// its links: each link's bandwidth is split in inverse proportion to the
// penalties of the messages crossing it, a message limited elsewhere leaves
// its share to the others, and the shares are recomputed whenever a message
// starts or ends.  The result is never below the busiest link's time and
// exceeds it when a link idles: its messages still in their latency, or
// held back by another link.  Progressive filling with a heap of the links'
// shares, once per event.  links_of[f]: compact link numbers of message f;
// bytes[f] > 0; cap[c]: link c's bandwidth (bytes/s).
double drain_seconds(const std::vector<std::vector<int>> &links_of, std::vector<double> bytes,
                     const std::vector<double> &start, const std::vector<double> &penalty,
                     const std::vector<double> &cap, double floor) {
    const size_t F = links_of.size(), L = cap.size();
    std::vector<std::vector<int>> on(L);  // messages crossing each link
    for (size_t f = 0; f < F; ++f)
        for (int c : links_of[f]) on[static_cast<size_t>(c)].push_back(static_cast<int>(f));
    std::vector<size_t> order(F);  // messages by start
    for (size_t f = 0; f < F; ++f) order[f] = f;
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return start[x] < start[y]; });
    std::vector<char> live(F, 0);
    std::vector<double> rate(F);
    FillScratch scratch{std::vector<char>(F), std::vector<double>(L), std::vector<double>(L), std::vector<double>(L)};
    size_t nlive = 0, next = 0;
    double t = 0;
    while (nlive > 0 || next < F) {
        if (nlive == 0) t = std::max(t, start[order[next]]);
        for (; next < F && start[order[next]] <= t; ++next) live[order[next]] = 1, ++nlive;
        fair_rates(on, links_of, penalty, cap, live, rate, scratch);
        const double arrive = next < F ? start[order[next]] - t : -1;
        const double dt = next_event(live, rate, bytes, arrive, t, floor);
        if (dt < 0) break;  // nothing can progress (cannot happen with bandwidths > 0)
        t += dt;
        for (size_t f = 0; f < F; ++f) {
            if (!live[f]) continue;
            bytes[f] -= rate[f] * dt;
            if (bytes[f] <= 1e-9 * rate[f] * t) live[f] = 0, bytes[f] = 0, --nlive;
        }
    }
    return t;
}

// The all-to-all groups in phases: a group joins the last phase unless it
// shares a task with a group already there.  group_in[ph][task] = the
// task's group in phase ph (-1: none), pos_in[ph][task] = its position
// (communicator rank) in that group, members[ph][id] = the group.
struct Phases {
    std::vector<std::vector<int>> group_in, pos_in;
    std::vector<std::vector<const std::vector<int> *>> members;
    int count() const { return static_cast<int>(group_in.size()); }
};

Phases make_phases(int ntasks, const std::vector<std::vector<int>> &alltoall_groups) {
    Phases P;
    for (auto &grp : alltoall_groups) {
        for (int t : grp)
            if (t < 0 || t >= ntasks)
                throw Error("model: all-to-all group names task " + std::to_string(t) + ", graph has " +
                            std::to_string(ntasks) + " tasks");
        bool clash = P.group_in.empty();
        for (int t : grp) clash = clash || P.group_in.back()[t] >= 0;
        if (clash) {
            P.group_in.emplace_back(ntasks, -1);
            P.pos_in.emplace_back(ntasks, -1);
            P.members.emplace_back();
        }
        const int id = static_cast<int>(P.members.back().size());
        for (size_t k = 0; k < grp.size(); ++k) {
            if (P.group_in.back()[grp[k]] >= 0) throw Error("model: a task appears twice in one all-to-all group");
            P.group_in.back()[grp[k]] = id;
            P.pos_in.back()[grp[k]] = static_cast<int>(k);
        }
        P.members.back().push_back(&grp);
    }
    return P;
}

struct Msg {
    int a, b;  // nodes
    double bytes;
};

// Every edge sorted into the exchange or into its all-to-all phase and
// pairwise step.  Step s of a group of p pairs position r with r XOR s
// when p is a power of two (SMPI's "pair" algorithm), else r sends to
// r + s (mod p) (MPICH's pairwise exchange).
struct Traffic {
    std::vector<Msg> exchange;
    std::vector<std::vector<std::vector<Msg>>> steps;  // steps[ph][s]
    std::vector<std::vector<double>> sent;             // bytes a task sends inside its group
    double hop_bytes = 0;
};

Traffic sort_traffic(const Graph &g, const Topology &topo, const std::vector<int> &place, const Phases &P,
                     double unit) {
    const int nph = P.count();
    Traffic tr;
    tr.steps.resize(nph);
    tr.sent.resize(nph);
    for (int ph = 0; ph < nph; ++ph) tr.sent[ph].assign(g.n(), 0.0);
    for (int i = 0; i < g.n(); ++i) {
        for (int64_t e = g.begin(i); e < g.end(i); ++e) {
            const int j = g.target(e);
            const Msg m{place[i], place[j], g.weight(e) * unit};
            tr.hop_bytes += m.bytes * topo.hops(m.a, m.b);
            int ph = 0;
            while (ph < nph && !(P.group_in[ph][i] >= 0 && P.group_in[ph][i] == P.group_in[ph][j])) ++ph;
            if (ph == nph) {
                tr.exchange.push_back(m);
                continue;
            }
            const int p = static_cast<int>(P.members[ph][P.group_in[ph][i]]->size());
            const int pi = P.pos_in[ph][i], pj = P.pos_in[ph][j];
            const int step = (p & (p - 1)) == 0 ? (pi ^ pj) : (pj - pi + p) % p;
            if (static_cast<int>(tr.steps[ph].size()) <= step) tr.steps[ph].resize(step + 1);
            tr.steps[ph][step].push_back(m);
            tr.sent[ph][i] += m.bytes;
        }
    }
    return tr;
}

// Times of sets of messages in flight together on the machine's links.
class Flight {
public:
    explicit Flight(const Links &links) : links_(links), load_(links.count) {}

    // (busiest link, longest route latency)
    std::pair<double, double> concurrent(const std::vector<Msg> &msgs) {
        load_.reset();
        double lat = 0;
        for (const Msg &m : msgs)
            lat = std::max(lat, links_.route(m.a, m.b, m.bytes, buf_, [&](int64_t l, double x) { load_.add(l, x); }));
        return std::make_pair(load_.max(), lat);
    }

    // The time of messages posted together (drain_seconds) for exchanges of
    // at most kDrainMaxMessages; larger ones take the busiest link plus the
    // longest route's latency.
    // Routes split over several paths (a dragonfly's valiant share) are not
    // drained message by message either.
    double drained(const std::vector<Msg> &msgs, std::pair<double, double> busiest) {
        if (msgs.size() > kDrainMaxMessages || (links_.dfly && links_.dfly->valiant() > 0))
            return busiest.first + busiest.second;
        std::unordered_map<int64_t, int> compact;
        std::vector<double> cap, bytes, start, penalty;
        std::vector<std::vector<int>> links_of;
        for (const Msg &m : msgs) {
            if (m.a == m.b || !(m.bytes > 0)) continue;
            std::vector<int> path;
            const double lat = links_.route(m.a, m.b, m.bytes, buf_, [&](int64_t l, double) {
                auto it = compact.emplace(l, static_cast<int>(cap.size())).first;
                if (it->second == static_cast<int>(cap.size())) cap.push_back(links_.link_bw(l));
                path.push_back(it->second);
            });
            links_of.push_back(std::move(path));
            bytes.push_back(m.bytes);
            start.push_back(lat);
            penalty.push_back(lat);
        }
        return drain_seconds(links_of, std::move(bytes), start, penalty, cap, busiest.first + busiest.second);
    }

private:
    const Links &links_;
    Load load_;
    std::vector<int64_t> buf_;
};

// The bisection bound of one phase's groups on a torus: the effective
// length times the most bytes a member sends, over the links crossing.
double bisection_bound(const TorusTopology *torus, const std::vector<const std::vector<int> *> &groups,
                       const std::vector<double> &sent, const std::vector<int> &place, const Links &links) {
    double bis = 0;
    for (const auto *grp : groups) {
        const size_t p = grp->size();
        if (!torus || p < 2) continue;
        double D = 0;
        std::vector<int> nodes;
        for (int t : *grp) {
            D = std::max(D, sent[t]);
            nodes.push_back(place[t]);
        }
        D *= static_cast<double>(p) / static_cast<double>(p - 1);
        double m = 0;
        for (int d = 0; d < torus->net_dims(); ++d) m = std::max(m, effective_length(*torus, nodes, d));
        bis = std::max(bis, m * D / (4 * links.bw[0]));
    }
    return bis;
}

} // namespace

TimePrediction predict_time(const Graph &g, const Topology &topo, const std::vector<int> &place,
                            const std::vector<std::vector<int>> &alltoall_groups, const ModelParams &params) {
    check_placement(topo, g.n(), place);
    if (!(params.bytes_per_unit > 0)) throw Error("model: bytes per unit must be > 0");
    const Links links = make_links(topo, params);
    const Phases P = make_phases(g.n(), alltoall_groups);
    const int nph = P.count();
    const Traffic tr = sort_traffic(g, topo, place, P, params.bytes_per_unit);
    TimePrediction r;
    r.hop_bytes = tr.hop_bytes;

    Flight flight(links);
    const auto ex = flight.concurrent(tr.exchange);
    r.busiest_link = ex.first;
    r.exchange = flight.drained(tr.exchange, ex);

    const auto *torus = topo.kind() == TopologyKind::Torus ? static_cast<const TorusTopology *>(&topo) : nullptr;
    for (int ph = 0; ph < nph; ++ph) {
        double pairwise = 0;
        for (const auto &msgs : tr.steps[ph]) {
            if (msgs.empty()) continue;
            const auto st = flight.concurrent(msgs);
            r.busiest_link = std::max(r.busiest_link, st.first);
            pairwise += st.first + st.second;
        }
        const double bis = bisection_bound(torus, P.members[ph], tr.sent[ph], place, links);
        r.bisection = std::max(r.bisection, bis);
        r.alltoall += std::max(pairwise, bis);
    }
    r.phases = nph;
    r.seconds = r.exchange + r.alltoall;
    return r;
}

std::vector<std::vector<int>> read_groups(const std::string &path) {
    std::ifstream in(path);
    if (!in) throw Error("cannot open all-to-all groups file " + path, ErrorKind::Io);
    std::vector<std::vector<int>> out;
    std::string line;
    for (int lineno = 1; std::getline(in, line); ++lineno) {
        line = line.substr(0, line.find('#'));
        std::istringstream ss(line);
        std::vector<int> grp;
        std::string tok;
        while (ss >> tok) {
            size_t used = 0;
            long v = -1;
            try {
                v = std::stol(tok, &used);
            } catch (...) {
                used = 0;
            }
            if (used != tok.size() || v < 0 || v > (1L << 30))
                throw Error(path + ":" + std::to_string(lineno) + ": '" + tok + "' is not a task number");
            grp.push_back(static_cast<int>(v));
        }
        if (!grp.empty()) out.push_back(std::move(grp));
    }
    return out;
}

// A unit of graph weight as a 1 MiB message: the bandwidth regime of the
// guard (latency below 0.1 % of a link's time for it on every default link).
constexpr double kGuardBytesPerUnit = 1 << 20;

double bandwidth_time(const Graph &g, const Topology &topo, const std::vector<int> &place,
                      const std::vector<std::vector<int>> &alltoall_groups) {
    ModelParams mp;
    mp.bytes_per_unit = kGuardBytesPerUnit;
    return predict_time(g, topo, place, alltoall_groups, mp).seconds;
}

double exchange_F(const Graph &g, const Topology &topo, const std::vector<int> &place,
                  const std::vector<std::vector<int>> &alltoall_groups) {
    if (alltoall_groups.empty()) return evaluate(g, topo, place).F;
    // tasks of one group share its index in the phase's column of `in`
    std::vector<std::vector<int>> in;  // in[phase][task] = group or -1
    for (size_t k = 0; k < alltoall_groups.size(); ++k) {
        bool fresh = in.empty();
        for (int t : alltoall_groups[k]) {
            if (t < 0 || t >= g.n())
                throw Error("model: all-to-all group names task " + std::to_string(t) + ", graph has " +
                            std::to_string(g.n()));
            if (!fresh && in.back()[t] >= 0) fresh = true;
        }
        if (fresh) in.emplace_back(g.n(), -1);
        for (int t : alltoall_groups[k]) in.back()[t] = static_cast<int>(k);
    }
    double F = 0;
    for (int a = 0; a < g.n(); ++a)
        for (int64_t e = g.begin(a); e < g.end(a); ++e) {
            const int b = g.target(e);
            bool inside = false;
            for (auto &ph : in)
                if (ph[a] >= 0 && ph[a] == ph[b]) inside = true;
            if (!inside) F += g.weight(e) * topo.distance(place[a], place[b]);
        }
    return F;
}

double phased_latency(const Topology &topo, const std::vector<int> &place, const ExchangePhases &phases) {
    double sum = 0;
    for (const auto &partner : phases.partner) {
        if (partner.size() != place.size())
            throw Error("model: an exchange phase names " + std::to_string(partner.size()) + " tasks, the placement " +
                        std::to_string(place.size()));
        double worst = 0;
        for (size_t t = 0; t < partner.size(); ++t) {
            const int u = partner[t];
            if (u < 0) continue;
            if (u >= static_cast<int>(place.size()))
                throw Error("model: an exchange phase names task " + std::to_string(u));
            worst = std::max(worst, topo.distance(place[t], place[u]));
        }
        sum += worst;
    }
    return sum;
}

double phased_time(const Topology &topo, const std::vector<int> &place, const ExchangePhases &phases,
                   const MessageSizes &sizes) {
    if (!sizes.bytes) throw Error("model: phased_time needs the messages' sizes");
    const Graph &g = *sizes.bytes;
    check_placement(topo, g.n(), place);
    const Links links = make_links(topo, sizes.machine);
    Flight flight(links);
    auto bytes_to = [&](int a, int b) {
        for (int64_t e = g.begin(a); e < g.end(a); ++e)
            if (g.target(e) == b) return g.weight(e);
        return 0.0;
    };
    double sum = 0;
    std::vector<Msg> msgs;
    for (const auto &partner : phases.partner) {
        if (partner.size() != place.size())
            throw Error("model: an exchange phase names " + std::to_string(partner.size()) + " tasks, the placement " +
                        std::to_string(place.size()));
        msgs.clear();
        for (size_t t = 0; t < partner.size(); ++t) {
            const int u = partner[t], a = static_cast<int>(t);
            if (u < 0) continue;
            if (u >= g.n()) throw Error("model: an exchange phase names task " + std::to_string(u));
            double b = bytes_to(a, u);
            if (!(b > 0)) b = bytes_to(u, a);
            if (b > 0) msgs.push_back({place[a], place[u], b * sizes.machine.bytes_per_unit});
        }
        sum += flight.drained(msgs, flight.concurrent(msgs));
    }
    return sum;
}

} // namespace rankmap

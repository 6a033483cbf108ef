// kway.cpp -- k-way refinement of a partition with exact part sizes
// (the node tier of the hierarchy mapper, hier.hpp: kway_refine_exact,
// refine_node_tier).  Every node of a tree must keep exactly its task
// count, so single moves are never allowed on their own; the refinement
// moves tasks along closed chains instead.
//
//   ejection chains  (chain_level) a vertex v moves from its part A to the
//                    part B it is most connected to (only when that does
//                    not lose on its own); then, up to chain_moves moves, a
//                    vertex of the same weight leaves the part that has one
//                    too many, for its best part other than A; at every
//                    step the best move back into A that would close the
//                    chain is scored, and the chain is cut back to its best
//                    closing when that gains (else undone).  Chains
//                    A -> B -> C -> A, which no pair exchange makes, are
//                    found this way.  Moved vertices are locked for the
//                    pass; passes until one gains nothing (at most
//                    chain_passes).  Part weights are exact after every
//                    chain.
//   V-cycles         the graph is coarsened by heavy-edge matching inside
//                    the parts (coarse vertices at most a fixed share of a
//                    part), so the partition projects exactly onto every
//                    level with the same part weights; chains run from the
//                    coarsest level to the input graph.
//   unions           (regroup_unions, from the second cycle on) for every
//                    part A, A and the group - 1 parts most connected to it
//                    (grown greedily; from the third cycle the second-best
//                    part is taken at random half the time, so the cycles
//                    see new unions) are re-partitioned from scratch by
//                    METIS (partition_graph, exact sizes, union_tries seeds,
//                    each polished by chains on the union); the best
//                    replaces the union's parts if its internal cut is
//                    lower.  Edges leaving the union are cut whatever its
//                    split, so the whole cut falls by as much.  A union
//                    with the same members as when last tried is skipped.
//   Cycles repeat until one gains less than min_cycle_gain of the cut or
//   `cycles` are done.  Tuned numbers: KwayContext (tuning.hpp).
// Deterministic for a seed (all randomness from the seed) unless the
// deadline cuts it short.  Never raises the cut.
// Cost per chain pass O(starts x chain_moves x part size x degree); per
// union round O(P x union_tries x METIS on group x part size vertices); memory
// O(N + E + P).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "common/error.hpp"
#include "common/rng.hpp"
#include "map/hier/hier.hpp"
#include "partition/partition.hpp"
// Cross-module private include: the tree's tiers (as in hier.cpp).
#include "topology/tree.hpp"

namespace rankmap {

namespace {

struct Level {
    int n = 0;
    std::vector<int64_t> xadj;
    std::vector<int> adj;
    std::vector<double> w;
    std::vector<int> vw;
    std::vector<int> up;  // vertex of the next coarser level (empty on the coarsest)
};

Level level_of(const Graph &g) {
    Level L;
    L.n = g.n();
    L.xadj = g.xadj();
    L.adj = g.adj();
    L.w = g.weights();
    L.vw.assign(L.n, 1);
    return L;
}

// Heavy-edge matching among vertices of the same part, visited in a random
// order; returns the coarse level (and fills fine.up).
Level coarsen(Level &fine, const std::vector<int> &part, Rng &rng, int max_vw) {
    const int n = fine.n;
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    for (int i = n - 1; i > 0; --i) std::swap(order[i], order[static_cast<int>(rng.below(i + 1))]);
    std::vector<int> mate(n, -1);
    for (int v : order) {
        if (mate[v] >= 0) continue;
        int best = -1;
        double bw = 0;
        for (int64_t e = fine.xadj[v]; e < fine.xadj[v + 1]; ++e) {
            const int u = fine.adj[e];
            if (u == v || mate[u] >= 0 || part[u] != part[v] || fine.vw[u] + fine.vw[v] > max_vw) continue;
            if (best < 0 || fine.w[e] > bw) {
                best = u;
                bw = fine.w[e];
            }
        }
        if (best >= 0) {
            mate[v] = best;
            mate[best] = v;
        } else {
            mate[v] = v;
        }
    }
    Level C;
    fine.up.assign(n, -1);
    for (int v = 0; v < n; ++v)
        if (fine.up[v] < 0) {
            fine.up[v] = C.n;
            fine.up[mate[v]] = C.n;
            ++C.n;
        }
    C.vw.assign(C.n, 0);
    std::vector<std::vector<int>> members(C.n);
    for (int v = 0; v < n; ++v) {
        C.vw[fine.up[v]] += fine.vw[v];
        members[fine.up[v]].push_back(v);
    }
    C.xadj.assign(C.n + 1, 0);
    std::vector<double> acc(C.n, 0.0);
    std::vector<int> touched;
    for (int c = 0; c < C.n; ++c) {
        touched.clear();
        for (int v : members[c])
            for (int64_t e = fine.xadj[v]; e < fine.xadj[v + 1]; ++e) {
                const int d = fine.up[fine.adj[e]];
                if (d == c) continue;
                if (acc[d] == 0.0) touched.push_back(d);
                acc[d] += fine.w[e];
            }
        std::sort(touched.begin(), touched.end());
        for (int d : touched) {
            C.adj.push_back(d);
            C.w.push_back(acc[d]);
            acc[d] = 0.0;
        }
        C.xadj[c + 1] = static_cast<int64_t>(C.adj.size());
    }
    return C;
}

double cut_level(const Level &L, const std::vector<int> &part) {
    double c = 0;
    for (int v = 0; v < L.n; ++v)
        for (int64_t e = L.xadj[v]; e < L.xadj[v + 1]; ++e)
            if (L.adj[e] > v && part[L.adj[e]] != part[v]) c += L.w[e];
    return c;
}

// Ejection-chain passes on one level (chain_level).  A chain moves a
// vertex v from its part A to its best part B, then repeatedly a vertex of
// the same weight out of the part that has one too many, until a move back
// into A closes it with a positive total gain (kept) or chain_moves moves
// are made (undone).  Part weights are exact after every kept chain.
class Chains {
  public:
    Chains(const Level &L, int k, std::vector<int> &part, const KwayContext &kc)
        : L_(L), part_(part), kc_(kc), members_(k), pos_(L.n), conn_(k, 0.0), locked_(L.n, 0) {
        for (int v = 0; v < L.n; ++v) {
            pos_[v] = static_cast<int>(members_[part[v]].size());
            members_[part[v]].push_back(v);
        }
    }

    // Passes until one gains nothing (at most chain_passes); returns the
    // cut decrease.
    double run() {
        double total = 0;
        for (int pass = 0; pass < kc_.chain_passes; ++pass) {
            std::fill(locked_.begin(), locked_.end(), 0);
            double gained = 0;
            for (const auto &o : start_order())
                if (!locked_[o.second]) gained += chain_from(o.second);
            total += gained;
            if (gained <= 0) break;
        }
        return total;
    }

  private:
    // Best closing seen: total gain, chain length before it, vertex.
    struct Closing {
        double total;
        size_t len;
        int u;
    };
    // One scan of the overfull part: the best move back into A (cu, gain
    // cg) and the best move on to another part (nu to nq, gain ng).
    struct Scan {
        int cu = -1, nu = -1, nq = -1;
        double cg = 0, ng = 0;
    };

    void move(int v, int q) {
        std::vector<int> &m = members_[part_[v]];
        const int last = m.back();
        m[pos_[v]] = last;
        pos_[last] = pos_[v];
        m.pop_back();
        part_[v] = q;
        pos_[v] = static_cast<int>(members_[q].size());
        members_[q].push_back(v);
    }

    // Connection of v to its own part (returned), and to every other part
    // (conn_, parts listed in touched_; clear() resets them).
    double gather(int v) {
        touched_.clear();
        double own = 0;
        for (int64_t e = L_.xadj[v]; e < L_.xadj[v + 1]; ++e) {
            const int q = part_[L_.adj[e]];
            if (q == part_[v]) {
                own += L_.w[e];
                continue;
            }
            if (conn_[q] == 0.0) touched_.push_back(q);
            conn_[q] += L_.w[e];
        }
        return own;
    }

    void clear() {
        for (int q : touched_) conn_[q] = 0.0;
    }

    // Starts: vertices with a neighbour elsewhere, best gain first.
    std::vector<std::pair<double, int>> start_order() {
        std::vector<std::pair<double, int>> order;
        for (int v = 0; v < L_.n; ++v) {
            const double own = gather(v);
            double b = -1;
            bool any = false;
            for (int q : touched_)
                if (!any || conn_[q] > b) {
                    b = conn_[q];
                    any = true;
                }
            clear();
            if (any) order.emplace_back(-(b - own), v);
        }
        std::sort(order.begin(), order.end());
        return order;
    }

    Scan scan(int S, int A, int wv) {
        Scan sc;
        for (int u : members_[S]) {
            if (locked_[u] || L_.vw[u] != wv) continue;
            const double own = gather(u);
            const double g_close = conn_[A] - own;
            if (sc.cu < 0 || g_close > sc.cg) {
                sc.cu = u;
                sc.cg = g_close;
            }
            for (int q : touched_)
                if (q != A && (sc.nu < 0 || conn_[q] - own > sc.ng)) {
                    sc.nu = u;
                    sc.nq = q;
                    sc.ng = conn_[q] - own;
                }
            clear();
        }
        return sc;
    }

    // The chain started by v (already locked, moved from A to part S with
    // gain cum): extended while it can, the best closing remembered.
    Closing extend(int A, int S, int wv, double cum) {
        Closing best{1e-12 * (1 + std::fabs(cum)), 0, -1};
        for (int step = 1; step < kc_.chain_moves; ++step) {
            const Scan sc = scan(S, A, wv);
            if (sc.cu >= 0 && cum + sc.cg > best.total) best = {cum + sc.cg, chain_.size(), sc.cu};
            if (sc.nu < 0) break;
            move(sc.nu, sc.nq);
            locked_[sc.nu] = 1;
            chain_.emplace_back(sc.nu, S);
            cum += sc.ng;
            S = sc.nq;
        }
        return best;
    }

    // A chain from v when v's best move does not lose on its own; returns
    // its gain (0 when it is undone: v goes back and stays locked).
    double chain_from(int v) {
        const int A = part_[v], wv = L_.vw[v];
        const double own = gather(v);
        int B = -1;
        double bc = 0;
        for (int q : touched_)
            if (B < 0 || conn_[q] > bc || (conn_[q] == bc && q < B)) {
                B = q;
                bc = conn_[q];
            }
        clear();
        if (B < 0 || bc < own) return 0;
        chain_.clear();
        move(v, B);
        locked_[v] = 1;
        chain_.emplace_back(v, A);
        const Closing best = extend(A, B, wv, bc - own);
        const size_t keep = best.u >= 0 ? best.len : 1;
        for (size_t i = chain_.size(); i-- > keep;) {  // undo past the best closing
            move(chain_[i].first, chain_[i].second);
            locked_[chain_[i].first] = 0;
        }
        if (best.u < 0) {
            move(v, A);
            return 0;
        }
        move(best.u, A);
        locked_[best.u] = 1;
        return best.total;
    }

    const Level &L_;
    std::vector<int> &part_;
    const KwayContext &kc_;
    std::vector<std::vector<int>> members_;
    std::vector<int> pos_;
    std::vector<double> conn_;
    std::vector<int> touched_;
    std::vector<char> locked_;
    std::vector<std::pair<int, int>> chain_;  // (vertex, from)
};

double chain_level(const Level &L, int k, std::vector<int> &part, const KwayContext &kc) {
    return Chains(L, k, part, kc).run();
}

// The union of part A and the (group - 1) parts most connected to it,
// grown greedily; with `mix`, the second-best part is taken instead half
// the time.  conn (zero, k entries) and touched are scratch.
std::vector<int> grow_union(const Graph &sym, const std::vector<int> &part, const std::vector<std::vector<int>> &members,
                            int A, int group, Rng *mix, std::vector<double> &conn, std::vector<int> &touched) {
    std::vector<int> U{A};
    std::vector<char> in(members.size(), 0);
    in[A] = 1;
    while (static_cast<int>(U.size()) < group) {
        touched.clear();
        for (int P : U)
            for (int v : members[P])
                for (int64_t e = sym.begin(v); e < sym.end(v); ++e) {
                    const int q = part[sym.target(e)];
                    if (in[q]) continue;
                    if (conn[q] == 0.0) touched.push_back(q);
                    conn[q] += sym.weight(e);
                }
        int best = -1, second = -1;
        for (int q : touched) {
            if (best < 0 || conn[q] > conn[best] || (conn[q] == conn[best] && q < best)) {
                second = best;
                best = q;
            } else if (second < 0 || conn[q] > conn[second] || (conn[q] == conn[second] && q < second)) {
                second = q;
            }
        }
        for (int q : touched) conn[q] = 0.0;
        if (mix && second >= 0 && mix->below(2) == 1) best = second;
        if (best < 0) break;
        U.push_back(best);
        in[best] = 1;
    }
    return U;
}

// Fingerprint of a union's parts and their members (FNV-1a style).
uint64_t union_hash(const std::vector<int> &U, const std::vector<std::vector<int>> &members) {
    uint64_t h = 0x9ae16a3b2f90404fULL;
    for (int P : U) {
        std::vector<int> ms = members[P];
        std::sort(ms.begin(), ms.end());
        h = (h ^ static_cast<uint64_t>(P + 1)) * 0x100000001b3ULL;
        for (int v : ms) h = (h ^ static_cast<uint64_t>(v + 1)) * 0x100000001b3ULL;
    }
    return h;
}

// The union U (grown from part A) re-partitioned by METIS with
// union_tries seeds, each polished by chain_level; the best replaces the
// union's parts (part, members) when its internal cut is lower.  `local`
// (n entries, -1) is scratch.  Returns the cut decrease.
double resplit_union(const Graph &sym, const std::vector<int> &U, int A, uint64_t seed, std::vector<int> &part,
                     std::vector<std::vector<int>> &members, std::vector<int> &local, const KwayContext &kc) {
    const int m = static_cast<int>(U.size());
    std::vector<int> verts, cur, sizes;
    for (int c = 0; c < m; ++c) {
        sizes.push_back(static_cast<int>(members[U[c]].size()));
        for (int v : members[U[c]]) {
            verts.push_back(v);
            cur.push_back(c);
        }
    }
    Graph sub = sym.induced(verts, local);
    for (int v : verts) local[v] = -1;
    const Level L = level_of(sub);
    const double c0 = cut_level(L, cur);
    double bc = c0;
    std::vector<int> best;
    const int tries = kc.union_tries;
    for (int t = 0; t < tries; ++t) {
        std::vector<int> cand;
        try {
            cand = partition_graph(sub, m, seed + 104729ULL * (static_cast<uint64_t>(A) * tries + t + 1), sizes);
        } catch (const Error &) {
            continue;  // METIS declined this union: the current split stays
        }
        chain_level(L, m, cand, kc);
        const double c = cut_level(L, cand);
        if (c < bc - 1e-9 * (1 + bc)) {
            bc = c;
            best = std::move(cand);
        }
    }
    if (best.empty()) return 0;
    for (int c = 0; c < m; ++c) members[U[c]].clear();
    for (size_t i = 0; i < verts.size(); ++i) {
        part[verts[i]] = U[best[i]];
        members[U[best[i]]].push_back(verts[i]);
    }
    return c0 - bc;
}

// Large-neighbourhood step: for every part A, the union of A and the
// (group - 1) parts most connected to it (grow_union) is partitioned
// afresh (resplit_union).  Edges leaving the union are cut whatever the
// union's split, so the whole cut falls by the same amount.  A union with
// the same members as when last tried (memo) is skipped.  Returns the cut
// decrease.
double regroup_unions(const Graph &sym, int k, std::vector<int> &part, int group, uint64_t seed,
                      std::vector<uint64_t> &memo, Rng *mix, const Deadline &dl, const KwayContext &kc) {
    memo.resize(k, 0);
    const int n = sym.n();
    std::vector<std::vector<int>> members(k);
    for (int v = 0; v < n; ++v) members[part[v]].push_back(v);
    std::vector<double> conn(k, 0.0);
    std::vector<int> touched, local(n, -1);
    double total = 0;
    for (int A = 0; A < k && !dl.expired(); ++A) {
        const std::vector<int> U = grow_union(sym, part, members, A, group, mix, conn, touched);
        if (U.size() < 2) continue;
        const uint64_t h = union_hash(U, members);
        if (memo[A] == h) continue;
        memo[A] = h;
        total += resplit_union(sym, U, A, seed, part, members, local, kc);
    }
    return total;
}

} // namespace

double kway_refine_exact(const Graph &sym, int nparts, std::vector<int> &part, uint64_t seed, int cycles, int group,
                         const Deadline &dl, const KwayContext &kc) {
    const int n = sym.n();
    if (static_cast<int>(part.size()) != n)
        throw Error("k-way refinement: partition of " + std::to_string(part.size()) + " vertices for a graph of " +
                        std::to_string(n),
                    ErrorKind::Internal);
    if (n == 0 || nparts < 2) return 0;
    std::vector<int> target(nparts, 0);
    for (int v = 0; v < n; ++v) {
        if (part[v] < 0 || part[v] >= nparts)
            throw Error("k-way refinement: vertex " + std::to_string(v) + " in part " + std::to_string(part[v]) +
                            ", outside 0.." + std::to_string(nparts - 1),
                        ErrorKind::Internal);
        ++target[part[v]];
    }
    const int largest = *std::max_element(target.begin(), target.end());
    // Coarse vertices at most a share of a part: they can still move.
    const int max_vw = std::max(1, largest / kc.coarse_part_divisor);
    const Level fine = level_of(sym);
    const double before = cut_level(fine, part);
    Rng rng = rng_stream(seed, 0x6b3a, StreamMix::Lcg);
    std::vector<uint64_t> memo;
    for (int cyc = 0; cyc < cycles && !dl.expired(); ++cyc) {
        const double c0 = cut_level(fine, part);
        if (group >= 2 && cyc > 0)
            regroup_unions(sym, nparts, part, group, seed + cyc, memo, cyc > 1 ? &rng : nullptr, dl, kc);
        std::vector<Level> lv;
        lv.push_back(fine);
        std::vector<std::vector<int>> parts{part};
        while (lv.back().n > kc.coarsest_per_part * nparts) {
            Level c = coarsen(lv.back(), parts.back(), rng, max_vw);
            if (c.n > kc.min_coarsening * lv.back().n) {
                lv.back().up.clear();
                break;
            }
            std::vector<int> cp(c.n);
            for (int v = 0; v < lv.back().n; ++v) cp[lv.back().up[v]] = parts.back()[v];
            lv.push_back(std::move(c));
            parts.push_back(std::move(cp));
        }
        for (int l = static_cast<int>(lv.size()) - 1; l >= 0; --l) {
            if (l + 1 < static_cast<int>(lv.size()))
                for (int v = 0; v < lv[l].n; ++v) parts[l][v] = parts[l + 1][lv[l].up[v]];
            chain_level(lv[l], nparts, parts[l], kc);
        }
        part = parts[0];
        const double c1 = cut_level(fine, part);
        if (c0 - c1 < kc.min_cycle_gain * c0) break;
    }
    return before - cut_level(fine, part);
}

std::vector<int> refine_node_tier(const Problem &p, const std::vector<int> &place, uint64_t seed, int cycles,
                                  int group, const Deadline &dl, const KwayContext &kc) {
    const TreeTopology *tree = as_tree(p.topo);
    const int N = p.sym.n();
    if (!tree || tree->dims().empty() || tree->dims()[0] < 2) return place;
    const std::vector<int> &ar = tree->dims();
    int span0 = 1;
    for (size_t k = 1; k < ar.size(); ++k) span0 *= ar[k];
    const int G = ar[0];
    std::vector<int> part(N);
    for (int t = 0; t < N; ++t) {
        if (place[t] < 0) return place;  // partial placements: not ours
        part[t] = place[t] / span0;
    }
    std::vector<int> before = part;
    if (kway_refine_exact(p.sym, G, part, seed, cycles, group, dl, kc) <= 0) return place;
    std::vector<int> c0(G, 0), c1(G, 0);
    for (int t = 0; t < N; ++t) {
        ++c0[before[t]];
        ++c1[part[t]];
    }
    if (c0 != c1) throw Error("node-tier refinement changed a node's task count", ErrorKind::Internal);
    // Leaves freed in every node, then given to the arrivals (task order).
    std::vector<std::vector<int>> freed(G);
    for (int t = 0; t < N; ++t)
        if (part[t] != before[t]) freed[before[t]].push_back(place[t]);
    std::vector<size_t> next(G, 0);
    std::vector<int> out = place;
    for (int t = 0; t < N; ++t)
        if (part[t] != before[t]) out[t] = freed[part[t]][next[part[t]]++];
    return out;
}

} // namespace rankmap

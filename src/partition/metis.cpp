// metis.cpp -- graph partitioning with METIS 5 (Debian libmetis-dev; idx_t
// is 32-bit there, checked below) into parts of EXACT target sizes, as the
// divide-and-conquer mapper of Bhanot et al. (BG/L task layout) Figure 4 ("Use
// METIS to divide S") and the UMT-like generator need.
//
// Steps:
//   1. Trivial cases without METIS: one part, no more vertices than parts,
//      graphs without edges (contiguous blocks of the target sizes).
//   2. METIS_PartGraphRecursive (for any number of parts), with
//      the target sizes as tpwgts, METIS_OPTION_SEED from the seed and
//      integer edge weights (doubles scaled so the total stays below 2^29,
//      every positive weight at least 1).  Parts of size 0 are left out.
//   3. METIS balances only to a tolerance, so a deterministic fix-up makes
//      the sizes exact: in rounds, every vertex of an over-full part that
//      touches an under-full part proposes its cheapest move (largest
//      connection gain); moves are applied best-first while the source is
//      still over and the target still under.  Whatever remains (over-full
//      parts with no under-full neighbour) is moved, lowest internal
//      connection first, to the under-full part it is most connected to (or
//      the first with room).
// Cost: METIS's O(E log k) plus O(E) per fix-up round (at most 8 rounds)
// and O(n log n) for the final pass.
#include "partition/partition.hpp"

#include <metis.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "common/error.hpp"
#include "partition/csr_partition.hpp"

static_assert(sizeof(idx_t) == 4 || sizeof(idx_t) == 8, "unexpected METIS idx_t width");

namespace rankmap {
namespace detail {

namespace {

std::vector<int> target_sizes(int n, int nparts, const std::vector<int> &sizes) {
    if (nparts < 1) throw Error("partition: number of parts must be positive, got " + std::to_string(nparts));
    std::vector<int> t(nparts);
    if (sizes.empty()) {
        for (int p = 0; p < nparts; ++p) t[p] = n / nparts + (p < n % nparts ? 1 : 0);
        return t;
    }
    if (static_cast<int>(sizes.size()) != nparts)
        throw Error("partition: " + std::to_string(sizes.size()) + " target sizes given for " +
                    std::to_string(nparts) + " parts");
    int64_t sum = 0;
    for (int s : sizes) {
        if (s < 0) throw Error("partition: negative target size " + std::to_string(s));
        sum += s;
    }
    if (sum != n)
        throw Error("partition: target sizes sum to " + std::to_string(sum) + " but the graph has " +
                    std::to_string(n) + " vertices");
    return sizes;
}

const char *metis_status(int st) {
    switch (st) {
    case METIS_ERROR_INPUT: return "input error";
    case METIS_ERROR_MEMORY: return "out of memory";
    default: return "error";
    }
}

// Step 3: make part sizes equal to `target`.  Greedy rounds move vertices
// of over-full parts to the under-full neighbour part they are most
// connected to; a final pass empties what is still over-full.
class SizeFixer {
public:
    SizeFixer(int n, const std::vector<int64_t> &xadj, const std::vector<int> &adj, const std::vector<int64_t> &w,
              const std::vector<int> &target, std::vector<int> &part)
        : n_(n), k_(static_cast<int>(target.size())), xadj_(xadj), adj_(adj), w_(w), target_(target), part_(part),
          size_(k_, 0), conn_(k_, 0) {
        for (int v = 0; v < n; ++v) ++size_[part[v]];
    }

    void run() {
        for (int round = 0; round < 8 && over_exists(); ++round)
            if (!greedy_round()) break;
        if (over_exists()) final_pass();
    }

private:
    struct Move {
        int64_t gain;
        int v;
        int to;
    };

    int64_t wt(int64_t e) const { return w_.empty() ? int64_t(1) : w_[e]; }

    bool over_exists() const {
        for (int p = 0; p < k_; ++p)
            if (size_[p] > target_[p]) return true;
        return false;
    }

    // conn_[q] = v's edge weight into part q for every q in touched_.
    void gather(int v) {
        touched_.clear();
        for (int64_t e = xadj_[v]; e < xadj_[v + 1]; ++e) {
            const int q = part_[adj_[e]];
            if (conn_[q] == 0) touched_.push_back(q);
            conn_[q] += wt(e);
        }
    }

    void release() {
        for (int q : touched_) conn_[q] = 0;
    }

    // One round of the best moves out of over-full parts; false when none applies.
    bool greedy_round() {
        std::vector<Move> moves;
        for (int v = 0; v < n_; ++v) {
            const int p = part_[v];
            if (size_[p] <= target_[p]) continue;
            gather(v);
            int best = -1;
            int64_t best_gain = 0;
            for (int q : touched_) {
                if (q == p || size_[q] >= target_[q]) continue;
                const int64_t g = conn_[q] - conn_[p];
                if (best < 0 || g > best_gain || (g == best_gain && q < best)) {
                    best = q;
                    best_gain = g;
                }
            }
            release();
            if (best >= 0) moves.push_back({best_gain, v, best});
        }
        if (moves.empty()) return false;
        std::sort(moves.begin(), moves.end(), [](const Move &a, const Move &b) {
            return a.gain != b.gain ? a.gain > b.gain : a.v < b.v;
        });
        int applied = 0;
        for (const Move &m : moves) {
            const int p = part_[m.v];
            if (size_[p] > target_[p] && size_[m.to] < target_[m.to]) {
                part_[m.v] = m.to;
                --size_[p];
                ++size_[m.to];
                ++applied;
            }
        }
        return applied > 0;
    }

    // Over-full parts without an under-full neighbour.
    void final_pass() {
        std::vector<std::vector<int>> members(k_);
        for (int v = 0; v < n_; ++v)
            if (size_[part_[v]] > target_[part_[v]]) members[part_[v]].push_back(v);
        int first_room = 0;
        for (int p = 0; p < k_; ++p) {
            if (size_[p] <= target_[p]) continue;
            // (internal connection - best connection to a part with room, v, q)
            std::vector<std::tuple<int64_t, int, int>> cand;
            for (int v : members[p]) {
                gather(v);
                int best = -1;
                int64_t best_conn = 0;
                for (int q : touched_)
                    if (q != p && size_[q] < target_[q] && (best < 0 || conn_[q] > best_conn)) {
                        best = q;
                        best_conn = conn_[q];
                    }
                cand.emplace_back(conn_[p] - best_conn, v, best);
                release();
            }
            std::sort(cand.begin(), cand.end());
            for (const auto &c : cand) {
                if (size_[p] <= target_[p]) break;
                int q = std::get<2>(c);
                if (q < 0 || size_[q] >= target_[q]) {
                    while (first_room < k_ && size_[first_room] >= target_[first_room]) ++first_room;
                    q = first_room;
                }
                if (q >= k_) throw Error("partition: size fix-up found no part with room", ErrorKind::Internal);
                part_[std::get<1>(c)] = q;
                --size_[p];
                ++size_[q];
            }
        }
    }

    const int n_, k_;
    const std::vector<int64_t> &xadj_;
    const std::vector<int> &adj_;
    const std::vector<int64_t> &w_;
    const std::vector<int> &target_;
    std::vector<int> &part_;
    std::vector<int> size_;
    std::vector<int64_t> conn_;
    std::vector<int> touched_;
};

void fix_sizes(int n, const std::vector<int64_t> &xadj, const std::vector<int> &adj,
               const std::vector<int64_t> &w, const std::vector<int> &target, std::vector<int> &part) {
    SizeFixer(n, xadj, adj, w, target, part).run();
}

} // namespace

std::vector<int> partition_csr(int n, const std::vector<int64_t> &xadj, const std::vector<int> &adj,
                               const std::vector<int64_t> &w, int nparts, uint64_t seed,
                               const std::vector<int> &sizes) {
    const std::vector<int> target = target_sizes(n, nparts, sizes);
    std::vector<int> part(n, 0);
    // Parts that receive vertices at all.
    std::vector<int> active;
    for (int p = 0; p < nparts; ++p)
        if (target[p] > 0) active.push_back(p);
    const int k = static_cast<int>(active.size());
    if (n == 0 || k <= 1) {
        std::fill(part.begin(), part.end(), k == 1 ? active[0] : 0);
        return part;
    }
    const int64_t nedges = xadj[n];
    if (k == n || nedges == 0) {  // one vertex per part, or nothing to cut
        int v = 0;
        for (int p : active)
            for (int i = 0; i < target[p]; ++i) part[v++] = p;
        return part;
    }
    if (nedges > static_cast<int64_t>(std::numeric_limits<idx_t>::max()))
        throw Error("partition: graph with " + std::to_string(nedges) + " adjacency entries is too large for METIS");

    std::vector<idx_t> mx(xadj.begin(), xadj.end());
    std::vector<idx_t> madj(adj.begin(), adj.end());
    std::vector<idx_t> mw;
    if (!w.empty()) {
        mw.resize(w.size());
        for (size_t e = 0; e < w.size(); ++e) {
            if (w[e] < 1 || w[e] > std::numeric_limits<idx_t>::max())
                throw Error("partition: edge weight " + std::to_string(w[e]) + " out of METIS's range",
                            ErrorKind::Internal);
            mw[e] = static_cast<idx_t>(w[e]);
        }
    }
    std::vector<real_t> tpw(k);
    double acc = 0;
    for (int i = 0; i < k; ++i) {
        tpw[i] = static_cast<real_t>(static_cast<double>(target[active[i]]) / n);
        acc += tpw[i];
    }
    tpw[k - 1] = static_cast<real_t>(tpw[k - 1] + (1.0 - acc));  // sum exactly ~1
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = static_cast<idx_t>(seed % static_cast<uint64_t>(INT_MAX));
    options[METIS_OPTION_NUMBERING] = 0;
    idx_t nv = n, ncon = 1, np = k, objval = 0;
    std::vector<idx_t> mpart(n, 0);
    // Recursive bisection for every k: on our meshes it cuts less than
    // k-way and, with many small parts (UMT-like: 32768 parts of 64 points),
    // is much faster -- k-way stops coarsening at ~30 vertices per part.
    const int st = METIS_PartGraphRecursive(&nv, &ncon, mx.data(), madj.data(), nullptr, nullptr,
                                            mw.empty() ? nullptr : mw.data(), &np, tpw.data(), nullptr,
                                            options, &objval, mpart.data());
    if (st != METIS_OK)
        throw Error(std::string("partition: METIS failed (") + metis_status(st) + ") on a graph of " +
                        std::to_string(n) + " vertices into " + std::to_string(k) + " parts",
                    ErrorKind::Internal);
    for (int v = 0; v < n; ++v) {
        if (mpart[v] < 0 || mpart[v] >= k) throw Error("partition: METIS returned a bad part", ErrorKind::Internal);
        part[v] = active[mpart[v]];
    }
    fix_sizes(n, xadj, adj, w, target, part);
    return part;
}

} // namespace detail

std::vector<int> partition_graph(const Graph &sym, int nparts, uint64_t seed, const std::vector<int> &sizes) {
    const int n = sym.n();
    // Integer weights: keep integral weights when their total is small,
    // otherwise scale so the total stays below 2^29; positive -> at least 1.
    double total = 0, maxw = 0;
    bool integral = true;
    for (double x : sym.weights()) {
        if (x <= 0) continue;
        total += x;
        maxw = std::max(maxw, x);
        if (x != std::floor(x)) integral = false;
    }
    const double limit = static_cast<double>(1 << 29);
    double scale = 1;
    if (!integral || total > limit) scale = std::min(limit / total, 1e6 / maxw);
    std::vector<int64_t> xadj(static_cast<size_t>(n) + 1, 0);
    std::vector<int> adj;
    std::vector<int64_t> w;
    adj.reserve(static_cast<size_t>(sym.nedges()));
    w.reserve(static_cast<size_t>(sym.nedges()));
    for (int v = 0; v < n; ++v) {
        for (int64_t e = sym.begin(v); e < sym.end(v); ++e) {
            const double x = sym.weight(e);
            if (x <= 0 || sym.target(e) == v) continue;  // zero weights do not count as edges
            adj.push_back(sym.target(e));
            w.push_back(std::max<int64_t>(1, std::llround(x * scale)));
        }
        xadj[v + 1] = static_cast<int64_t>(adj.size());
    }
    return detail::partition_csr(n, xadj, adj, w, nparts, seed, sizes);
}

std::vector<int> bisect_graph(const Graph &sym, int size0, uint64_t seed) {
    if (size0 < 0 || size0 > sym.n())
        throw Error("bisect: first part size " + std::to_string(size0) + " outside [0, " +
                    std::to_string(sym.n()) + "]");
    return partition_graph(sym, 2, seed, {size0, sym.n() - size0});
}

} // namespace rankmap

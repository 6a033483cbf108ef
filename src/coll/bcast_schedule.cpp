// bcast_schedule.cpp -- multi-colour pipelined broadcast along the lines of a
// torus or mesh (Almasi et al. (MPI on BG/L) section 5.3: the BG/L optimized
// torus broadcast; one colour per link direction as in its BG/P-BG/Q
// "rectangle" successors).
//
// Construction.  Let n be the number of dimensions of extent >= 2 and, for a
// node P and the root R, delta_k(P) its offset from R in dimension k (taken
// in the colour's direction s and modulo the extent on a torus, signed on a
// mesh).  Colour (d, s) walks the dimensions in the order d, d+1, ..., d+n-1
// (mod n).  A node P != R receives colour (d, s)
//   - if delta_d(P) != 0: from P - s*e_k, k the LAST dimension of the walk
//     with delta_k(P) != 0 -- the classic line-by-line broadcast: stage i of
//     the walk spreads the part along the i-th dimension from every node
//     reached so far (on a mesh, lines run both ways: from P - sgn(delta_k)e_k);
//   - if delta_d(P) == 0 (P lies in the root's hyperplane orthogonal to d):
//     from its neighbour P - s*e_d across that hyperplane (on a torus: the
//     wrap-around link that a one-way ring broadcast leaves idle; on a mesh:
//     the neighbour P + e_d, or P - e_d at the upper border), "stage n".
// Parent chains end at R: from delta_d != 0 every step lowers the last
// non-zero offset of the walk and dimension d, first in the walk, is lowered
// last; the closing hop lands on delta_d != 0.  Link disjointness: with D(P)
// the dimensions where delta(P) != 0, P receives colour d over dimension
// sigma_P(d) = d if d is not in D(P), else the cyclic predecessor of d within
// D(P).  sigma_P is a permutation of the dimensions, so the n colours of one
// direction (torus) or the n mesh colours arrive on n different incoming
// links, the 2n torus colours on 2n different ones: every directed link
// carries at most one colour over the whole broadcast, each node gets
// 1/(2n) of the message per incoming torus link (1/n per mesh dimension), and
// in the synchronous pipeline (segment j crosses the link into a node of
// depth h at round j+h-1) each link carries one segment per round.
//
// Cost: building the tree of one rank is O(n) per colour and neighbour, a
// rank's plan O(n^2 * colours); depth <= sum(extent-1) + 1 (torus) or + 2
// (mesh); with S segments of size m per colour and link bandwidth B the
// broadcast takes about (S + depth - 1) * m / B, approaching bytes / (2n B)
// on a torus and bytes / (n B) on a mesh.
#include "coll/bcast_schedule.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "common/error.hpp"

namespace rankmap {
namespace coll {

namespace {
std::string box_name(const std::vector<int> &e) {
    std::string s;
    for (size_t i = 0; i < e.size(); ++i) s += (i ? "x" : "") + std::to_string(e[i]);
    return s;
}
} // namespace

TorusBcast::TorusBcast(const std::vector<int> &extents, const std::vector<bool> &wrap,
                       const std::vector<int> &coords)
    : extent_(extents), wrap_(wrap) {
    const int nd = (int)extents.size();
    if (nd < 1 || nd > RANKMAP_TBCAST_MAX_DIMS)
        throw Error("torus broadcast: ndims=" + std::to_string(nd) + " (must be 1.." +
                    std::to_string(RANKMAP_TBCAST_MAX_DIMS) + ")");
    if ((int)wrap.size() != nd)
        throw Error("torus broadcast: wrap flags for " + std::to_string(wrap.size()) +
                    " dimensions, extents for " + std::to_string(nd));
    long long n = 1;
    for (int d = 0; d < nd; ++d) {
        if (extents[d] < 1)
            throw Error("torus broadcast: extent " + std::to_string(extents[d]) +
                        " of dimension " + std::to_string(d) + " (must be >= 1)");
        n *= extents[d];
        if (n > (1LL << 30)) throw Error("torus broadcast: box " + box_name(extents) + " too large");
    }
    nranks_ = (int)n;
    if ((long long)coords.size() != n * nd)
        throw Error("torus broadcast: " + std::to_string(coords.size() / nd) +
                    " coordinate tuples for the " + std::to_string(n) + " points of box " +
                    box_name(extents) + " (the communicator must cover the full box)");
    coords_ = coords;
    rank_of_.assign(n, -1);
    for (int r = 0; r < nranks_; ++r) {
        long long idx = 0;
        for (int d = 0; d < nd; ++d) {
            int c = coords[(size_t)r * nd + d];
            if (c < 0 || c >= extents[d])
                throw Error("torus broadcast: rank " + std::to_string(r) + " coordinate " +
                            std::to_string(c) + " in dimension " + std::to_string(d) +
                            " outside 0.." + std::to_string(extents[d] - 1));
            idx = idx * extents[d] + c;
        }
        if (rank_of_[idx] != -1)
            throw Error("torus broadcast: ranks " + std::to_string(rank_of_[idx]) + " and " +
                        std::to_string(r) + " have the same coordinates");
        rank_of_[idx] = r;
    }
    for (int d = 0; d < nd; ++d)
        if (extents[d] >= 2) active_.push_back(d);
    // Torus colours need two distinct neighbours and a wrap link in every
    // dimension; an extent-2 or open dimension makes the whole box a mesh.
    torus_ = !active_.empty();
    for (int d : active_)
        if (!wrap[d] || extents[d] < 3) torus_ = false;
}

int TorusBcast::colours(int requested) const {
    const int m = max_colours();
    if (m == 0) return 0;
    if (requested < 0) throw Error("torus broadcast: colours=" + std::to_string(requested));
    if (requested == 0 || requested > m) return m;
    return requested;
}

TorusBcast::Colour TorusBcast::colour_desc(int c) const {
    const int n = (int)active_.size();
    if (torus_) return Colour{active_[c % n], c < n ? +1 : -1, c % n};
    return Colour{active_[c], 0, c};
}

int TorusBcast::rank_at(const int *c) const {
    long long idx = 0;
    for (size_t d = 0; d < extent_.size(); ++d) idx = idx * extent_[d] + c[d];
    return rank_of_[idx];
}

int TorusBcast::parent(int colour, int root, int rank, int *stage) const {
    const int nd = ndims(), n = (int)active_.size();
    const Colour col = colour_desc(colour);
    const int *P = &coords_[(size_t)rank * nd], *R = &coords_[(size_t)root * nd];
    int delta[RANKMAP_TBCAST_MAX_DIMS] = {0};
    bool any = false;
    for (int d : active_) {
        int x = P[d] - R[d];
        if (torus_) x = ((col.sign * x) % extent_[d] + extent_[d]) % extent_[d];
        delta[d] = x;
        any = any || x != 0;
    }
    if (!any) {
        if (stage) *stage = -1;
        return -1;
    }
    int Q[RANKMAP_TBCAST_MAX_DIMS];
    std::memcpy(Q, P, sizeof(int) * nd);
    if (delta[col.dim] == 0) { // closing stage: across the root's hyperplane
        const int d = col.dim;
        if (torus_)
            Q[d] = (P[d] - col.sign + extent_[d]) % extent_[d];
        else
            Q[d] = P[d] + 1 < extent_[d] ? P[d] + 1 : P[d] - 1;
        if (stage) *stage = n;
        return rank_at(Q);
    }
    for (int i = n - 1; i >= 0; --i) {
        const int k = active_[(col.pos + i) % n];
        if (delta[k] == 0) continue;
        if (torus_)
            Q[k] = (P[k] - col.sign + extent_[k]) % extent_[k];
        else
            Q[k] = P[k] - (delta[k] > 0 ? 1 : -1);
        if (stage) *stage = i;
        return rank_at(Q);
    }
    return -1; // unreachable
}

int TorusBcast::depth_of(int colour, int root, int rank) const {
    int h = 0;
    for (int r = rank; r != root; r = parent(colour, root, r, nullptr)) {
        if (++h > nranks_) throw Error("torus broadcast: internal error, cycle in a tree", ErrorKind::Internal);
    }
    return h;
}

int TorusBcast::depth() const {
    int h = 0;
    for (int d : active_) h += extent_[d] - 1;
    return active_.empty() ? 0 : h + (torus_ ? 1 : 2);
}

size_t TorusBcast::default_segment(size_t bytes, int colours_req, size_t min_segment) const {
    const int c = colours(colours_req);
    if (c == 0 || bytes == 0) return min_segment ? min_segment : 1;
    const size_t per_colour = (bytes + c - 1) / c;
    const size_t nseg = 8 * (size_t)std::max(1, depth());
    size_t seg = (per_colour + nseg - 1) / nseg;
    seg = (seg + 63) / 64 * 64;
    seg = std::min(seg, (size_t)1 << 20);
    return std::max(seg, std::max(min_segment, (size_t)1));
}

std::vector<ColourPlan> TorusBcast::plan(int rank, int root, size_t bytes, size_t segment,
                                         int colours_req) const {
    if (rank < 0 || rank >= nranks_)
        throw Error("torus broadcast: rank " + std::to_string(rank) + " outside 0.." +
                    std::to_string(nranks_ - 1));
    if (root < 0 || root >= nranks_)
        throw Error("torus broadcast: root " + std::to_string(root) + " outside 0.." +
                    std::to_string(nranks_ - 1));
    const int C = colours(colours_req);
    if (segment == 0) segment = default_segment(bytes, C, 4096);
    const int nd = ndims(), n = (int)active_.size();
    std::vector<ColourPlan> out;
    for (int c = 0; c < C; ++c) {
        const Colour col = colour_desc(c);
        ColourPlan p;
        std::memset(&p, 0, sizeof p);
        p.colour = c;
        p.dim = col.dim;
        p.sign = col.sign;
        // balanced parts: colour c owns [c*bytes/C, (c+1)*bytes/C)
        const unsigned long long b = bytes;
        p.offset = (size_t)(b / C * c + (b % C) * c / C);
        const size_t end = (size_t)(b / C * (c + 1) + (b % C) * (c + 1) / C);
        p.length = end - p.offset;
        p.segment = segment;
        p.nsegments = (p.length + segment - 1) / segment;
        p.parent = parent(c, root, rank, &p.parent_stage);
        p.depth = depth_of(c, root, rank);
        // children: neighbours whose parent in this colour is `rank`
        const int *P = &coords_[(size_t)rank * nd];
        int Q[RANKMAP_TBCAST_MAX_DIMS];
        for (int i = 0; i < n; ++i) {
            const int k = active_[(col.pos + i) % n]; // walk order
            for (int t : {+1, -1}) {
                if (torus_ && t != col.sign) continue;
                std::memcpy(Q, P, sizeof(int) * nd);
                if (torus_) {
                    Q[k] = (P[k] + t + extent_[k]) % extent_[k];
                } else {
                    Q[k] = P[k] + t;
                    if (Q[k] < 0 || Q[k] >= extent_[k]) continue;
                }
                const int q = rank_at(Q);
                int st;
                if (q == rank || parent(c, root, q, &st) != rank) continue;
                bool dup = false;
                for (int j = 0; j < p.nchildren; ++j) dup = dup || p.children[j] == q;
                if (dup) continue;
                p.children[p.nchildren] = q;
                p.child_stage[p.nchildren] = st;
                ++p.nchildren;
            }
        }
        out.push_back(p);
    }
    return out;
}

std::vector<BcastOp> TorusBcast::ops(int rank, int root, size_t bytes, size_t segment,
                                     int colours_req) const {
    std::vector<BcastOp> v;
    for (const ColourPlan &p : plan(rank, root, bytes, segment, colours_req)) {
        for (size_t j = 0; j < p.nsegments; ++j) {
            const size_t off = p.offset + j * p.segment;
            const size_t len = std::min(p.segment, p.offset + p.length - off);
            if (p.parent >= 0)
                v.push_back(BcastOp{RANKMAP_TBCAST_RECV, p.parent, off, len, p.colour,
                                    p.parent_stage, (long)j + p.depth - 1, (long)j});
            for (int i = 0; i < p.nchildren; ++i)
                v.push_back(BcastOp{RANKMAP_TBCAST_SEND, p.children[i], off, len, p.colour,
                                    p.child_stage[i], (long)j + p.depth, (long)j});
        }
    }
    std::stable_sort(v.begin(), v.end(), [](const BcastOp &a, const BcastOp &b) {
        if (a.step != b.step) return a.step < b.step;
        if (a.kind != b.kind) return a.kind == RANKMAP_TBCAST_RECV;
        if (a.colour != b.colour) return a.colour < b.colour;
        return a.peer < b.peer;
    });
    return v;
}

} // namespace coll
} // namespace rankmap

// ---- the C interface (torus_bcast.h) ----------------------------------------
using rankmap::Error;
using rankmap::ErrorKind;
using rankmap::coll::TorusBcast;

struct rankmap_tbcast_s {
    TorusBcast impl;
};

namespace {
void set_err(char *buf, size_t len, const char *msg) {
    if (buf && len) {
        std::strncpy(buf, msg, len - 1);
        buf[len - 1] = '\0';
    }
}
template <class F> int guarded(char *errbuf, size_t errlen, F f) {
    try {
        f();
        set_err(errbuf, errlen, "");
        return RANKMAP_OK;
    } catch (const Error &e) {
        set_err(errbuf, errlen, e.what());
        return e.kind() == ErrorKind::Internal ? RANKMAP_ERR_INTERNAL : RANKMAP_ERR_INVALID;
    } catch (const std::bad_alloc &) {
        set_err(errbuf, errlen, "torus broadcast: out of memory");
        return RANKMAP_ERR_NOMEM;
    } catch (const std::exception &e) {
        set_err(errbuf, errlen, e.what());
        return RANKMAP_ERR_INTERNAL;
    }
}
} // namespace

extern "C" {

int rankmap_tbcast_create(int ndims, const int *extents, const int *wrap, int nranks,
                          const int *coords, rankmap_tbcast **out, char *errbuf,
                          size_t errlen) {
    return guarded(errbuf, errlen, [&] {
        if (!out || !extents || !wrap || !coords || ndims < 1 || ndims > RANKMAP_TBCAST_MAX_DIMS || nranks < 1)
            throw Error("rankmap_tbcast_create: NULL pointer, ndims outside 1..6 or nranks < 1");
        std::vector<int> e(extents, extents + ndims);
        std::vector<bool> w(ndims);
        for (int d = 0; d < ndims; ++d) w[d] = wrap[d] != 0;
        std::vector<int> c(coords, coords + (size_t)nranks * ndims);
        *out = new rankmap_tbcast_s{TorusBcast(e, w, c)};
    });
}

void rankmap_tbcast_free(rankmap_tbcast *s) { delete s; }
int rankmap_tbcast_nranks(const rankmap_tbcast *s) { return s ? s->impl.nranks() : 0; }
int rankmap_tbcast_is_torus(const rankmap_tbcast *s) { return s && s->impl.torus(); }
int rankmap_tbcast_max_colours(const rankmap_tbcast *s) { return s ? s->impl.max_colours() : 0; }
int rankmap_tbcast_colours(const rankmap_tbcast *s, int req) {
    return s && req >= 0 ? s->impl.colours(req) : 0;
}
int rankmap_tbcast_depth(const rankmap_tbcast *s) { return s ? s->impl.depth() : 0; }
size_t rankmap_tbcast_default_segment(const rankmap_tbcast *s, size_t bytes, int colours,
                                      size_t min_segment) {
    return s && colours >= 0 ? s->impl.default_segment(bytes, colours, min_segment) : 0;
}

int rankmap_tbcast_plan(const rankmap_tbcast *s, int rank, int root, size_t bytes,
                        size_t segment, int colours, rankmap_tbcast_colour *out,
                        int *ncolours, char *errbuf, size_t errlen) {
    return guarded(errbuf, errlen, [&] {
        if (!s || !out || !ncolours) throw Error("rankmap_tbcast_plan: NULL argument");
        std::vector<rankmap_tbcast_colour> v = s->impl.plan(rank, root, bytes, segment, colours);
        std::copy(v.begin(), v.end(), out);
        *ncolours = (int)v.size();
    });
}

int rankmap_tbcast_ops(const rankmap_tbcast *s, int rank, int root, size_t bytes,
                       size_t segment, int colours, rankmap_tbcast_op *ops, size_t cap,
                       size_t *nops, char *errbuf, size_t errlen) {
    return guarded(errbuf, errlen, [&] {
        if (!s || !nops || (cap && !ops)) throw Error("rankmap_tbcast_ops: NULL argument");
        std::vector<rankmap_tbcast_op> v = s->impl.ops(rank, root, bytes, segment, colours);
        std::copy(v.begin(), v.begin() + std::min(cap, v.size()), ops);
        *nops = v.size();
    });
}

} // extern "C"

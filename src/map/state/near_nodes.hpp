// near_nodes.hpp -- NearNodes: for every node of the machine the K closest
// nodes (itself first), from Topology::nearest, read by the local proposals
// of greedy, annealing and Kernighan-Lin; near_count gives their K.  On a
// torus a list is computed from the node's coordinates and shared offsets
// instead of read.  Building costs P nearest() queries; memory O(P K).
#pragma once
#include <algorithm>
#include <vector>

#include "map/tuning.hpp"
#include "topology/topology.hpp"

namespace rankmap {

class NearNodes {
public:
    NearNodes() = default;
    NearNodes(const Topology &topo, int k) { build(topo, k); }
    void build(const Topology &topo, int k) {
        const int P = topo.size();
        k_ = std::max(1, std::min(k, P));
        list_.assign(static_cast<size_t>(P) * k_, -1);
        std::vector<int> out;
        for (int v = 0; v < P; ++v) {
            topo.nearest(v, k_, out);
            int *row = &list_[static_cast<size_t>(v) * k_];
            int m = 0;
            for (int u : out)
                if (m < k_) row[m++] = u;
            if (m == 0 || row[0] != v) row[0] = v;
            for (; m < k_; ++m) row[m] = row[m % std::max(1, static_cast<int>(out.size()))];
        }
        find_offsets(topo);
    }
    int k() const { return k_; }
    bool computed() const { return nd_ > 0; }  // at() computes instead of reading the list
    const int *of(int node) const { return &list_[static_cast<size_t>(node) * k_]; }
    // The i-th near node of `node`: of(node)[i].  On a torus every list is
    // its node's coordinates plus the same offsets (checked for every node
    // when built), so it is computed instead of read: the annealing chain
    // asks for one near node per proposal, and on large machines the read
    // is a cache miss.
    int at(int node, int i) const {
        if (nd_ == 0) return list_[static_cast<size_t>(node) * k_ + i];
        const unsigned *o = &off_[static_cast<size_t>(i) * nd_];
        auto v = static_cast<unsigned>(node);
        unsigned r = 0;
        for (int d = nd_ - 1; d >= 0; --d) {
            const unsigned n = dim_[d], x = v % n;
            v /= n;
            unsigned y = x + o[d];
            if (y >= n) y -= n;
            r += y * stride_[d];
        }
        return static_cast<int>(r);
    }

private:
    // Offsets from the first node's list; kept only if they give every
    // node's list (nd_ = 0 otherwise: at() reads the list).
    void find_offsets(const Topology &topo) {
        nd_ = 0;
        const int D = topo.ndims(), P = topo.size();
        if (D <= 0 || D > kMaxCoords || P < 2 || static_cast<int>(topo.dims().size()) != D) return;
        std::vector<unsigned> dim(D), stride(D);
        unsigned s = 1;
        for (int d = D - 1; d >= 0; --d) {
            dim[d] = static_cast<unsigned>(topo.dims()[d]);
            stride[d] = s;
            s *= dim[d];
        }
        if (s != static_cast<unsigned>(P)) return;
        std::vector<int> c0(D), c(D);
        topo.coords(0, c0.data());
        off_.assign(static_cast<size_t>(k_) * D, 0);
        for (int i = 0; i < k_; ++i) {
            topo.coords(list_[i], c.data());
            for (int d = 0; d < D; ++d)
                off_[static_cast<size_t>(i) * D + d] = static_cast<unsigned>((c[d] - c0[d] + static_cast<int>(dim[d])) % static_cast<int>(dim[d]));
        }
        dim_ = dim;
        stride_ = stride;
        nd_ = D;
        for (int v = 0; v < P; ++v)
            for (int i = 0; i < k_; ++i)
                if (at(v, i) != list_[static_cast<size_t>(v) * k_ + i]) {
                    nd_ = 0;
                    off_.clear();
                    return;
                }
    }

    int k_ = 0;
    std::vector<int> list_;
    int nd_ = 0;
    std::vector<unsigned> off_, dim_, stride_;
};

// Number of near nodes used by the local proposals: the node, its two
// neighbours per dimension and AnnealContext::near_extra more.
inline int near_count(const Topology &topo) {
    return std::min(topo.size(), 1 + 2 * std::max(1, topo.ndims()) + anneal_preset().near_extra);
}

} // namespace rankmap

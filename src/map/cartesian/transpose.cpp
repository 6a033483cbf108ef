// transpose.cpp -- mirrored-block placements for all-to-all grids and the
// choice among them by the cost model (transpose.hpp).  Cost: O(N * ndims)
// per candidate, at most one candidate per grid dimension, and one
// predict_time() of the cost model per candidate and for the mapper's
// placement.
#include "map/cartesian/transpose.hpp"

#include <algorithm>

#include "cost/cost.hpp"
#include "cost/model.hpp"
#include "topology/placement.hpp"

namespace rankmap {
namespace {

// Halvings that cut the machine (extents n) into `blocks` equal blocks,
// longest dimension first (the lowest index among equals); empty when
// `blocks` is not a power of two or an extent to halve is odd.
bool plan_halvings(std::vector<int> ext, int64_t blocks, std::vector<int> &dims_halved) {
    dims_halved.clear();
    while (blocks > 1) {
        if (blocks % 2) return false;
        int best = -1;
        for (int k = 0; k < static_cast<int>(ext.size()); ++k)
            if (ext[k] % 2 == 0 && (best < 0 || ext[k] > ext[best])) best = k;
        if (best < 0) return false;
        ext[best] /= 2;
        dims_halved.push_back(best);
        blocks /= 2;
    }
    return true;
}

// Node of position p (dimension 0 fastest) in block b: bit j of b chooses
// the half of halving j; the second half runs backwards (a mirror image).
int block_node(const Topology &t, const std::vector<int> &halved, int64_t b, int64_t p) {
    const int D = t.ndims();
    std::vector<int> ext(t.dims().begin(), t.dims().end());
    for (int k : halved) ext[k] /= 2;
    std::vector<int> c(D);
    for (int k = 0; k < D; ++k) {
        c[k] = static_cast<int>(p % ext[k]);
        p /= ext[k];
    }
    // undo the halvings, the last one first, doubling its dimension's extent
    for (int j = static_cast<int>(halved.size()) - 1; j >= 0; --j) {
        const int k = halved[j];
        if ((b >> j) & 1) c[k] = 2 * ext[k] - 1 - c[k];
        ext[k] *= 2;
    }
    return t.node_at(c.data());
}

} // namespace

std::vector<TransposeCandidate> transpose_candidates(const Topology &topo, const std::vector<int> &dims,
                                                     const std::vector<bool> &alltoall) {
    std::vector<TransposeCandidate> out;
    if (topo.kind() != TopologyKind::Torus || dims.size() != alltoall.size()) return out;
    int64_t n = 1;
    for (int d : dims) n *= d;
    if (n != topo.size()) return out;
    const int nd = static_cast<int>(dims.size());
    std::vector<int64_t> stride(nd, 1);
    for (int k = nd - 2; k >= 0; --k) stride[k] = stride[k + 1] * dims[k + 1];
    for (int d = 0; d < nd; ++d) {
        if (!alltoall[d] || dims[d] < 2) continue;
        std::vector<int> halved;
        if (!plan_halvings(topo.dims(), n / dims[d], halved)) continue;
        TransposeCandidate c;
        c.name = "mirrored blocks (lines of dimension " + std::to_string(d) + ")";
        c.place.resize(static_cast<size_t>(n));
        for (int64_t r = 0; r < n; ++r) {
            const int64_t pos = r / stride[d] % dims[d];
            // block: the task's coordinates other than d, row-major
            const int64_t block = r / (stride[d] * dims[d]) * stride[d] + r % stride[d];
            c.place[static_cast<size_t>(r)] = block_node(topo, halved, block, pos);
        }
        out.push_back(std::move(c));
    }
    return out;
}

TransposeCandidate choose_for_alltoall(const Graph &g, const Topology &topo, const std::vector<int> &dims,
                                       const std::vector<bool> &alltoall,
                                       const std::vector<std::vector<int>> &groups, TransposeCandidate mapped) {
    double best_t = bandwidth_time(g, topo, mapped.place, groups);
    double best_f = exchange_F(g, topo, mapped.place, groups);
    TransposeCandidate best = std::move(mapped);
    for (auto &c : transpose_candidates(topo, dims, alltoall)) {
        check_placement(topo, g.n(), c.place);
        const double t = bandwidth_time(g, topo, c.place, groups);
        const double f = exchange_F(g, topo, c.place, groups);
        if (t < best_t || (t == best_t && f < best_f)) {
            best_t = t;
            best_f = f;
            best = std::move(c);
        }
    }
    return best;
}

void prefer_for_alltoall(const Graph &g, const Topology &topo, const std::vector<int> &dims,
                         const std::vector<bool> &alltoall, const std::vector<std::vector<int>> &groups,
                         std::vector<int> &place, CostReport &report, std::string &algorithm) {
    TransposeCandidate best = choose_for_alltoall(g, topo, dims, alltoall, groups, {algorithm, place});
    if (best.place == place) return;
    place = std::move(best.place);
    report = evaluate(g, topo, place);
    algorithm = std::move(best.name);
}

} // namespace rankmap

// multilevel.cpp -- the multilevel start of auto at large sizes: one level
// of coarsening of the task graph and of the machine together, the coarse
// problem mapped by auto itself, the result projected back.
//
// Why: at 65,536 tasks a chain over all tasks gets a few hundred
// proposals per task, enough to repair a layout locally but not to move
// whole regions, so the large-scale layout stays that of its start (the
// graph drawing).  On a machine of blocks of 8 nodes the problem has 8x
// fewer tasks, and auto's own search there (band search, drawing, chains,
// KL at 8192 tasks) gets the large-scale layout right; the fine level only
// has to arrange each group inside its block and repair the seams, which
// is what a cold chain does (Scotch, KaHIP/VieM and Mt-KaHyPar map by
// levels for the same reason).
//
// Steps:
//   1. Blocks: every extent that is even and at least 4 is halved (a
//      block spans 2 nodes there, 1 elsewhere), then the largest again
//      until a block holds MultilevelContext::block nodes (8: 2x2x2 on a
//      3-D torus, 4x2 on a 2-D one); the coarse machine is the torus/mesh
//      of the coarse extents, with the same wrap-around and metric.  At
//      least MultilevelContext::min_block nodes per block.
//   2. Groups: the symmetrized graph partitioned by METIS into N / B parts
//      of exactly B tasks (partition_graph), the least cut between groups.
//   3. Coarse graph: group -> group weights summed over the task edges
//      between them (edges inside a group disappear: they stay inside a
//      block, one or two hops long).
//   4. Coarse map: map_auto with auto_coarse_preset(N / B) -- the quality
//      settings without the cold chain (it costs much of the coarse map's
//      time for no gain there), and the coarse F is what the fine level
//      keeps (doc/tuning.md, "The multilevel path").  Above
//      the multilevel threshold the coarse map is itself multilevel.
//   5. Projection: the tasks of the group on coarse node c, in label
//      order, onto the nodes of c's block in coordinate order.
//
// Cost: METIS's O(E log(N/B)), O(E) for the coarse graph, auto's at N / B
// tasks; memory O(N + E).
#include "map/initial/multilevel.hpp"

#include <algorithm>

#include "partition/partition.hpp"
#include "topology/torus.hpp"

namespace rankmap {

// Block extents: 2 where the extent is even and at least 4, else 1; then,
// while a block holds fewer than c.block nodes, the largest coarse extent
// that is even and at least 4 is halved again (2-D tori: blocks of 4x2).
std::vector<int> multilevel_blocks(const Topology &topo, const MultilevelContext &c, std::string *why) {
    const auto *torus = dynamic_cast<const TorusTopology *>(&topo);
    auto fail = [&](const char *s) {
        if (why) *why = s;
        return std::vector<int>();
    };
    if (!torus) return fail("not a torus or mesh");
    if (torus->has_local()) return fail("a node-local dimension");
    std::vector<int> blk, cd = torus->dims();
    const int nd = static_cast<int>(cd.size());
    auto halves = [&](int k) { return cd[k] % 2 == 0 && cd[k] >= 4; };
    int B = 1;
    for (int k = 0; k < nd; ++k) {
        blk.push_back(halves(k) ? 2 : 1);
        cd[k] /= blk[k];
        B *= blk[k];
    }
    while (B < c.block) {
        int best = -1;
        for (int k = 0; k < nd; ++k)
            if (halves(k) && (best < 0 || cd[k] > cd[best])) best = k;
        if (best < 0) break;
        blk[best] *= 2;
        cd[best] /= 2;
        B *= 2;
    }
    if (B < c.min_block) return fail("too few even extents to halve");
    return blk;
}

std::vector<int> multilevel_start(const Problem &p, const MultilevelContext &c, std::string *why) {
    const std::vector<int> blk = multilevel_blocks(p.topo, c, why);
    if (blk.empty()) return {};
    if (p.sym.n() != p.topo.size() || p.cap.hi != 1) {
        if (why) *why = "not one task per node";
        return {};
    }
    const auto &torus = static_cast<const TorusTopology &>(p.topo);
    const int N = p.sym.n(), nd = torus.ndims();
    int B = 1;
    std::vector<int> cdims(nd);
    for (int k = 0; k < nd; ++k) {
        B *= blk[k];
        cdims[k] = torus.dims()[k] / blk[k];
    }
    const int NC = N / B;
    // 2. Groups of exactly B tasks.
    const std::vector<int> group = partition_graph(p.sym, NC, p.opt.seed);
    // 3. The groups' graph (from_edges sums parallel edges, drops loops).
    std::vector<Edge> ce;
    ce.reserve(static_cast<size_t>(p.g.nedges()));
    for (int i = 0; i < N; ++i)
        for (int64_t e = p.g.begin(i); e < p.g.end(i); ++e)
            if (group[i] != group[p.g.target(e)]) ce.push_back({group[i], group[p.g.target(e)], p.g.weight(e)});
    const Graph cg = Graph::from_edges(NC, ce);
    ce.clear();
    ce.shrink_to_fit();
    // 4. The machine of blocks, mapped by auto.
    const TorusTopology ctopo(cdims, torus.wrap(), -1, torus.metric());
    const ProblemData cd = prepare(cg, ctopo);
    Problem cp{cg, cd.sym, ctopo, cd.cap, cd.f_min, std::nullopt, p.opt, Deadline(0), nullptr, nullptr};
    // Under a caller's time limit the coarse map gets a share of it; without
    // one (a safety net) its own default budget, so the result does not
    // depend on the clock.
    if (p.deadline.limit() > 0 && !p.deadline.is_safety_net()) cp.deadline = p.deadline.share(c.coarse_time_share);
    cp.stopped_by_clock = p.stopped_by_clock;
    if (p.progress) {
        const auto &outer = p.progress;
        cp.progress = [&outer](const std::string &m) {
            if (m.rfind("anneal step", 0) != 0) outer("multilevel: coarse " + m);
        };
    }
    const std::vector<int> cplace = map_auto(cp, auto_coarse_preset(NC));
    // 5. Projection: group members in label order onto the block's nodes.
    std::vector<int> first(static_cast<size_t>(NC) + 1, 0), members(N);
    for (int i = 0; i < N; ++i) ++first[group[i] + 1];
    for (int g = 0; g < NC; ++g) first[g + 1] += first[g];
    {
        std::vector<int> at(first.begin(), first.end() - 1);
        for (int i = 0; i < N; ++i) members[at[group[i]]++] = i;
    }
    std::vector<int> place(N), cc(nd), fc(nd);
    for (int g = 0; g < NC; ++g) {
        ctopo.coords(cplace[g], cc.data());
        for (int s = 0; s < B; ++s) {
            int r = s;
            for (int k = 0; k < nd; ++k) {
                fc[k] = cc[k] * blk[k] + r % blk[k];
                r /= blk[k];
            }
            place[members[first[g] + s]] = torus.node_at(fc.data());
        }
    }
    return place;
}

} // namespace rankmap

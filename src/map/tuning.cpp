// tuning.cpp -- the named presets of the tuning contexts (tuning.hpp).
// Each preset starts from the context's defaults and changes only what its
// size class or mode needs; doc/tuning.md lists the values and the
// benchmark behind each.
#include "map/tuning.hpp"

namespace rankmap {

namespace {

// Size classes of auto.
constexpr int kSmall = 1024;
constexpr int kMedium = 4096;
// Above this size both strategies take the steps of
// leave_out_large_size_steps.
constexpr int kFastLarge = 16384;
// Above this size a cold chain from the graph drawing, after the hot chain
// from it, never ended lower and cost a fifth of the time; at 2048 tasks it
// sometimes did (bench/chains, bench/results/chains.md): it is left out.
constexpr int kColdFromDrawingMax = 2048;
// Above this size auto takes the multilevel path (fast: instead of the
// drawing and its chain).  At 65,536 tasks it ended lower than the chain
// on 3 of 3 graphs with fast and 2 of 3 with quality; at 32,768 on 1 of 3
// and 0 of 3 (bench/chains --multilevel, chains-multilevel.md).
constexpr int kMultilevelMin = 32768;
// Above this size fast's band search keeps a ninth of the translations
// per halving round and gives phase 2 more work: at 65,536 tasks phase
// 1's rounds have the minimum length (min_round_proposals), so fewer
// rounds cost less; at 32,768 they are longer, fewer rounds saved no time
// and the extra phase 2 work made fast about 30 % slower (8.1 -> 10.8 s on
// two graphs).
constexpr int kBandNinthsMin = 32768;
// Up to kSmall tasks fast runs no hot chain on a 3-D torus whose extents
// are all at least this (bench/chains --hot: see auto_fast_preset).
constexpr int kDeepTorusExtent = 8;
// Size classes of congestion (auto's own cost grows with N).
constexpr int kCongestionMedium = 8192;
// Size classes of the hierarchy mapper.
constexpr int kHierMedium = 8192;

// Above kFastLarge tasks both strategies leave out the starts that cost
// seconds there and feed no chain (Scotch's map: ~17 s at 65,536 tasks,
// longer than fast's whole budget; co-bisection ~2.4 s), keep one chain
// and end it with one KL pass (a full KL takes most of fast's budget at
// 65,536 tasks; its first pass brings most of the gain).  The first band
// phase ends with one pass too: the second phase's result replaced it on
// every graph of bench/chains --band-search.
void leave_out_large_size_steps(AutoContext &c) {
    c.scotch_start_max_tasks = kFastLarge;
    c.bisection_start_max_tasks = kFastLarge;
    c.cold_share = 0;
    c.chain_kl_passes = 1;
    c.multilevel.min_tasks = kMultilevelMin;
}

} // namespace

AnnealContext anneal_preset() { return AnnealContext{}; }

BandContext band_preset() { return BandContext{}; }

AutoContext auto_preset(int n) {
    AutoContext c;
    c.hier = hier_preset(n);
    // When the band result beats every start the chains never ended lower,
    // fast or quality (SAGE-like graphs, 512-4096 tasks: bench/chains
    // --band); they and the graph drawing they start from are left out.
    c.chains_after_band = false;
    if (n <= kSmall) {
        c.cold_acceptance = 0.04;
        c.cold_share = 0.9;
        c.band.start_temperature = 0.6;
        return c;
    }
    c.cold_acceptance = 0.06;
    // A grid embedding within 10 % of F_min ends the search: the general path
    // never beat one on the scrambled stencils of bench/scale (4096 and
    // 65,536 tasks), after 5 to 47 s more.
    c.structured_accept = 1.1;
    c.cold_share = n <= kMedium ? 1.5 : 0.3;
    c.band_phase1 = 0.3;
    c.band_chain_scale = 0.4;
    c.band_phase2_bonus = n <= kMedium ? 0.5 : 0.0;
    c.band_phase2_extra = 0.0;
    if (n <= kMedium) return c;
    // Above 4096 tasks the hot chain from the graph drawing, with the whole
    // nominal budget, ends lower than the cold chain of the best start, in
    // less time (bench/mapping 32x32x32, bench/scale 65,536); fast runs the
    // same chain with less work.  The band search stays: with quality's
    // budget it wins on SAGE-like there.
    c.hot_share = 1.0;
    c.hot_from_geometric = true;
    c.cold_from_hot_start = false;
    if (n > kFastLarge) {
        leave_out_large_size_steps(c);
        // Phase 1 screens hundreds of translations there, too briefly to
        // rank them; with this much more work phase 2 ended 3-17 % lower on
        // the ten SAGE-like graphs of bench/chains --band-search (32,768 and
        // 65,536 tasks), 2-7 s later with fast.
        c.band_phase2_extra = 1.5;
        // All of phase 2 on phase 1's best translation: a tile chain of 1024
        // tasks ends lower the longer it runs, and its scatter between seeds
        // exceeds the gaps between the good translations, so one long chain
        // ended lower than short rounds choosing among three (bench/chains
        // --band-phase2).
        c.band_phase2_translations = 1;
        // Quality: KL after the multilevel chain until a pass gains nothing,
        // and the drawing and chains as well: on scrambled SAGE-like 65,536
        // tasks they ended lower than the multilevel path, on UMT-like
        // higher (bench/chains --multilevel).
        c.multilevel.kl_passes = 0;
        c.multilevel.and_chains = true;
    }
    return c;
}

AutoContext auto_fast_preset(int n) {
    AutoContext c = auto_preset(n);
    // The co-bisection map never started lower than Scotch's (F/F_min 2.61
    // against 2.28 on UMT-like 4096) and no row of bench/scale or
    // bench/mapping changed without it; it took 8 % of fast's time at
    // 4096-16,384 tasks (0.12 s and 0.55 s).
    c.bisection_without_scotch = true;
    if (n <= kSmall) {
        // No hot chain on 3-D tori with every extent at least 8: there it
        // ended lower on none of 12 graphs of 512 and 1024 tasks and took a
        // third of fast's time; on 2-D and flat tori (an extent of 4) it
        // ended lower on 7 of 12 (bench/chains --hot, chains-hot.md).
        c.hot_skip_min_extent = kDeepTorusExtent;
        return c;
    }
    // Nominal budgets (auto's work units): 1.6 is auto's own at 1024 tasks;
    // 3.0 keeps 4096 tasks under 2 s and 30 keeps SAGE-like and UMT-like
    // 65,536 under 15 s on this project's machine (bench/scale).
    c.budget_tasks = {1024, 4096, 65536};
    c.budget_seconds = {1.6, 3.0, 30.0};
    c.hot_share = 1.0;  // the hot chain from the graph-drawing start does most of the gain
    c.hot_from_geometric = true;
    c.cold_from_hot_start = n <= kColdFromDrawingMax;
    c.hier = hier_fast_preset(n);
    if (n <= kFastLarge) {
        c.cold_share = 0.4;
        // Above 4096 tasks the cold chain from a start other than the
        // drawing (Scotch's map, when the drawing is far above it: which
        // seeds that is depends on Scotch) ended lower in 1 of 48 runs at
        // 8192 tasks and 0 of 48 at 16,384, and made a search about a
        // third longer where it ran, so the in-call portfolio waited for the
        // members whose seeds ran it; at 4096 it won 7 of 48, all on
        // scrambled SAGE-like (bench/chains --cold-other).
        c.cold_from_other_start = n <= kMedium;
        return c;
    }
    c.multilevel.kl_passes = 1;  // one pass brings most of KL's gain (bench/scale)
    c.multilevel.and_chains = false;
    if (n > kBandNinthsMin) {
        // Band search: phase 1's successive halving keeps a ninth of the
        // translations per round instead of a third (477 translations: four
        // rounds instead of seven; the later rounds choose among good
        // translations on the tile chains' luck), and phase 2 gets 0.8
        // units more than auto_preset's extra: about the 1.4 s that the
        // fewer rounds and band.cpp's translation tables save on
        // bench/scale's graph.  On the five graphs of bench/chains
        // --band-phase1 fast ended lower in 25 of 40 runs (median F/F_min
        // 1.512 -> 1.494); with the tables' saving counted it takes 0.1-1.6
        // s longer there (bench/scale's graph: 0.1 s).
        c.band.halving_factor = 9;
        c.band_phase2_extra = 2.3;
    }
    // auto_preset took leave_out_large_size_steps (no cold chain).  The band
    // search stays: with no chain after a winning band result it ended
    // lower than the chain from the graph drawing on every SAGE-like graph
    // of bench/chains --band-search at 32,768 and 65,536 tasks, sooner.
    return c;
}

AutoContext auto_link_load_preset(int n) {
    AutoContext c = auto_preset(n);
    c.chains_after_band = true;  // its looser band tiles were not measured against the chains
    c.band_phase1 = n <= kSmall ? 1.5 : 0.3;
    c.band_chain_scale = 0.4;
    c.band_phase2_extra = 0.0;
    c.band_phase2_translations = 0;
    c.band.weighted_partners = false;
    c.band.staircase = false;
    c.band.start_temperature = 1.0;
    c.band.end_temperature = 0.05;
    c.band.large_tile = 0;  // these at every tile size: the large-tile ones were measured for F, not link load
    return c;
}

AutoContext auto_coarse_preset(int n) {
    AutoContext c = auto_preset(n);
    c.bisection_without_scotch = true;  // as fast's (auto_fast_preset)
    // The coarse graph of UMT-like 65,536 tasks (8192 groups): the cold
    // chain from Scotch's start ended at 1.2 x the hot chain's F and took
    // 1.5 of the coarse map's 6 s (`rankmap map -v` on bench/scale's graph).
    if (n > kMedium) c.cold_share = 0;
    return c;
}

CongestionContext congestion_preset(int n) {
    CongestionContext c;
    if (n <= kSmall) return c;
    c.starts = n <= kCongestionMedium ? 2 : 1;
    c.sweeps = n <= kCongestionMedium ? 200 : 40;
    return c;
}

KlContext kl_preset() { return KlContext{}; }

GeometricContext geometric_preset(int n) {
    GeometricContext c;
    if (n <= kSmall) return c;
    c.pivots = n <= kMedium ? 100 : 64;
    c.majorize_rounds = 30;
    c.rotations = n <= kMedium ? 32 : 16;
    return c;
}

DivideAnnealContext divide_anneal_preset() { return DivideAnnealContext{}; }

GreedyContext greedy_preset() { return GreedyContext{}; }

CartContext cart_preset() { return CartContext{}; }

ScotchContext scotch_preset() { return ScotchContext{}; }

KwayContext kway_preset() { return KwayContext{}; }

HierContext hier_preset(int n) {
    HierContext c;
    c.kway = kway_preset();
    if (n <= kSmall) return c;
    if (n <= kHierMedium) {
        c.sweeps = 300;
        return c;
    }
    // Above 8192 tasks the work fits auto's default budget, so the
    // wall-clock safety net (budget + net_extra) does not end it on a
    // somewhat slower machine (UMT-like 16,384 tasks: 20 s of 22; 65,536:
    // 52 s of 72).  Scotch's start and the extra multisections never win
    // there (UMT-like and SAGE-like 16,384, UMT-like 65,536); node cycles
    // after the 6th lower F by 0.2 % in about 10 s at 16,384 tasks, after
    // the 3rd by 0.3 % in about 18 s at 65,536; the chain lowers nothing
    // above 16,384 (bench/hierarchy --trees 1024x2x8,4096x2x8,
    // bench/results/hierarchy-scale.md).
    c.outer_tries = 8;
    c.scotch_start = false;
    c.extra_multisections = 0;
    c.sweeps = n <= kFastLarge ? 150 : 0;
    c.node_cycles = n <= kFastLarge ? 6 : 3;
    return c;
}

HierContext hier_fast_preset(int n) {
    HierContext c = hier_preset(n);
    if (n <= kSmall) return c;
    // bench/hierarchy --trees 256x2x8,1024x2x8,4096x2x8 --algorithms scotch,auto,fast:
    // full KL passes and the cold chain took most of the time for a few %
    // of F; one multisection, one KL pass per step and the node tier's
    // first cycles keep 65,536 tasks within seconds.
    c.extra_multisections = 0;
    c.outer_tries = n <= kFastLarge ? 4 : 2;
    c.scotch_start = false;
    c.sweeps = 0;
    c.kl_passes = 1;
    c.node_cycles = n <= kFastLarge ? 2 : 1;
    return c;
}

} // namespace rankmap

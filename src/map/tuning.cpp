// tuning.cpp -- the named presets of the tuning contexts (tuning.hpp).
// One preset per context sets every field of it, in the header's order,
// with the values that hold unless a size class overrides them below; the
// other strategies' presets start from it and change only what they need.
// doc/tuning.md lists the values and the benchmark behind each;
// maint/check-tuning.py checks both against this file.
#include "map/tuning.hpp"

namespace rankmap {

namespace {

// Size classes of auto.
constexpr int kSmall = 1024;
constexpr int kMedium = 4096;
// Above this size both strategies take the steps of
// leave_out_large_size_steps.
constexpr int kFastLarge = 16384;
// Above this size a cold chain after the drawing's hot chain ends where that did (doc/tuning.md, cold_from_hot_start).
constexpr int kColdFromDrawingMax = 2048;
// Above this size the multilevel path ends lower than the drawing's chain (doc/tuning.md, "The multilevel path").
constexpr int kMultilevelMin = 32768;
// Above this size fast's phase 1 rounds have their least length: fewer of them free time for phase 2 (doc/tuning.md).
constexpr int kBandNinthsMin = 32768;
// Up to kSmall tasks fast runs no hot chain on a 3-D torus whose extents are all at least this (see auto_fast_preset).
constexpr int kDeepTorusExtent = 8;
// Size classes of congestion (auto's own cost grows with N).
constexpr int kCongestionMedium = 8192;
// Size classes of the hierarchy mapper.
constexpr int kHierMedium = 8192;

// Above kFastLarge tasks both strategies leave out the starts that cost
// seconds there and feed no chain (Scotch's map alone outlasts fast's
// budget), keep one chain and end it with one KL pass (a full KL takes most
// of fast's budget; its first pass brings most of the gain).  The first band
// phase ends with one pass too: the second phase's result replaces it
// (doc/tuning.md, scotch_start_max_tasks and chain_kl_passes).
void leave_out_large_size_steps(AutoContext &c) {
    c.scotch_start_max_tasks = kFastLarge;
    c.bisection_start_max_tasks = kFastLarge;
    c.cold_share = 0;
    c.chain_kl_passes = 1;
    c.multilevel.min_tasks = kMultilevelMin;
}

// auto_preset's size classes above kSmall tasks: medium, large and, above
// kFastLarge, the largest.
void above_small_tasks(AutoContext &c, int n) {
    c.cold_acceptance = 0.06;
    // A grid embedding within 10 % of F_min ends the search: the general path
    // does not beat one on scrambled stencils, it only takes longer
    // (doc/tuning.md, structured_accept).
    c.structured_accept = 1.1;
    c.cold_share = n <= kMedium ? 1.5 : 0.3;
    c.band_phase1 = 0.3;
    c.band_chain_scale = 0.4;
    c.band_phase2_bonus = n <= kMedium ? 0.5 : 0.0;
    c.band_phase2_extra = 0.0;
    if (n <= kMedium) return;
    // Above 4096 tasks the hot chain from the graph drawing, with the whole
    // nominal budget, ends lower than the cold chain of the best start, in
    // less time; fast runs the same chain with less work.  The band search
    // stays: with quality's budget it wins on SAGE-like graphs there
    // (doc/tuning.md, hot_from_geometric).
    c.hot_share = 1.0;
    c.hot_from_geometric = true;
    c.cold_from_hot_start = false;
    if (n > kFastLarge) {
        leave_out_large_size_steps(c);
        // Phase 1 screens hundreds of translations there, too briefly to
        // rank them; more work on its best ones lets phase 2 end lower
        // (doc/tuning.md, band_phase2_extra).
        c.band_phase2_extra = 1.5;
        // All of phase 2 on phase 1's best translation: a tile chain of 1024
        // tasks ends lower the longer it runs, and its scatter between seeds
        // exceeds the gaps between the good translations, so one long chain
        // beats short rounds choosing among three (doc/tuning.md,
        // band_phase2_translations).
        c.band_phase2_translations = 1;
        // Quality: KL after the multilevel chain until a pass gains nothing,
        // and the drawing and chains as well, the lower F kept: neither path
        // wins on every graph (doc/tuning.md, "The multilevel path").
        c.multilevel.kl_passes = 0;
        c.multilevel.and_chains = true;
    }
}

} // namespace

AnnealContext anneal_preset() {
    AnnealContext c;
    c.hot_acceptance = 0.15;
    c.cold_acceptance = 0.03;
    c.hot_equilibrium_max = 0.2;
    c.cold_equilibrium_factor = 1.5;
    c.warmup_beta_factor = 1.25;
    c.warmup_rounds = 8;
    c.warmup_round_divisor = 4;
    c.calibration_min = 2000;
    c.calibration_max = 20000;
    c.calibration_per_task = 4;
    c.final_beta_factor = 20;
    c.uphill_odds = 1000;
    c.small_uphill_quantile = 20;
    c.default_sweeps = 1000;
    c.local_fraction = 0.9;
    c.refine_sweeps_hot = 1000;
    c.refine_sweeps_cold = 300;
    c.step_time_margin = 0.95;
    c.near_extra = 12;
    return c;
}

BandContext band_preset() {
    BandContext c;
    c.max_offsets = 32;
    c.min_tile = 8;
    c.max_tile = 1024;
    c.max_period_error = 0.15;
    c.max_candidates = 1000;
    c.dense_distance_max = 1024;
    c.local_moves_in_ten = 9;
    c.evals_per_proposal = 26;
    c.min_round_proposals = 2000;
    c.halving_factor = 3;
    c.ordered_share_divisor = 10;
    c.weighted_partners = true;
    c.staircase = true;
    c.start_temperature = 1.0;
    c.end_temperature = 0.35;
    c.large_tile = 256;
    c.large_tile_start_temperature = 5.0;
    c.large_tile_end_temperature = 0.15;
    return c;
}

MultilevelContext multilevel_preset() {
    MultilevelContext c;
    c.min_tasks = 1 << 30;  // off: leave_out_large_size_steps turns it on above kFastLarge tasks
    c.block = 8;
    c.min_block = 4;
    c.cold_acceptance = 0.2;
    c.sweeps = 100;
    c.kl_passes = 1;
    c.coarse_time_share = 0.5;
    c.salt = 0x3713;
    c.and_chains = false;
    return c;
}

AutoContext auto_preset(int n) {
    AutoContext c;
    c.budget_tasks = {512, 2048, 32768};
    c.budget_seconds = {0.7, 3.8, 40.0};
    c.min_budget = 0.1;
    c.net_factor = 10;
    c.net_extra = 15;
    c.net_min = 10;
    c.evals_per_second = 3.0e7;
    c.cache_tasks = 32768;
    c.evals_per_degree = 2;
    c.evals_per_proposal = 4;
    c.min_sweeps = 30;
    c.max_sweeps = 5000;
    c.structured_kl_share = 0.1;
    c.structured_accept = 1.0;
    c.geometric_share = 0.3;
    c.geometric_cold_margin = 1.1;
    c.hot_share = 0.4;
    c.hot_skip_min_extent = 0;
    c.cold_share = 0.9;
    c.cold_acceptance = 0.04;
    c.scotch_start_max_tasks = 1 << 30;
    c.bisection_start_max_tasks = 1 << 30;
    c.bisection_without_scotch = false;
    c.hot_from_geometric = false;
    c.cold_from_hot_start = true;
    c.cold_from_other_start = true;
    c.chain_kl_passes = 0;
    c.band_search = true;
    c.hot_time_share = 0.5;
    c.hot_kl_share = 0.2;
    c.cold_time_share = 0.85;
    c.cold_kl_share = 0.9;
    c.hot_salt = 0xa070;
    c.cold_salt = 0xc01d;
    c.band_phase1 = 4.6;
    c.band_time_share = 0.5;
    c.band_kl_share = 0.1;
    c.band_chain_scale = 0.15;
    // When the band result beats every start the chains do not end lower, so
    // they and the graph drawing they start from are left out (doc/tuning.md).
    c.chains_after_band = false;
    c.band_phase2_bonus = 0.5;
    c.band_phase2_extra = 4.0;
    c.band_phase2_seed = 0x5eed;
    c.band_phase2_translations = 3;
    c.band = band_preset();
    c.multilevel = multilevel_preset();
    c.hier = hier_preset(n);
    if (n <= kSmall) {
        c.band.start_temperature = 0.6;
        return c;
    }
    above_small_tasks(c, n);
    return c;
}

AutoContext auto_fast_preset(int n) {
    AutoContext c = auto_preset(n);
    // The co-bisection map is a start only when Scotch gives none: it does not
    // start lower than Scotch's map and costs time (doc/tuning.md,
    // bisection_without_scotch).
    c.bisection_without_scotch = true;
    if (n <= kSmall) {
        // No hot chain on 3-D tori with every extent at least 8: there the
        // drawing's layout is right and the hot chain only costs time; 2-D and
        // flat tori keep it (doc/tuning.md, hot_skip_min_extent).
        c.hot_skip_min_extent = kDeepTorusExtent;
        return c;
    }
    // Nominal budgets (auto's work units): 1.6 is auto's own at 1024 tasks;
    // 3.0 and 30 keep 4096 and 65,536 tasks within the scale targets
    // (doc/tuning.md, "The fast strategy").
    c.budget_tasks = {1024, 4096, 65536};
    c.budget_seconds = {1.6, 3.0, 30.0};
    c.hot_share = 1.0;  // the hot chain from the graph-drawing start does most of the gain
    c.hot_from_geometric = true;
    c.cold_from_hot_start = n <= kColdFromDrawingMax;
    c.hier = hier_fast_preset(n);
    if (n <= kFastLarge) {
        c.cold_share = 0.4;
        // Above 4096 tasks no cold chain from a start other than the drawing
        // (Scotch's map, when the drawing is far above it: which seeds that is
        // depends on Scotch): it rarely ends lower, and the in-call portfolio
        // waits for the members whose seeds run it (doc/tuning.md,
        // cold_from_other_start).
        c.cold_from_other_start = n <= kMedium;
        return c;
    }
    c.multilevel.kl_passes = 1;  // one pass brings most of KL's gain (bench/scale)
    c.multilevel.and_chains = false;
    if (n > kBandNinthsMin) {
        // Band search: phase 1's successive halving keeps a ninth of the
        // translations per round instead of a third (fewer rounds; the later
        // rounds choose among good translations on the tile chains' luck),
        // and phase 2 gets 0.8 units more than auto_preset's extra, about the
        // time that the fewer rounds and band.cpp's translation tables save
        // (doc/tuning.md, halving_factor and band_phase2_extra).
        c.band.halving_factor = 9;
        c.band_phase2_extra = 2.3;
    }
    // auto_preset applied leave_out_large_size_steps (no cold chain).  The
    // band search stays: with no chain after a winning band result it ends
    // lower than the chain from the graph drawing on band graphs, and sooner
    // (doc/tuning.md, band_search).
    return c;
}

AutoContext auto_link_load_preset(int n) {
    AutoContext c = auto_preset(n);
    c.chains_after_band = true;  // the chains stay: leaving them out is tuned for F's tiles, not these looser ones
    c.band_phase1 = n <= kSmall ? 1.5 : 0.3;
    c.band_chain_scale = 0.4;
    c.band_phase2_extra = 0.0;
    c.band_phase2_translations = 0;
    c.band.weighted_partners = false;
    c.band.staircase = false;
    c.band.start_temperature = 1.0;
    c.band.end_temperature = 0.05;
    c.band.large_tile = 0;  // these at every tile size: the large-tile ones are tuned for F, not link load
    return c;
}

AutoContext auto_coarse_preset(int n) {
    AutoContext c = auto_preset(n);
    c.bisection_without_scotch = true;  // as fast's (auto_fast_preset)
    // On a coarse graph above 4096 tasks the cold chain from Scotch's start
    // ends far above the hot chain and takes a large share of the coarse
    // map's time (doc/tuning.md, "The multilevel path").
    if (n > kMedium) c.cold_share = 0;
    return c;
}

CongestionContext congestion_preset(int n) {
    CongestionContext c;
    c.starts = 8;
    c.max_links_log2 = 26;
    c.near_nodes = 32;
    c.partner_tries = 8;
    c.temperature_samples = 200;
    c.start_temperature = 3e-3;
    c.cooling = 1e-3;
    c.sweeps = 1000;
    c.best_samples_per_sweep = 4;
    if (n <= kSmall) return c;
    c.starts = n <= kCongestionMedium ? 2 : 1;
    c.sweeps = n <= kCongestionMedium ? 200 : 40;
    return c;
}

KlContext kl_preset() {
    KlContext c;
    c.partners_tried = 4;
    c.near_tried = 7;
    c.stall_limit = 64;
    c.max_passes = 100;
    return c;
}

GeometricContext geometric_preset(int n) {
    GeometricContext c;
    c.pivots = 100;
    c.majorize_rounds = 50;
    c.rotations = 64;
    c.max_edge_length = 3;
    c.mds_iterations = 300;
    c.align_angles = 90;
    c.align_sweeps = 4;
    c.min_tasks = 8;
    if (n <= kSmall) return c;
    c.pivots = n <= kMedium ? 100 : 64;
    c.majorize_rounds = 30;
    c.rotations = n <= kMedium ? 32 : 16;
    return c;
}

DivideAnnealContext divide_anneal_preset() {
    DivideAnnealContext c;
    c.l_ratio = 0.85;
    c.min_split = 16;
    c.time_share = 0.9;
    return c;
}

GreedyContext greedy_preset() {
    GreedyContext c;
    c.partners_tried = 4;
    c.search_found = 6;
    c.search_limit = 8192;
    return c;
}

CartContext cart_preset() {
    CartContext c;
    c.work_budget = 2.5e7;
    c.min_candidates = 24;
    c.max_candidates = 1000;
    c.factor_steps = 400000;
    c.stock_permutations = 720;
    return c;
}

ScotchContext scotch_preset() {
    ScotchContext c;
    c.imbalance = 0.01;
    c.max_edge_load = 1e6;
    return c;
}

KwayContext kway_preset() {
    KwayContext c;
    c.chain_passes = 8;
    c.chain_moves = 10;
    c.union_tries = 4;
    c.coarse_part_divisor = 4;
    c.coarsest_per_part = 2;
    c.min_coarsening = 0.9;
    c.min_cycle_gain = 3e-4;
    return c;
}

HierContext hier_preset(int n) {
    HierContext c;
    c.outer_tries = 16;
    c.inner_tries = 2;
    c.few_per_child = 2;
    c.extra_multisections = 2;
    c.start_kl_share = 0.25;
    c.grid_kl_share = 0.2;
    c.sweeps = 400;
    c.cold_acceptance = 0.06;
    c.anneal_share = 0.85;
    c.scotch_start = true;
    c.kl_passes = 0;
    c.node_group = 5;
    c.node_cycles = 12;
    c.kway = kway_preset();
    if (n <= kSmall) return c;
    if (n <= kHierMedium) {
        c.sweeps = 300;
        return c;
    }
    // Above 8192 tasks the work fits auto's default budget, so the
    // wall-clock safety net (budget + net_extra) does not end it on a
    // somewhat slower machine.  Scotch's start and the extra multisections
    // do not win there, the node cycles past the first few and, above
    // 16,384 tasks, the cold chain cost more time than their share of F
    // (doc/tuning.md, HierContext).
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
    // Full KL passes and the cold chain take most of the time for little F;
    // one multisection, one KL pass per step and the node tier's first
    // cycles keep 65,536 tasks within seconds (doc/tuning.md, HierContext).
    c.extra_multisections = 0;
    c.outer_tries = n <= kFastLarge ? 4 : 2;
    c.scotch_start = false;
    c.sweeps = 0;
    c.kl_passes = 1;
    c.node_cycles = n <= kFastLarge ? 2 : 1;
    return c;
}

} // namespace rankmap

// tuning.hpp -- the tuned numbers of the default pipeline, as data.
//
// One context per mapper family (annealing, band search, auto, congestion,
// Kernighan-Lin, graph drawing, divide-and-conquer annealing, greedy, the
// Cartesian search, the hierarchy mapper on trees), each field
// with its meaning and unit; named presets fill them by problem size.  The
// algorithms read their numbers from here and hold no tuned literal of
// their own.  doc/tuning.md gives every field's preset values and the
// benchmark command that chose them.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace rankmap {

// Metropolis annealing of a placement (anneal.cpp: anneal_tasks).
struct AnnealContext {
    double hot_acceptance = 0.15;         // initial acceptance of a hot chain (fraction of sampled proposals)
    double cold_acceptance = 0.03;        // initial acceptance of a cold chain, unless the caller sets one
    double hot_equilibrium_max = 0.2;     // warm-up raises beta until a hot chain accepts at most this fraction
    double cold_equilibrium_factor = 1.5; // same for a cold chain: at most this x its initial acceptance
    double warmup_beta_factor = 1.25;     // beta multiplier per warm-up round
    int warmup_rounds = 8;                // warm-up rounds at most ...
    int warmup_round_divisor = 4;         // ... of 1/this of a beta step's proposals each
    int calibration_min = 2000;           // proposals sampled to calibrate beta: at least this many
    int calibration_max = 20000;          // ... at most this many
    int calibration_per_task = 4;         // ... and this many per movable task in between
    double final_beta_factor = 20;        // final beta is at least this x the initial beta
    double uphill_odds = 1000;            // final beta accepts a small uphill move once in this many tries
    int small_uphill_quantile = 20;       // "small uphill": the 1/this quantile of the sampled uphill deltas
    double default_sweeps = 1000;         // proposals per movable task when the caller gives none
    double local_fraction = 0.9;          // share of proposals sent next to a partner's node
    double refine_sweeps_hot = 1000;      // anneal_refine / `anneal`: proposals per task from a hot start
    double refine_sweeps_cold = 300;      // ... from a cold start
    double step_time_margin = 0.95;       // a beta step's proposals are cut to fit this share of the time left
    int near_extra = 12;                  // near-node list: the node, its 2 x ndims neighbours and this many more (nodes)
};

// Translation-periodic band search (band.cpp: band_embedding).
struct BandContext {
    int max_offsets = 32;            // distinct rank offsets at most (more: not a band graph)
    int min_tile = 8;                // tile size P (tasks) at least
    int max_tile = 1024;             // tile size P (tasks) at most
    double max_period_error = 0.15;  // periodised graph must explain the graph within this share of its weight
    size_t max_candidates = 1000;    // translations searched at most (evenly spaced subset above)
    int dense_distance_max = 1024;   // byte distance table up to this many nodes (speed only)
    int local_moves_in_ten = 9;      // proposals out of ten sent next to a partner (others: any node)
    double evals_per_proposal = 26;  // distance evaluations per tile proposal (turns work into proposals)
    double min_round_proposals = 2000;  // proposals per translation in the first halving round, at least
    int halving_factor = 3;          // successive halving keeps 1/this of the translations, x this work each
    int ordered_share_divisor = 10;  // first round: 1/this of a translation's work from the ordered start
    bool weighted_partners = true;   // anchor partner drawn by edge weight (off: uniformly)
    bool staircase = true;           // search only the staircase-predicted translations, random starts too
    double start_temperature = 1.0;  // tile annealing start, in units of a task's energy at F = F_min
    double end_temperature = 0.35;   // tile annealing end, same unit (geometric cooling)
    int large_tile = 256;            // tiles of at least this many tasks anneal between the two below (0: never)
    double large_tile_start_temperature = 5.0;  // their start, same unit (bench/chains --band-temperature)
    double large_tile_end_temperature = 0.15;   // their end, same unit
};

// k-way refinement of a partition with exact part sizes (hier/kway.cpp).
struct KwayContext {
    int chain_passes = 8;           // ejection-chain passes per level at most (a pass without gain stops earlier)
    int chain_moves = 10;           // moves in one ejection chain at most
    int union_tries = 4;            // METIS seeds per union of parts
    int coarse_part_divisor = 4;    // a coarse vertex holds at most 1/this of the largest part (tasks)
    int coarsest_per_part = 2;      // coarsening stops at this many vertices per part
    double min_coarsening = 0.9;    // ... or when a level keeps more than this share of the vertices
    double min_cycle_gain = 3e-4;   // V-cycles stop when one lowers the cut by less than this share of it
};

// The hierarchy mapper on trees (hier.cpp: tree_refined_map, map_hier).
struct HierContext {
    int outer_tries = 16;           // METIS seeds per bisection of the outermost split
    int inner_tries = 2;            // METIS seeds per bisection of inner splits, at most
    int few_per_child = 2;          // splits of at most this many tasks per child: one seed
    int extra_multisections = 2;    // multisections after the first, with half the outer tries each
    double start_kl_share = 0.25;   // deadline share of KL on each multisection / Scotch start
    double grid_kl_share = 0.2;     // deadline share of KL on the grid-block start
    double sweeps = 400;            // cold chain length (proposals per task; 0: no chain)
    double cold_acceptance = 0.06;  // cold chain's initial acceptance (fraction)
    double anneal_share = 0.85;     // deadline share of the cold chain
    bool scotch_start = true;       // Scotch's tleaf map is a start (when built with Scotch)
    int kl_passes = 0;              // KL passes after each step at most (0: until a pass gains nothing)
    int node_group = 5;             // node-tier unions: this many neighbouring nodes re-partitioned together
    int node_cycles = 12;           // node-tier V-cycles at most
    KwayContext kway;               // the node-tier refinement's own settings
};

// The default mapper (auto.cpp: map_auto).
// Multilevel start (multilevel.cpp: multilevel_start) and the fine chain
// auto runs from it.
struct MultilevelContext {
    int min_tasks = 1 << 30;        // auto takes the multilevel path above this many tasks (instead of the drawing and the hot chain)
    int block = 8;                  // nodes per block (coarse node) sought: even extents halved until a block holds this many
    int min_block = 4;              // ... and at least this many, else no multilevel path
    double cold_acceptance = 0.2;   // the fine chain's initial acceptance (fraction)
    double sweeps = 100;            // the fine chain's length (proposals per task)
    int kl_passes = 1;              // KL passes after the fine chain (0: until a pass gains nothing)
    double coarse_time_share = 0.5; // deadline share of the coarse map under a caller's time limit
    uint64_t salt = 0x3713;         // RNG stream of the fine chain
    bool and_chains = false;        // the graph drawing and the chains run as well (the lower F wins)
};

struct AutoContext {
    std::array<double, 3> budget_tasks{512, 2048, 32768};  // default budget: log-log interpolation points (tasks)
    std::array<double, 3> budget_seconds{0.7, 3.8, 40.0};  // ... and their budgets (seconds)
    double min_budget = 0.1;           // default budget at least (seconds)
    double net_factor = 10;            // safety-net deadline without a time limit: this x budget ...
    double net_extra = 15;             // ... or budget + this (seconds), whichever is less ...
    double net_min = 10;               // ... but at least this (seconds)
    double evals_per_second = 3.0e7;   // nominal annealing speed (partner-distance evaluations per second)
    double cache_tasks = 32768;        // nominal speed divided by 1 + N / this (cache misses)
    double evals_per_degree = 2;       // evaluations per proposal: this x mean degree ...
    double evals_per_proposal = 4;     // ... + this
    double min_sweeps = 30;            // chain length at least (proposals per task)
    double max_sweeps = 5000;          // chain length at most (proposals per task)
    double structured_kl_share = 0.1;  // deadline share of KL on the structured candidate
    double structured_accept = 1.0;    // the structured candidate ends auto when its F <= this x F_min
    double geometric_share = 0.3;      // deadline share of the graph-drawing start
    double geometric_cold_margin = 1.1;  // geometric start goes cold when its F <= this x the best start's
    double hot_share = 0.4;            // hot chain's work (x nominal budget; 0: no hot chain)
    int hot_skip_min_extent = 0;       // no hot chain on a torus of 3+ dimensions, all wrapped, every extent >= this (0: never skipped)
    double cold_share = 0.9;           // cold chain's work (x nominal budget)
    double cold_acceptance = 0.04;     // cold chain's initial acceptance (fraction)
    int scotch_start_max_tasks = 1 << 30;  // Scotch's map is a start up to this many tasks (costly at large sizes)
    int bisection_start_max_tasks = 1 << 30;  // the co-bisection map likewise (costly at large sizes)
    bool bisection_without_scotch = false;  // the co-bisection map is a start only when Scotch's map is not
    bool hot_from_geometric = false;   // hot chain from the graph-drawing start when there is one (else the best start)
    bool cold_from_hot_start = true;   // the cold chain may start where the hot chain did (false: from another start only)
    bool cold_from_other_start = true;  // ... and from another start (false with the above: no cold chain; its share still feeds the band search's phase 2)
    int chain_kl_passes = 0;           // KL passes after each chain and the first band phase at most (0: until a pass gains nothing)
    bool band_search = true;           // rank-ordered band graphs get the band search (step 3)
    double hot_time_share = 0.5;       // deadline share of the hot chain
    double hot_kl_share = 0.2;         // deadline share of KL after the hot chain
    double cold_time_share = 0.85;     // deadline share of the cold chain
    double cold_kl_share = 0.9;        // deadline share of KL after the cold chain
    uint64_t hot_salt = 0xa070;        // RNG stream of the hot chain
    uint64_t cold_salt = 0xc01d;       // RNG stream of the cold chain
    // Band search (step 3), in units of the nominal budget's evaluations.
    double band_phase1 = 4.6;          // phase 1's work (x nominal budget)
    double band_time_share = 0.5;      // deadline share of each band phase
    double band_kl_share = 0.1;        // deadline share of KL after each band phase
    double band_chain_scale = 0.15;    // chains' work scale when the band result beats every start
    bool chains_after_band = true;     // ... and the chains run then (false: they and the graph drawing are left out)
    double band_phase2_bonus = 0.5;    // phase 2's work on top of the chains' saved work (x nominal budget)
    double band_phase2_extra = 4.0;    // ... and this much more (x nominal budget)
    uint64_t band_phase2_seed = 0x5eed;  // phase 2 runs with seed + this
    size_t band_phase2_translations = 3; // phase 2 searches phase 1's best this many (0: every translation)
    BandContext band;                  // the band search's own settings
    MultilevelContext multilevel;      // the multilevel path's settings (large sizes)
    HierContext hier;                  // the tree path's settings (step 2)
};

// Busiest-link refinement (congestion.cpp: map_congestion).
struct CongestionContext {
    int starts = 8;                  // auto runs (seeds seed, seed+1, ...) the lightest-link start is chosen from
    int max_links_log2 = 26;         // machines with more than 2^this links keep auto's placement
    int near_nodes = 32;             // swap partners: tasks on this many nodes nearest a task's node
    int partner_tries = 8;           // draws of a partner node other than the task's own
    int temperature_samples = 200;   // proposals sampled to set the temperature
    double start_temperature = 3e-3; // start temperature, x mean |delta Phi| of the samples
    double cooling = 1e-3;           // end temperature, x start temperature
    int64_t sweeps = 1000;           // chain length (proposals per task)
    int best_samples_per_sweep = 4;  // the best state is sampled this many times per sweep
};

// Kernighan-Lin pair exchange (kernighan_lin.cpp).
struct KlContext {
    int partners_tried = 4;  // heaviest partners whose nodes are tried per task
    int near_tried = 7;      // nodes around each partner's node tried
    int stall_limit = 64;    // exchanges past the best prefix before a pass stops
    int max_passes = 100;    // passes at most (a pass without gain stops earlier)
};

// Graph-drawing start (geometric.cpp: geometric_map).
struct GeometricContext {
    int pivots = 100;        // MDS pivots (at most N)
    int majorize_rounds = 50;  // stress-majorization rounds
    int rotations = 64;      // orientations of the drawing tried (the first axis-aligned)
    double max_edge_length = 3;  // edge length in the drawing at most (x the length of a mean-weight edge)
    int mds_iterations = 300;    // subspace iterations of the pivot MDS eigenvectors
    int align_angles = 90;       // angles tried per axis pair when aligning the drawing (over a quarter turn)
    int align_sweeps = 4;        // sweeps over all axis pairs when aligning the drawing
    int min_tasks = 8;           // fewer tasks: no drawing (tasks)
};

// Divide-and-conquer annealing (divide_anneal.cpp).
struct DivideAnnealContext {
    double l_ratio = 0.85;       // l-ratio limit L when Options::l_ratio is 0
    size_t min_split = 16;       // subgraphs below this many tasks are annealed whole
    double time_share = 0.9;     // a subgraph's deadline share: this x its share of the tasks left
};

// Greedy placement (greedy.cpp: greedy_fill).
struct GreedyContext {
    int partners_tried = 4;        // heaviest mapped partners whose near nodes are tried
    int search_found = 6;          // breadth-first search for room stops after this many nodes with room ...
    size_t search_limit = 8192;    // ... or once this many nodes are queued (nodes)
};

// Search over structured grid embeddings (cartesian.cpp: best_grid_embedding).
struct CartContext {
    double work_budget = 2.5e7;    // edge evaluations: candidates = this / (N + E) ...
    double min_candidates = 24;    // ... but at least this many ...
    double max_candidates = 1000;  // ... and at most this many
    long factor_steps = 400000;    // recursion steps of one factorised family's enumeration at most
    int stock_permutations = 720;  // axis orders of the stock family at most (6! : every order of 6 axes)
};

// Scotch as a peer mapper (scotch.cpp: map_scotch); its strategies are
// Scotch's own, these are the numbers rankmap hands it.
struct ScotchContext {
    double imbalance = 0.01;     // load imbalance Scotch may leave between terminals (fraction)
    double max_edge_load = 1e6;  // heaviest edge after rescaling non-integral weights (Scotch's integer loads)
};

// Presets.  Size classes: small up to 1024 tasks, medium up to 4096 (auto)
// or 8192 (congestion), large above.
AnnealContext anneal_preset();
BandContext band_preset();
// auto's F-tuned settings for N tasks.
AutoContext auto_preset(int n);
// The fast strategy's settings for N tasks: auto_preset up to 1024 tasks;
// above, budgets that keep the mapping within seconds (bench/mapping
// --scale) and only the starts and chains that pay at that size.
AutoContext auto_fast_preset(int n);
// auto's settings for congestion's starts: the link-load band search
// (uniform partner draw, every translation, the full cooling, the smaller
// work shares), whose placements carry lighter busiest links.
AutoContext auto_link_load_preset(int n);
// auto's settings for the coarse problem of the multilevel path (N coarse
// tasks): auto_preset without the cold chain above 4096 tasks.
AutoContext auto_coarse_preset(int n);
CongestionContext congestion_preset(int n);
KlContext kl_preset();
GeometricContext geometric_preset(int n);
DivideAnnealContext divide_anneal_preset();
GreedyContext greedy_preset();
CartContext cart_preset();
ScotchContext scotch_preset();
KwayContext kway_preset();
// The hierarchy mapper for N tasks (size classes: small up to 1024 tasks,
// medium up to 8192, large above).
HierContext hier_preset(int n);
// The tree path of the fast strategy: hier_preset up to 1024 tasks; above,
// fewer multisections and refinement rounds (bench/hierarchy).
HierContext hier_fast_preset(int n);

} // namespace rankmap

// tuning.hpp -- the tuned numbers of the default pipeline, as data.
//
// One context per mapper family (annealing, band search, auto, congestion,
// Kernighan-Lin, graph drawing, divide-and-conquer annealing, greedy, the
// Cartesian search, the hierarchy mapper on trees), each field with its
// meaning and unit.  The fields have no default here: one preset function
// per context (tuning.cpp) sets every field, and size classes and the other
// strategies override some of them, so each value is written once.  The
// algorithms read their numbers from a preset and hold no tuned literal of
// their own.  doc/tuning.md gives every field's values and the benchmark
// command that chose them; maint/check-tuning.py checks that every field is
// set by its preset and that doc/tuning.md names it with that value.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace rankmap {

// Metropolis annealing of a placement (anneal.cpp: anneal_tasks).
struct AnnealContext {
    double hot_acceptance;         // initial acceptance of a hot chain (fraction of sampled proposals)
    double cold_acceptance;        // initial acceptance of a cold chain, unless the caller sets one
    double hot_equilibrium_max;     // warm-up raises beta until a hot chain accepts at most this fraction
    double cold_equilibrium_factor; // same for a cold chain: at most this x its initial acceptance
    double warmup_beta_factor;     // beta multiplier per warm-up round
    int warmup_rounds;                // warm-up rounds at most ...
    int warmup_round_divisor;         // ... of 1/this of a beta step's proposals each
    int calibration_min;           // proposals sampled to calibrate beta: at least this many
    int calibration_max;          // ... at most this many
    int calibration_per_task;         // ... and this many per movable task in between
    double final_beta_factor;        // final beta is at least this x the initial beta
    double uphill_odds;            // final beta accepts a small uphill move once in this many tries
    int small_uphill_quantile;       // "small uphill": the 1/this quantile of the sampled uphill deltas
    double default_sweeps;         // proposals per movable task when the caller gives none
    double local_fraction;          // share of proposals sent next to a partner's node
    double refine_sweeps_hot;      // anneal_refine / `anneal`: proposals per task from a hot start
    double refine_sweeps_cold;      // ... from a cold start
    double step_time_margin;       // a beta step's proposals are cut to fit this share of the time left
    int near_extra;                  // near-node list: the node, its 2 x ndims neighbours and this many more (nodes)
};

// Translation-periodic band search (band.cpp: band_embedding).
struct BandContext {
    int max_offsets;            // distinct rank offsets at most (more: not a band graph)
    int min_tile;                // tile size P (tasks) at least
    int max_tile;             // tile size P (tasks) at most
    double max_period_error;  // periodised graph must explain the graph within this share of its weight
    size_t max_candidates;    // translations searched at most (evenly spaced subset above)
    int dense_distance_max;   // byte distance table up to this many nodes (speed only)
    int local_moves_in_ten;      // proposals out of ten sent next to a partner (others: any node)
    double evals_per_proposal;  // distance evaluations per tile proposal (turns work into proposals)
    double min_round_proposals;  // proposals per translation in the first halving round, at least
    int halving_factor;          // successive halving keeps 1/this of the translations, x this work each
    int ordered_share_divisor;  // first round: 1/this of a translation's work from the ordered start
    bool weighted_partners;   // anchor partner drawn by edge weight (off: uniformly)
    bool staircase;           // search only the staircase-predicted translations, random starts too
    double start_temperature;  // tile annealing start, in units of a task's energy at F = F_min
    double end_temperature;   // tile annealing end, same unit (geometric cooling)
    int large_tile;            // tiles of at least this many tasks anneal between the two below (0: never)
    double large_tile_start_temperature;  // their start, same unit (bench/chains --band-temperature)
    double large_tile_end_temperature;   // their end, same unit
};

// k-way refinement of a partition with exact part sizes (hier/kway.cpp).
struct KwayContext {
    int chain_passes;           // ejection-chain passes per level at most (a pass without gain stops earlier)
    int chain_moves;           // moves in one ejection chain at most
    int union_tries;            // METIS seeds per union of parts
    int coarse_part_divisor;    // a coarse vertex holds at most 1/this of the largest part (tasks)
    int coarsest_per_part;      // coarsening stops at this many vertices per part
    double min_coarsening;    // ... or when a level keeps more than this share of the vertices
    double min_cycle_gain;   // V-cycles stop when one lowers the cut by less than this share of it
};

// The hierarchy mapper on trees (hier.cpp: tree_refined_map, map_hier).
struct HierContext {
    int outer_tries;           // METIS seeds per bisection of the outermost split
    int inner_tries;            // METIS seeds per bisection of inner splits, at most
    int few_per_child;          // splits of at most this many tasks per child: one seed
    int extra_multisections;    // multisections after the first, with half the outer tries each
    double start_kl_share;   // deadline share of KL on each multisection / Scotch start
    double grid_kl_share;     // deadline share of KL on the grid-block start
    double sweeps;            // cold chain length (proposals per task; 0: no chain)
    double cold_acceptance;  // cold chain's initial acceptance (fraction)
    double anneal_share;     // deadline share of the cold chain
    bool scotch_start;       // Scotch's tleaf map is a start (when built with Scotch)
    int kl_passes;              // KL passes after each step at most (0: until a pass gains nothing)
    int node_group;             // node-tier unions: this many neighbouring nodes re-partitioned together
    int node_cycles;           // node-tier V-cycles at most
    KwayContext kway;               // the node-tier refinement's own settings
};

// The default mapper (auto.cpp: map_auto).
// Multilevel start (multilevel.cpp: multilevel_start) and the fine chain
// auto runs from it.
struct MultilevelContext {
    int min_tasks;        // auto takes the multilevel path above this many tasks (instead of the drawing and the hot chain)
    int block;                  // nodes per block (coarse node) sought: even extents halved until a block holds this many
    int min_block;              // ... and at least this many, else no multilevel path
    double cold_acceptance;   // the fine chain's initial acceptance (fraction)
    double sweeps;            // the fine chain's length (proposals per task)
    int kl_passes;              // KL passes after the fine chain (0: until a pass gains nothing)
    double coarse_time_share; // deadline share of the coarse map under a caller's time limit
    uint64_t salt;         // RNG stream of the fine chain
    bool and_chains;        // the graph drawing and the chains run as well (the lower F wins)
};

struct AutoContext {
    std::array<double, 3> budget_tasks;  // default budget: log-log interpolation points (tasks)
    std::array<double, 3> budget_seconds;  // ... and their budgets (seconds)
    double min_budget;           // default budget at least (seconds)
    double net_factor;            // safety-net deadline without a time limit: this x budget ...
    double net_extra;             // ... or budget + this (seconds), whichever is less ...
    double net_min;               // ... but at least this (seconds)
    double evals_per_second;   // nominal annealing speed (partner-distance evaluations per second)
    double cache_tasks;        // nominal speed divided by 1 + N / this (cache misses)
    double evals_per_degree;       // evaluations per proposal: this x mean degree ...
    double evals_per_proposal;     // ... + this
    double min_sweeps;            // chain length at least (proposals per task)
    double max_sweeps;          // chain length at most (proposals per task)
    double structured_kl_share;  // deadline share of KL on the structured candidate
    double structured_accept;    // the structured candidate ends auto when its F <= this x F_min
    double geometric_share;      // deadline share of the graph-drawing start
    double geometric_cold_margin;  // geometric start goes cold when its F <= this x the best start's
    double hot_share;            // hot chain's work (x nominal budget; 0: no hot chain)
    int hot_skip_min_extent;       // no hot chain on a torus of 3+ dimensions, all wrapped, every extent >= this (0: never skipped)
    double cold_share;           // cold chain's work (x nominal budget)
    double cold_acceptance;     // cold chain's initial acceptance (fraction)
    int scotch_start_max_tasks;  // Scotch's map is a start up to this many tasks (costly at large sizes)
    int bisection_start_max_tasks;  // the co-bisection map likewise (costly at large sizes)
    bool bisection_without_scotch;  // the co-bisection map is a start only when Scotch's map is not
    bool hot_from_geometric;   // hot chain from the graph-drawing start when there is one (else the best start)
    bool cold_from_hot_start;   // the cold chain may start where the hot chain did (false: from another start only)
    bool cold_from_other_start;  // ... and from another start (false with the above: no cold chain; its share still feeds the band search's phase 2)
    int chain_kl_passes;           // KL passes after each chain and the first band phase at most (0: until a pass gains nothing)
    bool band_search;           // rank-ordered band graphs get the band search (step 3)
    double hot_time_share;       // deadline share of the hot chain
    double hot_kl_share;         // deadline share of KL after the hot chain
    double cold_time_share;     // deadline share of the cold chain
    double cold_kl_share;        // deadline share of KL after the cold chain
    uint64_t hot_salt;        // RNG stream of the hot chain
    uint64_t cold_salt;       // RNG stream of the cold chain
    // Band search (step 3), in units of the nominal budget's evaluations.
    double band_phase1;          // phase 1's work (x nominal budget)
    double band_time_share;      // deadline share of each band phase
    double band_kl_share;        // deadline share of KL after each band phase
    double band_chain_scale;    // chains' work scale when the band result beats every start
    bool chains_after_band;     // ... and the chains run then (false: they and the graph drawing are left out)
    double band_phase2_bonus;    // phase 2's work on top of the chains' saved work (x nominal budget)
    double band_phase2_extra;    // ... and this much more (x nominal budget)
    uint64_t band_phase2_seed;  // phase 2 runs with seed + this
    size_t band_phase2_translations; // phase 2 searches phase 1's best this many (0: every translation)
    BandContext band;                  // the band search's own settings
    MultilevelContext multilevel;      // the multilevel path's settings (large sizes)
    HierContext hier;                  // the tree path's settings (step 2)
};

// Busiest-link refinement (congestion.cpp: map_congestion).
struct CongestionContext {
    int starts;                  // auto runs (seeds seed, seed+1, ...) the lightest-link start is chosen from
    int max_links_log2;         // machines with more than 2^this links keep auto's placement
    int near_nodes;             // swap partners: tasks on this many nodes nearest a task's node
    int partner_tries;           // draws of a partner node other than the task's own
    int temperature_samples;   // proposals sampled to set the temperature
    double start_temperature; // start temperature, x mean |delta Phi| of the samples
    double cooling;           // end temperature, x start temperature
    int64_t sweeps;           // chain length (proposals per task)
    int best_samples_per_sweep;  // the best state is sampled this many times per sweep
};

// Kernighan-Lin pair exchange (kernighan_lin.cpp).
struct KlContext {
    int partners_tried;  // heaviest partners whose nodes are tried per task
    int near_tried;      // nodes around each partner's node tried
    int stall_limit;    // exchanges past the best prefix before a pass stops
    int max_passes;    // passes at most (a pass without gain stops earlier)
};

// Graph-drawing start (geometric.cpp: geometric_map).
struct GeometricContext {
    int pivots;        // MDS pivots (at most N)
    int majorize_rounds;  // stress-majorization rounds
    int rotations;      // orientations of the drawing tried (the first axis-aligned)
    double max_edge_length;  // edge length in the drawing at most (x the length of a mean-weight edge)
    int mds_iterations;    // subspace iterations of the pivot MDS eigenvectors
    int align_angles;       // angles tried per axis pair when aligning the drawing (over a quarter turn)
    int align_sweeps;        // sweeps over all axis pairs when aligning the drawing
    int min_tasks;           // fewer tasks: no drawing (tasks)
};

// Divide-and-conquer annealing (divide_anneal.cpp).
struct DivideAnnealContext {
    double l_ratio;       // l-ratio limit L when Options::l_ratio is 0
    size_t min_split;       // subgraphs below this many tasks are annealed whole
    double time_share;     // a subgraph's deadline share: this x its share of the tasks left
};

// Greedy placement (greedy.cpp: greedy_fill).
struct GreedyContext {
    int partners_tried;        // heaviest mapped partners whose near nodes are tried
    int search_found;          // breadth-first search for room stops after this many nodes with room ...
    size_t search_limit;    // ... or once this many nodes are queued (nodes)
};

// Search over structured grid embeddings (cartesian.cpp: best_grid_embedding).
struct CartContext {
    double work_budget;    // edge evaluations: candidates = this / (N + E) ...
    double min_candidates;    // ... but at least this many ...
    double max_candidates;  // ... and at most this many
    long factor_steps;    // recursion steps of one factorised family's enumeration at most
    int stock_permutations;  // axis orders of the stock family at most (6! : every order of 6 axes)
};

// Scotch as a peer mapper (scotch.cpp: map_scotch); its strategies are
// Scotch's own, these are the numbers rankmap hands it.
struct ScotchContext {
    double imbalance;     // load imbalance Scotch may leave between terminals (fraction)
    double max_edge_load;  // heaviest edge after rescaling non-integral weights (Scotch's integer loads)
};

// Presets: each returns a context with every field set.  Size classes:
// small up to 1024 tasks, medium up to 4096 (auto) or 8192 (congestion),
// large above.
AnnealContext anneal_preset();
BandContext band_preset();
// The multilevel path's settings (auto_preset's and auto_fast_preset's
// override some).
MultilevelContext multilevel_preset();
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

// mapper.hpp -- the mapper interface: algorithms chosen by enum class and a
// factory switch with no default (the compiler flags a forgotten case).
// Identity is a mapper like any other.
//
// A mapper returns place[i] = node of task i, a valid placement (every node
// holds between capacity.lo and capacity.hi tasks).  Mappers never print
// except through Problem::progress, never exit, and throw rankmap::Error on
// bad input.  Randomized mappers draw only from Rng(options.seed) so the same
// seed gives the same mapping.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/timer.hpp"
#include "cost/cost.hpp"
#include "graph/graph.hpp"
#include "topology/topology.hpp"

namespace rankmap {

enum class Algorithm {
    Identity,     // task i on node i (rank order), wrapping by capacity
    Random,       // uniformly random valid placement
    Order,        // a BG/L stock permutation (options.order, e.g. "ZYXT")
    Cartesian,    // structured embedding of a Cartesian task grid
    Greedy,       // Bhanot et al. (BG/L task layout) heuristic, greatest-volume-first refinement
    Anneal,       // simulated annealing of Bhanot et al., started from Greedy
    DivideAnneal, // divide-and-conquer annealing, Bhanot et al. Figure 4
    KernighanLin, // pair exchange of Chen et al. (MPIPP) with incremental gains
    Scotch,       // Scotch's SCOTCH_graphMap (peer, if built with Scotch)
    Hier,         // tree topologies: multisection along the tiers + refinement
    Congestion,   // auto, then refined for the busiest link (torus/mesh routes)
    Auto,         // the `quality` strategy: combines the above within the time budget
    Fast          // the `fast` strategy: auto's pipeline with the in-call budgets
};

// "auto", "identity", ... -> Algorithm; throws naming the bad value and the
// list of valid names.
Algorithm parse_algorithm(const std::string &name);
const char *algorithm_name(Algorithm a);
std::vector<std::string> algorithm_names();

// Cartesian structure of the task set, when known (MPI_Cart_create, or a
// grid recognised in the graph).  Task r has row-major coordinates, last
// dimension fastest.
struct CartGrid {
    std::vector<int> dims;
    std::vector<int> periods;
};

struct Options {
    uint64_t seed = 1;
    double time_limit = 0;     // seconds; <= 0: the algorithm's default
    int verbose = 0;           // 2: progress lines on stderr
    std::string order = "XYZT";   // for Algorithm::Order
    std::string strategy;         // for Algorithm::Scotch: "default"|"quality"|"speed"
    double l_ratio = 0.0;      // DivideAnneal: l-ratio limit L (0: default)
    int anneal_steps = 100;    // number of beta steps (Bhanot et al.: about 100)
};

// Annealing convergence: one point per beta step (for plots).
struct TracePoint {
    int step;
    double beta;
    double ratio;       // F / F_min at the end of the step
    double acceptance;  // fraction of proposals accepted in the step
};

struct Problem {
    const Graph &g;        // directed C(i,j)
    const Graph &sym;      // symmetrized
    const Topology &topo;
    Capacity cap;
    double f_min;          // lower bound (for normalisation)
    std::optional<CartGrid> grid;
    Options opt;
    Deadline deadline;
    std::vector<TracePoint> *trace = nullptr;  // optional
    std::function<void(const std::string &)> progress;  // optional
    // Set to true (when not null) if a wall-clock safety net, not the work
    // budget, ended the search: the result then depends on the machine's
    // speed and load (auto and fast without Options::time_limit).
    bool *stopped_by_clock = nullptr;
};

// Build a Problem's derived data (symmetrized graph, capacity, F_min).
struct ProblemData {
    Graph sym;
    Capacity cap;
    double f_min;
};
ProblemData prepare(const Graph &g, const Topology &topo);

// Run one algorithm.  The result is checked (check_placement) before return.
std::vector<int> run_mapper(Algorithm a, const Problem &p);

// The individual mappers (one file each under src/map/).
std::vector<int> map_identity(const Problem &p);
std::vector<int> map_random(const Problem &p);
std::vector<int> map_order(const Problem &p);
std::vector<int> map_cartesian(const Problem &p);
std::vector<int> map_greedy(const Problem &p);
std::vector<int> map_anneal(const Problem &p);
std::vector<int> map_divide_anneal(const Problem &p);
std::vector<int> map_kernighan_lin(const Problem &p);
std::vector<int> map_scotch(const Problem &p);
std::vector<int> map_hier(const Problem &p);
std::vector<int> map_auto(const Problem &p);
// auto with the fast strategy's settings (tuning.hpp: auto_fast_preset).
std::vector<int> map_fast(const Problem &p);
// auto with explicit settings (tuning.hpp: auto_preset, auto_link_load_preset).
struct AutoContext;
std::vector<int> map_auto(const Problem &p, const AutoContext &ctx);
std::vector<int> map_congestion(const Problem &p);

// Refiners used by the composite mappers: improve `place` in place.
// anneal_refine: Metropolis annealing from a start placement; kl_refine:
// pair-exchange passes until no gain, the deadline or max_passes passes
// (0: KlContext::max_passes).
void anneal_refine(const Problem &p, std::vector<int> &place, const Deadline &dl,
                   bool from_cold = false);
void kl_refine(const Problem &p, std::vector<int> &place, const Deadline &dl, int max_passes = 0);

} // namespace rankmap

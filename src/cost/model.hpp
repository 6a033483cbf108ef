// model.hpp -- predicted communication time of a placement:
// one number in seconds that the rest of the engine can compare placements
// by, built from the quantities src/cost already knows (hop-bytes, the
// busiest link under the machine's own routes) and, for groups of tasks that
// do all-to-all, the same link loads step by step of the pairwise exchange,
// with the bisection model of Jagode et al. (FFT task placement) as their
// floor.  The terms and their constants are explained in model.cpp.
#pragma once
#include <string>
#include <vector>

#include "graph/graph.hpp"
#include "topology/topology.hpp"

namespace rankmap {

// Machine and unit constants of the model.  Empty vectors take the defaults
// of bench/simgrid/sg_platform.py, so that the model predicts the suite's
// simulated seconds:
//   torus / mesh / file: one value, 154 MB/s per link and direction and
//     100 ns per link (BG/L link payload rate; the platform's per-hop latency);
//   tree: one value per tier, outermost first.  The innermost tier (cores of
//     one node) is shared memory, 2 GB/s and 1 us; every outer tier is
//     gigabit Ethernet, 125 MB/s per direction and 50 us.  (The platform's
//     Fast-Ethernet backbone of the 8x4 three-tier cluster, 12.5 MB/s, is a
//     non-default and is passed explicitly.)
//   dragonfly: one value per link class, blue (global), black, green,
//     injection and, with cores per host, memory; bandwidths per wire (a
//     link of k wires has k times it).  Defaults: 25 GB/s and 500 ns per
//     link (200 Gb/s as HPE Slingshot), memory 100 GB/s and 200 ns.
struct ModelParams {
    double bytes_per_unit = 1;       // bytes per unit of graph weight
    std::vector<double> bandwidth;   // bytes/s per link and direction
    std::vector<double> latency;     // seconds per link crossed
};

// The prediction and its terms (seconds).  seconds = exchange + alltoall.
struct TimePrediction {
    double seconds = 0;
    double exchange = 0;      // point-to-point traffic outside all-to-all groups
    double alltoall = 0;      // the all-to-all phases, one after another
    double busiest_link = 0;  // busiest link of the exchange or of any all-to-all step
    double bisection = 0;     // largest bisection floor (Jagode et al.) of any phase
    double hop_bytes = 0;     // F under the hops metric, in bytes (reported, not a term)
    int phases = 0;           // all-to-all phases found in `alltoall_groups`
};

// Predicted communication time of `place` (task -> node) for graph `g`.
//
// alltoall_groups: optional lists of tasks (in communicator rank order) that
// exchange by MPI_Alltoall; the graph's edges inside a group are that
// all-to-all's messages.  Consecutive groups with no task in common run at
// the same time (one phase, e.g. all rows of a process grid); a group that
// shares a task with the current phase starts the next phase (the columns).
// Every other edge is a point-to-point message of one concurrent exchange.
//
// Throws rankmap::Error on a bad placement, a task outside [0, n) in a
// group, or a bandwidth/latency vector of the wrong length.
TimePrediction predict_time(const Graph &g, const Topology &topo, const std::vector<int> &place,
                            const std::vector<std::vector<int>> &alltoall_groups = {},
                            const ModelParams &params = {});

// Reads all-to-all groups: one group per line, task numbers separated by
// blanks, `#` comments.  Errors name the file and line.
std::vector<std::vector<int>> read_groups(const std::string &path);

// The guard of every reorder path (rankmap_glue.h, step 5; `rankmap map
// --guard`): is `proposed` clearly better than `current`?  A graph's weights
// have no unit in an MPI call, so two regimes are judged: small messages by
// F (hop count), large ones by predict_time() with a unit of weight taken as
// a 1 MiB message (bandwidth dominates latency on every machine the model
// knows).  The proposed placement passes when it is no worse in either
// regime and lower by at least `margin` (a fraction) in one; on a plain
// tree also no slower for large messages under the leaf switches the tree
// does not declare (model.cpp, hidden_switches_slower); for a grid's
// exchange also no slower for small messages sent one direction at a time
// (ExchangePhases below).
enum class GuardMode { Model, F, Off };

// The guard's bandwidth regime: predict_time() with a unit of weight taken
// as a 1 MiB message.
double bandwidth_time(const Graph &g, const Topology &topo, const std::vector<int> &place,
                      const std::vector<std::vector<int>> &alltoall_groups);

// F of the traffic outside the all-to-all groups (edges between two tasks
// of one group are left out): the guard's latency regime.  A declared
// all-to-all is judged by its phases alone, since its time does not follow
// hop counts: large messages follow the busiest links, small ones the
// number of messages, which no placement changes.
double exchange_F(const Graph &g, const Topology &topo, const std::vector<int> &place,
                  const std::vector<std::vector<int>> &alltoall_groups);

// An exchange done one direction at a time, as LAMMPS's ghost exchange and
// many stencil codes do it (to x-, then x+, then y-, ...): in phase k task t
// sends to partner[k][t] (-1: to nobody).  A phase lasts as long as its
// slowest message, so for small messages such an exchange costs the sum
// over its phases of the largest distance the phase crosses.  F orders two
// placements the other way when one keeps whole phases inside a node (a
// line of the grid per node) and the other keeps more messages there but
// no phase (a cube of the grid per node).
struct ExchangePhases {
    std::vector<std::vector<int>> partner;
};

// Sum over the phases of the largest distance between partners.
double phased_latency(const Topology &topo, const std::vector<int> &place, const ExchangePhases &phases);

// What is known of an exchange's messages: `bytes` has the graph's tasks
// and an edge a -> b whose weight is the bytes of one message a sends b (a
// graph file's weights times its bytes per unit; a profile's bytes over its
// message count); `machine` gives the links' bandwidths and latencies.
struct MessageSizes {
    const Graph *bytes = nullptr;
    ModelParams machine;
};

// Sum over the phases of the time the phase's messages take, posted
// together, at their known sizes (the drain of predict_time's exchange).
// A message a -> b takes the weight of the edge a -> b, else of b -> a;
// partners with no edge between them send nothing.
double phased_time(const Topology &topo, const std::vector<int> &place, const ExchangePhases &phases,
                   const MessageSizes &sizes);

struct GuardVerdict {
    bool take = true;       // false: keep the current placement
    std::string why;        // "" when taken; else "slower for small messages", ...
    std::string figures;    // "F a before, b after; predicted x s before, y s after for 1 MiB per unit"
    double F_current = 0, F_proposed = 0, T_current = 0, T_proposed = 0;
};

// phases: the graph's exchange read one direction at a time too (a grid's,
// map/grid.hpp: grid_exchange_phases); the model mode then also refuses a
// placement whose phased_latency() is higher, or, when the messages' sizes
// are known (sizes), whose phased_time() at those sizes is higher: the
// latency reading holds for small messages only, and a large message's
// time follows the links it shares.
GuardVerdict guard_verdict(const Graph &g, const Topology &topo, const std::vector<int> &current,
                           const std::vector<int> &proposed, const std::vector<std::vector<int>> &alltoall_groups,
                           GuardMode mode, double margin, const ExchangePhases *phases = nullptr,
                           const MessageSizes *sizes = nullptr);

} // namespace rankmap

/*
 * rankmap_glue.h -- what the engine decides for the MPI layer
 * (src/mpilayer, include/rankmap_mpi.h): the address table of
 * MPI_COMM_WORLD (the machine node of every rank, from the settings or from
 * discovery), the machine of a communicator, and, from a communicator's
 * members and a communication graph, the new rank of every member.  The
 * layer calls these functions in MPI_Init and on the members of
 * MPI_Cart_create, MPI_Graph_create and MPI_Dist_graph_create for both MPI
 * paths (the PMPI plugin and the patched MPICH); it reads the settings and
 * communicates, these decide.
 *
 * Conventions are those of rankmap.h: RANKMAP_OK (0) or a negative
 * rankmap_status, a message in rankmap_last_error() on failure, no
 * exception, exit() or abort().
 */
#ifndef RANKMAP_GLUE_H
#define RANKMAP_GLUE_H

#include <stddef.h>

#include "rankmap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The guard's clear margin: a predicted gain below 2 % of the current value
 * is too close to the model's error against SimGrid to act on
 * (bench/results/cost-model.md: its median error, and how often it orders
 * placements more than 2 % apart as the simulation does).                 */
#define RANKMAP_GUARD_MARGIN 0.02

/* ---- flags of rankmap_reorder_ranks() ------------------------------------ */
/* Let rank 0 move: the placement stays as the mapper returned it.  Without
 * this flag member 0 keeps rank 0 (see below).                             */
#define RANKMAP_REORDER_FREE_RANK0 0x1
/* The guard of step 5 judges by F alone (a new order is kept when its F is
 * strictly lower), not by the cost model.                                   */
#define RANKMAP_REORDER_GUARD_F 0x2
/* No guard: the mapper's order is taken whenever it is valid.              */
#define RANKMAP_REORDER_GUARD_OFF 0x4

/* The guard setting of the MPI layers (MPIR_CVAR_RANKMAP_GUARD) as flags:
 * "model" (or NULL / ""): 0, "f": RANKMAP_REORDER_GUARD_F, "off":
 * RANKMAP_REORDER_GUARD_OFF.  Any other value: RANKMAP_ERR_INVALID, *flags
 * 0 (the model guard) and a message naming the value.                     */
int rankmap_guard_flags(const char *setting, int *flags);

/* The graph of a Cartesian grid (as rankmap_graph_cartesian) whose lines
 * along some dimensions exchange by MPI_Alltoall -- the sub-communicators of
 * MPI_Cart_sub with one remaining dimension, as pencil-FFT codes transpose.
 *   alltoall: "none": no such dimension (a stencil); NULL, "" or "unknown":
 *   not declared (the stencil's graph, judged by rankmap_reorder_ranks()
 *   both as a stencil and as transposes, below); "all": every dimension; or
 *   a comma-separated list of dimensions (0 = the first of dims, as in
 *   MPI_Cart_sub's remain_dims).
 * Along such a dimension d every pair of a line is an edge of weight
 * W / dims[d], W the product of the all-to-all dimensions' extents (each
 * task sends the same volume in every transpose); the other dimensions keep
 * their stencil edges of weight 1.  The lines are recorded in the graph as
 * all-to-all groups, one phase per dimension, for the cost model that the
 * guard of rankmap_reorder_ranks() uses.  A bad list gives
 * RANKMAP_ERR_INVALID naming the entry.                                    */
int rankmap_graph_cartesian_alltoall(int ndims, const int *dims, const int *periods,
                                     const char *alltoall, rankmap_graph_t *graph);

/* New ranks for the members of a communicator.
 *   Member i is the process of current rank i (0 <= i < nmembers); it runs
 *   on machine node node_of_member[i] of topo.  The graph has ntasks tasks,
 *   1 <= ntasks <= nmembers (task r = new rank r).
 *   new_of_member[i] (nmembers entries) receives the new rank of member i,
 *   or -1 for members beyond ntasks (MPI_UNDEFINED / MPI_COMM_NULL).
 *   opts: as for rankmap_map() (NULL: defaults).
 *   before, after (either may be NULL): before = the current order (task r
 *   on node_of_member[r]); after = the order returned (F by evaluation, the
 *   mapper's name in `algorithm`, "identity (no gain)" when the guard keeps
 *   the current order; `seconds` = the whole call).  When the current order
 *   is not a balanced placement (rankmap_evaluate() refuses it), before->F
 *   is -1 and the guard does not apply.
 *   why (whylen bytes, may be NULL): on failure one line naming the cause;
 *   on success a short note of the decision with the model's predicted
 *   times ("rank 0 kept by a translation; predicted 1.2e-3 -> 8.1e-4 s",
 *   "no clear gain (bandwidth: predicted ...): current order kept", ...).
 * Steps:
 *   1. evaluate the current order;
 *   2. rankmap_map();
 *   3. rank 0 (unless RANKMAP_REORDER_FREE_RANK0): on a tree the placement
 *      is first moved, by exchanges of subtrees (F unchanged), to the one
 *      closest to the current order (each switch's and node's children
 *      matched by shared tasks, task 0's first, ties in ascending order);
 *      then it is moved by a symmetry of the machine so that task 0 sits on
 *      node_of_member[0]:
 *        torus (wrapped dimensions, and the local dimension of local=):
 *          a translation -- F and every link load unchanged;
 *        tree: exchanging equivalent subtrees -- F unchanged;
 *        mesh and mixed wrap: reflections (and exchanges of equal
 *          dimensions) when one brings task 0 there -- F unchanged;
 *          otherwise the lowest F of such a symmetry plus an exchange of
 *          task 0 with a task on the target node;
 *        file: (no known symmetry): the exchange of task 0 with the task on
 *          the target node that gives the lowest F;
 *      member 0 then keeps rank 0;
 *   4. placement -> ranks: a member already on the node of its own task
 *      keeps its rank, the other tasks of a node go to its remaining
 *      members, lowest member first;
 *   5. guard (unless RANKMAP_REORDER_GUARD_OFF): the new order is kept
 *      only when the cost model predicts it no slower in either regime and
 *      clearly faster in one: the latency regime by F (hop count of the
 *      messages), the bandwidth regime by the model's predicted time with
 *      the graph's weights as large messages (busiest link under the
 *      machine's routes; all-to-all groups step by step with the bisection
 *      floor).  "Clearly": lower by at least RANKMAP_GUARD_MARGIN of the
 *      current value.  On a plain tree (no up=) the new order must also be
 *      no slower for large messages with the outermost tier's entities in
 *      consecutive groups of L = 2, 4, ..., 32 under leaf switches of L / 2
 *      uplinks (the switches a plain tree does not describe, tapered 2:1).
 *      Else, when the current order is not the machine's own (the members
 *      sorted by node: a block launch), that order is judged the same way
 *      and taken when it passes (algorithm "identity (the machine's
 *      order)"); else every member keeps its rank and why says which
 *      regime refused.
 *      RANKMAP_REORDER_GUARD_F: F strictly lower, alone.
 *      A grid whose traffic is not declared (rankmap_graph_cartesian_alltoall
 *      with NULL, "" or "unknown") is judged in two readings, as a stencil
 *      and as transposes along every dimension: the stencil's order is
 *      taken when it passes as a stencil and is no slower as transposes;
 *      else (up to 1024 tasks) the order mapped for the transposes, then on
 *      trees the same with its hosts in ascending order, when it passes as
 *      transposes and is no slower as a stencil; else the machine's order
 *      (above) when it passes as a stencil and is no slower as transposes;
 *      else the current order stays.  Any other graph without all-to-all
 *      groups whose edges split into equal-weight cliques (the transposes
 *      of a pencil FFT given as a graph) is judged with those cliques as all-to-alls and as an
 *      exchange, and its order taken only when both readings gain, on
 *      trees the same order with its hosts in ascending order first.
 * On any failure (bad argument, mapper error or timeout, a placement with
 * more tasks on a node than it has members) new_of_member is the identity
 * (i for i < ntasks, -1 beyond), the status is negative and why says why.
 * Deterministic: the same arguments (and opts->seed) give the same ranks.  */
int rankmap_reorder_ranks(rankmap_topology_t topo, rankmap_graph_t graph,
                          const rankmap_options *opts, int nmembers,
                          const int *node_of_member, int ntasks, int flags,
                          int *new_of_member, rankmap_report *before,
                          rankmap_report *after, char *why, size_t whylen);

/* Step 3 alone, on a placement: moves node_of_task (ntasks = the graph's
 * tasks, a balanced placement) by the rules above so that task 0 sits on
 * `node`.  report (may be NULL) receives the evaluation of the result;
 * *exact (may be NULL) is 1 when only a symmetry was applied (F unchanged),
 * 0 when task 0 was also exchanged with another task.  On failure
 * node_of_task is untouched.                                              */
int rankmap_place_task0(rankmap_topology_t topo, rankmap_graph_t graph,
                        int node, int *node_of_task, rankmap_report *report,
                        int *exact);

/* The machine of some processes of a job: the distances among
 * nodes[0..n-1] of topo as a distance-matrix model (node i of *out is
 * nodes[i]; a node may repeat, at distance 0).  The MPI layer maps a
 * communicator that does not fill the machine evenly on it.  Free *out with
 * rankmap_topology_free().  A node outside topo: RANKMAP_ERR_INVALID.     */
int rankmap_topology_restrict(rankmap_topology_t topo, int n, const int *nodes,
                              rankmap_topology_t *out);

/* ---- the portfolio: the communicator's ranks map together -----------------
 * The MPI layers run rankmap_reorder_ranks() on the first K members of the
 * communicator at once, each with its own seed, and keep the best result:
 *   1. rank 0 builds the graph and, when K > 1, sends it packed
 *      (rankmap_graph_pack) to members 1..K-1 only (every process learns
 *      its length, so that all agree on K); members 1..K-1 unpack it;
 *   2. member i < K calls rankmap_reorder_ranks() with
 *      rankmap_portfolio_seed(seed, i) -- member 0 with the seed itself, so
 *      its candidate is the one rank 0 computes alone;
 *   3. the election, in the guard's two regimes (step 5 above): an
 *      allreduce MIN of the members' F (rankmap_portfolio_score(); small
 *      messages) gives the lowest F; then an allreduce MINLOC of
 *      (rankmap_portfolio_runoff(), member) elects, among the members whose
 *      F is within RANKMAP_GUARD_MARGIN of the lowest -- as good for small
 *      messages as the model can tell -- the one with the lowest predicted
 *      time for large messages (rankmap_portfolio_time()); the lowest
 *      member on ties, member 0 when every member failed (its result is
 *      then the identity);
 *   4. the winner hands every process its new rank.
 * The permutation depends on the arguments, the seed and K only; every
 * search is budgeted in work, and a member's wall-clock time limit is a
 * safety stop: a member that fails or runs out scores +inf and the others
 * win.  Every rank ends with the winner's permutation.                    */

/* Members that map by default: the busiest link, not F, sets SAGE-like's
 * time on the 8x8x8 torus, and few searches reach its best class; 32
 * members do for most seeds (bench/results/smpi-seeds.md) at the wall time
 * of one plus the election when the members have cores of their own
 * (bench/results/portfolio.md).                                          */
#define RANKMAP_PORTFOLIO_DEFAULT 32

/* K for a communicator of nmembers processes: min(setting, nmembers).
 * setting = MPIR_CVAR_RANKMAP_PORTFOLIO (1: rank 0 alone).  A setting
 * below 1: RANKMAP_ERR_INVALID naming the value, *members = 1.            */
int rankmap_portfolio_members(int setting, int nmembers, int *members);

/* The seed of member i's search: seed for member 0; for i > 0 a splitmix64
 * step of seed and i (distinct, and the same on every machine).          */
uint64_t rankmap_portfolio_seed(uint64_t seed, int member);

/* A member's score: after->F when status is RANKMAP_OK (the order it
 * returns, the current one when the guard kept it), else +inf (HUGE_VAL). */
double rankmap_portfolio_score(int status, const rankmap_report *after);

/* The predicted time of a member's order for large messages: the guard's
 * bandwidth regime (the cost model with a unit of weight as a 1 MiB
 * message, the graph's all-to-all groups as declared; a grid whose traffic
 * is not declared as its stencil).  Task v sits on the node of the member
 * whose new rank is v: node_of_member and new_of_member as given to and
 * returned by rankmap_reorder_ranks() (-1 or any negative: no task).  On
 * failure (a task without a member, a node out of range) *seconds is +inf
 * and the status negative.                                                */
int rankmap_portfolio_time(rankmap_topology_t topo, rankmap_graph_t graph, int nmembers,
                           const int *node_of_member, const int *new_of_member,
                           double *seconds);

/* A member's score in the runoff of step 3: seconds when its F is finite
 * and at most (1 + RANKMAP_GUARD_MARGIN) x F_lowest, else +inf.           */
double rankmap_portfolio_runoff(double F, double seconds, double F_lowest);

/* A graph (with the all-to-all lines and grid of
 * rankmap_graph_cartesian_alltoall) as bytes, for MPI_Bcast as MPI_BYTE
 * between processes of one job (same binary, same byte order).
 * buf NULL: *len receives the packed size.  Else *len is the size of buf
 * on entry and the packed size on return; a smaller buffer:
 * RANKMAP_ERR_INVALID and nothing written.                                */
int rankmap_graph_pack(rankmap_graph_t graph, void *buf, size_t *len);

/* The graph packed by rankmap_graph_pack().  A buffer that is truncated or
 * not a packed graph: RANKMAP_ERR_INVALID and *graph untouched.           */
int rankmap_graph_unpack(const void *buf, size_t len, rankmap_graph_t *graph);

/* ---- the address table ----------------------------------------------------
 * The machine node of every MPI_COMM_WORLD rank (Almasi et al.: the BG/L
 * message layer translates ranks to torus coordinates through a
 * programmable mapping), built in MPI_Init by the patched MPICH and by the
 * PMPI plugin from the same settings.  The MPI layer reads the settings
 * (MPICH's CVARs or the environment) and does the communication; these
 * functions decide, so both layers give a job the same table.  Messages
 * name the MPIR_CVAR_RANKMAP_* setting at fault.                           */

/* The MPI layer's MPI_Dims_create, for torus:auto (0 = success).          */
typedef int (*rankmap_dims_create_fn)(int nnodes, int ndims, int *dims);

/* A declared machine: topology = MPIR_CVAR_RANKMAP_TOPOLOGY, a topology
 * string of rankmap_topology_parse() or torus:auto[N][:...] (the world size
 * split by dims_create into N dimensions, 3 by default); mapping =
 * MPIR_CVAR_RANKMAP_MAPPING: NULL or "" (the default order, every lettered
 * dimension then T), a BG/L order (XYZT, TXYZ, ...), random or random:SEED
 * (the default order shuffled by splitmix64 from SEED, default 1, for
 * experiments) or a mapfile path (rankmap_mapfile_read()).
 * On success *topo (free it with rankmap_topology_free()), node_of_rank
 * [nprocs] and source ("SPEC, mapping WHAT", for messages; may be NULL).
 * On failure nothing is allocated and rankmap_last_error() names the
 * setting: RANKMAP_ERR_TOO_SMALL when the machine cannot hold nprocs.    */
int rankmap_table_declared(const char *topology, const char *mapping, int nprocs,
                           rankmap_dims_create_fn dims_create, rankmap_topology_t *topo,
                           int *node_of_rank, char *source, size_t sourcelen);

/* No declared machine: rankmap_discover() on one rank (the layer
 * broadcasts the result).  node_of_proc[nprocs]: the node of every process
 * from the host names, numbered from 0 (NULL: all on one node);
 * node_size = MPIR_CVAR_RANKMAP_NODE_SIZE (> 0: K consecutive ranks per node
 * instead of the host names; 0: the host names; < 0: an error);
 * discover = MPIR_CVAR_RANKMAP_DISCOVER (further discovery settings, may be
 * NULL); verbose: discovery's own line on stderr.
 * Switches (Slurm's topology/tree plugin): switch_addrs holds nprocs
 * strings of addr_stride bytes, process p's SLURM_TOPOLOGY_ADDR ("" where
 * unset), and addr_pattern is SLURM_TOPOLOGY_ADDR_PATTERN; NULL: none.
 * When every process has one and the job's nodes sit evenly under the
 * switches, the switch tiers go above the nodes as a full-bisection fat
 * tree; a partial, malformed or uneven set gives one warning on stderr
 * and the nodes without their switches.
 * On success spec (speclen bytes) holds a topology string that every rank
 * parses to the same machine, node_of_rank[nprocs] the leaf of every rank
 * and source a description; spec is "" when the machine has one leaf
 * (every order costs the same: ranks keep their order).                  */
int rankmap_table_discover(int nprocs, const int *node_of_proc, int node_size,
                           const char *discover, const char *switch_addrs, size_t addr_stride,
                           const char *addr_pattern, int verbose, char *spec, size_t speclen,
                           int *node_of_rank, char *source, size_t sourcelen);

/* A declared machine against where the processes run.  host_of_proc
 * [nprocs]: the host of every process, numbered from 0 in the order of
 * their first rank (the host names, or MPIR_CVAR_RANKMAP_NODE_SIZE);
 * mapping = MPIR_CVAR_RANKMAP_MAPPING; switch_addrs, addr_stride: Slurm's
 * switch addresses as for rankmap_table_discover() (NULL: none);
 * node_of_rank[nprocs]: the table rankmap_table_declared() built.
 * On a tree without a mapping, when the hosts fit a tier of the tree (the
 * hosts' tier of up=, else the coarsest tier with a group per host), the
 * table is replaced: the hosts (under one Slurm switch together) take the
 * groups of that tier in the order of their first rank, each host's ranks
 * its leaves in rank order; *placed = 1 and note describes it.  Otherwise
 * the table is kept, *placed = 0, and note holds a warning naming the
 * setting when the table puts ranks of one host on different nodes, ranks
 * of different hosts on one node, or the hosts fit no tier of the tree
 * ("" when it agrees).  With one host nothing changes.  Deterministic: the
 * same inputs give the same table on every rank.                          */
int rankmap_table_hosts(rankmap_topology_t topo, int nprocs, const int *host_of_proc,
                        const char *mapping, const char *switch_addrs, size_t addr_stride,
                        int *node_of_rank, int *placed, char *note, size_t notelen);

/* Longest SLURM_TOPOLOGY_ADDR the layers pass (bytes, with the NUL).      */
#define RANKMAP_SWITCH_ADDR_MAX 256

/* A digest of a table for the layers' agreement check (every rank must
 * hold the same table before reordering): the machine's size and every
 * rank's node.  Equal tables give equal digests; the value is >= 0.      */
long rankmap_table_digest(rankmap_topology_t topo, int nprocs, const int *node_of_rank);

#ifdef __cplusplus
}
#endif
#endif /* RANKMAP_GLUE_H */

/*
 * rankmap_glue.h -- the one MPI glue of rankmap: from a communicator's
 * members and a communication graph to the new rank of every member.  The
 * PMPI plugin (src/pmpi/reorder.c) calls it on rank 0 of MPI_Cart_create,
 * MPI_Graph_create and MPI_Dist_graph_create; a patched MPICH can call the
 * same function, so both take the same decision.
 *
 * Conventions are those of rankmap.h: RANKMAP_OK (0) or a negative
 * rankmap_status, a message in rankmap_last_error() on failure, no
 * exception, exit() or abort().  Kept apart from rankmap.h so that builds
 * keyed on rankmap.h's contents (the patched MPICH's cache) do not change
 * when the glue does.
 */
#ifndef RANKMAP_GLUE_H
#define RANKMAP_GLUE_H

#include <stddef.h>

#include "rankmap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- flags of rankmap_reorder_ranks() ------------------------------------ */
/* Let rank 0 move: the placement stays as the mapper returned it.  Without
 * this flag member 0 keeps rank 0 (see below).                             */
#define RANKMAP_REORDER_FREE_RANK0 0x1

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
 *   on success a short note of the decision ("rank 0 kept by a
 *   translation", "no gain: current order kept", ...).
 * Steps:
 *   1. evaluate the current order;
 *   2. rankmap_map();
 *   3. rank 0 (unless RANKMAP_REORDER_FREE_RANK0): the placement is moved by
 *      a symmetry of the machine so that task 0 sits on node_of_member[0]:
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
 *   5. guard: the new order is kept only if its F is strictly lower than
 *      the current order's; else every member keeps its rank.
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

#ifdef __cplusplus
}
#endif
#endif /* RANKMAP_GLUE_H */

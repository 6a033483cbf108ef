/*
 * rankmap.h -- the one public C API of rankmap, topology-aware rank reordering.
 *
 * Usable from C (C99) and C++.  Conventions, stated once:
 *   - Objects are opaque handles with a create -> use -> free lifecycle.
 *   - Every function returns RANKMAP_OK (0) on success or a negative
 *     rankmap_status code; on failure a human-readable message naming the
 *     setting, file or line at fault is available from rankmap_last_error()
 *     (thread-local, valid until the next failing call in the same thread).
 *   - No C++ exception ever crosses this boundary and the library never calls
 *     exit() or abort().
 *   - "Tasks" are the vertices of the communication graph (MPI ranks);
 *     "nodes" are the locations of the machine model.  Several tasks may share
 *     a node: with N tasks on P nodes every node receives between floor(N/P)
 *     and ceil(N/P) tasks (equation 3 of Bhanot et al., "Optimizing task
 *     layout on the Blue Gene/L supercomputer").
 */
#ifndef RANKMAP_H
#define RANKMAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RANKMAP_VERSION_MAJOR 0
#define RANKMAP_VERSION_MINOR 1
#define RANKMAP_MAX_DIMS 8 /* coordinates per node: up to 6 torus dims + room */

typedef enum rankmap_status {
    RANKMAP_OK = 0,
    RANKMAP_ERR_INVALID = -1,   /* bad argument or malformed input */
    RANKMAP_ERR_IO = -2,        /* a file could not be read or written */
    RANKMAP_ERR_TOO_SMALL = -3, /* topology cannot hold the tasks */
    RANKMAP_ERR_NOMEM = -4,
    RANKMAP_ERR_INTERNAL = -5,
    RANKMAP_ERR_TIMEOUT = -6
} rankmap_status;

typedef struct rankmap_topology_s *rankmap_topology_t;
typedef struct rankmap_graph_s *rankmap_graph_t;

/* Message for the last failure in this thread ("" if none). */
const char *rankmap_last_error(void);
const char *rankmap_version(void);

/* ---- machine models ------------------------------------------------------
 * Topology strings (one parser for the CLI, MPICH and the PMPI plugin):
 *   torus:8x8x8          3-D torus, 1..6 dims, wrap-around in every dim
 *   mesh:8x4x4           mesh, no wrap-around
 *   torus:8x8x8:wrap=110 per-dimension wrap-around (1 = torus, 0 = mesh)
 *   torus:8x8x8x2:local=0.5   the last dimension is tasks on one node
 *                        (BG/L virtual-node mode) at cost 0.5 per step
 *   tree:4x2x8:cost=100,10,1  hierarchy, node/socket/core tiers and the cost
 *                        of crossing each tier (outermost first)
 *   tree:4x4x8:cost=100,10,1:up=4  fat tree: the switches of the outer
 *                        tier(s) have 4 uplinks each (up=u1,...,uK for K
 *                        switch tiers), routed by D-mod-K
 *   dragonfly:9x2x8x4x2  dragonfly: 9 groups x 2 chassis x 8 blades (routers)
 *                        x 4 hosts per router x 2 cores per host (the cores
 *                        extent optional); green links join the routers of a
 *                        chassis, black links a blade position across the
 *                        chassis, one blue link each pair of groups (from
 *                        router j mod (chassis x blades) of group i to
 *                        group j, as SimGrid's DragonflyZone for groups <=
 *                        blades).
 *                        Options :links=1,1,1 (wires of blue, black, green),
 *                        :valiant=F (adaptive routing modelled as a share F
 *                        of inter-group traffic through another group;
 *                        :valiant=0 declares minimal routes; without it the
 *                        routing is not declared and the guard also judges
 *                        adaptive routing), :local=0.5 (distance of two
 *                        cores of one host)
 *   file:PATH            explicit symmetric distance matrix (see README)
 * Option ":metric=hops|dim|euclid" chooses the distance metric of Bhanot
 * et al. (hop count -- the default --, 3/D x hops, Euclidean).  Option
 * ":slots=K" (any kind, last) lets a node hold up to K tasks (default 1); N
 * tasks on P nodes need ceil(N/P) <= K, else RANKMAP_ERR_TOO_SMALL.        */
int rankmap_topology_parse(const char *spec, rankmap_topology_t *topo);
void rankmap_topology_free(rankmap_topology_t topo);
int rankmap_topology_size(rankmap_topology_t topo, int *nnodes);
int rankmap_topology_ndims(rankmap_topology_t topo, int *ndims);
int rankmap_topology_dims(rankmap_topology_t topo, int *dims /* [ndims] */);
int rankmap_topology_coords(rankmap_topology_t topo, int node, int *coords);
int rankmap_topology_node(rankmap_topology_t topo, const int *coords, int *node);
int rankmap_topology_distance(rankmap_topology_t topo, int a, int b, double *d);

/* Node of every task under a BG/L mapping order such as "XYZT", "TXYZ",
 * "ZYXT" (the first letter varies fastest; T is the slot on a node).
 * ntasks may exceed the node count: slots per node = ceil(ntasks/nnodes).  */
int rankmap_order_placement(rankmap_topology_t topo, const char *order,
                            int ntasks, int *node_of_task);

/* ---- machine discovery ----------------------------------------------------
 * Build the machine hierarchy of a job without a declared topology: a tree
 * topology ("tree:...:cost=...[:slots=K]") whose tier 0 is the node and whose
 * further tiers are those hwloc finds inside a node that branch, nest and are
 * uniform (package, NUMA node, shared L3, shared L2, core), and place[p] = the
 * leaf of process p (nprocs entries).
 *   node_of_proc[p]: node index of process p, 0..nnodes-1 with every index
 *     used (e.g. from host names; identical on all ranks); may be NULL when
 *     the settings declare node_size.
 *   settings: NULL/"" or ';'-separated key=value entries:
 *     node_size=K   K consecutive processes per node (overrides node_of_proc;
 *                   the one-machine stand-in for a cluster)
 *     tiers=LIST    candidate tiers inside a node, from package,numa,l3,l2,core
 *                   (default all), or none (node tier only)
 *     cost=C0,C1..  one cost per resulting tier, node first; or named
 *                   overrides cost=node:100,package:10,numa:5,l3:2,l2:1.5,core:1
 *                   (these values are the defaults; NUMA distances from libnuma
 *                   or hwloc, where reported, set package/numa to 2+8(r-1), r
 *                   = remote/local distance ratio)
 *     hwloc=synthetic:DESC | hwloc=xml:PATH | hwloc=system   the machine
 *                   probed (default system, which honours HWLOC_XMLFILE and
 *                   HWLOC_SYNTHETIC), e.g. hwloc=synthetic:pack:2 numa:2 core:4 pu:1
 *     distances=on|off   NUMA distances scale the costs (default on)
 *     single_node=auto|tiers|flat   all processes on one node: auto (default)
 *                   keeps the inner tiers only if a package or NUMA tier
 *                   branches, flat gives one leaf (every order costs the same)
 *     network=tree|dragonfly   how the MPI address table reads Slurm's
 *                   switches above the nodes (SLURM_TOPOLOGY_ADDR): tiers
 *                   of a fat tree (default) or a dragonfly's groups and
 *                   routers; discovery itself is the same
 *     verbose=0|1   1: one line on stderr with the result and its sources
 *   Processes of a node, in increasing p, occupy its cores in hwloc logical
 *   order, round robin if there are more processes than cores (local rank i
 *   on core i mod ncores); slots = most processes on one leaf.  With fewer
 *   processes than cores the tree is trimmed to the occupied cores when they
 *   form a whole subtree.  The inside of every node is that of the calling
 *   machine: the result depends only on the arguments and that machine, so
 *   ranks of a job on identical nodes agree (on heterogeneous nodes let one
 *   rank discover and broadcast).  On failure nothing is written and
 *   rankmap_last_error() names the bad setting or argument.
 * Free *topo with rankmap_topology_free().                                 */
int rankmap_discover(int nprocs, const int *node_of_proc, const char *settings,
                     rankmap_topology_t *topo, int *place);

/* Read a BG/L-style mapfile: line r holds the coordinates of rank r
 * ("x y z [t]").  Checks range, duplicates and count.                      */
int rankmap_mapfile_read(rankmap_topology_t topo, const char *path,
                         int ntasks, int *node_of_task);
int rankmap_mapfile_write(rankmap_topology_t topo, const char *path,
                          int ntasks, const int *node_of_task);

/* ---- communication graphs ------------------------------------------------
 * Directed weighted graph of ntasks vertices; C(i,j) = bytes or messages
 * from i to j.  Duplicate edges are summed; self edges are ignored.         */
int rankmap_graph_create(int ntasks, int64_t nedges, const int *src,
                         const int *dst, const double *weights /* NULL=1 */,
                         rankmap_graph_t *graph);
/* Edge list, METIS .graph or dense matrix, chosen by format
 * ("edges", "metis", "matrix", or NULL/"auto" by file extension).          */
int rankmap_graph_read(const char *path, const char *format,
                       rankmap_graph_t *graph);
/* Implied neighbour graph of a Cartesian grid (as MPI_Cart_create sees it):
 * each task talks to its 2 neighbours in every dimension, weight 1.       */
int rankmap_graph_cartesian(int ndims, const int *dims, const int *periods,
                            rankmap_graph_t *graph);
void rankmap_graph_free(rankmap_graph_t graph);
int rankmap_graph_ntasks(rankmap_graph_t graph, int *ntasks);

/* ---- mapping ------------------------------------------------------------- */
typedef struct rankmap_options {
    const char *algorithm; /* "auto" (default when NULL): the "fast"
                              strategy, or a "quality" mapping of the
                              same job from the cache; "fast", "quality",
                              "identity", "random", "greedy", "anneal",
                              "dc-anneal", "kl", "cart", "hier" (tree
                              machines), "scotch" if built with Scotch,
                              "congestion"                              */
    uint64_t seed;         /* same seed, same mapping                       */
    double time_limit;     /* seconds for the whole call, <= 0: default     */
    int verbose;           /* 0 quiet, 1 summary on stderr, 2 progress      */
    /* Optional Cartesian structure of the tasks (from MPI_Cart_create);
     * cart_ndims = 0 when unknown.  Task r has row-major coordinates.       */
    int cart_ndims;
    int cart_dims[RANKMAP_MAX_DIMS];
    int cart_periods[RANKMAP_MAX_DIMS];
    /* Mapping cache ("wisdom") directory: a result is stored under a key of
     * graph + topology + these options + library version and reused by the
     * next call with the same key.  NULL (default): the environment variable
     * RANKMAP_WISDOM names it (unset or empty: no cache); "": no cache.     */
    const char *cache_dir;
} rankmap_options;

/* Fill with the defaults (auto, seed 1, time limit 0 = default budget).   */
void rankmap_options_init(rankmap_options *opts);

typedef struct rankmap_report {
    double F;             /* free energy sum C(i,j) d(pi(i),pi(j))           */
    double F_min;         /* lower bound of Bhanot et al.                    */
    double ratio;         /* F / F_min (1 when F_min = 0)                    */
    double avg_dilation;  /* weighted mean hop distance per unit of traffic */
    double max_link_load; /* heaviest link under dimension-order routing   */
    double seconds;       /* wall time of the mapping call                   */
    char algorithm[32];   /* the mapper that produced the result            */
} rankmap_report;

/* Compute a placement: node_of_task[i] = node of task i.  On any failure
 * node_of_task is left untouched and a negative status is returned.       */
int rankmap_map(rankmap_topology_t topo, rankmap_graph_t graph,
                const rankmap_options *opts, int *node_of_task,
                rankmap_report *report /* may be NULL */);

/* Evaluate an existing placement (checks it is valid).                    */
int rankmap_evaluate(rankmap_topology_t topo, rankmap_graph_t graph,
                     const int *node_of_task, rankmap_report *report);

/* ---- communication profiles ------------------------------------------------
 * A profile is the text file "rankmap-profile 1" that librankmap-profile.so
 * writes at MPI_Finalize (pair SRC DST COUNT BYTES lines and a message-size
 * histogram).  rankmap_graph_read(path, "profile", &g) -- or format NULL /
 * "auto" on a ".prof" file -- reads it with the automatic weight choice.
 * Weights follow Chen et al., "MPIPP: an automatic profile-guided parallel
 * process placement toolset for SMP clusters and multiclusters": message
 * count for latency-bound applications, bytes for bandwidth-bound ones,
 * decided by the median message size against a threshold (default
 * RANKMAP_DEFAULT_THRESHOLD bytes).                                       */
typedef enum rankmap_weights {
    RANKMAP_WEIGHTS_AUTO = 0,  /* median message size vs threshold           */
    RANKMAP_WEIGHTS_COUNT = 1, /* C(i,j) = messages from i to j             */
    RANKMAP_WEIGHTS_VOLUME = 2 /* C(i,j) = bytes from i to j                */
} rankmap_weights;
#define RANKMAP_DEFAULT_THRESHOLD 16384.0

/* Read a profile with the given weights; threshold <= 0 means the default.
 * chosen (COUNT or VOLUME) and median_bytes may be NULL.  Errors name the
 * file and line.                                                          */
int rankmap_profile_read(const char *path, rankmap_weights weights,
                         double threshold, rankmap_graph_t *graph,
                         rankmap_weights *chosen, double *median_bytes);

#ifdef __cplusplus
}
#endif
#endif /* RANKMAP_H */

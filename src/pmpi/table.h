/*
 * table.h -- settings and torus address table of the PMPI reorder plugin
 * (librankmap-pmpi), private to src/pmpi.
 *
 * The settings are the patched MPICH's CVARs, read from the same environment
 * variables (MPIR_CVAR_RANKMAP_*, with MPICH's aliases MPICH_RANKMAP_* and
 * MPIR_PARAM_RANKMAP_*; MPIR_CVAR_ wins), so one job script drives both.
 * The address table gives the machine node of every MPI_COMM_WORLD rank; it
 * is built once in MPI_Init by every process and checked with one allreduce.
 */
#ifndef RANKMAP_PMPI_TABLE_H
#define RANKMAP_PMPI_TABLE_H

#include <mpi.h>
#include <rankmap.h>

#define PMPI_SAY_PREFIX "rankmap-pmpi: "

typedef struct pmpi_settings {
    int enable;            /* MPIR_CVAR_RANKMAP_ENABLE (1) */
    const char *topology;  /* MPIR_CVAR_RANKMAP_TOPOLOGY ("" = discover) */
    const char *mapping;   /* MPIR_CVAR_RANKMAP_MAPPING ("" = default order) */
    const char *algorithm; /* MPIR_CVAR_RANKMAP_ALGORITHM ("auto") */
    double time_limit;     /* MPIR_CVAR_RANKMAP_TIME_LIMIT (0) */
    long seed;             /* MPIR_CVAR_RANKMAP_SEED (1) */
    int portfolio;         /* MPIR_CVAR_RANKMAP_PORTFOLIO (RANKMAP_PORTFOLIO_DEFAULT) */
    int verbose;           /* MPIR_CVAR_RANKMAP_VERBOSE (0) */
    int strict;            /* MPIR_CVAR_RANKMAP_STRICT (0) */
    int max_matrix;        /* MPIR_CVAR_RANKMAP_MAX_MATRIX (1024) */
    int force;             /* MPIR_CVAR_RANKMAP_FORCE (0) */
    int dist_graph;        /* MPIR_CVAR_RANKMAP_DIST_GRAPH (1): distributed graphs reorder */
    int keep_rank0;        /* MPIR_CVAR_RANKMAP_KEEP_RANK0 (1): rank 0 stays rank 0 */
    const char *guard;     /* MPIR_CVAR_RANKMAP_GUARD ("model"): rankmap_guard_flags() */
    const char *cart_alltoall; /* MPIR_CVAR_RANKMAP_CART_ALLTOALL (""): all-to-all lines */
    int node_size;         /* MPIR_CVAR_RANKMAP_NODE_SIZE (0 = host names) */
    int bcast;             /* MPIR_CVAR_RANKMAP_BCAST (0): torus broadcast */
    long bcast_min;        /* MPIR_CVAR_RANKMAP_BCAST_MIN (65536 bytes) */
    /* in-call reordering and its safety net (safety.c, doc/compatibility.md) */
    int cart;                  /* MPIR_CVAR_RANKMAP_CART (1): MPI_Cart_create/_map reorder */
    int graph;                 /* MPIR_CVAR_RANKMAP_GRAPH (1): MPI_Graph_create/_map reorder */
    const char *skip_programs; /* MPIR_CVAR_RANKMAP_SKIP_PROGRAMS (""): no in-call reorder */
    long watchdog;             /* MPIR_CVAR_RANKMAP_WATCHDOG (300 s, 0 = off) */
    int watchdog_abort;        /* MPIR_CVAR_RANKMAP_WATCHDOG_ACTION (warn = 0, abort = 1) */
    int check;                 /* MPIR_CVAR_RANKMAP_CHECK (0): partners of the first calls */
} pmpi_settings;

typedef struct pmpi_table {
    int enabled;             /* reorder honoured: ENABLE and a usable table */
    rankmap_topology_t topo; /* machine model */
    int nnodes, ndims;
    int dims[RANKMAP_MAX_DIMS];
    int world_size, world_rank;
    int *node_of_rank; /* [world_size] */
    char source[1024]; /* where the table came from, for messages */
} pmpi_table;

extern pmpi_settings pmpi_set;
extern pmpi_table pmpi_tab;

/* Collective over MPI_COMM_WORLD, right after MPI_Init: reads the settings
 * and builds the table.  A bad setting: rank 0 prints one warning naming it
 * and reordering is disabled (MPI_SUCCESS); with MPIR_CVAR_RANKMAP_STRICT=1
 * it returns MPI_ERR_OTHER after printing the error.  */
int pmpi_table_init(void);
void pmpi_table_finalize(void);

/* bcast.c: after the table, in MPI_Init (MPIR_CVAR_RANKMAP_BCAST=1). */
void pmpi_bcast_init(void);

/* Waits (at most 5 s) until the launcher has read our stderr pipe, before
 * the process ends on purpose. */
void pmpi_stderr_drain(void);

/* One line on stderr, prefixed "rankmap-pmpi: ". */
void pmpi_say(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#endif

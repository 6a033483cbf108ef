/*
 * layer.h -- the state and helpers shared by the files of the MPI layer
 * (src/mpilayer, librankmap-mpi); the MPI paths see include/rankmap_mpi.h
 * only.
 *
 *   settings.c  the MPIR_CVAR_RANKMAP_* values, parsed once at MPI_Init
 *   table.c     the address table: node of every world rank, agreed by all
 *   machine.c   the nodes of one communicator's processes, and its model
 *   reorder.c   the constructors: task graph, portfolio, election, new order
 *   program.c   the program's names, per-program lists, the mapping cache's files
 *   track.c     reordered communicators, their use, the free/finalize diagnoses,
 *               learnt all-to-all hints
 *   watchdog.c  the thread that explains a hang
 *   check.c     MPIR_CVAR_RANKMAP_CHECK: the partners of the first calls
 *   bcast.c     the torus broadcast: which communicators, and the executor
 *   query.c     the MPIX_* queries of the patched MPICH
 */
#ifndef RANKMAP_MPILAYER_LAYER_H
#define RANKMAP_MPILAYER_LAYER_H

#include <stddef.h>

#include "rankmap.h"
#include "rankmap_glue.h"
#include "rankmap_mpi.h"

#if defined(__GNUC__)
#define RML_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define RML_HIDDEN __attribute__((visibility("hidden")))
#else
#define RML_PRINTF(a, b)
#define RML_HIDDEN
#endif

/* ---- settings (settings.c) ------------------------------------------------ */

enum rml_setting_type { RML_T_BOOL, RML_T_INT, RML_T_DOUBLE, RML_T_STRING, RML_T_ENUM };
#define RML_SETTING(NAME, TYPE, DEF, LO, HI, VALUES) RML_S_##NAME,
enum rml_setting_id {
#include "mpilayer/settings_table.h"
    RML_S_COUNT
};
#undef RML_SETTING

/* Reads and checks every setting through ops->setting; the first bad one
 * is described in err (returns -1). */
RML_HIDDEN int rml_settings_read(char *err, size_t errlen);
RML_HIDDEN long rml_int(int id);    /* BOOL, INT and ENUM (the value's index) */
RML_HIDDEN double rml_double(int id);
RML_HIDDEN const char *rml_str(int id); /* STRING ("" when unset) and ENUM names */

/* One line on stderr with the path's prefix, flushed. */
RML_HIDDEN void rml_say(const char *fmt, ...) RML_PRINTF(1, 2);
/* Waits (at most 5 s) until the launcher has read our stderr pipe, before
 * the process ends on purpose (hydra drops what it has not read). */
RML_HIDDEN void rml_stderr_drain(void);

/* ---- the job (table.c) ------------------------------------------------------ */

typedef struct rml_job {
    const rml_ops *ops;
    int initialized;
    int world_rank, world_size;
    int enabled;             /* reordering honoured: ENABLE and a usable table */
    rankmap_topology_t topo; /* the machine */
    int nnodes, ndims, dims[RANKMAP_MAX_DIMS];
    int *node_of_rank; /* [world_size] */
    int *slot_of_rank; /* [world_size] index among the ranks of its node (MPIX_Rank2torus) */
    char source[1024]; /* where the table came from, for messages */
    /* the in-call settings every process agrees on (program.c) */
    int cart, graph, dist_graph, follow;
    rml_report last; /* the last reorder this process took part in */
} rml_job;

/* the job's state; the symbol carries the library's prefix, since the
 * SimGrid build links these files into the program itself */
#define rml rankmap_mpi_job
extern rml_job rml RML_HIDDEN;

/* Collective over world: the table, or reordering off (0); -1 with STRICT. */
RML_HIDDEN int rml_table_init(char *err, size_t errlen, int settings_bad);
RML_HIDDEN void rml_table_free(void);

/* The path's private communicator for the layer's point-to-point on C
 * (collective over C), or C itself (table.c). */
RML_HIDDEN int rml_private_comm(rml_comm c, rml_comm *priv);
RML_HIDDEN void rml_private_free(rml_comm *priv);

/* ---- a communicator's machine (machine.c) ------------------------------------ */

typedef struct rml_machine {
    rankmap_topology_t topo; /* the job's machine, or the matrix of the members' nodes */
    int owned;               /* topo is the matrix (freed with the machine) */
    int *node_of_member;     /* [size] */
} rml_machine;

/* 0, or -1 with why filled (processes outside MPI_COMM_WORLD, too many for
 * a matrix, out of memory). */
RML_HIDDEN int rml_machine_build(rml_comm c, int size, rml_machine *m, char *why, size_t whylen);
RML_HIDDEN void rml_machine_free(rml_machine *m);

/* ---- the program (program.c) ------------------------------------------------- */

/* base names of /proc/self/exe and argv[0] */
extern char rml_prog_exe[256] RML_HIDDEN;
extern char rml_prog_arg0[256] RML_HIDDEN;
RML_HIDDEN void rml_program_names(const char *argv0);
/* the program is an entry of the comma-separated setting LIST */
RML_HIDDEN int rml_program_listed(const char *list);
/* PATH = $RANKMAP_WISDOM/SUB/NAME[SUFFIX]: 1, or 0 without a cache */
RML_HIDDEN int rml_wisdom_path(const char *sub, const char *name, const char *suffix, char *path,
                               size_t len);
/* Writes TEXT and a newline as PATH ($RANKMAP_WISDOM/SUB/...), creating the
 * directories, through a hidden temporary file and rename(): a reader (or a
 * writer killed half-way) never leaves half a file.  1 when written. */
RML_HIDDEN int rml_wisdom_write(const char *sub, const char *path, const char *text);
/* Collective over world after the table: SKIP_PROGRAMS, the unsafe mark,
 * FOLLOW_PROGRAMS and the per-kind settings, agreed by every process. */
RML_HIDDEN void rml_program_agree(void);
/* "Set MPIR_CVAR_RANKMAP_SKIP_PROGRAMS=prog (or KNOB=0), or place ranks at
 * launch (...)": the ways out that end every diagnosis of CALL. */
RML_HIDDEN void rml_ways_out(const char *call, char *buf, size_t len);
#define RML_DOC_HINT "place ranks at launch (rankmap map --hostfile, see doc/compatibility.md)"

/* ---- the safety net (track.c, watchdog.c, check.c) --------------------------- */

/* Collective over PARENT, on every process of it, after CALL made NEWCOMM
 * (comm_null for the _map calls and beyond the grid) with the caller's old
 * and new rank (newrank < 0 beyond the grid); a Cartesian grid with NDIMS >
 * 0.  One allreduce counts the moved ranks. */
RML_HIDDEN void rml_track_reordered(const char *call, rml_comm parent, rml_comm newcomm,
                                    int oldrank, int newrank, int ndims, const int *dims,
                                    const int *periods);
/* A grid whose traffic nobody declared: watched so MPI_Finalize can record
 * what it carried (the all-to-all hint of the next run). */
RML_HIDDEN void rml_track_observe_grid(rml_comm newcomm, int newrank, int ndims, const int *dims);
/* The hint an earlier run of this program learnt for the grid: 1 with the
 * hint and its file. */
RML_HIDDEN int rml_learned_hint(int ndims, const int *dims, char *hint, size_t len, char *path,
                                size_t pathlen);
RML_HIDDEN void rml_track_finalize(void);
/* "MPI_COMM_WORLD", "the communicator MPI_Cart_create made", "a communicator" */
RML_HIDDEN const char *rml_comm_name(rml_comm c, char *buf, size_t len);
/* One diagnosis line: marks the program unsafe (MARK), prints, and with
 * MPIR_CVAR_RANKMAP_WATCHDOG_ACTION=abort ends the process when FATAL. */
RML_HIDDEN void rml_diagnose(const char *line, int mark, int fatal);
RML_HIDDEN void rml_arm(void);

RML_HIDDEN void rml_watchdog_start(void);
RML_HIDDEN void rml_watchdog_stop(void);
RML_HIDDEN void rml_watchdog_enter(rml_comm c, const char *call);
RML_HIDDEN void rml_watchdog_leave(void);
/* the last reorder that moved ranks, for the watchdog's line */
RML_HIDDEN void rml_watchdog_reorder(const char *call, int moved, int size);

RML_HIDDEN extern int rml_checks_any;
RML_HIDDEN void rml_check_add(const char *call, rml_comm parent, rml_comm newcomm, int oldrank,
                              int newrank, int moved, int ndims, const int *dims,
                              const int *periods);
RML_HIDDEN void rml_check_peers(rml_comm c, int a, int b, const char *call);
RML_HIDDEN void rml_check_handed(rml_comm c, int r1, int r2);
RML_HIDDEN void rml_check_freed(rml_comm c);
RML_HIDDEN void rml_check_finalize(void);

#endif

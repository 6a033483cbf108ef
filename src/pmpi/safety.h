/*
 * safety.h -- the safety net of the PMPI reorder plugin (librankmap-pmpi),
 * private to src/pmpi: programs that assume ranks do not move (issue 26,
 * doc/compatibility.md).
 *
 * reorder.c calls pmpi_safety_init() after the address table,
 * pmpi_safety_reordered() after every reorder (on every process of the
 * parent communicator) and pmpi_safety_finalize() in MPI_Finalize; safety.c
 * does the rest in its own wrappers (MPI_Comm_free, MPI_Cart_sub, the
 * point-to-point and collective calls).  The SimGrid build (RANKMAP_PMPI_SMPI) has no safety
 * net: the hooks are empty there and the in-call settings still apply.
 */
#ifndef RANKMAP_PMPI_SAFETY_H
#define RANKMAP_PMPI_SAFETY_H

#include <mpi.h>
#include <stddef.h>

#ifndef RANKMAP_PMPI_SMPI
/* Collective over MPI_COMM_WORLD, after pmpi_table_init(): finds the
 * program's name, applies MPIR_CVAR_RANKMAP_SKIP_PROGRAMS and the unsafe
 * marker of the mapping cache, and makes every process agree on the in-call
 * settings (pmpi_set.cart, .graph, .dist_graph). */
void pmpi_safety_init(void);

/* Collective over PARENT, on every process of it, after CALL reordered it:
 * NEWCOMM is the new communicator (MPI_COMM_NULL for MPI_Cart_map and
 * MPI_Graph_map and beyond the grid), OLDRANK/NEWRANK this process's ranks
 * (NEWRANK MPI_UNDEFINED beyond the grid); NDIMS, DIMS, PERIODS describe a
 * Cartesian grid (NDIMS 0 otherwise).  One allreduce counts the moved ranks. */
void pmpi_safety_reordered(const char *call, MPI_Comm parent, MPI_Comm newcomm, int oldrank,
                           int newrank, int ndims, const int dims[], const int periods[]);

/* After MPI_Cart_create on a grid whose traffic nobody declared (no
 * MPIR_CVAR_RANKMAP_CART_ALLTOALL, nothing learnt), on every process of the
 * grid: the grid is watched, moved or not, so that MPI_Finalize can record
 * what it carried -- point-to-point and no MPI_Alltoall on its lines: the
 * hint "none" (a stencil) for the next run, where no hint is recorded yet. */
void pmpi_safety_observe_grid(MPI_Comm newcomm, int newrank, int ndims, const int dims[]);

/* MPI_Finalize, before the MPI library's: the hint for reordered
 * communicators never used; stops the watchdog. */
void pmpi_safety_finalize(void);

/* MPI_Bcast (bcast.c) calls these around its work: a blocking collective
 * the watchdog watches and the tracking counts. */
extern int pmpi_safety_armed
#if defined(__GNUC__)
    __attribute__((visibility("hidden"))) /* read in every wrapper: no GOT load */
#endif
    ;
void pmpi_safety_enter(MPI_Comm comm, const char *call);
void pmpi_safety_leave(void);

/* The all-to-all hint an earlier run of this program learnt for the grid
 * NDIMS x DIMS (MPI_Alltoall* on lines that MPI_Cart_sub made from the
 * reordered grid, written to $RANKMAP_WISDOM/alltoall/PROGRAM-DIMS): 1 with
 * the hint ("0,1") in HINT and the file in PATH, 0 when there is none. */
int pmpi_safety_learned_hint(int ndims, const int dims[], char *hint, size_t len, char *path,
                             size_t pathlen);
#else
static inline void pmpi_safety_init(void) {}
static inline void pmpi_safety_reordered(const char *call, MPI_Comm parent, MPI_Comm newcomm,
                                         int oldrank, int newrank, int ndims, const int dims[],
                                         const int periods[])
{
    (void) call, (void) parent, (void) newcomm, (void) oldrank, (void) newrank, (void) ndims,
        (void) dims, (void) periods;
}
static inline void pmpi_safety_observe_grid(MPI_Comm newcomm, int newrank, int ndims,
                                            const int dims[])
{
    (void) newcomm, (void) newrank, (void) ndims, (void) dims;
}
static inline void pmpi_safety_finalize(void) {}
#define pmpi_safety_armed 0
static inline void pmpi_safety_enter(MPI_Comm comm, const char *call)
{
    (void) comm, (void) call;
}
static inline void pmpi_safety_leave(void) {}
static inline int pmpi_safety_learned_hint(int ndims, const int dims[], char *hint, size_t len,
                                           char *path, size_t pathlen)
{
    (void) ndims, (void) dims, (void) hint, (void) len, (void) path, (void) pathlen;
    return 0;
}
#endif

#endif

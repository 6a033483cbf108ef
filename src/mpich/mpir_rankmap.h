/*
 * mpir_rankmap.h -- the hooks of rankmap's MPI layer (rankmap_mpi.h) in
 * MPICH, included by mpiimpl.h (patch 0002; the build copies this header
 * into MPICH's src/include).  Every decision is the layer's;
 * rankmap_mpich.c gives it MPICH's operations.
 */
#ifndef MPIR_RANKMAP_H_INCLUDED
#define MPIR_RANKMAP_H_INCLUDED

#include "rankmap_mpi.h"

extern int MPIR_Rankmap_armed;  /* a reorder moved a rank: watched calls report */
extern __thread int MPIR_Rankmap_native;        /* inside the layer's own constructor call */
extern struct MPII_Topo_ops *MPIR_Rankmap_topo_fns;     /* NULL when the layer is off */

int MPIR_Rankmap_init(const char *argv0);
void MPIR_Rankmap_finalize(void);
int MPIR_Rankmap_bcast(void *buf, MPI_Aint count, MPI_Datatype type, int root,
                       MPIR_Comm * comm_ptr, int *mpi_errno);
int MPIR_Rankmap_dist_graph_create(MPIR_Comm * c, int n, const int sources[], const int degrees[],
                                   const int dests[], const int weights[], MPIR_Info * info,
                                   int reorder, MPIR_Comm ** out);
int MPIR_Rankmap_dist_graph_adjacent(MPIR_Comm * c, int indeg, const int sources[],
                                     const int sw[], int outdeg, const int dests[],
                                     const int dw[], MPIR_Info * info, int reorder,
                                     MPIR_Comm ** out);

#define MPIR_RANKMAP_H(c) ((rml_comm) (unsigned) (c))
#define MPIR_RANKMAP_HOOKED (MPIR_Rankmap_topo_fns && !MPIR_Rankmap_native)
#define MPIR_RANKMAP_CALL(f) do { if (unlikely(MPIR_Rankmap_armed)) f; } while (0)
#define MPIR_RANKMAP_ENTER(in, comm, call, a, b) \
    MPIR_RANKMAP_CALL(in = rml_enter(MPIR_RANKMAP_H(comm), call, a, b))
#define MPIR_RANKMAP_LEAVE(in) do { if (in) rml_leave(); } while (0)

#endif /* MPIR_RANKMAP_H_INCLUDED */

/*
 * bcast_torus_mpi.h -- the portable executor of the torus/mesh broadcast
 * schedule (torus_bcast.h) over MPI point-to-point calls.  Plain C99 + MPI:
 * builds with any mpicc (Debian's MPICH, SimGrid's smpicc) and is what the
 * PMPI plugin calls.  Returns MPI_SUCCESS or an MPI error code (the failing
 * call's, or MPI_ERR_ARG / MPI_ERR_NO_MEM / MPI_ERR_INTERN).
 */
#ifndef RANKMAP_BCAST_TORUS_MPI_H
#define RANKMAP_BCAST_TORUS_MPI_H

#include <mpi.h>

#include "coll/torus_bcast.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rankmap_bcast_torus_opts {
    size_t segment; /* bytes per segment; 0 = rankmap_tbcast_default_segment (>= 4 KiB) */
    int colours;    /* colours to use; 0 = all (2n on a torus, n on a mesh) */
    int cap;        /* segments in flight per link and direction; 0 = 1 (best in
                       a fluid network model; 2 hides a round trip on real ones) */
    int tag;        /* tags tag .. tag+colours-1 are used on comm; 0 = 31000 */
} rankmap_bcast_torus_opts;

/* Collective over comm: gathers every rank's coordinates in the box
 * (my_coords[ndims]) and builds the schedule (identical on every rank).
 * Fails with MPI_ERR_ARG (on every rank) if the ranks do not cover the box. */
int rankmap_bcast_torus_schedule(MPI_Comm comm, int ndims, const int *extents, const int *wrap,
                                 const int *my_coords, rankmap_tbcast **out);

/* MPI_Bcast(buf, count, type, root, comm) along the schedule s (built for
 * comm).  opts may be NULL.  Non-contiguous types are packed once at the
 * root and unpacked at the leaves.  The tags of opts must not be in use on
 * comm by pending user messages. */
int rankmap_bcast_torus(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                        const rankmap_tbcast *s, const rankmap_bcast_torus_opts *opts);

#ifdef __cplusplus
}
#endif
#endif

/*
 * mpix_rankmap.h -- the MPIX functions of rankmap's patched MPICH, installed
 * with it (the build copies this header into MPICH's tree; the functions
 * are thin wrappers over rankmap's MPI layer, include/rankmap_mpi.h).
 *
 * The torus address table, the BG/Q style: every MPI_COMM_WORLD rank has
 * coordinates on the machine declared by MPIR_CVAR_RANKMAP_TOPOLOGY (or
 * discovered from host names).  Coordinates are the topology's own
 * dimensions followed by one more entry, the slot: the index of the rank
 * among the ranks placed on the same node (0 when one rank per node).
 * Arrays passed to MPIX_Rank2torus / MPIX_Torus2rank therefore hold
 * ndims + 1 integers.  Without an address table the functions return
 * MPI_ERR_OTHER and MPIX_Torus_ndims reports 0.  MPICH_API_PUBLIC (from mpi.h)
 * exports the functions from libmpi.
 *
 * Every rank holds the whole table: the calls are local and never block.
 */
#ifndef MPIX_RANKMAP_H_INCLUDED
#define MPIX_RANKMAP_H_INCLUDED

#include <mpi.h>

#if defined(__cplusplus)
extern "C" {
#endif

#define MPIX_RANKMAP_VERSION 1

/* Each function is documented in a block between a slash-star-at line and an
 * at-star-slash line (the source of its manual page, maint/gen-man.py):
 * the first line is "NAME - summary", then sections "Input:", "Output:",
 * "Return:" and "Notes:". */

/*@ MPIX_Torus_ndims - number of dimensions of the machine in the address table
Output:
  ndims - the machine's dimensions, without the slot entry; 0 when the job
          has no address table (no topology declared or discovered, or
          reordering disabled by a bad setting)
Return:
  MPI_SUCCESS always.
Notes:
  Local and non-blocking: every process holds the whole table.  Use ndims + 1
  as the length of the coordinate arrays of MPIX_Rank2torus and
  MPIX_Torus2rank.
@*/
int MPIX_Torus_ndims(int *ndims) MPICH_API_PUBLIC;

/*@ MPIX_Torus_dims - extent of every machine dimension
Output:
  dims - array of ndims integers (MPIX_Torus_ndims): the extent of each
         dimension of the machine model, e.g. 8 8 8 for torus:8x8x8
Return:
  MPI_SUCCESS, or MPI_ERR_OTHER when the job has no address table.
@*/
int MPIX_Torus_dims(int *dims) MPICH_API_PUBLIC;

/*@ MPIX_Rank2torus - machine coordinates of an MPI_COMM_WORLD rank
Input:
  rank - an MPI_COMM_WORLD rank, 0 <= rank < size of MPI_COMM_WORLD
Output:
  coords - array of ndims + 1 integers: the coordinates of the rank's node
           in the machine's dimensions, then its slot (the index of the rank
           among the ranks on the same node; 0 with one rank per node)
Return:
  MPI_SUCCESS; MPI_ERR_RANK for a rank outside MPI_COMM_WORLD;
  MPI_ERR_OTHER when the job has no address table.
Notes:
  The coordinates come from MPIR_CVAR_RANKMAP_TOPOLOGY and
  MPIR_CVAR_RANKMAP_MAPPING (or machine discovery); see rankmap-settings(7).
  To find the coordinates of a rank of another communicator, translate it to
  MPI_COMM_WORLD with MPI_Group_translate_ranks first.
@*/
int MPIX_Rank2torus(int rank, int *coords) MPICH_API_PUBLIC;

/*@ MPIX_Torus2rank - MPI_COMM_WORLD rank at machine coordinates
Input:
  coords - array of ndims + 1 integers: node coordinates, then the slot
Output:
  rank - the MPI_COMM_WORLD rank placed there, or MPI_PROC_NULL when no
         rank sits at those coordinates (or they lie outside the machine)
Return:
  MPI_SUCCESS, or MPI_ERR_OTHER when the job has no address table.
@*/
int MPIX_Torus2rank(const int *coords, int *rank) MPICH_API_PUBLIC;

/*@ MPIX_Rankmap_distance - machine distance between the nodes of two ranks
Input:
  rank_a - an MPI_COMM_WORLD rank
  rank_b - an MPI_COMM_WORLD rank
Output:
  distance - the machine model's cost between the two ranks' nodes: hops on
             a torus or mesh (or the metric chosen in the topology string),
             the cost of the highest tier crossed on a tree
Return:
  MPI_SUCCESS; MPI_ERR_RANK for a rank outside MPI_COMM_WORLD;
  MPI_ERR_OTHER when the job has no address table.
@*/
int MPIX_Rankmap_distance(int rank_a, int rank_b, double *distance) MPICH_API_PUBLIC;

/* The last reordering this process took part in (see MPIX_Rankmap_last_report). */
typedef struct MPIX_Rankmap_report {
    int valid;
    double F_before;
    double F_after;
    double F_min;
    double map_seconds;
    char algorithm[32];
} MPIX_Rankmap_report;

/*@ MPIX_Rankmap_last_report - what the last reordering this process took part in computed
Output:
  report - valid: 1 when the mapper's placement of the last topology call
           that ran it was used, else 0; F_before and F_after: the free
           energy (sum of traffic times distance) of the rank order before
           and after; F_min: its lower bound; map_seconds: time spent in the
           mapper alone; algorithm: the mapper's name
Return:
  MPI_SUCCESS always.
Notes:
  The ranks of the portfolio (MPIR_CVAR_RANKMAP_PORTFOLIO) map at once; the
  one whose result is used broadcasts its report, so every rank of the
  communicator holds the same report (map_seconds is that rank's).  With
  MPIR_CVAR_RANKMAP_VERBOSE=1 that rank also prints it.
@*/
int MPIX_Rankmap_last_report(MPIX_Rankmap_report *report) MPICH_API_PUBLIC;

#if defined(__cplusplus)
}
#endif
#endif /* MPIX_RANKMAP_H_INCLUDED */

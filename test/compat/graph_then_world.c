/*
 * graph_then_world.c -- the LAMMPS pattern with a graph communicator, a
 * misuse: the program creates a ring with MPI_Graph_create(reorder=1),
 * reads its neighbours there (MPI_Graph_neighbors), frees it and exchanges
 * with those ranks on MPI_COMM_WORLD.  Each process sends its rank in the
 * ring and checks that the data comes from its ring predecessor.  Right
 * when MPI keeps every rank; once ranks move, the exchange waits forever or
 * delivers another process's data.
 */
#include <stdlib.h>

#include "compat.h"

int main(int argc, char **argv)
{
    int size, wrank, grank, nb[2];
    MPI_Comm ring;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    int *index = malloc((size_t) size * sizeof(int)), *edges = malloc(2 * (size_t) size * sizeof(int));
    for (int v = 0; v < size; v++) {
        index[v] = 2 * (v + 1);
        edges[2 * v] = (v - 1 + size) % size;   /* predecessor */
        edges[2 * v + 1] = (v + 1) % size;      /* successor */
    }
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 1, &ring);
    MPI_Comm_rank(ring, &grank);
    MPI_Graph_neighbors(ring, grank, 2, nb);
    MPI_Comm_free(&ring);
    int got = -1;
    MPI_Sendrecv(&grank, 1, MPI_INT, nb[1], 0, &got, 1, MPI_INT, nb[0], 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    COMPAT_CHECK(got == nb[0], "rank %d: got ring rank %d, expected %d", wrank, got, nb[0]);
    free(index);
    free(edges);
    int rc = compat_report(grank != wrank);
    MPI_Finalize();
    return rc;
}

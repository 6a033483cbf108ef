/*
 * correct_cart.c -- the correct use: a halo exchange on the Cartesian
 * communicator created with reorder=1, with the neighbours MPI_Cart_shift
 * gives there.  Each process sends its grid rank and coordinates and checks
 * that the data comes from its grid neighbour; right whether or not ranks
 * moved.  COMPAT_SLOW=S in the environment: rank 0 sleeps S seconds before
 * the exchange (a legitimately long wait of its neighbours).
 */
#include <stdlib.h>
#include <unistd.h>

#include "compat.h"

int main(int argc, char **argv)
{
    int dims[3], crank, wrank, me[3];
    MPI_Comm cart;
    compat_cart(&argc, &argv, dims, &wrank, &crank, &cart);
    MPI_Cart_coords(cart, crank, 3, me);
    if (wrank == 0 && getenv("COMPAT_SLOW"))
        sleep((unsigned) atoi(getenv("COMPAT_SLOW")));
    for (int d = 0; d < 3; d++) {
        int src, dst, out[4] = { crank, me[0], me[1], me[2] }, got[4] = { -1, -1, -1, -1 };
        MPI_Cart_shift(cart, d, 1, &src, &dst);
        MPI_Sendrecv(out, 4, MPI_INT, dst, d, got, 4, MPI_INT, src, d, cart, MPI_STATUS_IGNORE);
        int want = (me[d] - 1 + dims[d]) % dims[d];
        COMPAT_CHECK(got[0] == src && got[1 + d] == want,
                     "grid rank %d, dimension %d: got grid rank %d at %d, expected %d at %d",
                     crank, d, got[0], got[1 + d], src, want);
    }
    MPI_Comm_free(&cart);
    int rc = compat_report(crank != wrank);
    MPI_Finalize();
    return rc;
}

/* What a communicator is, for the one interface set (seed 000): the
 * structure that decides what a Cart_ collective means on it.  Decided the
 * first time a call meets the communicator and cached on it; duplicates
 * (which MPI gives the same structure) are classified again, cheaply. */
#ifndef CC_KIND_H
#define CC_KIND_H

#include <mpi.h>

#include "topo/comm.h"

enum {
    CC_KIND_NBH,    /* carries a cartcoll neighbourhood (cc_comm) */
    CC_KIND_CART,   /* MPI_Cart_create, no neighbourhood derived yet */
    CC_KIND_GRAPH,  /* distributed graph (or MPI-1 graph) */
    CC_KIND_PLAIN,  /* intra-communicator without topology */
    CC_KIND_INTER   /* inter-communicator */
};

/* The kind of comm and, for CC_KIND_NBH, its cc_comm (*cs, else NULL).
 * Returns MPI_SUCCESS or an error code (not raised): MPI_ERR_COMM for a
 * null or invalid communicator. */
int cc_kind_of(MPI_Comm comm, int *kind, cc_comm **cs, const char *who);

/* MPI_Topo_test of an intra-communicator.  Built with
 * CARTCOLL_NO_TOPO_TEST (SimGrid SMPI 3.32, whose MPI_Topo_test aborts as
 * not implemented and which has no graph topologies): MPI_CART where
 * MPI_Cartdim_get succeeds, else MPI_UNDEFINED. */
int cc_topo_test(MPI_Comm comm, int *topo);

#endif

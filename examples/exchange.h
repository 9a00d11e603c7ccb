/* A double-buffered halo exchange for the example applications.
 *
 * The same blocks (counts, byte displacements, datatypes; one array is both
 * send and receive buffer) on each of two arrays, planned once and run
 * either by cartcoll (persistent Cart_alltoallw, the intended use,
 * [Traff & Hunold 2019, Listing 3]) or -- to compare -- by the plain MPI neighbourhood collective
 * on the equivalent distributed graph (persistent MPI_Neighbor_alltoallw_init
 * where the MPI is 4.0 or newer).  exchange_init starts from a
 * Cart_neighborhood_create communicator: neighbours off a mesh are left out
 * of the MPI graph together with their blocks.  exchange_init_graph starts
 * from a distributed graph [Traff et al. 2021, Figure 1b]: both run on that graph. */
#ifndef EXAMPLES_EXCHANGE_H
#define EXAMPLES_EXCHANGE_H

#include <cartcoll.h>

typedef struct exchange {
    int use_mpi, own_graph;
    void *buf[2];
    Cart_request creq[2];
    MPI_Comm graph;
    MPI_Request mreq[2];
    int indeg, outdeg;
    int *gsc, *grc;
    MPI_Aint *gsd, *grd;
    MPI_Datatype *gst, *grt;
} exchange;

/* Plan the exchange of the t blocks on buf0 and buf1 over `cart`.
 * weights: the neighbourhood's weights (used for the MPI graph).  Returns
 * MPI_SUCCESS or an error code. */
int exchange_init(exchange *x, MPI_Comm cart, int t, void *buf0, void *buf1, const int counts[],
                  const MPI_Aint sdisp[], const MPI_Aint rdisp[], const MPI_Datatype types[],
                  const int weights[], int use_mpi);

/* The same on a distributed-graph communicator `graph` with t in- and t
 * out-edges (block i from the i-th source, to the i-th destination): the
 * cartcoll mode runs Cart_alltoallw_init on it, --mpi runs
 * MPI_Neighbor_alltoallw on it.  The graph stays the caller's. */
int exchange_init_graph(exchange *x, MPI_Comm graph, int t, void *buf0, void *buf1, const int counts[],
                        const MPI_Aint sdisp[], const MPI_Aint rdisp[], const MPI_Datatype types[], int use_mpi);

/* Exchange the halos of array k (0 or 1). */
void exchange_run(exchange *x, int k);

void exchange_free(exchange *x);

/* What runs the exchange, for the report line. */
const char *exchange_name(const exchange *x);

#endif

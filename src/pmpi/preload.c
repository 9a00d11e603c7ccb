/* libcartcoll_preload.so: the PMPI drop-in (seed 000, the one interface
 * set).  Added with LD_PRELOAD to an unmodified, dynamically linked
 * program, it routes
 *   MPI_Dist_graph_create_adjacent, MPI_Dist_graph_create
 *       -> Cart_dist_graph_create[_adjacent] (the same communicator, and the
 *          detection of stencil graphs);
 *   MPI_Cart_create -> PMPI (counted; its neighbourhood is derived by the
 *          first collective);
 *   the five MPI_Neighbor_* collectives, blocking (this file), non-blocking
 *   and MPI-4 persistent (nonblocking.c)
 *       -> the Cart_ collective of the same name on the same communicator:
 *          Cartesian schedules on Cartesian communicators (detected graphs,
 *          MPI_Cart_create), one message per edge on other graphs -- correct
 *          for repeated edges and periodic dimensions of size 1 and 2, where
 *          MPI implementations have been wrong;
 *   the calls that complete, start, free or query requests, and the
 *   blocking point-to-point calls, so that the drop-in's requests behave
 *   as MPI's and its operations progress while the program waits
 *   (requests.c, completion.c);
 *   on Open MPI, the Fortran bindings of the calls above that its Fortran
 *   layer sends straight to PMPI (fortran.c).
 * Built on the public API only.  Everything else goes to MPI.
 *
 * Environment: CARTCOLL_PRELOAD=off (everything to MPI), =passthrough (only
 * Cartesian communicators through cartcoll, other graphs to MPI), default
 * on; CARTCOLL_PRELOAD_REPORT=1: rank 0 prints one line at MPI_Finalize,
 *   cartcoll_preload: communicators S seen, C Cartesian; calls N, A accelerated
 * summed over MPI_COMM_WORLD (S: graph and Cartesian communicators made
 * through the drop-in, C: those with Cartesian schedules, N: intercepted
 * neighbourhood calls -- blocking, non-blocking, and each start of a
 * persistent one --, A: those that ran Cartesian schedules).
 *
 * The library itself calls MPI functions the drop-in defines (the detecting
 * graph constructors call MPI_Dist_graph_create_adjacent, requests call
 * MPI_Testall and MPI_Startall): the drop-in carries its own copy of the
 * library, built to call those through PMPI (cmake/CartcollPreload.cmake),
 * so the Cart_ calls below never come back into it. */
#include "pmpi/preload.h"

#include <stdio.h>

/* Whether Cart_ collectives run Cartesian schedules on a graph: the
 * schedule queries answer only there (MPI_ERR_TOPOLOGY on other graphs),
 * asked with errors returned, not raised. */
static int detected(MPI_Comm g)
{
    MPI_Errhandler eh;
    int phases, rounds, volume;
    PMPI_Comm_get_errhandler(g, &eh);
    PMPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
    int rc = Cart_schedule_stats(g, CART_ALLTOALL, CART_ALGORITHM_DIRECT, &phases, &rounds, &volume);
    PMPI_Comm_set_errhandler(g, eh);
    PMPI_Errhandler_free(&eh);
    return rc == MPI_SUCCESS;
}

static int take(MPI_Comm comm) { return pl_take(comm, 1, NULL); }

/* ---- communicator constructors ------------------------------------------ */

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
                                   int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm *comm_dist_graph)
{
    if (!pl_on())
        return PMPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree, destinations,
                                               destweights, info, reorder, comm_dist_graph);
    int rc = Cart_dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree, destinations,
                                             destweights, info, reorder, comm_dist_graph);
    if (rc == MPI_SUCCESS) pl_remember(*comm_dist_graph, detected(*comm_dist_graph));
    return rc;
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info, int reorder,
                          MPI_Comm *comm_dist_graph)
{
    if (!pl_on())
        return PMPI_Dist_graph_create(comm_old, n, sources, degrees, destinations, weights, info, reorder,
                                      comm_dist_graph);
    int rc = Cart_dist_graph_create(comm_old, n, sources, degrees, destinations, weights, info, reorder,
                                    comm_dist_graph);
    if (rc == MPI_SUCCESS) pl_remember(*comm_dist_graph, detected(*comm_dist_graph));
    return rc;
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *comm_cart)
{
    int on = pl_on();
    int rc = PMPI_Cart_create(comm_old, ndims, dims, periods, reorder, comm_cart);
    if (on && rc == MPI_SUCCESS) pl_remember(*comm_cart, 1);
    return rc;
}

/* ---- the blocking neighbourhood collectives ----------------------------- */

int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm)
{
    if (!take(comm)) return PMPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return Cart_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    if (!take(comm))
        return PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
    return Cart_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm)
{
    if (!take(comm)) return PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return Cart_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                           void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                           MPI_Comm comm)
{
    if (!take(comm))
        return PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                       recvtype, comm);
    return Cart_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
}

int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    if (!take(comm))
        return PMPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                       recvtypes, comm);
    return Cart_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
}

/* ---- the report ----------------------------------------------------------- */

int MPI_Finalize(void)
{
    long v[4], s[4] = { 0, 0, 0, 0 };
    int report = pl_report(v);
    if (report >= 0) pl_drain(); /* requests the program freed while active */
    if (report > 0) {
        int rank = 0;
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (PMPI_Reduce(v, s, 4, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD) == MPI_SUCCESS && rank == 0)
            fprintf(stderr, "cartcoll_preload: communicators %ld seen, %ld Cartesian; calls %ld, %ld accelerated\n",
                    s[0], s[1], s[2], s[3]);
    }
    return PMPI_Finalize();
}

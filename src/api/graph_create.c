/* Cart_dist_graph_create_adjacent and Cart_dist_graph_create: MPI's
 * distributed-graph communicator, on which the Cart_ collectives have the
 * MPI standard's neighbourhood meaning, and the detection (seed 000 sec.
 * 3.2) of graphs that are Cartesian (topo/graph_detect.c): on the naming of
 * comm_old, or on a guessed row-major grid when comm_old has none; those
 * get a Cartesian neighbourhood at once, with the permutations that keep
 * every process's own block order.  Other graphs get the per-edge plan at
 * their first collective (topo/adopt.c).
 *
 * Reordering: on a named comm_old (whose grid covers it) MPI gets reorder
 * = 0, whatever the caller asked.  The naming is about comm_old's ranks and
 * detection reads it in the graph's ranks, so these must stay comm_old's;
 * mapping reordered ranks back would take a table of p ranks.  MPI's own
 * reordering knows nothing of the stencil, while the naming already says
 * where each process sits (seed 000 sec. 3.3 finds reordering at either
 * MPI call the wrong place), and Open MPI 4.1 and MPICH 4.0 do not reorder
 * distributed graphs anyway; reorder is a hint MPI may ignore.  On an
 * unnamed comm_old the caller's reorder goes to MPI: the guessed grids are
 * laid over the graph's own ranks, so a reordering cannot make them
 * stale. */
#include "cartcoll.h"

#include "base/errors.h"
#include "req/request.h"
#include "topo/adopt.h"

static int check_old(MPI_Comm comm_old, MPI_Comm *out, const char *who)
{
    int inter = 0;
    if (comm_old == MPI_COMM_NULL) return cc_error(MPI_COMM_SELF, MPI_ERR_COMM, "%s: comm_old is MPI_COMM_NULL", who);
    if (MPI_Comm_test_inter(comm_old, &inter) != MPI_SUCCESS)
        return cc_error(MPI_COMM_SELF, MPI_ERR_COMM, "%s: comm_old is not a valid communicator", who);
    if (inter) return cc_error(comm_old, MPI_ERR_COMM, "%s: comm_old is an inter-communicator", who);
    if (!out) return cc_error(comm_old, MPI_ERR_ARG, "%s: comm_dist_graph (the output argument) is NULL", who);
#ifdef CARTCOLL_NO_DIST_GRAPH
    /* SimGrid SMPI 3.32 would abort in MPI_Dist_graph_create*: an error
     * instead, which the caller can handle. */
    return cc_error(comm_old, MPI_ERR_UNSUPPORTED_OPERATION, "%s: this MPI has no distributed graph topologies", who);
#else
    return MPI_SUCCESS;
#endif
}

int Cart_dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree, const int destinations[],
                                    const int destweights[], MPI_Info info, int reorder,
                                    MPI_Comm *comm_dist_graph)
{
    static const char *const who = "Cart_dist_graph_create_adjacent";
    int rc = check_old(comm_old, comm_dist_graph, who);
    if (rc != MPI_SUCCESS) return rc;
    /* MPI checks the rest and raises its errors on comm_old itself. */
    rc = MPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree, destinations,
                                        destweights, info, cc_detect_reorder(comm_old, reorder), comm_dist_graph);
    if (rc == MPI_SUCCESS) rc = cc_detect(comm_old, *comm_dist_graph, info, who, cc_progress_wait);
    return rc;
}

int Cart_dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info, int reorder,
                           MPI_Comm *comm_dist_graph)
{
    static const char *const who = "Cart_dist_graph_create";
    int rc = check_old(comm_old, comm_dist_graph, who);
    if (rc != MPI_SUCCESS) return rc;
    rc = MPI_Dist_graph_create(comm_old, n, sources, degrees, destinations, weights, info,
                               cc_detect_reorder(comm_old, reorder), comm_dist_graph);
    if (rc == MPI_SUCCESS) rc = cc_detect(comm_old, *comm_dist_graph, info, who, cc_progress_wait);
    return rc;
}

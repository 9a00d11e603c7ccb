/* Neighbourhoods of communicators cartcoll did not create: adopted at the
 * first Cart_ collective that meets them (MPI_Cart_create and graph
 * communicators: adopt.c), or detected right after
 * Cart_dist_graph_create[_adjacent] made a distributed graph that is
 * Cartesian (graph_detect.c; its pure offset arithmetic is
 * geom/detect.h).  Both attach the neighbourhood to the communicator
 * (topo/comm.h); the front (api/) and the collectives (coll/) only call
 * them. */
#ifndef CC_ADOPT_H
#define CC_ADOPT_H

#include <mpi.h>

#include "topo/comm.h"

/* Give an MPI_Cart_create (kind CC_KIND_CART) or graph (CC_KIND_GRAPH)
 * communicator its neighbourhood; *cs is then its cc_comm.  Returns
 * MPI_SUCCESS or an error code (not raised). */
int cc_adopt(MPI_Comm comm, int kind, cc_comm **cs, const char *who);

/* The reorder to pass to MPI when making a distributed graph from comm_old
 * that cc_detect will examine: 0 when comm_old has a naming that covers
 * it (detection reads that naming in the graph's ranks, which must stay
 * comm_old's), else `reorder`.  The naming is the same on every process,
 * so all decide alike. */
int cc_detect_reorder(MPI_Comm comm_old, int reorder);

/* After MPI made the distributed graph g from comm_old: decide
 * collectively (at most three small reductions) whether g is Cartesian
 * with respect to comm_old's naming (or a guessed grid) and if so attach
 * the Cartesian neighbourhood and complete its private duplicate, waiting
 * with `wait` (which advances the caller's other requests:
 * req/request.h's cc_progress_wait; topo/ cannot call up to req/).
 * Returns MPI_SUCCESS (detected or not) or a raised error. */
int cc_detect(MPI_Comm comm_old, MPI_Comm g, MPI_Info info, const char *who, int (*wait)(MPI_Request *));

#endif

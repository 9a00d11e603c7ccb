/* The API front: the dispatch of every Cart_ collective on the structure of
 * its communicator (topo/kind.h), into the families of coll/ (coll/coll.h):
 *   neighbourhoods (Cart_neighborhood_create, MPI_Cart_create, graphs,
 *     detected or not) -> the one check and the pipeline (coll/neighbor.c,
 *     coll/nbh_run.c): Cartesian schedules for the six [core] collectives,
 *     per-edge plans and trees for the others;
 *   plain intra- and inter-communicators -> MPI's own collective
 *     (coll/global.c). */
#ifndef CC_FRONT_H
#define CC_FRONT_H

#include "coll/coll.h"
#include "part/pcoll.h"

/* The front of every Cart_ collective but the partitioned ones (front.c),
 * called by their entry points (entry_points.gen.c) with call c (its
 * descriptor c->coll and its arguments; the entry point's own, which the
 * neighbourhood's pipeline rewrites as blocks): dispatch on what c->comm
 * is.  Errors are raised on c->comm. */
int cc_front_call(const char *who, cc_call *c, int mode, MPI_Info info, Cart_request *request);

/* The front of the sixteen partitioned collectives (partitioned.c), called
 * by their entry points with the row coll (CC_PC_*) and call a: where the
 * call runs (adopting an MPI topology, refusing inter-communicators), then
 * the partitioned layer's one _init (part/init.c).  Errors are raised. */
int cc_part_call(int coll, const cc_pargs *a, MPI_Comm comm, MPI_Info info, Cart_request *request);

#endif

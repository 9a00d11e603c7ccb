/* The API front: the dispatch of every Cart_ collective on the structure of
 * its communicator (topo/kind.h), into the families of coll/ (coll/coll.h):
 *   neighbourhoods (Cart_neighborhood_create, MPI_Cart_create, graphs,
 *     detected or not) -> the pipeline of coll/nbh_run.c: Cartesian
 *     schedules for the six [core] collectives, per-edge plans for the
 *     others (coll/neighbor.c);
 *   plain intra- and inter-communicators -> MPI's own collective
 *     (coll/global.c). */
#ifndef CC_FRONT_H
#define CC_FRONT_H

#include "coll/coll.h"
#include "part/pcoll.h"

/* The front of the six [core] collectives (front.c), called by their
 * entry points (entry_points.gen.c) with call a: dispatch on what comm is
 * (neighbourhood: cc_nbh_run; plain or inter: cc_global_core).  Errors are
 * raised on comm. */
int cc_core_call(const char *who, const cc_args *a, MPI_Comm comm, int mode, MPI_Info info, Cart_request *request);

/* Entry of the seed-000 collectives: dispatch on the communicator's kind. */
int cc_front_call(const cc_coll *coll, const char *who, cc_mpicall *c, int mode, MPI_Info info,
                  Cart_request *request);

/* The front of the sixteen partitioned collectives (partitioned.c), called
 * by their entry points with the row coll (CC_PC_*) and call a: where the
 * call runs (adopting an MPI topology, refusing inter-communicators), then
 * the partitioned layer's one _init (part/init.c).  Errors are raised. */
int cc_part_call(int coll, const cc_pargs *a, MPI_Comm comm, MPI_Info info, Cart_request *request);

#endif

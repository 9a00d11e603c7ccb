/* The two fronts every generated entry point calls (api/entry_points.gen.c):
 * dispatch on what the communicator is (topo/kind.h) -- a neighbourhood
 * goes to the pipeline (coll/nbh_run.c, coll/neighbor.c), a plain intra-
 * or an inter-communicator to MPI's own collective (coll/global.c,
 * coll/global_core.c). */
#include "api/front.h"

#include "base/errors.h"
#include "topo/kind.h"

int cc_front_call(const cc_coll *coll, const char *who, cc_mpicall *c, int mode, MPI_Info info,
                  Cart_request *request)
{
    int kind;
    cc_comm *cs;
    int rc = cc_kind_of(c->comm, &kind, &cs, who);
    if (rc == MPI_SUCCESS && (kind == CC_KIND_PLAIN || kind == CC_KIND_INTER))
        return cc_global_run(coll, who, c, kind == CC_KIND_INTER, mode, info, request);
    if (rc == MPI_SUCCESS && coll->nbh) return cc_nbh_call(coll, who, c, kind, cs, mode, info, request);
    cc_mpicall_release(c);
    if (rc != MPI_SUCCESS) return cc_error_raise(c->comm, rc);
    return cc_error(c->comm, MPI_ERR_TOPOLOGY,
                    "%s: %s is undefined on a communicator with a neighbourhood (graph or Cartesian "
                    "topology); call it on the base communicator (Cart_comm_base)", who, coll->name);
}

/* The front of the six [core] collectives (api/front.h): dispatch on what
 * the communicator is. */
int cc_core_call(const char *who, const cc_args *a, MPI_Comm comm, int mode, MPI_Info info, Cart_request *request)
{
    cc_comm *cs;
    int kind;
    int rc = cc_kind_of(comm, &kind, &cs, who);
    if (rc != MPI_SUCCESS) return cc_error_raise(comm, rc);
    if (kind == CC_KIND_PLAIN || kind == CC_KIND_INTER)
        return cc_global_core(who, a, comm, kind == CC_KIND_INTER, mode, info, request);
    return cc_nbh_run(who, a, comm, kind, cs, mode, info, request);
}

/* The one front every generated entry point calls (api/entry_points.gen.c):
 * dispatch on what the communicator is (topo/kind.h) -- a neighbourhood
 * goes to the one check and the pipeline (coll/neighbor.c), a plain intra-
 * or an inter-communicator to MPI's own collective (coll/global.c). */
#include "api/front.h"

#include "base/errors.h"
#include "topo/kind.h"

int cc_front_call(const char *who, cc_call *c, int mode, MPI_Info info, Cart_request *request)
{
    int kind;
    cc_comm *cs;
    int rc = cc_kind_of(c->comm, &kind, &cs, who);
    if (rc != MPI_SUCCESS) return cc_error_raise(c->comm, rc);
    if (kind == CC_KIND_PLAIN || kind == CC_KIND_INTER)
        return cc_global_run(who, c, kind == CC_KIND_INTER, mode, info, request);
    if (c->coll->nbh) return cc_nbh_call(who, c, kind, cs, mode, info, request);
    return cc_error(c->comm, MPI_ERR_TOPOLOGY,
                    "%s: %s is undefined on a communicator with a neighbourhood (graph or Cartesian "
                    "topology); call it on the base communicator (Cart_comm_base)", who, c->coll->name);
}

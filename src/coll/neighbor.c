/* Every collective with neighbourhood meaning enters here, on every
 * communicator with a neighbourhood: Cart_neighborhood_create,
 * MPI_Cart_create, distributed graphs, detected or not.  The call is
 * checked by the one check (check.c: argument arrays of one entry per in-
 * or out-neighbour, as MPI's neighbourhood collectives have), described
 * as blocks and handed to the one pipeline of nbh_run.c, which runs the
 * Cartesian schedules of the six [core] collectives and the per-edge
 * plans (sched/schedule_edges.h) or trees of the others. */
#include "coll/coll.h"
#include "coll/check.h"

#include "base/errors.h"
#include "topo/kind.h"

/* The call as blocks (bind/call.c), in place (it is the entry point's
 * own description): the send side of bcast is its buffer at the root, a
 * reduction's send block the receive buffer where it is MPI_IN_PLACE. */
static void as_blocks(cc_call *a, int here)
{
    int in_place_send = a->sendbuf == MPI_IN_PLACE;
    a->collective = a->coll->nbh;
    a->variant = a->coll->variant;
    a->in_place = here && (in_place_send || a->recvbuf == MPI_IN_PLACE);
    switch (a->collective) {
    case CC_BARRIER:
        a->sendbuf = a->recvbuf = NULL;
        a->sendcount = a->recvcount = 0;
        a->sendtype = a->recvtype = MPI_BYTE;
        a->root = -1;
        break;
    case CC_BCAST:
        a->sendbuf = a->recvbuf;
        a->sendcount = a->recvcount;
        a->sendtype = a->recvtype;
        break;
    case CC_REDUCE:
    case CC_ALLREDUCE:
        if (in_place_send) a->sendbuf = a->recvbuf;
        a->sendcount = a->recvcount;
        a->sendtype = a->recvtype;
        a->in_place = 0; /* the root's contribution is read from recvbuf like any send block */
        if (a->collective == CC_ALLREDUCE) a->root = -1;
        break;
    default: break;
    }
}

/* (coll/coll.h) */
int cc_nbh_call(const char *who, cc_call *c, int kind, cc_comm *cs, int mode, MPI_Info info,
                Cart_request *request)
{
    int here = 0, rc = MPI_SUCCESS;
    sides s;
    if (kind == CC_KIND_CART || kind == CC_KIND_GRAPH) rc = cc_adopt(c->comm, kind, &cs, who);
    if (rc != MPI_SUCCESS) return cc_error_raise(c->comm, rc);
    rc = cc_call_check(who, c, CC_MEANING_NBH, cc_nbh_nsendblocks(cs->nbh), cc_nbh_nrecvblocks(cs->nbh), mode,
                       request, 0, &s, &here);
    /* (a persistent call's processes agree on failure too: nbh_run.c) */
    if (rc != MPI_SUCCESS && mode != CC_MODE_PERSISTENT) return cc_error_raise(c->comm, rc);
    as_blocks(c, here);
    return cc_nbh_run(who, c, c->comm, cs, mode, info, request, rc);
}

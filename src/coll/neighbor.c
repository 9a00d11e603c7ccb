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

/* The call as blocks (bind/call.c): the send side of bcast is its buffer
 * at the root, a reduction's send block the receive buffer where it is
 * MPI_IN_PLACE. */
static cc_call blocks_of(const cc_call *c, int here)
{
    cc_call a = *c;
    a.collective = c->coll->nbh;
    a.variant = c->coll->variant;
    a.in_place = here && (c->sendbuf == MPI_IN_PLACE || c->recvbuf == MPI_IN_PLACE);
    switch (a.collective) {
    case CC_BARRIER:
        a.sendbuf = a.recvbuf = NULL;
        a.sendcount = a.recvcount = 0;
        a.sendtype = a.recvtype = MPI_BYTE;
        a.root = -1;
        break;
    case CC_BCAST:
        a.sendbuf = c->recvbuf;
        a.sendcount = c->recvcount;
        a.sendtype = c->recvtype;
        break;
    case CC_REDUCE:
    case CC_ALLREDUCE:
        if (c->sendbuf == MPI_IN_PLACE) a.sendbuf = c->recvbuf;
        a.sendcount = c->recvcount;
        a.sendtype = c->recvtype;
        a.in_place = 0; /* the root's contribution is read from recvbuf like any send block */
        if (a.collective == CC_ALLREDUCE) a.root = -1;
        break;
    default: break;
    }
    return a;
}

/* (coll/coll.h) */
int cc_nbh_call(const char *who, const cc_call *c, int kind, cc_comm *cs, int mode, MPI_Info info,
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
    cc_call a = blocks_of(c, here);
    return cc_nbh_run(who, &a, c->comm, cs, mode, info, request, rc);
}

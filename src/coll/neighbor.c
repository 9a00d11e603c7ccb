/* Neighbourhood meaning of the collectives of seed 000 (barrier, bcast,
 * gather(v), scatter(v), reduce, allreduce) on every communicator with a
 * neighbourhood: Cart_neighborhood_create, MPI_Cart_create, distributed
 * graphs, detected or not.  The front checks the arguments like MPI's
 * collective of the same name (the argument arrays have one entry per in- or
 * out-neighbour, as MPI's neighbourhood collectives have), describes the
 * call as blocks and hands it to the one pipeline of nbh_run.c, which
 * runs the per-edge plan of sched/schedule_edges.h. */
#include "coll/coll.h"

#include "base/errors.h"
#include "topo/kind.h"

#include <string.h>

/* MPI_IN_PLACE where the MPI collective of the same name accepts it: as the
 * root's send buffer of gather and reduce, the root's receive buffer of
 * scatter, every send buffer of allreduce. */
static int check_in_place(const char *who, int coll, const cc_mpicall *c, int here)
{
    int s = c->sendbuf == MPI_IN_PLACE, r = c->recvbuf == MPI_IN_PLACE;
    if (coll == CC_BARRIER || (!s && !r)) return MPI_SUCCESS;
    const char *bad = NULL;
    if (coll == CC_BCAST) bad = "as the buffer";
    else if (r && coll != CC_SCATTER) bad = "as recvbuf";
    else if (s && (coll == CC_SCATTER || ((coll == CC_GATHER || coll == CC_REDUCE) && !here)))
        bad = coll == CC_SCATTER ? "as sendbuf" : "as sendbuf on a process other than the root";
    else if (r && !here) bad = "as recvbuf on a process other than the root";
    if (!bad) return MPI_SUCCESS;
    return cc_error_code(MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is not allowed %s", who, bad);
}

/* The call as blocks: the send side of bcast is its buffer at the root, a
 * reduction's send block the receive buffer where it is MPI_IN_PLACE. */
static cc_args args_of(const cc_coll *coll, const cc_mpicall *c, int here)
{
    cc_args a;
    memset(&a, 0, sizeof a);
    a.collective = coll->nbh;
    a.variant = coll->flags & (CC_F_SENDV_ROOT | CC_F_RECVV_ROOT) ? CC_VECTOR : CC_REGULAR;
    a.sendbuf = c->sendbuf;
    a.recvbuf = c->recvbuf;
    a.sendcount = c->sendcount;
    a.sendtype = c->sendtype;
    a.recvcount = c->recvcount;
    a.recvtype = c->recvtype;
    a.sendcounts = c->sendcounts;
    a.sdispls = c->sdispls;
    a.recvcounts = c->recvcounts;
    a.rdispls = c->rdispls;
    a.root = c->root;
    a.op = c->op;
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

int cc_nbh_call(const cc_coll *coll, const char *who, cc_mpicall *c, int kind, cc_comm *cs, int mode,
                MPI_Info info, Cart_request *request)
{
    MPI_Comm comm = c->comm;
    int here = 0, rc = MPI_SUCCESS;
    if (kind == CC_KIND_CART || kind == CC_KIND_GRAPH) rc = cc_adopt(comm, kind, &cs, who);
    if (rc == MPI_SUCCESS) {
        cc_nbh *n = cs->nbh;
        rc = cc_coll_check(coll, who, c, cc_nbh_nsendblocks(n), cc_nbh_nrecvblocks(n), mode, request, &here);
    }
    if (rc == MPI_SUCCESS) rc = check_in_place(who, coll->nbh, c, here);
    cc_args a = args_of(coll, c, here);
    cc_mpicall_release(c);
    if (rc != MPI_SUCCESS) return cc_error_raise(comm, rc);
    return cc_nbh_run(who, &a, comm, CC_KIND_NBH, cs, mode, info, request);
}

/* Global and inter-communicator meaning (seed 000, the one interface set):
 * on a communicator without topology every Cart_ collective is MPI's own
 * collective of the same name -- never reimplemented here.  One descriptor
 * per collective gives the checks and MPI's blocking, non-blocking and
 * persistent call.  A persistent Cart_X_init on an intra-communicator is
 * MPI's persistent collective where the MPI has one we trust (MPI-4's
 * MPI_X_init, Open MPI 4.1's MPIX_X_init extension): planned once, each
 * Cart_start is an MPI_Start that creates nothing.  Elsewhere (MPI-3
 * without the extension, inter-communicators, and MPICH's persistent
 * gather, scatter and allgather families, whose 4.0 versions deliver
 * wrong data) Cart_start starts MPI's non-blocking call.  Non-blocking and
 * persistent calls keep copies of the argument arrays and duplicates of
 * derived datatypes, which the caller may change or free after the call.
 * Combinations the MPI underneath gets wrong take a route through MPI calls
 * that are right (the route table of global_routes.c). */
#include "coll/coll.h"
#include "coll/check.h"

#include "base/errors.h"
#include "bind/typemap.h"
#include "topo/kind.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A copy of t the call owns when t is derived (the caller may free t). */
static MPI_Datatype keep_type(cc_mpirun *m, MPI_Datatype t)
{
    int ni, na, nd, comb;
    if (MPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS || comb == MPI_COMBINER_NAMED) return t;
    MPI_Datatype d;
    if (cc_type_keep(t, &d) != MPI_SUCCESS) return t;
    m->dups[m->ndups++] = d;
    return d;
}

static const int *keep_ints(int **at, const int *v, int n)
{
    if (!v) return NULL;
    memcpy(*at, v, sizeof(int) * (size_t)n);
    *at += n;
    return *at - n;
}

static const MPI_Datatype *keep_types(cc_mpirun *m, MPI_Datatype **at, const MPI_Datatype *v, int n)
{
    for (int i = 0; i < n; i++) (*at)[i] = keep_type(m, v[i]);
    *at += n;
    return *at - n;
}

/* A non-blocking or persistent call keeps what it uses: the significant
 * arrays and datatypes, copied (inter-communicators: by reference,
 * documented). */
static int persist(cc_mpirun *m, const sides *s)
{
    cc_call *c = &m->call;
    /* nsend / nrecv are -1 where the call has no argument arrays (bcast,
     * gather, reductions...): no entries, not SIZE_MAX. */
    size_t ns = s->nsend > 0 ? (size_t)s->nsend : 0, nr = s->nrecv > 0 ? (size_t)s->nrecv : 0;
    size_t ntypes = 2 + (s->sendw ? ns : 0) + (s->recvw ? nr : 0);
    char *mem = malloc(sizeof(int) * 2 * (ns + nr) + 2 * sizeof(MPI_Datatype) * ntypes + 1);
    if (!mem) return MPI_ERR_NO_MEM;
    MPI_Datatype *types = (MPI_Datatype *)mem, *tat = types + ntypes;
    int *ints = (int *)(mem + 2 * sizeof(MPI_Datatype) * ntypes), *at = ints;
    void *old = m->owned;
    m->dups = types;
    m->ndups = 0;
    if (s->send || s->sendv) c->sendtype = keep_type(m, c->sendtype);
    if (s->recv || s->recvv) c->recvtype = keep_type(m, c->recvtype);
    if (s->sendv || s->sendw) {
        c->sendcounts = keep_ints(&at, c->sendcounts, (int)ns);
        c->sdispls = keep_ints(&at, c->sdispls, (int)ns);
    }
    if (s->recvv || s->recvw) {
        c->recvcounts = keep_ints(&at, c->recvcounts, (int)nr);
        c->rdispls = keep_ints(&at, c->rdispls, (int)nr);
    }
    if (s->sendw) c->sendtypes = keep_types(m, &tat, c->sendtypes, (int)ns);
    if (s->recvw) c->recvtypes = keep_types(m, &tat, c->recvtypes, (int)nr);
    m->owned = mem;
    free(old); /* converted arrays (global_core.c), copied above */
    return MPI_SUCCESS;
}

/* The call as MPI's collective takes it (w calls converted, global_core.c), checked, its arrays kept where it outlives the call, and
 * routed where the MPI underneath is wrong (global_routes.c). */
static int prepare(const char *who, const cc_call *call, int inter, int mode, const Cart_request *request,
                   cc_mpirun *m)
{
    sides s;
    int here, rc = MPI_SUCCESS;
    memset(m, 0, sizeof *m);
    m->call = *call;
    if (call->coll->variant == CC_W) rc = cc_global_w(who, call, inter, m);
    if (rc == MPI_SUCCESS) rc = cc_call_check(who, &m->call, inter ? CC_MEANING_INTER : CC_MEANING_GLOBAL, -1, -1,
                                              mode, request, 1, &s, &here);
    m->istart = m->call.coll->istart;
    if (rc == MPI_SUCCESS && mode != CC_MODE_BLOCKING && !inter && persist(m, &s) != MPI_SUCCESS)
        rc = cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory", who);
    if (rc == MPI_SUCCESS) rc = cc_global_route(who, m, inter, mode);
    return rc;
}

int cc_global_run(const char *who, const cc_call *call, int inter, int mode, MPI_Info info, Cart_request *request)
{
    cc_mpirun m;
    MPI_Comm comm = call->comm;
    int rc = prepare(who, call, inter, mode, request, &m);
    const cc_coll *coll = m.call.coll;
    int routed = m.istart != coll->istart;
    if (rc != MPI_SUCCESS) {
        cc_mpirun_release(&m);
        return cc_error_raise(comm, rc);
    }
    /* MPI's own calls raise their errors on the communicator themselves. */
    if (mode == CC_MODE_BLOCKING) {
        rc = coll->blocking(&m.call);
        cc_mpirun_release(&m);
        return rc;
    }
    /* MPI's persistent collective, made here on the kept arguments. */
    MPI_Request preq = MPI_REQUEST_NULL;
    if (mode == CC_MODE_PERSISTENT && !inter && coll->pinit && !routed &&
        (rc = coll->pinit(&m.call, info, &preq)) != MPI_SUCCESS) {
        cc_mpirun_release(&m);
        return rc; /* raised by MPI on comm */
    }
    Cart_request r;
    if (cc_request_new_mpi(&r, comm, who, mode == CC_MODE_PERSISTENT, &m) != MPI_SUCCESS) {
        if (preq != MPI_REQUEST_NULL) MPI_Request_free(&preq);
        return cc_error(comm, MPI_ERR_NO_MEM, "%s: out of memory for the request", who);
    }
    if (preq != MPI_REQUEST_NULL) {
        r->mreq = preq;
        r->mpersist = 1;
    }
    if (mode == CC_MODE_NONBLOCKING) {
        if ((rc = cc_request_start(r)) != MPI_SUCCESS) {
            cc_request_destroy(r);
            return rc;
        }
        cc_progress_add(r);
    }
    *request = r;
    return MPI_SUCCESS;
}

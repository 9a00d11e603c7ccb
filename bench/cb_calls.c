/* cartbench: the calls of every variant (cartcoll blocking, non-blocking,
 * persistent; the MPI baseline in the same forms), one operation, and one
 * checked operation: the collective's family (cb_ops.h) clears the
 * buffers, the call runs, the family verifies the result. */
#define _POSIX_C_SOURCE 200809L
#include "cb_calls.h"

#include "cb_cases.h"
#include "cb_ops.h"
#include "cb_p2p.h"
#include "cb_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- cartcoll ---------------------------------------------------------- */

static int cart_blocking(const kase *k, MPI_Comm comm)
{
    const int m = k->m;
    switch (k->op) {
    case OP_ALLGATHER: return Cart_allgather(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, comm);
    case OP_ALLGATHERV: return Cart_allgatherv(k->sbuf, m, MPI_INT, k->rbuf, k->cnt, k->rd, MPI_INT, comm);
    case OP_ALLGATHERW: return Cart_allgatherw(k->sbuf, m, MPI_INT, k->rbuf, k->cnt, k->rdb, k->types, comm);
    case OP_ALLTOALL: return Cart_alltoall(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, comm);
    case OP_ALLTOALLV: return Cart_alltoallv(k->sbuf, k->cnt, k->sd, MPI_INT, k->rbuf, k->cnt, k->rd, MPI_INT, comm);
    case OP_ALLREDUCE:
    case OP_NALLREDUCE: return Cart_allreduce(k->dsbuf, k->drbuf, m, MPI_DOUBLE, MPI_SUM, comm);
    case OP_NBCAST: return Cart_bcast(k->rbuf, m, MPI_INT, 0, comm);
    case OP_NGATHER: return Cart_gather(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, 0, comm);
    case OP_NSCATTER: return Cart_scatter(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, 0, comm);
    case OP_NREDUCE: return Cart_reduce(k->dsbuf, k->drbuf, m, MPI_DOUBLE, MPI_SUM, 0, comm);
    default:
        return Cart_alltoallw(k->sbuf, k->cnt, k->sdb, k->types, k->rbuf, k->cnt, k->rdb, k->types, comm);
    }
}

static int cart_nonblocking(const kase *k, MPI_Comm comm, Cart_request *r)
{
    const int m = k->m;
    switch (k->op) {
    case OP_ALLGATHER: return Cart_iallgather(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, comm, r);
    case OP_ALLGATHERV: return Cart_iallgatherv(k->sbuf, m, MPI_INT, k->rbuf, k->cnt, k->rd, MPI_INT, comm, r);
    case OP_ALLGATHERW: return Cart_iallgatherw(k->sbuf, m, MPI_INT, k->rbuf, k->cnt, k->rdb, k->types, comm, r);
    case OP_ALLTOALL: return Cart_ialltoall(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, comm, r);
    case OP_ALLTOALLV:
        return Cart_ialltoallv(k->sbuf, k->cnt, k->sd, MPI_INT, k->rbuf, k->cnt, k->rd, MPI_INT, comm, r);
    case OP_ALLREDUCE:
    case OP_NALLREDUCE: return Cart_iallreduce(k->dsbuf, k->drbuf, m, MPI_DOUBLE, MPI_SUM, comm, r);
    case OP_NBCAST: return Cart_ibcast(k->rbuf, m, MPI_INT, 0, comm, r);
    case OP_NGATHER: return Cart_igather(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, 0, comm, r);
    case OP_NSCATTER: return Cart_iscatter(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, 0, comm, r);
    case OP_NREDUCE: return Cart_ireduce(k->dsbuf, k->drbuf, m, MPI_DOUBLE, MPI_SUM, 0, comm, r);
    default:
        return Cart_ialltoallw(k->sbuf, k->cnt, k->sdb, k->types, k->rbuf, k->cnt, k->rdb, k->types, comm, r);
    }
}

/* Cart_X_init with the algorithm and executor in info. */
static int cart_init(const kase *k, MPI_Comm comm, MPI_Info info, Cart_request *r)
{
    const int m = k->m;
    switch (k->op) {
    case OP_ALLGATHER: return Cart_allgather_init(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, comm, info, r);
    case OP_ALLGATHERV:
        return Cart_allgatherv_init(k->sbuf, m, MPI_INT, k->rbuf, k->cnt, k->rd, MPI_INT, comm, info, r);
    case OP_ALLGATHERW:
        return Cart_allgatherw_init(k->sbuf, m, MPI_INT, k->rbuf, k->cnt, k->rdb, k->types, comm, info, r);
    case OP_ALLTOALL: return Cart_alltoall_init(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, comm, info, r);
    case OP_ALLTOALLV:
        return Cart_alltoallv_init(k->sbuf, k->cnt, k->sd, MPI_INT, k->rbuf, k->cnt, k->rd, MPI_INT, comm, info, r);
    case OP_ALLREDUCE:
    case OP_NALLREDUCE: return Cart_allreduce_init(k->dsbuf, k->drbuf, m, MPI_DOUBLE, MPI_SUM, comm, info, r);
    case OP_NBCAST: return Cart_bcast_init(k->rbuf, m, MPI_INT, 0, comm, info, r);
    case OP_NGATHER: return Cart_gather_init(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, 0, comm, info, r);
    case OP_NSCATTER: return Cart_scatter_init(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, 0, comm, info, r);
    case OP_NREDUCE: return Cart_reduce_init(k->dsbuf, k->drbuf, m, MPI_DOUBLE, MPI_SUM, 0, comm, info, r);
    default:
        return Cart_alltoallw_init(k->sbuf, k->cnt, k->sdb, k->types, k->rbuf, k->cnt, k->rdb, k->types, comm, info, r);
    }
}

/* ---- The MPI baseline -------------------------------------------------- */

/* MPI has no allgatherw: OP_ALLGATHERW falls to the alltoallw default, with
 * every send displacement 0 (make_baseline_send). */
static int mpi_blocking(const kase *k, MPI_Comm g)
{
    const int m = k->m;
    const void *sb = k->msbuf;
    void *rb = k->mrbuf;
    switch (k->op) {
    case OP_ALLGATHER: return MPI_Neighbor_allgather(sb, m, MPI_INT, rb, m, MPI_INT, g);
    case OP_ALLGATHERV: return MPI_Neighbor_allgatherv(sb, m, MPI_INT, rb, k->mrcnt, k->mrd, MPI_INT, g);
    case OP_ALLTOALL: return MPI_Neighbor_alltoall(sb, m, MPI_INT, rb, m, MPI_INT, g);
    case OP_ALLTOALLV: return MPI_Neighbor_alltoallv(sb, k->mscnt, k->msd, MPI_INT, rb, k->mrcnt, k->mrd, MPI_INT, g);
    case OP_ALLREDUCE: return MPI_Allreduce(k->dsbuf, k->dmrbuf, m, MPI_DOUBLE, MPI_SUM, g);
    case OP_NALLREDUCE: return MPI_Neighbor_allgather(k->dsbuf, m, MPI_DOUBLE, k->dmgbuf, m, MPI_DOUBLE, g);
    default:
        return MPI_Neighbor_alltoallw(sb, k->mscnt, k->msdb, k->mtypes, rb, k->mrcnt, k->mrdb, k->mtypes, g);
    }
}

static int mpi_nonblocking(const kase *k, MPI_Comm g, MPI_Request *r)
{
    const int m = k->m;
    const void *sb = k->msbuf;
    void *rb = k->mrbuf;
    switch (k->op) {
    case OP_ALLGATHER: return MPI_Ineighbor_allgather(sb, m, MPI_INT, rb, m, MPI_INT, g, r);
    case OP_ALLGATHERV: return MPI_Ineighbor_allgatherv(sb, m, MPI_INT, rb, k->mrcnt, k->mrd, MPI_INT, g, r);
    case OP_ALLTOALL: return MPI_Ineighbor_alltoall(sb, m, MPI_INT, rb, m, MPI_INT, g, r);
    case OP_ALLTOALLV:
        return MPI_Ineighbor_alltoallv(sb, k->mscnt, k->msd, MPI_INT, rb, k->mrcnt, k->mrd, MPI_INT, g, r);
    case OP_ALLREDUCE: return MPI_Iallreduce(k->dsbuf, k->dmrbuf, m, MPI_DOUBLE, MPI_SUM, g, r);
    case OP_NALLREDUCE: return MPI_Ineighbor_allgather(k->dsbuf, m, MPI_DOUBLE, k->dmgbuf, m, MPI_DOUBLE, g, r);
    default:
        return MPI_Ineighbor_alltoallw(sb, k->mscnt, k->msdb, k->mtypes, rb, k->mrcnt, k->mrdb, k->mtypes, g, r);
    }
}

/* MPI_Neighbor_X_init needs MPI 4 (the mpi-p variants exist only then). */
static int mpi_persistent_init(const kase *k, MPI_Comm g, MPI_Request *r)
{
#if HAVE_MPI_PERSISTENT_NEIGHBOR
    const int m = k->m;
    const void *sb = k->msbuf;
    void *rb = k->mrbuf;
    MPI_Info in = MPI_INFO_NULL;
    switch (k->op) {
    case OP_ALLGATHER: return MPI_Neighbor_allgather_init(sb, m, MPI_INT, rb, m, MPI_INT, g, in, r);
    case OP_ALLGATHERV: return MPI_Neighbor_allgatherv_init(sb, m, MPI_INT, rb, k->mrcnt, k->mrd, MPI_INT, g, in, r);
    case OP_ALLTOALL: return MPI_Neighbor_alltoall_init(sb, m, MPI_INT, rb, m, MPI_INT, g, in, r);
    case OP_ALLTOALLV:
        return MPI_Neighbor_alltoallv_init(sb, k->mscnt, k->msd, MPI_INT, rb, k->mrcnt, k->mrd, MPI_INT, g, in, r);
    case OP_ALLREDUCE: return MPI_Allreduce_init(k->dsbuf, k->dmrbuf, m, MPI_DOUBLE, MPI_SUM, g, in, r);
    case OP_NALLREDUCE:
        return MPI_Neighbor_allgather_init(k->dsbuf, m, MPI_DOUBLE, k->dmgbuf, m, MPI_DOUBLE, g, in, r);
    default:
        return MPI_Neighbor_alltoallw_init(sb, k->mscnt, k->msdb, k->mtypes, rb, k->mrcnt, k->mrdb, k->mtypes, g, in,
                                           r);
    }
#else
    (void)k;
    (void)g;
    (void)r;
    return MPI_ERR_OTHER;
#endif
}

/* The MPI baseline: form F_BLOCKING calls, F_NONBLOCKING starts (*r), and
 * F_PERSISTENT initialises (*r). */
static int mpi_call(const kase *k, MPI_Comm g, int form, MPI_Request *r)
{
    if (form == F_BLOCKING) return mpi_blocking(k, g);
    if (form == F_NONBLOCKING) return mpi_nonblocking(k, g, r);
    return mpi_persistent_init(k, g, r);
}

/* ---- Variants ---------------------------------------------------------- */

/* Where a cartcoll run s goes: on COMM_NBH its variant's (algorithm,
 * executor) communicator, [0][0] for persistent ones (info carries the
 * choice); else the --comm kind's communicator. */
static MPI_Comm cart_comm(const nbhctx *c, const vstate *s)
{
    if (s->comm != COMM_NBH) return c->alt[s->comm];
    return s->v->form == F_PERSISTENT ? c->comm[0][0] : c->comm[s->v->alg][s->v->ex];
}

vstate *vstates_create(const kase *k, const nbhctx *c, const options *o, const char *what)
{
    int nv = o->nrun;
    vstate *vs = xmalloc(sizeof(vstate) * (size_t)nv);
    for (int vi = 0; vi < nv; vi++) {
        vstate *s = &vs[vi];
        memset(s, 0, sizeof *s);
        s->v = &allvar[o->run[vi].var];
        s->comm = o->run[vi].comm;
        s->creq = CART_REQUEST_NULL;
        s->mreq = MPI_REQUEST_NULL;
        s->times = xmalloc(sizeof(double) * (size_t)o->reps);
        /* MPI has no rooted neighbourhood collectives: their baseline is
         * point-to-point, blocking only; without MPI's graph (not asked for,
         * or no MPI_Dist_graph_create) the others cannot run */
        if (s->v->kind == VK_MPI) {
            s->skip = c->mpi_unsafe || (op_rooted(k->op) ? s->v->form != F_BLOCKING
                                                         : c->graph == MPI_COMM_NULL);
        } else if (s->v->kind != VK_CART) {
            s->p2p_ops = &cb_p2p_runner;
            s->skip = !s->p2p_ops->supports(s->v, k->op);
        }
        int rc = MPI_SUCCESS;
        if ((s->v->kind == VK_P2P || s->v->kind == VK_FLOOR) && !s->skip && !op_rooted(k->op)) {
            s->p2p = s->p2p_ops->create(k, c, s->v, &rc);
        } else if (s->v->form == F_PERSISTENT && !s->skip) {
            if (s->v->mpi) {
                rc = mpi_call(k, c->graph, F_PERSISTENT, &s->mreq);
            } else {
                /* The choice travels as info: one communicator serves all. */
                MPI_Info info = make_info(s->v->alg, s->v->ex);
                rc = cart_init(k, cart_comm(c, s), info, &s->creq);
                MPI_Info_free(&info);
            }
        }
        if (rc != MPI_SUCCESS) {
            char w[320], name[64];
            snprintf(w, sizeof w, "%s: init of %s", what, run_label(o, vi, name, sizeof name));
            report_error(w, rc);
            s->err = 1;
        }
    }
    return vs;
}

void vstate_release(vstate *s)
{
    if (s->creq != CART_REQUEST_NULL) Cart_request_free(&s->creq);
    if (s->mreq != MPI_REQUEST_NULL) MPI_Request_free(&s->mreq);
    if (s->p2p) s->p2p_ops->release(s->p2p);
    free(s->times);
}

int run_once(vstate *s, const kase *k, const nbhctx *c)
{
    const variant *v = s->v;
    const cb_family *f = cb_family_of(k->op);
    int rc;
    if (v->mpi && f->baseline) return f->baseline(k, c);
    if (v->kind == VK_P2P || v->kind == VK_FLOOR) return s->p2p_ops->run(s->p2p, k);
    if (v->mpi) {
        if (v->form == F_BLOCKING) {
            rc = mpi_call(k, c->graph, F_BLOCKING, NULL);
        } else if (v->form == F_NONBLOCKING) {
            MPI_Request r;
            rc = mpi_call(k, c->graph, F_NONBLOCKING, &r);
            if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else {
            rc = MPI_Start(&s->mreq);
            if (rc == MPI_SUCCESS) rc = MPI_Wait(&s->mreq, MPI_STATUS_IGNORE);
        }
        /* the neighbourhood allreduce users write today: gather, then sum */
        if (rc == MPI_SUCCESS && f->baseline_done) f->baseline_done(k, c);
        return rc;
    }
    if (v->form == F_BLOCKING) return cart_blocking(k, cart_comm(c, s));
    if (v->form == F_NONBLOCKING) {
        Cart_request r = CART_REQUEST_NULL;
        rc = cart_nonblocking(k, cart_comm(c, s), &r);
        return rc != MPI_SUCCESS ? rc : Cart_wait(&r);
    }
    rc = Cart_start(&s->creq);
    return rc != MPI_SUCCESS ? rc : Cart_wait(&s->creq);
}

void checked_call(vstate *s, kase *k, const nbhctx *c, int inject_fault)
{
    if (s->err || s->skip) return; /* every process knows (agreed by the caller) */
    const cb_family *f = cb_family_of(k->op);
    f->clear(s, k, c);
    int rc = run_once(s, k, c);
    if (rc != MPI_SUCCESS) {
        char what[256];
        int on = f->names_comm && !s->v->mpi;
        snprintf(what, sizeof what, "%s %s m=%d %s%s%s", c->nbh.name, op_name[k->op], k->m, s->v->name,
                 on ? " on " : "", on ? comm_name[s->comm] : "");
        report_error(what, rc);
        s->err = 1;
        return;
    }
    f->verify(s, k, c, inject_fault);
}

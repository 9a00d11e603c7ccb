/* cartbench: the calls of every variant (cartcoll blocking, non-blocking,
 * persistent; the MPI baseline in the same forms), one operation, and one
 * checked operation. */
#define _POSIX_C_SOURCE 200809L
#include "cartbench.h"

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
        if (s->v->kind == VK_MPI)
            s->skip = c->mpi_unsafe || (op_rooted(k->op) ? s->v->form != F_BLOCKING
                                                         : c->graph == MPI_COMM_NULL);
        else if (s->v->kind != VK_CART)
            s->skip = !p2p_supports(s->v, k->op);
        int rc = MPI_SUCCESS;
        if ((s->v->kind == VK_P2P || s->v->kind == VK_FLOOR) && !s->skip && !op_rooted(k->op)) {
            s->p2p = p2p_create(k, c, s->v, &rc);
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
    p2p_free(s->p2p);
    free(s->times);
}

int run_once(vstate *s, const kase *k, const nbhctx *c)
{
    const variant *v = s->v;
    int rc;
    if (v->mpi && op_rooted(k->op)) return rooted_baseline(k, c);
    if (v->kind == VK_P2P || v->kind == VK_FLOOR) return p2p_run(s->p2p, k);
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
        if (rc == MPI_SUCCESS && k->op == OP_NALLREDUCE) nreduce_baseline_sum(k, c);
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

/* ---- Checks ------------------------------------------------------------ */

/* Compare got with want; report the first difference of a variant once
 * (s->bad is set by the caller, so later calls stay quiet). */
static int differs(const int *got, const int *want, const kase *k, const nbhctx *c, vstate *s, const char *against)
{
    if (!memcmp(got, want, sizeof(int) * k->rlen)) return 0;
    if (!s->bad) {
        size_t e = 0;
        while (got[e] == want[e]) e++;
        int blk = -1;
        for (int i = 0; i < k->t; i++)
            if ((size_t)k->rd[i] <= e && e < (size_t)k->rd[i] + (size_t)k->cnt[i]) blk = i;
        fprintf(stderr, "cartbench: rank %d: %s %s m=%d %s%s%s: receive buffer differs from %s at int %zu (block %d): "
                        "%d, expected %d%s\n",
                world_rank, c->nbh.name, op_name[k->op], k->m, s->v->name, s->v->mpi ? "" : " on ",
                s->v->mpi ? "" : comm_name[s->comm], against, e, blk, got[e], want[e],
                want[e] == SENTINEL ? " (untouched)" : "");
    }
    return 1;
}

/* The baseline's result: blocking MPI against the grid (then it becomes
 * the reference), the other MPI forms against the reference. */
static void check_mpi_result(vstate *s, kase *k, const nbhctx *c)
{
    int *full = xmalloc(sizeof(int) * k->rlen);
    expand_mpi(k, c, full);
    if (s->v->form == F_BLOCKING) {
        if (differs(full, k->expect, k, c, s, "the grid's expectation"))
            s->bad = 1; /* the reference stays the expectation */
        else
            memcpy(k->ref, full, sizeof(int) * k->rlen);
        update_cart_ref(k);
    } else if (differs(full, k->ref, k, c, s, "the reference")) {
        s->bad = 1;
    }
    free(full);
}

void checked_call(vstate *s, kase *k, const nbhctx *c, int inject_fault)
{
    if (s->err || s->skip) return; /* every process knows (agreed by the caller) */
    if (op_reduces(k->op)) {
        check_allreduce(s, k, c, inject_fault);
        return;
    }
    if (op_rooted(k->op)) {
        check_rooted(s, k, c, inject_fault);
        return;
    }
    int mpi = s->v->kind == VK_MPI;
    int *rb = mpi ? k->mrbuf : k->rbuf;
    fill_ints(rb, mpi ? k->mrlen : k->rlen, SENTINEL);
    if (s->p2p) p2p_clear(s->p2p);
    int rc = run_once(s, k, c);
    if (rc != MPI_SUCCESS) {
        char what[256];
        snprintf(what, sizeof what, "%s %s m=%d %s%s%s", c->nbh.name, op_name[k->op], k->m, s->v->name,
                 s->v->mpi ? "" : " on ", s->v->mpi ? "" : comm_name[s->comm]);
        report_error(what, rc);
        s->err = 1;
        return;
    }
    if (mpi) {
        check_mpi_result(s, k, c);
    } else if (s->v->mpi) {
        /* p2p, floor: against the grid's expectation (first principles);
         * floor's bytes are placed in the blocks only now */
        if (s->v->kind == VK_FLOOR) floor_unpack(s->p2p, k);
        if (inject_fault && world_rank == 0 && k->rlen) k->rbuf[0] ^= 1; /* the checker's own test */
        if (differs(k->rbuf, k->expect, k, c, s, "the grid's expectation")) s->bad = 1;
    } else {
        if (inject_fault && world_rank == 0 && k->rlen) k->rbuf[0] ^= 1; /* the checker's own test */
        int mpicart = s->comm == COMM_MPICART;
        if (differs(k->rbuf, mpicart ? k->cref : k->ref, k, c, s,
                    mpicart ? "the reference (MPI's block order)" : "the reference"))
            s->bad = 1;
    }
}

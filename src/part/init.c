/* The partitioned collectives' _init, one for all (pcoll.h): the row of
 * each collective, then the steps every Cart_p*_init takes -- check the
 * partition arguments, make the persistent request of the same collective
 * on the whole buffers (parts * count elements per block; its meaning --
 * global or neighbourhood -- and its checks are that collective's), try
 * the early bird or the pipelined slices beside it, and wrap the
 * transport chosen with the numbering of this process's partitions. */
#include "part/pcoll.h"
#include "part/shape.h"

#include "base/errors.h"
#include "choose/choose.h"
#include "req/request.h"

#include <stdlib.h>

#define ROOTED (CC_PA_ROOT)
#define REDUCING (CC_PA_ONE_BUFFER | CC_PA_OP)
#define TO_ALL_BLOCKS (CC_PS_SEND_BLOCKS | CC_PS_RECV_BLOCKS)

const cc_pcoll cc_pcolls[CC_PC_N] = {
    [CC_PC_BCAST] = { "Cart_pbcast_init", CC_PC_BCAST, ROOTED | CC_PA_ONE_BUFFER,
                      CC_PS_SEND_ROOT | CC_PS_RECV_NOT_ROOT, CC_PT_SLICES, "buffer", NULL },
    [CC_PC_GATHER] = { "Cart_pgather_init", CC_PC_GATHER, ROOTED, CC_PS_RECV_BLOCKS | CC_PS_RECV_ROOT | CC_PS_TO_ROOT,
                       CC_PT_SLICES, "send buffer", "receive block" },
    [CC_PC_GATHERV] = { "Cart_pgatherv_init", CC_PC_GATHERV, ROOTED | CC_PA_RECV_V,
                        CC_PS_RECV_BLOCKS | CC_PS_RECV_ROOT | CC_PS_TO_ROOT, CC_PT_EARLY_GLOBAL, "send buffer", NULL },
    [CC_PC_SCATTER] = { "Cart_pscatter_init", CC_PC_SCATTER, ROOTED,
                        CC_PS_SEND_BLOCKS | CC_PS_SEND_ROOT | CC_PS_IN_PLACE_RECV, CC_PT_SLICES, "send block",
                        "receive buffer" },
    [CC_PC_SCATTERV] = { "Cart_pscatterv_init", CC_PC_SCATTERV, ROOTED | CC_PA_SEND_V,
                         CC_PS_SEND_BLOCKS | CC_PS_SEND_ROOT | CC_PS_IN_PLACE_RECV, CC_PT_EARLY_GLOBAL, NULL,
                         "receive buffer" },
    [CC_PC_ALLGATHER] = { "Cart_pallgather_init", CC_PC_ALLGATHER, 0, CC_PS_RECV_BLOCKS, CC_PT_EARLY | CC_PT_SLICES,
                          "send buffer", "receive block" },
    [CC_PC_ALLGATHERV] = { "Cart_pallgatherv_init", CC_PC_ALLGATHERV, CC_PA_RECV_V, CC_PS_RECV_BLOCKS,
                           CC_PT_EARLY_ALWAYS, "send buffer", NULL },
    [CC_PC_ALLTOALL] = { "Cart_palltoall_init", CC_PC_ALLTOALL, 0, TO_ALL_BLOCKS, CC_PT_EARLY | CC_PT_SLICES,
                         "send block", "receive block" },
    [CC_PC_ALLTOALLV] = { "Cart_palltoallv_init", CC_PC_ALLTOALLV, CC_PA_SEND_V | CC_PA_RECV_V, TO_ALL_BLOCKS,
                          CC_PT_EARLY_ALWAYS, NULL, NULL },
    [CC_PC_ALLTOALLW] = { "Cart_palltoallw_init", CC_PC_ALLTOALLW, CC_PA_SEND_V | CC_PA_RECV_V | CC_PA_W,
                          TO_ALL_BLOCKS, CC_PT_EARLY_ALWAYS, NULL, NULL },
    [CC_PC_REDUCE] = { "Cart_preduce_init", CC_PC_REDUCE, ROOTED | REDUCING, CC_PS_RECV_ROOT | CC_PS_TO_ROOT,
                       CC_PT_SLICES, "buffer", NULL },
    [CC_PC_ALLREDUCE] = { "Cart_pallreduce_init", CC_PC_ALLREDUCE, REDUCING, 0, CC_PT_SLICES, "buffer", NULL },
    [CC_PC_SCAN] = { "Cart_pscan_init", CC_PC_SCAN, REDUCING, 0, CC_PT_SLICES, "buffer", NULL },
    [CC_PC_EXSCAN] = { "Cart_pexscan_init", CC_PC_EXSCAN, REDUCING, 0, CC_PT_SLICES, "buffer", NULL },
    [CC_PC_REDUCE_SCATTER_BLOCK] = { "Cart_preduce_scatter_block_init", CC_PC_REDUCE_SCATTER_BLOCK, REDUCING,
                                     CC_PS_SEND_BLOCKS | CC_PS_PER_PROCESS, CC_PT_SLICES, "receive buffer", NULL },
    [CC_PC_REDUCE_SCATTER] = { "Cart_preduce_scatter_init", CC_PC_REDUCE_SCATTER, REDUCING | CC_PA_SEND_V,
                               CC_PS_SEND_BLOCKS | CC_PS_PER_PROCESS, 0, NULL, NULL },
};

/* The collective on the whole buffers (*inner), after the partition
 * arguments' checks. */
static int make_inner(const cc_pcoll *row, const cc_pargs *a, MPI_Comm comm, MPI_Info info, const where *w,
                      cc_part_maker make, Cart_request *inner)
{
    cc_part_counts k;
    int rc = cc_part_counts_of(row, a, w, comm, &k);
    if (rc == MPI_SUCCESS) {
        int one = row->family & CC_PA_ONE_BUFFER;
        cc_pwhole c = { .coll = row->coll, .sendbuf = a->sendbuf, .recvbuf = a->recvbuf, .count = k.ns,
                        .sendcount = k.ns, .recvcount = k.nr, .sendcounts = k.swc, .sdispls = k.swd,
                        .recvcounts = one ? k.swc : k.rwc, .rdispls = k.rwd, .sdispls_w = a->sdispls,
                        .rdispls_w = a->rdispls, .sendtype = a->stype, .recvtype = a->rtype, .sendtypes = a->stypes,
                        .recvtypes = a->rtypes, .op = a->op, .root = a->root };
        rc = make(&c, comm, info, inner);
    }
    cc_part_counts_free(&k);
    return rc;
}

/* The early bird beside the whole-buffer request *inner where the row
 * asks for it: always (the v/w forms, which have no pipelined transport:
 * else they would wait for every partition; gatherv, scatterv with global
 * meaning), or where wanted -- with global meaning (MPI's collectives, no
 * algorithm to choose) and on neighbourhoods where the algorithm asked for
 * is auto or direct (where COMBINING or TORUS is asked for the slices
 * pipeline through it).  *made = 1 when it made the request (or failed),
 * and *inner is freed. */
static int early_bird(const cc_pcoll *row, const cc_pargs *a, MPI_Comm comm, MPI_Info info, const where *w,
                      Cart_request *inner, int *made, Cart_request *request)
{
    unsigned t = row->transports;
    *made = 0;
    if (!(t & (CC_PT_EARLY | CC_PT_EARLY_ALWAYS)) && !((t & CC_PT_EARLY_GLOBAL) && !w->nbh)) return MPI_SUCCESS;
    int wanted = !(t & CC_PT_EARLY) || !w->nbh;
    if (!wanted) {
        int alg = cc_part_asked_algorithm(info, w, row->name);
        wanted = alg == CC_AUTO || alg == CC_DIRECT;
    }
    int rooted = t & CC_PT_EARLY_GLOBAL ? (row->shape & CC_PS_SEND_ROOT ? EB_SCATTER : EB_GATHER) : EB_ALL;
    eb_blocks b = { .gather = !(row->shape & CC_PS_SEND_BLOCKS), .sparts = a->sparts, .rparts = a->rparts,
                    .scnt = a->scnts, .rcnt = a->rcnts, .sdis = a->sdispls, .rdis = a->rdispls,
                    .dis_bytes = (row->family & CC_PA_W) != 0, .sp = a->sp, .rp = a->rp, .sc = a->sc, .rc = a->rc,
                    .rooted = rooted, .root = a->root, .stypes = a->stypes, .rtypes = a->rtypes };
    int rc = cc_part_early_bird(row->name, &b, a->sendbuf, a->stype, a->recvbuf, a->rtype, comm, w, info, wanted,
                                made, request);
    if (rc != MPI_SUCCESS || *made) {
        Cart_request_free(inner);
        *made = 1;
    }
    return rc;
}

/* The request around the whole-buffer request `inner` (made with rc) or
 * the slices pm (then inner is freed), numbered by the row's shape. */
static int wrap(const cc_pcoll *row, const cc_pargs *a, MPI_Comm comm, const where *w, int rc, Cart_request inner,
                pipe_made *pm, const pipe_args *pa, Cart_request *request)
{
    cc_part_shape s = { CC_PART_NONE, 0, 0, -1, NULL, 0, 0, 1, NULL };
    if (rc == MPI_SUCCESS) rc = cc_part_shape_of(row, a, w, comm, &s);
    Cart_request r = CART_REQUEST_NULL;
    if (rc != MPI_SUCCESS) {
        if (inner != CART_REQUEST_NULL) Cart_request_free(&inner);
    } else if ((rc = cc_part_request_new(&r, comm, row->name, &s)) != MPI_SUCCESS) {
        cc_request_destroy(inner);
        rc = cc_error(comm, rc, "%s: out of memory", row->name);
    } else if (pm->n > 0) { /* the slices replace it */
        cc_request_destroy(inner);
    } else if (cc_part_use_whole(r, inner) != MPI_SUCCESS) {
        cc_request_destroy(r);
        rc = cc_error(comm, MPI_ERR_NO_MEM, "%s: out of memory", row->name);
    }
    free(s.soff);
    free(s.roff);
    if (rc == MPI_SUCCESS) *request = r;
    return cc_part_attach_slices(row->name, comm, rc, request, pm, pa);
}

int cc_part_init(const cc_pcoll *row, const cc_pargs *given, MPI_Comm comm, MPI_Info info, const where *w,
                 cc_part_maker make, Cart_request *request)
{
    cc_pargs a = *given;
    if (row->family & CC_PA_ONE_BUFFER) /* the one partitioning on both sides */
        a.rp = a.sp, a.rc = a.sc, a.rtype = a.stype, a.rparts = a.sparts, a.rcnts = a.scnts;
    if (!(row->family & CC_PA_OP)) a.op = MPI_OP_NULL;
    Cart_request inner = CART_REQUEST_NULL;
    int rc = make_inner(row, &a, comm, info, w, make, &inner);
    if (rc != MPI_SUCCESS) return rc;
    int made = 0;
    rc = early_bird(row, &a, comm, info, w, &inner, &made, request);
    if (made) return rc;
    /* pipelined: partitions through the phases, along the trees, reduced on
     * the way, one behind the other */
    pipe_args pa = { row->coll, a.root, a.sendbuf, a.recvbuf, a.sp, a.sc, a.stype, cc_part_receives(row, &a, w),
                     a.rp, a.rc, a.rtype, a.op, NULL };
    pipe_made pm = { .g = 1, .comm = MPI_COMM_NULL };
    if (row->transports & CC_PT_SLICES) rc = cc_part_slices(row->name, &pa, comm, w, info, make, &pm);
    return wrap(row, &a, comm, w, rc, inner, &pm, &pa, request);
}

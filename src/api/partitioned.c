/* The front of the sixteen partitioned collectives, Cart_p*_init (seed
 * 004, API.md [part]; their entry points are generated into
 * entry_points.gen.c): each describes its arguments and runs its row of the
 * partitioned layer (part/pcoll.h), which checks them, makes the
 * persistent collective on the whole buffers -- through make_whole, the
 * front's own Cart_*_init -- and its faster transports, and numbers the
 * partitions (part/part.h). */
#include "cartcoll.h"

#include "api/front.h"

#include "base/errors.h"
#include "part/pcoll.h"
#include "topo/kind.h"
#include "topo/nbh.h"

static int where_of(MPI_Comm comm, const char *who, where *w)
{
    int kind;
    w->cs = NULL;
    int rc = cc_kind_of(comm, &kind, &w->cs, who);
    if (rc != MPI_SUCCESS) return cc_error_raise(MPI_COMM_SELF, rc);
    if (kind == CC_KIND_INTER)
        return cc_error(comm, MPI_ERR_COMM, "%s: partitioned collectives on inter-communicators are not supported "
                                            "in this release",
                        who);
    if ((kind == CC_KIND_CART || kind == CC_KIND_GRAPH) && (rc = cc_adopt(comm, kind, &w->cs, who)) != MPI_SUCCESS)
        return cc_error_raise(comm, rc);
    MPI_Comm_rank(comm, &w->rank);
    MPI_Comm_size(comm, &w->size);
    w->nbh = kind != CC_KIND_PLAIN;
    w->indeg = w->outdeg = w->size;
    if (w->nbh) {
        w->indeg = cc_nbh_nrecvblocks(w->cs->nbh);
        w->outdeg = cc_nbh_nsendblocks(w->cs->nbh);
    }
    return MPI_SUCCESS;
}

/* The persistent collectives the partitioned layer is made of: on the
 * whole buffers, or on slices of them. */
static int make_whole(const cc_pwhole *c, MPI_Comm comm, MPI_Info info, Cart_request *out)
{
    const void *sb = c->sendbuf;
    void *rb = c->recvbuf;
    switch (c->coll) {
    case CC_PC_BCAST: return Cart_bcast_init(rb, c->count, c->sendtype, c->root, comm, info, out);
    case CC_PC_GATHER:
        return Cart_gather_init(sb, c->sendcount, c->sendtype, rb, c->recvcount, c->recvtype, c->root, comm, info, out);
    case CC_PC_GATHERV:
        return Cart_gatherv_init(sb, c->sendcount, c->sendtype, rb, c->recvcounts, c->rdispls, c->recvtype, c->root,
                                 comm, info, out);
    case CC_PC_SCATTER:
        return Cart_scatter_init(sb, c->sendcount, c->sendtype, rb, c->recvcount, c->recvtype, c->root, comm, info,
                                 out);
    case CC_PC_SCATTERV:
        return Cart_scatterv_init(sb, c->sendcounts, c->sdispls, c->sendtype, rb, c->recvcount, c->recvtype, c->root,
                                  comm, info, out);
    case CC_PC_ALLGATHER:
        return Cart_allgather_init(sb, c->sendcount, c->sendtype, rb, c->recvcount, c->recvtype, comm, info, out);
    case CC_PC_ALLGATHERV:
        return Cart_allgatherv_init(sb, c->sendcount, c->sendtype, rb, c->recvcounts, c->rdispls, c->recvtype, comm,
                                    info, out);
    case CC_PC_ALLTOALL:
        return Cart_alltoall_init(sb, c->sendcount, c->sendtype, rb, c->recvcount, c->recvtype, comm, info, out);
    case CC_PC_ALLTOALLV:
        return Cart_alltoallv_init(sb, c->sendcounts, c->sdispls, c->sendtype, rb, c->recvcounts, c->rdispls,
                                   c->recvtype, comm, info, out);
    case CC_PC_ALLTOALLW:
        return Cart_alltoallw_init(sb, c->sendcounts, c->sdispls_w, c->sendtypes, rb, c->recvcounts, c->rdispls_w,
                                   c->recvtypes, comm, info, out);
    case CC_PC_REDUCE: return Cart_reduce_init(sb, rb, c->count, c->sendtype, c->op, c->root, comm, info, out);
    case CC_PC_ALLREDUCE: return Cart_allreduce_init(sb, rb, c->count, c->sendtype, c->op, comm, info, out);
    case CC_PC_SCAN: return Cart_scan_init(sb, rb, c->count, c->sendtype, c->op, comm, info, out);
    case CC_PC_EXSCAN: return Cart_exscan_init(sb, rb, c->count, c->sendtype, c->op, comm, info, out);
    case CC_PC_REDUCE_SCATTER_BLOCK:
        return Cart_reduce_scatter_block_init(sb, rb, c->count, c->sendtype, c->op, comm, info, out);
    default: return Cart_reduce_scatter_init(sb, rb, c->recvcounts, c->sendtype, c->op, comm, info, out);
    }
}

int cc_part_call(int coll, const cc_pargs *a, MPI_Comm comm, MPI_Info info, Cart_request *request)
{
    const cc_pcoll *row = &cc_pcolls[coll];
    where w;
    int rc = where_of(comm, row->name, &w);
    return rc != MPI_SUCCESS ? rc : cc_part_init(row, a, comm, info, &w, make_whole, request);
}

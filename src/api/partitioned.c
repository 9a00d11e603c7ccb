/* The sixteen partitioned collectives, Cart_p*_init (seed 004, API.md
 * [part]).  Each one checks its partition arguments, makes the persistent
 * request of the same collective on the whole buffers (parts * count
 * elements per block; its meaning -- global or neighbourhood -- and its
 * checks are that collective's), and wraps it with the numbering of this
 * process's send and receive partitions (req/partitioned.h). */
#include "cartcoll.h"

#include "api/front.h"
#include "api/part_transport.h"

#include "base/errors.h"
#include "base/mpi_compat.h"
#include "base/options.h"
#include "bind/typemap.h"
#include "choose/choose.h"
#include "req/partitioned.h"
#include "req/request.h"
#include "topo/kind.h"
#include "topo/nbh.h"
#include "util/alloc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

/* Where this process's partitions go and come from. */
typedef struct {
    int send_kind, ndest, nsend, only_dest;
    int *soff;          /* BLOCKS: ndest + 1 */
    int nsrc, nrecv, rwhole;
    int *roff;          /* blocks: nsrc + 1 */
} shape;


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

/* parts * count elements as an int (the whole block). */
static int whole(const char *who, MPI_Comm comm, const char *what, int parts, MPI_Count count, int *out)
{
    if (parts < 0) return cc_error(comm, MPI_ERR_ARG, "%s: %s: partitions = %d is negative", who, what, parts);
    if (count < 0) return cc_error(comm, MPI_ERR_COUNT, "%s: %s: count = %lld is negative", who, what, (long long)count);
    if (count > 0 && parts > INT_MAX / count)
        return cc_error(comm, MPI_ERR_COUNT,
                        "%s: %s: %d partitions of %lld elements exceed an int, the largest block this release "
                        "supports",
                        who, what, parts, (long long)count);
    *out = (int)(parts * count);
    return MPI_SUCCESS;
}

/* Offsets of n blocks of parts[i] partitions (or `each` when parts is
 * NULL); NULL (error raised) when out of memory or negative. */
static int *offsets(const char *who, MPI_Comm comm, int n, const int *parts, int each, int *rc)
{
    int *off = cc_alloc_array((size_t)n + 1, sizeof(int));
    if (!off) {
        *rc = cc_error(comm, MPI_ERR_NO_MEM, "%s: out of memory", who);
        return NULL;
    }
    off[0] = 0;
    for (int i = 0; i < n; i++) {
        int p = parts ? parts[i] : each;
        if (p < 0 || off[i] > INT_MAX - p) {
            *rc = cc_error(comm, p < 0 ? MPI_ERR_ARG : MPI_ERR_COUNT, "%s: partitions[%d] = %d %s", who, i, p,
                           p < 0 ? "is negative" : "makes too many partitions");
            free(off);
            return NULL;
        }
        off[i + 1] = off[i] + p;
    }
    *rc = MPI_SUCCESS;
    return off;
}

/* The whole-block counts and int displacements of a v form: n entries. */
static int v_arrays(const char *who, MPI_Comm comm, int n, const int parts[], const MPI_Count counts[],
                    const MPI_Aint displs[], int **wc, int **wd)
{
    *wc = cc_alloc_array((size_t)n + 1, sizeof(int));
    *wd = displs ? cc_alloc_array((size_t)n + 1, sizeof(int)) : NULL;
    if (!*wc || (displs && !*wd)) return cc_error(comm, MPI_ERR_NO_MEM, "%s: out of memory", who);
    if (n > 0 && (!parts || !counts))
        return cc_error(comm, MPI_ERR_ARG, "%s: the partitions and counts arrays must not be NULL", who);
    for (int i = 0; i < n; i++) {
        char what[32];
        snprintf(what, sizeof what, "block %d", i);
        int rc = whole(who, comm, what, parts[i], counts[i], &(*wc)[i]);
        if (rc != MPI_SUCCESS) return rc;
        if (displs) {
            if (displs[i] < INT_MIN || displs[i] > INT_MAX)
                return cc_error(comm, MPI_ERR_ARG, "%s: displs[%d] = %lld exceeds an int", who, i,
                                (long long)displs[i]);
            (*wd)[i] = (int)displs[i];
        }
    }
    return MPI_SUCCESS;
}

/* Wrap the inner request (made with rc_inner) with shape s. */
static int finish(const char *who, MPI_Comm comm, int rc_inner, Cart_request inner, shape *s,
                  Cart_request *request)
{
    int rc = rc_inner;
    if (rc != MPI_SUCCESS && inner != CART_REQUEST_NULL) Cart_request_free(&inner);
    if (rc == MPI_SUCCESS) {
        rc = cc_part_request_new(request, comm, who, inner, s->send_kind, s->ndest, s->nsend, s->soff, s->nsrc,
                                 s->nrecv, s->roff, s->rwhole);
        if (rc == MPI_SUCCESS) (*request)->part->only_dest = s->only_dest;
        else rc = cc_error(comm, rc, "%s: out of memory", who);
    }
    free(s->soff);
    free(s->roff);
    return rc;
}

/* Shapes.  send: WHOLE to nd destinations, BLOCKS of each / parts[i], or
 * NONE; recv: a whole buffer of nr partitions or blocks. */
static void send_whole(shape *s, int parts, int nd)
{
    s->send_kind = CC_PART_WHOLE, s->nsend = parts, s->ndest = nd, s->only_dest = -1;
}
static void send_none(shape *s) { s->send_kind = CC_PART_NONE, s->nsend = 0, s->ndest = 0, s->only_dest = -1; }
static void recv_whole(shape *s, int parts, int ns) { s->rwhole = 1, s->nrecv = parts, s->nsrc = ns; }
static void recv_none(shape *s) { s->rwhole = 1, s->nrecv = 0, s->nsrc = 0; }

static int send_blocks(const char *who, MPI_Comm comm, shape *s, int nd, const int *parts, int each)
{
    int rc;
    s->send_kind = CC_PART_BLOCKS, s->ndest = nd, s->only_dest = -1;
    s->soff = offsets(who, comm, nd, parts, each, &rc);
    if (s->soff) s->nsend = s->soff[nd];
    return rc;
}

static int recv_blocks(const char *who, MPI_Comm comm, shape *s, int ns, const int *parts, int each)
{
    int rc;
    s->rwhole = 0, s->nsrc = ns;
    s->roff = offsets(who, comm, ns, parts, each, &rc);
    if (s->roff) s->nrecv = s->roff[ns];
    return rc;
}

#define NEW_SHAPE(s) shape s = { CC_PART_NONE, 0, 0, -1, NULL, 0, 0, 1, NULL }

/* ---- rooted ------------------------------------------------------------ */

static int early_bird_wanted(MPI_Info info, const where *w, const char *who);
static int direct_transport(const char *who, const eb_blocks *b, const void *sendbuf, MPI_Datatype type,
                            void *recvbuf, MPI_Datatype rtype, MPI_Comm comm, const where *w, MPI_Info info,
                            int wanted, Cart_request *inner, int *made, Cart_request *request);
static int nbh_transport(const char *who, const pipe_args *a, MPI_Comm comm, const where *w, MPI_Info info,
                         Cart_request *inner, int *made, Cart_request *request, pipe_made *pm);

int Cart_pbcast_init(void *buffer, int partitions, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                     MPI_Info info, Cart_request *request)
{
    static const char *const who = "Cart_pbcast_init";
    where w;
    NEW_SHAPE(s);
    int n = 0, rc = where_of(comm, who, &w);
    if (rc == MPI_SUCCESS) rc = whole(who, comm, "buffer", partitions, count, &n);
    if (rc != MPI_SUCCESS) return rc;
    Cart_request inner = CART_REQUEST_NULL;
    rc = Cart_bcast_init(buffer, n, datatype, root, comm, info, &inner);
    /* pipelined on neighbourhoods: partitions along the trees one behind the other */
    pipe_args a = { PL_BCAST, root, buffer, buffer, partitions, count, datatype, w.rank != root, partitions, count,
                    datatype, MPI_OP_NULL, NULL };
    pipe_made pm = { .g = 1, .comm = MPI_COMM_NULL };
    if (rc == MPI_SUCCESS) rc = cc_part_slices(who, &a, comm, &w, info, &pm);
    if (w.rank == root) send_whole(&s, partitions, w.outdeg), recv_none(&s);
    else send_none(&s), recv_whole(&s, partitions, w.indeg);
    rc = finish(who, comm, rc, inner, &s, request);
    return cc_part_attach_slices(who, comm, rc, request, &pm, &a);
}

int Cart_pgather_init(const void *sendbuf, int sendparts, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvparts, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Info info, Cart_request *request)
{
    static const char *const who = "Cart_pgather_init";
    where w;
    NEW_SHAPE(s);
    int ns = 0, nr = 0, rc = where_of(comm, who, &w);
    int here = rc == MPI_SUCCESS && w.rank == root, in_place = here && sendbuf == MPI_IN_PLACE;
    if (rc == MPI_SUCCESS && !in_place) rc = whole(who, comm, "send buffer", sendparts, sendcount, &ns);
    if (rc == MPI_SUCCESS && here) rc = whole(who, comm, "receive block", recvparts, recvcount, &nr);
    if (rc != MPI_SUCCESS) return rc;
    Cart_request inner = CART_REQUEST_NULL;
    rc = Cart_gather_init(sendbuf, ns, sendtype, recvbuf, nr, recvtype, root, comm, info, &inner);
    pipe_args a = { PL_GATHER, root, sendbuf, recvbuf, sendparts, sendcount, sendtype, here, recvparts, recvcount,
                    recvtype, MPI_OP_NULL, NULL };
    pipe_made pm = { .g = 1, .comm = MPI_COMM_NULL };
    if (rc == MPI_SUCCESS) rc = cc_part_slices(who, &a, comm, &w, info, &pm);
    if (in_place) send_none(&s);
    else send_whole(&s, sendparts, w.nbh ? w.outdeg : 1), s.only_dest = w.nbh ? -1 : root;
    if (here && rc == MPI_SUCCESS) rc = recv_blocks(who, comm, &s, w.indeg, NULL, recvparts);
    else recv_none(&s);
    rc = finish(who, comm, rc, inner, &s, request);
    return cc_part_attach_slices(who, comm, rc, request, &pm, &a);
}

int Cart_pgatherv_init(const void *sendbuf, int sendparts, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const int recvparts[], const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, Cart_request *request)
{
    static const char *const who = "Cart_pgatherv_init";
    where w;
    NEW_SHAPE(s);
    int ns = 0, *wc = NULL, *wd = NULL, rc = where_of(comm, who, &w);
    int here = rc == MPI_SUCCESS && w.rank == root, in_place = here && sendbuf == MPI_IN_PLACE;
    if (rc == MPI_SUCCESS && !in_place) rc = whole(who, comm, "send buffer", sendparts, sendcount, &ns);
    if (rc == MPI_SUCCESS && here) {
        if (!displs) rc = cc_error(comm, MPI_ERR_ARG, "%s: displs is NULL", who);
        else rc = v_arrays(who, comm, w.indeg, recvparts, recvcounts, displs, &wc, &wd);
    }
    Cart_request inner = CART_REQUEST_NULL;
    if (rc == MPI_SUCCESS) rc = Cart_gatherv_init(sendbuf, ns, sendtype, recvbuf, wc, wd, recvtype, root, comm, info, &inner);
    free(wc);
    free(wd);
    if (rc != MPI_SUCCESS) return rc;
    if (!w.nbh) { /* global meaning: every rank's partitions straight to the root (early bird) */
        eb_blocks b = { .gather = 1, .rparts = recvparts, .rcnt = recvcounts, .rdis = displs, .sp = sendparts,
                        .sc = sendcount, .rooted = EB_GATHER, .root = root };
        int made = 0;
        rc = direct_transport(who, &b, sendbuf, sendtype, recvbuf, recvtype, comm, &w, info, 2, &inner, &made, request);
        if (made) return rc;
    }
    if (in_place) send_none(&s);
    else send_whole(&s, sendparts, w.nbh ? w.outdeg : 1), s.only_dest = w.nbh ? -1 : root;
    if (here) rc = recv_blocks(who, comm, &s, w.indeg, recvparts, 0);
    else recv_none(&s);
    return finish(who, comm, rc, inner, &s, request);
}

int Cart_pscatter_init(const void *sendbuf, int sendparts, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvparts, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, Cart_request *request)
{
    static const char *const who = "Cart_pscatter_init";
    where w;
    NEW_SHAPE(s);
    int ns = 0, nr = 0, rc = where_of(comm, who, &w);
    int here = rc == MPI_SUCCESS && w.rank == root, in_place = here && recvbuf == MPI_IN_PLACE;
    if (rc == MPI_SUCCESS && here) rc = whole(who, comm, "send block", sendparts, sendcount, &ns);
    if (rc == MPI_SUCCESS && !in_place) rc = whole(who, comm, "receive buffer", recvparts, recvcount, &nr);
    if (rc != MPI_SUCCESS) return rc;
    Cart_request inner = CART_REQUEST_NULL;
    rc = Cart_scatter_init(sendbuf, ns, sendtype, recvbuf, nr, recvtype, root, comm, info, &inner);
    pipe_args a = { PL_SCATTER, root, sendbuf, recvbuf, sendparts, sendcount, sendtype, !in_place, recvparts, recvcount,
                    recvtype, MPI_OP_NULL, NULL };
    pipe_made pm = { .g = 1, .comm = MPI_COMM_NULL };
    if (rc == MPI_SUCCESS) rc = cc_part_slices(who, &a, comm, &w, info, &pm);
    if (here && rc == MPI_SUCCESS) rc = send_blocks(who, comm, &s, w.outdeg, NULL, sendparts);
    else send_none(&s);
    if (in_place) recv_none(&s);
    else recv_whole(&s, recvparts, w.indeg);
    rc = finish(who, comm, rc, inner, &s, request);
    return cc_part_attach_slices(who, comm, rc, request, &pm, &a);
}

int Cart_pscatterv_init(const void *sendbuf, const int sendparts[], const MPI_Count sendcounts[],
                        const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf, int recvparts,
                        MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        Cart_request *request)
{
    static const char *const who = "Cart_pscatterv_init";
    where w;
    NEW_SHAPE(s);
    int nr = 0, *wc = NULL, *wd = NULL, rc = where_of(comm, who, &w);
    int here = rc == MPI_SUCCESS && w.rank == root, in_place = here && recvbuf == MPI_IN_PLACE;
    if (rc == MPI_SUCCESS && here) {
        if (!displs) rc = cc_error(comm, MPI_ERR_ARG, "%s: displs is NULL", who);
        else rc = v_arrays(who, comm, w.outdeg, sendparts, sendcounts, displs, &wc, &wd);
    }
    if (rc == MPI_SUCCESS && !in_place) rc = whole(who, comm, "receive buffer", recvparts, recvcount, &nr);
    Cart_request inner = CART_REQUEST_NULL;
    if (rc == MPI_SUCCESS) rc = Cart_scatterv_init(sendbuf, wc, wd, sendtype, recvbuf, nr, recvtype, root, comm, info, &inner);
    free(wc);
    free(wd);
    if (rc != MPI_SUCCESS) return rc;
    if (!w.nbh) { /* global meaning: the root's partitions straight to their ranks (early bird) */
        eb_blocks b = { .sparts = sendparts, .scnt = sendcounts, .sdis = displs, .rp = recvparts, .rc = recvcount,
                        .rooted = EB_SCATTER, .root = root };
        int made = 0;
        rc = direct_transport(who, &b, sendbuf, sendtype, recvbuf, recvtype, comm, &w, info, 2, &inner, &made, request);
        if (made) return rc;
    }
    if (here) rc = send_blocks(who, comm, &s, w.outdeg, sendparts, 0);
    else send_none(&s);
    if (in_place) recv_none(&s);
    else recv_whole(&s, recvparts, w.indeg);
    return finish(who, comm, rc, inner, &s, request);
}

/* ---- allgather, alltoall ---------------------------------------------- */


int Cart_pallgather_init(const void *sendbuf, int sendparts, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, int recvparts, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, Cart_request *request)
{
    static const char *const who = "Cart_pallgather_init";
    where w;
    NEW_SHAPE(s);
    int ns = 0, nr = 0, rc = where_of(comm, who, &w), in_place = sendbuf == MPI_IN_PLACE;
    if (rc == MPI_SUCCESS && !in_place) rc = whole(who, comm, "send buffer", sendparts, sendcount, &ns);
    if (rc == MPI_SUCCESS) rc = whole(who, comm, "receive block", recvparts, recvcount, &nr);
    if (rc != MPI_SUCCESS) return rc;
    Cart_request inner = CART_REQUEST_NULL;
    rc = Cart_allgather_init(sendbuf, ns, sendtype, recvbuf, nr, recvtype, comm, info, &inner);
    pipe_args a = { PL_ALLGATHER, 0, sendbuf, recvbuf, sendparts, sendcount, sendtype, 1, recvparts, recvcount,
                    recvtype, MPI_OP_NULL, NULL };
    pipe_made pm = { .g = 1, .comm = MPI_COMM_NULL };
    int made = 0;
    if (rc == MPI_SUCCESS) rc = nbh_transport(who, &a, comm, &w, info, &inner, &made, request, &pm);
    if (made) return rc;
    if (in_place) send_none(&s);
    else send_whole(&s, sendparts, w.outdeg);
    if (rc == MPI_SUCCESS) rc = recv_blocks(who, comm, &s, w.indeg, NULL, recvparts);
    rc = finish(who, comm, rc, inner, &s, request);
    return cc_part_attach_slices(who, comm, rc, request, &pm, &a);
}

int Cart_pallgatherv_init(const void *sendbuf, int sendparts, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, const int recvparts[], const MPI_Count recvcounts[], const MPI_Aint displs[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, Cart_request *request)
{
    static const char *const who = "Cart_pallgatherv_init";
    where w;
    NEW_SHAPE(s);
    int ns = 0, *wc = NULL, *wd = NULL, rc = where_of(comm, who, &w), in_place = sendbuf == MPI_IN_PLACE;
    if (rc == MPI_SUCCESS && !in_place) rc = whole(who, comm, "send buffer", sendparts, sendcount, &ns);
    if (rc == MPI_SUCCESS && !displs) rc = cc_error(comm, MPI_ERR_ARG, "%s: displs is NULL", who);
    if (rc == MPI_SUCCESS) rc = v_arrays(who, comm, w.indeg, recvparts, recvcounts, displs, &wc, &wd);
    Cart_request inner = CART_REQUEST_NULL;
    if (rc == MPI_SUCCESS) rc = Cart_allgatherv_init(sendbuf, ns, sendtype, recvbuf, wc, wd, recvtype, comm, info, &inner);
    free(wc);
    free(wd);
    if (rc != MPI_SUCCESS) return rc;
    eb_blocks b = { .gather = 1, .rparts = recvparts, .rcnt = recvcounts, .rdis = displs, .sp = sendparts, .sc = sendcount };
    int made = 0;
    rc = direct_transport(who, &b, sendbuf, sendtype, recvbuf, recvtype, comm, &w, info, 2, &inner, &made, request);
    if (made) return rc;
    if (in_place) send_none(&s);
    else send_whole(&s, sendparts, w.outdeg);
    rc = recv_blocks(who, comm, &s, w.indeg, recvparts, 0);
    return finish(who, comm, rc, inner, &s, request);
}

/* The early bird sends one message per partition and edge: unless an
 * algorithm that combines is forced. */
static int early_bird_wanted(MPI_Info info, const where *w, const char *who)
{
    int a = cc_part_asked_algorithm(info, w, who);
    return a == CC_AUTO || a == CC_DIRECT;
}

/* The early bird beside the whole-buffer request *inner where it is
 * wanted: want 2 always (the v/w forms, which have no pipelined
 * transport: else they would wait for every partition), 1 with global
 * meaning (MPI's collectives, no algorithm to choose) and on
 * neighbourhoods where the algorithm asked for is auto or direct (where
 * COMBINING or TORUS is asked for the slices pipeline through it), 0
 * never.  *made = 1 when it made the request (or failed), and *inner is
 * freed. */
static int direct_transport(const char *who, const eb_blocks *b, const void *sendbuf, MPI_Datatype type,
                            void *recvbuf, MPI_Datatype rtype, MPI_Comm comm, const where *w, MPI_Info info,
                            int wanted, Cart_request *inner, int *made, Cart_request *request)
{
    *made = 0;
    int rc = cc_part_early_bird(who, b, sendbuf, type, recvbuf, rtype, comm, w, info,
                        wanted == 2 || (wanted == 1 && (!w->nbh || early_bird_wanted(info, w, who))), made, request);
    if (rc != MPI_SUCCESS || *made) {
        Cart_request_free(inner);
        *made = 1;
    }
    return rc;
}

/* The transports of allgather and alltoall beside the whole-buffer
 * request *inner: the early bird (*made = 1: the request is made, or
 * failed, and *inner is freed) or, on neighbourhoods, the pipelined slices
 * (pm->n > 0), else neither. */
static int nbh_transport(const char *who, const pipe_args *a, MPI_Comm comm, const where *w, MPI_Info info,
                         Cart_request *inner, int *made, Cart_request *request, pipe_made *pm)
{
    eb_blocks b = { .gather = a->kind == PL_ALLGATHER, .sp = a->sp, .rp = a->rp, .sc = a->sc, .rc = a->rc };
    int rc = direct_transport(who, &b, a->sendbuf, a->type, a->recvbuf, a->rtype, comm, w, info, 1, inner, made,
                              request);
    if (rc != MPI_SUCCESS || *made) return rc;
    return w->nbh ? cc_part_slices(who, a, comm, w, info, pm) : MPI_SUCCESS;
}

int Cart_palltoall_init(const void *sendbuf, int sendparts, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, int recvparts, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, Cart_request *request)
{
    static const char *const who = "Cart_palltoall_init";
    where w;
    NEW_SHAPE(s);
    int ns = 0, nr = 0, rc = where_of(comm, who, &w), in_place = sendbuf == MPI_IN_PLACE;
    if (rc == MPI_SUCCESS && !in_place) rc = whole(who, comm, "send block", sendparts, sendcount, &ns);
    if (rc == MPI_SUCCESS) rc = whole(who, comm, "receive block", recvparts, recvcount, &nr);
    if (rc != MPI_SUCCESS) return rc;
    Cart_request inner = CART_REQUEST_NULL;
    /* the collective's own checks, and the general transport */
    rc = Cart_alltoall_init(sendbuf, ns, sendtype, recvbuf, nr, recvtype, comm, info, &inner);
    pipe_args a = { PL_ALLTOALL, 0, sendbuf, recvbuf, sendparts, sendcount, sendtype, 1, recvparts, recvcount, recvtype,
                    MPI_OP_NULL, NULL };
    pipe_made pm = { .g = 1, .comm = MPI_COMM_NULL };
    int made = 0;
    if (rc == MPI_SUCCESS) rc = nbh_transport(who, &a, comm, &w, info, &inner, &made, request, &pm);
    if (made) return rc;
    if (in_place) send_none(&s);
    else if (rc == MPI_SUCCESS) rc = send_blocks(who, comm, &s, w.outdeg, NULL, sendparts);
    if (rc == MPI_SUCCESS) rc = recv_blocks(who, comm, &s, w.indeg, NULL, recvparts);
    rc = finish(who, comm, rc, inner, &s, request);
    return cc_part_attach_slices(who, comm, rc, request, &pm, &a);
}

int Cart_palltoallv_init(const void *sendbuf, const int sendparts[], const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvparts[],
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, Cart_request *request)
{
    static const char *const who = "Cart_palltoallv_init";
    where w;
    NEW_SHAPE(s);
    int *sc = NULL, *sd = NULL, *rcn = NULL, *rd = NULL, rc = where_of(comm, who, &w);
    int in_place = sendbuf == MPI_IN_PLACE;
    if (rc == MPI_SUCCESS && (!rdispls || (!in_place && !sdispls)))
        rc = cc_error(comm, MPI_ERR_ARG, "%s: sdispls and rdispls must not be NULL", who);
    if (rc == MPI_SUCCESS && !in_place) rc = v_arrays(who, comm, w.outdeg, sendparts, sendcounts, sdispls, &sc, &sd);
    if (rc == MPI_SUCCESS) rc = v_arrays(who, comm, w.indeg, recvparts, recvcounts, rdispls, &rcn, &rd);
    Cart_request inner = CART_REQUEST_NULL;
    if (rc == MPI_SUCCESS)
        rc = Cart_alltoallv_init(sendbuf, sc, sd, sendtype, recvbuf, rcn, rd, recvtype, comm, info, &inner);
    free(sc);
    free(sd);
    free(rcn);
    free(rd);
    if (rc != MPI_SUCCESS) return rc;
    eb_blocks b = { .sparts = sendparts, .rparts = recvparts, .scnt = sendcounts, .rcnt = recvcounts, .sdis = sdispls,
                    .rdis = rdispls };
    int made = 0;
    rc = direct_transport(who, &b, sendbuf, sendtype, recvbuf, recvtype, comm, &w, info, 2, &inner, &made, request);
    if (made) return rc;
    if (in_place) send_none(&s);
    else rc = send_blocks(who, comm, &s, w.outdeg, sendparts, 0);
    if (rc == MPI_SUCCESS) rc = recv_blocks(who, comm, &s, w.indeg, recvparts, 0);
    return finish(who, comm, rc, inner, &s, request);
}

int Cart_palltoallw_init(const void *sendbuf, const int sendparts[], const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                         const int recvparts[], const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, Cart_request *request)
{
    static const char *const who = "Cart_palltoallw_init";
    where w;
    NEW_SHAPE(s);
    int *sc = NULL, *rcn = NULL, *unused = NULL, rc = where_of(comm, who, &w);
    int in_place = sendbuf == MPI_IN_PLACE;
    if (rc == MPI_SUCCESS && !in_place) rc = v_arrays(who, comm, w.outdeg, sendparts, sendcounts, NULL, &sc, &unused);
    if (rc == MPI_SUCCESS) rc = v_arrays(who, comm, w.indeg, recvparts, recvcounts, NULL, &rcn, &unused);
    Cart_request inner = CART_REQUEST_NULL;
    if (rc == MPI_SUCCESS)
        rc = Cart_alltoallw_init(sendbuf, sc, sdispls, sendtypes, recvbuf, rcn, rdispls, recvtypes, comm, info,
                                 &inner);
    free(sc);
    free(rcn);
    if (rc != MPI_SUCCESS) return rc;
    /* the early bird, each block with its datatype (byte displacements) */
    eb_blocks b = { .sparts = sendparts, .rparts = recvparts, .scnt = sendcounts, .rcnt = recvcounts, .sdis = sdispls,
                    .rdis = rdispls, .dis_bytes = 1, .stypes = sendtypes, .rtypes = recvtypes };
    int made = 0;
    rc = direct_transport(who, &b, sendbuf, MPI_DATATYPE_NULL, recvbuf, MPI_DATATYPE_NULL, comm, &w, info, 2, &inner,
                          &made, request);
    if (made) return rc;
    if (in_place) send_none(&s);
    else rc = send_blocks(who, comm, &s, w.outdeg, sendparts, 0);
    if (rc == MPI_SUCCESS) rc = recv_blocks(who, comm, &s, w.indeg, recvparts, 0);
    return finish(who, comm, rc, inner, &s, request);
}

/* ---- reductions -------------------------------------------------------- */

/* reduce (root >= 0), allreduce, scan, exscan: whole buffers of
 * `partitions` partitions on both sides. */
static int reduction(const char *who, const void *sendbuf, void *recvbuf, int partitions, MPI_Count count,
                     MPI_Datatype datatype, MPI_Op op, int root, int which, MPI_Comm comm, MPI_Info info,
                     Cart_request *request)
{
    where w;
    NEW_SHAPE(s);
    int n = 0, rc = where_of(comm, who, &w);
    if (rc == MPI_SUCCESS) rc = whole(who, comm, "buffer", partitions, count, &n);
    if (rc != MPI_SUCCESS) return rc;
    Cart_request inner = CART_REQUEST_NULL;
    switch (which) {
    case 0: rc = Cart_reduce_init(sendbuf, recvbuf, n, datatype, op, root, comm, info, &inner); break;
    case 1: rc = Cart_allreduce_init(sendbuf, recvbuf, n, datatype, op, comm, info, &inner); break;
    case 2: rc = Cart_scan_init(sendbuf, recvbuf, n, datatype, op, comm, info, &inner); break;
    default: rc = Cart_exscan_init(sendbuf, recvbuf, n, datatype, op, comm, info, &inner); break;
    }
    int here = which != 0 || w.rank == root;
    /* pipelined (scan, exscan: global meaning only): partition k is final
     * as soon as it is reduced */
    static const int kinds[4] = { PL_REDUCE, PL_ALLREDUCE, PL_SCAN, PL_EXSCAN };
    pipe_args a = { kinds[which], root, sendbuf, recvbuf, partitions, count, datatype, here, partitions, count,
                    datatype, op, NULL };
    pipe_made pm = { .g = 1, .comm = MPI_COMM_NULL };
    if (rc == MPI_SUCCESS) rc = cc_part_slices(who, &a, comm, &w, info, &pm);
    /* in place, the send data is the receive buffer: ready at the start */
    if (sendbuf == MPI_IN_PLACE && here) send_none(&s);
    else send_whole(&s, partitions, which == 0 && !w.nbh ? 1 : w.outdeg), s.only_dest = which == 0 && !w.nbh ? root : -1;
    if (here) recv_whole(&s, partitions, w.indeg);
    else recv_none(&s);
    rc = finish(who, comm, rc, inner, &s, request);
    return cc_part_attach_slices(who, comm, rc, request, &pm, &a);
}

int Cart_preduce_init(const void *sendbuf, void *recvbuf, int partitions, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, int root, MPI_Comm comm, MPI_Info info, Cart_request *request)
{
    return reduction("Cart_preduce_init", sendbuf, recvbuf, partitions, count, datatype, op, root, 0, comm, info,
                     request);
}

int Cart_pallreduce_init(const void *sendbuf, void *recvbuf, int partitions, MPI_Count count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Info info, Cart_request *request)
{
    return reduction("Cart_pallreduce_init", sendbuf, recvbuf, partitions, count, datatype, op, 0, 1, comm, info,
                     request);
}

int Cart_pscan_init(const void *sendbuf, void *recvbuf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Info info, Cart_request *request)
{
    return reduction("Cart_pscan_init", sendbuf, recvbuf, partitions, count, datatype, op, 0, 2, comm, info, request);
}

int Cart_pexscan_init(const void *sendbuf, void *recvbuf, int partitions, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, MPI_Info info, Cart_request *request)
{
    return reduction("Cart_pexscan_init", sendbuf, recvbuf, partitions, count, datatype, op, 0, 3, comm, info,
                     request);
}

int Cart_preduce_scatter_block_init(const void *sendbuf, void *recvbuf, int partitions, MPI_Count recvcount,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                    Cart_request *request)
{
    static const char *const who = "Cart_preduce_scatter_block_init";
    where w;
    NEW_SHAPE(s);
    int n = 0, rc = where_of(comm, who, &w);
    if (rc == MPI_SUCCESS) rc = whole(who, comm, "receive buffer", partitions, recvcount, &n);
    if (rc != MPI_SUCCESS) return rc;
    Cart_request inner = CART_REQUEST_NULL;
    rc = Cart_reduce_scatter_block_init(sendbuf, recvbuf, n, datatype, op, comm, info, &inner);
    /* pipelined: slice s reduces partitions s of every block, gathered into
     * contiguous send data as the slice starts */
    pipe_args a = { PL_RSB, 0, sendbuf, recvbuf, partitions, recvcount, datatype, 1, partitions, recvcount,
                    datatype, op, NULL };
    pipe_made pm = { .g = 1, .comm = MPI_COMM_NULL };
    if (rc == MPI_SUCCESS) rc = cc_part_slices(who, &a, comm, &w, info, &pm);
    if (sendbuf == MPI_IN_PLACE) send_none(&s);
    else if (rc == MPI_SUCCESS) rc = send_blocks(who, comm, &s, w.size, NULL, partitions);
    recv_whole(&s, partitions, w.size);
    rc = finish(who, comm, rc, inner, &s, request);
    return cc_part_attach_slices(who, comm, rc, request, &pm, &a);
}

int Cart_preduce_scatter_init(const void *sendbuf, void *recvbuf, const int partitions[],
                              const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Info info, Cart_request *request)
{
    static const char *const who = "Cart_preduce_scatter_init";
    where w;
    NEW_SHAPE(s);
    int *wc = NULL, *unused = NULL, rc = where_of(comm, who, &w);
    if (rc == MPI_SUCCESS) rc = v_arrays(who, comm, w.size, partitions, recvcounts, NULL, &wc, &unused);
    Cart_request inner = CART_REQUEST_NULL;
    if (rc == MPI_SUCCESS) rc = Cart_reduce_scatter_init(sendbuf, recvbuf, wc, datatype, op, comm, info, &inner);
    free(wc);
    if (rc != MPI_SUCCESS) return rc;
    if (sendbuf == MPI_IN_PLACE) send_none(&s);
    else rc = send_blocks(who, comm, &s, w.size, partitions, 0);
    recv_whole(&s, partitions[w.rank], w.size);
    return finish(who, comm, rc, inner, &s, request);
}


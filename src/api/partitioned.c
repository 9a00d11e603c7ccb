/* The sixteen partitioned collectives, Cart_p*_init (seed 004, API.md
 * [part]).  Each one checks its partition arguments, makes the persistent
 * request of the same collective on the whole buffers (parts * count
 * elements per block; its meaning -- global or neighbourhood -- and its
 * checks are that collective's), and wraps it with the numbering of this
 * process's send and receive partitions (req/partitioned.h). */
#include "cartcoll.h"

#include "api/front.h"

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

/* The communicator's process count and degrees (global meaning: every
 * process is a destination and a source); cs: its neighbourhood, where it
 * has one (MPI_Cart_create and graph communicators get theirs as every
 * collective gives it to them: cc_adopt). */
typedef struct {
    int rank, size, nbh, indeg, outdeg;
    cc_comm *cs;
} where;

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

/* ---- pipelined transport (below): what it needs ------------------------ */

enum { PL_ALLTOALL, PL_ALLGATHER, PL_BCAST, PL_GATHER, PL_SCATTER, PL_REDUCE, PL_ALLREDUCE, PL_SCAN, PL_EXSCAN };

/* A pipelined operation: this process's side of the collective. */
typedef struct {
    int kind, root;
    const void *sendbuf;   /* MPI_IN_PLACE where the collective allows it */
    void *recvbuf;         /* bcast: the buffer */
    int sp;                /* send partitions per block (of the one send buffer) */
    MPI_Count sc;          /* elements per send partition */
    MPI_Datatype type;     /* the send type (bcast, reductions: the type) */
    int recv;              /* this process receives (blocks, or a buffer) */
    int rp;                /* receive partitions per block (of the one buffer) */
    MPI_Count rc;          /* elements per receive partition */
    MPI_Datatype rtype;
    MPI_Op op;
} pipe_args;

/* The slices made: n requests of g send partitions of sc elements each
 * (n = 0: none). */
typedef struct {
    Cart_request *sl;
    int n, g, ordered;
    MPI_Count sc;
} pipe_made;

static int pipeline_slices(const char *who, const pipe_args *a, MPI_Comm comm, const where *w, MPI_Info info,
                           pipe_made *pm);
static int pipeline_attach(const char *who, MPI_Comm comm, int rc, Cart_request *request, pipe_made *pm,
                           const pipe_args *a);

int Cart_pbcast_init(void *buffer, int partitions, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                     MPI_Info info, Cart_request *request)
{
    static const char *const who = "Cart_pbcast_init";
    where w;
    NEW_SHAPE(s);
    int n, rc = where_of(comm, who, &w);
    if (rc == MPI_SUCCESS) rc = whole(who, comm, "buffer", partitions, count, &n);
    if (rc != MPI_SUCCESS) return rc;
    Cart_request inner = CART_REQUEST_NULL;
    rc = Cart_bcast_init(buffer, n, datatype, root, comm, info, &inner);
    /* pipelined on neighbourhoods: partitions along the trees one behind the other */
    pipe_args a = { PL_BCAST, root, buffer, buffer, partitions, count, datatype, w.rank != root, partitions, count,
                    datatype, MPI_OP_NULL };
    pipe_made pm = { NULL, 0, 1, 0, 0 };
    if (rc == MPI_SUCCESS) rc = pipeline_slices(who, &a, comm, &w, info, &pm);
    if (w.rank == root) send_whole(&s, partitions, w.outdeg), recv_none(&s);
    else send_none(&s), recv_whole(&s, partitions, w.indeg);
    rc = finish(who, comm, rc, inner, &s, request);
    return pipeline_attach(who, comm, rc, request, &pm, &a);
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
                    recvtype, MPI_OP_NULL };
    pipe_made pm = { NULL, 0, 1, 0, 0 };
    if (rc == MPI_SUCCESS) rc = pipeline_slices(who, &a, comm, &w, info, &pm);
    if (in_place) send_none(&s);
    else send_whole(&s, sendparts, w.nbh ? w.outdeg : 1), s.only_dest = w.nbh ? -1 : root;
    if (here && rc == MPI_SUCCESS) rc = recv_blocks(who, comm, &s, w.indeg, NULL, recvparts);
    else recv_none(&s);
    rc = finish(who, comm, rc, inner, &s, request);
    return pipeline_attach(who, comm, rc, request, &pm, &a);
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
                    recvtype, MPI_OP_NULL };
    pipe_made pm = { NULL, 0, 1, 0, 0 };
    if (rc == MPI_SUCCESS) rc = pipeline_slices(who, &a, comm, &w, info, &pm);
    if (here && rc == MPI_SUCCESS) rc = send_blocks(who, comm, &s, w.outdeg, NULL, sendparts);
    else send_none(&s);
    if (in_place) recv_none(&s);
    else recv_whole(&s, recvparts, w.indeg);
    rc = finish(who, comm, rc, inner, &s, request);
    return pipeline_attach(who, comm, rc, request, &pm, &a);
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
    if (here) rc = send_blocks(who, comm, &s, w.outdeg, sendparts, 0);
    else send_none(&s);
    if (in_place) recv_none(&s);
    else recv_whole(&s, recvparts, w.indeg);
    return finish(who, comm, rc, inner, &s, request);
}

/* ---- allgather, alltoall ---------------------------------------------- */

/* The blocks of an allgather(v) or alltoall(v, w) as the early bird sees
 * them.  Send block i holds sparts(i) partitions of scount(i) elements at
 * byte offset sdisp(i) (gather: the one send buffer, the same for every
 * destination); receive block j likewise.  NULL arrays: sp / sc / rp / rc
 * for every block, blocks one after another. */
typedef struct {
    int gather;
    const int *sparts, *rparts;
    const MPI_Count *scnt, *rcnt;
    const MPI_Aint *sdis, *rdis;
    int dis_bytes; /* displacements in bytes (w), else in elements */
    int sp, rp;
    MPI_Count sc, rc;
} eb_blocks;

static int eb_sp(const eb_blocks *b, int i) { return b->sparts && !b->gather ? b->sparts[i] : b->sp; }
static long long eb_sc(const eb_blocks *b, int i) { return b->scnt && !b->gather ? b->scnt[i] : b->sc; }
static int eb_rp(const eb_blocks *b, int j) { return b->rparts ? b->rparts[j] : b->rp; }
static long long eb_rc(const eb_blocks *b, int j) { return b->rcnt ? b->rcnt[j] : b->rc; }
static MPI_Aint eb_sdisp(const eb_blocks *b, int i, MPI_Aint ext)
{
    if (b->gather) return 0;
    if (b->sdis) return b->dis_bytes ? b->sdis[i] : b->sdis[i] * ext;
    return (MPI_Aint)i * b->sp * b->sc * ext;
}
static MPI_Aint eb_rdisp(const eb_blocks *b, int j, MPI_Aint ext)
{
    if (b->rdis) return b->dis_bytes ? b->rdis[j] : b->rdis[j] * ext;
    return (MPI_Aint)j * b->rp * b->rc * ext;
}

static int early_bird(const char *who, const eb_blocks *b, const void *sendbuf, MPI_Datatype type, void *recvbuf,
                      MPI_Datatype rtype, MPI_Comm comm, const where *w, MPI_Info info, int wanted, int *made,
                      Cart_request *request);
static int early_bird_wanted(MPI_Info info, const where *w, const char *who);
static int direct_transport(const char *who, const eb_blocks *b, const void *sendbuf, MPI_Datatype type,
                            void *recvbuf, MPI_Datatype rtype, MPI_Comm comm, const where *w, MPI_Info info,
                            int wanted, Cart_request *inner, int *made, Cart_request *request);
static int nbh_transport(const char *who, const pipe_args *a, MPI_Comm comm, const where *w, MPI_Info info,
                         Cart_request *inner, int *made, Cart_request *request, pipe_made *pm);

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
                    recvtype, MPI_OP_NULL };
    pipe_made pm = { NULL, 0, 1, 0, 0 };
    int made = 0;
    if (rc == MPI_SUCCESS) rc = nbh_transport(who, &a, comm, &w, info, &inner, &made, request, &pm);
    if (made) return rc;
    if (in_place) send_none(&s);
    else send_whole(&s, sendparts, w.outdeg);
    if (rc == MPI_SUCCESS) rc = recv_blocks(who, comm, &s, w.indeg, NULL, recvparts);
    rc = finish(who, comm, rc, inner, &s, request);
    return pipeline_attach(who, comm, rc, request, &pm, &a);
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
    eb_blocks b = { 1, NULL, recvparts, NULL, recvcounts, NULL, displs, 0, sendparts, 0, sendcount, 0 };
    int made = 0;
    rc = direct_transport(who, &b, sendbuf, sendtype, recvbuf, recvtype, comm, &w, info, 2, &inner, &made, request);
    if (made) return rc;
    if (in_place) send_none(&s);
    else send_whole(&s, sendparts, w.outdeg);
    rc = recv_blocks(who, comm, &s, w.indeg, recvparts, 0);
    return finish(who, comm, rc, inner, &s, request);
}

/* ---- the early bird: neighbourhood alltoall ------------------------------ */

/* Whether every process of comm says yes (one small reduction). */
static int all_agree(MPI_Comm c, int yes)
{
    int all = 0;
    return MPI_Allreduce(&yes, &all, 1, MPI_INT, MPI_MIN, c) == MPI_SUCCESS && all;
}

/* Aggregation: adjacent partitions to one destination travel in one
 * message up to this many bytes.  Info key cartcoll_part_aggregate (bytes,
 * 0: never), else the environment's CARTCOLL_PART_AGGREGATE, else the cost
 * model's break-even: the size whose transfer costs as much as one more
 * message (overhead / beta), below which a message is mostly its fixed
 * cost.  Returns 0 on a bad value (not a non-negative integer). */
static int aggregate_bytes(MPI_Info info, const cc_nbh *n, long long *bytes)
{
    char v[64] = "";
    int found = 0;
    if (info != MPI_INFO_NULL) {
#if MPI_VERSION >= 4
        int len = (int)sizeof v;
        if (MPI_Info_get_string(info, "cartcoll_part_aggregate", &len, v, &found) != MPI_SUCCESS) return 0;
        if (found && len > (int)sizeof v) return 0;
#else
        if (MPI_Info_get(info, "cartcoll_part_aggregate", (int)sizeof v - 1, v, &found) != MPI_SUCCESS) return 0;
#endif
    }
    const char *e = found ? v : getenv("CARTCOLL_PART_AGGREGATE");
    if (e && *e) {
        char *end = NULL;
        long long b = strtoll(e, &end, 10);
        if (*end || b < 0) return 0;
        *bytes = b;
        return 1;
    }
    double alpha = -1, beta = -1, overhead = -1;
    if (n) beta = n->beta, overhead = n->overhead;
    else (void)cc_model_fixed(&alpha, &beta, &overhead); /* no neighbourhood: the environment's or default model */
    *bytes = beta > 0 && overhead > 0 ? (long long)(overhead / beta) : 0;
    return 1;
}

/* One persistent message per group of g adjacent send partitions of block
 * i to out-neighbour i (g: aggregation; gather: the one buffer to every
 * out-neighbour), tagged with the block's number at the receiver times the
 * most messages any block has, plus its place; one persistent receive per
 * message of each in-neighbour j (its sender's message count and block
 * size are exchanged here): the block of offset i leaves R towards
 * R + N[i] and arrives as block i there, so both sides number the edge's
 * messages alike.  On Cart_neighborhood_create communicators (no permuted
 * blocks) and, with global meaning, on plain communicators: there every
 * rank is a destination and a source (block i goes to rank i and arrives
 * as block R there), the "direct exchange" MPI's alltoall(v, w) and
 * allgather(v) are.  One predefined datatype on both sides (w: the same in
 * every block), not in place, each receive block as big as the block sent
 * to it and cut into equal messages, when every process qualifies; else
 * *made = 0 and the caller takes the general transport.  Collective. */
static int early_bird(const char *who, const eb_blocks *b, const void *sendbuf, MPI_Datatype type, void *recvbuf,
                      MPI_Datatype rtype, MPI_Comm comm, const where *w, MPI_Info info, int wanted, int *made,
                      Cart_request *request)
{
    *made = 0;
    int t = 0, global = !w->nbh, gather = b->gather;
    const cc_nbh *n = w->cs ? w->cs->nbh : NULL;
    void *ub = NULL;
    int has_ub = 0;
    (void)MPI_Comm_get_attr(comm, MPI_TAG_UB, &ub, &has_ub);
    long long tag_ub = has_ub && ub ? *(int *)ub : 32767;
    /* (adopted MPI_Cart_create communicators carry rperm: excluded) */
    int ok = wanted && sendbuf != MPI_IN_PLACE && type == rtype && cc_type_named(type) && w->indeg == w->outdeg;
    if (global) t = w->size;
    else ok = ok && n && !n->graph && !n->detected && !n->sperm && !n->rperm &&
              Cart_neighbor_count(comm, &t) == MPI_SUCCESS && t == w->outdeg;
    long long target = 0;
    int good = aggregate_bytes(info, n, &target);
    MPI_Aint lb, ext = 1;
    if (ok) MPI_Type_get_extent(type, &lb, &ext);
    /* g[i] adjacent partitions per message of block i: the most that
     * divides its partitions and fits the target (the receivers learn the
     * message counts below) */
    int *g = ok ? malloc(sizeof(int) * ((size_t)t + 1)) : NULL, mostm = 0;
    if (ok && !g) ok = 0;
    for (int i = 0; ok && i < t; i++) {
        int sp = eb_sp(b, i);
        g[i] = 1;
        for (int c = sp; c > 1; c--)
            if (sp % c == 0 && (long long)c * eb_sc(b, i) * ext <= target) {
                g[i] = c;
                break;
            }
        if (sp / g[i] > mostm) mostm = sp / g[i];
    }
    int mine[3] = { ok, good, -mostm }, all[3] = { 0, 0, 0 };
    MPI_Comm pc;
    if (MPI_Comm_dup(comm, &pc) != MPI_SUCCESS) {
        free(g);
        return cc_error(comm, MPI_ERR_OTHER, "%s: MPI_Comm_dup failed", who);
    }
    int M = 1; /* the most messages of any block anywhere: tag = block * M + place */
    if (MPI_Allreduce(mine, all, 3, MPI_INT, MPI_MIN, pc) == MPI_SUCCESS && all[0] && all[1]) {
        M = -all[2] > 0 ? -all[2] : 1;
        if ((long long)t * M - 1 > tag_ub) all[0] = 0; /* (the same everywhere) */
    }
    if (!all[0] || !all[1]) {
        free(g);
        MPI_Comm_free(&pc);
        if (!all[1])
            return cc_error(comm, MPI_ERR_ARG, "%s: %s", who,
                            good ? "another process's cartcoll_part_aggregate (info or CARTCOLL_PART_AGGREGATE) is "
                                   "not a non-negative integer"
                                 : "cartcoll_part_aggregate (info or CARTCOLL_PART_AGGREGATE) is not a non-negative "
                                   "integer (bytes)");
        return MPI_SUCCESS;
    }
    int *src = malloc(sizeof(int) * ((size_t)t + 1)), *dst = malloc(sizeof(int) * ((size_t)t + 1));
    int *mine2 = malloc(sizeof(int) * 2 * ((size_t)t + 1)), *theirs = malloc(sizeof(int) * 2 * ((size_t)t + 1));
    int *wts = malloc(sizeof(int) * 2 * ((size_t)t + 1));
    MPI_Request *x = malloc(sizeof(MPI_Request) * (2 * (size_t)t + 1));
    int rc = src && dst && mine2 && theirs && x && wts ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    int me = 0;
    MPI_Comm_rank(comm, &me);
    if (rc == MPI_SUCCESS && global)
        for (int i = 0; i < t; i++) src[i] = dst[i] = i;
    else if (rc == MPI_SUCCESS) rc = Cart_neighbor_get(comm, t, src, wts, t, dst, wts + t);
    free(wts);
    /* each block's message count and elements, to its receiver (tagged
     * with the block's number there) */
    for (int i = 0; rc == MPI_SUCCESS && i < t; i++) {
        mine2[2 * i] = eb_sp(b, i) / g[i];
        mine2[2 * i + 1] = (int)(eb_sp(b, i) * eb_sc(b, i));
        rc = MPI_Irecv(&theirs[2 * i], 2, MPI_INT, src[i], i, pc, &x[i]);
        if (rc == MPI_SUCCESS) rc = MPI_Isend(&mine2[2 * i], 2, MPI_INT, dst[i], global ? me : i, pc, &x[t + i]);
    }
    if (rc == MPI_SUCCESS && t > 0) rc = cc_waitall(2 * t, x);
    /* every receive block is what is sent to it, in equal messages */
    for (int j = 0; rc == MPI_SUCCESS && j < t; j++) {
        long long rblk = (long long)eb_rp(b, j) * eb_rc(b, j);
        int nm = theirs[2 * j];
        if (src[j] == MPI_PROC_NULL) theirs[2 * j] = 1; /* one receive that completes at once */
        else if (theirs[2 * j + 1] != rblk || nm < 0 || (nm == 0 ? rblk != 0 : rblk % nm != 0)) ok = 0;
    }
    if (rc != MPI_SUCCESS || !all_agree(pc, ok)) {
        free(src), free(dst), free(mine2), free(theirs), free(x), free(g);
        MPI_Comm_free(&pc);
        return rc == MPI_SUCCESS ? MPI_SUCCESS : cc_error(comm, MPI_ERR_OTHER, "%s: setting up failed", who);
    }
    int *soff = malloc(sizeof(int) * ((size_t)t + 1)), *roff = malloc(sizeof(int) * ((size_t)t + 1));
    if (soff && roff) soff[0] = roff[0] = 0;
    for (int i = 0; soff && roff && i < t; i++) soff[i + 1] = soff[i] + eb_sp(b, i), roff[i + 1] = roff[i] + eb_rp(b, i);
    int nsend = gather ? b->sp : soff ? soff[t] : 0, nrecv = roff ? roff[t] : 0;
    Cart_request r = CART_REQUEST_NULL;
    rc = soff && roff ? cc_part_request_new(&r, comm, who, CART_REQUEST_NULL, gather ? CC_PART_WHOLE : CC_PART_BLOCKS,
                                            t, nsend, soff, t, nrecv, roff, 0)
                      : MPI_ERR_NO_MEM;
    cc_part *p = rc == MPI_SUCCESS ? r->part : NULL;
    if (p) {
        p->direct = 1;
        p->pcomm = pc;
        pc = MPI_COMM_NULL;
        p->spb = mine2 && t > 0 ? mine2[0] : 0; /* gather: every block alike */
        p->agg = t > 0 ? g[0] : 1;
        p->mfirst = malloc(sizeof(int) * ((size_t)t + 1));
        p->rblk = malloc(sizeof(int) * ((size_t)t + 1));
        p->rcnt = malloc(sizeof(int) * ((size_t)t + 1));
        p->rself = cc_alloc_zarray((size_t)t + 1, 1);
        p->rfirst = malloc(sizeof(int) * ((size_t)t + 1));
        int nsmsg = 0, nm = 0;
        for (int i = 0; p->mfirst && i <= t; i++) {
            p->mfirst[i] = nsmsg;
            if (i < t) nsmsg += mine2[2 * i], nm += theirs[2 * i];
        }
        p->nsmsg = nsmsg;
        if (gather) p->pdmark = cc_alloc_zarray((size_t)nsend * (size_t)t + 1, sizeof *p->pdmark);
        else p->pmsg = malloc(sizeof(int) * ((size_t)nsend + 1));
        p->sreq = malloc(sizeof(MPI_Request) * ((size_t)nsmsg + 1));
        p->sstarted = cc_alloc_zarray((size_t)nsmsg + 1, sizeof *p->sstarted);
        p->mmark = cc_alloc_zarray((size_t)nsmsg + 1, sizeof *p->mmark);
        p->magg = malloc(sizeof(int) * ((size_t)nsmsg + 1));
        p->kself = cc_alloc_zarray((size_t)nsmsg + 1, 1);
        p->msoff = malloc(sizeof(MPI_Aint) * ((size_t)nsmsg + 1));
        p->mroff = malloc(sizeof(MPI_Aint) * ((size_t)nsmsg + 1));
        p->mbytes = malloc(sizeof(size_t) * ((size_t)nsmsg + 1));
        p->rreq = malloc(sizeof(MPI_Request) * ((size_t)nm + 1));
        if (!p->mfirst || !p->rblk || !p->rcnt || !p->rself || !p->rfirst || !p->sreq || !p->sstarted ||
            !p->mmark || !p->magg || !p->kself || !p->msoff || !p->mroff || !p->mbytes || !p->rreq ||
            (gather ? !p->pdmark : !p->pmsg))
            rc = MPI_ERR_NO_MEM;
        p->sbase = sendbuf;
        p->rbase = recvbuf;
        for (int j = 0; rc == MPI_SUCCESS && j < t; j++) {
            p->rblk[j] = (int)(eb_rp(b, j) * eb_rc(b, j));
            p->rcnt[j] = (int)eb_rc(b, j);
            p->rself[j] = src[j] == me;
        }
        /* message k = mfirst[i] + m: g[i] partitions of block i from place
         * m; its tag numbers it as the receiver does.  Blocks to this
         * process itself (an offset that wraps onto it: then R - N[i] = R
         * too, and it arrives as receive block i, cut alike) are copied
         * message by message when marked: no MPI. */
        for (int i = 0; rc == MPI_SUCCESS && i < t; i++) {
            long long each = g[i] * eb_sc(b, i);
            for (int m = 0; m < mine2[2 * i]; m++) {
                int k = p->mfirst[i] + m;
                p->sreq[k] = MPI_REQUEST_NULL;
                p->kself[k] = dst[i] == me;
                p->magg[k] = g[i];
                p->msoff[k] = eb_sdisp(b, i, ext) + (MPI_Aint)(m * each) * ext;
                p->mroff[k] = eb_rdisp(b, i, ext) + (MPI_Aint)(m * each) * ext;
                p->mbytes[k] = (size_t)each * (size_t)ext;
                if (!gather)
                    for (int q = 0; q < g[i]; q++) p->pmsg[soff[i] + m * g[i] + q] = k;
                if (!p->kself[k] && rc == MPI_SUCCESS)
                    rc = MPI_Send_init((const char *)sendbuf + p->msoff[k], (int)each, type, dst[i],
                                       (global ? me : i) * M + m, p->pcomm, &p->sreq[k]);
            }
        }
        p->nrmsg = 0;
        for (int j = 0; rc == MPI_SUCCESS && j <= t; j++) {
            p->rfirst[j] = p->nrmsg;
            if (j == t) break;
            int per = theirs[2 * j] > 0 ? p->rblk[j] / theirs[2 * j] : 0;
            for (int m = 0; rc == MPI_SUCCESS && m < theirs[2 * j]; m++) {
                p->rreq[p->nrmsg] = MPI_REQUEST_NULL;
                if (src[j] != me)
                    rc = MPI_Recv_init((char *)recvbuf + eb_rdisp(b, j, ext) + (MPI_Aint)m * per * ext, per, type,
                                       src[j], j * M + m, p->pcomm, &p->rreq[p->nrmsg]);
                p->nrmsg++;
            }
        }
    }
    free(soff), free(roff);
    free(src), free(dst), free(mine2), free(theirs), free(x), free(g);
    if (pc != MPI_COMM_NULL) MPI_Comm_free(&pc);
    if (rc != MPI_SUCCESS) {
        if (r) cc_request_destroy(r);
        return cc_error(comm, rc == MPI_ERR_NO_MEM ? rc : MPI_ERR_OTHER, "%s: setting up the partitions failed", who);
    }
    /* Early messages must move while the threads compute: under
     * MPI_THREAD_MULTIPLE the library's progress thread (asleep while no
     * operation is active) drives them. */
    if (p->multiple) cc_progress_async_start();
    *made = 1;
    *request = r;
    return MPI_SUCCESS;
}

/* The algorithm this call's info, the communicator's defaults (create's
 * info) and the environment ask for, in that order. */
static int asked_algorithm(MPI_Info info, const where *w, const char *who)
{
    cc_choice ch = { CC_AUTO, CC_EXEC_AUTO, 0 };
    if (w->cs) ch = w->cs->nbh->defaults;
    else cc_options_env(&ch);
    cc_options_info(info, &ch, who);
    return ch.algorithm;
}

/* The early bird sends one message per partition and edge: unless an
 * algorithm that combines is forced. */
static int early_bird_wanted(MPI_Info info, const where *w, const char *who)
{
    int a = asked_algorithm(info, w, who);
    return a == CC_AUTO || a == CC_DIRECT;
}

/* ---- pipelined: partitions through schedules and trees ---------------- */

static const void *shifted(const void *buf, MPI_Aint bytes)
{
    return buf == MPI_IN_PLACE ? buf : (const char *)buf + bytes;
}

/* Slice `s` of a: the collective on send partitions s*g ... s*g+g-1 of
 * every block (count elements at off in each block of `block`): the v
 * form where blocks are strided; cnt, sd, rd: scratch of nb ints. */
static int make_slice(const pipe_args *a, MPI_Comm comm, MPI_Info info, int nb, long long block, MPI_Aint ext,
                      long long off, int count, int *cnt, int *sd, int *rd, Cart_request *out)
{
    for (int i = 0; i < nb; i++) {
        cnt[i] = count;
        sd[i] = rd[i] = (int)(i * block + off);
    }
    MPI_Aint at = (MPI_Aint)off * ext;
    void *rb = a->recv ? (char *)a->recvbuf + at : a->recvbuf; /* (not significant where nothing arrives) */
    switch (a->kind) {
    case PL_ALLTOALL:
        return Cart_alltoallv_init(a->sendbuf, cnt, sd, a->type, a->recvbuf, cnt, rd, a->rtype, comm, info, out);
    case PL_ALLGATHER:
        return Cart_allgatherv_init(shifted(a->sendbuf, at), count, a->type, a->recvbuf, cnt, rd, a->rtype, comm, info,
                                    out);
    case PL_BCAST: return Cart_bcast_init((char *)a->recvbuf + at, count, a->type, a->root, comm, info, out);
    case PL_GATHER:
        return Cart_gatherv_init(shifted(a->sendbuf, at), count, a->type, a->recvbuf, cnt, rd, a->rtype, a->root, comm,
                                 info, out);
    case PL_SCATTER:
        return Cart_scatterv_init(a->sendbuf, cnt, sd, a->type, rb, count, a->rtype, a->root, comm, info, out);
    case PL_REDUCE:
        return Cart_reduce_init(shifted(a->sendbuf, at), rb, count, a->type, a->op, a->root, comm, info, out);
    case PL_SCAN: return Cart_scan_init(shifted(a->sendbuf, at), rb, count, a->type, a->op, comm, info, out);
    case PL_EXSCAN: return Cart_exscan_init(shifted(a->sendbuf, at), rb, count, a->type, a->op, comm, info, out);
    default: return Cart_allreduce_init(shifted(a->sendbuf, at), rb, count, a->type, a->op, comm, info, out);
    }
}

/* Slice s is the collective on a group of g adjacent send partitions of
 * every block, so that those partitions travel -- through the phases of a
 * combining schedule, along the trees of a rooted collective, reduced on
 * the way -- as soon as they are ready here, behind or ahead of the
 * others.  g: the most partitions that divide sp and fit the cost model's
 * break-even size (overhead / beta; cartcoll_part_aggregate,
 * CARTCOLL_PART_AGGREGATE override it, as for the early bird); more than
 * one slice or nothing.  On neighbourhoods (rooted and reducing
 * collectives with any algorithm; alltoall and allgather where COMBINING or
 * TORUS is asked for: else the early bird serves them) and, for the rooted
 * and reducing collectives, with global meaning (slices are MPI's own
 * collectives on the communicator there, started in order), one datatype on
 * both sides, buffers given, blocks of the same elements on both sides,
 * and every process with the same sp and g (one reduction on the private
 * communicator; scatter: the root's, which the receivers learn there and
 * check in a second reduction); else pm->n = 0 and the caller keeps the
 * whole-buffer request.  Collective. */
static int pipeline_slices(const char *who, const pipe_args *a, MPI_Comm comm, const where *w, MPI_Info info,
                           pipe_made *pm)
{
    pm->sl = NULL;
    pm->n = 0;
    pm->g = 1;
    int global = !w->nbh, blockwise = a->kind == PL_ALLTOALL || a->kind == PL_ALLGATHER;
    if ((global && blockwise) || (!global && !w->cs)) return MPI_SUCCESS; /* (the same on every process) */
    MPI_Comm agree = global ? comm : w->cs->priv; /* global: MPI's collectives run on comm itself */
    int alg = asked_algorithm(info, w, who), nb = w->outdeg > w->indeg ? w->outdeg : w->indeg;
    int scatter = a->kind == PL_SCATTER, root = w->rank == a->root;
    int blocks = a->kind == PL_ALLTOALL || a->kind == PL_ALLGATHER || a->kind == PL_GATHER || scatter;
    /* the send side's partitions: scatter's are the root's alone */
    int knows = !scatter || root;
    long long block = knows ? (long long)a->sp * a->sc : (long long)a->rp * a->rc;
    int sends = (a->kind != PL_BCAST || root) && knows;
    int ok = (!knows || (a->sp > 1 && a->sc > 0)) && (a->recvbuf || !a->recv) && (a->sendbuf || !sends);
    if (a->kind == PL_ALLTOALL || a->kind == PL_ALLGATHER) ok &= alg == CC_COMBINING || alg == CC_TORUS;
    if (blocks) {
        ok &= a->sendbuf != MPI_IN_PLACE && a->recvbuf != MPI_IN_PLACE && (long long)(nb + 1) * block <= INT_MAX;
        if (a->recv && knows) ok &= a->type == a->rtype && block == (long long)a->rp * a->rc;
    }
    /* scatter: the receivers cut their block by the root's partitions, so
     * both sides count one predefined datatype of the same size */
    MPI_Datatype unit = knows ? a->type : a->rtype;
    int tsize = 0;
    if (scatter) ok &= cc_type_named(unit) && MPI_Type_size(unit, &tsize) == MPI_SUCCESS;
    long long target = 0;
    int good = aggregate_bytes(info, global ? NULL : w->cs->nbh, &target); /* (a bad value: an error everywhere) */
    MPI_Aint lb, ext = 0;
    if (ok) ok = good && MPI_Type_get_extent(unit, &lb, &ext) == MPI_SUCCESS;
    int g = 1;
    for (int c = a->sp; ok && knows && c > 1; c--)
        if (a->sp % c == 0 && (long long)c * a->sc * ext <= target) {
            g = c;
            break;
        }
    /* equal everywhere (MIN of x and -x); INT_MAX: not known here */
    const int U = INT_MAX;
    int mine[8] = { ok, knows ? a->sp : U, knows ? -a->sp : U, knows ? g : U, knows ? -g : U,
                    scatter && knows ? tsize : U, scatter && knows ? -tsize : U, good };
    int all[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
    if (MPI_Allreduce(mine, all, 8, MPI_INT, MPI_MIN, agree) != MPI_SUCCESS)
        return cc_error(comm, MPI_ERR_OTHER, "%s: agreeing on the transport failed", who);
    if (!all[7])
        return cc_error(comm, MPI_ERR_ARG, "%s: %s", who,
                        good ? "another process's cartcoll_part_aggregate (info or CARTCOLL_PART_AGGREGATE) is not a "
                               "non-negative integer"
                             : "cartcoll_part_aggregate (info or CARTCOLL_PART_AGGREGATE) is not a non-negative "
                               "integer (bytes)");
    if (!all[0] || all[1] != -all[2] || all[3] != -all[4] || (scatter && all[5] != -all[6])) return MPI_SUCCESS;
    int sp = all[1];
    g = all[3];
    MPI_Count sc = a->sc;
    if (scatter) { /* a second reduction: can every receiver cut its block so? */
        if (!knows) {
            ok = tsize == all[5] && block % sp == 0;
            sc = block / sp;
        }
        int yes = 0;
        if (MPI_Allreduce(&ok, &yes, 1, MPI_INT, MPI_MIN, agree) != MPI_SUCCESS)
            return cc_error(comm, MPI_ERR_OTHER, "%s: agreeing on the transport failed", who);
        if (!yes) return MPI_SUCCESS;
    }
    if (sp / g < 2) return MPI_SUCCESS;
    pipe_args b = *a; /* with the agreed partitions */
    b.sp = sp;
    b.sc = sc;
    a = &b;
    int n = sp / g, made = 0;
    Cart_request *sl = cc_alloc_array((size_t)n, sizeof(Cart_request));
    int *cnt = cc_alloc_array((size_t)nb + 1, sizeof(int)), *sd = cc_alloc_array((size_t)nb + 1, sizeof(int));
    int *rd = cc_alloc_array((size_t)nb + 1, sizeof(int));
    int rc = sl && cnt && sd && rd ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (int k = 0; rc == MPI_SUCCESS && k < n; k++) {
        rc = make_slice(a, comm, info, nb, block, ext, (long long)k * g * a->sc, (int)(g * a->sc), cnt, sd, rd, &sl[k]);
        if (rc == MPI_SUCCESS) made++;
    }
    free(cnt);
    free(sd);
    free(rd);
    if (rc != MPI_SUCCESS) { /* (raised by the collective, or out of memory here) */
        for (int k = 0; k < made; k++) Cart_request_free(&sl[k]);
        free(sl);
        return rc == MPI_ERR_NO_MEM ? cc_error(comm, rc, "%s: out of memory", who) : rc;
    }
    pm->sl = sl;
    pm->n = n;
    pm->g = g;
    pm->sc = sc;
    pm->ordered = global;
    return MPI_SUCCESS;
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
    int rc = early_bird(who, b, sendbuf, type, recvbuf, rtype, comm, w, info,
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
    eb_blocks b = { a->kind == PL_ALLGATHER, NULL, NULL, NULL, NULL, NULL, NULL, 0, a->sp, a->rp, a->sc, a->rc };
    int rc = direct_transport(who, &b, a->sendbuf, a->type, a->recvbuf, a->rtype, comm, w, info, 1, inner, made,
                              request);
    if (rc != MPI_SUCCESS || *made) return rc;
    return w->nbh ? pipeline_slices(who, a, comm, w, info, pm) : MPI_SUCCESS;
}

/* Hand the slices (if any) to the partitioned request made (rc) or free
 * them. */
static int pipeline_attach(const char *who, MPI_Comm comm, int rc, Cart_request *request, pipe_made *pm,
                           const pipe_args *a)
{
    if (pm->n == 0) return rc;
    if (rc != MPI_SUCCESS) {
        for (int k = 0; k < pm->n; k++) Cart_request_free(&pm->sl[k]);
    } else if (cc_part_pipeline(*request, pm->sl, pm->n, pm->g, (int)(pm->g * pm->sc),
                                a->recv ? (int)(a->rp * a->rc) : 1, a->recv ? (int)a->rc : 1, pm->ordered) != MPI_SUCCESS) {
        cc_request_destroy(*request);
        *request = CART_REQUEST_NULL;
        rc = cc_error(comm, MPI_ERR_NO_MEM, "%s: out of memory", who);
    } else if ((*request)->part->multiple) {
        /* slices must move while the threads compute: the progress thread
         * (asleep while no operation is active) drives them */
        cc_progress_async_start();
    }
    free(pm->sl);
    pm->sl = NULL;
    return rc;
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
                    MPI_OP_NULL };
    pipe_made pm = { NULL, 0, 1, 0, 0 };
    int made = 0;
    if (rc == MPI_SUCCESS) rc = nbh_transport(who, &a, comm, &w, info, &inner, &made, request, &pm);
    if (made) return rc;
    if (in_place) send_none(&s);
    else if (rc == MPI_SUCCESS) rc = send_blocks(who, comm, &s, w.outdeg, NULL, sendparts);
    if (rc == MPI_SUCCESS) rc = recv_blocks(who, comm, &s, w.indeg, NULL, recvparts);
    rc = finish(who, comm, rc, inner, &s, request);
    return pipeline_attach(who, comm, rc, request, &pm, &a);
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
    eb_blocks b = { 0, sendparts, recvparts, sendcounts, recvcounts, sdispls, rdispls, 0, 0, 0, 0, 0 };
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
    /* the early bird where every block has the same predefined datatype
     * (byte displacements) */
    MPI_Datatype ty = MPI_DATATYPE_NULL;
    int same = !in_place;
    for (int i = 0; same && i < w.outdeg; i++) {
        if (ty == MPI_DATATYPE_NULL) ty = sendtypes[i];
        same = sendtypes[i] == ty;
    }
    for (int j = 0; same && j < w.indeg; j++) {
        if (ty == MPI_DATATYPE_NULL) ty = recvtypes[j];
        same = recvtypes[j] == ty;
    }
    if (ty == MPI_DATATYPE_NULL) ty = MPI_BYTE;
    eb_blocks b = { 0, sendparts, recvparts, sendcounts, recvcounts, sdispls, rdispls, 1, 0, 0, 0, 0 };
    int made = 0;
    rc = direct_transport(who, &b, sendbuf, ty, recvbuf, ty, comm, &w, info, same ? 2 : 0, &inner, &made, request);
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
                    datatype, op };
    pipe_made pm = { NULL, 0, 1, 0, 0 };
    if (rc == MPI_SUCCESS) rc = pipeline_slices(who, &a, comm, &w, info, &pm);
    /* in place, the send data is the receive buffer: ready at the start */
    if (sendbuf == MPI_IN_PLACE && here) send_none(&s);
    else send_whole(&s, partitions, which == 0 && !w.nbh ? 1 : w.outdeg), s.only_dest = which == 0 && !w.nbh ? root : -1;
    if (here) recv_whole(&s, partitions, w.indeg);
    else recv_none(&s);
    rc = finish(who, comm, rc, inner, &s, request);
    return pipeline_attach(who, comm, rc, request, &pm, &a);
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
    if (sendbuf == MPI_IN_PLACE) send_none(&s);
    else if (rc == MPI_SUCCESS) rc = send_blocks(who, comm, &s, w.size, NULL, partitions);
    recv_whole(&s, partitions, w.size);
    return finish(who, comm, rc, inner, &s, request);
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

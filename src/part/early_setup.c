/* The early bird planned (early.h runs it): one persistent message per
 * group of adjacent send partitions and edge, for the direct exchanges
 * (allgather(v), alltoall(v, w)) and, with global meaning, gatherv and
 * scatterv.  cc_part_early_bird, in its steps: the blocks and their edges
 * (plan_sides), the aggregation (plan_messages), a first agreement
 * (agree_plan), the message counts told to the receivers
 * (exchange_counts), the request and its persistent messages
 * (make_request, make_sends, make_recvs). */
#include "part/early.h"
#include "part/transport.h"

#include "base/errors.h"
#include "base/mpi_compat.h"
#include "bind/typemap.h"
#include "req/request.h"
#include "topo/comm.h"
#include "util/alloc.h"

#include <stdlib.h>

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

/* What the early bird knows of one send block (out) and one receive block
 * (in): its edge (rank, tag number: edge_tags), datatype, extent and size,
 * and the block's message count and bytes (msg: sent to the receiver, or
 * received from the sender).  out also has its aggregation g. */
typedef struct {
    int rank, tag, g, size;
    MPI_Datatype t;
    MPI_Aint ext;
    long long msg[2];
} eb_side;

/* Number the k-th repeat of each rank in r (n blocks) k: MPI's rule for
 * repeated graph edges (the k-th edge between two processes meets the
 * k-th).  Returns one more than the largest number. */
static int repeat_numbers(eb_side *r, int n)
{
    int most = 0;
    for (int i = 0; i < n; i++) {
        r[i].tag = 0;
        for (int k = 0; k < i; k++) r[i].tag += r[k].rank == r[i].rank;
        if (r[i].tag >= most) most = r[i].tag + 1;
    }
    return most;
}

/* Which edge a block travels on, as both of its ends number it (tags are
 * edge * M + message), and its rank (MPI_PROC_NULL: none): out[u] for
 * send block u, in[v] for receive block v.  Global meaning: the sender's
 * rank (the receiver's block number).  Cartesian neighbourhoods
 * (Cart_neighborhood_create, MPI_Cart_create, detected graphs): the offset
 * i the block is sent along, which arrives as offset i (through the
 * caller's block permutations).  Other graphs: repeat_numbers.  Returns
 * the number of edge numbers used (the tags' span), or -1 where a block
 * has no edge. */
static int edge_tags(const where *w, const eb_blocks *b, int tin, int tout, eb_side *in, eb_side *out)
{
    if (b->rooted) { /* global gatherv, scatterv: one edge between the root and each rank */
        for (int i = 0; i < tout; i++) out[i].rank = b->rooted == EB_GATHER ? b->root : i, out[i].tag = 0;
        for (int j = 0; j < tin; j++) in[j].rank = b->rooted == EB_SCATTER ? b->root : j, in[j].tag = 0;
        return 1;
    }
    if (!w->nbh) {
        for (int i = 0; i < tout; i++) out[i].rank = i, out[i].tag = w->rank;
        for (int j = 0; j < tin; j++) in[j].rank = in[j].tag = j;
        return w->size;
    }
    cc_nbh *n = w->cs->nbh;
    cc_edges e;
    if (cc_nbh_edges(n, &e) != CC_OK || e.indeg != tin || e.outdeg != tout) return -1;
    for (int i = 0; i < tout; i++) out[i].rank = e.dst[i] == CC_NONE ? MPI_PROC_NULL : e.dst[i], out[i].tag = -1;
    for (int j = 0; j < tin; j++) in[j].rank = e.src[j] == CC_NONE ? MPI_PROC_NULL : e.src[j], in[j].tag = -1;
    if (n->graph) {
        int a = repeat_numbers(out, tout), c = repeat_numbers(in, tin);
        return a > c ? a : c;
    }
    for (int i = 0; i < n->t; i++) {
        int si = n->sperm ? n->sperm[i] : i, ri = n->rperm ? n->rperm[i] : i;
        if (si >= 0 && si < tout) out[si].tag = i;
        if (ri >= 0 && ri < tin) in[ri].tag = i;
    }
    for (int i = 0; i < tout; i++)
        if (out[i].tag < 0) return -1;
    for (int j = 0; j < tin; j++)
        if (in[j].tag < 0) return -1;
    return n->t;
}

/* A block's datatype (w: its own), extent and size; a block of nothing is
 * not asked.  Returns 0 where MPI fails. */
static int side_type(eb_side *s, MPI_Datatype t, long long elements)
{
    MPI_Aint lb;
    s->t = t, s->ext = 1, s->size = 1;
    return elements <= 0 || (MPI_Type_get_extent(t, &lb, &s->ext) == MPI_SUCCESS &&
                             MPI_Type_size(t, &s->size) == MPI_SUCCESS);
}

/* The early bird being planned. */
typedef struct {
    const eb_blocks *b;
    const where *w;
    int tin, tout, me, here;
    eb_side *out, *in;  /* tout send blocks, tin receive blocks */
    MPI_Request *x;     /* tin + tout: the exchange of message counts */
    int *soff, *roff;   /* tout + 1, tin + 1: partition offsets of the blocks */
    MPI_Comm pc;        /* the duplicate the messages use (MPI_COMM_NULL: none yet) */
    int span, M;        /* edge numbers; the most messages of any block anywhere */
} eb_plan;

static void plan_free(eb_plan *e)
{
    free(e->out), free(e->in), free(e->x), free(e->soff), free(e->roff);
    if (e->pc != MPI_COMM_NULL) MPI_Comm_free(&e->pc);
}

/* The blocks of this process and their edges; *ok: this process
 * qualifies (buffers given, not in place -- rooted: the significant ones
 * -- datatypes known, an edge for every block).  Returns MPI_ERR_NO_MEM or
 * MPI_SUCCESS. */
static int plan_sides(eb_plan *e, const void *sendbuf, MPI_Datatype type, const void *recvbuf, MPI_Datatype rtype,
                      int wanted, int *ok)
{
    const eb_blocks *b = e->b;
    const where *w = e->w;
    e->tin = w->indeg, e->tout = w->outdeg, e->me = w->rank, e->here = e->me == b->root;
    if (b->rooted == EB_GATHER) e->tout = 1, e->tin = e->here ? w->size : 0;
    if (b->rooted == EB_SCATTER) e->tout = e->here ? w->size : 0, e->tin = 1;
    const cc_nbh *n = w->cs ? w->cs->nbh : NULL;
    int yes = wanted && (!w->nbh || (n && !b->rooted));
    if (b->rooted == EB_GATHER) yes = yes && sendbuf != MPI_IN_PLACE && (!e->here || recvbuf);
    else if (b->rooted == EB_SCATTER) yes = yes && recvbuf != MPI_IN_PLACE && (!e->here || sendbuf);
    else yes = yes && sendbuf != MPI_IN_PLACE && recvbuf != MPI_IN_PLACE;
    int tin = e->tin, tout = e->tout;
    e->out = cc_alloc_zarray((size_t)tout + 1, sizeof(eb_side)), e->in = cc_alloc_zarray((size_t)tin + 1, sizeof(eb_side));
    e->x = malloc(sizeof(MPI_Request) * ((size_t)tin + (size_t)tout + 1));
    e->soff = malloc(sizeof(int) * ((size_t)tout + 1)), e->roff = malloc(sizeof(int) * ((size_t)tin + 1));
    int rc = e->out && e->in && e->x && e->soff && e->roff ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    yes = yes && rc == MPI_SUCCESS;
    for (int u = 0; yes && u < tout; u++)
        yes = side_type(&e->out[u], b->stypes ? b->stypes[u] : type, eb_sp(b, u) * eb_sc(b, u));
    for (int j = 0; yes && j < tin; j++)
        yes = side_type(&e->in[j], b->rtypes ? b->rtypes[j] : rtype, eb_rp(b, j) * eb_rc(b, j));
    e->span = yes ? edge_tags(w, b, tin, tout, e->in, e->out) : -1;
    *ok = yes && e->span >= 0;
    return rc;
}

/* g adjacent partitions per message of a block: the most that divides its
 * partitions and fits the target in bytes (the receivers learn the
 * message counts in exchange_counts).  Returns the most messages of a
 * block here. */
static int plan_messages(eb_plan *e, int ok, long long target)
{
    const eb_blocks *b = e->b;
    int mostm = 0;
    for (int u = 0; ok && u < e->tout; u++) {
        eb_side *o = &e->out[u];
        int sp = eb_sp(b, u);
        o->g = 1;
        for (int c = sp; c > 1; c--)
            if (sp % c == 0 && (long long)c * eb_sc(b, u) * o->size <= target) {
                o->g = c;
                break;
            }
        o->msg[0] = sp / o->g;
        o->msg[1] = sp * eb_sc(b, u) * o->size; /* bytes */
        if (o->msg[0] > mostm) mostm = (int)o->msg[0];
    }
    return mostm;
}

/* Every process qualifies, its aggregation size is good and the tags fit
 * (one reduction on the duplicate made here, where rc is MPI_SUCCESS):
 * e->M, or *stop (returned: MPI_SUCCESS, or the error raised where an
 * aggregation size is bad).  Returns rc, or MPI_ERR_OTHER where the
 * duplicate failed. */
static int agree_plan(eb_plan *e, MPI_Comm comm, const char *who, int rc, int ok, int good, int mostm, int *stop)
{
    int mine[4] = { ok, good, -mostm, -e->span }, all[4] = { 0, 0, 0, 0 };
    if (cc_comm_dup_plain(comm, &e->pc) != MPI_SUCCESS) rc = MPI_ERR_OTHER;
    e->M = 1;
    if (rc == MPI_SUCCESS && MPI_Allreduce(mine, all, 4, MPI_INT, MPI_MIN, e->pc) == MPI_SUCCESS && all[0] && all[1]) {
        e->M = -all[2] > 0 ? -all[2] : 1;
        if ((long long)-all[3] * e->M - 1 > cc_world_tag_ub()) all[0] = 0; /* (the same everywhere) */
    }
    *stop = rc == MPI_SUCCESS && (!all[0] || !all[1]);
    if (*stop) return all[1] ? MPI_SUCCESS : cc_part_aggregate_error(comm, who, good);
    return rc;
}

/* Each block's message count and bytes, to its receiver (tagged with its
 * edge); *ok stays set where every receive block here is as many bytes
 * as are sent to it, in messages of whole receive elements. */
static int exchange_counts(eb_plan *e, int *ok)
{
    int rc = MPI_SUCCESS, tin = e->tin, tout = e->tout;
    eb_side *in = e->in, *out = e->out;
    for (int j = 0; rc == MPI_SUCCESS && j < tin; j++)
        rc = MPI_Irecv(in[j].msg, 2, MPI_LONG_LONG, in[j].rank, in[j].tag, e->pc, &e->x[j]);
    for (int u = 0; rc == MPI_SUCCESS && u < tout; u++)
        rc = MPI_Isend(out[u].msg, 2, MPI_LONG_LONG, out[u].rank, out[u].tag, e->pc, &e->x[tin + u]);
    if (rc == MPI_SUCCESS && tin + tout > 0) rc = cc_waitall(tin + tout, e->x);
    for (int j = 0; rc == MPI_SUCCESS && j < tin; j++) {
        long long rblk = (long long)eb_rp(e->b, j) * eb_rc(e->b, j), nm = in[j].msg[0];
        if (in[j].rank == MPI_PROC_NULL) in[j].msg[0] = 1; /* one receive slot, MPI_REQUEST_NULL: complete */
        else if (in[j].msg[1] != rblk * in[j].size || nm < 0 || (nm == 0 ? rblk != 0 : rblk % nm != 0)) *ok = 0;
    }
    return rc;
}

/* Message k = mfirst[u] + m: g partitions of block u from place m.  A
 * block to this process itself (an offset that wraps onto it, a graph's
 * edge to itself) arrives as the receive block of the same edge, cut
 * alike: where both have one predefined datatype it is copied message by
 * message when marked, no MPI (else it goes through MPI like the
 * others). */
static int make_sends(const eb_plan *e, cc_part_eb *s, const void *sendbuf)
{
    const eb_blocks *b = e->b;
    int rc = MPI_SUCCESS;
    for (int u = 0; rc == MPI_SUCCESS && u < e->tout; u++) {
        const eb_side *o = &e->out[u];
        long long each = o->g * eb_sc(b, u);
        int v = -1;
        for (int j = 0; o->rank == e->me && j < e->tin && v < 0; j++)
            if (e->in[j].rank == e->me && e->in[j].tag == o->tag) v = j;
        if (v >= 0 && !(o->t == e->in[v].t && cc_type_named(o->t))) v = -1;
        if (v >= 0) s->rfrom[v] = u;
        for (int m = 0; m < (int)o->msg[0]; m++) {
            int k = s->mfirst[u] + m;
            s->sreq[k] = MPI_REQUEST_NULL;
            s->kself[k] = v >= 0;
            s->magg[k] = o->g;
            s->msoff[k] = eb_sdisp(b, u, o->ext) + (MPI_Aint)(m * each) * o->ext;
            s->mroff[k] = v >= 0 ? eb_rdisp(b, v, e->in[v].ext) + (MPI_Aint)(m * each) * e->in[v].ext : 0;
            s->mbytes[k] = (size_t)each * (size_t)o->size;
            if (!b->gather)
                for (int q = 0; q < o->g; q++) s->pmsg[e->soff[u] + m * o->g + q] = k;
            /* off a mesh: no persistent request to MPI_PROC_NULL (MPICH 4.0
             * freeing one breaks every later MPI-4 persistent collective of
             * the process); MPI_REQUEST_NULL is complete at once */
            if (!s->kself[k] && o->rank != MPI_PROC_NULL && rc == MPI_SUCCESS)
                rc = MPI_Send_init((const char *)sendbuf + s->msoff[k], (int)each, o->t, o->rank,
                                   o->tag * e->M + m, s->pcomm, &s->sreq[k]);
        }
    }
    return rc;
}

/* One persistent receive per message of each source (none from this
 * process itself: copied). */
static int make_recvs(const eb_plan *e, cc_part_eb *s, void *recvbuf)
{
    int rc = MPI_SUCCESS, nr = 0;
    for (int j = 0; rc == MPI_SUCCESS && j <= e->tin; j++) {
        s->rfirst[j] = nr;
        if (j == e->tin) break;
        const eb_side *in = &e->in[j];
        int per = in->msg[0] > 0 ? (int)(s->rblk[j] / in->msg[0]) : 0;
        for (int m = 0; rc == MPI_SUCCESS && m < (int)in->msg[0]; m++) {
            s->rreq[nr] = MPI_REQUEST_NULL;
            if (s->rfrom[j] < 0 && in->rank != MPI_PROC_NULL) /* (as the sends) */
                rc = MPI_Recv_init((char *)recvbuf + eb_rdisp(e->b, j, in->ext) + (MPI_Aint)m * per * in->ext, per,
                                   in->t, in->rank, in->tag * e->M + m, s->pcomm, &s->rreq[nr]);
            nr++;
        }
    }
    return rc;
}

/* The partitioned request with the early bird's state: numbering, then
 * the messages (e->pc moves to it). */
static int make_request(eb_plan *e, MPI_Comm comm, const char *who, const void *sendbuf, void *recvbuf,
                        Cart_request *out)
{
    const eb_blocks *b = e->b;
    int tin = e->tin, tout = e->tout, gather = b->gather;
    e->soff[0] = e->roff[0] = 0;
    for (int u = 0; u < tout; u++) e->soff[u + 1] = e->soff[u] + eb_sp(b, u);
    for (int j = 0; j < tin; j++) e->roff[j + 1] = e->roff[j] + eb_rp(b, j);
    int nsend = gather ? b->sp : e->soff[tout];
    cc_part_shape sh = { gather ? CC_PART_WHOLE : nsend > 0 || !b->rooted ? CC_PART_BLOCKS : CC_PART_NONE,
                         tout, nsend, b->rooted == EB_GATHER ? b->root : -1 /* Cart_pready_to(k, root) */,
                         e->soff, tin, e->roff[tin], 0, e->roff };
    int rc = cc_part_request_new(out, comm, who, &sh);
    if (rc != MPI_SUCCESS) return rc;
    int nsmsg = 0, nm = 0;
    for (int u = 0; u < tout; u++) nsmsg += (int)e->out[u].msg[0];
    for (int j = 0; j < tin; j++) nm += (int)e->in[j].msg[0];
    cc_part_eb *s = cc_part_eb_new(tout, nsmsg, nsend, !gather, tin, nm);
    if (!s) return MPI_ERR_NO_MEM;
    cc_part_set_transport(*out, &cc_part_early_ops, s);
    if (gather && cc_part_alloc_pdmark((*out)->part) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
    s->pcomm = e->pc;
    e->pc = MPI_COMM_NULL;
    s->agg = tout > 0 ? e->out[0].g : 1; /* gather: every block alike */
    s->sbase = sendbuf;
    s->rbase = recvbuf;
    for (int u = 0, n = 0; u <= tout; u++) {
        s->mfirst[u] = n;
        if (u < tout) n += (int)e->out[u].msg[0];
    }
    for (int j = 0; j < tin; j++) {
        s->rblk[j] = (int)(eb_rp(b, j) * eb_rc(b, j));
        s->rcnt[j] = (int)eb_rc(b, j);
        s->rfrom[j] = -1;
    }
    rc = make_sends(e, s, sendbuf);
    return rc == MPI_SUCCESS ? make_recvs(e, s, recvbuf) : rc;
}

/* One persistent message per group of g adjacent send partitions of block
 * u to its destination (g: aggregation; gather: the one buffer to every
 * out-neighbour), tagged with its edge (edge_tags) times the most messages
 * any block has, plus its place; one persistent receive per message of
 * each source (the sender's message count and block size are exchanged
 * here), so a partition leaves as soon as the partitions of its message
 * are marked.  On every communicator with a neighbourhood and, with
 * global meaning, on plain communicators: the "direct exchange" MPI's
 * alltoall(v, w) and allgather(v) are.  Any datatypes (w: each block's),
 * not in place, each receive block as many bytes as the block sent to it
 * and cut into equal messages of whole receive elements, when every
 * process qualifies; else *made = 0 and the caller takes the general
 * transport.  Collective. */
int cc_part_early_bird(const char *who, const eb_blocks *b, const void *sendbuf, MPI_Datatype type, void *recvbuf,
                       MPI_Datatype rtype, MPI_Comm comm, const where *w, MPI_Info info, int wanted, int *made,
                       Cart_request *request)
{
    *made = 0;
    eb_plan e = { .b = b, .w = w, .pc = MPI_COMM_NULL };
    int ok = 0, stop = 0;
    int rc = plan_sides(&e, sendbuf, type, recvbuf, rtype, wanted, &ok);
    long long target = 0;
    int good = cc_part_aggregate_bytes(info, w->cs ? w->cs->nbh : NULL, &target);
    int mostm = plan_messages(&e, ok, target);
    rc = agree_plan(&e, comm, who, rc, ok, good, mostm, &stop);
    if (stop) { /* not here (or a bad aggregation size, raised) */
        plan_free(&e);
        return rc;
    }
    if (rc == MPI_SUCCESS) rc = exchange_counts(&e, &ok);
    if (rc != MPI_SUCCESS || !cc_part_agree(e.pc, ok)) {
        plan_free(&e);
        return rc == MPI_SUCCESS ? MPI_SUCCESS : cc_error(comm, MPI_ERR_OTHER, "%s: setting up failed", who);
    }
    Cart_request r = CART_REQUEST_NULL;
    rc = make_request(&e, comm, who, sendbuf, recvbuf, &r);
    plan_free(&e);
    if (rc != MPI_SUCCESS) {
        if (r) cc_request_destroy(r);
        return cc_error(comm, rc == MPI_ERR_NO_MEM ? rc : MPI_ERR_OTHER, "%s: setting up the partitions failed", who);
    }
    /* Early messages must move while the threads compute: under
     * MPI_THREAD_MULTIPLE the library's progress thread (asleep while no
     * operation is active) drives them. */
    if (r->part->multiple) cc_progress_async_start();
    *made = 1;
    *request = r;
    return MPI_SUCCESS;
}

/* The early bird of the partitioned direct exchanges (allgather(v),
 * alltoall(v, w)): every group of adjacent send partitions of a block is
 * its own persistent message along its edge, started the moment its
 * partitions are marked; receives are posted at the start.  See
 * cc_part_early_bird. */
#include "api/part_transport.h"

#include "base/errors.h"
#include "base/mpi_compat.h"
#include "base/options.h"
#include "bind/typemap.h"
#include "choose/choose.h"
#include "req/partitioned.h"
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

/* Whether every process of comm says yes (one small reduction). */
int cc_part_agree(MPI_Comm c, int yes)
{
    int all = 0;
    return MPI_Allreduce(&yes, &all, 1, MPI_INT, MPI_MIN, c) == MPI_SUCCESS && all;
}

int cc_part_aggregate_error(MPI_Comm comm, const char *who, int good)
{
    return cc_error(comm, MPI_ERR_ARG, "%s: %s", who,
                    good ? "another process's cartcoll_part_aggregate (info or CARTCOLL_PART_AGGREGATE) is not a "
                           "non-negative integer"
                         : "cartcoll_part_aggregate (info or CARTCOLL_PART_AGGREGATE) is not a non-negative integer "
                           "(bytes)");
}

/* Aggregation: adjacent partitions to one destination travel in one
 * message up to this many bytes.  Info key cartcoll_part_aggregate (bytes,
 * 0: never), else the environment's CARTCOLL_PART_AGGREGATE, else the cost
 * model's break-even: the size whose transfer costs as much as one more
 * message (overhead / beta), below which a message is mostly its fixed
 * cost.  Returns 0 on a bad value (not a non-negative integer). */
int cc_part_aggregate_bytes(MPI_Info info, const cc_nbh *n, long long *bytes)
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
    /* A key present in info is a value, also where it is empty (MPICH
     * stores ""); an empty environment variable is unset, as all of
     * cartcoll's are. */
    const char *e = found ? v : getenv("CARTCOLL_PART_AGGREGATE");
    if (found || (e && *e)) return cc_parse_bytes(e, bytes);
    double alpha = -1, beta = -1, overhead = -1;
    if (n) beta = n->beta, overhead = n->overhead;
    else (void)cc_model_fixed(&alpha, &beta, &overhead); /* no neighbourhood: the environment's or default model */
    *bytes = beta > 0 && overhead > 0 ? (long long)(overhead / beta) : 0;
    return 1;
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
    int tin = w->indeg, tout = w->outdeg, gather = b->gather, me = w->rank, here = me == b->root;
    if (b->rooted == EB_GATHER) tout = 1, tin = here ? w->size : 0;
    if (b->rooted == EB_SCATTER) tout = here ? w->size : 0, tin = 1;
    const cc_nbh *n = w->cs ? w->cs->nbh : NULL;
    /* buffers given, not in place (rooted: the significant ones) */
    int ok = wanted && (!w->nbh || (n && !b->rooted));
    if (b->rooted == EB_GATHER) ok = ok && sendbuf != MPI_IN_PLACE && (!here || recvbuf);
    else if (b->rooted == EB_SCATTER) ok = ok && recvbuf != MPI_IN_PLACE && (!here || sendbuf);
    else ok = ok && sendbuf != MPI_IN_PLACE && recvbuf != MPI_IN_PLACE;
    eb_side *out = cc_alloc_zarray((size_t)tout + 1, sizeof(eb_side)), *in = cc_alloc_zarray((size_t)tin + 1, sizeof(eb_side));
    MPI_Request *x = malloc(sizeof(MPI_Request) * ((size_t)tin + (size_t)tout + 1));
    int *soff = malloc(sizeof(int) * ((size_t)tout + 1)), *roff = malloc(sizeof(int) * ((size_t)tin + 1));
    int rc = out && in && x && soff && roff ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    ok = ok && rc == MPI_SUCCESS;
    for (int u = 0; ok && u < tout; u++)
        ok = side_type(&out[u], b->stypes ? b->stypes[u] : type, eb_sp(b, u) * eb_sc(b, u));
    for (int j = 0; ok && j < tin; j++)
        ok = side_type(&in[j], b->rtypes ? b->rtypes[j] : rtype, eb_rp(b, j) * eb_rc(b, j));
    int span = ok ? edge_tags(w, b, tin, tout, in, out) : -1;
    ok = ok && span >= 0;
    long long target = 0;
    int good = cc_part_aggregate_bytes(info, n, &target);
    /* g adjacent partitions per message of a block: the most that divides
     * its partitions and fits the target in bytes (the receivers learn the
     * message counts below) */
    int mostm = 0;
    for (int u = 0; ok && u < tout; u++) {
        int sp = eb_sp(b, u);
        out[u].g = 1;
        for (int c = sp; c > 1; c--)
            if (sp % c == 0 && (long long)c * eb_sc(b, u) * out[u].size <= target) {
                out[u].g = c;
                break;
            }
        out[u].msg[0] = sp / out[u].g;
        out[u].msg[1] = sp * eb_sc(b, u) * out[u].size; /* bytes */
        if (out[u].msg[0] > mostm) mostm = (int)out[u].msg[0];
    }
    int mine[4] = { ok, good, -mostm, -span }, all[4] = { 0, 0, 0, 0 };
    MPI_Comm pc = MPI_COMM_NULL;
    if (cc_comm_dup_plain(comm, &pc) != MPI_SUCCESS) rc = MPI_ERR_OTHER;
    int M = 1; /* the most messages of any block anywhere */
    if (rc == MPI_SUCCESS && MPI_Allreduce(mine, all, 4, MPI_INT, MPI_MIN, pc) == MPI_SUCCESS && all[0] && all[1]) {
        M = -all[2] > 0 ? -all[2] : 1;
        if ((long long)-all[3] * M - 1 > cc_world_tag_ub()) all[0] = 0; /* (the same everywhere) */
    }
    if (rc == MPI_SUCCESS && (!all[0] || !all[1])) {
        free(out), free(in), free(x), free(soff), free(roff);
        MPI_Comm_free(&pc);
        return all[1] ? MPI_SUCCESS : cc_part_aggregate_error(comm, who, good);
    }
    /* each block's message count and bytes, to its receiver (tagged with
     * its edge) */
    for (int j = 0; rc == MPI_SUCCESS && j < tin; j++)
        rc = MPI_Irecv(in[j].msg, 2, MPI_LONG_LONG, in[j].rank, in[j].tag, pc, &x[j]);
    for (int u = 0; rc == MPI_SUCCESS && u < tout; u++)
        rc = MPI_Isend(out[u].msg, 2, MPI_LONG_LONG, out[u].rank, out[u].tag, pc, &x[tin + u]);
    if (rc == MPI_SUCCESS && tin + tout > 0) rc = cc_waitall(tin + tout, x);
    /* every receive block is as many bytes as are sent to it, in messages
     * of whole receive elements */
    for (int j = 0; rc == MPI_SUCCESS && j < tin; j++) {
        long long rblk = (long long)eb_rp(b, j) * eb_rc(b, j), nm = in[j].msg[0];
        if (in[j].rank == MPI_PROC_NULL) in[j].msg[0] = 1; /* one receive slot, MPI_REQUEST_NULL: complete */
        else if (in[j].msg[1] != rblk * in[j].size || nm < 0 || (nm == 0 ? rblk != 0 : rblk % nm != 0)) ok = 0;
    }
    if (rc != MPI_SUCCESS || !cc_part_agree(pc, ok)) {
        free(out), free(in), free(x), free(soff), free(roff);
        if (pc != MPI_COMM_NULL) MPI_Comm_free(&pc);
        return rc == MPI_SUCCESS ? MPI_SUCCESS : cc_error(comm, MPI_ERR_OTHER, "%s: setting up failed", who);
    }
    soff[0] = roff[0] = 0;
    for (int u = 0; u < tout; u++) soff[u + 1] = soff[u] + eb_sp(b, u);
    for (int j = 0; j < tin; j++) roff[j + 1] = roff[j] + eb_rp(b, j);
    int nsend = gather ? b->sp : soff[tout], nrecv = roff[tin];
    Cart_request r = CART_REQUEST_NULL;
    int kind = gather ? CC_PART_WHOLE : nsend > 0 || !b->rooted ? CC_PART_BLOCKS : CC_PART_NONE;
    rc = cc_part_request_new(&r, comm, who, CART_REQUEST_NULL, kind, tout, nsend, soff, tin, nrecv, roff, 0);
    cc_part *p = rc == MPI_SUCCESS ? r->part : NULL;
    if (p) {
        if (b->rooted == EB_GATHER) p->only_dest = b->root; /* Cart_pready_to(k, root) */
        p->direct = 1;
        p->pcomm = pc;
        pc = MPI_COMM_NULL;
        p->agg = tout > 0 ? out[0].g : 1; /* gather: every block alike */
        p->mfirst = malloc(sizeof(int) * ((size_t)tout + 1));
        p->rblk = malloc(sizeof(int) * ((size_t)tin + 1));
        p->rcnt = malloc(sizeof(int) * ((size_t)tin + 1));
        p->rfrom = malloc(sizeof(int) * ((size_t)tin + 1));
        p->rfirst = malloc(sizeof(int) * ((size_t)tin + 1));
        int nsmsg = 0, nm = 0;
        for (int u = 0; p->mfirst && u <= tout; u++) {
            p->mfirst[u] = nsmsg;
            if (u < tout) nsmsg += (int)out[u].msg[0];
        }
        for (int j = 0; j < tin; j++) nm += (int)in[j].msg[0];
        p->nsmsg = nsmsg;
        if (gather) p->pdmark = cc_alloc_zarray((size_t)nsend * (size_t)tout + 1, sizeof *p->pdmark);
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
        if (!p->mfirst || !p->rblk || !p->rcnt || !p->rfrom || !p->rfirst || !p->sreq || !p->sstarted ||
            !p->mmark || !p->magg || !p->kself || !p->msoff || !p->mroff || !p->mbytes || !p->rreq ||
            (gather ? !p->pdmark : !p->pmsg))
            rc = MPI_ERR_NO_MEM;
        p->sbase = sendbuf;
        p->rbase = recvbuf;
        for (int j = 0; rc == MPI_SUCCESS && j < tin; j++) {
            p->rblk[j] = (int)(eb_rp(b, j) * eb_rc(b, j));
            p->rcnt[j] = (int)eb_rc(b, j);
            p->rfrom[j] = -1;
        }
        /* message k = mfirst[u] + m: g partitions of block u from place m.
         * A block to this process itself (an offset that wraps onto it, a
         * graph's edge to itself) arrives as the receive block of the same
         * edge, cut alike: where both have one predefined datatype it is
         * copied message by message when marked, no MPI (else it goes
         * through MPI like the others). */
        for (int u = 0; rc == MPI_SUCCESS && u < tout; u++) {
            const eb_side *o = &out[u];
            long long each = o->g * eb_sc(b, u);
            int v = -1;
            for (int j = 0; o->rank == me && j < tin && v < 0; j++)
                if (in[j].rank == me && in[j].tag == o->tag) v = j;
            if (v >= 0 && !(o->t == in[v].t && cc_type_named(o->t))) v = -1;
            if (v >= 0) p->rfrom[v] = u;
            for (int m = 0; m < (int)o->msg[0]; m++) {
                int k = p->mfirst[u] + m;
                p->sreq[k] = MPI_REQUEST_NULL;
                p->kself[k] = v >= 0;
                p->magg[k] = o->g;
                p->msoff[k] = eb_sdisp(b, u, o->ext) + (MPI_Aint)(m * each) * o->ext;
                p->mroff[k] = v >= 0 ? eb_rdisp(b, v, in[v].ext) + (MPI_Aint)(m * each) * in[v].ext : 0;
                p->mbytes[k] = (size_t)each * (size_t)o->size;
                if (!gather)
                    for (int q = 0; q < o->g; q++) p->pmsg[soff[u] + m * o->g + q] = k;
                /* off a mesh: no persistent request to MPI_PROC_NULL (MPICH 4.0
                 * freeing one breaks every later MPI-4 persistent collective of
                 * the process); MPI_REQUEST_NULL is complete at once */
                if (!p->kself[k] && o->rank != MPI_PROC_NULL && rc == MPI_SUCCESS)
                    rc = MPI_Send_init((const char *)sendbuf + p->msoff[k], (int)each, o->t, o->rank, o->tag * M + m,
                                       p->pcomm, &p->sreq[k]);
            }
        }
        p->nrmsg = 0;
        for (int j = 0; rc == MPI_SUCCESS && j <= tin; j++) {
            p->rfirst[j] = p->nrmsg;
            if (j == tin) break;
            int per = in[j].msg[0] > 0 ? (int)(p->rblk[j] / in[j].msg[0]) : 0;
            for (int m = 0; rc == MPI_SUCCESS && m < (int)in[j].msg[0]; m++) {
                p->rreq[p->nrmsg] = MPI_REQUEST_NULL;
                if (p->rfrom[j] < 0 && in[j].rank != MPI_PROC_NULL) /* (as the sends) */
                    rc = MPI_Recv_init((char *)recvbuf + eb_rdisp(b, j, in[j].ext) + (MPI_Aint)m * per * in[j].ext,
                                       per, in[j].t, in[j].rank, in[j].tag * M + m, p->pcomm, &p->rreq[p->nrmsg]);
                p->nrmsg++;
            }
        }
    }
    free(out), free(in), free(x), free(soff), free(roff);
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

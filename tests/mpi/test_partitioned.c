/* Partitioned collectives (cartcoll.h [part]): all sixteen Cart_p*_init on
 * a plain communicator (global meaning), on a Cartesian neighbourhood and
 * on an MPI_Cart_create communicator (neighbourhood meaning; the
 * global-only ones must say MPI_ERR_TOPOLOGY),
 * send and receive sides partitioned differently, partitions marked ready
 * in random order by OpenMP threads under MPI_THREAD_FUNNELED (Cart_pready,
 * _range, _list, and the _to forms per destination), Cart_parrived polled
 * while the operation runs (an arrived partition must hold its final
 * value), three start/ready/wait cycles per request, and the bad uses.
 *
 * Oracle: the blocking collective of the same name on the same
 * communicator with the same whole buffers (its global meaning is MPI's
 * collective, its neighbourhood meaning is checked against first
 * principles by test_nbhcoll and test_differential).  --break-oracle
 * corrupts the oracle: the run must fail.  --multiple runs the same under
 * MPI_THREAD_MULTIPLE.  --early checks instead that partitions travel
 * before the rest is marked (see early_case). */
#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    P_BCAST, P_GATHER, P_GATHERV, P_SCATTER, P_SCATTERV, P_ALLGATHER, P_ALLGATHERV, P_ALLTOALL, P_ALLTOALLV,
    P_ALLTOALLW, P_REDUCE, P_ALLREDUCE, P_RSB, P_RS, P_SCAN, P_EXSCAN, NP_OPS
};
static const char *const pname[NP_OPS] = { "bcast",     "gather",     "gatherv",  "scatter",  "scatterv",
                                           "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw",
                                           "reduce",    "allreduce",  "reduce_scatter_block",
                                           "reduce_scatter", "scan", "exscan" };
enum { E = 12, SENT = -777 }; /* ints per block; never a value */
static const int divisors[] = { 1, 2, 3, 4, 6, 12 };
static int break_oracle;

typedef struct {
    MPI_Comm comm;
    int nbh, rank, size, indeg, outdeg;
    const char *name;
} ctx;

static int global_only(int op) { return op == P_RSB || op == P_RS || op == P_SCAN || op == P_EXSCAN; }

/* One case's buffers and partitions. */
typedef struct {
    int op, root, sp, rp; /* partitions of a block, send and receive side */
    int *sparts, *rparts; /* per block (v, w; reduce_scatter: partitions[]) */
    MPI_Count *scnt, *rcnt;
    MPI_Aint *sdis, *rdis, *sdisb, *rdisb;
    MPI_Datatype *types, *stypes; /* w: receive and send datatypes per block */
    int *sbuf, *rbuf, *obuf, *want;
    size_t slen, rlen;
} kase;

static int value(int rank, int cycle, size_t e) { return rank * 10000 + cycle * 1000 + (int)e; }

static void setup(kase *k, const ctx *c, int op, mt_rng *g)
{
    memset(k, 0, sizeof *k);
    k->op = op;
    k->root = mt_uniform(g, 0, c->size - 1);
    k->sp = divisors[mt_uniform(g, 0, 5)];
    k->rp = divisors[mt_uniform(g, 0, 5)];
    int nb = c->size > c->outdeg ? c->size : c->outdeg;
    if (c->indeg > nb) nb = c->indeg;
    k->slen = k->rlen = (size_t)(nb + 1) * E;
    k->sbuf = malloc(sizeof(int) * k->slen);
    k->rbuf = malloc(sizeof(int) * k->rlen);
    k->obuf = malloc(sizeof(int) * k->rlen);
    k->want = malloc(sizeof(int) * k->rlen);
    k->sparts = malloc(sizeof(int) * (size_t)nb);
    k->rparts = malloc(sizeof(int) * (size_t)nb);
    k->scnt = malloc(sizeof(MPI_Count) * (size_t)nb);
    k->rcnt = malloc(sizeof(MPI_Count) * (size_t)nb);
    k->sdis = malloc(sizeof(MPI_Aint) * (size_t)nb);
    k->rdis = malloc(sizeof(MPI_Aint) * (size_t)nb);
    k->sdisb = malloc(sizeof(MPI_Aint) * (size_t)nb);
    k->rdisb = malloc(sizeof(MPI_Aint) * (size_t)nb);
    k->types = malloc(sizeof(MPI_Datatype) * (size_t)nb);
    k->stypes = malloc(sizeof(MPI_Datatype) * (size_t)nb);
    for (int i = 0; i < nb; i++) {
        /* the same on every process (seeded alike): v blocks agree */
        k->sparts[i] = divisors[mt_uniform(g, 0, 5)];
        k->rparts[i] = k->sparts[i] == 12 ? 4 : divisors[mt_uniform(g, 0, 5)];
        k->scnt[i] = E / k->sparts[i];
        k->rcnt[i] = E / k->rparts[i];
        k->sdis[i] = k->rdis[i] = (MPI_Aint)i * E;
        k->sdisb[i] = k->rdisb[i] = (MPI_Aint)i * E * (MPI_Aint)sizeof(int);
        k->types[i] = k->stypes[i] = MPI_INT;
    }
}

static void teardown(kase *k)
{
    void *p[] = { k->sbuf, k->rbuf, k->obuf,  k->want,  k->sparts, k->rparts, k->scnt,
                  k->rcnt, k->sdis, k->rdis,  k->sdisb, k->rdisb, k->types, k->stypes };
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) free(p[i]);
}

/* The partitioned init of k on c. */
static int pinit(kase *k, const ctx *c, Cart_request *r)
{
    MPI_Comm m = c->comm;
    MPI_Info in = MPI_INFO_NULL;
    int *s = k->sbuf, *b = k->rbuf, sp = k->sp, rp = k->rp;
    MPI_Count sc = E / sp, rc = E / rp;
    switch (k->op) {
    case P_BCAST: return Cart_pbcast_init(s, sp, sc, MPI_INT, k->root, m, in, r);
    case P_GATHER: return Cart_pgather_init(s, sp, sc, MPI_INT, b, rp, rc, MPI_INT, k->root, m, in, r);
    case P_GATHERV:
        return Cart_pgatherv_init(s, sp, sc, MPI_INT, b, k->rparts, k->rcnt, k->rdis, MPI_INT, k->root, m, in, r);
    case P_SCATTER: return Cart_pscatter_init(s, sp, sc, MPI_INT, b, rp, rc, MPI_INT, k->root, m, in, r);
    case P_SCATTERV:
        return Cart_pscatterv_init(s, k->sparts, k->scnt, k->sdis, MPI_INT, b, rp, rc, MPI_INT, k->root, m, in, r);
    case P_ALLGATHER: return Cart_pallgather_init(s, sp, sc, MPI_INT, b, rp, rc, MPI_INT, m, in, r);
    case P_ALLGATHERV:
        return Cart_pallgatherv_init(s, sp, sc, MPI_INT, b, k->rparts, k->rcnt, k->rdis, MPI_INT, m, in, r);
    case P_ALLTOALL: return Cart_palltoall_init(s, sp, sc, MPI_INT, b, rp, rc, MPI_INT, m, in, r);
    case P_ALLTOALLV:
        return Cart_palltoallv_init(s, k->sparts, k->scnt, k->sdis, MPI_INT, b, k->rparts, k->rcnt, k->rdis, MPI_INT,
                                    m, in, r);
    case P_ALLTOALLW:
        return Cart_palltoallw_init(s, k->sparts, k->scnt, k->sdisb, k->stypes, b, k->rparts, k->rcnt, k->rdisb,
                                    k->types, m, in, r);
    case P_REDUCE: return Cart_preduce_init(s, b, sp, sc, MPI_INT, MPI_SUM, k->root, m, in, r);
    case P_ALLREDUCE: return Cart_pallreduce_init(s, b, sp, sc, MPI_INT, MPI_SUM, m, in, r);
    case P_RSB: return Cart_preduce_scatter_block_init(s, b, sp, sc, MPI_INT, MPI_SUM, m, in, r);
    case P_RS: return Cart_preduce_scatter_init(s, b, k->sparts, k->scnt, MPI_INT, MPI_SUM, m, in, r);
    case P_SCAN: return Cart_pscan_init(s, b, sp, sc, MPI_INT, MPI_SUM, m, in, r);
    default: return Cart_pexscan_init(s, b, sp, sc, MPI_INT, MPI_SUM, m, in, r);
    }
}

/* The blocking collective on the whole buffers, into obuf (bcast: in place
 * on a copy of sbuf). */
static int oracle(kase *k, const ctx *c)
{
    MPI_Comm m = c->comm;
    int *s = k->sbuf, *o = k->obuf, n = c->nbh ? (k->op == P_SCATTERV ? c->outdeg : c->indeg) : c->size;
    int *cnt = malloc(sizeof(int) * (size_t)(n + 1)), *dis = malloc(sizeof(int) * (size_t)(n + 1)), rc;
    int *scnt = malloc(sizeof(int) * (size_t)(c->size + c->outdeg + 1));
    for (int i = 0; i < n; i++) cnt[i] = E, dis[i] = i * E;
    for (int i = 0; i < c->size + c->outdeg; i++) scnt[i] = E;
    int *rsc = malloc(sizeof(int) * (size_t)c->size);
    for (int i = 0; i < c->size; i++) rsc[i] = (int)(k->sparts[i] * k->scnt[i]);
    switch (k->op) {
    case P_BCAST:
        memcpy(o, s, sizeof(int) * E);
        rc = Cart_bcast(o, E, MPI_INT, k->root, m);
        break;
    case P_GATHER: rc = Cart_gather(s, E, MPI_INT, o, E, MPI_INT, k->root, m); break;
    case P_GATHERV:
        for (int i = 0; i < n; i++) dis[i] = (int)k->rdis[i]; /* (the early cases reverse them) */
        rc = Cart_gatherv(s, E, MPI_INT, o, cnt, dis, MPI_INT, k->root, m);
        break;
    case P_SCATTER: rc = Cart_scatter(s, E, MPI_INT, o, E, MPI_INT, k->root, m); break;
    case P_SCATTERV:
        for (int i = 0; i < n; i++) dis[i] = (int)k->sdis[i];
        rc = Cart_scatterv(s, cnt, dis, MPI_INT, o, E, MPI_INT, k->root, m);
        break;
    case P_ALLGATHER: rc = Cart_allgather(s, E, MPI_INT, o, E, MPI_INT, m); break;
    case P_ALLGATHERV:
    case P_ALLTOALLV:
    case P_ALLTOALLW: {
        /* blocks at the v/w displacements (the early cases reverse them):
         * the regular collective on blocks put in order, then put back */
        int nb = c->nbh ? (c->indeg > c->outdeg ? c->indeg : c->outdeg) : c->size;
        int *ts = malloc(sizeof(int) * (size_t)(nb + 1) * E), *to = malloc(sizeof(int) * (size_t)(nb + 1) * E);
        int out = c->nbh ? c->outdeg : c->size, in = c->nbh ? c->indeg : c->size;
        for (int i = 0; i < (k->op == P_ALLGATHERV ? 1 : out); i++)
            memcpy(ts + (size_t)i * E, s + (k->op == P_ALLGATHERV ? 0 : k->sdis[i]), sizeof(int) * E);
        rc = k->op == P_ALLGATHERV ? Cart_allgather(ts, E, MPI_INT, to, E, MPI_INT, m)
                                   : Cart_alltoall(ts, E, MPI_INT, to, E, MPI_INT, m);
        for (int j = 0; j < in; j++) memcpy(o + k->rdis[j], to + (size_t)j * E, sizeof(int) * E);
        free(ts);
        free(to);
        break;
    }
    case P_ALLTOALL: rc = Cart_alltoall(s, E, MPI_INT, o, E, MPI_INT, m); break;
    case P_REDUCE: rc = Cart_reduce(s, o, E, MPI_INT, MPI_SUM, k->root, m); break;
    case P_ALLREDUCE: rc = Cart_allreduce(s, o, E, MPI_INT, MPI_SUM, m); break;
    case P_RSB: rc = MPI_Reduce_scatter_block(s, o, E, MPI_INT, MPI_SUM, m); break;
    case P_RS: rc = MPI_Reduce_scatter(s, o, rsc, MPI_INT, MPI_SUM, m); break;
    case P_SCAN: rc = MPI_Scan(s, o, E, MPI_INT, MPI_SUM, m); break;
    default: rc = MPI_Exscan(s, o, E, MPI_INT, MPI_SUM, m); break;
    }
    free(cnt);
    free(dis);
    free(scnt);
    free(rsc);
    if (break_oracle && mt_rank == 0) o[0] ^= 1;
    return rc;
}

/* This process's send partitions, per destination (-1: the whole buffer
 * goes to each of nd destinations), and its receive partitions. */
static void counts(const kase *k, const ctx *c, int *nsend, int *blocks, int *nd, int *only, int *nrecv)
{
    int here = c->rank == k->root, op = k->op;
    int in = c->nbh ? c->indeg : c->size, out = c->nbh ? c->outdeg : c->size;
    *blocks = 0, *nd = out, *only = -1;
    switch (op) {
    case P_BCAST: *nsend = here ? k->sp : 0, *nrecv = here ? 0 : k->sp; break;
    case P_GATHER:
    case P_GATHERV:
        *nsend = k->sp;
        if (!c->nbh) *nd = 1, *only = k->root;
        *nrecv = 0;
        if (here)
            for (int i = 0; i < in; i++) *nrecv += op == P_GATHER ? k->rp : k->rparts[i];
        break;
    case P_SCATTER:
    case P_SCATTERV:
        *blocks = 1, *nsend = 0, *nrecv = k->rp;
        if (here)
            for (int i = 0; i < out; i++) *nsend += op == P_SCATTER ? k->sp : k->sparts[i];
        break;
    case P_ALLGATHER:
    case P_ALLGATHERV:
        *nsend = k->sp, *nrecv = 0;
        for (int i = 0; i < in; i++) *nrecv += op == P_ALLGATHER ? k->rp : k->rparts[i];
        break;
    case P_ALLTOALL:
    case P_ALLTOALLV:
    case P_ALLTOALLW:
        *blocks = 1, *nsend = *nrecv = 0;
        for (int i = 0; i < out; i++) *nsend += op == P_ALLTOALL ? k->sp : k->sparts[i];
        for (int i = 0; i < in; i++) *nrecv += op == P_ALLTOALL ? k->rp : k->rparts[i];
        break;
    case P_REDUCE:
        *nsend = k->sp, *nrecv = here ? k->sp : 0;
        if (!c->nbh) *nd = 1, *only = k->root;
        break;
    case P_RSB: *blocks = 1, *nsend = c->size * k->sp, *nrecv = k->sp; break;
    case P_RS:
        *blocks = 1, *nsend = 0, *nrecv = k->sparts[c->rank];
        for (int i = 0; i < c->size; i++) *nsend += k->sparts[i];
        break;
    default: *nsend = *nrecv = k->sp; break;
    }
}

/* Elements of receive partition q: [*lo, *hi). */
static void recv_span(const kase *k, const ctx *c, int q, size_t *lo, size_t *hi)
{
    int op = k->op, v = op == P_GATHERV || op == P_ALLGATHERV || op == P_ALLTOALLV || op == P_ALLTOALLW;
    if (op == P_RS) {
        *lo = (size_t)q * (size_t)k->scnt[c->rank], *hi = *lo + (size_t)k->scnt[c->rank];
        return;
    }
    int whole = op == P_BCAST || op == P_SCATTER || op == P_SCATTERV || op >= P_REDUCE;
    int per = whole && op != P_SCATTER && op != P_SCATTERV ? k->sp : k->rp;
    if (!v) {
        *lo = (size_t)q * (size_t)(E / per), *hi = *lo + (size_t)(E / per);
        return;
    }
    for (int i = 0;; i++) {
        if (q < k->rparts[i]) {
            *lo = (size_t)k->rdis[i] + (size_t)q * (size_t)k->rcnt[i], *hi = *lo + (size_t)k->rcnt[i];
            return;
        }
        q -= k->rparts[i];
    }
}

/* Mark every send partition ready: mode 0 Cart_pready from threads in a
 * shuffled order, 1 Cart_pready_range / _list, 2 the _to forms. */
static void mark_all(const kase *k, const ctx *c, Cart_request r, int mode, mt_rng *lg, const char *what)
{
    int nsend, blocks, nd, only, nrecv;
    counts(k, c, &nsend, &blocks, &nd, &only, &nrecv);
    int *order = malloc(sizeof(int) * (size_t)(nsend + 1));
    for (int i = 0; i < nsend; i++) order[i] = i;
    for (int i = nsend - 1; i > 0; i--) {
        int j = mt_uniform(lg, 0, i), x = order[i];
        order[i] = order[j], order[j] = x;
    }
    int bad = 0;
    if (mode == 0) {
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : bad)
        for (int i = 0; i < nsend; i++) bad += Cart_pready(order[i], r) != MPI_SUCCESS;
    } else if (mode == 1) {
        /* halves: a range and a list */
        int h = nsend / 2;
        if (h > 0) bad += Cart_pready_range(0, h - 1, r) != MPI_SUCCESS;
        int *rest = malloc(sizeof(int) * (size_t)(nsend - h + 1));
        for (int i = h; i < nsend; i++) rest[i - h] = i;
        bad += Cart_pready_list(nsend - h, rest, r) != MPI_SUCCESS;
        free(rest);
    } else if (nsend > 0) {
        /* per destination: blocks of their own partitions; a whole buffer
         * once for each destination */
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : bad)
        for (int d = 0; d < nd; d++) {
            int dest = only >= 0 ? only : d, np = nsend;
            if (blocks) {
                np = k->op == P_ALLTOALL || k->op == P_SCATTER ? k->sp : k->op == P_RSB ? k->sp : k->sparts[d];
            }
            if (np > 0) bad += Cart_pready_range_to(0, np - 1, dest, r) != MPI_SUCCESS;
        }
    }
    MT_CHECK(!bad, "%s: %d Cart_pready calls failed (mode %d)", what, bad, mode);
    free(order);
}

/* Whether the init (rc) succeeded; if not, a failure and k is freed. */
static int init_ok(int rc, kase *k, const char *what)
{
    MT_CHECK(rc == MPI_SUCCESS, "%s: init failed (%d)", what, rc);
    if (rc != MPI_SUCCESS) teardown(k);
    return rc == MPI_SUCCESS;
}

/* g: drawn alike on every process (the case); lg: this process's own
 * (orders, polled partitions), since processes draw different amounts. */
static void run_case(const ctx *c, int op, mt_rng *g, mt_rng *lg)
{
    kase k;
    setup(&k, c, op, g);
    char what[160];
    snprintf(what, sizeof what, "%s %s root %d parts %d/%d", c->name, pname[op], k.root, k.sp, k.rp);
    Cart_request r = CART_REQUEST_NULL;
    for (size_t e = 0; e < k.slen; e++) k.sbuf[e] = value(c->rank, 0, e);
    int rc = pinit(&k, c, &r);
    if (c->nbh && global_only(op)) {
        int cls = -1;
        MPI_Error_class(rc, &cls);
        MT_CHECK(cls == MPI_ERR_TOPOLOGY, "%s: on a neighbourhood: class %d, expected MPI_ERR_TOPOLOGY", what, cls);
        if (rc == MPI_SUCCESS) Cart_request_free(&r);
        teardown(&k);
        return;
    }
    if (!init_ok(rc, &k, what)) return;
    int nsend, blocks, nd, only, nrecv;
    counts(&k, c, &nsend, &blocks, &nd, &only, &nrecv);
    for (int cycle = 0; cycle < 3; cycle++) {
        /* new send values each cycle, written before the start */
        for (size_t e = 0; e < k.slen; e++) k.sbuf[e] = value(c->rank, cycle, e);
        if (op == P_BCAST && c->rank != k.root)
            for (int e = 0; e < E; e++) k.sbuf[e] = SENT; /* non-receivers keep it */
        for (size_t e = 0; e < k.rlen; e++) k.obuf[e] = SENT;
        MT_CHECK(oracle(&k, c) == MPI_SUCCESS, "%s: oracle failed", what);
        memcpy(k.want, k.obuf, sizeof(int) * k.rlen);
        for (size_t e = 0; e < k.rlen; e++) k.rbuf[e] = SENT;
        rc = Cart_start(&r);
        MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_start failed", what);
        mark_all(&k, c, r, cycle, lg, what);
        /* poll one receive partition until it arrives: then it is final */
        const int *got = op == P_BCAST ? k.sbuf : k.rbuf;
        if (nrecv > 0) {
            int q = mt_uniform(lg, 0, nrecv - 1), flag = 0;
            while (!flag && Cart_parrived(r, q, &flag) == MPI_SUCCESS) {
            }
            size_t lo, hi;
            recv_span(&k, c, q, &lo, &hi);
            for (size_t e = lo; e < hi; e++)
                if (got[e] != k.want[e]) {
                    MT_CHECK(0, "%s cycle %d: partition %d reported arrived, element %zu is %d, final %d", what,
                             cycle, q, e, got[e], k.want[e]);
                    break;
                }
        }
        rc = Cart_wait(&r);
        MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_wait failed (%d)", what, rc);
        size_t n = op == P_BCAST ? E : k.rlen;
        for (size_t e = 0; e < n; e++)
            if (got[e] != k.want[e]) {
                MT_CHECK(0, "%s cycle %d: element %zu is %d, expected %d", what, cycle, e, got[e], k.want[e]);
                break;
            }
        if (nrecv > 0) {
            int flag = 0;
            Cart_parrived(r, nrecv - 1, &flag);
            MT_CHECK(flag, "%s: Cart_parrived false on a completed request", what);
        }
    }
    MT_CHECK(Cart_request_free(&r) == MPI_SUCCESS && r == CART_REQUEST_NULL, "%s: free failed", what);
    teardown(&k);
}

/* --early: data leaves as soon as the partitions it needs are marked
 * (seed 004's early bird and pipelining), for every operation that
 * promises it.  Every process marks the first of the two partitions of
 * each send block, then polls the first receive partition of each block
 * until it arrives -- which can only happen if that partition travelled
 * before the rest was marked -- and only then marks the rest.  A
 * transport that waits for every partition fails here after a deadline
 * (then stops polling, so that the run still ends).  Receive partitions
 * are half as big: the first lies inside the senders' first partition. */
static int early_failed;

static int early_op(int op)
{
    return op == P_BCAST || op == P_GATHER || op == P_SCATTER || op == P_ALLGATHER || op == P_ALLTOALL ||
           op == P_REDUCE || op == P_ALLREDUCE || op == P_ALLGATHERV || op == P_ALLTOALLV || op == P_ALLTOALLW ||
           op == P_SCAN || op == P_EXSCAN || op == P_GATHERV || op == P_SCATTERV || op == P_RSB;
}

/* v/w early cases: every block 2 send and 4 receive partitions, blocks in
 * reversed order in both buffers; w sends pairs of ints (a derived
 * datatype) and receives ints */
static MPI_Datatype int_pair;

static void early_blocks(kase *k, const ctx *c)
{
    int nb = c->size > c->outdeg ? c->size : c->outdeg;
    if (c->indeg > nb) nb = c->indeg;
    int out = c->nbh ? c->outdeg : c->size, in = c->nbh ? c->indeg : c->size;
    for (int i = 0; i < nb; i++) {
        k->sparts[i] = 2, k->rparts[i] = 4, k->scnt[i] = E / 2, k->rcnt[i] = E / 4;
        k->sdis[i] = (MPI_Aint)(out - 1 - i) * E, k->rdis[i] = (MPI_Aint)(in - 1 - i) * E;
        if (i >= out) k->sdis[i] = 0;
        if (i >= in) k->rdis[i] = 0;
        k->sdisb[i] = k->sdis[i] * (MPI_Aint)sizeof(int), k->rdisb[i] = k->rdis[i] * (MPI_Aint)sizeof(int);
        if (k->op == P_ALLTOALLW) k->stypes[i] = int_pair, k->scnt[i] = E / 4;
    }
}

static void early_case(const ctx *c, int op, mt_rng *g)
{
    kase k;
    setup(&k, c, op, g);
    k.sp = 2, k.rp = 4;
    early_blocks(&k, c);
    char what[160];
    snprintf(what, sizeof what, "%s %s root %d (early)", c->name, pname[op], k.root);
    Cart_request r = CART_REQUEST_NULL;
    int rc = pinit(&k, c, &r);
    if (!init_ok(rc, &k, what)) return;
    int nsend, blocks, nd, only, nrecv;
    counts(&k, c, &nsend, &blocks, &nd, &only, &nrecv);
    int in = c->nbh ? c->indeg : c->size;
    /* receive partitions polled: the first of each block, or of the one buffer */
    int rblocks = op == P_ALLTOALL || op == P_ALLGATHER || op == P_ALLTOALLV || op == P_ALLTOALLW ||
                          op == P_ALLGATHERV || (op == P_GATHER && nrecv > 0)
                      ? in
                      : nrecv > 0;
    int rper = op == P_BCAST || op == P_REDUCE || op == P_ALLREDUCE || op == P_SCAN || op == P_EXSCAN ? k.sp : k.rp;
    for (int cycle = 0; cycle < 2; cycle++) {
        for (size_t e = 0; e < k.slen; e++) k.sbuf[e] = value(c->rank, cycle, e);
        if (op == P_BCAST && c->rank != k.root)
            for (int e = 0; e < E; e++) k.sbuf[e] = SENT;
        for (size_t e = 0; e < k.rlen; e++) k.obuf[e] = SENT;
        MT_CHECK(oracle(&k, c) == MPI_SUCCESS, "%s: oracle failed", what);
        memcpy(k.want, k.obuf, sizeof(int) * k.rlen);
        for (size_t e = 0; e < k.rlen; e++) k.rbuf[e] = SENT;
        MT_CHECK(Cart_start(&r) == MPI_SUCCESS, "%s: Cart_start failed", what);
        int sblocks = blocks ? nsend / k.sp : nsend > 0, bad = 0;
        for (int i = 0; i < sblocks; i++) bad += Cart_pready(i * k.sp, r) != MPI_SUCCESS;
        const int *got = op == P_BCAST ? k.sbuf : k.rbuf;
        for (int j = 0; j < rblocks && !early_failed; j++) {
            int q = j * rper, flag = 0;
            double end = MPI_Wtime() + 5;
            while (!flag && Cart_parrived(r, q, &flag) == MPI_SUCCESS && MPI_Wtime() < end) {
            }
            if (!flag) {
                MT_CHECK(0, "%s cycle %d: receive partition %d did not arrive while only the first partition of "
                            "each send block was marked (no early bird)",
                         what, cycle, q);
                early_failed = 1;
                break;
            }
            size_t lo, hi;
            recv_span(&k, c, q, &lo, &hi);
            for (size_t e = lo; e < hi; e++)
                if (got[e] != k.want[e]) {
                    MT_CHECK(0, "%s cycle %d: partition %d arrived early, element %zu is %d, final %d", what, cycle,
                             q, e, got[e], k.want[e]);
                    break;
                }
        }
        for (int i = 0; i < sblocks; i++) bad += Cart_pready(i * k.sp + 1, r) != MPI_SUCCESS;
        MT_CHECK(!bad, "%s: %d Cart_pready calls failed", what, bad);
        MT_CHECK(Cart_wait(&r) == MPI_SUCCESS, "%s: Cart_wait failed", what);
        size_t n = op == P_BCAST ? E : k.rlen;
        for (size_t e = 0; e < n; e++)
            if (got[e] != k.want[e]) {
                MT_CHECK(0, "%s cycle %d: element %zu is %d, expected %d", what, cycle, e, got[e], k.want[e]);
                break;
            }
    }
    MT_CHECK(Cart_request_free(&r) == MPI_SUCCESS, "%s: free failed", what);
    teardown(&k);
}

/* Two pipelined gathers on one plain communicator, marked and waited for
 * in opposite orders on even and odd ranks: their slices are MPI's
 * collectives, which must not meet on one communicator in different
 * orders (MPICH runs its gatherv as MPI_Igatherv at each start).  Roots 0
 * and size-1, different data: a mix-up shows in the values. */
static void cross_order(const ctx *c)
{
    enum { P = 4, C = 8 };
    int root[2] = { 0, c->size - 1 }, first = c->rank % 2;
    int *sb = malloc(sizeof(int) * 2 * P * C), *rb = malloc(sizeof(int) * 2 * (size_t)c->size * P * C);
    Cart_request r[2];
    MPI_Info in;
    MPI_Info_create(&in);
    MPI_Info_set(in, "cartcoll_part_aggregate", "0");
    for (int q = 0; q < 2; q++)
        MT_CHECK(Cart_pgather_init(sb + q * P * C, P, C, MPI_INT, rb + (size_t)q * c->size * P * C, P, C, MPI_INT,
                                   root[q], c->comm, in, &r[q]) == MPI_SUCCESS,
                 "cross order: init %d failed", q);
    MPI_Info_free(&in);
    for (int cycle = 0; cycle < 3; cycle++) {
        for (int e = 0; e < 2 * P * C; e++) sb[e] = value(c->rank, cycle, (size_t)e);
        for (size_t e = 0; e < 2 * (size_t)c->size * P * C; e++) rb[e] = SENT;
        for (int q = 0; q < 2; q++) MT_CHECK(Cart_start(&r[q]) == MPI_SUCCESS, "cross order: start");
        for (int i = 0; i < 2; i++)
            MT_CHECK(Cart_pready_range(0, P - 1, r[(first + i) % 2]) == MPI_SUCCESS, "cross order: pready");
        for (int i = 0; i < 2; i++) MT_CHECK(Cart_wait(&r[(first + i) % 2]) == MPI_SUCCESS, "cross order: wait");
        for (int q = 0; q < 2; q++)
            for (int j = 0; c->rank == root[q] && j < c->size; j++)
                for (int e = 0; e < P * C; e++) {
                    int got = rb[((size_t)q * c->size + (size_t)j) * P * C + (size_t)e];
                    int want = value(j, cycle, (size_t)(q * P * C + e));
                    if (got != want) {
                        MT_CHECK(0, "cross order cycle %d: gather %d (root %d) from %d element %d is %d, expected %d",
                                 cycle, q, root[q], j, e, got, want);
                        j = c->size;
                        break;
                    }
                }
    }
    for (int q = 0; q < 2; q++) Cart_request_free(&r[q]);
    free(sb);
    free(rb);
}

static int cls_of(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    return cls;
}

/* The bad uses, each with its error class and without a hang. */
static void bad_uses(const ctx *c)
{
    int sb[E * 64] = { 0 }, rb[E * 64];
    Cart_request r = CART_REQUEST_NULL;
    const char *w = c->name;
    int rc = Cart_pallgather_init(sb, 3, 4, MPI_INT, rb, 4, 3, MPI_INT, c->comm, MPI_INFO_NULL, &r);
    MT_CHECK(rc == MPI_SUCCESS, "%s: pallgather init failed", w);
    MT_EQ(cls_of(Cart_pready(0, r)), MPI_ERR_REQUEST, "Cart_pready on an inactive request");
    int flag = 0;
    MT_EQ(cls_of(Cart_parrived(r, 0, &flag)), MPI_ERR_REQUEST, "Cart_parrived before any start");
    Cart_start(&r);
    MT_EQ(cls_of(Cart_pready(3, r)), MPI_ERR_ARG, "partition 3 of 3");
    MT_EQ(cls_of(Cart_pready(-1, r)), MPI_ERR_ARG, "partition -1");
    MT_EQ(cls_of(Cart_pready_range(2, 1, r)), MPI_ERR_ARG, "range 2..1");
    MT_EQ(cls_of(Cart_pready_list(-1, NULL, r)), MPI_ERR_COUNT, "list length -1");
    int outdeg = c->nbh ? c->outdeg : c->size;
    MT_EQ(cls_of(Cart_pready_to(0, outdeg, r)), MPI_ERR_RANK, "dest = number of destinations");
    MT_EQ(cls_of(Cart_pready_to(0, -1, r)), MPI_ERR_RANK, "dest = -1");
    MT_EQ(cls_of(Cart_parrived(r, 4 * (c->nbh ? c->indeg : c->size), &flag)), MPI_ERR_ARG, "parrived past the end");
    MT_EQ(cls_of(Cart_parrived_from(r, 0, c->nbh ? c->indeg : c->size, &flag)), MPI_ERR_RANK, "source past the end");
    MT_EQ(cls_of(Cart_parrived(r, 0, NULL)), MPI_ERR_ARG, "flag NULL");
    MT_EQ(cls_of(Cart_request_free(&r)), MPI_ERR_REQUEST, "freeing an active partitioned request");
    MT_EQ(cls_of(Cart_pready_range(0, 2, r)), MPI_SUCCESS, "the three partitions");
    MT_EQ(cls_of(Cart_pready(1, r)), MPI_ERR_ARG, "partition 1 twice");
    MT_EQ(cls_of(Cart_wait(&r)), MPI_SUCCESS, "the wait after the bad calls");
    MT_EQ(cls_of(Cart_request_free(&r)), MPI_SUCCESS, "free");
    /* arguments */
    MT_EQ(cls_of(Cart_pallgather_init(sb, -1, 4, MPI_INT, rb, 4, 3, MPI_INT, c->comm, MPI_INFO_NULL, &r)),
          MPI_ERR_ARG, "negative partitions");
    MT_EQ(cls_of(Cart_pallgather_init(sb, 3, -4, MPI_INT, rb, 4, 3, MPI_INT, c->comm, MPI_INFO_NULL, &r)),
          MPI_ERR_COUNT, "negative count");
    MT_EQ(cls_of(Cart_pallgather_init(sb, 2, (MPI_Count)1 << 31, MPI_INT, rb, 4, 3, MPI_INT, c->comm, MPI_INFO_NULL,
                                      &r)),
          MPI_ERR_COUNT, "a block above INT_MAX elements");
    MT_CHECK(r == CART_REQUEST_NULL, "%s: a failed init wrote the request", w);
    /* the early bird's aggregation size (info); a partition marked twice
     * for one destination, or for all after one (the early bird keeps a
     * mark per partition and destination; the general transport counts a
     * partition's marks only, O(1) per partition whatever the number of
     * destinations of the global meaning) */
    if (strcmp(c->name, "moore") == 0) {
        MPI_Info bad;
        MPI_Info_create(&bad);
        MPI_Info_set(bad, "cartcoll_part_aggregate", "-5");
        MT_EQ(cls_of(Cart_palltoall_init(sb, 3, 4, MPI_INT, rb, 4, 3, MPI_INT, c->comm, bad, &r)), MPI_ERR_ARG,
              "cartcoll_part_aggregate = -5");
        MT_EQ(cls_of(Cart_pallreduce_init(sb, rb, 3, 4, MPI_INT, MPI_SUM, c->comm, bad, &r)), MPI_ERR_ARG,
              "cartcoll_part_aggregate = -5 (the pipelined allreduce's slices)");
        MT_CHECK(r == CART_REQUEST_NULL, "%s: a failed pallreduce init wrote the request", w);
        MPI_Info_set(bad, "cartcoll_part_aggregate", "0");
        rc = Cart_pallgather_init(sb, 3, 4, MPI_INT, rb, 4, 3, MPI_INT, c->comm, bad, &r);
        MT_CHECK(rc == MPI_SUCCESS, "%s: pallgather init with cartcoll_part_aggregate = 0 failed", w);
        MPI_Info_free(&bad);
        if (rc == MPI_SUCCESS) {
            Cart_start(&r);
            if (outdeg > 0) {
                MT_EQ(cls_of(Cart_pready_to(0, 0, r)), MPI_SUCCESS, "partition 0 for destination 0");
                MT_EQ(cls_of(Cart_pready_to(0, 0, r)), MPI_ERR_ARG, "partition 0 for destination 0 twice");
                MT_EQ(cls_of(Cart_pready(0, r)), MPI_ERR_ARG, "partition 0 for all after destination 0");
                for (int d = 1; d < outdeg; d++) Cart_pready_to(0, d, r);
            } else {
                Cart_pready(0, r);
            }
            MT_EQ(cls_of(Cart_pready_range(1, 2, r)), MPI_SUCCESS, "partitions 1 and 2");
            MT_EQ(cls_of(Cart_pready_to(1, 0, r)), outdeg > 0 ? MPI_ERR_ARG : MPI_ERR_RANK,
                  "partition 1 for destination 0 after all");
            MT_EQ(cls_of(Cart_wait(&r)), MPI_SUCCESS, "the wait after marking twice");
            Cart_request_free(&r);
        }
    }
    /* a non-partitioned request */
    Cart_request q;
    Cart_allgather_init(sb, 1, MPI_INT, rb, 1, MPI_INT, c->comm, MPI_INFO_NULL, &q);
    Cart_start(&q);
    MT_EQ(cls_of(Cart_pready(0, q)), MPI_ERR_REQUEST, "Cart_pready on a non-partitioned request");
    Cart_wait(&q);
    Cart_request_free(&q);
    /* bcast: only the root marks partitions */
    Cart_pbcast_init(sb, 2, 6, MPI_INT, 0, c->comm, MPI_INFO_NULL, &r);
    Cart_start(&r);
    if (c->rank != 0) MT_EQ(cls_of(Cart_pready(0, r)), MPI_ERR_REQUEST, "Cart_pready away from the bcast root");
    else Cart_pready_range(0, 1, r);
    Cart_wait(&r);
    Cart_request_free(&r);
}

int main(int argc, char **argv)
{
    int provided, multiple = 0;
    for (int a = 1; a < argc; a++) multiple |= !strcmp(argv[a], "--multiple");
    /* --multiple: marks and polls may call MPI from any thread (the early
     * bird sends from the marking thread; its progress thread runs) */
    MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
    mt_name = "test_partitioned";
    setvbuf(stdout, NULL, _IOLBF, 0);
    int early = 0;
    for (int a = 1; a < argc; a++) break_oracle |= !strcmp(argv[a], "--break-oracle");
    for (int a = 1; a < argc; a++) early |= !strcmp(argv[a], "--early");

    ctx cs[4];
    MPI_Comm_dup(MPI_COMM_WORLD, &cs[0].comm);
    cs[0].nbh = 0, cs[0].name = "plain";
    int dims[2] = { 0, 0 }, periods[2] = { 1, 1 }, st[16];
    MPI_Dims_create(mt_size, 2, dims);
    int t = 0;
    Cart_stencil(2, CART_CHEBYSHEV, 1, 1, 8, st);
    Cart_stencil_count(2, CART_CHEBYSHEV, 1, 1, &t);
    Cart_neighborhood_create(MPI_COMM_WORLD, 2, dims, periods, t, st, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &cs[1].comm);
    cs[1].nbh = 1, cs[1].name = "moore";
    /* MPI's own 2d neighbours (-e_0, +e_0, -e_1, +e_1; MPI's block order) */
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cs[2].comm);
    cs[2].nbh = 1, cs[2].name = "mpicart";
    /* the Moore neighbourhood as a distributed graph (repeated edges on
     * small grids: MPI's rule for them, the k-th edge meets the k-th) */
    int src[8], dst[8];
    Cart_neighbor_get(cs[1].comm, 8, src, MPI_UNWEIGHTED, 8, dst, MPI_UNWEIGHTED);
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, t, src, MPI_UNWEIGHTED, t, dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                   &cs[3].comm);
    cs[3].nbh = 1, cs[3].name = "graph";
    for (int i = 0; i < 4; i++) {
        MPI_Comm_set_errhandler(cs[i].comm, MPI_ERRORS_RETURN);
        MPI_Comm_rank(cs[i].comm, &cs[i].rank);
        MPI_Comm_size(cs[i].comm, &cs[i].size);
        cs[i].indeg = cs[i].outdeg = i == 0 ? cs[i].size : i == 2 ? 4 : t;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    mt_rng g, lg;
    mt_seed(&g, 2024, 0);
    mt_seed(&lg, 2024, (uint64_t)mt_rank + 1);
    MPI_Type_contiguous(2, MPI_INT, &int_pair);
    MPI_Type_commit(&int_pair);
    if (early) {
        /* every communicator kind (gatherv, scatterv: global meaning only) */
        for (int i = 0; i < 4; i++)
            for (int op = 0; op < NP_OPS; op++)
                if (early_op(op) && !(cs[i].nbh && (global_only(op) || op == P_GATHERV || op == P_SCATTERV)))
                    early_case(&cs[i], op, &g);
        for (int i = 0; i < 4; i++) MPI_Comm_free(&cs[i].comm);
        MPI_Type_free(&int_pair);
        return mt_finish();
    }
    cross_order(&cs[0]);
    for (int i = 0; i < 4; i++) {
        for (int rep = 0; rep < 2; rep++)
            for (int op = 0; op < NP_OPS; op++) run_case(&cs[i], op, &g, &lg);
        bad_uses(&cs[i]);
    }
    for (int i = 0; i < 4; i++) MPI_Comm_free(&cs[i].comm);
    MPI_Type_free(&int_pair);
    return mt_finish();
}

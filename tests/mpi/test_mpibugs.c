/* Differential test of the MPI underneath the global and inter-communicator
 * meaning (include/cartcoll.h, "One interface set"): on a communicator
 * without topology every Cart_ collective is MPI's own collective, so a
 * wrong MPI collective would give wrong data silently.  This program runs
 * every collective that src/coll/global.c and global_core.c delegate --
 * barrier, bcast, gather(v), scatter(v), reduce, allreduce,
 * reduce_scatter(_block), scan, exscan, and the [core] allgather(v,w),
 * alltoall(v,w) -- in all three forms (blocking; Cart_iX + Cart_wait;
 * Cart_X_init + Cart_start + Cart_wait twice with new data) on
 *   - a plain duplicate of MPI_COMM_WORLD (every root, with and without
 *     MPI_IN_PLACE wherever MPI allows it), and
 *   - inter-communicators of world ranks {0..s-1} and {s..p-1} for every
 *     split s (groups of unequal size too), the root every rank of either
 *     group,
 * and checks every receive buffer int by int against values computed
 * locally from first principles (who sent which element), never by MPI:
 * bytes MPI must not touch keep a sentinel, send buffers stay unchanged.
 * Bcast and reduce also run with a derived datatype with gaps and a true
 * lower bound of 4 bytes (reduce: with a user-defined sum).
 * The barrier is checked causally: a process of the group that must wait
 * for a late process (the last rank of a group, late by 60 ms) may not
 * leave before it entered, on the node's CLOCK_MONOTONIC (all processes on
 * one node).
 *
 * A combination the library refuses with MPI_ERR_UNSUPPORTED_OPERATION
 * (header: an MPI bug without a correct route) counts as refused, not as
 * wrong, and is listed.  At the end rank 0 prints one line per wrong
 * (communicator, collective, form) with the roots that failed, so a run on
 * an MPI without the library's work-arounds lists that MPI's bugs.
 *
 * --scale K multiplies every count and displacement by K (MPI's algorithms
 * change with the message size; K <= 1024).  --mpi calls MPI's own
 * collectives (MPI_X, MPI_IX, MPI-4 MPI_X_init or Open MPI's MPIX_X_init)
 * with the same arguments and oracle instead of the Cart_ ones: the list of
 * what the MPI gets wrong, which the library must route around or refuse
 * (allgatherw, not in MPI, is refused there).  MPI calls already known
 * wrong are left out there unless --all (known_bad, known_crash).
 *
 * test_mpibugs [--only COLL] [--quiet] [--scale K] [--mpi [--all]] */
#define _POSIX_C_SOURCE 200809L
#include "mpitest.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef OPEN_MPI
#include <mpi-ext.h> /* MPIX_X_init (OMPI_HAVE_MPI_EXT_PCOLLREQ) */
#endif
/* MPI's persistent collectives, where the MPI has them (--mpi). */
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define PINIT(Upper) MPIX_##Upper##_init
#elif MPI_VERSION >= 4
#define PINIT(Upper) MPI_##Upper##_init
#endif

enum {
    C_BARRIER, C_BCAST, C_GATHER, C_GATHERV, C_SCATTER, C_SCATTERV, C_REDUCE, C_ALLREDUCE, C_RSB, C_RS, C_SCAN,
    C_EXSCAN, C_ALLGATHER, C_ALLGATHERV, C_ALLGATHERW, C_ALLTOALL, C_ALLTOALLV, C_ALLTOALLW, NCOLL
};
static const char *const coll_name[NCOLL] = {
    "barrier", "bcast", "gather", "gatherv", "scatter", "scatterv", "reduce", "allreduce",
    "reduce_scatter_block", "reduce_scatter", "scan", "exscan", "allgather", "allgatherv",
    "allgatherw", "alltoall", "alltoallv", "alltoallw"
};
static const char *const form_name[3] = { "blocking", "non-blocking", "persistent" };

#define CAPB 128         /* ints in every buffer, times the scale */
#define MAXK 1024        /* largest --scale */
#define MAXP 16          /* processes per group */
#define SENT (-7)        /* bytes MPI must not touch */
#define DONTCARE INT_MIN /* undefined by MPI (exscan at rank 0, in-place reduce_scatter's tail) */
#define STRIDE 5         /* v layouts: block j at j * STRIDE + 1 */

/* The communicator of a run: intra (g = 0, ls = rs = p) or inter. */
typedef struct {
    MPI_Comm comm;
    int inter, g, lr, ls, rs;
    int wrank_of[2][MAXP]; /* world rank of (group, local rank) */
    char name[48];
} ctx_t;

/* What process (g, r) contributes: element i of its block k, run `salt`. */
static int V(int g, int r, int k, int i, int salt) { return ((((salt % 16) * 2 + g) * 16 + r) * 16 + k) * 16384 + i; }
/* v counts (independent of the salt: persistent requests keep them). */
static int cnt1(int g, int r) { return (r + g + 1) % 4; }                  /* gatherv, allgather(v,w): by sender */
static int cnts(int g, int r) { return (r + g + 2) % 4; }                  /* scatterv: by receiver */
static int cnt2(int sg, int sr, int dg, int dr) { return (sr + dr + sg + dg) % 4; } /* alltoall(v,w): symmetric */
/* reduce_scatter: recvcounts of a group of n, summing to RS_T. */
#define RS_T 6
static int rs_count(int n, int i)
{
    static const int t1[1] = { 6 }, t2[2] = { 4, 2 }, t3[3] = { 1, 2, 3 }, t4[4] = { 0, 3, 1, 2 };
    if (n == 1) return t1[i];
    if (n == 2) return t2[i];
    if (n == 3) return t3[i];
    if (n == 4) return t4[i];
    return i == 0 ? RS_T - (n - 1) * 0 : 0; /* larger groups: all to rank 0 */
}

typedef struct {
    int coll, form, inplace, rootg, rootr;
    int root;     /* the root argument of this process */
    int scount, rcount;
    int scounts[MAXP], sdispls[MAXP], rcounts[MAXP], rdispls[MAXP];
    MPI_Aint sdw[MAXP], rdw[MAXP];
    MPI_Datatype stypes[MAXP], rtypes[MAXP];
} call_t;

static int quiet = 0, next_salt = 1;
/* --scale K: every count and displacement times K (MPI's algorithms change
 * with the message size); --mpi: call MPI's collectives directly instead
 * of the Cart_ ones (what the library must route around). */
static int K = 1, cap = CAPB, raw = 0;
/* bcast and reduce also run with a derived datatype: one int at
 * byte 4 of an 8-byte extent (true lb 4, a gap after each element), so
 * element i is int 2i + 1 of the buffer. */
static int strided = 0;
static MPI_Datatype gapped = MPI_DATATYPE_NULL;
static int at_(int i) { return strided ? 2 * i + 1 : i; }
/* Neither MPI takes MPI_SUM on such a type: a user-defined sum (commutative). */
static MPI_Op addop = MPI_OP_NULL;
static void add_ints(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type; /* gapped: one int at byte 4 of each 8 */
    for (int i = 0; i < *len; i++) ((int *)inout)[2 * i + 1] += ((const int *)in)[2 * i + 1];
}
static int sbuf[CAPB * MAXK], rbuf[CAPB * MAXK], ebuf[CAPB * MAXK], sbuf0[CAPB * MAXK];
static long wrong[NCOLL][3], refused[NCOLL][3];
static unsigned wrong_roots[NCOLL][3];

/* Is this process the root / in the root's group (rooted collectives)? */
static int rooted(int coll)
{
    return coll == C_BCAST || coll == C_GATHER || coll == C_GATHERV || coll == C_SCATTER || coll == C_SCATTERV ||
           coll == C_REDUCE;
}

/* The identity of "remote" process j: intra (0, j), inter (1 - g, j). */
static int pg_of(const ctx_t *x) { return x->inter ? 1 - x->g : 0; }

/* Arguments that do not depend on the run (counts, displacements, root). */
static void setup(const ctx_t *x, call_t *c)
{
    int pg = pg_of(x), n = x->rs;
    if (rooted(c->coll)) {
        if (!x->inter) c->root = c->rootr;
        else if (x->g == c->rootg) c->root = x->lr == c->rootr ? MPI_ROOT : MPI_PROC_NULL;
        else c->root = c->rootr;
    } else c->root = -1;
    for (int j = 0; j < MAXP; j++) {
        c->stypes[j] = c->rtypes[j] = MPI_INT;
        c->scounts[j] = c->rcounts[j] = c->sdispls[j] = c->rdispls[j] = 0;
        c->sdw[j] = c->rdw[j] = 0;
    }
    c->scount = c->rcount = 0;
    switch (c->coll) {
    case C_BCAST: case C_GATHER: case C_SCATTER: case C_REDUCE: case C_ALLREDUCE: case C_SCAN: case C_EXSCAN:
        c->scount = c->rcount = 3 * K;
        break;
    case C_GATHERV:
        c->scount = cnt1(x->g, x->lr) * K;
        for (int j = 0; j < n; j++) c->rcounts[j] = cnt1(pg, j) * K, c->rdispls[j] = (j * STRIDE + 1) * K;
        break;
    case C_SCATTERV:
        c->rcount = cnts(x->g, x->lr) * K;
        for (int j = 0; j < n; j++) c->scounts[j] = cnts(pg, j) * K, c->sdispls[j] = ((n - 1 - j) * STRIDE + 2) * K;
        break;
    case C_RSB:
        c->rcount = (x->inter ? x->rs : 3) * K; /* inter: ls * recvcount = the other group's vector length ls * rs */
        break;
    case C_RS:
        for (int j = 0; j < x->ls; j++) c->rcounts[j] = rs_count(x->ls, j) * K;
        break;
    case C_ALLGATHER: case C_ALLTOALL:
        c->scount = c->rcount = 2 * K;
        break;
    case C_ALLGATHERV: case C_ALLGATHERW:
        c->scount = cnt1(x->g, x->lr) * K;
        for (int j = 0; j < n; j++) {
            c->rcounts[j] = cnt1(pg, j) * K;
            c->rdispls[j] = (j * STRIDE + 1) * K;
            c->rdw[j] = (MPI_Aint)sizeof(int) * c->rdispls[j];
        }
        break;
    case C_ALLTOALLV: case C_ALLTOALLW:
        for (int j = 0; j < n; j++) {
            c->scounts[j] = cnt2(x->g, x->lr, pg, j) * K;
            c->rcounts[j] = cnt2(pg, j, x->g, x->lr) * K;
            c->sdispls[j] = ((n - 1 - j) * STRIDE + 2) * K;
            c->rdispls[j] = (j * STRIDE + 1) * K;
            c->sdw[j] = (MPI_Aint)sizeof(int) * c->sdispls[j];
            c->rdw[j] = (MPI_Aint)sizeof(int) * c->rdispls[j];
        }
        break;
    default:
        break;
    }
}

/* Gather and allgather: receive block j holds what process j of group pg
 * sent (v: at its displacement); in place, this process's own block is
 * already there. */
static void expect_gathered(const call_t *c, int v, int n, int pg, int me, int ip, int s)
{
    for (int j = 0; j < n; j++) {
        int at = v ? c->rdispls[j] : j * c->rcount, m = v ? c->rcounts[j] : c->rcount;
        for (int i = 0; i < m; i++) {
            ebuf[at + i] = V(pg, j, 0, i, s);
            if (ip && j == me) rbuf[at + i] = ebuf[at + i];
        }
    }
}

/* Buffers and the expected receive buffer of run `salt`. */
static void fill(const ctx_t *x, call_t *c, int s)
{
    int g = x->g, me = x->lr, pg = pg_of(x), n = x->rs, ip = c->inplace;
    int isroot = x->inter ? c->root == MPI_ROOT : me == c->root;
    int *sb = sbuf, *rb = rbuf, *e = ebuf;
    for (int i = 0; i < cap; i++) sb[i] = rb[i] = e[i] = SENT;
    switch (c->coll) {
    case C_BCAST: {
        int src = x->inter ? c->rootg : 0;
        int get = !x->inter || g != c->rootg || isroot;
        for (int i = 0; i < c->rcount; i++) {
            if (isroot) rb[at_(i)] = V(src, c->rootr, 0, i, s);
            if (get) e[at_(i)] = V(src, c->rootr, 0, i, s);
        }
        break;
    }
    case C_GATHER: case C_GATHERV: {
        int v = c->coll == C_GATHERV;
        int sends = x->inter ? g != c->rootg : 1;
        for (int i = 0; i < c->scount && sends; i++) sb[i] = V(g, me, 0, i, s);
        if (isroot) expect_gathered(c, v, n, pg, me, ip, s);
        break;
    }
    case C_SCATTER: case C_SCATTERV: {
        int v = c->coll == C_SCATTERV;
        int src = x->inter ? c->rootg : 0;
        if (isroot)
            for (int j = 0; j < n; j++) {
                int at = v ? c->sdispls[j] : j * c->scount, m = v ? c->scounts[j] : c->scount;
                for (int i = 0; i < m; i++) sb[at + i] = V(src, c->rootr, j, i, s);
            }
        int gets = x->inter ? g != c->rootg : !(ip && isroot);
        for (int i = 0; i < c->rcount && gets; i++) e[i] = V(src, c->rootr, me, i, s);
        break;
    }
    case C_REDUCE: case C_ALLREDUCE: case C_SCAN: case C_EXSCAN: {
        int sends = x->inter && c->coll == C_REDUCE ? g != c->rootg : 1;
        int gets = c->coll == C_REDUCE ? isroot : 1;
        for (int i = 0; i < c->rcount; i++) {
            if (sends) sb[at_(i)] = V(g, me, 0, i, s);
            if (ip && gets) rb[at_(i)] = V(g, me, 0, i, s);
            if (!gets) continue;
            long sum = 0;
            int hi = c->coll == C_SCAN ? me + 1 : c->coll == C_EXSCAN ? me : n;
            for (int j = 0; j < hi; j++) sum += V(pg, j, 0, i, s);
            e[at_(i)] = c->coll == C_EXSCAN && me == 0 ? DONTCARE : (int)sum;
        }
        break;
    }
    case C_RSB: case C_RS: {
        /* the vector this process contributes (length T), and its slice of
         * the other group's (intra: everybody's) reduced vector */
        int T = (c->coll == C_RS ? RS_T : x->inter ? x->ls * x->rs : n * 3) * K;
        int off = 0, m = c->coll == C_RS ? c->rcounts[me] : c->rcount;
        if (c->coll == C_RS)
            for (int j = 0; j < me; j++) off += c->rcounts[j];
        else off = me * c->rcount;
        for (int i = 0; i < T; i++) (ip ? rb : sb)[i] = V(g, me, 0, i, s);
        for (int i = 0; i < m; i++) {
            long sum = 0;
            for (int j = 0; j < n; j++) sum += V(pg, j, 0, off + i, s);
            e[i] = (int)sum;
        }
        for (int i = m; ip && i < T; i++) e[i] = DONTCARE;
        break;
    }
    case C_ALLGATHER: case C_ALLGATHERV: case C_ALLGATHERW: {
        int v = c->coll != C_ALLGATHER;
        for (int i = 0; i < c->scount; i++) sb[i] = V(g, me, 0, i, s);
        expect_gathered(c, v, n, pg, me, ip, s);
        break;
    }
    case C_ALLTOALL: case C_ALLTOALLV: case C_ALLTOALLW: {
        int v = c->coll != C_ALLTOALL;
        for (int j = 0; j < n; j++) {
            int at = v ? c->sdispls[j] : j * c->scount, m = v ? c->scounts[j] : c->scount;
            int rat = v ? c->rdispls[j] : j * c->rcount;
            for (int i = 0; i < m; i++) (ip ? rb + rat : sb + at)[i] = V(g, me, j, i, s);
            int rm = v ? c->rcounts[j] : c->rcount;
            for (int i = 0; i < rm; i++) e[rat + i] = V(pg, j, me, i, s);
        }
        break;
    }
    default:
        break;
    }
    memcpy(sbuf0, sbuf, sizeof(int) * (size_t)cap);
}

/* --mpi: MPI's own collective in the form (persistent: the init only);
 * MPI_ERR_UNSUPPORTED_OPERATION where MPI has no such call. */
static int issue_mpi(const ctx_t *x, call_t *c, const void *sb, void *rb, MPI_Request *mq)
{
    int f = c->form, sc = c->scount, rc = c->rcount;
    MPI_Datatype et = strided ? gapped : MPI_INT; /* bcast, reduce */
    MPI_Op op = strided ? addop : MPI_SUM;
    MPI_Comm m = x->comm;
#ifdef PINIT
#define M3(lower, Upper, ...)                                                                                     \
    (f == 0 ? MPI_##Upper(__VA_ARGS__) : f == 1 ? MPI_I##lower(__VA_ARGS__, mq)                                  \
                                              : PINIT(Upper)(__VA_ARGS__, MPI_INFO_NULL, mq))
#else
#define M3(lower, Upper, ...)                                                                                     \
    (f == 0 ? MPI_##Upper(__VA_ARGS__) : f == 1 ? MPI_I##lower(__VA_ARGS__, mq) : MPI_ERR_UNSUPPORTED_OPERATION)
#endif
    switch (c->coll) {
    case C_BARRIER: return M3(barrier, Barrier, m);
    case C_BCAST: return M3(bcast, Bcast, rbuf, rc, et, c->root, m);
    case C_GATHER: return M3(gather, Gather, sb, sc, MPI_INT, rb, rc, MPI_INT, c->root, m);
    case C_GATHERV: return M3(gatherv, Gatherv, sb, sc, MPI_INT, rb, c->rcounts, c->rdispls, MPI_INT, c->root, m);
    case C_SCATTER: return M3(scatter, Scatter, sb, sc, MPI_INT, rb, rc, MPI_INT, c->root, m);
    case C_SCATTERV:
        return M3(scatterv, Scatterv, sb, c->scounts, c->sdispls, MPI_INT, rb, rc, MPI_INT, c->root, m);
    case C_REDUCE: return M3(reduce, Reduce, sb, rb, rc, et, op, c->root, m);
    case C_ALLREDUCE: return M3(allreduce, Allreduce, sb, rb, rc, MPI_INT, MPI_SUM, m);
    case C_RSB: return M3(reduce_scatter_block, Reduce_scatter_block, sb, rb, rc, MPI_INT, MPI_SUM, m);
    case C_RS: return M3(reduce_scatter, Reduce_scatter, sb, rb, c->rcounts, MPI_INT, MPI_SUM, m);
    case C_SCAN: return M3(scan, Scan, sb, rb, rc, MPI_INT, MPI_SUM, m);
    case C_EXSCAN: return M3(exscan, Exscan, sb, rb, rc, MPI_INT, MPI_SUM, m);
    case C_ALLGATHER: return M3(allgather, Allgather, sb, sc, MPI_INT, rb, rc, MPI_INT, m);
    case C_ALLGATHERV: return M3(allgatherv, Allgatherv, sb, sc, MPI_INT, rb, c->rcounts, c->rdispls, MPI_INT, m);
    case C_ALLTOALL: return M3(alltoall, Alltoall, sb, sc, MPI_INT, rb, rc, MPI_INT, m);
    case C_ALLTOALLV:
        return M3(alltoallv, Alltoallv, sb, c->scounts, c->sdispls, MPI_INT, rb, c->rcounts, c->rdispls, MPI_INT, m);
    case C_ALLTOALLW: { /* MPI_Alltoallw: int byte displacements */
        static int sd[MAXP], rd[MAXP];
        for (int j = 0; j < MAXP; j++) sd[j] = (int)c->sdw[j], rd[j] = (int)c->rdw[j];
        return M3(alltoallw, Alltoallw, sb, c->scounts, sd, c->stypes, rb, c->rcounts, rd, c->rtypes, m);
    }
    }
#undef M3
    return MPI_ERR_UNSUPPORTED_OPERATION; /* allgatherw: not in MPI */
}

/* Issue the call in its form (persistent: the _init only). */
static int issue(const ctx_t *x, call_t *c, Cart_request *rq, MPI_Request *mq)
{
    int f = c->form;
    MPI_Comm m = x->comm;
    MPI_Info in = MPI_INFO_NULL;
    const void *sb = c->inplace && !(c->coll == C_SCATTER || c->coll == C_SCATTERV) ? MPI_IN_PLACE : sbuf;
    void *rb = c->inplace && (c->coll == C_SCATTER || c->coll == C_SCATTERV) ? MPI_IN_PLACE : rbuf;
    int isroot = x->inter ? c->root == MPI_ROOT : x->lr == c->root;
    if (c->inplace && rooted(c->coll) && !isroot) sb = sbuf, rb = rbuf; /* only the root passes MPI_IN_PLACE */
    int sc = c->scount, rc = c->rcount;
    MPI_Datatype et = strided ? gapped : MPI_INT; /* bcast, reduce */
    MPI_Op op = strided ? addop : MPI_SUM;
    if (raw) return issue_mpi(x, c, sb, rb, mq);
#define F3(NAME, ...)                                                                                              \
    (f == 0 ? Cart_##NAME(__VA_ARGS__) : f == 1 ? Cart_i##NAME(__VA_ARGS__, rq)                                    \
                                                : Cart_##NAME##_init(__VA_ARGS__, in, rq))
    switch (c->coll) {
    case C_BARRIER: return f == 0 ? Cart_barrier(m) : f == 1 ? Cart_ibarrier(m, rq) : Cart_barrier_init(m, in, rq);
    case C_BCAST: return F3(bcast, rbuf, rc, et, c->root, m);
    case C_GATHER: return F3(gather, sb, sc, MPI_INT, rb, rc, MPI_INT, c->root, m);
    case C_GATHERV: return F3(gatherv, sb, c->scount, MPI_INT, rb, c->rcounts, c->rdispls, MPI_INT, c->root, m);
    case C_SCATTER: return F3(scatter, sb, sc, MPI_INT, rb, rc, MPI_INT, c->root, m);
    case C_SCATTERV: return F3(scatterv, sb, c->scounts, c->sdispls, MPI_INT, rb, c->rcount, MPI_INT, c->root, m);
    case C_REDUCE: return F3(reduce, sb, rb, rc, et, op, c->root, m);
    case C_ALLREDUCE: return F3(allreduce, sb, rb, rc, MPI_INT, MPI_SUM, m);
    case C_RSB: return F3(reduce_scatter_block, sb, rb, c->rcount, MPI_INT, MPI_SUM, m);
    case C_RS: return F3(reduce_scatter, sb, rb, c->rcounts, MPI_INT, MPI_SUM, m);
    case C_SCAN: return F3(scan, sb, rb, rc, MPI_INT, MPI_SUM, m);
    case C_EXSCAN: return F3(exscan, sb, rb, rc, MPI_INT, MPI_SUM, m);
    case C_ALLGATHER: return F3(allgather, sb, sc, MPI_INT, rb, rc, MPI_INT, m);
    case C_ALLGATHERV: return F3(allgatherv, sb, c->scount, MPI_INT, rb, c->rcounts, c->rdispls, MPI_INT, m);
    case C_ALLGATHERW: return F3(allgatherw, sb, c->scount, MPI_INT, rb, c->rcounts, c->rdw, c->rtypes, m);
    case C_ALLTOALL: return F3(alltoall, sb, sc, MPI_INT, rb, rc, MPI_INT, m);
    case C_ALLTOALLV:
        return F3(alltoallv, sb, c->scounts, c->sdispls, MPI_INT, rb, c->rcounts, c->rdispls, MPI_INT, m);
    case C_ALLTOALLW:
        return F3(alltoallw, sb, c->scounts, c->sdw, c->stypes, rb, c->rcounts, c->rdw, c->rtypes, m);
    }
#undef F3
    return MPI_ERR_OTHER;
}

/* CLOCK_MONOTONIC: one clock for all processes of a node (the test runs
 * on one node). */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* One (collective, form, in-place, root) case: 1 run, or 2 starts of a
 * persistent request with new data. */
static void run_case(const ctx_t *x, int coll, int form, int inplace, int rootg, int rootr)
{
    static call_t c;
    memset(&c, 0, sizeof c);
    c.coll = coll, c.form = form, c.inplace = inplace, c.rootg = rootg, c.rootr = rootr;
    setup(x, &c);
    Cart_request rq = CART_REQUEST_NULL;
    MPI_Request mq = MPI_REQUEST_NULL;
    int bad = 0, refuse = 0;
    char where[200];
    snprintf(where, sizeof where, "%s %s%s %s%s root %s%d, process (group %d, rank %d)", x->name, coll_name[coll],
             strided ? " (gapped type)" : "", form_name[form], inplace ? " MPI_IN_PLACE" : "", x->inter ? (rootg ? "high:" : "low:") : "",
             rootr, x->g, x->lr);
    /* Barrier: one process, late by 60 ms, must hold up the processes that
     * wait for it (intra: all; inter: the other group). */
    int late = (coll == C_BARRIER) ? x->wrank_of[rootg][rootr] : -1;
    int mustwait = late >= 0 && mt_rank != late && (!x->inter || x->g != rootg);
    for (int run = 0; run < (form == 2 ? 2 : 1); run++) {
        int salt = next_salt++ % 1000;
        fill(x, &c, salt);
        int rc = MPI_SUCCESS;
        double t0 = 0;
        if (late >= 0) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (mt_rank == late) sleep_ms(60);
            t0 = now(); /* the late process's entry */
        }
        if (form < 2 || run == 0) rc = issue(x, &c, &rq, &mq);
        if (rc == MPI_SUCCESS && form == 2) rc = raw ? MPI_Start(&mq) : Cart_start(&rq);
        if (rc == MPI_SUCCESS && form > 0) rc = raw ? MPI_Wait(&mq, MPI_STATUS_IGNORE) : Cart_wait(&rq);
        double t1 = now(), latest = 0;
        if (late >= 0) {
            double entered = mt_rank == late ? t0 : -1.0;
            MPI_Allreduce(&entered, &latest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        }
        if (rc != MPI_SUCCESS) {
            int cls = mt_error_class(rc);
            if (cls == MPI_ERR_UNSUPPORTED_OPERATION) {
                refuse = 1;
                if (!quiet) {
                    char msg[MPI_MAX_ERROR_STRING];
                    int len;
                    MPI_Error_string(rc, msg, &len);
                    printf("%s: refused (%s)\n", where, msg);
                }
            } else {
                mt_fail(__FILE__, __LINE__, "%s: returned error class %d", where, cls);
                bad = 1;
            }
            break;
        }
        mt_checks++;
        if (late >= 0) { /* causal: compare with the late process's entry on the node's clock */
            if (mustwait && t1 < latest) {
                mt_fail(__FILE__, __LINE__, "%s: left the barrier %.4f s before world rank %d entered it", where,
                        latest - t1, late);
                bad = 1;
            }
        }
        for (int i = 0; i < cap; i++) {
            int want = ebuf[i];
            if (want == DONTCARE) continue;
            if (rbuf[i] != want) {
                mt_fail(__FILE__, __LINE__, "%s, start %d: recvbuf[%d] = %d, expected %d", where, run, i, rbuf[i],
                        want);
                bad = 1;
                break;
            }
        }
        if (memcmp(sbuf, sbuf0, sizeof(int) * (size_t)cap)) {
            mt_fail(__FILE__, __LINE__, "%s, start %d: the send buffer changed", where, run);
            bad = 1;
        }
    }
    if (rq != CART_REQUEST_NULL) Cart_request_free(&rq);
    if (mq != MPI_REQUEST_NULL) MPI_Request_free(&mq);
    if (bad) {
        wrong[coll][form]++;
        wrong_roots[coll][form] |= 1u << (rootg * 8 + rootr);
    }
    if (refuse) refused[coll][form]++;
}

/* --mpi: MPI calls already known wrong (tests/mpi/README.md), left out
 * unless --all: MPICH 4.0's persistent gather, scatter and allgather
 * families (wrong data, or MPI_ERR_OTHER on some processes, which then
 * leaves the others waiting). */
static int all = 0;
static int known_bad(int coll, int form)
{
#ifdef MPICH_VERSION
    return form == 2 && (coll == C_GATHER || coll == C_GATHERV || coll == C_SCATTER || coll == C_SCATTERV ||
                         coll == C_ALLGATHER || coll == C_ALLGATHERV);
#else
    (void)coll, (void)form;
    return 0;
#endif
}

/* --mpi: MPICH 4.0's blocking MPI_Reduce with MPI_IN_PLACE at a root other
 * than 0 and more than 512 ints crashes (the library routes around it). */
static int known_crash(const ctx_t *x, int coll, int form, int inplace, int rootr)
{
#ifdef MPICH_VERSION
    return !x->inter && coll == C_REDUCE && form == 0 && inplace && rootr != 0 && 3 * K > 512;
#else
    (void)x, (void)coll, (void)form, (void)inplace, (void)rootr;
    return 0;
#endif
}

/* Collectives that also run with the gapped datatype (reduce with a
 * user-defined sum). */
static int gapped_too(int coll) { return coll == C_BCAST || coll == C_REDUCE; }

/* Every case on one communicator; rank 0 lists the wrong and refused ones. */
static void run_ctx(ctx_t *x, int only)
{
    memset(wrong, 0, sizeof wrong);
    memset(refused, 0, sizeof refused);
    memset(wrong_roots, 0, sizeof wrong_roots);
    double t0 = MPI_Wtime();
    for (int coll = 0; coll < NCOLL; coll++) {
        if (only >= 0 && coll != only) continue;
        if (x->inter && (coll == C_SCAN || coll == C_EXSCAN)) continue; /* undefined on inter-communicators */
        for (int form = 0; form < 3; form++)
            for (int ip = 0; ip < 2; ip++) {
                if (raw && x->inter && form == 2) {
                    /* cartcoll starts MPI_IX there, never MPI's persistent
                     * inter-communicator collectives (MPICH 4.0's
                     * reduce_scatter_block_init there fails with
                     * MPI_ERR_OTHER on some processes) */
                    if (mt_rank == 0 && ip == 0 && coll == 0)
                        printf("%s: skipped on %s: MPI's persistent collectives (the library starts MPI_IX on "
                               "inter-communicators)\n", mt_name, x->name);
                    continue;
                }
                if (raw && !all && known_bad(coll, form)) {
                    if (mt_rank == 0 && ip == 0)
                        printf("%s: skipped on %s: MPI's %s %s (known wrong, and it fails on some processes only, "
                               "which hangs the others; --all runs it)\n", mt_name, x->name, coll_name[coll],
                               form_name[form]);
                    continue;
                }
                if (ip && (x->inter || coll == C_BARRIER || coll == C_BCAST || coll == C_ALLGATHERW)) continue;
                if (coll == C_BARRIER || rooted(coll)) {
                    /* intra: every root; inter: every rank of either group */
                    for (int rg = 0; rg < (x->inter ? 2 : 1); rg++) {
                        int nr = x->inter ? (rg == x->g ? x->ls : x->rs) : x->ls;
                        for (int r = 0; r < nr; r++) {
                            /* barrier: the last rank of a group is late (60 ms a run) */
                            if (coll == C_BARRIER && (ip || r != nr - 1)) continue;
                            if (raw && !all && known_crash(x, coll, form, ip, r)) {
                                if (mt_rank == 0)
                                    printf("%s: skipped on %s: MPI's %s %s MPI_IN_PLACE root %d (known to crash; "
                                           "--all runs it)\n", mt_name, x->name, coll_name[coll], form_name[form], r);
                                continue;
                            }
                            for (strided = 0; strided < (gapped_too(coll) ? 2 : 1); strided++)
                                run_case(x, coll, form, ip, rg, r);
                            strided = 0;
                        }
                    }
                } else run_case(x, coll, form, ip, 0, 0);
            }
    }
    /* Summary over all processes (every process ran the same cases). */
    long w[NCOLL][3], f[NCOLL][3];
    unsigned roots[NCOLL][3];
    MPI_Allreduce(wrong, w, NCOLL * 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(refused, f, NCOLL * 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(wrong_roots, roots, NCOLL * 3, MPI_UNSIGNED, MPI_BOR, MPI_COMM_WORLD);
    if (mt_rank == 0) {
        for (int coll = 0; coll < NCOLL; coll++)
            for (int form = 0; form < 3; form++) {
                if (w[coll][form]) {
                    char rl[128] = "";
                    size_t at = 0;
                    for (int b = 0; b < 16 && (coll == C_BARRIER || rooted(coll)); b++)
                        if (roots[coll][form] & (1u << b))
                            at += (size_t)snprintf(rl + at, sizeof rl - at, " %s%d",
                                                   x->inter ? (b / 8 ? "high:" : "low:") : "", b % 8);
                    printf("%s: WRONG on %s: %s %s (%ld process-cases%s%s)\n", mt_name, x->name, coll_name[coll],
                           form_name[form], w[coll][form], *rl ? "; roots" : "", rl);
                }
                if (f[coll][form])
                    printf("%s: refused on %s: %s %s (%ld process-cases)\n", mt_name, x->name, coll_name[coll],
                           form_name[form], f[coll][form]);
            }
        printf("%s: %s: %.2f s\n", mt_name, x->name, MPI_Wtime() - t0);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "test_mpibugs");
    int only = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quiet")) quiet = 1;
        else if (!strcmp(argv[i], "--mpi")) raw = 1;
        else if (!strcmp(argv[i], "--all")) all = 1;
        else if (!strcmp(argv[i], "--scale") && i + 1 < argc) {
            K = atoi(argv[++i]);
            if (K < 1 || K > MAXK) K = 1;
            cap = CAPB * K;
        }
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            const char *want = argv[++i];
            for (int k = 0; k < NCOLL; k++)
                if (!strcmp(coll_name[k], want)) only = k;
        }
    }
    MPI_Datatype one;
    int four = 4;
    MPI_Type_create_hindexed_block(1, 1, (MPI_Aint[]){ four }, MPI_INT, &one);
    MPI_Type_create_resized(one, 0, 8, &gapped);
    MPI_Type_commit(&gapped);
    MPI_Type_free(&one);
    MPI_Op_create(add_ints, 1, &addop);
    if (mt_size > MAXP) {
        if (mt_rank == 0) printf("%s: at most %d processes\n", mt_name, MAXP);
        MPI_Finalize();
        return 1;
    }
    /* Plain duplicate of MPI_COMM_WORLD. */
    ctx_t x;
    memset(&x, 0, sizeof x);
    MPI_Comm_dup(MPI_COMM_WORLD, &x.comm);
    MPI_Comm_set_errhandler(x.comm, MPI_ERRORS_RETURN);
    x.lr = mt_rank, x.ls = x.rs = mt_size;
    for (int r = 0; r < mt_size; r++) x.wrank_of[0][r] = r;
    snprintf(x.name, sizeof x.name, "intra (%d)", mt_size);
    run_ctx(&x, only);
    MPI_Comm_free(&x.comm);
    /* Inter-communicators {0..s-1} + {s..p-1}; s and p - s give the same
     * pair of groups, so s <= p / 2. */
    for (int s = 1; s <= mt_size / 2; s++) {
        memset(&x, 0, sizeof x);
        MPI_Comm local;
        x.g = mt_rank >= s;
        MPI_Comm_split(MPI_COMM_WORLD, x.g, mt_rank, &local);
        MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, x.g ? 0 : s, 77, &x.comm);
        MPI_Comm_free(&local);
        MPI_Comm_set_errhandler(x.comm, MPI_ERRORS_RETURN);
        x.inter = 1;
        MPI_Comm_rank(x.comm, &x.lr);
        MPI_Comm_size(x.comm, &x.ls);
        MPI_Comm_remote_size(x.comm, &x.rs);
        for (int r = 0; r < mt_size; r++) x.wrank_of[r >= s][r >= s ? r - s : r] = r;
        snprintf(x.name, sizeof x.name, "inter (%d + %d)", s, mt_size - s);
        run_ctx(&x, only);
        MPI_Comm_free(&x.comm);
    }
    MPI_Type_free(&gapped);
    MPI_Op_free(&addop);
    return mt_finish();
}

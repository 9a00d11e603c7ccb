/* Differential test of the MPI underneath the global and inter-communicator
 * meaning (include/cartcoll.h, "One interface set"): on a communicator
 * without topology every Cart_ collective is MPI's own collective, so a
 * wrong MPI collective would give wrong data silently.  This program runs
 * every collective that src/api/global.c and global_core.c delegate --
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
 * The barrier is checked causally: a process of the group that must wait
 * for a late process (late by 60 ms) may not leave before it entered, on
 * the node's CLOCK_MONOTONIC (all processes on one node).
 *
 * A combination the library refuses with MPI_ERR_UNSUPPORTED_OPERATION
 * (header: an MPI bug without a correct route) counts as refused, not as
 * wrong, and is listed.  At the end rank 0 prints one line per wrong
 * (communicator, collective, form) with the roots that failed, so a run on
 * an MPI without the library's work-arounds lists that MPI's bugs.
 *
 * test_mpibugs [--only COLL] [--quiet] */
#define _POSIX_C_SOURCE 200809L
#include "mpitest.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

#define CAP 256          /* ints in every buffer */
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
static int V(int g, int r, int k, int i, int salt) { return salt * 100000 + g * 10000 + r * 1000 + k * 100 + i; }
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
    int sb[CAP], rb[CAP], exp[CAP], sb0[CAP];
    int scount, rcount;
    int scounts[MAXP], sdispls[MAXP], rcounts[MAXP], rdispls[MAXP];
    MPI_Aint sdw[MAXP], rdw[MAXP];
    MPI_Datatype stypes[MAXP], rtypes[MAXP];
} call_t;

static int quiet = 0, next_salt = 1;
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
        c->scount = c->rcount = 3;
        break;
    case C_GATHERV:
        c->scount = cnt1(x->g, x->lr);
        for (int j = 0; j < n; j++) c->rcounts[j] = cnt1(pg, j), c->rdispls[j] = j * STRIDE + 1;
        break;
    case C_SCATTERV:
        c->rcount = cnts(x->g, x->lr);
        for (int j = 0; j < n; j++) c->scounts[j] = cnts(pg, j), c->sdispls[j] = (n - 1 - j) * STRIDE + 2;
        break;
    case C_RSB:
        c->rcount = x->inter ? x->rs : 3; /* inter: ls * recvcount = the other group's vector length ls * rs */
        break;
    case C_RS:
        for (int j = 0; j < x->ls; j++) c->rcounts[j] = rs_count(x->ls, j);
        break;
    case C_ALLGATHER: case C_ALLTOALL:
        c->scount = c->rcount = 2;
        break;
    case C_ALLGATHERV: case C_ALLGATHERW:
        c->scount = cnt1(x->g, x->lr);
        for (int j = 0; j < n; j++) {
            c->rcounts[j] = cnt1(pg, j);
            c->rdispls[j] = j * STRIDE + 1;
            c->rdw[j] = (MPI_Aint)sizeof(int) * c->rdispls[j];
        }
        break;
    case C_ALLTOALLV: case C_ALLTOALLW:
        for (int j = 0; j < n; j++) {
            c->scounts[j] = cnt2(x->g, x->lr, pg, j);
            c->rcounts[j] = cnt2(pg, j, x->g, x->lr);
            c->sdispls[j] = (n - 1 - j) * STRIDE + 2;
            c->rdispls[j] = j * STRIDE + 1;
            c->sdw[j] = (MPI_Aint)sizeof(int) * c->sdispls[j];
            c->rdw[j] = (MPI_Aint)sizeof(int) * c->rdispls[j];
        }
        break;
    default:
        break;
    }
}

/* Buffers and the expected receive buffer of run `salt`. */
static void fill(const ctx_t *x, call_t *c, int s)
{
    int g = x->g, me = x->lr, pg = pg_of(x), n = x->rs, ip = c->inplace;
    int isroot = x->inter ? c->root == MPI_ROOT : me == c->root;
    int *sb = c->sb, *rb = c->rb, *e = c->exp;
    for (int i = 0; i < CAP; i++) sb[i] = rb[i] = e[i] = SENT;
    switch (c->coll) {
    case C_BCAST: {
        int src = x->inter ? c->rootg : 0;
        int get = !x->inter || g != c->rootg || isroot;
        for (int i = 0; i < 3; i++) {
            if (isroot) rb[i] = V(src, c->rootr, 0, i, s);
            if (get) e[i] = V(src, c->rootr, 0, i, s);
        }
        break;
    }
    case C_GATHER: case C_GATHERV: {
        int v = c->coll == C_GATHERV;
        int sends = x->inter ? g != c->rootg : 1;
        for (int i = 0; i < c->scount && sends; i++) sb[i] = V(g, me, 0, i, s);
        if (isroot)
            for (int j = 0; j < n; j++) {
                int at = v ? c->rdispls[j] : j * 3, m = v ? c->rcounts[j] : 3;
                for (int i = 0; i < m; i++) {
                    e[at + i] = V(pg, j, 0, i, s);
                    if (ip && j == me) rb[at + i] = e[at + i];
                }
            }
        break;
    }
    case C_SCATTER: case C_SCATTERV: {
        int v = c->coll == C_SCATTERV;
        int src = x->inter ? c->rootg : 0;
        if (isroot)
            for (int j = 0; j < n; j++) {
                int at = v ? c->sdispls[j] : j * 3, m = v ? c->scounts[j] : 3;
                for (int i = 0; i < m; i++) sb[at + i] = V(src, c->rootr, j, i, s);
            }
        int gets = x->inter ? g != c->rootg : !(ip && isroot);
        for (int i = 0; i < c->rcount && gets; i++) e[i] = V(src, c->rootr, me, i, s);
        break;
    }
    case C_REDUCE: case C_ALLREDUCE: case C_SCAN: case C_EXSCAN: {
        int sends = x->inter && c->coll == C_REDUCE ? g != c->rootg : 1;
        int gets = c->coll == C_REDUCE ? isroot : 1;
        for (int i = 0; i < 3; i++) {
            if (sends) sb[i] = V(g, me, 0, i, s);
            if (ip && gets) rb[i] = V(g, me, 0, i, s);
            if (!gets) continue;
            long sum = 0;
            int hi = c->coll == C_SCAN ? me + 1 : c->coll == C_EXSCAN ? me : n;
            for (int j = 0; j < hi; j++) sum += V(pg, j, 0, i, s);
            e[i] = c->coll == C_EXSCAN && me == 0 ? DONTCARE : (int)sum;
        }
        break;
    }
    case C_RSB: case C_RS: {
        /* the vector this process contributes (length T), and its slice of
         * the other group's (intra: everybody's) reduced vector */
        int T = c->coll == C_RS ? RS_T : x->inter ? x->ls * x->rs : n * 3;
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
        for (int j = 0; j < n; j++) {
            int at = v ? c->rdispls[j] : j * 2, m = v ? c->rcounts[j] : 2;
            for (int i = 0; i < m; i++) {
                e[at + i] = V(pg, j, 0, i, s);
                if (ip && j == me) rb[at + i] = e[at + i];
            }
        }
        break;
    }
    case C_ALLTOALL: case C_ALLTOALLV: case C_ALLTOALLW: {
        int v = c->coll != C_ALLTOALL;
        for (int j = 0; j < n; j++) {
            int at = v ? c->sdispls[j] : j * 2, m = v ? c->scounts[j] : 2;
            int rat = v ? c->rdispls[j] : j * 2;
            for (int i = 0; i < m; i++) (ip ? rb + rat : sb + at)[i] = V(g, me, j, i, s);
            int rm = v ? c->rcounts[j] : 2;
            for (int i = 0; i < rm; i++) e[rat + i] = V(pg, j, me, i, s);
        }
        break;
    }
    default:
        break;
    }
    memcpy(c->sb0, c->sb, sizeof c->sb);
}

/* Issue the call in its form (persistent: the _init only). */
static int issue(const ctx_t *x, call_t *c, Cart_request *rq)
{
    int f = c->form;
    MPI_Comm m = x->comm;
    MPI_Info in = MPI_INFO_NULL;
    const void *sb = c->inplace && !(c->coll == C_SCATTER || c->coll == C_SCATTERV) ? MPI_IN_PLACE : c->sb;
    void *rb = c->inplace && (c->coll == C_SCATTER || c->coll == C_SCATTERV) ? MPI_IN_PLACE : c->rb;
    int isroot = x->inter ? c->root == MPI_ROOT : x->lr == c->root;
    if (c->inplace && rooted(c->coll) && !isroot) sb = c->sb, rb = c->rb; /* only the root passes MPI_IN_PLACE */
#define F3(NAME, ...)                                                                                              \
    (f == 0 ? Cart_##NAME(__VA_ARGS__) : f == 1 ? Cart_i##NAME(__VA_ARGS__, rq)                                    \
                                                : Cart_##NAME##_init(__VA_ARGS__, in, rq))
    switch (c->coll) {
    case C_BARRIER: return f == 0 ? Cart_barrier(m) : f == 1 ? Cart_ibarrier(m, rq) : Cart_barrier_init(m, in, rq);
    case C_BCAST: return F3(bcast, c->rb, 3, MPI_INT, c->root, m);
    case C_GATHER: return F3(gather, sb, 3, MPI_INT, rb, 3, MPI_INT, c->root, m);
    case C_GATHERV: return F3(gatherv, sb, c->scount, MPI_INT, rb, c->rcounts, c->rdispls, MPI_INT, c->root, m);
    case C_SCATTER: return F3(scatter, sb, 3, MPI_INT, rb, 3, MPI_INT, c->root, m);
    case C_SCATTERV: return F3(scatterv, sb, c->scounts, c->sdispls, MPI_INT, rb, c->rcount, MPI_INT, c->root, m);
    case C_REDUCE: return F3(reduce, sb, rb, 3, MPI_INT, MPI_SUM, c->root, m);
    case C_ALLREDUCE: return F3(allreduce, sb, rb, 3, MPI_INT, MPI_SUM, m);
    case C_RSB: return F3(reduce_scatter_block, sb, rb, c->rcount, MPI_INT, MPI_SUM, m);
    case C_RS: return F3(reduce_scatter, sb, rb, c->rcounts, MPI_INT, MPI_SUM, m);
    case C_SCAN: return F3(scan, sb, rb, 3, MPI_INT, MPI_SUM, m);
    case C_EXSCAN: return F3(exscan, sb, rb, 3, MPI_INT, MPI_SUM, m);
    case C_ALLGATHER: return F3(allgather, sb, 2, MPI_INT, rb, 2, MPI_INT, m);
    case C_ALLGATHERV: return F3(allgatherv, sb, c->scount, MPI_INT, rb, c->rcounts, c->rdispls, MPI_INT, m);
    case C_ALLGATHERW: return F3(allgatherw, sb, c->scount, MPI_INT, rb, c->rcounts, c->rdw, c->rtypes, m);
    case C_ALLTOALL: return F3(alltoall, sb, 2, MPI_INT, rb, 2, MPI_INT, m);
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
    int bad = 0, refuse = 0;
    char where[200];
    snprintf(where, sizeof where, "%s %s %s%s root %s%d, process (group %d, rank %d)", x->name, coll_name[coll],
             form_name[form], inplace ? " MPI_IN_PLACE" : "", x->inter ? (rootg ? "high:" : "low:") : "",
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
        if (form < 2 || run == 0) rc = issue(x, &c, &rq);
        if (rc == MPI_SUCCESS && form == 2) rc = Cart_start(&rq);
        if (rc == MPI_SUCCESS && form > 0) rc = Cart_wait(&rq);
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
        for (int i = 0; i < CAP; i++) {
            int want = c.exp[i];
            if (want == DONTCARE) continue;
            if (c.rb[i] != want) {
                mt_fail(__FILE__, __LINE__, "%s, start %d: recvbuf[%d] = %d, expected %d", where, run, i, c.rb[i],
                        want);
                bad = 1;
                break;
            }
        }
        if (memcmp(c.sb, c.sb0, sizeof c.sb)) {
            mt_fail(__FILE__, __LINE__, "%s, start %d: the send buffer changed", where, run);
            bad = 1;
        }
    }
    if (rq != CART_REQUEST_NULL) Cart_request_free(&rq);
    if (bad) {
        wrong[coll][form]++;
        wrong_roots[coll][form] |= 1u << (rootg * 8 + rootr);
    }
    if (refuse) refused[coll][form]++;
}

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
                if (ip && (x->inter || coll == C_BARRIER || coll == C_BCAST || coll == C_ALLGATHERW)) continue;
                if (coll == C_BARRIER || rooted(coll)) {
                    /* intra: every root; inter: every rank of either group */
                    for (int rg = 0; rg < (x->inter ? 2 : 1); rg++) {
                        int nr = x->inter ? (rg == x->g ? x->ls : x->rs) : x->ls;
                        for (int r = 0; r < nr; r++) {
                            if (coll == C_BARRIER && ip) continue;
                            run_case(x, coll, form, ip, rg, r);
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
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            const char *want = argv[++i];
            for (int k = 0; k < NCOLL; k++)
                if (!strcmp(coll_name[k], want)) only = k;
        }
    }
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
    return mt_finish();
}

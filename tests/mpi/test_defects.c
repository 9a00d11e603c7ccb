/* Regression tests of the eleven defects found by hostile testing, one
 * subcommand (argv[1]) per defect, each its reproducer reduced to
 * assertions against first principles (mt_shift) or MPI itself:
 *
 *   typemap       send types whose size equals their true extent but whose
 *                 map runs backwards or overlaps (copied as raw bytes)
 *   tagwrap       tags reused after the tag range wrapped (CARTCOLL_TAG_UB)
 *   diverge       failed calls consuming tags on some processes only, a failed
 *                 *_init on one process ([core] and seed-000 collectives) (hang)
 *   dupnb         first non-blocking call on a fresh MPI_Comm_dup (hang)
 *   waitall_dup   Cart_waitall with one request twice (double free)
 *   freed_comm    error on a request whose communicator was freed (abort)
 *   stencil       Cart_stencil_count taking time ~ depth^d
 *   bigcount      a block to the process itself over MPI_Pack's int limit
 *                 (CARTCOLL_PACK_RUN lowers the limit; `bigcount N EXEC`
 *                 for a real block of N ints, e.g. 600000000)
 *   bottom        MPI_BOTTOM with absolute displacements in the w variants
 *   progress      progress of forwarding while the caller blocks in plain MPI
 *                 (CARTCOLL_ASYNC_PROGRESS=1, MPI_THREAD_MULTIPLE)
 *   info_mismatch different *_init info on different processes (hang)
 *
 * A hang fails through the ctest TIMEOUT.  Errors are expected only where a
 * check says so: the test communicators return errors, and MPI_COMM_SELF and
 * MPI_COMM_WORLD get a recording handler that must stay unused (except in
 * `stencil`, whose errors belong to MPI_COMM_SELF). */
#include "mpitest.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENT (-7777) /* receive memory that must stay untouched */
#define MAXT 8

enum { F_BLOCKING, F_NONBLOCKING, F_PERSISTENT, F_N };
static const char *const form_name[F_N] = { "blocking", "non-blocking", "persistent" };
static const char *const algs[4] = { "direct", "combining", "torus", "auto" };
static const char *const execs[3] = { "datatype", "pack", "auto" };

static char ctx[256] = ""; /* what runs now, for failure messages */
#define SETCTX(...) snprintf(ctx, sizeof ctx, __VA_ARGS__)

/* Value of int idx of the send buffer of process src in operation `tag`:
 * distinct per operation, process and position. */
static int V(int tag, int src, int idx) { return tag * 100000 + src * 1000 + idx; }

static int ecls(int rc) { return rc == MPI_SUCCESS ? MPI_SUCCESS : mt_error_class(rc); }

#define EXPECT_OK(rc, what)                                                                               \
    do {                                                                                                  \
        int rc_ = (rc);                                                                                   \
        MT_CHECK(rc_ == MPI_SUCCESS, "%s: %s: rc = %d (class %d)", ctx, (what), rc_, ecls(rc_));          \
    } while (0)
#define EXPECT_CLASS(rc, cl, what)                                                                        \
    do {                                                                                                  \
        int c_ = ecls(rc);                                                                                \
        MT_CHECK(c_ == (cl), "%s: %s: class %d, expected %s = %d", ctx, (what), c_, #cl, (int)(cl));      \
    } while (0)

/* ---- error handlers that record their calls ------------------------------ */

typedef struct {
    int calls, code;
    MPI_Comm comm;
} errlog;
static errlog log_user, log_self;
static MPI_Errhandler eh_user = MPI_ERRHANDLER_NULL, eh_self = MPI_ERRHANDLER_NULL;

static void rec_user(MPI_Comm *comm, int *code, ...)
{
    log_user.calls++;
    log_user.code = *code;
    log_user.comm = *comm;
}

static void rec_self(MPI_Comm *comm, int *code, ...)
{
    log_self.calls++;
    log_self.code = *code;
    log_self.comm = *comm;
}

static void log_reset(errlog *l) { *l = (errlog){ 0, MPI_SUCCESS, MPI_COMM_NULL }; }

/* ---- neighbourhoods -------------------------------------------------------- */

typedef struct {
    MPI_Comm c;
    int d, dims[2], per[2], t, tg[2 * MAXT], me;
    int src[MAXT]; /* oracle: rank of R - N[i] */
} nb_t;

/* All dimensions periodic (no MPI_PROC_NULL blocks); errors returned. */
static void nb_make(nb_t *n, MPI_Comm base, int d, const int dims[], int t, const int tg[], const char *alg,
                    const char *exec)
{
    memset(n, 0, sizeof *n);
    n->d = d;
    n->t = t;
    for (int k = 0; k < d; k++) n->dims[k] = dims[k], n->per[k] = 1;
    memcpy(n->tg, tg, sizeof(int) * (size_t)(t * d));
    MPI_Info info = mt_info(alg, exec);
    int rc = Cart_neighborhood_create(base, d, n->dims, n->per, t, n->tg, MPI_UNWEIGHTED, info, 0, &n->c);
    mt_info_free(&info);
    MT_CHECK(rc == MPI_SUCCESS && n->c != MPI_COMM_NULL, "Cart_neighborhood_create(%s, %s) failed (%d)",
             alg ? alg : "-", exec ? exec : "-", rc);
    if (rc != MPI_SUCCESS || n->c == MPI_COMM_NULL) MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Comm_set_errhandler(n->c, MPI_ERRORS_RETURN);
    MPI_Comm_rank(n->c, &n->me);
    for (int i = 0; i < t; i++) n->src[i] = mt_shift(n->me, d, n->dims, n->per, n->tg + i * d, -1);
}

static void nb_ring(nb_t *n, int t, const int tg[], const char *alg, const char *exec)
{
    int dims[1] = { mt_size };
    nb_make(n, MPI_COMM_WORLD, 1, dims, t, tg, alg, exec);
}

static void fill1(const nb_t *n, int *sb, int *rb, int tag)
{
    for (int i = 0; i < n->t; i++) sb[i] = V(tag, n->me, i), rb[i] = SENT;
}

/* One int per block: rb[i] came from R - N[i]'s sb[i]. */
static void check1(const nb_t *n, const int *rb, int tag, const char *what)
{
    for (int i = 0; i < n->t; i++)
        MT_CHECK(rb[i] == V(tag, n->src[i], i), "%s: %s: block %d = %d, expected %d (from rank %d)", ctx, what, i,
                 rb[i], V(tag, n->src[i], i), n->src[i]);
}

static int a2a1(const nb_t *n, const int *sb, int *rb) { return Cart_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, n->c); }

/* ---- generic alltoall / alltoallw in the three forms ----------------------- */

typedef struct {
    int w; /* 0: Cart_alltoall, 1: Cart_alltoallw */
    const void *sbuf;
    void *rbuf;
    int scount, rcount;
    MPI_Datatype stype, rtype;
    int scounts[MAXT], rcounts[MAXT];
    MPI_Aint sdispls[MAXT], rdispls[MAXT];
    MPI_Datatype stypes[MAXT], rtypes[MAXT];
} a2a_t;

typedef void (*hook_fn)(void *arg, int tag);

/* Run o once (blocking, non-blocking) or start it twice (persistent), each
 * time with fill(tag) before and check(tag) after. */
static void a2a_run(const a2a_t *o, MPI_Comm c, int form, int tag, hook_fn fill, hook_fn check, void *arg)
{
    Cart_request r = CART_REQUEST_NULL;
    int rc = MPI_SUCCESS;
    if (form == F_PERSISTENT) {
        rc = o->w ? Cart_alltoallw_init(o->sbuf, o->scounts, o->sdispls, o->stypes, o->rbuf, o->rcounts, o->rdispls,
                                        o->rtypes, c, MPI_INFO_NULL, &r)
                  : Cart_alltoall_init(o->sbuf, o->scount, o->stype, o->rbuf, o->rcount, o->rtype, c, MPI_INFO_NULL,
                                       &r);
        EXPECT_OK(rc, "*_init");
        if (rc != MPI_SUCCESS) return;
    }
    for (int rep = 0; rep < (form == F_PERSISTENT ? 2 : 1); rep++) {
        fill(arg, tag + rep);
        if (form == F_BLOCKING) {
            rc = o->w ? Cart_alltoallw(o->sbuf, o->scounts, o->sdispls, o->stypes, o->rbuf, o->rcounts, o->rdispls,
                                       o->rtypes, c)
                      : Cart_alltoall(o->sbuf, o->scount, o->stype, o->rbuf, o->rcount, o->rtype, c);
        } else {
            if (form == F_NONBLOCKING)
                rc = o->w ? Cart_ialltoallw(o->sbuf, o->scounts, o->sdispls, o->stypes, o->rbuf, o->rcounts,
                                            o->rdispls, o->rtypes, c, &r)
                          : Cart_ialltoall(o->sbuf, o->scount, o->stype, o->rbuf, o->rcount, o->rtype, c, &r);
            else
                rc = Cart_start(&r);
            if (rc == MPI_SUCCESS) rc = Cart_wait(&r);
        }
        EXPECT_OK(rc, form_name[form]);
        if (rc == MPI_SUCCESS) check(arg, tag + rep);
    }
    if (form == F_PERSISTENT) EXPECT_OK(Cart_request_free(&r), "Cart_request_free");
}

/* ============================================================================
 * 1. typemap: a type whose size equals its true extent is not contiguous
 *    when its map runs backwards or overlaps.
 * ========================================================================== */

enum { K_REV, K_OVL, K_RREV, K_N };
static const char *const kind_name[K_N] = { "send vector(3,1,-1,MPI_INT)", "send struct{int@0,int@0,int@8}",
                                            "recv vector(3,1,-1,MPI_INT)" };
static MPI_Datatype t_rev, t_ovl;

/* First principles: int k of received block i is the source's int
 * 3i + j of its block, j reversed or repeated by the type map. */
static int tm_pos(int kind, int k) { return kind == K_OVL ? (k == 2 ? 2 : 0) : 2 - k; }

typedef struct {
    const nb_t *n;
    const a2a_t *o;
    int kind, self, w;
    int sb[3 * MAXT], rb[3 * MAXT];
} tm_t;

/* Memory slot of block i: the w variant stores the blocks in reverse order,
 * so that its displacements matter. */
static int tm_slot(const tm_t *x, int i) { return x->w ? x->n->t - 1 - i : i; }

static void tm_fill(void *arg, int tag)
{
    tm_t *x = arg;
    for (int i = 0; i < 3 * x->n->t; i++) x->sb[i] = V(tag, x->n->me, i), x->rb[i] = SENT;
}

static void tm_check(void *arg, int tag)
{
    tm_t *x = arg;
    for (int i = 0; i < x->n->t; i++)
        for (int k = 0; k < 3; k++) {
            int at = 3 * tm_slot(x, i);
            int want = V(tag, x->n->src[i], at + tm_pos(x->kind, k));
            MT_CHECK(x->rb[at + k] == want, "%s: block %d int %d = %d, expected %d", ctx, i, k, x->rb[at + k], want);
        }
    if (x->self) {
        /* MPI itself on MPI_COMM_SELF with the same arguments (one block). */
        int ref[3] = { SENT, SENT, SENT };
        const a2a_t *o = x->o;
        const char *sbuf = o->w ? (const char *)o->sbuf + o->sdispls[0] : o->sbuf;
        char *rbuf = (char *)ref + (o->w ? o->rdispls[0] : (char *)o->rbuf - (char *)x->rb);
        int rc = MPI_Sendrecv(sbuf, o->w ? o->scounts[0] : o->scount, o->w ? o->stypes[0] : o->stype, 0, 0, rbuf,
                              o->w ? o->rcounts[0] : o->rcount, o->w ? o->rtypes[0] : o->rtype, 0, 0, MPI_COMM_SELF,
                              MPI_STATUS_IGNORE);
        EXPECT_OK(rc, "MPI_Sendrecv reference");
        for (int k = 0; k < 3; k++)
            MT_CHECK(x->rb[k] == ref[k], "%s: int %d = %d, MPI_Sendrecv on MPI_COMM_SELF gives %d", ctx, k, x->rb[k],
                     ref[k]);
    }
}

static void tm_case(const nb_t *n, int self, int kind, int w, int form, int tag, const char *alg, const char *exec)
{
    tm_t x;
    a2a_t o;
    memset(&o, 0, sizeof o);
    x.n = n;
    x.o = &o;
    x.kind = kind;
    x.self = self;
    x.w = o.w = w;
    /* The origin of a backwards vector is its last int (lb -8, extent 12). */
    int srev = kind == K_REV ? 2 : 0, rrev = kind == K_RREV ? 2 : 0;
    MPI_Datatype st = kind == K_REV ? t_rev : kind == K_OVL ? t_ovl : MPI_INT;
    MPI_Datatype rt = kind == K_RREV ? t_rev : MPI_INT;
    int sc = kind == K_RREV ? 3 : 1, rcnt = kind == K_RREV ? 1 : 3;
    if (!w) {
        o.sbuf = x.sb + srev;
        o.rbuf = x.rb + rrev;
        o.scount = sc, o.rcount = rcnt, o.stype = st, o.rtype = rt;
    } else {
        o.sbuf = x.sb;
        o.rbuf = x.rb;
        for (int i = 0; i < n->t; i++) {
            o.scounts[i] = sc, o.rcounts[i] = rcnt;
            o.sdispls[i] = (MPI_Aint)sizeof(int) * (3 * tm_slot(&x, i) + srev);
            o.rdispls[i] = (MPI_Aint)sizeof(int) * (3 * tm_slot(&x, i) + rrev);
            o.stypes[i] = st, o.rtypes[i] = rt;
        }
    }
    SETCTX("typemap %s %s %s, %s, algorithm %s, executor %s", self ? "to itself" : "remote",
           w ? "Cart_alltoallw" : "Cart_alltoall", form_name[form], kind_name[kind], alg, exec);
    a2a_run(&o, n->c, form, tag, tm_fill, tm_check, &x);
}

static void cmd_typemap(void)
{
    MPI_Type_vector(3, 1, -1, MPI_INT, &t_rev);
    MPI_Type_commit(&t_rev);
    int bl[3] = { 1, 1, 1 };
    MPI_Aint ds[3] = { 0, 0, 8 };
    MPI_Datatype ts[3] = { MPI_INT, MPI_INT, MPI_INT };
    MPI_Type_create_struct(3, bl, ds, ts, &t_ovl);
    MPI_Type_commit(&t_ovl);
    /* The defect needs size == true extent == extent (so that Cart_alltoall
     * steps 3 ints per block); make sure the types are what we think. */
    MPI_Datatype both[2] = { t_rev, t_ovl };
    for (int j = 0; j < 2; j++) {
        int size;
        MPI_Aint lb, ext, tlb, text;
        MPI_Type_size(both[j], &size);
        MPI_Type_get_extent(both[j], &lb, &ext);
        MPI_Type_get_true_extent(both[j], &tlb, &text);
        MT_CHECK(size == 12 && text == 12 && ext == 12 && lb == (j == 0 ? -8 : 0),
                 "type %d: size %d true extent %ld extent %ld lb %ld", j, size, (long)text, (long)ext, (long)lb);
    }

    int one[1] = { 1 }, zero[1] = { 0 }, dims[2] = { 0, 0 };
    MPI_Dims_create(mt_size, 2, dims);
    const int tg[] = { 1, 1, -1, -1, 1, 0, 0, -1 }; /* diagonal and axis offsets */
    int tag = 1;
    for (int a = 0; a < 4; a++)
        for (int e = 0; e < 3; e++) {
            nb_t self, world;
            nb_make(&self, MPI_COMM_SELF, 1, one, 1, zero, algs[a], execs[e]);
            nb_make(&world, MPI_COMM_WORLD, 2, dims, 4, tg, algs[a], execs[e]);
            for (int kind = 0; kind < K_N; kind++)
                for (int form = 0; form < F_N; form++)
                    for (int w = 0; w < 2; w++) {
                        tm_case(&self, 1, kind, w, form, tag, algs[a], execs[e]);
                        tm_case(&world, 0, kind, w, form, tag + 2, algs[a], execs[e]);
                        tag = tag < 20000 ? tag + 4 : 1;
                    }
            MPI_Comm_free(&self.c);
            MPI_Comm_free(&world.c);
        }
    MPI_Type_free(&t_rev);
    MPI_Type_free(&t_ovl);
}

/* ============================================================================
 * 2. tagwrap: with CARTCOLL_TAG_UB=100 the non-persistent tags (54..100)
 *    wrap every 47 operations and 23 pairs serve persistent requests.
 *    Persistent requests made before and after many wraps must not share a
 *    tag; exhausting the pairs fails everywhere alike; a non-blocking
 *    operation outlives up to 20 later ones (the header allows 47 here).
 * ========================================================================== */

enum { TW_T = 5 };

static void tw_pair(const nb_t *n, Cart_request *P, Cart_request *Q, int *sp, int *rp, int *sq, int *rq, int it,
                    const char *what)
{
    fill1(n, sp, rp, 3000 + it);
    fill1(n, sq, rq, 4000 + it);
    Cart_request both[2] = { *P, *Q };
    int rc = Cart_startall(2, both);
    EXPECT_OK(rc, "Cart_startall({P, Q})");
    if (rc != MPI_SUCCESS) return;
    /* rank-dependent completion order */
    if ((n->me + it) % 2) {
        EXPECT_OK(Cart_wait(Q), "Cart_wait(Q)");
        EXPECT_OK(Cart_wait(P), "Cart_wait(P)");
    } else {
        EXPECT_OK(Cart_wait(P), "Cart_wait(P)");
        EXPECT_OK(Cart_wait(Q), "Cart_wait(Q)");
    }
    char w[96];
    snprintf(w, sizeof w, "%s, iteration %d, P", what, it);
    check1(n, rp, 3000 + it, w);
    snprintf(w, sizeof w, "%s, iteration %d, Q", what, it);
    check1(n, rq, 4000 + it, w);
}

static void cmd_tagwrap(void)
{
    const char *ub = getenv("CARTCOLL_TAG_UB");
    /* Without the knob nothing wraps and this would test nothing. */
    MT_CHECK(ub && atoi(ub) == 100, "tagwrap must run with CARTCOLL_TAG_UB=100 (got %s)", ub ? ub : "unset");
    int dims[2] = { 0, 0 };
    MPI_Dims_create(mt_size, 2, dims);
    const int tg[2 * TW_T] = { 1, 1, -1, -1, 1, -1, -1, 1, 1, 0 };
    const char *const twalgs[2] = { "combining", "torus" };
    for (int a = 0; a < 2; a++) {
        nb_t n;
        nb_make(&n, MPI_COMM_WORLD, 2, dims, TW_T, tg, twalgs[a], "datatype");
        SETCTX("tagwrap, algorithm %s", twalgs[a]);
        int sp[TW_T] = { 0 }, rp[TW_T] = { 0 }, sq[TW_T] = { 0 }, rq[TW_T] = { 0 }, sx[TW_T] = { 0 }, rx[TW_T] = { 0 };
        int si[2][TW_T], ri[2][TW_T], itag[2] = { 0, 0 };
        Cart_request P = CART_REQUEST_NULL, Q = CART_REQUEST_NULL, I[2] = { CART_REQUEST_NULL, CART_REQUEST_NULL };
        EXPECT_OK(Cart_alltoall_init(sp, 1, MPI_INT, rp, 1, MPI_INT, n.c, MPI_INFO_NULL, &P), "init P");
        /* 200 blocking calls: the non-persistent range wraps 4 times.  Every
         * 20 calls a Cart_ialltoall starts; the previous one completes
         * before (odd ranks) or after (even ranks) that call's blocking
         * call, so it overlaps 20-21 later operations. */
        int nb = 0;
        for (int k = 0; k < 200; k++) {
            int slot = (k / 20) % 2, old = 1 - slot;
            if (k % 20 == 0) {
                if (I[old] != CART_REQUEST_NULL && n.me % 2) {
                    EXPECT_OK(Cart_wait(&I[old]), "Cart_wait(ialltoall)");
                    check1(&n, ri[old], itag[old], "ialltoall (waited first)");
                }
                itag[slot] = 5000 + nb++;
                fill1(&n, si[slot], ri[slot], itag[slot]);
                EXPECT_OK(Cart_ialltoall(si[slot], 1, MPI_INT, ri[slot], 1, MPI_INT, n.c, &I[slot]), "Cart_ialltoall");
            }
            fill1(&n, sx, rx, 100 + k);
            int rc = a2a1(&n, sx, rx);
            EXPECT_OK(rc, "blocking Cart_alltoall");
            if (rc == MPI_SUCCESS) check1(&n, rx, 100 + k, "blocking Cart_alltoall");
            if (k % 20 == 0 && I[old] != CART_REQUEST_NULL) {
                EXPECT_OK(Cart_wait(&I[old]), "Cart_wait(ialltoall)");
                check1(&n, ri[old], itag[old], "ialltoall (waited after a blocking call)");
            }
        }
        for (int s = 0; s < 2; s++)
            if (I[s] != CART_REQUEST_NULL) {
                EXPECT_OK(Cart_wait(&I[s]), "Cart_wait(last ialltoall)");
                check1(&n, ri[s], itag[s], "last ialltoall");
            }
        EXPECT_OK(Cart_alltoall_init(sq, 1, MPI_INT, rq, 1, MPI_INT, n.c, MPI_INFO_NULL, &Q), "init Q");
        if (P == CART_REQUEST_NULL || Q == CART_REQUEST_NULL) MPI_Abort(MPI_COMM_WORLD, 3);
        for (int it = 0; it < 50; it++) tw_pair(&n, &P, &Q, sp, rp, sq, rq, it, "P and Q");

        /* Exhaust the persistent pairs with P and Q alive.  A failed call
         * leaves its request unchanged (preset to P to see that). */
        enum { MAXEXTRA = 64 };
        Cart_request extra[MAXEXTRA];
        int made = 0, rc = MPI_SUCCESS;
        for (made = 0; made < MAXEXTRA; made++) {
            extra[made] = P;
            rc = Cart_alltoall_init(sx, 1, MPI_INT, rx, 1, MPI_INT, n.c, MPI_INFO_NULL, &extra[made]);
            if (rc != MPI_SUCCESS) {
                MT_CHECK(extra[made] == P, "%s: failed init #%d changed its request", ctx, made);
                break;
            }
        }
        MT_CHECK(made < MAXEXTRA, "%s: %d persistent requests made with a tag bound of 100", ctx, made + 2);
        EXPECT_CLASS(rc, MPI_ERR_OTHER, "init with every persistent pair taken");
        int mm[2] = { made, -made }, mmall[2];
        MPI_Allreduce(mm, mmall, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MT_CHECK(mmall[0] == -mmall[1], "%s: the pairs ran out after %d to %d more requests on different processes",
                 ctx, mmall[0], -mmall[1]);
        /* the persistent range is half of the 100 tags, in pairs: at most
         * 25 requests in all (23 with the library's first tag 8) */
        MT_CHECK(made >= 1 && made + 2 <= 25, "%s: %d persistent requests fitted under tag 100", ctx, made + 2);
        /* everything alive still works */
        tw_pair(&n, &P, &Q, sp, rp, sq, rq, 50, "P and Q with every pair taken");
        if (made > 0) {
            fill1(&n, sx, rx, 6000);
            EXPECT_OK(Cart_start(&extra[made - 1]), "Cart_start(last extra)");
            EXPECT_OK(Cart_wait(&extra[made - 1]), "Cart_wait(last extra)");
            check1(&n, rx, 6000, "last extra request");
        }
        for (int j = 0; j < made; j++) EXPECT_OK(Cart_request_free(&extra[j]), "Cart_request_free(extra)");
        /* the pairs are free again */
        Cart_request R = CART_REQUEST_NULL;
        rc = Cart_alltoall_init(sx, 1, MPI_INT, rx, 1, MPI_INT, n.c, MPI_INFO_NULL, &R);
        EXPECT_OK(rc, "init after freeing the extras");
        if (rc == MPI_SUCCESS) {
            for (int it = 0; it < 3; it++) {
                fill1(&n, sx, rx, 6100 + it);
                fill1(&n, sp, rp, 6200 + it);
                Cart_request both[2] = { R, P };
                EXPECT_OK(Cart_startall(2, both), "Cart_startall({R, P})");
                Cart_request *first = n.me % 2 ? &R : &P, *second = n.me % 2 ? &P : &R;
                EXPECT_OK(Cart_wait(first), "Cart_wait");
                EXPECT_OK(Cart_wait(second), "Cart_wait");
                check1(&n, rx, 6100 + it, "R after freeing the extras");
                check1(&n, rp, 6200 + it, "P next to R");
            }
            EXPECT_OK(Cart_request_free(&R), "Cart_request_free(R)");
        }
        for (int it = 51; it < 55; it++) tw_pair(&n, &P, &Q, sp, rp, sq, rq, it, "P and Q at the end");
        EXPECT_OK(Cart_request_free(&P), "Cart_request_free(P)");
        EXPECT_OK(Cart_request_free(&Q), "Cart_request_free(Q)");
        MPI_Comm_free(&n.c);
    }
}

/* ============================================================================
 * 3. diverge: processes that failed differently (and handled the error)
 *    stay in step; a failed *_init fails everywhere.
 * ========================================================================== */

/* A valid Cart_ialltoall pair completed in rank-dependent order. */
static void nb_pair(const nb_t *n, int tag, const char *what)
{
    int s1[MAXT], r1[MAXT], s2[MAXT], r2[MAXT];
    Cart_request q1 = CART_REQUEST_NULL, q2 = CART_REQUEST_NULL;
    fill1(n, s1, r1, tag);
    fill1(n, s2, r2, tag + 1);
    EXPECT_OK(Cart_ialltoall(s1, 1, MPI_INT, r1, 1, MPI_INT, n->c, &q1), what);
    EXPECT_OK(Cart_ialltoall(s2, 1, MPI_INT, r2, 1, MPI_INT, n->c, &q2), what);
    EXPECT_OK(Cart_wait(n->me % 2 ? &q2 : &q1), what);
    EXPECT_OK(Cart_wait(n->me % 2 ? &q1 : &q2), what);
    check1(n, r1, tag, what);
    check1(n, r2, tag + 1, what);
}

static void valid_blocking(const nb_t *n, int tag, const char *what)
{
    int sb[MAXT], rb[MAXT];
    fill1(n, sb, rb, tag);
    int rc = a2a1(n, sb, rb);
    EXPECT_OK(rc, what);
    if (rc == MPI_SUCCESS) check1(n, rb, tag, what);
}

static void valid_persistent(const nb_t *n, int tag, const char *what)
{
    int sb[MAXT] = { 0 }, rb[MAXT] = { 0 }; /* filled before each start */
    Cart_request r = CART_REQUEST_NULL;
    int rc = Cart_alltoall_init(sb, 1, MPI_INT, rb, 1, MPI_INT, n->c, MPI_INFO_NULL, &r);
    EXPECT_OK(rc, what);
    if (rc != MPI_SUCCESS) return;
    for (int k = 0; k < 2; k++) {
        fill1(n, sb, rb, tag + k);
        EXPECT_OK(Cart_start(&r), what);
        EXPECT_OK(Cart_wait(&r), what);
        check1(n, rb, tag + k, what);
    }
    EXPECT_OK(Cart_request_free(&r), what);
}

static void cmd_diverge(void)
{
    const int tg[2] = { 1, -1 };
    nb_t n;
    nb_ring(&n, 2, tg, NULL, NULL);
    int sb[2], rb[2], tag = 1;

    /* (a) blocking: rank 0 MPI_ERR_COUNT, the others MPI_ERR_BUFFER */
    for (int rep = 0; rep < 3; rep++) {
        SETCTX("diverge (a) blocking, round %d", rep);
        fill1(&n, sb, rb, tag);
        if (n.me == 0)
            EXPECT_CLASS(Cart_alltoall(sb, -1, MPI_INT, rb, 1, MPI_INT, n.c), MPI_ERR_COUNT, "sendcount -1");
        else
            EXPECT_CLASS(Cart_alltoall(sb, 1, MPI_INT, NULL, 1, MPI_INT, n.c), MPI_ERR_BUFFER, "recvbuf NULL");
        for (int i = 0; i < 2; i++) MT_CHECK(rb[i] == SENT, "%s: a failed call wrote block %d", ctx, i);
        valid_blocking(&n, tag + 1, "valid Cart_alltoall after the errors");
        tag += 2;
    }
    nb_pair(&n, tag, "valid Cart_ialltoall pair after (a)");
    tag += 2;

    /* (b) non-blocking: rank 0 NULL request pointer, the others count -1 */
    for (int rep = 0; rep < 3; rep++) {
        SETCTX("diverge (b) non-blocking, round %d", rep);
        Cart_request r = CART_REQUEST_NULL;
        fill1(&n, sb, rb, tag);
        if (n.me == 0)
            EXPECT_CLASS(Cart_ialltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, n.c, NULL), MPI_ERR_ARG, "request NULL");
        else
            EXPECT_CLASS(Cart_ialltoall(sb, -1, MPI_INT, rb, 1, MPI_INT, n.c, &r), MPI_ERR_COUNT, "sendcount -1");
        MT_CHECK(r == CART_REQUEST_NULL, "%s: a failed Cart_ialltoall set its request", ctx);
        nb_pair(&n, tag + 1, "valid Cart_ialltoall pair after the errors");
        valid_blocking(&n, tag + 3, "valid Cart_alltoall after the errors");
        tag += 4;
    }

    /* (c) *_init failing on one process: every process fails (the others
     * with MPI_ERR_ARG, as the header says) and no request changes.  The
     * request is preset to a live request to see that. */
    Cart_request live = CART_REQUEST_NULL;
    int lsb[2] = { 0 }, lrb[2] = { 0 };
    EXPECT_OK(Cart_alltoall_init(lsb, 1, MPI_INT, lrb, 1, MPI_INT, n.c, MPI_INFO_NULL, &live), "live request");
    const int bad_rank[2] = { 0, mt_size - 1 };
    int rb4[4];
    for (int b = 0; b < 2; b++)
        for (int how = 0; how < 4; how++) {
            static const char *const hows[4] = { "sendcount -1", "sendtype MPI_DATATYPE_NULL", "recvbuf NULL",
                                                 "recvcount 2 for sendcount 1" };
            static const int want[4] = { MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_BUFFER, MPI_ERR_ARG };
            SETCTX("diverge (c) Cart_alltoall_init, rank %d passes %s", bad_rank[b], hows[how]);
            Cart_request r = live;
            int rc, bad = n.me == bad_rank[b];
            fill1(&n, sb, rb, tag);
            if (!bad)
                rc = Cart_alltoall_init(sb, 1, MPI_INT, rb, 1, MPI_INT, n.c, MPI_INFO_NULL, &r);
            else if (how == 0)
                rc = Cart_alltoall_init(sb, -1, MPI_INT, rb, 1, MPI_INT, n.c, MPI_INFO_NULL, &r);
            else if (how == 1)
                rc = Cart_alltoall_init(sb, 1, MPI_DATATYPE_NULL, rb, 1, MPI_INT, n.c, MPI_INFO_NULL, &r);
            else if (how == 2)
                rc = Cart_alltoall_init(sb, 1, MPI_INT, NULL, 1, MPI_INT, n.c, MPI_INFO_NULL, &r);
            else
                rc = Cart_alltoall_init(sb, 1, MPI_INT, rb4, 2, MPI_INT, n.c, MPI_INFO_NULL, &r);
            if (bad) EXPECT_CLASS(rc, want[how], "the failing process");
            else EXPECT_CLASS(rc, MPI_ERR_ARG, "a process with valid arguments");
            MT_CHECK(r == live, "%s: the failed init changed its request", ctx);
            if (rc == MPI_SUCCESS && r != live) Cart_request_free(&r); /* keep going after a failure */
            valid_blocking(&n, tag + 1, "valid Cart_alltoall after the failed init");
            valid_persistent(&n, tag + 2, "valid Cart_alltoall_init after the failed init");
            tag += 4;
        }
    /* the live request was not disturbed */
    SETCTX("diverge (c) live request");
    fill1(&n, lsb, lrb, tag);
    EXPECT_OK(Cart_start(&live), "Cart_start(live)");
    EXPECT_OK(Cart_wait(&live), "Cart_wait(live)");
    check1(&n, lrb, tag++, "live request");
    EXPECT_OK(Cart_request_free(&live), "Cart_request_free(live)");

    /* (e) a seed-000 collective's *_init failing its check on one process:
     * every process fails (the others with MPI_ERR_ARG) and stays in step
     * (without the agreement the others would wait for it) */
    for (int b = 0; b < 2; b++) {
        SETCTX("diverge (e) Cart_bcast_init / Cart_allreduce_init, rank %d fails", bad_rank[b]);
        int bad = n.me == bad_rank[b], buf[2] = { n.me, 0 }, out[2] = { 0, 0 };
        Cart_request r = CART_REQUEST_NULL;
        int rc = Cart_bcast_init(buf, bad ? -1 : 1, MPI_INT, 0, n.c, MPI_INFO_NULL, &r);
        EXPECT_CLASS(rc, bad ? MPI_ERR_COUNT : MPI_ERR_ARG, "Cart_bcast_init, count -1 on one process");
        MT_CHECK(r == CART_REQUEST_NULL, "%s: the failed Cart_bcast_init set its request", ctx);
        rc = Cart_allreduce_init(buf, out, 1, MPI_INT, bad ? MPI_OP_NULL : MPI_SUM, n.c, MPI_INFO_NULL, &r);
        EXPECT_CLASS(rc, bad ? MPI_ERR_OP : MPI_ERR_ARG, "Cart_allreduce_init, MPI_OP_NULL on one process");
        MT_CHECK(r == CART_REQUEST_NULL, "%s: the failed Cart_allreduce_init set its request", ctx);
        valid_persistent(&n, tag, "valid Cart_alltoall_init after the failed inits");
        tag += 2;
    }

    /* (d) control: every process fails the same way */
    SETCTX("diverge (d) all fail alike");
    EXPECT_CLASS(Cart_alltoall(sb, 1, MPI_INT, NULL, 1, MPI_INT, n.c), MPI_ERR_BUFFER, "recvbuf NULL everywhere");
    valid_blocking(&n, tag++, "valid Cart_alltoall");
    Cart_request r = CART_REQUEST_NULL;
    EXPECT_CLASS(Cart_alltoall_init(sb, -1, MPI_INT, rb, 1, MPI_INT, n.c, MPI_INFO_NULL, &r), MPI_ERR_COUNT,
                 "init with sendcount -1 everywhere");
    MT_CHECK(r == CART_REQUEST_NULL, "%s: failed init set its request", ctx);
    valid_persistent(&n, tag, "valid Cart_alltoall_init");
    nb_pair(&n, tag + 2, "valid Cart_ialltoall pair");
    MPI_Comm_free(&n.c);
}

/* ============================================================================
 * 4. dupnb: the first operation on a fresh duplicate is non-blocking and the
 *    processes complete it in different orders.
 * ========================================================================== */

/* r1 on a, r2 on b (started in this order everywhere); rank 0 completes r1
 * before starting r2, the others start r2 first. */
static void dup_orders(const nb_t *n, MPI_Comm a, MPI_Comm b, int tag, const char *what)
{
    int s1[MAXT], r1[MAXT], s2[MAXT], r2[MAXT];
    Cart_request q1 = CART_REQUEST_NULL, q2 = CART_REQUEST_NULL;
    fill1(n, s1, r1, tag);
    fill1(n, s2, r2, tag + 1);
    EXPECT_OK(Cart_ialltoall(s1, 1, MPI_INT, r1, 1, MPI_INT, a, &q1), what);
    if (n->me == 0) {
        EXPECT_OK(Cart_wait(&q1), what);
        EXPECT_OK(Cart_ialltoall(s2, 1, MPI_INT, r2, 1, MPI_INT, b, &q2), what);
        EXPECT_OK(Cart_wait(&q2), what);
    } else {
        EXPECT_OK(Cart_ialltoall(s2, 1, MPI_INT, r2, 1, MPI_INT, b, &q2), what);
        if (n->me % 2) {
            EXPECT_OK(Cart_wait(&q1), what);
            EXPECT_OK(Cart_wait(&q2), what);
        } else {
            EXPECT_OK(Cart_wait(&q2), what);
            EXPECT_OK(Cart_wait(&q1), what);
        }
    }
    check1(n, r1, tag, what);
    check1(n, r2, tag + 1, what);
}

static void check_is_nbh(const nb_t *n, MPI_Comm c, const char *what)
{
    int t = -1;
    EXPECT_OK(Cart_neighbor_count(c, &t), what);
    MT_EQ(t, n->t, ctx);
}

static void cmd_dupnb(void)
{
    int dims[2] = { 0, 0 };
    MPI_Dims_create(mt_size, 2, dims);
    const int tg[8] = { 1, 1, -1, -1, 1, -1, -1, 1 };
    int tag = 1;
    for (int a = 0; a < 4; a++) {
        nb_t n;
        nb_make(&n, MPI_COMM_WORLD, 2, dims, 4, tg, algs[a], NULL);
        SETCTX("dupnb, algorithm %s", algs[a]);
        MPI_Comm dup, dd, idup, unused, orphan;
        MPI_Request q;
        /* the reproducer: fresh MPI_Comm_dup */
        MPI_Comm_dup(n.c, &dup);
        check_is_nbh(&n, dup, "dup");
        dup_orders(&n, n.c, dup, tag, "MPI_Comm_dup, first use non-blocking");
        /* a dup of a dup, first use non-blocking */
        MPI_Comm_dup(dup, &dd);
        dup_orders(&n, dup, dd, tag + 2, "dup of a dup, first use non-blocking");
        /* MPI_Comm_idup completed with MPI_Wait */
        MPI_Comm_idup(n.c, &idup, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        check_is_nbh(&n, idup, "idup");
        dup_orders(&n, n.c, idup, tag + 4, "MPI_Comm_idup, first use non-blocking");
        /* one freed unused; one whose parent is freed before its first use */
        MPI_Comm_dup(n.c, &unused);
        MPI_Comm_dup(n.c, &orphan);
        MPI_Comm_free(&unused);
        MPI_Comm_free(&dd);
        MPI_Comm_free(&idup);
        dup_orders(&n, n.c, dup, tag + 6, "after freeing an unused dup");
        MPI_Comm_free(&dup);
        valid_blocking(&n, tag + 8, "blocking on the parent");
        MPI_Comm_free(&n.c);
        check_is_nbh(&n, orphan, "dup of a freed parent");
        dup_orders(&n, orphan, orphan, tag + 9, "dup of a freed parent, first use non-blocking");
        n.c = orphan;
        valid_blocking(&n, tag + 11, "blocking on the dup of a freed parent");
        MPI_Comm_free(&orphan);
        tag += 12;
    }
}

/* ============================================================================
 * 5. waitall_dup: the same request twice in Cart_waitall / Cart_startall is
 *    MPI_ERR_REQUEST, raised on the request's communicator, and changes
 *    nothing.
 * ========================================================================== */

/* After a call that must fail on duplicates: the class, the handler of the
 * request's communicator (recording when rec), nothing on SELF/WORLD. */
static void expect_request_error(int rc, const nb_t *n, int rec, const char *what)
{
    EXPECT_CLASS(rc, MPI_ERR_REQUEST, what);
    if (rec) {
        MT_CHECK(log_user.calls == 1, "%s: %s: the communicator's handler ran %d times", ctx, what, log_user.calls);
        MT_CHECK(log_user.code == rc, "%s: %s: handler got code %d, call returned %d", ctx, what, log_user.code, rc);
        MT_CHECK(log_user.comm == n->c, "%s: %s: handler invoked on another communicator", ctx, what);
    }
    MT_CHECK(log_self.calls == 0, "%s: %s: MPI_COMM_SELF/WORLD's handler ran", ctx, what);
    log_reset(&log_user);
    log_reset(&log_self);
}

static void cmd_waitall_dup(void)
{
    const int tg[2] = { 1, -1 };
    nb_t n;
    nb_ring(&n, 2, tg, NULL, NULL);
    int sb[2] = { 0 }, rb[2] = { 0 }, sq[2] = { 0 }, rq[2] = { 0 }, tag = 1;
    for (int rec = 0; rec < 2; rec++) {
        MPI_Comm_set_errhandler(n.c, rec ? eh_user : MPI_ERRORS_RETURN);
        log_reset(&log_user);
        log_reset(&log_self);
        const char *hn = rec ? "recording handler" : "MPI_ERRORS_RETURN";

        /* non-blocking */
        SETCTX("waitall_dup non-blocking, %s", hn);
        Cart_request r = CART_REQUEST_NULL;
        fill1(&n, sb, rb, tag);
        EXPECT_OK(Cart_ialltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, n.c, &r), "Cart_ialltoall");
        Cart_request two[2] = { r, r }, three[3] = { r, CART_REQUEST_NULL, r };
        expect_request_error(Cart_waitall(2, two), &n, rec, "Cart_waitall({r, r})");
        MT_CHECK(two[0] == r && two[1] == r, "%s: Cart_waitall changed the array", ctx);
        expect_request_error(Cart_waitall(3, three), &n, rec, "Cart_waitall({r, NULL, r})");
        MT_CHECK(three[0] == r && three[1] == CART_REQUEST_NULL && three[2] == r, "%s: Cart_waitall changed the array",
                 ctx);
        EXPECT_OK(Cart_wait(&two[0]), "Cart_wait after the failed Cart_waitall");
        MT_CHECK(two[0] == CART_REQUEST_NULL, "%s: Cart_wait left the request", ctx);
        check1(&n, rb, tag, "non-blocking request");

        /* persistent, active */
        SETCTX("waitall_dup persistent, %s", hn);
        Cart_request P = CART_REQUEST_NULL, Q = CART_REQUEST_NULL;
        EXPECT_OK(Cart_alltoall_init(sb, 1, MPI_INT, rb, 1, MPI_INT, n.c, MPI_INFO_NULL, &P), "init P");
        EXPECT_OK(Cart_alltoall_init(sq, 1, MPI_INT, rq, 1, MPI_INT, n.c, MPI_INFO_NULL, &Q), "init Q");
        fill1(&n, sb, rb, tag + 1);
        EXPECT_OK(Cart_start(&P), "Cart_start(P)");
        Cart_request pp[2] = { P, P };
        expect_request_error(Cart_waitall(2, pp), &n, rec, "Cart_waitall({P, P})");
        MT_CHECK(pp[0] == P && pp[1] == P, "%s: Cart_waitall changed the array", ctx);
        EXPECT_OK(Cart_wait(&P), "Cart_wait(P)");
        MT_CHECK(P != CART_REQUEST_NULL, "%s: Cart_wait freed a persistent request", ctx);
        check1(&n, rb, tag + 1, "P after the failed Cart_waitall");

        /* Cart_startall: nothing started, so Cart_start must succeed */
        expect_request_error(Cart_startall(2, pp), &n, rec, "Cart_startall({P, P})");
        Cart_request pqp[3] = { P, Q, P };
        expect_request_error(Cart_startall(3, pqp), &n, rec, "Cart_startall({P, Q, P})");
        MT_CHECK(pqp[0] == P && pqp[1] == Q && pqp[2] == P, "%s: Cart_startall changed the array", ctx);
        fill1(&n, sb, rb, tag + 2);
        fill1(&n, sq, rq, tag + 3);
        EXPECT_OK(Cart_start(&Q), "Cart_start(Q) after the failed Cart_startall");
        EXPECT_OK(Cart_start(&P), "Cart_start(P) after the failed Cart_startall");
        Cart_request qpq[3] = { Q, P, Q };
        expect_request_error(Cart_waitall(3, qpq), &n, rec, "Cart_waitall({Q, P, Q})");
        Cart_request pq[2] = { n.me % 2 ? P : Q, n.me % 2 ? Q : P };
        EXPECT_OK(Cart_waitall(2, pq), "Cart_waitall({P, Q})");
        check1(&n, rb, tag + 2, "P");
        check1(&n, rq, tag + 3, "Q");
        EXPECT_OK(Cart_request_free(&P), "free P");
        EXPECT_OK(Cart_request_free(&Q), "free Q");
        tag += 4;
    }
    MPI_Comm_free(&n.c);
}

/* ============================================================================
 * 6. freed_comm: an error on a request whose communicator was freed goes to
 *    the handler that communicator had, and is returned.
 * ========================================================================== */

static void cmd_freed_comm(void)
{
    const int tg[2] = { 1, -1 };
    int sb[2] = { 0 }, rb[2] = { 0 }, tag = 1;
    for (int rec = 0; rec < 2; rec++) {
        nb_t n;
        nb_ring(&n, 2, tg, NULL, NULL);
        MPI_Comm_set_errhandler(n.c, rec ? eh_user : MPI_ERRORS_RETURN);
        SETCTX("freed_comm, %s", rec ? "recording handler" : "MPI_ERRORS_RETURN");
        log_reset(&log_user);
        log_reset(&log_self);
        Cart_request P = CART_REQUEST_NULL, r = CART_REQUEST_NULL;
        int isb[2], irb[2];
        EXPECT_OK(Cart_alltoall_init(sb, 1, MPI_INT, rb, 1, MPI_INT, n.c, MPI_INFO_NULL, &P), "init");
        fill1(&n, isb, irb, tag + 10);
        EXPECT_OK(Cart_ialltoall(isb, 1, MPI_INT, irb, 1, MPI_INT, n.c, &r), "Cart_ialltoall");
        MPI_Comm_free(&n.c);
        if (P == CART_REQUEST_NULL) MPI_Abort(MPI_COMM_WORLD, 3);

        fill1(&n, sb, rb, tag);
        EXPECT_OK(Cart_start(&P), "first Cart_start");
        /* each erroneous call: MPI_ERR_REQUEST returned, the freed
         * communicator's handler once (its comm may be internal) */
        for (int bad = 0; bad < 3; bad++) {
            static const char *const what[3] = { "second Cart_start (active)", "Cart_request_free (active)",
                                                 "Cart_start of a non-blocking request" };
            int rc = bad == 0 ? Cart_start(&P) : bad == 1 ? Cart_request_free(&P) : Cart_start(&r);
            EXPECT_CLASS(rc, MPI_ERR_REQUEST, what[bad]);
            if (rec) {
                MT_CHECK(log_user.calls == 1, "%s: %s: the handler ran %d times", ctx, what[bad], log_user.calls);
                MT_CHECK(log_user.code == rc && ecls(log_user.code) == MPI_ERR_REQUEST,
                         "%s: %s: the handler got code %d (class %d), the call returned %d", ctx, what[bad],
                         log_user.code, ecls(log_user.code), rc);
            }
            MT_CHECK(log_self.calls == 0, "%s: %s: MPI_COMM_SELF/WORLD's handler ran", ctx, what[bad]);
            log_reset(&log_user);
            log_reset(&log_self);
        }
        MT_CHECK(P != CART_REQUEST_NULL && r != CART_REQUEST_NULL, "%s: a failed call cleared a request", ctx);
        EXPECT_OK(Cart_wait(&P), "Cart_wait(P)");
        check1(&n, rb, tag, "persistent request of a freed communicator");
        EXPECT_OK(Cart_wait(&r), "Cart_wait(r)");
        check1(&n, irb, tag + 10, "non-blocking request of a freed communicator");
        fill1(&n, sb, rb, tag + 1);
        EXPECT_OK(Cart_start(&P), "Cart_start again");
        EXPECT_OK(Cart_wait(&P), "Cart_wait again");
        check1(&n, rb, tag + 1, "restarted persistent request of a freed communicator");
        EXPECT_OK(Cart_request_free(&P), "Cart_request_free");
        MT_CHECK(P == CART_REQUEST_NULL, "%s: Cart_request_free left the request", ctx);
        MT_CHECK(log_user.calls == 0 && log_self.calls == 0, "%s: a handler ran on success", ctx);
        tag += 20;
    }
}

/* ============================================================================
 * 7. stencil: counts in closed form (huge depths at once), MPI_ERR_ARG only
 *    where the count exceeds an int, Cart_stencil of a large shell.
 * ========================================================================== */

static long long binom(long long n, int k)
{
    long long b = 1;
    for (int j = 1; j <= k; j++) b = b * (n - k + j) / j; /* exact at each step */
    return b;
}

/* Vectors with sum |c| <= r in d dimensions: choose the k non-zero
 * coordinates, their signs, and k positive parts summing to <= r. */
static long long ball_count(int d, long long r)
{
    if (r < 0) return 0;
    long long n = 0;
    for (int k = 0; k <= d && k <= r; k++) n += (1ll << k) * binom(d, k) * binom(r, k);
    return n;
}

static long long ipow(long long b, int e)
{
    long long p = 1;
    while (e-- > 0) p *= b;
    return p;
}

static void stencil_expect(int d, int metric, int shadow, int depth)
{
    long long want = metric == CART_MANHATTAN ? ball_count(d, depth) - ball_count(d, (long long)shadow - 1)
                                              : ipow(2ll * depth + 1, d) - (shadow ? ipow(2ll * shadow - 1, d) : 0);
    int n = -1;
    double t0 = MPI_Wtime();
    log_reset(&log_self);
    int rc = Cart_stencil_count(d, metric, shadow, depth, &n);
    double dt = MPI_Wtime() - t0;
    SETCTX("Cart_stencil_count(%d, %s, %d, %d)", d, metric == CART_MANHATTAN ? "CART_MANHATTAN" : "CART_CHEBYSHEV",
           shadow, depth);
    if (want <= INT_MAX) {
        EXPECT_OK(rc, "count fits in an int");
        MT_CHECK(n == want, "%s = %d, expected %lld", ctx, n, want);
        MT_CHECK(log_self.calls == 0, "%s: handler ran on success", ctx);
    } else {
        EXPECT_CLASS(rc, MPI_ERR_ARG, "count does not fit in an int");
        MT_CHECK(n == -1, "%s: failed call wrote count %d", ctx, n);
        MT_CHECK(log_self.calls == 1 && log_self.code == rc, "%s: MPI_COMM_SELF's handler ran %d times", ctx,
                 log_self.calls);
    }
    /* a closed form takes microseconds; the old loops took ~depth^2 */
    MT_CHECK(dt < 5.0, "%s took %.1f s", ctx, dt);
    log_reset(&log_self);
}

static void cmd_stencil(void)
{
    /* Chebyshev shell d=2, depth = shadow = 3000: the 8*3000 vectors with
     * max |c| = 3000, all distinct, in row-major order. */
    enum { S = 3000, NS = 8 * S };
    int n = -1;
    SETCTX("Cart_stencil(2, CART_CHEBYSHEV, %d, %d)", S, S);
    EXPECT_OK(Cart_stencil_count(2, CART_CHEBYSHEV, S, S, &n), "count");
    MT_EQ(n, NS, ctx);
    int *v = malloc(sizeof(int) * 2 * (NS + 1));
    if (!v) MPI_Abort(MPI_COMM_WORLD, 2);
    for (int j = 0; j < 2 * (NS + 1); j++) v[j] = INT_MIN;
    EXPECT_OK(Cart_stencil(2, CART_CHEBYSHEV, S, S, NS + 1, v), "Cart_stencil");
    int bad_norm = 0, bad_order = 0;
    for (int j = 0; j < NS; j++) {
        int a = abs(v[2 * j]), b = abs(v[2 * j + 1]);
        if ((a > b ? a : b) != S) bad_norm++;
        /* strictly increasing row-major: sorted and distinct */
        if (j > 0 && !(v[2 * j - 2] < v[2 * j] || (v[2 * j - 2] == v[2 * j] && v[2 * j - 1] < v[2 * j + 1])))
            bad_order++;
    }
    MT_CHECK(bad_norm == 0, "%s: %d vectors without max |c| = %d", ctx, bad_norm, S);
    MT_CHECK(bad_order == 0, "%s: %d vectors out of row-major order (or repeated)", ctx, bad_order);
    MT_CHECK(v[0] == -S && v[1] == -S && v[2 * NS - 2] == S && v[2 * NS - 1] == S, "%s: first (%d,%d), last (%d,%d)",
             ctx, v[0], v[1], v[2 * NS - 2], v[2 * NS - 1]);
    MT_CHECK(v[2 * NS] == INT_MIN && v[2 * NS + 1] == INT_MIN, "%s: wrote beyond the count", ctx);
    free(v);

    /* beyond an int: MPI_ERR_ARG */
    stencil_expect(3, CART_CHEBYSHEV, 0, 1000);
    stencil_expect(3, CART_MANHATTAN, 0, 2000);
    stencil_expect(1, CART_MANHATTAN, 0, INT_MAX - 1); /* 2^32 - 3 */
    stencil_expect(1, CART_MANHATTAN, 0, INT_MAX / 2);     /* INT_MAX exactly: fits */
    stencil_expect(1, CART_MANHATTAN, 0, INT_MAX / 2 + 1); /* INT_MAX + 2 */
    stencil_expect(1, CART_CHEBYSHEV, INT_MAX / 2, INT_MAX / 2); /* 2 */
    /* the reproducer and large counts that fit */
    stencil_expect(1, CART_MANHATTAN, 0, 1000000);
    stencil_expect(1, CART_MANHATTAN, 999999, 1000000);
    stencil_expect(3, CART_MANHATTAN, 0, 810);
    stencil_expect(2, CART_MANHATTAN, 0, 30000); /* 1800060001: fits in an int, not in INT_MAX/2 */
    /* thin shells of huge balls fit too */
    stencil_expect(2, CART_MANHATTAN, 29999, 30000);
    stencil_expect(2, CART_CHEBYSHEV, 30000, 30000);
}

/* ============================================================================
 * 8. bigcount: a block to the process itself whose MPI_Pack runs are cut
 *    (CARTCOLL_PACK_RUN=64 here; 2 GiB for real), with elements smaller and
 *    larger than a run, contiguous and strided on either side.
 * ========================================================================== */

/* A buffer layout: count elements of `per` ints `stride` apart, elements
 * `ext` ints apart; signature int q lies at pos(q). */
typedef struct {
    long count;
    int per, stride, ext;
} layout;

static long lay_pos(const layout *l, long q)
{
    return l->per == 1 ? q * l->ext : q / l->per * l->ext + q % l->per * l->stride; /* no division for 2 GiB */
}
static long lay_ints(const layout *l) { return l->count * l->ext; }

static MPI_Datatype lay_type(const layout *l)
{
    MPI_Datatype t;
    if (l->per == 1 && l->ext == 1) return MPI_INT;
    if (l->per == 1) MPI_Type_create_resized(MPI_INT, 0, (MPI_Aint)sizeof(int) * l->ext, &t);
    else MPI_Type_vector(l->per, 1, l->stride, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
}

static void lay_free(MPI_Datatype *t)
{
    if (*t != MPI_INT) MPI_Type_free(t);
}

static int bc_val(long q, int tag) { return (int)q ^ (tag << 24); } /* >= 0, distinct per tag */

typedef struct {
    const layout *s, *r;
    int *sb, *rb;
    long nsig;
} bc_t;

static void bc_fill(void *arg, int tag)
{
    bc_t *x = arg;
    if (lay_ints(x->s) != x->nsig) /* gaps in the send buffer */
        for (long j = 0; j < lay_ints(x->s); j++) x->sb[j] = SENT;
    for (long q = 0; q < x->nsig; q++) x->sb[lay_pos(x->s, q)] = bc_val(q, tag);
    for (long j = 0; j < lay_ints(x->r); j++) x->rb[j] = SENT;
}

static void bc_check(void *arg, int tag)
{
    bc_t *x = arg;
    long bad = 0, first = -1, gaps = 0;
    for (long q = 0; q < x->nsig; q++) {
        long p = lay_pos(x->r, q);
        if (x->rb[p] != bc_val(q, tag)) {
            if (first < 0) first = q;
            bad++;
        }
        x->rb[p] = SENT; /* then every int must be SENT */
    }
    for (long j = 0; j < lay_ints(x->r); j++) gaps += x->rb[j] != SENT;
    mt_checks += x->nsig;
    MT_CHECK(bad == 0, "%s: %ld of %ld ints wrong, first signature int %ld", ctx, bad, x->nsig, first);
    MT_CHECK(gaps == 0, "%s: %ld ints written outside the receive type map", ctx, gaps);
}

static void bc_case(const nb_t *self, const layout *s, const layout *r, int form, int tag, const char *exec)
{
    bc_t x = { s, r, NULL, NULL, s->count * s->per };
    MT_CHECK(x.nsig == r->count * r->per, "bad layouts");
    x.sb = malloc(sizeof(int) * (size_t)lay_ints(s));
    x.rb = malloc(sizeof(int) * (size_t)lay_ints(r));
    MT_CHECK(x.sb && x.rb, "out of memory for %ld + %ld ints", lay_ints(s), lay_ints(r));
    if (!x.sb || !x.rb) {
        free(x.sb);
        free(x.rb);
        return;
    }
    a2a_t o;
    memset(&o, 0, sizeof o);
    o.sbuf = x.sb;
    o.rbuf = x.rb;
    o.scount = (int)s->count;
    o.rcount = (int)r->count;
    o.stype = lay_type(s);
    o.rtype = lay_type(r);
    SETCTX("bigcount %s, executor %s: send %ld x (%d ints stride %d, extent %d), receive %ld x (%d ints stride %d, "
           "extent %d)",
           form_name[form], exec, s->count, s->per, s->stride, s->ext, r->count, r->per, r->stride, r->ext);
    a2a_run(&o, self->c, form, tag, bc_fill, bc_check, &x);
    lay_free(&o.stype);
    lay_free(&o.rtype);
    free(x.sb);
    free(x.rb);
}

static void cmd_bigcount(long big, const char *bigexec)
{
    int one[1] = { 1 }, zero[1] = { 0 };
    const char *const bexec[2] = { "datatype", "pack" };
    if (big > 0) {
        /* the reproducer: `big` ints (2.4 GB for 600000000) received every
         * other int, executor `bigexec` */
        const layout s = { big, 1, 1, 1 }, r = { big, 1, 1, 2 };
        nb_t self;
        nb_make(&self, MPI_COMM_SELF, 1, one, 1, zero, "direct", bigexec);
        double t0 = MPI_Wtime();
        bc_case(&self, &s, &r, F_BLOCKING, 1, bigexec);
        if (mt_rank == 0) printf("%s: %ld ints with executor %s: %.1f s\n", mt_name, big, bigexec, MPI_Wtime() - t0);
        MPI_Comm_free(&self.c);
        return;
    }
    const char *run = getenv("CARTCOLL_PACK_RUN");
    /* without the knob the runs are 2 GiB and the multi-run paths idle */
    MT_CHECK(run && atoi(run) == 64, "bigcount must run with CARTCOLL_PACK_RUN=64 (got %s)", run ? run : "unset");
    static const layout L[][2] = {
        { { 1000, 1, 1, 1 }, { 1000, 1, 1, 2 } },  /* the reproducer, 1000 ints: 63 runs of 16 */
        { { 200, 1, 1, 1 }, { 5, 40, 2, 79 } },    /* receive elements of 160 bytes > a run */
        { { 4, 50, 3, 148 }, { 5, 40, 2, 79 } },   /* both sides strided, elements > a run */
        { { 4, 50, 3, 148 }, { 200, 1, 1, 1 } },   /* send elements > a run, receive contiguous */
        { { 300, 1, 1, 3 }, { 300, 1, 1, 2 } },    /* both sides strided, small elements */
        { { 16, 1, 1, 1 }, { 16, 1, 1, 2 } },      /* exactly one run */
        { { 17, 1, 1, 1 }, { 17, 1, 1, 2 } },      /* one int over a run */
    };
    int tag = 1;
    for (int e = 0; e < 2; e++) {
        nb_t self;
        nb_make(&self, MPI_COMM_SELF, 1, one, 1, zero, "direct", bexec[e]);
        for (size_t c = 0; c < sizeof L / sizeof L[0]; c++)
            for (int form = 0; form < F_N; form++, tag += 2) bc_case(&self, &L[c][0], &L[c][1], form, tag, bexec[e]);
        MPI_Comm_free(&self.c);
    }
}

/* ============================================================================
 * 9. bottom: MPI_BOTTOM buffers with absolute byte displacements (and types
 *    built on absolute addresses) in Cart_alltoallw / Cart_allgatherw.
 * ========================================================================== */

enum { BT_T = 2, BT_INTS = 2, BT_N = 24 };

/* Where each block's ints lie in the arrays, per configuration. */
typedef struct {
    int scount[BT_T], rcount[BT_T];
    MPI_Datatype stype[BT_T], rtype[BT_T];
    int sfirst[BT_T], rfirst[BT_T]; /* block origins (int index) */
    int spos[BT_T][BT_INTS], rpos[BT_T][BT_INTS];
    int nints;                      /* ints per block */
} bt_cfg;

typedef struct {
    const nb_t *n;
    const bt_cfg *cfg;
    int gather;                      /* Cart_allgatherw: send block is gpos */
    int gpos[BT_INTS];
    int *sb, *rb, ref[BT_N];
    int have_ref;
} bt_t;

/* send value of int j of block i (block "-1": the allgather block) */
static int bt_val(int tag, int src, int i, int j) { return V(tag, src, 10 * (i + 1) + j); }

static void bt_fill(void *arg, int tag)
{
    bt_t *x = arg;
    for (int j = 0; j < BT_N; j++) x->sb[j] = SENT - 1, x->rb[j] = SENT;
    for (int i = 0; i < BT_T; i++)
        for (int j = 0; j < x->cfg->nints; j++) x->sb[x->cfg->spos[i][j]] = bt_val(tag, x->n->me, i, j);
    for (int j = 0; j < x->cfg->nints; j++) x->sb[x->gpos[j]] = bt_val(tag, x->n->me, -1, j);
}

static void bt_check(void *arg, int tag)
{
    bt_t *x = arg;
    int want[BT_N];
    for (int j = 0; j < BT_N; j++) want[j] = SENT;
    for (int i = 0; i < BT_T; i++)
        for (int j = 0; j < x->cfg->nints; j++)
            want[x->cfg->rpos[i][j]] = bt_val(tag, x->n->src[i], x->gather ? -1 : i, j);
    for (int j = 0; j < BT_N; j++) {
        MT_CHECK(x->rb[j] == want[j], "%s: rb[%d] = %d, expected %d", ctx, j, x->rb[j], want[j]);
        if (x->have_ref)
            MT_CHECK(x->rb[j] == x->ref[j], "%s: rb[%d] = %d, MPI_Neighbor_alltoallw gives %d", ctx, j, x->rb[j],
                     x->ref[j]);
    }
}

static void bt_abs(const int *buf, int first, MPI_Aint *d) { MPI_Get_address(buf + first, d); }

/* One configuration on one communicator, in the three forms, with the MPI
 * reference on `graph` (MPI_COMM_NULL: oracle only). */
static void bt_run(const nb_t *n, MPI_Comm graph, const bt_cfg *cfg, int gather, MPI_Datatype gtype, int gcount,
                   const int gpos[], int gbottom, int *sb, int *rb, int *tag, const char *cfgname)
{
    bt_t x = { n, cfg, gather, { 0 }, sb, rb, { 0 }, 0 };
    for (int j = 0; j < BT_INTS; j++) x.gpos[j] = gpos[j];
    int scnt[BT_T], rcnt[BT_T];
    MPI_Aint sd[BT_T], rd[BT_T];
    MPI_Datatype st[BT_T], rt[BT_T];
    for (int i = 0; i < BT_T; i++) {
        scnt[i] = cfg->scount[i], rcnt[i] = cfg->rcount[i];
        st[i] = cfg->stype[i], rt[i] = cfg->rtype[i];
        bt_abs(sb, cfg->sfirst[i], &sd[i]);
        bt_abs(rb, cfg->rfirst[i], &rd[i]);
    }
    /* allgather send block: MPI_BOTTOM + absolute type, or an ordinary
     * buffer */
    const void *gbuf = gbottom ? MPI_BOTTOM : (const void *)(sb + gpos[0]);
    int gc[BT_T] = { gcount, gcount };
    MPI_Aint gd[BT_T] = { 0, 0 };
    MPI_Datatype gt[BT_T] = { gtype, gtype };
    for (int form = 0; form < F_N; form++) {
        SETCTX("bottom %s %s, %s", gather ? "Cart_allgatherw" : "Cart_alltoallw", form_name[form], cfgname);
        Cart_request r = CART_REQUEST_NULL;
        int rc = MPI_SUCCESS;
        if (form == F_PERSISTENT) {
            rc = gather ? Cart_allgatherw_init(gbuf, gcount, gtype, MPI_BOTTOM, rcnt, rd, rt, n->c, MPI_INFO_NULL, &r)
                        : Cart_alltoallw_init(MPI_BOTTOM, scnt, sd, st, MPI_BOTTOM, rcnt, rd, rt, n->c, MPI_INFO_NULL,
                                              &r);
            EXPECT_OK(rc, "*_init");
            if (rc != MPI_SUCCESS) continue;
        }
        for (int rep = 0; rep < (form == F_PERSISTENT ? 2 : 1); rep++, (*tag)++) {
            x.have_ref = 0;
            if (graph != MPI_COMM_NULL) {
                bt_fill(&x, *tag);
                rc = gather ? MPI_Neighbor_alltoallw(gbuf, gc, gd, gt, MPI_BOTTOM, rcnt, rd, rt, graph)
                            : MPI_Neighbor_alltoallw(MPI_BOTTOM, scnt, sd, st, MPI_BOTTOM, rcnt, rd, rt, graph);
                EXPECT_OK(rc, "MPI_Neighbor_alltoallw reference");
                memcpy(x.ref, rb, sizeof x.ref);
                x.have_ref = rc == MPI_SUCCESS;
            }
            bt_fill(&x, *tag);
            if (form == F_BLOCKING)
                rc = gather ? Cart_allgatherw(gbuf, gcount, gtype, MPI_BOTTOM, rcnt, rd, rt, n->c)
                            : Cart_alltoallw(MPI_BOTTOM, scnt, sd, st, MPI_BOTTOM, rcnt, rd, rt, n->c);
            else {
                if (form == F_NONBLOCKING)
                    rc = gather ? Cart_iallgatherw(gbuf, gcount, gtype, MPI_BOTTOM, rcnt, rd, rt, n->c, &r)
                                : Cart_ialltoallw(MPI_BOTTOM, scnt, sd, st, MPI_BOTTOM, rcnt, rd, rt, n->c, &r);
                else
                    rc = Cart_start(&r);
                if (rc == MPI_SUCCESS) rc = Cart_wait(&r);
            }
            EXPECT_OK(rc, "call");
            if (rc == MPI_SUCCESS) bt_check(&x, *tag);
        }
        if (form == F_PERSISTENT) EXPECT_OK(Cart_request_free(&r), "Cart_request_free");
    }
}

static void cmd_bottom(void)
{
    const int tg[BT_T] = { 1, -1 };
    int *sb = calloc(BT_N, sizeof(int)), *rb = calloc(BT_N, sizeof(int));
    MPI_Datatype vec; /* 2 ints, 3 apart */
    MPI_Type_vector(2, 1, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    /* A: one MPI_INT per block, blocks in reverse memory order (the
     *    reproducer).  B: 2 x MPI_INT and the vector, send and receive
     *    layouts crossed. */
    const bt_cfg A = { { 1, 1 }, { 1, 1 }, { MPI_INT, MPI_INT }, { MPI_INT, MPI_INT }, { 6, 2 }, { 7, 3 },
                       { { 6 }, { 2 } }, { { 7 }, { 3 } }, 1 };
    const bt_cfg B = { { 2, 1 }, { 1, 2 }, { MPI_INT, vec }, { vec, MPI_INT }, { 8, 1 }, { 10, 2 },
                       { { 8, 9 }, { 1, 4 } }, { { 10, 13 }, { 2, 3 } }, 2 };
    /* allgather send blocks: A an ordinary buffer (sb + 20, 1 MPI_INT);
     * B MPI_BOTTOM with a type on absolute addresses (sb[17], sb[12]). */
    const int gA[BT_INTS] = { 20, 20 }, gB[BT_INTS] = { 17, 12 };
    MPI_Datatype absT;
    int bl[2] = { 1, 1 };
    MPI_Aint ad[2];
    MPI_Get_address(sb + gB[0], &ad[0]);
    MPI_Get_address(sb + gB[1], &ad[1]);
    MPI_Type_create_hindexed(2, bl, ad, MPI_INT, &absT);
    MPI_Type_commit(&absT);

    /* MPI's own collective as a second oracle where it is reliable: no
     * repeated edges (p >= 3; MPICH reorders them). */
    MPI_Comm graph = MPI_COMM_NULL;
    if (mt_size >= 3) {
        int dims[1] = { mt_size }, per[1] = { 1 }, src[BT_T], dst[BT_T];
        for (int i = 0; i < BT_T; i++) {
            src[i] = mt_shift(mt_rank, 1, dims, per, &tg[i], -1);
            dst[i] = mt_shift(mt_rank, 1, dims, per, &tg[i], 1);
        }
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, BT_T, src, MPI_UNWEIGHTED, BT_T, dst, MPI_UNWEIGHTED,
                                       MPI_INFO_NULL, 0, &graph);
        MPI_Comm_set_errhandler(graph, MPI_ERRORS_RETURN);
    }
    int tag = 1;
    for (int a = 0; a < 4; a++)
        for (int e = 0; e < 3; e++) {
            nb_t n;
            char name[96];
            nb_ring(&n, BT_T, tg, algs[a], execs[e]);
            snprintf(name, sizeof name, "MPI_INT, algorithm %s, executor %s", algs[a], execs[e]);
            bt_run(&n, graph, &A, 0, MPI_INT, 1, gA, 0, sb, rb, &tag, name);
            bt_run(&n, graph, &A, 1, MPI_INT, 1, gA, 0, sb, rb, &tag, name);
            snprintf(name, sizeof name, "MPI_INT + vector, algorithm %s, executor %s", algs[a], execs[e]);
            bt_run(&n, graph, &B, 0, MPI_INT, 1, gB, 1, sb, rb, &tag, name);
            bt_run(&n, graph, &B, 1, absT, 1, gB, 1, sb, rb, &tag, name);
            MPI_Comm_free(&n.c);
        }
    if (graph != MPI_COMM_NULL) MPI_Comm_free(&graph);
    MPI_Type_free(&vec);
    MPI_Type_free(&absT);
    free(sb);
    free(rb);
}

/* ============================================================================
 * 10. progress: rank 0 completes its operation and then sends to the last
 *     rank, which receives BEFORE waiting for its own; multi-phase
 *     schedules need the last rank's forwarding meanwhile.
 * ========================================================================== */

static void cmd_progress(int provided)
{
    const char *ap = getenv("CARTCOLL_ASYNC_PROGRESS");
    MT_CHECK(ap && !strcmp(ap, "1"), "progress must run with CARTCOLL_ASYNC_PROGRESS=1 (got %s)", ap ? ap : "unset");
    MT_CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_Init_thread gave thread level %d, not MPI_THREAD_MULTIPLE",
             provided);
    MT_CHECK(mt_size >= 2 && mt_size % 2 == 0, "progress needs an even number of processes (%d)", mt_size);
    if (provided != MPI_THREAD_MULTIPLE || mt_size < 2 || mt_size % 2) return; /* it would hang */
    int dims[2] = { 2, mt_size / 2 };
    const int tg[8] = { 1, 1, -1, -1, 1, -1, -1, 1 }; /* diagonals: 2 phases (combining, torus) */
    const char *const palgs[3] = { "combining", "torus", "auto" };
    int tag = 1;
    for (int a = 0; a < 3; a++) {
        nb_t n;
        nb_make(&n, MPI_COMM_WORLD, 2, dims, 4, tg, palgs[a], NULL);
        /* Every other rank in turn blocks in MPI_Recv; those that forward
         * blocks for rank 0 (rank 1 on 2 x 2, as in the reproducer) made
         * it hang.  (On 2 processes nothing is forwarded.) */
        for (int partner = 1; partner < mt_size; partner++)
            for (int it = 0; it < 3; it++, tag++) {
                SETCTX("progress, algorithm %s, rank %d blocked in MPI_Recv, round %d", palgs[a], partner, it);
                int sb[4], rb[4], tok = -1;
                Cart_request r = CART_REQUEST_NULL;
                fill1(&n, sb, rb, tag);
                EXPECT_OK(Cart_ialltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, n.c, &r), "Cart_ialltoall");
                if (n.me == 0) {
                    EXPECT_OK(Cart_wait(&r), "Cart_wait");
                    tok = tag;
                    MPI_Send(&tok, 1, MPI_INT, partner, 5, MPI_COMM_WORLD);
                } else if (n.me == partner) {
                    MPI_Recv(&tok, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MT_EQ(tok, tag, ctx);
                    EXPECT_OK(Cart_wait(&r), "Cart_wait");
                } else {
                    EXPECT_OK(Cart_wait(&r), "Cart_wait");
                }
                check1(&n, rb, tag, "Cart_ialltoall");
            }
        MPI_Comm_free(&n.c);
    }
}

/* ============================================================================
 * 11. info_mismatch: *_init info that differs between processes fails on
 *     every process (MPI_ERR_ARG) and leaves the requests alone.
 * ========================================================================== */

static void cmd_info_mismatch(void)
{
    int dims[2] = { 0, 0 };
    MPI_Dims_create(mt_size, 2, dims);
    const int tg[10] = { 1, 1, -1, -1, 1, -1, -1, 1, 2, 0 };
    nb_t n;
    nb_make(&n, MPI_COMM_WORLD, 2, dims, 5, tg, NULL, NULL);
    int sb[5] = { 0 }, rb[5] = { 0 }, tag = 1;
    /* preset for the requests: a live one, to see that failures leave it */
    Cart_request live = CART_REQUEST_NULL;
    int lsb[5] = { 0 }, lrb[5] = { 0 };
    EXPECT_OK(Cart_alltoall_init(lsb, 1, MPI_INT, lrb, 1, MPI_INT, n.c, MPI_INFO_NULL, &live), "live request");
    struct {
        const char *name, *alg0, *exec0, *alg, *exec; /* rank 0, the others (NULL: key left out) */
        int ok;
    } cases[] = {
        { "algorithm direct vs combining", "direct", NULL, "combining", NULL, 0 },
        { "algorithm combining vs direct", "combining", NULL, "direct", NULL, 0 },
        { "algorithm direct vs MPI_INFO_NULL (auto)", "direct", NULL, NULL, NULL, 0 },
        { "algorithm torus vs no key (auto)", "torus", "pack", NULL, "pack", 0 },
        { "executor datatype vs pack", NULL, "datatype", NULL, "pack", 0 },
        { "executor pack vs MPI_INFO_NULL (auto)", NULL, "pack", NULL, NULL, 0 },
        { "same algorithm combining", "combining", NULL, "combining", NULL, 1 },
        { "same algorithm torus, executor pack", "torus", "pack", "torus", "pack", 1 },
        { "same executor datatype", NULL, "datatype", NULL, "datatype", 1 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        SETCTX("info_mismatch: %s", cases[k].name);
        MPI_Info info = n.me == 0 ? mt_info(cases[k].alg0, cases[k].exec0) : mt_info(cases[k].alg, cases[k].exec);
        Cart_request r = live;
        int rc = Cart_alltoall_init(sb, 1, MPI_INT, rb, 1, MPI_INT, n.c, info, &r);
        mt_info_free(&info);
        if (!cases[k].ok) {
            EXPECT_CLASS(rc, MPI_ERR_ARG, "Cart_alltoall_init with different info");
            MT_CHECK(r == live, "%s: the failed init changed its request", ctx);
            if (rc == MPI_SUCCESS && r != live) Cart_request_free(&r);
        } else {
            EXPECT_OK(rc, "Cart_alltoall_init with equal info");
            MT_CHECK(r != live && r != CART_REQUEST_NULL, "%s: no new request", ctx);
            if (rc == MPI_SUCCESS && r != live && r != CART_REQUEST_NULL) {
                for (int s = 0; s < 3; s++, tag++) {
                    fill1(&n, sb, rb, tag);
                    EXPECT_OK(Cart_start(&r), "Cart_start");
                    EXPECT_OK(Cart_wait(&r), "Cart_wait");
                    check1(&n, rb, tag, "start/wait");
                }
                EXPECT_OK(Cart_request_free(&r), "Cart_request_free");
            }
        }
        valid_blocking(&n, tag++, "blocking Cart_alltoall afterwards");
    }
    SETCTX("info_mismatch: the live request");
    fill1(&n, lsb, lrb, tag);
    EXPECT_OK(Cart_start(&live), "Cart_start(live)");
    EXPECT_OK(Cart_wait(&live), "Cart_wait(live)");
    check1(&n, lrb, tag, "live request");
    EXPECT_OK(Cart_request_free(&live), "Cart_request_free(live)");
    MPI_Comm_free(&n.c);
}

/* ============================================================================ */

static void usage(void)
{
    if (mt_rank == 0)
        fprintf(stderr, "usage: test_defects typemap|tagwrap|diverge|dupnb|waitall_dup|freed_comm|stencil|"
                        "bigcount [N [EXECUTOR]]|bottom|progress|info_mismatch\n");
}

int main(int argc, char **argv)
{
    static char name[64];
    const char *cmd = argc > 1 ? argv[1] : "";
    snprintf(name, sizeof name, "test_defects %s", cmd);
    int provided = MPI_THREAD_SINGLE;
    if (!strcmp(cmd, "progress")) {
        /* the progress thread needs MPI_THREAD_MULTIPLE; the rest of
         * mt_init is done here */
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
        MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
        mt_name = name;
        setvbuf(stdout, NULL, _IOLBF, 0);
    } else {
        mt_init(&argc, &argv, name);
    }
    MPI_Comm_create_errhandler(rec_user, &eh_user);
    MPI_Comm_create_errhandler(rec_self, &eh_self);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, eh_self);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh_self);
    log_reset(&log_user);
    log_reset(&log_self);

    int known = 1;
    if (!strcmp(cmd, "typemap")) cmd_typemap();
    else if (!strcmp(cmd, "tagwrap")) cmd_tagwrap();
    else if (!strcmp(cmd, "diverge")) cmd_diverge();
    else if (!strcmp(cmd, "dupnb")) cmd_dupnb();
    else if (!strcmp(cmd, "waitall_dup")) cmd_waitall_dup();
    else if (!strcmp(cmd, "freed_comm")) cmd_freed_comm();
    else if (!strcmp(cmd, "stencil")) cmd_stencil();
    else if (!strcmp(cmd, "bigcount")) cmd_bigcount(argc > 2 ? atol(argv[2]) : 0, argc > 3 ? argv[3] : "datatype");
    else if (!strcmp(cmd, "bottom")) cmd_bottom();
    else if (!strcmp(cmd, "progress")) cmd_progress(provided);
    else if (!strcmp(cmd, "info_mismatch")) cmd_info_mismatch();
    else known = 0;
    MT_CHECK(known, "unknown subcommand '%s'", cmd);
    if (!known) usage();

    /* No error was expected on MPI_COMM_SELF / MPI_COMM_WORLD (stencil
     * resets the log after its expected ones). */
    MT_CHECK(log_self.calls == 0, "MPI_COMM_SELF/WORLD's handler ran %d times (last code %d, class %d)",
             log_self.calls, log_self.code, ecls(log_self.code));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&eh_user);
    MPI_Errhandler_free(&eh_self);
    return mt_finish();
}

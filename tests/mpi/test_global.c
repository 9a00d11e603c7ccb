/* [ortho] One interface set: Cart_ collectives on communicators without a
 * neighbourhood have the global MPI meaning (API.md, "One interface set").
 *
 * Oracle: MPI's own collective, run with identical inputs on a second, equal
 * plain communicator (MPI_Comm_dup of the one under test), compared
 * int-by-int over whole buffers (gaps of derived datatypes, blocks outside
 * the counts and untouched receive areas included; send buffers must stay
 * unchanged).
 *
 *  - Intra-communicators without topology: a dup of MPI_COMM_WORLD, one
 *    named with Cart_name (a naming does not change the meaning), and one
 *    with the ranks reversed (MPI_Comm_split): bcast, gather(v),
 *    scatter(v), reduce, allreduce, reduce_scatter(_block), scan, exscan and
 *    the [core] allgather(v,w) / alltoall(v,w) (MPI_Allgather(v),
 *    MPI_Alltoall(v,w); Cart_allgatherw against MPI_Alltoallw with the same
 *    send block for every destination).  Blocking, Cart_iX + Cart_wait or a
 *    Cart_test loop, Cart_X_init + 3 x (Cart_start, Cart_wait/test) with new
 *    contents each start + Cart_request_free.  Counts 0, 1, 7, 1000;
 *    MPI_INT, a strided MPI_Type_vector, and send/receive types that differ
 *    with equal signatures; several roots; MPI_IN_PLACE where MPI allows it;
 *    MPI_SUM, MPI_MAX, MPI_LAND on MPI_INT and a non-commutative user
 *    operation (2x2 matrix product mod a prime) over a contiguous and over a
 *    strided type of 4 ints.
 *  - Lifetime (last pass, --no-scribble skips it): after the non-blocking
 *    and *_init calls the count/displacement/type arrays are overwritten
 *    and the (duplicated) derived datatypes freed, as cartcoll.h allows.
 *  - Barrier (intra and inter): a process that enters late delays every
 *    process that must wait for it (causal timing: it enters only after a
 *    message each other process sent before entering, plus a delay).
 *  - Mixed request arrays: Cart_iallreduce, a persistent Cart_bcast_init
 *    (global meaning) and Cart_ialltoall / Cart_alltoall_init on a
 *    Cart_neighborhood_create communicator in one Cart_waitall, one
 *    Cart_startall, Cart_test loops.
 *  - Inter-communicator (p >= 2, two halves): barrier, bcast (MPI_ROOT /
 *    MPI_PROC_NULL / remote root), allreduce, allgather against MPI's
 *    inter-communicator collectives.
 *  - Bad input with MPI_ERRORS_RETURN (and again with a recording handler):
 *    MPI_OP_NULL, root out of range, negative counts, MPI_DATATYPE_NULL,
 *    NULL request pointers, MPI_COMM_NULL (raised on MPI_COMM_SELF), and
 *    (section "uncommitted", run late) uncommitted datatypes; classes,
 *    buffers and requests untouched, processes in step afterwards.
 *
 * MPI defects worked around (each confirmed with MPI alone):
 *  - Open MPI 4.1 rejects MPI_SUM etc. on derived datatypes (MPI defines the
 *    predefined operations on predefined types), so derived types meet the
 *    reductions with the user-defined operation only.
 *  - Open MPI 4.1: MPI_Ibarrier on an inter-communicator returns before the
 *    other group entered; cartcoll routes around it (src/coll/global_routes.c),
 *    so the early-leave check runs in every form.
 *  - Open MPI 4.1: MPI_Alltoallw on one process (coll/self) multiplies the
 *    byte displacements by the extent; there the w variants' single block
 *    sits at displacement 0.
 *  - MPICH 4.0.2: MPI_Reduce with MPI_IN_PLACE at a root other than 0, a
 *    predefined operation and more than 512 ints crashes in MPICH; such
 *    cases run without MPI_IN_PLACE there.
 *  - In-place reduce_scatter(_block): MPI defines only the result part of
 *    the receive buffer afterwards; only that part is compared.
 *
 * Options: --only NAME (one collective, e.g. gatherv), --case SALT (with
 * --only: the one case of that salt, as failure messages give it),
 * --no-scribble, --verbose,
 * --section intra|barrier|mixed|inter|errors|uncommitted|lifetime
 * (repeatable; default all, in that order). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
    C_BCAST,
    C_GATHER,
    C_GATHERV,
    C_SCATTER,
    C_SCATTERV,
    C_REDUCE,
    C_ALLREDUCE,
    C_RSB,
    C_RS,
    C_SCAN,
    C_EXSCAN,
    C_ALLGATHER,
    C_ALLGATHERV,
    C_ALLGATHERW,
    C_ALLTOALL,
    C_ALLTOALLV,
    C_ALLTOALLW,
    C_BARRIER,
    NCOLL
};
static const char *const coll_name[NCOLL] = { "bcast",     "gather",       "gatherv",    "scatter",    "scatterv",
                                              "reduce",    "allreduce",    "reduce_scatter_block",     "reduce_scatter",
                                              "scan",      "exscan",       "allgather",  "allgatherv", "allgatherw",
                                              "alltoall",  "alltoallv",    "alltoallw",  "barrier" };
static const char *const form_name[3] = { "blocking", "non-blocking", "persistent" };

/* Value kinds; V_SUM.. are also the reduction variants: predefined operations
 * on MPI_INT (MPI defines them for predefined types only; Open MPI rejects a
 * vector of ints), the user-defined non-commutative matrix product on a
 * contiguous and on a strided derived type. */
enum { V_PLAIN, V_SUM, V_MAX, V_LAND, V_MAT, V_MATV };
static const char *const op_name[6] = { "-", "MPI_SUM", "MPI_MAX", "MPI_LAND", "matmul", "matmul-strided" };

#define PRIME 1009

static int is_reduction(int c) { return c >= C_REDUCE && c <= C_EXSCAN; }
static int is_rooted(int c) { return c <= C_REDUCE; }
static int inplace_allowed(int c) { return c != C_BCAST && c != C_ALLGATHERW && c < C_ALLTOALL; }

/* vector(2,1,3,int): 2 ints, extent 4 ints; contiguous(4,int); vector(4,1,2,int): 4 ints, extent 7 ints */
static MPI_Datatype T_VEC, T_MAT, T_MATV;
static MPI_Op OP_MAT, OP_MATV;
static int scribble = 0;      /* overwrite arrays / free types after Cart_iX and *_init (lifetime pass) */
static int lifetime_pass = 1; /* --no-scribble: skip that pass */
static int verbose = 0, only_case = 0;
static const char *only = NULL;

static int ext_ints(MPI_Datatype t)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    return (int)(ext / (MPI_Aint)sizeof(int));
}
static int sig_ints(MPI_Datatype t)
{
    int s;
    MPI_Type_size(t, &s);
    return s / (int)sizeof(int);
}
static const char *tname(MPI_Datatype t)
{
    return t == MPI_INT ? "int" : t == T_VEC ? "vec" : t == T_MAT ? "mat" : t == T_MATV ? "matv" : "?";
}

/* 2x2 matrices mod PRIME, inout = in x inout: associative, not commutative.
 * Entry k of element e at e * ext + k * stride ints. */
static void matmul(const int *a, int *b, int len, int ext, int st)
{
    for (int e = 0; e < len; e++, a += ext, b += ext) {
        long c0 = ((long)a[0] * b[0] + (long)a[st] * b[2 * st]) % PRIME;
        long c1 = ((long)a[0] * b[st] + (long)a[st] * b[3 * st]) % PRIME;
        long c2 = ((long)a[2 * st] * b[0] + (long)a[3 * st] * b[2 * st]) % PRIME;
        long c3 = ((long)a[2 * st] * b[st] + (long)a[3 * st] * b[3 * st]) % PRIME;
        b[0] = (int)c0;
        b[st] = (int)c1;
        b[2 * st] = (int)c2;
        b[3 * st] = (int)c3;
    }
}
static void matmul_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    matmul(in, inout, *len, 4, 1);
}
static void matmulv_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    matmul(in, inout, *len, 7, 2);
}

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Deterministic content per (rank, index, round, salt). */
static int val(int vk, int rank, size_t i, int round, int salt)
{
    uint64_t h = mix64((uint64_t)(rank + 1) * 0x9E3779B97F4A7C15ull ^ mix64((uint64_t)i + 0x1234567ull * (uint64_t)salt) ^
                       ((uint64_t)round << 40));
    switch (vk) {
    case V_LAND: return (h % 7) ? (int)(h % 5) + 1 : 0;
    case V_MAT:
    case V_MATV: return (int)(h % PRIME);
    default: return (int)(h % 2001) - 1000;
    }
}
/* Untouched areas: large positive, never a data value, different per int. */
static int sentinel(size_t i) { return 0x5A000000 | (int)(i & 0xFFFFF); }

static MPI_Op op_of(int vk)
{
    switch (vk) {
    case V_SUM: return MPI_SUM;
    case V_MAX: return MPI_MAX;
    case V_LAND: return MPI_LAND;
    case V_MAT: return OP_MAT;
    default: return OP_MATV;
    }
}

/* ---- one call's arguments and the two dispatchers -------------------------------- */

typedef struct {
    const void *sb;
    void *rb;
    int sc, rc;
    MPI_Datatype st, rt;
    const int *scs, *sds, *rcs, *rds;
    const MPI_Aint *sdw, *rdw;
    const MPI_Datatype *sts, *rts;
    int root;
    MPI_Op op;
} call_t;

#define FORMS(name, ...)                                                                                       \
    (form == 0 ? Cart_##name(__VA_ARGS__, comm)                                                                \
               : form == 1 ? Cart_i##name(__VA_ARGS__, comm, req) : Cart_##name##_init(__VA_ARGS__, comm, info, req))

static int cart_call(int coll, int form, const call_t *c, MPI_Comm comm, Cart_request *req)
{
    MPI_Info info = MPI_INFO_NULL;
    switch (coll) {
    case C_BCAST: return FORMS(bcast, c->rb, c->rc, c->rt, c->root);
    case C_GATHER: return FORMS(gather, c->sb, c->sc, c->st, c->rb, c->rc, c->rt, c->root);
    case C_GATHERV: return FORMS(gatherv, c->sb, c->sc, c->st, c->rb, c->rcs, c->rds, c->rt, c->root);
    case C_SCATTER: return FORMS(scatter, c->sb, c->sc, c->st, c->rb, c->rc, c->rt, c->root);
    case C_SCATTERV: return FORMS(scatterv, c->sb, c->scs, c->sds, c->st, c->rb, c->rc, c->rt, c->root);
    case C_REDUCE: return FORMS(reduce, c->sb, c->rb, c->rc, c->rt, c->op, c->root);
    case C_ALLREDUCE: return FORMS(allreduce, c->sb, c->rb, c->rc, c->rt, c->op);
    case C_RSB: return FORMS(reduce_scatter_block, c->sb, c->rb, c->rc, c->rt, c->op);
    case C_RS: return FORMS(reduce_scatter, c->sb, c->rb, c->rcs, c->rt, c->op);
    case C_SCAN: return FORMS(scan, c->sb, c->rb, c->rc, c->rt, c->op);
    case C_EXSCAN: return FORMS(exscan, c->sb, c->rb, c->rc, c->rt, c->op);
    case C_ALLGATHER: return FORMS(allgather, c->sb, c->sc, c->st, c->rb, c->rc, c->rt);
    case C_ALLGATHERV: return FORMS(allgatherv, c->sb, c->sc, c->st, c->rb, c->rcs, c->rds, c->rt);
    case C_ALLGATHERW: return FORMS(allgatherw, c->sb, c->sc, c->st, c->rb, c->rcs, c->rdw, c->rts);
    case C_ALLTOALL: return FORMS(alltoall, c->sb, c->sc, c->st, c->rb, c->rc, c->rt);
    case C_ALLTOALLV: return FORMS(alltoallv, c->sb, c->scs, c->sds, c->st, c->rb, c->rcs, c->rds, c->rt);
    case C_ALLTOALLW: return FORMS(alltoallw, c->sb, c->scs, c->sdw, c->sts, c->rb, c->rcs, c->rdw, c->rts);
    case C_BARRIER:
        return form == 0 ? Cart_barrier(comm) : form == 1 ? Cart_ibarrier(comm, req) : Cart_barrier_init(comm, info, req);
    }
    return MPI_ERR_INTERN;
}

/* MPI's own collective (the oracle); nblk = blocks of allgatherw's oracle. */
static int mpi_call(int coll, const call_t *c, MPI_Comm comm, int nblk)
{
    switch (coll) {
    case C_BCAST: return MPI_Bcast(c->rb, c->rc, c->rt, c->root, comm);
    case C_GATHER: return MPI_Gather(c->sb, c->sc, c->st, c->rb, c->rc, c->rt, c->root, comm);
    case C_GATHERV: return MPI_Gatherv(c->sb, c->sc, c->st, c->rb, c->rcs, c->rds, c->rt, c->root, comm);
    case C_SCATTER: return MPI_Scatter(c->sb, c->sc, c->st, c->rb, c->rc, c->rt, c->root, comm);
    case C_SCATTERV: return MPI_Scatterv(c->sb, c->scs, c->sds, c->st, c->rb, c->rc, c->rt, c->root, comm);
    case C_REDUCE: return MPI_Reduce(c->sb, c->rb, c->rc, c->rt, c->op, c->root, comm);
    case C_ALLREDUCE: return MPI_Allreduce(c->sb, c->rb, c->rc, c->rt, c->op, comm);
    case C_RSB: return MPI_Reduce_scatter_block(c->sb, c->rb, c->rc, c->rt, c->op, comm);
    case C_RS: return MPI_Reduce_scatter(c->sb, c->rb, c->rcs, c->rt, c->op, comm);
    case C_SCAN: return MPI_Scan(c->sb, c->rb, c->rc, c->rt, c->op, comm);
    case C_EXSCAN: return MPI_Exscan(c->sb, c->rb, c->rc, c->rt, c->op, comm);
    case C_ALLGATHER: return MPI_Allgather(c->sb, c->sc, c->st, c->rb, c->rc, c->rt, comm);
    case C_ALLGATHERV: return MPI_Allgatherv(c->sb, c->sc, c->st, c->rb, c->rcs, c->rds, c->rt, comm);
    case C_ALLTOALL: return MPI_Alltoall(c->sb, c->sc, c->st, c->rb, c->rc, c->rt, comm);
    case C_ALLTOALLV: return MPI_Alltoallv(c->sb, c->scs, c->sds, c->st, c->rb, c->rcs, c->rds, c->rt, comm);
    case C_BARRIER: return MPI_Barrier(comm);
    case C_ALLGATHERW:
    case C_ALLTOALLW: {
        /* allgatherw = alltoallw with the one send block for every destination */
        int *scs = malloc(sizeof(int) * (size_t)nblk * 4);
        int *sd = scs + nblk, *rd = scs + 2 * nblk;
        MPI_Datatype *sts = malloc(sizeof(MPI_Datatype) * (size_t)nblk);
        for (int i = 0; i < nblk; i++) {
            scs[i] = coll == C_ALLGATHERW ? c->sc : c->scs[i];
            sd[i] = coll == C_ALLGATHERW ? 0 : (int)c->sdw[i];
            sts[i] = coll == C_ALLGATHERW ? c->st : c->sts[i];
            rd[i] = (int)c->rdw[i];
        }
        int rc = MPI_Alltoallw(c->sb, scs, sd, sts, c->rb, c->rcs, rd, c->rts, comm);
        free(scs);
        free(sts);
        return rc;
    }
    }
    return MPI_ERR_INTERN;
}

static const char *errstr(int rc)
{
    static char s[MPI_MAX_ERROR_STRING + 32];
    char e[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, e, &len) != MPI_SUCCESS) snprintf(e, sizeof e, "?");
    snprintf(s, sizeof s, "code %d class %d: %s", rc, mt_error_class(rc), e);
    return s;
}

/* ---- one case: layout, buffers, run, compare -------------------------------------- */

typedef struct {
    /* what */
    int coll, form, n, mode, vk, root, inplace, salt;
    int inter;     /* inter-communicator: bcast root is MPI_ROOT/MPI_PROC_NULL/remote rank */
    int is_root;   /* this process is the root (intra: me == root; inter: root == MPI_ROOT) */
    int p, me;     /* blocks received (remote size on an inter-communicator), local rank */
    MPI_Comm comm, oracle;
    const char *cname;
    /* layout */
    MPI_Datatype st, rt;
    int sc, rc;
    int *scs, *sds, *rcs, *rds;
    MPI_Aint *sdw, *rdw;
    MPI_Datatype *sts, *rts;
    size_t sb_n, rb_n;
    int sb_inplace, rb_inplace, rb_input, cmp_rb;
} kase;

static int w3(int i, int salt) { return (i + salt) % 3; }
static int w3x(int i, int j, int salt) { return (i + 2 * j + salt) % 3; }

/* Blocks placed in reverse order with a gap before each (v: in units of t's extent). */
static size_t place_v(int p, const int cnt[], MPI_Datatype t, int displs[])
{
    int pos = 0;
    for (int i = p - 1; i >= 0; i--) {
        pos += 1;
        displs[i] = pos;
        pos += cnt[i];
    }
    return (size_t)pos * (size_t)ext_ints(t);
}
static size_t place_w(int p, const int cnt[], const MPI_Datatype types[], MPI_Aint displs[])
{
    size_t pos = 0, gap = 1;
#ifdef OPEN_MPI
    if (p == 1) gap = 0; /* Open MPI 4.1 coll/self MPI_Alltoallw scales byte displacements by the extent */
#endif
    for (int i = p - 1; i >= 0; i--) {
        pos += gap * (1 + (size_t)(i % 2));
        displs[i] = (MPI_Aint)(pos * sizeof(int));
        pos += (size_t)cnt[i] * (size_t)ext_ints(types[i]);
    }
    return pos;
}

static void layout(kase *k)
{
    int p = k->p, me = k->me, n = k->n;
    MPI_Datatype st, rt;
    int ns = n, nr = n;
    if (is_reduction(k->coll)) {
        st = rt = k->vk == V_MAT ? T_MAT : k->vk == V_MATV ? T_MATV : MPI_INT;
    } else {
        st = k->mode ? T_VEC : MPI_INT;
        rt = k->mode == 1 ? T_VEC : MPI_INT;
        if (k->mode == 2) nr = 2 * n; /* vec(n) -> int(2n): equal signatures */
    }
    int es = ext_ints(st), er = ext_ints(rt);
    k->st = st;
    k->rt = rt;
    k->sc = ns;
    k->rc = nr;
    size_t P = (size_t)p;
    k->scs = calloc(P, sizeof(int));
    k->sds = calloc(P, sizeof(int));
    k->rcs = calloc(P, sizeof(int));
    k->rds = calloc(P, sizeof(int));
    k->sdw = calloc(P, sizeof(MPI_Aint));
    k->rdw = calloc(P, sizeof(MPI_Aint));
    k->sts = calloc(P, sizeof(MPI_Datatype));
    k->rts = calloc(P, sizeof(MPI_Datatype));
    for (int i = 0; i < p; i++) k->sts[i] = k->rts[i] = MPI_INT;
    k->sb_n = k->rb_n = 0;
    k->sb_inplace = k->rb_inplace = k->rb_input = 0;
    k->cmp_rb = 1;
    int ip = k->inplace;
    switch (k->coll) {
    case C_BCAST:
        if (k->is_root) {
            k->rt = st;
            k->rc = ns;
            k->rb_input = 1;
        }
        k->rb_n = (size_t)k->rc * (size_t)ext_ints(k->rt);
        break;
    case C_GATHER:
    case C_GATHERV:
        if (k->coll == C_GATHERV) {
            k->sc = ns * w3(me, k->salt);
            for (int i = 0; i < p; i++) k->rcs[i] = nr * w3(i, k->salt);
            k->rb_n = place_v(p, k->rcs, rt, k->rds);
        } else {
            k->rb_n = P * (size_t)nr * (size_t)er;
        }
        k->sb_n = (size_t)k->sc * (size_t)es;
        if (!k->is_root) {
            k->rb_n = 4;
            k->cmp_rb = 0; /* insignificant at non-roots */
        } else if (ip) {
            k->sb_inplace = 1;
            k->rb_input = 1;
        }
        break;
    case C_SCATTER:
    case C_SCATTERV:
        if (k->coll == C_SCATTERV) {
            for (int i = 0; i < p; i++) k->scs[i] = ns * w3(i, k->salt);
            k->sb_n = place_v(p, k->scs, st, k->sds);
            k->rc = nr * w3(me, k->salt);
        } else {
            k->sb_n = P * (size_t)ns * (size_t)es;
        }
        if (!k->is_root) k->sb_n = 4;
        k->rb_n = (size_t)k->rc * (size_t)er;
        if (k->is_root && ip) {
            k->rb_inplace = 1;
            k->cmp_rb = 0;
        }
        break;
    case C_REDUCE:
    case C_ALLREDUCE:
    case C_SCAN:
    case C_EXSCAN:
        k->sb_n = k->rb_n = (size_t)n * (size_t)es;
        if (k->coll == C_REDUCE && !k->is_root) k->cmp_rb = 0;
        if (k->coll == C_EXSCAN && me == 0) k->cmp_rb = 0; /* undefined at rank 0 */
        if (ip && (k->coll != C_REDUCE || k->is_root)) {
            k->sb_inplace = 1;
            k->rb_input = 1;
        }
        break;
    case C_RSB:
        k->sb_n = P * (size_t)n * (size_t)es;
        k->rb_n = ip ? k->sb_n : (size_t)n * (size_t)es;
        if (ip) {
            k->sb_inplace = 1;
            k->rb_input = 1;
        }
        break;
    case C_RS: {
        size_t tot = 0;
        for (int i = 0; i < p; i++) {
            k->rcs[i] = n * w3(i, k->salt);
            tot += (size_t)k->rcs[i];
        }
        k->sb_n = tot * (size_t)es;
        k->rb_n = ip ? k->sb_n : (size_t)k->rcs[me] * (size_t)es;
        if (ip) {
            k->sb_inplace = 1;
            k->rb_input = 1;
        }
        break;
    }
    case C_ALLGATHER:
    case C_ALLGATHERV:
        if (k->coll == C_ALLGATHERV) {
            k->sc = ns * w3(me, k->salt);
            for (int i = 0; i < p; i++) k->rcs[i] = nr * w3(i, k->salt);
            k->rb_n = place_v(p, k->rcs, rt, k->rds);
        } else {
            k->rb_n = P * (size_t)nr * (size_t)er;
        }
        k->sb_n = (size_t)k->sc * (size_t)es;
        if (ip) {
            k->sb_inplace = 1;
            k->rb_input = 1;
        }
        break;
    case C_ALLGATHERW:
        k->sc = ns * w3(me, k->salt);
        k->sb_n = (size_t)k->sc * (size_t)es;
        for (int i = 0; i < p; i++) {
            int sig = ns * w3(i, k->salt) * sig_ints(st);
            k->rts[i] = (sig % 2 == 0 && (i + k->salt) % 2) ? T_VEC : MPI_INT;
            k->rcs[i] = sig / sig_ints(k->rts[i]);
        }
        k->rb_n = place_w(p, k->rcs, k->rts, k->rdw);
        break;
    case C_ALLTOALL:
        k->sb_n = P * (size_t)ns * (size_t)es;
        k->rb_n = P * (size_t)nr * (size_t)er;
        break;
    case C_ALLTOALLV:
        for (int j = 0; j < p; j++) k->scs[j] = ns * w3x(me, j, k->salt);
        for (int i = 0; i < p; i++) k->rcs[i] = nr * w3x(i, me, k->salt);
        k->sb_n = place_v(p, k->scs, st, k->sds);
        k->rb_n = place_v(p, k->rcs, rt, k->rds);
        break;
    case C_ALLTOALLW:
        for (int j = 0; j < p; j++) { /* block me -> j: 2 n w ints */
            int x = 2 * n * w3x(me, j, k->salt);
            k->sts[j] = (j + k->salt) % 2 ? T_VEC : MPI_INT;
            k->scs[j] = x / sig_ints(k->sts[j]);
        }
        for (int i = 0; i < p; i++) {
            int x = 2 * n * w3x(i, me, k->salt);
            k->rts[i] = (i + me + k->salt) % 2 ? T_VEC : MPI_INT;
            k->rcs[i] = x / sig_ints(k->rts[i]);
        }
        k->sb_n = place_w(p, k->scs, k->sts, k->sdw);
        k->rb_n = place_w(p, k->rcs, k->rts, k->rdw);
        break;
    }
}

static void kase_free(kase *k)
{
    free(k->scs);
    free(k->sds);
    free(k->rcs);
    free(k->rds);
    free(k->sdw);
    free(k->rdw);
    free(k->sts);
    free(k->rts);
}

static void describe(const kase *k, int round, char *s, size_t len)
{
    char rootbuf[32] = "";
    if (is_rooted(k->coll)) {
        if (k->root == MPI_ROOT)
            snprintf(rootbuf, sizeof rootbuf, " root=MPI_ROOT");
        else if (k->root == MPI_PROC_NULL)
            snprintf(rootbuf, sizeof rootbuf, " root=MPI_PROC_NULL");
        else
            snprintf(rootbuf, sizeof rootbuf, " root=%d", k->root);
    }
    snprintf(s, len, "Cart_%s %s on %s: count=%d types=%s/%s op=%s%s%s round=%d salt=%d", coll_name[k->coll],
             form_name[k->form], k->cname, k->n, tname(k->st), tname(k->rt), op_name[k->vk], rootbuf,
             k->inplace ? " MPI_IN_PLACE" : "", round, k->salt);
}

/* First mismatch of a buffer; returns 1 when they differ. */
static int compare(const kase *k, int round, const char *what, const int *got, const int *want, size_t n)
{
    mt_checks++;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            char d[512];
            describe(k, round, d, sizeof d);
            mt_fail(__FILE__, __LINE__, "%s: %s[%zu] = %d, expected %d (of %zu ints)  [replay: --section %s --only %s --case %d]",
                    d, what, i, got[i], want[i], n, scribble ? "lifetime" : k->inter ? "inter" : "intra",
                    coll_name[k->coll], k->salt);
            return 1;
        }
    return 0;
}

static void fill(const kase *k, int *sb, int *rb, int round)
{
    for (size_t i = 0; i < k->sb_n; i++) sb[i] = val(k->vk, k->me, i, round, k->salt);
    for (size_t i = 0; i < k->rb_n; i++) rb[i] = k->rb_input ? val(k->vk, k->me, i, round, k->salt + 7777) : sentinel(i);
}

/* Arguments for the Cart call of the non-blocking and persistent forms:
 * copies of the arrays and duplicates of the derived types, overwritten and
 * freed once the call returned. */
typedef struct {
    int *arr;
    MPI_Aint *aw;
    MPI_Datatype *ty;
    MPI_Datatype dups[8];
    int ndups;
} scratch_t;

static MPI_Datatype dup_type(scratch_t *s, MPI_Datatype t)
{
    if (t == MPI_INT || t == MPI_DATATYPE_NULL) return t;
    for (int i = 0; i < s->ndups; i += 2)
        if (s->dups[i] == t) return s->dups[i + 1];
    MPI_Datatype d;
    MPI_Type_dup(t, &d);
    s->dups[s->ndups++] = t;
    s->dups[s->ndups++] = d;
    return d;
}

static void scratch_make(scratch_t *s, const kase *k, call_t *c)
{
    size_t P = (size_t)k->p;
    memset(s, 0, sizeof *s);
    s->arr = malloc(sizeof(int) * 4 * P);
    s->aw = malloc(sizeof(MPI_Aint) * 2 * P);
    s->ty = malloc(sizeof(MPI_Datatype) * 2 * P);
    memcpy(s->arr, k->scs, sizeof(int) * P);
    memcpy(s->arr + P, k->sds, sizeof(int) * P);
    memcpy(s->arr + 2 * P, k->rcs, sizeof(int) * P);
    memcpy(s->arr + 3 * P, k->rds, sizeof(int) * P);
    memcpy(s->aw, k->sdw, sizeof(MPI_Aint) * P);
    memcpy(s->aw + P, k->rdw, sizeof(MPI_Aint) * P);
    for (size_t i = 0; i < P; i++) {
        s->ty[i] = dup_type(s, k->sts[i]);
        s->ty[P + i] = dup_type(s, k->rts[i]);
    }
    c->scs = s->arr;
    c->sds = s->arr + P;
    c->rcs = s->arr + 2 * P;
    c->rds = s->arr + 3 * P;
    c->sdw = s->aw;
    c->rdw = s->aw + P;
    c->sts = s->ty;
    c->rts = s->ty + P;
    c->st = dup_type(s, c->st);
    c->rt = dup_type(s, c->rt);
}

static void scratch_spoil(scratch_t *s, const kase *k)
{
    size_t P = (size_t)k->p;
    for (size_t i = 0; i < 4 * P; i++) s->arr[i] = -77777;
    for (size_t i = 0; i < 2 * P; i++) {
        s->aw[i] = -77777;
        s->ty[i] = MPI_DATATYPE_NULL;
    }
    for (int i = 1; i < s->ndups; i += 2) MPI_Type_free(&s->dups[i]);
    s->ndups = 0;
}

static void scratch_free(scratch_t *s)
{
    for (int i = 1; i < s->ndups; i += 2) MPI_Type_free(&s->dups[i]);
    free(s->arr);
    free(s->aw);
    free(s->ty);
}

static long n_cases, n_ops;

/* Complete *req with Cart_wait or a Cart_test loop; 0 on success. */
static int complete(Cart_request *req, int use_test, const char *d)
{
    int rc;
    if (use_test) {
        int flag = 0;
        do {
            rc = Cart_test(req, &flag);
        } while (rc == MPI_SUCCESS && !flag);
    } else {
        rc = Cart_wait(req);
    }
    MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_%s failed: %s", d, use_test ? "test" : "wait", errstr(rc));
    return rc;
}

static void run_case(kase *k)
{
    if (only_case && k->salt != only_case) return;
    layout(k);
    n_cases++;
    size_t sbn = k->sb_n ? k->sb_n : 1, rbn = k->rb_n ? k->rb_n : 1;
    int *csb = malloc(sizeof(int) * sbn), *crb = malloc(sizeof(int) * rbn);
    int *osb = malloc(sizeof(int) * sbn), *orb = malloc(sizeof(int) * rbn);
    int *psb = malloc(sizeof(int) * sbn);
    call_t cc = { .sb = k->sb_inplace ? MPI_IN_PLACE : csb,
                  .rb = k->rb_inplace ? MPI_IN_PLACE : crb,
                  .sc = k->sc,
                  .rc = k->rc,
                  .st = k->st,
                  .rt = k->rt,
                  .scs = k->scs,
                  .sds = k->sds,
                  .rcs = k->rcs,
                  .rds = k->rds,
                  .sdw = k->sdw,
                  .rdw = k->rdw,
                  .sts = k->sts,
                  .rts = k->rts,
                  .root = k->root,
                  .op = is_reduction(k->coll) ? op_of(k->vk) : MPI_OP_NULL };
    call_t oc = cc;
    oc.sb = k->sb_inplace ? MPI_IN_PLACE : osb;
    oc.rb = k->rb_inplace ? MPI_IN_PLACE : orb;
    char d[512];
    int use_test = (k->salt / 3) % 2;
    Cart_request req = CART_REQUEST_NULL;
    scratch_t s;
    int have_scratch = 0;
    if (k->form > 0 && scribble) {
        scratch_make(&s, k, &cc);
        have_scratch = 1;
    }
    int rounds = k->form == 2 ? 3 : 1, ok = 1;
    if (verbose) {
        describe(k, 0, d, sizeof d);
        printf("%s: rank %d: %s\n", mt_name, mt_rank, d);
    }
    for (int r = 0; r < rounds && ok; r++) {
        describe(k, r, d, sizeof d);
        fill(k, csb, crb, r);
        fill(k, osb, orb, r);
        memcpy(psb, csb, sizeof(int) * sbn);
        int rc;
        if (k->form == 0) {
            rc = cart_call(k->coll, 0, &cc, k->comm, NULL);
            MT_CHECK(rc == MPI_SUCCESS, "%s: failed: %s", d, errstr(rc));
        } else if (k->form == 1) {
            rc = cart_call(k->coll, 1, &cc, k->comm, &req);
            MT_CHECK(rc == MPI_SUCCESS, "%s: failed: %s", d, errstr(rc));
            if (rc == MPI_SUCCESS) {
                MT_CHECK(req != CART_REQUEST_NULL, "%s: no request returned", d);
                if (have_scratch) scratch_spoil(&s, k);
                rc = complete(&req, use_test, d);
                MT_CHECK(req == CART_REQUEST_NULL, "%s: completed request not set to CART_REQUEST_NULL", d);
            }
        } else {
            if (r == 0) {
                rc = cart_call(k->coll, 2, &cc, k->comm, &req);
                MT_CHECK(rc == MPI_SUCCESS, "%s: *_init failed: %s", d, errstr(rc));
                if (rc != MPI_SUCCESS) {
                    ok = 0;
                    break;
                }
                if (have_scratch) scratch_spoil(&s, k);
            }
            rc = Cart_start(&req);
            MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_start failed: %s", d, errstr(rc));
            if (rc == MPI_SUCCESS) {
                rc = complete(&req, (use_test + r) % 2, d);
                MT_CHECK(req != CART_REQUEST_NULL, "%s: persistent request freed by completion", d);
            }
        }
        n_ops++;
        int orc = mpi_call(k->coll, &oc, k->oracle, k->p);
        if (orc != MPI_SUCCESS) {
            mt_fail(__FILE__, __LINE__, "%s: the MPI oracle failed: %s", d, errstr(orc));
            MPI_Abort(MPI_COMM_WORLD, 4);
        }
        if (rc != MPI_SUCCESS) {
            ok = 0;
            break;
        }
        /* In-place reduce_scatter(_block): only the result part of recvbuf is
         * defined afterwards (MPI may use the rest as scratch). */
        size_t cmp_n = k->rb_n;
        if (k->inplace && k->coll == C_RSB) cmp_n = (size_t)k->n * (size_t)ext_ints(k->rt);
        if (k->inplace && k->coll == C_RS) cmp_n = (size_t)k->rcs[k->me] * (size_t)ext_ints(k->rt);
        if (k->cmp_rb) compare(k, r, "recvbuf", crb, orb, cmp_n);
        if (!k->sb_inplace) compare(k, r, "sendbuf (must stay unchanged)", csb, psb, k->sb_n);
    }
    if (k->form == 2 && req != CART_REQUEST_NULL) {
        int rc = Cart_request_free(&req);
        MT_CHECK(rc == MPI_SUCCESS && req == CART_REQUEST_NULL, "%s: Cart_request_free: %s", d, errstr(rc));
    }
    if (have_scratch) scratch_free(&s);
    free(csb);
    free(crb);
    free(osb);
    free(orb);
    free(psb);
    kase_free(k);
}

/* ---- the sweep over one intra-communicator ----------------------------------------- */

static int selected(int coll) { return !only || !strcmp(only, coll_name[coll]); }

/* level 2: everything; level 1: a subset (counts 1 and 7, fewer variants). */
static void sweep(MPI_Comm comm, MPI_Comm oracle, const char *cname, int level, int first_form)
{
    static const int counts[4] = { 0, 1, 7, 1000 };
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    int roots[4] = { 0, p - 1, p / 2, 1 % p };
    int salt = 0;
    double t0 = MPI_Wtime();
    for (int coll = 0; coll < C_BARRIER; coll++) {
        if (!selected(coll)) continue;
        int nvar = is_reduction(coll) ? 5 : 3;
        for (int form = first_form; form < 3; form++)
            for (int ci = 0; ci < 4; ci++) {
                if (level < 2 && (ci == 0 || ci == 3)) continue;
                for (int v = 0; v < nvar; v++) {
                    if (level < 2 && (v + ci + form) % 2) continue;
                    kase k;
                    memset(&k, 0, sizeof k);
                    k.coll = coll;
                    k.form = form;
                    k.n = counts[ci];
                    k.salt = ++salt;
                    k.p = p;
                    k.me = me;
                    k.comm = comm;
                    k.oracle = oracle;
                    k.cname = cname;
                    if (is_reduction(coll)) {
                        k.vk = V_SUM + v;
                    } else {
                        k.vk = V_PLAIN;
                        k.mode = v;
                    }
                    k.root = is_rooted(coll) ? roots[(ci + v + form) % 4] : 0;
                    k.is_root = me == k.root;
                    k.inplace = inplace_allowed(coll) && (ci + v + form) % 3 == 0;
#ifdef MPICH_VERSION
                    /* MPICH 4.0.2: MPI_Reduce with MPI_IN_PLACE at a root other
                     * than 0, a predefined operation and more than 512 ints
                     * crashes inside MPICH (the oracle itself). */
                    if (coll == C_REDUCE && k.inplace && k.root != 0 && k.n > 512 && k.vk < V_MAT) k.inplace = 0;
#endif
                    run_case(&k);
                }
            }
    }
    if (mt_rank == 0)
        printf("%s: sweep on %s%s: %.2f s\n", mt_name, cname, scribble ? " (arrays overwritten, types freed)" : "",
               MPI_Wtime() - t0);
}

/* ---- barrier: a late process delays those that must wait for it ------------------- */

#define LATE 0.03

static void sleep_s(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    nanosleep(&ts, NULL);
}

/* aux: a dup of MPI_COMM_WORLD for the causal messages.  must_wait(w, late):
 * whether world rank w must not leave before world rank `late` entered. */
static void barrier_test(MPI_Comm comm, const char *cname, MPI_Comm aux, const int *group, int inter)
{
    int me = mt_rank, p = mt_size;
    for (int form = 0; form < 3; form++) {
        Cart_request req = CART_REQUEST_NULL;
        int rounds = form == 2 ? 3 : 1;
        if (form == 2) {
            int rc = Cart_barrier_init(comm, MPI_INFO_NULL, &req);
            MT_CHECK(rc == MPI_SUCCESS, "Cart_barrier_init on %s: %s", cname, errstr(rc));
            if (rc != MPI_SUCCESS) continue;
        }
        for (int r = 0; r < rounds; r++) {
            int late = (3 * form + r + 1) % p;
            int rc = MPI_SUCCESS;
            double t0 = 0, t1 = 0;
            if (me == late) {
                for (int i = 0; i < p - 1; i++)
                    MPI_Recv(NULL, 0, MPI_INT, MPI_ANY_SOURCE, 100 + 3 * form + r, aux, MPI_STATUS_IGNORE);
                sleep_s(LATE);
            } else {
                t0 = MPI_Wtime();
                MPI_Send(NULL, 0, MPI_INT, late, 100 + 3 * form + r, aux);
            }
            if (form == 0) {
                rc = Cart_barrier(comm);
            } else {
                rc = form == 1 ? Cart_ibarrier(comm, &req) : Cart_start(&req);
                if (rc == MPI_SUCCESS) {
                    int flag = 0;
                    do {
                        rc = Cart_test(&req, &flag);
                    } while (rc == MPI_SUCCESS && !flag);
                }
            }
            t1 = MPI_Wtime();
            MT_CHECK(rc == MPI_SUCCESS, "Cart_barrier %s on %s: %s", form_name[form], cname, errstr(rc));
            int must = me != late && (!inter || group[me] != group[late]);
            /* (Open MPI 4.1's own MPI_Ibarrier on an inter-communicator
             * returns before the other group entered; cartcoll routes its
             * non-blocking and persistent barriers there around it.) */
            if (must)
                MT_CHECK(t1 - t0 >= 0.9 * LATE,
                         "Cart_barrier %s on %s round %d: left after %.4f s although world rank %d entered only %.3f s "
                         "after this process's message",
                         form_name[form], cname, r, t1 - t0, late, LATE);
            if (form == 1) MT_CHECK(req == CART_REQUEST_NULL, "Cart_ibarrier on %s: request not freed", cname);
        }
        if (form == 2 && req != CART_REQUEST_NULL) {
            int rc = Cart_request_free(&req);
            MT_CHECK(rc == MPI_SUCCESS, "Cart_request_free (barrier) on %s: %s", cname, errstr(rc));
        }
    }
}

/* ---- mixed request arrays ------------------------------------------------------------ */

#define MB 5 /* ints per alltoall block */
#define MAR 9
#define MBC 7

static void mixed_requests(MPI_Comm C, MPI_Comm O)
{
    int p = mt_size, me = mt_rank;
    const int targets[3] = { 1, -1, 2 }, dims[1] = { p }, periods[1] = { 1 };
    MPI_Comm N;
    int rc = Cart_neighborhood_create(MPI_COMM_WORLD, 1, dims, periods, 3, targets, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                      &N);
    MT_CHECK(rc == MPI_SUCCESS, "mixed: Cart_neighborhood_create: %s", errstr(rc));
    if (rc != MPI_SUCCESS) return;
    MPI_Comm_set_errhandler(N, MPI_ERRORS_RETURN);
    int ar_sb[MAR], ar_rb[MAR], ar_orb[MAR], bb[MBC], obb[MBC];
    int a_sb[3 * MB], a_rb[3 * MB], pa_sb[3 * MB], pa_rb[3 * MB];
    int root = p - 1;
    Cart_request pb = CART_REQUEST_NULL, pa = CART_REQUEST_NULL;
    rc = Cart_bcast_init(bb, MBC, MPI_INT, root, C, MPI_INFO_NULL, &pb);
    MT_CHECK(rc == MPI_SUCCESS, "mixed: Cart_bcast_init: %s", errstr(rc));
    int rc2 = Cart_alltoall_init(pa_sb, MB, MPI_INT, pa_rb, MB, MPI_INT, N, MPI_INFO_NULL, &pa);
    MT_CHECK(rc2 == MPI_SUCCESS, "mixed: Cart_alltoall_init: %s", errstr(rc2));
    if (rc != MPI_SUCCESS || rc2 != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 5);
    for (int round = 0; round < 4; round++) {
        int salt = 900 + round;
        for (int i = 0; i < MAR; i++) {
            ar_sb[i] = val(V_SUM, me, (size_t)i, round, salt);
            ar_rb[i] = ar_orb[i] = sentinel((size_t)i);
        }
        for (int i = 0; i < MBC; i++) bb[i] = obb[i] = me == root ? val(V_PLAIN, me, (size_t)i, round, salt + 1) : sentinel((size_t)i);
        for (int i = 0; i < 3 * MB; i++) {
            a_sb[i] = val(V_PLAIN, me, (size_t)i, round, salt + 2);
            pa_sb[i] = val(V_PLAIN, me, (size_t)i, round, salt + 3);
            a_rb[i] = pa_rb[i] = sentinel((size_t)i);
        }
        Cart_request r[4] = { CART_REQUEST_NULL, CART_REQUEST_NULL, CART_REQUEST_NULL, CART_REQUEST_NULL };
        int bad = 0;
#define MX(call)                                                                                \
    do {                                                                                        \
        int rc_ = (call);                                                                       \
        if (rc_ != MPI_SUCCESS) {                                                               \
            mt_fail(__FILE__, __LINE__, "mixed round %d: %s: %s", round, #call, errstr(rc_));   \
            bad = 1;                                                                            \
        }                                                                                       \
    } while (0)
        MX(Cart_iallreduce(ar_sb, ar_rb, MAR, MPI_INT, MPI_SUM, C, &r[0]));
        if (round == 0) {
            /* iallreduce, started persistent bcast, ialltoall: one Cart_waitall */
            MX(Cart_start(&pb));
            r[1] = pb;
            MX(Cart_ialltoall(a_sb, MB, MPI_INT, a_rb, MB, MPI_INT, N, &r[2]));
            if (!bad) MX(Cart_waitall(3, r));
            MT_CHECK(r[0] == CART_REQUEST_NULL && r[2] == CART_REQUEST_NULL,
                     "mixed: Cart_waitall did not free the non-blocking requests");
            MT_CHECK(r[1] == pb && pb != CART_REQUEST_NULL, "mixed: Cart_waitall changed the persistent request");
        } else {
            /* two persistent requests of different kinds in one Cart_startall */
            MX(Cart_ialltoall(a_sb, MB, MPI_INT, a_rb, MB, MPI_INT, N, &r[1]));
            r[2] = pb;
            r[3] = pa;
            MX(Cart_startall(2, &r[2]));
            if (round == 1) { /* Cart_test loops in rank-dependent order until every flag */
                int done[4] = { 0, 0, 0, 0 }, left = 4;
                while (left && !bad) {
                    left = 0;
                    for (int j = 0; j < 4; j++) {
                        int i = me % 2 ? 3 - j : (j + me) % 4, flag = 0;
                        if (done[i]) continue;
                        MX(Cart_test(&r[i], &flag));
                        done[i] = flag;
                        left += !flag;
                    }
                }
                MT_CHECK(r[0] == CART_REQUEST_NULL && r[1] == CART_REQUEST_NULL && r[2] == pb && r[3] == pa,
                         "mixed: Cart_test left the requests wrong");
            } else if (round == 2) {
                Cart_request perm[4] = { r[(me + 1) % 4], r[(me + 3) % 4], r[me % 4], r[(me + 2) % 4] };
                if (!bad) MX(Cart_waitall(4, perm));
                int nn = 0, keep = 0;
                for (int j = 0; j < 4; j++) {
                    nn += perm[j] == CART_REQUEST_NULL;
                    keep += perm[j] == pb || perm[j] == pa;
                }
                MT_CHECK(nn == 2 && keep == 2, "mixed: Cart_waitall(4): %d freed, %d persistent kept", nn, keep);
            } else { /* one Cart_wait each, persistent first on odd ranks */
                for (int j = 0; j < 4; j++) MX(Cart_wait(&r[me % 2 ? 3 - j : j]));
                MT_CHECK(r[0] == CART_REQUEST_NULL && r[1] == CART_REQUEST_NULL && r[2] == pb && r[3] == pa,
                         "mixed: Cart_wait left the requests wrong");
            }
        }
        if (bad) MPI_Abort(MPI_COMM_WORLD, 5);
        MPI_Allreduce(ar_sb, ar_orb, MAR, MPI_INT, MPI_SUM, O);
        MPI_Bcast(obb, MBC, MPI_INT, root, O);
        for (int i = 0; i < MAR; i++)
            if (ar_rb[i] != ar_orb[i]) {
                mt_fail(__FILE__, __LINE__, "mixed round %d: Cart_iallreduce recvbuf[%d] = %d, MPI gives %d", round, i,
                        ar_rb[i], ar_orb[i]);
                break;
            }
        for (int i = 0; i < MBC; i++)
            if (bb[i] != obb[i]) {
                mt_fail(__FILE__, __LINE__, "mixed round %d: Cart_bcast_init (root %d) buffer[%d] = %d, MPI gives %d",
                        round, root, i, bb[i], obb[i]);
                break;
            }
        mt_checks += 2;
        /* alltoall on the neighbourhood: block b from (me - N[b]) mod p, its send block b */
        for (int b = 0; b < 3; b++) {
            int src = ((me - targets[b]) % p + p) % p;
            for (int e = 0; e < MB; e++) {
                int want = val(V_PLAIN, src, (size_t)(b * MB + e), round, salt + 2);
                int pwant = val(V_PLAIN, src, (size_t)(b * MB + e), round, salt + 3);
                MT_CHECK(a_rb[b * MB + e] == want, "mixed round %d: Cart_ialltoall block %d [%d] = %d, expected %d",
                         round, b, e, a_rb[b * MB + e], want);
                if (round > 0)
                    MT_CHECK(pa_rb[b * MB + e] == pwant,
                             "mixed round %d: Cart_alltoall_init block %d [%d] = %d, expected %d", round, b, e,
                             pa_rb[b * MB + e], pwant);
            }
        }
        n_ops += round == 0 ? 3 : 4;
    }
    rc = Cart_request_free(&pb);
    MT_CHECK(rc == MPI_SUCCESS && pb == CART_REQUEST_NULL, "mixed: Cart_request_free(bcast): %s", errstr(rc));
    rc = Cart_request_free(&pa);
    MT_CHECK(rc == MPI_SUCCESS && pa == CART_REQUEST_NULL, "mixed: Cart_request_free(alltoall): %s", errstr(rc));
    MPI_Comm_free(&N);
}

/* ---- inter-communicator -------------------------------------------------------------- */

static void inter_tests(MPI_Comm aux)
{
    int p = mt_size, me = mt_rank;
    if (p < 2) {
        if (me == 0) printf("%s: inter-communicator tests need 2 processes (skipped)\n", mt_name);
        return;
    }
    int half = p / 2, color = me < half ? 0 : 1;
    int *group = malloc(sizeof(int) * (size_t)p);
    for (int i = 0; i < p; i++) group[i] = i < half ? 0 : 1;
    MPI_Comm local, inter, interO;
    MPI_Comm_split(MPI_COMM_WORLD, color, me, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color == 0 ? half : 0, 99, &inter);
    MPI_Comm_dup(inter, &interO);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int lrank, lsize, rsize;
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    MT_CHECK(lsize == (color ? p - half : half) && rsize == (color ? half : p - half),
             "MPI_Intercomm_create: group sizes %d + %d", lsize, rsize);
    const char *cname = color == 0 ? "inter-communicator (low half)" : "inter-communicator (high half)";
    double t0 = MPI_Wtime();

    if (!only || !strcmp(only, "barrier")) barrier_test(inter, "inter-communicator", aux, group, 1);

    static const int counts[4] = { 0, 1, 7, 1000 };
    int salt = 5000;
    /* bcast: each half as the root group, first and last process as root */
    if (selected(C_BCAST))
        for (int rg = 0; rg < 2; rg++) {
            int rgsize = rg == 0 ? half : p - half;
            for (int rl = 0; rl < 2; rl++) {
                int rootl = rl ? rgsize - 1 : 0;
                for (int form = 0; form < 3; form++)
                    for (int ci = 0; ci < 4; ci++) {
                        kase k;
                        memset(&k, 0, sizeof k);
                        k.coll = C_BCAST;
                        k.form = form;
                        k.n = counts[ci];
                        k.salt = ++salt;
                        k.inter = 1;
                        k.p = rsize;
                        k.me = lrank;
                        k.comm = inter;
                        k.oracle = interO;
                        k.cname = cname;
                        k.mode = (ci + form + rl) % 3;
                        if (color == rg) {
                            k.root = lrank == rootl ? MPI_ROOT : MPI_PROC_NULL;
                        } else {
                            k.root = rootl;
                        }
                        k.is_root = k.root == MPI_ROOT;
                        run_case(&k);
                    }
            }
        }
    /* allreduce (MPI_SUM, MPI_MAX, matmul on both types) and allgather */
    static const int inter_colls[2] = { C_ALLREDUCE, C_ALLGATHER };
    for (int ic = 0; ic < 2; ic++) {
        int coll = inter_colls[ic];
        if (!selected(coll)) continue;
        for (int form = 0; form < 3; form++)
            for (int ci = 0; ci < 4; ci++)
                for (int v = 0; v < (coll == C_ALLREDUCE ? 4 : 3); v++) {
                    kase k;
                    memset(&k, 0, sizeof k);
                    k.coll = coll;
                    k.form = form;
                    k.n = counts[ci];
                    k.salt = ++salt;
                    k.inter = 1;
                    k.p = rsize;
                    k.me = lrank;
                    k.comm = inter;
                    k.oracle = interO;
                    k.cname = cname;
                    if (coll == C_ALLREDUCE) {
                        k.vk = v == 0 ? V_SUM : v == 1 ? V_MAX : v == 2 ? V_MAT : V_MATV;
                    } else {
                        k.vk = V_PLAIN;
                        k.mode = v;
                    }
                    run_case(&k);
                }
    }
    if (me == 0) printf("%s: inter-communicator (%d + %d): %.2f s\n", mt_name, half, p - half, MPI_Wtime() - t0);
    MPI_Comm_free(&interO);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    free(group);
}

/* ---- bad input ----------------------------------------------------------------------- */

enum { B_OP, B_ROOT_HI, B_ROOT_LO, B_COUNT, B_TYPE, B_UNCOMMITTED, B_NULLREQ, B_COMMNULL, NBAD };
static const char *const bad_name[NBAD] = { "MPI_OP_NULL",   "root = size",       "root = -7",
                                            "negative count", "MPI_DATATYPE_NULL", "uncommitted datatype",
                                            "NULL request",   "MPI_COMM_NULL" };

static int bad_applies(int bad, int coll, int form)
{
    switch (bad) {
    case B_OP: return is_reduction(coll);
    case B_ROOT_HI:
    case B_ROOT_LO: return is_rooted(coll);
    case B_COUNT:
    case B_TYPE:
    case B_UNCOMMITTED: return coll != C_BARRIER;
    case B_NULLREQ: return form > 0;
    default: return 1;
    }
}

static int bad_class(int bad)
{
    switch (bad) {
    case B_OP: return MPI_ERR_OP;
    case B_ROOT_HI:
    case B_ROOT_LO: return MPI_ERR_ROOT;
    case B_COUNT: return MPI_ERR_COUNT;
    case B_TYPE:
    case B_UNCOMMITTED: return MPI_ERR_TYPE;
    case B_NULLREQ: return MPI_ERR_ARG;
    default: return MPI_ERR_COMM;
    }
}

/* Every process passes the same bad argument, so all fail alike. */
/* uncommitted: 0 every bad kind but the uncommitted datatypes, 1 only those
 * (last: a library that passes them on to MPI may crash in MPI). */
static void bad_inputs(MPI_Comm comm, MPI_Comm oracle, const char *cname, int recording, int uncommitted_only)
{
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    MPI_Errhandler eh = recording ? mt_errhandler : MPI_ERRORS_RETURN;
    MPI_Errhandler old_comm, old_self;
    MPI_Comm_get_errhandler(comm, &old_comm);
    MPI_Comm_get_errhandler(MPI_COMM_SELF, &old_self);
    MPI_Comm_set_errhandler(comm, eh);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, eh);
    /* Uncommitted types: a strided vector; for the reductions a contiguous
     * type of 4 ints with the user operation (MPI defines the predefined
     * operations on predefined types only, so MPI_SUM on a derived type would
     * be a second error). */
    MPI_Datatype uncommitted, uncommitted_mat;
    MPI_Type_vector(2, 1, 3, MPI_INT, &uncommitted);
    MPI_Type_contiguous(4, MPI_INT, &uncommitted_mat);
    size_t nb = (size_t)p * 8;
    int *sb = malloc(sizeof(int) * nb), *rb = malloc(sizeof(int) * nb);
    int *cnt = malloc(sizeof(int) * (size_t)p * 4), *dsp = cnt + p, *cnt2 = cnt + 2 * p, *dsp2 = cnt + 3 * p;
    MPI_Aint *dw = malloc(sizeof(MPI_Aint) * (size_t)p);
    MPI_Datatype *ty = malloc(sizeof(MPI_Datatype) * (size_t)p), *ty2 = malloc(sizeof(MPI_Datatype) * (size_t)p);
    static int req_target;
    const Cart_request SENT_REQ = (Cart_request)(void *)&req_target;
    long tried = 0;
    for (int coll = 0; coll < NCOLL; coll++) {
        if (!selected(coll)) continue;
        for (int form = 0; form < 3; form++)
            for (int bad = 0; bad < NBAD; bad++) {
                if (!bad_applies(bad, coll, form) || (bad == B_UNCOMMITTED) != uncommitted_only) continue;
                for (size_t i = 0; i < nb; i++) {
                    sb[i] = val(V_PLAIN, me, i, 0, bad);
                    rb[i] = sentinel(i);
                }
                for (int i = 0; i < p; i++) {
                    cnt[i] = cnt2[i] = 1;
                    dsp[i] = dsp2[i] = i;
                    dw[i] = (MPI_Aint)(i * (int)sizeof(int));
                    ty[i] = ty2[i] = MPI_INT;
                }
                call_t c = { .sb = sb,
                             .rb = rb,
                             .sc = 1,
                             .rc = 1,
                             .st = MPI_INT,
                             .rt = MPI_INT,
                             .scs = cnt,
                             .sds = dsp,
                             .rcs = cnt2,
                             .rds = dsp2,
                             .sdw = dw,
                             .rdw = dw,
                             .sts = ty,
                             .rts = ty2,
                             .root = 0,
                             .op = MPI_SUM };
                MPI_Datatype badt = bad == B_TYPE ? MPI_DATATYPE_NULL : is_reduction(coll) ? uncommitted_mat : uncommitted;
                if (bad == B_UNCOMMITTED && is_reduction(coll)) c.op = OP_MAT;
                switch (bad) {
                case B_OP: c.op = MPI_OP_NULL; break;
                case B_ROOT_HI: c.root = p; break;
                case B_ROOT_LO: c.root = -7; break;
                case B_COUNT:
                case B_TYPE:
                case B_UNCOMMITTED:
                    /* the argument every process uses, whatever its role */
                    switch (coll) {
                    case C_BCAST:
                    case C_SCATTER:
                    case C_SCATTERV:
                    case C_REDUCE:
                    case C_ALLREDUCE:
                    case C_RSB:
                    case C_SCAN:
                    case C_EXSCAN:
                        if (bad == B_COUNT) c.rc = -1;
                        else c.rt = badt;
                        break;
                    case C_RS:
                        if (bad == B_COUNT) cnt2[0] = -1;
                        else c.rt = badt;
                        break;
                    case C_ALLTOALLV:
                        if (bad == B_COUNT) cnt[0] = -1;
                        else c.st = badt;
                        break;
                    case C_ALLTOALLW:
                        if (bad == B_COUNT) cnt[0] = -1;
                        else ty[0] = badt;
                        break;
                    default: /* gather(v), allgather(v,w), alltoall */
                        if (bad == B_COUNT) c.sc = -1;
                        else c.st = badt;
                    }
                    break;
                }
                Cart_request req = SENT_REQ;
                MPI_Comm cm = bad == B_COMMNULL ? MPI_COMM_NULL : comm;
                char d[256];
                snprintf(d, sizeof d, "Cart_%s %s on %s with %s (%s)", coll_name[coll], form_name[form], cname,
                         bad_name[bad], recording ? "recording handler" : "MPI_ERRORS_RETURN");
                if (verbose && mt_rank == 0) printf("%s: %s\n", mt_name, d);
                mt_err_reset();
                int rc = cart_call(coll, form, &c, cm, bad == B_NULLREQ ? NULL : &req);
                tried++;
                int want = bad_class(bad), got = rc == MPI_SUCCESS ? MPI_SUCCESS : mt_error_class(rc);
                MT_CHECK(got == want, "%s: returned class %d (%s), expected %d", d, got,
                         rc == MPI_SUCCESS ? "MPI_SUCCESS" : errstr(rc), want);
                if (recording) {
                    MPI_Comm want_comm = bad == B_COMMNULL ? MPI_COMM_SELF : comm;
                    MT_CHECK(mt_err.calls == 1, "%s: error handler called %d times, expected once", d, mt_err.calls);
                    MT_CHECK(mt_err.calls == 0 || mt_err.code == rc, "%s: handler got code %d, call returned %d", d,
                             mt_err.code, rc);
                    MT_CHECK(mt_err.calls == 0 || mt_err.comm == want_comm,
                             "%s: handler invoked on the wrong communicator (%s expected)", d,
                             bad == B_COMMNULL ? "MPI_COMM_SELF" : cname);
                }
                if (rc == MPI_SUCCESS && form > 0 && req != SENT_REQ && req != CART_REQUEST_NULL) {
                    /* accepted by mistake: free it without starting it (a start
                     * would use the bad argument) */
                    if (form == 2) {
                        Cart_request_free(&req);
                    } else {
                        Cart_wait(&req);
                    }
                    req = SENT_REQ;
                }
                MT_CHECK(req == SENT_REQ, "%s: *request changed by a failed call", d);
                for (size_t i = 0; i < nb; i++)
                    if (rb[i] != sentinel(i) || sb[i] != val(V_PLAIN, me, i, 0, bad)) {
                        mt_fail(__FILE__, __LINE__, "%s: buffers changed by a failed call (int %zu)", d, i);
                        break;
                    }
            }
    }
    /* still in step: a correct collective on the same communicator */
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int in[16], out[16], want[16];
    for (int i = 0; i < 16; i++) in[i] = val(V_SUM, me, (size_t)i, 1, 4242);
    int rc = Cart_allreduce(in, out, 16, MPI_INT, MPI_SUM, comm);
    MT_CHECK(rc == MPI_SUCCESS, "Cart_allreduce after the bad calls on %s: %s", cname, errstr(rc));
    MPI_Allreduce(in, want, 16, MPI_INT, MPI_SUM, oracle);
    MT_CHECK(rc != MPI_SUCCESS || !memcmp(out, want, sizeof out),
             "Cart_allreduce after the bad calls on %s: wrong result (processes out of step?)", cname);
    rc = Cart_barrier(comm);
    MT_CHECK(rc == MPI_SUCCESS, "Cart_barrier after the bad calls on %s: %s", cname, errstr(rc));
    if (mt_rank == 0) printf("%s: %ld bad calls on %s (%s)\n", mt_name, tried, cname, recording ? "recording handler" : "MPI_ERRORS_RETURN");
    MPI_Comm_set_errhandler(comm, old_comm);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, old_self);
    MPI_Errhandler_free(&old_comm);
    MPI_Errhandler_free(&old_self);
    MPI_Type_free(&uncommitted);
    MPI_Type_free(&uncommitted_mat);
    free(sb);
    free(rb);
    free(cnt);
    free(dw);
    free(ty);
    free(ty2);
}

/* ---- main ------------------------------------------------------------------------------ */

static int want_section(char **sections, int nsec, const char *s)
{
    if (nsec == 0) return 1;
    for (int i = 0; i < nsec; i++)
        if (!strcmp(sections[i], s)) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "test_global");
    char *sections[8];
    int nsec = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            only = argv[++i];
        } else if (!strcmp(argv[i], "--case") && i + 1 < argc) {
            only_case = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--verbose")) {
            verbose = 1;
        } else if (!strcmp(argv[i], "--no-scribble")) {
            lifetime_pass = 0;
        } else if (!strcmp(argv[i], "--section") && i + 1 < argc && nsec < 8) {
            sections[nsec++] = argv[++i];
        } else {
            if (mt_rank == 0) fprintf(stderr, "usage: test_global [--only COLL] [--case SALT] [--no-scribble] [--verbose] [--section S]...\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (only) {
        int known = 0;
        for (int c = 0; c < NCOLL; c++) known |= !strcmp(only, coll_name[c]);
        if (!known) {
            if (mt_rank == 0) fprintf(stderr, "test_global: unknown collective %s\n", only);
            MPI_Finalize();
            return 2;
        }
    }
    double t0 = MPI_Wtime();
    mt_install_errhandler(); /* the recording handler, used by one pass of the bad-input checks */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    MPI_Type_vector(2, 1, 3, MPI_INT, &T_VEC);
    MPI_Type_commit(&T_VEC);
    MPI_Type_contiguous(4, MPI_INT, &T_MAT);
    MPI_Type_commit(&T_MAT);
    MPI_Type_vector(4, 1, 2, MPI_INT, &T_MATV);
    MPI_Type_commit(&T_MATV);
    MPI_Op_create(matmul_fn, 0, &OP_MAT);
    MPI_Op_create(matmulv_fn, 0, &OP_MATV);

    /* The communicators under test and their oracles (equal plain dups). */
    MPI_Comm plain, plainO, named, namedO, rev, revO, aux;
    MPI_Comm_dup(MPI_COMM_WORLD, &plain);
    MPI_Comm_dup(plain, &plainO);
    MPI_Comm_dup(MPI_COMM_WORLD, &named);
    int order[1] = { mt_size }, periods[1] = { 1 }, size = -1;
    int rc = Cart_name(named, 1, CART_ROW_MAJOR, order, periods, &size);
    MT_CHECK(rc == MPI_SUCCESS && size == mt_size, "Cart_name: %s, size %d", errstr(rc), size);
    int flag = 0, d = -1;
    rc = Cart_test_name(named, &flag, &d, &size);
    MT_CHECK(rc == MPI_SUCCESS && flag && d == 1 && size == mt_size, "Cart_test_name after Cart_name: flag %d d %d size %d",
             flag, d, size);
    MPI_Comm_dup(named, &namedO);
    MPI_Comm_split(MPI_COMM_WORLD, 0, mt_size - 1 - mt_rank, &rev);
    MPI_Comm_dup(rev, &revO);
    MPI_Comm_dup(MPI_COMM_WORLD, &aux);
    MPI_Comm all[6] = { plain, plainO, named, namedO, rev, revO };
    for (int i = 0; i < 6; i++) MPI_Comm_set_errhandler(all[i], MPI_ERRORS_RETURN);
    int *group = calloc((size_t)mt_size, sizeof(int));

    if (want_section(sections, nsec, "intra")) {
        sweep(plain, plainO, "dup of MPI_COMM_WORLD", 2, 0);
        sweep(named, namedO, "named (Cart_name 1-D) dup of MPI_COMM_WORLD", 2, 0);
        sweep(rev, revO, "reversed-rank split of MPI_COMM_WORLD", 1, 0);
    }
    if (want_section(sections, nsec, "barrier") && (!only || !strcmp(only, "barrier"))) {
        barrier_test(plain, "dup of MPI_COMM_WORLD", aux, group, 0);
        barrier_test(named, "named dup of MPI_COMM_WORLD", aux, group, 0);
    }
    if (want_section(sections, nsec, "mixed") && !only) mixed_requests(named, namedO);
    if (want_section(sections, nsec, "inter")) inter_tests(aux);
    if (want_section(sections, nsec, "errors")) {
        bad_inputs(plain, plainO, "dup of MPI_COMM_WORLD", 0, 0);
        bad_inputs(named, namedO, "named dup of MPI_COMM_WORLD", 0, 0);
        bad_inputs(plain, plainO, "dup of MPI_COMM_WORLD", 1, 0);
    }
    /* Last, as a library that gets them wrong may crash inside MPI: */
    if (want_section(sections, nsec, "uncommitted")) {
        bad_inputs(plain, plainO, "dup of MPI_COMM_WORLD", 0, 1);
        bad_inputs(plain, plainO, "dup of MPI_COMM_WORLD", 1, 1);
    }
    if (want_section(sections, nsec, "lifetime") && lifetime_pass) {
        /* cartcoll.h: arrays and datatypes may be freed once Cart_iX /
         * Cart_X_init returned (MPI_Type_free of a dup, arrays overwritten) */
        scribble = 1;
        sweep(plain, plainO, "dup of MPI_COMM_WORLD", 1, 1);
        scribble = 0;
    }
    /* the naming survived all of that */
    rc = Cart_test_name(named, &flag, &d, &size);
    MT_CHECK(rc == MPI_SUCCESS && flag && d == 1, "Cart_test_name at the end: flag %d d %d", flag, d);
    if (mt_rank == 0)
        printf("%s: %ld cases, %ld operations checked against MPI, %.2f s\n", mt_name, n_cases, n_ops, MPI_Wtime() - t0);

    free(group);
    for (int i = 0; i < 6; i++) MPI_Comm_free(&all[i]);
    MPI_Comm_free(&aux);
    MPI_Op_free(&OP_MAT);
    MPI_Op_free(&OP_MATV);
    MPI_Type_free(&T_MATV);
    MPI_Type_free(&T_VEC);
    MPI_Type_free(&T_MAT);
    return mt_finish();
}

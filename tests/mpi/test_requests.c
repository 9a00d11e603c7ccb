/* Request semantics and progress.
 *
 *  - Several outstanding non-blocking operations on one communicator,
 *    completed in different orders on different processes (Cart_wait in
 *    opposite orders, Cart_waitall with permuted arrays, Cart_test polling
 *    one request while another is outstanding), with the multi-phase
 *    algorithms (combining, torus) and both executors forced.
 *  - Persistent and non-blocking requests outstanding together.
 *  - Persistent requests started many times with new data, Cart_startall
 *    over several requests, reuse after Cart_wait / Cart_test, free after
 *    completion.
 *  - Auto-tuned persistent requests (algorithm and executor auto), started
 *    more than 12 times, concurrently, completed in rank-dependent orders.
 * Every result is checked against row-major rank arithmetic.
 */
#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define M 3         /* ints per block */
#define SENT -12345 /* untouched receive blocks */

typedef struct {
    MPI_Comm cart;
    int d, dims[3], periods[3], t, targets[64 * 3], me;
    int src[64];
} nbh_t;

static long n_completed;

static int val(int src, int blk, int k, int tag) { return 1000000 * (tag % 1000) + 10000 * src + 100 * (blk + 1) + k; }

static int make(nbh_t *n, int d, const int periods[], int alg, int exec)
{
    memset(n, 0, sizeof *n);
    n->d = d;
    MPI_Dims_create(mt_size, d, n->dims);
    for (int k = 0; k < d; k++) n->periods[k] = periods[k];
    /* Moore radius 1 plus two longer offsets (torus forwards them hop by hop) */
    int c = 1;
    for (int k = 0; k < d; k++) c *= 3;
    for (int j = 0; j < c; j++) {
        int x = j, nz = 0, v[3];
        for (int k = d - 1; k >= 0; k--) {
            v[k] = x % 3 - 1;
            x /= 3;
            nz |= v[k];
        }
        if (!nz) continue;
        memcpy(n->targets + n->t * d, v, sizeof(int) * (size_t)d);
        n->t++;
    }
    for (int k = 0; k < d; k++) n->targets[n->t * d + k] = k == 0 ? 2 : -1;
    n->t++;
    for (int k = 0; k < d; k++) n->targets[n->t * d + k] = k == d - 1 ? -3 : 0;
    n->t++;
    MPI_Info info = mt_info(alg >= 0 ? mt_alg_name[alg] : NULL, exec >= 0 ? mt_exec_name[exec] : NULL);
    int rc = Cart_neighborhood_create(MPI_COMM_WORLD, d, n->dims, n->periods, n->t, n->targets, MPI_UNWEIGHTED, info,
                                      0, &n->cart);
    mt_info_free(&info);
    MT_CHECK(rc == MPI_SUCCESS, "Cart_neighborhood_create failed (%d)", rc);
    if (rc != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Comm_rank(n->cart, &n->me);
    for (int i = 0; i < n->t; i++) n->src[i] = mt_shift(n->me, d, n->dims, n->periods, n->targets + i * d, -1);
    return rc;
}

/* Buffers of one operation: alltoall (gather == 0) or allgather; the v
 * flavour gives block i (i % 3) + 1 ints at scattered displacements. */
typedef struct {
    int gather, v, t;
    int sb[64 * M], rb[2 * 64 * M];
    int scounts[64], sdispls[64], rcounts[64], rdispls[64];
    int tag;
} op_t;

static void op_setup(op_t *o, const nbh_t *n, int gather, int v, int tag)
{
    o->gather = gather;
    o->v = v;
    o->t = n->t;
    o->tag = tag;
    int sd = 0, rd = 0;
    for (int i = 0; i < n->t; i++) {
        int c = v ? i % 3 + 1 : M;
        o->scounts[i] = o->rcounts[i] = gather ? M : c;
        o->sdispls[i] = sd;
        o->rdispls[i] = rd + (v ? 1 : 0); /* gaps in the v flavour */
        sd += c;
        rd += o->rcounts[i] + (v ? 1 : 0);
    }
}

static void op_fill(op_t *o, const nbh_t *n, int tag)
{
    o->tag = tag;
    for (size_t i = 0; i < sizeof o->rb / sizeof o->rb[0]; i++) o->rb[i] = SENT;
    if (o->gather) {
        for (int k = 0; k < M; k++) o->sb[k] = val(n->me, -1, k, tag);
    } else {
        for (int i = 0; i < n->t; i++)
            for (int k = 0; k < o->scounts[i]; k++) o->sb[o->sdispls[i] + k] = val(n->me, i, k, tag);
    }
}

static void op_check(const op_t *o, const nbh_t *n, const char *what)
{
    int bad = 0;
    int covered[2 * 64 * M];
    memset(covered, 0, sizeof covered);
    for (int i = 0; i < n->t && bad < 3; i++)
        for (int k = 0; k < o->rcounts[i]; k++) {
            int at = o->rdispls[i] + k;
            covered[at] = 1;
            int want = n->src[i] == MPI_PROC_NULL ? SENT : val(n->src[i], o->gather ? -1 : i, k, o->tag);
            if (o->rb[at] != want && bad++ < 3)
                mt_fail(__FILE__, __LINE__, "%s: block %d element %d from %d: got %d, expected %d", what, i, k,
                        n->src[i], o->rb[at], want);
        }
    for (size_t j = 0; j < sizeof covered / sizeof covered[0]; j++)
        if (!covered[j] && o->rb[j] != SENT && bad++ < 3)
            mt_fail(__FILE__, __LINE__, "%s: gap int %zu written (%d)", what, j, o->rb[j]);
    mt_checks++;
    n_completed++;
}

static int op_nonblocking(op_t *o, const nbh_t *n, Cart_request *r)
{
    if (o->gather)
        return o->v ? Cart_iallgatherv(o->sb, M, MPI_INT, o->rb, o->rcounts, o->rdispls, MPI_INT, n->cart, r)
                    : Cart_iallgather(o->sb, M, MPI_INT, o->rb, M, MPI_INT, n->cart, r);
    return o->v ? Cart_ialltoallv(o->sb, o->scounts, o->sdispls, MPI_INT, o->rb, o->rcounts, o->rdispls, MPI_INT,
                                  n->cart, r)
                : Cart_ialltoall(o->sb, M, MPI_INT, o->rb, M, MPI_INT, n->cart, r);
}

static int op_init(op_t *o, const nbh_t *n, MPI_Info info, Cart_request *r)
{
    if (o->gather)
        return o->v ? Cart_allgatherv_init(o->sb, M, MPI_INT, o->rb, o->rcounts, o->rdispls, MPI_INT, n->cart, info, r)
                    : Cart_allgather_init(o->sb, M, MPI_INT, o->rb, M, MPI_INT, n->cart, info, r);
    return o->v ? Cart_alltoallv_init(o->sb, o->scounts, o->sdispls, MPI_INT, o->rb, o->rcounts, o->rdispls, MPI_INT,
                                      n->cart, info, r)
                : Cart_alltoall_init(o->sb, M, MPI_INT, o->rb, M, MPI_INT, n->cart, info, r);
}

#define OK(call)                                                                        \
    do {                                                                                \
        int rc_ = (call);                                                               \
        if (rc_ != MPI_SUCCESS) {                                                       \
            mt_fail(__FILE__, __LINE__, "%s returned %d (%s)", #call, rc_, ctx);        \
            MPI_Abort(MPI_COMM_WORLD, 3);                                               \
        }                                                                               \
    } while (0)

/* Three concurrent non-blocking operations, completed in rank-dependent orders. */
static void concurrent_nonblocking(const nbh_t *n, const char *ctx)
{
    static op_t o[4];
    op_setup(&o[0], n, 0, 0, 0);
    op_setup(&o[1], n, 1, 0, 0);
    op_setup(&o[2], n, 0, 1, 0);
    op_setup(&o[3], n, 1, 1, 0);
    int odd = n->me % 2;
    char what[320];
    for (int scheme = 0; scheme < 4; scheme++) {
        Cart_request r[4];
        for (int j = 0; j < 4; j++) {
            op_fill(&o[j], n, 10 * scheme + j);
            OK(op_nonblocking(&o[j], n, &r[j]));
        }
        if (scheme == 0) { /* Cart_wait, opposite orders */
            for (int j = 0; j < 4; j++) OK(Cart_wait(&r[odd ? 3 - j : j]));
        } else if (scheme == 1) { /* Cart_waitall over permuted arrays */
            Cart_request perm[4] = { r[odd ? 2 : 1], r[odd ? 0 : 3], r[odd ? 3 : 0], r[odd ? 1 : 2] };
            OK(Cart_waitall(4, perm));
            for (int j = 0; j < 4; j++) {
                MT_CHECK(perm[j] == CART_REQUEST_NULL, "%s: Cart_waitall left a request set", ctx);
                r[j] = CART_REQUEST_NULL;
            }
        } else if (scheme == 2) { /* poll one with Cart_test while the others are outstanding */
            int first = odd ? 2 : 1, flag = 0;
            while (!flag) OK(Cart_test(&r[first], &flag));
            MT_CHECK(r[first] == CART_REQUEST_NULL, "%s: Cart_test did not free a completed request", ctx);
            for (int j = 0; j < 4; j++) {
                int idx = odd ? 3 - j : j;
                if (idx != first) OK(Cart_wait(&r[idx]));
            }
        } else { /* Cart_test round robin in rank-dependent order */
            int left = 4;
            while (left) {
                left = 0;
                for (int j = 0; j < 4; j++) {
                    int idx = odd ? 3 - j : j, flag = 0;
                    if (r[idx] == CART_REQUEST_NULL) continue;
                    OK(Cart_test(&r[idx], &flag));
                    left += !flag;
                }
            }
        }
        for (int j = 0; j < 4; j++) {
            MT_CHECK(r[j] == CART_REQUEST_NULL, "%s scheme %d: request %d not freed", ctx, scheme, j);
            snprintf(what, sizeof what, "%s, concurrent scheme %d, op %d", ctx, scheme, j);
            op_check(&o[j], n, what);
        }
    }
}

/* Persistent and non-blocking operations outstanding together. */
static void mixed(const nbh_t *n, MPI_Info pinfo, const char *ctx)
{
    static op_t p[2], q[2];
    Cart_request pr[2], qr[2];
    op_setup(&p[0], n, 0, 1, 0);
    op_setup(&p[1], n, 1, 0, 0);
    op_setup(&q[0], n, 0, 0, 0);
    op_setup(&q[1], n, 1, 1, 0);
    OK(op_init(&p[0], n, pinfo, &pr[0]));
    OK(op_init(&p[1], n, pinfo, &pr[1]));
    int odd = n->me % 2;
    char what[320];
    for (int it = 0; it < 4; it++) {
        op_fill(&p[0], n, 100 + it);
        op_fill(&p[1], n, 200 + it);
        op_fill(&q[0], n, 300 + it);
        op_fill(&q[1], n, 400 + it);
        OK(Cart_startall(2, pr));
        OK(op_nonblocking(&q[0], n, &qr[0]));
        OK(op_nonblocking(&q[1], n, &qr[1]));
        if (odd) {
            OK(Cart_wait(&qr[1]));
            OK(Cart_wait(&pr[1]));
            OK(Cart_wait(&qr[0]));
            OK(Cart_wait(&pr[0]));
        } else {
            Cart_request all[4] = { pr[0], qr[0], pr[1], qr[1] };
            OK(Cart_waitall(4, all));
            MT_CHECK(all[0] == pr[0] && all[2] == pr[1], "%s: Cart_waitall changed persistent handles", ctx);
            MT_CHECK(all[1] == CART_REQUEST_NULL && all[3] == CART_REQUEST_NULL,
                     "%s: Cart_waitall left non-blocking handles", ctx);
            qr[0] = qr[1] = CART_REQUEST_NULL;
        }
        snprintf(what, sizeof what, "%s, mixed start %d persistent alltoallv", ctx, it);
        op_check(&p[0], n, what);
        snprintf(what, sizeof what, "%s, mixed start %d persistent allgather", ctx, it);
        op_check(&p[1], n, what);
        snprintf(what, sizeof what, "%s, mixed start %d non-blocking alltoall", ctx, it);
        op_check(&q[0], n, what);
        snprintf(what, sizeof what, "%s, mixed start %d non-blocking allgatherv", ctx, it);
        op_check(&q[1], n, what);
    }
    OK(Cart_request_free(&pr[0]));
    OK(Cart_request_free(&pr[1]));
    MT_CHECK(pr[0] == CART_REQUEST_NULL && pr[1] == CART_REQUEST_NULL, "%s: Cart_request_free left handles", ctx);
}

/* Persistent requests started many times; Cart_startall over several. */
static void persistent_many(const nbh_t *n, MPI_Info pinfo, int starts, const char *ctx)
{
    static op_t o[4];
    Cart_request r[4];
    for (int j = 0; j < 4; j++) {
        op_setup(&o[j], n, j & 1, j >> 1, 0);
        OK(op_init(&o[j], n, pinfo, &r[j]));
    }
    int odd = n->me % 2;
    char what[320];
    for (int it = 0; it < starts; it++) {
        for (int j = 0; j < 4; j++) op_fill(&o[j], n, 1000 + 10 * it + j);
        int how = it % 4;
        if (how == 0) { /* one at a time, reuse after Cart_wait */
            for (int j = 0; j < 4; j++) {
                OK(Cart_start(&r[j]));
                OK(Cart_wait(&r[j]));
            }
        } else if (how == 1) { /* all together, rank-dependent completion order */
            OK(Cart_startall(4, r));
            for (int j = 0; j < 4; j++) OK(Cart_wait(&r[odd ? 3 - j : j]));
        } else if (how == 2) { /* startall + waitall */
            OK(Cart_startall(4, r));
            OK(Cart_waitall(4, r));
        } else { /* Cart_test loops */
            OK(Cart_startall(4, r));
            for (int j = 0; j < 4; j++) {
                int flag = 0, idx = odd ? (j + 2) % 4 : j;
                while (!flag) OK(Cart_test(&r[idx], &flag));
            }
        }
        for (int j = 0; j < 4; j++) {
            MT_CHECK(r[j] != CART_REQUEST_NULL, "%s: a persistent request became CART_REQUEST_NULL", ctx);
            snprintf(what, sizeof what, "%s, start %d (scheme %d), op %d", ctx, it + 1, how, j);
            op_check(&o[j], n, what);
        }
    }
    for (int j = 0; j < 4; j++) OK(Cart_request_free(&r[j]));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "test_requests");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int periodic[3] = { 1, 1, 1 }, mixedp[3] = { 1, 0, 1 };
    char ctx[200];
    nbh_t n;

    /* Multi-phase algorithms forced, both executors, 2-D periodic and 3-D mixed. */
    for (int alg = 2; alg <= 3; alg++)
        for (int exec = 1; exec <= 2; exec++)
            for (int g = 0; g < 2; g++) {
                int d = g ? 3 : 2;
                make(&n, d, g ? mixedp : periodic, alg, exec);
                snprintf(ctx, sizeof ctx, "%d-D %s, %s/%s", d, g ? "mixed" : "periodic", mt_alg_name[alg],
                         mt_exec_name[exec]);
                if (n.cart != MPI_COMM_NULL) {
                    concurrent_nonblocking(&n, ctx);
                    mixed(&n, MPI_INFO_NULL, ctx);
                    persistent_many(&n, MPI_INFO_NULL, 6, ctx);
                    MPI_Comm_free(&n.cart);
                }
            }

    /* Auto-tuned persistent requests: everything auto, > 12 starts. */
    for (int g = 0; g < 2; g++) {
        int d = g ? 3 : 2;
        make(&n, d, g ? mixedp : periodic, -1, -1);
        snprintf(ctx, sizeof ctx, "%d-D %s, auto-tuned persistent", d, g ? "mixed" : "periodic");
        if (n.cart != MPI_COMM_NULL) {
            persistent_many(&n, MPI_INFO_NULL, 16, ctx);
            mixed(&n, MPI_INFO_NULL, ctx);
            MPI_Comm_free(&n.cart);
        }
    }
    /* Persistent with a forced algorithm in the *_init info on an auto communicator. */
    make(&n, 2, periodic, -1, -1);
    for (int alg = 1; alg <= 3; alg++) {
        MPI_Info info = mt_info(mt_alg_name[alg], alg == 2 ? "datatype" : "pack");
        snprintf(ctx, sizeof ctx, "2-D periodic, *_init info %s", mt_alg_name[alg]);
        persistent_many(&n, info, 5, ctx);
        mt_info_free(&info);
    }
    MPI_Comm_free(&n.cart);

    long mx = 0;
    MPI_Reduce(&n_completed, &mx, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (!mt_rank) printf("test_requests: %ld completed operations checked per process\n", mx);
    return mt_finish();
}

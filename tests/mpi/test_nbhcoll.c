/* [ortho] Neighbourhood meaning of the collectives of seed 000: Cart_barrier,
 * Cart_bcast, Cart_gather(v), Cart_scatter(v), Cart_reduce, Cart_allreduce
 * (cartcoll.h and API.md, "One interface set").
 *
 * The contract (in-neighbours S[j], j < indegree; out-neighbours D[i],
 * i < outdegree; MPI_PROC_NULL entries take part in nothing):
 *   barrier    returns once every in-neighbour entered it;
 *   bcast      v != root with root in S_v receives the root's buffer; every
 *              other buffer (the root's too) stays as it was;
 *   gather(v)  at the root, block j of recvbuf holds the sendbuf of S[j]
 *              (block j at j*recvcount*extent, gatherv: displs[j]*extent
 *              with recvcounts[j] elements); blocks of MPI_PROC_NULL and,
 *              with MPI_IN_PLACE at the root, blocks j with S[j] == root
 *              untouched; non-roots' recvbuf untouched;
 *   scatter(v) v receives block i of the root's sendbuf, i the LAST index
 *              with D_root[i] == v, iff v is in D_root; the root with
 *              MPI_IN_PLACE as recvbuf leaves it untouched;
 *   reduce     the root's recvbuf = s(S[0]) op s(S[1]) op ... in neighbour
 *              order, MPI_PROC_NULL skipped, one term per edge; untouched
 *              without in-neighbours; MPI_IN_PLACE at the root: the root's
 *              term is its recvbuf's initial content;
 *   allreduce  every process does what reduce does at the root;
 *   reduce_scatter(_block), scan, exscan: MPI_ERR_TOPOLOGY; a bad root:
 *              MPI_ERR_ROOT; MPI_OP_NULL: MPI_ERR_OP; the communicator's
 *              error handler runs once (a recording one that returns);
 *              failed calls leave every buffer and the request untouched.
 *
 * Oracle, from first principles and without any point-to-point exchange
 * of the data: every process computes every process's neighbour lists
 * from the case (mt_shift on the grid, the generated random graph) and
 * every process's buffer contents from (rank, block, round), so it knows
 * locally what each of its buffers must hold afterwards.  The lists are
 * first compared with what the communicator reports (Cart_neighbor_get,
 * MPI_Cart_shift, MPI_Dist_graph_neighbors).  Every int of every buffer is
 * compared (margins before and after, gaps of the strided type, blocks
 * that must stay untouched hold position-dependent sentinels; send buffers
 * must be unchanged).
 *
 * Communicators (case c has kind c % 4):
 *   0  Cart_neighborhood_create: tori and meshes, d <= 3, dims from
 *      MPI_Dims_create or small sizes (1..3, processes outside the grid),
 *      periodic dimensions of size 1 and 2; random offset lists in
 *      [-2,2]^d with repeated vectors and the zero vector, Moore / von
 *      Neumann radius 1 with and without the zero vector (and a repeat);
 *      lists D[i] = R + N[i], S[i] = R - N[i]; create info cycles
 *      cartcoll_algorithm;
 *   1  MPI_Cart_create on the same kind of grids: S = D = (-e_0, +e_0,
 *      -e_1, ...), MPI_PROC_NULL off a mesh;
 *   2  MPI_Dist_graph_create_adjacent on a random multigraph (self edges,
 *      repeated edges, shuffled sources, processes without in- or
 *      out-neighbours; no MPI_PROC_NULL, which not every MPI accepts there);
 *   3  Cart_dist_graph_create_adjacent on a dup of MPI_COMM_WORLD named
 *      by Cart_name (row-major, periodic, dims from MPI_Dims_create, size-1
 *      dimensions), sources R - N[i] and destinations R + N[i] of a stencil
 *      shuffled per process; must be detected as Cartesian (cartcoll.h).
 * On each: the eight collectives blocking, Cart_iX + Cart_wait, Cart_iX +
 * a Cart_test loop (each twice on the same buffers with new data, where a
 * cached plan may serve the second), Cart_X_init (info cycling
 * algorithm/executor) started twice with new data + Cart_request_free
 * (reductions: two calls per form); the forms rotate so that the
 * communicator's first Cart_ call is of each kind; then all eight
 * non-blocking beside an active persistent allreduce, completed in a
 * rank-dependent order or by Cart_waitall; a barrier that must wait for a
 * late in-neighbour (causal timing: the late process sleeps after hearing
 * from everyone); the error cases; calls on an MPI_Comm_dup.  Per call:
 * MPI_INT or vector(2,1,3,MPI_INT) (send and receive types may differ with
 * equal signatures), 0, 1 or 4 elements (v: per-process counts 0, 1, 2, 4),
 * random root, MPI_IN_PLACE in 30% of the calls where MPI allows it, NULL
 * buffers where they are not significant, argument arrays overwritten and
 * derived datatypes freed right after non-blocking and *_init calls.
 * Operations: MPI_SUM, MPI_MAX, MPI_LAND on MPI_INT and a non-commutative
 * user operation (affine maps x -> a*x + b mod 1009 composed, one int per
 * map) on both types.  Predefined operations are not used on the derived
 * type: MPI defines them on predefined types only (Open MPI rejects them).
 *
 * Options: --seed S, --first C, --cases N, --verbose, --break-oracle (the
 * oracle reads in-neighbour lists backwards and lets the first repeated
 * scatter edge win: the run passes only if that yields mismatches and
 * nothing else fails -- a test that cannot fail is a defect).  A failure
 * prints the case, rank, call, block, expected and got, the process's lists
 * and the command that replays the case. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "mpitest.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t opt_seed = 1;
static int opt_first = 0, opt_cases = 24, opt_verbose = 0, opt_break = 0;

/* ---- hashing: equal on every process ------------------------------------------ */

static uint64_t hsh(uint64_t salt, int a, int b, int c)
{
    mt_rng r;
    mt_seed(&r, salt,
            ((uint64_t)(unsigned)(a + 1) << 42) ^ ((uint64_t)(unsigned)(b + 1) << 21) ^ (uint64_t)(unsigned)(c + 1));
    return mt_next(&r);
}

static void shuffle(mt_rng *r, int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = mt_uniform(r, 0, i), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

static int occurrences(const int *list, int n, int x)
{
    int m = 0;
    for (int i = 0; i < n; i++) m += list[i] == x;
    return m;
}

/* ---- datatypes: element layouts in ints ----------------------------------------- */

enum { TY_INT, TY_VEC, NTY };
static MPI_Datatype ty[NTY];
static const int ty_size[NTY] = { 1, 2 }; /* ints per element */
static const int ty_ext[NTY] = { 1, 4 };  /* extent in ints */
static const int ty_pos[NTY][2] = { { 0, 0 }, { 0, 3 } };
static const char *const ty_name[NTY] = { "MPI_INT", "vector(2,1,3,MPI_INT)" };

/* Offset (ints) of int e of a block of type t from the block's start. */
static int elem_pos(int t, int e) { return (e / ty_size[t]) * ty_ext[t] + ty_pos[t][e % ty_size[t]]; }

static void make_types(void)
{
    ty[TY_INT] = MPI_INT;
    MPI_Type_vector(2, 1, 3, MPI_INT, &ty[TY_VEC]);
    MPI_Type_commit(&ty[TY_VEC]);
    MPI_Aint lb, ext;
    int sz;
    MPI_Type_get_extent(ty[TY_VEC], &lb, &ext);
    MPI_Type_size(ty[TY_VEC], &sz);
    MT_CHECK(lb == 0 && ext == 4 * (MPI_Aint)sizeof(int) && sz == 2 * (int)sizeof(int), "layout table of %s",
             ty_name[TY_VEC]);
}

/* ---- operations --------------------------------------------------------------------- */

enum { OP_SUM, OP_MAX, OP_LAND, OP_AFFINE, OP_UMAX, NOPS };
static MPI_Op op_handle[NOPS];
static const char *const op_name[NOPS] = { "MPI_SUM", "MPI_MAX", "MPI_LAND", "affine-compose (non-commutative)",
                                           "user max (commutative)" };

/* An int a*AFF_P + b (1 <= a < AFF_P, 0 <= b < AFF_P) is the map
 * x -> a*x + b mod AFF_P; x op y = "x, then y".  Composition is
 * associative and not commutative. */
#define AFF_P 1009
static int affine(int x, int y)
{
    long ax = x / AFF_P, bx = x % AFF_P, ay = y / AFF_P, by = y % AFF_P;
    return (int)(((ay * ax) % AFF_P) * AFF_P + (ay * bx + by) % AFF_P);
}

/* x op y, x the left operand (MPI: inoutvec = invec op inoutvec). */
static int op_apply(int op, int x, int y)
{
    switch (op) {
    case OP_SUM: return x + y;
    case OP_MAX:
    case OP_UMAX: return x > y ? x : y;
    case OP_LAND: return x && y;
    default: return affine(x, y);
    }
}

/* Int positions of one element of dt and the count, from its constructor
 * (named MPI_INT, dup, contiguous, vector, hvector, resized with lb 0): the
 * user function must follow whatever type the library hands it, e.g. its
 * own duplicate of the caller's type.  -1 for anything else. */
static int int_layout(MPI_Datatype dt, int *pos, int max)
{
    int ni, na, nd, comb;
    MPI_Type_get_envelope(dt, &ni, &na, &nd, &comb);
    if (comb == MPI_COMBINER_NAMED) {
        if (dt != MPI_INT || max < 1) return -1;
        pos[0] = 0;
        return 1;
    }
    int ints[4];
    MPI_Aint aints[4];
    MPI_Datatype old;
    if (ni > 4 || na > 4 || nd != 1) return -1;
    MPI_Type_get_contents(dt, ni, na, nd, ints, aints, &old);
    int sub[16], ns = int_layout(old, sub, 16), n = 0;
    MPI_Aint lb, ext;
    MPI_Type_get_extent(old, &lb, &ext);
    int e = (int)(ext / (MPI_Aint)sizeof(int));
    int count = 1, blen = 1, stride = 0; /* a (h)vector of count x blen olds, stride ints */
    switch (comb) {
    case MPI_COMBINER_DUP: break;
    case MPI_COMBINER_CONTIGUOUS: count = ints[0], stride = e; break;
    case MPI_COMBINER_VECTOR: count = ints[0], blen = ints[1], stride = ints[2] * e; break;
    case MPI_COMBINER_HVECTOR: count = ints[0], blen = ints[1], stride = (int)(aints[0] / (MPI_Aint)sizeof(int)); break;
    case MPI_COMBINER_RESIZED:
        if (aints[0] != 0) ns = -1;
        break;
    default: ns = -1;
    }
    for (int c = 0; ns >= 0 && c < count; c++)
        for (int b = 0; b < blen; b++)
            for (int q = 0; q < ns; q++) {
                if (n == max) return -1;
                pos[n++] = c * stride + b * e + sub[q];
            }
    int oni, ona, ond, ocomb;
    MPI_Type_get_envelope(old, &oni, &ona, &ond, &ocomb);
    if (ocomb != MPI_COMBINER_NAMED) MPI_Type_free(&old);
    return ns < 0 ? -1 : n;
}

static long op_bad_types; /* calls of the user function with a type it cannot read */

/* A user operation applied int by int over the layout of *dt. */
static void user_fn(void *invec, void *inoutvec, int *len, MPI_Datatype *dt, int op)
{
    int pos[16], n = int_layout(*dt, pos, 16);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(*dt, &lb, &ext);
    if (n < 0) {
        op_bad_types++;
        return;
    }
    const int *in = invec;
    int *io = inoutvec, step = (int)(ext / (MPI_Aint)sizeof(int));
    for (int k = 0; k < *len; k++)
        for (int q = 0; q < n; q++)
            io[k * step + pos[q]] = op_apply(op, in[k * step + pos[q]], io[k * step + pos[q]]);
}

static void affine_fn(void *invec, void *inoutvec, int *len, MPI_Datatype *dt)
{
    user_fn(invec, inoutvec, len, dt, OP_AFFINE);
}

/* Commutative and not invertible: reductions on the way with a derived
 * datatype. */
static void umax_fn(void *invec, void *inoutvec, int *len, MPI_Datatype *dt)
{
    user_fn(invec, inoutvec, len, dt, OP_UMAX);
}

static void make_ops(void)
{
    op_handle[OP_SUM] = MPI_SUM;
    op_handle[OP_MAX] = MPI_MAX;
    op_handle[OP_LAND] = MPI_LAND;
    MPI_Op_create(affine_fn, 0, &op_handle[OP_AFFINE]);
    MPI_Op_create(umax_fn, 1, &op_handle[OP_UMAX]);
}

/* ---- contents: every process can compute every process's buffers ----------------- */

/* Int e of block `blk` of rank u's send buffer in round `round` (bcast,
 * gather, scatter); positive and decodable. */
static int data(int u, int blk, int round, int e) { return 1 + e + 16 * (round + 16 * (blk + 256 * u)); }
#define SEND_GAP(pos) (-1000000 - (pos))
#define RECV_GAP(pos) (-3000000 - (pos))

/* Rank u's term of a reduction: int e of its send buffer (which = 0) or of
 * its receive buffer's initial content (which = 1, for MPI_IN_PLACE). */
static int red_value(int op, uint64_t salt, int u, int round, int e, int which)
{
    uint64_t h = hsh(salt, u, 2 * round + which, e);
    switch (op) {
    case OP_SUM: return (int)(h % 201) - 100;
    case OP_MAX:
    case OP_UMAX: return (int)(h % 2001) - 1000;
    case OP_LAND: return h % 5 == 0 ? 0 : h % 5 == 1 ? 3 : 1;
    default: return (int)(1 + h % (AFF_P - 1)) * AFF_P + (int)((h >> 24) % AFF_P);
    }
}

static const char *describe(int v, int reduction, char *buf, size_t n)
{
    if (v <= -3000000 && v > -4000000) {
        snprintf(buf, n, "%d (receive-buffer sentinel of position %d)", v, -3000000 - v);
    } else if (v <= -1000000 && v > -2000000) {
        snprintf(buf, n, "%d (send-buffer gap sentinel of position %d)", v, -1000000 - v);
    } else if (!reduction && v > 0) {
        int x = v - 1;
        snprintf(buf, n, "%d (= rank %d's block %d, round %d, int %d)", v, x / 65536, (x / 256) % 256, (x / 16) % 16,
                 x % 16);
    } else {
        snprintf(buf, n, "%d", v);
    }
    return buf;
}

/* ---- neighbour lists: the oracle's picture of the communicator ------------------- */

typedef struct {
    int p, me;
    int *nin, *nout;
    int **S, **D; /* per rank of the communicator; MPI_PROC_NULL allowed */
} lists_t;

static void lists_init(lists_t *L, int p)
{
    L->p = p;
    L->me = -1;
    L->nin = calloc((size_t)p, sizeof(int));
    L->nout = calloc((size_t)p, sizeof(int));
    L->S = calloc((size_t)p, sizeof(int *));
    L->D = calloc((size_t)p, sizeof(int *));
}

static void lists_free(lists_t *L)
{
    for (int u = 0; u < L->p; u++) {
        free(L->S[u]);
        free(L->D[u]);
    }
    free(L->nin);
    free(L->nout);
    free(L->S);
    free(L->D);
    memset(L, 0, sizeof *L);
}

static void fmt_list(char *buf, size_t n, const int *a, int len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < len && at + 16 < n; i++) {
        if (a[i] == MPI_PROC_NULL) at += (size_t)snprintf(buf + at, n - at, "%sPROC_NULL", i ? "," : "");
        else at += (size_t)snprintf(buf + at, n - at, "%s%d", i ? "," : "", a[i]);
    }
}

/* ---- reporting: the first failure of a case in full, with the replay line ---------- */

static int cur_case = -1, reported_case = -2;
static char case_desc[512];
static const lists_t *cur_lists;
static long mismatches; /* wrong buffer contents: what --break-oracle must cause */

static void failure(int is_mismatch, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void failure(int is_mismatch, const char *fmt, ...)
{
    mt_failures++;
    mismatches += is_mismatch;
    if (reported_case == cur_case) return;
    reported_case = cur_case;
    char msg[1400], sl[400], dl[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "test_nbhcoll: rank %d: FAIL %s: %s\n", mt_rank, case_desc, msg);
    if (cur_lists && cur_lists->me >= 0) {
        const lists_t *L = cur_lists;
        fmt_list(sl, sizeof sl, L->S[L->me], L->nin[L->me]);
        fmt_list(dl, sizeof dl, L->D[L->me], L->nout[L->me]);
        fprintf(stderr, "test_nbhcoll: rank %d:   (sources [%s], destinations [%s])\n", mt_rank, sl, dl);
    }
    fprintf(stderr, "test_nbhcoll: rank %d:   replay: mpirun -n %d test_nbhcoll --seed %llu --first %d --cases 1%s\n",
            mt_rank, mt_size, (unsigned long long)opt_seed, cur_case, opt_break ? " --break-oracle" : "");
    fflush(stderr);
}

static const char *errstr(int rc, char *buf)
{
    int len = 0;
    MPI_Error_string(rc, buf, &len);
    return buf;
}

static int check_rc(int rc, const char *what)
{
    mt_checks++;
    if (rc == MPI_SUCCESS) return 1;
    char s[MPI_MAX_ERROR_STRING];
    failure(0, "%s returned %d: %s", what, rc, errstr(rc, s));
    return 0;
}

/* ---- the communicators -------------------------------------------------------------- */

enum { K_NBH, K_MPICART, K_DIST, K_DETECT, NKINDS };
static const char *const kind_name[NKINDS] = { "Cart_neighborhood_create", "MPI_Cart_create",
                                               "MPI_Dist_graph_create_adjacent",
                                               "Cart_dist_graph_create_adjacent on a named dup of MPI_COMM_WORLD" };
#define MAXT 32

typedef struct {
    int kind, d, dims[3], periods[3], grid, t, off[3 * MAXT];
} shape_t;

/* A grid of d <= 3 dimensions: MPI_Dims_create (covering every process) or
 * small sizes 1..3 (processes outside the grid); size-1 and size-2
 * dimensions mostly periodic, where -1 and +1 reach the same process. */
static void gen_grid(mt_rng *r, int p, int cover, int all_periodic, shape_t *s)
{
    s->d = mt_uniform(r, 1, 3);
    int prod = 1;
    if (cover || mt_chance(r, 50)) {
        for (int k = 0; k < 3; k++) s->dims[k] = 0;
        MPI_Dims_create(p, s->d, s->dims);
        shuffle(r, s->dims, s->d); /* size-1 dimensions not only last */
        for (int k = 0; k < s->d; k++) prod *= s->dims[k];
    } else {
        for (int k = 0; k < s->d; k++) {
            int want = mt_uniform(r, 1, 3);
            if (prod * want > p) want = 1;
            s->dims[k] = want;
            prod *= want;
        }
    }
    for (int k = 0; k < s->d; k++) s->periods[k] = all_periodic || mt_chance(r, s->dims[k] <= 2 ? 70 : 50);
    s->grid = prod;
}

/* Offsets: a random list in [-2,2]^d with repeats and zero vectors, or
 * Moore / von Neumann radius 1 (enumerated here), with or without the zero
 * vector, sometimes with its first vector repeated at the end. */
static void gen_stencil(mt_rng *r, shape_t *s)
{
    int d = s->d, style = mt_uniform(r, 0, 3);
    s->t = 0;
    if (style >= 2) {
        int t = mt_uniform(r, 1, 7);
        for (int i = 0; i < t; i++) {
            int *v = &s->off[i * d];
            if (i > 0 && mt_chance(r, 25)) memcpy(v, &s->off[mt_uniform(r, 0, i - 1) * d], sizeof(int) * (size_t)d);
            else if (mt_chance(r, 12)) memset(v, 0, sizeof(int) * (size_t)d);
            else
                for (int k = 0; k < d; k++) v[k] = mt_uniform(r, -2, 2);
        }
        s->t = t;
    } else {
        int with_zero = mt_chance(r, 50), total = 1;
        for (int k = 0; k < d; k++) total *= 3;
        for (int x = 0; x < total; x++) {
            int v[3], rest = x, l1 = 0;
            for (int k = d - 1; k >= 0; k--) {
                v[k] = rest % 3 - 1;
                rest /= 3;
                l1 += v[k] != 0;
            }
            if ((style == 1 && l1 > 1) || (l1 == 0 && !with_zero)) continue; /* style 1: von Neumann */
            memcpy(&s->off[s->t * d], v, sizeof(int) * (size_t)d);
            s->t++;
        }
        if (s->t > 0 && s->t < MAXT && mt_chance(r, 40)) {
            memcpy(&s->off[s->t * d], &s->off[0], sizeof(int) * (size_t)d);
            s->t++;
        }
    }
}

static void describe_shape(const shape_t *s, const char *info_alg, char *buf, size_t n)
{
    if (s->kind == K_DIST) {
        snprintf(buf, n, "%s, random multigraph", kind_name[s->kind]);
        return;
    }
    size_t at = (size_t)snprintf(buf, n, "%s, d = %d, dims", kind_name[s->kind], s->d);
    for (int k = 0; k < s->d; k++)
        at += (size_t)snprintf(buf + at, n - at, "%s%d%s", k ? "x" : " ", s->dims[k], s->periods[k] ? "p" : "");
    if (s->kind != K_MPICART) {
        at += (size_t)snprintf(buf + at, n - at, ", t = %d:", s->t);
        for (int i = 0; i < s->t && at + 24 < n; i++) {
            at += (size_t)snprintf(buf + at, n - at, " (");
            for (int k = 0; k < s->d; k++) at += (size_t)snprintf(buf + at, n - at, "%s%d", k ? "," : "", s->off[i * s->d + k]);
            at += (size_t)snprintf(buf + at, n - at, ")");
        }
    }
    if (info_alg && at + 40 < n) snprintf(buf + at, n - at, ", cartcoll_algorithm = %s", info_alg);
}

/* Lists of a stencil on the grid: D[i] = R + N[i], S[i] = R - N[i]. */
static void stencil_lists(const shape_t *s, lists_t *L)
{
    for (int u = 0; u < L->p; u++) {
        L->nin[u] = L->nout[u] = s->t;
        L->S[u] = malloc(sizeof(int) * (size_t)(s->t + 1));
        L->D[u] = malloc(sizeof(int) * (size_t)(s->t + 1));
        for (int i = 0; i < s->t; i++) {
            L->D[u][i] = mt_shift(u, s->d, s->dims, s->periods, &s->off[i * s->d], +1);
            L->S[u][i] = mt_shift(u, s->d, s->dims, s->periods, &s->off[i * s->d], -1);
        }
    }
}

/* MPI's Cartesian lists: for each dimension the -1 neighbour, then +1. */
static void mpicart_lists(const shape_t *s, lists_t *L)
{
    for (int u = 0; u < L->p; u++) {
        L->nin[u] = L->nout[u] = 2 * s->d;
        L->S[u] = malloc(sizeof(int) * (size_t)(2 * s->d));
        L->D[u] = malloc(sizeof(int) * (size_t)(2 * s->d));
        for (int k = 0; k < s->d; k++) {
            int e[3] = { 0, 0, 0 };
            e[k] = 1;
            L->S[u][2 * k] = L->D[u][2 * k] = mt_shift(u, s->d, s->dims, s->periods, e, -1);
            L->S[u][2 * k + 1] = L->D[u][2 * k + 1] = mt_shift(u, s->d, s->dims, s->periods, e, +1);
        }
    }
}

/* A random multigraph from one global edge list (so in- and out-lists
 * agree): self edges, edges repeated 2-3 times, processes without
 * out-edges; sources collected from the edges and shuffled. */
static void random_graph(mt_rng *r, lists_t *L)
{
    int p = L->p, cap = 3 * p + 6;
    for (int u = 0; u < p; u++) {
        L->D[u] = malloc(sizeof(int) * (size_t)cap);
        int want = mt_chance(r, 10) ? 0 : mt_uniform(r, 0, 2 * p + 2), n = 0;
        while (n < want) {
            int v = mt_chance(r, 15) ? u : mt_uniform(r, 0, p - 1);
            int m = mt_chance(r, 30) ? mt_uniform(r, 2, 3) : 1;
            for (; m > 0 && n < cap; m--) L->D[u][n++] = v;
        }
        shuffle(r, L->D[u], n);
        L->nout[u] = n;
    }
    for (int v = 0; v < p; v++) {
        int n = 0;
        for (int u = 0; u < p; u++) n += occurrences(L->D[u], L->nout[u], v);
        L->S[v] = malloc(sizeof(int) * (size_t)(n + 1));
        L->nin[v] = 0;
        for (int u = 0; u < p; u++)
            for (int i = 0; i < L->nout[u]; i++)
                if (L->D[u][i] == v) L->S[v][L->nin[v]++] = u;
        shuffle(r, L->S[v], n);
    }
}

/* The communicator of a case and every process's lists (in its ranks,
 * which are MPI_COMM_WORLD's: reorder = 0 everywhere).  MPI_COMM_NULL for
 * processes outside the grid. */
static MPI_Comm make_comm(int cs, mt_rng *gr, shape_t *s, lists_t *L)
{
    int p = mt_size;
    MPI_Comm c = MPI_COMM_NULL;
    const char *alg[4] = { NULL, "direct", "combining", "torus" };
    const char *ialg = alg[(cs / NKINDS) % 4];
    s->kind = cs % NKINDS;
    switch (s->kind) {
    case K_NBH: {
        gen_grid(gr, p, 0, 0, s);
        gen_stencil(gr, s);
        lists_init(L, s->grid);
        stencil_lists(s, L);
        MPI_Info info = mt_info(ialg, NULL);
        int rc = Cart_neighborhood_create(MPI_COMM_WORLD, s->d, s->dims, s->periods, s->t, s->off, MPI_UNWEIGHTED,
                                          info, 0, &c);
        mt_info_free(&info);
        check_rc(rc, "Cart_neighborhood_create");
        break;
    }
    case K_MPICART:
        ialg = NULL;
        gen_grid(gr, p, 0, 0, s);
        lists_init(L, s->grid);
        mpicart_lists(s, L);
        MPI_Cart_create(MPI_COMM_WORLD, s->d, s->dims, s->periods, 0, &c);
        break;
    case K_DIST: {
        ialg = NULL;
        s->d = 0;
        lists_init(L, p);
        random_graph(gr, L);
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, L->nin[mt_rank], L->S[mt_rank], MPI_UNWEIGHTED,
                                       L->nout[mt_rank], L->D[mt_rank], MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c);
        break;
    }
    default: {
        gen_grid(gr, p, 1, 1, s);
        gen_stencil(gr, s);
        lists_init(L, p);
        stencil_lists(s, L);
        for (int u = 0; u < p; u++) { /* each process its own order (every process knows all of them) */
            mt_rng ur;
            mt_seed(&ur, hsh(opt_seed, cs, u, 3), 0);
            if (mt_chance(&ur, 75)) shuffle(&ur, L->S[u], L->nin[u]);
            if (mt_chance(&ur, 75)) shuffle(&ur, L->D[u], L->nout[u]);
        }
        MPI_Comm old;
        int size = 0;
        MPI_Comm_dup(MPI_COMM_WORLD, &old);
        check_rc(Cart_name(old, s->d, CART_ROW_MAJOR, s->dims, s->periods, &size), "Cart_name");
        MPI_Info info = mt_info(ialg, NULL);
        int rc = Cart_dist_graph_create_adjacent(old, L->nin[mt_rank], L->S[mt_rank], MPI_UNWEIGHTED, L->nout[mt_rank],
                                                 L->D[mt_rank], MPI_UNWEIGHTED, info, 0, &c);
        mt_info_free(&info);
        MPI_Comm_free(&old);
        check_rc(rc, "Cart_dist_graph_create_adjacent");
    }
    }
    describe_shape(s, ialg, case_desc + strlen(case_desc), sizeof case_desc - strlen(case_desc));
    return c;
}

/* Whether the communicator reports the lists the oracle computed. */
static int lists_match(MPI_Comm c, const shape_t *s, const lists_t *L)
{
    int me = L->me, nin = L->nin[me], nout = L->nout[me], ok = 1, size;
    MPI_Comm_size(c, &size);
    if (size != L->p) {
        failure(0, "the communicator has %d processes, the oracle %d", size, L->p);
        return 0;
    }
    int *src = malloc(sizeof(int) * (size_t)(nin + 1)), *dst = malloc(sizeof(int) * (size_t)(nout + 1));
    int gin = nin, gout = nout, w = 0;
    if (s->kind == K_NBH) {
        ok = check_rc(Cart_neighbor_get(c, nin, src, MPI_UNWEIGHTED, nout, dst, MPI_UNWEIGHTED), "Cart_neighbor_get");
    } else if (s->kind == K_MPICART) {
        for (int k = 0; k < s->d; k++) {
            MPI_Cart_shift(c, k, 1, &src[2 * k], &src[2 * k + 1]);
            dst[2 * k] = src[2 * k];
            dst[2 * k + 1] = src[2 * k + 1];
        }
    } else {
        MPI_Dist_graph_neighbors_count(c, &gin, &gout, &w);
        if (gin == nin && gout == nout)
            MPI_Dist_graph_neighbors(c, nin, src, MPI_UNWEIGHTED, nout, dst, MPI_UNWEIGHTED);
    }
    mt_checks++;
    if (ok && (gin != nin || gout != nout || memcmp(src, L->S[me], sizeof(int) * (size_t)nin) ||
               memcmp(dst, L->D[me], sizeof(int) * (size_t)nout))) {
        char a[400], b[400];
        fmt_list(a, sizeof a, src, gin == nin ? nin : 0);
        fmt_list(b, sizeof b, dst, gout == nout ? nout : 0);
        failure(0, "the communicator reports %d sources [%s] and %d destinations [%s], not the oracle's lists", gin, a,
                gout, b);
        ok = 0;
    }
    free(src);
    free(dst);
    return ok;
}

/* ---- one call: parameters, buffers, the oracle -------------------------------------- */

enum { C_BARRIER, C_BCAST, C_GATHER, C_GATHERV, C_SCATTER, C_SCATTERV, C_REDUCE, C_ALLREDUCE, NCOLL };
static const char *const coll_name[NCOLL] = { "Cart_barrier", "Cart_bcast",  "Cart_gather", "Cart_gatherv",
                                              "Cart_scatter", "Cart_scatterv", "Cart_reduce", "Cart_allreduce" };
enum { F_BLOCKING, F_WAIT, F_TEST, F_PERSISTENT, F_CONCURRENT, NFORMS };
static const char *const form_name[NFORMS] = { "blocking", "non-blocking + Cart_wait", "non-blocking + Cart_test loop",
                                               "persistent", "concurrent non-blocking" };

#define MARGIN 3 /* sentinel ints before and after every buffer */

typedef struct {
    int off, type, count; /* offset in ints from the buffer's start */
} blk_t;

typedef struct {
    int coll, root, op, inplace, st, rt, unit, c, sc, rc;
    int nsb, nrb; /* this process's send and receive blocks */
    blk_t *sbk, *rbk;
    int *counts, *displs; /* v variants at the root (outdegree / indegree entries) */
    int slen, rlen;       /* ints between the margins; -1: not passed (NULL or MPI_IN_PLACE) */
    int *sbuf, *rbuf, *sexp, *rexp;
    int round, me;
    uint64_t salt;
    const lists_t *L;
} call_t;

static int is_rooted(int coll) { return coll != C_BARRIER && coll != C_ALLREDUCE; }
static int is_reduction(int coll) { return coll == C_REDUCE || coll == C_ALLREDUCE; }

/* Ints of the block of a v call that involves rank u (u's sendcount in
 * gatherv, u's recvcount in scatterv): 0, 1, 2 or 4 elements of the unit.
 * key: u, or something else for MPI_PROC_NULL entries (any count). */
static int v_ints(const call_t *k, int key)
{
    static const int set[4] = { 0, 1, 2, 4 };
    return k->unit * set[hsh(k->salt, key, 77, 0) % 4];
}

/* v layout: blocks in a shuffled order, gaps of whole extents. */
static int layout_v(mt_rng *r, blk_t *b, int nb)
{
    int *order = malloc(sizeof(int) * (size_t)(nb + 1)), end = 0;
    for (int i = 0; i < nb; i++) order[i] = i;
    shuffle(r, order, nb);
    int ext = nb ? ty_ext[b[0].type] : 1, cursor = mt_uniform(r, 0, 2) * ext;
    for (int x = 0; x < nb; x++) {
        blk_t *k = &b[order[x]];
        k->off = cursor;
        cursor += k->count * ty_ext[k->type] + mt_uniform(r, 0, 2) * ext;
        if (cursor > end) end = cursor;
    }
    free(order);
    return end + 2;
}

static int regular_layout(blk_t *b, int nb, int type, int count)
{
    for (int i = 0; i < nb; i++) b[i] = (blk_t){ i * count * ty_ext[type], type, count };
    return nb * count * ty_ext[type] + 2;
}

/* Parameters from the salt (equal on every process), this process's blocks. */
static void call_build(call_t *k, int coll, const lists_t *L, uint64_t salt)
{
    static const int counts[3] = { 0, 1, 4 };
    mt_rng r;
    mt_seed(&r, salt, 11);
    memset(k, 0, sizeof *k);
    k->coll = coll;
    k->salt = salt;
    k->L = L;
    k->me = L->me;
    int me = L->me, p = L->p;
    k->root = mt_uniform(&r, 0, p - 1);
    k->op = mt_uniform(&r, 0, NOPS - 1);
    k->c = counts[mt_uniform(&r, 0, 2)];
    if (is_reduction(coll)) {
        k->st = k->rt = k->op == OP_AFFINE || k->op == OP_UMAX ? mt_uniform(&r, 0, 1) : TY_INT;
        k->unit = ty_size[k->st];
    } else {
        k->st = mt_uniform(&r, 0, 1);
        k->rt = mt_chance(&r, 70) ? k->st : mt_uniform(&r, 0, 1);
        k->unit = k->st == TY_VEC || k->rt == TY_VEC ? 2 : 1;
    }
    k->sc = k->unit * k->c / ty_size[k->st];
    k->rc = k->unit * k->c / ty_size[k->rt];
    k->inplace = coll != C_BCAST && coll != C_BARRIER && mt_chance(&r, 30);
    int root = me == k->root, null_ok = mt_chance(&r, 50); /* NULL where a buffer is not significant */
    int in = L->nin[me], out = L->nout[me];
    k->slen = k->rlen = -1;
    k->sbk = calloc((size_t)(out + 2), sizeof(blk_t));
    k->rbk = calloc((size_t)(in + 2), sizeof(blk_t));
    k->counts = calloc((size_t)(in + out + 2), sizeof(int));
    k->displs = calloc((size_t)(in + out + 2), sizeof(int));
    switch (coll) {
    case C_BARRIER: break;
    case C_BCAST: /* one buffer, kept as the receive side; the root's type is st */
        k->nrb = 1;
        k->rlen = regular_layout(k->rbk, 1, root ? k->st : k->rt, root ? k->sc : k->rc);
        break;
    case C_GATHER:
    case C_GATHERV:
        if (coll == C_GATHERV) k->sc = v_ints(k, me) / ty_size[k->st];
        if (!(root && k->inplace)) {
            k->nsb = 1;
            k->slen = regular_layout(k->sbk, 1, k->st, k->sc);
        }
        if (root) {
            k->nrb = in;
            if (coll == C_GATHER) {
                k->rlen = regular_layout(k->rbk, in, k->rt, k->rc);
            } else {
                for (int j = 0; j < in; j++) {
                    int u = L->S[me][j];
                    k->rbk[j] = (blk_t){ 0, k->rt, v_ints(k, u == MPI_PROC_NULL ? 5000 + j : u) / ty_size[k->rt] };
                }
                k->rlen = layout_v(&r, k->rbk, in);
                for (int j = 0; j < in; j++) {
                    k->counts[j] = k->rbk[j].count;
                    k->displs[j] = k->rbk[j].off / ty_ext[k->rt];
                }
            }
        } else if (!null_ok) {
            k->rlen = 5; /* not significant: must stay untouched */
        }
        break;
    case C_SCATTER:
    case C_SCATTERV:
        if (coll == C_SCATTERV) k->rc = v_ints(k, me) / ty_size[k->rt];
        if (root) {
            k->nsb = out;
            if (coll == C_SCATTER) {
                k->slen = regular_layout(k->sbk, out, k->st, k->sc);
            } else {
                for (int i = 0; i < out; i++) {
                    int v = L->D[me][i];
                    k->sbk[i] = (blk_t){ 0, k->st, v_ints(k, v == MPI_PROC_NULL ? 6000 + i : v) / ty_size[k->st] };
                }
                k->slen = layout_v(&r, k->sbk, out);
                for (int i = 0; i < out; i++) {
                    k->counts[i] = k->sbk[i].count;
                    k->displs[i] = k->sbk[i].off / ty_ext[k->st];
                }
            }
        } else if (!null_ok) {
            k->slen = 5;
        }
        if (!(root && k->inplace)) {
            k->nrb = 1;
            k->rlen = regular_layout(k->rbk, 1, k->rt, k->rc);
        }
        break;
    default: /* reductions: count c of st */
        k->sc = k->rc = k->c;
        if (!(k->inplace && (coll == C_ALLREDUCE || root))) {
            k->nsb = 1;
            k->slen = regular_layout(k->sbk, 1, k->st, k->c);
        }
        if (coll == C_ALLREDUCE || root) {
            k->nrb = 1;
            k->rlen = regular_layout(k->rbk, 1, k->st, k->c);
        } else if (!null_ok) {
            k->rlen = 5;
        }
    }
    if (k->slen >= 0) {
        k->sbuf = malloc(sizeof(int) * (size_t)(k->slen + 2 * MARGIN));
        k->sexp = malloc(sizeof(int) * (size_t)(k->slen + 2 * MARGIN));
    }
    if (k->rlen >= 0) {
        k->rbuf = malloc(sizeof(int) * (size_t)(k->rlen + 2 * MARGIN));
        k->rexp = malloc(sizeof(int) * (size_t)(k->rlen + 2 * MARGIN));
    }
}

static void call_free(call_t *k)
{
    free(k->sbk);
    free(k->rbk);
    free(k->counts);
    free(k->displs);
    free(k->sbuf);
    free(k->sexp);
    free(k->rbuf);
    free(k->rexp);
    memset(k, 0, sizeof *k);
}

/* Int e of rank u's send block `blk` in this call's round. */
static int send_value(const call_t *k, int u, int blk, int e)
{
    if (is_reduction(k->coll)) return red_value(k->op, k->salt, u, k->round, e, 0);
    return data(u, k->coll == C_SCATTER || k->coll == C_SCATTERV ? blk : 0, k->round, e);
}

/* Rank u's term of the reduction at a process (MPI_IN_PLACE: its receive
 * buffer's initial content). */
static int term(const call_t *k, int u, int e)
{
    int from_recv = k->inplace && (k->coll == C_ALLREDUCE || u == k->root);
    return red_value(k->op, k->salt, u, k->round, e, from_recv);
}

/* Contents for a round: sentinels everywhere, data in the send blocks (and
 * the root's bcast buffer, the receive buffers of MPI_IN_PLACE
 * reductions); the expected buffers start as copies ("untouched"). */
static void call_fill(call_t *k, int round)
{
    k->round = round;
    int me = k->me;
    if (k->sbuf) {
        for (int x = 0; x < k->slen + 2 * MARGIN; x++) k->sbuf[x] = SEND_GAP(x);
        for (int i = 0; i < k->nsb; i++)
            for (int e = 0; e < k->sbk[i].count * ty_size[k->sbk[i].type]; e++)
                k->sbuf[MARGIN + k->sbk[i].off + elem_pos(k->sbk[i].type, e)] = send_value(k, me, i, e);
        memcpy(k->sexp, k->sbuf, sizeof(int) * (size_t)(k->slen + 2 * MARGIN));
    }
    if (k->rbuf) {
        for (int x = 0; x < k->rlen + 2 * MARGIN; x++) k->rbuf[x] = RECV_GAP(x);
        const blk_t *b = &k->rbk[0];
        int n = k->nrb ? b->count * ty_size[b->type] : 0;
        if (k->coll == C_BCAST && me == k->root)
            for (int e = 0; e < n; e++) k->rbuf[MARGIN + b->off + elem_pos(b->type, e)] = data(me, 0, round, e);
        if (is_reduction(k->coll) && k->inplace && k->nrb)
            for (int e = 0; e < n; e++)
                k->rbuf[MARGIN + b->off + elem_pos(b->type, e)] = red_value(k->op, k->salt, me, round, e, 1);
        memcpy(k->rexp, k->rbuf, sizeof(int) * (size_t)(k->rlen + 2 * MARGIN));
    }
}

/* In-neighbour j as the oracle reads it (--break-oracle: backwards). */
static int in_nb(const lists_t *L, int v, int j) { return L->S[v][opt_break ? L->nin[v] - 1 - j : j]; }

/* The contract, applied to the expected receive buffer of this process. */
static void call_expect(call_t *k)
{
    const lists_t *L = k->L;
    int me = k->me, root = k->root;
    switch (k->coll) {
    case C_BCAST:
        if (me != root && occurrences(L->S[me], L->nin[me], root)) {
            const blk_t *b = &k->rbk[0];
            for (int e = 0; e < b->count * ty_size[b->type]; e++)
                k->rexp[MARGIN + b->off + elem_pos(b->type, e)] = data(root, 0, k->round, e);
        }
        break;
    case C_GATHER:
    case C_GATHERV:
        if (me != root) break;
        for (int j = 0; j < L->nin[me]; j++) {
            int u = in_nb(L, me, j);
            if (u == MPI_PROC_NULL || (k->inplace && u == root)) continue;
            const blk_t *b = &k->rbk[j];
            for (int e = 0; e < b->count * ty_size[b->type]; e++)
                k->rexp[MARGIN + b->off + elem_pos(b->type, e)] = send_value(k, u, 0, e);
        }
        break;
    case C_SCATTER:
    case C_SCATTERV: {
        int i = -1; /* the LAST edge root -> me wins (--break-oracle: the first) */
        for (int x = 0; x < L->nout[root]; x++)
            if (L->D[root][x] == me && (i < 0 || !opt_break)) i = x;
        if (i < 0 || (me == root && k->inplace)) break;
        const blk_t *b = &k->rbk[0];
        for (int e = 0; e < b->count * ty_size[b->type]; e++)
            k->rexp[MARGIN + b->off + elem_pos(b->type, e)] = send_value(k, root, i, e);
        break;
    }
    case C_REDUCE:
    case C_ALLREDUCE: {
        if (k->coll == C_REDUCE && me != root) break;
        const blk_t *b = &k->rbk[0];
        for (int e = 0; e < b->count * ty_size[b->type]; e++) {
            int acc = 0, have = 0;
            for (int j = 0; j < L->nin[me]; j++) {
                int u = in_nb(L, me, j);
                if (u == MPI_PROC_NULL) continue;
                int x = term(k, u, e);
                acc = have ? op_apply(k->op, acc, x) : x;
                have = 1;
            }
            if (have) k->rexp[MARGIN + b->off + elem_pos(b->type, e)] = acc;
        }
        break;
    }
    default: break;
    }
}

/* ---- comparing: the first wrong int of a call, located ------------------------------ */

static void describe_call(const call_t *k, int form, char *buf, size_t n)
{
    size_t at = (size_t)snprintf(buf, n, "%s %s", coll_name[k->coll], form_name[form]);
    if (k->coll == C_BARRIER) return;
    if (is_rooted(k->coll)) at += (size_t)snprintf(buf + at, n - at, ", root %d", k->root);
    if (is_reduction(k->coll))
        at += (size_t)snprintf(buf + at, n - at, ", %s, count %d of %s", op_name[k->op], k->c, ty_name[k->st]);
    else if (k->coll == C_GATHERV || k->coll == C_SCATTERV)
        at += (size_t)snprintf(buf + at, n - at, ", per-process counts, send %s, receive %s", ty_name[k->st],
                               ty_name[k->rt]);
    else
        at += (size_t)snprintf(buf + at, n - at, ", send %d x %s, receive %d x %s", k->sc, ty_name[k->st], k->rc,
                               ty_name[k->rt]);
    if (k->inplace) snprintf(buf + at, n - at, ", MPI_IN_PLACE");
}

/* Where int x of a buffer (margins included) lies. */
static void locate(const call_t *k, int recv, int x, char *buf, size_t n)
{
    int len = recv ? k->rlen : k->slen, nb = recv ? k->nrb : k->nsb, pos = x - MARGIN;
    const blk_t *bk = recv ? k->rbk : k->sbk;
    if (pos < 0 || pos >= len) {
        snprintf(buf, n, "margin %s the buffer (int %d)", pos < 0 ? "before" : "after", pos);
        return;
    }
    for (int j = 0; j < nb; j++) {
        const blk_t *b = &bk[j];
        if (pos < b->off || pos >= b->off + b->count * ty_ext[b->type]) continue;
        char from[64] = "";
        if (recv && (k->coll == C_GATHER || k->coll == C_GATHERV)) {
            int u = k->L->S[k->me][j];
            if (u == MPI_PROC_NULL) snprintf(from, sizeof from, " (source MPI_PROC_NULL)");
            else snprintf(from, sizeof from, " (source rank %d)", u);
        }
        if (!recv && (k->coll == C_SCATTER || k->coll == C_SCATTERV)) {
            int v = k->L->D[k->me][j];
            snprintf(from, sizeof from, " (destination %d)", v == MPI_PROC_NULL ? -1 : v);
        }
        for (int e = 0; e < b->count * ty_size[b->type]; e++)
            if (b->off + elem_pos(b->type, e) == pos) {
                snprintf(buf, n, "block %d%s, int %d (buffer offset %d)", j, from, e, pos);
                return;
            }
        snprintf(buf, n, "a gap of the strided type in block %d%s (buffer offset %d)", j, from, pos);
        return;
    }
    snprintf(buf, n, "between blocks (buffer offset %d)", pos);
}

/* oracle: whether the expected contents came from call_expect (a wrong
 * int then counts as a mismatch for --break-oracle) or are "untouched". */
static int compare(const call_t *k, int form, int start, int recv, int oracle)
{
    const int *got = recv ? k->rbuf : k->sbuf, *exp = recv ? k->rexp : k->sexp;
    int len = (recv ? k->rlen : k->slen) + 2 * MARGIN;
    if (!got) return 1;
    mt_checks++;
    for (int x = 0; x < len; x++) {
        if (got[x] == exp[x]) continue;
        char cd[300], loc[200], e1[120], g1[120];
        describe_call(k, form, cd, sizeof cd);
        locate(k, recv, x, loc, sizeof loc);
        char st[32] = "";
        if (start) snprintf(st, sizeof st, ", %s %d", form == F_PERSISTENT ? "start" : "call", start);
        failure(oracle, "%s%s: %s buffer, %s: expected %s, got %s", cd, st,
                recv ? (k->coll == C_BCAST ? "the" : "receive") : "send", loc,
                describe(exp[x], is_reduction(k->coll), e1, sizeof e1),
                describe(got[x], is_reduction(k->coll), g1, sizeof g1));
        return 0;
    }
    return 1;
}

static void call_check(const call_t *k, int form, int start)
{
    compare(k, form, start, 0, 1);
    compare(k, form, start, 1, 1);
}

/* ---- invoking the Cart_ calls: blocking, non-blocking, persistent --------------------- */

typedef struct {
    const void *sb;
    void *rb;
    int sc, rc, root;
    MPI_Datatype st, rt;
    const int *counts, *displs;
    MPI_Op op;
} args_t;

static void call_args(const call_t *k, args_t *a)
{
    int root = k->me == k->root;
    a->sb = k->sbuf ? (const void *)(k->sbuf + MARGIN) : NULL;
    a->rb = k->rbuf ? (void *)(k->rbuf + MARGIN) : NULL;
    if (k->inplace) {
        if ((k->coll == C_GATHER || k->coll == C_GATHERV || k->coll == C_REDUCE) && root) a->sb = MPI_IN_PLACE;
        if ((k->coll == C_SCATTER || k->coll == C_SCATTERV) && root) a->rb = MPI_IN_PLACE;
        if (k->coll == C_ALLREDUCE) a->sb = MPI_IN_PLACE;
    }
    a->sc = k->sc;
    a->rc = k->rc;
    a->st = ty[k->st];
    a->rt = ty[k->rt];
    if (k->coll == C_BCAST && root) {
        a->rc = k->sc;
        a->rt = ty[k->st];
    }
    a->root = k->root;
    a->counts = k->counts;
    a->displs = k->displs;
    a->op = op_handle[k->op];
}

/* mode 0 blocking, 1 non-blocking, 2 persistent (*_init). */
static int invoke(int mode, int coll, const args_t *a, MPI_Comm c, MPI_Info info, Cart_request *rq)
{
    switch (coll) {
    case C_BARRIER:
        return mode == 0 ? Cart_barrier(c) : mode == 1 ? Cart_ibarrier(c, rq) : Cart_barrier_init(c, info, rq);
    case C_BCAST:
        return mode == 0   ? Cart_bcast(a->rb, a->rc, a->rt, a->root, c)
               : mode == 1 ? Cart_ibcast(a->rb, a->rc, a->rt, a->root, c, rq)
                           : Cart_bcast_init(a->rb, a->rc, a->rt, a->root, c, info, rq);
    case C_GATHER:
        return mode == 0   ? Cart_gather(a->sb, a->sc, a->st, a->rb, a->rc, a->rt, a->root, c)
               : mode == 1 ? Cart_igather(a->sb, a->sc, a->st, a->rb, a->rc, a->rt, a->root, c, rq)
                           : Cart_gather_init(a->sb, a->sc, a->st, a->rb, a->rc, a->rt, a->root, c, info, rq);
    case C_GATHERV:
        return mode == 0 ? Cart_gatherv(a->sb, a->sc, a->st, a->rb, a->counts, a->displs, a->rt, a->root, c)
               : mode == 1
                   ? Cart_igatherv(a->sb, a->sc, a->st, a->rb, a->counts, a->displs, a->rt, a->root, c, rq)
                   : Cart_gatherv_init(a->sb, a->sc, a->st, a->rb, a->counts, a->displs, a->rt, a->root, c, info, rq);
    case C_SCATTER:
        return mode == 0   ? Cart_scatter(a->sb, a->sc, a->st, a->rb, a->rc, a->rt, a->root, c)
               : mode == 1 ? Cart_iscatter(a->sb, a->sc, a->st, a->rb, a->rc, a->rt, a->root, c, rq)
                           : Cart_scatter_init(a->sb, a->sc, a->st, a->rb, a->rc, a->rt, a->root, c, info, rq);
    case C_SCATTERV:
        return mode == 0 ? Cart_scatterv(a->sb, a->counts, a->displs, a->st, a->rb, a->rc, a->rt, a->root, c)
               : mode == 1
                   ? Cart_iscatterv(a->sb, a->counts, a->displs, a->st, a->rb, a->rc, a->rt, a->root, c, rq)
                   : Cart_scatterv_init(a->sb, a->counts, a->displs, a->st, a->rb, a->rc, a->rt, a->root, c, info, rq);
    case C_REDUCE:
        return mode == 0   ? Cart_reduce(a->sb, a->rb, a->rc, a->rt, a->op, a->root, c)
               : mode == 1 ? Cart_ireduce(a->sb, a->rb, a->rc, a->rt, a->op, a->root, c, rq)
                           : Cart_reduce_init(a->sb, a->rb, a->rc, a->rt, a->op, a->root, c, info, rq);
    default:
        return mode == 0   ? Cart_allreduce(a->sb, a->rb, a->rc, a->rt, a->op, c)
               : mode == 1 ? Cart_iallreduce(a->sb, a->rb, a->rc, a->rt, a->op, c, rq)
                           : Cart_allreduce_init(a->sb, a->rb, a->rc, a->rt, a->op, c, info, rq);
    }
}

/* Private copies of the argument arrays and of the derived type for
 * non-blocking and *_init calls: overwritten and freed as soon as the call
 * returns, which cartcoll.h allows. */
typedef struct {
    args_t a;
    int *arr;
    int n;
    MPI_Datatype dup;
} scratch_t;

static void scratch_make(scratch_t *s, const args_t *a, int n)
{
    s->a = *a;
    s->n = n;
    s->arr = malloc(sizeof(int) * (size_t)(2 * n + 2));
    memcpy(s->arr, a->counts, sizeof(int) * (size_t)n);
    memcpy(s->arr + n, a->displs, sizeof(int) * (size_t)n);
    s->a.counts = s->arr;
    s->a.displs = s->arr + n;
    s->dup = MPI_DATATYPE_NULL;
    if (a->st == ty[TY_VEC] || a->rt == ty[TY_VEC]) {
        MPI_Type_dup(ty[TY_VEC], &s->dup);
        if (a->st == ty[TY_VEC]) s->a.st = s->dup;
        if (a->rt == ty[TY_VEC]) s->a.rt = s->dup;
    }
}

static void scratch_scribble(scratch_t *s)
{
    for (int x = 0; x < 2 * s->n; x++) s->arr[x] = -77777;
    if (s->dup != MPI_DATATYPE_NULL) MPI_Type_free(&s->dup);
}

static int complete(Cart_request *rq, int test_loop, int persistent, const char *what)
{
    int rc;
    if (test_loop) {
        int flag = 0;
        do rc = Cart_test(rq, &flag);
        while (rc == MPI_SUCCESS && !flag);
    } else {
        rc = Cart_wait(rq);
    }
    if (!check_rc(rc, what)) return 0;
    mt_checks++;
    if ((*rq == CART_REQUEST_NULL) == persistent) {
        failure(0, "%s: the request is %s after completion", what,
                persistent ? "CART_REQUEST_NULL (a persistent request must stay)" : "not CART_REQUEST_NULL");
        return 0;
    }
    return 1;
}

/* ---- the forms ------------------------------------------------------------------------ */

static int callno; /* equal on every process of the communicator: round numbers */
static int next_round(void) { return callno++ % 16; }

static void run_call(MPI_Comm c, const lists_t *L, int coll, int form, uint64_t salt)
{
    call_t k;
    args_t a;
    char what[300];
    call_build(&k, coll, L, salt);
    call_args(&k, &a);
    describe_call(&k, form, what, sizeof what);
    if (opt_verbose && L->me == 0) printf("  %s\n", what);
    int nargs = L->nin[L->me] + L->nout[L->me];
    if (form == F_BLOCKING || form == F_WAIT || form == F_TEST) {
        /* twice on the same buffers with new contents: the second call of a
         * blocking / non-blocking pair may reuse a cached plan */
        for (int again = 1; again <= 2; again++) {
            call_fill(&k, next_round());
            call_expect(&k);
            int rc;
            if (form == F_BLOCKING) {
                rc = invoke(0, coll, &a, c, MPI_INFO_NULL, NULL);
                if (!check_rc(rc, what)) break;
            } else {
                scratch_t s;
                scratch_make(&s, &a, nargs);
                Cart_request rq = CART_REQUEST_NULL;
                rc = invoke(1, coll, &s.a, c, MPI_INFO_NULL, &rq);
                scratch_scribble(&s);
                free(s.arr);
                if (!check_rc(rc, what) || !complete(&rq, form == F_TEST, 0, what)) break;
            }
            call_check(&k, form, again);
        }
    } else {
        static const char *const alg[5] = { NULL, "direct", "combining", "torus", "auto" };
        static const char *const exec[3] = { NULL, "datatype", "pack" };
        MPI_Info info = mt_info(alg[salt % 5], exec[(salt / 5) % 3]);
        call_fill(&k, next_round());
        scratch_t s;
        scratch_make(&s, &a, nargs);
        Cart_request rq = CART_REQUEST_NULL;
        int rc = invoke(2, coll, &s.a, c, info, &rq);
        scratch_scribble(&s);
        mt_info_free(&info);
        if (check_rc(rc, what)) {
            for (int start = 1; start <= 2; start++) { /* new contents each time */
                call_fill(&k, next_round());
                call_expect(&k);
                if (!check_rc(Cart_start(&rq), "Cart_start") ||
                    !complete(&rq, (int)((salt >> (10 + start)) & 1), 1, what))
                    break;
                call_check(&k, form, start);
            }
            if (check_rc(Cart_request_free(&rq), "Cart_request_free"))
                MT_CHECK(rq == CART_REQUEST_NULL, "Cart_request_free left the request set");
        }
        free(s.arr);
    }
    call_free(&k);
}

/* All eight non-blocking at once beside an active persistent allreduce,
 * completed in an order of this process's own or by one Cart_waitall:
 * nothing may deadlock or cross over. */
static void run_concurrent(MPI_Comm c, const lists_t *L, uint64_t salt, mt_rng *lr)
{
    call_t k[NCOLL + 1];
    scratch_t s[NCOLL];
    Cart_request rq[NCOLL + 1];
    int ok[NCOLL + 1], order[NCOLL + 1], nargs = L->nin[L->me] + L->nout[L->me];
    args_t a;
    call_build(&k[NCOLL], C_ALLREDUCE, L, hsh(salt, 99, 0, 0));
    call_args(&k[NCOLL], &a);
    rq[NCOLL] = CART_REQUEST_NULL;
    ok[NCOLL] = check_rc(invoke(2, C_ALLREDUCE, &a, c, MPI_INFO_NULL, &rq[NCOLL]), "Cart_allreduce_init");
    call_fill(&k[NCOLL], next_round());
    call_expect(&k[NCOLL]);
    if (ok[NCOLL]) ok[NCOLL] = check_rc(Cart_start(&rq[NCOLL]), "Cart_start of a persistent allreduce");
    for (int x = 0; x < NCOLL; x++) {
        call_build(&k[x], x, L, hsh(salt, x, 1, 0));
        call_args(&k[x], &a);
        call_fill(&k[x], next_round());
        call_expect(&k[x]);
        scratch_make(&s[x], &a, nargs);
        rq[x] = CART_REQUEST_NULL;
        ok[x] = check_rc(invoke(1, x, &s[x].a, c, MPI_INFO_NULL, &rq[x]), coll_name[x]);
        scratch_scribble(&s[x]);
        order[x] = x;
    }
    order[NCOLL] = NCOLL;
    int all = 1;
    for (int x = 0; x <= NCOLL; x++) all &= ok[x];
    if ((salt & 1) && all) {
        if (check_rc(Cart_waitall(NCOLL + 1, rq), "Cart_waitall of eight non-blocking and a persistent"))
            for (int x = 0; x <= NCOLL; x++) call_check(&k[x], F_CONCURRENT, 0);
    } else {
        shuffle(lr, order, NCOLL + 1);
        for (int y = 0; y <= NCOLL; y++) {
            int x = order[y];
            if (ok[x] && complete(&rq[x], 0, x == NCOLL, coll_name[x == NCOLL ? C_ALLREDUCE : x]))
                call_check(&k[x], F_CONCURRENT, 0);
        }
    }
    if (rq[NCOLL] != CART_REQUEST_NULL) check_rc(Cart_request_free(&rq[NCOLL]), "Cart_request_free");
    for (int x = 0; x <= NCOLL; x++) {
        if (x < NCOLL) free(s[x].arr);
        call_free(&k[x]);
    }
}

/* ---- barrier: a late in-neighbour holds a process back ---------------------------- */

#define LATE 0.02

static void sleep_s(double sec)
{
    struct timespec ts = { (time_t)sec, (long)((sec - (double)(time_t)sec) * 1e9) };
    nanosleep(&ts, NULL);
}

/* The late process hears from every other one, sleeps, then enters: a
 * process with it among its in-neighbours cannot leave earlier than LATE
 * after its own message (time measured on its own clock). */
static void barrier_late(MPI_Comm c, const lists_t *L, uint64_t salt)
{
    int me = L->me, p = L->p;
    static const int forms[3] = { F_BLOCKING, F_TEST, F_PERSISTENT };
    for (int f = 0; f < 3; f++) {
        Cart_request rq = CART_REQUEST_NULL;
        if (forms[f] == F_PERSISTENT && !check_rc(Cart_barrier_init(c, MPI_INFO_NULL, &rq), "Cart_barrier_init"))
            continue;
        for (int start = 0; start < (forms[f] == F_PERSISTENT ? 2 : 1); start++) {
            /* a tag per round: a process already in the next round (it need
             * not wait for this late one) must not stand in for another */
            int late = (int)(hsh(salt, f, start, 0) % (uint64_t)p), tag = 4711 + 2 * f + start, rc;
            double t0 = 0;
            if (me == late) {
                for (int x = 0; x < p - 1; x++) MPI_Recv(NULL, 0, MPI_INT, MPI_ANY_SOURCE, tag, c, MPI_STATUS_IGNORE);
                sleep_s(LATE);
            } else {
                t0 = MPI_Wtime();
                MPI_Send(NULL, 0, MPI_INT, late, tag, c);
            }
            if (forms[f] == F_BLOCKING) {
                rc = Cart_barrier(c);
            } else {
                rc = forms[f] == F_TEST ? Cart_ibarrier(c, &rq) : Cart_start(&rq);
                if (rc == MPI_SUCCESS) {
                    int flag = 0;
                    do rc = Cart_test(&rq, &flag);
                    while (rc == MPI_SUCCESS && !flag);
                }
            }
            double t1 = MPI_Wtime();
            if (!check_rc(rc, "Cart_barrier with a late process")) break;
            if (me != late && occurrences(L->S[me], L->nin[me], late)) {
                mt_checks++;
                if (t1 - t0 < 0.9 * LATE)
                    failure(0, "Cart_barrier %s: left %.4f s after this process's message although in-neighbour %d "
                               "entered only %.3f s after it",
                            form_name[forms[f]], t1 - t0, late, LATE);
            }
        }
        if (rq != CART_REQUEST_NULL) check_rc(Cart_request_free(&rq), "Cart_request_free of a barrier");
    }
}

/* ---- errors: classes, the handler, nothing touched ---------------------------------- */

/* An error handler that records its calls and returns (as
 * MPI_ERRORS_RETURN does): cartcoll.h invokes the communicator's handler
 * before returning an error. */
static int eh_calls, eh_code;
static MPI_Comm eh_comm;
static void record_error(MPI_Comm *comm, int *code, ...)
{
    eh_calls++;
    eh_code = *code;
    eh_comm = *comm;
}

static void expect_class(int rc, int cls_want, const char *what, const char *cls_name, Cart_request rq,
                         const call_t *k, int form, MPI_Comm c)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    mt_checks++;
    if (cls != cls_want) {
        char s[MPI_MAX_ERROR_STRING] = "";
        if (rc != MPI_SUCCESS) errstr(rc, s);
        failure(0, "%s: returned class %d (%s), expected %s = %d", what, cls, s, cls_name, cls_want);
    } else {
        mt_checks++;
        if (eh_calls != 1 || eh_comm != c || eh_code != rc)
            failure(0, "%s: the communicator's error handler was called %d times (expected once), last on %s with "
                       "code %d (returned %d)",
                    what, eh_calls, eh_calls ? (eh_comm == c ? "the communicator" : "another communicator") : "-",
                    eh_code, rc);
    }
    eh_calls = 0;
    MT_CHECK(rq == CART_REQUEST_NULL, "%s: a failed call set the request", what);
    if (k) { /* every buffer untouched */
        compare(k, form, 0, 0, 0);
        compare(k, form, 0, 1, 0);
    }
}

/* The collectives undefined on neighbourhoods. */
static int undefined_call(int which, int mode, const int *sb, int *rb, const int *rcounts, MPI_Comm c, MPI_Info info,
                          Cart_request *rq)
{
    switch (which) {
    case 0:
        return mode == 0   ? Cart_reduce_scatter_block(sb, rb, 1, MPI_INT, MPI_SUM, c)
               : mode == 1 ? Cart_ireduce_scatter_block(sb, rb, 1, MPI_INT, MPI_SUM, c, rq)
                           : Cart_reduce_scatter_block_init(sb, rb, 1, MPI_INT, MPI_SUM, c, info, rq);
    case 1:
        return mode == 0   ? Cart_reduce_scatter(sb, rb, rcounts, MPI_INT, MPI_SUM, c)
               : mode == 1 ? Cart_ireduce_scatter(sb, rb, rcounts, MPI_INT, MPI_SUM, c, rq)
                           : Cart_reduce_scatter_init(sb, rb, rcounts, MPI_INT, MPI_SUM, c, info, rq);
    case 2:
        return mode == 0   ? Cart_scan(sb, rb, 2, MPI_INT, MPI_SUM, c)
               : mode == 1 ? Cart_iscan(sb, rb, 2, MPI_INT, MPI_SUM, c, rq)
                           : Cart_scan_init(sb, rb, 2, MPI_INT, MPI_SUM, c, info, rq);
    default:
        return mode == 0   ? Cart_exscan(sb, rb, 2, MPI_INT, MPI_SUM, c)
               : mode == 1 ? Cart_iexscan(sb, rb, 2, MPI_INT, MPI_SUM, c, rq)
                           : Cart_exscan_init(sb, rb, 2, MPI_INT, MPI_SUM, c, info, rq);
    }
}

static void error_checks(MPI_Comm c, const lists_t *L, uint64_t salt)
{
    static const char *const undef_name[4] = { "Cart_reduce_scatter_block", "Cart_reduce_scatter", "Cart_scan",
                                               "Cart_exscan" };
    static const char *const mode_name[3] = { "", " (non-blocking)", " (persistent)" };
    static const int mode_form[3] = { F_BLOCKING, F_WAIT, F_PERSISTENT };
    int p = L->p;
    char what[200];
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(record_error, &eh);
    MPI_Comm_set_errhandler(c, eh);
    eh_calls = 0;
    int sb[2 * 64 + 8], rb[2 * 64 + 8], rbx[2 * 64 + 8], *rcounts = malloc(sizeof(int) * (size_t)p);
    for (int u = 0; u < p; u++) rcounts[u] = 1;
    for (int x = 0; x < 2 * 64 + 8; x++) sb[x] = x, rb[x] = rbx[x] = RECV_GAP(x);
    for (int which = 0; which < 4; which++)
        for (int mode = 0; mode < 3; mode++) {
            Cart_request rq = CART_REQUEST_NULL;
            snprintf(what, sizeof what, "%s%s", undef_name[which], mode_name[mode]);
            int rc = undefined_call(which, mode, sb, rb, rcounts, c, MPI_INFO_NULL, &rq);
            expect_class(rc, MPI_ERR_TOPOLOGY, what, "MPI_ERR_TOPOLOGY", rq, NULL, 0, c);
            mt_checks++;
            if (memcmp(rb, rbx, sizeof rb)) failure(0, "%s: a failed call wrote to its receive buffer", what);
            if (rq != CART_REQUEST_NULL) { /* started by mistake: complete it, stay in step */
                Cart_wait(&rq);
                if (mode == 2) Cart_request_free(&rq);
            }
        }
    free(rcounts);
    /* bad roots (-1, size, MPI_PROC_NULL) and MPI_OP_NULL, on an otherwise
     * valid call: every process passes the same, so all fail alike */
    const int bad_root[3] = { -1, p, MPI_PROC_NULL };
    for (int coll = C_BCAST; coll <= C_ALLREDUCE; coll++)
        for (int mode = 0; mode < 3; mode++) {
            call_t k;
            args_t a;
            /* without MPI_IN_PLACE: at a process that is no root it is an
             * error of its own */
            for (int t = 0;; t++) {
                call_build(&k, coll, L, hsh(salt, coll, mode, 5 + t));
                if (!k.inplace) break;
                call_free(&k);
            }
            call_args(&k, &a);
            call_fill(&k, 0); /* no call_expect: everything must stay as it is */
            int want = MPI_ERR_ROOT;
            const char *wname = "MPI_ERR_ROOT";
            if (is_rooted(coll)) a.root = bad_root[(coll + mode) % 3];
            if (is_reduction(coll) && (coll == C_ALLREDUCE || (mode & 1))) {
                a.root = k.root;
                a.op = MPI_OP_NULL;
                want = MPI_ERR_OP;
                wname = "MPI_ERR_OP";
            }
            snprintf(what, sizeof what, "%s%s with %s", coll_name[coll], mode_name[mode],
                     want == MPI_ERR_OP ? "MPI_OP_NULL" : a.root == -1 ? "root -1"
                                                        : a.root == p  ? "root = size"
                                                                       : "root MPI_PROC_NULL");
            Cart_request rq = CART_REQUEST_NULL;
            int rc = invoke(mode, coll, &a, c, MPI_INFO_NULL, &rq);
            expect_class(rc, want, what, wname, rq, &k, mode_form[mode], c);
            if (rq != CART_REQUEST_NULL) {
                Cart_wait(&rq);
                if (mode == 2) Cart_request_free(&rq);
            }
            call_free(&k);
        }
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
}

/* ---- the cases ---------------------------------------------------------------------- */

enum { COV_PROCNULL, COV_REPEAT, COV_SELF, COV_NOIN, COV_OUTSIDE, COV_DETECTED, NCOV };
static const char *const cov_name[NCOV] = { "MPI_PROC_NULL neighbours", "repeated edges", "self edges",
                                            "a process without in-neighbours", "processes outside the grid",
                                            "detected graphs" };
static int coverage[NCOV], kinds_run[NKINDS];

static void tally(const lists_t *L, int outside, int detected)
{
    int has[NCOV] = { 0 };
    for (int u = 0; u < L->p; u++) {
        has[COV_NOIN] |= L->nin[u] == 0;
        for (int j = 0; j < L->nin[u]; j++) {
            has[COV_PROCNULL] |= L->S[u][j] == MPI_PROC_NULL;
            has[COV_SELF] |= L->S[u][j] == u;
            has[COV_REPEAT] |= L->S[u][j] != MPI_PROC_NULL && occurrences(L->S[u], j, L->S[u][j]) > 0;
        }
    }
    has[COV_OUTSIDE] = outside;
    has[COV_DETECTED] = detected;
    for (int x = 0; x < NCOV; x++) coverage[x] += has[x];
}

static void run_suite(MPI_Comm c, const lists_t *L, int cs, uint64_t csalt, mt_rng *lr)
{
    /* The forms in turn; the communicator's first Cart_ call is each form
     * in turn over the cases.  Reductions twice per form (other op/type). */
    for (int x = 0; x < 4; x++) {
        int form = (cs / NKINDS + x) % 4;
        for (int y = 0; y < NCOLL; y++) {
            int coll = (y + cs) % NCOLL;
            for (int v = 0; v < (is_reduction(coll) ? 2 : 1); v++) run_call(c, L, coll, form, hsh(csalt, form, coll, v));
        }
    }
    run_concurrent(c, L, hsh(csalt, 20, 0, 0), lr);
    if (cs % 2 == 0) barrier_late(c, L, hsh(csalt, 21, 0, 0));
    error_checks(c, L, hsh(csalt, 22, 0, 0));
    /* A duplicate carries the neighbourhood (and the caller's handler). */
    MPI_Comm dup;
    MPI_Comm_dup(c, &dup);
    run_call(dup, L, C_SCATTERV, F_BLOCKING, hsh(csalt, 23, 0, 0));
    run_call(dup, L, C_REDUCE, F_WAIT, hsh(csalt, 23, 1, 0));
    run_call(dup, L, C_BCAST, F_PERSISTENT, hsh(csalt, 23, 2, 0));
    run_call(dup, L, C_GATHERV, F_TEST, hsh(csalt, 23, 3, 0));
    MPI_Comm_free(&dup);
}

static void run_case(int cs)
{
    mt_rng gr, lr;
    mt_seed(&gr, opt_seed, (uint64_t)cs);
    mt_seed(&lr, opt_seed, 1000000 + (uint64_t)cs * 64 + (uint64_t)mt_rank);
    shape_t s;
    lists_t L;
    memset(&s, 0, sizeof s);
    cur_case = cs;
    cur_lists = NULL;
    callno = 0;
    snprintf(case_desc, sizeof case_desc, "case %d (", cs);
    MPI_Comm c = make_comm(cs, &gr, &s, &L);
    strncat(case_desc, ")", sizeof case_desc - strlen(case_desc) - 1);
    if (opt_verbose && mt_rank == 0) printf("%s\n", case_desc);
    int detected = 0;
    if (c != MPI_COMM_NULL) {
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        MPI_Comm_rank(c, &L.me);
        MT_EQ(L.me, mt_rank, "rank in the new communicator (reorder = 0)");
        cur_lists = &L;
        int good = L.me == mt_rank && lists_match(c, &s, &L), all = 0;
        MPI_Allreduce(&good, &all, 1, MPI_INT, MPI_MIN, c);
        if (s.kind == K_DETECT) {
            /* cartcoll.h: a periodic graph whose processes all list the
             * same offsets on comm_old's naming is detected; then
             * Cart_schedule_stats works on it. */
            detected = Cart_schedule_stats(c, CART_ALLTOALL, CART_ALGORITHM_DIRECT, NULL, NULL, NULL) == MPI_SUCCESS;
            MT_CHECK(detected, "%s: not detected as Cartesian (Cart_schedule_stats fails)", case_desc);
        }
        if (all) run_suite(c, &L, cs, hsh(opt_seed, cs, 7, 7), &lr);
        MPI_Comm_free(&c);
    }
    if (mt_rank == 0) {
        kinds_run[s.kind]++;
        tally(&L, L.p < mt_size, detected);
    }
    cur_lists = NULL;
    lists_free(&L);
}

/* Repeated blocking calls with the SAME buffers, counts and types and a
 * changing root (what the plan cache sees): bcast and gather on a 2-D
 * Moore neighbourhood, automatic and combining (trees), every root twice,
 * against first principles from Cart_neighbor_get.  A plan reused for
 * another root would deliver to the wrong processes. */
static void repeated_roots(void)
{
    enum { M = 3 };
    int dims[2] = { 0, 0 }, periods[2] = { 1, 1 }, st[16], t = 8, src[8], dst[8], w[16];
    MPI_Dims_create(mt_size, 2, dims);
    Cart_stencil(2, CART_CHEBYSHEV, 1, 1, 8, st);
    for (int i = 0; i < 16; i++) w[i] = 1;
    static int buf[M], sb[M], rb[8 * M];
    for (int a = 0; a < 2; a++) {
        MPI_Info info = mt_info(a ? "combining" : NULL, NULL);
        MPI_Comm c;
        Cart_neighborhood_create(MPI_COMM_WORLD, 2, dims, periods, t, st, w, info, 0, &c);
        mt_info_free(&info);
        Cart_neighbor_get(c, t, src, w, t, dst, w + 8);
        for (int it = 0; it < 2 * mt_size; it++) {
            int root = it % mt_size, mine = 0;
            for (int i = 0; i < t; i++) mine |= src[i] == root;
            for (int e = 0; e < M; e++) buf[e] = mt_rank == root ? root * 100 + e : -1;
            int rc = Cart_bcast(buf, M, MPI_INT, root, c);
            for (int e = 0; e < M; e++)
                MT_CHECK(rc == MPI_SUCCESS && buf[e] == (mt_rank == root || mine ? root * 100 + e : -1),
                         "repeated bcast (%s), root %d: element %d is %d", a ? "combining" : "auto", root, e, buf[e]);
            for (int e = 0; e < M; e++) sb[e] = mt_rank * 100 + e;
            for (int e = 0; e < 8 * M; e++) rb[e] = -1;
            rc = Cart_gather(sb, M, MPI_INT, rb, M, MPI_INT, root, c);
            for (int e = 0; e < 8 * M; e++) {
                int want = mt_rank == root ? src[e / M] * 100 + e % M : -1;
                MT_CHECK(rc == MPI_SUCCESS && rb[e] == want, "repeated gather (%s), root %d: element %d is %d, expected %d",
                         a ? "combining" : "auto", root, e, rb[e], want);
            }
        }
        MPI_Comm_free(&c);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "test_nbhcoll");
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--seed") && a + 1 < argc) opt_seed = strtoull(argv[++a], NULL, 10);
        else if (!strcmp(argv[a], "--first") && a + 1 < argc) opt_first = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--cases") && a + 1 < argc) opt_cases = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--verbose")) opt_verbose = 1;
        else if (!strcmp(argv[a], "--break-oracle")) opt_break = 1;
        else {
            if (mt_rank == 0) fprintf(stderr, "test_nbhcoll: unknown option %s\n", argv[a]);
            MPI_Finalize();
            return 2;
        }
    }
    make_types();
    make_ops();
    double t0 = MPI_Wtime();
    for (int cs = opt_first; cs < opt_first + opt_cases; cs++) run_case(cs);
    if (!opt_break) repeated_roots();
    MT_CHECK(op_bad_types == 0, "the user operation was called %ld times with a datatype it cannot read",
             op_bad_types);
    if (mt_rank == 0) {
        printf("test_nbhcoll: %d cases in %.2f s (", opt_cases, MPI_Wtime() - t0);
        for (int x = 0; x < NKINDS; x++) printf("%s%s: %d", x ? ", " : "", kind_name[x], kinds_run[x]);
        printf("); cases with");
        for (int x = 0; x < NCOV; x++) printf("%s %s: %d", x ? "," : "", cov_name[x], coverage[x]);
        printf("\n");
    }
    MPI_Type_free(&ty[TY_VEC]);
    MPI_Op_free(&op_handle[OP_AFFINE]);
    MPI_Op_free(&op_handle[OP_UMAX]);
    if (!opt_break) return mt_finish();
    /* The broken oracle must be caught by wrong contents, and by nothing else. */
    long mine[2] = { mismatches, mt_failures - mismatches }, sum[2] = { 0, 0 };
    MPI_Allreduce(mine, sum, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    mt_failures = mt_failures - mismatches;
    int rc = mt_finish();
    if (mt_rank == 0)
        printf("test_nbhcoll --break-oracle: %ld mismatches found, %ld other failures: %s\n", sum[0], sum[1],
               sum[0] > 0 && sum[1] == 0 ? "the test detects a wrong oracle" : "NOT DETECTED (or other failures)");
    return rc || sum[0] == 0 ? 1 : 0;
}

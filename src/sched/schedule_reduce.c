/* Allreduce with reduction on the way over box-shaped neighbourhoods (see
 * schedule.h).  Pure C, no MPI.
 *
 * Process x wants R(x) = op over the box B of x's contributions x(x - v),
 * v in B (the sources of the neighbourhood meaning).  Over a box the sum
 * separates: with F_0 = x and, dimension by dimension,
 *     F_k(y) = op_{j in [-hi_k, -lo_k]} F_{k-1}(y + j e_k),
 * F_d is the whole box.  Without the zero vector a second partial G_k (the
 * box of the first k dimensions less its all-zero point) follows along:
 *     G_k(y) = op_{j != 0} F_{k-1}(y + j e_k)  op  G_{k-1}(y),
 * and G_d is the answer.  Both need, per dimension, the window sums
 * A(y) = F(y-a') .. F(y-1) and B(y) = F(y+1) .. F(y+b') of F (a' = hi_k,
 * b' = -lo_k: sources lie at -v).  No subtraction anywhere, so MAX and LAND
 * work, and every partial contains the process's own F: it exists wherever
 * the process does, also on a mesh, where absent peers simply contribute
 * nothing.  On a torus, windows wider than the ring wrap and count a
 * process once per offset, which is the neighbourhood meaning. */
#include "sched/schedule.h"
#include "util/alloc.h"

#include <stdlib.h>

#define RECV0 CC_SLOT(CC_SLOT_RECV, 0)
#define SEND0 CC_SLOT(CC_SLOT_SEND, 0)

/* Lattice points of the bounding box of the offsets, or -1 when they are
 * more than t + 1 (then it cannot be a box of t or t + 1 points). */
static long long box_cells(const cc_nset *ns, int *lo, int *hi)
{
    int d = ns->d;
    long long cells = 1;
    for (int k = 0; k < d; k++) {
        lo[k] = hi[k] = 0;
        for (int i = 0; i < ns->t; i++) {
            int x = ns->offs[(size_t)i * d + k];
            if (x < lo[k]) lo[k] = x;
            if (x > hi[k]) hi[k] = x;
        }
        cells *= (long long)hi[k] - lo[k] + 1;
        if (cells > (long long)ns->t + 1) return -1;
    }
    return cells;
}

static int box_shape(const cc_nset *ns, int *lo, int *hi)
{
    int d = ns->d, t = ns->t;
    if (t <= 0 || d <= 0) return 0;
    long long cells = box_cells(ns, lo, hi);
    if (cells != t && cells != (long long)t + 1) return 0;
    unsigned char *seen = calloc((size_t)cells, 1);
    if (!seen) return CC_ENOMEM;
    int shape = cells == t ? 1 : 2;
    long long zero = 0;
    for (int k = 0; k < d; k++) zero = zero * (hi[k] - lo[k] + 1) - lo[k];
    for (int i = 0; i < t && shape; i++) {
        long long idx = 0;
        for (int k = 0; k < d; k++) idx = idx * (hi[k] - lo[k] + 1) + ns->offs[(size_t)i * d + k] - lo[k];
        if (seen[idx] || (shape == 2 && idx == zero)) shape = 0; /* repeated, or zero where it must miss */
        seen[idx] = 1;
    }
    free(seen);
    return shape;
}

int cc_reduce_box(const cc_nset *ns)
{
    int *lo = cc_alloc_array((size_t)ns->d, sizeof(int)), *hi = cc_alloc_array((size_t)ns->d, sizeof(int));
    int shape = lo && hi ? box_shape(ns, lo, hi) : CC_ENOMEM;
    free(lo);
    free(hi);
    return shape;
}

/* Builder state: the slot of F (the full-box partial so far) and of G
 * (RECV 0 when the zero vector is left out, else -1). */
typedef struct rb {
    cc_schedule *s;
    int F, G;
} rb;

/* A new temporary like the result; its index, or a CC_E* status. */
static int new_temp(rb *b) { return cc_sched_temp(b->s, 0); }

/* One round of the open phase: every process sends slot `src` and stores
 * what it receives from y + shift*e_dim in a new temporary, returned in
 * *dst. */
static int recv_from(rb *b, int dim, int shift, int src, int *dst)
{
    int tmp = new_temp(b), rc;
    if (tmp < 0) return tmp;
    *dst = CC_SLOT(CC_SLOT_TEMP, tmp);
    /* a round with vector v sends to y + v and receives from y - v */
    if ((rc = cc_sched_round_axis(b->s, dim, -shift)) != CC_OK) return rc;
    return cc_sched_entry(b->s, src, *dst, 0, 1, 0);
}

static int popcount(int x)
{
    int n = 0;
    for (; x; x &= x - 1) n++;
    return n;
}

static int floor_log2(int x)
{
    int l = 0;
    while (x >> (l + 1)) l++;
    return l;
}

/* Rounds of the window-doubling form for window widths a and b. */
static int window_rounds(int a, int b)
{
    int m = a > b ? a : b, r = floor_log2(m) + (a > 0) + (b > 0);
    if (a > 1) r += popcount(a) - 1;
    if (b > 1 && b != a) r += popcount(b) - 1;
    return r;
}

/* Direct form: one phase, a receive of F from each of the a + b
 * neighbours along dim; the parts are those receives. */
static int direct_dim(rb *b, int dim, int a, int bb, int *parts, int *np)
{
    int rc = cc_sched_phase(b->s, 0);
    for (int j = -a; rc == CC_OK && j <= bb; j++)
        if (j != 0) rc = recv_from(b, dim, j, b->F, &parts[(*np)++]);
    return rc;
}

/* W_w(y) = F(y) op ... op F(y + w - 1) from the powers of two w[i] =
 * W_{2^i} (one phase of receives for the set bits below the top one). */
static int window_of(rb *b, int dim, int w, const int *pow2, int *out)
{
    int top = floor_log2(w), rc = CC_OK;
    if (w == 1 << top) {
        *out = pow2[top];
        return CC_OK;
    }
    int tmp = new_temp(b);
    if (tmp < 0) return tmp;
    *out = CC_SLOT(CC_SLOT_TEMP, tmp);
    int piece[32], n = 0, off = 1 << top;
    if ((rc = cc_sched_phase(b->s, 0)) != CC_OK) return rc;
    for (int i = top - 1; rc == CC_OK && i >= 0; i--)
        if (w >> i & 1) {
            rc = recv_from(b, dim, off, pow2[i], &piece[n++]);
            off += 1 << i;
        }
    if (rc == CC_OK) rc = cc_sched_fold(b->s, pow2[top], *out);
    for (int i = 0; rc == CC_OK && i < n; i++) rc = cc_sched_fold(b->s, piece[i], *out);
    return rc;
}

/* Window-doubling form: W_1 = F, W_2, W_4, ... by doubling, W_a and W_b
 * from them, then A(y) = W_a(y - a) and B(y) = W_b(y + 1). */
static int window_dim(rb *b, int dim, int a, int bb, int *parts, int *np)
{
    int pow2[32], m = a > bb ? a : bb, top = floor_log2(m), rc = CC_OK;
    pow2[0] = b->F;
    for (int i = 1; rc == CC_OK && i <= top; i++) {
        int got, tmp = new_temp(b);
        if (tmp < 0) return tmp;
        pow2[i] = CC_SLOT(CC_SLOT_TEMP, tmp);
        if ((rc = cc_sched_phase(b->s, 0)) != CC_OK) break;
        rc = recv_from(b, dim, 1 << (i - 1), pow2[i - 1], &got);
        if (rc == CC_OK) rc = cc_sched_fold(b->s, pow2[i - 1], pow2[i]);
        if (rc == CC_OK) rc = cc_sched_fold(b->s, got, pow2[i]);
    }
    int wa = -1, wb = -1;
    if (rc == CC_OK && a > 0) rc = window_of(b, dim, a, pow2, &wa);
    if (rc == CC_OK && bb > 0) {
        if (bb == a) wb = wa;
        else rc = window_of(b, dim, bb, pow2, &wb);
    }
    if (rc == CC_OK) rc = cc_sched_phase(b->s, 0);
    if (rc == CC_OK && a > 0) rc = recv_from(b, dim, -a, wa, &parts[(*np)++]);
    if (rc == CC_OK && bb > 0) rc = recv_from(b, dim, 1, wb, &parts[(*np)++]);
    return rc;
}

/* Hop by hop: two pipelines, L_i(y) = F(y-1) op L_{i-1}(y-1) and its
 * mirror, both a round per phase between torus neighbours only. */
static int torus_dim(rb *b, int dim, int a, int bb, int *parts, int *np)
{
    int m = a > bb ? a : bb, rc = CC_OK;
    int side[2] = { a, bb }, dir[2] = { -1, 1 }, carry[2] = { b->F, b->F }, got[2] = { -1, -1 };
    for (int i = 1; rc == CC_OK && i <= m; i++) {
        if ((rc = cc_sched_phase(b->s, 0)) != CC_OK) break;
        for (int h = 0; rc == CC_OK && h < 2; h++)
            if (i <= side[h]) rc = recv_from(b, dim, dir[h], carry[h], &got[h]);
        /* what travels on: M(y) = F(y) op L_i(y) */
        for (int h = 0; rc == CC_OK && h < 2; h++) {
            if (i >= side[h]) continue;
            int tmp = new_temp(b);
            if (tmp < 0) return tmp;
            carry[h] = CC_SLOT(CC_SLOT_TEMP, tmp);
            rc = cc_sched_fold(b->s, b->F, carry[h]);
            if (rc == CC_OK) rc = cc_sched_fold(b->s, got[h], carry[h]);
        }
    }
    for (int h = 0; h < 2; h++)
        if (side[h] > 0) parts[(*np)++] = got[h];
    return rc;
}

/* After the last phase of a dimension: F becomes F op windows (in a
 * temporary, the send buffer being read-only; in RECV 0 after the last
 * dimension when the zero vector belongs to the box), then G gathers the
 * windows.  In this order because with MPI_IN_PLACE the send buffer is
 * RECV 0: F must leave it before G is written there. */
static int fold_dim(rb *b, const int *parts, int np, int last)
{
    int rc = CC_OK;
    if (!(last && b->G >= 0)) {
        int to = b->F;
        if (last) {
            to = RECV0;
        } else if (b->F == SEND0) {
            int tmp = new_temp(b);
            if (tmp < 0) return tmp;
            to = CC_SLOT(CC_SLOT_TEMP, tmp);
        }
        if (to != b->F) rc = cc_sched_fold(b->s, b->F, to);
        for (int i = 0; rc == CC_OK && i < np; i++) rc = cc_sched_fold(b->s, parts[i], to);
        b->F = to;
    }
    for (int i = 0; rc == CC_OK && b->G >= 0 && i < np; i++) rc = cc_sched_fold(b->s, parts[i], b->G);
    return rc;
}

static int build(const cc_nset *ns, cc_schedule *s, int torus)
{
    int d = ns->d, rc = CC_OK;
    int *lo = cc_alloc_array((size_t)d, sizeof(int)), *hi = cc_alloc_array((size_t)d, sizeof(int));
    int shape = lo && hi ? box_shape(ns, lo, hi) : CC_ENOMEM;
    int parts_cap = 2;
    for (int k = 0; shape > 0 && k < d; k++)
        if (hi[k] - lo[k] > parts_cap) parts_cap = hi[k] - lo[k];
    int *parts = shape > 0 ? cc_alloc_array((size_t)parts_cap, sizeof(int)) : NULL;
    if (shape <= 0 || !parts) {
        rc = shape == 0 ? CC_ETOOBIG : CC_ENOMEM;
        goto out;
    }
    s->onway = 1;
    s->t = 1; /* one receive block: the result; temporaries are like it */
    rb b = { s, SEND0, shape == 2 ? RECV0 : -1 };
    int lastk = -1;
    for (int k = 0; k < d; k++)
        if (lo[k] < hi[k]) lastk = k;
    if (lastk < 0) { /* the box is the zero vector alone */
        rc = cc_sched_phase(s, 0);
        if (rc == CC_OK) rc = cc_sched_fold(s, SEND0, RECV0);
    }
    for (int k = 0; rc == CC_OK && k <= lastk; k++) {
        /* sources lie at -v: A covers hi[k] processes below, B -lo[k] above */
        int a = hi[k], bb = -lo[k], np = 0;
        if (a == 0 && bb == 0) continue;
        if (torus) rc = torus_dim(&b, k, a, bb, parts, &np);
        /* (windows anchored beyond the border of a mesh would be lost) */
        else if (ns->periods && ns->periods[k] && window_rounds(a, bb) < a + bb)
            rc = window_dim(&b, k, a, bb, parts, &np);
        else rc = direct_dim(&b, k, a, bb, parts, &np);
        if (rc == CC_OK) rc = fold_dim(&b, parts, np, k == lastk);
    }
out:
    free(lo);
    free(hi);
    free(parts);
    return rc;
}

int cc_build_combining_allreduce(const cc_nset *ns, cc_schedule *s) { return build(ns, s, 0); }
int cc_build_torus_allreduce(const cc_nset *ns, cc_schedule *s) { return build(ns, s, 1); }

#include "geom/stencil_core.h"

#include <stdlib.h>
#include <string.h>

/* Counting.  Every value computed below is either a non-negative term of the
 * count or bounded by one, so the moment one exceeds `limit` the count does:
 * the helpers return -1 then, and -1 propagates.  Nothing overflows, nothing
 * is allocated, and the loops stop within 64 rounds whatever d and depth. */

/* a*b, or -1 once it exceeds limit (or an operand is -1). */
static long long mul_cap(long long a, long long b, long long limit)
{
    if (a < 0 || b < 0) return -1;
    if (b != 0 && a > limit / b) return -1;
    return a * b;
}

static long long add_cap(long long a, long long b, long long limit)
{
    if (a < 0 || b < 0 || a > limit - b) return -1;
    return a + b;
}

static long long gcd_ll(long long a, long long b)
{
    while (b) {
        long long t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* x*num/den, capped, where den divides x*num (a binomial step).  Dividing x
 * by g = gcd(x, den) first leaves den/g dividing num, so the product is
 * never formed in a wider type. */
static long long muldiv_cap(long long x, long long num, long long den, long long limit)
{
    if (x < 0) return -1;
    if (x == 0 || num == 0) return 0;
    long long g = gcd_ll(x, den);
    return mul_cap(x / g, num / (den / g), limit);
}

/* Chebyshev: (2r+1)^d - (2s-1)^d.  The difference is formed without its
 * operands, which can exceed the limit while the shell does not:
 * a^d - b^d = (a-b) S_d with S_k = sum_{j<k} a^j b^(k-1-j), S_{k+1} = a S_k + b^k,
 * all terms non-negative. */
static long long cheb_count(long long d, long long s, long long r, long long limit)
{
    long long a = 2 * r + 1;
    if (r == 0) return 1; /* s == 0 too; also keeps 1^d from looping d times */
    if (s == 0) {
        long long n = 1;
        for (long long k = 0; k < d && n >= 0; k++) n = mul_cap(n, a, limit); /* a >= 3: caps by k = 40 */
        return n;
    }
    long long b = 2 * s - 1, S = 1, pb = 1; /* S_1, b^0 */
    for (long long k = 1; k < d && S >= 0; k++) {
        pb = mul_cap(pb, b, limit);                          /* b^k <= S_{k+1} */
        S = add_cap(mul_cap(S, a, limit), pb, limit);        /* S_k >= 3^(k-1): caps by k = 41 */
    }
    return mul_cap(a - b, S, limit);
}

/* Manhattan: the L1 ball of radius r holds sum_k 2^k C(d,k) C(r,k) vectors
 * (k non-zero coordinates, their signs, magnitudes >= 1 summing to <= r).
 * With q = max(s-1, 0) the shell is [s == 0] + sum_{k=1}^{min(d,r)} 2^k
 * C(d,k) D_k, D_k = C(r,k) - C(q,k).  C(r,k) can exceed the limit while
 * D_k does not, so D_k is summed by Vandermonde, m = r - q >= 1:
 * D_k = sum_{j=1}^{k} C(m,j) C(q,k-j).  Bounds that make capping sound (for
 * k <= min(d,r), D_k >= 1): 2^k C(d,k) <= term k; C(m,k) <= D_k (j = k);
 * C(q,k-1) <= D_k (j = 1).  2^k C(d,k) >= 2^k caps by k = 63, so the
 * O(k) inner sum keeps the whole at a few thousand steps. */
static long long manh_count(long long d, long long s, long long r, long long limit)
{
    long long q = s > 0 ? s - 1 : 0, m = r - q;
    long long kmax = d < r ? d : r;
    long long cm[64], cq[64]; /* C(m, j), C(q, i) */
    long long p = 1;          /* 2^k C(d, k) */
    long long total = s == 0; /* the origin */
    cm[0] = cq[0] = 1;
    for (long long k = 1; k <= kmax; k++) {
        if (k >= 64) return -1; /* not reached: p >= 2^63 capped before */
        p = muldiv_cap(p, 2 * (d - k + 1), k, limit);
        cm[k] = k <= m ? muldiv_cap(cm[k - 1], m - k + 1, k, limit) : 0;
        if (k >= 2) cq[k - 1] = k - 1 <= q ? muldiv_cap(cq[k - 2], q - k + 2, k - 1, limit) : 0;
        if (p < 0 || cm[k] < 0 || cq[k - 1] < 0) return -1;
        long long dk = 0;
        for (long long j = 1; j <= k && dk >= 0; j++) dk = add_cap(dk, mul_cap(cm[j], cq[k - j], limit), limit);
        total = add_cap(total, mul_cap(p, dk, limit), limit);
        if (total < 0) return -1;
    }
    return total;
}

long long cc_stencil_count(int d, int metric, int shadow, int depth, long long limit)
{
    long long n;
    if (shadow < 0) shadow = 0;
    if (d < 1 || depth < 0 || shadow > depth) n = 0;
    else if (metric == CC_METRIC_CHEBYSHEV) n = cheb_count(d, shadow, depth, limit);
    else n = manh_count(d, shadow, depth, limit);
    return n > limit ? -1 : n;
}

/* Listing: an odometer over the dimensions (dimension 0 outermost, values
 * ascending: row-major order).  A dimension takes only values from which
 * the remaining dimensions can still complete a vector in [shadow, depth]
 * inside the box: |c| <= room (what the prefix leaves up to depth) and
 * |c| >= gap (what the rest cannot add up to the shadow).  Every value
 * taken therefore leads to an output vector (the remaining dimensions'
 * ranges hold 0 and step by 1), so the work is O(d) per vector written
 * and a shell's inside is never visited.  `p` summarises the prefix
 * cur[0..k-1]: its L1 norm (Manhattan) or how many of its coordinates
 * reach the shadow (Chebyshev); both can be undone when a coordinate
 * changes.  Iterative, so large d does not deepen the stack. */

static int absi(int c) { return c < 0 ? -c : c; }

static int contrib(const cc_stencil_walk *w, int c)
{
    return w->metric == CC_METRIC_MANHATTAN ? absi(c) : absi(c) >= w->shadow;
}

static int lo_of(const cc_stencil_walk *w, int k)
{
    return w->lo && w->lo[k] > -w->depth ? w->lo[k] : -w->depth;
}

static int hi_of(const cc_stencil_walk *w, int k)
{
    return w->hi && w->hi[k] < w->depth ? w->hi[k] : w->depth;
}

/* What dimensions k..d-1 can add: the sum (Manhattan) or the maximum
 * (Chebyshev) of their largest |c|.  Without a box every dimension reaches
 * depth, which is all either metric needs to know. */
static long long reach(const cc_stencil_walk *w, int k)
{
    if (w->reach) return w->reach[k];
    return k < w->d ? w->depth : 0;
}

/* The range [*a, *b] and the gap of dimension k after prefix summary p. */
static void range_of(const cc_stencil_walk *w, int k, int p, int *a, int *b, int *gap)
{
    int room = w->metric == CC_METRIC_MANHATTAN ? w->depth - p : w->depth;
    int lo = lo_of(w, k), hi = hi_of(w, k);
    *a = lo > -room ? lo : -room;
    *b = hi < room ? hi : room;
    if (w->metric == CC_METRIC_MANHATTAN) {
        long long need = (long long)w->shadow - p - reach(w, k + 1);
        *gap = need > 0 ? (int)need : 0;
    } else {
        *gap = p == 0 && reach(w, k + 1) < w->shadow ? w->shadow : 0;
    }
}

/* First value of dimension k; 0 when its range is empty. */
static int first(cc_stencil_walk *w, int k)
{
    int a, b, gap;
    range_of(w, k, w->p, &a, &b, &gap);
    if (gap > 0 && a > -gap && a < gap) a = gap;
    if (a > b) return 0;
    w->cur[k] = a;
    return 1;
}

/* Next value of dimension k (w->p summarises cur[0..k-1]); 0 at the end. */
static int advance(cc_stencil_walk *w, int k)
{
    int a, b, gap, c = w->cur[k];
    range_of(w, k, w->p, &a, &b, &gap);
    if (c >= b) return 0; /* before c + 1: b may be INT_MAX */
    c = (gap > 0 && c == -gap) ? gap : c + 1;
    if (c > b) return 0;
    w->cur[k] = c;
    return 1;
}

int cc_stencil_walk_init(cc_stencil_walk *w, int d, int metric, int shadow, int depth, const int lo[],
                         const int hi[])
{
    *w = (cc_stencil_walk){ .d = d, .metric = metric, .shadow = shadow < 0 ? 0 : shadow, .depth = depth,
                            .lo = lo, .hi = hi, .state = 0 };
    if (d < 1 || depth < 0 || w->shadow > depth) {
        w->state = 2;
        return 0;
    }
    w->cur = malloc(sizeof(int) * (size_t)d);
    if (lo || hi) w->reach = malloc(sizeof(long long) * ((size_t)d + 1));
    if (!w->cur || ((lo || hi) && !w->reach)) {
        cc_stencil_walk_free(w);
        return -1;
    }
    if (w->reach) {
        w->reach[d] = 0;
        for (int k = d - 1; k >= 0; k--) {
            long long l = -(long long)lo_of(w, k), h = hi_of(w, k), r = l > h ? l : h;
            if (r < 0) r = 0;
            if (metric == CC_METRIC_MANHATTAN) w->reach[k] = w->reach[k + 1] + r; /* <= d * INT_MAX */
            else w->reach[k] = r > w->reach[k + 1] ? r : w->reach[k + 1];
        }
    }
    return 0;
}

/* Back from dimension j to the deepest one with a next value; returns the
 * dimension after it, or -1 when the walk is over. */
static int back(cc_stencil_walk *w, int j)
{
    for (; j >= 0; j--) {
        w->p -= contrib(w, w->cur[j]);
        if (advance(w, j)) {
            w->p += contrib(w, w->cur[j]);
            return j + 1;
        }
    }
    return -1;
}

const int *cc_stencil_walk_next(cc_stencil_walk *w)
{
    if (w->state == 2) return NULL;
    int k = w->state == 0 ? 0 : back(w, w->d - 1);
    w->state = 1;
    while (k >= 0 && k < w->d) {
        if (first(w, k)) w->p += contrib(w, w->cur[k++]);
        else k = back(w, k - 1); /* only where nothing at all is inside the box */
    }
    if (k < 0) {
        w->state = 2;
        return NULL;
    }
    return w->cur;
}

void cc_stencil_walk_free(cc_stencil_walk *w)
{
    free(w->cur);
    free(w->reach);
    w->cur = NULL;
    w->reach = NULL;
    w->state = 2;
}

long long cc_stencil_list(int d, int metric, int shadow, int depth, int *out)
{
    cc_stencil_walk w;
    if (cc_stencil_walk_init(&w, d, metric, shadow, depth, NULL, NULL) < 0) return -1;
    long long n = 0;
    for (const int *v; (v = cc_stencil_walk_next(&w)) != NULL; n++) memcpy(out + n * d, v, sizeof(int) * (size_t)d);
    cc_stencil_walk_free(&w);
    return n;
}

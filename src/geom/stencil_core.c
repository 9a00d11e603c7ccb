#include "geom/stencil_core.h"

#include <stdlib.h>

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

/* Listing: an odometer over dimensions 0..d-2 (dimension 0 outermost, values
 * ascending: row-major order) and, at the last dimension, only the
 * coordinates that reach the shadow.  Every value an inner dimension takes
 * leads to an output vector (the remaining dimensions can always reach
 * `depth` >= shadow), so the work is O(d) per vector written.  Iterative, so
 * large d does not deepen the stack.  `p` summarises the prefix
 * cur[0..k-1]: its L1 norm (Manhattan) or how many of its coordinates reach
 * the shadow (Chebyshev); both can be undone when a coordinate changes. */
typedef struct walk {
    int d, metric, shadow, depth;
} walk;

static int absi(int c) { return c < 0 ? -c : c; }

static int contrib(const walk *w, int c)
{
    return w->metric == CC_METRIC_MANHATTAN ? absi(c) : absi(c) >= w->shadow;
}

/* Largest |c| at an inner dimension after a prefix summarised by p. */
static int room(const walk *w, int p) { return w->metric == CC_METRIC_MANHATTAN ? w->depth - p : w->depth; }

long long cc_stencil_list(int d, int metric, int shadow, int depth, int *out)
{
    if (shadow < 0) shadow = 0;
    if (d < 1 || depth < 0 || shadow > depth) return 0;
    walk w = { d, metric, shadow, depth };
    int *cur = malloc(sizeof(int) * (size_t)d);
    if (!cur) return -1;
    long long n = 0;
    int last = d - 1, p = 0, k = 0;
    for (;;) {
        for (; k < last; k++) { /* first value of every inner dimension */
            cur[k] = -room(&w, p);
            p += contrib(&w, cur[k]);
        }
        /* Last dimension: lo <= |c| <= hi; the gap (-lo, lo) cannot reach
         * the shadow. */
        int hi = room(&w, p), lo;
        if (metric == CC_METRIC_MANHATTAN) lo = shadow > p ? shadow - p : 0;
        else lo = p > 0 ? 0 : shadow;
        for (int c = -hi;;) {
            int *v = out + n * d;
            for (int j = 0; j < last; j++) v[j] = cur[j];
            v[last] = c;
            n++;
            if (c == hi) break; /* before c + 1: hi may be INT_MAX */
            c = (lo > 0 && c == -lo) ? lo : c + 1;
        }
        /* Back to the deepest inner dimension with a next value. */
        for (k = last - 1; k >= 0; k--) {
            p -= contrib(&w, cur[k]);
            if (cur[k] < room(&w, p)) break;
        }
        if (k < 0) break;
        cur[k]++;
        p += contrib(&w, cur[k]);
        k++;
    }
    free(cur);
    return n;
}

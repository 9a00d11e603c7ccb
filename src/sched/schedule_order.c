/* Allgather dimension order and prefix trie (seed 002 sec. 3.2, seed 001
 * sec. 3.2), shared by the allgather builders and the statistics.
 *
 * The trie of prefixes along an order gains, when dimension k is appended
 * to the processed set S, one non-zero edge per distinct projection of the
 * vectors onto S u {k} with a non-zero k-coordinate.  That number depends
 * only on (S, k), so the best order is a shortest path over subsets of
 * dimensions, which we solve exactly while 2^d*d*n is small. */
#include "sched/schedule_trie.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

long long cc_order_exact_limit = 1LL << 22; /* bounds init time; d=5 with 16806 vectors is exact */

static size_t at_least1(size_t n) { return n ? n : 1; }

void cc_coords_free(cc_coords *c)
{
    free(c->idx);
    free(c->rank);
    free(c->nval);
    free(c->zero);
    memset(c, 0, sizeof *c);
}

int cc_coords_nonzero(const cc_coords *c, int k)
{
    return c->nval[k] - (c->zero[k] >= 0);
}

/* Stable LSD radix sort of a[0..n) by key[a[e]], one byte per pass and only
 * as many passes as the largest key needs. */
static void radix_sort(int *a, int *b, int n, const unsigned *key, unsigned maxkey)
{
    int cnt[257];
    for (int shift = 0;; shift += 8) {
        memset(cnt, 0, sizeof cnt);
        for (int e = 0; e < n; e++) cnt[((key[a[e]] >> shift) & 255u) + 1]++;
        for (int v = 0; v < 256; v++) cnt[v + 1] += cnt[v];
        for (int e = 0; e < n; e++) b[cnt[(key[a[e]] >> shift) & 255u]++] = a[e];
        memcpy(a, b, (size_t)n * sizeof(int));
        if (shift == 24 || (maxkey >> (shift + 8)) == 0) break;
    }
}

int cc_coords_init(cc_coords *c, const cc_nset *ns)
{
    int d = ns->d, t = ns->t;
    memset(c, 0, sizeof *c);
    c->d = d;
    c->t = t;
    c->idx = malloc(at_least1((size_t)t) * sizeof(int));
    c->rank = calloc(at_least1((size_t)t * (size_t)d), sizeof(int));
    c->nval = calloc(at_least1((size_t)d), sizeof(int));
    c->zero = malloc(at_least1((size_t)d) * sizeof(int));
    int *a = malloc(at_least1((size_t)t) * sizeof(int));
    int *b = malloc(at_least1((size_t)t) * sizeof(int));
    unsigned *key = malloc(at_least1((size_t)t) * sizeof(unsigned));
    if (!c->idx || !c->rank || !c->nval || !c->zero || !a || !b || !key) {
        free(a);
        free(b);
        free(key);
        cc_coords_free(c);
        return CC_ENOMEM;
    }
    int n = 0;
    for (int i = 0; i < t; i++)
        if (!(ns->skip && ns->skip[i])) c->idx[n++] = i;
    c->n = n;
    for (int k = 0; k < d; k++) {
        c->zero[k] = -1;
        if (n == 0) continue;
        /* Keys relative to the minimum fit 32 bits for any int values. */
        long long mn = LLONG_MAX;
        for (int e = 0; e < n; e++) {
            long long v = ns->offs[(size_t)c->idx[e] * d + k];
            if (v < mn) mn = v;
        }
        unsigned mx = 0;
        for (int e = 0; e < n; e++) {
            key[e] = (unsigned)((long long)ns->offs[(size_t)c->idx[e] * d + k] - mn);
            if (key[e] > mx) mx = key[e];
        }
        int *rk = c->rank + (size_t)k * t;
        if (mx < (unsigned)n) {
            /* Values span at most n keys (stencils: a few): rank them through
             * a table of the keys present instead of sorting.  b (n ints)
             * holds the table. */
            memset(b, 0, ((size_t)mx + 1) * sizeof(int));
            for (int e = 0; e < n; e++) b[key[e]] = 1;
            int r = 0;
            for (unsigned v = 0; v <= mx; v++)
                if (b[v]) {
                    if ((long long)v + mn == 0) c->zero[k] = r;
                    b[v] = r++;
                }
            for (int e = 0; e < n; e++) rk[c->idx[e]] = b[key[e]];
            c->nval[k] = r;
            continue;
        }
        for (int e = 0; e < n; e++) a[e] = e;
        radix_sort(a, b, n, key, mx);
        int r = -1;
        for (int e = 0; e < n; e++) {
            if (e == 0 || key[a[e]] != key[a[e - 1]]) {
                r++;
                if ((long long)key[a[e]] + mn == 0) c->zero[k] = r;
            }
            rk[c->idx[a[e]]] = r;
        }
        c->nval[k] = r + 1;
    }
    free(a);
    free(b);
    free(key);
    return CC_OK;
}

/* ---- dimension order ---------------------------------------------------- */

/* Class refinement: the new class of element e is the distinct pair
 * (cls[e], r[e]).  byval lists the elements grouped by r, so a parent class
 * seen again within the same r group keeps its new id.  mark must hold -1
 * for all parent classes on entry (restored by the caller via nparent).
 * rep[id] = an element of each new class.  Returns the number of classes. */
static int refine(int n, const int *byval, const int *r, const int *cls, int *out,
                  int *mark, int *mid, int *rep)
{
    int m = 0;
    for (int j = 0; j < n; j++) {
        int e = byval[j], p = cls[e];
        if (mark[p] != r[e]) {
            mark[p] = r[e];
            mid[p] = m;
            rep[m++] = e;
        }
        out[e] = mid[p];
    }
    return m;
}

typedef struct ordctx {
    int n, da;
    const int *dims;     /* da active dimensions */
    const int *crank;    /* d*n: rank of element e in dimension k at k*n+e */
    const int *zero;     /* d */
    int *byval;          /* da*n: elements sorted by their rank, per active dimension */
    int *cls;            /* (da+1)*n: class ids per recursion depth */
    int *ncls;           /* da+1: number of classes per depth */
    int *mark, *mid, *rep;
    long long *cost;     /* 2^da: fewest edges to process exactly the subset */
    unsigned char *last; /* 2^da: bit of the dimension processed last */
} ordctx;

/* Visits the subsets in increasing numeric order (depth-first, the parent
 * of U is U minus its lowest bit), so all subsets of U are done before U;
 * only one class array per depth is alive. */
static void dp_visit(ordctx *g, unsigned U, int depth, int low)
{
    int n = g->n;
    if (U) {
        const int *par = g->cls + (size_t)(depth - 1) * n;
        int *cur = g->cls + (size_t)depth * n;
        int a = g->dims[low];
        for (int p = 0; p < g->ncls[depth - 1]; p++) g->mark[p] = -1;
        int m = refine(n, g->byval + (size_t)low * n, g->crank + (size_t)a * n, par, cur,
                       g->mark, g->mid, g->rep);
        g->ncls[depth] = m;
        long long best = LLONG_MAX;
        int bl = 0;
        for (int b = 0; b < g->da; b++) {
            if (!(U >> b & 1u)) continue;
            const int *rk = g->crank + (size_t)g->dims[b] * n;
            int z = g->zero[g->dims[b]];
            long long w = 0;
            for (int id = 0; id < m; id++) w += rk[g->rep[id]] != z;
            long long c = g->cost[U & ~(1u << b)] + w;
            if (c <= best) { /* ties: the largest dimension goes last */
                best = c;
                bl = b;
            }
        }
        g->cost[U] = best;
        g->last[U] = (unsigned char)bl;
    }
    for (int b = 0; b < low; b++) dp_visit(g, U | (1u << b), depth + 1, b);
}

/* Seed 002's order of the da active dimensions dims[] (written to order[])
 * and the edge count of the allgather tree it gives. */
static long long order_heuristic(const cc_coords *c, int order[], int da, int *dims, const int *cnz, const int *crank,
                                 int *byval, int *cls, int *mark, int *mid, int *rep, const int *idx)
{
    int n = c->n;
    /* Seed 002's heuristic: increasing C_k, ties by index (insertion sort
     * keeps it stable; d is small). */
    for (int j = 1; j < da; j++) {
        int x = dims[j], y = j;
        while (y > 0 && cnz[dims[y - 1]] > cnz[x]) {
            dims[y] = dims[y - 1];
            y--;
        }
        dims[y] = x;
    }
    memcpy(order, dims, (size_t)da * sizeof(int));
    /* Its edge count, refining the classes along the order.  byval must be
     * per dimension in the new order: redo the sorts into it. */
    memset(cls, 0, (size_t)n * sizeof(int));
    int np = 1;
    long long result = 0;
    for (int j = 0; j < da; j++) {
        int a = dims[j];
        const int *rk = crank + (size_t)a * n;
        if (cc_bucket_sort(idx, n, rk, c->nval[a], byval)) return CC_ENOMEM;
        int *cur = cls + (size_t)((j + 1) & 1) * n, *par = cls + (size_t)(j & 1) * n;
        for (int p = 0; p < np; p++) mark[p] = -1;
        np = refine(n, byval, rk, par, cur, mark, mid, rep);
        for (int id = 0; id < np; id++) result += rk[rep[id]] != c->zero[a];
    }
    return result;
}

long long cc_order_coords(const cc_coords *c, int order[])
{
    int d = c->d, n = c->n, t = c->t;
    /* Inactive dimensions (all coordinates zero) add neither edges nor
     * rounds; they go first, like C_k = 0 in the heuristic. */
    int *dims = malloc(at_least1((size_t)d) * sizeof(int));
    int *cnz = malloc(at_least1((size_t)d) * sizeof(int));
    int *crank = malloc(at_least1((size_t)d * (size_t)n) * sizeof(int));
    int *byval = malloc(at_least1((size_t)d * (size_t)n) * sizeof(int));
    int *cls = malloc(at_least1((size_t)(d + 1) * (size_t)n) * sizeof(int));
    int *ncls = malloc(((size_t)d + 1) * sizeof(int));
    int *mark = malloc(at_least1((size_t)n) * sizeof(int));
    int *mid = malloc(at_least1((size_t)n) * sizeof(int));
    int *rep = malloc(at_least1((size_t)n) * sizeof(int));
    int *idx = malloc(at_least1((size_t)n) * sizeof(int));
    long long result = CC_ENOMEM;
    long long *cost = NULL;
    unsigned char *last = NULL;
    if (!dims || !cnz || !crank || !byval || !cls || !ncls || !mark || !mid || !rep || !idx) goto out;

    int da = 0, no = 0;
    for (int k = 0; k < d; k++) {
        cnz[k] = cc_coords_nonzero(c, k);
        if (cnz[k] == 0) order[no++] = k;
        else dims[da++] = k;
        for (int e = 0; e < n; e++) crank[(size_t)k * n + e] = c->rank[(size_t)k * t + c->idx[e]];
    }
    for (int e = 0; e < n; e++) idx[e] = e;
    for (int j = 0; j < da; j++)
        if (cc_bucket_sort(idx, n, crank + (size_t)dims[j] * n, c->nval[dims[j]],
                           byval + (size_t)j * n))
            goto out;

    if (da < 26 && ((long long)1 << da) * da * n <= cc_order_exact_limit) {
        cost = malloc(((size_t)1 << da) * sizeof *cost);
        last = malloc(((size_t)1 << da) * sizeof *last);
        if (!cost || !last) goto out;
        cost[0] = 0;
        memset(cls, 0, (size_t)n * sizeof(int));
        ncls[0] = 1;
        ordctx g = { n, da, dims, crank, c->zero, byval, cls, ncls, mark, mid, rep, cost, last };
        dp_visit(&g, 0, 0, da);
        unsigned U = (unsigned)(((size_t)1 << da) - 1);
        result = cost[U];
        for (int pos = da - 1; pos >= 0; pos--) {
            int b = last[U];
            order[no + pos] = dims[b];
            U &= ~(1u << b);
        }
        goto out;
    }

    result = order_heuristic(c, order + no, da, dims, cnz, crank, byval, cls, mark, mid, rep, idx);

out:
    free(dims);
    free(cnz);
    free(crank);
    free(byval);
    free(cls);
    free(ncls);
    free(mark);
    free(mid);
    free(rep);
    free(idx);
    free(cost);
    free(last);
    return result;
}

long long cc_allgather_order(const cc_nset *ns, int order[])
{
    cc_coords c;
    if (cc_coords_init(&c, ns)) return CC_ENOMEM;
    long long r = cc_order_coords(&c, order);
    cc_coords_free(&c);
    return r;
}

/* ---- prefix trie -------------------------------------------------------- */

int cc_trie_sort(const cc_coords *c, const int *offs, const int order[],
                 int perm[], int lvl[], int zsuf[])
{
    int d = c->d, t = c->t, n = c->n;
    int *b = malloc(at_least1((size_t)n) * sizeof(int));
    if (!b) return CC_ENOMEM;
    memcpy(perm, c->idx, (size_t)n * sizeof(int));
    /* LSD: least significant dimension (last in order) first. */
    for (int m = d - 1; m >= 0; m--) {
        int a = order[m];
        if (c->nval[a] <= 1) continue;
        if (cc_bucket_sort(perm, n, c->rank + (size_t)a * t, c->nval[a], b)) {
            free(b);
            return CC_ENOMEM;
        }
        memcpy(perm, b, (size_t)n * sizeof(int));
    }
    free(b);
    int p = n;
    for (int i = 0, e = 0; i < t; i++) {
        if (e < n && c->idx[e] == i) e++;
        else perm[p++] = i;
    }
    for (p = 0; p < n; p++) {
        const int *v = offs + (size_t)perm[p] * d;
        if (p == 0) {
            lvl[p] = 0;
        } else {
            const int *u = offs + (size_t)perm[p - 1] * d;
            int m = 0;
            while (m < d && v[order[m]] == u[order[m]]) m++;
            lvl[p] = m + 1;
        }
        int m = d;
        while (m > 0 && v[order[m - 1]] == 0) m--;
        zsuf[p] = m;
    }
    return CC_OK;
}

void cc_trie_ends(const int lvl[], int n, int k, int end[])
{
    int nx = n;
    for (int p = n - 1; p >= 0; p--) {
        end[p] = nx;
        if (lvl[p] <= k) nx = p;
    }
}

int cc_trie_head(cc_schedule *s, const int perm[], const int zsuf[], int k, int lo, int hi)
{
    for (int p = lo; p < hi; p++)
        if (zsuf[p] <= k) return CC_SLOT(CC_SLOT_RECV, perm[p]);
    int j = cc_sched_temp(s, perm[lo]);
    return j < 0 ? j : CC_SLOT(CC_SLOT_TEMP, j);
}

int cc_trie_copies(cc_schedule *s, const int perm[], const int lvl[], int n, const int stor[])
{
    int d = s->d, src = 0;
    for (int p = 0; p < n; p++) {
        if (lvl[p] <= d) src = stor[p]; /* a new group of identical vectors */
        int dst = CC_SLOT(CC_SLOT_RECV, perm[p]);
        if (src == dst) continue;
        int rc = cc_sched_copy(s, src, dst, perm[p]);
        if (rc) return rc;
    }
    return CC_OK;
}

/* cartbench helpers without MPI: neighbourhood specifications, statistics. */
#include "cb_util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Neighbourhoods ---------------------------------------------------- */

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* Parse "a,b[,c]" into at most max ints; returns how many, -1 on junk. */
static int parse_ints(const char *s, int *out, int max)
{
    int k = 0;
    while (*s) {
        char *end;
        errno = 0;
        long x = strtol(s, &end, 10);
        if (end == s || errno || x < INT_MIN || x > INT_MAX || k == max) return -1;
        out[k++] = (int)x;
        s = end;
        if (*s == ',') {
            s++;
            if (!*s) return -1;
        } else if (*s) {
            return -1;
        }
    }
    return k;
}

/* Which vectors of the box [lo, hi]^d a generator keeps. */
typedef int (*keep_fn)(const int *x, int d, const int *p);

static int keep_nonzero(const int *x, int d, const int *p)
{
    (void)p;
    for (int k = 0; k < d; k++)
        if (x[k]) return 1;
    return 0;
}

static int keep_manhattan(const int *x, int d, const int *p)
{
    long s = 0;
    for (int k = 0; k < d; k++) s += labs((long)x[k]);
    return s >= 1 && s <= p[0];
}

static int keep_chebyshev(const int *x, int d, const int *p)
{
    int m = 0; /* p = {r1, r2} */
    for (int k = 0; k < d; k++) m = abs(x[k]) > m ? abs(x[k]) : m;
    return m >= p[0] && m <= p[1];
}

/* All kept vectors of [lo, hi]^d in row-major order. */
static int generate(cb_nbh *nbh, int lo, int hi, keep_fn keep, const int *p, char *err, size_t errlen)
{
    int d = nbh->d;
    double box = pow((double)hi - lo + 1, d);
    if (box > 64.0 * CB_MAX_T) return fail(err, errlen, "%s: too many vectors to enumerate", nbh->name);
    int x[32];
    for (int k = 0; k < d; k++) x[k] = lo;
    int cap = 0, t = 0, *v = NULL;
    for (;;) {
        if (keep(x, d, p)) {
            if (t == CB_MAX_T) {
                free(v);
                return fail(err, errlen, "%s: more than %d vectors", nbh->name, CB_MAX_T);
            }
            if (t == cap) {
                cap = cap ? 2 * cap : 64;
                int *nv = realloc(v, sizeof(int) * (size_t)cap * (size_t)d);
                if (!nv) {
                    free(v);
                    return fail(err, errlen, "%s: out of memory", nbh->name);
                }
                v = nv;
            }
            memcpy(v + (size_t)t * d, x, sizeof(int) * (size_t)d);
            t++;
        }
        int k = d - 1; /* odometer, last coordinate fastest */
        while (k >= 0 && x[k] == hi) x[k--] = lo;
        if (k < 0) break;
        x[k]++;
    }
    nbh->t = t;
    nbh->v = v;
    return 0;
}

static int read_file(cb_nbh *nbh, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) return fail(err, errlen, "file:%s: %s", path, strerror(errno));
    char line[4096];
    int d = 0, t = 0, cap = 0, *v = NULL, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        int x[32], k = 0;
        char *s = line;
        for (;;) {
            while (*s && (isspace((unsigned char)*s) || *s == ',')) s++;
            if (!*s) break;
            char *end;
            errno = 0;
            long y = strtol(s, &end, 10);
            if (end == s || errno || y < INT_MIN || y > INT_MAX || k == 32) {
                fclose(f);
                free(v);
                return fail(err, errlen, "file:%s:%d: expected up to 32 integers", path, lineno);
            }
            x[k++] = (int)y;
            s = end;
        }
        if (!k) continue;
        if (!d) d = k;
        if (k != d || t == CB_MAX_T) {
            fclose(f);
            free(v);
            return k != d ? fail(err, errlen, "file:%s:%d: %d coordinates, the first vector has %d", path, lineno, k, d)
                          : fail(err, errlen, "file:%s: more than %d vectors", path, CB_MAX_T);
        }
        if (t == cap) {
            cap = cap ? 2 * cap : 64;
            int *nv = realloc(v, sizeof(int) * (size_t)cap * (size_t)d);
            if (!nv) {
                fclose(f);
                free(v);
                return fail(err, errlen, "file:%s: out of memory", path);
            }
            v = nv;
        }
        memcpy(v + (size_t)t * d, x, sizeof(int) * (size_t)d);
        t++;
    }
    fclose(f);
    if (!t) {
        free(v);
        return fail(err, errlen, "file:%s: no vectors", path);
    }
    nbh->d = d;
    nbh->t = t;
    nbh->v = v;
    return 0;
}

int cb_nbh_parse(const char *spec, cb_nbh *nbh, char *err, size_t errlen)
{
    memset(nbh, 0, sizeof *nbh);
    const char *colon = strchr(spec, ':');
    if (!colon) return fail(err, errlen, "%s: expected KIND:PARAMETERS (see --help)", spec);
    size_t klen = (size_t)(colon - spec);
    const char *arg = colon + 1;
    snprintf(nbh->name, sizeof nbh->name, "%s", spec);
    if (klen == 4 && !strncmp(spec, "file", 4)) {
        const char *base = strrchr(arg, '/');
        snprintf(nbh->name, sizeof nbh->name, "file:%s", base ? base + 1 : arg);
        nbh->kind = CB_FILE;
        return read_file(nbh, arg, err, errlen);
    }
    static const struct {
        const char *kind;
        enum cb_kind k;
        int min, max;
        const char *usage;
    } kinds[] = {
        { "moore", CB_MOORE, 2, 3, "moore:d,n[,f]" },   { "vonneumann", CB_VONNEUMANN, 2, 2, "vonneumann:d,r" },
        { "chebyshev", CB_CHEBYSHEV, 2, 2, "chebyshev:d,r" }, { "shells", CB_SHELLS, 3, 3, "shells:d,r1,r2" },
        { "octant", CB_OCTANT, 2, 2, "octant:d,r" },
    };
    int which = -1;
    for (int i = 0; i < (int)(sizeof kinds / sizeof kinds[0]); i++)
        if (strlen(kinds[i].kind) == klen && !strncmp(spec, kinds[i].kind, klen)) which = i;
    if (which < 0) return fail(err, errlen, "%s: unknown neighbourhood kind (moore, vonneumann, chebyshev, shells, octant, file)", spec);
    int a[3];
    int na = parse_ints(arg, a, 3);
    if (na < kinds[which].min || na > kinds[which].max)
        return fail(err, errlen, "%s: expected %s", spec, kinds[which].usage);
    nbh->kind = kinds[which].k;
    nbh->d = a[0];
    if (nbh->d < 1 || nbh->d > 32) return fail(err, errlen, "%s: d must be 1..32", spec);
    for (int i = 1; i < na; i++) nbh->p[i - 1] = a[i];
    int p[2];
    switch (nbh->kind) {
    case CB_MOORE: {
        int n = a[1], f = na > 2 ? a[2] : -1;
        nbh->p[1] = f;
        if (n < 1 || n > 1000 || f < -1000 || f > 1000) return fail(err, errlen, "%s: need 1 <= n <= 1000, |f| <= 1000", spec);
        return generate(nbh, f, f + n - 1, keep_nonzero, NULL, err, errlen);
    }
    case CB_VONNEUMANN:
        if (a[1] < 1 || a[1] > 1000) return fail(err, errlen, "%s: need 1 <= r <= 1000", spec);
        return generate(nbh, -a[1], a[1], keep_manhattan, a + 1, err, errlen);
    case CB_CHEBYSHEV:
        if (a[1] < 1 || a[1] > 1000) return fail(err, errlen, "%s: need 1 <= r <= 1000", spec);
        p[0] = 1;
        p[1] = a[1];
        return generate(nbh, -a[1], a[1], keep_chebyshev, p, err, errlen);
    case CB_SHELLS:
        if (a[1] < 0 || a[2] < a[1] || a[2] > 1000 || a[2] < 1) return fail(err, errlen, "%s: need 0 <= r1 <= r2 <= 1000, r2 >= 1", spec);
        p[0] = a[1];
        p[1] = a[2];
        return generate(nbh, -a[2], a[2], keep_chebyshev, p, err, errlen);
    case CB_OCTANT:
        if (a[1] < 1 || a[1] > 1000) return fail(err, errlen, "%s: need 1 <= r <= 1000", spec);
        return generate(nbh, 0, a[1], keep_nonzero, NULL, err, errlen);
    case CB_FILE:
        break;
    }
    return fail(err, errlen, "%s: internal error", spec);
}

void cb_nbh_free(cb_nbh *nbh)
{
    free(nbh->v);
    nbh->v = NULL;
    nbh->t = 0;
}

int cb_nbh_nonzeros(const cb_nbh *nbh, int i)
{
    int z = 0;
    for (int k = 0; k < nbh->d; k++) z += nbh->v[(size_t)i * nbh->d + k] != 0;
    return z;
}

/* ---- Statistics -------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cb_quantile(const double *x, int n, double p)
{
    double h = (n - 1) * p;
    int i = (int)floor(h);
    if (i >= n - 1) return x[n - 1];
    return x[i] + (h - i) * (x[i + 1] - x[i]);
}

double cb_binom_half_cdf(int n, int j)
{
    if (j < 0) return 0.0;
    if (j >= n) return 1.0;
    /* Sum the pmf in log space: 2^-n underflows for n > 1074. */
    double s = 0.0, lnf = lgamma(n + 1.0) - n * log(2.0);
    for (int i = 0; i <= j; i++) s += exp(lnf - lgamma(i + 1.0) - lgamma(n - i + 1.0));
    return s < 1.0 ? s : 1.0;
}

void cb_summarize(double *x, int n, double conf, cb_summary *s)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    if (n < 1) return;
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    double q1 = cb_quantile(x, n, 0.25), q3 = cb_quantile(x, n, 0.75), iqr = q3 - q1;
    double lo = q1 - 3 * iqr, hi = q3 + 3 * iqr;
    int a = 0, b = n; /* kept: x[a..b-1] (sorted, so a contiguous range) */
    while (a < n && x[a] < lo) a++;
    while (b > a && x[b - 1] > hi) b--;
    const double *y = x + a;
    int k = b - a;
    s->kept = k;
    s->min = y[0];
    s->max = y[k - 1];
    s->median = k % 2 ? y[k / 2] : 0.5 * (y[k / 2 - 1] + y[k / 2]);
    /* Largest j (1-based) with 2 P(B <= j-1) <= 1 - conf. */
    double tail = (1.0 - conf) / 2, cdf = 0.0, below = 0.0; /* below = P(B <= j-1) */
    double lnf = lgamma(k + 1.0) - k * log(2.0);
    int j = 0;
    while (j + 1 <= (k + 1) / 2) {
        cdf += exp(lnf - lgamma(j + 1.0) - lgamma(k - j + 1.0)); /* now P(B <= j) */
        if (cdf > tail) break;
        below = cdf;
        j++;
    }
    if (j >= 1) {
        s->lo = y[j - 1];
        s->hi = y[k - j];
        s->coverage = 1.0 - 2.0 * below;
    } else { /* too few values: the whole range */
        s->lo = y[0];
        s->hi = y[k - 1];
        s->coverage = 1.0 - 2.0 * cb_binom_half_cdf(k, 0);
    }
}

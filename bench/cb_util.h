/* cartbench helpers without MPI: neighbourhood specifications and the
 * statistics of a series of measurements.  Unit tested by test_cb_util.c. */
#ifndef CB_UTIL_H
#define CB_UTIL_H

#include <stddef.h>

/* ---- Neighbourhoods ---------------------------------------------------- */

/* Which generator a specification names (file: has none: vectors are read). */
enum cb_kind { CB_MOORE, CB_VONNEUMANN, CB_CHEBYSHEV, CB_SHELLS, CB_OCTANT, CB_FILE };

typedef struct {
    char name[96];  /* the specification as given (file: the path's last part) */
    enum cb_kind kind;
    int d, t;       /* dimensions and number of offset vectors */
    int p[3];       /* the numeric parameters after d (n, f / r / r1, r2) */
    int *v;         /* t*d ints, vector i at v[i*d .. i*d+d-1] */
} cb_nbh;

/* Largest neighbourhood cartbench builds (offset vectors). */
#define CB_MAX_T (1 << 20)

/* Parse and generate one neighbourhood:
 *   moore:d,n[,f]       all vectors with coordinates f..f+n-1 (default f = -1)
 *                       except the zero vector (seed 002 sec. 4.1.1)
 *   vonneumann:d,r      1 <= sum |x_k| <= r
 *   chebyshev:d,r       1 <= max |x_k| <= r
 *   shells:d,r1,r2      r1 <= max |x_k| <= r2 (seed 001 Fig. 4b)
 *   octant:d,r          coordinates 0..r, not all zero: (r+1)^d - 1 vectors
 *                       (seed 001 Fig. 2f: d = 3, r = 3 gives 63)
 *   file:PATH           one vector per line, integers separated by blanks or
 *                       commas; '#' starts a comment; d = length of the first
 * Vectors come in row-major order of their coordinates (first coordinate
 * slowest), the order of Cart_stencil.  Returns 0, or -1 with a message in
 * err.  The result is freed with cb_nbh_free. */
int cb_nbh_parse(const char *spec, cb_nbh *nbh, char *err, size_t errlen);
void cb_nbh_free(cb_nbh *nbh);

/* Number of non-zero coordinates of vector i. */
int cb_nbh_nonzeros(const cb_nbh *nbh, int i);

/* ---- Statistics -------------------------------------------------------- */

typedef struct {
    int n;              /* measurements given */
    int kept;           /* after removing Tukey outliers */
    double median;      /* median of the kept measurements */
    double lo, hi;      /* confidence interval of the median */
    double coverage;    /* its actual coverage (>= the one asked for, unless too few) */
    double min, max;    /* of the kept measurements */
} cb_summary;

/* Quantile p of sorted x[0..n-1] with linear interpolation between order
 * statistics (Hyndman-Fan type 7, as R and numpy default). */
double cb_quantile(const double *sorted, int n, double p);

/* Sort x (in place), drop values outside [Q1 - 3 IQR, Q3 + 3 IQR] (Tukey's
 * far-out fences), take the median of the rest and a distribution-free
 * confidence interval for it from order statistics: [y_(j), y_(k+1-j)] with
 * the largest j such that P(B < j) <= (1 - conf)/2 for B ~ Binomial(k, 1/2),
 * k = kept.  Needs n >= 1; with fewer than 6 kept values no 95% interval
 * exists and [min, max] is given with its smaller coverage. */
void cb_summarize(double *x, int n, double conf, cb_summary *s);

/* P(B <= j) for B ~ Binomial(n, 1/2). */
double cb_binom_half_cdf(int n, int j);

#endif

/* neighbor_bench: the MPI neighbourhood collectives on a distributed graph
 * built by hand, the way an unmodified stencil code builds it.  A plain MPI
 * program -- it includes only mpi.h and links only MPI (and libm) -- so that
 * it runs unchanged with and without the PMPI drop-in
 * (scripts/preload_bench.sh runs both, interleaved).
 *
 * Neighbourhood: seed 002's moore:d,n[,f], the offsets in {f..f+n-1}^d
 * except zero, t = n^d - 1 (f = -1 by default, as in seed 002 and cartbench:
 * moore:2,3 is the 9-point stencil, n = 4, 5 are asymmetric; -f -2 with
 * n = 5 gives the symmetric radius-2 box).  Ranks are row-major over
 * MPI_Dims_create(p, d), every dimension periodic; process R sends block i
 * to R + N[i] and receives block i from R - N[i]
 * (MPI_Dist_graph_create_adjacent on MPI_COMM_WORLD, reorder 0).
 *
 * Operations (--ops): alltoall, allgather, alltoallw, their non-blocking
 * forms ialltoall, iallgather, ialltoallw (MPI_Ineighbor_* and MPI_Wait,
 * timed together) and, on an MPI-4 MPI, their persistent forms palltoall,
 * pallgather, palltoallw (MPI_Neighbor_*_init once per case, then
 * MPI_Start and MPI_Wait timed together); m ints per block.  alltoallw describes block i by its
 * type: one MPI_Type_contiguous(m, MPI_INT) per block (--wtype contig, the
 * default) or m MPI_INTs (--wtype int, as cartbench).
 *
 * Timing: every repetition is a barrier and one call; the time of a
 * repetition is the maximum over the processes.  Printed per (op, m): the
 * median and a distribution-free 95% confidence interval of the median
 * (order statistics, after Tukey's far-out fences), in microseconds.
 *
 * Check: the first call and the one after the timed calls are compared
 * with an oracle made of point-to-point messages (MPI_Isend/MPI_Irecv in
 * list order with one tag: the k-th edge u->v meets the k-th occurrence of
 * u among v's sources, the standard's definition).  OK or FAIL per row; a
 * mismatch is described on stderr (rank, op, block, source) and makes the
 * exit status 1.  --inject-fault corrupts one received int on the last
 * rank after the checked calls, to show that the check can fail. */
#include <mpi.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    OP_ALLTOALL, OP_IALLTOALL, OP_ALLGATHER, OP_IALLGATHER, OP_ALLTOALLW, OP_IALLTOALLW,
    OP_PALLTOALL, OP_PALLGATHER, OP_PALLTOALLW, NOPS
};
static const char *const op_names[NOPS] = { "alltoall",  "ialltoall", "allgather", "iallgather", "alltoallw",
                                            "ialltoallw", "palltoall", "pallgather", "palltoallw" };
/* The MPI has the persistent forms (MPI-4). */
enum { HAVE_PERSISTENT = MPI_VERSION >= 4 };

/* 0 blocking, 1 non-blocking, 2 persistent. */
static int form(int op) { return op >= OP_PALLTOALL ? 2 : op % 2; }
static const char *op_prefix(int op)
{
    static const char *const p[3] = { "MPI_Neighbor_", "MPI_Ineighbor_", "MPI_Neighbor_(init) " };
    return p[form(op)];
}

enum { MAXD = 16, MAXM = 64, MAXBOX = 1 << 20, TAG = 77 };

typedef struct {
    int d, n, f, nm, m[MAXM], reps, warmup, ops[NOPS], contig, inject;
    const char *csv;
} options;

typedef struct {
    int t, dims[MAXD], *vec, *src, *dst; /* vec: t vectors of d ints */
    MPI_Comm comm;
} graph;

typedef struct {
    int op, m;
    size_t n; /* ints in the receive buffer: t m */
    int *sbuf, *rbuf, *want, *cnt;
    MPI_Aint *displ;
    MPI_Datatype *types, block;
    MPI_Request preq; /* persistent forms: made once per case */
} kase;

typedef struct {
    int kept;
    double median, lo, hi;
} summary;

static int me, np;

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "neighbor_bench: rank %d: out of memory (%zu bytes)\n", me, n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

/* ---- options --------------------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out, "usage: neighbor_bench [-d D] [-n N] [-f F] [-m LIST] [--reps R] [--warmup W] [--ops LIST]\n"
                 "                      [--wtype contig|int] [--csv FILE] [--inject-fault]\n"
                 "  -d D, -n N, -f F  moore:D,N,F of [Traff & Hunold 2019]: offsets in {F..F+N-1}^D except zero\n"
                 "                    (default 2, 3, -1: the 9-point stencil)\n"
                 "  -m LIST           ints per block, comma-separated (default 1,10,100)\n"
                 "  --reps R          timed repetitions (default 100); --warmup W untimed (default 10)\n"
                 "  --ops LIST        alltoall,ialltoall,allgather,iallgather,alltoallw,ialltoallw,\n"
                 "                    palltoall,pallgather,palltoallw (persistent: MPI-4 only),\n"
                 "                    blocking, nonblocking, persistent or all (default all)\n"
                 "  --wtype T         alltoallw block types: contig (one MPI_Type_contiguous(m, MPI_INT),\n"
                 "                    default) or int (m MPI_INT)\n"
                 "  --csv FILE        also write the rows as CSV\n"
                 "  --inject-fault    corrupt one received int (the check must FAIL)\n");
}

static int int_arg(const char *s, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

static int list_arg(const char *s, options *o)
{
    char buf[512];
    if (strlen(s) >= sizeof buf) return -1;
    strcpy(buf, s);
    o->nm = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","))
        if (o->nm == MAXM || int_arg(tok, 0, 1 << 24, &o->m[o->nm++])) return -1;
    return o->nm ? 0 : -1;
}

static int ops_arg(const char *s, options *o)
{
    char buf[512];
    if (strlen(s) >= sizeof buf) return -1;
    strcpy(buf, s);
    memset(o->ops, 0, sizeof o->ops);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int hit = 0;
        for (int op = 0; op < NOPS; op++) {
            int f = form(op);
            if (!strcmp(tok, op_names[op]) || (!strcmp(tok, "all") && (f < 2 || HAVE_PERSISTENT)) ||
                (!strcmp(tok, "blocking") && f == 0) || (!strcmp(tok, "nonblocking") && f == 1) ||
                (!strcmp(tok, "persistent") && f == 2))
                o->ops[op] = hit = 1;
        }
        if (!HAVE_PERSISTENT)
            for (int op = OP_PALLTOALL; op < NOPS; op++)
                if (o->ops[op]) return -1; /* not in this MPI */
        if (!hit) return -1;
    }
    return 0;
}

static int one_option(options *o, const char *k, const char *v)
{
    if (!strcmp(k, "-d")) return int_arg(v, 1, MAXD, &o->d);
    if (!strcmp(k, "-n")) return int_arg(v, 1, 1000, &o->n);
    if (!strcmp(k, "-f")) return int_arg(v, -1000, 1000, &o->f);
    if (!strcmp(k, "-m")) return list_arg(v, o);
    if (!strcmp(k, "--reps")) return int_arg(v, 1, 1000000, &o->reps);
    if (!strcmp(k, "--warmup")) return int_arg(v, 0, 1000000, &o->warmup);
    if (!strcmp(k, "--ops")) return ops_arg(v, o);
    if (!strcmp(k, "--csv")) return o->csv = v, 0;
    if (!strcmp(k, "--wtype") && (!strcmp(v, "contig") || !strcmp(v, "int")))
        return o->contig = !strcmp(v, "contig"), 0;
    return -1;
}

/* 0: run; 1: help printed; 2: usage error (printed by rank 0). */
static int parse_args(int argc, char **argv, options *o)
{
    *o = (options){ .d = 2, .n = 3, .f = -1, .nm = 3, .m = { 1, 10, 100 }, .reps = 100, .warmup = 10, .contig = 1 };
    for (int op = 0; op < NOPS; op++) o->ops[op] = form(op) < 2 || HAVE_PERSISTENT;
    for (int a = 1; a < argc; a++) {
        const char *k = argv[a];
        if (!strcmp(k, "-h") || !strcmp(k, "--help")) {
            if (!me) usage(stdout);
            return 1;
        }
        if (!strcmp(k, "--inject-fault")) {
            o->inject = 1;
            continue;
        }
        if (a + 1 == argc || one_option(o, k, argv[a + 1])) {
            if (!me) {
                fprintf(stderr, "neighbor_bench: bad option or value: %s%s%s\n", k, a + 1 < argc ? " " : "",
                        a + 1 < argc ? argv[a + 1] : "");
                usage(stderr);
            }
            return 2;
        }
        a++;
    }
    return 0;
}

/* ---- the graph ------------------------------------------------------------- */

/* The offsets in {f..f+n-1}^d except zero, last coordinate fastest. */
static int make_vectors(const options *o, graph *g)
{
    long box = 1;
    for (int k = 0; k < o->d; k++)
        if ((box *= o->n) > MAXBOX) return -1;
    g->vec = xmalloc(sizeof(int) * (size_t)box * (size_t)o->d);
    g->t = 0;
    for (long b = 0; b < box; b++) {
        int *x = g->vec + (size_t)g->t * (size_t)o->d, zero = 1;
        long r = b;
        for (int k = o->d - 1; k >= 0; k--, r /= o->n) {
            x[k] = o->f + (int)(r % o->n);
            if (x[k]) zero = 0;
        }
        if (!zero) g->t++;
    }
    return 0;
}

static int wrap(long x, int n) { return (int)(((x % n) + n) % n); }

/* The row-major rank at coordinates c + sign v. */
static int rank_at(const int *c, const int *v, int sign, const int *dims, int d)
{
    int r = 0;
    for (int k = 0; k < d; k++) r = r * dims[k] + wrap((long)c[k] + (long)sign * v[k], dims[k]);
    return r;
}

static int build_graph(const options *o, graph *g)
{
    int c[MAXD];
    if (make_vectors(o, g)) return -1;
    memset(g->dims, 0, sizeof g->dims);
    MPI_Dims_create(np, o->d, g->dims);
    for (int k = o->d - 1, r = me; k >= 0; r /= g->dims[k], k--) c[k] = r % g->dims[k];
    g->src = xmalloc(sizeof(int) * (size_t)g->t);
    g->dst = xmalloc(sizeof(int) * (size_t)g->t);
    for (int i = 0; i < g->t; i++) {
        g->src[i] = rank_at(c, g->vec + (size_t)i * (size_t)o->d, -1, g->dims, o->d);
        g->dst[i] = rank_at(c, g->vec + (size_t)i * (size_t)o->d, +1, g->dims, o->d);
    }
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, g->t, g->src, MPI_UNWEIGHTED, g->t, g->dst, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &g->comm);
    return 0;
}

static void free_graph(graph *g)
{
    MPI_Comm_free(&g->comm);
    free(g->vec);
    free(g->src);
    free(g->dst);
}

/* ---- one case: buffers, oracle, calls, check --------------------------------- */

/* Distinct enough that a block in the wrong place or from the wrong rank shows. */
static int value(int rank, int block, int e)
{
    return (int)((unsigned)(rank + 1) * 1000003u + (unsigned)block * 1009u + (unsigned)e);
}

static int is_allgather(int op) { return op == OP_ALLGATHER || op == OP_IALLGATHER || op == OP_PALLGATHER; }

/* want: what arrives in each receive block, by point-to-point messages. */
static void oracle(kase *k, const graph *g)
{
    MPI_Request *rq = xmalloc(sizeof(MPI_Request) * 2 * (size_t)g->t);
    int n = 0, m = k->m;
    memset(k->want, 0xff, sizeof(int) * k->n);
    for (int j = 0; j < g->t; j++)
        MPI_Irecv(k->want + (size_t)j * (size_t)m, m, MPI_INT, g->src[j], TAG, MPI_COMM_WORLD, &rq[n++]);
    for (int i = 0; i < g->t; i++) {
        const int *blk = k->sbuf + (is_allgather(k->op) ? 0 : (size_t)i * (size_t)m);
        MPI_Isend(blk, m, MPI_INT, g->dst[i], TAG, MPI_COMM_WORLD, &rq[n++]);
    }
    MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
    free(rq);
}

/* The persistent forms: planned once, before the checked and timed calls. */
static void init_persistent(kase *k, MPI_Comm c)
{
#if MPI_VERSION >= 4
    int m = k->m;
    MPI_Info i = MPI_INFO_NULL;
    switch (k->op) {
    case OP_PALLTOALL: MPI_Neighbor_alltoall_init(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, c, i, &k->preq); break;
    case OP_PALLGATHER: MPI_Neighbor_allgather_init(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, c, i, &k->preq); break;
    case OP_PALLTOALLW:
        MPI_Neighbor_alltoallw_init(k->sbuf, k->cnt, k->displ, k->types, k->rbuf, k->cnt, k->displ, k->types, c, i,
                                    &k->preq);
        break;
    default: break;
    }
#else
    (void)k, (void)c;
#endif
}

static void setup_case(kase *k, const graph *g, const options *o, int op, int m)
{
    size_t t = (size_t)g->t;
    k->op = op, k->m = m, k->n = t * (size_t)m, k->preq = MPI_REQUEST_NULL;
    k->sbuf = xmalloc(sizeof(int) * k->n);
    k->rbuf = xmalloc(sizeof(int) * k->n);
    k->want = xmalloc(sizeof(int) * k->n);
    k->cnt = xmalloc(sizeof(int) * t);
    k->displ = xmalloc(sizeof(MPI_Aint) * t);
    k->types = xmalloc(sizeof(MPI_Datatype) * t);
    for (size_t i = 0; i < t; i++)
        for (int e = 0; e < m; e++) k->sbuf[i * (size_t)m + (size_t)e] = value(me, (int)i, e);
    k->block = MPI_DATATYPE_NULL;
    if (o->contig) {
        MPI_Type_contiguous(m, MPI_INT, &k->block);
        MPI_Type_commit(&k->block);
    }
    for (size_t i = 0; i < t; i++) {
        k->cnt[i] = o->contig ? 1 : m;
        k->types[i] = o->contig ? k->block : MPI_INT;
        k->displ[i] = (MPI_Aint)(i * (size_t)m * sizeof(int));
    }
    oracle(k, g);
    init_persistent(k, g->comm);
}

static void free_case(kase *k)
{
    if (k->preq != MPI_REQUEST_NULL) MPI_Request_free(&k->preq);
    if (k->block != MPI_DATATYPE_NULL) MPI_Type_free(&k->block);
    free(k->sbuf);
    free(k->rbuf);
    free(k->want);
    free(k->cnt);
    free(k->displ);
    free(k->types);
}

static void call_op(kase *k, MPI_Comm c)
{
    MPI_Request r = MPI_REQUEST_NULL;
    int m = k->m;
    if (form(k->op) == 2) {
        MPI_Start(&k->preq);
        MPI_Wait(&k->preq, MPI_STATUS_IGNORE);
        return;
    }
    switch (k->op) {
    case OP_ALLTOALL: MPI_Neighbor_alltoall(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, c); return;
    case OP_IALLTOALL: MPI_Ineighbor_alltoall(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, c, &r); break;
    case OP_ALLGATHER: MPI_Neighbor_allgather(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, c); return;
    case OP_IALLGATHER: MPI_Ineighbor_allgather(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, c, &r); break;
    case OP_ALLTOALLW:
        MPI_Neighbor_alltoallw(k->sbuf, k->cnt, k->displ, k->types, k->rbuf, k->cnt, k->displ, k->types, c);
        return;
    default:
        MPI_Ineighbor_alltoallw(k->sbuf, k->cnt, k->displ, k->types, k->rbuf, k->cnt, k->displ, k->types, c, &r);
        break;
    }
    MPI_Wait(&r, MPI_STATUS_IGNORE);
}

/* One call on a receive buffer of 0xff bytes, compared with the oracle:
 * 1 (and a line on stderr) on a mismatch. */
static int checked_call(kase *k, const graph *g, const options *o)
{
    memset(k->rbuf, 0xff, sizeof(int) * k->n);
    call_op(k, g->comm);
    if (o->inject && me == np - 1 && k->n) k->rbuf[k->n - 1] ^= 1;
    for (size_t e = 0; e < k->n; e++)
        if (k->rbuf[e] != k->want[e]) {
            size_t b = e / (size_t)k->m;
            fprintf(stderr,
                    "neighbor_bench: FAIL rank %d: %s%s m=%d: receive block %zu (from rank %d) int %zu is %d, "
                    "expected %d\n",
                    me, op_prefix(k->op), op_names[k->op] + (form(k->op) > 0), k->m, b,
                    g->src[b], e % (size_t)k->m, k->rbuf[e], k->want[e]);
            return 1;
        }
    return 0;
}

/* x[r]: the time of repetition r, the maximum over processes on rank 0. */
static void time_case(kase *k, const graph *g, const options *o, double *x)
{
    for (int w = 0; w < o->warmup; w++) {
        MPI_Barrier(MPI_COMM_WORLD);
        call_op(k, g->comm);
    }
    for (int r = 0; r < o->reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        call_op(k, g->comm);
        x[r] = MPI_Wtime() - t0;
    }
    MPI_Reduce(me ? x : MPI_IN_PLACE, x, o->reps, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
}

/* ---- statistics -------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Quantile p of sorted x[0..n-1], linear interpolation (type 7). */
static double quantile(const double *x, int n, double p)
{
    double h = (n - 1) * p;
    int i = (int)floor(h);
    return i >= n - 1 ? x[n - 1] : x[i] + (h - i) * (x[i + 1] - x[i]);
}

/* Sort x, drop values outside [Q1 - 3 IQR, Q3 + 3 IQR], median of the k
 * kept and the 95% interval [y_(j), y_(k+1-j)] for the largest j with
 * 2 P(B <= j-1) <= 0.05, B ~ Binomial(k, 1/2); [min, max] when k < 6. */
static summary summarize(double *x, int n)
{
    summary s = { 0, 0, 0, 0 };
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    double q1 = quantile(x, n, 0.25), q3 = quantile(x, n, 0.75), lo = q1 - 3 * (q3 - q1), hi = q3 + 3 * (q3 - q1);
    int a = 0, b = n;
    while (a < n && x[a] < lo) a++;
    while (b > a && x[b - 1] > hi) b--;
    const double *y = x + a;
    int k = b - a, j = 0;
    s.kept = k;
    s.median = k % 2 ? y[k / 2] : 0.5 * (y[k / 2 - 1] + y[k / 2]);
    double lnf = lgamma(k + 1.0) - k * log(2.0), cdf = 0.0;
    while (j + 1 <= (k + 1) / 2) {
        cdf += exp(lnf - lgamma(j + 1.0) - lgamma(k - j + 1.0)); /* P(B <= j) */
        if (cdf > 0.025) break;
        j++;
    }
    s.lo = j ? y[j - 1] : y[0];
    s.hi = j ? y[k - j] : y[k - 1];
    return s;
}

/* ---- output ------------------------------------------------------------------ */

static void dims_text(const graph *g, int d, char *buf, size_t len)
{
    size_t at = 0;
    for (int k = 0; k < d && at < len; k++)
        at += (size_t)snprintf(buf + at, len - at, "%s%d", k ? "x" : "", g->dims[k]);
}

static void print_header(const options *o, const graph *g, FILE *csv)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], dims[16 * MAXD];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = 0;
    dims_text(g, o->d, dims, sizeof dims);
    printf("# neighbor_bench: moore:%d,%d,%d (offsets %d..%d per dimension, t = %d), grid %s torus, %d processes\n",
           o->d, o->n, o->f, o->f, o->f + o->n - 1, g->t, dims, np);
    printf("# MPI: %s\n", lib);
    printf("# per-call time [us]: max over processes per repetition; median and 95%% CI of %d repetitions after %d "
           "warm-up calls; alltoallw types: %s\n",
           o->reps, o->warmup, o->contig ? "MPI_Type_contiguous(m, MPI_INT)" : "m x MPI_INT");
    printf("%-11s %7s %7s %10s %7s %12s %12s %12s  %s\n", "op", "m", "t", "bytes", "kept", "median", "ci_lo", "ci_hi",
           "check");
    if (csv) fprintf(csv, "d,n,f,t,p,dims,op,m,bytes,reps,kept,median_us,ci_lo_us,ci_hi_us,check\n");
}

static void print_row(const options *o, const graph *g, const kase *k, const summary *s, int bad, FILE *csv)
{
    long long bytes = (long long)g->t * k->m * (long long)sizeof(int);
    const char *chk = bad ? "FAIL" : "OK";
    printf("%-11s %7d %7d %10lld %7d %12.2f %12.2f %12.2f  %s\n", op_names[k->op], k->m, g->t, bytes, s->kept,
           s->median * 1e6, s->lo * 1e6, s->hi * 1e6, chk);
    fflush(stdout);
    if (csv) {
        char dims[16 * MAXD];
        dims_text(g, o->d, dims, sizeof dims);
        fprintf(csv, "%d,%d,%d,%d,%d,%s,%s,%d,%lld,%d,%d,%.4f,%.4f,%.4f,%s\n", o->d, o->n, o->f, g->t, np, dims,
                op_names[k->op], k->m, bytes, o->reps, s->kept, s->median * 1e6, s->lo * 1e6, s->hi * 1e6, chk);
    }
}

/* ---- main -------------------------------------------------------------------- */

/* Check, time, check again, print; 1 if the check failed anywhere. */
static int run_case(const options *o, const graph *g, int op, int m, double *x, FILE *csv)
{
    kase k;
    setup_case(&k, g, o, op, m);
    int bad = checked_call(&k, g, o);
    time_case(&k, g, o, x);
    bad |= checked_call(&k, g, o);
    int nbad = 0;
    MPI_Allreduce(&bad, &nbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (!me) {
        summary s = summarize(x, o->reps);
        print_row(o, g, &k, &s, nbad, csv);
    }
    free_case(&k);
    return nbad != 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    options o;
    int rc = parse_args(argc, argv, &o);
    graph g;
    if (!rc && build_graph(&o, &g)) {
        if (!me) fprintf(stderr, "neighbor_bench: moore:%d,%d has more than %d offsets\n", o.d, o.n, MAXBOX);
        rc = 2;
    }
    if (rc) {
        MPI_Finalize();
        return rc == 1 ? 0 : 2;
    }
    FILE *csv = NULL;
    if (!me && o.csv && !(csv = fopen(o.csv, "w"))) {
        fprintf(stderr, "neighbor_bench: cannot write %s\n", o.csv);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (!me) print_header(&o, &g, csv);
    double *x = xmalloc(sizeof(double) * (size_t)o.reps);
    int failed = 0;
    for (int op = 0; op < NOPS; op++)
        for (int i = 0; i < o.nm && o.ops[op]; i++) failed |= run_case(&o, &g, op, o.m[i], x, csv);
    if (!me)
        printf("# neighbor_bench: %s\n", failed ? "FAIL (received blocks differ from the oracle)" : "all checks OK");
    if (csv) fclose(csv);
    free(x);
    free_graph(&g);
    MPI_Finalize();
    return failed;
}

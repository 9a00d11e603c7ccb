/* cartbench: the Cartesian collectives of cartcoll against the MPI
 * neighbourhood collectives on the same neighbourhood.
 *
 * For each neighbourhood, collective and block size, every selected variant
 * (MPI baseline, cartcoll in blocking/non-blocking/persistent form with each
 * algorithm and executor) is checked and timed in one interleaved loop:
 * a barrier before each call, the time of a call is the maximum over the
 * processes, Tukey's 3 IQR fences remove outliers, the median is reported
 * with a distribution-free 95% confidence interval (seed 001 sec. 4, seed 002
 * appendix A).  Every receive buffer is compared with the baseline's.
 * `cartbench --help` documents the options.
 */
#define _POSIX_C_SOURCE 200809L
#include <cartcoll.h>

#include "cb_util.h"

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- Collectives and variants ------------------------------------------ */

enum { OP_ALLGATHER, OP_ALLGATHERV, OP_ALLGATHERW, OP_ALLTOALL, OP_ALLTOALLV, OP_ALLTOALLW, NOPS };
static const char *const op_name[NOPS] = { "allgather", "allgatherv", "allgatherw", "alltoall", "alltoallv", "alltoallw" };
/* The MPI collective each one is compared with (allgatherw: alltoallw with
 * every send block at displacement 0, since MPI has no allgatherw). */
static const char *const op_mpi[NOPS] = { "MPI_Neighbor_allgather", "MPI_Neighbor_allgatherv", "MPI_Neighbor_alltoallw",
                                          "MPI_Neighbor_alltoall",  "MPI_Neighbor_alltoallv",  "MPI_Neighbor_alltoallw" };
static int op_is_alltoall(int op) { return op >= OP_ALLTOALL; }
static int op_is_regular(int op) { return op == OP_ALLGATHER || op == OP_ALLTOALL; }

enum { ALG_AUTO, ALG_DIRECT, ALG_COMBINING, ALG_TORUS, NALG };
static const char *const alg_name[NALG] = { "auto", "direct", "combining", "torus" };
static const int alg_const[NALG] = { CART_ALGORITHM_AUTO, CART_ALGORITHM_DIRECT, CART_ALGORITHM_COMBINING,
                                     CART_ALGORITHM_TORUS };
enum { EX_AUTO, EX_DATATYPE, EX_PACK, NEX };
static const char *const ex_name[NEX] = { "auto", "datatype", "pack" };
enum { F_BLOCKING, F_NONBLOCKING, F_PERSISTENT, NFORMS };
static const char *const form_name[NFORMS] = { "blocking", "nonblocking", "persistent" };
static const char *const form_tag[NFORMS] = { "", "-i", "-p" };

#if MPI_VERSION >= 4
#define HAVE_MPI_PERSISTENT_NEIGHBOR 1
#else
#define HAVE_MPI_PERSISTENT_NEIGHBOR 0
#endif

typedef struct {
    int mpi, form, alg, ex;
    char name[48];
} variant;

#define MAXVAR (3 + NFORMS * NALG * NEX)
static variant allvar[MAXVAR];
static int nallvar;

static void make_variants(void)
{
    for (int f = 0; f < NFORMS; f++) {
        if (f == F_PERSISTENT && !HAVE_MPI_PERSISTENT_NEIGHBOR) continue;
        variant *v = &allvar[nallvar++];
        *v = (variant){ 1, f, 0, 0, "" };
        snprintf(v->name, sizeof v->name, "mpi%s", form_tag[f]);
    }
    for (int f = 0; f < NFORMS; f++)
        for (int a = 0; a < NALG; a++)
            for (int e = 0; e < NEX; e++) {
                variant *v = &allvar[nallvar++];
                *v = (variant){ 0, f, a, e, "" };
                snprintf(v->name, sizeof v->name, "cart%s%s%s%s%s", form_tag[f], a ? "-" : "", a ? alg_name[a] : "",
                         e ? "-" : "", e ? ex_name[e] : "");
            }
}

/* A variant name with explicit parts (cart-b-auto-pack, mpi-b) -> its
 * canonical name; -1 if it is not one. */
static int canonical_variant(const char *s)
{
    char buf[64], *save = NULL;
    snprintf(buf, sizeof buf, "%s", s);
    char *tok = strtok_r(buf, "-", &save);
    if (!tok) return -1;
    int mpi = !strcmp(tok, "mpi");
    if (!mpi && strcmp(tok, "cart")) return -1;
    int form = F_BLOCKING, alg = ALG_AUTO, ex = EX_AUTO, stage = 0; /* 0 form, 1 alg, 2 ex */
    while ((tok = strtok_r(NULL, "-", &save))) {
        int ok = 0;
        if (stage == 0 && (!strcmp(tok, "b") || !strcmp(tok, "i") || !strcmp(tok, "p"))) {
            form = tok[0] == 'b' ? F_BLOCKING : tok[0] == 'i' ? F_NONBLOCKING : F_PERSISTENT;
            stage = 1;
            ok = 1;
        }
        for (int a = 0; !ok && stage <= 1 && a < NALG; a++)
            if (!strcmp(tok, alg_name[a])) {
                alg = a;
                stage = 2;
                ok = 1;
            }
        for (int e = 0; !ok && e < NEX; e++)
            if (!strcmp(tok, ex_name[e])) {
                ex = e;
                stage = 3;
                ok = 1;
            }
        if (!ok || (mpi && stage != 1)) return -1; /* mpi takes a form only */
    }
    for (int i = 0; i < nallvar; i++)
        if (allvar[i].mpi == mpi && allvar[i].form == form && allvar[i].alg == alg && allvar[i].ex == ex) return i;
    return -1;
}

/* ---- Options ----------------------------------------------------------- */

typedef struct {
    char **specs;
    int nspecs;
    int *ms, nm;
    int ops[NOPS], nops;
    int vsel[MAXVAR], nvar; /* indices into allvar, baseline first */
    int reps, warmup, mesh, irregular, progress, calibrate, tolerate_mpi, summary;
    double max_mib, conf;
    const char *csv, *plot, *markdown;
} options;

static int world_rank, world_size;
static int inject_fault; /* --inject-fault: corrupt one received int of the cartcoll variants */

static void usage(FILE *f)
{
    fprintf(f,
"usage: mpirun -n P cartbench [options] NEIGHBOURHOOD...\n"
"\n"
"Times the Cartesian collectives of cartcoll (Cart_allgather[v|w],\n"
"Cart_alltoall[v|w]) against the MPI neighbourhood collectives on the same\n"
"neighbourhood, checks every result against MPI's, and prints one row per\n"
"neighbourhood, collective, variant and block size.\n"
"\n"
"Neighbourhoods (offset vectors, the zero vector excluded unless a file or\n"
"shells:d,0,r gives it; several may be given, each its own argument):\n"
"  moore:d,n[,f]      coordinates f..f+n-1 in each dimension, f = -1 by default\n"
"                     (seed 002 sec. 4.1.1: moore:2,3 is the 9-point stencil's 8\n"
"                     neighbours, n = 4, 5 are asymmetric); t = n^d - 1\n"
"  vonneumann:d,r     1 <= |x_1| + ... + |x_d| <= r\n"
"  chebyshev:d,r      1 <= max |x_k| <= r (chebyshev:d,1 = moore:d,3)\n"
"  shells:d,r1,r2     r1 <= max |x_k| <= r2 (seed 001 Fig. 4b uses 3,7)\n"
"  octant:d,r         coordinates 0..r, not all 0: (r+1)^d - 1 vectors, the\n"
"                     positive octant of seed 001 (octant:3,3 has 63)\n"
"  file:PATH          one vector per line, integers separated by blanks or\n"
"                     commas, '#' comments; repeats and zero vectors are kept\n"
"Vectors are listed in row-major order (first coordinate slowest), which is\n"
"the order of Cart_stencil.  Default: moore:3,3.\n"
"\n"
"Process grid: MPI_Dims_create over all processes in d dimensions, periodic\n"
"(torus) unless --mesh.  On a mesh, neighbours off the grid are MPI_PROC_NULL:\n"
"the MPI baseline's graph leaves them out and their receive blocks must stay\n"
"untouched.\n"
"\n"
"Options:\n"
"  -m LIST            block sizes in MPI_INTs (default 1,10,100); 0 is allowed\n"
"  --ops LIST         collectives: allgather, allgatherv, allgatherw, alltoall,\n"
"                     alltoallv, alltoallw, or all (default alltoall,allgather)\n"
"  --variants LIST    variants to time (default mpi,cart,cart-direct,\n"
"                     cart-combining,cart-torus,cart-p); names:\n"
"                       mpi, mpi-i, mpi-p   MPI_Neighbor_X, MPI_Ineighbor_X + MPI_Wait,\n"
"                                           MPI_Neighbor_X_init + MPI_Start/Wait (MPI >= 4)\n"
"                       cart[-i|-p][-ALG][-EXEC]\n"
"                                           Cart_X, Cart_iX + Cart_wait, Cart_X_init\n"
"                                           + Cart_start/Cart_wait, with ALG = direct,\n"
"                                           combining, torus and EXEC = datatype, pack\n"
"                                           (left out: auto)\n"
"                     shell patterns (cart-p-*, *-pack) and `all` are allowed; the\n"
"                     baseline `mpi` is always measured; --list-variants lists all\n"
"  --irregular        alltoallv/alltoallw: block i has m^(d-z) ints, z = number of\n"
"                     non-zero coordinates of vector i (0 for z = 0), as seed 002\n"
"                     sec. 4.2 (corners small, faces large)\n"
"  --mesh             non-periodic grid\n"
"  --reps N           timed repetitions per variant (default 100)\n"
"  --warmup N         checked, untimed calls per variant first (default 10, >= 1)\n"
"  --quick            --reps 20 --warmup 3\n"
"  --max-mib X        skip a case whose buffer would exceed X MiB (default 256)\n"
"  --csv FILE         write all rows as CSV\n"
"  --markdown FILE    write all rows as a Markdown table\n"
"  --plot FILE.png    plot with gnuplot: time vs block size per variant and the\n"
"                     speed-up vs MPI, one pair of panels per neighbourhood and\n"
"                     collective; the script and data are kept as FILE.gp and\n"
"                     FILE.dat (without .png); without gnuplot only those are written\n"
"  --summary          end with a matrix of speed-ups: a line per neighbourhood\n"
"                     and variant, a column per collective and block size\n"
"  --progress         progress bar on stderr (default: only if stderr is a tty)\n"
"  --no-progress      never\n"
"  --calibrate        only measure latency alpha and time per byte beta with a\n"
"                     ping-pong between ranks 0 and 1 and print\n"
"                     `export CARTCOLL_ALPHA=... CARTCOLL_BETA=...` for the\n"
"                     library's automatic choice\n"
"  --list-variants    print every variant name and exit\n"
"  --tolerate-mpi     BADMPI rows do not make the exit status non-zero\n"
"  --inject-fault     testing: flip a bit of rank 0's receive buffer after each\n"
"                     checked cartcoll call, so the checks must report FAIL\n"
"  -h, --help         this text\n"
"\n"
"Method: all variants of one neighbourhood, collective and block size run\n"
"interleaved (round robin per repetition, rotating the start); each call is\n"
"preceded by MPI_Barrier and its time is the maximum over the processes.  Of\n"
"the repetitions, values outside Tukey's fences [Q1 - 3 IQR, Q3 + 3 IQR] are\n"
"dropped; the median of the rest is reported with the 95%% confidence interval\n"
"[x_(j), x_(k+1-j)] from the binomial distribution of order statistics.\n"
"speed-up = median of blocking MPI_Neighbor_X / median of the variant (> 1:\n"
"faster than MPI).  rounds = Cart_schedule_stats rounds for the variant's\n"
"algorithm, i.e. for a grid large enough that no offset wraps (on small grids\n"
"the library runs the reduced neighbourhood with fewer); t for mpi.\n"
"\n"
"Checks: the send blocks hold values unique per process, block and element;\n"
"the v/w variants place blocks in reversed order with one-int gaps.  The MPI\n"
"baseline's receive buffer is compared with the values expected from the\n"
"process grid (computed with MPI_Cart_coords/MPI_Cart_rank), every other\n"
"variant's with the baseline's, after each warm-up call and once more after\n"
"the timed calls (all untimed).  Cart_neighbor_get (which the baseline's graph\n"
"is built from) and Cart_stencil are checked against the grid too.  check =\n"
"  OK      right data\n"
"  FAIL    wrong data (first difference on stderr)\n"
"  ERR     a call returned an error (message on stderr)\n"
"  SKIP    a buffer would exceed --max-mib\n"
"  BADMPI  an MPI baseline delivered wrong data although the graph was right:\n"
"          a bug of the MPI library (MPICH 4.0 matches repeated edges\n"
"          between two processes in reverse order); cartcoll variants are then\n"
"          compared with the expected values instead\n"
"Exit status: 0 if every check is OK or SKIP (or BADMPI with --tolerate-mpi),\n"
"1 otherwise, 2 for bad usage.\n");
}

/* Comma-separated list of ints >= lo. */
static int parse_int_list(const char *s, int lo, int **out, int *n)
{
    *n = 0;
    *out = NULL;
    char *copy = strdup(s), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *end;
        errno = 0;
        long x = strtol(tok, &end, 10);
        if (*end || end == tok || errno || x < lo || x > INT_MAX) {
            free(copy);
            free(*out);
            return -1;
        }
        int *p = realloc(*out, sizeof(int) * (size_t)(*n + 1));
        if (!p) abort();
        *out = p;
        p[(*n)++] = (int)x;
    }
    free(copy);
    return *n ? 0 : -1;
}

static int parse_positive(const char *s, int lo, int *x)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end || end == s || errno || v < lo || v > INT_MAX) return -1;
    *x = (int)v;
    return 0;
}

static int select_variants(const char *list, options *o)
{
    int want[MAXVAR] = { 0 };
    want[0] = 1; /* blocking MPI: the baseline */
    char *copy = strdup(list), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int hit = 0;
        if (!strcmp(tok, "all")) {
            for (int i = 0; i < nallvar; i++) want[i] = 1;
            continue;
        }
        if (strpbrk(tok, "*?[")) {
            for (int i = 0; i < nallvar; i++)
                if (!fnmatch(tok, allvar[i].name, 0)) want[i] = hit = 1;
        } else {
            int i = canonical_variant(tok);
            if (i >= 0) want[i] = hit = 1;
        }
        if (!hit) {
            if (!world_rank) {
                if (!strcmp(tok, "mpi-p") && !HAVE_MPI_PERSISTENT_NEIGHBOR)
                    fprintf(stderr, "cartbench: mpi-p needs MPI 4 persistent neighbourhood collectives; this MPI is %d.%d\n",
                            MPI_VERSION, MPI_SUBVERSION);
                else
                    fprintf(stderr, "cartbench: no variant matches '%s' (see --list-variants)\n", tok);
            }
            free(copy);
            return -1;
        }
    }
    free(copy);
    o->nvar = 0;
    for (int i = 0; i < nallvar; i++)
        if (want[i]) o->vsel[o->nvar++] = i;
    return 0;
}

/* 0: run, 1: exit 0 (help), 2: usage error. */
static int parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->reps = 100;
    o->warmup = 10;
    o->progress = -1;
    o->max_mib = 256;
    o->conf = 0.95;
    o->specs = calloc((size_t)argc + 1, sizeof(char *));
    const char *ms = "1,10,100", *ops = "alltoall,allgather", *vars = "mpi,cart,cart-direct,cart-combining,cart-torus,cart-p";
    int quick = 0, reps = -1, warmup = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDVAL()                                                                                                      \
    do {                                                                                                               \
        if (!val) {                                                                                                    \
            if (!world_rank) fprintf(stderr, "cartbench: %s needs a value\n", a);                                      \
            return 2;                                                                                                  \
        }                                                                                                              \
        i++;                                                                                                           \
    } while (0)
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (!world_rank) usage(stdout);
            return 1;
        } else if (!strcmp(a, "--list-variants")) {
            if (!world_rank)
                for (int k = 0; k < nallvar; k++) printf("%s\n", allvar[k].name);
            return 1;
        } else if (!strcmp(a, "-m")) {
            NEEDVAL();
            ms = val;
        } else if (!strcmp(a, "--ops")) {
            NEEDVAL();
            ops = val;
        } else if (!strcmp(a, "--variants")) {
            NEEDVAL();
            vars = val;
        } else if (!strcmp(a, "--reps")) {
            NEEDVAL();
            if (parse_positive(val, 1, &reps)) goto bad;
        } else if (!strcmp(a, "--warmup")) {
            NEEDVAL();
            if (parse_positive(val, 1, &warmup)) goto bad;
        } else if (!strcmp(a, "--max-mib")) {
            NEEDVAL();
            char *end;
            o->max_mib = strtod(val, &end);
            if (*end || !(o->max_mib > 0)) goto bad;
        } else if (!strcmp(a, "--csv")) {
            NEEDVAL();
            o->csv = val;
        } else if (!strcmp(a, "--markdown")) {
            NEEDVAL();
            o->markdown = val;
        } else if (!strcmp(a, "--plot")) {
            NEEDVAL();
            o->plot = val;
        } else if (!strcmp(a, "--quick")) {
            quick = 1;
        } else if (!strcmp(a, "--mesh")) {
            o->mesh = 1;
        } else if (!strcmp(a, "--irregular")) {
            o->irregular = 1;
        } else if (!strcmp(a, "--progress")) {
            o->progress = 1;
        } else if (!strcmp(a, "--no-progress")) {
            o->progress = 0;
        } else if (!strcmp(a, "--summary")) {
            o->summary = 1;
        } else if (!strcmp(a, "--tolerate-mpi")) {
            o->tolerate_mpi = 1;
        } else if (!strcmp(a, "--inject-fault")) {
            inject_fault = 1;
        } else if (!strcmp(a, "--calibrate")) {
            o->calibrate = 1;
        } else if (a[0] == '-') {
            if (!world_rank) fprintf(stderr, "cartbench: unknown option %s (see --help)\n", a);
            return 2;
        } else {
            o->specs[o->nspecs++] = argv[i];
        }
        continue;
    bad:
        if (!world_rank) fprintf(stderr, "cartbench: bad value for %s: %s\n", a, val);
        return 2;
#undef NEEDVAL
    }
    if (quick) {
        o->reps = 20;
        o->warmup = 3;
    }
    if (reps > 0) o->reps = reps;
    if (warmup > 0) o->warmup = warmup;
    if (!o->nspecs) o->specs[o->nspecs++] = "moore:3,3";
    if (parse_int_list(ms, 0, &o->ms, &o->nm)) {
        if (!world_rank) fprintf(stderr, "cartbench: -m wants a list of block sizes >= 0, not '%s'\n", ms);
        return 2;
    }
    char *copy = strdup(ops), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int found = -1;
        for (int k = 0; k < NOPS; k++)
            if (!strcmp(tok, op_name[k]) || !strcmp(tok, "all")) {
                found = k;
                int dup = 0;
                for (int j = 0; j < o->nops; j++) dup |= o->ops[j] == k;
                if (!dup) o->ops[o->nops++] = k;
            }
        if (found < 0) {
            if (!world_rank) fprintf(stderr, "cartbench: unknown collective '%s' (see --help)\n", tok);
            free(copy);
            return 2;
        }
    }
    free(copy);
    if (select_variants(vars, o)) return 2;
    if (o->progress < 0) o->progress = isatty(2);
    return 0;
}

/* ---- Per neighbourhood: communicators and the baseline graph ----------- */

typedef struct {
    cb_nbh nbh;
    int d, t, dims[32], periods[32];
    MPI_Comm comm[NALG][NEX]; /* Cart communicators with those defaults */
    MPI_Comm graph;           /* MPI_Dist_graph_create_adjacent equivalent */
    int indeg, outdeg;
    int *src_idx, *dst_idx;   /* neighbour index of each graph in/out edge */
    int *exp_src, *exp_dst;   /* ranks of R - N[i], R + N[i] from MPI_Cart_coords/rank */
    int nbh_ok;               /* Cart_neighbor_get and Cart_stencil agreed */
    int mpi_unsafe;           /* the MPI's neighbourhood collectives hang on this graph */
} nbhctx;

static void report_error(const char *what, int rc)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "cartbench: rank %d: %s: %s\n", world_rank, what, msg);
}

static MPI_Info make_info(int alg, int ex)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cartcoll_algorithm", alg_name[alg]);
    MPI_Info_set(info, "cartcoll_executor", ex_name[ex]);
    return info;
}

/* The rank of R + sign N[i] computed from the grid alone. */
static void expected_ranks(nbhctx *c, int sign, int *out)
{
    int me, coords[32], x[32];
    MPI_Comm base = c->comm[0][0];
    MPI_Comm_rank(base, &me);
    MPI_Cart_coords(base, me, c->d, coords);
    for (int i = 0; i < c->t; i++) {
        int off = 0;
        for (int k = 0; k < c->d; k++) {
            long y = (long)coords[k] + (long)sign * c->nbh.v[(size_t)i * c->d + k];
            if (c->periods[k]) {
                y %= c->dims[k];
                if (y < 0) y += c->dims[k];
            } else if (y < 0 || y >= c->dims[k]) {
                off = 1;
            }
            x[k] = (int)y;
        }
        if (off)
            out[i] = MPI_PROC_NULL;
        else
            MPI_Cart_rank(base, x, &out[i]);
    }
}

/* Cart_stencil must list exactly what cartbench generated. */
static int stencil_agrees(const cb_nbh *n)
{
    int metric, shadow, depth;
    if (n->kind == CB_VONNEUMANN) {
        metric = CART_MANHATTAN, shadow = 1, depth = n->p[0];
    } else if (n->kind == CB_CHEBYSHEV) {
        metric = CART_CHEBYSHEV, shadow = 1, depth = n->p[0];
    } else if (n->kind == CB_SHELLS) {
        metric = CART_CHEBYSHEV, shadow = n->p[0], depth = n->p[1];
    } else {
        return 1;
    }
    int cnt = -1;
    if (Cart_stencil_count(n->d, metric, shadow, depth, &cnt) != MPI_SUCCESS || cnt != n->t) return 0;
    int *v = malloc(sizeof(int) * (size_t)n->t * (size_t)n->d + 1);
    int ok = Cart_stencil(n->d, metric, shadow, depth, n->t, v) == MPI_SUCCESS &&
             !memcmp(v, n->v, sizeof(int) * (size_t)n->t * (size_t)n->d);
    free(v);
    return ok;
}

static int setup_nbh(nbhctx *c, const options *o, MPI_Comm world, const int need[NALG][NEX])
{
    c->d = c->nbh.d;
    c->t = c->nbh.t;
    for (int k = 0; k < c->d; k++) {
        c->dims[k] = 0;
        c->periods[k] = !o->mesh;
    }
    MPI_Dims_create(world_size, c->d, c->dims);
    int t = c->t;
    int *w = malloc(sizeof(int) * (size_t)t + 1);
    for (int i = 0; i < t; i++) w[i] = cb_nbh_nonzeros(&c->nbh, i) + 1; /* any real weights */
    for (int a = 0; a < NALG; a++)
        for (int e = 0; e < NEX; e++) {
            c->comm[a][e] = MPI_COMM_NULL;
            if (!need[a][e] && (a || e)) continue;
            MPI_Info info = make_info(a, e);
            int rc = Cart_neighborhood_create(world, c->d, c->dims, c->periods, t, c->nbh.v, w, info, 0, &c->comm[a][e]);
            MPI_Info_free(&info);
            if (rc != MPI_SUCCESS) {
                report_error("Cart_neighborhood_create", rc);
                free(w);
                return -1;
            }
            MPI_Comm_set_errhandler(c->comm[a][e], MPI_ERRORS_RETURN);
        }
    c->exp_src = malloc(sizeof(int) * (size_t)t + 1);
    c->exp_dst = malloc(sizeof(int) * (size_t)t + 1);
    expected_ranks(c, -1, c->exp_src);
    expected_ranks(c, +1, c->exp_dst);

    /* The baseline: the same neighbourhood as an MPI distributed graph. */
    int *src = malloc(sizeof(int) * (size_t)t + 1), *dst = malloc(sizeof(int) * (size_t)t + 1);
    int *sw = malloc(sizeof(int) * (size_t)t + 1), *dw = malloc(sizeof(int) * (size_t)t + 1);
    int rc = Cart_neighbor_get(c->comm[0][0], t, src, sw, t, dst, dw);
    if (rc != MPI_SUCCESS) {
        report_error("Cart_neighbor_get", rc);
        return -1;
    }
    /* The library must describe the neighbourhood as the grid does. */
    int ok[2] = { stencil_agrees(&c->nbh), !memcmp(src, c->exp_src, sizeof(int) * (size_t)t) &&
                                               !memcmp(dst, c->exp_dst, sizeof(int) * (size_t)t) };
    MPI_Allreduce(MPI_IN_PLACE, ok, 2, MPI_INT, MPI_MIN, world);
    c->nbh_ok = ok[0] && ok[1];
    if (!world_rank && !ok[0]) fprintf(stderr, "cartbench: %s: Cart_stencil does not list these vectors\n", c->nbh.name);
    if (!world_rank && !ok[1])
        fprintf(stderr, "cartbench: %s: Cart_neighbor_get disagrees with MPI_Cart_coords/MPI_Cart_rank\n", c->nbh.name);
    c->src_idx = malloc(sizeof(int) * (size_t)t + 1);
    c->dst_idx = malloc(sizeof(int) * (size_t)t + 1);
    c->indeg = c->outdeg = 0;
    for (int i = 0; i < t; i++) {
        if (src[i] != MPI_PROC_NULL) {
            c->src_idx[c->indeg] = i;
            src[c->indeg] = src[i];
            sw[c->indeg++] = 1;
        }
        if (dst[i] != MPI_PROC_NULL) {
            c->dst_idx[c->outdeg] = i;
            dst[c->outdeg] = dst[i];
            dw[c->outdeg++] = 1;
        }
    }
#ifdef MPICH_VERSION
    /* MPICH 4.0's neighbourhood collectives hang on graphs where a process
     * has in-edges but no matching out-edges (a mesh, an octant); the
     * baseline is skipped there and cartcoll is checked against the grid's
     * expectation alone. */
    int asym = c->indeg != c->outdeg;
    MPI_Allreduce(MPI_IN_PLACE, &asym, 1, MPI_INT, MPI_MAX, world);
    c->mpi_unsafe = asym;
    if (!world_rank && asym)
        fprintf(stderr, "cartbench: %s: MPI baseline skipped (MPICH hangs on graphs with unequal in- and out-degree)\n",
                c->nbh.name);
#endif
    rc = MPI_Dist_graph_create_adjacent(c->comm[0][0], c->indeg, src, sw, c->outdeg, dst, dw, MPI_INFO_NULL, 0,
                                        &c->graph);
    free(src);
    free(dst);
    free(sw);
    free(dw);
    free(w);
    if (rc != MPI_SUCCESS) {
        report_error("MPI_Dist_graph_create_adjacent", rc);
        return -1;
    }
    MPI_Comm_set_errhandler(c->graph, MPI_ERRORS_RETURN);
    return 0;
}

static void free_nbh(nbhctx *c)
{
    for (int a = 0; a < NALG; a++)
        for (int e = 0; e < NEX; e++)
            if (c->comm[a][e] != MPI_COMM_NULL) MPI_Comm_free(&c->comm[a][e]);
    if (c->graph != MPI_COMM_NULL) MPI_Comm_free(&c->graph);
    free(c->src_idx);
    free(c->dst_idx);
    free(c->exp_src);
    free(c->exp_dst);
    cb_nbh_free(&c->nbh);
}

/* ---- Per case (neighbourhood, collective, block size): buffers ---------- */

#define SENTINEL (-1)
#define GAP (-2)

typedef struct {
    int op, m, t;
    int *cnt;                 /* ints of block i (send and receive) */
    int *sd, *rd;             /* cartcoll layout: block offsets in ints */
    size_t slen, rlen;        /* buffer lengths in ints */
    int *sbuf, *rbuf;         /* cartcoll buffers */
    MPI_Aint *sdb, *rdb;      /* byte displacements (w) */
    MPI_Datatype *types;      /* MPI_INT per block (w) */
    /* MPI baseline on the graph: its own buffers and compacted arrays */
    int *msbuf, *mrbuf;
    size_t mslen, mrlen;
    int *mscnt, *mrcnt, *msd, *mrd, *mpos;
    MPI_Aint *msdb, *mrdb;
    MPI_Datatype *mtypes;
    int *expect, *ref;        /* from the grid; the baseline's result */
    long long bytes;          /* payload bytes received per process */
} kase;

/* Value of element k of send block b of process r (b = 0 for allgather):
 * never SENTINEL or GAP, and different for nearby (r, b, k). */
static int value(int r, int b, int k)
{
    uint64_t x = (uint64_t)(unsigned)r * 0x9E3779B97F4A7C15ull + (uint64_t)(unsigned)b * 0xC2B2AE3D27D4EB4Full +
                 (uint64_t)(unsigned)k * 0x165667B19E3779F9ull;
    x ^= x >> 29;
    return (int)(x % 2000000000u) + 1;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "cartbench: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

static void fill(int *p, size_t n, int x)
{
    for (size_t i = 0; i < n; i++) p[i] = x;
}

/* Lay out the case; 1 if it is too large (skip), 0 otherwise. */
static int setup_case(kase *k, const nbhctx *c, const options *o, int op, int m)
{
    memset(k, 0, sizeof *k);
    int t = c->t, me;
    MPI_Comm_rank(c->comm[0][0], &me);
    k->op = op;
    k->m = m;
    k->t = t;
    /* Sizes first, in doubles, to decide about skipping without overflow. */
    double total = 0, biggest = 0;
    for (int i = 0; i < t; i++) {
        double b = m;
        if (o->irregular && (op == OP_ALLTOALLV || op == OP_ALLTOALLW)) {
            int z = cb_nbh_nonzeros(&c->nbh, i);
            b = z ? pow(m, c->d - z) : 0;
        }
        total += b + 1;
        biggest = b > biggest ? b : biggest;
    }
    if (total * sizeof(int) > o->max_mib * 1048576.0 || total > INT_MAX / 2) return 1;
    k->cnt = xmalloc(sizeof(int) * (size_t)t);
    k->sd = xmalloc(sizeof(int) * (size_t)t);
    k->rd = xmalloc(sizeof(int) * (size_t)t);
    k->bytes = 0;
    for (int i = 0; i < t; i++) {
        if (o->irregular && (op == OP_ALLTOALLV || op == OP_ALLTOALLW)) {
            int z = cb_nbh_nonzeros(&c->nbh, i);
            k->cnt[i] = z ? (int)llround(pow(m, c->d - z)) : 0;
        } else {
            k->cnt[i] = m;
        }
        if (c->exp_src[i] != MPI_PROC_NULL) k->bytes += (long long)k->cnt[i] * (long long)sizeof(int);
    }
    /* Regular: blocks back to back.  v/w: send blocks forward, receive blocks
     * in reverse order, each followed by a one-int gap that must stay
     * untouched. */
    size_t s = 0, r = 0;
    if (op_is_regular(op)) {
        for (int i = 0; i < t; i++) {
            k->sd[i] = (int)s;
            k->rd[i] = (int)r;
            s += (size_t)k->cnt[i];
            r += (size_t)k->cnt[i];
        }
    } else {
        for (int i = 0; i < t; i++) {
            k->sd[i] = (int)s;
            s += (size_t)k->cnt[i] + 1;
        }
        for (int i = t - 1; i >= 0; i--) {
            k->rd[i] = (int)r;
            r += (size_t)k->cnt[i] + 1;
        }
    }
    k->slen = op_is_alltoall(op) ? s : (size_t)m;
    k->rlen = r;
    k->sbuf = xmalloc(sizeof(int) * k->slen);
    k->rbuf = xmalloc(sizeof(int) * k->rlen);
    fill(k->sbuf, k->slen, GAP);
    if (op_is_alltoall(op)) {
        for (int i = 0; i < t; i++)
            for (int e = 0; e < k->cnt[i]; e++) k->sbuf[k->sd[i] + e] = value(me, i, e);
    } else {
        for (int e = 0; e < m; e++) k->sbuf[e] = value(me, 0, e);
    }
    k->sdb = xmalloc(sizeof(MPI_Aint) * (size_t)t);
    k->rdb = xmalloc(sizeof(MPI_Aint) * (size_t)t);
    k->types = xmalloc(sizeof(MPI_Datatype) * (size_t)t);
    for (int i = 0; i < t; i++) {
        k->sdb[i] = (MPI_Aint)k->sd[i] * (MPI_Aint)sizeof(int);
        k->rdb[i] = (MPI_Aint)k->rd[i] * (MPI_Aint)sizeof(int);
        k->types[i] = MPI_INT;
    }

    /* The baseline.  Regular collectives need compact buffers (only the
     * neighbours present on the graph); v/w address the cartcoll layout. */
    int in = c->indeg, out = c->outdeg;
    k->mscnt = xmalloc(sizeof(int) * (size_t)out);
    k->msd = xmalloc(sizeof(int) * (size_t)out);
    k->msdb = xmalloc(sizeof(MPI_Aint) * (size_t)out);
    k->mrcnt = xmalloc(sizeof(int) * (size_t)in);
    k->mrd = xmalloc(sizeof(int) * (size_t)in);
    k->mrdb = xmalloc(sizeof(MPI_Aint) * (size_t)in);
    k->mpos = xmalloc(sizeof(int) * (size_t)in);
    k->mtypes = xmalloc(sizeof(MPI_Datatype) * (size_t)(in > out ? in : out));
    for (int j = 0; j < (in > out ? in : out); j++) k->mtypes[j] = MPI_INT;
    if (op == OP_ALLTOALL) {
        k->mslen = (size_t)out * (size_t)m;
        k->msbuf = xmalloc(sizeof(int) * k->mslen);
        for (int j = 0; j < out; j++)
            memcpy(k->msbuf + (size_t)j * m, k->sbuf + k->sd[c->dst_idx[j]], sizeof(int) * (size_t)m);
    } else {
        k->mslen = k->slen;
        k->msbuf = xmalloc(sizeof(int) * k->mslen);
        memcpy(k->msbuf, k->sbuf, sizeof(int) * k->slen);
    }
    for (int j = 0; j < out; j++) {
        int i = c->dst_idx[j];
        k->mscnt[j] = k->cnt[i];
        k->msd[j] = op == OP_ALLGATHERW ? 0 : k->sd[i];
        k->msdb[j] = (MPI_Aint)k->msd[j] * (MPI_Aint)sizeof(int);
    }
    k->mrlen = op_is_regular(op) ? (size_t)in * (size_t)m : k->rlen;
    k->mrbuf = xmalloc(sizeof(int) * k->mrlen);
    for (int j = 0; j < in; j++) {
        int i = c->src_idx[j];
        k->mrcnt[j] = k->cnt[i];
        k->mpos[j] = op_is_regular(op) ? j * m : k->rd[i];
        k->mrd[j] = k->mpos[j];
        k->mrdb[j] = (MPI_Aint)k->mrd[j] * (MPI_Aint)sizeof(int);
    }

    /* What every receive buffer must hold: block i from R - N[i]. */
    k->expect = xmalloc(sizeof(int) * k->rlen);
    k->ref = xmalloc(sizeof(int) * k->rlen);
    fill(k->expect, k->rlen, SENTINEL);
    for (int i = 0; i < t; i++)
        if (c->exp_src[i] != MPI_PROC_NULL)
            for (int e = 0; e < k->cnt[i]; e++)
                k->expect[k->rd[i] + e] = value(c->exp_src[i], op_is_alltoall(op) ? i : 0, e);
    memcpy(k->ref, k->expect, sizeof(int) * k->rlen); /* until the baseline has run */
    return 0;
}

static void free_case(kase *k)
{
    void *p[] = { k->cnt, k->sd, k->rd, k->sbuf, k->rbuf, k->sdb, k->rdb, k->types, k->msbuf, k->mrbuf, k->mscnt,
                  k->mrcnt, k->msd, k->mrd, k->mpos, k->msdb, k->mrdb, k->mtypes, k->expect, k->ref };
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) free(p[i]);
    memset(k, 0, sizeof *k);
}

/* The baseline's receive buffer in the cartcoll layout. */
static void expand_mpi(const kase *k, const nbhctx *c, int *full)
{
    fill(full, k->rlen, SENTINEL);
    for (int j = 0; j < c->indeg; j++) {
        int i = c->src_idx[j];
        memcpy(full + k->rd[i], k->mrbuf + k->mpos[j], sizeof(int) * (size_t)k->cnt[i]);
    }
}

/* ---- Calls ------------------------------------------------------------- */

typedef struct {
    const variant *v;
    Cart_request creq;
    MPI_Request mreq;
    int err, bad;             /* local: a call failed / a check failed */
    int skip;                 /* an MPI baseline this MPI cannot run here */
    double *times;
} vstate;

static int cart_blocking(const kase *k, MPI_Comm comm)
{
    const int m = k->m;
    switch (k->op) {
    case OP_ALLGATHER: return Cart_allgather(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, comm);
    case OP_ALLGATHERV: return Cart_allgatherv(k->sbuf, m, MPI_INT, k->rbuf, k->cnt, k->rd, MPI_INT, comm);
    case OP_ALLGATHERW: return Cart_allgatherw(k->sbuf, m, MPI_INT, k->rbuf, k->cnt, k->rdb, k->types, comm);
    case OP_ALLTOALL: return Cart_alltoall(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, comm);
    case OP_ALLTOALLV: return Cart_alltoallv(k->sbuf, k->cnt, k->sd, MPI_INT, k->rbuf, k->cnt, k->rd, MPI_INT, comm);
    default:
        return Cart_alltoallw(k->sbuf, k->cnt, k->sdb, k->types, k->rbuf, k->cnt, k->rdb, k->types, comm);
    }
}

static int cart_nonblocking(const kase *k, MPI_Comm comm, Cart_request *r)
{
    const int m = k->m;
    switch (k->op) {
    case OP_ALLGATHER: return Cart_iallgather(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, comm, r);
    case OP_ALLGATHERV: return Cart_iallgatherv(k->sbuf, m, MPI_INT, k->rbuf, k->cnt, k->rd, MPI_INT, comm, r);
    case OP_ALLGATHERW: return Cart_iallgatherw(k->sbuf, m, MPI_INT, k->rbuf, k->cnt, k->rdb, k->types, comm, r);
    case OP_ALLTOALL: return Cart_ialltoall(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, comm, r);
    case OP_ALLTOALLV:
        return Cart_ialltoallv(k->sbuf, k->cnt, k->sd, MPI_INT, k->rbuf, k->cnt, k->rd, MPI_INT, comm, r);
    default:
        return Cart_ialltoallw(k->sbuf, k->cnt, k->sdb, k->types, k->rbuf, k->cnt, k->rdb, k->types, comm, r);
    }
}

static int cart_init(const kase *k, MPI_Comm comm, MPI_Info info, Cart_request *r)
{
    const int m = k->m;
    switch (k->op) {
    case OP_ALLGATHER: return Cart_allgather_init(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, comm, info, r);
    case OP_ALLGATHERV:
        return Cart_allgatherv_init(k->sbuf, m, MPI_INT, k->rbuf, k->cnt, k->rd, MPI_INT, comm, info, r);
    case OP_ALLGATHERW:
        return Cart_allgatherw_init(k->sbuf, m, MPI_INT, k->rbuf, k->cnt, k->rdb, k->types, comm, info, r);
    case OP_ALLTOALL: return Cart_alltoall_init(k->sbuf, m, MPI_INT, k->rbuf, m, MPI_INT, comm, info, r);
    case OP_ALLTOALLV:
        return Cart_alltoallv_init(k->sbuf, k->cnt, k->sd, MPI_INT, k->rbuf, k->cnt, k->rd, MPI_INT, comm, info, r);
    default:
        return Cart_alltoallw_init(k->sbuf, k->cnt, k->sdb, k->types, k->rbuf, k->cnt, k->rdb, k->types, comm, info, r);
    }
}

/* The MPI baseline: form F_BLOCKING calls, F_NONBLOCKING starts (*r), and
 * F_PERSISTENT initialises (*r). */
static int mpi_call(const kase *k, MPI_Comm g, int form, MPI_Request *r)
{
    const int m = k->m;
    const void *sb = k->msbuf;
    void *rb = k->mrbuf;
    if (form == F_BLOCKING) {
        switch (k->op) {
        case OP_ALLGATHER: return MPI_Neighbor_allgather(sb, m, MPI_INT, rb, m, MPI_INT, g);
        case OP_ALLGATHERV: return MPI_Neighbor_allgatherv(sb, m, MPI_INT, rb, k->mrcnt, k->mrd, MPI_INT, g);
        case OP_ALLTOALL: return MPI_Neighbor_alltoall(sb, m, MPI_INT, rb, m, MPI_INT, g);
        case OP_ALLTOALLV:
            return MPI_Neighbor_alltoallv(sb, k->mscnt, k->msd, MPI_INT, rb, k->mrcnt, k->mrd, MPI_INT, g);
        default:
            return MPI_Neighbor_alltoallw(sb, k->mscnt, k->msdb, k->mtypes, rb, k->mrcnt, k->mrdb, k->mtypes, g);
        }
    }
    if (form == F_NONBLOCKING) {
        switch (k->op) {
        case OP_ALLGATHER: return MPI_Ineighbor_allgather(sb, m, MPI_INT, rb, m, MPI_INT, g, r);
        case OP_ALLGATHERV: return MPI_Ineighbor_allgatherv(sb, m, MPI_INT, rb, k->mrcnt, k->mrd, MPI_INT, g, r);
        case OP_ALLTOALL: return MPI_Ineighbor_alltoall(sb, m, MPI_INT, rb, m, MPI_INT, g, r);
        case OP_ALLTOALLV:
            return MPI_Ineighbor_alltoallv(sb, k->mscnt, k->msd, MPI_INT, rb, k->mrcnt, k->mrd, MPI_INT, g, r);
        default:
            return MPI_Ineighbor_alltoallw(sb, k->mscnt, k->msdb, k->mtypes, rb, k->mrcnt, k->mrdb, k->mtypes, g, r);
        }
    }
#if HAVE_MPI_PERSISTENT_NEIGHBOR
    MPI_Info in = MPI_INFO_NULL;
    switch (k->op) {
    case OP_ALLGATHER: return MPI_Neighbor_allgather_init(sb, m, MPI_INT, rb, m, MPI_INT, g, in, r);
    case OP_ALLGATHERV: return MPI_Neighbor_allgatherv_init(sb, m, MPI_INT, rb, k->mrcnt, k->mrd, MPI_INT, g, in, r);
    case OP_ALLTOALL: return MPI_Neighbor_alltoall_init(sb, m, MPI_INT, rb, m, MPI_INT, g, in, r);
    case OP_ALLTOALLV:
        return MPI_Neighbor_alltoallv_init(sb, k->mscnt, k->msd, MPI_INT, rb, k->mrcnt, k->mrd, MPI_INT, g, in, r);
    default:
        return MPI_Neighbor_alltoallw_init(sb, k->mscnt, k->msdb, k->mtypes, rb, k->mrcnt, k->mrdb, k->mtypes, g, in,
                                           r);
    }
#else
    (void)r;
    return MPI_ERR_OTHER;
#endif
}

/* One complete operation of variant s. */
static int run_once(vstate *s, const kase *k, const nbhctx *c)
{
    const variant *v = s->v;
    int rc;
    if (v->mpi) {
        if (v->form == F_BLOCKING) return mpi_call(k, c->graph, F_BLOCKING, NULL);
        if (v->form == F_NONBLOCKING) {
            MPI_Request r;
            rc = mpi_call(k, c->graph, F_NONBLOCKING, &r);
            return rc != MPI_SUCCESS ? rc : MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        rc = MPI_Start(&s->mreq);
        return rc != MPI_SUCCESS ? rc : MPI_Wait(&s->mreq, MPI_STATUS_IGNORE);
    }
    if (v->form == F_BLOCKING) return cart_blocking(k, c->comm[v->alg][v->ex]);
    if (v->form == F_NONBLOCKING) {
        Cart_request r = CART_REQUEST_NULL;
        rc = cart_nonblocking(k, c->comm[v->alg][v->ex], &r);
        return rc != MPI_SUCCESS ? rc : Cart_wait(&r);
    }
    rc = Cart_start(&s->creq);
    return rc != MPI_SUCCESS ? rc : Cart_wait(&s->creq);
}

/* Compare got with want; report the first difference of a variant once. */
static int differs(const int *got, const int *want, const kase *k, const nbhctx *c, vstate *s, const char *against)
{
    if (!memcmp(got, want, sizeof(int) * k->rlen)) return 0;
    if (!s->bad) {
        size_t e = 0;
        while (got[e] == want[e]) e++;
        int blk = -1;
        for (int i = 0; i < k->t; i++)
            if ((size_t)k->rd[i] <= e && e < (size_t)k->rd[i] + (size_t)k->cnt[i]) blk = i;
        fprintf(stderr, "cartbench: rank %d: %s %s m=%d %s: receive buffer differs from %s at int %zu (block %d): %d, "
                        "expected %d%s\n",
                world_rank, c->nbh.name, op_name[k->op], k->m, s->v->name, against, e, blk, got[e], want[e],
                want[e] == SENTINEL ? " (untouched)" : "");
    }
    return 1;
}

/* Run once on cleared receive buffers and compare: the baseline with the
 * grid's expectation (and keep its result as the reference), the others
 * with the reference. */
static void checked_call(vstate *s, kase *k, const nbhctx *c)
{
    if (s->err || s->skip) return; /* every process knows (agreed below) */
    int *rb = s->v->mpi ? k->mrbuf : k->rbuf;
    fill(rb, s->v->mpi ? k->mrlen : k->rlen, SENTINEL);
    int rc = run_once(s, k, c);
    if (rc != MPI_SUCCESS) {
        char what[256];
        snprintf(what, sizeof what, "%s %s m=%d %s", c->nbh.name, op_name[k->op], k->m, s->v->name);
        report_error(what, rc);
        s->err = 1;
        return;
    }
    if (s->v->mpi) {
        int *full = xmalloc(sizeof(int) * k->rlen);
        expand_mpi(k, c, full);
        if (s->v->form == F_BLOCKING) {
            if (differs(full, k->expect, k, c, s, "the grid's expectation"))
                s->bad = 1; /* the reference stays the expectation */
            else
                memcpy(k->ref, full, sizeof(int) * k->rlen);
        } else if (differs(full, k->ref, k, c, s, "the reference")) {
            s->bad = 1;
        }
        free(full);
    } else {
        if (inject_fault && world_rank == 0 && k->rlen) k->rbuf[0] ^= 1; /* the checker's own test */
        if (differs(k->rbuf, k->ref, k, c, s, "the reference")) s->bad = 1;
    }
}

/* ---- Results ----------------------------------------------------------- */

enum { CHK_OK, CHK_FAIL, CHK_ERR, CHK_SKIP, CHK_BADMPI };
static const char *const chk_name[] = { "OK", "FAIL", "ERR", "SKIP", "BADMPI" };
static int timed_check(int c) { return c == CHK_OK || c == CHK_FAIL || c == CHK_BADMPI; }

typedef struct {
    int inbh, op, var, m, d, t, rounds, check;
    char nbh[96], dims[64];
    long long bytes;
    cb_summary s;
    double speedup;
} row;

static row *rows;
static int nrows, caprows;
static int namew = 13;

static void add_row(const row *r)
{
    if (nrows == caprows) {
        caprows = caprows ? 2 * caprows : 64;
        rows = realloc(rows, sizeof(row) * (size_t)caprows);
        if (!rows) abort();
    }
    rows[nrows++] = *r;
}

static void print_header(void)
{
    printf("%-*s %6s  %-10s %-24s %6s %6s %11s  %-23s %8s  %s\n", namew, "neighbourhood", "t", "collective", "variant",
           "m", "rounds", "median[us]", "95% CI [us]", "speed-up", "check");
}

static void print_row(const row *r)
{
    const variant *v = &allvar[r->var];
    char rounds[16] = "-", med[32] = "-", ci[48] = "-", sp[16] = "-";
    if (r->rounds >= 0) snprintf(rounds, sizeof rounds, "%d", r->rounds);
    if (timed_check(r->check)) {
        snprintf(med, sizeof med, "%.2f", r->s.median * 1e6);
        snprintf(ci, sizeof ci, "[%9.2f, %9.2f]", r->s.lo * 1e6, r->s.hi * 1e6);
        if (r->speedup > 0) snprintf(sp, sizeof sp, "%.2f", r->speedup);
    }
    printf("%-*s %6d  %-10s %-24s %6d %6s %11s  %-23s %8s  %s\n", namew, r->nbh, r->t, op_name[r->op], v->name, r->m,
           rounds, med, ci, sp, chk_name[r->check]);
}

static void mpi_library(char *buf, size_t len)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    MPI_Get_library_version(v, &n);
    v[strcspn(v, "\n,")] = 0;
    size_t n2 = strlen(v) < len - 1 ? strlen(v) : len - 1;
    memcpy(buf, v, n2);
    buf[n2] = 0;
    for (char *p = buf; *p; p++)
        if (*p == '"') *p = '\'';
}

static int write_csv(const char *path, const options *o)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cartbench: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    char lib[256];
    mpi_library(lib, sizeof lib);
    fprintf(f, "mpi,np,nbh,d,t,dims,periodic,collective,variant,form,algorithm,executor,m,irregular,bytes,rounds,reps,"
               "kept,median_us,ci_lo_us,ci_hi_us,ci_coverage,min_us,speedup,check\n");
    for (int i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        const variant *v = &allvar[r->var];
        int timed = timed_check(r->check);
        fprintf(f, "\"%s\",%d,\"%s\",%d,%d,%s,%d,%s,%s,%s,%s,%s,%d,%d,%lld,", lib, world_size, r->nbh, r->d, r->t, r->dims,
                !o->mesh, op_name[r->op], v->name, v->mpi ? "mpi" : form_name[v->form],
                v->mpi ? form_name[v->form] : alg_name[v->alg], v->mpi ? "-" : ex_name[v->ex], r->m,
                o->irregular && (r->op == OP_ALLTOALLV || r->op == OP_ALLTOALLW), r->bytes);
        if (r->rounds >= 0)
            fprintf(f, "%d,", r->rounds);
        else
            fprintf(f, ",");
        if (timed)
            fprintf(f, "%d,%d,%.3f,%.3f,%.3f,%.4f,%.3f,", r->s.n, r->s.kept, r->s.median * 1e6, r->s.lo * 1e6,
                    r->s.hi * 1e6, r->s.coverage, r->s.min * 1e6);
        else
            fprintf(f, ",,,,,,,");
        if (timed && r->speedup > 0)
            fprintf(f, "%.3f,", r->speedup);
        else
            fprintf(f, ",");
        fprintf(f, "%s\n", chk_name[r->check]);
    }
    return fclose(f);
}

static int write_markdown(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cartbench: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "| neighbourhood | t | collective | variant | m | rounds | median µs | 95%% CI µs | speed-up | check |\n");
    fprintf(f, "|---|--:|---|---|--:|--:|--:|--:|--:|---|\n");
    for (int i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        int timed = timed_check(r->check);
        fprintf(f, "| %s | %d | %s | %s | %d | ", r->nbh, r->t, op_name[r->op], allvar[r->var].name, r->m);
        if (r->rounds >= 0)
            fprintf(f, "%d | ", r->rounds);
        else
            fprintf(f, "- | ");
        if (timed)
            fprintf(f, "%.2f | %.2f–%.2f | ", r->s.median * 1e6, r->s.lo * 1e6, r->s.hi * 1e6);
        else
            fprintf(f, "- | - | ");
        if (timed && r->speedup > 0)
            fprintf(f, "%.2f | ", r->speedup);
        else
            fprintf(f, "- | ");
        fprintf(f, "%s |\n", chk_name[r->check]);
    }
    return fclose(f);
}

/* Plot with gnuplot: per (neighbourhood, collective) a panel of median time
 * against block size for each variant (error bars: the confidence interval)
 * and a panel of speed-ups against MPI. */
static int write_plot(const char *png, const options *o)
{
    size_t len = strlen(png);
    char *base = xmalloc(len + 8);
    memcpy(base, png, len + 1);
    if (len > 4 && !strcmp(base + len - 4, ".png")) base[len - 4] = 0;
    char *dat = xmalloc(len + 8), *gp = xmalloc(len + 8);
    sprintf(dat, "%s.dat", base);
    sprintf(gp, "%s.gp", base);
    FILE *fd = fopen(dat, "w"), *fg = fopen(gp, "w");
    if (!fd || !fg) {
        fprintf(stderr, "cartbench: cannot write %s / %s: %s\n", dat, gp, strerror(errno));
        if (fd) fclose(fd);
        if (fg) fclose(fg);
        return -1;
    }
    /* Cells: distinct (neighbourhood, collective) pairs in row order. */
    int ncell = 0, (*cell)[2] = xmalloc(sizeof(int[2]) * (size_t)nrows);
    for (int i = 0; i < nrows; i++) {
        int seen = 0;
        for (int c = 0; c < ncell; c++) seen |= cell[c][0] == rows[i].inbh && cell[c][1] == rows[i].op;
        if (!seen) {
            cell[ncell][0] = rows[i].inbh;
            cell[ncell][1] = rows[i].op;
            ncell++;
        }
    }
    int percol = ncell > 1 ? 2 : 1, nr = (ncell + percol - 1) / percol;
    char lib[256];
    mpi_library(lib, sizeof lib);
    fprintf(fg, "# cartbench plot script; data in %s (blocks: m median lo hi speed-up)\n", dat);
    fprintf(fg, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
                "  set terminal pngcairo size %d,%d font ',9'\n} else {\n  set terminal png size %d,%d\n}\n",
            430 * 2 * percol, 300 * nr + 40, 430 * 2 * percol, 300 * nr + 40);
    fprintf(fg, "set termoption noenhanced\nset encoding utf8\nset output '%s'\nset datafile missing 'nan'\n", png);
    fprintf(fg, "set multiplot layout %d,%d title \"cartbench: %s, %d processes, %s%s\"\n", nr, 2 * percol, lib,
            world_size, o->mesh ? "mesh" : "torus", o->irregular ? ", irregular v/w blocks" : "");
    fprintf(fg, "set logscale x\nset key top left font ',8' samplen 2\nset grid\nset xlabel 'block size m [ints]'\n");
    int mmin = INT_MAX, mmax = 0;
    for (int i = 0; i < o->nm; i++) {
        mmin = o->ms[i] > 0 && o->ms[i] < mmin ? o->ms[i] : mmin;
        mmax = o->ms[i] > mmax ? o->ms[i] : mmax;
    }
    if (mmin == INT_MAX) mmin = 1;
    if (mmax < mmin) mmax = mmin;
    fprintf(fg, "set xrange [%g:%g]\nset xtics (", mmin / 1.5, mmax * 1.5);
    for (int i = 0, n = 0; i < o->nm; i++)
        if (o->ms[i] > 0) fprintf(fg, "%s%d", n++ ? ", " : "", o->ms[i]);
    fprintf(fg, ")\n");
    int idx = 0;
    for (int c = 0; c < ncell; c++) {
        /* One data block per variant with data in this cell. */
        int first = idx, nb = 0, blkvar[MAXVAR];
        for (int vi = 0; vi < o->nvar; vi++) {
            int var = o->vsel[vi], any = 0;
            for (int i = 0; i < nrows; i++) {
                const row *r = &rows[i];
                if (r->inbh != cell[c][0] || r->op != cell[c][1] || r->var != var || r->m <= 0) continue;
                if (!timed_check(r->check)) continue;
                fprintf(fd, "%d %.6g %.6g %.6g %.6g\n", r->m, r->s.median * 1e6, r->s.lo * 1e6, r->s.hi * 1e6,
                        r->speedup > 0 ? r->speedup : NAN);
                any = 1;
            }
            if (any) {
                fprintf(fd, "\n\n");
                blkvar[nb++] = vi;
                idx++;
            }
        }
        const row *r0 = NULL;
        for (int i = 0; i < nrows && !r0; i++)
            if (rows[i].inbh == cell[c][0] && rows[i].op == cell[c][1]) r0 = &rows[i];
        fprintf(fg, "set title '%s %s (t = %d)'\nset logscale y\nset ylabel 'median time [µs]'\nunset yrange\n",
                op_name[r0->op], r0->nbh, r0->t);
        if (!nb) {
            fprintf(fg, "set multiplot next\nset multiplot next\n");
            continue;
        }
        fprintf(fg, "plot ");
        for (int b = 0; b < nb; b++)
            fprintf(fg, "%s'%s' index %d using 1:2:3:4 with yerrorlines lt %d pt 7 ps 0.6 title '%s'", b ? ", \\\n     " : "",
                    dat, first + b, blkvar[b] + 1, allvar[o->vsel[blkvar[b]]].name);
        fprintf(fg, "\nset title 'speed-up vs %s'\nunset logscale y\nset ylabel 'speed-up (MPI time / time)'\n"
                    "set yrange [0:*]\n",
                op_mpi[r0->op]);
        fprintf(fg, "plot 1 with lines lt 0 lw 1 notitle");
        for (int b = 0; b < nb; b++) {
            if (blkvar[b] == 0) continue; /* the baseline itself */
            fprintf(fg, ", \\\n     '%s' index %d using 1:5 with linespoints lt %d pt 7 ps 0.6 title '%s'", dat,
                    first + b, blkvar[b] + 1, allvar[o->vsel[blkvar[b]]].name);
        }
        fprintf(fg, "\n");
    }
    fprintf(fg, "unset multiplot\n");
    fclose(fd);
    fclose(fg);
    free(cell);
    int rc = 0;
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
        fprintf(stderr, "cartbench: gnuplot not found: wrote %s and %s, no %s (install gnuplot and run `gnuplot %s`)\n",
                gp, dat, png, gp);
    } else {
        char *cmd = xmalloc(2 * len + 64);
        sprintf(cmd, "gnuplot '%s'", gp);
        if (system(cmd) != 0) {
            fprintf(stderr, "cartbench: gnuplot failed on %s\n", gp);
            rc = -1;
        }
        free(cmd);
    }
    free(base);
    free(dat);
    free(gp);
    return rc;
}

/* Speed-ups as a matrix: a line per neighbourhood and variant, a column per
 * collective and block size. */
static void print_summary(const options *o)
{
    printf("\nspeed-up over the MPI baseline (median MPI time / median time; > 1: faster than MPI)\n");
    printf("%-*s %6s  %-24s", namew, "neighbourhood", "t", "variant");
    for (int a = 0; a < o->nops; a++)
        for (int b = 0; b < o->nm; b++) {
            char h[64];
            snprintf(h, sizeof h, "%s%s m=%d", b ? "" : "| ", op_name[o->ops[a]], o->ms[b]);
            printf(" %*s", b ? 7 : 9 + (int)strlen(op_name[o->ops[a]]), b ? h + strlen(op_name[o->ops[a]]) + 1 : h);
        }
    printf("\n");
    for (int i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        if (allvar[r->var].mpi && allvar[r->var].form == F_BLOCKING) continue;
        int first = 1; /* first row of this (neighbourhood, variant)? */
        for (int j = 0; j < i && first; j++) first = !(rows[j].inbh == r->inbh && rows[j].var == r->var);
        if (!first) continue;
        printf("%-*s %6d  %-24s", namew, r->nbh, r->t, allvar[r->var].name);
        for (int a = 0; a < o->nops; a++)
            for (int b = 0; b < o->nm; b++) {
                char cell[32] = "-";
                for (int j = i; j < nrows; j++) {
                    const row *q = &rows[j];
                    if (q->inbh == r->inbh && q->var == r->var && q->op == o->ops[a] && q->m == o->ms[b]) {
                        if (q->speedup > 0) snprintf(cell, sizeof cell, "%.2f%s", q->speedup, q->check == CHK_OK ? "" : "!");
                        break;
                    }
                }
                printf(" %*s", b ? 7 : 9 + (int)strlen(op_name[o->ops[a]]), cell);
            }
        printf("\n");
    }
    printf("(! = the row's check was not OK)\n");
}

/* ---- Progress ---------------------------------------------------------- */

static long long prog_total, prog_done;
static int prog_on, prog_last = -1;
static double prog_t0;

static void progress(long long add, const char *what)
{
    prog_done += add;
    if (!prog_on || world_rank) return;
    int pct = prog_total ? (int)(100 * prog_done / prog_total) : 100;
    if (pct == prog_last && add) return;
    prog_last = pct;
    int w = 30, fillw = pct * w / 100;
    double el = MPI_Wtime() - prog_t0;
    fprintf(stderr, "\r[");
    for (int i = 0; i < w; i++) fputc(i < fillw ? '#' : '.', stderr);
    fprintf(stderr, "] %3d%% %5.0fs %-40.40s", pct, el, what);
    fflush(stderr);
}

static void progress_clear(void)
{
    if (prog_on && !world_rank) {
        fprintf(stderr, "\r%90s\r", "");
        fflush(stderr);
    }
}

/* ---- Calibration ------------------------------------------------------- */

static int calibrate(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (size < 2) {
        if (!rank) fprintf(stderr, "cartbench --calibrate: needs at least 2 processes\n");
        return 2;
    }
    static const int sizes[] = { 1, 64, 1024, 8192, 65536, 262144, 1048576 };
    const int ns = (int)(sizeof sizes / sizeof sizes[0]), reps = 50, warm = 10;
    char *buf = xmalloc((size_t)sizes[ns - 1]);
    memset(buf, 1, (size_t)sizes[ns - 1]);
    double one_way[16], x[100];
    if (!rank) printf("%12s %14s\n", "bytes", "one-way [us]");
    for (int s = 0; s < ns; s++) {
        for (int r = 0; r < warm + reps; r++) {
            MPI_Barrier(comm);
            double t0 = MPI_Wtime();
            if (rank == 0) {
                MPI_Send(buf, sizes[s], MPI_BYTE, 1, 0, comm);
                MPI_Recv(buf, sizes[s], MPI_BYTE, 1, 0, comm, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(buf, sizes[s], MPI_BYTE, 0, 0, comm, MPI_STATUS_IGNORE);
                MPI_Send(buf, sizes[s], MPI_BYTE, 0, 0, comm);
            }
            if (r >= warm) x[r - warm] = (MPI_Wtime() - t0) / 2;
        }
        cb_summary sm;
        cb_summarize(x, reps, 0.95, &sm);
        one_way[s] = sm.median;
        if (!rank) printf("%12d %14.3f\n", sizes[s], sm.median * 1e6);
    }
    free(buf);
    if (rank) return 0;
    /* alpha: the latency of the smallest message; beta: least-squares slope
     * over the sizes from 8 KiB on, where the time is mostly bandwidth. */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int n = 0;
    for (int s = 0; s < ns; s++)
        if (sizes[s] >= 8192) {
            sx += sizes[s];
            sy += one_way[s];
            sxx += (double)sizes[s] * sizes[s];
            sxy += (double)sizes[s] * one_way[s];
            n++;
        }
    double beta = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    double alpha = one_way[0];
    if (!(beta > 0)) beta = (one_way[ns - 1] - one_way[0]) / (sizes[ns - 1] - 1);
    printf("# alpha = %.3g s latency, beta = %.3g s/byte (%.2f GB/s); alpha/beta = %.0f bytes\n", alpha, beta,
           1e-9 / beta, alpha / beta);
    printf("export CARTCOLL_ALPHA=%.3g CARTCOLL_BETA=%.3g\n", alpha, beta);
    return 0;
}

/* ---- Main loop --------------------------------------------------------- */

/* Agree on failures so that no process calls a collective the others skip. */
static void agree(vstate *vs, int nv, int *flags, MPI_Comm world)
{
    for (int i = 0; i < nv; i++) {
        flags[2 * i] = vs[i].err;
        flags[2 * i + 1] = vs[i].bad;
    }
    MPI_Allreduce(MPI_IN_PLACE, flags, 2 * nv, MPI_INT, MPI_MAX, world);
    for (int i = 0; i < nv; i++) {
        vs[i].err = flags[2 * i];
        vs[i].bad = flags[2 * i + 1];
    }
}

static void run_case(nbhctx *c, const options *o, int inbh, int op, int m, MPI_Comm world, int *failed)
{
    kase k;
    int nv = o->nvar;
    row r;
    memset(&r, 0, sizeof r);
    r.inbh = inbh;
    r.op = op;
    r.m = m;
    r.d = c->d;
    r.t = c->t;
    snprintf(r.nbh, sizeof r.nbh, "%s", c->nbh.name);
    char *p = r.dims;
    for (int i = 0; i < c->d; i++) p += sprintf(p, "%s%d", i ? "x" : "", c->dims[i]);
    long long units = (long long)nv * (o->warmup + o->reps + 1);
    char what[160];
    snprintf(what, sizeof what, "%s %s m=%d", c->nbh.name, op_name[op], m);
    if (setup_case(&k, c, o, op, m)) {
        progress(units, what);
        progress_clear();
        for (int vi = 0; vi < nv; vi++) {
            r.var = o->vsel[vi];
            r.check = CHK_SKIP;
            r.rounds = -1;
            if (!world_rank) print_row(&r);
            add_row(&r);
        }
        return;
    }
    r.bytes = k.bytes;
    vstate *vs = xmalloc(sizeof(vstate) * (size_t)nv);
    for (int vi = 0; vi < nv; vi++) {
        vstate *s = &vs[vi];
        memset(s, 0, sizeof *s);
        s->v = &allvar[o->vsel[vi]];
        s->creq = CART_REQUEST_NULL;
        s->mreq = MPI_REQUEST_NULL;
        s->times = xmalloc(sizeof(double) * (size_t)o->reps);
        s->skip = s->v->mpi && c->mpi_unsafe;
        int rc = MPI_SUCCESS;
        if (s->v->form == F_PERSISTENT && !s->skip) {
            if (s->v->mpi) {
                rc = mpi_call(&k, c->graph, F_PERSISTENT, &s->mreq);
            } else {
                MPI_Info info = make_info(s->v->alg, s->v->ex);
                rc = cart_init(&k, c->comm[0][0], info, &s->creq);
                MPI_Info_free(&info);
            }
        }
        if (rc != MPI_SUCCESS) {
            char w[320];
            snprintf(w, sizeof w, "%s: init of %s", what, s->v->name);
            report_error(w, rc);
            s->err = 1;
        }
    }
    /* Agree on failures after each stage so that no process calls a
     * collective the others skip. */
    int *flags = xmalloc(sizeof(int) * 2 * (size_t)nv);
#define AGREE() agree(vs, nv, flags, world)
    AGREE();
    /* Warm-up: checked calls, interleaved; the baseline (vs[0]) first. */
    for (int w = 0; w < o->warmup; w++) {
        for (int vi = 0; vi < nv; vi++) {
            MPI_Barrier(world);
            checked_call(&vs[vi], &k, c);
            if (w == 0 && vi == 0) AGREE(); /* the reference must exist */
        }
        if (w == 0) AGREE();
        progress(nv, what);
    }
    /* Timed calls: every repetition runs each variant once, in an order
     * shuffled the same way on every process.  A call runs measurably slower
     * right after a cache-hungry one (an MPI baseline sending thousands of
     * messages); a fixed rotation would make some variants follow it more
     * often than others. */
    int order[MAXVAR];
    unsigned shuffle = 12345u;
    for (int j = 0; j < nv; j++) order[j] = j;
    for (int rep = 0; rep < o->reps; rep++) {
        for (int j = nv - 1; j > 0; j--) {
            shuffle = shuffle * 1103515245u + 12345u;
            int x = (int)((shuffle >> 16) % (unsigned)(j + 1)), tmp = order[j];
            order[j] = order[x];
            order[x] = tmp;
        }
        for (int j = 0; j < nv; j++) {
            vstate *s = &vs[order[j]];
            if (s->err || s->skip) continue;
            MPI_Barrier(world);
            double t0 = MPI_Wtime();
            int rc = run_once(s, &k, c);
            s->times[rep] = MPI_Wtime() - t0;
            if (rc != MPI_SUCCESS) s->err = 1;
        }
        progress(nv, what);
    }
    AGREE();
    for (int vi = 0; vi < nv; vi++) {
        MPI_Barrier(world);
        checked_call(&vs[vi], &k, c);
    }
    AGREE();
    progress(nv, what);
#undef AGREE
    for (int vi = 0; vi < nv; vi++) {
        MPI_Reduce(world_rank ? vs[vi].times : MPI_IN_PLACE, vs[vi].times, o->reps, MPI_DOUBLE, MPI_MAX, 0, world);
    }
    /* Rows (rank 0), speed-ups against vs[0] = blocking MPI. */
    progress_clear();
    double base = 0;
    for (int vi = 0; vi < nv; vi++) {
        vstate *s = &vs[vi];
        r.var = o->vsel[vi];
        r.check = s->skip ? CHK_SKIP : s->err ? CHK_ERR : s->bad ? CHK_FAIL : CHK_OK;
        /* The neighbourhood and the graph were verified, so wrong data from
         * MPI is MPI's (MPICH 4.0 matches repeated edges between two
         * processes in reverse order). */
        if (s->v->mpi && r.check == CHK_FAIL && c->nbh_ok) r.check = CHK_BADMPI;
        if (!s->v->mpi && !c->nbh_ok && r.check == CHK_OK) r.check = CHK_FAIL;
        r.rounds = -1;
        if (s->v->mpi) {
            r.rounds = c->t;
        } else {
            int rounds;
            if (Cart_schedule_stats(c->comm[0][0], op_is_alltoall(op) ? CART_ALLTOALL : CART_ALLGATHER,
                                    alg_const[s->v->alg], NULL, &rounds, NULL) == MPI_SUCCESS)
                r.rounds = rounds;
        }
        memset(&r.s, 0, sizeof r.s);
        r.speedup = 0;
        if (timed_check(r.check)) {
            cb_summarize(s->times, o->reps, o->conf, &r.s);
            if (vi == 0) base = r.s.median;
            if (base > 0 && r.s.median > 0 && vs[0].err == 0) r.speedup = base / r.s.median;
        }
        if (r.check == CHK_FAIL || r.check == CHK_ERR || (r.check == CHK_BADMPI && !o->tolerate_mpi)) *failed = 1;
        if (!world_rank) print_row(&r);
        add_row(&r);
        if (s->creq != CART_REQUEST_NULL) Cart_request_free(&s->creq);
        if (s->mreq != MPI_REQUEST_NULL) MPI_Request_free(&s->mreq);
        free(s->times);
    }
    if (!world_rank) fflush(stdout);
    free(flags);
    free(vs);
    free_case(&k);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm world;
    MPI_Comm_dup(MPI_COMM_WORLD, &world);
    MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
    MPI_Comm_rank(world, &world_rank);
    MPI_Comm_size(world, &world_size);
    make_variants();
    options o;
    int prc = parse_options(argc, argv, &o);
    if (prc) {
        MPI_Comm_free(&world);
        MPI_Finalize();
        return prc == 1 ? 0 : 2;
    }
    if (o.calibrate) {
        int rc = calibrate(world);
        MPI_Comm_free(&world);
        MPI_Finalize();
        return rc;
    }

    /* Neighbourhoods: rank 0 generates (and reads files), all receive. */
    nbhctx *ctx = xmalloc(sizeof(nbhctx) * (size_t)o.nspecs);
    for (int i = 0; i < o.nspecs; i++) {
        nbhctx *c = &ctx[i];
        memset(c, 0, sizeof *c);
        int hdr[4] = { 0, 0, 0, 0 };
        char err[256];
        if (!world_rank) {
            if (cb_nbh_parse(o.specs[i], &c->nbh, err, sizeof err)) {
                fprintf(stderr, "cartbench: %s\n", err);
                hdr[0] = -1;
            } else {
                hdr[0] = c->nbh.d;
                hdr[1] = c->nbh.t;
                hdr[2] = (int)c->nbh.kind;
                hdr[3] = c->nbh.p[0];
            }
        }
        MPI_Bcast(hdr, 4, MPI_INT, 0, world);
        if (hdr[0] < 0) {
            MPI_Comm_free(&world);
            MPI_Finalize();
            return 2;
        }
        if (world_rank) {
            c->nbh.d = hdr[0];
            c->nbh.t = hdr[1];
            c->nbh.kind = (enum cb_kind)hdr[2];
            c->nbh.v = xmalloc(sizeof(int) * (size_t)hdr[0] * (size_t)hdr[1]);
        }
        MPI_Bcast(c->nbh.name, (int)sizeof c->nbh.name, MPI_CHAR, 0, world);
        MPI_Bcast(c->nbh.p, 3, MPI_INT, 0, world);
        MPI_Bcast(c->nbh.v, hdr[0] * hdr[1], MPI_INT, 0, world);
        int w = (int)strlen(c->nbh.name);
        namew = w > namew ? w : namew;
    }

    /* Which Cart communicators the blocking/non-blocking variants need
     * (persistent ones pass their choice as info to *_init). */
    int need[NALG][NEX] = { { 0 } };
    for (int vi = 0; vi < o.nvar; vi++) {
        const variant *v = &allvar[o.vsel[vi]];
        if (!v->mpi && v->form != F_PERSISTENT) need[v->alg][v->ex] = 1;
    }

    prog_on = o.progress;
    prog_t0 = MPI_Wtime();
    prog_total = (long long)o.nspecs * o.nops * o.nm * o.nvar * (o.warmup + o.reps + 1);
    char lib[256];
    mpi_library(lib, sizeof lib);
    int failed = 0;
    if (!world_rank) {
        time_t now = time(NULL);
        char date[64];
        strftime(date, sizeof date, "%Y-%m-%d %H:%M", localtime(&now));
        printf("# cartbench %d.%d.%d, %s, %s, %d processes, %s, %d repetitions after %d checked warm-up calls, "
               "median of the per-call maximum over processes, Tukey 3 IQR, 95%% CI of the median%s\n",
               CARTCOLL_VERSION_MAJOR, CARTCOLL_VERSION_MINOR, CARTCOLL_VERSION_PATCH, date, lib, world_size,
               o.mesh ? "mesh" : "torus", o.reps, o.warmup, o.irregular ? "; irregular alltoallv/w blocks m^(d-z)" : "");
    }
    int header = 0;
    for (int i = 0; i < o.nspecs; i++) {
        nbhctx *c = &ctx[i];
        if (setup_nbh(c, &o, world, need)) {
            failed = 1;
            break;
        }
        if (!world_rank) {
            progress_clear();
            printf("# %s: d = %d, t = %d, grid ", c->nbh.name, c->d, c->t);
            for (int k = 0; k < c->d; k++) printf("%s%d", k ? "x" : "", c->dims[k]);
            printf(" (%s)%s\n", o.mesh ? "mesh" : "torus", c->nbh_ok ? "" : "; FAIL: the library's neighbourhood is wrong");
            if (!header++) print_header();
        }
        if (!c->nbh_ok) failed = 1;
        for (int a = 0; a < o.nops; a++)
            for (int b = 0; b < o.nm; b++) run_case(c, &o, i, o.ops[a], o.ms[b], world, &failed);
        free_nbh(c);
    }
    progress_clear();
    if (!world_rank) {
        if (o.csv && write_csv(o.csv, &o)) failed = 1;
        if (o.markdown && write_markdown(o.markdown)) failed = 1;
        if (o.plot && write_plot(o.plot, &o)) failed = 1;
        if (o.summary) print_summary(&o);
        int nfail = 0;
        int nbad = 0;
        for (int i = 0; i < nrows; i++) {
            nfail += rows[i].check == CHK_FAIL || rows[i].check == CHK_ERR;
            nbad += rows[i].check == CHK_BADMPI;
        }
        printf("# cartbench: %d rows, %s", nrows, nfail ? "SOME CHECKS FAILED" : failed && !nbad ? "FAILED" : "all cartcoll checks OK");
        if (nbad)
            printf("; %d MPI baseline rows are BADMPI (wrong data from the MPI library%s)", nbad,
                   o.tolerate_mpi ? ", tolerated" : "");
        printf("\n");
        if (nfail) failed = 1;
    }
    MPI_Bcast(&failed, 1, MPI_INT, 0, world);
    free(rows);
    free(ctx);
    free(o.ms);
    free(o.specs);
    MPI_Comm_free(&world);
    MPI_Finalize();
    return failed ? 1 : 0;
}

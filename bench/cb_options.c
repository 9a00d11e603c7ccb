/* cartbench: the --help text and the command line. */
#define _POSIX_C_SOURCE 200809L
#include "cb_options.h"

#include "cb_state.h"

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- --help ------------------------------------------------------------ */

/* The text in sections, printed with fputs: a literal % is written as is.
 * Keep it in step with parse_options and the output. */

/* What cartbench does. */
static const char usage_synopsis[] =
"usage: mpirun -n P cartbench [options] NEIGHBOURHOOD...\n"
"\n"
"Times the Cartesian collectives of cartcoll (Cart_allgather[v|w],\n"
"Cart_alltoall[v|w]) against the MPI neighbourhood collectives on the same\n"
"neighbourhood, checks every result against MPI's, and prints one row per\n"
"neighbourhood, collective, variant and block size.  The cartcoll variants run\n"
"on a Cart_neighborhood_create communicator, or (--comm) on MPI's Cartesian\n"
"or distributed-graph communicators; --global-allreduce times Cart_allreduce\n"
"on a communicator without topology against MPI_Allreduce.\n"
"\n";

/* The NEIGHBOURHOOD arguments (cb_nbh_parse). */
static const char usage_neighbourhoods[] =
"Neighbourhoods (offset vectors, the zero vector excluded unless a file or\n"
"shells:d,0,r gives it; several may be given, each its own argument):\n"
"  moore:d,n[,f]      coordinates f..f+n-1 in each dimension, f = -1 by default\n"
"                     ([Traff & Hunold 2019, Sec. 4.1.1]: moore:2,3 is the\n"
"                     9-point stencil's 8 neighbours, n = 4, 5 are asymmetric);\n"
"                     t = n^d - 1\n"
"  vonneumann:d,r     1 <= |x_1| + ... + |x_d| <= r\n"
"  chebyshev:d,r      1 <= max |x_k| <= r (chebyshev:d,1 = moore:d,3)\n"
"  shells:d,r1,r2     r1 <= max |x_k| <= r2 ([Traff et al. 2016, Fig. 4b]: 3,7)\n"
"  octant:d,r         coordinates 0..r, not all 0: (r+1)^d - 1 vectors, the\n"
"                     positive octant of [Traff et al. 2016] (octant:3,3: 63)\n"
"  file:PATH          one vector per line, integers separated by blanks or\n"
"                     commas, '#' comments; repeats and zero vectors are kept\n"
"Vectors are listed in row-major order (first coordinate slowest), which is\n"
"the order of Cart_stencil.  Default: moore:3,3.\n"
"\n";

/* How the process grid is made. */
static const char usage_grid[] =
"Process grid: MPI_Dims_create over all processes in d dimensions, periodic\n"
"(torus) unless --mesh.  On a mesh, neighbours off the grid are MPI_PROC_NULL:\n"
"the MPI baseline's graph leaves them out and their receive blocks must stay\n"
"untouched.\n"
"\n";

/* Every option (parse_options). */
static const char usage_options[] =
"Options:\n"
"  -m LIST            block sizes in MPI_INTs (--global-allreduce: doubles;\n"
"                     default 1,10,100); 0 is allowed\n"
"  --ops LIST         collectives: allgather, allgatherv, allgatherw, alltoall,\n"
"                     alltoallv, alltoallw, allreduce (neighbourhood meaning:\n"
"                     sum of m doubles from the in-neighbours; baseline\n"
"                     MPI_Neighbor_allgather + local sum), bcast, gather,\n"
"                     scatter, reduce (neighbourhood meaning, root 0; reduce:\n"
"                     sum of doubles; baseline one message per neighbour by\n"
"                     point-to-point, blocking only), or all (default\n"
"                     alltoall,allgather)\n"
"  --variants LIST    variants to time (default mpi,cart,cart-direct,\n"
"                     cart-combining,cart-torus,cart-p); names:\n"
"                       mpi, mpi-i, mpi-p   MPI_Neighbor_X, MPI_Ineighbor_X + MPI_Wait,\n"
"                                           MPI_Neighbor_X_init + MPI_Start/Wait (MPI >= 4)\n"
"                       p2p, p2p-p          one MPI_Irecv/MPI_Isend per neighbour (what\n"
"                                           Open MPI and MPICH do inside MPI_Neighbor_X)\n"
"                                           on a duplicate of MPI_COMM_WORLD, ranks from\n"
"                                           the grid; p2p-p: persistent (MPI_Recv_init/\n"
"                                           MPI_Send_init, MPI_Startall + MPI_Waitall);\n"
"                                           not for allreduce; bcast..reduce: p2p only\n"
"                       floor               one contiguous message per distinct peer\n"
"                                           rank with all the bytes of its edges, packed\n"
"                                           beforehand, persistent (the bytes to itself:\n"
"                                           one memcpy): the floor of the machine for the\n"
"                                           same data volume.  NOT a collective: nothing\n"
"                                           is placed per block while timed; its check\n"
"                                           unpacks the received bytes afterwards and\n"
"                                           compares them with the grid's expectation;\n"
"                                           allgather[v|w] (a copy of the send block\n"
"                                           per edge), alltoall[v|w] only\n"
"                       cart[-i|-p][-ALG][-EXEC]\n"
"                                           Cart_X, Cart_iX + Cart_wait, Cart_X_init\n"
"                                           + Cart_start/Cart_wait, with ALG = direct,\n"
"                                           combining, torus and EXEC = datatype, pack\n"
"                                           (left out: auto)\n"
"                     shell patterns (cart-p-*, *-pack) and `all` are allowed; the\n"
"                     baseline is always measured; --list-variants lists all\n"
"  --baseline NAME    the variant the speed-ups are relative to, always run first:\n"
"                     mpi (default), p2p (default where MPI has no\n"
"                     MPI_Dist_graph_create, as SimGrid SMPI; no MPI distributed\n"
"                     graph is made unless an mpi variant is selected), floor\n"
"                     (speed-up = the fraction of the floor a variant reaches),\n"
"                     or any variant (no one-message-per-neighbour run at all)\n"
"  --irregular        alltoallv/alltoallw: block i has m^(d-z) ints, z = number of\n"
"                     non-zero coordinates of vector i (0 for z = 0), as\n"
"                     [Traff & Hunold 2019, Sec. 4.2] (corners small, faces large)\n"
"  --mesh             non-periodic grid\n"
"  --comm LIST        the communicators the cartcoll variants run on (the MPI\n"
"                     baseline stays MPI_Neighbor_X on MPI's dist graph):\n"
"                       nbh      Cart_neighborhood_create (default)\n"
"                       graph    Cart_dist_graph_create_adjacent with the\n"
"                                neighbours in neighbour order (the baseline's\n"
"                                graph): MPI's neighbourhood meaning, the same\n"
"                                blocks; torus only (a graph has no MPI_PROC_NULL)\n"
"                       mpicart  MPI_Cart_create with the same grid; only for\n"
"                                MPI's own neighbourhood -e_0, +e_0, -e_1, +e_1, ...\n"
"                                in that order (e.g. file:bench/mpicart2.nbh);\n"
"                                MPI's meaning: receive block i comes from R + N[i],\n"
"                                i.e. holds what cartbench's block i^1 holds, and\n"
"                                is checked so\n"
"                     Not on nbh, the algorithm and executor of cart and cart-i\n"
"                     cannot be chosen (the environment's are used): only cart,\n"
"                     cart-i and cart-p-ALG-EXEC run there (default variants\n"
"                     mpi,cart,cart-i,cart-p); patterns skip the others.\n"
"                     Several kinds (--comm nbh,graph): every cartcoll variant\n"
"                     runs on each, all interleaved in one loop; its rows are\n"
"                     named VARIANT@KIND and give t/t_FIRST = its median over\n"
"                     the same variant's median on the first kind listed\n"
"                     (CSV column comm_ratio)\n"
"  --setup            time set-up instead of operations: Cart_neighborhood_create\n"
"                     and + Cart_alltoall_init / Cart_allgather_init with each\n"
"                     algorithm, median over --reps of the slowest process\n"
"  --global-allreduce instead of neighbourhoods: Cart_allreduce on a duplicate\n"
"                     of MPI_COMM_WORLD (no topology: MPI's global meaning)\n"
"                     against MPI_Allreduce on another duplicate, sum of -m\n"
"                     doubles, checked against the exact sum; variants mpi[-i|-p],\n"
"                     cart[-i|-p] (default mpi,cart); no NEIGHBOURHOOD, --ops or --comm\n"
"  --reps N           timed repetitions per variant (default 100)\n"
"  --warmup N         checked, untimed calls per variant first (default 10, >= 1)\n"
"  --tune-warmup N    warm-up calls of the variants that tune themselves in their\n"
"                     first starts (persistent cartcoll with the automatic\n"
"                     choice of algorithm or executor: cart-p, cart-p-pack,\n"
"                     cart-p-torus, ...; not cart-p-torus-pack); default --warmup.\n"
"                     scripts/scale.sh: --warmup 2 --tune-warmup 20 (a\n"
"                     simulation is deterministic: one warm-up call suffices\n"
"                     where nothing tunes)\n"
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
"  --list-variants    print every variant name and exit (floor is no collective:\n"
"                     see --variants)\n"
"  --tolerate-mpi     BADMPI rows do not make the exit status non-zero\n"
"  --inject-fault     testing: flip a bit of rank 0's receive buffer after each\n"
"                     checked cartcoll call, so the checks must report FAIL\n"
"  -h, --help         this text\n"
"\n";

/* How times are taken and summarised (run_case, cb_summarize). */
static const char usage_method[] =
"Method: all variants of one neighbourhood, collective and block size run\n"
"interleaved (round robin per repetition, rotating the start); each call is\n"
"preceded by MPI_Barrier and its time is the maximum over the processes.  Of\n"
"the repetitions, values outside Tukey's fences [Q1 - 3 IQR, Q3 + 3 IQR] are\n"
"dropped; the median of the rest is reported with the 95% confidence interval\n"
"[x_(j), x_(k+1-j)] from the binomial distribution of order statistics.\n"
"speed-up = median of the baseline (blocking MPI_Neighbor_X unless --baseline)\n"
"/ median of the variant (> 1: faster).  rounds = Cart_schedule_stats rounds for the variant's\n"
"algorithm, i.e. for a grid large enough that no offset wraps (on small grids\n"
"the library runs the reduced neighbourhood with fewer); t for mpi and p2p,\n"
"none for floor.\n"
"\n";

/* What the check column means (checked_call, row_from_vstate). */
static const char usage_checks[] =
"Checks: the send blocks hold values unique per process, block and element;\n"
"the v/w variants place blocks in reversed order with one-int gaps.  The MPI\n"
"baseline's receive buffer is compared with the values expected from the\n"
"process grid (computed with MPI_Cart_coords/MPI_Cart_rank), so are p2p's and\n"
"floor's (unpacked), every other variant's with MPI's result (the expectation\n"
"when no mpi variant runs), after each warm-up call and once more after\n"
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
"1 otherwise, 2 for bad usage.\n";

static void usage(FILE *f)
{
    static const char *const sections[] = { usage_synopsis, usage_neighbourhoods, usage_grid,
                                            usage_options,  usage_method,         usage_checks };
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) fputs(sections[i], f);
}

/* ---- Values ------------------------------------------------------------ */

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

/* --ops: names or `all`, each collective once, in the order given. */
static int select_ops(const char *list, options *o)
{
    char *copy = strdup(list), *save = NULL;
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
            return -1;
        }
    }
    free(copy);
    return 0;
}

/* --comm: kinds (not plain: that is --global-allreduce), each once, in
 * the order given. */
static int parse_comms(const char *list, options *o)
{
    o->ncomm = 0;
    char *copy = strdup(list), *save = NULL;
    int rc = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
        int k = COMM_NBH;
        while (k < COMM_PLAIN && strcmp(tok, comm_name[k])) k++;
        if (k == COMM_PLAIN || has_comm(o, k)) rc = -1;
        else o->comms[o->ncomm++] = k;
    }
    free(copy);
    if (!o->ncomm) rc = -1;
    if (!rc) o->comm = o->comms[0];
    return rc;
}

int has_comm(const options *o, int kind)
{
    for (int i = 0; i < o->ncomm; i++)
        if (o->comms[i] == kind) return 1;
    return 0;
}

/* A variant that can run on every --comm communicator; else -1 and the
 * first one it cannot run on in *where. */
static int allowed_everywhere(const options *o, const variant *v, int *where)
{
    for (int i = 0; i < o->ncomm; i++)
        if (!variant_allowed(v, o->comms[i])) {
            if (where) *where = o->comms[i];
            return 0;
        }
    return 1;
}

const char *run_label(const options *o, int ri, char *buf, size_t len)
{
    const run_sel *r = &o->run[ri];
    if (allvar[r->var].mpi || o->ncomm < 2)
        snprintf(buf, len, "%s", allvar[r->var].name);
    else
        snprintf(buf, len, "%s@%s", allvar[r->var].name, comm_name[r->comm]);
    return buf;
}

/* The runs: each selected variant in order, a cartcoll one once per
 * --comm (so one variant's rows on the communicators are adjacent). */
static void make_runs(options *o)
{
    o->nrun = 0;
    for (int vi = 0; vi < o->nvar; vi++) {
        int var = o->vsel[vi];
        int n = allvar[var].mpi ? 1 : o->ncomm;
        for (int k = 0; k < n; k++) o->run[o->nrun++] = (run_sel){ var, o->comms[k] };
    }
}

/* Why a --variants name matched nothing (rank 0). */
static void report_no_variant(const char *tok)
{
    if (world_rank) return;
    if (!strcmp(tok, "mpi-p") && !HAVE_MPI_PERSISTENT_NEIGHBOR)
        fprintf(stderr, "cartbench: mpi-p needs MPI 4 persistent neighbourhood collectives; this MPI is %d.%d\n",
                MPI_VERSION, MPI_SUBVERSION);
    else
        fprintf(stderr, "cartbench: no variant matches '%s' (see --list-variants)\n", tok);
}

/* --variants: names, shell patterns or `all`; o->vsel the baseline (always
 * selected) first, then the others in allvar order. */
static int select_variants(const char *list, options *o)
{
    int want[MAXVAR] = { 0 };
    want[o->baseline] = 1;
    char *copy = strdup(list), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int hit = 0;
        if (!strcmp(tok, "all")) {
            for (int i = 0; i < nallvar; i++) want[i] |= allowed_everywhere(o, &allvar[i], NULL);
            continue;
        }
        if (strpbrk(tok, "*?[")) {
            for (int i = 0; i < nallvar; i++)
                if (!fnmatch(tok, allvar[i].name, 0) && allowed_everywhere(o, &allvar[i], NULL)) want[i] = hit = 1;
        } else {
            int i = canonical_variant(tok), where = o->comm;
            if (i >= 0 && !allowed_everywhere(o, &allvar[i], &where)) {
                if (!world_rank)
                    fprintf(stderr, "cartbench: %s cannot run on %s: the algorithm and executor of %s can be chosen only "
                                    "on Cart_neighborhood_create communicators (see --comm)\n",
                            tok, o->global ? "--global-allreduce" : comm_name[where],
                            where == COMM_PLAIN ? "any call" : "blocking and non-blocking calls");
                free(copy);
                return -1;
            }
            if (i >= 0) want[i] = hit = 1;
        }
        if (!hit) {
            report_no_variant(tok);
            free(copy);
            return -1;
        }
    }
    free(copy);
    o->nvar = 0;
    o->vsel[o->nvar++] = o->baseline; /* first: the speed-ups' base */
    o->need_graph = 0;
    for (int i = 0; i < nallvar; i++) {
        if (want[i] && i != o->baseline) o->vsel[o->nvar++] = i;
        if (want[i] && allvar[i].kind == VK_MPI) o->need_graph = HAVE_MPI_DIST_GRAPH;
    }
    return 0;
}

/* ---- The command line -------------------------------------------------- */

/* Options as given, checked and applied once every argument is read (so
 * --reps overrides --quick in either order). */
typedef struct {
    const char *ms, *ops, *vars; /* ops, vars: NULL if not given */
    const char *baseline;        /* --baseline; NULL if not given */
    int quick, reps, warmup, tune_warmup; /* reps, warmup, tune_warmup: -1 if not given */
    int comm_given;
} given;

static void set_defaults(options *o, given *g, int argc)
{
    memset(o, 0, sizeof *o);
    o->reps = 100;
    o->warmup = 10;
    o->progress = -1;
    o->max_mib = 256;
    o->conf = 0.95;
    o->specs = calloc((size_t)argc + 1, sizeof(char *));
    o->comms[0] = COMM_NBH;
    o->ncomm = 1;
    *g = (given){ .ms = "1,10,100", .reps = -1, .warmup = -1, .tune_warmup = -1 };
}

/* Options that take the next argument as their value. */
static int takes_value(const char *a)
{
    static const char *const names[] = { "-m",    "--ops",      "--variants", "--reps", "--warmup", "--tune-warmup", "--max-mib",
                                         "--csv", "--markdown", "--plot",     "--comm", "--baseline" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(a, names[i])) return 1;
    return 0;
}

/* Option a (one that takes_value) with its value; -1 if the value is bad. */
static int take_value(const char *a, const char *val, options *o, given *g)
{
    if (!strcmp(a, "-m")) {
        g->ms = val;
    } else if (!strcmp(a, "--ops")) {
        g->ops = val;
    } else if (!strcmp(a, "--variants")) {
        g->vars = val;
    } else if (!strcmp(a, "--baseline")) {
        g->baseline = val;
        return canonical_variant(val) < 0 ? -1 : 0;
    } else if (!strcmp(a, "--reps")) {
        return parse_positive(val, 1, &g->reps);
    } else if (!strcmp(a, "--warmup")) {
        return parse_positive(val, 1, &g->warmup);
    } else if (!strcmp(a, "--tune-warmup")) {
        return parse_positive(val, 1, &g->tune_warmup);
    } else if (!strcmp(a, "--max-mib")) {
        char *end;
        o->max_mib = strtod(val, &end);
        if (*end || !(o->max_mib > 0)) return -1;
    } else if (!strcmp(a, "--csv")) {
        o->csv = val;
    } else if (!strcmp(a, "--markdown")) {
        o->markdown = val;
    } else if (!strcmp(a, "--comm")) {
        g->comm_given = 1;
        return parse_comms(val, o);
    } else {
        o->plot = val;
    }
    return 0;
}

/* An option without a value; 0 if a is none. */
static int take_switch(const char *a, options *o, given *g)
{
    if (!strcmp(a, "--quick"))
        g->quick = 1;
    else if (!strcmp(a, "--mesh"))
        o->mesh = 1;
    else if (!strcmp(a, "--irregular"))
        o->irregular = 1;
    else if (!strcmp(a, "--progress"))
        o->progress = 1;
    else if (!strcmp(a, "--no-progress"))
        o->progress = 0;
    else if (!strcmp(a, "--summary"))
        o->summary = 1;
    else if (!strcmp(a, "--tolerate-mpi"))
        o->tolerate_mpi = 1;
    else if (!strcmp(a, "--inject-fault"))
        o->inject_fault = 1;
    else if (!strcmp(a, "--calibrate"))
        o->calibrate = 1;
    else if (!strcmp(a, "--global-allreduce"))
        o->global = 1;
    else if (!strcmp(a, "--setup"))
        o->setup = 1;
    else
        return 0;
    return 1;
}

/* Read the arguments in order; the first --help, --list-variants or error
 * ends it.  Returns as parse_options. */
static int read_args(int argc, char **argv, options *o, given *g)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (!world_rank) usage(stdout);
            return 1;
        } else if (!strcmp(a, "--list-variants")) {
            if (!world_rank)
                for (int k = 0; k < nallvar; k++) printf("%s\n", allvar[k].name);
            return 1;
        } else if (takes_value(a)) {
            if (!val) {
                if (!world_rank) fprintf(stderr, "cartbench: %s needs a value\n", a);
                return 2;
            }
            i++;
            if (take_value(a, val, o, g)) {
                if (!world_rank) fprintf(stderr, "cartbench: bad value for %s: %s\n", a, val);
                return 2;
            }
        } else if (take_switch(a, o, g)) {
            continue;
        } else if (a[0] == '-') {
            if (!world_rank) fprintf(stderr, "cartbench: unknown option %s (see --help)\n", a);
            return 2;
        } else {
            o->specs[o->nspecs++] = argv[i];
        }
    }
    return 0;
}

/* What --comm and --global-allreduce rule out, and their defaults; -1
 * after a message (rank 0) if the combination is bad. */
static int check_modes(options *o, given *g)
{
    const char *bad = NULL;
    if (o->global && (o->nspecs || g->ops || g->comm_given))
        bad = "--global-allreduce takes no NEIGHBOURHOOD, --ops or --comm";
    else if (o->setup && (o->global || !o->nspecs))
        bad = "--setup needs a NEIGHBOURHOOD and takes no --global-allreduce";
    else if (o->global && g->baseline && strcmp(g->baseline, "mpi"))
        bad = "--global-allreduce has only the mpi baseline (MPI_Allreduce)";
    else if (!HAVE_MPI_DIST_GRAPH && !o->global && g->baseline && !strcmp(g->baseline, "mpi"))
        bad = "--baseline mpi needs MPI_Dist_graph_create_adjacent, which this MPI lacks (use p2p)";
    else if (g->baseline && !o->global && !allowed_everywhere(o, &allvar[canonical_variant(g->baseline)], NULL))
        bad = "the --baseline variant cannot run on every --comm communicator";
    else if (has_comm(o, COMM_GRAPH) && o->mesh)
        bad = "--comm graph needs a torus: a distributed graph has no MPI_PROC_NULL neighbours, so its blocks "
              "would not be the neighbourhood's (use --comm mpicart or nbh with --mesh)";
    if (bad) {
        if (!world_rank) fprintf(stderr, "cartbench: %s\n", bad);
        return -1;
    }
    if (o->global) o->comm = o->comms[0] = COMM_PLAIN;
    if (!g->baseline) g->baseline = HAVE_MPI_DIST_GRAPH || o->global ? "mpi" : "p2p";
    o->baseline = canonical_variant(g->baseline);
    if (!g->ops) g->ops = "alltoall,allgather";
    if (!g->vars) {
        /* the baseline first (mpi unless --baseline or no dist graphs) */
        static char def[128];
        snprintf(def, sizeof def, "%s,%s", g->baseline,
                 o->global                               ? "cart"
                 : o->ncomm == 1 && o->comm == COMM_NBH ? "cart,cart-direct,cart-combining,cart-torus,cart-p"
                                                        : "cart,cart-i,cart-p");
        g->vars = def;
    }
    return 0;
}

int warmup_rounds(const options *o)
{
    return o->tune_warmup > o->warmup ? o->tune_warmup : o->warmup;
}

int parse_options(int argc, char **argv, options *o)
{
    given g;
    set_defaults(o, &g, argc);
    int rc = read_args(argc, argv, o, &g);
    if (rc) return rc;
    if (check_modes(o, &g)) return 2;
    if (g.quick) {
        o->reps = 20;
        o->warmup = 3;
    }
    if (g.reps > 0) o->reps = g.reps;
    if (g.warmup > 0) o->warmup = g.warmup;
    o->tune_warmup = g.tune_warmup > 0 ? g.tune_warmup : o->warmup;
    if (!o->nspecs) o->specs[o->nspecs++] = "moore:3,3";
    if (parse_int_list(g.ms, 0, &o->ms, &o->nm)) {
        if (!world_rank) fprintf(stderr, "cartbench: -m wants a list of block sizes >= 0, not '%s'\n", g.ms);
        return 2;
    }
    if (o->global) {
        o->ops[0] = OP_ALLREDUCE;
        o->nops = 1;
    } else if (select_ops(g.ops, o)) {
        return 2;
    }
    if (select_variants(g.vars, o)) return 2;
    make_runs(o);
    if (o->progress < 0) o->progress = isatty(2);
    return 0;
}

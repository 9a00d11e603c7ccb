/* cartbench internals: the types and functions its files share.
 *
 * Files, by concern:
 *   cartbench.c    main, the loop over neighbourhoods, xmalloc, report_error
 *   cb_variants.c  the collectives, algorithms, executors, forms, variants
 *   cb_options.c   --help text and command-line parsing
 *   cb_cases.c     per neighbourhood: communicators and the baseline graph;
 *                  per case: buffers and the expected values
 *   cb_global.c    --global-allreduce: its communicators, buffers, check
 *   cb_setup.c     --setup: the time of create + *_init
 *   cb_calls.c     the calls (cartcoll, MPI), one checked call
 *   cb_p2p.c       the p2p variants (a message per neighbour) and floor (one
 *                  message per distinct peer) on a plain duplicate of world
 *   cb_timing.c    run_case: warm-up, the timed loop, --calibrate
 *   cb_output.c    result rows, console, CSV, Markdown, summary, progress
 *   cb_plot.c      --plot (gnuplot)
 *   cb_util.[ch]   pure helpers without MPI (neighbourhoods, statistics)
 * Not a public interface: only cartbench's files include it. */
#ifndef CARTBENCH_H
#define CARTBENCH_H

#include <cartcoll.h>

#include "cb_util.h"

#include <stddef.h>
#include <stdio.h>

/* ---- Collectives and variants (cb_variants.c) -------------------------- */

/* NOPS neighbourhood collectives (--ops); OP_NALLREDUCE is the
 * neighbourhood Cart_allreduce (sum of doubles; baseline:
 * MPI_Neighbor_allgather and a local sum, what users write today);
 * OP_NBCAST ... OP_NREDUCE the rooted ones with neighbourhood meaning, root
 * 0 (baseline: one message per neighbour by point-to-point, cb_rooted.c);
 * OP_ALLREDUCE the global Cart_allreduce of --global-allreduce, never in
 * --ops. */
enum { OP_ALLGATHER, OP_ALLGATHERV, OP_ALLGATHERW, OP_ALLTOALL, OP_ALLTOALLV, OP_ALLTOALLW, OP_NALLREDUCE,
       OP_NBCAST, OP_NGATHER, OP_NSCATTER, OP_NREDUCE, NOPS, OP_ALLREDUCE = NOPS, NOPS_ALL };
static inline int op_reduces(int op) { return op == OP_ALLREDUCE || op == OP_NALLREDUCE; }
static inline int op_rooted(int op) { return op >= OP_NBCAST && op <= OP_NREDUCE; }
extern const char *const op_name[NOPS_ALL];
/* The MPI collective each one is compared with (allgatherw: alltoallw with
 * every send block at displacement 0, since MPI has no allgatherw). */
extern const char *const op_mpi[NOPS_ALL];
static inline int op_is_alltoall(int op) { return op >= OP_ALLTOALL && op <= OP_ALLTOALLW; }
static inline int op_is_regular(int op) { return op == OP_ALLGATHER || op == OP_ALLTOALL; }

enum { ALG_AUTO, ALG_DIRECT, ALG_COMBINING, ALG_TORUS, NALG };
extern const char *const alg_name[NALG];
extern const int alg_const[NALG]; /* CART_ALGORITHM_* */
enum { EX_AUTO, EX_DATATYPE, EX_PACK, NEX };
extern const char *const ex_name[NEX];
enum { F_BLOCKING, F_NONBLOCKING, F_PERSISTENT, NFORMS };
extern const char *const form_name[NFORMS];
extern const char *const form_tag[NFORMS]; /* "", "-i", "-p": part of a variant's name */

#if MPI_VERSION >= 4
#define HAVE_MPI_PERSISTENT_NEIGHBOR 1
#else
#define HAVE_MPI_PERSISTENT_NEIGHBOR 0
#endif

/* The communicators the cartcoll variants run on (--comm, a list;
 * --global-allreduce: COMM_PLAIN).  The MPI baseline always runs on MPI's
 * own communicator. */
enum { COMM_NBH, COMM_MPICART, COMM_GRAPH, COMM_PLAIN, NCOMM };
extern const char *const comm_name[NCOMM]; /* nbh, mpicart, graph, plain */

/* Whether this MPI has MPI_Dist_graph_create_adjacent (SimGrid SMPI has
 * not: bench/CMakeLists.txt sets 0 there); without it the mpi variants of
 * the neighbourhood collectives cannot run and the default baseline is
 * p2p. */
#ifndef HAVE_MPI_DIST_GRAPH
#define HAVE_MPI_DIST_GRAPH 1
#endif

/* What runs a variant: MPI's neighbourhood collectives, point-to-point by
 * cartbench itself (p2p: a message per neighbour; floor: one message per
 * distinct peer, cb_p2p.c), or cartcoll. */
enum { VK_CART, VK_MPI, VK_P2P, VK_FLOOR, NVK };
extern const char *const kind_name[NVK]; /* cart, mpi, p2p, floor */

/* One way of running a collective: the MPI baseline in a form, p2p in a
 * form, the floor, or cartcoll in a form with an algorithm and an
 * executor.  mpi is set for every variant that is not cartcoll's (it runs
 * once per case, not per --comm, on cartbench's own communicators). */
typedef struct {
    int mpi, form, alg, ex, kind;
    char name[48]; /* mpi-i, p2p-p, floor, cart-p-torus-pack, ... */
} variant;

#define MAXVAR (3 + 2 + 1 + NFORMS * NALG * NEX)
/* What a case times: each selected MPI variant once (on MPI's graph), each
 * selected cartcoll variant once per --comm communicator. */
typedef struct {
    int var;  /* index into allvar */
    int comm; /* COMM_*: where a cartcoll variant runs (MPI: the first --comm) */
} run_sel;
#define MAXRUN (MAXVAR * NCOMM)
/* Every variant this MPI can run, in --list-variants order (blocking MPI
 * first: the baseline).  Filled once by make_variants, read-only after. */
extern variant allvar[MAXVAR];
extern int nallvar;

/* Fill allvar (mpi-p only with MPI >= 4): mpi, p2p, p2p-p, floor, cart... */
void make_variants(void);
/* A variant name with explicit parts (cart-b-auto-pack, mpi-b) -> its index
 * in allvar; -1 if it names none. */
int canonical_variant(const char *s);
/* Whether a variant can run with cartcoll on communicator kind comm: on
 * communicators cartcoll did not make, the algorithm and executor of a
 * blocking or non-blocking call cannot be chosen (they come from the
 * environment), only through a persistent call's info; on COMM_PLAIN
 * (MPI's own collective) never. */
int variant_allowed(const variant *v, int comm);

/* ---- Options (cb_options.c) -------------------------------------------- */

typedef struct {
    char **specs; /* neighbourhood specifications, in command-line order */
    int nspecs;
    int *ms, nm;  /* block sizes */
    int ops[NOPS], nops;
    int vsel[MAXVAR], nvar; /* indices into allvar, baseline first */
    int baseline;     /* --baseline: index into allvar (mpi, p2p or floor) */
    int need_graph;   /* an mpi variant runs: make MPI's distributed graph */
    int reps, warmup, mesh, irregular, progress, calibrate, tolerate_mpi, summary;
    int tune_warmup;  /* --tune-warmup: warm-up calls of the self-tuning variants */
    int inject_fault; /* --inject-fault: corrupt one received int of the cartcoll variants */
    int comm;         /* COMM_*: the first --comm, COMM_PLAIN with --global-allreduce */
    int comms[NCOMM], ncomm; /* every --comm communicator, in the order given (comms[0] = comm) */
    run_sel run[MAXRUN];     /* the case's timed entries: variant-major, then comms */
    int nrun;
    int global;       /* --global-allreduce */
    int setup;        /* --setup: time create + *_init instead of operations */
    double max_mib, conf;
    const char *csv, *plot, *markdown;
} options;

/* --irregular applies to alltoallv/w: block i has m^(d-z) ints, z = the
 * non-zero coordinates of vector i (0 ints for the zero vector). */
static inline int irregular_blocks(const options *o, int op)
{
    return o->irregular && (op == OP_ALLTOALLV || op == OP_ALLTOALLW);
}

/* 0: run, 1: exit 0 (--help, --list-variants), 2: usage error (reported on
 * rank 0). */
int parse_options(int argc, char **argv, options *o);
/* Warm-up rounds of a case: the larger of --warmup and --tune-warmup. */
int warmup_rounds(const options *o);
/* Whether --comm lists kind. */
int has_comm(const options *o, int kind);
/* Run ri's name for output: the variant's, with "@COMM" for a cartcoll
 * variant when --comm lists several communicators. */
const char *run_label(const options *o, int ri, char *buf, size_t len);

/* ---- Process-wide (cartbench.c) ---------------------------------------- */

/* Rank and size in MPI_COMM_WORLD, set once at start; rank 0 alone prints
 * rows and usage errors. */
extern int world_rank, world_size;

/* malloc that aborts the job when memory runs out (never returns NULL). */
void *xmalloc(size_t n);
/* "cartbench: rank R: WHAT: MPI's message for rc" on stderr. */
void report_error(const char *what, int rc);

/* ---- Per neighbourhood and per case (cb_cases.c) ----------------------- */

/* A neighbourhood with its communicators and the MPI baseline's graph. */
typedef struct {
    cb_nbh nbh;
    int d, t, dims[32], periods[32];
    MPI_Comm comm[NALG][NEX]; /* Cart communicators with those defaults */
    MPI_Comm graph;           /* MPI_Dist_graph_create_adjacent equivalent (only
                               * when an mpi variant runs; else MPI_COMM_NULL) */
    MPI_Comm plain;           /* duplicate of world: p2p, floor, rooted baseline */
    int kind;                 /* COMM_*: the first --comm (COMM_PLAIN: --global-allreduce) */
    MPI_Comm alt[NCOMM];      /* the cartcoll variants' communicator on each --comm
                               * kind but COMM_NBH (comm[][] there); else MPI_COMM_NULL */
    int indeg, outdeg;
    int *src_idx, *dst_idx;   /* neighbour index of each graph in/out edge */
    int *exp_src, *exp_dst;   /* ranks of R - N[i], R + N[i] from MPI_Cart_coords/rank */
    int *p2p_src, *p2p_dst;   /* the same in plain, from row-major grid arithmetic */
    int nbh_ok;               /* Cart_neighbor_get and Cart_stencil agreed */
    int mpi_unsafe;           /* the MPI's neighbourhood collectives hang on this graph */
} nbhctx;

/* Receive buffers are filled with SENTINEL before each checked call (an int
 * still SENTINEL was never written); v/w layouts leave a GAP int after each
 * block, which must stay untouched. */
#define SENTINEL (-1)
#define GAP (-2)

/* One case: a neighbourhood, a collective and a block size, with the
 * buffers of cartcoll and of the MPI baseline. */
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
    int *cref;                /* what cartcoll must deliver on COMM_MPICART: ref
                               * with blocks i, i^1 swapped (else ref itself) */
    double *dsbuf, *drbuf, *dmrbuf, *dexpect; /* allreduce: send, cartcoll and
                                               * MPI receive, the expected sum */
    double *dmgbuf;           /* OP_NALLREDUCE: the baseline's gathered blocks */
    long long bytes;          /* payload bytes received per process */
} kase;

/* Info with cartcoll_algorithm and cartcoll_executor set; the caller frees it. */
MPI_Info make_info(int alg, int ex);
/* Rank 0 parses spec (and reads a file), every process receives the
 * neighbourhood; -1 (on every process) if the spec is bad. */
int share_nbh(const char *spec, cb_nbh *nbh, MPI_Comm world);
/* Communicators for the variants in need (and always [0][0]), the checks of
 * Cart_neighbor_get and Cart_stencil, the baseline graph; -1 on an MPI error. */
int setup_nbh(nbhctx *c, const options *o, MPI_Comm world, const int need[NALG][NEX]);
/* Whether the neighbourhood suits --comm (mpicart: exactly -e_0, +e_0,
 * -e_1, ...); 0 if so, else -1 with a message (rank 0). */
int comm_fits(const cb_nbh *n, int comm);
/* Free what setup_nbh made and the neighbourhood itself. */
void free_nbh(nbhctx *c);
/* Fill with x. */
void fill_ints(int *p, size_t n, int x);
/* Lay out the case; 1 if it is too large (skip), 0 otherwise. */
int setup_case(kase *k, const nbhctx *c, const options *o, int op, int m);
/* Free what setup_case made. */
void free_case(kase *k);
/* The baseline's receive buffer in the cartcoll layout. */
void expand_mpi(const kase *k, const nbhctx *c, int *full);
/* Bring k->cref up to date with k->ref (after the reference changed). */
void update_cart_ref(kase *k);

/* ---- --global-allreduce (cb_global.c) ---------------------------------- */

/* Two duplicates of world: c->graph for MPI_Allreduce, c->alt[COMM_PLAIN]
 * for Cart_allreduce; the row columns name it "global"; -1 on an MPI error. */
int setup_global(nbhctx *c, MPI_Comm world);
/* Buffers of m doubles and the expected sum; 1 if too large (skip). */
int setup_global_case(kase *k, const options *o, int m);
/* Element e of process r's allreduce send buffer: small integers, so every
 * partial sum is exact in double whatever the order of additions. */
double allreduce_value(int r, int e);

/* ---- --setup (cb_setup.c) ----------------------------------------------- */

/* Time Cart_neighborhood_create (+ Cart_alltoall_init / Cart_allgather_init
 * per algorithm) for every neighbourhood of o; rank 0 prints a table.
 * Returns nonzero on a failure. */
int run_setup(const options *o, MPI_Comm world);

/* ---- Neighbourhood allreduce (cb_nreduce.c) ----------------------------- */

/* OP_NALLREDUCE: m doubles, the baseline's t*m gathered doubles, the sum
 * over the existing sources R - N[i] (untouched, -1, where none); 1 if too
 * large (skip). */
int setup_nreduce_case(kase *k, const nbhctx *c, const options *o, int m);
/* k->m doubles of send, receive and expected sum (over the existing
 * sources R - N[i]; -1 where none), and `gathered` blocks for the
 * baseline; returns the number of sources. */
int nreduce_buffers(kase *k, const nbhctx *c, size_t gathered);
/* The baseline's local sum after its MPI_Neighbor_allgather completed. */
void nreduce_baseline_sum(const kase *k, const nbhctx *c);

/* ---- Rooted neighbourhood collectives (cb_rooted.c) --------------------- */

/* OP_NBCAST ... OP_NREDUCE: buffers and the values expected from first
 * principles (the root's in/out-neighbours); 1 if too large (skip). */
int setup_rooted_case(kase *k, const nbhctx *c, const options *o, int op, int m);
/* The baseline, blocking: one message per neighbour (MPI_Isend/MPI_Irecv)
 * on the baseline's graph communicator, reduce summing at the root. */
int rooted_baseline(const kase *k, const nbhctx *c);

/* ---- p2p and floor (cb_p2p.c) ----------------------------------------- */

/* c->p2p_src/p2p_dst from the grid alone (row-major ranks, as MPI's
 * Cartesian ranks without reordering) and c->plain; -1 on an MPI error. */
int setup_p2p(nbhctx *c, MPI_Comm world);
/* A variant's point-to-point messages on c->plain (opaque). */
typedef struct p2p_plan p2p_plan;
/* The messages of a p2p or floor variant v for case k; persistent ones
 * initialised.  NULL (and *rc an MPI error) on failure. */
p2p_plan *p2p_create(const kase *k, const nbhctx *c, const variant *v, int *rc);
/* One operation: p2p into k->rbuf (the cartcoll layout), floor into its
 * packed receive buffer. */
int p2p_run(p2p_plan *p, const kase *k);
/* floor only: the packed receive buffer into k->rbuf's blocks (untimed,
 * for the check). */
void floor_unpack(const p2p_plan *p, const kase *k);
/* floor only: SENTINEL into the packed receive buffer (before a checked
 * call, so that bytes that never arrived show). */
void p2p_clear(p2p_plan *p);
void p2p_free(p2p_plan *p);
/* Whether variant v (p2p, floor) can run collective op. */
int p2p_supports(const variant *v, int op);

/* ---- Calls (cb_calls.c) ------------------------------------------------ */

/* A variant while its case runs. */
typedef struct {
    const variant *v;
    int comm;                 /* COMM_*: where a cartcoll variant runs */
    Cart_request creq;        /* persistent cartcoll request */
    MPI_Request mreq;         /* persistent MPI request */
    p2p_plan *p2p;            /* p2p and floor: their messages */
    int err, bad;             /* local: a call failed / a check failed */
    int skip;                 /* an MPI baseline this MPI cannot run here */
    double *times;            /* one per timed repetition */
} vstate;

/* One state per run (o->run: a selected variant on a communicator),
 * persistent requests initialised (a failure is reported and marks the run
 * err); vstate_release each, then free the array. */
vstate *vstates_create(const kase *k, const nbhctx *c, const options *o, const char *what);
/* Free the persistent requests and times of one variant. */
void vstate_release(vstate *s);
/* One complete operation of variant s. */
int run_once(vstate *s, const kase *k, const nbhctx *c);
/* Run once on cleared receive buffers and compare: the baseline with the
 * grid's expectation (and keep its result as the reference), the others
 * with the reference.  inject_fault: see --inject-fault. */
void checked_call(vstate *s, kase *k, const nbhctx *c, int inject_fault);
/* Allreduce, global or neighbourhood (cb_global.c): variant s's result
 * (cartcoll's or MPI's) against the expected sum; sets s->bad, reports the
 * first difference once. */
void check_allreduce(vstate *s, const kase *k, const nbhctx *c, int inject_fault);
/* The same for the rooted collectives (cb_rooted.c): every process's
 * buffer against first principles (untouched where not significant). */
void check_rooted(vstate *s, const kase *k, const nbhctx *c, int inject_fault);

/* ---- Results and output (cb_output.c) ---------------------------------- */

enum { CHK_OK, CHK_FAIL, CHK_ERR, CHK_SKIP, CHK_BADMPI };
extern const char *const chk_name[];
/* Whether a row with this check has times. */
static inline int timed_check(int c) { return c == CHK_OK || c == CHK_FAIL || c == CHK_BADMPI; }

/* One output row: a neighbourhood, collective, run (variant and
 * communicator) and block size. */
typedef struct {
    int inbh, op, var, m, d, t, rounds, check; /* var: index into allvar; rounds -1: none */
    int run;                  /* index into o->run */
    int comm;                 /* COMM_*: where the row's cartcoll calls ran (MPI rows:
                               * the first --comm) */
    char nbh[96], dims[64];
    long long bytes;
    cb_summary s;
    double speedup;           /* 0: none */
    double comm_ratio;        /* median / median of the same variant on the first
                               * --comm (several --comm only); 0: none */
} row;

/* Every row so far (rank 0 writes files and the summary from them). */
typedef struct {
    row *rows;
    int nrows, caprows;
    int namew;                /* width of the neighbourhood column */
    int ncomm, comm0;         /* --comm: how many; the first (the ratios' base) */
} results;

/* The progress bar on stderr (rank 0, --progress). */
typedef struct {
    long long total, done;    /* units: calls of one variant */
    int on, last;             /* last: percentage shown, -1 none */
    double t0;
} progress_bar;

/* Everything the top-level loop hands down to a case. */
typedef struct {
    options opt;
    MPI_Comm world;           /* duplicate of MPI_COMM_WORLD, errors return */
    results res;
    progress_bar prog;
    int failed;               /* the exit status will be 1 */
} bench;

/* The MPI library's name and version (first line, quotes made single). */
void mpi_library(char *buf, size_t len);
/* "# cartbench VERSION, date, MPI, ..." (rank 0). */
void print_banner(const options *o);
/* "# NAME: d = .., t = .., grid .. (torus)" before a neighbourhood's rows. */
void print_nbh_line(const nbhctx *c, const options *o);
/* The column header of the rows. */
void print_header(const results *res);
/* The identity columns of a case's rows. */
void row_init(row *r, const nbhctx *c, int inbh, int op, int m);
/* The row of run vi from its state: check, rounds, statistics (sorts
 * s->times), speed-up against the baseline's median *base (set when vi is
 * 0; none if the baseline failed, base_err). */
void row_from_vstate(row *r, const vstate *s, const nbhctx *c, const options *o, int vi, double *base, int base_err);
/* With several --comm: each cartcoll row's comm_ratio against the row of
 * the same variant on the first one (rows: one case, in run order). */
void set_comm_ratios(row *rows, int n, const options *o);
/* Print (rank 0) and keep a row. */
void emit_row(results *res, const row *r);
/* A SKIP row per run (r: the case's identity columns). */
void emit_skipped_rows(results *res, row *r, const options *o);
/* All rows to a file; -1 if it cannot be written. */
int write_csv(const results *res, const char *path, const options *o);
int write_markdown(const results *res, const char *path);
/* Speed-ups as a matrix: a line per neighbourhood and variant, a column per
 * collective and block size. */
void print_summary(const results *res, const options *o);
/* The last line ("# cartbench: N rows, ..."); returns the new failed: 1
 * if it was or if a check failed. */
int print_totals(const results *res, const options *o, int failed);

/* Add units done; redraw the bar (rank 0, when on) if the percentage moved. */
void progress_advance(progress_bar *p, long long add, const char *what);
/* Erase the bar so that a line can be printed. */
void progress_clear(const progress_bar *p);

/* ---- Plot (cb_plot.c) -------------------------------------------------- */

/* gnuplot script and data (png without .png + .gp/.dat), then the PNG if
 * gnuplot is installed; -1 if a file cannot be written or gnuplot fails. */
int write_plot(const results *res, const char *png, const options *o);

/* ---- Timing (cb_timing.c) ---------------------------------------------- */

/* --calibrate: ping-pong between ranks 0 and 1, print alpha and beta;
 * the exit status. */
int calibrate(MPI_Comm comm);
/* Check, time and report one case (rows for every selected variant). */
void run_case(bench *b, nbhctx *c, int inbh, int op, int m);

#endif

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
 *
 * This file: main and the loop over neighbourhoods; run_case (cb_timing.c)
 * does one case.  The files, each with its header, from the top down (a
 * file calls only files below it: scripts/check_cycles.py, test
 * unit.bench_no_cycle):
 *   cartbench.c    main, the loop over neighbourhoods
 *   cb_setup.c     --setup: the time of create + *_init
 *   cb_timing.c    run_case: warm-up, the timed loop; --calibrate
 *   cb_plot.c      --plot (gnuplot)
 *   cb_output.c    result rows, console, CSV, Markdown, summary, progress
 *   cb_calls.c     the calls of every variant (cartcoll, MPI), one
 *                  operation, one checked operation (clear, call, verify)
 *   cb_cases.c     per neighbourhood: communicators and the baseline graph;
 *                  a case's set-up and release through its family
 *   cb_ops.c       the op table: each collective's family (cb_types.h's
 *                  cb_family: set-up, check, the baseline MPI lacks)
 *   cb_regular.c   family: allgather[v|w], alltoall[v|w]
 *   cb_rooted.c    family: bcast, gather, scatter, reduce (root 0)
 *   cb_nreduce.c   family: the neighbourhood allreduce
 *   cb_global.c    family: --global-allreduce (and the allreduce check)
 *   cb_p2p.c       the p2p variants (a message per neighbour) and floor (one
 *                  message per distinct peer) on a plain duplicate of world,
 *                  as a table (cb_types.h's cb_p2p_ops) a run carries
 *   cb_options.c   --help text and command-line parsing
 *   cb_variants.c  the collectives, algorithms, executors, forms, variants
 *   cb_state.c     rank and size, xmalloc, report_error, fill_ints
 *   cb_util.c      pure helpers without MPI (neighbourhoods, statistics)
 * cb_types.h holds the types the calls, cases and families share. */
#define _POSIX_C_SOURCE 200809L
#include "cb_cases.h"
#include "cb_global.h"
#include "cb_options.h"
#include "cb_output.h"
#include "cb_plot.h"
#include "cb_setup.h"
#include "cb_state.h"
#include "cb_timing.h"

#include <stdlib.h>
#include <string.h>

/* Free the duplicate of MPI_COMM_WORLD, finalise, and pass status on. */
static int finish(MPI_Comm *world, int status)
{
    MPI_Comm_free(world);
    MPI_Finalize();
    return status;
}

/* Every neighbourhood on every process (rank 0 generates and reads files);
 * widens the neighbourhood column to the longest name.  NULL if a
 * specification is bad. */
static nbhctx *load_neighbourhoods(bench *b)
{
    nbhctx *ctx = xmalloc(sizeof(nbhctx) * (size_t)b->opt.nspecs);
    for (int i = 0; i < b->opt.nspecs; i++) {
        nbhctx *c = &ctx[i];
        memset(c, 0, sizeof *c);
        int bad = share_nbh(b->opt.specs[i], &c->nbh, b->world);
        for (int k = 0; k < b->opt.ncomm && !bad; k++) bad = comm_fits(&c->nbh, b->opt.comms[k]);
        if (bad) {
            for (int j = 0; j <= i; j++) cb_nbh_free(&ctx[j].nbh);
            free(ctx);
            return NULL;
        }
        int w = (int)strlen(c->nbh.name);
        b->res.namew = w > b->res.namew ? w : b->res.namew;
    }
    return ctx;
}

/* Which Cart communicators the blocking/non-blocking variants need
 * (persistent ones pass their choice as info to *_init). */
static void needed_comms(const options *o, int need[NALG][NEX])
{
    memset(need, 0, sizeof(int) * NALG * NEX);
    for (int vi = 0; vi < o->nvar; vi++) {
        const variant *v = &allvar[o->vsel[vi]];
        if (!v->mpi && v->form != F_PERSISTENT) need[v->alg][v->ex] = 1;
    }
}

/* Every case of every neighbourhood, one neighbourhood's communicators at
 * a time. */
static void run_all(bench *b, nbhctx *ctx)
{
    const options *o = &b->opt;
    int need[NALG][NEX];
    needed_comms(o, need);
    int header = 0;
    for (int i = 0; i < o->nspecs; i++) {
        nbhctx *c = &ctx[i];
        if (setup_nbh(c, o, b->world, need)) {
            b->failed = 1;
            break;
        }
        if (!world_rank) {
            progress_clear(&b->prog);
            print_nbh_line(c, o);
            if (!header++) print_header(&b->res);
        }
        if (!c->nbh_ok) b->failed = 1;
        for (int a = 0; a < o->nops; a++)
            for (int m = 0; m < o->nm; m++) run_case(b, c, i, o->ops[a], o->ms[m]);
        free_nbh(c);
    }
}

/* --global-allreduce: one case per block size on the two duplicates. */
static void run_global(bench *b)
{
    nbhctx c;
    if (setup_global(&c, b->world)) {
        b->failed = 1;
        return;
    }
    if (!world_rank) {
        progress_clear(&b->prog);
        print_nbh_line(&c, &b->opt);
        print_header(&b->res);
    }
    for (int m = 0; m < b->opt.nm; m++) run_case(b, &c, 0, OP_ALLREDUCE, b->opt.ms[m]);
    free_nbh(&c);
}

/* Files, summary and the last line (rank 0 has the rows). */
static void report(bench *b)
{
    const options *o = &b->opt;
    if (o->csv && write_csv(&b->res, o->csv, o)) b->failed = 1;
    if (o->markdown && write_markdown(&b->res, o->markdown)) b->failed = 1;
    if (o->plot && write_plot(&b->res, o->plot, o)) b->failed = 1;
    if (o->summary) print_summary(&b->res, o);
    b->failed = print_totals(&b->res, o, b->failed);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    bench b;
    memset(&b, 0, sizeof b);
    MPI_Comm_dup(MPI_COMM_WORLD, &b.world);
    MPI_Comm_set_errhandler(b.world, MPI_ERRORS_RETURN);
    MPI_Comm_rank(b.world, &world_rank);
    MPI_Comm_size(b.world, &world_size);
    make_variants();
    int prc = parse_options(argc, argv, &b.opt);
    if (prc) return finish(&b.world, prc == 1 ? 0 : 2);
    if (b.opt.calibrate) return finish(&b.world, calibrate(b.world));
    if (b.opt.setup) return finish(&b.world, run_setup(&b.opt, b.world) ? 1 : 0);

    b.res.namew = 13; /* strlen("neighbourhood") */
    b.res.ncomm = b.opt.ncomm;
    b.res.comm0 = b.opt.comm;
    nbhctx *ctx = b.opt.global ? NULL : load_neighbourhoods(&b);
    if (!ctx && !b.opt.global) return finish(&b.world, 2);
    int nspecs = b.opt.global ? 1 : b.opt.nspecs;
    b.prog = (progress_bar){ .on = b.opt.progress, .last = -1, .t0 = MPI_Wtime() };
    b.prog.total = (long long)nspecs * b.opt.nops * b.opt.nm * b.opt.nrun * (warmup_rounds(&b.opt) + b.opt.reps + 1);
    if (!world_rank) print_banner(&b.opt);
    if (b.opt.global)
        run_global(&b);
    else
        run_all(&b, ctx);
    progress_clear(&b.prog);
    if (!world_rank) report(&b);
    MPI_Bcast(&b.failed, 1, MPI_INT, 0, b.world);
    free(b.res.rows);
    free(ctx);
    free(b.opt.ms);
    free(b.opt.specs);
    return finish(&b.world, b.failed ? 1 : 0);
}

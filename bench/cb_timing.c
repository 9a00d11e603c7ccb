/* cartbench: the measurement.  run_case checks and times every selected
 * variant of one case in one interleaved loop; --calibrate measures the
 * library's cost-model parameters alpha and beta. */
#define _POSIX_C_SOURCE 200809L
#include "cb_timing.h"

#include "cb_calls.h"
#include "cb_cases.h"
#include "cb_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Calibration ------------------------------------------------------- */

static const int calib_sizes[] = { 1, 64, 1024, 8192, 65536, 262144, 1048576 };
#define NCALIB ((int)(sizeof calib_sizes / sizeof calib_sizes[0]))

/* One-way times (median of 50 ping-pongs between ranks 0 and 1, after 10
 * untimed) for each of calib_sizes; rank 0 prints them as a table. */
static void pingpong(MPI_Comm comm, int rank, double *one_way)
{
    const int reps = 50, warm = 10;
    char *buf = xmalloc((size_t)calib_sizes[NCALIB - 1]);
    memset(buf, 1, (size_t)calib_sizes[NCALIB - 1]);
    double x[100];
    if (!rank) printf("%12s %14s\n", "bytes", "one-way [us]");
    for (int s = 0; s < NCALIB; s++) {
        for (int r = 0; r < warm + reps; r++) {
            MPI_Barrier(comm);
            double t0 = MPI_Wtime();
            if (rank == 0) {
                MPI_Send(buf, calib_sizes[s], MPI_BYTE, 1, 0, comm);
                MPI_Recv(buf, calib_sizes[s], MPI_BYTE, 1, 0, comm, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(buf, calib_sizes[s], MPI_BYTE, 0, 0, comm, MPI_STATUS_IGNORE);
                MPI_Send(buf, calib_sizes[s], MPI_BYTE, 0, 0, comm);
            }
            if (r >= warm) x[r - warm] = (MPI_Wtime() - t0) / 2;
        }
        cb_summary sm;
        cb_summarize(x, reps, 0.95, &sm);
        one_way[s] = sm.median;
        if (!rank) printf("%12d %14.3f\n", calib_sizes[s], sm.median * 1e6);
    }
    free(buf);
}

/* alpha: the latency of the smallest message; beta: least-squares slope
 * over the sizes from 8 KiB on, where the time is mostly bandwidth. */
static void print_alpha_beta(const double *one_way)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int n = 0;
    for (int s = 0; s < NCALIB; s++)
        if (calib_sizes[s] >= 8192) {
            sx += calib_sizes[s];
            sy += one_way[s];
            sxx += (double)calib_sizes[s] * calib_sizes[s];
            sxy += (double)calib_sizes[s] * one_way[s];
            n++;
        }
    double beta = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    double alpha = one_way[0];
    if (!(beta > 0)) beta = (one_way[NCALIB - 1] - one_way[0]) / (calib_sizes[NCALIB - 1] - 1);
    printf("# alpha = %.3g s latency, beta = %.3g s/byte (%.2f GB/s); alpha/beta = %.0f bytes\n", alpha, beta,
           1e-9 / beta, alpha / beta);
    printf("export CARTCOLL_ALPHA=%.3g CARTCOLL_BETA=%.3g\n", alpha, beta);
}

int calibrate(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (size < 2) {
        if (!rank) fprintf(stderr, "cartbench --calibrate: needs at least 2 processes\n");
        return 2;
    }
    double one_way[NCALIB];
    pingpong(comm, rank, one_way);
    if (!rank) print_alpha_beta(one_way);
    return 0;
}

/* ---- One case ---------------------------------------------------------- */

/* Agree on failures (err, bad) so that no process calls a collective the
 * others skip; flags: 2 nv ints of scratch. */
static void agree_failures(vstate *vs, int nv, int *flags, MPI_Comm world)
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

/* Whether v tunes itself in its first starts (persistent, with the
 * automatic choice of algorithm or executor): it warms up --tune-warmup
 * times. */
static int self_tuning(const variant *v)
{
    return v->kind == VK_CART && v->form == F_PERSISTENT && (v->alg == ALG_AUTO || v->ex == EX_AUTO);
}

/* Warm-up: checked calls, interleaved; the baseline (vs[0]) first, and
 * agreed on before the others since they are compared with its result. */
static void warm_up(bench *b, vstate *vs, kase *k, const nbhctx *c, int *flags, const char *what)
{
    const options *o = &b->opt;
    int nv = o->nrun;
    for (int w = 0; w < warmup_rounds(o); w++) {
        for (int vi = 0; vi < nv; vi++) {
            if (w >= (self_tuning(vs[vi].v) ? o->tune_warmup : o->warmup)) continue;
            MPI_Barrier(b->world);
            checked_call(&vs[vi], k, c, o->inject_fault);
            if (w == 0 && vi == 0) agree_failures(vs, nv, flags, b->world); /* the reference must exist */
        }
        if (w == 0) agree_failures(vs, nv, flags, b->world);
        progress_advance(&b->prog, nv, what);
    }
}

/* Timed calls: every repetition runs each variant once (each cartcoll
 * variant once per --comm communicator), in an order shuffled the same way
 * on every process.  A call runs measurably slower
 * right after a cache-hungry one (an MPI baseline sending thousands of
 * messages); a fixed rotation would make some variants follow it more
 * often than others. */
static void timed_reps(bench *b, vstate *vs, const kase *k, const nbhctx *c, const char *what)
{
    int nv = b->opt.nrun;
    int order[MAXRUN];
    unsigned shuffle = 12345u;
    for (int j = 0; j < nv; j++) order[j] = j;
    for (int rep = 0; rep < b->opt.reps; rep++) {
        for (int j = nv - 1; j > 0; j--) {
            shuffle = shuffle * 1103515245u + 12345u;
            int x = (int)((shuffle >> 16) % (unsigned)(j + 1)), tmp = order[j];
            order[j] = order[x];
            order[x] = tmp;
        }
        for (int j = 0; j < nv; j++) {
            vstate *s = &vs[order[j]];
            if (s->err || s->skip) continue;
            MPI_Barrier(b->world);
            double t0 = MPI_Wtime();
            int rc = run_once(s, k, c);
            s->times[rep] = MPI_Wtime() - t0;
            if (rc != MPI_SUCCESS) s->err = 1;
        }
        progress_advance(&b->prog, nv, what);
    }
}

/* Warm-up, timed calls, one more checked call each (untimed), then the
 * per-call maximum over the processes on rank 0.  Failures are agreed on
 * after each stage. */
static void measure(bench *b, vstate *vs, kase *k, const nbhctx *c, const char *what)
{
    int nv = b->opt.nrun;
    int *flags = xmalloc(sizeof(int) * 2 * (size_t)nv);
    agree_failures(vs, nv, flags, b->world);
    warm_up(b, vs, k, c, flags, what);
    timed_reps(b, vs, k, c, what);
    agree_failures(vs, nv, flags, b->world);
    for (int vi = 0; vi < nv; vi++) {
        MPI_Barrier(b->world);
        checked_call(&vs[vi], k, c, b->opt.inject_fault);
    }
    agree_failures(vs, nv, flags, b->world);
    progress_advance(&b->prog, nv, what);
    for (int vi = 0; vi < nv; vi++)
        MPI_Reduce(world_rank ? vs[vi].times : MPI_IN_PLACE, vs[vi].times, b->opt.reps, MPI_DOUBLE, MPI_MAX, 0,
                   b->world);
    free(flags);
}

/* Whether a row makes the exit status 1. */
static int row_fails(const row *r, const options *o)
{
    return r->check == CHK_FAIL || r->check == CHK_ERR || (r->check == CHK_BADMPI && !o->tolerate_mpi);
}

void run_case(bench *b, nbhctx *c, int inbh, int op, int m)
{
    const options *o = &b->opt;
    int nv = o->nrun;
    row r;
    row_init(&r, c, inbh, op, m);
    char what[160];
    snprintf(what, sizeof what, "%s %s m=%d", c->nbh.name, op_name[op], m);
    kase k;
    if (setup_case(&k, c, o, op, m)) {
        progress_advance(&b->prog, (long long)nv * (warmup_rounds(o) + o->reps + 1), what);
        progress_clear(&b->prog);
        emit_skipped_rows(&b->res, &r, o);
        return;
    }
    r.bytes = k.bytes;
    vstate *vs = vstates_create(&k, c, o, what);
    measure(b, vs, &k, c, what);
    /* Rows (printed on rank 0), speed-ups against vs[0] = blocking MPI,
     * ratios between the communicators. */
    progress_clear(&b->prog);
    double base = 0;
    row *rows = xmalloc(sizeof(row) * (size_t)nv);
    for (int vi = 0; vi < nv; vi++) {
        rows[vi] = r;
        row_from_vstate(&rows[vi], &vs[vi], c, o, vi, &base, vs[0].err);
        vstate_release(&vs[vi]);
    }
    set_comm_ratios(rows, nv, o);
    for (int vi = 0; vi < nv; vi++) {
        if (row_fails(&rows[vi], o)) b->failed = 1;
        emit_row(&b->res, &rows[vi]);
    }
    if (!world_rank) fflush(stdout);
    free(rows);
    free(vs);
    free_case(&k);
}

/* cartbench: result rows and everything printed or written from them
 * (console rows, CSV, Markdown, the speed-up summary, the last line), and
 * the progress bar.  Rank 0 prints; every rank keeps the rows. */
#define _POSIX_C_SOURCE 200809L
#include "cb_output.h"

#include "cb_state.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *const chk_name[] = { "OK", "FAIL", "ERR", "SKIP", "BADMPI" };

/* ---- Rows -------------------------------------------------------------- */

static void add_row(results *res, const row *r)
{
    if (res->nrows == res->caprows) {
        res->caprows = res->caprows ? 2 * res->caprows : 64;
        res->rows = realloc(res->rows, sizeof(row) * (size_t)res->caprows);
        if (!res->rows) abort();
    }
    res->rows[res->nrows++] = *r;
}

/* A row's variant, with "@COMM" for a cartcoll row when --comm lists
 * several communicators (run_label's name). */
static const char *row_label(const results *res, const row *r, char *buf, size_t len)
{
    const variant *v = &allvar[r->var];
    if (v->mpi || res->ncomm < 2)
        snprintf(buf, len, "%s", v->name);
    else
        snprintf(buf, len, "%s@%s", v->name, comm_name[r->comm]);
    return buf;
}

/* With several --comm: the ratio column's title, "t/t_FIRST". */
static const char *ratio_title(const results *res, char *buf, size_t len)
{
    snprintf(buf, len, "t/t_%s", comm_name[res->comm0]);
    return buf;
}

void print_header(const results *res)
{
    int vw = res->ncomm > 1 ? 32 : 24;
    printf("%-*s %6s  %-10s %-*s %6s %6s %11s  %-23s %8s  ", res->namew, "neighbourhood", "t", "collective", vw,
           "variant", "m", "rounds", "median[us]", "95% CI [us]", "speed-up");
    if (res->ncomm > 1) {
        char h[32];
        printf("%11s  ", ratio_title(res, h, sizeof h));
    }
    printf("check\n");
}

static void print_row(const results *res, const row *r)
{
    char rounds[16] = "-", med[32] = "-", ci[48] = "-", sp[16] = "-", ratio[16] = "-", name[64];
    if (r->rounds >= 0) snprintf(rounds, sizeof rounds, "%d", r->rounds);
    if (timed_check(r->check)) {
        snprintf(med, sizeof med, "%.2f", r->s.median * 1e6);
        snprintf(ci, sizeof ci, "[%9.2f, %9.2f]", r->s.lo * 1e6, r->s.hi * 1e6);
        if (r->speedup > 0) snprintf(sp, sizeof sp, "%.2f", r->speedup);
        if (r->comm_ratio > 0) snprintf(ratio, sizeof ratio, "%.3f", r->comm_ratio);
    }
    printf("%-*s %6d  %-10s %-*s %6d %6s %11s  %-23s %8s  ", res->namew, r->nbh, r->t, op_name[r->op],
           res->ncomm > 1 ? 32 : 24, row_label(res, r, name, sizeof name), r->m, rounds, med, ci, sp);
    if (res->ncomm > 1) printf("%11s  ", ratio);
    printf("%s\n", chk_name[r->check]);
}

void emit_row(results *res, const row *r)
{
    if (!world_rank) print_row(res, r);
    add_row(res, r);
}

void row_init(row *r, const nbhctx *c, int inbh, int op, int m)
{
    memset(r, 0, sizeof *r);
    r->inbh = inbh;
    r->op = op;
    r->m = m;
    r->d = c->d;
    r->t = c->t;
    r->comm = c->kind;
    snprintf(r->nbh, sizeof r->nbh, "%s", c->nbh.name);
    char *p = r->dims;
    for (int i = 0; i < c->d; i++) p += sprintf(p, "%s%d", i ? "x" : "", c->dims[i]);
}

void emit_skipped_rows(results *res, row *r, const options *o)
{
    for (int vi = 0; vi < o->nrun; vi++) {
        r->var = o->run[vi].var;
        r->run = vi;
        r->comm = o->run[vi].comm;
        r->check = CHK_SKIP;
        r->rounds = -1;
        emit_row(res, r);
    }
}

/* The check column of a variant that ran. */
static int row_check(const vstate *s, const nbhctx *c)
{
    int check = s->skip ? CHK_SKIP : s->err ? CHK_ERR : s->bad ? CHK_FAIL : CHK_OK;
    /* The neighbourhood and the graph were verified, so wrong data from MPI
     * is MPI's (MPICH 4.0 matches repeated edges between two processes in
     * reverse order). */
    if (s->v->kind == VK_MPI && check == CHK_FAIL && c->nbh_ok) check = CHK_BADMPI;
    if (!s->v->mpi && !c->nbh_ok && check == CHK_OK) check = CHK_FAIL;
    return check;
}

/* Schedule rounds of a variant's algorithm on communicator kind comm (t for
 * MPI); -1 if unknown. */
static int row_rounds(const variant *v, const nbhctx *c, int op, int comm_kind)
{
    if (op == OP_ALLREDUCE) return -1;
    if (v->kind == VK_FLOOR) return -1; /* one message per distinct peer, no rounds */
    if (v->mpi) return c->t;
    int rounds;
    MPI_Comm comm = comm_kind != COMM_NBH && c->alt[comm_kind] != MPI_COMM_NULL ? c->alt[comm_kind] : c->comm[0][0];
    static const int rooted[] = { CART_BCAST, CART_GATHER, CART_SCATTER, CART_REDUCE };
    int coll = op_is_alltoall(op)    ? CART_ALLTOALL
               : op == OP_NALLREDUCE ? CART_ALLREDUCE
               : op_rooted(op)       ? rooted[op - OP_NBCAST]
                                     : CART_ALLGATHER;
    if (Cart_schedule_stats(comm, coll, alg_const[v->alg], NULL,
                            &rounds, NULL) == MPI_SUCCESS)
        return rounds;
    return -1;
}

void row_from_vstate(row *r, const vstate *s, const nbhctx *c, const options *o, int vi, double *base, int base_err)
{
    r->var = o->run[vi].var;
    r->run = vi;
    r->comm = s->comm;
    r->check = row_check(s, c);
    r->rounds = row_rounds(s->v, c, r->op, s->comm);
    memset(&r->s, 0, sizeof r->s);
    r->speedup = 0;
    r->comm_ratio = 0;
    if (timed_check(r->check)) {
        cb_summarize(s->times, o->reps, o->conf, &r->s);
        if (vi == 0) *base = r->s.median;
        if (*base > 0 && r->s.median > 0 && base_err == 0) r->speedup = *base / r->s.median;
    }
}

void set_comm_ratios(row *rows, int n, const options *o)
{
    if (o->ncomm < 2) return;
    for (int i = 0; i < n; i++) {
        row *r = &rows[i];
        if (allvar[r->var].mpi || !timed_check(r->check) || !(r->s.median > 0)) continue;
        for (int j = 0; j < n; j++) {
            const row *q = &rows[j];
            if (q->var == r->var && q->comm == o->comm && timed_check(q->check) && q->s.median > 0)
                r->comm_ratio = r->s.median / q->s.median;
        }
    }
}

/* ---- Console ----------------------------------------------------------- */

void mpi_library(char *buf, size_t len)
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

void print_banner(const options *o)
{
    char lib[256];
    mpi_library(lib, sizeof lib);
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M", localtime(&now));
    char comms[64] = "", ratio[160];
    snprintf(ratio, sizeof ratio, " (all interleaved; t/t_%s = a variant's median / its median on %s)",
             comm_name[o->comm], comm_name[o->comm]);
    for (int i = 0; i < o->ncomm; i++)
        snprintf(comms + strlen(comms), sizeof comms - strlen(comms), "%s%s", i ? "," : "", comm_name[o->comms[i]]);
    char tune[64] = "";
    if (o->tune_warmup != o->warmup) snprintf(tune, sizeof tune, " (%d for self-tuning variants)", o->tune_warmup);
    printf("# cartbench %d.%d.%d, %s, %s, %d processes, %s, %d repetitions after %d checked warm-up calls%s, "
           "median of the per-call maximum over processes, Tukey 3 IQR, 95%% CI of the median%s; comm = %s%s\n",
           CARTCOLL_VERSION_MAJOR, CARTCOLL_VERSION_MINOR, CARTCOLL_VERSION_PATCH, date, lib, world_size,
           o->mesh ? "mesh" : "torus", o->reps, o->warmup, tune,
           o->irregular ? "; irregular alltoallv/w blocks m^(d-z)" : "", comms, o->ncomm > 1 ? ratio : "");
}

void print_nbh_line(const nbhctx *c, const options *o)
{
    static const char *const on[NCOMM] = { "Cart_neighborhood_create", "MPI_Cart_create (MPI's block order)",
                                           "Cart_dist_graph_create_adjacent", "" };
    if (c->kind == COMM_PLAIN) {
        printf("# global: %d processes; Cart_allreduce and MPI_Allreduce (sum of m doubles) on two duplicates of "
               "MPI_COMM_WORLD (comm = plain)\n",
               world_size);
        return;
    }
    printf("# %s: d = %d, t = %d, grid ", c->nbh.name, c->d, c->t);
    for (int k = 0; k < c->d; k++) printf("%s%d", k ? "x" : "", c->dims[k]);
    printf(" (%s); cartcoll on ", o->mesh ? "mesh" : "torus");
    for (int i = 0; i < o->ncomm; i++)
        printf("%s%s (comm = %s)", i ? " and " : "", on[o->comms[i]], comm_name[o->comms[i]]);
    printf("%s\n", c->nbh_ok ? "" : "; FAIL: the library's neighbourhood is wrong");
}

/* The summary's column header: "| OP m=M" for the first block size of a
 * collective, " m=M" for the others. */
static void summary_header(const results *res, const options *o)
{
    printf("%-*s %6s  %-*s", res->namew, "neighbourhood", "t", res->ncomm > 1 ? 32 : 24, "variant");
    for (int a = 0; a < o->nops; a++)
        for (int b = 0; b < o->nm; b++) {
            char h[64];
            snprintf(h, sizeof h, "%s%s m=%d", b ? "" : "| ", op_name[o->ops[a]], o->ms[b]);
            printf(" %*s", b ? 7 : 9 + (int)strlen(op_name[o->ops[a]]), b ? h + strlen(op_name[o->ops[a]]) + 1 : h);
        }
    printf("\n");
}

/* The summary's line for the neighbourhood and variant of row i. */
static void summary_line(const results *res, const options *o, int i)
{
    const row *r = &res->rows[i];
    char name[64];
    printf("%-*s %6d  %-*s", res->namew, r->nbh, r->t, res->ncomm > 1 ? 32 : 24, row_label(res, r, name, sizeof name));
    for (int a = 0; a < o->nops; a++)
        for (int b = 0; b < o->nm; b++) {
            char cell[32] = "-";
            for (int j = i; j < res->nrows; j++) {
                const row *q = &res->rows[j];
                if (q->inbh == r->inbh && q->run == r->run && q->op == o->ops[a] && q->m == o->ms[b]) {
                    if (q->speedup > 0) snprintf(cell, sizeof cell, "%.2f%s", q->speedup, q->check == CHK_OK ? "" : "!");
                    break;
                }
            }
            printf(" %*s", b ? 7 : 9 + (int)strlen(op_name[o->ops[a]]), cell);
        }
    printf("\n");
}

void print_summary(const results *res, const options *o)
{
    printf("\nspeed-up over the baseline %s (its median time / median time; > 1: faster than it)\n",
           allvar[o->baseline].name);
    summary_header(res, o);
    for (int i = 0; i < res->nrows; i++) {
        const row *r = &res->rows[i];
        if (r->run == 0) continue; /* the baseline itself */
        int first = 1; /* first row of this (neighbourhood, run)? */
        for (int j = 0; j < i && first; j++) first = !(res->rows[j].inbh == r->inbh && res->rows[j].run == r->run);
        if (first) summary_line(res, o, i);
    }
    printf("(! = the row's check was not OK)\n");
}

int print_totals(const results *res, const options *o, int failed)
{
    int nfail = 0;
    int nbad = 0;
    for (int i = 0; i < res->nrows; i++) {
        nfail += res->rows[i].check == CHK_FAIL || res->rows[i].check == CHK_ERR;
        nbad += res->rows[i].check == CHK_BADMPI;
    }
    printf("# cartbench: %d rows, %s", res->nrows,
           nfail ? "SOME CHECKS FAILED" : failed && !nbad ? "FAILED" : "all cartcoll checks OK");
    if (nbad)
        printf("; %d MPI baseline rows are BADMPI (wrong data from the MPI library%s)", nbad,
               o->tolerate_mpi ? ", tolerated" : "");
    printf("\n");
    return failed || nfail;
}

/* ---- Files ------------------------------------------------------------- */

static void csv_row(FILE *f, const row *r, const options *o, const char *lib)
{
    const variant *v = &allvar[r->var];
    int timed = timed_check(r->check);
    fprintf(f, "\"%s\",%d,\"%s\",%d,%d,%s,%d,%s,%s,%s,%s,%s,%d,%d,%lld,", lib, world_size, r->nbh, r->d, r->t, r->dims,
            !o->mesh, op_name[r->op], v->name, v->mpi ? kind_name[v->kind] : form_name[v->form],
            v->mpi ? form_name[v->form] : alg_name[v->alg], v->mpi ? "-" : ex_name[v->ex], r->m,
            irregular_blocks(o, r->op), r->bytes);
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
    /* comm: where the row's calls ran (the baseline on MPI's own). */
    fprintf(f, "%s,%s,", chk_name[r->check],
            !v->mpi                ? comm_name[r->comm]
            : v->kind != VK_MPI    ? "plain-p2p"
            : r->comm == COMM_PLAIN ? "plain"
                                   : "mpi-dist-graph");
    if (timed && r->comm_ratio > 0)
        fprintf(f, "%.4f\n", r->comm_ratio);
    else
        fprintf(f, "\n");
}

int write_csv(const results *res, const char *path, const options *o)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cartbench: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    char lib[256];
    mpi_library(lib, sizeof lib);
    fprintf(f, "mpi,np,nbh,d,t,dims,periodic,collective,variant,form,algorithm,executor,m,irregular,bytes,rounds,reps,"
               "kept,median_us,ci_lo_us,ci_hi_us,ci_coverage,min_us,speedup,check,comm,comm_ratio\n");
    for (int i = 0; i < res->nrows; i++) csv_row(f, &res->rows[i], o, lib);
    return fclose(f);
}

static void markdown_row(FILE *f, const results *res, const row *r)
{
    int timed = timed_check(r->check);
    char name[64];
    fprintf(f, "| %s | %d | %s | %s | %d | ", r->nbh, r->t, op_name[r->op], row_label(res, r, name, sizeof name), r->m);
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
    if (res->ncomm > 1) {
        if (timed && r->comm_ratio > 0)
            fprintf(f, "%.3f | ", r->comm_ratio);
        else
            fprintf(f, "- | ");
    }
    fprintf(f, "%s |\n", chk_name[r->check]);
}

int write_markdown(const results *res, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cartbench: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    char h[32] = "";
    if (res->ncomm > 1) snprintf(h, sizeof h, " t/t_%s |", comm_name[res->comm0]);
    fprintf(f, "| neighbourhood | t | collective | variant | m | rounds | median µs | 95%% CI µs | speed-up |%s check |\n",
            h);
    fprintf(f, "|---|--:|---|---|--:|--:|--:|--:|--:|%s---|\n", res->ncomm > 1 ? "--:|" : "");
    for (int i = 0; i < res->nrows; i++) markdown_row(f, res, &res->rows[i]);
    return fclose(f);
}

/* ---- Progress ---------------------------------------------------------- */

void progress_advance(progress_bar *p, long long add, const char *what)
{
    p->done += add;
    if (!p->on || world_rank) return;
    int pct = p->total ? (int)(100 * p->done / p->total) : 100;
    if (pct == p->last && add) return;
    p->last = pct;
    int w = 30, fillw = pct * w / 100;
    double el = MPI_Wtime() - p->t0;
    fprintf(stderr, "\r[");
    for (int i = 0; i < w; i++) fputc(i < fillw ? '#' : '.', stderr);
    fprintf(stderr, "] %3d%% %5.0fs %-40.40s", pct, el, what);
    fflush(stderr);
}

void progress_clear(const progress_bar *p)
{
    if (p->on && !world_rank) {
        fprintf(stderr, "\r%90s\r", "");
        fflush(stderr);
    }
}

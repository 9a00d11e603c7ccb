/* cartbench: result rows, the console, CSV, Markdown, the summary and the
 * progress bar (cb_output.c). */
#ifndef CB_OUTPUT_H
#define CB_OUTPUT_H

#include "cb_types.h"

#include "cb_util.h"

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

#endif

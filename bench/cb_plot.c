/* cartbench --plot: a gnuplot script (FILE.gp) and its data (FILE.dat),
 * then the PNG if gnuplot is installed.  Per (neighbourhood, collective) a
 * panel of median time against block size for each variant (error bars:
 * the confidence interval) and a panel of speed-ups against MPI. */
#define _POSIX_C_SOURCE 200809L
#include "cb_plot.h"

#include "cb_state.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A (neighbourhood, collective) pair: one pair of panels. */
typedef struct {
    int inbh, op;
} plot_cell;

/* The distinct cells in row order; *ncell of them (free the result). */
static plot_cell *collect_cells(const results *res, int *ncell)
{
    plot_cell *cell = xmalloc(sizeof(plot_cell) * (size_t)res->nrows);
    *ncell = 0;
    for (int i = 0; i < res->nrows; i++) {
        int seen = 0;
        for (int c = 0; c < *ncell; c++) seen |= cell[c].inbh == res->rows[i].inbh && cell[c].op == res->rows[i].op;
        if (!seen) cell[(*ncell)++] = (plot_cell){ res->rows[i].inbh, res->rows[i].op };
    }
    return cell;
}

/* Terminal, size (two cells to a line of panels where there are several),
 * title and the common axis settings. */
static void plot_preamble(FILE *fg, const char *png, const char *dat, const options *o, int ncell)
{
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
}

/* Log x axis over the positive block sizes (m = 0 cannot be shown). */
static void plot_xaxis(FILE *fg, const options *o)
{
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
}

/* The data of one cell: a block per run (a variant on a communicator) with
 * timed rows (m > 0); the run index of each block in blkvar; returns their
 * number. */
static int plot_data(FILE *fd, const results *res, const options *o, plot_cell cell, int *blkvar)
{
    int nb = 0;
    for (int vi = 0; vi < o->nrun; vi++) {
        int any = 0;
        for (int i = 0; i < res->nrows; i++) {
            const row *r = &res->rows[i];
            if (r->inbh != cell.inbh || r->op != cell.op || r->run != vi || r->m <= 0) continue;
            if (!timed_check(r->check)) continue;
            fprintf(fd, "%d %.6g %.6g %.6g %.6g\n", r->m, r->s.median * 1e6, r->s.lo * 1e6, r->s.hi * 1e6,
                    r->speedup > 0 ? r->speedup : NAN);
            any = 1;
        }
        if (any) {
            fprintf(fd, "\n\n");
            blkvar[nb++] = vi;
        }
    }
    return nb;
}

/* The two panels of one cell, its data blocks starting at index first. */
static void plot_panels(FILE *fg, const results *res, const options *o, plot_cell cell, const char *dat, int first,
                        const int *blkvar, int nb)
{
    const row *r0 = NULL;
    for (int i = 0; i < res->nrows && !r0; i++)
        if (res->rows[i].inbh == cell.inbh && res->rows[i].op == cell.op) r0 = &res->rows[i];
    fprintf(fg, "set title '%s %s (t = %d)'\nset logscale y\nset ylabel 'median time [µs]'\nunset yrange\n",
            op_name[r0->op], r0->nbh, r0->t);
    if (!nb) {
        fprintf(fg, "set multiplot next\nset multiplot next\n");
        return;
    }
    char name[64];
    fprintf(fg, "plot ");
    for (int b = 0; b < nb; b++)
        fprintf(fg, "%s'%s' index %d using 1:2:3:4 with yerrorlines lt %d pt 7 ps 0.6 title '%s'", b ? ", \\\n     " : "",
                dat, first + b, blkvar[b] + 1, run_label(o, blkvar[b], name, sizeof name));
    fprintf(fg, "\nset title 'speed-up vs %s'\nunset logscale y\nset ylabel 'speed-up (MPI time / time)'\n"
                "set yrange [0:*]\n",
            op_mpi[r0->op]);
    fprintf(fg, "plot 1 with lines lt 0 lw 1 notitle");
    for (int b = 0; b < nb; b++) {
        if (blkvar[b] == 0) continue; /* the baseline itself */
        fprintf(fg, ", \\\n     '%s' index %d using 1:5 with linespoints lt %d pt 7 ps 0.6 title '%s'", dat,
                first + b, blkvar[b] + 1, run_label(o, blkvar[b], name, sizeof name));
    }
    fprintf(fg, "\n");
}

/* Run gnuplot on the script if it is installed; -1 if it fails. */
static int run_gnuplot(const char *png, const char *gp, const char *dat)
{
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
        fprintf(stderr, "cartbench: gnuplot not found: wrote %s and %s, no %s (install gnuplot and run `gnuplot %s`)\n",
                gp, dat, png, gp);
        return 0;
    }
    int rc = 0;
    char *cmd = xmalloc(2 * strlen(png) + 64);
    sprintf(cmd, "gnuplot '%s'", gp);
    if (system(cmd) != 0) {
        fprintf(stderr, "cartbench: gnuplot failed on %s\n", gp);
        rc = -1;
    }
    free(cmd);
    return rc;
}

/* Script and data into fg and fd. */
static void write_script(FILE *fg, FILE *fd, const results *res, const char *png, const char *dat, const options *o)
{
    int ncell;
    plot_cell *cell = collect_cells(res, &ncell);
    plot_preamble(fg, png, dat, o, ncell);
    plot_xaxis(fg, o);
    int idx = 0; /* gnuplot's index of the next data block */
    for (int c = 0; c < ncell; c++) {
        int blkvar[MAXRUN];
        int nb = plot_data(fd, res, o, cell[c], blkvar);
        plot_panels(fg, res, o, cell[c], dat, idx, blkvar, nb);
        idx += nb;
    }
    fprintf(fg, "unset multiplot\n");
    free(cell);
}

int write_plot(const results *res, const char *png, const options *o)
{
    size_t len = strlen(png);
    char *base = xmalloc(len + 8);
    memcpy(base, png, len + 1);
    if (len > 4 && !strcmp(base + len - 4, ".png")) base[len - 4] = 0;
    char *dat = xmalloc(len + 8), *gp = xmalloc(len + 8);
    sprintf(dat, "%s.dat", base);
    sprintf(gp, "%s.gp", base);
    FILE *fd = fopen(dat, "w"), *fg = fopen(gp, "w");
    int rc = -1;
    if (!fd || !fg) {
        fprintf(stderr, "cartbench: cannot write %s / %s: %s\n", dat, gp, strerror(errno));
        if (fd) fclose(fd);
        if (fg) fclose(fg);
    } else {
        write_script(fg, fd, res, png, dat, o);
        fclose(fd);
        fclose(fg);
        rc = run_gnuplot(png, gp, dat);
    }
    free(base);
    free(dat);
    free(gp);
    return rc;
}

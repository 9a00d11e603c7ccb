/* cartbench --plot: gnuplot (cb_plot.c). */
#ifndef CB_PLOT_H
#define CB_PLOT_H

#include "cb_output.h"

/* gnuplot script and data (png without .png + .gp/.dat), then the PNG if
 * gnuplot is installed; -1 if a file cannot be written or gnuplot fails. */
int write_plot(const results *res, const char *png, const options *o);

#endif

/* cartbench: one case checked, timed and reported; --calibrate
 * (cb_timing.c). */
#ifndef CB_TIMING_H
#define CB_TIMING_H

#include "cb_output.h"

/* Everything the top-level loop hands down to a case. */
typedef struct {
    options opt;
    MPI_Comm world;           /* duplicate of MPI_COMM_WORLD, errors return */
    results res;
    progress_bar prog;
    int failed;               /* the exit status will be 1 */
} bench;

/* --calibrate: ping-pong between ranks 0 and 1, print alpha and beta;
 * the exit status. */
int calibrate(MPI_Comm comm);
/* Check, time and report one case (rows for every selected variant). */
void run_case(bench *b, nbhctx *c, int inbh, int op, int m);

#endif

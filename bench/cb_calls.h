/* cartbench: the calls of every variant, one operation, one checked
 * operation (cb_calls.c). */
#ifndef CB_CALLS_H
#define CB_CALLS_H

#include "cb_types.h"

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

#endif

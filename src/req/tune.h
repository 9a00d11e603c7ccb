/* Auto-tuning of persistent requests (tune.c), driven by request.c. */
#ifndef CC_TUNE_H
#define CC_TUNE_H

#include "req/request.h"

/* Make the agreement's persistent requests (r->ncand candidates, on `tag`
 * of the candidates' communicator).  Returns an MPI error code. */
int cc_tune_setup(Cart_request r, int tag);
/* Free them (safe when there are none). */
void cc_tune_free(Cart_request r);
/* The candidate of the next trial becomes r->plan, timed from now. */
void cc_tune_next(Cart_request r);
/* r->plan's trial finished: record its time; *finished stays 0 after the
 * last trial, which starts the agreement (r->agreeing). */
int cc_tune_trial_done(Cart_request r, int *finished);
/* Advance the agreement; when it is complete keep the chosen plan only and
 * set *finished. */
int cc_tune_agree(Cart_request r, int *finished);

#endif

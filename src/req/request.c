/* Requests: life cycle (make, start, advance, destroy) and error reports;
 * auto-tuning of persistent requests is in tune.c. */
#include "req/request.h"

#include "base/errors.h"
#include "base/mpi_compat.h"
#include "exec/plancache.h"
#include "req/partitioned.h"
#include "req/tune.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cc_request_new(Cart_request *out, cc_comm *cs, MPI_Comm user, const char *who, int persistent,
                   cc_plan **plans, int n, int pair)
{
    Cart_request r = calloc(1, sizeof *r);
    if (!r) return MPI_ERR_NO_MEM;
    r->persistent = persistent;
    atomic_init(&r->state, CC_REQ_INACTIVE);
    atomic_flag_clear(&r->busy);
    r->cs = cs;
    cc_comm_retain(cs);
    r->user = user;
    r->who = who;
    r->pair = -1;
    r->ncand = n;
    for (int i = 0; i < n; i++) {
        r->cand[i] = plans[i];
        r->best[i] = 1e300;
        r->worst[i] = 0;
    }
    r->plan = plans[0];
    int rc = MPI_SUCCESS;
    if (n > 1) rc = cc_tune_setup(r, pair + 1);
    if (rc == MPI_SUCCESS && pair >= 0 && (rc = cc_comm_hold_pair(cs, pair)) == MPI_SUCCESS) r->pair = pair;
    if (rc != MPI_SUCCESS) {
        for (int i = 0; i < n; i++) r->cand[i] = NULL; /* the caller still owns them */
        r->ncand = 0;
        r->plan = NULL;
        cc_request_destroy(r);
        return rc;
    }
    *out = r;
    return MPI_SUCCESS;
}

void cc_mpicall_release(cc_mpicall *c)
{
    for (int i = 0; i < c->ndups; i++) MPI_Type_free(&c->dups[i]);
    c->ndups = 0;
    free(c->owned);
    c->owned = NULL;
    free(c->scratch);
    c->scratch = NULL;
}

int cc_request_new_mpi(Cart_request *out, MPI_Comm user, const char *who, int persistent, const cc_mpicall *call)
{
    Cart_request r = calloc(1, sizeof *r);
    if (!r) {
        cc_mpicall copy = *call;
        cc_mpicall_release(&copy);
        return MPI_ERR_NO_MEM;
    }
    r->persistent = persistent;
    atomic_init(&r->state, CC_REQ_INACTIVE);
    atomic_flag_clear(&r->busy);
    r->mpi = 1;
    r->mreq = MPI_REQUEST_NULL;
    r->call = *call;
    r->user = user;
    r->who = who;
    r->pair = -1;
    *out = r;
    return MPI_SUCCESS;
}

int cc_request_wait_alone(Cart_request r)
{
    if (r->state != CC_REQ_ACTIVE || r->part || r->agreeing || r->ncand > 1) return 0;
    int rc = r->mpi ? MPI_Wait(&r->mreq, MPI_STATUS_IGNORE) : cc_plan_wait(r->plan);
    if (rc != MPI_SUCCESS) r->error = rc;
    r->state = CC_REQ_DONE;
    return 1;
}

void cc_request_destroy(Cart_request r)
{
    if (!r) return;
    if (r->part) {
        cc_part_free(r->part);
        free(r);
        return;
    }
    if (r->mpi) {
        if (r->mreq != MPI_REQUEST_NULL) MPI_Request_free(&r->mreq);
        cc_mpicall_release(&r->call);
        free(r);
        return;
    }
    cc_tune_free(r);
    for (int i = 0; i < r->ncand; i++) {
        if (r->cand[i] && r->cand[i]->cached) cc_plancache_release(r->cs, r->cand[i]);
        else cc_plan_free(r->cand[i]);
    }
    if (r->cs && r->pair >= 0) cc_comm_drop_pair(r->cs, r->pair);
    if (r->cs) cc_comm_release(r->cs);
    free(r);
}

int cc_request_raise(Cart_request r, int code)
{
    if (!r) return cc_error_raise(MPI_COMM_SELF, code);
    if (r->part) /* the same communicator (the early bird's duplicate has its error handler) */
        return r->part->inner    ? cc_request_raise(r->part->inner, code)
               : r->part->nslice ? cc_request_raise(r->part->slice[0], code)
                                 : cc_error_raise(r->part->pcomm, code);
    if (r->mpi) return cc_error_raise(r->user, code);
    cc_comm *c = r->cs;
    if (!atomic_load(&c->user_freed)) return cc_error_raise(r->user, code);
    /* The user's communicator is gone: apply the handler it had through our
     * private one (still alive: the request holds it). */
    if (c->user_eh == MPI_ERRHANDLER_NULL || c->user_eh == MPI_ERRORS_RETURN) return code;
    pthread_mutex_lock(&c->lock);
    MPI_Comm_set_errhandler(c->priv, c->user_eh);
    cc_error_raise(c->priv, code);
    MPI_Comm_set_errhandler(c->priv, MPI_ERRORS_RETURN);
    pthread_mutex_unlock(&c->lock);
    return code;
}

/* An operation MPI runs: (re)start it. */
static int start_mpi(Cart_request r)
{
    r->error = MPI_SUCCESS;
    r->state = CC_REQ_ACTIVE;
    int rc = r->mpersist ? MPI_Start(&r->mreq) : r->call.istart(&r->call, &r->mreq);
    if (rc != MPI_SUCCESS) {
        r->error = rc;
        r->state = CC_REQ_DONE;
    }
    return rc;
}

static int advance_mpi(Cart_request r, int *done)
{
    int rc = MPI_Test(&r->mreq, done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
        r->error = rc;
        *done = 1;
    }
    if (*done) r->state = CC_REQ_DONE;
    return rc;
}

int cc_request_start(Cart_request r)
{
    if (r->part) return cc_part_start(r);
    if (r->mpi) return start_mpi(r);
    if (r->ncand > 1) cc_tune_next(r); /* still tuning: the candidates take turns */
    r->starts++;
    r->error = MPI_SUCCESS;
    r->state = CC_REQ_ACTIVE;
    int rc = cc_plan_start(r->plan);
    if (rc != MPI_SUCCESS) {
        r->error = rc;
        r->state = CC_REQ_DONE;
    }
    return rc;
}

int cc_request_advance(Cart_request r, int *done)
{
    *done = r->state != CC_REQ_ACTIVE;
    if (*done) return MPI_SUCCESS;
    if (r->part) return cc_part_advance(r, done);
    if (r->mpi) return advance_mpi(r, done);
    int rc = MPI_SUCCESS, finished = 0;
    if (!r->agreeing) {
        rc = cc_plan_test(r->plan, &finished);
        if (rc == MPI_SUCCESS && finished && r->ncand > 1) rc = cc_tune_trial_done(r, &finished);
    }
    if (rc == MPI_SUCCESS && r->agreeing) rc = cc_tune_agree(r, &finished);
    if (rc != MPI_SUCCESS) {
        r->error = rc;
        finished = 1;
    }
    if (finished) r->state = CC_REQ_DONE;
    *done = finished;
    return rc;
}

int cc_request_wait_step(Cart_request r)
{
    if (r->state != CC_REQ_ACTIVE) return MPI_SUCCESS;
    if (r->part) return cc_part_wait_step(r);
    if (r->mpi) return MPI_Wait(&r->mreq, MPI_STATUS_IGNORE); /* advance_mpi then sees it done */
    if (r->agreeing) {
        if (r->round >= r->nrounds) return MPI_SUCCESS;
        return cc_waitall(2, r->agree + 2 * r->round);
    }
    return cc_plan_wait_phase(r->plan);
}

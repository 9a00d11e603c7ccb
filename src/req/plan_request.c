/* Requests that run a plan of the library's own (Cartesian schedules,
 * per-edge plans), with the auto-tuning of persistent requests over
 * several candidates (tune.c). */
#include "req/request.h"

#include "base/errors.h"
#include "base/mpi_compat.h"
#include "exec/plancache.h"
#include "req/tune.h"

#include <stdlib.h>

static int plan_start(Cart_request r)
{
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

static int plan_advance(Cart_request r, int *done)
{
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

static int plan_wait_step(Cart_request r)
{
    if (r->agreeing) {
        if (r->round >= r->nrounds) return MPI_SUCCESS;
        return cc_waitall(2, r->agree + 2 * r->round);
    }
    return cc_plan_wait_phase(r->plan);
}

static int plan_wait_alone(Cart_request r)
{
    if (r->agreeing || r->ncand > 1) return 0;
    int rc = cc_plan_wait(r->plan);
    if (rc != MPI_SUCCESS) r->error = rc;
    r->state = CC_REQ_DONE;
    return 1;
}

static int plan_raise(Cart_request r, int code)
{
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

static void plan_destroy(Cart_request r)
{
    cc_tune_free(r);
    for (int i = 0; i < r->ncand; i++) {
        if (r->cand[i] && r->cand[i]->cached) cc_plancache_release(r->cs, r->cand[i]);
        else cc_plan_free(r->cand[i]);
    }
    if (r->cs && r->pair >= 0) cc_comm_drop_pair(r->cs, r->pair);
    if (r->cs) cc_comm_release(r->cs);
}

static const struct cc_req_ops plan_ops = {
    .start = plan_start,
    .advance = plan_advance,
    .wait_step = plan_wait_step,
    .wait_alone = plan_wait_alone,
    .raise = plan_raise,
    .destroy = plan_destroy,
};

int cc_request_new(Cart_request *out, cc_comm *cs, MPI_Comm user, const char *who, int persistent,
                   cc_plan **plans, int n, int pair)
{
    Cart_request r = cc_request_alloc(&plan_ops, user, who, persistent);
    if (!r) return MPI_ERR_NO_MEM;
    r->cs = cs;
    cc_comm_retain(cs);
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

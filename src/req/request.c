#include "req/request.h"

#include "base/errors.h"
#include "base/mpi_compat.h"
#include "exec/plancache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Dissemination rounds for p processes: ceil(log2 p). */
static int rounds_for(int p)
{
    int r = 0;
    while ((1 << r) < p) r++;
    return r;
}

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
    }
    r->plan = plans[0];
    int rc = MPI_SUCCESS;
    if (n > 1) {
        /* Persistent requests of the agreement, made now so that starts
         * create nothing. */
        MPI_Comm c = plans[0]->comm;
        int rank, size;
        MPI_Comm_rank(c, &rank);
        MPI_Comm_size(c, &size);
        r->nrounds = rounds_for(size);
        r->agree = malloc(sizeof(MPI_Request) * (2 * (size_t)r->nrounds + 1));
        if (!r->agree) rc = MPI_ERR_NO_MEM;
        for (int k = 0; rc == MPI_SUCCESS && k < 2 * r->nrounds; k++) r->agree[k] = MPI_REQUEST_NULL;
        for (int k = 0; rc == MPI_SUCCESS && k < r->nrounds; k++) {
            int step = 1 << k, to = (rank + step) % size, from = (rank - step % size + size) % size;
            rc = MPI_Recv_init(r->rbuf, n, MPI_DOUBLE, from, pair + 1, c, &r->agree[2 * k]);
            if (rc == MPI_SUCCESS) rc = MPI_Send_init(r->sbuf, n, MPI_DOUBLE, to, pair + 1, c, &r->agree[2 * k + 1]);
        }
    }
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

void cc_request_destroy(Cart_request r)
{
    if (!r) return;
    if (r->agree)
        for (int i = 0; i < 2 * r->nrounds; i++)
            if (r->agree[i] != MPI_REQUEST_NULL) MPI_Request_free(&r->agree[i]);
    free(r->agree);
    for (int i = 0; i < r->ncand; i++) {
        if (r->cand[i] && r->cand[i]->cached) cc_plancache_release(r->cand[i]);
        else cc_plan_free(r->cand[i]);
    }
    if (r->cs && r->pair >= 0) cc_comm_drop_pair(r->cs, r->pair);
    if (r->cs) cc_comm_release(r->cs);
    free(r);
}

int cc_request_raise(Cart_request r, int code)
{
    if (!r) return cc_error_raise(MPI_COMM_SELF, code);
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

int cc_request_start(Cart_request r)
{
    if (r->ncand > 1) { /* still tuning: the candidates take turns */
        r->plan = r->cand[r->starts % r->ncand];
        r->t0 = MPI_Wtime();
    }
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

/* After the trials: keep the candidate whose slowest process was fastest --
 * but the model's favourite (candidate 0) unless another beat it clearly:
 * early starts are noisy (cold caches, processes arriving late). */
static void settle(Cart_request r)
{
    int best = 0;
    for (int i = 1; i < r->ncand; i++)
        if (r->sbuf[i] < r->sbuf[best]) best = i;
    if (r->sbuf[best] > 0.9 * r->sbuf[0]) best = 0;
    r->plan = r->cand[best];
    if (cc_verbose() && r->cs->nbh->rank == 0) {
        fprintf(stderr, "cartcoll: %s tuned:", r->who);
        for (int i = 0; i < r->ncand; i++)
            fprintf(stderr, " %s/%s %.1f us%s", cc_algorithm_name(r->cand[i]->algorithm),
                    cc_executor_name(r->cand[i]->executor), r->sbuf[i] * 1e6, i == best ? " (chosen)" : "");
        fprintf(stderr, "\n");
    }
    for (int i = 0; i < r->ncand; i++)
        if (i != best) cc_plan_free(r->cand[i]);
    r->cand[0] = r->plan;
    r->ncand = 1;
    for (int i = 0; i < 2 * r->nrounds; i++) MPI_Request_free(&r->agree[i]);
    free(r->agree);
    r->agree = NULL;
    r->nrounds = 0;
}

/* One dissemination round of the agreement (maximum of the timings). */
static int agree_step(Cart_request r, int *finished)
{
    *finished = 0;
    if (r->round < r->nrounds) {
        int flag, rc = cc_testall(2, r->agree + 2 * r->round, &flag);
        if (rc != MPI_SUCCESS) return rc;
        if (!flag) return MPI_SUCCESS;
        for (int i = 0; i < r->ncand; i++)
            if (r->rbuf[i] > r->sbuf[i]) r->sbuf[i] = r->rbuf[i];
        if (++r->round < r->nrounds) return MPI_Startall(2, r->agree + 2 * r->round);
    }
    *finished = 1;
    return MPI_SUCCESS;
}

int cc_request_advance(Cart_request r, int *done)
{
    *done = r->state != CC_REQ_ACTIVE;
    if (*done) return MPI_SUCCESS;
    int rc = MPI_SUCCESS, finished = 0;
    if (!r->agreeing) {
        rc = cc_plan_test(r->plan, &finished);
        if (rc == MPI_SUCCESS && finished && r->ncand > 1) {
            int k = (r->starts - 1) % r->ncand;
            double t = MPI_Wtime() - r->t0;
            if (t < r->best[k]) r->best[k] = t;
            finished = 0;
            if (r->starts < CC_TUNE_TRIALS * r->ncand) {
                finished = 1;
            } else { /* last trial: agree on the timings */
                memcpy(r->sbuf, r->best, sizeof(double) * (size_t)r->ncand);
                r->agreeing = 1;
                r->round = 0;
                if (r->nrounds > 0) rc = MPI_Startall(2, r->agree);
            }
        }
    }
    if (rc == MPI_SUCCESS && r->agreeing) {
        rc = agree_step(r, &finished);
        if (rc == MPI_SUCCESS && finished) {
            r->agreeing = 0;
            settle(r);
        }
    }
    if (rc != MPI_SUCCESS) {
        r->error = rc;
        finished = 1;
    }
    if (finished) r->state = CC_REQ_DONE;
    *done = finished;
    return rc;
}

int cc_request_block(Cart_request r)
{
    if (r->state != CC_REQ_ACTIVE) return MPI_SUCCESS;
    if (r->agreeing) {
        if (r->round >= r->nrounds) return MPI_SUCCESS;
        return cc_waitall(2, r->agree + 2 * r->round);
    }
    return cc_plan_block(r->plan);
}

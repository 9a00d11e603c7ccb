/* Auto-tuning of persistent requests with several candidate plans: each
 * candidate runs CC_TUNE_TRIALS times during the first starts (the fastest
 * run counts), the processes agree on the timings and on how much repeated
 * runs of one plan differed (their noise) with a dissemination reduction
 * over persistent point-to-point requests made at init (maximum over
 * processes, so that all pick the same), and only the chosen plan stays. */
#include "req/tune.h"
#include "req/tune_rule.h"

#include "base/mpi_compat.h"

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

int cc_tune_setup(Cart_request r, int tag)
{
    /* Persistent requests of the agreement, made now so that starts
     * create nothing. */
    MPI_Comm c = r->cand[0]->comm;
    int rank, size, rc = MPI_SUCCESS, n = r->ncand;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    r->nrounds = rounds_for(size);
    r->agree = malloc(sizeof(MPI_Request) * (2 * (size_t)r->nrounds + 1));
    if (!r->agree) return MPI_ERR_NO_MEM;
    for (int k = 0; k < 2 * r->nrounds; k++) r->agree[k] = MPI_REQUEST_NULL;
    for (int k = 0; rc == MPI_SUCCESS && k < r->nrounds; k++) {
        int step = 1 << k, to = (rank + step) % size, from = (rank - step % size + size) % size;
        rc = MPI_Recv_init(r->rbuf, n + 1, MPI_DOUBLE, from, tag, c, &r->agree[2 * k]);
        if (rc == MPI_SUCCESS) rc = MPI_Send_init(r->sbuf, n + 1, MPI_DOUBLE, to, tag, c, &r->agree[2 * k + 1]);
    }
    return rc;
}

void cc_tune_free(Cart_request r)
{
    if (r->agree)
        for (int i = 0; i < 2 * r->nrounds; i++)
            if (r->agree[i] != MPI_REQUEST_NULL) MPI_Request_free(&r->agree[i]);
    free(r->agree);
    r->agree = NULL;
    r->nrounds = 0;
}

void cc_tune_next(Cart_request r)
{
    r->plan = r->cand[r->starts % r->ncand];
    r->t0 = MPI_Wtime();
}

int cc_tune_trial_done(Cart_request r, int *finished)
{
    int k = (r->starts - 1) % r->ncand;
    double t = MPI_Wtime() - r->t0;
    /* the first run of each plan is cold: it counts for the best time,
     * not for the noise */
    if (r->starts > r->ncand && t > r->worst[k]) r->worst[k] = t;
    if (t < r->best[k]) r->best[k] = t;
    *finished = r->starts < CC_TUNE_TRIALS * r->ncand;
    if (*finished) return MPI_SUCCESS;
    /* last trial: agree on the timings and the largest relative spread */
    memcpy(r->sbuf, r->best, sizeof(double) * (size_t)r->ncand);
    double spread = 0;
    for (int i = 0; i < r->ncand; i++)
        if (r->best[i] > 0 && r->worst[i] / r->best[i] - 1 > spread) spread = r->worst[i] / r->best[i] - 1;
    r->sbuf[r->ncand] = spread;
    r->agreeing = 1;
    r->round = 0;
    return r->nrounds > 0 ? MPI_Startall(2, r->agree) : MPI_SUCCESS;
}

/* After the trials: keep the candidate cc_tune_pick names (tune_rule.h),
 * from the slowest process's times. */
static void settle(Cart_request r)
{
    double margin;
    int best = cc_tune_pick(r->sbuf, r->ncand, r->sbuf[r->ncand], &margin);
    r->plan = r->cand[best];
    if (cc_verbose() && r->cs->nbh->rank == 0) {
        fprintf(stderr, "cartcoll: %s tuned:", r->who);
        for (int i = 0; i < r->ncand; i++)
            fprintf(stderr, " %s/%s %.1f us%s", cc_algorithm_name(r->cand[i]->algorithm),
                    cc_executor_name(r->cand[i]->executor), r->sbuf[i] * 1e6, i == best ? " (chosen)" : "");
        fprintf(stderr, "; spread %.1f%%, margin %.1f%%\n", 100 * r->sbuf[r->ncand], 100 * margin);
    }
    for (int i = 0; i < r->ncand; i++)
        if (i != best) cc_plan_free(r->cand[i]);
    r->cand[0] = r->plan;
    r->ncand = 1;
    cc_tune_free(r);
}

/* One dissemination round of the agreement (maximum of the timings). */
static int agree_step(Cart_request r, int *finished)
{
    *finished = 0;
    if (r->round < r->nrounds) {
        int flag, rc = cc_testall(2, r->agree + 2 * r->round, &flag);
        if (rc != MPI_SUCCESS) return rc;
        if (!flag) return MPI_SUCCESS;
        for (int i = 0; i <= r->ncand; i++)
            if (r->rbuf[i] > r->sbuf[i]) r->sbuf[i] = r->rbuf[i];
        if (++r->round < r->nrounds) return MPI_Startall(2, r->agree + 2 * r->round);
    }
    *finished = 1;
    return MPI_SUCCESS;
}

int cc_tune_agree(Cart_request r, int *finished)
{
    int rc = agree_step(r, finished);
    if (rc == MPI_SUCCESS && *finished) {
        r->agreeing = 0;
        settle(r);
    }
    return rc;
}

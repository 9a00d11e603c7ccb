/* Requests for operations MPI itself runs (global and inter-communicator
 * meaning): one MPI request, made at each start by the call's non-blocking
 * MPI function or MPI's persistent collective started with MPI_Start. */
#include "req/request.h"

#include "base/errors.h"

#include <stdlib.h>

void cc_mpirun_release(cc_mpirun *m)
{
    for (int i = 0; i < m->ndups; i++) MPI_Type_free(&m->dups[i]);
    m->ndups = 0;
    free(m->owned);
    m->owned = NULL;
    free(m->scratch);
    m->scratch = NULL;
}

static int mpi_start(Cart_request r)
{
    r->error = MPI_SUCCESS;
    r->state = CC_REQ_ACTIVE;
    int rc = r->mpersist ? MPI_Start(&r->mreq) : r->run.istart(&r->run, &r->mreq);
    if (rc != MPI_SUCCESS) {
        r->error = rc;
        r->state = CC_REQ_DONE;
    }
    return rc;
}

static int mpi_advance(Cart_request r, int *done)
{
    int rc = MPI_Test(&r->mreq, done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
        r->error = rc;
        *done = 1;
    }
    if (*done) r->state = CC_REQ_DONE;
    return rc;
}

/* (mpi_advance then sees it done) */
static int mpi_wait_step(Cart_request r) { return MPI_Wait(&r->mreq, MPI_STATUS_IGNORE); }

static int mpi_wait_alone(Cart_request r)
{
    int rc = MPI_Wait(&r->mreq, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) r->error = rc;
    r->state = CC_REQ_DONE;
    return 1;
}

static int mpi_raise(Cart_request r, int code) { return cc_error_raise(r->user, code); }

static void mpi_destroy(Cart_request r)
{
    if (r->mreq != MPI_REQUEST_NULL) MPI_Request_free(&r->mreq);
    cc_mpirun_release(&r->run);
}

static const struct cc_req_ops mpi_ops = {
    .start = mpi_start,
    .advance = mpi_advance,
    .wait_step = mpi_wait_step,
    .wait_alone = mpi_wait_alone,
    .raise = mpi_raise,
    .destroy = mpi_destroy,
};

int cc_request_new_mpi(Cart_request *out, MPI_Comm user, const char *who, int persistent, const cc_mpirun *run)
{
    Cart_request r = cc_request_alloc(&mpi_ops, user, who, persistent);
    if (!r) {
        cc_mpirun copy = *run;
        cc_mpirun_release(&copy);
        return MPI_ERR_NO_MEM;
    }
    r->run = *run;
    *out = r;
    return MPI_SUCCESS;
}

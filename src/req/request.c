/* Requests: what every kind shares -- making, freeing, reporting errors,
 * the private attachment; the kinds are plan_request.c, mpi_request.c and,
 * a layer above, part/request.c (partitioned). */
#include "req/request.h"

#include "base/errors.h"
#include "req/attach.h"

#include <stdlib.h>

Cart_request cc_request_alloc(const struct cc_req_ops *ops, MPI_Comm user, const char *who, int persistent)
{
    Cart_request r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->ops = ops;
    r->persistent = persistent;
    atomic_init(&r->state, CC_REQ_INACTIVE);
    atomic_flag_clear(&r->busy);
    r->user = user;
    r->who = who;
    r->pair = -1;
    r->mreq = MPI_REQUEST_NULL;
    return r;
}

void cc_request_destroy(Cart_request r)
{
    if (!r) return;
    r->ops->destroy(r);
    if (r->attach_free) r->attach_free(r->attach);
    free(r);
}

int cc_request_raise(Cart_request r, int code)
{
    return r ? r->ops->raise(r, code) : cc_error_raise(MPI_COMM_SELF, code);
}

/* ---- the private attachment (attach.h) ----------------------------------- */

void cc_request_attach(Cart_request r, void *data, void (*destroy)(void *))
{
    r->attach = data;
    r->attach_free = destroy;
}

void *cc_request_attached(Cart_request r) { return r ? r->attach : NULL; }

void *cc_request_detach(Cart_request r)
{
    void *data = r->attach;
    r->attach = NULL;
    r->attach_free = NULL;
    return data;
}

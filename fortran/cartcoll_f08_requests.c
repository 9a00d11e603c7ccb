/* Hand-written glue of the Fortran module cartcoll_f08: the request
 * wrappers (Cart_start / startall / wait / test / waitall / request_free)
 * and the temporaries a call keeps with its request.  Split out of
 * cartcoll_f08_support.c (issue 27 item 8: no file over 600 lines), one
 * concept per file; see cartcoll_f08_support.h and README.md. */

#include "cartcoll_f08_internal.h"

#include "req/attach.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------
 * Temporaries kept with a request until the library frees it: the
 * request's private attachment (req/attach.h), found in O(1) and released
 * by the library with the request however that is freed (also by a
 * completion outside these bindings), so no table keyed by addresses the
 * library may reuse is needed.  A request is used by one thread at a time.
 * ------------------------------------------------------------------------ */

typedef struct ccf_kept kept; /* (cartcoll_f08_internal.h) */

void ccf_free_copies(ccf_copy *copy, int n)
{
    for (int i = 0; i < n; i++) {
        free(copy[i].tmp);
        free(copy[i].d);
    }
}

static void free_kept(void *data)
{
    kept *k = data;
    if (!k) return;
    ccf_release(k->mem, k->nmem, k->types, k->ntypes);
    ccf_free_copies(k->copy, k->ncopy);
    free(k);
}

/* Keep c's temporaries with req; 0 when there is no memory for that
 * (never with async copies: their entry was allocated with them). */
int ccf_keep(ccf_call *c, Cart_request req)
{
    kept *k = c->pre ? c->pre : malloc(sizeof *k);
    if (!k) return 0;
    c->pre = NULL;
    k->mem = c->mem;
    k->nmem = c->nmem;
    k->types = c->types;
    k->ntypes = c->ntypes;
    k->ncopy = c->nacopy;
    memcpy(k->copy, c->acopy, sizeof k->copy);
    k->active = c->async == CCF_NONBLOCKING; /* a persistent request starts inactive */
    c->nacopy = 0;
    cc_request_attach(req, k, free_kept);
    c->mem = NULL;
    c->types = NULL;
    c->nmem = c->ntypes = 0;
    return 1;
}

/* Copy an entry's receive copies back into their sections, once per start. */
static void copy_back(kept *k)
{
    if (!k || !k->active) return;
    for (int i = 0; i < k->ncopy; i++)
        if (k->copy[i].out) ccf_transfer(k->copy[i].d, k->copy[i].tmp, 0);
    k->active = 0;
}

/* Before a completion, which may free the request: take what was kept
 * with it (the copies must outlive the request), for settle(). */
static kept *take(const Cart_request *request)
{
    return request && *request != CART_REQUEST_NULL ? cc_request_detach(*request) : NULL;
}

/* After it: the copies go back into the sections when the request
 * completed (done); what was kept is released once the library has freed
 * the request (*request is then CART_REQUEST_NULL), else it stays with it. */
static void settle(kept *k, const Cart_request *request, int done)
{
    if (!k) return;
    if (done) copy_back(k);
    if (*request == CART_REQUEST_NULL) free_kept(k);
    else cc_request_attach(*request, k, free_kept);
}

/* Before a start: refresh the copies kept with req from their sections
 * (all of them: the parts of a receive buffer the operation does not write
 * must come back unchanged). */
static void refresh(Cart_request req)
{
    kept *k = cc_request_attached(req);
    if (k)
        for (int i = 0; i < k->ncopy; i++) ccf_transfer(k->copy[i].d, k->copy[i].tmp, 1);
}

/* After a successful start: the copies of req go back at its completion. */
static void started(Cart_request req)
{
    kept *k = cc_request_attached(req);
    if (k) k->active = 1;
}

static int any_kept(int count, const Cart_request requests[])
{
    for (int i = 0; i < count; i++)
        if (cc_request_attached(requests[i])) return 1;
    return 0;
}

int cartcoll_f08_cart_start(Cart_request *request)
{
    Cart_request r = request ? *request : CART_REQUEST_NULL;
    refresh(r);
    int rc = Cart_start(request);
    if (rc == MPI_SUCCESS) started(r);
    return rc;
}

int cartcoll_f08_cart_startall(int count, Cart_request requests[])
{
    if (count <= 0 || !requests || !any_kept(count, requests)) return Cart_startall(count, requests);
    for (int i = 0; i < count; i++) refresh(requests[i]);
    int rc = Cart_startall(count, requests);
    if (rc == MPI_SUCCESS)
        for (int i = 0; i < count; i++) started(requests[i]);
    return rc;
}

int cartcoll_f08_cart_wait(Cart_request *request)
{
    kept *k = take(request);
    int rc = Cart_wait(request);
    settle(k, request, rc == MPI_SUCCESS);
    return rc;
}

int cartcoll_f08_cart_test(Cart_request *request, int *flag)
{
    kept *k = take(request);
    int rc = Cart_test(request, flag);
    settle(k, request, rc == MPI_SUCCESS && *flag);
    return rc;
}

/* (the library frees what was kept with the request) */
int cartcoll_f08_cart_request_free(Cart_request *request) { return Cart_request_free(request); }

int cartcoll_f08_cart_waitall(int count, Cart_request requests[])
{
    if (count <= 0 || !requests || !any_kept(count, requests)) return Cart_waitall(count, requests);
    kept **k = malloc(sizeof *k * (size_t)count);
    for (int i = 0; k && i < count; i++) k[i] = take(&requests[i]);
    int rc = Cart_waitall(count, requests);
    /* Requests completed before a failure are freed too: release those (and
     * copy them back); a persistent one counts as completed only when all
     * did. */
    for (int i = 0; k && i < count; i++)
        settle(k[i], &requests[i], rc == MPI_SUCCESS || requests[i] == CART_REQUEST_NULL);
    free(k);
    return rc;
}

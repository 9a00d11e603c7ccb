/* Cart_start, Cart_startall, Cart_wait, Cart_waitall, Cart_test,
 * Cart_request_free: MPI request semantics. */
#include "cartcoll.h"

#include "base/errors.h"
#include "req/request.h"

#include <stdio.h>


/* Checks for starting r; returns an error code (raised) or MPI_SUCCESS. */
static int check_startable(Cart_request *request, const char *who, int index)
{
    Cart_request r = request ? *request : CART_REQUEST_NULL;
    int cls = MPI_ERR_REQUEST;
    const char *what;
    if (!request) cls = MPI_ERR_ARG, what = "request is NULL";
    else if (r == CART_REQUEST_NULL) what = "the request is CART_REQUEST_NULL";
    else if (!r->persistent) what = "the request of a non-blocking call cannot be started (only persistent ones)";
    else if (r->state != CC_REQ_INACTIVE) what = "the request is still active; complete it with Cart_wait or Cart_test first";
    else return MPI_SUCCESS;
    char where[32] = "";
    if (index >= 0) snprintf(where, sizeof where, "requests[%d]: ", index);
    return cc_request_raise(r, cc_error_code(cls, "%s: %s%s", who, where, what));
}

/* The same request twice in one array would be completed (and freed)
 * twice.  Sorting a copy would allocate; arrays are short, compare pairs. */
static int check_distinct(int count, Cart_request requests[], const char *who)
{
    for (int i = 1; i < count; i++) {
        if (requests[i] == CART_REQUEST_NULL) continue;
        for (int j = 0; j < i; j++)
            if (requests[j] == requests[i])
                return cc_request_raise(requests[i], cc_error_code(MPI_ERR_REQUEST,
                                        "%s: requests[%d] and requests[%d] are the same request", who, j, i));
    }
    return MPI_SUCCESS;
}

static int start(Cart_request r, const char *who)
{
    cc_request_lock(r);
    int rc = cc_request_start(r);
    cc_request_unlock(r);
    if (rc != MPI_SUCCESS) {
        r->state = CC_REQ_INACTIVE;
        return cc_request_raise(r, cc_error_mpi_code(rc, who));
    }
    cc_progress_add(r);
    return MPI_SUCCESS;
}

int Cart_start(Cart_request *request)
{
    int rc = check_startable(request, "Cart_start", -1);
    return rc != MPI_SUCCESS ? rc : start(*request, "Cart_start");
}

int Cart_startall(int count, Cart_request requests[])
{
    if (count < 0) return cc_error(MPI_COMM_SELF, MPI_ERR_COUNT, "Cart_startall: count = %d is negative", count);
    if (count > 0 && !requests) return cc_error(MPI_COMM_SELF, MPI_ERR_ARG, "Cart_startall: requests is NULL");
    for (int i = 0; i < count; i++) {
        int rc = check_startable(&requests[i], "Cart_startall", i);
        if (rc != MPI_SUCCESS) return rc;
    }
    int rc = check_distinct(count, requests, "Cart_startall");
    for (int i = 0; i < count && rc == MPI_SUCCESS; i++) rc = start(requests[i], "Cart_startall");
    return rc;
}

/* r finished its run: make it inactive (persistent) or free it, and report
 * a failure of the run. */
static int complete(Cart_request *request, const char *who)
{
    Cart_request r = *request;
    cc_progress_remove(r);
    int err = r->error;
    if (r->persistent) r->state = CC_REQ_INACTIVE;
    if (err != MPI_SUCCESS) {
        char what[128];
        snprintf(what, sizeof what, "%s: the operation started by %s failed", who, r->who);
        err = cc_error_mpi_code(err, what);
        /* raise while the request (and what it knows of its communicator) lives */
        cc_request_raise(r, err);
    }
    if (!r->persistent) {
        cc_request_destroy(r);
        *request = CART_REQUEST_NULL;
    }
    return err;
}

/* Advance r until done, advancing other requests meanwhile; block in MPI
 * only when nothing else is waiting for progress. */
static void drive(Cart_request r)
{
    cc_request_lock(r);
    for (;;) {
        int done = 0;
#ifdef CARTCOLL_TEST_LEAKS
        /* SimGrid 3.32 never drops a receive that MPI_Test completed from
         * its process's list of activities, which every later message
         * searches: the simulation slows down quadratically in the calls.
         * Alone, a request is finished by waits only. */
        if (cc_progress_others(r) == 0 && cc_request_wait_alone(r)) break;
#endif
        cc_request_advance(r, &done);
        if (done) break;
        if (cc_progress_others(r) == 0) {
            int rc = cc_request_wait_step(r);
            if (rc != MPI_SUCCESS) {
                r->error = rc;
                r->state = CC_REQ_DONE;
            }
        }
    }
    cc_request_unlock(r);
}

int Cart_wait(Cart_request *request)
{
    if (!request) return cc_error(MPI_COMM_SELF, MPI_ERR_ARG, "Cart_wait: request is NULL");
    Cart_request r = *request;
    if (r == CART_REQUEST_NULL || r->state == CC_REQ_INACTIVE) return MPI_SUCCESS;
    drive(r);
    return complete(request, "Cart_wait");
}

int Cart_test(Cart_request *request, int *flag)
{
    if (!request) return cc_error(MPI_COMM_SELF, MPI_ERR_ARG, "Cart_test: request is NULL");
    if (!flag) return cc_request_raise(*request, cc_error_code(MPI_ERR_ARG, "Cart_test: flag is NULL"));
    Cart_request r = *request;
    *flag = 1;
    if (r == CART_REQUEST_NULL || r->state == CC_REQ_INACTIVE) return MPI_SUCCESS;
    int done = 0;
    if (cc_request_trylock(r)) {
        cc_request_advance(r, &done);
        cc_request_unlock(r);
    }
    if (!done) {
        cc_progress_others(r);
        *flag = 0;
        return MPI_SUCCESS;
    }
    return complete(request, "Cart_test");
}

int Cart_waitall(int count, Cart_request requests[])
{
    if (count < 0) return cc_error(MPI_COMM_SELF, MPI_ERR_COUNT, "Cart_waitall: count = %d is negative", count);
    if (count > 0 && !requests) return cc_error(MPI_COMM_SELF, MPI_ERR_ARG, "Cart_waitall: requests is NULL");
    int rc = check_distinct(count, requests, "Cart_waitall");
    if (rc != MPI_SUCCESS) return rc;
    for (;;) {
        int pending = 0;
        Cart_request last = NULL;
        for (int i = 0; i < count; i++) {
            Cart_request r = requests[i];
            if (!r || r->state != CC_REQ_ACTIVE || !cc_request_trylock(r)) {
                if (r && r->state == CC_REQ_ACTIVE) pending++; /* another thread advances it */
                continue;
            }
            int done = 0;
            cc_request_advance(r, &done);
            cc_request_unlock(r);
            if (!done) {
                pending++;
                last = r;
            }
        }
        if (pending == 0) break;
        if (pending == 1 && last) drive(last); /* advances everything else too */
        else cc_progress_others(NULL);
    }
    int first_error = MPI_SUCCESS;
    for (int i = 0; i < count; i++) {
        if (!requests[i] || requests[i]->state != CC_REQ_DONE) continue;
        rc = complete(&requests[i], "Cart_waitall");
        if (rc != MPI_SUCCESS && first_error == MPI_SUCCESS) first_error = rc;
    }
    return first_error;
}

int Cart_request_free(Cart_request *request)
{
    if (!request) return cc_error(MPI_COMM_SELF, MPI_ERR_ARG, "Cart_request_free: request is NULL");
    Cart_request r = *request;
    if (r == CART_REQUEST_NULL)
        return cc_error(MPI_COMM_SELF, MPI_ERR_REQUEST, "Cart_request_free: the request is CART_REQUEST_NULL");
    /* (CC_REQ_DONE is active too: finished by progress or by a marking
     * thread, but not yet completed by Cart_wait / Cart_test) */
    if (r->state != CC_REQ_INACTIVE)
        return cc_request_raise(r, cc_error_code(MPI_ERR_REQUEST,
                        "Cart_request_free: the request is active; complete it with Cart_wait or Cart_test first "
                        "(as MPI requires for collective operations)"));
    cc_progress_remove(r);
    cc_request_destroy(r);
    *request = CART_REQUEST_NULL;
    return MPI_SUCCESS;
}

/* Marks and polls of a partitioned request (part.h): Cart_pready*,
 * lock-free, and Cart_parrived*; what a mark starts and what has arrived
 * are the transport's (cc_part_ops). */
#include "part/part.h"

#include "base/errors.h"
#include "req/request.h"

#include <stdio.h>

/* An error of a Cart_pready* call.  Only the thread that made the request
 * (or any thread under MPI_THREAD_MULTIPLE) may call MPI, so elsewhere the
 * bare error class is returned and no handler is invoked. */
#define PFAIL(r, cls, ...)                                                                                   \
    ((r) && (r)->part && cc_part_may_mpi((r)->part) ? cc_request_raise((r), cc_error_code((cls), __VA_ARGS__)) \
                                                    : (cls))

/* r must be an active partitioned request; returns an error or MPI_SUCCESS. */
static int check_ready(Cart_request r, const char *who, int count)
{
    if (r == CART_REQUEST_NULL) return PFAIL(r, MPI_ERR_REQUEST, "%s: the request is CART_REQUEST_NULL", who);
    if (!r->part)
        return PFAIL(r, MPI_ERR_REQUEST, "%s: the request is not partitioned (made by %s, not a Cart_p*_init)", who,
                     r->who);
    /* (CC_REQ_DONE is still active for the caller: another thread -- the
     * progress thread -- may have finished an operation that needs no mark
     * from this process before its empty Cart_pready_list) */
    if (r->state == CC_REQ_INACTIVE)
        return PFAIL(r, MPI_ERR_REQUEST, "%s: the request is not active: Cart_start it before marking partitions",
                     who);
    if (r->part->send_kind == CC_PART_NONE && count > 0)
        return PFAIL(r, MPI_ERR_REQUEST,
                     "%s: this process sends no partitions in this operation (%s: only the root sends)", who, r->who);
    return MPI_SUCCESS;
}

/* Partition numbers of destination `dest`'s block (BLOCKS) or of the
 * buffer (WHOLE): [*lo, *hi). */
static void dest_range(const cc_part *p, int dest, int *lo, int *hi)
{
    if (p->send_kind == CC_PART_BLOCKS) *lo = p->soff[dest], *hi = p->soff[dest + 1];
    else *lo = 0, *hi = p->nsend;
}

/* A mark in two steps, so that a call that fails marks nothing.  claim()
 * records partition k as marked for destination dest (dest < 0: for every
 * destination) in marks / pdmark, which serve only to refuse a second
 * mark: it returns 1, changing nothing, where k is marked already, and
 * unclaim() takes a claim back.  mark() then counts the mark and starts
 * what it completes. */
static int claim(cc_part *p, int k, int dest)
{
    if (p->send_kind == CC_PART_WHOLE && dest >= 0 && p->pdmark) { /* (early bird, pipelined) */
        int expect = 0;
        if (!atomic_compare_exchange_strong(&p->pdmark[dest * p->nsend + k], &expect, 1)) return 1;
        atomic_fetch_add(&p->marks[k], 1);
        return 0;
    }
    if (p->send_kind == CC_PART_WHOLE && dest >= 0) {
        if (atomic_fetch_add(&p->marks[k], 1) < p->ndest) return 0;
        atomic_fetch_sub(&p->marks[k], 1);
        return 1;
    }
    int want = p->send_kind == CC_PART_WHOLE ? p->ndest : 1, expect = 0;
    if (!atomic_compare_exchange_strong(&p->marks[k], &expect, want)) return 1;
    if (p->send_kind == CC_PART_WHOLE && p->pdmark)
        for (int d = 0; d < want; d++) atomic_store(&p->pdmark[d * p->nsend + k], 1);
    return 0;
}

static void unclaim(cc_part *p, int k, int dest)
{
    if (p->send_kind == CC_PART_WHOLE && dest >= 0) {
        if (p->pdmark) atomic_store(&p->pdmark[dest * p->nsend + k], 0);
        atomic_fetch_sub(&p->marks[k], 1);
        return;
    }
    if (p->send_kind == CC_PART_WHOLE && p->pdmark)
        for (int d = 0; d < p->ndest; d++) atomic_store(&p->pdmark[d * p->nsend + k], 0);
    atomic_store(&p->marks[k], 0);
}

/* Count the claimed mark of partition k (for dest, or for every
 * destination it counts for) and start what it completes: the
 * transport's. */
static int mark(Cart_request r, int k, int dest)
{
    cc_part *p = r->part;
    if (p->send_kind == CC_PART_WHOLE && dest >= 0) return p->ops->mark(r, k, dest, 1);
    return p->ops->mark(r, k, -1, p->send_kind == CC_PART_WHOLE ? p->ndest : 1);
}

/* Mark partitions of one destination's block (dest >= 0) or of the whole
 * send buffer (dest < 0): n numbers from list, or lo..hi when list is NULL.
 * Every number is checked and claimed before any is marked: a call that
 * fails leaves every mark as it was. */
static int pready_set(const char *who, int lo, int hi, int n, const int *list, int dest, Cart_request r)
{
    int rc = check_ready(r, who, list ? n : 1);
    if (rc != MPI_SUCCESS || (list && n == 0)) return rc; /* an empty list marks nothing */
    cc_part *p = r->part;
    if (dest >= 0 && p->only_dest >= 0) {
        if (dest != p->only_dest)
            return PFAIL(r, MPI_ERR_RANK, "%s: dest = %d is not the destination (the root, %d)", who, dest,
                         p->only_dest);
        dest = 0;
    } else if (dest >= p->ndest) {
        return PFAIL(r, MPI_ERR_RANK, "%s: dest = %d is not a destination (0 ... %d)", who, dest, p->ndest - 1);
    }
    int first = 0, end = p->nsend;
    if (dest >= 0) dest_range(p, dest, &first, &end);
    if (!list && lo > hi)
        return PFAIL(r, MPI_ERR_ARG, "%s: partition_low = %d is above partition_high = %d", who, lo, hi);
    int count = list ? n : hi - lo + 1;
    for (int i = 0; i < count; i++) {
        int k = list ? list[i] : lo + i;
        if (k < 0 || k >= end - first)
            return PFAIL(r, MPI_ERR_ARG, "%s: partition %d is out of range (0 ... %d%s)", who, k, end - first - 1,
                         dest >= 0 ? " in this destination's block" : "");
    }
    int mdest = p->send_kind == CC_PART_BLOCKS ? -1 : dest, i;
    for (i = 0; i < count; i++)
        if (claim(p, first + (list ? list[i] : lo + i), mdest)) break;
    if (i < count) {
        int k = list ? list[i] : lo + i, at = i, twice = -1;
        for (int j = 0; list && j < i && twice < 0; j++)
            if (list[j] == k) twice = j;
        while (i-- > 0) unclaim(p, first + (list ? list[i] : lo + i), mdest);
        char d[48] = "";
        if (dest >= 0 && p->send_kind == CC_PART_WHOLE) snprintf(d, sizeof d, " for destination %d", dest);
        if (twice >= 0)
            return PFAIL(r, MPI_ERR_ARG, "%s: partition %d is given twice (partitions[%d] and [%d]); nothing was "
                         "marked", who, k, twice, at);
        return PFAIL(r, MPI_ERR_ARG, "%s: partition %d is already ready%s; nothing was marked", who, k, d);
    }
    for (i = 0; i < count; i++) {
        int rc2 = mark(r, first + (list ? list[i] : lo + i), mdest);
        if (rc == MPI_SUCCESS) rc = rc2;
    }
    return rc;
}

int Cart_pready(int partition, Cart_request request)
{
    return pready_set("Cart_pready", partition, partition, 1, NULL, -1, request);
}

int Cart_pready_range(int partition_low, int partition_high, Cart_request request)
{
    return pready_set("Cart_pready_range", partition_low, partition_high, 1, NULL, -1, request);
}

int Cart_pready_list(int length, const int partitions[], Cart_request request)
{
    if (length < 0) return PFAIL(request, MPI_ERR_COUNT, "Cart_pready_list: length = %d is negative", length);
    if (length > 0 && !partitions) return PFAIL(request, MPI_ERR_ARG, "Cart_pready_list: partitions is NULL");
    return pready_set("Cart_pready_list", 0, -1, length, length > 0 ? partitions : (const int[]){ 0 }, -1,
                      request);
}

static int check_dest(const char *who, int dest, Cart_request r)
{
    if (dest < 0) return PFAIL(r, MPI_ERR_RANK, "%s: dest = %d is negative", who, dest);
    return MPI_SUCCESS;
}

int Cart_pready_to(int partition, int dest, Cart_request request)
{
    int rc = check_dest("Cart_pready_to", dest, request);
    return rc != MPI_SUCCESS ? rc : pready_set("Cart_pready_to", partition, partition, 1, NULL, dest, request);
}

int Cart_pready_range_to(int partition_low, int partition_high, int dest, Cart_request request)
{
    int rc = check_dest("Cart_pready_range_to", dest, request);
    return rc != MPI_SUCCESS ? rc
                             : pready_set("Cart_pready_range_to", partition_low, partition_high, 1, NULL, dest,
                                          request);
}

int Cart_pready_list_to(int length, const int partitions[], int dest, Cart_request request)
{
    int rc = check_dest("Cart_pready_list_to", dest, request);
    if (rc != MPI_SUCCESS) return rc;
    if (length < 0) return PFAIL(request, MPI_ERR_COUNT, "Cart_pready_list_to: length = %d is negative", length);
    if (length > 0 && !partitions) return PFAIL(request, MPI_ERR_ARG, "Cart_pready_list_to: partitions is NULL");
    return pready_set("Cart_pready_list_to", 0, -1, length, length > 0 ? partitions : (const int[]){ 0 }, dest,
                      request);
}

/* ---- Cart_parrived* -------------------------------------------------- */

static int parrived(const char *who, Cart_request r, int partition, int source, int *flag)
{
    if (r == CART_REQUEST_NULL) return PFAIL(r, MPI_ERR_REQUEST, "%s: the request is CART_REQUEST_NULL", who);
    if (!r->part)
        return PFAIL(r, MPI_ERR_REQUEST, "%s: the request is not partitioned (made by %s, not a Cart_p*_init)", who,
                     r->who);
    if (!flag) return PFAIL(r, MPI_ERR_ARG, "%s: flag is NULL", who);
    cc_part *p = r->part;
    if (source >= 0 && source >= p->nsrc)
        return PFAIL(r, MPI_ERR_RANK, "%s: source = %d is not a source (0 ... %d)", who, source, p->nsrc - 1);
    int n = p->nrecv;
    if (source >= 0 && !p->rwhole) n = p->roff[source + 1] - p->roff[source];
    if (partition < 0 || partition >= n)
        return PFAIL(r, MPI_ERR_ARG, "%s: partition %d is out of range (%d receive partitions%s)", who, partition, n,
                     source >= 0 ? " from this source" : "");
    if (r->state == CC_REQ_INACTIVE) {
        if (p->cycles == 0)
            return PFAIL(r, MPI_ERR_REQUEST, "%s: the request has never been started", who);
        *flag = 1; /* the last operation's values are final */
        return MPI_SUCCESS;
    }
    int done = r->state == CC_REQ_DONE;
    /* Only a thread that may call MPI advances anything (under
     * MPI_THREAD_FUNNELED the others just read what is known), and only
     * while it holds the request: two threads must never test the same MPI
     * request at once (Cart_wait in one, Cart_parrived in another). */
    int may_mpi = cc_part_may_mpi(p);
    if (!done && p->ops->arrived) {
        int rc = p->ops->arrived(r, partition, source, may_mpi, flag);
        return rc == MPI_SUCCESS ? rc : PFAIL(r, MPI_ERR_OTHER, "%s: testing the receives failed", who);
    }
    /* Only final values count: the partition has arrived once the
     * operation has completed here. */
    if (!done && may_mpi && cc_request_trylock(r)) {
        cc_request_advance(r, &done);
        cc_request_unlock(r);
    }
    if (!done && may_mpi) cc_progress_others(r);
    *flag = done;
    return MPI_SUCCESS;
}

int Cart_parrived(Cart_request request, int partition, int *flag)
{
    return parrived("Cart_parrived", request, partition, -1, flag);
}

int Cart_parrived_from(Cart_request request, int partition, int source, int *flag)
{
    if (source < 0) return PFAIL(request, MPI_ERR_RANK, "Cart_parrived_from: source = %d is negative", source);
    return parrived("Cart_parrived_from", request, partition, source, flag);
}

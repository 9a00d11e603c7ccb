/* Partitioned requests: their life cycle (start, advance, free) and
 * Cart_pready*, Cart_parrived* (see partitioned.h). */
#include "req/partitioned.h"

#include "base/errors.h"
#include "base/mpi_compat.h"
#include "req/request.h"
#include "util/alloc.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cc_req_ops part_ops; /* the request's table of operations (after cc_part_wait_step) */

void cc_part_free(cc_part *p)
{
    if (!p) return;
    cc_request_destroy(p->inner);
    for (int k = 0; k < p->nslice; k++) cc_request_destroy(p->slice[k]);
    free(p->slice);
    free(p->pack);
    free(p->scount);
    free(p->sstate);
    if (p->direct) {
        for (int k = 0; k < p->nsmsg; k++)
            if (p->sreq[k] != MPI_REQUEST_NULL) MPI_Request_free(&p->sreq[k]);
        for (int k = 0; k < p->nrmsg; k++)
            if (p->rreq[k] != MPI_REQUEST_NULL) MPI_Request_free(&p->rreq[k]);
    }
    if (p->pcomm != MPI_COMM_NULL) MPI_Comm_free(&p->pcomm); /* (early bird, or the slices') */
    free(p->sreq);
    free(p->sstarted);
    free(p->kself);
    free(p->rblk);
    free(p->rcnt);
    free(p->rfrom);
    free(p->mfirst);
    free(p->magg);
    free(p->pmsg);
    free(p->msoff);
    free(p->mroff);
    free(p->mbytes);
    free(p->mmark);
    free(p->pdmark);
    free(p->rreq);
    free(p->rfirst);
    free(p->soff);
    free(p->roff);
    free(p->marks);
    free(p);
}

static int *copy_ints(const int *a, int n)
{
    int *c = cc_alloc_array((size_t)n, sizeof(int));
    if (c && n > 0) memcpy(c, a, sizeof(int) * (size_t)n);
    return c;
}

int cc_part_request_new(Cart_request *out, MPI_Comm user, const char *who, Cart_request inner, int send_kind,
                        int ndest, int nsend, const int *soff, int nsrc, int nrecv, const int *roff, int rwhole)
{
    Cart_request r = cc_request_alloc(&part_ops, user, who, 1);
    cc_part *p = calloc(1, sizeof *p);
    if (!r || !p) {
        free(r);
        free(p);
        cc_request_destroy(inner);
        return MPI_ERR_NO_MEM;
    }
    p->inner = inner;
    p->send_kind = send_kind;
    p->ndest = ndest;
    p->nsend = nsend;
    p->nsrc = nsrc;
    p->nrecv = nrecv;
    p->rwhole = rwhole;
    p->only_dest = -1;
    p->need = send_kind == CC_PART_WHOLE ? nsend * ndest : nsend;
    p->marks = cc_alloc_zarray((size_t)(nsend > 0 ? nsend : 1), sizeof *p->marks);
    p->soff = send_kind == CC_PART_BLOCKS ? copy_ints(soff, ndest + 1) : NULL;
    p->roff = !rwhole && nsrc > 0 ? copy_ints(roff, nsrc + 1) : NULL;
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    p->multiple = level == MPI_THREAD_MULTIPLE;
    p->owner = pthread_self();
    atomic_init(&p->nready, 0);
    atomic_init(&p->started, 0);
    atomic_init(&p->nstarted, 0);
    p->pcomm = MPI_COMM_NULL;
    if (!p->marks || (send_kind == CC_PART_BLOCKS && !p->soff) || (!rwhole && nsrc > 0 && !p->roff)) {
        cc_part_free(p);
        free(r);
        return MPI_ERR_NO_MEM;
    }
    r->part = p;
    *out = r;
    return MPI_SUCCESS;
}

int cc_part_pipeline(Cart_request r, Cart_request *slices, int n, int group, int selems, int rblock, int rcount,
                     int ordered, MPI_Comm own)
{
    cc_part *p = r->part;
    p->slice = cc_alloc_array((size_t)n, sizeof(Cart_request));
    p->scount = cc_alloc_zarray((size_t)n, sizeof *p->scount);
    p->sstate = cc_alloc_zarray((size_t)n, sizeof *p->sstate);
    /* one buffer to every destination: marks per destination (Cart_pready_to) */
    if (p->send_kind == CC_PART_WHOLE)
        p->pdmark = cc_alloc_zarray((size_t)p->nsend * (size_t)p->ndest + 1, sizeof *p->pdmark);
    if (!p->slice || !p->scount || !p->sstate || (p->send_kind == CC_PART_WHOLE && !p->pdmark)) {
        for (int k = 0; k < n; k++) cc_request_destroy(slices[k]);
        if (own != MPI_COMM_NULL) MPI_Comm_free(&own);
        return MPI_ERR_NO_MEM;
    }
    p->pcomm = own; /* freed after the slices */
    for (int k = 0; k < n; k++) p->slice[k] = slices[k];
    p->nslice = n;
    p->sgroup = group;
    p->sneed = group * p->ndest;
    p->sordered = ordered;
    p->selems = selems;
    p->rblock = rblock;
    p->rcount = rcount > 0 ? rcount : 1;
    cc_request_destroy(p->inner);
    p->inner = CART_REQUEST_NULL;
    return MPI_SUCCESS;
}

/* Pipelined: start every waiting slice whose partitions are all ready
 * (caller holds r->busy). */
static int start_slices(Cart_request r)
{
    cc_part *p = r->part;
    for (int k = 0; k < p->nslice; k++) {
        if (atomic_load(&p->sstate[k]) != 0) continue;
        if (atomic_load(&p->scount[k]) < p->sneed) {
            if (p->sordered) break;
            continue;
        }
        atomic_store(&p->sstate[k], 1);
        for (int i = 0; p->pack && i < p->pack_nb; i++) /* its chunks of every block, contiguous */
            memcpy(p->pack + ((size_t)k * (size_t)p->pack_nb + (size_t)i) * p->pack_cb,
                   p->sbase + (size_t)i * p->pack_bb + (size_t)k * p->pack_cb, p->pack_cb);
        int rc = cc_request_start(p->slice[k]);
        if (rc != MPI_SUCCESS) {
            if (r->error == MPI_SUCCESS) r->error = rc;
            return rc;
        }
    }
    return MPI_SUCCESS;
}

/* Pipelined: start what is ready, advance what runs; done when every
 * slice has completed (or one failed). */
static int advance_sliced(Cart_request r, int *done)
{
    cc_part *p = r->part;
    int rc = start_slices(r);
    for (int k = 0; k < p->nslice; k++) {
        if (atomic_load(&p->sstate[k]) != 1) continue;
        int fin = 0, rc2 = cc_request_advance(p->slice[k], &fin);
        if (rc2 != MPI_SUCCESS && rc == MPI_SUCCESS) rc = rc2;
        if (!fin) continue;
        if (r->error == MPI_SUCCESS) r->error = rc2 != MPI_SUCCESS ? rc2 : p->slice[k]->error;
        p->slice[k]->state = CC_REQ_INACTIVE;
        atomic_store(&p->sstate[k], 2);
        p->nsdone++;
    }
    if (p->nsdone == p->nslice || r->error != MPI_SUCCESS) {
        p->cycles++;
        r->state = CC_REQ_DONE;
        *done = 1;
    }
    return rc;
}

/* Pipelined: block only once every slice runs (a slice still waiting for
 * partitions is started by this thread's next advance). */
static int wait_sliced(Cart_request r)
{
    cc_part *p = r->part;
    for (int k = 0; k < p->nslice; k++)
        if (atomic_load(&p->sstate[k]) == 0) {
            sched_yield();
            return MPI_SUCCESS;
        }
    for (int k = 0; k < p->nslice; k++)
        if (atomic_load(&p->sstate[k]) == 1) return cc_request_wait_step(p->slice[k]);
    return MPI_SUCCESS;
}

/* Start the inner operation once per cycle (caller holds r->busy). */
static int start_inner(Cart_request r)
{
    cc_part *p = r->part;
    int expect = 0;
    if (!atomic_compare_exchange_strong(&p->started, &expect, 1)) return MPI_SUCCESS;
    int rc = cc_request_start(p->inner);
    if (rc != MPI_SUCCESS) {
        p->inner->state = CC_REQ_INACTIVE;
        r->error = rc;
        r->state = CC_REQ_DONE;
    }
    return rc;
}

/* Early bird: start send message k once (any thread allowed to call MPI;
 * any thread at all for a message to this process itself, which is copied
 * here: sstarted goes 0 -> 1 (claimed) -> 2 (copied)). */
static int start_send(Cart_request r, int k)
{
    cc_part *p = r->part;
    int expect = 0;
    if (!atomic_compare_exchange_strong(&p->sstarted[k], &expect, 1)) return MPI_SUCCESS;
    if (p->kself[k]) {
        memcpy(p->rbase + p->mroff[k], p->sbase + p->msoff[k], p->mbytes[k]);
        atomic_store(&p->sstarted[k], 2);
        atomic_fetch_add(&p->nstarted, 1);
        return MPI_SUCCESS;
    }
    /* (MPI_REQUEST_NULL: a block off a mesh, to MPI_PROC_NULL) */
    int rc = p->sreq[k] != MPI_REQUEST_NULL ? MPI_Start(&p->sreq[k]) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS) r->error = rc;
    atomic_fetch_add(&p->nstarted, 1);
    return rc;
}

int cc_part_start(Cart_request r)
{
    cc_part *p = r->part;
    /* no allocation, no MPI object: counters (and persistent requests) only */
    for (int k = 0; k < p->nsend; k++) atomic_store(&p->marks[k], 0);
    atomic_store(&p->nready, 0);
    atomic_store(&p->started, 0);
    r->error = MPI_SUCCESS;
    r->state = CC_REQ_ACTIVE;
    if (p->nslice) {
        for (int k = 0; k < p->nslice; k++) atomic_store(&p->scount[k], 0), atomic_store(&p->sstate[k], 0);
        if (p->pdmark)
            for (int k = 0; k < p->nsend * p->ndest; k++) atomic_store(&p->pdmark[k], 0);
        p->nsdone = 0;
        /* slices that wait for no mark (nothing sent from here) start now */
        return p->sneed == 0 ? start_slices(r) : MPI_SUCCESS;
    }
    if (p->direct) {
        for (int k = 0; k < p->nsmsg; k++) atomic_store(&p->sstarted[k], 0), atomic_store(&p->mmark[k], 0);
        if (p->pdmark)
            for (int k = 0; k < p->nsend * p->ndest; k++) atomic_store(&p->pdmark[k], 0);
        atomic_store(&p->nstarted, 0);
        atomic_store(&p->started, 1);
        int rc = MPI_SUCCESS;
        for (int m = 0; m < p->nrmsg && rc == MPI_SUCCESS; m++) /* (none from this process itself) */
            if (p->rreq[m] != MPI_REQUEST_NULL) rc = MPI_Start(&p->rreq[m]);
        if (rc != MPI_SUCCESS) r->error = rc, r->state = CC_REQ_DONE;
        return rc;
    }
    return p->need == 0 ? start_inner(r) : MPI_SUCCESS;
}

/* Early bird progress: start the sends marked by threads that could not;
 * done once every send is started and every message complete. */
static int advance_direct(Cart_request r, int *done)
{
    cc_part *p = r->part;
    int rc = MPI_SUCCESS;
    if (atomic_load(&p->nstarted) < p->nsmsg)
        for (int k = 0; k < p->nsmsg && rc == MPI_SUCCESS; k++)
            if (atomic_load(&p->mmark[k]) == p->magg[k] && !atomic_load(&p->sstarted[k])) rc = start_send(r, k);
    int fs = 0, fr = 0;
    if (rc == MPI_SUCCESS && atomic_load(&p->nstarted) == p->nsmsg) {
        rc = p->nsmsg ? cc_testall(p->nsmsg, p->sreq, &fs) : (fs = 1, MPI_SUCCESS);
        if (rc == MPI_SUCCESS && fs)
            rc = p->nrmsg ? cc_testall(p->nrmsg, p->rreq, &fr) : (fr = 1, MPI_SUCCESS);
    } else if (rc == MPI_SUCCESS && p->nrmsg) {
        /* let the receives progress meanwhile */
        int flag, idx;
        do /* every message that has arrived: one progress call may carry several */
            rc = MPI_Testany(p->nrmsg, p->rreq, &idx, &flag, MPI_STATUS_IGNORE);
        while (rc == MPI_SUCCESS && flag && idx != MPI_UNDEFINED);
    }
    if (rc != MPI_SUCCESS && r->error == MPI_SUCCESS) r->error = rc;
    if ((fs && fr) || r->error != MPI_SUCCESS) {
        p->cycles++;
        r->state = CC_REQ_DONE;
        *done = 1;
    }
    return rc;
}

int cc_part_advance(Cart_request r, int *done)
{
    cc_part *p = r->part;
    *done = 0;
    if (p->nslice) return advance_sliced(r, done);
    if (p->direct) return advance_direct(r, done);
    if (!atomic_load(&p->started)) {
        if (atomic_load(&p->nready) < p->need) return MPI_SUCCESS;
        int rc = start_inner(r);
        if (rc != MPI_SUCCESS) {
            *done = 1;
            return rc;
        }
    }
    int finished = 0;
    int rc = cc_request_advance(p->inner, &finished);
    if (finished) {
        r->error = rc != MPI_SUCCESS ? rc : p->inner->error;
        p->inner->state = CC_REQ_INACTIVE;
        p->cycles++;
        r->state = CC_REQ_DONE;
        *done = 1;
    }
    return rc;
}

int cc_part_wait_step(Cart_request r)
{
    cc_part *p = r->part;
    if (p->nslice) return wait_sliced(r);
    if (p->direct) {
        if (atomic_load(&p->nstarted) < p->nsmsg) {
            sched_yield();
            return MPI_SUCCESS;
        }
        int rc = p->nsmsg ? cc_waitall(p->nsmsg, p->sreq) : MPI_SUCCESS;
        if (rc == MPI_SUCCESS && p->nrmsg) rc = cc_waitall(p->nrmsg, p->rreq);
        return rc;
    }
    if (!atomic_load(&p->started)) {
        /* other threads are still marking partitions */
        if (atomic_load(&p->nready) < p->need) sched_yield();
        return MPI_SUCCESS;
    }
    return cc_request_wait_step(p->inner);
}

/* Errors go to the same communicator (the early bird's duplicate has its
 * error handler). */
static int part_raise(Cart_request r, int code)
{
    cc_part *p = r->part;
    return p->inner    ? cc_request_raise(p->inner, code)
           : p->nslice ? cc_request_raise(p->slice[0], code)
                       : cc_error_raise(p->pcomm, code);
}

static void part_destroy(Cart_request r) { cc_part_free(r->part); }

static const struct cc_req_ops part_ops = {
    .start = cc_part_start,
    .advance = cc_part_advance,
    .wait_step = cc_part_wait_step,
    .wait_alone = NULL, /* marks and several MPI requests: always driven */
    .raise = part_raise,
    .destroy = part_destroy,
};

/* ---- Cart_pready* ---------------------------------------------------- */

/* An error of a Cart_pready* call.  Only the thread that made the request
 * (or any thread under MPI_THREAD_MULTIPLE) may call MPI, so elsewhere the
 * bare error class is returned and no handler is invoked. */
#define PFAIL(r, cls, ...)                                                                                   \
    ((r) && (r)->part && ((r)->part->multiple || pthread_equal(pthread_self(), (r)->part->owner))           \
         ? cc_request_raise((r), cc_error_code((cls), __VA_ARGS__))                                          \
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

/* Under MPI_THREAD_MULTIPLE the call that completes the set starts the
 * operation at once, unless another thread is advancing it. */
static void maybe_start(Cart_request r, int k, int added)
{
    cc_part *p = r->part;
    if (p->nslice) {
        /* pipelined: partition k's slice is ready once its partitions of
         * every block are (sneed marks) */
        atomic_fetch_add(&p->nready, added);
        int s = k % (p->nslice * p->sgroup) / p->sgroup;
        if (atomic_fetch_add(&p->scount[s], added) + added != p->sneed || !p->multiple) return;
        if (cc_request_trylock(r)) {
            if (r->state == CC_REQ_ACTIVE) (void)start_slices(r); /* errors: at the wait */
            cc_request_unlock(r);
        }
        return;
    }
    if (atomic_fetch_add(&p->nready, added) + added != p->need || !p->multiple) return;
    if (cc_request_trylock(r)) {
        if (r->state == CC_REQ_ACTIVE) start_inner(r);
        cc_request_unlock(r);
    }
}

/* Partition numbers of destination `dest`'s block (BLOCKS) or of the
 * buffer (WHOLE): [*lo, *hi). */
static void dest_range(const cc_part *p, int dest, int *lo, int *hi)
{
    if (p->send_kind == CC_PART_BLOCKS) *lo = p->soff[dest], *hi = p->soff[dest + 1];
    else *lo = 0, *hi = p->nsend;
}

/* Early bird: one more partition of message m was marked.  Once all of
 * its partitions are, it leaves from this thread where it may call MPI (or
 * needs none: a copy to this process itself), else in the next progress
 * call. */
static int send_marked(Cart_request r, int m)
{
    cc_part *p = r->part;
    if (atomic_fetch_add(&p->mmark[m], 1) + 1 != p->magg[m]) return MPI_SUCCESS;
    if (p->kself[m] || p->multiple || pthread_equal(pthread_self(), p->owner)) return start_send(r, m);
    return MPI_SUCCESS;
}

/* A mark in two steps, so that a call that fails marks nothing.  claim()
 * records partition k as marked for destination dest (dest < 0: for every
 * destination) in marks / pdmark, which serve only to refuse a second
 * mark: it returns 1, changing nothing, where k is marked already, and
 * unclaim() takes a claim back.  mark() then counts the mark and starts
 * what it completes. */
static int claim(cc_part *p, int k, int dest)
{
    if (p->send_kind == CC_PART_WHOLE && dest >= 0 && p->pdmark) { /* early bird, pipelined */
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

static int mark(Cart_request r, int k, int dest)
{
    cc_part *p = r->part;
    if (p->send_kind == CC_PART_WHOLE && dest >= 0) {
        if (!p->pdmark || !p->direct) {
            maybe_start(r, k, 1);
            return MPI_SUCCESS;
        }
        atomic_fetch_add(&p->nready, 1);
        return send_marked(r, p->mfirst[dest] + k / p->agg);
    }
    int want = p->send_kind == CC_PART_WHOLE ? p->ndest : 1;
    if (!p->direct) {
        maybe_start(r, k, want);
        return MPI_SUCCESS;
    }
    atomic_fetch_add(&p->nready, want);
    /* early bird: its message(s) leave now */
    int rc = MPI_SUCCESS;
    for (int d = 0; d < want; d++) {
        int rc2 = send_marked(r, p->send_kind == CC_PART_WHOLE ? p->mfirst[d] + k / p->agg : p->pmsg[k]);
        if (rc == MPI_SUCCESS) rc = rc2;
    }
    return rc;
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
    int may_mpi = p->multiple || pthread_equal(pthread_self(), p->owner);
    if (!done && p->nslice) {
        /* pipelined: the slices covering the partition have completed */
        int q = partition;
        if (source < 0) q %= p->rblock / p->rcount; /* within its block (all blocks alike) */
        int lo = q * p->rcount / p->selems, hi = ((q + 1) * p->rcount - 1) / p->selems + 1;
        if (hi > p->nslice) hi = p->nslice;
        if (may_mpi && cc_request_trylock(r)) {
            (void)cc_request_advance(r, &done); /* errors: at the wait */
            cc_request_unlock(r);
        }
        int ok = 1;
        for (int k = lo; k < hi; k++) ok &= atomic_load(&p->sstate[k]) == 2;
        if (!ok && may_mpi) cc_progress_others(r);
        *flag = ok || done;
        return MPI_SUCCESS;
    }
    if (!done && p->direct) {
        /* early bird: the messages covering the partition have arrived */
        int j = 0, q = partition;
        if (source >= 0) j = source;
        else
            while (j < p->nsrc && q >= p->roff[j + 1] - p->roff[j]) q -= p->roff[j + 1] - p->roff[j], j++;
        int nm = p->rfirst[j + 1] - p->rfirst[j], per = nm > 0 ? p->rblk[j] / nm : 0;
        int lo = 0, hi = nm;
        if (per > 0 && p->rcnt[j] > 0) lo = q * p->rcnt[j] / per, hi = ((q + 1) * p->rcnt[j] - 1) / per + 1;
        else if (per > 0) hi = 0; /* an empty partition: nothing to wait for */
        if (hi > nm) hi = nm;
        int ok = hi <= lo, rc = MPI_SUCCESS;
        if (!ok && may_mpi && cc_request_trylock(r)) {
            (void)cc_request_advance(r, &done); /* starts the sends other threads marked; errors: at the wait */
            ok = done;
            if (!done && p->rfrom[j] < 0) rc = cc_testall(hi - lo, p->rreq + p->rfirst[j] + lo, &ok);
            cc_request_unlock(r);
        }
        if (!ok && p->rfrom[j] >= 0) { /* from this process itself: copied by the marking thread */
            ok = 1;
            for (int m = lo; m < hi; m++) ok &= atomic_load(&p->sstarted[p->mfirst[p->rfrom[j]] + m]) == 2;
        }
        if (rc != MPI_SUCCESS) return PFAIL(r, MPI_ERR_OTHER, "%s: testing the receives failed", who);
        if (!ok && may_mpi) cc_progress_others(r);
        *flag = ok;
        return MPI_SUCCESS;
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

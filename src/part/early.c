/* The early bird (early.h, planned by early_setup.c): every group of
 * adjacent send partitions of a block is its own persistent message along
 * its edge, started the moment its partitions are marked; receives are
 * posted at the start; a receive partition has arrived when the messages
 * covering it have. */
#include "part/early.h"

#include "base/errors.h"
#include "base/mpi_compat.h"
#include "req/request.h"
#include "util/alloc.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* Start send message k once (any thread allowed to call MPI; any thread
 * at all for a message to this process itself, which is copied here:
 * sstarted goes 0 -> 1 (claimed) -> 2 (copied)). */
static int start_send(Cart_request r, int k)
{
    cc_part_eb *e = r->part->t;
    int expect = 0;
    if (!atomic_compare_exchange_strong(&e->sstarted[k], &expect, 1)) return MPI_SUCCESS;
    if (e->kself[k]) {
        memcpy(e->rbase + e->mroff[k], e->sbase + e->msoff[k], e->mbytes[k]);
        atomic_store(&e->sstarted[k], 2);
        atomic_fetch_add(&e->nstarted, 1);
        return MPI_SUCCESS;
    }
    /* (MPI_REQUEST_NULL: a block off a mesh, to MPI_PROC_NULL) */
    int rc = e->sreq[k] != MPI_REQUEST_NULL ? MPI_Start(&e->sreq[k]) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS) r->error = rc;
    atomic_fetch_add(&e->nstarted, 1);
    return rc;
}

/* The receives are posted; the sends wait for their marks. */
static int eb_start(Cart_request r)
{
    cc_part_eb *e = r->part->t;
    for (int k = 0; k < e->nsmsg; k++) atomic_store(&e->sstarted[k], 0), atomic_store(&e->mmark[k], 0);
    atomic_store(&e->nstarted, 0);
    int rc = MPI_SUCCESS;
    for (int m = 0; m < e->nrmsg && rc == MPI_SUCCESS; m++) /* (none from this process itself) */
        if (e->rreq[m] != MPI_REQUEST_NULL) rc = MPI_Start(&e->rreq[m]);
    if (rc != MPI_SUCCESS) r->error = rc, r->state = CC_REQ_DONE;
    return rc;
}

/* One more partition of message m was marked.  Once all of its partitions
 * are, it leaves from this thread where it may call MPI (or needs none: a
 * copy to this process itself), else in the next progress call. */
static int send_marked(Cart_request r, int m)
{
    cc_part_eb *e = r->part->t;
    if (atomic_fetch_add(&e->mmark[m], 1) + 1 != e->magg[m]) return MPI_SUCCESS;
    if (e->kself[m] || cc_part_may_mpi(r->part)) return start_send(r, m);
    return MPI_SUCCESS;
}

/* Partition k's message(s) to dest, or to every destination its mark
 * counts for, leave now. */
static int eb_mark(Cart_request r, int k, int dest, int added)
{
    cc_part *p = r->part;
    cc_part_eb *e = p->t;
    if (dest >= 0) return send_marked(r, e->mfirst[dest] + k / e->agg);
    int rc = MPI_SUCCESS;
    for (int d = 0; d < added; d++) {
        int rc2 = send_marked(r, p->send_kind == CC_PART_WHOLE ? e->mfirst[d] + k / e->agg : e->pmsg[k]);
        if (rc == MPI_SUCCESS) rc = rc2;
    }
    return rc;
}

/* Progress: start the sends marked by threads that could not; done once
 * every send is started and every message complete. */
static int eb_advance(Cart_request r, int *done)
{
    cc_part_eb *e = r->part->t;
    int rc = MPI_SUCCESS;
    if (atomic_load(&e->nstarted) < e->nsmsg)
        for (int k = 0; k < e->nsmsg && rc == MPI_SUCCESS; k++)
            if (atomic_load(&e->mmark[k]) == e->magg[k] && !atomic_load(&e->sstarted[k])) rc = start_send(r, k);
    int fs = 0, fr = 0;
    if (rc == MPI_SUCCESS && atomic_load(&e->nstarted) == e->nsmsg) {
        rc = e->nsmsg ? cc_testall(e->nsmsg, e->sreq, &fs) : (fs = 1, MPI_SUCCESS);
        if (rc == MPI_SUCCESS && fs) rc = e->nrmsg ? cc_testall(e->nrmsg, e->rreq, &fr) : (fr = 1, MPI_SUCCESS);
    } else if (rc == MPI_SUCCESS && e->nrmsg) {
        /* let the receives progress meanwhile */
        int flag, idx;
        do /* every message that has arrived: one progress call may carry several */
            rc = MPI_Testany(e->nrmsg, e->rreq, &idx, &flag, MPI_STATUS_IGNORE);
        while (rc == MPI_SUCCESS && flag && idx != MPI_UNDEFINED);
    }
    if (rc != MPI_SUCCESS && r->error == MPI_SUCCESS) r->error = rc;
    if ((fs && fr) || r->error != MPI_SUCCESS) cc_part_cycle_done(r, done);
    return rc;
}

static int eb_wait_step(Cart_request r)
{
    cc_part_eb *e = r->part->t;
    if (atomic_load(&e->nstarted) < e->nsmsg) {
        sched_yield();
        return MPI_SUCCESS;
    }
    int rc = e->nsmsg ? cc_waitall(e->nsmsg, e->sreq) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS && e->nrmsg) rc = cc_waitall(e->nrmsg, e->rreq);
    return rc;
}

/* The messages covering the partition have arrived. */
static int eb_arrived(Cart_request r, int partition, int source, int may_mpi, int *flag)
{
    cc_part *p = r->part;
    cc_part_eb *e = p->t;
    int j = 0, q = partition, done = 0;
    if (source >= 0) j = source;
    else
        while (j < p->nsrc && q >= p->roff[j + 1] - p->roff[j]) q -= p->roff[j + 1] - p->roff[j], j++;
    int nm = e->rfirst[j + 1] - e->rfirst[j], per = nm > 0 ? e->rblk[j] / nm : 0;
    int lo = 0, hi = nm;
    if (per > 0 && e->rcnt[j] > 0) lo = q * e->rcnt[j] / per, hi = ((q + 1) * e->rcnt[j] - 1) / per + 1;
    else if (per > 0) hi = 0; /* an empty partition: nothing to wait for */
    if (hi > nm) hi = nm;
    int ok = hi <= lo, rc = MPI_SUCCESS;
    if (!ok && may_mpi && cc_request_trylock(r)) {
        (void)cc_request_advance(r, &done); /* starts the sends other threads marked; errors: at the wait */
        ok = done;
        if (!done && e->rfrom[j] < 0) rc = cc_testall(hi - lo, e->rreq + e->rfirst[j] + lo, &ok);
        cc_request_unlock(r);
    }
    if (!ok && e->rfrom[j] >= 0) { /* from this process itself: copied by the marking thread */
        ok = 1;
        for (int m = lo; m < hi; m++) ok &= atomic_load(&e->sstarted[e->mfirst[e->rfrom[j]] + m]) == 2;
    }
    if (rc != MPI_SUCCESS) return rc;
    if (!ok && may_mpi) cc_progress_others(r);
    *flag = ok;
    return MPI_SUCCESS;
}

/* (its duplicate has the communicator's error handler) */
static int eb_raise(Cart_request r, int code) { return cc_error_raise(((cc_part_eb *)r->part->t)->pcomm, code); }

static void eb_free(void *t)
{
    cc_part_eb *e = t;
    if (!e) return;
    for (int k = 0; e->sreq && k < e->nsmsg; k++)
        if (e->sreq[k] != MPI_REQUEST_NULL) MPI_Request_free(&e->sreq[k]);
    for (int k = 0; e->rreq && k < e->nrmsg; k++)
        if (e->rreq[k] != MPI_REQUEST_NULL) MPI_Request_free(&e->rreq[k]);
    if (e->pcomm != MPI_COMM_NULL) MPI_Comm_free(&e->pcomm);
    free(e->sreq);
    free(e->sstarted);
    free(e->kself);
    free(e->rblk);
    free(e->rcnt);
    free(e->rfrom);
    free(e->mfirst);
    free(e->magg);
    free(e->pmsg);
    free(e->msoff);
    free(e->mroff);
    free(e->mbytes);
    free(e->mmark);
    free(e->rreq);
    free(e->rfirst);
    free(e);
}

const cc_part_ops cc_part_early_ops = { eb_start, eb_mark, eb_advance, eb_wait_step, eb_arrived, eb_raise, eb_free };

static MPI_Request *null_requests(int n)
{
    MPI_Request *q = malloc(sizeof(MPI_Request) * ((size_t)n + 1));
    for (int k = 0; q && k < n; k++) q[k] = MPI_REQUEST_NULL;
    return q;
}

cc_part_eb *cc_part_eb_new(int ndest, int nsmsg, int nsend, int pmsg, int nsrc, int nrmsg)
{
    cc_part_eb *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->pcomm = MPI_COMM_NULL;
    atomic_init(&e->nstarted, 0);
    e->nsmsg = nsmsg;
    e->nrmsg = nrmsg;
    e->mfirst = malloc(sizeof(int) * ((size_t)ndest + 1));
    e->rblk = malloc(sizeof(int) * ((size_t)nsrc + 1));
    e->rcnt = malloc(sizeof(int) * ((size_t)nsrc + 1));
    e->rfrom = malloc(sizeof(int) * ((size_t)nsrc + 1));
    e->rfirst = malloc(sizeof(int) * ((size_t)nsrc + 1));
    e->pmsg = pmsg ? malloc(sizeof(int) * ((size_t)nsend + 1)) : NULL;
    e->sreq = null_requests(nsmsg);
    e->sstarted = cc_alloc_zarray((size_t)nsmsg + 1, sizeof *e->sstarted);
    e->mmark = cc_alloc_zarray((size_t)nsmsg + 1, sizeof *e->mmark);
    e->magg = malloc(sizeof(int) * ((size_t)nsmsg + 1));
    e->kself = cc_alloc_zarray((size_t)nsmsg + 1, 1);
    e->msoff = malloc(sizeof(MPI_Aint) * ((size_t)nsmsg + 1));
    e->mroff = malloc(sizeof(MPI_Aint) * ((size_t)nsmsg + 1));
    e->mbytes = malloc(sizeof(size_t) * ((size_t)nsmsg + 1));
    e->rreq = null_requests(nrmsg);
    if (!e->mfirst || !e->rblk || !e->rcnt || !e->rfrom || !e->rfirst || (pmsg && !e->pmsg) || !e->sreq ||
        !e->sstarted || !e->mmark || !e->magg || !e->kself || !e->msoff || !e->mroff || !e->mbytes || !e->rreq) {
        e->nsmsg = e->nrmsg = 0;
        eb_free(e);
        return NULL;
    }
    return e;
}

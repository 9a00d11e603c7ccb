/* The requests the drop-in hands out, and their progress.
 *
 * The program always holds a real MPI request, so that a call the drop-in
 * does not intercept cannot crash on it:
 *   - a non-blocking MPI_Ineighbor_* gets a generalized request
 *     (MPI_Grequest_start), completed with MPI_Grequest_complete once
 *     Cart_test reports the cartcoll operation done; from then on MPI itself
 *     completes it (MPI_Wait* / MPI_Test* / MPI_Request_free), calling
 *     query_fn for the status and free_fn, which releases the entry;
 *   - a persistent MPI_Neighbor_*_init gets an inactive persistent request
 *     (MPI_Recv_init from itself on MPI_COMM_SELF, never started), which
 *     MPI treats as inactive wherever it meets it; the completion calls
 *     (completion.c) keep the MPI-visible life cycle -- inactive, active,
 *     complete -- here, since a generalized request cannot be restarted.
 *
 * Entries are found by handle (a hash table; only live requests: O(active
 * requests)) and the active ones sit in a pending list that pl_drive
 * sweeps.  With MPI_THREAD_MULTIPLE a mutex guards table and list, and an
 * entry is advanced by one thread at a time (`stepping`); the mutex is never
 * held while cartcoll or MPI runs, so cartcoll's own locks and MPI's
 * callbacks (free_fn) cannot deadlock against it. */
#include "pmpi/preload.h"

#include "util/list.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct pl_req {
    MPI_Request handle;  /* what the program holds */
    Cart_request cr;     /* the cartcoll operation */
    int persistent, cartesian;
    int state;           /* PL_ACTIVE / PL_DONE / PL_INACTIVE (under the lock) */
    int orphan;          /* freed by the program while active: release when done */
    int error;           /* the code of the last run */
    int stepping, dead;  /* a thread advances it; free_fn came meanwhile */
    cc_list hlink;       /* in its bucket of the hash table */
    cc_list plink;       /* in the pending list (while linked) */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static cc_list *bucket; /* chained hash table (of pl_req.hlink), nbucket a power of two */
static size_t nbucket, count;
static cc_list pending = CC_LIST_HEAD(pending); /* of pl_req.plink */
static atomic_int nentries, npending, norphans;

/* Single-threaded programs (and FUNNELED, SERIALIZED) need no lock. */
static void lock(void)
{
    if (pl_threaded()) pthread_mutex_lock(&mu);
}

static void unlock(void)
{
    if (pl_threaded()) pthread_mutex_unlock(&mu);
}

int pl_any(void) { return atomic_load(&nentries) > 0; }
int pl_pending(void) { return atomic_load(&npending) > 0; }

/* ---- the hash table (caller holds the lock) ------------------------------ */

/* MPI_Request is a pointer (Open MPI) or an int (MPICH): hash its bytes. */
static size_t slot(MPI_Request h, size_t n)
{
    uint64_t k = 0;
    memcpy(&k, &h, sizeof h < sizeof k ? sizeof h : sizeof k);
    k *= 0x9E3779B97F4A7C15ull;
    return (size_t)(k >> 29) & (n - 1);
}

/* Double the table when it is full; on allocation failure the chains just
 * grow longer. */
static void grow(void)
{
    size_t n = nbucket ? 2 * nbucket : 64;
    cc_list *b = malloc(n * sizeof *b);
    if (!b) return;
    for (size_t i = 0; i < n; i++) cc_list_init(&b[i]);
    for (size_t i = 0; i < nbucket; i++)
        cc_list_foreach_safe(it, &bucket[i]) {
            pl_req *e = cc_list_entry(it, pl_req, hlink);
            cc_list_remove(it);
            cc_list_push_front(&b[slot(e->handle, n)], it);
        }
    free(bucket);
    bucket = b;
    nbucket = n;
}

static int insert(pl_req *e)
{
    if (count >= nbucket) grow();
    if (!nbucket) return MPI_ERR_NO_MEM;
    cc_list_push_front(&bucket[slot(e->handle, nbucket)], &e->hlink);
    count++;
    atomic_fetch_add(&nentries, 1);
    return MPI_SUCCESS;
}

static void unhash(pl_req *e)
{
    if (!cc_list_linked(&e->hlink)) return;
    cc_list_remove(&e->hlink);
    count--;
    atomic_fetch_sub(&nentries, 1);
}

static pl_req *lookup(MPI_Request h)
{
    if (!nbucket) return NULL;
    cc_list_foreach(it, &bucket[slot(h, nbucket)]) {
        pl_req *e = cc_list_entry(it, pl_req, hlink);
        if (e->handle == h) return e;
    }
    return NULL;
}

static void list_add(pl_req *e)
{
    if (cc_list_linked(&e->plink)) return;
    cc_list_push_front(&pending, &e->plink);
    atomic_fetch_add(&npending, 1);
}

static void list_del(pl_req *e)
{
    if (!cc_list_linked(&e->plink)) return;
    cc_list_remove(&e->plink);
    atomic_fetch_sub(&npending, 1);
}

pl_req *pl_find(MPI_Request h)
{
    if (!pl_any() || h == MPI_REQUEST_NULL) return NULL;
    lock();
    pl_req *e = lookup(h);
    unlock();
    return e;
}

int pl_is_persistent(const pl_req *e) { return e->persistent; }

/* ---- statuses and the generalized request's callbacks -------------------- */

void pl_status(MPI_Status *status, int err)
{
    if (status == MPI_STATUS_IGNORE) return;
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    status->MPI_ERROR = err;
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
}

/* The code of the run goes to MPI_Wait & co. (cartcoll has already raised
 * it on the communicator's error handler). */
static int query_fn(void *extra, MPI_Status *status)
{
    const pl_req *e = extra;
    pl_status(status, e->error);
    return e->error;
}

/* MPI releases the generalized request: the entry goes too -- later if a
 * thread is still advancing it (it frees it when done). */
static int free_fn(void *extra)
{
    pl_req *e = extra;
    lock();
    unhash(e);
    list_del(e);
    int later = e->stepping;
    if (later) e->dead = 1;
    unlock();
    if (!later) free(e);
    return MPI_SUCCESS;
}

/* Never reached for a started operation: MPI_Cancel is intercepted and
 * refuses collectives, as MPI does. */
static int cancel_fn(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

/* ---- making requests ----------------------------------------------------- */

int pl_req_nonblocking(Cart_request cr, MPI_Request *handle)
{
    pl_req *e = calloc(1, sizeof *e);
    int rc = e ? PMPI_Grequest_start(query_fn, free_fn, cancel_fn, e, &e->handle) : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        e->cr = cr;
        e->state = PL_ACTIVE;
        lock();
        rc = insert(e);
        if (rc == MPI_SUCCESS) list_add(e);
        unlock();
        if (rc == MPI_SUCCESS) {
            *handle = e->handle;
            return MPI_SUCCESS;
        }
        PMPI_Grequest_complete(e->handle);
        PMPI_Request_free(&e->handle); /* free_fn frees e */
        e = NULL;
    }
    free(e);
    /* No handle to give: finish the operation here, so that nothing is left
     * running that the other processes wait for. */
    Cart_wait(&cr);
    return rc;
}

int pl_req_persistent(Cart_request cr, int cartesian, MPI_Request *handle)
{
    static char nothing;
    pl_req *e = calloc(1, sizeof *e);
    /* A receive from this process on MPI_COMM_SELF: a legal persistent
     * request that MPI treats as inactive everywhere (it is never started:
     * MPI_Start* come here).  Not from MPI_PROC_NULL: MPICH 4.0 freeing such
     * a request breaks every later MPI-4 persistent collective. */
    int rc = e ? PMPI_Recv_init(&nothing, 0, MPI_BYTE, 0, 0, MPI_COMM_SELF, &e->handle) : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        e->cr = cr;
        e->persistent = 1;
        e->cartesian = cartesian;
        e->state = PL_INACTIVE;
        lock();
        rc = insert(e);
        unlock();
        if (rc == MPI_SUCCESS) {
            *handle = e->handle;
            return MPI_SUCCESS;
        }
        PMPI_Request_free(&e->handle);
    }
    free(e);
    Cart_request_free(&cr);
    return rc;
}

/* ---- progress -------------------------------------------------------------- */

/* e's operation finished (its stepping flag is held): hand it to MPI
 * (non-blocking) or mark it complete (persistent); release it if the
 * program freed it meanwhile. */
static void finished(pl_req *e)
{
    int orphan, dead = 0;
    if (!e->persistent) PMPI_Grequest_complete(e->handle); /* free_fn may come from here on */
    lock();
    list_del(e);
    e->state = PL_DONE;
    orphan = e->orphan;
    if (!orphan) e->stepping = 0, dead = e->dead;
    unlock();
    if (!orphan) {
        if (dead) free(e);
        return;
    }
    if (!e->persistent) {
        MPI_Request g = e->handle;
        PMPI_Wait(&g, MPI_STATUS_IGNORE); /* free_fn: marks e dead, leaves it to us */
    } else {
        Cart_request_free(&e->cr);
        PMPI_Request_free(&e->handle);
        lock();
        unhash(e);
        unlock();
    }
    atomic_fetch_sub(&norphans, 1);
    free(e);
}

/* One Cart_test of e (whose stepping flag the caller set); Cart_test also
 * advances every other active cartcoll operation of this process. */
static void step(pl_req *e)
{
    int flag = 0;
    int rc = Cart_test(&e->cr, &flag);
    if (flag) {
        e->error = rc;
        finished(e);
        return;
    }
    lock();
    e->stepping = 0;
    int dead = e->dead;
    unlock();
    if (dead) free(e);
}

/* Cart_wait on e's operation, which advances every other cartcoll
 * operation meanwhile and blocks in MPI once nothing else needs progress,
 * as the Cart_ API's own wait does (driving with Cart_test and MPI_Test
 * instead polls twice per round and adds microseconds to every wait on an
 * oversubscribed machine).  0 if e is not active or another thread
 * advances it: the caller then drives. */
int pl_wait(pl_req *e)
{
    lock();
    int take = e->state == PL_ACTIVE && !e->stepping;
    if (take) e->stepping = 1;
    unlock();
    if (!take) return 0;
    int rc = Cart_wait(&e->cr);
    e->error = rc;
    finished(e);
    return 1;
}

void pl_drive(void)
{
    if (!pl_pending()) return;
    /* The entries this call advances, on the stack unless many are pending
     * (not a static buffer: a program's error handler, run from inside
     * Cart_test, may come back here). */
    pl_req *small[16], **snap = small;
    size_t n = 0, cap = sizeof small / sizeof *small;
    lock();
    size_t want = (size_t)atomic_load(&npending);
    if (want > cap) {
        pl_req **s = malloc(want * sizeof *s);
        if (s) snap = s, cap = want;
    }
    cc_list_foreach(it, &pending) {
        if (n >= cap) break;
        pl_req *e = cc_list_entry(it, pl_req, plink);
        if (e->stepping) continue; /* another thread advances it */
        e->stepping = 1;
        snap[n++] = e;
    }
    unlock();
    for (size_t i = 0; i < n; i++) step(snap[i]);
    if (snap != small) free(snap);
}

void pl_drain(void)
{
    while (atomic_load(&norphans) > 0) pl_drive();
}

/* ---- persistent requests' life cycle ---------------------------------------- */

int pl_state(pl_req *e)
{
    lock();
    int s = e->state;
    unlock();
    return s;
}

int pl_complete(pl_req *e, MPI_Status *status)
{
    lock();
    int err = e->state == PL_DONE ? e->error : MPI_SUCCESS;
    if (e->state == PL_DONE) e->state = PL_INACTIVE;
    unlock();
    pl_status(status, err);
    return err;
}

int pl_start(pl_req *e)
{
    if (pl_state(e) != PL_INACTIVE)
        return pl_request_error(MPI_ERR_REQUEST, "MPI_Start: the persistent neighbourhood collective request is "
                                                 "still active; complete it with MPI_Wait or MPI_Test first");
    int rc = Cart_start(&e->cr);
    if (rc != MPI_SUCCESS) return rc;
    lock();
    e->state = PL_ACTIVE;
    e->error = MPI_SUCCESS;
    list_add(e);
    unlock();
    pl_count(e->cartesian);
    return MPI_SUCCESS;
}

/* An active request the program frees is finished in the background (as
 * MPI does for point-to-point requests) and released when done. */
int pl_free(pl_req *e, MPI_Request *handle)
{
    lock();
    if (e->state == PL_ACTIVE) {
        e->orphan = 1;
        atomic_fetch_add(&norphans, 1);
        unlock();
        *handle = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    if (!e->persistent) {
        unlock();
        return PMPI_Request_free(handle); /* complete: MPI calls free_fn */
    }
    unhash(e);
    unlock();
    int rc = Cart_request_free(&e->cr);
    PMPI_Request_free(&e->handle);
    *handle = MPI_REQUEST_NULL;
    free(e);
    return rc;
}

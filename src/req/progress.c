/* The list of active requests of this process, so that waiting on one
 * request advances the others (MPI's progress rule for non-blocking
 * collectives), and the optional progress thread that advances them while
 * the application computes or waits in MPI.
 *
 * Nothing calls MPI with the list lock held (as Open MPI's libnbc): a
 * sweep marks the request it advances held and lets the lock go meanwhile;
 * a held request stays in the list (cc_progress_remove waits), so the walk
 * goes on from it and its owner cannot free it under the sweep. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "req/request.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static atomic_int async_running; /* the progress thread waits on `wake` */
static cc_list requests = CC_LIST_HEAD(requests); /* of Cart_request.link */
static int count;
static atomic_int listed; /* count, readable without the lock */
static void remove_held(Cart_request r);

void cc_progress_add(Cart_request r)
{
    pthread_mutex_lock(&lock);
    if (!cc_list_linked(&r->link)) {
        cc_list_push_front(&requests, &r->link);
        count++;
        atomic_store(&listed, count);
        if (atomic_load(&async_running)) pthread_cond_signal(&wake);
    }
    pthread_mutex_unlock(&lock);
}

/* Take listed request r off the list (lock held). */
static inline __attribute__((always_inline)) void take_off(Cart_request r)
{
    cc_list_remove(&r->link);
    count--;
    atomic_store(&listed, count);
}

void cc_progress_remove(Cart_request r)
{
    pthread_mutex_lock(&lock);
    if (r->held) remove_held(r);
    else if (cc_list_linked(&r->link)) take_off(r);
    pthread_mutex_unlock(&lock);
}

/* A sweep advances r (not for long): wait with the lock let go, then take
 * r off; lock held on entry and return.  Out of line, so that the usual
 * removal stays as short as it was. */
static __attribute__((noinline)) void remove_held(Cart_request r)
{
    while (r->held) {
        pthread_mutex_unlock(&lock);
        sched_yield();
        pthread_mutex_lock(&lock);
    }
    if (cc_list_linked(&r->link)) take_off(r);
}

int cc_progress_others(Cart_request self)
{
    /* Nothing but the caller's own request active: no lock, no walk. */
    if (atomic_load(&listed) <= (self && cc_list_linked(&self->link) ? 1 : 0)) return 0;
    pthread_mutex_lock(&lock);
    int active = 0;
    /* A request another thread is advancing is skipped.  Errors stay with
     * the request and surface when its owner completes it. */
    cc_list_foreach(it, &requests) {
        Cart_request r = cc_list_entry(it, struct cart_request_s, link);
        if (r == self || r->state != CC_REQ_ACTIVE) continue;
        if (cc_request_trylock(r)) {
            int done = 0;
            r->held = 1;
            pthread_mutex_unlock(&lock);
            (void)cc_request_advance(r, &done);
            pthread_mutex_lock(&lock);
            r->held = 0;
            cc_request_unlock(r);
            if (done) continue;
        }
        active++;
    }
    pthread_mutex_unlock(&lock);
    return active;
}

int cc_progress_wait(MPI_Request *rq)
{
    for (;;) {
        int flag = 0, rc = MPI_Test(rq, &flag, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || flag) return rc;
        if (cc_progress_others(NULL) == 0) return MPI_Wait(rq, MPI_STATUS_IGNORE);
    }
}

/* ---- asynchronous progress ---------------------------------------------- */

static pthread_mutex_t async_lock = PTHREAD_MUTEX_INITIALIZER;
static int async_state;  /* 0: never asked, 1: running, -1: not possible */
static int async_stop;
static pthread_t async_thread;

/* While requests are active: sweep them, then pause briefly so that the
 * thread does not take a core from the application; otherwise sleep until
 * one is added. */
static void *async_main(void *arg)
{
    (void)arg;
    const struct timespec pause = { 0, 20000 };
    for (;;) {
        pthread_mutex_lock(&lock);
        while (!async_stop && count == 0) pthread_cond_wait(&wake, &lock);
        int stop = async_stop;
        pthread_mutex_unlock(&lock);
        if (stop) return NULL;
        cc_progress_others(NULL);
        nanosleep(&pause, NULL);
    }
}

/* MPI_Finalize deletes the attributes of MPI_COMM_SELF first: stop the
 * thread there, while MPI still works. */
static int async_finalize(MPI_Comm comm, int kv, void *val, void *extra)
{
    (void)comm;
    (void)kv;
    (void)val;
    (void)extra;
    pthread_mutex_lock(&async_lock);
    if (async_state == 1) {
        pthread_mutex_lock(&lock);
        async_stop = 1;
        pthread_cond_broadcast(&wake);
        pthread_mutex_unlock(&lock);
        pthread_join(async_thread, NULL);
        atomic_store(&async_running, 0);
        async_state = 0;
        async_stop = 0;
    }
    pthread_mutex_unlock(&async_lock);
    return MPI_SUCCESS;
}

int cc_progress_async_start(void)
{
    pthread_mutex_lock(&async_lock);
    if (async_state == 0) {
        int provided = MPI_THREAD_SINGLE, kv;
        MPI_Query_thread(&provided);
        if (provided != MPI_THREAD_MULTIPLE) {
            fprintf(stderr, "cartcoll: asynchronous progress (CARTCOLL_ASYNC_PROGRESS / cartcoll_async_progress) "
                            "needs MPI_Init_thread with MPI_THREAD_MULTIPLE; operations advance only inside "
                            "cartcoll calls\n");
            async_state = -1;
        } else {
            atomic_store(&async_running, 1); /* before the thread can wait: no signal is lost */
            if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, async_finalize, &kv, NULL) != MPI_SUCCESS ||
                MPI_Comm_set_attr(MPI_COMM_SELF, kv, NULL) != MPI_SUCCESS ||
                pthread_create(&async_thread, NULL, async_main, NULL) != 0) {
                fprintf(stderr, "cartcoll: cannot start the asynchronous progress thread\n");
                atomic_store(&async_running, 0);
                async_state = -1;
            } else {
                async_state = 1;
            }
        }
    }
    int running = async_state == 1;
    pthread_mutex_unlock(&async_lock);
    return running;
}

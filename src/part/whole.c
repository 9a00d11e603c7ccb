/* The whole-buffer transport: the persistent request of the same
 * collective on the whole buffers, started once every send partition of
 * this process is ready; a receive partition has arrived once the whole
 * operation has completed here. */
#include "part/part.h"

#include "req/request.h"

#include <sched.h>
#include <stdlib.h>

typedef struct {
    Cart_request inner;
    atomic_int started; /* the inner request was started for this cycle */
} whole_t;

/* Start the inner operation once per cycle (caller holds r->busy). */
static int start_inner(Cart_request r)
{
    whole_t *t = r->part->t;
    int expect = 0;
    if (!atomic_compare_exchange_strong(&t->started, &expect, 1)) return MPI_SUCCESS;
    int rc = cc_request_start(t->inner);
    if (rc != MPI_SUCCESS) {
        t->inner->state = CC_REQ_INACTIVE;
        r->error = rc;
        r->state = CC_REQ_DONE;
    }
    return rc;
}

static int whole_start(Cart_request r)
{
    whole_t *t = r->part->t;
    atomic_store(&t->started, 0);
    return r->part->need == 0 ? start_inner(r) : MPI_SUCCESS;
}

/* Under MPI_THREAD_MULTIPLE the call that completes the set starts the
 * operation at once, unless another thread is advancing it. */
static int whole_mark(Cart_request r, int k, int dest, int added)
{
    (void)k, (void)dest;
    cc_part *p = r->part;
    if (atomic_fetch_add(&p->nready, added) + added != p->need || !p->multiple) return MPI_SUCCESS;
    if (cc_request_trylock(r)) {
        if (r->state == CC_REQ_ACTIVE) start_inner(r);
        cc_request_unlock(r);
    }
    return MPI_SUCCESS;
}

static int whole_advance(Cart_request r, int *done)
{
    cc_part *p = r->part;
    whole_t *t = p->t;
    if (!atomic_load(&t->started)) {
        if (atomic_load(&p->nready) < p->need) return MPI_SUCCESS;
        int rc = start_inner(r);
        if (rc != MPI_SUCCESS) {
            *done = 1;
            return rc;
        }
    }
    int finished = 0;
    int rc = cc_request_advance(t->inner, &finished);
    if (finished) {
        r->error = rc != MPI_SUCCESS ? rc : t->inner->error;
        t->inner->state = CC_REQ_INACTIVE;
        cc_part_cycle_done(r, done);
    }
    return rc;
}

static int whole_wait_step(Cart_request r)
{
    cc_part *p = r->part;
    whole_t *t = p->t;
    if (!atomic_load(&t->started)) {
        /* other threads are still marking partitions */
        if (atomic_load(&p->nready) < p->need) sched_yield();
        return MPI_SUCCESS;
    }
    return cc_request_wait_step(t->inner);
}

/* (the same communicator) */
static int whole_raise(Cart_request r, int code) { return cc_request_raise(((whole_t *)r->part->t)->inner, code); }

static void whole_free(void *t)
{
    whole_t *w = t;
    cc_request_destroy(w->inner);
    free(w);
}

static const cc_part_ops whole_ops = { whole_start, whole_mark, whole_advance, whole_wait_step, NULL, whole_raise,
                                       whole_free };

int cc_part_use_whole(Cart_request r, Cart_request inner)
{
    whole_t *t = calloc(1, sizeof *t);
    if (!t) {
        cc_request_destroy(inner);
        return MPI_ERR_NO_MEM;
    }
    t->inner = inner;
    atomic_init(&t->started, 0);
    cc_part_set_transport(r, &whole_ops, t);
    return MPI_SUCCESS;
}

/* The pipelined transport: slice s is the persistent collective on send
 * partitions s*sgroup ... (s+1)*sgroup-1 of every block (of the one
 * buffer), started once those partitions are marked (slices.c makes
 * them). */
#include "part/part.h"

#include "req/request.h"
#include "util/alloc.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    MPI_Comm pcomm;      /* the slices' own duplicate (global meaning), or MPI_COMM_NULL */
    int nslice;
    int sgroup;          /* send partitions per slice */
    int sneed;           /* marks that make a slice ready: sgroup per destination */
    Cart_request *slice; /* nslice persistent requests */
    atomic_int *scount;  /* per slice: marks of its partitions so far */
    atomic_int *sstate;  /* per slice: 0 waiting, 1 running, 2 complete (this cycle) */
    int nsdone;          /* complete slices (advanced by the request's holder only) */
    int selems;          /* elements of one slice of a block */
    int sordered;        /* slices start in order (MPI's collectives: the same order everywhere) */
    int rblock;          /* elements of one receive block */
    int rcount;          /* elements of one receive partition */
    const char *sbase;   /* reduce_scatter_block: slice k's send data, pack_nb chunks of */
    char *pack;          /* pack_cb bytes at pack + k * pack_nb * pack_cb, copied from sbase */
    int pack_nb;         /* (blocks pack_bb bytes apart) as the slice starts; else NULL */
    size_t pack_cb, pack_bb;
} pipe_t;

/* Start every waiting slice whose partitions are all ready (caller holds
 * r->busy). */
static int start_slices(Cart_request r)
{
    pipe_t *t = r->part->t;
    for (int k = 0; k < t->nslice; k++) {
        if (atomic_load(&t->sstate[k]) != 0) continue;
        if (atomic_load(&t->scount[k]) < t->sneed) {
            if (t->sordered) break;
            continue;
        }
        atomic_store(&t->sstate[k], 1);
        for (int i = 0; t->pack && i < t->pack_nb; i++) /* its chunks of every block, contiguous */
            memcpy(t->pack + ((size_t)k * (size_t)t->pack_nb + (size_t)i) * t->pack_cb,
                   t->sbase + (size_t)i * t->pack_bb + (size_t)k * t->pack_cb, t->pack_cb);
        int rc = cc_request_start(t->slice[k]);
        if (rc != MPI_SUCCESS) {
            if (r->error == MPI_SUCCESS) r->error = rc;
            return rc;
        }
    }
    return MPI_SUCCESS;
}

static int pipe_start(Cart_request r)
{
    pipe_t *t = r->part->t;
    for (int k = 0; k < t->nslice; k++) atomic_store(&t->scount[k], 0), atomic_store(&t->sstate[k], 0);
    t->nsdone = 0;
    /* slices that wait for no mark (nothing sent from here) start now */
    return t->sneed == 0 ? start_slices(r) : MPI_SUCCESS;
}

/* Partition k's slice is ready once its partitions of every block are
 * (sneed marks); under MPI_THREAD_MULTIPLE the mark that completes it
 * starts it, unless another thread is advancing the request. */
static int pipe_mark(Cart_request r, int k, int dest, int added)
{
    (void)dest;
    pipe_t *t = r->part->t;
    int s = k % (t->nslice * t->sgroup) / t->sgroup;
    if (atomic_fetch_add(&t->scount[s], added) + added != t->sneed || !r->part->multiple) return MPI_SUCCESS;
    if (cc_request_trylock(r)) {
        if (r->state == CC_REQ_ACTIVE) (void)start_slices(r); /* errors: at the wait */
        cc_request_unlock(r);
    }
    return MPI_SUCCESS;
}

/* Start what is ready, advance what runs; done when every slice has
 * completed (or one failed). */
static int pipe_advance(Cart_request r, int *done)
{
    pipe_t *t = r->part->t;
    int rc = start_slices(r);
    for (int k = 0; k < t->nslice; k++) {
        if (atomic_load(&t->sstate[k]) != 1) continue;
        int fin = 0, rc2 = cc_request_advance(t->slice[k], &fin);
        if (rc2 != MPI_SUCCESS && rc == MPI_SUCCESS) rc = rc2;
        if (!fin) continue;
        if (r->error == MPI_SUCCESS) r->error = rc2 != MPI_SUCCESS ? rc2 : t->slice[k]->error;
        t->slice[k]->state = CC_REQ_INACTIVE;
        atomic_store(&t->sstate[k], 2);
        t->nsdone++;
    }
    if (t->nsdone == t->nslice || r->error != MPI_SUCCESS) cc_part_cycle_done(r, done);
    return rc;
}

/* Block only once every slice runs (a slice still waiting for partitions
 * is started by this thread's next advance). */
static int pipe_wait_step(Cart_request r)
{
    pipe_t *t = r->part->t;
    for (int k = 0; k < t->nslice; k++)
        if (atomic_load(&t->sstate[k]) == 0) {
            sched_yield();
            return MPI_SUCCESS;
        }
    for (int k = 0; k < t->nslice; k++)
        if (atomic_load(&t->sstate[k]) == 1) return cc_request_wait_step(t->slice[k]);
    return MPI_SUCCESS;
}

/* The slices covering the partition have completed. */
static int pipe_arrived(Cart_request r, int partition, int source, int may_mpi, int *flag)
{
    pipe_t *t = r->part->t;
    int q = partition, done = 0;
    if (source < 0) q %= t->rblock / t->rcount; /* within its block (all blocks alike) */
    int lo = q * t->rcount / t->selems, hi = ((q + 1) * t->rcount - 1) / t->selems + 1;
    if (hi > t->nslice) hi = t->nslice;
    if (may_mpi && cc_request_trylock(r)) {
        (void)cc_request_advance(r, &done); /* errors: at the wait */
        cc_request_unlock(r);
    }
    int ok = 1;
    for (int k = lo; k < hi; k++) ok &= atomic_load(&t->sstate[k]) == 2;
    if (!ok && may_mpi) cc_progress_others(r);
    *flag = ok || done;
    return MPI_SUCCESS;
}

/* (the communicator the slices run on: the user's, or their duplicate with its error handler) */
static int pipe_raise(Cart_request r, int code) { return cc_request_raise(((pipe_t *)r->part->t)->slice[0], code); }

static void pipe_free(void *p)
{
    pipe_t *t = p;
    for (int k = 0; k < t->nslice; k++) cc_request_destroy(t->slice[k]);
    free(t->slice);
    free(t->pack);
    free(t->scount);
    free(t->sstate);
    if (t->pcomm != MPI_COMM_NULL) MPI_Comm_free(&t->pcomm); /* (after the slices) */
    free(t);
}

static const cc_part_ops pipe_ops = { pipe_start, pipe_mark, pipe_advance, pipe_wait_step, pipe_arrived, pipe_raise,
                                      pipe_free };

int cc_part_use_slices(Cart_request r, const cc_part_slicing *s)
{
    cc_part *p = r->part;
    int n = s->n;
    pipe_t *t = calloc(1, sizeof *t);
    if (t) {
        t->slice = cc_alloc_array((size_t)n, sizeof(Cart_request));
        t->scount = cc_alloc_zarray((size_t)n, sizeof *t->scount);
        t->sstate = cc_alloc_zarray((size_t)n, sizeof *t->sstate);
    }
    /* one buffer to every destination: marks per destination (Cart_pready_to) */
    int nomem = !t || !t->slice || !t->scount || !t->sstate;
    if (!nomem && p->send_kind == CC_PART_WHOLE) nomem = cc_part_alloc_pdmark(p) != MPI_SUCCESS;
    if (nomem) {
        for (int k = 0; k < n; k++) cc_request_destroy(s->slices[k]);
        MPI_Comm own = s->own;
        if (own != MPI_COMM_NULL) MPI_Comm_free(&own);
        if (t) free(t->slice), free(t->scount), free(t->sstate);
        free(t);
        free(s->pack);
        return MPI_ERR_NO_MEM;
    }
    t->pcomm = s->own;
    for (int k = 0; k < n; k++) t->slice[k] = s->slices[k];
    t->nslice = n;
    t->sgroup = s->group;
    t->sneed = s->group * p->ndest;
    t->sordered = s->ordered;
    t->selems = s->selems;
    t->rblock = s->rblock;
    t->rcount = s->rcount > 0 ? s->rcount : 1;
    t->pack = s->pack, t->pack_nb = s->pack_nb, t->pack_cb = s->pack_cb, t->pack_bb = s->pack_bb;
    if (s->pack) t->sbase = s->sbase;
    cc_part_set_transport(r, &pipe_ops, t);
    return MPI_SUCCESS;
}

/* The partitioned request: made, started, advanced and freed for the
 * generic request (its table of operations, struct cc_req_ops of
 * req/request.h), the part common to every transport; the transport does
 * the rest (cc_part_ops). */
#include "part/part.h"

#include "req/request.h"
#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

static int part_start(Cart_request r)
{
    cc_part *p = r->part;
    /* no allocation, no MPI object: counters (and persistent requests) only */
    for (int k = 0; k < p->nsend; k++) atomic_store(&p->marks[k], 0);
    atomic_store(&p->nready, 0);
    r->error = MPI_SUCCESS;
    r->state = CC_REQ_ACTIVE;
    if (p->pdmark)
        for (int k = 0; k < p->nsend * p->ndest; k++) atomic_store(&p->pdmark[k], 0);
    return p->ops->start(r);
}

static int part_advance(Cart_request r, int *done)
{
    *done = 0;
    return r->part->ops->advance(r, done);
}

static int part_wait_step(Cart_request r) { return r->part->ops->wait_step(r); }

static int part_raise(Cart_request r, int code) { return r->part->ops->raise(r, code); }

static void part_free(cc_part *p)
{
    if (!p) return;
    /* Parenthesised: SimGrid 4.1's smpi_helpers.h defines a function-like
       free() macro, which would rename the member. */
    if (p->ops) (p->ops->free)(p->t);
    free(p->pdmark);
    free(p->soff);
    free(p->roff);
    free(p->marks);
    free(p);
}

static void part_destroy(Cart_request r) { part_free(r->part); }

static const struct cc_req_ops part_ops = {
    .start = part_start,
    .advance = part_advance,
    .wait_step = part_wait_step,
    .wait_alone = NULL, /* marks and several MPI requests: always driven */
    .raise = part_raise,
    .destroy = part_destroy,
};

void cc_part_cycle_done(Cart_request r, int *done)
{
    r->part->cycles++;
    r->state = CC_REQ_DONE;
    *done = 1;
}

static int *copy_ints(const int *a, int n)
{
    int *c = cc_alloc_array((size_t)n, sizeof(int));
    if (c && n > 0) memcpy(c, a, sizeof(int) * (size_t)n);
    return c;
}

int cc_part_request_new(Cart_request *out, MPI_Comm user, const char *who, const cc_part_shape *s)
{
    Cart_request r = cc_request_alloc(&part_ops, user, who, 1);
    cc_part *p = calloc(1, sizeof *p);
    if (!r || !p) {
        free(r);
        free(p);
        return MPI_ERR_NO_MEM;
    }
    p->send_kind = s->send_kind;
    p->ndest = s->ndest;
    p->nsend = s->nsend;
    p->nsrc = s->nsrc;
    p->nrecv = s->nrecv;
    p->rwhole = s->rwhole;
    p->only_dest = s->only_dest;
    p->need = s->send_kind == CC_PART_WHOLE ? s->nsend * s->ndest : s->nsend;
    p->marks = cc_alloc_zarray((size_t)(s->nsend > 0 ? s->nsend : 1), sizeof *p->marks);
    p->soff = s->send_kind == CC_PART_BLOCKS ? copy_ints(s->soff, s->ndest + 1) : NULL;
    p->roff = !s->rwhole && s->nsrc > 0 ? copy_ints(s->roff, s->nsrc + 1) : NULL;
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    p->multiple = level == MPI_THREAD_MULTIPLE;
    p->owner = pthread_self();
    atomic_init(&p->nready, 0);
    if (!p->marks || (s->send_kind == CC_PART_BLOCKS && !p->soff) || (!s->rwhole && s->nsrc > 0 && !p->roff)) {
        part_free(p);
        free(r);
        return MPI_ERR_NO_MEM;
    }
    r->part = p;
    *out = r;
    return MPI_SUCCESS;
}

void cc_part_set_transport(Cart_request r, const cc_part_ops *ops, void *t)
{
    r->part->ops = ops;
    r->part->t = t;
}

int cc_part_alloc_pdmark(cc_part *p)
{
    p->pdmark = cc_alloc_zarray((size_t)p->nsend * (size_t)p->ndest + 1, sizeof *p->pdmark);
    return p->pdmark ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

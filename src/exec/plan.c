/* The plan engine: create a plan (bind, describe messages, persistent
 * requests), then run it phase by phase and do the local copies. */
#include "exec/plan.h"
#include "base/mpi_compat.h"

#include "base/options.h"
#include "util/alloc.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- plan ---------------------------------------------------------------- */

void cc_plan_free(cc_plan *p)
{
    if (!p) return;
    if (p->persistent && p->reqs) {
        int n = p->req_first ? p->req_first[p->local->nphases] : 0;
        for (int i = 0; i < n; i++)
            if (p->reqs[i] != MPI_REQUEST_NULL) MPI_Request_free(&p->reqs[i]);
    }
    if (p->breqs) {
        for (int i = 0; i < p->breq_first[p->local->nphases]; i++)
            if (p->breqs[i] != MPI_REQUEST_NULL) MPI_Request_free(&p->breqs[i]);
    }
    free(p->breqs);
    free(p->breq_first);
    for (int i = 0; i < p->ntypes; i++) MPI_Type_free(&p->types[i]);
    free(p->types);
    free(p->smsg);
    free(p->rmsg);
    free(p->reqs);
    free(p->req_first);
    free(p->stagebuf);
    free(p->reqround);
    free(p->doneidx);
    free(p->copyops);
    free(p->slotops);
    free(p->copybuf);
    cc_binding_free(&p->bind);
    cc_schedule_free(p->own_sched);
    cc_local_free(p->own_local);
    free(p->own_reduce);
    free(p);
}

/* Does a persistent send carry what its buffer holds at MPI_Start?  SimGrid
 * SMPI 3.32 copies a derived datatype's data into its own buffer when the
 * request is made (MPI_Send_init), so the first start sends what the buffer
 * held then.  Asked once per process with a message to ourselves on a
 * private communicator. */
static int persistent_sends_faithful(void)
{
    static atomic_int known; /* 0 unknown, 1 faithful, 2 not */
    int k = atomic_load(&known);
    if (k) return k == 1;
    int src[4] = { 0, 0, 0, 0 }, dst[2] = { -1, -1 }, ok = 0;
    MPI_Comm self = MPI_COMM_NULL;
    MPI_Datatype v = MPI_DATATYPE_NULL;
    MPI_Request rq[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    if (MPI_Comm_dup(MPI_COMM_SELF, &self) == MPI_SUCCESS && MPI_Type_vector(2, 1, 2, MPI_INT, &v) == MPI_SUCCESS &&
        MPI_Type_commit(&v) == MPI_SUCCESS && MPI_Send_init(src, 1, v, 0, 0, self, &rq[0]) == MPI_SUCCESS) {
        for (int i = 0; i < 4; i++) src[i] = i + 1;
        if (MPI_Irecv(dst, 2, MPI_INT, 0, 0, self, &rq[1]) == MPI_SUCCESS && MPI_Start(&rq[0]) == MPI_SUCCESS &&
            cc_waitall(2, rq) == MPI_SUCCESS)
            ok = dst[0] == 1 && dst[1] == 3;
    }
    if (rq[0] != MPI_REQUEST_NULL) MPI_Request_free(&rq[0]);
    if (v != MPI_DATATYPE_NULL) MPI_Type_free(&v);
    if (self != MPI_COMM_NULL) MPI_Comm_free(&self);
    atomic_store(&known, ok ? 1 : 2);
    return ok;
}

/* Post (or create, when persistent) the messages of local round r. */
static int post_round(cc_plan *p, int r, MPI_Request *rq, int *n, int persistent)
{
    const cc_lround *lr = &p->local->rounds[r];
    const cc_msg *rm = &p->rmsg[r], *sm = &p->smsg[r];
    int rc = MPI_SUCCESS;
    if (lr->recv_rank >= 0) {
        rc = persistent ? MPI_Recv_init(rm->buf, rm->count, rm->type, lr->recv_rank, p->tag, p->comm, &rq[*n])
                        : MPI_Irecv(rm->buf, rm->count, rm->type, lr->recv_rank, p->tag, p->comm, &rq[*n]);
        if (rc != MPI_SUCCESS) return rc;
        (*n)++;
    }
    if (lr->send_rank >= 0) {
        rc = persistent ? MPI_Send_init(sm->buf, sm->count, sm->type, lr->send_rank, p->tag, p->comm, &rq[*n])
                        : MPI_Isend(sm->buf, sm->count, sm->type, lr->send_rank, p->tag, p->comm, &rq[*n]);
        if (rc != MPI_SUCCESS) return rc;
        (*n)++;
    }
    return MPI_SUCCESS;
}

/* The reduction's list and accumulator, and scratch for copies between
 * blocks that are not contiguous (the local copies, and the reduction's
 * first copy of its last operand into the accumulator). */
static int reduce_scratch(cc_plan *p, const int *reduce, int n, const cc_blk *acc)
{
    p->reduce = reduce;
    p->nreduce = n;
    p->acc = acc;
    MPI_Aint need = p->copycap;
    if (n > 0) {
        const cc_blk *last = cc_binding_slot(&p->bind, reduce[n - 1]);
        if (!last->data && !acc->data && last->bytes > need) need = last->bytes;
    }
    if (need == 0 || (p->copybuf && need <= p->copycap)) return MPI_SUCCESS;
    char *buf = realloc(p->copybuf, (size_t)need);
    if (!buf) return MPI_ERR_NO_MEM;
    p->copybuf = buf;
    p->copycap = need;
    return MPI_SUCCESS;
}

int cc_plan_set_reduce(cc_plan *p, int *reduce, int n)
{
    free(p->own_reduce);
    p->own_reduce = reduce;
    return reduce_scratch(p, reduce, n, p->bind.blocks->result);
}

/* Persistent requests for every round, in phase order, into reqs (2
 * nrounds), with *first (malloc'ed) giving each phase's range; on failure
 * nothing is left behind. */
static int make_persistent(cc_plan *p, MPI_Request *reqs, int **first)
{
    const cc_local *l = p->local;
    int rc = MPI_SUCCESS, n = 0, *f = malloc(sizeof(int) * ((size_t)l->nphases + 1));
    if (!f) return MPI_ERR_NO_MEM;
    f[0] = 0;
    for (int ph = 0; rc == MPI_SUCCESS && ph < l->nphases; ph++) {
        f[ph] = n;
        for (int r = l->phase_first[ph]; rc == MPI_SUCCESS && r < l->phase_first[ph + 1]; r++)
            rc = post_round(p, r, reqs, &n, 1);
        f[ph + 1] = n;
    }
    if (rc != MPI_SUCCESS) { /* free what was created */
        for (int i = 0; i < n; i++) MPI_Request_free(&reqs[i]);
        free(f);
        return rc;
    }
    *first = f;
    return MPI_SUCCESS;
}

/* Whether [a, a+na) and [b, b+nb) do not overlap. */
static int disjoint(const char *a, MPI_Aint na, const char *b, MPI_Aint nb)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x + (uintptr_t)na <= y || y + (uintptr_t)nb <= x;
}

/* Append copy *xp to the fused ops[0..k) (xp may point into ops[k..]): merged
 * into the last one where it continues it.  Returns the new count. */
static inline int fuse_push(cc_copyop *ops, int k, const cc_copyop *xp)
{
    const cc_copyop x = *xp;
    if (!x.src_blk && x.bytes == 0) return k; /* nothing to move */
    cc_copyop *y = k ? &ops[k - 1] : NULL;
    if (y && !x.src_blk && !y->src_blk) {
        MPI_Aint run = y->bytes * y->reps;
        /* both follow on: one memmove */
        if (y->reps == 1 && x.src == y->src + y->bytes && x.dst == y->dst + y->bytes &&
            disjoint(y->src, y->bytes + x.bytes, y->dst, y->bytes + x.bytes)) {
            y->bytes += x.bytes;
            return k;
        }
        /* the same source once more, right after: replicate */
        if (x.src == y->src && x.bytes == y->bytes && x.dst == y->dst + run &&
            disjoint(y->src, y->bytes, y->dst, run + x.bytes)) {
            y->reps++;
            return k;
        }
    }
    ops[k] = x;
    return k + 1;
}

int cc_fuse_copies(cc_copyop *ops, int n)
{
    int k = 0;
    for (int j = 0; j < n; j++) k = fuse_push(ops, k, &ops[j]);
    return k;
}

/* The most rounds of one phase that stage a message (send or receive):
 * with two or more, packing one while another travels can pay. */
static int staged_rounds(const cc_plan *p)
{
    const cc_local *l = p->local;
    int most = 0;
    for (int ph = 0; ph < l->nphases; ph++) {
        int n = 0;
        for (int r = l->phase_first[ph]; r < l->phase_first[ph + 1]; r++)
            n += (l->rounds[r].send_rank >= 0 && p->smsg[r].stage) || (l->rounds[r].recv_rank >= 0 && p->rmsg[r].stage);
        if (n > most) most = n;
    }
    return most;
}

int cc_plan_create(cc_plan **out, const cc_schedule *s, const cc_local *l, cc_blocks *blocks,
                   int algorithm, int executor, int persistent, MPI_Comm comm, int tag)
{
    return cc_plan_create_like(out, s, l, blocks, algorithm, executor, persistent, comm, tag, NULL);
}

int cc_plan_create_like(cc_plan **out, const cc_schedule *s, const cc_local *l, cc_blocks *blocks,
                        int algorithm, int executor, int persistent, MPI_Comm comm, int tag, const cc_plan *like)
{
    *out = NULL;
    cc_plan *p = calloc(1, sizeof *p);
    if (!p) return MPI_ERR_NO_MEM;
    p->sched = s;
    p->local = l;
    p->algorithm = algorithm;
    p->executor = executor;
    /* Where persistent sends would carry stale data, a persistent operation
     * posts its messages anew in every run, as a non-blocking one does. */
    p->persistent = persistent && persistent_sends_faithful();
    p->comm = comm;
    p->tag = tag;
    p->phase = l->nphases;
    p->ex = executor == CC_EXEC_DATATYPE ? &cc_exec_datatype : &cc_exec_pack;
    int nr = l->nrounds ? l->nrounds : 1;
    p->smsg = calloc((size_t)nr, sizeof(cc_msg));
    p->rmsg = calloc((size_t)nr, sizeof(cc_msg));
    size_t nq = p->persistent ? 2 * (size_t)l->nrounds : 2 * (size_t)l->max_phase_rounds;
    p->reqs = cc_alloc_array(nq, sizeof(MPI_Request));
    int rc = (!p->smsg || !p->rmsg || !p->reqs) ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    if (rc == MPI_SUCCESS && like && like->sched == s && like->local == l && like->bind.blocks == blocks)
        cc_bind_share(&p->bind, &like->bind);
    else if (rc == MPI_SUCCESS)
        rc = cc_bind(&p->bind, blocks, s, l);
    if (rc == MPI_SUCCESS) rc = p->ex->prepare(p);
    if (rc == MPI_SUCCESS && p->ex->unpack_round && staged_rounds(p) > 1) {
        size_t nph = 2 * (size_t)(l->max_phase_rounds ? l->max_phase_rounds : 1);
        p->reqround = cc_alloc_array(nph, sizeof(int));
        p->doneidx = cc_alloc_array(nph, sizeof(int));
        if (!p->reqround || !p->doneidx) rc = MPI_ERR_NO_MEM;
    }

    /* Local copies, resolved once and fused as they come (only the fused
     * ones are written: one at 1 process where t copies continue each
     * other); scratch for those between blocks that are not both
     * contiguous. */
    if (rc == MPI_SUCCESS && !(p->copyops = cc_alloc_array((size_t)l->ncopies, sizeof(cc_copyop))))
        rc = MPI_ERR_NO_MEM;
    for (int j = 0; rc == MPI_SUCCESS && j < l->ncopies; j++) {
        const cc_blk *src = cc_binding_slot(&p->bind, l->copies[2 * j]);
        const cc_blk *dst = cc_binding_slot(&p->bind, l->copies[2 * j + 1]);
        if (src->bytes > dst->bytes) rc = MPI_ERR_TRUNCATE;
        int fast = src->data && dst->data;
        /* a block copied onto itself: nothing to move (decided once, here) */
        MPI_Aint bytes = fast && src->data == dst->data ? 0 : src->bytes;
        const cc_copyop op = { src->data, dst->data, bytes, fast ? NULL : src, fast ? NULL : dst, 1, 1 };
        p->ncopyops = fuse_push(p->copyops, p->ncopyops, &op);
        /* scratch only between two non-contiguous blocks */
        if (!src->data && !dst->data && src->bytes > p->copycap) p->copycap = src->bytes;
    }
    /* Folds copy between blocks of the result's layout: scratch when it is
     * not contiguous. */
    for (int j = 0; rc == MPI_SUCCESS && j < l->nfolds; j++) {
        const cc_blk *src = cc_binding_slot(&p->bind, l->folds[3 * j + 1]);
        if (!src->data && src->bytes > p->copycap) p->copycap = src->bytes;
    }
    if (rc == MPI_SUCCESS) rc = reduce_scratch(p, l->reduce, l->nreduce, &blocks->recv[0]);

    if (rc == MPI_SUCCESS && p->persistent) rc = make_persistent(p, p->reqs, &p->req_first);
    if (rc != MPI_SUCCESS) {
        cc_plan_free(p);
        return rc;
    }
    *out = p;
    return MPI_SUCCESS;
}

static MPI_Request *phase_reqs(cc_plan *p)
{
    if (p->inb) return p->breqs + p->breq_first[p->phase];
    return p->persistent ? p->reqs + p->req_first[p->phase] : p->reqs;
}

/* Pack (out = 1) or unpack (out = 0) the staged messages of phase ph. */
static int stage_phase(cc_plan *p, int ph, int out)
{
    int (*op)(cc_plan *, int) = out ? p->ex->pack_round : p->ex->unpack_round;
    for (int r = p->local->phase_first[ph]; op && r < p->local->phase_first[ph + 1]; r++) {
        int rc = op(p, r);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* A phase that stages two or more messages, round by round: the round's
 * message packed, then its receive and send started (the calls in the
 * order MPI_Startall gets them otherwise), so the first messages travel
 * while the later ones are packed; reap() unpacks each receive as it
 * completes.  Persistent requests keep make_persistent's layout (per
 * round: receive, send). */
static int post_phase_overlap(cc_plan *p)
{
    const cc_local *l = p->local;
    const int made = p->persistent || p->inb;
    MPI_Request *q = phase_reqs(p);
    int rc = MPI_SUCCESS, n = 0;
    for (int r = l->phase_first[p->phase]; rc == MPI_SUCCESS && r < l->phase_first[p->phase + 1]; r++) {
        const cc_lround *lr = &l->rounds[r];
        int first = n, k = (lr->recv_rank >= 0) + (lr->send_rank >= 0);
        rc = p->ex->pack_round(p, r);
        if (rc != MPI_SUCCESS) break;
        if (made) {
            rc = MPI_Startall(k, q + n);
            n += k;
        } else {
            rc = post_round(p, r, q, &n, 0);
        }
        if (lr->recv_rank >= 0) p->reqround[first] = r;
        if (lr->send_rank >= 0) p->reqround[first + k - 1] = -1;
    }
    p->nreqs = p->left = n;
    return rc;
}

static int post_phase(cc_plan *p)
{
    if (p->reqround) return post_phase_overlap(p);
    int ph = p->phase, rc = stage_phase(p, ph, 1);
    if (rc != MPI_SUCCESS) return rc;
    if (p->persistent || p->inb) {
        const int *f = p->inb ? p->breq_first : p->req_first;
        p->nreqs = f[ph + 1] - f[ph];
        return MPI_Startall(p->nreqs, (p->inb ? p->breqs : p->reqs) + f[ph]);
    }
    p->nreqs = 0;
    for (int r = p->local->phase_first[ph]; r < p->local->phase_first[ph + 1]; r++) {
        rc = post_round(p, r, p->reqs, &p->nreqs, 0);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* Overlap: the n requests MPI_Waitsome/Testsome just completed (doneidx);
 * receives are unpacked now.  MPI_UNDEFINED: none was active any more. */
static int reap(cc_plan *p, int n)
{
    if (n == MPI_UNDEFINED) {
        p->left = 0;
        return MPI_SUCCESS;
    }
    for (int i = 0; i < n; i++) {
        int r = p->reqround[p->doneidx[i]];
        int rc = r >= 0 ? p->ex->unpack_round(p, r) : MPI_SUCCESS;
        if (rc != MPI_SUCCESS) return rc;
    }
    p->left -= n;
    return MPI_SUCCESS;
}

/* The phase in flight: all its requests complete (blocking), or as many as
 * have (test: *flag says whether all have). */
static int complete_phase(cc_plan *p, int blocking, int *flag)
{
    if (!p->reqround) {
        if (blocking) return cc_waitall(p->nreqs, phase_reqs(p));
        return cc_testall(p->nreqs, phase_reqs(p), flag);
    }
    int rc = MPI_SUCCESS;
    while (rc == MPI_SUCCESS && p->left > 0) {
        int n = 0;
        rc = blocking ? cc_waitsome(p->nreqs, phase_reqs(p), &n, p->doneidx)
                      : cc_testsome(p->nreqs, phase_reqs(p), &n, p->doneidx);
        if (rc == MPI_SUCCESS) rc = reap(p, n);
        if (!blocking && n == 0) break;
    }
    if (flag) *flag = p->left == 0;
    return rc;
}

void cc_copy_run(const cc_copyop *op)
{
    if (op->reps == 1) {
        memmove(op->dst, op->src, (size_t)op->bytes);
        return;
    }
    /* the first copy, then doubling what is there: log2(reps) memcpy */
    size_t b = (size_t)op->bytes, done = b, total = b * (size_t)op->reps;
    memcpy(op->dst, op->src, b);
    while (done < total) {
        size_t k = done < total - done ? done : total - done;
        memcpy(op->dst + done, op->dst, k);
        done += k;
    }
}

static int run_copies(cc_plan *p)
{
    for (const cc_copyop *op = p->copyops, *end = op + p->ncopyops; op < end; op++) {
        if (!op->src_blk) {
            cc_copy_run(op);
            continue;
        }
        int rc = cc_blk_copy(op->src_blk, op->dst_blk, p->copybuf, p->copycap, p->comm, p->tag);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* dst = src (CC_FOLD_COPY) or dst = src op dst (CC_FOLD_OP): blocks of one
 * layout, MPI_Reduce_local(in, inout) computes inout = in op inout. */
static int fold(cc_plan *p, int kind, const cc_blk *src, const cc_blk *dst)
{
    if (kind == CC_FOLD_OP) return MPI_Reduce_local(src->addr, dst->addr, dst->count, dst->type, p->bind.blocks->op);
    if (src->data && dst->data) {
        if (src->data != dst->data) memcpy(dst->data, src->data, (size_t)src->bytes); /* (in place: the same) */
        return MPI_SUCCESS;
    }
    return cc_blk_copy(src, dst, p->copybuf, p->copycap, p->comm, p->tag);
}

/* The folds after local phase ph (reductions on the way). */
static int run_folds(cc_plan *p, int ph)
{
    const cc_local *l = p->local;
    int rc = MPI_SUCCESS;
    for (int j = l->fold_first[ph]; rc == MPI_SUCCESS && j < l->fold_first[ph + 1]; j++) {
        const int *f = l->folds + 3 * (size_t)j;
        rc = fold(p, f[0], cc_binding_slot(&p->bind, f[1]), cc_binding_slot(&p->bind, f[2]));
    }
    return rc;
}

/* recv 0 = reduce[0] op reduce[1] op ... op reduce[n-1], in this order for
 * operations that do not commute: the operands are folded in from the
 * right. */
static int run_reduce(cc_plan *p)
{
    const cc_blk *acc = p->acc;
    int rc = fold(p, CC_FOLD_COPY, cc_binding_slot(&p->bind, p->reduce[p->nreduce - 1]), acc);
    for (int j = p->nreduce - 2; rc == MPI_SUCCESS && j >= 0; j--)
        rc = fold(p, CC_FOLD_OP, cc_binding_slot(&p->bind, p->reduce[j]), acc);
    return rc;
}

/* After the last phase: local copies, then the reduction. */
static int finish(cc_plan *p)
{
    int rc = run_copies(p);
    return rc != MPI_SUCCESS || p->nreduce == 0 ? rc : run_reduce(p);
}

/* The phase in flight completed: unpack, move on, post the next one. */
static int next_phase(cc_plan *p)
{
    int rc = p->reqround ? MPI_SUCCESS : stage_phase(p, p->phase, 0); /* (overlap: unpacked on arrival) */
    if (rc == MPI_SUCCESS && p->local->nfolds) rc = run_folds(p, p->phase);
    if (rc != MPI_SUCCESS) return rc;
    p->nreqs = 0;
    if (++p->phase < p->local->nphases) return post_phase(p);
    return finish(p);
}

static int start(cc_plan *p)
{
    p->phase = 0;
    p->nreqs = 0;
    if (p->local->nphases == 0) return finish(p);
    return post_phase(p);
}

int cc_plan_start(cc_plan *p)
{
    p->inb = 0;
    return start(p);
}

int cc_plan_start_reused(cc_plan *p)
{
    p->inb = 0;
    if (!p->persistent && !p->breqs && persistent_sends_faithful()) {
        /* once: the cost of creating them is paid back from the next run */
        MPI_Request *r = cc_alloc_array(2 * (size_t)p->local->nrounds, sizeof(MPI_Request));
        if (r && make_persistent(p, r, &p->breq_first) == MPI_SUCCESS) p->breqs = r;
        else free(r);
    }
    p->inb = p->breqs != NULL;
    return start(p);
}

int cc_plan_test(cc_plan *p, int *done)
{
    *done = 0;
    while (p->phase < p->local->nphases) {
        int flag = 0, rc = complete_phase(p, 0, &flag);
        if (rc != MPI_SUCCESS) return rc;
        if (!flag) return MPI_SUCCESS;
        if ((rc = next_phase(p)) != MPI_SUCCESS) return rc;
    }
    *done = 1;
    return MPI_SUCCESS;
}

int cc_plan_wait(cc_plan *p)
{
    while (p->phase < p->local->nphases) {
        int rc = complete_phase(p, 1, NULL);
        if (rc == MPI_SUCCESS) rc = next_phase(p);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

int cc_plan_wait_phase(cc_plan *p)
{
    if (p->phase >= p->local->nphases) return MPI_SUCCESS;
    return complete_phase(p, 1, NULL);
}

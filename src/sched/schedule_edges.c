#include "sched/schedule_edges.h"

#include "geom/geometry.h"
#include "util/alloc.h"

#include <stdlib.h>

typedef struct half {
    int rank, slot;
} half;

typedef struct lists {
    half *send, *recv;
    int nsend, nrecv, ntemp;
    int *reduce;
    int nreduce;
} lists;

static int has(const int *v, int n, int x)
{
    for (int i = 0; i < n; i++)
        if (v[i] == x) return 1;
    return 0;
}

typedef struct ranked {
    int rank, index;
} ranked;

static int by_rank_then_index(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* last[i] = 1 for the last index of each distinct destination. */
static int mark_last(const cc_edges *e, unsigned char *last)
{
    ranked *r = cc_alloc_array((size_t)e->outdeg, sizeof(ranked));
    if (!r) return CC_ENOMEM;
    for (int i = 0; i < e->outdeg; i++) {
        r[i] = (ranked){ e->dst[i], i };
        last[i] = 0;
    }
    qsort(r, (size_t)e->outdeg, sizeof *r, by_rank_then_index);
    for (int i = 0; i < e->outdeg; i++)
        if (i + 1 == e->outdeg || r[i + 1].rank != r[i].rank) last[r[i].index] = 1;
    free(r);
    return CC_OK;
}

static void add(half *h, int *n, int rank, int slot)
{
    h[*n].rank = rank;
    h[*n].slot = slot;
    (*n)++;
}

/* The messages of one process (see the header for each meaning). */
static int messages(int coll, const cc_edges *e, int root, int in_place, lists *L)
{
    const int me = e->me, S0 = CC_SLOT(CC_SLOT_SEND, 0), R0 = CC_SLOT(CC_SLOT_RECV, 0);
    const int is_root = me == root, root_src = has(e->src, e->indeg, root);
    int rc = CC_OK;
    for (int i = 0; i < e->outdeg; i++) {
        int v = e->dst[i];
        if (v == CC_NONE) continue;
        switch (coll) {
        case CC_ALLGATHER:
        case CC_BARRIER:
        case CC_ALLREDUCE: add(L->send, &L->nsend, v, S0); break;
        case CC_ALLTOALL: add(L->send, &L->nsend, v, CC_SLOT(CC_SLOT_SEND, i)); break;
        case CC_GATHER:
        case CC_REDUCE:
            if (v == root && !(is_root && in_place && coll == CC_GATHER)) add(L->send, &L->nsend, v, S0);
            break;
        default: break; /* bcast, scatter: below */
        }
    }
    if ((coll == CC_BCAST || coll == CC_SCATTER) && is_root) {
        unsigned char *last = cc_alloc_array((size_t)e->outdeg, 1);
        if (!last || (rc = mark_last(e, last)) != CC_OK) {
            free(last);
            return CC_ENOMEM;
        }
        for (int i = 0; i < e->outdeg; i++) {
            int v = e->dst[i];
            if (v == CC_NONE || !last[i]) continue;
            if (coll == CC_BCAST && v != me) add(L->send, &L->nsend, v, S0);
            if (coll == CC_SCATTER && !(v == me && in_place)) add(L->send, &L->nsend, v, CC_SLOT(CC_SLOT_SEND, i));
        }
        free(last);
    }
    if ((coll == CC_BCAST && !is_root && root_src) || (coll == CC_SCATTER && root_src && !(is_root && in_place)))
        add(L->recv, &L->nrecv, root, R0);
    for (int j = 0; j < e->indeg; j++) {
        int u = e->src[j];
        if (u == CC_NONE) continue;
        switch (coll) {
        case CC_ALLGATHER:
        case CC_ALLTOALL: add(L->recv, &L->nrecv, u, CC_SLOT(CC_SLOT_RECV, j)); break;
        case CC_BARRIER: add(L->recv, &L->nrecv, u, R0); break;
        case CC_GATHER:
            if (is_root && !(u == me && in_place)) add(L->recv, &L->nrecv, u, CC_SLOT(CC_SLOT_RECV, j));
            break;
        case CC_REDUCE:
        case CC_ALLREDUCE:
            if (coll == CC_REDUCE && !is_root) break;
            L->reduce[L->nreduce++] = CC_SLOT(CC_SLOT_TEMP, L->ntemp);
            add(L->recv, &L->nrecv, u, CC_SLOT(CC_SLOT_TEMP, L->ntemp++));
            break;
        default: break;
        }
    }
    return rc;
}

/* One phase; round r pairs the r-th send with the r-th receive. */
static cc_local *local_of(const lists *L)
{
    int n = L->nsend > L->nrecv ? L->nsend : L->nrecv;
    cc_local *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    l->phase_first = malloc(2 * sizeof(int));
    l->rounds = cc_alloc_zarray((size_t)n, sizeof(cc_lround));
    l->slots = cc_alloc_array(2 * (size_t)n, sizeof(int));
    if (!l->phase_first || !l->rounds || !l->slots) {
        cc_local_free(l);
        return NULL;
    }
    l->nphases = n > 0;
    l->phase_first[0] = 0;
    l->phase_first[1] = n;
    l->nrounds = l->max_phase_rounds = n;
    for (int i = 0; i < n; i++) {
        cc_lround *r = &l->rounds[i];
        r->id = i;
        r->send_rank = i < L->nsend ? L->send[i].rank : CC_NONE;
        r->recv_rank = i < L->nrecv ? L->recv[i].rank : CC_NONE;
        r->sfirst = l->nslots;
        r->scount = i < L->nsend;
        if (r->scount) l->slots[l->nslots++] = L->send[i].slot;
        r->rfirst = l->nslots;
        r->rcount = i < L->nrecv;
        if (r->rcount) l->slots[l->nslots++] = L->recv[i].slot;
        r->sdirect = (unsigned char)r->scount; /* one block from / into its own buffer */
        r->rdirect = (unsigned char)r->rcount;
        l->sent += r->scount;
    }
    return l;
}

int cc_schedule_edges(int collective, const cc_edges *e, int root, int in_place, cc_schedule **s, cc_local **l)
{
    size_t nin = (size_t)e->indeg, nout = (size_t)e->outdeg;
    lists L = { 0 };
    *s = calloc(1, sizeof **s);
    *l = NULL;
    L.send = cc_alloc_array(nout, sizeof(half));
    L.recv = cc_alloc_array(nin, sizeof(half));
    L.reduce = cc_alloc_array(nin, sizeof(int));
    int rc = *s && L.send && L.recv && L.reduce ? CC_OK : CC_ENOMEM;
    if (rc == CC_OK) rc = messages(collective, e, root, in_place, &L);
    if (rc == CC_OK && !(*l = local_of(&L))) rc = CC_ENOMEM;
    if (rc == CC_OK && L.ntemp > 0 && !((*s)->temp_like = calloc((size_t)L.ntemp, sizeof(int)))) rc = CC_ENOMEM;
    if (rc == CC_OK) {
        (*l)->nreduce = L.nreduce;
        (*l)->reduce = L.reduce; /* the local plan owns it now */
        L.reduce = NULL;
        (*s)->collective = collective;
        (*s)->algorithm = CC_DIRECT;
        (*s)->t = e->indeg;
        (*s)->ntemp = L.ntemp;
        (*s)->nphases = (*l)->nphases;
        (*s)->nrounds = (*l)->nrounds;
        (*s)->nentries = (int)(*l)->sent;
    }
    free(L.send);
    free(L.recv);
    free(L.reduce);
    if (rc != CC_OK) {
        cc_schedule_free(*s);
        cc_local_free(*l);
        *s = NULL;
        *l = NULL;
    }
    return rc;
}

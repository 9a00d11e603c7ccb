#include "sched/localize.h"
#include "util/alloc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct ctx {
    const cc_schedule *s;
    const cc_grid *g;
    const int *me;
    int *pos;        /* pos[k]: position of dimension k in s->order */
    long long *org;  /* scratch: origin coordinates */
    int mesh;        /* any non-periodic dimension? */
    unsigned char *live; /* onway: which slots hold a partial here (SEND, RECV, TEMP) */
    const cc_rooted *rt; /* rooted collectives, else NULL */
    int istar;       /* CC_ROOT_FROM: the leaf delivered into RECV 0 here, -1 none */
    int isroot;      /* this process is the root */
} ctx;

/* Coordinate x on dimension k is the root's (wrapping on periodic ones). */
static int at_root(const ctx *c, int k, long long x)
{
    long long p = c->g->dims[k];
    if (c->g->periods[k]) x = ((x % p) + p) % p;
    return x == c->rt->root[k];
}

static unsigned char *live_at(const ctx *c, int slot)
{
    int k = CC_SLOT_KIND(slot), i = CC_SLOT_INDEX(slot);
    return c->live + (k == CC_SLOT_TEMP ? 2 + i : k == CC_SLOT_RECV ? 1 : 0);
}

static void mark_live(ctx *c, int slot) { *live_at(c, slot) = 1; }

/* The folds of phase ph as this process runs them: left out where the
 * operand was received from no process, a copy where the target holds
 * nothing yet. */
static void localize_folds(cc_local *l, ctx *c, const cc_phase *ph)
{
    for (int f = ph->ffirst; f < ph->ffirst + ph->fcount; f++) {
        const cc_fold *fd = &c->s->folds[f];
        if (!*live_at(c, fd->src)) continue;
        int *o = l->folds + 3 * (size_t)l->nfolds++;
        o[0] = *live_at(c, fd->dst) ? CC_FOLD_OP : CC_FOLD_COPY;
        o[1] = fd->src;
        o[2] = fd->dst;
        mark_live(c, fd->dst);
    }
}

static int on_mesh(const ctx *c, int k, long long x)
{
    return c->g->periods[k] || (x >= 0 && x < c->g->dims[k]);
}

/* Does the instance carried by entry e exist at holder H (phase at kpos)? */
static int exists_at(const ctx *c, const int H[], const cc_entry *e, int kpos)
{
    if ((!c->mesh && !c->rt) || c->s->onway) return 1; /* onway: partials exist wherever processes do */
    const cc_schedule *s = c->s;
    int d = s->d, axis = s->order[kpos];
    const int *lead = s->offs + (size_t)s->perm[e->lo] * d;
    for (int k = 0; k < d; k++) {
        long long pre = c->pos[k] < kpos ? lead[k] : (k == axis ? e->moved : 0);
        c->org[k] = (long long)H[k] - pre;
        if (!on_mesh(c, k, c->org[k])) return 0;
        if (c->rt && c->rt->mode == CC_ROOT_FROM && !at_root(c, k, c->org[k])) return 0;
    }
    int to = c->rt && c->rt->mode == CC_ROOT_TO;
    for (int l = e->lo; l < e->hi; l++) {
        const int *n = s->offs + (size_t)s->perm[l] * d;
        int k = 0;
        while (k < d && on_mesh(c, k, c->org[k] + n[k]) && (!to || at_root(c, k, c->org[k] + n[k]))) k++;
        if (k == d) return 1;
    }
    return 0;
}

/* Does this process have a source for receive block i? */
static int has_source(const ctx *c, int i)
{
    return !c->mesh || cc_grid_inside(c->g, c->me, c->s->offs + (size_t)i * c->s->d, -1);
}

static int is_direct(const cc_entry *e)
{
    return CC_SLOT_KIND(e->src) == CC_SLOT_SEND && CC_SLOT_KIND(e->dst) == CC_SLOT_RECV;
}

static int remap(const ctx *c, int slot)
{
    if (c->s->onway) return slot;
    /* Rooted: receive blocks are scratch on the way (TEMP2), except the
     * delivered one (FROM: into the one buffer, RECV 0) and the root's own
     * (TO). */
    if (c->rt && CC_SLOT_KIND(slot) == CC_SLOT_RECV && !(c->rt->mode == CC_ROOT_TO && c->isroot)) {
        int i = CC_SLOT_INDEX(slot);
        return i == c->istar ? CC_SLOT(CC_SLOT_RECV, 0) : CC_SLOT(CC_SLOT_TEMP2, i);
    }
    if (CC_SLOT_KIND(slot) == CC_SLOT_RECV && !has_source(c, CC_SLOT_INDEX(slot)))
        return CC_SLOT(CC_SLOT_TEMP2, CC_SLOT_INDEX(slot));
    return slot;
}

void cc_local_free(cc_local *l)
{
    if (!l) return;
    free(l->phase_first);
    free(l->rounds);
    free(l->slots);
    free(l->copies);
    free(l->reduce);
    free(l->fold_first);
    free(l->folds);
    free(l);
}

/* Round r of phase ph as this process runs it: the slots it sends and
 * receives (instances that exist here), or nothing. */
static void localize_round(cc_local *l, ctx *c, const cc_phase *ph, int r, int *H)
{
    const cc_schedule *s = c->s;
    const cc_grid *g = c->g;
    const int *coords = c->me;
    int d = s->d;
    const cc_round *rd = &s->rounds[r];
    const int *v = s->vecs + (size_t)rd->vec * d;
    const cc_entry *e = s->entries + rd->first;
    cc_lround lr = { r, cc_grid_shift(g, coords, v, +1), cc_grid_shift(g, coords, v, -1),
                     l->nslots, 0, 0, 0, 0, 0 };
    int last = -1;
    /* A torus, not rooted: every instance exists everywhere and every slot
     * is itself (exists_at, remap), so the round is its entries. */
    int whole = !c->mesh && !c->rt;
    if (lr.send_rank != CC_NONE && whole) {
        for (int j = 0; j < rd->count; j++) l->slots[l->nslots++] = e[j].src;
        last = rd->count - 1;
    } else if (lr.send_rank != CC_NONE) {
        for (int j = 0; j < rd->count; j++)
            if (exists_at(c, coords, &e[j], ph->kpos)) {
                l->slots[l->nslots++] = remap(c, e[j].src);
                last = j;
            }
    }
    lr.scount = l->nslots - lr.sfirst;
    lr.sdirect = lr.scount == 1 && is_direct(&e[last]);
    lr.rfirst = l->nslots;
    if (lr.recv_rank != CC_NONE && whole) {
        for (int j = 0; j < rd->count; j++) l->slots[l->nslots++] = e[j].dst;
        last = rd->count - 1;
    } else if (lr.recv_rank != CC_NONE) {
        cc_grid_coords(g, lr.recv_rank, H);
        for (int j = 0; j < rd->count; j++)
            if (exists_at(c, H, &e[j], ph->kpos)) {
                l->slots[l->nslots++] = remap(c, e[j].dst);
                last = j;
            }
    }
    lr.rcount = l->nslots - lr.rfirst;
    for (int j = lr.rfirst; c->live && j < l->nslots; j++) mark_live(c, l->slots[j]);
    lr.rdirect = lr.rcount == 1 && is_direct(&e[last]);
    if (!lr.scount) lr.send_rank = CC_NONE;
    if (!lr.rcount) lr.recv_rank = CC_NONE;
    if (lr.send_rank == CC_NONE && lr.recv_rank == CC_NONE) {
        l->nslots = lr.sfirst;
        return;
    }
    l->sent += lr.scount;
    l->rounds[l->nrounds++] = lr;
}

/* Whether the process's copy producing leaf `leaf` runs: its source
 * exists, and a rooted plan keeps only what it delivers. */
static int keeps_copy(const ctx *c, int leaf)
{
    if (!has_source(c, leaf)) return 0;
    if (!c->rt) return 1;
    if (c->rt->mode == CC_ROOT_FROM) return leaf == c->istar;
    if (!c->isroot) return 0;
    /* only zero vectors (reduced) lead from the root to itself */
    const int *n = c->s->offs + (size_t)leaf * c->s->d;
    int self = 1;
    for (int k = 0; k < c->s->d; k++) self &= n[k] == 0;
    return !(self && c->rt->skip_self);
}

/* CC_ROOT_FROM: the leaf i (first or last) with this process = root + N[i]. */
static int delivered_leaf(const ctx *c)
{
    const cc_schedule *s = c->s;
    int d = s->d, found = -1;
    if (!c->rt->deliver) return -1;
    for (int i = 0; i < s->t; i++) {
        const int *n = s->offs + (size_t)i * d;
        int k = 0;
        while (k < d && on_mesh(c, k, (long long)c->me[k] - n[k]) && at_root(c, k, (long long)c->me[k] - n[k])) k++;
        if (k < d) continue;
        found = i;
        if (!c->rt->last) break;
    }
    return found;
}

int cc_localize(const cc_schedule *s, const cc_grid *g, const int coords[], cc_local **out)
{
    return cc_localize_rooted(s, g, coords, NULL, out);
}

int cc_localize_rooted(const cc_schedule *s, const cc_grid *g, const int coords[], const cc_rooted *rt,
                       cc_local **out)
{
    *out = NULL;
    int d = s->d;
    cc_local *l = calloc(1, sizeof *l);
    ctx c = { s, g, coords, cc_alloc_array((size_t)d, sizeof(int)),
              cc_alloc_array((size_t)d, sizeof(long long)), 0, NULL, rt, -1, 0 };
    int *H = cc_alloc_array((size_t)d, sizeof(int));
    if (l) {
        l->phase_first = malloc(sizeof(int) * ((size_t)s->nphases + 1));
        l->rounds = cc_alloc_array((size_t)s->nrounds, sizeof(cc_lround));
        l->slots = malloc(sizeof(int) * (2 * (size_t)s->nentries + 1));
        l->copies = malloc(sizeof(int) * (2 * (size_t)s->ncopies + 1));
        if (s->onway) {
            c.live = calloc((size_t)s->ntemp + 2, 1);
            l->fold_first = malloc(sizeof(int) * ((size_t)s->nphases + 1));
            l->folds = malloc(sizeof(int) * (3 * (size_t)s->nfolds + 1));
        }
    }
    if (!l || !c.pos || !c.org || !H || !l->phase_first || !l->rounds || !l->slots || !l->copies ||
        (s->onway && (!c.live || !l->fold_first || !l->folds))) {
        free(c.live);
        free(c.pos);
        free(c.org);
        free(H);
        cc_local_free(l);
        return CC_ENOMEM;
    }
    for (int k = 0; k < d; k++) {
        c.pos[s->order[k]] = k;
        if (!g->periods[k]) c.mesh = 1;
    }
    if (rt) {
        c.isroot = 1;
        for (int k = 0; k < d; k++) c.isroot &= coords[k] == rt->root[k];
        if (rt->mode == CC_ROOT_FROM) c.istar = delivered_leaf(&c);
    }

    if (c.live) c.live[0] = 1; /* the send buffer */
    for (int p = 0; p < s->nphases; p++) {
        const cc_phase *ph = &s->phases[p];
        l->phase_first[l->nphases] = l->nrounds;
        if (c.live) l->fold_first[l->nphases] = l->nfolds;
        for (int r = ph->first; r < ph->first + ph->count; r++) localize_round(l, &c, ph, r, H);
        if (c.live) localize_folds(l, &c, ph);
        int n = l->nrounds - l->phase_first[l->nphases];
        if (n > 0 || (c.live && l->nfolds > l->fold_first[l->nphases])) {
            if (n > l->max_phase_rounds) l->max_phase_rounds = n;
            l->nphases++;
        }
    }
    l->phase_first[l->nphases] = l->nrounds;
    if (c.live) l->fold_first[l->nphases] = l->nfolds;

    for (int j = 0; j < s->ncopies && !c.mesh && !rt; j++) { /* (every copy runs as it is) */
        l->copies[2 * j] = s->copies[j].src;
        l->copies[2 * j + 1] = s->copies[j].dst;
        l->ncopies++;
    }
    for (int j = 0; j < s->ncopies && (c.mesh || rt); j++) {
        if (!keeps_copy(&c, s->copies[j].leaf)) continue;
        l->copies[2 * l->ncopies] = remap(&c, s->copies[j].src);
        l->copies[2 * l->ncopies + 1] = remap(&c, s->copies[j].dst);
        l->ncopies++;
    }
    free(c.live);
    free(c.pos);
    free(c.org);
    free(H);
    *out = l;
    return CC_OK;
}

int cc_rooted_stats(const cc_schedule *s, int mode, long long *phases, long long *rounds, long long *volume)
{
    int d = s->d, rc = CC_OK;
    int *dims = cc_alloc_array((size_t)d, sizeof(int)), *per = cc_alloc_array((size_t)d, sizeof(int));
    int *root = cc_alloc_array((size_t)d, sizeof(int));
    *phases = *rounds = *volume = 0;
    if (!dims || !per || !root) rc = CC_ENOMEM;
    long long size = 1;
    for (int k = 0; rc == CC_OK && k < d; k++) {
        long long m = 0;
        for (int i = 0; i < s->t; i++) {
            long long x = s->offs[(size_t)i * d + k];
            if ((x < 0 ? -x : x) > m) m = x < 0 ? -x : x;
        }
        /* paths and targets stay within 2m of the root */
        if (4 * m + 1 > INT_MAX / size) rc = CC_ETOOBIG;
        else size *= 4 * m + 1;
        dims[k] = (int)(4 * m + 1);
        per[k] = 1;
        root[k] = (int)(2 * m);
    }
    cc_local *l = NULL;
    if (rc == CC_OK) {
        cc_grid g = { d, (int)size, dims, per, 0 };
        cc_rooted rt = { mode, root, 0, 0, 0 };
        rc = cc_localize_rooted(s, &g, root, &rt, &l);
    }
    for (int r = 0; rc == CC_OK && r < l->nrounds; r++) {
        const cc_lround *lr = &l->rounds[r];
        int n = mode == CC_ROOT_FROM ? lr->scount : lr->rcount;
        *rounds += n > 0;
        *volume += n;
    }
    if (rc == CC_OK) *phases = l->nphases;
    cc_local_free(l);
    free(dims);
    free(per);
    free(root);
    return rc;
}

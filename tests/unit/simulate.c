/* In-memory simulator: see simulate.h.
 *
 * Every process of the virtual grid gets its local plan from cc_localize;
 * the plans are then executed phase by phase in one address space.  Slots
 * hold tokens: the send slots of process Q hold (Q, i) (alltoall) or (Q, 0)
 * (allgather), receive slots start UNTOUCHED, temporaries EMPTY.  The final
 * receive slots are checked against an oracle computed here with plain
 * coordinate arithmetic (not geometry.c). */
#include "simulate.h"

#include "geom/geometry.h"
#include "sched/localize.h"
#include "sched/schedule.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EMPTY = -1, UNTOUCHED = -2 };

typedef struct tok {
    int o, b; /* origin rank and block, or o = EMPTY / UNTOUCHED */
} tok;

typedef struct proc {
    cc_local *l;
    int ntemp, ntemp2;   /* sized from the local plan */
    int nslot;
    tok *slot;
    int *rd, *wr;        /* phase stamps (phase + 1) of the last read / write */
    int cur;             /* next local round */
    int ra, rb;          /* local rounds of the current phase */
    long long *msg;      /* per local round: offset of its message in the token pool, -1 none */
    unsigned char *used; /* per local round: message consumed */
} proc;

typedef struct sim {
    const sim_case *c;
    int base;            /* the collective whose schedule runs (rooted: its tree's) */
    int rooted;          /* CC_ROOT_FROM, CC_ROOT_TO or 0 */
    int rootco[64];      /* the root's coordinates */
    cc_grid g;
    cc_schedule *s;
    int nsend, t, P;
    proc *pr;
    tok *pool;
    long long npool, cappool;
    char *err;
    size_t errlen;
} sim;

static int fail(sim *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->err, m->errlen, fmt, ap);
    va_end(ap);
    return 1;
}

static const char *coll_name(int c)
{
    return c == CC_ALLTOALL ? "alltoall" : c == CC_BCAST ? "bcast" : c == CC_GATHER ? "gather"
                                         : c == CC_SCATTER ? "scatter" : "allgather";
}
static const char *alg_name(int a)
{
    return a == CC_DIRECT ? "direct" : a == CC_COMBINING ? "combining" : a == CC_TORUS ? "torus" : "?";
}

void sim_print_case(const sim_case *c)
{
    printf("case %s/%s d=%d dims={", coll_name(c->collective), alg_name(c->algorithm), c->d);
    for (int k = 0; k < c->d; k++) printf("%s%d", k ? "," : "", c->dims[k]);
    printf("} periods={");
    for (int k = 0; k < c->d; k++) printf("%s%d", k ? "," : "", c->periods[k]);
    printf("} t=%d offs={", c->t);
    for (int i = 0; i < c->t; i++) {
        printf("%s(", i ? "," : "");
        for (int k = 0; k < c->d; k++) printf("%s%d", k ? "," : "", c->offs[(size_t)i * c->d + k]);
        printf(")");
    }
    printf("}\n");
}

/* Flat index of a slot of process p, or -1 if the reference is invalid. */
static int slot_index(const sim *m, const proc *p, int ref)
{
    int idx = CC_SLOT_INDEX(ref);
    if (idx < 0) return -1;
    switch (CC_SLOT_KIND(ref)) {
    case CC_SLOT_SEND: return idx < m->nsend ? idx : -1;
    case CC_SLOT_RECV: return idx < m->t ? m->nsend + idx : -1;
    case CC_SLOT_TEMP: return idx < p->ntemp ? m->nsend + m->t + idx : -1;
    default: return idx < p->ntemp2 ? m->nsend + m->t + p->ntemp + idx : -1;
    }
}

/* A slot reference of the global schedule (no TEMP2) within range. */
static int global_slot_ok(const sim *m, int ref)
{
    int i = CC_SLOT_INDEX(ref);
    switch (CC_SLOT_KIND(ref)) {
    case CC_SLOT_SEND: return i >= 0 && i < m->nsend;
    case CC_SLOT_RECV: return i >= 0 && i < m->t;
    case CC_SLOT_TEMP: return i >= 0 && i < m->s->ntemp;
    default: return 0;
    }
}

/* On a periodic grid large enough that nothing is reduced, every entry
 * exists at every process, so the slot rules must hold for the schedule
 * as a whole: within a phase no slot is written twice or both read and
 * written.  Checked here because small grids may hide a violation. */
static int check_phase_slots(sim *m)
{
    const cc_schedule *s = m->s;
    int n = m->nsend + m->t + s->ntemp, rc = 0;
    int *rd = calloc((size_t)n + 1, sizeof(int)), *wr = calloc((size_t)n + 1, sizeof(int));
    if (!rd || !wr) {
        free(rd);
        free(wr);
        return fail(m, "out of memory");
    }
    for (int p = 0; p < s->nphases && !rc; p++) {
        const cc_phase *ph = &s->phases[p];
        int e0 = s->rounds[ph->first].first;
        const cc_round *lr = &s->rounds[ph->first + ph->count - 1];
        int e1 = lr->first + lr->count;
        for (int pass = 0; pass < 2 && !rc; pass++)
            for (int e = e0; e < e1 && !rc; e++) {
                int ref = pass ? s->entries[e].dst : s->entries[e].src, kind = CC_SLOT_KIND(ref);
                int x = CC_SLOT_INDEX(ref) + (kind == CC_SLOT_SEND ? 0 : kind == CC_SLOT_RECV ? m->nsend : m->nsend + m->t);
                if (pass == 0) {
                    rd[x] = p + 1;
                } else if (wr[x] == p + 1) {
                    rc = fail(m, "phase %d: slot (kind %d index %d) is the destination of two entries", p, kind,
                              CC_SLOT_INDEX(ref));
                } else if (rd[x] == p + 1) {
                    rc = fail(m, "phase %d: slot (kind %d index %d) is read and written", p, kind, CC_SLOT_INDEX(ref));
                } else {
                    wr[x] = p + 1;
                }
            }
    }
    free(rd);
    free(wr);
    return rc;
}

/* Checks of the global schedule that do not need a grid. */
static int check_schedule(sim *m, const unsigned char *skip, const int *red)
{
    const cc_schedule *s = m->s;
    int d = s->d, t = s->t;
    if (s->d != m->c->d || s->t != t) return fail(m, "schedule d/t mismatch");
    size_t nseen = (size_t)(t > d ? t : d) + 1;
    unsigned char *seen = calloc(nseen, 1);
    if (!seen) return fail(m, "out of memory");
    for (int l = 0; l < t; l++) {
        if (s->perm[l] < 0 || s->perm[l] >= t || seen[s->perm[l]]) {
            free(seen);
            return fail(m, "perm is not a permutation");
        }
        seen[s->perm[l]] = 1;
    }
    memset(seen, 0, nseen);
    for (int k = 0; k < d; k++) {
        if (s->order[k] < 0 || s->order[k] >= d || seen[s->order[k]]) {
            free(seen);
            return fail(m, "order is not a permutation");
        }
        seen[s->order[k]] = 1;
    }
    free(seen);
    if (memcmp(s->offs, red, sizeof(int) * (size_t)t * (size_t)d))
        return fail(m, "schedule offsets differ from the routed ones");
    int r = 0, e = 0;
    for (int p = 0; p < s->nphases; p++) {
        const cc_phase *ph = &s->phases[p];
        if (ph->first != r || ph->count <= 0) return fail(m, "phase %d: bad round range", p);
        if (ph->kpos < 0 || (d > 0 && ph->kpos >= d) || (d == 0 && ph->kpos != 0))
            return fail(m, "phase %d: bad kpos %d", p, ph->kpos);
        if (m->c->algorithm != CC_DIRECT && p > 0 && ph->kpos < s->phases[p - 1].kpos)
            return fail(m, "phase %d: kpos decreases", p);
        for (; r < ph->first + ph->count; r++) {
            const cc_round *rd = &s->rounds[r];
            if (rd->first != e || rd->count <= 0) return fail(m, "round %d: bad entry range", r);
            if (rd->vec < 0 || rd->vec >= s->nvecs) return fail(m, "round %d: bad vector", r);
            const int *v = s->vecs + (size_t)rd->vec * d;
            int nz = 0;
            for (int k = 0; k < d; k++) {
                if (v[k] == 0) continue;
                nz++;
                if (m->c->algorithm != CC_DIRECT && k != s->order[ph->kpos])
                    return fail(m, "round %d: vector leaves dimension order[kpos]", r);
                if (m->c->algorithm == CC_TORUS && v[k] != 1 && v[k] != -1)
                    return fail(m, "round %d: torus vector is not a unit vector", r);
            }
            if (!nz) return fail(m, "round %d: zero vector", r);
            for (; e < rd->first + rd->count; e++) {
                const cc_entry *en = &s->entries[e];
                if (en->lo < 0 || en->hi > t || en->lo >= en->hi) return fail(m, "entry %d: bad range", e);
                int sk = CC_SLOT_KIND(en->src), dk = CC_SLOT_KIND(en->dst);
                if (sk == CC_SLOT_TEMP2 || dk == CC_SLOT_TEMP2 || dk == CC_SLOT_SEND)
                    return fail(m, "entry %d: bad slot kinds", e);
                if (!global_slot_ok(m, en->src) || !global_slot_ok(m, en->dst))
                    return fail(m, "entry %d: slot index out of range", e);
                if (m->c->algorithm == CC_DIRECT && (en->moved != 0 || ph->kpos != 0))
                    return fail(m, "entry %d: direct entry with moved/kpos", e);
                const int *lead = red + (size_t)s->perm[en->lo] * d;
                for (int l = en->lo; l < en->hi; l++) {
                    if (skip[s->perm[l]]) return fail(m, "entry %d: range holds skipped leaf %d", e, s->perm[l]);
                    const int *x = red + (size_t)s->perm[l] * d;
                    for (int j = 0; j < ph->kpos && j < d; j++)
                        if (x[s->order[j]] != lead[s->order[j]])
                            return fail(m, "entry %d: leaves of the range differ on order[%d]", e, j);
                }
            }
        }
    }
    if (r != s->nrounds || e != s->nentries) return fail(m, "rounds/entries not covered by phases");
    if (check_phase_slots(m)) return 1;
    for (int j = 0; j < s->ncopies; j++) {
        const cc_copy *cp = &s->copies[j];
        if (cp->leaf < 0 || cp->leaf >= t || skip[cp->leaf]) return fail(m, "copy %d: bad leaf", j);
        if (cp->dst != CC_SLOT(CC_SLOT_RECV, cp->leaf)) return fail(m, "copy %d: dst is not RECV(leaf)", j);
        if (!global_slot_ok(m, cp->src)) return fail(m, "copy %d: bad source slot", j);
        for (int j2 = 0; j2 < s->ncopies; j2++)
            if (s->copies[j2].src == cp->dst) return fail(m, "copy %d: its dst is the source of copy %d", j, j2);
    }
    for (int j = 0; j < s->ntemp; j++)
        if (s->temp_like[j] < 0 || s->temp_like[j] >= t || skip[s->temp_like[j]])
            return fail(m, "temp %d: bad temp_like", j);
    return 0;
}

/* memcmp that accepts NULL for empty arrays. */
static int same(const void *a, const void *b, size_t n) { return n == 0 || !memcmp(a, b, n); }

/* Same schedule when built twice (determinism). */
static int check_deterministic(sim *m, const cc_nset *ns)
{
    cc_schedule *s2;
    if (cc_schedule_build(ns, m->base, m->c->algorithm, &s2)) return fail(m, "second build failed");
    const cc_schedule *s = m->s;
    int d = s->d;
    int eq = s->nphases == s2->nphases && s->nrounds == s2->nrounds && s->nentries == s2->nentries &&
             s->ncopies == s2->ncopies && s->ntemp == s2->ntemp && s->nvecs == s2->nvecs &&
             same(s->order, s2->order, sizeof(int) * (size_t)d) &&
             same(s->perm, s2->perm, sizeof(int) * (size_t)s->t) &&
             same(s->phases, s2->phases, sizeof(cc_phase) * (size_t)s->nphases) &&
             same(s->rounds, s2->rounds, sizeof(cc_round) * (size_t)s->nrounds) &&
             same(s->entries, s2->entries, sizeof(cc_entry) * (size_t)s->nentries) &&
             same(s->copies, s2->copies, sizeof(cc_copy) * (size_t)s->ncopies) &&
             same(s->vecs, s2->vecs, sizeof(int) * (size_t)s->nvecs * (size_t)d) &&
             same(s->temp_like, s2->temp_like, sizeof(int) * (size_t)s->ntemp);
    cc_schedule_free(s2);
    return eq ? 0 : fail(m, "schedule differs between two builds");
}

/* Local plans and slot arrays of every process. */
static int setup_procs(sim *m)
{
    int d = m->c->d, *co = malloc(sizeof(int) * (size_t)(d ? d : 1));
    if (!co) return fail(m, "out of memory");
    for (int q = 0; q < m->P; q++) {
        proc *p = &m->pr[q];
        cc_grid_coords(&m->g, q, co);
        cc_rooted rt = { m->rooted, m->rootco, m->c->collective == CC_SCATTER,
                         !(m->c->collective == CC_BCAST && q == m->c->root), 0 };
        if (cc_localize_rooted(m->s, &m->g, co, m->rooted ? &rt : NULL, &p->l)) {
            free(co);
            return fail(m, "cc_localize failed at rank %d", q);
        }
        const cc_local *l = p->l;
        /* Temporaries sized from what the plan references. */
        for (int j = 0; j < l->nslots + 2 * l->ncopies; j++) {
            int ref = j < l->nslots ? l->slots[j] : l->copies[j - l->nslots];
            int idx = CC_SLOT_INDEX(ref) + 1;
            if (CC_SLOT_KIND(ref) == CC_SLOT_TEMP && idx > p->ntemp) p->ntemp = idx;
            if (CC_SLOT_KIND(ref) == CC_SLOT_TEMP2 && idx > p->ntemp2) p->ntemp2 = idx;
        }
        if (p->ntemp > m->s->ntemp) {
            free(co);
            return fail(m, "rank %d uses TEMP %d beyond ntemp %d", q, p->ntemp - 1, m->s->ntemp);
        }
        if (p->ntemp2 > m->t) {
            free(co);
            return fail(m, "rank %d uses TEMP2 %d beyond t", q, p->ntemp2 - 1);
        }
        p->nslot = m->nsend + m->t + p->ntemp + p->ntemp2;
        p->slot = malloc(sizeof(tok) * (size_t)(p->nslot ? p->nslot : 1));
        p->rd = calloc((size_t)(p->nslot ? p->nslot : 1), sizeof(int));
        p->wr = calloc((size_t)(p->nslot ? p->nslot : 1), sizeof(int));
        p->msg = malloc(sizeof(long long) * (size_t)(l->nrounds ? l->nrounds : 1));
        p->used = calloc((size_t)(l->nrounds ? l->nrounds : 1), 1);
        if (!p->slot || !p->rd || !p->wr || !p->msg || !p->used) {
            free(co);
            return fail(m, "out of memory");
        }
        for (int j = 0; j < p->nslot; j++)
            p->slot[j] = (tok){ j < m->nsend ? q : j < m->nsend + m->t ? UNTOUCHED : EMPTY,
                                j < m->nsend ? j : 0 };
        /* Local rounds must come in schedule order, phase by phase. */
        for (int r = 1; r < l->nrounds; r++)
            if (l->rounds[r].id <= l->rounds[r - 1].id) {
                free(co);
                return fail(m, "rank %d: local rounds not in schedule order", q);
            }
    }
    free(co);
    return 0;
}

static int pool_push(sim *m, tok x)
{
    if (m->npool == m->cappool) {
        long long nc = m->cappool ? 2 * m->cappool : 1024;
        tok *np = realloc(m->pool, sizeof(tok) * (size_t)nc);
        if (!np) return -1;
        m->pool = np;
        m->cappool = nc;
    }
    m->pool[m->npool++] = x;
    return 0;
}

/* Local round of process p with schedule round id, within the current phase. */
static int find_round(const proc *p, int id)
{
    int lo = p->ra, hi = p->rb;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (p->l->rounds[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < p->rb && p->l->rounds[lo].id == id ? lo : -1;
}

static int run_phases(sim *m, sim_result *res)
{
    const cc_schedule *s = m->s;
    for (int ph = 0; ph < s->nphases; ph++) {
        int stamp = ph + 1, idend = s->phases[ph].first + s->phases[ph].count;
        m->npool = 0;
        /* Everybody sends first: messages are the slots as they were at
         * the start of the phase. */
        for (int q = 0; q < m->P; q++) {
            proc *p = &m->pr[q];
            const cc_local *l = p->l;
            if (p->cur < l->nrounds && l->rounds[p->cur].id < s->phases[ph].first)
                return fail(m, "rank %d: local round %d belongs to no phase", q, p->cur);
            p->ra = p->cur;
            while (p->cur < l->nrounds && l->rounds[p->cur].id < idend) p->cur++;
            p->rb = p->cur;
            for (int r = p->ra; r < p->rb; r++) {
                const cc_lround *lr = &l->rounds[r];
                p->msg[r] = -1;
                if (lr->send_rank == CC_NONE) {
                    if (lr->scount) return fail(m, "rank %d round %d: blocks but no send peer", q, lr->id);
                    continue;
                }
                if (lr->send_rank < 0 || lr->send_rank >= m->P) return fail(m, "rank %d: bad send rank", q);
                if (lr->scount <= 0) return fail(m, "rank %d round %d: empty message", q, lr->id);
                p->msg[r] = m->npool;
                res->messages++;
                for (int j = 0; j < lr->scount; j++) {
                    int ref = l->slots[lr->sfirst + j], x = slot_index(m, p, ref);
                    if (x < 0) return fail(m, "rank %d round %d: bad send slot %d", q, lr->id, ref);
                    if (p->slot[x].o < 0)
                        return fail(m, "rank %d round %d: sends %s slot (kind %d index %d)", q, lr->id,
                                    p->slot[x].o == EMPTY ? "EMPTY" : "UNTOUCHED", CC_SLOT_KIND(ref),
                                    CC_SLOT_INDEX(ref));
                    p->rd[x] = stamp;
                    if (pool_push(m, p->slot[x])) return fail(m, "out of memory");
                }
            }
        }
        /* Then everybody receives. */
        for (int q = 0; q < m->P; q++) {
            proc *p = &m->pr[q];
            const cc_local *l = p->l;
            for (int r = p->ra; r < p->rb; r++) {
                const cc_lround *lr = &l->rounds[r];
                if (lr->recv_rank == CC_NONE) {
                    if (lr->rcount) return fail(m, "rank %d round %d: blocks but no recv peer", q, lr->id);
                    continue;
                }
                if (lr->recv_rank < 0 || lr->recv_rank >= m->P) return fail(m, "rank %d: bad recv rank", q);
                proc *sp = &m->pr[lr->recv_rank];
                int sr = find_round(sp, lr->id);
                if (sr < 0)
                    return fail(m, "rank %d round %d: sender %d has no such round", q, lr->id, lr->recv_rank);
                const cc_lround *slr = &sp->l->rounds[sr];
                if (slr->send_rank != q)
                    return fail(m, "rank %d round %d: sender %d sends to %d", q, lr->id, lr->recv_rank,
                                slr->send_rank);
                if (slr->scount != lr->rcount)
                    return fail(m, "rank %d round %d: receives %d blocks, sender %d sends %d", q, lr->id,
                                lr->rcount, lr->recv_rank, slr->scount);
                if (sp->used[sr]) return fail(m, "round %d: message of rank %d received twice", lr->id, lr->recv_rank);
                /* A "direct" message (user datatypes on both sides) must be
                 * one block from a send slot into a receive slot (or its
                 * TEMP2 stand-in, which has the receive block's type). */
                int rk = CC_SLOT_KIND(l->slots[lr->rfirst]);
                if (slr->sdirect != lr->rdirect)
                    return fail(m, "rank %d round %d: direct flags disagree with sender %d", q, lr->id, lr->recv_rank);
                if (lr->rdirect && (lr->rcount != 1 || (rk != CC_SLOT_RECV && rk != CC_SLOT_TEMP2) ||
                                    CC_SLOT_KIND(sp->l->slots[slr->sfirst]) != CC_SLOT_SEND))
                    return fail(m, "rank %d round %d: direct message is not SEND -> RECV", q, lr->id);
                sp->used[sr] = 1;
                const tok *msg = m->pool + sp->msg[sr];
                for (int j = 0; j < lr->rcount; j++) {
                    int ref = l->slots[lr->rfirst + j], x = slot_index(m, p, ref);
                    if (x < 0 || CC_SLOT_KIND(ref) == CC_SLOT_SEND)
                        return fail(m, "rank %d round %d: bad receive slot %d", q, lr->id, ref);
                    if (p->wr[x] == stamp)
                        return fail(m, "rank %d phase %d: slot (kind %d index %d) written twice", q, ph,
                                    CC_SLOT_KIND(ref), CC_SLOT_INDEX(ref));
                    if (p->rd[x] == stamp)
                        return fail(m, "rank %d phase %d: slot (kind %d index %d) read and written", q, ph,
                                    CC_SLOT_KIND(ref), CC_SLOT_INDEX(ref));
                    p->wr[x] = stamp;
                    p->slot[x] = msg[j];
                    res->blocks++;
                }
            }
        }
        for (int q = 0; q < m->P; q++) {
            const proc *p = &m->pr[q];
            for (int r = p->ra; r < p->rb; r++)
                if (p->msg[r] >= 0 && !p->used[r])
                    return fail(m, "rank %d round %d: message to %d never received", q, p->l->rounds[r].id,
                                p->l->rounds[r].send_rank);
        }
    }
    for (int q = 0; q < m->P; q++)
        if (m->pr[q].cur != m->pr[q].l->nrounds) return fail(m, "rank %d: local rounds left over", q);
    return 0;
}

static int run_copies(sim *m)
{
    for (int q = 0; q < m->P; q++) {
        proc *p = &m->pr[q];
        const cc_local *l = p->l;
        for (int j = 0; j < l->ncopies; j++) {
            int xs = slot_index(m, p, l->copies[2 * j]), xd = slot_index(m, p, l->copies[2 * j + 1]);
            if (xs < 0 || xd < 0 || CC_SLOT_KIND(l->copies[2 * j + 1]) == CC_SLOT_SEND)
                return fail(m, "rank %d copy %d: bad slots", q, j);
            if (p->slot[xs].o < 0) return fail(m, "rank %d copy %d: source slot holds nothing", q, j);
            p->slot[xd] = p->slot[xs];
        }
    }
    return 0;
}

/* Rank of Q - N[i] (raw offsets, wrapping on periodic dimensions), -1 if
 * that is off the mesh; plain coordinate arithmetic, row-major. */
static int source_of(const sim_case *c, int q, int i)
{
    int d = c->d, src = 0, rest = q;
    long long co[64];
    for (int k = d - 1; k >= 0; k--) {
        co[k] = rest % c->dims[k];
        rest /= c->dims[k];
    }
    for (int k = 0; k < d; k++) {
        long long p = c->dims[k], x = co[k] - (long long)c->offs[(size_t)i * d + k];
        if (c->periods[k]) x = ((x % p) + p) % p;
        else if (x < 0 || x >= p) return -1;
        src = src * (int)p + (int)x;
    }
    return src;
}

static void tok_str(tok got, char *buf, size_t n)
{
    if (got.o == UNTOUCHED) snprintf(buf, n, "UNTOUCHED");
    else snprintf(buf, n, "(%d,%d)", got.o, got.b);
}

/* Rooted oracle: bcast and scatter deliver into receive block 0 of every
 * Q = root + N[i] the root's block (scatter: of the last such i; bcast: not
 * to the root); gather fills the root's receive blocks as the allgather
 * would.  Every other receive block stays untouched. */
static int check_rooted(sim *m)
{
    const sim_case *c = m->c;
    char buf[32];
    for (int q = 0; q < m->P; q++)
        for (int i = 0; i < c->t; i++) {
            tok want = { UNTOUCHED, 0 }, got = m->pr[q].slot[m->nsend + i];
            if (c->collective == CC_GATHER && q == c->root) {
                int src = source_of(c, q, i);
                if (src >= 0) want = (tok){ src, 0 };
            } else if (c->collective != CC_GATHER && i == 0 && !(c->collective == CC_BCAST && q == c->root)) {
                for (int j = 0; j < c->t; j++)
                    if (source_of(c, q, j) == c->root && (want.o == UNTOUCHED || c->collective == CC_SCATTER))
                        want = (tok){ c->root, c->collective == CC_SCATTER ? j : 0 };
            }
            if (got.o != want.o || got.b != want.b) {
                tok_str(got, buf, sizeof buf);
                return fail(m, "%s root %d: rank %d receive block %d holds %s, expected (%d,%d)", coll_name(c->collective),
                            c->root, q, i, buf, want.o, want.b);
            }
        }
    return 0;
}

/* The oracle: process Q must hold in receive block i the block of
 * Q - N[i], or nothing if that is off the mesh. */
static int check_result(sim *m)
{
    const sim_case *c = m->c;
    if (m->rooted) return check_rooted(m);
    for (int q = 0; q < m->P; q++) {
        for (int i = 0; i < c->t; i++) {
            int src = source_of(c, q, i), exists = src >= 0;
            tok got = m->pr[q].slot[m->nsend + i];
            char buf[32];
            tok_str(got, buf, sizeof buf);
            if (!exists) {
                if (got.o != UNTOUCHED)
                    return fail(m, "rank %d: receive block %d has no source but holds %s", q, i, buf);
                continue;
            }
            int want_b = m->base == CC_ALLTOALL ? i : 0;
            if (got.o != src || got.b != want_b)
                return fail(m, "rank %d: receive block %d holds %s, expected (%d,%d)", q, i, buf, src, want_b);
        }
    }
    return 0;
}

int sim_run(const sim_case *c, sim_result *res, char *err, size_t errlen)
{
    sim m;
    memset(&m, 0, sizeof m);
    memset(res, 0, sizeof *res);
    m.c = c;
    m.err = err;
    m.errlen = errlen;
    m.t = c->t;
    m.base = c->collective == CC_SCATTER ? CC_ALLTOALL : c->collective >= CC_BCAST ? CC_ALLGATHER : c->collective;
    m.rooted = c->collective == CC_GATHER ? CC_ROOT_TO : c->collective >= CC_BCAST ? CC_ROOT_FROM : 0;
    m.nsend = m.base == CC_ALLTOALL ? c->t : 1;
    err[0] = '\0';
    if (c->d > 64) return fail(&m, "d too large for the simulator");
    long long P = 1;
    for (int k = 0; k < c->d; k++) P *= c->dims[k];
    if (P > 1000000) return fail(&m, "grid too large for the simulator");
    m.P = (int)P;
    m.g = (cc_grid){ c->d, m.P, c->dims, c->periods, 0 };
    if (m.rooted) cc_grid_coords(&m.g, c->root, m.rootco);

    size_t td = (size_t)c->t * (size_t)c->d;
    int *red = malloc(sizeof(int) * (td ? td : 1));
    unsigned char *skip = malloc((size_t)(c->t ? c->t : 1));
    if (!red || !skip) {
        free(red);
        free(skip);
        return fail(&m, "out of memory");
    }
    long long maxabs = 0;
    for (int i = 0; i < c->t; i++) {
        skip[i] = (unsigned char)cc_grid_reduce(&m.g, c->offs + (size_t)i * c->d, red + (size_t)i * c->d);
        for (int k = 0; k < c->d; k++) {
            long long x = c->offs[(size_t)i * c->d + k];
            x = x < 0 ? -x : x;
            if (x > maxabs) maxabs = x;
        }
    }
    cc_nset ns = { c->d, c->t, red, skip, NULL };
    int rc = 0;
    if (cc_schedule_build(&ns, m.base, c->algorithm, &m.s)) {
        rc = fail(&m, "cc_schedule_build failed");
        goto out;
    }
    res->nphases = m.s->nphases;
    res->nrounds = m.s->nrounds;
    res->nentries = m.s->nentries;
    res->ncopies = m.s->ncopies;
    res->ntemp = m.s->ntemp;
    long long sp, sr, sv;
    if (cc_schedule_stats(&ns, m.base, c->algorithm, &sp, &sr, &sv)) {
        rc = fail(&m, "cc_schedule_stats failed");
        goto out;
    }
    if (sp != m.s->nphases || sr != m.s->nrounds || sv != m.s->nentries) {
        rc = fail(&m, "stats %lld/%lld/%lld != built %d/%d/%d (phases/rounds/volume)", sp, sr, sv, m.s->nphases,
                  m.s->nrounds, m.s->nentries);
        goto out;
    }
    if ((rc = check_schedule(&m, skip, red)) || (rc = check_deterministic(&m, &ns))) goto out;

    m.pr = calloc((size_t)m.P, sizeof(proc));
    if (!m.pr) {
        rc = fail(&m, "out of memory");
        goto out;
    }
    if ((rc = setup_procs(&m)) || (rc = run_phases(&m, res)) || (rc = run_copies(&m)) || (rc = check_result(&m)))
        goto out;

    /* Without reduction (all periodic, every size > 2 max|offset|) every
     * process sends exactly the schedule's volume. */
    int plain = !m.rooted;
    for (int k = 0; k < c->d; k++)
        if (!c->periods[k] || c->dims[k] <= 2 * maxabs) plain = 0;
    if (plain) {
        res->volume_checked = 1;
        for (int q = 0; q < m.P; q++)
            if (m.pr[q].l->sent != m.s->nentries) {
                rc = fail(&m, "rank %d sends %lld blocks, schedule volume %d", q, m.pr[q].l->sent, m.s->nentries);
                goto out;
            }
    }
out:
    if (m.pr)
        for (int q = 0; q < m.P; q++) {
            cc_local_free(m.pr[q].l);
            free(m.pr[q].slot);
            free(m.pr[q].rd);
            free(m.pr[q].wr);
            free(m.pr[q].msg);
            free(m.pr[q].used);
        }
    free(m.pr);
    free(m.pool);
    cc_schedule_free(m.s);
    free(red);
    free(skip);
    return rc;
}

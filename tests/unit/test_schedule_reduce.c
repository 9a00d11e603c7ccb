/* Allreduce with reduction on the way (sched/schedule_reduce.c), simulated
 * in one address space against a brute-force oracle.
 *
 * Values are multisets of contributions: a count per origin process, the
 * free commutative monoid, so a schedule that passes is right for every
 * commutative operation, invertible or not (sum, max, logical and: no
 * contribution may be missing or counted twice, and none may be made up
 * where a process has no sources).  Every process runs its own local plan;
 * messages are matched by (sender, receiver, round), and a process moves to
 * its next phase only when everything it receives in this one arrived, as
 * over MPI. */
#include "check.h"
#include "geom/geometry.h"
#include "sched/localize.h"
#include "sched/schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXP 160

typedef struct val {
    int has;
    int n[MAXP];
} val;

typedef struct proc {
    cc_local *l;
    int coords[8];
    val *slot;       /* 0: SEND 0, 1: RECV 0, 2 + i: TEMP i */
    int phase, posted;
} proc;

typedef struct msg {
    int from, to, id, count;
    val v[4];
} msg;

static msg queue[1 << 16];
static int nq;
static int in_place; /* MPI_IN_PLACE: the send buffer is RECV 0 */

static val *slot_of(proc *p, int slot)
{
    int k = CC_SLOT_KIND(slot), i = CC_SLOT_INDEX(slot);
    CHECK(k != CC_SLOT_TEMP2);
    CHECK(k != CC_SLOT_RECV || i == 0);
    CHECK(k != CC_SLOT_SEND || i == 0);
    return &p->slot[k == CC_SLOT_TEMP ? 2 + i : k == CC_SLOT_RECV || in_place ? 1 : 0];
}

static void post_sends(proc *P, int me)
{
    const cc_local *l = P[me].l;
    for (int r = l->phase_first[P[me].phase]; r < l->phase_first[P[me].phase + 1]; r++) {
        const cc_lround *lr = &l->rounds[r];
        if (lr->send_rank < 0) continue;
        CHECK(nq < (int)(sizeof queue / sizeof queue[0]));
        msg *m = &queue[nq++];
        m->from = me;
        m->to = lr->send_rank;
        m->id = lr->id;
        m->count = lr->scount;
        CHECK(lr->scount <= 4);
        for (int j = 0; j < lr->scount; j++) {
            m->v[j] = *slot_of(&P[me], l->slots[lr->sfirst + j]);
            CHECK(m->v[j].has); /* never send what is not there */
        }
    }
}

static int find(int from, int to, int id)
{
    for (int q = 0; q < nq; q++)
        if (queue[q].from == from && queue[q].to == to && queue[q].id == id) return q;
    return -1;
}

/* Try to complete the current phase of process me. */
static int step(proc *P, int me, long long p)
{
    proc *x = &P[me];
    const cc_local *l = x->l;
    if (x->phase >= l->nphases) return 0;
    if (!x->posted) {
        post_sends(P, me);
        x->posted = 1;
    }
    for (int r = l->phase_first[x->phase]; r < l->phase_first[x->phase + 1]; r++)
        if (l->rounds[r].recv_rank >= 0 && find(l->rounds[r].recv_rank, me, l->rounds[r].id) < 0) return 0;
    for (int r = l->phase_first[x->phase]; r < l->phase_first[x->phase + 1]; r++) {
        const cc_lround *lr = &l->rounds[r];
        if (lr->recv_rank < 0) continue;
        int q = find(lr->recv_rank, me, lr->id);
        CHECK_EQ(queue[q].count, lr->rcount);
        for (int j = 0; j < lr->rcount; j++) *slot_of(x, l->slots[lr->rfirst + j]) = queue[q].v[j];
        queue[q] = queue[--nq];
    }
    for (int f = l->fold_first[x->phase]; f < l->fold_first[x->phase + 1]; f++) {
        const int *fd = l->folds + 3 * f;
        val *src = slot_of(x, fd[1]), *dst = slot_of(x, fd[2]);
        CHECK(src->has);
        if (!(in_place && dst == &x->slot[1])) CHECK_EQ(dst->has, fd[0] == CC_FOLD_OP);
        if (fd[0] == CC_FOLD_COPY) {
            *dst = *src;
        } else {
            for (long long i = 0; i < p; i++) dst->n[i] += src->n[i];
        }
    }
    x->phase++;
    x->posted = 0;
    return 1;
}

/* Simulate (d, dims, periods, offsets) with algorithm alg; 0 if the
 * schedule does not apply (not a box). */
static int simulate(int d, const int *dims, const int *periods, int t, const int *offs, int alg)
{
    cc_nset ns = { d, t, offs, NULL, periods };
    cc_schedule *s;
    int rc = cc_schedule_build(&ns, CC_ALLREDUCE, alg, &s);
    if (rc == CC_ETOOBIG) {
        CHECK_EQ(cc_reduce_box(&ns), 0);
        return 0;
    }
    CHECK_EQ(rc, CC_OK);
    CHECK(cc_reduce_box(&ns) > 0);
    long long sp, sr, sv;
    CHECK_EQ(cc_schedule_stats(&ns, CC_ALLREDUCE, alg, &sp, &sr, &sv), CC_OK);
    CHECK_EQ(sp, s->nphases);
    CHECK_EQ(sr, s->nrounds);
    CHECK_EQ(sv, s->nentries);
    CHECK_EQ(s->nrounds, s->nentries); /* one block per round */

    long long p = 1;
    for (int k = 0; k < d; k++) p *= dims[k];
    cc_grid g = { d, (int)p, dims, periods, 0 };
    CHECK(p <= MAXP);
    proc *P = calloc((size_t)p, sizeof *P);
    CHECK(P);
    for (int r = 0; r < p; r++) {
        cc_grid_coords(&g, r, P[r].coords);
        CHECK_EQ(cc_localize(s, &g, P[r].coords, &P[r].l), CC_OK);
        CHECK(P[r].l->sent <= s->nentries);
        P[r].slot = calloc((size_t)s->ntemp + 2, sizeof(val));
        CHECK(P[r].slot);
        P[r].slot[in_place].has = 1;
        P[r].slot[in_place].n[r] = 1;
    }
    nq = 0;
    for (int progress = 1; progress;) {
        progress = 0;
        for (int r = 0; r < p; r++) progress |= step(P, r, p);
    }
    CHECK_EQ(nq, 0);
    for (int r = 0; r < p; r++) {
        CHECK_EQ(P[r].phase, P[r].l->nphases); /* no deadlock */
        val want = { 0, { 0 } };
        for (int j = 0; j < t; j++) {
            int src = cc_grid_shift(&g, P[r].coords, offs + (size_t)j * d, -1);
            if (src < 0) continue;
            want.has = 1;
            want.n[src]++;
        }
        if (in_place && !want.has) { /* untouched: still the process's own data */
            want.has = 1;
            want.n[r] = 1;
        }
        const val *got = &P[r].slot[1];
        if (got->has != want.has) {
            fprintf(stderr, "rank %d: result %s, want %s (d=%d dims[0]=%d periods[0]=%d t=%d alg=%d off0=%d)\n", r,
                    got->has ? "set" : "untouched", want.has ? "set" : "untouched", d, dims[0], periods[0], t, alg,
                    offs[0]);
            exit(1);
        }
        for (long long i = 0; want.has && i < p; i++)
            if (got->n[i] != want.n[i]) {
                fprintf(stderr, "rank %d: origin %lld counted %d times, want %d (d=%d t=%d alg=%d)\n", r, i,
                        got->n[i], want.n[i], d, t, alg);
                exit(1);
            }
        cc_local_free(P[r].l);
        free(P[r].slot);
    }
    free(P);
    cc_schedule_free(s);
    return 1;
}

/* Offsets of the box prod [lo_k, hi_k], with or without zero, in a
 * scrambled order; returns t. */
static int box(int d, const int *lo, const int *hi, int zero, int *offs, unsigned *seed)
{
    int t = 0, x[8];
    for (int k = 0; k < d; k++) x[k] = lo[k];
    for (;;) {
        int nz = 0;
        for (int k = 0; k < d; k++) nz |= x[k];
        if (nz || zero) memcpy(offs + (size_t)t++ * d, x, sizeof(int) * (size_t)d);
        int k = d - 1;
        while (k >= 0 && ++x[k] > hi[k]) x[k] = lo[k], k--;
        if (k < 0) break;
    }
    for (int i = t - 1; i > 0; i--) {
        *seed = *seed * 1103515245u + 12345u;
        int j = (int)(*seed >> 8) % (i + 1);
        for (int k = 0; k < d; k++) {
            int tmp = offs[i * d + k];
            offs[i * d + k] = offs[j * d + k];
            offs[j * d + k] = tmp;
        }
    }
    return t;
}

static void stats(int d, int r, int zero, long long *rounds, long long *volume)
{
    int lo[8], hi[8], offs[6561 * 8], periods[8], mesh[8] = { 0 };
    unsigned seed = 1;
    for (int k = 0; k < d; k++) lo[k] = -r, hi[k] = r, periods[k] = 1;
    int t = box(d, lo, hi, zero, offs, &seed);
    cc_nset ns = { d, t, offs, NULL, r <= 2 ? mesh : periods };
    long long ph;
    CHECK_EQ(cc_schedule_stats(&ns, CC_ALLREDUCE, CC_COMBINING, &ph, rounds, volume), CC_OK);
}

int main(void)
{
    /* Bars: d = 3 and 4 radius-1 Moore, with and without the centre, at
     * most 4d rounds and blocks; radius up to 4 as well. */
    for (int d = 1; d <= 4; d++)
        for (int r = 1; r <= (d <= 2 ? 4 : 1); r++)
            for (int zero = 0; zero <= 1; zero++) {
                long long rounds, volume;
                stats(d, r, zero, &rounds, &volume);
                CHECK(rounds <= 4 * d);
                CHECK(volume <= 4 * d);
                if (r == 1) CHECK_EQ(rounds, 2 * d);
            }

    static const int shapes[][4] = { { 1 }, { 2 }, { 3 }, { 4 }, { 7 }, { 1, 1 }, { 2, 2 }, { 3, 2 }, { 1, 5 },
                                     { 4, 4 }, { 5, 3 }, { 2, 3, 2 }, { 1, 2, 3 }, { 3, 3, 3 }, { 2, 2, 2 } };
    static const int nd[] = { 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3 };
    int offs[343 * 3], cases = 0, applied = 0;
    unsigned seed = 7;
    for (size_t c = 0; c < sizeof nd / sizeof nd[0]; c++) {
        int d = nd[c];
        for (int pm = 0; pm < 1 << d; pm++) {
            int periods[3];
            for (int k = 0; k < d; k++) periods[k] = pm >> k & 1;
            /* Moore boxes of radius 1..3, asymmetric boxes, a box without
             * zero in its interior, the zero vector alone. */
            for (int kind = 0; kind < 7; kind++) {
                int lo[3], hi[3];
                for (int k = 0; k < d; k++) {
                    int r = kind < 3 ? kind + 1 : 1;
                    lo[k] = -r, hi[k] = r;
                    if (kind == 3) lo[k] = -(k % 3), hi[k] = 1 + (k == 0);
                    if (kind == 4) lo[k] = 0, hi[k] = k == 0 ? 2 : 1;
                    if (kind == 5) lo[k] = hi[k] = 0;
                    if (kind == 6) lo[k] = -2, hi[k] = 0;
                }
                if (d == 3 && kind == 2) continue; /* 343 points: enough with d <= 2 */
                for (int zero = 0; zero <= 1; zero++) {
                    int t = box(d, lo, hi, zero, offs, &seed);
                    if (t == 0) continue;
                    for (int alg = CC_COMBINING; alg <= CC_TORUS; alg++)
                        for (in_place = 0; in_place <= 1; in_place++) {
                            cases++;
                            applied += simulate(d, shapes[c], periods, t, offs, alg);
                        }
                    in_place = 0;
                }
            }
        }
    }
    /* Not boxes: a cross, a repeated vector, a hole away from zero. */
    int cross[] = { 1, 0, -1, 0, 0, 1, 0, -1 };
    int rep[] = { 1, 1, 0, 0, -1, 1 };
    int dims2[] = { 3, 3 }, per2[] = { 1, 1 };
    CHECK_EQ(simulate(2, dims2, per2, 4, cross, CC_COMBINING), 0);
    CHECK_EQ(simulate(1, dims2, per2, 3, rep, CC_COMBINING), 0);
    int hole[] = { -1, 0, 1, 2 }; /* [-1, 2] without 1: not a box */
    int holed[] = { -1, 0, 2 };
    CHECK_EQ(simulate(1, dims2, per2, 3, holed, CC_TORUS), 0);
    CHECK_EQ(simulate(1, dims2, per2, 4, hole, CC_TORUS), 1);
    printf("test_schedule_reduce: %d cases, %d simulated\n", cases, applied);
    CHECK_EQ(applied, cases);
    return 0;
}

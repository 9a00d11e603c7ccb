/* TORUS schedules (seed 001 sec. 3): blocks move hop by hop between torus
 * neighbours, dimension by dimension; step h of dimension k is one phase
 * with a round towards +e_k and one towards -e_k.  Alltoall: every block
 * travels |N_i|_1 hops with the zero-copy TEMP/RECV alternation.
 * Allgather: the prefix trie of the COMBINING allgather, where a node's
 * block travels once along each direction as far as its farthest child,
 * dropping off at the children it passes. */
#include "sched/schedule_trie.h"

#include <stdlib.h>

/* schedule.c refuses more than 2^29 entries; fail before allocating them. */
#define MAX_ENTRIES (1LL << 29)

int cc_build_torus_alltoall(const cc_nset *ns, cc_schedule *s)
{
    int d = ns->d, t = ns->t, rc = CC_OK;
    size_t szt = (size_t)(t ? t : 1);
    long long *z = malloc(szt * sizeof *z), *done = calloc(szt, sizeof *done);
    int *tmp = malloc(szt * sizeof(int)), *pos = malloc(szt * sizeof(int)), *neg = malloc(szt * sizeof(int));
    if (!z || !done || !tmp || !pos || !neg) {
        rc = CC_ENOMEM;
        goto out;
    }
    long long total = 0;
    for (int i = 0; i < t; i++) {
        if (ns->skip && ns->skip[i]) continue;
        const int *v = ns->offs + (size_t)i * d;
        z[i] = 0;
        for (int k = 0; k < d; k++) z[i] += v[k] < 0 ? -(long long)v[k] : v[k];
        if ((total += z[i]) > MAX_ENTRIES) {
            rc = CC_ETOOBIG;
            goto out;
        }
        if ((rc = cc_hop_temp(s, i, z[i], &tmp[i])) != CC_OK) goto out;
    }
    for (int k = 0; !rc && k < d; k++) {
        /* Active blocks per direction, ascending; a block leaves its list
         * after its last step, so the work is the number of entries. */
        int np = 0, nn = 0;
        for (int i = 0; i < t; i++) {
            if (ns->skip && ns->skip[i]) continue;
            int x = ns->offs[(size_t)i * d + k];
            if (x > 0) pos[np++] = i;
            if (x < 0) neg[nn++] = i;
        }
        for (int h = 0; !rc && (np || nn); h++) {
            rc = cc_sched_phase(s, k);
            for (int dir = 1; !rc && dir >= -1; dir -= 2) {
                int *list = dir > 0 ? pos : neg, *cnt = dir > 0 ? &np : &nn, kept = 0;
                if (*cnt == 0) continue;
                rc = cc_sched_round_axis(s, k, dir);
                for (int j = 0; !rc && j < *cnt; j++) {
                    int i = list[j];
                    long long hop = ++done[i];
                    rc = cc_sched_entry(s, cc_hop_slot(i, z[i], hop - 1, tmp[i]), cc_hop_slot(i, z[i], hop, tmp[i]),
                                        i, i + 1, dir * h);
                    if ((long long)dir * ns->offs[(size_t)i * d + k] > h + 1) list[kept++] = i;
                }
                *cnt = kept;
            }
        }
    }
    for (int i = 0; !rc && i < t; i++)
        if (!(ns->skip && ns->skip[i]) && z[i] == 0)
            rc = cc_sched_copy(s, CC_SLOT(CC_SLOT_SEND, i), CC_SLOT(CC_SLOT_RECV, i), i);
out:
    free(z);
    free(done);
    free(tmp);
    free(pos);
    free(neg);
    return rc;
}

/* One direction of one trie node on its way along order[k]. */
typedef struct walker {
    int cur;        /* slot holding the instance after the steps so far */
    int kid;        /* index (into the level's child list) of the next child to reach */
    int lo, hi;     /* the node's range in perm */
    int reach;      /* hops to the farthest child */
    int transit[2]; /* TEMPs for steps that reach no child, -1 until needed */
} walker;

/* The state of the allgather builder: the trie of the offsets (perm, lvl,
 * zsuf), the storage slot of every node (stor), and per dimension the
 * children of the current level and the walkers carrying nodes to them. */
typedef struct tctx {
    const cc_nset *ns;
    cc_schedule *s;
    int n;
    int *lvl, *zsuf, *stor, *end, *pend, *kpos, *kval;
    walker *wp, *wn;  /* positive / negative walkers */
    int nk, np, nn;   /* children, positive and negative walkers */
} tctx;

/* The volume first (hops of every node to its extreme children, its first
 * and last leaves along order[k]): too large a schedule fails early. */
static int check_volume(const tctx *x)
{
    const cc_nset *ns = x->ns;
    int d = ns->d, n = x->n;
    long long total = 0;
    for (int k = 0; k < d && total <= MAX_ENTRIES; k++) {
        int a = x->s->order[k];
        cc_trie_ends(x->lvl, n, k, x->pend);
        for (int q = 0; q < n; q++) {
            if (x->lvl[q] > k) continue;
            long long lo = ns->offs[(size_t)x->s->perm[q] * d + a];
            long long hi = ns->offs[(size_t)x->s->perm[x->pend[q] - 1] * d + a];
            total += (lo < 0 ? -lo : 0) + (hi > 0 ? hi : 0);
        }
    }
    return total > MAX_ENTRIES ? CC_ETOOBIG : CC_OK;
}

/* Children of all level-k nodes in perm order (so each node's children are
 * ascending in coordinate), their storage, and one walker per node and
 * direction that has somewhere to go, placed at its first child. */
static int collect_children(tctx *x, int k)
{
    const cc_nset *ns = x->ns;
    cc_schedule *s = x->s;
    int d = ns->d, n = x->n, a = s->order[k], ps = 0;
    x->nk = x->np = x->nn = 0;
    cc_trie_ends(x->lvl, n, k, x->pend);
    cc_trie_ends(x->lvl, n, k + 1, x->end);
    for (int q = 0; q < n; q++) {
        if (x->lvl[q] > k + 1) continue;
        int v = ns->offs[(size_t)s->perm[q] * d + a];
        if (x->lvl[q] <= k) {
            ps = x->stor[q];
            int lastv = ns->offs[(size_t)s->perm[x->pend[q] - 1] * d + a];
            if (v < 0) x->wn[x->nn++] = (walker){ ps, x->nk, q, x->pend[q], -v, { -1, -1 } };
            if (lastv > 0) x->wp[x->np++] = (walker){ ps, -1, q, x->pend[q], lastv, { -1, -1 } };
        }
        if (v == 0) {
            x->stor[q] = ps;
        } else {
            x->stor[q] = cc_trie_head(s, s->perm, x->zsuf, k + 1, q, x->end[q]);
            if (x->stor[q] < 0) return x->stor[q];
        }
        x->kpos[x->nk] = q;
        x->kval[x->nk++] = v;
    }
    /* Positive walkers start at their first positive child; negative ones
     * at their last negative child (children with c <= -h form a prefix of
     * the node's children). */
    for (int j = 0, e = 0; j < x->np; j++) {
        while (x->kpos[e] < x->wp[j].lo || x->kval[e] <= 0) e++;
        x->wp[j].kid = e;
    }
    for (int j = 0; j < x->nn; j++) {
        int e = x->wn[j].kid;
        while (e + 1 < x->nk && x->kpos[e + 1] < x->wn[j].hi && x->kval[e + 1] < 0) e++;
        x->wn[j].kid = e;
    }
    return CC_OK;
}

/* Hop h of the walkers of one direction along dimension a: one entry per
 * walker, into the child it reaches or a transit temporary. */
static int hop(tctx *x, int a, int h, int dir)
{
    cc_schedule *s = x->s;
    walker *w = dir > 0 ? x->wp : x->wn;
    int *cnt = dir > 0 ? &x->np : &x->nn, kept = 0, rc;
    if (*cnt == 0) return CC_OK;
    rc = cc_sched_round_axis(s, a, dir);
    for (int j = 0; !rc && j < *cnt; j++) {
        walker u = w[j];
        if (dir * x->kval[u.kid] < h) u.kid += dir; /* passed that child */
        /* The instance serves the children it has not passed: c >= h (a
         * suffix of the node) or c <= -h (a prefix). */
        int lo = dir > 0 ? x->kpos[u.kid] : u.lo;
        int hi = dir > 0 ? u.hi : (u.kid + 1 < x->nk ? x->kpos[u.kid + 1] : x->n);
        int dst;
        if (dir * x->kval[u.kid] == h) {
            dst = x->stor[x->kpos[u.kid]];
        } else {
            int *tr = &u.transit[h & 1];
            if (*tr < 0 && (*tr = cc_sched_temp(s, s->perm[lo])) < 0) return *tr;
            dst = CC_SLOT(CC_SLOT_TEMP, *tr);
        }
        rc = cc_sched_entry(s, u.cur, dst, lo, hi, dir * (h - 1));
        u.cur = dst;
        if (u.reach > h) w[kept++] = u;
    }
    *cnt = kept;
    return rc;
}

int cc_build_torus_allgather(const cc_nset *ns, cc_schedule *s)
{
    int d = ns->d, rc = CC_OK;
    cc_coords c;
    rc = cc_coords_init(&c, ns);
    if (rc) return rc;
    tctx x = { ns, s, c.n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 0 };
    size_t sz = (size_t)(x.n ? x.n : 1);
    x.lvl = malloc(sz * sizeof(int)), x.zsuf = malloc(sz * sizeof(int)), x.stor = malloc(sz * sizeof(int));
    x.end = malloc(sz * sizeof(int)), x.pend = malloc(sz * sizeof(int));
    x.kpos = malloc(sz * sizeof(int)), x.kval = malloc(sz * sizeof(int));
    x.wp = malloc(sz * sizeof(walker)), x.wn = malloc(sz * sizeof(walker));
    if (!x.lvl || !x.zsuf || !x.stor || !x.end || !x.pend || !x.kpos || !x.kval || !x.wp || !x.wn ||
        cc_order_coords(&c, s->order) < 0 || cc_trie_sort(&c, ns->offs, s->order, s->perm, x.lvl, x.zsuf))
        rc = CC_ENOMEM;
    if (!rc) rc = check_volume(&x);
    if (!rc && x.n) x.stor[0] = CC_SLOT(CC_SLOT_SEND, 0);
    for (int k = 0; !rc && k < d; k++) {
        rc = collect_children(&x, k);
        for (int h = 1; !rc && (x.np || x.nn); h++) {
            rc = cc_sched_phase(s, k);
            if (!rc) rc = hop(&x, s->order[k], h, 1);
            if (!rc) rc = hop(&x, s->order[k], h, -1);
        }
    }
    if (!rc) rc = cc_trie_copies(s, s->perm, x.lvl, x.n, x.stor);
    free(x.lvl);
    free(x.zsuf);
    free(x.stor);
    free(x.end);
    free(x.pend);
    free(x.kpos);
    free(x.kval);
    free(x.wp);
    free(x.wn);
    cc_coords_free(&c);
    return rc;
}

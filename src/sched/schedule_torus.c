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

int cc_build_torus_allgather(const cc_nset *ns, cc_schedule *s)
{
    int d = ns->d, rc = CC_OK;
    cc_coords c;
    rc = cc_coords_init(&c, ns);
    if (rc) return rc;
    int n = c.n;
    size_t sz = (size_t)(n ? n : 1);
    int *lvl = malloc(sz * sizeof(int)), *zsuf = malloc(sz * sizeof(int)), *stor = malloc(sz * sizeof(int));
    int *end = malloc(sz * sizeof(int)), *pend = malloc(sz * sizeof(int));
    int *kpos = malloc(sz * sizeof(int)), *kval = malloc(sz * sizeof(int));
    walker *wp = malloc(sz * sizeof(walker)), *wn = malloc(sz * sizeof(walker));
    if (!lvl || !zsuf || !stor || !end || !pend || !kpos || !kval || !wp || !wn) {
        rc = CC_ENOMEM;
        goto out;
    }
    if (cc_order_coords(&c, s->order) < 0 || cc_trie_sort(&c, ns->offs, s->order, s->perm, lvl, zsuf)) {
        rc = CC_ENOMEM;
        goto out;
    }
    /* The volume first: each level-k node travels to its extreme children,
     * which are its first and last leaves along order[k]. */
    long long total = 0;
    for (int k = 0; k < d && total <= MAX_ENTRIES; k++) {
        int a = s->order[k];
        cc_trie_ends(lvl, n, k, pend);
        for (int q = 0; q < n; q++) {
            if (lvl[q] > k) continue;
            long long lo = ns->offs[(size_t)s->perm[q] * d + a], hi = ns->offs[(size_t)s->perm[pend[q] - 1] * d + a];
            total += (lo < 0 ? -lo : 0) + (hi > 0 ? hi : 0);
        }
    }
    if (total > MAX_ENTRIES) {
        rc = CC_ETOOBIG;
        goto out;
    }
    if (n) stor[0] = CC_SLOT(CC_SLOT_SEND, 0);
    for (int k = 0; !rc && k < d; k++) {
        int a = s->order[k], nk = 0, np = 0, nn = 0, ps = 0;
        cc_trie_ends(lvl, n, k, pend);
        cc_trie_ends(lvl, n, k + 1, end);
        /* Children of all level-k nodes in perm order (so each node's
         * children are ascending in coordinate), their storage, and one
         * walker per node and direction that has somewhere to go. */
        for (int q = 0; q < n; q++) {
            if (lvl[q] > k + 1) continue;
            int x = ns->offs[(size_t)s->perm[q] * d + a];
            if (lvl[q] <= k) {
                ps = stor[q];
                int lastx = ns->offs[(size_t)s->perm[pend[q] - 1] * d + a];
                if (x < 0) wn[nn++] = (walker){ ps, nk, q, pend[q], -x, { -1, -1 } };
                if (lastx > 0) wp[np++] = (walker){ ps, -1, q, pend[q], lastx, { -1, -1 } };
            }
            if (x == 0) {
                stor[q] = ps;
            } else {
                stor[q] = cc_trie_head(s, s->perm, zsuf, k + 1, q, end[q]);
                if (stor[q] < 0) {
                    rc = stor[q];
                    goto out;
                }
            }
            kpos[nk] = q;
            kval[nk++] = x;
        }
        /* Positive walkers start at their first positive child; negative
         * ones at their last negative child (children with c <= -h form
         * a prefix of the node's children). */
        for (int j = 0, e = 0; j < np; j++) {
            while (kpos[e] < wp[j].lo || kval[e] <= 0) e++;
            wp[j].kid = e;
        }
        for (int j = 0; j < nn; j++) {
            int e = wn[j].kid;
            while (e + 1 < nk && kpos[e + 1] < wn[j].hi && kval[e + 1] < 0) e++;
            wn[j].kid = e;
        }
        for (int h = 1; !rc && (np || nn); h++) {
            rc = cc_sched_phase(s, k);
            for (int dir = 1; !rc && dir >= -1; dir -= 2) {
                walker *w = dir > 0 ? wp : wn;
                int *cnt = dir > 0 ? &np : &nn, kept = 0;
                if (*cnt == 0) continue;
                rc = cc_sched_round_axis(s, a, dir);
                for (int j = 0; !rc && j < *cnt; j++) {
                    walker u = w[j];
                    if (dir * kval[u.kid] < h) u.kid += dir; /* passed that child */
                    /* The instance serves the children it has not passed:
                     * c >= h (a suffix of the node) or c <= -h (a prefix). */
                    int lo = dir > 0 ? kpos[u.kid] : u.lo;
                    int hi = dir > 0 ? u.hi : (u.kid + 1 < nk ? kpos[u.kid + 1] : n);
                    int dst;
                    if (dir * kval[u.kid] == h) {
                        dst = stor[kpos[u.kid]];
                    } else {
                        int *tr = &u.transit[h & 1];
                        if (*tr < 0) {
                            *tr = cc_sched_temp(s, s->perm[lo]);
                            if (*tr < 0) {
                                rc = *tr;
                                break;
                            }
                        }
                        dst = CC_SLOT(CC_SLOT_TEMP, *tr);
                    }
                    rc = cc_sched_entry(s, u.cur, dst, lo, hi, dir * (h - 1));
                    u.cur = dst;
                    if (u.reach > h) w[kept++] = u;
                }
                *cnt = kept;
            }
        }
    }
    if (!rc) rc = cc_trie_copies(s, s->perm, lvl, n, stor);
out:
    free(lvl);
    free(zsuf);
    free(stor);
    free(end);
    free(pend);
    free(kpos);
    free(kval);
    free(wp);
    free(wn);
    cc_coords_free(&c);
    return rc;
}

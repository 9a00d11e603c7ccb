/* COMBINING allgather (seed 002 Algorithm 2): the prefix trie along the
 * order of cc_allgather_order, level by level.  Phase k sends, for every
 * trie node at level k, its block once to each child with a non-zero
 * coordinate along order[k]; children with the same coordinate share a
 * round.  A child with coordinate 0 is the same instance as its parent.
 * Instances land in RECV of a leaf equal to their prefix when there is one
 * (final data, nothing to copy) and in a TEMP otherwise. */
#include "sched/schedule_trie.h"

#include <stdlib.h>

int cc_build_combining_allgather(const cc_nset *ns, cc_schedule *s)
{
    int d = ns->d, t = ns->t;
    cc_coords c;
    int rc = cc_coords_init(&c, ns);
    if (rc) return rc;
    int n = c.n;
    size_t sz = (size_t)(n ? n : 1) * sizeof(int);
    int *lvl = malloc(sz), *zsuf = malloc(sz), *stor = malloc(sz), *pst = malloc(sz);
    int *end = malloc(sz), *kids = malloc(sz), *sorted = malloc(sz), *key = malloc(sz);
    if (!lvl || !zsuf || !stor || !pst || !end || !kids || !sorted || !key) {
        rc = CC_ENOMEM;
        goto out;
    }
    if (cc_order_coords(&c, s->order) < 0 || cc_trie_sort(&c, ns->offs, s->order, s->perm, lvl, zsuf)) {
        rc = CC_ENOMEM;
        goto out;
    }
    if (n) stor[0] = CC_SLOT(CC_SLOT_SEND, 0);
    for (int k = 0; !rc && k < d; k++) {
        int a = s->order[k], m = 0, ps = 0;
        cc_trie_ends(lvl, n, k + 1, end);
        /* Children (level k+1 starts) in perm order; a level-k start is also
         * the start of its first child, so read the parent's storage first. */
        for (int q = 0; q < n; q++) {
            if (lvl[q] > k + 1) continue;
            if (lvl[q] <= k) ps = stor[q];
            if (ns->offs[(size_t)s->perm[q] * d + a] == 0) {
                stor[q] = ps;
                continue;
            }
            stor[q] = cc_trie_head(s, s->perm, zsuf, k + 1, q, end[q]);
            if (stor[q] < 0) {
                rc = stor[q];
                goto out;
            }
            pst[q] = ps;
            key[q] = c.rank[(size_t)a * t + s->perm[q]];
            kids[m++] = q;
        }
        if (m == 0) continue;
        rc = cc_bucket_sort(kids, m, key, c.nval[a], sorted);
        if (!rc) rc = cc_sched_phase(s, k);
        for (int j = 0; !rc && j < m; j++) {
            int q = sorted[j];
            if (j == 0 || key[q] != key[sorted[j - 1]])
                rc = cc_sched_round_axis(s, a, ns->offs[(size_t)s->perm[q] * d + a]);
            if (!rc) rc = cc_sched_entry(s, pst[q], stor[q], q, end[q], 0);
        }
    }
    if (!rc) rc = cc_trie_copies(s, s->perm, lvl, n, stor);
out:
    free(lvl);
    free(zsuf);
    free(stor);
    free(pst);
    free(end);
    free(kids);
    free(sorted);
    free(key);
    cc_coords_free(&c);
    return rc;
}

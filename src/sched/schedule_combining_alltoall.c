/* COMBINING alltoall (seed 002 Algorithm 1): phase k moves every block with
 * a non-zero k-coordinate straight along dimension k, one round per
 * distinct coordinate value; a block travels z_i hops (its non-zero
 * coordinates), alternating between TEMP and RECV so that no block is
 * copied and the last hop lands in RECV (zero-copy, seed 001 Algorithm 1). */
#include "sched/schedule_trie.h"

#include <stdlib.h>

int cc_build_combining_alltoall(const cc_nset *ns, cc_schedule *s)
{
    int d = ns->d, t = ns->t;
    cc_coords c;
    int rc = cc_coords_init(&c, ns);
    if (rc) return rc;
    int n = c.n;
    size_t sz = (size_t)(n ? n : 1) * sizeof(int);
    size_t szt = (size_t)(t ? t : 1) * sizeof(int);
    int *z = malloc(szt), *done = calloc(t ? (size_t)t : 1, sizeof(int)), *tmp = malloc(szt);
    int *list = malloc(sz), *sorted = malloc(sz);
    if (!z || !done || !tmp || !list || !sorted) {
        rc = CC_ENOMEM;
        goto out;
    }
    for (int e = 0; e < n; e++) {
        int i = c.idx[e];
        const int *v = ns->offs + (size_t)i * d;
        z[i] = 0;
        for (int k = 0; k < d; k++) z[i] += v[k] != 0;
        if ((rc = cc_hop_temp(s, i, z[i], &tmp[i])) != CC_OK) goto out;
    }
    for (int k = 0; !rc && k < d; k++) {
        int m = 0;
        for (int e = 0; e < n; e++)
            if (ns->offs[(size_t)c.idx[e] * d + k]) list[m++] = c.idx[e];
        if (m == 0) continue;
        /* Stable: ascending value, then ascending block index. */
        rc = cc_bucket_sort(list, m, c.rank + (size_t)k * t, c.nval[k], sorted);
        if (!rc) rc = cc_sched_phase(s, k);
        for (int j = 0; !rc && j < m; j++) {
            int i = sorted[j], x = ns->offs[(size_t)i * d + k];
            if (j == 0 || x != ns->offs[(size_t)sorted[j - 1] * d + k]) rc = cc_sched_round_axis(s, k, x);
            int h = ++done[i];
            if (!rc)
                rc = cc_sched_entry(s, cc_hop_slot(i, z[i], h - 1, tmp[i]), cc_hop_slot(i, z[i], h, tmp[i]),
                                    i, i + 1, 0);
        }
    }
    for (int e = 0; !rc && e < n; e++)
        if (z[c.idx[e]] == 0)
            rc = cc_sched_copy(s, CC_SLOT(CC_SLOT_SEND, c.idx[e]), CC_SLOT(CC_SLOT_RECV, c.idx[e]), c.idx[e]);
out:
    free(z);
    free(done);
    free(tmp);
    free(list);
    free(sorted);
    cc_coords_free(&c);
    return rc;
}

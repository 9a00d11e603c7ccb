/* Phases, rounds and volume of every schedule from the neighbourhood alone,
 * without building it: the closed forms of seed 002 Propositions 3.2/3.3
 * and seed 001 sec. 3 (D and V), evaluated in O(t*d) with no per-hop
 * loops, so raw offsets of any size are fine. */
#include "sched/schedule_trie.h"
#include "util/alloc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static long long labs_ll(int x) { return x < 0 ? -(long long)x : x; }

/* Trie volume of the TORUS allgather: every node travels, per direction,
 * as far as its farthest child along the next dimension.  Within a level-k
 * node the leaves are sorted by that coordinate, so the extremes are its
 * first and last leaves. */
static int torus_allgather_volume(const cc_nset *ns, const cc_coords *c, long long *volume)
{
    int d = ns->d, n = c->n, rc = CC_OK;
    size_t sz = (size_t)(n ? n : 1);
    int *order = cc_alloc_array((size_t)d, sizeof(int));
    int *perm = cc_alloc_array((size_t)ns->t, sizeof(int));
    int *lvl = malloc(sz * sizeof(int)), *zsuf = malloc(sz * sizeof(int)), *end = malloc(sz * sizeof(int));
    *volume = 0;
    if (!order || !perm || !lvl || !zsuf || !end || cc_order_coords(c, order) < 0 ||
        cc_trie_sort(c, ns->offs, order, perm, lvl, zsuf)) {
        rc = CC_ENOMEM;
        goto out;
    }
    for (int k = 0; k < d; k++) {
        int a = order[k];
        cc_trie_ends(lvl, n, k, end);
        for (int p = 0; p < n; p++) {
            if (lvl[p] > k) continue;
            int lo = ns->offs[(size_t)perm[p] * d + a], hi = ns->offs[(size_t)perm[end[p] - 1] * d + a];
            if (lo < 0) *volume += labs_ll(lo);
            if (hi > 0) *volume += hi;
        }
    }
out:
    free(order);
    free(perm);
    free(lvl);
    free(zsuf);
    free(end);
    return rc;
}

/* DIRECT: one round per distinct non-zero vector; alltoall sends every
 * non-zero block, allgather one block per round. */
static int direct_stats(const cc_nset *ns, int collective, long long *phases, long long *rounds, long long *volume)
{
    int d = ns->d, t = ns->t;
    int *cls = cc_alloc_array((size_t)t, sizeof(int)), *first = cc_alloc_array((size_t)t, sizeof(int));
    int n = cls && first ? cc_vector_classes(ns, cls, first) : CC_ENOMEM;
    if (n < 0) {
        free(cls);
        free(first);
        return CC_ENOMEM;
    }
    long long blocks = 0;
    for (int c = 0; c < n; c++) {
        const int *v = ns->offs + (size_t)first[c] * d;
        int k = 0;
        while (k < d && v[k] == 0) k++;
        if (k < d) ++*rounds;
    }
    for (int i = 0; i < t; i++) {
        if (cls[i] < 0) continue;
        const int *v = ns->offs + (size_t)i * d;
        int k = 0;
        while (k < d && v[k] == 0) k++;
        blocks += k < d;
    }
    *volume = collective == CC_ALLTOALL ? blocks : *rounds;
    *phases = *rounds > 0;
    free(cls);
    free(first);
    return CC_OK;
}

int cc_schedule_stats(const cc_nset *ns, int collective, int algorithm,
                      long long *phases, long long *rounds, long long *volume)
{
    int d = ns->d, t = ns->t, rc = CC_OK;
    *phases = *rounds = *volume = 0;
    if (collective == CC_ALLREDUCE) {
        /* On a box the schedule that reduces on the way (small: built and
         * counted); elsewhere, and for DIRECT, the allgather's. */
        int box = algorithm == CC_DIRECT ? 0 : cc_reduce_box(ns);
        if (box < 0) return box;
        if (!box) return cc_schedule_stats(ns, CC_ALLGATHER, algorithm, phases, rounds, volume);
        cc_schedule *s;
        if ((rc = cc_schedule_build(ns, CC_ALLREDUCE, algorithm, &s)) != CC_OK) return rc;
        *phases = s->nphases;
        *rounds = s->nrounds;
        *volume = s->nentries;
        cc_schedule_free(s);
        return CC_OK;
    }
    if (algorithm == CC_DIRECT) return direct_stats(ns, collective, phases, rounds, volume);
    if (algorithm == CC_TORUS) {
        /* D = sum_k (P_k + M_k) rounds in sum_k max(P_k, M_k) phases. */
        for (int k = 0; k < d; k++) {
            long long P = 0, M = 0;
            for (int i = 0; i < t; i++) {
                if (ns->skip && ns->skip[i]) continue;
                int x = ns->offs[(size_t)i * d + k];
                if (x > P) P = x;
                if (-(long long)x > M) M = -(long long)x;
            }
            *rounds += P + M;
            *phases += P > M ? P : M;
        }
        if (collective == CC_ALLTOALL) {
            for (int i = 0; i < t; i++)
                if (!(ns->skip && ns->skip[i]))
                    for (int k = 0; k < d; k++) *volume += labs_ll(ns->offs[(size_t)i * d + k]);
            return CC_OK;
        }
        cc_coords c;
        if (cc_coords_init(&c, ns)) return CC_ENOMEM;
        rc = torus_allgather_volume(ns, &c, volume);
        cc_coords_free(&c);
        return rc;
    }
    /* COMBINING: one phase per dimension with a non-zero coordinate, C_k
     * rounds in it; alltoall volume sum z_i, allgather the trie's edges. */
    cc_coords c;
    if (cc_coords_init(&c, ns)) return CC_ENOMEM;
    for (int k = 0; k < d; k++) {
        int ck = cc_coords_nonzero(&c, k);
        *rounds += ck;
        *phases += ck > 0;
    }
    if (collective == CC_ALLTOALL) {
        for (int e = 0; e < c.n; e++)
            for (int k = 0; k < d; k++) *volume += ns->offs[(size_t)c.idx[e] * d + k] != 0;
    } else {
        int *order = cc_alloc_array((size_t)d, sizeof(int));
        long long v = order ? cc_order_coords(&c, order) : CC_ENOMEM;
        free(order);
        if (v < 0) rc = CC_ENOMEM;
        else *volume = v;
    }
    cc_coords_free(&c);
    return rc;
}

/* Values of a coordinate counted through a table (cc_schedule_counts):
 * -CC_SPAN/2 <= x < CC_SPAN/2, reduced offsets on any grid of up to 255
 * processes per dimension. */
#define CC_SPAN 256

int cc_schedule_counts(const cc_nset *ns, int collective, int algorithm, cc_sched_counts *out)
{
    int d = ns->d, t = ns->t;
    const int *restrict offs = ns->offs;
    const unsigned char *restrict skip = ns->skip;
    memset(out, 0, sizeof *out);
    if ((collective != CC_ALLGATHER && collective != CC_ALLTOALL) ||
        (algorithm != CC_DIRECT && algorithm != CC_COMBINING))
        return CC_ETOOBIG;
    /* Blocks kept, those with a zero vector (local copies), hops (non-zero
     * coordinates) and which values each coordinate takes, in one pass. */
    unsigned char *restrict seen = calloc((size_t)CC_SPAN * ((size_t)d + 1), 1);
    if (!seen) return CC_ENOMEM;
    long long kept = 0, zero = 0, hops = 0;
    int wide = 0;
    for (int i = 0; i < t; i++) {
        if (skip && skip[i]) continue;
        const int *v = offs + (size_t)i * d;
        int z = 0;
        for (int k = 0; k < d; k++) {
            unsigned x = (unsigned)v[k] + CC_SPAN / 2;
            z += v[k] != 0;
            if (x < CC_SPAN) seen[(size_t)k * CC_SPAN + x] = 1;
            else wide = 1;
        }
        kept++;
        zero += z == 0;
        hops += z;
    }
    if (algorithm == CC_COMBINING && collective == CC_ALLTOALL) {
        /* One phase per dimension with a non-zero coordinate, one round per
         * distinct non-zero value; block i travels z_i hops, z_i = 0 is a
         * copy (schedule_combining_alltoall.c).  Values beyond the table:
         * the sorting statistics. */
        int rc = CC_OK;
        out->entries = hops;
        out->copies = zero;
        if (wide) {
            rc = cc_schedule_stats(ns, collective, algorithm, &out->phases, &out->rounds, &out->entries);
        } else {
            for (int k = 0; k < d; k++) {
                long long ck = 0;
                for (int x = 0; x < CC_SPAN; x++) ck += x != CC_SPAN / 2 && seen[(size_t)k * CC_SPAN + (size_t)x];
                out->rounds += ck;
                out->phases += ck > 0;
            }
        }
        free(seen);
        return rc;
    }
    free(seen);
    int rc = cc_schedule_stats(ns, collective, algorithm, &out->phases, &out->rounds, &out->entries);
    if (rc != CC_OK) return rc;
    if (collective == CC_ALLTOALL) { /* DIRECT: one entry per non-zero block */
        out->copies = zero;
        return CC_OK;
    }
    /* Allgather: every kept block arrives by one entry or one copy, and one
     * receive block of each distinct non-zero vector is an entry's
     * destination (DIRECT: one entry per vector; COMBINING: the trie node
     * where the vector's last non-zero coordinate is added stores into the
     * first leaf of that vector, cc_trie_head). */
    long long vectors = 0, p, v;
    if (algorithm == CC_DIRECT) vectors = out->rounds;
    else if ((rc = cc_schedule_stats(ns, collective, CC_DIRECT, &p, &vectors, &v)) != CC_OK) return rc;
    out->copies = kept - vectors;
    return CC_OK;
}

/* DIRECT (seed 002 Listing 4): one phase; every block goes straight from the
 * send buffer to its target.  Blocks whose (reduced) offset vectors are equal
 * go to the same process, so they share one message: one round per distinct
 * non-zero vector -- on a small grid thousands of offsets collapse onto a few
 * processes.  Allgather sends its block once per distinct vector and the
 * receiver copies it into the repeats.  Zero vectors are local copies. */
#include "sched/schedule.h"
#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

static int is_zero(const int *v, int d)
{
    for (int k = 0; k < d; k++)
        if (v[k]) return 0;
    return 1;
}

static unsigned hash_vec(const int *v, int d)
{
    unsigned h = 2166136261u;
    for (int k = 0; k < d; k++) h = (h ^ (unsigned)v[k]) * 16777619u;
    return h;
}

/* cls[i]: class of block i (equal vectors), numbered by first occurrence;
 * first[c]: the first block of class c.  Skipped blocks get -1.  Returns the
 * number of classes or CC_ENOMEM. */
int cc_vector_classes(const cc_nset *ns, int *cls, int *first)
{
    int t = ns->t, d = ns->d, n = 0;
    size_t cap = 16;
    while (cap < 2 * (size_t)t) cap *= 2;
    int *slot = malloc(sizeof(int) * cap);
    if (!slot) return CC_ENOMEM;
    memset(slot, 0xff, sizeof(int) * cap);
    for (int i = 0; i < t; i++) {
        cls[i] = -1;
        if (ns->skip && ns->skip[i]) continue;
        const int *v = ns->offs + (size_t)i * d;
        size_t h = hash_vec(v, d) & (cap - 1);
        while (slot[h] >= 0 && memcmp(ns->offs + (size_t)first[slot[h]] * d, v, sizeof(int) * (size_t)d) != 0)
            h = (h + 1) & (cap - 1);
        if (slot[h] < 0) {
            slot[h] = n;
            first[n++] = i;
        }
        cls[i] = slot[h];
    }
    free(slot);
    return n;
}

int cc_build_direct(const cc_nset *ns, int collective, cc_schedule *s)
{
    int t = ns->t, d = ns->d;
    int *cls = cc_alloc_array((size_t)t, sizeof(int)), *first = cc_alloc_array((size_t)t, sizeof(int));
    int *start = malloc(sizeof(int) * ((size_t)t + 2));
    int rc = cls && first && start ? CC_OK : CC_ENOMEM, n = 0;
    if (rc == CC_OK && (n = cc_vector_classes(ns, cls, first)) < 0) rc = CC_ENOMEM;
    if (rc == CC_OK) {
        /* perm: blocks grouped by class (skipped ones last), so that a class is
         * one leaf range; start[c] is where class c begins. */
        memset(start, 0, sizeof(int) * ((size_t)n + 2));
        for (int i = 0; i < t; i++) start[(cls[i] < 0 ? n : cls[i]) + 1]++;
        for (int c = 0; c <= n; c++) start[c + 1] += start[c];
        int *fill = malloc(sizeof(int) * ((size_t)n + 1));
        if (!fill) rc = CC_ENOMEM;
        else {
            memcpy(fill, start, sizeof(int) * ((size_t)n + 1));
            for (int i = 0; i < t; i++) s->perm[fill[cls[i] < 0 ? n : cls[i]]++] = i;
            free(fill);
        }
    }
    if (rc == CC_OK) rc = cc_sched_phase(s, 0);
    for (int c = 0; rc == CC_OK && c < n; c++) {
        const int *v = ns->offs + (size_t)first[c] * d;
        int lo = start[c], hi = start[c + 1];
        if (is_zero(v, d)) {
            for (int p = lo; rc == CC_OK && p < hi; p++) {
                int i = s->perm[p];
                rc = cc_sched_copy(s, CC_SLOT(CC_SLOT_SEND, collective == CC_ALLTOALL ? i : 0), CC_SLOT(CC_SLOT_RECV, i), i);
            }
            continue;
        }
        rc = cc_sched_round(s, v);
        if (collective == CC_ALLTOALL) {
            for (int p = lo; rc == CC_OK && p < hi; p++)
                rc = cc_sched_entry(s, CC_SLOT(CC_SLOT_SEND, s->perm[p]), CC_SLOT(CC_SLOT_RECV, s->perm[p]), p, p + 1, 0);
        } else {
            int f = s->perm[lo];
            if (rc == CC_OK) rc = cc_sched_entry(s, CC_SLOT(CC_SLOT_SEND, 0), CC_SLOT(CC_SLOT_RECV, f), lo, hi, 0);
            for (int p = lo + 1; rc == CC_OK && p < hi; p++)
                rc = cc_sched_copy(s, CC_SLOT(CC_SLOT_RECV, f), CC_SLOT(CC_SLOT_RECV, s->perm[p]), s->perm[p]);
        }
    }
    free(cls);
    free(first);
    free(start);
    return rc;
}

/* Private to the schedule layer: compressed coordinates, the allgather
 * prefix trie and the hop-parity rule shared by the COMBINING and TORUS
 * builders and by cc_schedule_stats.  Pure C, no MPI.  Implemented in
 * schedule_order.c. */
#ifndef CC_SCHEDULE_TRIE_H
#define CC_SCHEDULE_TRIE_H

#include "sched/schedule.h"

/* The non-skipped vectors with every coordinate replaced by its rank among
 * the distinct values of that dimension, so that sorting by a coordinate is
 * a counting sort with at most n buckets whatever the raw values are. */
typedef struct cc_coords {
    int d, t, n;    /* n: number of non-skipped vectors */
    int *idx;       /* n: the non-skipped vectors, ascending */
    int *rank;      /* d*t: rank[k*t + i], ascending with the value (0 for skipped i) */
    int *nval;      /* d: distinct values of dimension k */
    int *zero;      /* d: rank of the value 0, or -1 if 0 does not occur */
} cc_coords;

/* O(t*d): a table of the values present where they span at most n keys
 * (stencils), else a radix sort (four byte passes at most).  CC_OK or
 * CC_ENOMEM. */
int cc_coords_init(cc_coords *c, const cc_nset *ns);
void cc_coords_free(cc_coords *c);

/* Number of distinct non-zero values of dimension k (C_k of seed 002). */
int cc_coords_nonzero(const cc_coords *c, int k);

/* cc_allgather_order on already compressed coordinates. */
long long cc_order_coords(const cc_coords *c, int order[]);

/* The exact order is computed while 2^d*d*n <= this (2^26); tests lower
 * it to exercise the heuristic.  Not to be changed by the library. */
extern long long cc_order_exact_limit;

/* The allgather trie along order[]: perm[0..n) = non-skipped leaves sorted
 * lexicographically by their coordinates taken in order[] (stable, so
 * identical vectors are adjacent in index order), perm[n..t) = skipped
 * leaves ascending.  A node at level k is a maximal range of perm whose
 * leaves agree on order[0..k-1]; position p starts one iff lvl[p] <= k
 * (lvl[0] = 0, lvl[p] = 1 + first position in order[] where perm[p-1] and
 * perm[p] differ, d+1 if they are equal).  zsuf[p] = smallest m such that
 * perm[p] is zero on order[m..d-1].  Arrays lvl and zsuf hold n ints. */
int cc_trie_sort(const cc_coords *c, const int *offs, const int order[],
                 int perm[], int lvl[], int zsuf[]);

/* end[p] = end of the level-k node starting at p (for every start p). */
void cc_trie_ends(const int lvl[], int n, int k, int end[]);

/* Storage slot of a new chain head: a level-k node [lo, hi) whose last
 * coordinate is non-zero.  RECV of its first leaf that equals the node's
 * prefix (zero on the remaining dimensions), else a fresh TEMP.  Returns
 * the slot, or a negative CC_ error code. */
int cc_trie_head(cc_schedule *s, const int perm[], const int zsuf[], int k, int lo, int hi);

/* The final copies of the allgather schedules: stor[p] is the storage of
 * the leaf node starting at p (level d); every leaf not stored there gets
 * a copy from it. */
int cc_trie_copies(cc_schedule *s, const int perm[], const int lvl[], int n, const int stor[]);

/* Slot holding alltoall block i after hop j of z (zero-copy alternation,
 * seed 001 Algorithm 1): the send buffer before the first hop, then
 * alternately TEMP and RECV so that the last hop lands in RECV. */
static inline int cc_hop_slot(int i, long long z, long long j, int tmp)
{
    if (j == 0) return CC_SLOT(CC_SLOT_SEND, i);
    return ((z - j) % 2 == 0) ? CC_SLOT(CC_SLOT_RECV, i) : CC_SLOT(CC_SLOT_TEMP, tmp);
}

/* The TEMP that alltoall block i alternates with when it travels z hops
 * (none below two hops: *tmp = -1).  CC_OK or CC_ENOMEM. */
static inline int cc_hop_temp(cc_schedule *s, int i, long long z, int *tmp)
{
    *tmp = -1;
    if (z < 2) return CC_OK;
    int j = cc_sched_temp(s, i);
    if (j < 0) return j; /* CC_ENOMEM / CC_ETOOBIG */
    *tmp = j;
    return CC_OK;
}

#endif

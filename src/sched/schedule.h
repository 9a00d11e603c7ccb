/* Schedules: which block goes where in which round.  Pure C, no MPI.
 *
 * A schedule is computed from the neighbourhood alone and is the same on
 * every process (that is what makes it deadlock-free: seed 002 sec. 3).  It
 * is a sequence of phases; the rounds of a phase run concurrently, a phase
 * starts when the previous one completed at this process.  In a round with
 * peer vector v every process H sends one combined message to H + v and
 * receives one from H - v.  A message is a list of entries; entry j of the
 * message H sends is entry j of the message H + v receives, so sender and
 * receiver agree on its contents without communication.
 *
 * Blocks live in slots.  A slot reference packs a kind and an index:
 *   SEND  i  send block i (allgather: the one send block, index 0)
 *   RECV  i  receive block i (also used as scratch on the way, zero-copy)
 *   TEMP  j  temporary block j, with the type signature of receive block
 *            temp_like[j]
 *   TEMP2 i  second temporary for block i; builders never emit it, the
 *            localizer substitutes it for RECV i where receive block i must
 *            stay untouched (its source is off a mesh)
 * An entry says: the sender takes its `src` slot, the receiver stores into
 * its `dst` slot.  Within one phase a process never reads a slot that it
 * writes in the same phase, and never writes one slot twice.
 *
 * Which processes hold an instance (meshes).  Every entry carries one
 * instance of the block of some origin process O.  The builders record the
 * path so that each process can decide locally whether the instance exists:
 * with H the sending process and
 *     pre = sum_{j < kpos} N[perm[lo]]_{order[j]} e_{order[j]}
 *           + moved * e_{order[kpos]}
 * (kpos of the entry's phase), O = H - pre, and the instance is needed for
 * the final targets O + N[perm[l]], l in [lo, hi).  It exists when O and at
 * least one of those targets lie on the grid.  All leaves perm[lo..hi) share
 * the coordinates of perm[lo] on order[0..kpos-1].  DIRECT uses kpos = 0,
 * moved = 0 (the sender is the origin).
 *
 * After the last phase the local copies run: copy `src` to `dst` if the
 * process's source for leaf `leaf` (H - N[leaf]) exists (zero vector: always).
 *
 * Reductions on the way (schedule_reduce.c, `onway` set).  Every slot holds
 * a partial reduction that every process has (it includes the process's own
 * contribution), so an entry exists wherever both ends of its round exist.
 * After a phase completed its folds run, in order: `dst = src op dst`
 * (MPI_Reduce_local), or `dst = src` where dst holds nothing yet at this
 * process; a fold whose `src` was received from no process (off a mesh) is
 * left out.  The operation must be commutative.
 */
#ifndef CC_SCHEDULE_H
#define CC_SCHEDULE_H

#include <stddef.h>

enum { CC_SLOT_SEND = 0, CC_SLOT_RECV = 1, CC_SLOT_TEMP = 2, CC_SLOT_TEMP2 = 3 };
#define CC_SLOT(kind, index) (((index) << 2) | (kind))
#define CC_SLOT_KIND(s)      ((s) & 3)
#define CC_SLOT_INDEX(s)     ((s) >> 2)

/* Pure-layer status codes (mapped to MPI classes by the API front). */
#define CC_OK       0
#define CC_ENOMEM (-1)   /* allocation failed */
#define CC_ETOOBIG (-2)  /* sizes do not fit the int-based MPI interfaces */

/* Collectives and algorithms: same values as CART_ALLGATHER/CART_ALLTOALL
 * and CART_ALGORITHM_* of cartcoll.h (checked by static assertions in the
 * MPI layer). */
#define CC_ALLGATHER 1
#define CC_ALLTOALL  2
/* The collectives of seed 000 with neighbourhood meaning (CART_BCAST ...
 * CART_ALLREDUCE; the barrier has no public code).  Their DIRECT plans are
 * built from edge lists (schedule_edges.h). */
#define CC_BCAST     3
#define CC_GATHER    4
#define CC_SCATTER   5
#define CC_REDUCE    6
#define CC_ALLREDUCE 7
#define CC_BARRIER   8
/* The families of the codes, named once so that no caller compares codes
 * by their order: the six [core] collectives (Cartesian schedules, blocks
 * in the neighbourhood's order), and the rooted ones (a root, per-edge or
 * along trees). */
static inline int cc_coll_core(int c) { return c == CC_ALLGATHER || c == CC_ALLTOALL; }
static inline int cc_coll_rooted(int c) { return c == CC_BCAST || c == CC_GATHER || c == CC_SCATTER || c == CC_REDUCE; }
#define CC_DIRECT    1
#define CC_COMBINING 2
#define CC_TORUS     3

/* What the builders route: t offset vectors of d ints.  skip[i] (optional)
 * marks blocks that can never reach a process on this grid; they get no
 * entries and no copies. */
typedef struct cc_nset {
    int d, t;
    const int *offs;              /* t*d */
    const unsigned char *skip;    /* t flags, or NULL */
    const int *periods;           /* d flags, or NULL (unknown: any dimension may be a mesh);
                                   * only reductions on the way use it */
} cc_nset;

typedef struct cc_entry {
    int src, dst;     /* slot references */
    int lo, hi;       /* the instance serves leaves perm[lo..hi) */
    int moved;        /* signed distance already travelled along order[kpos] */
} cc_entry;

typedef struct cc_round {
    int vec;          /* peer vector: vecs[vec*d .. vec*d+d-1] */
    int first, count; /* entries[first .. first+count-1] */
} cc_round;

typedef struct cc_phase {
    int kpos;         /* position in order[] of the dimension this phase uses */
    int first, count; /* rounds[first .. first+count-1] */
    int ffirst, fcount; /* folds[ffirst .. ffirst+fcount-1], after the phase (onway) */
} cc_phase;

typedef struct cc_fold {
    int src, dst;     /* slot references: dst = src op dst */
} cc_fold;

typedef struct cc_copy {
    int src, dst;     /* slot references */
    int leaf;         /* the receive block this copy produces */
} cc_copy;

typedef struct cc_schedule {
    int collective, algorithm;
    int d, t;
    int *order;       /* d dimensions, in the order the phases use them */
    int *perm;        /* t leaves; entries name ranges of it */
    int *offs;        /* t*d: copy of the routed offsets */
    int nphases, nrounds, nentries, ncopies, nvecs, ntemp, nfolds;
    int onway;        /* a reduction on the way (folds; every instance exists) */
    cc_phase *phases;
    cc_round *rounds;
    cc_entry *entries;
    cc_copy  *copies;
    int *vecs;        /* nvecs*d */
    int *temp_like;   /* ntemp */
    cc_fold *folds;   /* nfolds */
    int cap_[7];      /* private: allocated lengths, for schedule.c */
} cc_schedule;

/* DIRECT sends every block straight to its target, one message per distinct
 * non-zero vector (blocks with equal vectors share it; allgather sends its
 * block once per distinct vector and the receiver copies it to the repeats).
 *
 * Build the schedule of `algorithm` (CC_DIRECT, CC_COMBINING, CC_TORUS) for
 * `collective`.  O(t*d) time and memory for DIRECT and COMBINING (the exact
 * allgather dimension order costs O(2^d*d*t) and is used while that is
 * small), O(sum_i |N_i|_1 + t*d) for TORUS.  Returns CC_OK, CC_ENOMEM or
 * CC_ETOOBIG; *out is NULL on failure. */
int cc_schedule_build(const cc_nset *ns, int collective, int algorithm, cc_schedule **out);
void cc_schedule_free(cc_schedule *s);

/* Phases, rounds and volume of a schedule without building it: exact,
 * O(t*d) (O(2^d*d*t) for the exact allgather order), so it works for raw
 * offsets of any size.  Equal to nphases, nrounds and nentries of the built
 * schedule.  Returns CC_OK or CC_ENOMEM. */
int cc_schedule_stats(const cc_nset *ns, int collective, int algorithm,
                      long long *phases, long long *rounds, long long *volume);

/* What the cost model reads of a schedule, without building it: nphases,
 * nrounds, nentries and ncopies of the schedule cc_schedule_build would
 * make for CC_ALLGATHER or CC_ALLTOALL with CC_DIRECT or CC_COMBINING
 * (exact; tested against the built schedules).  O(t*d) (the COMBINING
 * allgather: as cc_schedule_stats), and for COMBINING alltoall far less
 * than building: the distinct values per dimension through a table where
 * they span a small range.  Returns CC_OK, CC_ENOMEM, or CC_ETOOBIG for
 * other collectives and algorithms. */
typedef struct cc_sched_counts {
    long long phases, rounds, entries, copies;
} cc_sched_counts;
int cc_schedule_counts(const cc_nset *ns, int collective, int algorithm, cc_sched_counts *out);

/* Per-algorithm builders (schedule_*.c), dispatched by cc_schedule_build
 * (schedule_build.c). */
int cc_build_direct(const cc_nset *ns, int collective, cc_schedule *s);
int cc_build_combining_alltoall(const cc_nset *ns, cc_schedule *s);
int cc_build_combining_allgather(const cc_nset *ns, cc_schedule *s);
int cc_build_torus_alltoall(const cc_nset *ns, cc_schedule *s);
int cc_build_torus_allgather(const cc_nset *ns, cc_schedule *s);
int cc_build_combining_allreduce(const cc_nset *ns, cc_schedule *s);
int cc_build_torus_allreduce(const cc_nset *ns, cc_schedule *s);

/* Allreduce with reduction on the way (schedule_reduce.c), for commutative
 * operations on box-shaped neighbourhoods: the offsets are, each once, the
 * lattice points of a box prod_k [lo_k, hi_k] with lo_k <= 0 <= hi_k, the
 * zero vector included or not (Moore neighbourhoods of any radius, with or
 * without the centre).  Box sums separate into one window sum per
 * dimension; the zero vector left out is handled by a second partial
 * (everything except the all-zero point).  Per dimension:
 *   COMBINING  the better of direct receives of the a = -lo and b = hi
 *              neighbours (a + b rounds) and, on periodic dimensions, window
 *              doubling (partial sums of 2^i consecutive processes, then one
 *              receive per side): at most 4 rounds per dimension for radius
 *              <= 4 on a torus, <= 2 on a mesh;
 *   TORUS      two pipelines hop by hop, a + b rounds between torus
 *              neighbours only.
 * Every round carries one block, so rounds = volume.  Whether the
 * neighbourhood is such a box: */
int cc_reduce_box(const cc_nset *ns);

/* Dimension order for the allgather tree that minimises its edge count
 * (exact by dynamic programming over subsets of dimensions when
 * 2^d*d*t is small, otherwise dimensions by increasing number of distinct
 * non-zero coordinates).  Writes d dimensions to order[]; returns the edge
 * count of that order, or CC_ENOMEM. */
long long cc_allgather_order(const cc_nset *ns, int order[]);

/* Helpers for builders (schedule.c).  The builders fill `s` through these so
 * that every schedule has the same shape; each returns CC_OK or CC_ENOMEM. */
int cc_sched_begin(cc_schedule *s, const cc_nset *ns, int collective, int algorithm);
int cc_sched_phase(cc_schedule *s, int kpos);                 /* opens a phase */
int cc_sched_round(cc_schedule *s, const int vec[]);         /* opens a round in it */
int cc_sched_round_axis(cc_schedule *s, int dim, int shift); /* round with vector shift*e_dim */
int cc_sched_entry(cc_schedule *s, int src, int dst, int lo, int hi, int moved);
int cc_sched_copy(cc_schedule *s, int src, int dst, int leaf);
int cc_sched_temp(cc_schedule *s, int like);                 /* returns new TEMP index or CC_ENOMEM */
int cc_sched_fold(cc_schedule *s, int src, int dst);          /* after the open phase */
void cc_sched_finish(cc_schedule *s);                        /* drops empty rounds and phases */

/* Classes of equal offset vectors (schedule_direct.c): cls[i] is the class
 * of block i (numbered by first occurrence, -1 for skipped blocks), first[c]
 * the first block of class c.  Returns the number of classes or CC_ENOMEM.
 * O(t*d) expected (hashing). */
int cc_vector_classes(const cc_nset *ns, int *cls, int *first);

/* Counting sort of the indices idx[0..n) by key[idx] in [0, nkeys):
 * stable; out must hold n ints. */
int cc_bucket_sort(const int *idx, int n, const int *key, int nkeys, int *out);

#endif

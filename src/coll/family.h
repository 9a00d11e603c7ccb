/* How a call with neighbourhood meaning is planned: one table of
 * operations per family of planning, one file each --
 *   plan_cart.c       Cartesian schedules (the six [core] collectives) and
 *                     the allreduce that gathers, then reduces;
 *   plan_allreduce.c  the allreduce: reduce on the way, gather, or per edge;
 *   rooted.c          bcast, gather, scatter, reduce along trees;
 *   plan_edges.c      one message per edge (graphs, barrier, rooted calls
 *                     without a tree).
 * A collective's descriptor (coll.h) names its entry family; the entry
 * family decides, under the choice asked for, which family plans the call
 * (cc_way: a rooted call without a tree goes per edge).  The pipeline
 * (nbh_run.c, nbh_plan.c) then takes the call's blocks from that family,
 * its candidates, and plans them one by one: planning a call is a loop
 * over candidates.  Internal to coll/; every function is local and
 * returns MPI_SUCCESS or an error code (not raised). */
#ifndef CC_COLL_FAMILY_H
#define CC_COLL_FAMILY_H

#include "coll/coll.h"
#include "choose/choose.h"
#include "exec/plan.h"
#include "topo/comm.h"

typedef struct cc_family cc_family;

/* Where a call goes under one choice: the family that plans it and its
 * decision there (the algorithm of a schedule of its own: a rooted call's
 * tree, the allreduce's on the way; else 0).  The same on every process
 * once the choice is. */
typedef struct cc_way {
    const cc_family *f;
    int how;
} cc_way;

struct cc_family {
    const char *name;
    /* Entry families (a descriptor's): the way call a goes under `want`. */
    int (*decide)(const char *who, const cc_call *a, cc_nbh *n, cc_choice want, cc_way *way);
    /* Entry families: whether a call may keep its plan in the plan cache
     * (beyond the pipeline's own conditions); NULL: never. */
    int (*cacheable)(const cc_call *a, const cc_nbh *n);
    /* The call's blocks, checked (cc_nbh_check_blocks). */
    int (*blocks)(const char *who, const cc_call *a, const cc_nbh *n, int how, cc_blocks **out);
    /* The candidates to plan, best first (one, but where the model and
     * the persistent tuning choose). */
    int (*candidates)(const char *who, const cc_call *a, cc_nbh *n, const cc_blocks *b, cc_choice want, int mode,
                      int cacheable, int how, cc_candidates *out);
    /* The plan of candidate c; made[0..nmade) are the call's plans so far
     * (a candidate of the same schedule shares their temporaries). */
    int (*plan)(const char *who, const cc_call *a, cc_nbh *n, MPI_Comm priv, int mode, int tag, int how, cc_choice c,
                cc_blocks *b, cc_plan *const *made, int nmade, cc_plan **out);
    int report; /* CARTCOLL_VERBOSE reports its candidates (the model's) */
};

extern const cc_family cc_family_cart, cc_family_gathered, cc_family_allreduce, cc_family_onway, cc_family_tree,
    cc_family_edges;

/* Shared by the families (nbh_plan.c). */
int cc_nbh_status(const char *who, int status);           /* a CC_E* planning status as an error code */
int cc_nbh_check_blocks(const char *who, const cc_call *a, const cc_nbh *n, const cc_blocks *b);
int cc_nbh_reduce_gathered(const char *who, cc_nbh *n, cc_plan *p); /* reduce the gathered operands at the end */
/* The caller's blocks in its own order, as one message per edge takes
 * them (plan_edges.c; also the allreduce on the way's), checked. */
int cc_nbh_edge_blocks(const char *who, const cc_call *a, const cc_nbh *n, int how, cc_blocks **out);
/* One candidate: the choice asked for, executor ex where it is auto. */
int cc_nbh_one(cc_choice want, int alg, int ex, cc_candidates *out);

#endif

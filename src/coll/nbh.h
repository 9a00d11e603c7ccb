/* Between the neighbourhood pipeline's run (nbh_run.c) and its planning
 * (nbh_plan.c, with the families of family.h): the run calls these, in
 * this order, for a checked call a (coll/check.c) on the neighbourhood n
 * of its communicator.  Internal to coll/; every function is local and
 * returns MPI_SUCCESS or an error code (not raised). */
#ifndef CC_COLL_NBH_H
#define CC_COLL_NBH_H

#include "coll/coll.h"
#include "coll/family.h"
#include "choose/choose.h"
#include "exec/plan.h"
#include "topo/comm.h"

/* The way call a goes under the choice `want` (its descriptor's entry
 * family decides: a schedule of its own, a tree, per edge).  Everything
 * it reads is the same on every process once want is. */
int cc_nbh_decide(const char *who, const cc_call *a, cc_nbh *n, cc_choice want, cc_way *way);

/* Whether call a may keep its plan in the plan cache. */
int cc_nbh_cacheable(const cc_call *a, const cc_nbh *n);

/* A call's blocks on its way, described once for checks, model and plans,
 * and checked (buffers, block sizes). */
int cc_nbh_describe(const char *who, const cc_call *a, const cc_nbh *n, cc_way way, cc_blocks **blocks);

/* Plan a call over its blocks: its way's candidates, one plan each; a
 * cacheable call's plan goes into the plan cache.  Non-persistent plans
 * get their tag later (cc_comm_tag), persistent ones use `tag`. */
int cc_nbh_plan_call(const char *who, const cc_call *a, cc_comm *cs, MPI_Comm priv, int mode, int cacheable,
                     cc_choice want, cc_way way, int tag, cc_blocks *blocks, cc_plan **plans, int *nplans);

/* Release plan p: back to the plan cache if it came from there, else
 * freed. */
void cc_nbh_plan_release(cc_comm *cs, cc_plan *p);

#endif

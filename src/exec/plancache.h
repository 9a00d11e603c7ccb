/* Plan cache: repeated blocking and non-blocking calls with the same
 * arguments reuse their plan instead of planning again.
 *
 * A plan binds buffer addresses, counts, displacements and datatypes.  It is
 * reused only when all of them are equal and every datatype is predefined: a
 * derived datatype's handle may be freed and reused for a different type, so
 * calls with derived types are planned each time (persistent requests are
 * the way to plan those once).  A cached plan serves one operation at a
 * time. */
#ifndef CC_PLANCACHE_H
#define CC_PLANCACHE_H

#include "bind/binding.h"
#include "topo/comm.h"
#include "exec/plan.h"

#define CC_PLAN_CACHE_SIZE 4

/* Whether a call may be cached: all its datatypes are predefined. */
int cc_plancache_eligible(const cc_call *a, int t);
/* The same for a regular bcast, gather, scatter or reduce: only the
 * datatypes significant at this process (`here`: it is the root), since
 * the others may be anything the user passed. */
int cc_plancache_eligible_rooted(const cc_call *a, int here);

/* A free cached plan for these arguments, now in use; NULL if none. */
cc_plan *cc_plancache_take(cc_comm *c, const cc_call *a);

/* Remember a new plan (now in use) made for `a`; returns 0 if the cache
 * did not take it (the caller keeps ownership). */
int cc_plancache_put(cc_comm *c, const cc_call *a, cc_plan *p);

/* The operation using p (a plan of c's cache) finished: p goes back to the
 * cache. */
void cc_plancache_release(cc_comm *c, cc_plan *p);

#endif

/* Which builder makes which schedule: the dispatch, kept apart from the
 * schedule container (schedule.c) that the builders fill, so that the
 * container does not depend on its users. */
#include "sched/schedule.h"

#include <stdlib.h>

typedef int (*builder)(const cc_nset *ns, cc_schedule *s);

static int build_direct_alltoall(const cc_nset *ns, cc_schedule *s) { return cc_build_direct(ns, CC_ALLTOALL, s); }
static int build_direct_allgather(const cc_nset *ns, cc_schedule *s) { return cc_build_direct(ns, CC_ALLGATHER, s); }

/* [algorithm][collective]; CC_AUTO is decided above this layer. */
static const builder builders[4][3] = {
    [CC_DIRECT] = { [CC_ALLTOALL] = build_direct_alltoall, [CC_ALLGATHER] = build_direct_allgather },
    [CC_COMBINING] = { [CC_ALLTOALL] = cc_build_combining_alltoall, [CC_ALLGATHER] = cc_build_combining_allgather },
    [CC_TORUS] = { [CC_ALLTOALL] = cc_build_torus_alltoall, [CC_ALLGATHER] = cc_build_torus_allgather },
};

int cc_schedule_build(const cc_nset *ns, int collective, int algorithm, cc_schedule **out)
{
    *out = NULL;
    builder b = algorithm >= 0 && algorithm < 4 && collective >= 0 && collective < 3 ? builders[algorithm][collective]
                                                                                     : NULL;
    /* Allreduce: only the forms that reduce on the way (DIRECT is the
     * allgather's, reduced at the end, above this layer). */
    if (collective == CC_ALLREDUCE)
        b = algorithm == CC_COMBINING ? cc_build_combining_allreduce
            : algorithm == CC_TORUS   ? cc_build_torus_allreduce
                                      : NULL;
    if (!b) return CC_ETOOBIG;
    cc_schedule *s = calloc(1, sizeof *s);
    if (!s) return CC_ENOMEM;
    int rc = cc_sched_begin(s, ns, collective, algorithm);
    if (!rc) rc = b(ns, s);
    if (rc) {
        cc_schedule_free(s);
        return rc;
    }
    cc_sched_finish(s);
    *out = s;
    return CC_OK;
}

/* DIRECT (seed 002 Listing 4): one phase, one round per non-zero neighbour,
 * block i sent straight from the send buffer to R + N[i]; zero vectors are
 * local copies. */
#include "schedule.h"

static int is_zero(const int *v, int d)
{
    for (int k = 0; k < d; k++)
        if (v[k]) return 0;
    return 1;
}

int cc_build_direct(const cc_nset *ns, int collective, cc_schedule *s)
{
    int rc = cc_sched_phase(s, 0);
    for (int i = 0; !rc && i < ns->t; i++) {
        if (ns->skip && ns->skip[i]) continue;
        const int *v = ns->offs + (size_t)i * ns->d;
        int src = CC_SLOT(CC_SLOT_SEND, collective == CC_ALLTOALL ? i : 0);
        if (is_zero(v, ns->d)) {
            rc = cc_sched_copy(s, src, CC_SLOT(CC_SLOT_RECV, i), i);
        } else {
            rc = cc_sched_round(s, v);
            if (!rc) rc = cc_sched_entry(s, src, CC_SLOT(CC_SLOT_RECV, i), i, i + 1, 0);
        }
    }
    return rc;
}

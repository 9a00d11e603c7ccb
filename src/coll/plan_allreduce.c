/* The allreduce with neighbourhood meaning (coll/family.h): on a
 * Cartesian neighbourhood it reduces on the way where it can (a schedule
 * of its own, chosen by cc_choose_allreduce: a commutative operation, a
 * box-shaped neighbourhood, and the model's verdict) and otherwise gathers
 * every operand with the allgather's schedules and reduces them at the end
 * (plan_cart.c's gathered family); on a graph it goes per edge. */
#include "coll/family.h"

#include "base/errors.h"
#include "exec/plancache.h"

static int allreduce_decide(const char *who, const cc_call *a, cc_nbh *n, cc_choice want, cc_way *way)
{
    int size = 0, st = CC_OK, onway = 0;
    *way = (cc_way){ &cc_family_edges, 0 };
    if (n->graph) return MPI_SUCCESS;
    if (MPI_Type_size(a->recvtype, &size) == MPI_SUCCESS)
        st = cc_choose_allreduce(n, a->op, (double)size * a->recvcount, want, &onway);
    if (st != CC_OK) return cc_nbh_status(who, st);
    *way = onway ? (cc_way){ &cc_family_onway, onway } : (cc_way){ &cc_family_gathered, 0 };
    return MPI_SUCCESS;
}

static int allreduce_cacheable(const cc_call *a, const cc_nbh *n) { return cc_plancache_eligible(a, n->t); }

const cc_family cc_family_allreduce = { "allreduce", allreduce_decide, allreduce_cacheable, NULL, NULL, NULL, 0 };

/* ---- reducing on the way ----------------------------------------------- */

/* One candidate: the schedule's algorithm; its messages are single blocks,
 * which the datatype executor sends as they are. */
static int onway_candidates(const char *who, const cc_call *a, cc_nbh *n, const cc_blocks *b, cc_choice want,
                            int mode, int cacheable, int how, cc_candidates *out)
{
    (void)who, (void)a, (void)n, (void)b, (void)mode, (void)cacheable;
    return cc_nbh_one(want, how, CC_EXEC_DATATYPE, out);
}

static int onway_plan(const char *who, const cc_call *a, cc_nbh *n, MPI_Comm priv, int mode, int tag, int how,
                      cc_choice c, cc_blocks *b, cc_plan *const *made, int nmade, cc_plan **out)
{
    (void)a, (void)made, (void)nmade;
    const cc_schedule *s;
    const cc_local *l;
    int st = cc_nbh_schedule(n, CC_ALLREDUCE, how, &s);
    if (st == CC_OK) st = cc_nbh_local(n, CC_ALLREDUCE, how, &l);
    if (st != CC_OK) return cc_nbh_status(who, st);
    int rc = cc_plan_create(out, s, l, b, how, c.executor, mode == CC_MODE_PERSISTENT, priv, tag);
    return rc == MPI_SUCCESS ? rc : cc_error_mpi_code(rc, who);
}

/* (its blocks are the caller's, one send and one receive block: as per edge) */
const cc_family cc_family_onway = { "on the way", NULL, NULL, cc_nbh_edge_blocks, onway_candidates, onway_plan, 0 };

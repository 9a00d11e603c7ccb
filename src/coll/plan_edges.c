/* The family of one message per edge (coll/family.h): the per-edge
 * schedules of sched/schedule_edges.h for every collective with
 * neighbourhood meaning that has no schedule of its own here -- the
 * barrier, rooted calls without a tree, the allreduce on graphs.  Its
 * schedule and local plan depend on the root, so the plan owns them; the
 * blocks are the caller's, in its own order. */
#include "coll/family.h"

#include "base/errors.h"

static int edges_decide(const char *who, const cc_call *a, cc_nbh *n, cc_choice want, cc_way *way)
{
    (void)who, (void)a, (void)n, (void)want;
    *way = (cc_way){ &cc_family_edges, 0 };
    return MPI_SUCCESS;
}

/* (coll/family.h) Which sides are significant depends on the root. */
int cc_nbh_edge_blocks(const char *who, const cc_call *a, const cc_nbh *n, int how, cc_blocks **out)
{
    (void)how;
    int here = a->root == n->rank, nsend = 1, nrecv = 1, c = a->collective;
    if (c == CC_BCAST || c == CC_SCATTER) nsend = here ? cc_call_nsend(a, cc_nbh_nsendblocks(n)) : 0;
    if (c == CC_GATHER && here && a->in_place) nsend = 0;
    if (c == CC_BCAST) nrecv = !here;
    if (c == CC_GATHER || c == CC_REDUCE) nrecv = here ? cc_call_nrecv(a, cc_nbh_nrecvblocks(n)) : 0;
    if (c == CC_SCATTER && here && a->in_place) nrecv = 0;
    int rc = cc_blocks_new(a, nsend, nrecv, NULL, NULL, out);
    if (rc != MPI_SUCCESS) return cc_error_mpi_code(rc, who);
    return cc_nbh_check_blocks(who, a, n, *out);
}

/* One candidate: DIRECT, each message one block as it is. */
static int edges_candidates(const char *who, const cc_call *a, cc_nbh *n, const cc_blocks *b, cc_choice want,
                            int mode, int cacheable, int how, cc_candidates *out)
{
    (void)who, (void)a, (void)n, (void)b, (void)mode, (void)cacheable, (void)how;
    out->n = 1;
    out->c[0] = want;
    out->c[0].algorithm = CC_DIRECT;
    out->c[0].executor = CC_EXEC_DATATYPE;
    return MPI_SUCCESS;
}

static int edges_plan(const char *who, const cc_call *a, cc_nbh *n, MPI_Comm priv, int mode, int tag, int how,
                      cc_choice c, cc_blocks *b, cc_plan *const *made, int nmade, cc_plan **out)
{
    (void)how, (void)made, (void)nmade;
    cc_edges e;
    cc_schedule *s = NULL;
    cc_local *l = NULL;
    int st = cc_nbh_edges(n, &e);
    if (st == CC_OK) st = cc_schedule_edges(a->collective, &e, a->root, a->in_place, &s, &l);
    if (st != CC_OK) return cc_nbh_status(who, st);
    int rc = cc_plan_create(out, s, l, b, c.algorithm, c.executor, mode == CC_MODE_PERSISTENT, priv, tag);
    if (rc != MPI_SUCCESS) {
        cc_schedule_free(s);
        cc_local_free(l);
        return cc_error_mpi_code(rc, who);
    }
    (*out)->own_sched = s;
    (*out)->own_local = l;
    return MPI_SUCCESS;
}

const cc_family cc_family_edges = { "per edge", edges_decide, NULL, cc_nbh_edge_blocks, edges_candidates, edges_plan, 0 };

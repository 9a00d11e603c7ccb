/* The neighbourhood pipeline's run (coll/coll.h: cc_nbh_run): every
 * collective with neighbourhood meaning in blocking, non-blocking and
 * persistent form.  The entry points (api/entry_points.gen.c, made by
 * maint/gen.py) describe their call in a cc_call and call the front
 * (api/front.c); neighbor.c checks it and describes it as blocks; here it
 * is planned (nbh_plan.c) and run: without a request (blocking), as a
 * transient request, or as a persistent one whose processes agree on the
 * choice and the tags. */
#include "cartcoll.h"

#include "coll/coll.h"
#include "coll/nbh.h"
#include "base/errors.h"
#include "choose/choose.h"
#include "exec/plan.h"
#include "exec/plancache.h"
#include "req/agree.h"
#include "req/request.h"
#include "topo/comm.h"
#include "topo/kind.h"

_Static_assert(CC_ALLGATHER == CART_ALLGATHER && CC_ALLTOALL == CART_ALLTOALL, "collective codes");
_Static_assert(CC_DIRECT == CART_ALGORITHM_DIRECT && CC_COMBINING == CART_ALGORITHM_COMBINING &&
               CC_TORUS == CART_ALGORITHM_TORUS && CC_AUTO == CART_ALGORITHM_AUTO, "algorithm codes");

/* A blocking call runs its plan here, without a request; while it waits it
 * advances the caller's other active requests (MPI's progress rule). */
static int run_blocking(MPI_Comm comm, cc_comm *cs, const char *who, cc_plan *p, int reused)
{
    int done = 0, rc = reused ? cc_plan_start_reused(p) : cc_plan_start(p);
    while (rc == MPI_SUCCESS) {
        rc = cc_plan_test(p, &done);
        if (rc != MPI_SUCCESS || done) break;
        if (cc_progress_others(NULL) == 0) rc = cc_plan_wait_phase(p);
    }
    cc_nbh_plan_release(cs, p);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : cc_error_mpi(comm, rc, who);
}

/* Blocking and non-blocking calls: every check is local and a failed call
 * takes no tag, so processes that fail differently stay in step. */
static int transient(const char *who, const cc_call *a, MPI_Comm comm, cc_comm *cs, MPI_Comm priv, int mode,
                     Cart_request *request)
{
    cc_plan *plans[CC_MAX_CANDIDATES];
    int nplans = 0, cacheable = 0;
    cc_way way;
    int rc = cc_nbh_decide(who, a, cs->nbh, cs->nbh->defaults, &way);
    if (rc == MPI_SUCCESS) cacheable = cc_nbh_cacheable(a, cs->nbh);
    /* A repeated call reuses its plan (a cache hit had identical arguments,
     * checked before). */
    int hit = 0;
    if (rc == MPI_SUCCESS && cacheable && (plans[0] = cc_plancache_take(cs, a)) != NULL) {
        nplans = 1;
        hit = 1;
    } else if (rc == MPI_SUCCESS) {
        cc_blocks *blocks;
        rc = cc_nbh_describe(who, a, cs->nbh, way, &blocks);
        if (rc == MPI_SUCCESS) {
            rc = cc_nbh_plan_call(who, a, cs, priv, mode, cacheable, cs->nbh->defaults, way, 0, blocks, plans,
                                  &nplans);
            cc_blocks_release(blocks);
        }
    }
    if (rc != MPI_SUCCESS) return cc_error_raise(comm, rc);
    if (mode == CC_MODE_BLOCKING) {
        /* one tag for every blocking call (topo/comm.h), so that a cached
         * plan keeps persistent requests for them */
        plans[0]->tag = CC_TAG_BLOCKING;
        return run_blocking(comm, cs, who, plans[0], hit);
    }
    Cart_request r;
    rc = cc_request_new(&r, cs, comm, who, 0, plans, nplans, -1);
    if (rc != MPI_SUCCESS) {
        cc_nbh_plan_release(cs, plans[0]);
        return cc_error_mpi(comm, rc, who);
    }
    plans[0]->tag = cc_comm_tag(cs);
    rc = cc_request_start(r);
    if (rc != MPI_SUCCESS) {
        cc_request_destroy(r);
        return cc_error_mpi(comm, rc, who);
    }
    cc_progress_add(r);
    *request = r;
    return MPI_SUCCESS;
}

/* Persistent *_init: the processes agree (one small reduction) on success,
 * on the algorithm and executor asked for, and on a tag pair no live request
 * of any of them holds.  A failure anywhere fails the call everywhere. */
static int persistent(const char *who, const cc_call *a, MPI_Comm comm, cc_comm *cs, MPI_Comm priv, MPI_Info info,
                      Cart_request *request, int checked)
{
    cc_choice want = cs->nbh->defaults;
    int rc = checked;
    if (rc == MPI_SUCCESS) rc = cc_options_info(info, &want, who);
    cc_blocks *blocks = NULL;
    cc_way way, local = { NULL, 0 };
    if (rc == MPI_SUCCESS) rc = cc_nbh_decide(who, a, cs->nbh, want, &local);
    if (rc == MPI_SUCCESS) rc = cc_nbh_describe(who, a, cs->nbh, local, &blocks);
    int root = (a->coll->flags & CC_F_ROOT) ? a->root : -1;
    int tag = -1, agreed = cc_agree_init(cs, priv, who, rc, &want, root, &tag);
    if (agreed != MPI_SUCCESS) {
        cc_blocks_release(blocks);
        return cc_error_raise(comm, agreed);
    }
    if (want.async) cc_progress_async_start();
    /* The agreed choice may differ from this process's own (an allreduce
     * that gathers instead of reducing on the way, a rooted call without
     * its tree, or the other way round): then the blocks do too. */
    rc = cc_nbh_decide(who, a, cs->nbh, want, &way);
    if (rc == MPI_SUCCESS && (way.f != local.f || way.how != local.how)) {
        cc_blocks_release(blocks);
        blocks = NULL;
        rc = cc_nbh_describe(who, a, cs->nbh, way, &blocks);
    }
    cc_plan *plans[CC_MAX_CANDIDATES];
    int nplans = 0;
    if (rc == MPI_SUCCESS)
        rc = cc_nbh_plan_call(who, a, cs, priv, CC_MODE_PERSISTENT, 0, want, way, tag, blocks, plans, &nplans);
    cc_blocks_release(blocks);
    Cart_request r = CART_REQUEST_NULL;
    if (rc == MPI_SUCCESS && (rc = cc_request_new(&r, cs, comm, who, 1, plans, nplans, tag)) != MPI_SUCCESS) {
        for (int i = 0; i < nplans; i++) cc_nbh_plan_release(cs, plans[i]);
        rc = cc_error_mpi_code(rc, who);
    }
    if (rc != MPI_SUCCESS) return cc_error_raise(comm, rc);
    *request = r;
    return MPI_SUCCESS;
}

int cc_nbh_run(const char *who, const cc_call *a, MPI_Comm comm, cc_comm *cs, int mode, MPI_Info info,
               Cart_request *request, int checked)
{
    MPI_Comm priv;
    int rc = cc_comm_ready(cs, who, &priv);
    if (rc != MPI_SUCCESS) return cc_error_raise(comm, rc);
    if (mode == CC_MODE_PERSISTENT) return persistent(who, a, comm, cs, priv, info, request, checked);
    return transient(who, a, comm, cs, priv, mode, request);
}

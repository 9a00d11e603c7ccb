/* The family of Cartesian schedules (coll/family.h): the six [core]
 * collectives, and the allreduce that gathers every operand with the
 * allgather's schedules and reduces them in neighbour order after the
 * last phase.  Its candidates are the model's (choose/choose.h: DIRECT,
 * COMBINING, TORUS with an executor each; several where a persistent call
 * times them); candidates of one schedule share their temporaries. */
#include "coll/family.h"

#include "base/errors.h"
#include "exec/plancache.h"

/* ---- the six [core] collectives ---------------------------------------- */

static int cart_decide(const char *who, const cc_call *a, cc_nbh *n, cc_choice want, cc_way *way)
{
    (void)who, (void)a, (void)n, (void)want;
    *way = (cc_way){ &cc_family_cart, 0 };
    return MPI_SUCCESS;
}

static int cart_cacheable(const cc_call *a, const cc_nbh *n) { return cc_plancache_eligible(a, n->t); }

static int cart_blocks(const char *who, const cc_call *a, const cc_nbh *n, int how, cc_blocks **out)
{
    (void)how;
    int rc = cc_blocks_new(a, cc_call_nsend(a, n->graph ? n->outdeg : n->t), n->t, n->sperm, n->rperm, out);
    if (rc != MPI_SUCCESS) return cc_error_mpi_code(rc, who);
    return cc_nbh_check_blocks(who, a, n, *out);
}

/* The model's candidates for the schedules of `coll`. */
static int candidates_of(const char *who, int coll, const cc_call *a, cc_nbh *n, const cc_blocks *b, cc_choice want,
                         int mode, int cacheable, cc_candidates *out)
{
    /* Detected graphs and MPI_Cart_create communicators have MPI's meaning,
     * where block sizes agree per edge only: the v and w variants go
     * straight (DIRECT keeps every block on its own edge). */
    if (n->ragged && a->variant != CC_REGULAR) want.algorithm = CC_DIRECT;
    int persistent = mode == CC_MODE_PERSISTENT;
    int st = cc_choose(n, coll, b->recv, want, persistent, persistent || cacheable, out);
    return st == CC_OK ? MPI_SUCCESS : cc_nbh_status(who, st);
}

static int cart_candidates(const char *who, const cc_call *a, cc_nbh *n, const cc_blocks *b, cc_choice want,
                           int mode, int cacheable, int how, cc_candidates *out)
{
    (void)how;
    return candidates_of(who, a->collective, a, n, b, want, mode, cacheable, out);
}

/* The plan of candidate c on the schedules of `coll`. */
static int plan_of(const char *who, int coll, cc_nbh *n, MPI_Comm priv, int mode, int tag, cc_choice c,
                   cc_blocks *b, cc_plan *const *made, int nmade, cc_plan **out)
{
    const cc_schedule *s;
    const cc_local *l;
    int st = cc_nbh_schedule(n, coll, c.algorithm, &s);
    if (st == CC_OK) st = cc_nbh_local(n, coll, c.algorithm, &l);
    if (st != CC_OK) return cc_nbh_status(who, st);
    /* Candidates of one algorithm share their temporaries (one runs at a
     * time; set-up time and memory). */
    const cc_plan *like = NULL;
    for (int j = 0; j < nmade && !like; j++)
        if (made[j]->sched == s && made[j]->local == l) like = made[j];
    int rc = cc_plan_create_like(out, s, l, b, c.algorithm, c.executor, mode == CC_MODE_PERSISTENT, priv, tag, like);
    return rc == MPI_SUCCESS ? rc : cc_error_mpi_code(rc, who);
}

static int cart_plan(const char *who, const cc_call *a, cc_nbh *n, MPI_Comm priv, int mode, int tag, int how,
                     cc_choice c, cc_blocks *b, cc_plan *const *made, int nmade, cc_plan **out)
{
    (void)how;
    return plan_of(who, a->collective, n, priv, mode, tag, c, b, made, nmade, out);
}

const cc_family cc_family_cart = { "cartesian", cart_decide, cart_cacheable, cart_blocks, cart_candidates,
                                   cart_plan, 1 };

/* ---- the allreduce that gathers, then reduces -------------------------- */

static int gathered_blocks(const char *who, const cc_call *a, const cc_nbh *n, int how, cc_blocks **out)
{
    (void)how;
    int rc = cc_blocks_new_gathered(a, n->t, out);
    if (rc != MPI_SUCCESS) return cc_error_mpi_code(rc, who);
    return cc_nbh_check_blocks(who, a, n, *out);
}

static int gathered_candidates(const char *who, const cc_call *a, cc_nbh *n, const cc_blocks *b, cc_choice want,
                               int mode, int cacheable, int how, cc_candidates *out)
{
    (void)how;
    return candidates_of(who, CC_ALLGATHER, a, n, b, want, mode, cacheable, out);
}

static int gathered_plan(const char *who, const cc_call *a, cc_nbh *n, MPI_Comm priv, int mode, int tag, int how,
                         cc_choice c, cc_blocks *b, cc_plan *const *made, int nmade, cc_plan **out)
{
    (void)a, (void)how;
    int rc = plan_of(who, CC_ALLGATHER, n, priv, mode, tag, c, b, made, nmade, out);
    if (rc == MPI_SUCCESS && (rc = cc_nbh_reduce_gathered(who, n, *out)) != MPI_SUCCESS) cc_plan_free(*out);
    return rc;
}

const cc_family cc_family_gathered = { "gathered", NULL, NULL, gathered_blocks, gathered_candidates, gathered_plan,
                                       1 };

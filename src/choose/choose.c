/* The cost model of a schedule and the candidates a call plans (see
 * choose.h); the model's parameters come from calibrate.c. */
#include "choose/choose.h"

#include "base/errors.h"
#include "base/mpi_compat.h"
#include "sched/schedule_cost.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Local reductions (MPI_Reduce_local), per byte of operand: a few GB/s. */
#define CC_FOLD_COST 3e-10

typedef cc_cost_figs figs;

static double figs_cost(const cc_nbh *n, const figs *f, int collective, int pack)
{
    return cc_cost(&n->model, f, collective, pack);
}

static double model(const cc_nbh *n, const cc_schedule *s, double moved, int collective, int pack)
{
    figs f = { s->nphases, s->nrounds, s->nentries + s->ncopies, moved };
    return figs_cost(n, &f, collective, pack);
}

static double moved_bytes(const cc_schedule *s, const cc_blk *recv)
{
    double moved = 0;
    for (int e = 0; e < s->nentries; e++) moved += (double)recv[s->perm[s->entries[e].lo]].bytes;
    for (int c = 0; c < s->ncopies; c++) moved += (double)recv[s->copies[c].leaf].bytes;
    return moved;
}

double cc_model_cost(const cc_nbh *n, const cc_schedule *s, const cc_blk *recv)
{
    return model(n, s, moved_bytes(s, recv), s->collective, 0);
}

/* Whether every receive block that a schedule can carry (not unreachable)
 * has the same size, *bytes. */
static int uniform_bytes(const cc_nbh *n, const cc_blk *recv, double *bytes)
{
    int any = 0;
    for (int i = 0; i < n->t; i++) {
        if (n->unreachable && n->unreachable[i]) continue;
        if (any && (double)recv[i].bytes != *bytes) return 0;
        *bytes = (double)recv[i].bytes;
        any = 1;
    }
    if (!any) *bytes = 0;
    return 1;
}

/* Counts of this size cannot fail to build for size (schedule.c refuses
 * tables of 2^30 entries and more): price them without building. */
#define CC_COUNTS_MAX (1LL << 28)

/* A candidate's figures.  Where its blocks are all of one size they come
 * from the counts (cc_nbh_counts: no schedule built, set-up time), equal to
 * the built schedule's: moved is then a sum of equal integers, exact in a
 * double either way.  Otherwise the schedule is built and summed; so is
 * DIRECT's, which is planned wherever the model leaves it a chance and
 * whose counts cost as much as building it.  Returns CC_OK or the status
 * of building. */
static int figures(cc_nbh *n, int collective, int alg, const cc_blk *recv, figs *f)
{
    cc_sched_counts c;
    double b = 0;
    if (alg != CC_DIRECT && uniform_bytes(n, recv, &b) && cc_nbh_counts(n, collective, alg, &c) == CC_OK &&
        c.entries < CC_COUNTS_MAX &&
        c.copies < CC_COUNTS_MAX && c.rounds < CC_COUNTS_MAX) {
        long long blocks = c.entries + c.copies;
        *f = (figs){ (double)c.phases, (double)c.rounds, (double)blocks, b * (double)blocks };
        return CC_OK;
    }
    const cc_schedule *s;
    int rc = cc_nbh_schedule(n, collective, alg, &s);
    if (rc != CC_OK) return rc;
    *f = (figs){ s->nphases, s->nrounds, s->nentries + s->ncopies, moved_bytes(s, recv) };
    return CC_OK;
}

/* Whether a schedule with figures a costs no more than one with b in every
 * term of the model (phases, rounds, bytes, blocks), so b cannot win for
 * any parameters.  The figures are global, so every process decides alike
 * (tuning needs the same candidates everywhere). */
static int dominates(const figs *a, const figs *b)
{
    return a->phases <= b->phases && a->rounds <= b->rounds && a->blocks <= b->blocks && a->moved <= b->moved;
}

/* The executor of a DIRECT plan that is reused (persistent or cached):
 * pack for small combined messages, else the datatype executor
 * (cc_cost_direct_packs). */
static int direct_executor(cc_nbh *n, int collective, const cc_blk *recv)
{
    const cc_schedule *s;
    /* one block per message: both executors send it as it is */
    if (collective != CC_ALLTOALL || cc_nbh_schedule(n, collective, CC_DIRECT, &s) != CC_OK) return CC_EXEC_DATATYPE;
    double bytes = 0;
    for (int e = 0; e < s->nentries; e++) bytes += (double)recv[s->perm[s->entries[e].lo]].bytes;
    return cc_cost_direct_packs(s->nentries, s->nrounds, bytes) ? CC_EXEC_PACK : CC_EXEC_DATATYPE;
}

int cc_choose_allreduce(cc_nbh *n, MPI_Op op, double bytes, cc_choice want, int *onway)
{
    int commute = 0;
    *onway = 0;
    if (n->graph || want.algorithm == CC_DIRECT || MPI_Op_commutative(op, &commute) != MPI_SUCCESS || !commute)
        return CC_OK;
    int alg = want.algorithm == CC_AUTO ? CC_COMBINING : want.algorithm;
    const cc_schedule *s, *g;
    int rc = cc_nbh_schedule(n, CC_ALLREDUCE, alg, &s);
    if (rc == CC_ETOOBIG) return CC_OK; /* not a box */
    if (rc != CC_OK) return rc;
    if (want.algorithm == CC_AUTO) {
        /* against one message per neighbour and t - 1 reductions at the end */
        if ((rc = cc_nbh_schedule(n, CC_ALLGATHER, CC_DIRECT, &g)) != CC_OK) return rc;
        double there =
            model(n, s, bytes * (s->nentries + s->ncopies), CC_ALLREDUCE, 0) + s->nfolds * bytes * CC_FOLD_COST;
        double gathered =
            model(n, g, bytes * (g->nentries + g->ncopies), CC_ALLGATHER, 0) + (n->t - 1) * bytes * CC_FOLD_COST;
        if (!cc_cost_clearly_cheaper(there, gathered)) return CC_OK;
    }
    *onway = alg;
    return CC_OK;
}

/* The executor a plan of `alg` runs with where it is not timed: asked
 * for, else pack for plans made for a single call, else by DIRECT's
 * message sizes, else zero-copy. */
static int executor_of(cc_nbh *n, int collective, const cc_blk *recv, cc_choice want, int alg, int reused)
{
    return want.executor != CC_EXEC_AUTO ? want.executor
           : !reused                     ? CC_EXEC_PACK
           : alg == CC_DIRECT            ? direct_executor(n, collective, recv)
                                         : CC_EXEC_DATATYPE;
}

/* The algorithms worth planning under the model, best first, in algs
 * (*nalg of them): all within 3x of the best for persistent operations
 * (they time them), else the one a blocking call runs. */
static int rank_auto(cc_nbh *n, int collective, const cc_blk *recv, cc_choice want, int persistent, int reused,
                     int algs[], int *nalg)
{
    /* TORUS is not a candidate: under this model (direct messages along
     * a dimension cost the same at any distance) it never beats
     * COMBINING, which has no more phases (sum_k max(P_k,M_k) >= the
     * dimensions used), rounds (D >= sum_k C_k) or volume (|N|_1 >= z).
     * It is for networks where only neighbour links are cheap: force
     * it there.  Priced from counts, not built: only the plans made are
     * (set-up time). */
    double cost[CC_COMBINING + 1] = { 0 };
    figs f[CC_COMBINING + 1];
    int have_direct = 0;
    *nalg = 0;
    for (int alg = CC_DIRECT; alg <= CC_COMBINING; alg++) {
        /* DIRECT without rounds (every vector zero: one process per
         * periodic dimension) copies each block once; any schedule
         * does at least that, so it dominates unpriced. */
        if (alg != CC_DIRECT && have_direct && f[CC_DIRECT].rounds == 0) continue;
        int rc = figures(n, collective, alg, recv, &f[alg]);
        if (rc == CC_ENOMEM) return rc;
        if (rc != CC_OK) continue; /* e.g. too large: not a candidate */
        if (alg == CC_DIRECT) have_direct = 1;
        /* Not worth timing (nor planning: set-up time) where DIRECT is
         * no worse in any term, e.g. on grids of 1 or 2 processes. */
        else if (have_direct && dominates(&f[CC_DIRECT], &f[alg])) continue;
        int pack = executor_of(n, collective, recv, want, alg, reused) == CC_EXEC_PACK;
        cost[alg] = figs_cost(n, &f[alg], collective, pack);
        int j = (*nalg)++;
        while (j > 0 && cost[algs[j - 1]] > cost[alg]) { algs[j] = algs[j - 1]; j--; }
        algs[j] = alg;
    }
    if (*nalg == 0) return CC_ENOMEM;
    /* One message per neighbour unless another plan is clearly cheaper
     * (sched/schedule_cost.h): the lower worst case, and never more
     * messages' worth of waiting than MPI_Neighbor_*. */
    if (have_direct && algs[0] != CC_DIRECT && !cc_cost_clearly_cheaper(cost[algs[0]], cost[CC_DIRECT])) {
        int j = 0;
        while (algs[j] != CC_DIRECT) j++;
        for (; j > 0; j--) algs[j] = algs[j - 1];
        algs[0] = CC_DIRECT;
    }
    /* Only persistent operations time candidates; keep those the model
     * gives a fair chance. */
    int keep = 1;
    while (persistent && keep < *nalg && cost[algs[keep]] <= 3 * cost[algs[0]]) keep++;
    *nalg = keep;
    return CC_OK;
}

/* Whether DIRECT's messages carry several blocks (an alltoall whose peers
 * repeat: small grids), so that its executors differ.  Global (the
 * schedule alone), as the candidates must be. */
static int direct_combines(cc_nbh *n, int collective)
{
    const cc_schedule *s;
    return collective == CC_ALLTOALL && cc_nbh_schedule(n, collective, CC_DIRECT, &s) == CC_OK &&
           s->nentries > s->nrounds;
}

int cc_choose(cc_nbh *n, int collective, const cc_blk *recv, cc_choice want, int persistent, int reused,
              cc_candidates *out)
{
    int algs[CC_COMBINING + 1], nalg = 0;
    if (n->graph) { /* one message per edge: nothing to choose */
        out->n = 1;
        out->c[0] = (cc_choice){ CC_DIRECT, want.executor != CC_EXEC_AUTO ? want.executor : CC_EXEC_DATATYPE, 0 };
        return CC_OK;
    }
    if (want.algorithm != CC_AUTO) {
        algs[nalg++] = want.algorithm;
    } else {
        int rc = rank_auto(n, collective, recv, want, persistent, reused, algs, &nalg);
        if (rc != CC_OK) return rc;
    }
    out->n = 0;
    for (int i = 0; i < nalg; i++) {
        int alg = algs[i];
        if (want.executor != CC_EXEC_AUTO || !persistent || (alg == CC_DIRECT && !direct_combines(n, collective))) {
            out->c[out->n++] = (cc_choice){ alg, executor_of(n, collective, recv, want, alg, reused), 0 };
        } else if (alg == CC_DIRECT) {
            /* The executor its message sizes suggest first (the one a
             * blocking call runs), then the other: which moves the blocks
             * faster is the machine's (16 cores, m = 100: the datatype
             * executor 1.56x the floor, docs/performance.md).  With
             * irregular block sizes the first may differ between
             * processes; the executors interoperate, so each process runs
             * its own plan of the agreed index. */
            int first = executor_of(n, collective, recv, want, alg, reused);
            out->c[out->n++] = (cc_choice){ alg, first, 0 };
            if (out->n < CC_MAX_CANDIDATES)
                out->c[out->n++] = (cc_choice){ alg, first == CC_EXEC_PACK ? CC_EXEC_DATATYPE : CC_EXEC_PACK, 0 };
        } else {
            out->c[out->n++] = (cc_choice){ alg, CC_EXEC_DATATYPE, 0 };
            if (out->n < CC_MAX_CANDIDATES) out->c[out->n++] = (cc_choice){ alg, CC_EXEC_PACK, 0 };
        }
        if (out->n >= CC_MAX_CANDIDATES) break;
    }
    return CC_OK;
}

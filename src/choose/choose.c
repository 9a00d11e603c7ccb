/* The cost model of a schedule and the candidates a call plans (see
 * choose.h); the model's parameters come from calibrate.c. */
#include "choose/choose.h"

#include "base/errors.h"
#include "base/mpi_compat.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Per-block handling (packing, datatype engine) that the alpha-beta model
 * leaves out; keeps huge block counts from looking free. */
#define CC_BLOCK_COST 5e-9

/* Local reductions (MPI_Reduce_local), per byte of operand: a few GB/s. */
#define CC_FOLD_COST 3e-10

static double model(const cc_nbh *n, const cc_schedule *s, double moved)
{
    return s->nphases * n->alpha + s->nrounds * n->overhead + moved * n->beta +
           (s->nentries + s->ncopies) * CC_BLOCK_COST;
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
    return model(n, s, moved_bytes(s, recv));
}

/* Whether schedule a costs no more than b in every term of the model
 * (phases, rounds, bytes, blocks), so b cannot win for any parameters.
 * The figures are global, so every process decides alike (tuning needs
 * the same candidates everywhere). */
static int dominates(const cc_schedule *a, const cc_schedule *b, const cc_blk *recv)
{
    return a->nphases <= b->nphases && a->nrounds <= b->nrounds &&
           a->nentries + a->ncopies <= b->nentries + b->ncopies && moved_bytes(a, recv) <= moved_bytes(b, recv);
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
        double there = model(n, s, bytes * (s->nentries + s->ncopies)) + s->nfolds * bytes * CC_FOLD_COST;
        double gathered = model(n, g, bytes * (g->nentries + g->ncopies)) + (n->t - 1) * bytes * CC_FOLD_COST;
        if (gathered < there) return CC_OK;
    }
    *onway = alg;
    return CC_OK;
}

int cc_choose(cc_nbh *n, int collective, const cc_blk *recv, cc_choice want, int persistent, int reused,
              cc_candidates *out)
{
    double cost[4] = { 0 };
    int algs[2], nalg = 0;
    if (n->graph) { /* one message per edge: nothing to choose */
        out->n = 1;
        out->c[0] = (cc_choice){ CC_DIRECT, want.executor != CC_EXEC_AUTO ? want.executor : CC_EXEC_DATATYPE, 0 };
        return CC_OK;
    }
    if (want.algorithm != CC_AUTO) {
        algs[nalg++] = want.algorithm;
    } else {
        /* TORUS is not a candidate: under this model (direct messages along
         * a dimension cost the same at any distance) it never beats
         * COMBINING, which has no more phases (sum_k max(P_k,M_k) >= the
         * dimensions used), rounds (D >= sum_k C_k) or volume (|N|_1 >= z).
         * It is for networks where only neighbour links are cheap: force
         * it there. */
        const cc_schedule *direct = NULL;
        for (int alg = CC_DIRECT; alg <= CC_COMBINING; alg++) {
            const cc_schedule *s;
            int rc = cc_nbh_schedule(n, collective, alg, &s);
            if (rc == CC_ENOMEM) return rc;
            if (rc != CC_OK) continue; /* e.g. too large: not a candidate */
            if (alg == CC_DIRECT) direct = s;
            /* Not worth timing (nor planning: set-up time) where DIRECT is
             * no worse in any term, e.g. on grids of 1 or 2 processes. */
            else if (direct && dominates(direct, s, recv)) continue;
            cost[alg] = cc_model_cost(n, s, recv);
            int j = nalg++;
            while (j > 0 && cost[algs[j - 1]] > cost[alg]) { algs[j] = algs[j - 1]; j--; }
            algs[j] = alg;
        }
        if (nalg == 0) return CC_ENOMEM;
        /* Only persistent operations time candidates; keep those the model
         * gives a fair chance. */
        int keep = 1;
        while (persistent && keep < nalg && cost[algs[keep]] <= 3 * cost[algs[0]]) keep++;
        nalg = keep;
    }
    out->n = 0;
    for (int i = 0; i < nalg; i++) {
        int alg = algs[i];
        if (want.executor != CC_EXEC_AUTO || alg == CC_DIRECT || !persistent) {
            /* DIRECT messages are the same under both executors. */
            int ex = want.executor != CC_EXEC_AUTO ? want.executor : reused ? CC_EXEC_DATATYPE : CC_EXEC_PACK;
            out->c[out->n++] = (cc_choice){ alg, ex, 0 };
        } else {
            out->c[out->n++] = (cc_choice){ alg, CC_EXEC_DATATYPE, 0 };
            if (out->n < CC_MAX_CANDIDATES) out->c[out->n++] = (cc_choice){ alg, CC_EXEC_PACK, 0 };
        }
        if (out->n >= CC_MAX_CANDIDATES) break;
    }
    return CC_OK;
}

#include "req/agree.h"

#include "base/errors.h"
#include "req/request.h"

#include <limits.h>

int cc_comm_ready(cc_comm *cs, const char *who, MPI_Comm *priv)
{
    int rc = cc_comm_finish_dup(cs, cc_progress_wait);
    if (rc != MPI_SUCCESS) return cc_error_mpi_code(rc, who);
    *priv = cs->priv;
    return MPI_SUCCESS;
}

enum { A_ERR, A_ALG, A_NALG, A_EXEC, A_NEXEC, A_ROOT, A_NROOT, A_BUSY, A_N = A_BUSY + CC_TAG_WINDOW };

int cc_agree_init(cc_comm *cs, MPI_Comm priv, const char *who, int local, const cc_choice *want, int root, int *tag)
{
    long long v[A_N], r[A_N];
    int busy[CC_TAG_WINDOW], rc, searched = 0;
    /* A failed process takes no part in the comparison of choices. */
    v[A_ERR] = local != MPI_SUCCESS;
    v[A_ALG] = local ? LLONG_MIN : want->algorithm;
    v[A_NALG] = local ? LLONG_MIN : -want->algorithm;
    v[A_EXEC] = local ? LLONG_MIN : want->executor;
    v[A_NEXEC] = local ? LLONG_MIN : -want->executor;
    v[A_ROOT] = local ? LLONG_MIN : root;
    v[A_NROOT] = local ? LLONG_MIN : -root;
    cc_comm_finish_copies(cs); /* before a non-blocking collective on priv */
    for (;;) {
        cc_comm_busy_pairs(cs, busy);
        for (int j = 0; j < CC_TAG_WINDOW; j++) v[A_BUSY + j] = busy[j];
#ifndef CARTCOLL_SLOW_NBC
        MPI_Request rq;
        rc = MPI_Iallreduce(v, r, A_N, MPI_LONG_LONG, MPI_MAX, priv, &rq);
        if (rc == MPI_SUCCESS) rc = cc_progress_wait(&rq);
#else
        /* SimGrid SMPI 3.32's MPI_Iallreduce sends from every process to
         * every other (p^2 messages: hours at 1152 simulated processes);
         * its blocking one has tree algorithms.  Other requests do not
         * progress meanwhile. */
        rc = MPI_Allreduce(v, r, A_N, MPI_LONG_LONG, MPI_MAX, priv);
#endif
        if (rc != MPI_SUCCESS) return cc_error_mpi_code(rc, who);
        for (int j = 0; j < CC_TAG_WINDOW; j++) busy[j] = (int)r[A_BUSY + j];
        /* Every process saw the same maxima: the pair search moves in step
         * whether or not the call succeeds. */
        *tag = cc_comm_take_pair(cs, busy);
        if (local != MPI_SUCCESS) return local;
        if (r[A_ERR])
            return cc_error_code(MPI_ERR_ARG, "%s: another process passed invalid arguments (see its error); no "
                                 "process made the request", who);
        if (r[A_ROOT] != -r[A_NROOT])
            return cc_error_code(MPI_ERR_ROOT, "%s: the processes gave different roots (%lld and %lld at least); "
                                 "every process must give the same root", who, -r[A_NROOT], r[A_ROOT]);
        if (r[A_ALG] != -r[A_NALG] || r[A_EXEC] != -r[A_NEXEC])
            return cc_error_code(MPI_ERR_ARG, "%s: the processes asked for different %s (info key %s); every "
                                 "process must give the same value", who,
                                 r[A_ALG] != -r[A_NALG] ? "algorithms" : "executors",
                                 r[A_ALG] != -r[A_NALG] ? "cartcoll_algorithm" : "cartcoll_executor");
        if (*tag >= 0) return MPI_SUCCESS;
        /* The whole window was busy: look at the next one, until every pair
         * was seen busy. */
        searched += CC_TAG_WINDOW;
        if (searched >= cc_comm_npairs(cs))
            return cc_error_code(MPI_ERR_OTHER, "%s: all %d tag pairs for persistent requests on this communicator "
                                 "are held by live requests (of this or another process); free some first", who,
                                 cc_comm_npairs(cs));
    }
}

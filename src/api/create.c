/* Cart_neighborhood_create: validation, the isomorphism agreement, the
 * Cartesian communicator, its private duplicate and the cost model. */
#include "cartcoll.h"

#include "choose/choose.h"
#include "geom/detect.h"
#include "base/errors.h"
#include "req/request.h"
#include "topo/comm.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static const char *const WHO = "Cart_neighborhood_create";

static long long hash_ints(const int *v, long long n) { return cc_hash_ints(v, n, 1469598103934665603ULL); }

/* Fields the processes must agree on, in reduction order. */
enum { F_ERR, F_D, F_DIMS, F_PERIODS, F_T, F_TARGETS, F_REORDER, F_CHOICE, F_CALIB, F_MODEL, NF = F_MODEL + CC_MODEL_FIELDS };
static const char *const field_names[NF] = {
    NULL, "number of dimensions d", "dims", "periods", "number of neighbours t", "target vectors",
    "reorder flag", "algorithm/executor choice (info or CARTCOLL_ALGORITHM/CARTCOLL_EXECUTOR)"
}; /* the others: NULL */

/* Local checks; returns MPI_SUCCESS or an error code (not raised). */
static int check_args(MPI_Comm comm, int d, const int dims[], const int periods[], int t,
                      const int targets[], const int weights[], MPI_Comm *cartcomm)
{
    int size;
    MPI_Comm_size(comm, &size);
    if (!cartcomm) return cc_error_code(MPI_ERR_ARG, "%s: cartcomm (the output argument) is NULL", WHO);
    if (d < 1) return cc_error_code(MPI_ERR_DIMS, "%s: the number of dimensions d = %d must be at least 1", WHO, d);
    if (!dims) return cc_error_code(MPI_ERR_ARG, "%s: dims is NULL", WHO);
    if (!periods) return cc_error_code(MPI_ERR_ARG, "%s: periods is NULL", WHO);
    long long prod = 1;
    for (int k = 0; k < d; k++) {
        if (dims[k] < 1)
            return cc_error_code(MPI_ERR_DIMS, "%s: dims[%d] = %d; every dimension needs at least one process",
                                 WHO, k, dims[k]);
        prod *= dims[k];
        if (prod > size)
            return cc_error_code(MPI_ERR_DIMS, "%s: the grid has more processes than the communicator (%d)",
                                 WHO, size);
    }
    if (t < 0) return cc_error_code(MPI_ERR_ARG, "%s: the number of neighbours t = %d is negative", WHO, t);
    if ((long long)t * d > INT_MAX)
        return cc_error_code(MPI_ERR_COUNT, "%s: t*d = %lld offsets do not fit in an int", WHO, (long long)t * d);
    if (t > 0 && !targets) return cc_error_code(MPI_ERR_ARG, "%s: targets is NULL but t = %d", WHO, t);
    if (weights != MPI_UNWEIGHTED && !(t == 0 && weights == MPI_WEIGHTS_EMPTY)) {
        if (t > 0 && (!weights || weights == MPI_WEIGHTS_EMPTY))
            return cc_error_code(MPI_ERR_ARG, "%s: weights must be MPI_UNWEIGHTED or an array of t ints", WHO);
        for (int i = 0; i < t; i++)
            if (weights[i] < 0)
                return cc_error_code(MPI_ERR_ARG, "%s: weights[%d] = %d is negative", WHO, i, weights[i]);
    }
    return MPI_SUCCESS;
}

/* One MAX reduction of the fields and their negations: every process learns
 * whether any process failed locally and which fields differ. */
static int agree(MPI_Comm comm, long long f[NF], int differs[NF])
{
    long long v[2 * NF], r[2 * NF];
    for (int i = 0; i < NF; i++) {
        v[i] = f[i];
        v[NF + i] = -f[i];
    }
    int rc = MPI_Allreduce(v, r, 2 * NF, MPI_LONG_LONG, MPI_MAX, comm);
    if (rc != MPI_SUCCESS) return rc;
    for (int i = 0; i < NF; i++) {
        differs[i] = r[i] != -r[NF + i];
        f[i] = r[i];
    }
    return MPI_SUCCESS;
}

/* The fields the processes disagree on, as an error code (not raised);
 * MPI_SUCCESS when they agree. */
static int mismatch(const int differs[NF])
{
    char what[512] = "";
    for (int i = F_D; i <= F_CHOICE; i++)
        if (differs[i]) {
            size_t len = strlen(what);
            snprintf(what + len, sizeof what - len, "%s%s", len ? ", " : "", field_names[i]);
        }
    if (!what[0]) return MPI_SUCCESS;
    return cc_error_code(MPI_ERR_ARG,
                         "%s: the processes passed different neighbourhoods: %s differ (every process must "
                         "pass the same d, dims, periods, t and targets, in the same order)", WHO, what);
}

/* Every process passed valid, equal arguments: make the Cartesian
 * communicator, its private duplicate and the agreed cost model (from this
 * process's model where a measurement is needed),
 * and attach the neighbourhood (taking nbh over).  *cartout is MPI_COMM_NULL for a
 * process outside the grid.  Returns MPI_SUCCESS or a raised error code. */
static int set_up(MPI_Comm comm, int d, const int dims[], int reorder, const long long f[NF], cc_cost_params model,
                  cc_nbh *nbh, MPI_Comm *cartout, int *rank)
{
    MPI_Comm cart = MPI_COMM_NULL, priv = MPI_COMM_NULL;
    int rc = MPI_Cart_create(comm, d, dims, nbh->periods, reorder, &cart);
    if (rc != MPI_SUCCESS) {
        cc_nbh_release(nbh);
        return cc_error_mpi(comm, rc, "Cart_neighborhood_create (MPI_Cart_create)");
    }
    if (cart == MPI_COMM_NULL) { /* this process is outside the grid */
        cc_nbh_release(nbh);
        *cartout = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    MPI_Comm_rank(cart, rank);
    cc_nbh_place(nbh, *rank);
    rc = MPI_Comm_dup(cart, &priv);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_set_errhandler(priv, MPI_ERRORS_RETURN);
    if (rc == MPI_SUCCESS && f[F_CALIB])
        rc = cc_model_agree(priv, &model);
    else if (rc == MPI_SUCCESS) /* agreed above: the maximum over processes */
        cc_model_from_bits(f + F_MODEL, &model);
    if (rc == MPI_SUCCESS) {
        nbh->model = model;
        rc = cc_comm_attach(cart, nbh, priv);
    }
    if (rc != MPI_SUCCESS) {
        if (priv != MPI_COMM_NULL) MPI_Comm_free(&priv);
        MPI_Comm_free(&cart);
        cc_nbh_release(nbh);
        return cc_error_mpi(comm, rc, "Cart_neighborhood_create (setting up the communicator)");
    }
    *cartout = cart;
    return MPI_SUCCESS;
}

int Cart_neighborhood_create(MPI_Comm comm, int d, const int dims[], const int periods[],
                             int t, const int targets[], const int weights[],
                             MPI_Info info, int reorder, MPI_Comm *cartcomm)
{
    if (comm == MPI_COMM_NULL) return cc_error(MPI_COMM_SELF, MPI_ERR_COMM, "%s: comm is MPI_COMM_NULL", WHO);
    int inter = 0;
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return cc_error(MPI_COMM_SELF, MPI_ERR_COMM, "%s: comm is not a valid communicator", WHO);
    if (inter) return cc_error(comm, MPI_ERR_COMM, "%s: comm is an inter-communicator", WHO);

    /* Local work first, so that a local failure is part of the agreement and
     * no process is left waiting. */
    cc_choice defaults;
    cc_nbh *nbh = NULL;
    cc_cost_params model = { 0 };
    int need_calibration = 0;
    int err = check_args(comm, d, dims, periods, t, targets, weights, cartcomm);
    if (err == MPI_SUCCESS) err = cc_options_env(&defaults);
    if (err == MPI_SUCCESS) err = cc_options_info(info, &defaults, WHO);
    if (err == MPI_SUCCESS) err = cc_model_local(&model, &need_calibration);
    if (err == MPI_SUCCESS) {
        nbh = cc_nbh_new(d, dims, periods, t, targets, weights == MPI_UNWEIGHTED || t == 0 ? NULL : weights);
        if (!nbh) err = cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory for %d neighbours", WHO, t);
        else nbh->defaults = defaults;
    }

    long long f[NF] = { 0 };
    int differs[NF] = { 0 };
    f[F_ERR] = err != MPI_SUCCESS;
    if (err == MPI_SUCCESS) {
        f[F_D] = d;
        f[F_DIMS] = hash_ints(dims, d);
        f[F_PERIODS] = hash_ints(nbh->periods, d);
        f[F_T] = t;
        f[F_TARGETS] = hash_ints(targets, (long long)t * d);
        f[F_REORDER] = reorder != 0;
        f[F_CHOICE] = defaults.algorithm * 16 + defaults.executor;
        f[F_CALIB] = need_calibration;
        cc_model_to_bits(&model, f + F_MODEL);
    }
    int rc = agree(comm, f, differs);
    if (rc != MPI_SUCCESS) {
        cc_nbh_release(nbh);
        return cc_error_mpi(comm, rc, "Cart_neighborhood_create (agreement)");
    }
    if (err != MPI_SUCCESS) {
        cc_nbh_release(nbh);
        return cc_error_raise(comm, err);
    }
    if (f[F_ERR]) {
        cc_nbh_release(nbh);
        return cc_error(comm, MPI_ERR_ARG, "%s: another process passed invalid arguments (see its error)", WHO);
    }
    if ((rc = mismatch(differs)) != MPI_SUCCESS) {
        cc_nbh_release(nbh);
        return cc_error_raise(comm, rc);
    }

    MPI_Comm cart = MPI_COMM_NULL;
    int rank = -1;
    if ((rc = set_up(comm, d, dims, reorder, f, model, nbh, &cart, &rank)) != MPI_SUCCESS) return rc;
    if (cart == MPI_COMM_NULL) { /* this process is outside the grid */
        *cartcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    if (cc_verbose() && rank == 0)
        fprintf(stderr, "cartcoll: %s: t=%d, d=%d, alpha=%.3g s, overhead=%.3g s, beta=%.3g s/byte%s, phase wait %.3g alpha, cpu %.3g\n",
                WHO, t, d, nbh->model.alpha, nbh->model.overhead, nbh->model.beta, f[F_CALIB] ? " (measured)" : "",
                nbh->model.phase_wait, nbh->model.cpu);
    if (defaults.async) cc_progress_async_start();
    *cartcomm = cart;
    return MPI_SUCCESS;
}

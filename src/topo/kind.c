#include "topo/kind.h"

#include "base/errors.h"

#include <pthread.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int keyval = MPI_KEYVAL_INVALID;

/* The kind is stored in the attribute value itself (no allocation); the
 * null copy function keeps it off duplicates and split communicators. */
static void make_keyval(void)
{
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL) != MPI_SUCCESS)
        keyval = MPI_KEYVAL_INVALID;
}

int cc_topo_test(MPI_Comm comm, int *topo)
{
#ifndef CARTCOLL_NO_TOPO_TEST
    return MPI_Topo_test(comm, topo);
#else
    /* Asked with errors returned: MPI_Cartdim_get fails on a communicator
     * without a Cartesian topology.  (SMPI's processes take turns, so no
     * other thread sees the handler changed.) */
    MPI_Errhandler eh;
    int rc = MPI_Comm_get_errhandler(comm, &eh), d = 0;
    if (rc != MPI_SUCCESS) return rc;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    *topo = MPI_Cartdim_get(comm, &d) == MPI_SUCCESS ? MPI_CART : MPI_UNDEFINED;
    MPI_Comm_set_errhandler(comm, eh);
    MPI_Errhandler_free(&eh);
    return MPI_SUCCESS;
#endif
}

static int classify(MPI_Comm comm, int *kind)
{
    int inter = 0, topo = MPI_UNDEFINED;
    int rc = MPI_Comm_test_inter(comm, &inter);
    if (rc == MPI_SUCCESS && !inter) rc = cc_topo_test(comm, &topo);
    if (rc != MPI_SUCCESS) return rc;
    if (inter) *kind = CC_KIND_INTER;
    else if (topo == MPI_CART) *kind = CC_KIND_CART;
    else if (topo == MPI_GRAPH || topo == MPI_DIST_GRAPH) *kind = CC_KIND_GRAPH;
    else *kind = CC_KIND_PLAIN;
    return MPI_SUCCESS;
}

int cc_kind_of(MPI_Comm comm, int *kind, cc_comm **cs, const char *who)
{
    *cs = NULL;
    if (comm == MPI_COMM_NULL) return cc_error_code(MPI_ERR_COMM, "%s: the communicator is MPI_COMM_NULL", who);
    /* The neighbourhood first: the hot path of the Cartesian collectives. */
    if ((*cs = cc_comm_find(comm)) != NULL) {
        *kind = CC_KIND_NBH;
        return MPI_SUCCESS;
    }
    pthread_once(&once, make_keyval);
    void *v = NULL;
    int flag = 0;
    if (keyval != MPI_KEYVAL_INVALID && MPI_Comm_get_attr(comm, keyval, &v, &flag) == MPI_SUCCESS && flag) {
        *kind = (int)(MPI_Aint)v;
        return MPI_SUCCESS;
    }
    if (classify(comm, kind) != MPI_SUCCESS)
        return cc_error_code(MPI_ERR_COMM, "%s: the communicator is not valid", who);
    if (keyval != MPI_KEYVAL_INVALID) MPI_Comm_set_attr(comm, keyval, (void *)(MPI_Aint)*kind);
    return MPI_SUCCESS;
}

/* Hand-written glue of the Fortran module cartcoll_f08: how many blocks a
 * collective has on a communicator (the length of datatype arrays, which
 * Fortran does not pass) and the naming's dimensions.  Split out of
 * cartcoll_f08_support.c (issue 27 item 8: no file over 600 lines), one
 * concept per file; see cartcoll_f08_support.h and README.md. */

#include "cartcoll_f08_internal.h"

#include <pthread.h>
#include <stdlib.h>

/* ------------------------------------------------------------------------
 * How many blocks a collective has on a communicator (for arrays of
 * datatype handles, whose length Fortran does not pass)
 * ------------------------------------------------------------------------ */

/* The neighbour count of a communicator with a cartcoll neighbourhood; 0
 * when it has none (an MPI_Cart_create communicator no Cart_ collective has
 * met yet).  The probe must not reach the user's error handler. */
static int nbh_count(MPI_Comm comm, int *t)
{
    MPI_Errhandler eh;
    if (MPI_Comm_get_errhandler(comm, &eh) != MPI_SUCCESS) return 0;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int ok = Cart_neighbor_count(comm, t) == MPI_SUCCESS;
    MPI_Comm_set_errhandler(comm, eh);
    MPI_Errhandler_free(&eh);
    return ok;
}

/* The counts are cached on the communicator (they never change for it):
 * an attribute of our own, not copied to duplicates. */
static pthread_once_t counts_once = PTHREAD_ONCE_INIT;
static int counts_keyval = MPI_KEYVAL_INVALID;

static int counts_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    free(attr);
    return MPI_SUCCESS;
}

static void counts_init(void)
{
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, counts_delete, &counts_keyval, NULL) != MPI_SUCCESS)
        counts_keyval = MPI_KEYVAL_INVALID;
}

/* c->nsend, c->nrecv: the blocks of the six [core] collectives on c->comm
 * (as the one interface set defines them); 0 when the communicator is null
 * or invalid, which the library reports. */
int ccf_block_counts(ccf_call *c)
{
    if (c->blocks) return c->blocks > 0;
    c->blocks = -1;
    MPI_Comm comm = c->comm;
    int inter = 0, topo = MPI_UNDEFINED, n = 0, in = 0, out = 0, weighted, rank, flag = 0;
    int *cached = NULL;
    if (comm == MPI_COMM_NULL) return 0;
    pthread_once(&counts_once, counts_init);
    if (counts_keyval != MPI_KEYVAL_INVALID && MPI_Comm_get_attr(comm, counts_keyval, &cached, &flag) == MPI_SUCCESS &&
        flag) {
        c->nsend = cached[0];
        c->nrecv = cached[1];
        c->blocks = 1;
        return 1;
    }
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return 0;
    if (inter) {
        if (MPI_Comm_remote_size(comm, &n) != MPI_SUCCESS) return 0;
        in = out = n;
    } else if (MPI_Topo_test(comm, &topo) != MPI_SUCCESS) {
        return 0;
    } else if (topo == MPI_DIST_GRAPH) {
        if (MPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted) != MPI_SUCCESS) return 0;
    } else if (topo == MPI_GRAPH) {
        if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Graph_neighbors_count(comm, rank, &n) != MPI_SUCCESS)
            return 0;
        in = out = n;
    } else if (topo == MPI_CART) {
        if (!nbh_count(comm, &n)) { /* MPI's neighbourhood: -e_k, +e_k per dimension */
            if (MPI_Cartdim_get(comm, &n) != MPI_SUCCESS) return 0;
            n *= 2;
        }
        in = out = n;
    } else {
        if (MPI_Comm_size(comm, &n) != MPI_SUCCESS) return 0;
        in = out = n;
    }
    c->nsend = out;
    c->nrecv = in;
    c->blocks = 1;
    if (counts_keyval != MPI_KEYVAL_INVALID && (cached = malloc(2 * sizeof(int)))) {
        cached[0] = out;
        cached[1] = in;
        if (MPI_Comm_set_attr(comm, counts_keyval, cached) != MPI_SUCCESS) free(cached);
    }
    return 1;
}

const MPI_Datatype *ccf_types(ccf_call *c, const MPI_Fint *f, int side)
{
    static MPI_Datatype none[1]; /* the library rejects the communicator first */
    if (!ccf_block_counts(c)) return none;
    int n = side == CCF_SEND ? c->nsend : c->nrecv;
    MPI_Datatype *t = ccf_alloc(c, sizeof(MPI_Datatype) * (size_t)n);
    if (!t) return none;
    for (int i = 0; i < n; i++) t[i] = MPI_Type_f2c(f[i]);
    return t;
}

int cartcoll_f08_naming_dims(MPI_Fint f)
{
    MPI_Comm comm = MPI_Comm_f2c(f);
    int flag = 0, d = 0, size = 0;
    if (comm == MPI_COMM_NULL || Cart_test_name(comm, &flag, &d, &size) != MPI_SUCCESS || !flag || d < 0) return 0;
    return d;
}

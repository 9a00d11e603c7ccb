/* The naming of a communicator: the Cart_name attribute and the lookup
 * over every kind of named communicator. */
#include "topo/naming.h"

#include "base/errors.h"
#include "topo/comm.h"
#include "topo/kind.h"

#include <pthread.h>
#include <stdlib.h>

static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;
static int keyval = MPI_KEYVAL_INVALID, finalize_keyval = MPI_KEYVAL_INVALID;
/* Orders lookups (which copy the cached naming) against Cart_name
 * replacing it, whose delete callback frees the old one. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* A naming with its arrays in one block: a copy is one malloc, one free. */
static cc_naming *naming_new(int d, int colmajor, const int dims[], const int periods[], int nprocs)
{
    cc_naming *n = malloc(sizeof *n + sizeof(int) * (2 * (size_t)d + 1));
    if (!n) return NULL;
    int *a = (int *)(n + 1);
    long long size = 1;
    for (int k = 0; k < d; k++) {
        a[k] = dims[k];
        a[d + k] = periods[k] != 0;
        size *= dims[k]; /* validated: fits an int */
    }
    n->grid = (cc_grid){ .d = d, .size = (int)size, .dims = a, .periods = a + d, .colmajor = colmajor };
    n->nprocs = nprocs;
    return n;
}

void cc_naming_free(cc_naming *n) { free(n); }

static int delete_fn(MPI_Comm comm, int kv, void *val, void *extra)
{
    (void)comm;
    (void)kv;
    (void)extra;
    free(val);
    return MPI_SUCCESS;
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first: free the keys
 * there (MPI keeps a key until the last attribute using it is gone). */
static int finalize_fn(MPI_Comm comm, int kv, void *val, void *extra)
{
    (void)comm;
    (void)kv;
    (void)val;
    (void)extra;
    MPI_Comm_free_keyval(&keyval);
    MPI_Comm_free_keyval(&finalize_keyval);
    return MPI_SUCCESS;
}

/* Namings are not inherited (seed 000): MPI_COMM_NULL_COPY_FN. */
static void make_keyval(void)
{
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &keyval, NULL) != MPI_SUCCESS) {
        keyval = MPI_KEYVAL_INVALID;
        return;
    }
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_fn, &finalize_keyval, NULL) == MPI_SUCCESS &&
        MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, NULL) != MPI_SUCCESS)
        MPI_Comm_free_keyval(&finalize_keyval);
}

int cc_naming_attach(MPI_Comm comm, int d, int colmajor, const int dims[], const int periods[])
{
    pthread_once(&keyval_once, make_keyval);
    if (keyval == MPI_KEYVAL_INVALID)
        return cc_error_code(MPI_ERR_OTHER, "Cart_name: cannot create an MPI attribute key");
    int nprocs, rc = MPI_Comm_size(comm, &nprocs);
    if (rc != MPI_SUCCESS) return cc_error_mpi_code(rc, "Cart_name: MPI_Comm_size");
    cc_naming *n = naming_new(d, colmajor, dims, periods, nprocs);
    if (!n) return cc_error_code(MPI_ERR_NO_MEM, "Cart_name: out of memory");
    pthread_mutex_lock(&lock);
    rc = MPI_Comm_set_attr(comm, keyval, n); /* deletes (frees) the naming it replaces */
    pthread_mutex_unlock(&lock);
    if (rc != MPI_SUCCESS) {
        free(n);
        return cc_error_mpi_code(rc, "Cart_name: MPI_Comm_set_attr");
    }
    return MPI_SUCCESS;
}

/* A copy of the Cart_name naming; *out stays NULL when there is none. */
static int from_attribute(MPI_Comm comm, const char *who, cc_naming **out)
{
    pthread_once(&keyval_once, make_keyval);
    if (keyval == MPI_KEYVAL_INVALID) return MPI_SUCCESS;
    int rc = MPI_SUCCESS;
    pthread_mutex_lock(&lock);
    void *v = NULL;
    int flag = 0;
    if (MPI_Comm_get_attr(comm, keyval, &v, &flag) == MPI_SUCCESS && flag) {
        const cc_naming *a = v;
        *out = naming_new(a->grid.d, a->grid.colmajor, a->grid.dims, a->grid.periods, a->nprocs);
        if (!*out) rc = cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory", who);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

/* The grid of an MPI_Cart_create communicator. */
static int from_mpi_cart(MPI_Comm comm, const char *who, int nprocs, cc_naming **out)
{
    int d = 0, rc = MPI_Cartdim_get(comm, &d);
    if (rc != MPI_SUCCESS) return cc_error_mpi_code(rc, who);
    int *a = malloc(sizeof(int) * (3 * (size_t)d + 1));
    if (!a) return cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory", who);
    rc = d > 0 ? MPI_Cart_get(comm, d, a, a + d, a + 2 * d) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS) rc = cc_error_mpi_code(rc, who);
    else if (!(*out = naming_new(d, 0, a, a + d, nprocs))) rc = cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory", who);
    free(a);
    return rc;
}

/* The naming of comm, *out NULL where it has none (*inter tells whether
 * that is because comm is an inter-communicator). */
static int lookup(MPI_Comm comm, const char *who, cc_naming **out, int *inter)
{
    *out = NULL;
    *inter = 0;
    if (comm == MPI_COMM_NULL) return cc_error_code(MPI_ERR_COMM, "%s: the communicator is MPI_COMM_NULL", who);
    int nprocs = 0, topo = MPI_UNDEFINED;
    if (MPI_Comm_test_inter(comm, inter) != MPI_SUCCESS || MPI_Comm_size(comm, &nprocs) != MPI_SUCCESS ||
        (!*inter && cc_topo_test(comm, &topo) != MPI_SUCCESS))
        return cc_error_code(MPI_ERR_COMM, "%s: the communicator is not valid", who);
    if (*inter) return MPI_SUCCESS;
    int rc = from_attribute(comm, who, out);
    if (rc != MPI_SUCCESS || *out) return rc;
    /* A neighbourhood's grid.  Cart_neighborhood_create communicators and
     * adopted MPI_Cart_create ones also have MPI's Cartesian topology, the
     * same grid, which is taken instead: a neighbourhood stores MPI's
     * 0-dimensional grid as one dimension of size 1.  A graph keeps no
     * naming, even where cartcoll found it Cartesian and gave it a
     * neighbourhood: namings are not inherited (seed 000). */
    cc_comm *c = topo == MPI_UNDEFINED ? cc_comm_find(comm) : NULL;
    if (c) {
        const cc_nbh *b = c->nbh;
        *out = naming_new(b->d, 0, b->dims, b->periods, nprocs);
        return *out ? MPI_SUCCESS : cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory", who);
    }
    return topo == MPI_CART ? from_mpi_cart(comm, who, nprocs, out) : MPI_SUCCESS;
}

int cc_naming_find(MPI_Comm comm, const char *who, cc_naming **out)
{
    int inter;
    return lookup(comm, who, out, &inter);
}

int cc_naming_of(MPI_Comm comm, const char *who, cc_naming **out)
{
    int inter, rc = lookup(comm, who, out, &inter);
    if (rc != MPI_SUCCESS || *out) return rc;
    if (inter) return cc_error_code(MPI_ERR_COMM, "%s: an inter-communicator has no naming", who);
    return cc_error_code(MPI_ERR_TOPOLOGY,
                         "%s: the communicator has no naming (use Cart_name, MPI_Cart_create or "
                         "Cart_neighborhood_create)", who);
}

int cc_naming_at(MPI_Comm comm, const char *who, int rank, cc_naming **out, int **coords)
{
    *coords = NULL;
    int rc = cc_naming_of(comm, who, out);
    if (rc != MPI_SUCCESS) return rc;
    const cc_naming *n = *out;
    if (!cc_naming_placed(n, rank))
        rc = cc_error_code(MPI_ERR_RANK, "%s: rank %d has no position in the grid (%d positions, %d processes)",
                           who, rank, n->grid.size, n->nprocs);
    else if (!(*coords = malloc(sizeof(int) * ((size_t)n->grid.d + 1))))
        rc = cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory", who);
    if (rc != MPI_SUCCESS) {
        cc_naming_free(*out);
        *out = NULL;
        return rc;
    }
    cc_grid_coords(&n->grid, rank, *coords);
    return MPI_SUCCESS;
}

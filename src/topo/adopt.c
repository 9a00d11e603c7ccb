/* Neighbourhoods of communicators cartcoll did not make, derived the first
 * time a Cart_ collective meets them and cached on the communicator with a
 * private duplicate (an MPI_Comm_idup started here, in the same order on
 * every process because collectives are called in order).
 *
 * MPI_Cart_create communicators are Cartesian by construction.  The first
 * Cart_ collective that meets one derives its neighbourhood locally, without
 * communication: MPI's 2d neighbours, -e_k then +e_k for each dimension k
 * (MPI_PROC_NULL off a mesh).  Block 2k goes to R - e_k and block 2k+1 to
 * R + e_k; the block that arrives from R - e_k was sent towards +e_k, so the
 * receive block of offset i is the caller's block i^1 -- also on periodic
 * dimensions of size 1 and 2, where MPI's own neighbourhood collectives
 * have matched the two messages wrongly. */
#include "topo/adopt.h"

#include "base/errors.h"
#include "base/model.h"
#include "base/options.h"
#include "topo/kind.h"

#include <stdlib.h>
#include <string.h>

/* The neighbourhood of a Cartesian communicator of d dimensions. */
static int derive(MPI_Comm comm, int d, cc_nbh **out)
{
    int dd = d > 0 ? d : 1, t = 2 * d;
    int *mem = calloc((size_t)3 * (size_t)dd + (size_t)t * (size_t)dd + 1, sizeof(int));
    if (!mem) return MPI_ERR_NO_MEM;
    int *dims = mem, *periods = mem + dd, *coords = mem + 2 * dd, *targets = mem + 3 * dd;
    int rc = MPI_SUCCESS, rank;
    dims[0] = 1; /* d = 0: one process, no neighbours */
    if (d > 0) rc = MPI_Cart_get(comm, d, dims, periods, coords);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_rank(comm, &rank);
    for (int k = 0; k < d; k++) {
        targets[(size_t)(2 * k) * (size_t)d + (size_t)k] = -1;
        targets[(size_t)(2 * k + 1) * (size_t)d + (size_t)k] = 1;
    }
    cc_nbh *n = NULL;
    if (rc == MPI_SUCCESS && !(n = cc_nbh_new(dd, dims, periods, t, targets, NULL))) rc = MPI_ERR_NO_MEM;
    free(mem);
    if (rc == MPI_SUCCESS && t > 0 && !(n->rperm = malloc(sizeof(int) * (size_t)t))) rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        cc_nbh_release(n);
        return rc;
    }
    for (int i = 0; i < t; i++) n->rperm[i] = i ^ 1;
    n->ragged = 1; /* MPI's meaning: v/w block sizes agree per edge only */
    cc_nbh_place(n, rank);
    *out = n;
    return MPI_SUCCESS;
}

/* A graph's neighbours in its order: distributed graphs (weights are not
 * needed but must be fetched where there are some), and MPI-1 graphs
 * (sources = destinations = the neighbours). */
static int derive_graph(MPI_Comm comm, int topo, cc_nbh **out)
{
    int in = 0, out_ = 0, weighted = 0, rank, rc = MPI_Comm_rank(comm, &rank);
    if (rc == MPI_SUCCESS && topo == MPI_DIST_GRAPH) rc = MPI_Dist_graph_neighbors_count(comm, &in, &out_, &weighted);
    else if (rc == MPI_SUCCESS) rc = MPI_Graph_neighbors_count(comm, rank, &in);
    if (rc != MPI_SUCCESS) return rc;
    if (topo != MPI_DIST_GRAPH) out_ = in;
    size_t n = (size_t)in + (size_t)out_;
    int *mem = malloc(sizeof(int) * (weighted ? 2 * n : n) + 1);
    if (!mem) return MPI_ERR_NO_MEM;
    int *src = mem, *dst = mem + in, *w = mem + n;
    if (topo == MPI_DIST_GRAPH)
        rc = MPI_Dist_graph_neighbors(comm, in, src, weighted ? w : MPI_UNWEIGHTED, out_, dst,
                                      weighted ? w + in : MPI_UNWEIGHTED);
    else if ((rc = MPI_Graph_neighbors(comm, rank, in, src)) == MPI_SUCCESS)
        for (int i = 0; i < in; i++) dst[i] = src[i];
    cc_nbh *nb = rc == MPI_SUCCESS ? cc_nbh_new_graph(in, src, out_, dst) : NULL;
    free(mem);
    if (rc == MPI_SUCCESS && !nb) rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        nb->rank = rank;
        *out = nb;
    }
    return rc;
}

int cc_adopt(MPI_Comm comm, int kind, cc_comm **cs, const char *who)
{
    int d = 0, topo = MPI_UNDEFINED;
    cc_nbh *n = NULL;
    int rc = MPI_SUCCESS;
    if (kind == CC_KIND_CART && (rc = MPI_Cartdim_get(comm, &d)) == MPI_SUCCESS) rc = derive(comm, d, &n);
    if (kind == CC_KIND_GRAPH && (rc = cc_topo_test(comm, &topo)) == MPI_SUCCESS)
        rc = derive_graph(comm, topo, &n);
    if (rc != MPI_SUCCESS) return cc_error_mpi_code(rc, who);
    /* Every process must choose alike without talking: the environment's
     * choice and model, or the defaults. */
    rc = cc_options_env(&n->defaults);
    if (rc == MPI_SUCCESS) rc = cc_model_fixed(&n->model);
    if (rc == MPI_SUCCESS && (rc = cc_comm_attach_idup(comm, n)) != MPI_SUCCESS)
        rc = cc_error_mpi_code(rc, who);
    if (rc != MPI_SUCCESS) {
        cc_nbh_release(n);
        return rc;
    }
    *cs = cc_comm_find(comm);
    return MPI_SUCCESS;
}

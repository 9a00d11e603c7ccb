#include "exchange.h"

#include <stdlib.h>

static void clear(exchange *x, void *buf0, void *buf1, int use_mpi)
{
    x->use_mpi = use_mpi;
    x->own_graph = 0;
    x->buf[0] = buf0;
    x->buf[1] = buf1;
    x->creq[0] = x->creq[1] = CART_REQUEST_NULL;
    x->mreq[0] = x->mreq[1] = MPI_REQUEST_NULL;
    x->graph = MPI_COMM_NULL;
    x->indeg = x->outdeg = 0;
    x->gsc = x->grc = NULL;
    x->gsd = x->grd = NULL;
    x->gst = x->grt = NULL;
}

/* The block arrays of the MPI graph (t + 1 entries each); MPI_ERR_NO_MEM. */
static int alloc_blocks(exchange *x, int t)
{
    size_t n = (size_t)t + 1;
    x->gsc = malloc(n * sizeof(int));
    x->grc = malloc(n * sizeof(int));
    x->gsd = malloc(n * sizeof(MPI_Aint));
    x->grd = malloc(n * sizeof(MPI_Aint));
    x->gst = malloc(n * sizeof(MPI_Datatype));
    x->grt = malloc(n * sizeof(MPI_Datatype));
    return x->gsc && x->grc && x->gsd && x->grd && x->gst && x->grt ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

/* Persistent cartcoll requests on comm, one per array. */
static int cart_requests(exchange *x, MPI_Comm comm, const int counts[], const MPI_Aint sdisp[],
                         const MPI_Aint rdisp[], const MPI_Datatype types[])
{
    int rc = MPI_SUCCESS;
    for (int k = 0; k < 2 && rc == MPI_SUCCESS; k++)
        rc = Cart_alltoallw_init(x->buf[k], counts, sdisp, types, x->buf[k], counts, rdisp, types, comm,
                                 MPI_INFO_NULL, &x->creq[k]);
    return rc;
}

/* Persistent MPI requests on x->graph with the compacted blocks (MPI 4). */
static int mpi_requests(exchange *x)
{
    int rc = MPI_SUCCESS;
#if MPI_VERSION >= 4
    for (int k = 0; k < 2 && rc == MPI_SUCCESS; k++)
        rc = MPI_Neighbor_alltoallw_init(x->buf[k], x->gsc, x->gsd, x->gst, x->buf[k], x->grc, x->grd, x->grt,
                                         x->graph, MPI_INFO_NULL, &x->mreq[k]);
#else
    (void)x;
#endif
    return rc;
}

int exchange_init(exchange *x, MPI_Comm cart, int t, void *buf0, void *buf1, const int counts[],
                  const MPI_Aint sdisp[], const MPI_Aint rdisp[], const MPI_Datatype types[],
                  const int weights[], int use_mpi)
{
    clear(x, buf0, buf1, use_mpi);
    if (!use_mpi) return cart_requests(x, cart, counts, sdisp, rdisp, types);
    x->own_graph = 1;
    size_t n = (size_t)t + 1;
    int *src = malloc(n * sizeof(int)), *dst = malloc(n * sizeof(int));
    int *sw = malloc(n * sizeof(int)), *dw = malloc(n * sizeof(int));
    int rc = alloc_blocks(x, t);
    if (!src || !dst || !sw || !dw) rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) goto out;
    if ((rc = Cart_neighbor_get(cart, t, src, sw, t, dst, dw)) != MPI_SUCCESS) goto out;
    for (int i = 0; i < t; i++) {
        if (src[i] != MPI_PROC_NULL) {
            src[x->indeg] = src[i];
            sw[x->indeg] = weights[i];
            x->grc[x->indeg] = counts[i];
            x->grd[x->indeg] = rdisp[i];
            x->grt[x->indeg++] = types[i];
        }
        if (dst[i] != MPI_PROC_NULL) {
            dst[x->outdeg] = dst[i];
            dw[x->outdeg] = weights[i];
            x->gsc[x->outdeg] = counts[i];
            x->gsd[x->outdeg] = sdisp[i];
            x->gst[x->outdeg++] = types[i];
        }
    }
    rc = MPI_Dist_graph_create_adjacent(cart, x->indeg, src, sw, x->outdeg, dst, dw, MPI_INFO_NULL, 0, &x->graph);
    if (rc == MPI_SUCCESS) rc = mpi_requests(x);
out:
    free(src);
    free(dst);
    free(sw);
    free(dw);
    return rc;
}

int exchange_init_graph(exchange *x, MPI_Comm graph, int t, void *buf0, void *buf1, const int counts[],
                        const MPI_Aint sdisp[], const MPI_Aint rdisp[], const MPI_Datatype types[], int use_mpi)
{
    clear(x, buf0, buf1, use_mpi);
    if (!use_mpi) return cart_requests(x, graph, counts, sdisp, rdisp, types);
    int rc = alloc_blocks(x, t);
    if (rc != MPI_SUCCESS) return rc;
    x->graph = graph;
    x->indeg = x->outdeg = t;
    for (int i = 0; i < t; i++) {
        x->gsc[i] = x->grc[i] = counts[i];
        x->gsd[i] = sdisp[i];
        x->grd[i] = rdisp[i];
        x->gst[i] = x->grt[i] = types[i];
    }
    return mpi_requests(x);
}

void exchange_run(exchange *x, int k)
{
    if (!x->use_mpi) {
        Cart_start(&x->creq[k]);
        Cart_wait(&x->creq[k]);
        return;
    }
#if MPI_VERSION >= 4
    MPI_Start(&x->mreq[k]);
    MPI_Wait(&x->mreq[k], MPI_STATUS_IGNORE);
#else
    MPI_Neighbor_alltoallw(x->buf[k], x->gsc, x->gsd, x->gst, x->buf[k], x->grc, x->grd, x->grt, x->graph);
#endif
}

void exchange_free(exchange *x)
{
    for (int k = 0; k < 2; k++) {
        if (x->creq[k] != CART_REQUEST_NULL) Cart_request_free(&x->creq[k]);
        if (x->mreq[k] != MPI_REQUEST_NULL) MPI_Request_free(&x->mreq[k]);
    }
    if (x->own_graph && x->graph != MPI_COMM_NULL) MPI_Comm_free(&x->graph);
    free(x->gsc);
    free(x->grc);
    free(x->gsd);
    free(x->grd);
    free(x->gst);
    free(x->grt);
}

const char *exchange_name(const exchange *x)
{
    if (!x->use_mpi) return "persistent Cart_alltoallw";
    return MPI_VERSION >= 4 ? "persistent MPI_Neighbor_alltoallw" : "MPI_Neighbor_alltoallw";
}

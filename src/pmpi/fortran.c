/* Fortran entry points of the drop-in, for Open MPI only.
 *
 * Open MPI 4.1's mpif.h and `use mpi` bindings (libmpi_mpifh) call
 * PMPI_Neighbor_alltoall & co. directly, so interposing the C MPI_ names
 * does not reach Fortran programs: the drop-in defines the Fortran symbols
 * of the calls it accelerates itself -- every spelling compilers use
 * (mpi_x, mpi_x_, mpi_x__, MPI_X) -- converts the handles and calls its C
 * entry points.  This file: MPI_Dist_graph_create_adjacent,
 * MPI_Dist_graph_create, MPI_Cart_create (counted), the five blocking
 * MPI_Neighbor_* and MPI_Finalize (the report); fortran_requests.c: the
 * five MPI_Ineighbor_*, the calls that complete, free or cancel requests
 * (Open MPI's Fortran MPI_Wait would call PMPI_Wait on the drop-in's
 * generalized request, which only the drop-in completes) and the blocking
 * point-to-point calls (progress while the program waits).  Open MPI 4.1
 * has no MPI-4 persistent neighbourhood collectives (only MPIX_, left to
 * MPI).
 *
 * `use mpi_f08` (libmpi_usempif08) calls Open MPI's internal ompi_x_f,
 * the same code as mpi_x_, for most of these and the profiling spelling
 * pmpi_x_ for the rest (the topology constructors, MPI_Test*,
 * MPI_Request_get_status); it imports both from libmpi_mpifh, so the
 * drop-in defines them too (fortran.h: FORTRAN_NAMES,
 * FORTRAN_F08_PMPI_NAME) and mpi_f08 programs are accelerated as well.
 *
 * MPICH's Fortran bindings (libmpifort, mpi_f08 included) call the C MPI_
 * functions, which the drop-in already intercepts; defining the Fortran
 * symbols there would only replace MPICH's own conversions, so these
 * files are empty unless built against Open MPI (the drop-in is built for
 * one MPI's ABI; the choice is made at compile time from mpi.h).
 *
 * Fortran sentinels are addresses of Open MPI's common blocks
 * (mpi_fortran_bottom_, mpi_fortran_in_place_, mpi_fortran_unweighted_,
 * mpi_fortran_weights_empty_, mpi_fortran_status[es]_ignore_), looked up
 * at run time so that a renamed symbol degrades to "no sentinel" instead
 * of a failed load. */
#define _GNU_SOURCE /* RTLD_DEFAULT, RTLD_NEXT */
#include "pmpi/fortran.h"

#ifdef OPEN_MPI

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_once_t sentinels_once = PTHREAD_ONCE_INIT;
static const void *f_bottom, *f_in_place, *f_unweighted, *f_weights_empty, *f_status_ignore, *f_statuses_ignore;

static const void *common_block(const char *name)
{
    static const char *const suffix[] = { "_", "", "__" };
    char buf[64];
    for (int i = 0; i < 3; i++) {
        snprintf(buf, sizeof buf, "%s%s", name, suffix[i]);
        const void *p = dlsym(RTLD_DEFAULT, buf);
        if (p) return p;
    }
    return NULL;
}

static void find_sentinels(void)
{
    f_bottom = common_block("mpi_fortran_bottom");
    f_in_place = common_block("mpi_fortran_in_place");
    f_unweighted = common_block("mpi_fortran_unweighted");
    f_weights_empty = common_block("mpi_fortran_weights_empty");
    f_status_ignore = common_block("mpi_fortran_status_ignore");
    f_statuses_ignore = common_block("mpi_fortran_statuses_ignore");
}

const void *pl_f_sbuf(const void *b)
{
    pthread_once(&sentinels_once, find_sentinels);
    if (b && b == f_bottom) return MPI_BOTTOM;
    if (b && b == f_in_place) return MPI_IN_PLACE; /* cartcoll rejects it, as MPI does here */
    return b;
}

void *pl_f_rbuf(void *b)
{
    pthread_once(&sentinels_once, find_sentinels);
    return b && b == f_bottom ? MPI_BOTTOM : b;
}

const int *pl_f_weights(const MPI_Fint *w)
{
    pthread_once(&sentinels_once, find_sentinels);
    if (w && (const void *)w == f_unweighted) return MPI_UNWEIGHTED;
    if (w && (const void *)w == f_weights_empty) return MPI_WEIGHTS_EMPTY;
    return w;
}

int pl_f_status_ignored(const MPI_Fint *s)
{
    pthread_once(&sentinels_once, find_sentinels);
    return !s || (const void *)s == f_status_ignore;
}

int pl_f_statuses_ignored(const MPI_Fint *s)
{
    pthread_once(&sentinels_once, find_sentinels);
    return !s || (const void *)s == f_statuses_ignore;
}

#define sbuf pl_f_sbuf
#define rbuf pl_f_rbuf
#define weights pl_f_weights

/* ---- constructors -------------------------------------------------------- */

static void f_dist_graph_create_adjacent(MPI_Fint *comm_old, MPI_Fint *indegree, MPI_Fint *sources,
                                         MPI_Fint *sourceweights, MPI_Fint *outdegree, MPI_Fint *destinations,
                                         MPI_Fint *destweights, MPI_Fint *info, MPI_Fint *reorder,
                                         MPI_Fint *comm_dist_graph, MPI_Fint *ierror)
{
    OFF_GOES_TO_MPI(f_dist_graph_create_adjacent, "mpi_dist_graph_create_adjacent_", comm_old, indegree, sources,
                    sourceweights, outdegree, destinations, destweights, info, reorder, comm_dist_graph, ierror);
    MPI_Comm c = MPI_COMM_NULL;
    int rc = MPI_Dist_graph_create_adjacent(PMPI_Comm_f2c(*comm_old), *indegree, sources, weights(sourceweights),
                                            *outdegree, destinations, weights(destweights), PMPI_Info_f2c(*info),
                                            *reorder != 0, &c);
    if (rc == MPI_SUCCESS) *comm_dist_graph = PMPI_Comm_c2f(c);
    *ierror = rc;
}
FORTRAN_NAMES(f_dist_graph_create_adjacent, dist_graph_create_adjacent, MPI_DIST_GRAPH_CREATE_ADJACENT);
FORTRAN_F08_PMPI_NAME(f_dist_graph_create_adjacent, dist_graph_create_adjacent);

static void f_dist_graph_create(MPI_Fint *comm_old, MPI_Fint *n, MPI_Fint *sources, MPI_Fint *degrees,
                                MPI_Fint *destinations, MPI_Fint *w, MPI_Fint *info, MPI_Fint *reorder,
                                MPI_Fint *comm_dist_graph, MPI_Fint *ierror)
{
    OFF_GOES_TO_MPI(f_dist_graph_create, "mpi_dist_graph_create_", comm_old, n, sources, degrees, destinations, w,
                    info, reorder, comm_dist_graph, ierror);
    MPI_Comm c = MPI_COMM_NULL;
    int rc = MPI_Dist_graph_create(PMPI_Comm_f2c(*comm_old), *n, sources, degrees, destinations, weights(w),
                                   PMPI_Info_f2c(*info), *reorder != 0, &c);
    if (rc == MPI_SUCCESS) *comm_dist_graph = PMPI_Comm_c2f(c);
    *ierror = rc;
}
FORTRAN_NAMES(f_dist_graph_create, dist_graph_create, MPI_DIST_GRAPH_CREATE);
FORTRAN_F08_PMPI_NAME(f_dist_graph_create, dist_graph_create);

/* LOGICAL periods(ndims) become ints. */
static void f_cart_create(MPI_Fint *comm_old, MPI_Fint *ndims, MPI_Fint *dims, MPI_Fint *periods, MPI_Fint *reorder,
                          MPI_Fint *comm_cart, MPI_Fint *ierror)
{
    OFF_GOES_TO_MPI(f_cart_create, "mpi_cart_create_", comm_old, ndims, dims, periods, reorder, comm_cart, ierror);
    MPI_Comm old = PMPI_Comm_f2c(*comm_old), c = MPI_COMM_NULL;
    int n = *ndims > 0 ? *ndims : 0;
    int *p = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (!p) {
        PMPI_Comm_call_errhandler(old, MPI_ERR_NO_MEM);
        *ierror = MPI_ERR_NO_MEM;
        return;
    }
    for (int k = 0; k < n; k++) p[k] = periods[k] != 0;
    int rc = MPI_Cart_create(old, *ndims, dims, p, *reorder != 0, &c);
    free(p);
    if (rc == MPI_SUCCESS) *comm_cart = PMPI_Comm_c2f(c);
    *ierror = rc;
}
FORTRAN_NAMES(f_cart_create, cart_create, MPI_CART_CREATE);
FORTRAN_F08_PMPI_NAME(f_cart_create, cart_create);

/* ---- the blocking neighbourhood collectives ------------------------------ */

static void f_neighbor_allgather(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                                 MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierror)
{
    OFF_GOES_TO_MPI(f_neighbor_allgather, "mpi_neighbor_allgather_", sendbuf, sendcount, sendtype, recvbuf,
                    recvcount, recvtype, comm, ierror);
    *ierror = MPI_Neighbor_allgather(sbuf(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype), rbuf(recvbuf),
                                     *recvcount, PMPI_Type_f2c(*recvtype), PMPI_Comm_f2c(*comm));
}
FORTRAN_NAMES(f_neighbor_allgather, neighbor_allgather, MPI_NEIGHBOR_ALLGATHER);

static void f_neighbor_allgatherv(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                                  MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm,
                                  MPI_Fint *ierror)
{
    OFF_GOES_TO_MPI(f_neighbor_allgatherv, "mpi_neighbor_allgatherv_", sendbuf, sendcount, sendtype, recvbuf,
                    recvcounts, displs, recvtype, comm, ierror);
    *ierror = MPI_Neighbor_allgatherv(sbuf(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype), rbuf(recvbuf),
                                      recvcounts, displs, PMPI_Type_f2c(*recvtype), PMPI_Comm_f2c(*comm));
}
FORTRAN_NAMES(f_neighbor_allgatherv, neighbor_allgatherv, MPI_NEIGHBOR_ALLGATHERV);

static void f_neighbor_alltoall(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                                MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierror)
{
    OFF_GOES_TO_MPI(f_neighbor_alltoall, "mpi_neighbor_alltoall_", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, ierror);
    *ierror = MPI_Neighbor_alltoall(sbuf(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype), rbuf(recvbuf), *recvcount,
                                    PMPI_Type_f2c(*recvtype), PMPI_Comm_f2c(*comm));
}
FORTRAN_NAMES(f_neighbor_alltoall, neighbor_alltoall, MPI_NEIGHBOR_ALLTOALL);

static void f_neighbor_alltoallv(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype,
                                 void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype,
                                 MPI_Fint *comm, MPI_Fint *ierror)
{
    OFF_GOES_TO_MPI(f_neighbor_alltoallv, "mpi_neighbor_alltoallv_", sendbuf, sendcounts, sdispls, sendtype,
                    recvbuf, recvcounts, rdispls, recvtype, comm, ierror);
    *ierror = MPI_Neighbor_alltoallv(sbuf(sendbuf), sendcounts, sdispls, PMPI_Type_f2c(*sendtype), rbuf(recvbuf),
                                     recvcounts, rdispls, PMPI_Type_f2c(*recvtype), PMPI_Comm_f2c(*comm));
}
FORTRAN_NAMES(f_neighbor_alltoallv, neighbor_alltoallv, MPI_NEIGHBOR_ALLTOALLV);

void pl_f_degrees(MPI_Comm c, int *in, int *out)
{
    int topo = MPI_UNDEFINED, w = 0;
    *in = *out = 0;
    if (c == MPI_COMM_NULL || PMPI_Topo_test(c, &topo) != MPI_SUCCESS) return;
    if (topo == MPI_CART) {
        int d = 0;
        PMPI_Cartdim_get(c, &d);
        *in = *out = 2 * d;
    } else if (topo == MPI_GRAPH) {
        int r = 0;
        PMPI_Comm_rank(c, &r);
        PMPI_Graph_neighbors_count(c, r, in);
        *out = *in;
    } else if (topo == MPI_DIST_GRAPH) {
        PMPI_Dist_graph_neighbors_count(c, in, out, &w);
    }
}

MPI_Datatype *pl_f_w_types(MPI_Comm c, const MPI_Fint *sendtypes, const MPI_Fint *recvtypes, int *out, MPI_Fint *ierror)
{
    int in;
    pl_f_degrees(c, &in, out);
    MPI_Datatype *t = malloc(sizeof(MPI_Datatype) * (size_t)(in + *out + 1));
    if (!t) {
        PMPI_Comm_call_errhandler(c, MPI_ERR_NO_MEM);
        *ierror = MPI_ERR_NO_MEM;
        return NULL;
    }
    for (int i = 0; i < *out; i++) t[i] = PMPI_Type_f2c(sendtypes[i]);
    for (int j = 0; j < in; j++) t[*out + j] = PMPI_Type_f2c(recvtypes[j]);
    return t;
}

static void f_neighbor_alltoallw(void *sendbuf, MPI_Fint *sendcounts, MPI_Aint *sdispls, MPI_Fint *sendtypes,
                                 void *recvbuf, MPI_Fint *recvcounts, MPI_Aint *rdispls, MPI_Fint *recvtypes,
                                 MPI_Fint *comm, MPI_Fint *ierror)
{
    OFF_GOES_TO_MPI(f_neighbor_alltoallw, "mpi_neighbor_alltoallw_", sendbuf, sendcounts, sdispls, sendtypes,
                    recvbuf, recvcounts, rdispls, recvtypes, comm, ierror);
    MPI_Comm c = PMPI_Comm_f2c(*comm);
    int out;
    MPI_Datatype *t = pl_f_w_types(c, sendtypes, recvtypes, &out, ierror);
    if (!t) return;
    *ierror = MPI_Neighbor_alltoallw(sbuf(sendbuf), sendcounts, sdispls, t, rbuf(recvbuf), recvcounts, rdispls,
                                     t + out, c);
    free(t);
}
FORTRAN_NAMES(f_neighbor_alltoallw, neighbor_alltoallw, MPI_NEIGHBOR_ALLTOALLW);

/* ---- the report ------------------------------------------------------------ */

static void f_finalize(MPI_Fint *ierror)
{
    OFF_GOES_TO_MPI(f_finalize, "mpi_finalize_", ierror);
    *ierror = MPI_Finalize();
}
FORTRAN_NAMES(f_finalize, finalize, MPI_FINALIZE);

#else

/* MPICH and the MPIs built from it: nothing here (see above). */
typedef int cc_pmpi_fortran_unused;

#endif

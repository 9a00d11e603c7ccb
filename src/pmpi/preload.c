/* libcartcoll_preload.so: the PMPI drop-in (seed 000, the one interface
 * set).  Added with LD_PRELOAD to an unmodified, dynamically linked
 * program, it routes
 *   MPI_Dist_graph_create_adjacent, MPI_Dist_graph_create
 *       -> Cart_dist_graph_create[_adjacent] (the same communicator, and the
 *          detection of stencil graphs);
 *   MPI_Cart_create -> PMPI (counted; its neighbourhood is derived by the
 *          first collective);
 *   the five MPI_Neighbor_* collectives, blocking (this file), non-blocking
 *   and MPI-4 persistent (nonblocking.c)
 *       -> the Cart_ collective of the same name on the same communicator:
 *          Cartesian schedules on Cartesian communicators (detected graphs,
 *          MPI_Cart_create), one message per edge on other graphs -- correct
 *          for repeated edges and periodic dimensions of size 1 and 2, where
 *          MPI implementations have been wrong;
 *   the calls that complete, start, free or query requests, and the
 *   blocking point-to-point calls, so that the drop-in's requests behave
 *   as MPI's and its operations progress while the program waits
 *   (requests.c, completion.c);
 *   on Open MPI, the Fortran bindings of the calls above that its Fortran
 *   layer sends straight to PMPI (fortran.c).
 * Built on the public API only.  Everything else goes to MPI.
 *
 * Environment: CARTCOLL_PRELOAD=off (everything to MPI), =passthrough (only
 * Cartesian communicators through cartcoll, other graphs to MPI), default
 * on; CARTCOLL_PRELOAD_REPORT=1: rank 0 prints one line at MPI_Finalize,
 *   cartcoll_preload: communicators S seen, C Cartesian; calls N, A accelerated
 * summed over MPI_COMM_WORLD (S: graph and Cartesian communicators made
 * through the drop-in, C: those with Cartesian schedules, N: intercepted
 * neighbourhood calls -- blocking, non-blocking, and each start of a
 * persistent one --, A: those that ran Cartesian schedules).
 *
 * The library itself calls MPI functions the drop-in defines (the detecting
 * graph constructors call MPI_Dist_graph_create_adjacent, requests call
 * MPI_Testall and MPI_Startall): the drop-in carries its own copy of the
 * library, built to call those through PMPI (cmake/CartcollPreload.cmake),
 * so the Cart_ calls below never come back into it. */
#include "pmpi/preload.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MODE_OFF, MODE_ON, MODE_PASSTHROUGH };
enum { KIND_OTHER = 1, KIND_GRAPH, KIND_CARTESIAN }; /* attribute values */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int mode = MODE_ON, report, threaded;
static int keyval = MPI_KEYVAL_INVALID;
static atomic_long seen, cartesian, calls, accelerated;

static void setup(void)
{
    const char *m = getenv("CARTCOLL_PRELOAD"), *r = getenv("CARTCOLL_PRELOAD_REPORT");
    if (m && !strcmp(m, "off")) mode = MODE_OFF;
    else if (m && !strcmp(m, "passthrough")) mode = MODE_PASSTHROUGH;
    report = r && *r && strcmp(r, "0") != 0;
    /* the table of requests locks only where threads may meet in MPI */
    int level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&level);
    threaded = level == MPI_THREAD_MULTIPLE;
    /* dups keep the classification (MPI_COMM_DUP_FN copies the value) */
    if (PMPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL) != MPI_SUCCESS)
        keyval = MPI_KEYVAL_INVALID;
}

int pl_on(void)
{
    pthread_once(&once, setup);
    return mode != MODE_OFF;
}

int pl_threaded(void) { return threaded; }

/* Whether Cart_ collectives run Cartesian schedules on a graph: the
 * schedule queries answer only there (MPI_ERR_TOPOLOGY on other graphs),
 * asked with errors returned, not raised. */
static int detected(MPI_Comm g)
{
    MPI_Errhandler eh;
    int phases, rounds, volume;
    PMPI_Comm_get_errhandler(g, &eh);
    PMPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
    int rc = Cart_schedule_stats(g, CART_ALLTOALL, CART_ALGORITHM_DIRECT, &phases, &rounds, &volume);
    PMPI_Comm_set_errhandler(g, eh);
    PMPI_Errhandler_free(&eh);
    return rc == MPI_SUCCESS;
}

static void remember(MPI_Comm c, int kind)
{
    if (keyval == MPI_KEYVAL_INVALID || c == MPI_COMM_NULL) return;
    PMPI_Comm_set_attr(c, keyval, (void *)(intptr_t)kind);
    atomic_fetch_add(&seen, 1);
    if (kind == KIND_CARTESIAN) atomic_fetch_add(&cartesian, 1);
}

/* What a communicator is, for a neighbourhood call (classified once; a
 * communicator made before the drop-in saw it is classified here). */
static int kind_of(MPI_Comm c)
{
    void *v = NULL;
    int flag = 0, topo = MPI_UNDEFINED;
    if (keyval != MPI_KEYVAL_INVALID && PMPI_Comm_get_attr(c, keyval, &v, &flag) == MPI_SUCCESS && flag)
        return (int)(intptr_t)v;
    if (PMPI_Topo_test(c, &topo) != MPI_SUCCESS) return KIND_OTHER;
    int kind = topo == MPI_CART ? KIND_CARTESIAN : topo == MPI_DIST_GRAPH || topo == MPI_GRAPH ? KIND_GRAPH : KIND_OTHER;
    if (keyval != MPI_KEYVAL_INVALID) PMPI_Comm_set_attr(c, keyval, (void *)(intptr_t)kind);
    return kind;
}

void pl_count(int cart)
{
    atomic_fetch_add(&calls, 1);
    if (cart) atomic_fetch_add(&accelerated, 1);
}

int pl_take(MPI_Comm comm, int count, int *is_cart)
{
    if (!pl_on()) return 0;
    int kind = kind_of(comm);
    if (kind == KIND_OTHER || (mode == MODE_PASSTHROUGH && kind != KIND_CARTESIAN)) return 0;
    if (count) pl_count(kind == KIND_CARTESIAN);
    if (is_cart) *is_cart = kind == KIND_CARTESIAN;
    return 1;
}

static int take(MPI_Comm comm) { return pl_take(comm, 1, NULL); }

/* Error codes with a sentence, made once per sentence (MPI_Add_error_code
 * codes are a scarce resource); the class alone if that fails. */
int pl_request_error(int cls, const char *what)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static const char *said[4];
    static int codes[4];
    int code = cls;
    pthread_mutex_lock(&mu);
    for (int i = 0; i < 4; i++) {
        if (said[i] == what) {
            code = codes[i];
            break;
        }
        if (!said[i]) {
            if (PMPI_Add_error_code(cls, &code) != MPI_SUCCESS || PMPI_Add_error_string(code, what) != MPI_SUCCESS)
                code = cls;
            said[i] = what, codes[i] = code;
            break;
        }
    }
    pthread_mutex_unlock(&mu);
    PMPI_Comm_call_errhandler(MPI_COMM_WORLD, code);
    return code;
}

/* ---- communicator constructors ------------------------------------------ */

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
                                   int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm *comm_dist_graph)
{
    if (!pl_on())
        return PMPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree, destinations,
                                               destweights, info, reorder, comm_dist_graph);
    int rc = Cart_dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree, destinations,
                                             destweights, info, reorder, comm_dist_graph);
    if (rc == MPI_SUCCESS) remember(*comm_dist_graph, detected(*comm_dist_graph) ? KIND_CARTESIAN : KIND_GRAPH);
    return rc;
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info, int reorder,
                          MPI_Comm *comm_dist_graph)
{
    if (!pl_on())
        return PMPI_Dist_graph_create(comm_old, n, sources, degrees, destinations, weights, info, reorder,
                                      comm_dist_graph);
    int rc = Cart_dist_graph_create(comm_old, n, sources, degrees, destinations, weights, info, reorder,
                                    comm_dist_graph);
    if (rc == MPI_SUCCESS) remember(*comm_dist_graph, detected(*comm_dist_graph) ? KIND_CARTESIAN : KIND_GRAPH);
    return rc;
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *comm_cart)
{
    int on = pl_on();
    int rc = PMPI_Cart_create(comm_old, ndims, dims, periods, reorder, comm_cart);
    if (on && rc == MPI_SUCCESS) remember(*comm_cart, KIND_CARTESIAN);
    return rc;
}

/* ---- the blocking neighbourhood collectives ----------------------------- */

int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm)
{
    if (!take(comm)) return PMPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return Cart_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    if (!take(comm))
        return PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
    return Cart_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm)
{
    if (!take(comm)) return PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return Cart_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                           void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                           MPI_Comm comm)
{
    if (!take(comm))
        return PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                       recvtype, comm);
    return Cart_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
}

int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    if (!take(comm))
        return PMPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                       recvtypes, comm);
    return Cart_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
}

/* ---- the report ----------------------------------------------------------- */

int MPI_Finalize(void)
{
    pthread_once(&once, setup);
    if (mode != MODE_OFF) pl_drain(); /* requests the program freed while active */
    if (report && mode != MODE_OFF) {
        long v[4] = { atomic_load(&seen), atomic_load(&cartesian), atomic_load(&calls), atomic_load(&accelerated) };
        long s[4] = { 0, 0, 0, 0 };
        int rank = 0;
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (PMPI_Reduce(v, s, 4, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD) == MPI_SUCCESS && rank == 0)
            fprintf(stderr, "cartcoll_preload: communicators %ld seen, %ld Cartesian; calls %ld, %ld accelerated\n",
                    s[0], s[1], s[2], s[3]);
    }
    return PMPI_Finalize();
}

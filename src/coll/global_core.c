/* The six [core] collectives on communicators without topology: their
 * arguments as MPI's global collectives take them (allgather(v) and
 * alltoall(v,w) directly, allgatherw as an alltoallw sending the one block
 * to every process).  MPI_Alltoallw counts displacements in int bytes: w
 * displacements are converted into arrays the request owns. */
#include "coll/coll.h"

#include "base/errors.h"

#include <limits.h>
#include <stdlib.h>

/* allgatherw: every destination gets (sendbuf, sendcount, sendtype). */
static int allgatherw_send(const cc_args *a, int n, cc_mpicall *c, int **ints, MPI_Datatype **types)
{
    int *counts = *ints;
    for (int i = 0; i < n; i++) {
        counts[i] = a->sendcount;
        counts[n + i] = 0;
        (*types)[i] = a->sendtype;
    }
    c->sendcounts = counts;
    c->sdispls = counts + n;
    c->sendtypes = *types;
    return MPI_SUCCESS;
}

/* The w variants: converted displacements (and allgatherw's send side) in
 * one allocation owned by the call. */
static int convert_w(const char *who, const cc_args *a, int n, cc_mpicall *c)
{
    size_t bytes = sizeof(int) * 4 * (size_t)n + sizeof(MPI_Datatype) * (size_t)n + 1;
    char *mem = malloc(bytes);
    if (!mem) return cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory", who);
    int *ints = (int *)mem;
    MPI_Datatype *types = (MPI_Datatype *)(mem + sizeof(int) * 4 * (size_t)n);
    const MPI_Aint *sd = a->collective == CC_ALLTOALL ? a->sdisplsw : NULL;
    int bad = -1;
    for (int side = 0; side < 2 && bad < 0; side++) {
        const MPI_Aint *d = side ? a->rdisplsw : sd;
        int *out = ints + (size_t)(side ? 3 : 2) * (size_t)n;
        for (int i = 0; i < n && d; i++) {
            if (d[i] > INT_MAX || d[i] < INT_MIN) bad = i;
            else out[i] = (int)d[i];
        }
        if (bad >= 0)
            return free(mem), cc_error_code(MPI_ERR_ARG, "%s: %s[%d] = %lld does not fit the int displacements of "
                                            "MPI_Alltoallw (global meaning)", who, side ? "rdispls" : "sdispls",
                                            bad, (long long)d[bad]);
    }
    c->owned = mem;
    c->rdispls = a->rdisplsw ? ints + 3 * (size_t)n : NULL;
    c->recvcounts = a->recvcounts;
    c->recvtypes = a->recvtypes;
    if (a->collective == CC_ALLTOALL) {
        c->sendcounts = a->sendcounts;
        c->sdispls = sd ? ints + 2 * (size_t)n : NULL;
        c->sendtypes = a->sendtypes;
        return MPI_SUCCESS;
    }
    return allgatherw_send(a, n, c, &ints, &types);
}

int cc_global_core(const char *who, const cc_args *a, MPI_Comm comm, int inter, int mode, MPI_Info info,
                   Cart_request *request)
{
    cc_mpicall c = { .sendbuf = a->sendbuf, .recvbuf = a->recvbuf, .sendcount = a->sendcount,
                     .recvcount = a->recvcount, .sendtype = a->sendtype, .recvtype = a->recvtype,
                     .sendcounts = a->sendcounts, .recvcounts = a->recvcounts, .sdispls = a->sdispls,
                     .rdispls = a->rdispls, .comm = comm };
    const cc_coll *k;
    if (a->variant == CC_REGULAR) k = a->collective == CC_ALLGATHER ? &cc_coll_allgather : &cc_coll_alltoall;
    else if (a->variant == CC_VECTOR) k = a->collective == CC_ALLGATHER ? &cc_coll_allgatherv : &cc_coll_alltoallv;
    else {
        if (a->collective == CC_ALLGATHER && a->sendbuf == MPI_IN_PLACE)
            return cc_error(comm, MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is not supported by Cart_allgatherw on a "
                            "communicator without topology (MPI has no allgatherw to delegate to)", who);
        int n;
        if (inter) MPI_Comm_remote_size(comm, &n);
        else MPI_Comm_size(comm, &n);
        int rc = convert_w(who, a, n, &c);
        if (rc != MPI_SUCCESS) return cc_error_raise(comm, rc);
        k = &cc_coll_alltoallw;
    }
    return cc_global_run(k, who, &c, inter, mode, info, request);
}

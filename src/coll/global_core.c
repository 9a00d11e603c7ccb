/* The w calls with global meaning, as MPI's collective takes them
 * (coll.h: cc_global_w): MPI_Alltoallw counts displacements in int bytes
 * where the Cart_ w calls have MPI_Aint, and MPI has no allgatherw, which
 * runs as an alltoallw sending the one block to every process (its
 * descriptor's `via`).  The converted arrays live in one allocation the
 * run owns.  The other collectives reach MPI with their arguments as
 * they are. */
#include "coll/coll.h"

#include "base/errors.h"

#include <limits.h>
#include <stdlib.h>

/* allgatherw: every destination gets (sendbuf, sendcount, sendtype). */
static void allgatherw_send(const cc_call *a, int n, cc_call *c, int *counts, MPI_Datatype *types)
{
    for (int i = 0; i < n; i++) {
        counts[i] = a->sendcount;
        counts[n + i] = 0;
        types[i] = a->sendtype;
    }
    c->sendcounts = counts;
    c->sdispls = counts + n;
    c->sendtypes = types;
}

/* Byte displacements d[0..n) as ints in out; -1, or the first that does
 * not fit. */
static int to_int(const MPI_Aint *d, int n, int *out)
{
    for (int i = 0; i < n && d; i++) {
        if (d[i] > INT_MAX || d[i] < INT_MIN) return i;
        out[i] = (int)d[i];
    }
    return -1;
}

/* (coll/coll.h) */
int cc_global_w(const char *who, const cc_call *a, int inter, cc_mpirun *m)
{
    cc_call *c = &m->call;
    int all = a->coll->via != NULL; /* allgatherw */
    if (all && a->sendbuf == MPI_IN_PLACE)
        return cc_error_code(MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is not supported by Cart_allgatherw on a communicator "
                             "without topology (MPI has no allgatherw to delegate to)", who);
    int n;
    if (inter) MPI_Comm_remote_size(a->comm, &n);
    else MPI_Comm_size(a->comm, &n);
    size_t bytes = sizeof(int) * 4 * (size_t)n + sizeof(MPI_Datatype) * (size_t)n + 1;
    char *mem = malloc(bytes);
    if (!mem) return cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory", who);
    int *ints = (int *)mem;
    MPI_Datatype *types = (MPI_Datatype *)(mem + sizeof(int) * 4 * (size_t)n);
    const MPI_Aint *sd = all ? NULL : a->sdisplsw;
    for (int side = 0; side < 2; side++) {
        const MPI_Aint *d = side ? a->rdisplsw : sd;
        int bad = to_int(d, n, ints + (size_t)(side ? 3 : 2) * (size_t)n);
        if (bad >= 0)
            return free(mem), cc_error_code(MPI_ERR_ARG, "%s: %s[%d] = %lld does not fit the int displacements of "
                                            "MPI_Alltoallw (global meaning)", who, side ? "rdispls" : "sdispls",
                                            bad, (long long)d[bad]);
    }
    m->owned = mem;
    c->coll = all ? a->coll->via : a->coll;
    c->sdisplsw = c->rdisplsw = NULL;
    c->rdispls = a->rdisplsw ? ints + 3 * (size_t)n : NULL;
    if (all) allgatherw_send(a, n, c, ints, types);
    else c->sdispls = sd ? ints + 2 * (size_t)n : NULL;
    return MPI_SUCCESS;
}

/* In-place alltoallv / alltoallw with global meaning, non-blocking and
 * persistent (defect D8, tests/mpi/README.md).  Open MPI 4.1's libnbc
 * returns a finished
 * request from an in-place MPI_Ialltoallv / MPI_Ialltoallw (and
 * MPIX_Alltoallv_init / MPIX_Alltoallw_init) at a process whose receive
 * blocks are all empty, without taking the communicator's next
 * non-blocking tag, which the processes with data take: from then on every
 * non-blocking collective on the communicator waits for messages under
 * tags the others never use (it hangs).  MPICH 4.0's in-place
 * MPI_Ialltoallw / MPI_Alltoallw_init deliver wrong data where the receive
 * types differ in size from block to block (its in-place schedule takes
 * the size of recvtypes[i], the loop index, for the block of peer dst).  The blocking calls and the calls
 * without MPI_IN_PLACE are right on both.
 *
 * Route: MPI's non-blocking call without MPI_IN_PLACE.  At each start the
 * receive blocks are packed (MPI_Pack) into scratch memory planned at the
 * call, and sent from there as MPI_PACKED, which matches any receive type
 * of the packed signature; the receive side is the caller's.  Every
 * process passes MPI_IN_PLACE (MPI requires it of all), so all take the
 * route and take the same tags.  Persistent requests start the
 * non-blocking call too (MPI's persistent form has the same defect). */
#include "api/front.h"

#include "base/errors.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

/* Which calls take the route.  Open MPI 4.1.4 and MPICH 4.0.2 are affected
 * (tested); upstream's libnbc takes the tag on that early return in later
 * releases, but those are not verified here, so Open MPI up to 5.x and
 * MPICH up to 4.x keep the route. */
#if defined(OPEN_MPI) && OPEN_MPI && defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION <= 5
#define CC_ROUTE_V 1 /* alltoallv */
#define CC_ROUTE_W 1 /* alltoallw */
#elif defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 50000000
#define CC_ROUTE_V 0
#define CC_ROUTE_W 1
#else
#define CC_ROUTE_V 0
#define CC_ROUTE_W 0
#endif

#if CC_ROUTE_V || CC_ROUTE_W
/* The packed send side, in c->scratch: counts and displacements (bytes)
 * of each destination's block, filled at each start. */
typedef struct inplace_route {
    int n, cap;
    MPI_Aint extent;     /* alltoallv: the receive type's (displacements count in it) */
    int *counts, *displs;
    MPI_Datatype *types; /* alltoallw: MPI_PACKED n times */
    char *packed;
} inplace_route;

static int pack_blocks(const cc_mpicall *c, inplace_route *s, int w)
{
    int pos = 0;
    for (int i = 0; i < s->n; i++) {
        s->displs[i] = pos;
        if (c->recvcounts[i] > 0) {
            /* Integer arithmetic: recvbuf may be MPI_BOTTOM (absolute types). */
            MPI_Aint off = w ? (MPI_Aint)c->rdispls[i] : (MPI_Aint)c->rdispls[i] * s->extent;
            void *at = (void *)(uintptr_t)((uintptr_t)c->recvbuf + (uintptr_t)off);
            int rc = MPI_Pack(at, c->recvcounts[i], w ? c->recvtypes[i] : c->recvtype, s->packed, s->cap, &pos,
                              c->comm);
            if (rc != MPI_SUCCESS) return rc;
        }
        s->counts[i] = pos - s->displs[i];
    }
    return MPI_SUCCESS;
}

#if CC_ROUTE_V
static int istart_alltoallv(const cc_mpicall *c, MPI_Request *rq)
{
    inplace_route *s = c->scratch;
    int rc = pack_blocks(c, s, 0);
    if (rc != MPI_SUCCESS) return rc;
    return MPI_Ialltoallv(s->packed, s->counts, s->displs, MPI_PACKED, c->recvbuf, c->recvcounts, c->rdispls,
                          c->recvtype, c->comm, rq);
}
#else
#define istart_alltoallv NULL
#endif

#if CC_ROUTE_W
static int istart_alltoallw(const cc_mpicall *c, MPI_Request *rq)
{
    inplace_route *s = c->scratch;
    int rc = pack_blocks(c, s, 1);
    if (rc != MPI_SUCCESS) return rc;
    return MPI_Ialltoallw(s->packed, s->counts, s->displs, s->types, c->recvbuf, c->recvcounts, c->rdispls,
                          c->recvtypes, c->comm, rq);
}
#else
#define istart_alltoallw NULL
#endif
#endif

int cc_global_inplace(const cc_coll *coll, const char *who, cc_mpicall *c, int *routed)
{
    *routed = 0;
#if CC_ROUTE_V || CC_ROUTE_W
    int w = coll == &cc_coll_alltoallw, n;
    if (c->sendbuf != MPI_IN_PLACE || !(w ? CC_ROUTE_W : CC_ROUTE_V && coll == &cc_coll_alltoallv))
        return MPI_SUCCESS;
    MPI_Comm_size(c->comm, &n);
    if (n < 2) return MPI_SUCCESS; /* no other process to fall out of step with */
    MPI_Aint total = 0, lb, extent = 0;
    if (!w && MPI_Type_get_extent(c->recvtype, &lb, &extent) != MPI_SUCCESS)
        return cc_error_code(MPI_ERR_TYPE, "%s: recvtype: MPI_Type_get_extent failed", who);
    for (int i = 0; i < n; i++) {
        int size = 0;
        if (c->recvcounts[i] > 0 &&
            MPI_Pack_size(c->recvcounts[i], w ? c->recvtypes[i] : c->recvtype, c->comm, &size) != MPI_SUCCESS)
            return cc_error_code(MPI_ERR_COUNT, "%s: recvcounts[%d] = %d: MPI_Pack_size failed", who, i,
                                 c->recvcounts[i]);
        total += size;
    }
    if (total > INT_MAX)
        return cc_error_code(MPI_ERR_COUNT,
                             "%s: with MPI_IN_PLACE the receive blocks are sent from a packed copy (this MPI's "
                             "in-place non-blocking %s is wrong), which cannot exceed INT_MAX bytes (here %lld); "
                             "use a separate send buffer or the blocking call",
                             who, coll->name, (long long)total);
    size_t nb = sizeof(inplace_route) + sizeof(MPI_Datatype) * (size_t)n + sizeof(int) * 2 * (size_t)n;
    char *mem = malloc(nb + (size_t)total + 1);
    if (!mem) return cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory", who);
    inplace_route *s = (inplace_route *)mem;
    s->n = n;
    s->cap = (int)total;
    s->extent = extent;
    s->types = (MPI_Datatype *)(mem + sizeof(inplace_route));
    s->counts = (int *)(s->types + n);
    s->displs = s->counts + n;
    s->packed = mem + nb;
    for (int i = 0; i < n; i++) s->types[i] = MPI_PACKED;
    c->scratch = s;
    c->istart = w ? istart_alltoallw : istart_alltoallv;
    *routed = 1;
#else
    (void)coll;
    (void)who;
    (void)c;
#endif
    return MPI_SUCCESS;
}

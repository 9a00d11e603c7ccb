/* Routes around MPI collectives that are wrong (global and inter-
 * communicator meaning).  With global meaning a Cart_ collective is MPI's
 * own (global.c); where the MPI underneath gives wrong results for a
 * combination, and MPI calls that are right can give the same result, the
 * call takes that route instead; where none exists it is refused
 * (MPI_ERR_UNSUPPORTED_OPERATION with a sentence) -- never wrong data in
 * silence.  Each route is guarded by the MPI it concerns.  test_mpibugs
 * finds the combinations (tests/mpi/README.md, "MPI defects worked
 * around"); include/cartcoll.h ("One interface set") lists them.
 *
 * A route replaces c->istart (the call started at each start of a
 * non-blocking or persistent request; MPI's persistent collective is then
 * not used) and keeps what it needs in c->owned or c->scratch, allocated
 * here, at the call or the _init: a start allocates nothing. */
#include "api/front.h"

#include "base/errors.h"

#include <stdlib.h>
#include <string.h>

#ifdef MPICH_VERSION
/* MPICH (4.0, and its sources to this day: ibcast_inter_sched_flat.c):
 * MPI_Ibcast on an inter-communicator -- and so cartcoll's persistent
 * bcast there, which starts MPI_Ibcast -- runs the receiving group's local
 * broadcast from the root's remote rank instead of from its rank 0, which
 * alone received the data: with a root other than rank 0 of its group the
 * receivers end with what their process of the root's rank held (nothing
 * new; with a derived datatype even a receiving group of one process gets
 * stale data), and every call returns MPI_SUCCESS.  The blocking MPI_Bcast is
 * right.  Route: MPI_Ialltoallv, in which the root sends its buffer to
 * every process of the other group and nobody else sends anything.  The
 * root's own group passes MPI_PROC_NULL except at the root, so those
 * processes cannot tell whether the root is rank 0: every non-blocking and
 * persistent inter-communicator bcast takes the route. */
static int bcast_by_alltoallv(const cc_mpicall *c, MPI_Request *rq)
{
    return MPI_Ialltoallv(c->sendbuf, c->sendcounts, c->sdispls, c->sendtype, c->recvbuf, c->recvcounts,
                          c->rdispls, c->recvtype, c->comm, rq);
}

static int route_inter_bcast(const char *who, cc_mpicall *c)
{
    int n;
    MPI_Comm_remote_size(c->comm, &n);
    /* sendcounts, sdispls, recvcounts, rdispls, and two ints standing for
     * the buffer of the side that carries nothing (distinct, not NULL) */
    int *a = calloc(4 * (size_t)n + 2, sizeof(int));
    if (!a) return cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory", who);
    void *buf = c->recvbuf;
    int count = c->recvcount;
    MPI_Datatype type = c->recvtype;
    c->owned = a; /* bcast's call owns nothing else */
    c->sendcounts = a;
    c->sdispls = a + n;
    c->recvcounts = a + 2 * (size_t)n;
    c->rdispls = a + 3 * (size_t)n;
    c->sendbuf = a + 4 * (size_t)n;
    c->recvbuf = a + 4 * (size_t)n + 1;
    c->sendtype = c->recvtype = MPI_BYTE;
    if (c->root == MPI_ROOT) { /* the root: its buffer to every remote process */
        for (int j = 0; j < n; j++) a[j] = count;
        c->sendbuf = buf;
        c->sendtype = type;
    } else if (c->root >= 0) { /* the receiving group: from the root */
        a[2 * (size_t)n + (size_t)c->root] = count;
        c->recvbuf = buf;
        c->recvtype = type;
    } /* MPI_PROC_NULL: nothing */
    c->istart = bcast_by_alltoallv;
    return MPI_SUCCESS;
}

/* MPICH 4.0: the blocking MPI_Reduce with MPI_IN_PLACE at a root other
 * than rank 0 crashes (segmentation fault inside MPI_Reduce) once the
 * buffer exceeds 512 ints (2 KiB, where MPICH changes algorithm); MPI_Ireduce
 * and MPI_Reduce_init are right.  Route: the root passes a copy of its
 * receive buffer as the send buffer (the span its datatype covers, copied
 * byte for byte right before the call, freed with the call).  Only the root
 * passes MPI_IN_PLACE, and nothing changes for the other processes. */
static int route_reduce_in_place(const char *who, cc_mpicall *c)
{
    int rank;
    MPI_Comm_rank(c->comm, &rank);
    if (rank != c->root || !c->recvbuf) return MPI_SUCCESS; /* erroneous: MPI reports it */
    MPI_Aint lb, extent, tlb, textent;
    MPI_Type_get_extent(c->recvtype, &lb, &extent);
    MPI_Type_get_true_extent(c->recvtype, &tlb, &textent);
    if (c->recvcount == 0 || textent == 0) return MPI_SUCCESS;
    MPI_Aint span = (MPI_Aint)(c->recvcount - 1) * extent + textent; /* from recvbuf + tlb on */
    if (extent < 0) return MPI_SUCCESS; /* negative extents: left to MPI (not seen in the crash) */
    char *copy = malloc((size_t)span);
    if (!copy) return cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory", who);
    memcpy(copy, (const char *)c->recvbuf + tlb, (size_t)span);
    c->owned = copy; /* reduce's call owns nothing else */
    c->sendbuf = copy - tlb;
    return MPI_SUCCESS;
}
#endif

#ifdef OPEN_MPI
/* Open MPI (4.1, libnbc): MPI_Ibarrier on an inter-communicator -- and so
 * cartcoll's persistent barrier there -- lets a process leave before every
 * process of the other group entered (test_mpibugs: 2 + 2 groups, rank 1
 * late).  Route: MPI_Iallreduce of one int over the inter-communicator;
 * each process's result is reduced from every process of the other group,
 * so none completes before all of them entered. */
static int barrier_by_iallreduce(const cc_mpicall *c, MPI_Request *rq)
{
    return MPI_Iallreduce(c->sendbuf, c->recvbuf, 1, MPI_INT, MPI_SUM, c->comm, rq);
}

static int route_inter_barrier(const char *who, cc_mpicall *c)
{
    int *a = calloc(2, sizeof(int));
    if (!a) return cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory", who);
    c->owned = a; /* barrier's call owns nothing else */
    c->sendbuf = a;
    c->recvbuf = a + 1;
    c->istart = barrier_by_iallreduce;
    return MPI_SUCCESS;
}
#endif

#ifdef OPEN_MPI
/* Open MPI 4.1 (libnbc): MPI_Ireduce and MPIX_Reduce_init with a datatype
 * whose true lower bound is not 0 write past the end of a temporary buffer
 * of libnbc's: heap corruption, though the result is right (AddressSanitizer
 * in test_mpibugs: 3 processes, root 1, one int at byte 4 of an 8-byte
 * extent; plain MPI shows it at 3 to 8 processes, roots other than 0).
 * MPI_Iallreduce, MPI_Iscan, MPI_Iexscan and MPI_Ireduce_scatter(_block)
 * are clean with the same types.  Route: MPI_Iallreduce; processes other
 * than the root take the result into scratch planned at the call, a root
 * with MPI_IN_PLACE sends from a copy of its receive buffer's span made at
 * each start.  Every process takes it: a reduction's datatype and count are
 * the same everywhere (MPI's rule), so all decide alike. */
typedef struct reduce_route {
    MPI_Aint tlb, span; /* true lower bound; bytes from it that count elements cover */
    int here;           /* this process is the root */
    char mem[];         /* span bytes */
} reduce_route;

static int reduce_by_iallreduce(const cc_mpicall *c, MPI_Request *rq)
{
    reduce_route *s = c->scratch;
    const void *sb = c->sendbuf;
    void *rb = c->recvbuf;
    if (!s->here) rb = s->mem - s->tlb;
    else if (sb == MPI_IN_PLACE) {
        memcpy(s->mem, (const char *)rb + s->tlb, (size_t)s->span);
        sb = s->mem - s->tlb;
    }
    return MPI_Iallreduce(sb, rb, c->recvcount, c->recvtype, c->op, c->comm, rq);
}

static int route_reduce_gap(const char *who, cc_mpicall *c)
{
    MPI_Aint lb, extent, tlb, textent;
    MPI_Type_get_extent(c->recvtype, &lb, &extent);
    MPI_Type_get_true_extent(c->recvtype, &tlb, &textent);
    if (tlb == 0 || c->recvcount == 0 || textent <= 0 || extent <= 0) return MPI_SUCCESS;
    int rank;
    MPI_Comm_rank(c->comm, &rank);
    MPI_Aint span = (MPI_Aint)(c->recvcount - 1) * extent + textent;
    reduce_route *s = malloc(sizeof *s + (size_t)span);
    if (!s) return cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory", who);
    s->tlb = tlb;
    s->span = span;
    s->here = rank == c->root;
    c->scratch = s;
    c->istart = reduce_by_iallreduce;
    return MPI_SUCCESS;
}
#endif

int cc_global_route(const cc_coll *coll, const char *who, cc_mpicall *c, int inter, int mode)
{
    (void)coll, (void)who, (void)c;
#ifdef MPICH_VERSION
    if (mode == CC_MODE_BLOCKING && !inter && coll == &cc_coll_reduce && c->sendbuf == MPI_IN_PLACE && c->root != 0)
        return route_reduce_in_place(who, c);
#endif
#ifdef OPEN_MPI
    if (mode != CC_MODE_BLOCKING && !inter && coll == &cc_coll_reduce) return route_reduce_gap(who, c);
#endif
    if (mode == CC_MODE_BLOCKING || !inter) return MPI_SUCCESS; /* nothing else found wrong there */
#ifdef MPICH_VERSION
    if (coll == &cc_coll_bcast) return route_inter_bcast(who, c);
#endif
#ifdef OPEN_MPI
    if (coll == &cc_coll_barrier) return route_inter_barrier(who, c);
#endif
    return MPI_SUCCESS;
}

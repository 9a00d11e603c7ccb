/* Routes around MPI collectives that are wrong (global and inter-
 * communicator meaning), as one table.  With global meaning a Cart_
 * collective is MPI's own (global.c); where the MPI underneath gives wrong
 * results for a combination, and MPI calls that are right can give the
 * same result, the call takes that route instead -- never wrong data in
 * silence.  test_mpibugs and test_inplace_nbc find the combinations
 * (tests/mpi/README.md, "MPI bugs the library routes around");
 * include/cartcoll.h ("One interface set") lists them.
 *
 * One row per defect: the collective, the modes, inter- or intra-
 * communicator, in place or not, the MPI (flavour and versions) that has
 * the defect, a further condition on the call (root, datatype, size), the
 * route, the defect and the test that fails without the route.
 * cc_global_route, the one place that reads the table, takes the first
 * row that matches; no call matches two.  Every route compiles on every
 * MPI (they call only standard MPI functions); a row is live only on the
 * MPI it names.
 *
 * A route replaces m->istart (the call started at each start of a
 * non-blocking or persistent request; MPI's persistent collective is then
 * not used) and keeps what it needs in m->owned or m->scratch, allocated
 * here, at the call or the _init: a start allocates nothing. */
#include "coll/coll.h"

#include "base/errors.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- which MPI: 1 on the MPI named, 0 elsewhere ---------------------------- */

#if defined(OPEN_MPI) && OPEN_MPI
#define ON_OPEN_MPI 1
/* D8: Open MPI 4.1.4 is affected (tested); upstream's libnbc takes the tag
 * on that early return in later releases, but those are not verified here,
 * so Open MPI up to 5.x keeps the route. */
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION <= 5
#define ON_OPEN_MPI_TO_5 1
#endif
#endif
#ifdef MPICH_VERSION
#define ON_MPICH 1
/* D8 on MPICH: 4.0.2 is affected (tested), 4.x keeps the route. */
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 50000000
#define ON_MPICH_TO_4 1
#endif
#endif
#ifndef ON_OPEN_MPI
#define ON_OPEN_MPI 0
#endif
#ifndef ON_OPEN_MPI_TO_5
#define ON_OPEN_MPI_TO_5 0
#endif
#ifndef ON_MPICH
#define ON_MPICH 0
#endif
#ifndef ON_MPICH_TO_4
#define ON_MPICH_TO_4 0
#endif

/* ---- inter-communicator bcast (MPICH, D5) ---------------------------------- */

static int bcast_by_alltoallv(const cc_mpirun *m, MPI_Request *rq)
{
    const cc_call *c = &m->call;
    return MPI_Ialltoallv(c->sendbuf, c->sendcounts, c->sdispls, c->sendtype, c->recvbuf, c->recvcounts,
                          c->rdispls, c->recvtype, c->comm, rq);
}

/* MPI_Ialltoallv in which the root sends its buffer to every process of
 * the other group and nobody else sends anything.  The root's own group
 * passes MPI_PROC_NULL except at the root, so those processes cannot tell
 * whether the root is rank 0: every call takes the route. */
static int route_inter_bcast(const char *who, cc_mpirun *m)
{
    cc_call *c = &m->call;
    int n;
    MPI_Comm_remote_size(c->comm, &n);
    /* sendcounts, sdispls, recvcounts, rdispls, and two ints standing for
     * the buffer of the side that carries nothing (distinct, not NULL) */
    int *a = calloc(4 * (size_t)n + 2, sizeof(int));
    if (!a) return cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory", who);
    void *buf = c->recvbuf;
    int count = c->recvcount;
    MPI_Datatype type = c->recvtype;
    m->owned = a; /* bcast's call owns nothing else */
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
    m->istart = bcast_by_alltoallv;
    return MPI_SUCCESS;
}

/* ---- blocking reduce in place at a root other than 0 (MPICH) --------------- */

static int root_not_0(const cc_call *c) { return c->root != 0; }

/* The root passes a copy of its receive buffer as the send buffer (the span
 * its datatype covers, copied byte for byte right before the call, freed
 * with the call).  Only the root passes MPI_IN_PLACE, and nothing changes
 * for the other processes. */
static int route_reduce_in_place(const char *who, cc_mpirun *m)
{
    cc_call *c = &m->call;
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
    m->owned = copy; /* reduce's call owns nothing else */
    c->sendbuf = copy - tlb;
    return MPI_SUCCESS;
}

/* ---- inter-communicator barrier (Open MPI) --------------------------------- */

static int barrier_by_iallreduce(const cc_mpirun *m, MPI_Request *rq)
{
    const cc_call *c = &m->call;
    return MPI_Iallreduce(c->sendbuf, c->recvbuf, 1, MPI_INT, MPI_SUM, c->comm, rq);
}

/* MPI_Iallreduce of one int over the inter-communicator: each process's
 * result is reduced from every process of the other group, so none
 * completes before all of them entered. */
static int route_inter_barrier(const char *who, cc_mpirun *m)
{
    cc_call *c = &m->call;
    int *a = calloc(2, sizeof(int));
    if (!a) return cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory", who);
    m->owned = a; /* barrier's call owns nothing else */
    c->sendbuf = a;
    c->recvbuf = a + 1;
    m->istart = barrier_by_iallreduce;
    return MPI_SUCCESS;
}

/* ---- non-blocking reduce on a datatype with a gap (Open MPI) --------------- */

/* The datatype's true lower bound is not 0 (and there is something to
 * reduce).  A reduction's datatype and count are the same everywhere
 * (MPI's rule), so all processes decide alike. */
static int type_has_gap(const cc_call *c)
{
    MPI_Aint lb, extent, tlb, textent;
    MPI_Type_get_extent(c->recvtype, &lb, &extent);
    MPI_Type_get_true_extent(c->recvtype, &tlb, &textent);
    return tlb != 0 && c->recvcount != 0 && textent > 0 && extent > 0;
}

typedef struct reduce_route {
    MPI_Aint tlb, span; /* true lower bound; bytes from it that count elements cover */
    int here;           /* this process is the root */
    char mem[];         /* span bytes */
} reduce_route;

static int reduce_by_iallreduce(const cc_mpirun *m, MPI_Request *rq)
{
    const cc_call *c = &m->call;
    reduce_route *s = m->scratch;
    const void *sb = c->sendbuf;
    void *rb = c->recvbuf;
    if (!s->here) rb = s->mem - s->tlb;
    else if (sb == MPI_IN_PLACE) {
        memcpy(s->mem, (const char *)rb + s->tlb, (size_t)s->span);
        sb = s->mem - s->tlb;
    }
    return MPI_Iallreduce(sb, rb, c->recvcount, c->recvtype, c->op, c->comm, rq);
}

/* MPI_Iallreduce; processes other than the root take the result into
 * scratch planned at the call, a root with MPI_IN_PLACE sends from a copy
 * of its receive buffer's span made at each start. */
static int route_reduce_gap(const char *who, cc_mpirun *m)
{
    cc_call *c = &m->call;
    MPI_Aint lb, extent, tlb, textent;
    MPI_Type_get_extent(c->recvtype, &lb, &extent);
    MPI_Type_get_true_extent(c->recvtype, &tlb, &textent);
    int rank;
    MPI_Comm_rank(c->comm, &rank);
    MPI_Aint span = (MPI_Aint)(c->recvcount - 1) * extent + textent;
    reduce_route *s = malloc(sizeof *s + (size_t)span);
    if (!s) return cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory", who);
    s->tlb = tlb;
    s->span = span;
    s->here = rank == c->root;
    m->scratch = s;
    m->istart = reduce_by_iallreduce;
    return MPI_SUCCESS;
}

/* ---- in-place non-blocking alltoallv / alltoallw (D8) ---------------------- */

/* Two processes at least: with one there is no other process to fall out
 * of step with (Open MPI), no other block to mix up (MPICH). */
static int several(const cc_call *c)
{
    int n;
    MPI_Comm_size(c->comm, &n);
    return n >= 2;
}

/* The packed send side, in m->scratch: counts and displacements (bytes)
 * of each destination's block, filled at each start. */
typedef struct inplace_route {
    int n, cap;
    MPI_Aint extent;     /* alltoallv: the receive type's (displacements count in it) */
    int *counts, *displs;
    MPI_Datatype *types; /* alltoallw: MPI_PACKED n times */
    char *packed;
} inplace_route;

static int pack_blocks(const cc_call *c, inplace_route *s, int w)
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

static int istart_alltoallv(const cc_mpirun *m, MPI_Request *rq)
{
    const cc_call *c = &m->call;
    inplace_route *s = m->scratch;
    int rc = pack_blocks(c, s, 0);
    if (rc != MPI_SUCCESS) return rc;
    return MPI_Ialltoallv(s->packed, s->counts, s->displs, MPI_PACKED, c->recvbuf, c->recvcounts, c->rdispls,
                          c->recvtype, c->comm, rq);
}

static int istart_alltoallw(const cc_mpirun *m, MPI_Request *rq)
{
    const cc_call *c = &m->call;
    inplace_route *s = m->scratch;
    int rc = pack_blocks(c, s, 1);
    if (rc != MPI_SUCCESS) return rc;
    return MPI_Ialltoallw(s->packed, s->counts, s->displs, s->types, c->recvbuf, c->recvcounts, c->rdispls,
                          c->recvtypes, c->comm, rq);
}

/* Bytes the receive blocks take packed (*total), or an error code. */
static int packed_size(const char *who, const cc_call *c, int n, int w, MPI_Aint *total)
{
    *total = 0;
    for (int i = 0; i < n; i++) {
        int size = 0;
        if (c->recvcounts[i] > 0 &&
            MPI_Pack_size(c->recvcounts[i], w ? c->recvtypes[i] : c->recvtype, c->comm, &size) != MPI_SUCCESS)
            return cc_error_code(MPI_ERR_COUNT, "%s: recvcounts[%d] = %d: MPI_Pack_size failed", who, i,
                                 c->recvcounts[i]);
        *total += size;
    }
    if (*total > INT_MAX)
        return cc_error_code(MPI_ERR_COUNT,
                             "%s: with MPI_IN_PLACE the receive blocks are sent from a packed copy (this MPI's "
                             "in-place non-blocking %s is wrong), which cannot exceed INT_MAX bytes (here %lld); "
                             "use a separate send buffer or the blocking call",
                             who, c->coll->name, (long long)*total);
    return MPI_SUCCESS;
}

/* MPI's non-blocking call without MPI_IN_PLACE.  At each start the receive
 * blocks are packed (MPI_Pack) into scratch memory planned here and sent
 * from there as MPI_PACKED, which matches any receive type of the packed
 * signature; the receive side is the caller's.  Every process passes
 * MPI_IN_PLACE (MPI requires it of all), so all take the route and take
 * the same tags.  Persistent requests start the non-blocking call too
 * (MPI's persistent form has the same defect). */
static int route_inplace_alltoall(const char *who, cc_mpirun *m)
{
    cc_call *c = &m->call;
    int w = c->coll == &cc_coll_alltoallw, n, rc;
    MPI_Comm_size(c->comm, &n);
    MPI_Aint total = 0, lb, extent = 0;
    if (!w && MPI_Type_get_extent(c->recvtype, &lb, &extent) != MPI_SUCCESS)
        return cc_error_code(MPI_ERR_TYPE, "%s: recvtype: MPI_Type_get_extent failed", who);
    if ((rc = packed_size(who, c, n, w, &total)) != MPI_SUCCESS) return rc;
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
    m->scratch = s;
    m->istart = w ? istart_alltoallw : istart_alltoallv;
    return MPI_SUCCESS;
}

/* ---- the table --------------------------------------------------------------- */

#define BLOCKING (1u << CC_MODE_BLOCKING)
#define STARTED ((1u << CC_MODE_NONBLOCKING) | (1u << CC_MODE_PERSISTENT)) /* non-blocking and persistent */
enum { INTRA, INTER };
enum { ANY_SEND, IN_PLACE };

typedef struct route {
    const cc_coll *coll;
    unsigned modes;                                  /* BLOCKING, STARTED */
    int inter;                                       /* INTRA or INTER communicators */
    int in_place;                                    /* IN_PLACE: only with MPI_IN_PLACE as sendbuf */
    int live;                                        /* the MPI with the defect: ON_* (1 there) */
    int (*when)(const cc_call *c);                /* a further condition, NULL: none */
    int (*route)(const char *who, cc_mpirun *m);
    const char *defect;                              /* what the MPI gets wrong */
    const char *shown_by;                            /* the test that fails without the route */
} route;

static const route routes[] = {
    { &cc_coll_bcast, STARTED, INTER, ANY_SEND, ON_MPICH, NULL, route_inter_bcast,
      "D5: MPICH 4.0 (and its sources since: ibcast_inter_sched_flat.c) MPI_Ibcast on an inter-communicator "
      "broadcasts in the receiving group from the root's remote rank instead of its rank 0: stale data, "
      "MPI_SUCCESS (the blocking MPI_Bcast is right)",
      "mpibugs_np4 (inter 2 + 2 and 1 + 3, roots not 0), mpibugs_np3 (inter 1 + 2)" },
    { &cc_coll_reduce, BLOCKING, INTRA, IN_PLACE, ON_MPICH, root_not_0, route_reduce_in_place,
      "MPICH 4.0: the blocking MPI_Reduce with MPI_IN_PLACE at a root other than 0 crashes (segmentation "
      "fault) beyond 512 ints, where MPICH changes algorithm (MPI_Ireduce, MPI_Reduce_init are right)",
      "mpibugs_scale_np4 (intra reduce, blocking, MPI_IN_PLACE, root 1)" },
    { &cc_coll_barrier, STARTED, INTER, ANY_SEND, ON_OPEN_MPI, NULL, route_inter_barrier,
      "Open MPI 4.1 (libnbc): MPI_Ibarrier on an inter-communicator lets a process leave before every "
      "process of the other group entered",
      "mpibugs_np4 (inter 2 + 2, rank 1 late)" },
    { &cc_coll_reduce, STARTED, INTRA, ANY_SEND, ON_OPEN_MPI, type_has_gap, route_reduce_gap,
      "Open MPI 4.1 (libnbc): MPI_Ireduce and MPIX_Reduce_init on a datatype whose true lower bound is not "
      "0 write past a temporary buffer of libnbc's (heap corruption; the result is right)",
      "mpibugs_np3, mpibugs_scale_np4/np6 under scripts/sanitize.sh (heap-buffer-overflow)" },
    { &cc_coll_alltoallv, STARTED, INTRA, IN_PLACE, ON_OPEN_MPI_TO_5, several, route_inplace_alltoall,
      "D8: Open MPI 4.1 (libnbc): an in-place MPI_Ialltoallv / MPIX_Alltoallv_init at a process whose "
      "receive blocks are all empty does not take the communicator's next non-blocking tag: later "
      "non-blocking collectives hang",
      "inplace_nbc_np2..np4 (hang), mpibugs_scale_np6" },
    { &cc_coll_alltoallw, STARTED, INTRA, IN_PLACE, ON_OPEN_MPI_TO_5, several, route_inplace_alltoall,
      "D8: Open MPI 4.1 (libnbc): the same with MPI_Ialltoallw / MPIX_Alltoallw_init",
      "inplace_nbc_np2..np4 (hang)" },
    { &cc_coll_alltoallw, STARTED, INTRA, IN_PLACE, ON_MPICH_TO_4, several, route_inplace_alltoall,
      "D8: MPICH 4.0: the in-place MPI_Ialltoallw / MPI_Alltoallw_init receive peer dst's block with the "
      "size of recvtypes[i] (the loop index): wrong data where receive types differ",
      "inplace_nbc_np3 (wrong data)" },
};

int cc_global_route(const char *who, cc_mpirun *m, int inter, int mode)
{
    const cc_coll *coll = m->call.coll;
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        const route *r = &routes[i];
        if (!r->live || r->coll != coll || !(r->modes & (1u << mode)) || r->inter != (inter ? INTER : INTRA))
            continue;
        if (r->in_place == IN_PLACE && m->call.sendbuf != MPI_IN_PLACE) continue;
        if (r->when && !r->when(&m->call)) continue;
        return r->route(who, m);
    }
    return MPI_SUCCESS;
}

/* The collectives by family, below the front (api/front.c) that dispatches
 * to them: what they share.  One descriptor per collective (cc_coll, made
 * from the list maint/collectives.py), the call modes, the argument flags
 * and the one check of a call (check.c), and each family's entry:
 *   neighbourhoods: every call enters through neighbor.c (the check, the
 *     call as blocks), then the pipeline of nbh_run.c (run, requests) with
 *     its planning in nbh_plan.c, a loop over the candidates of the
 *     call's family of planning (family.h: Cartesian schedules in
 *     plan_cart.c, the allreduce in plan_allreduce.c, trees in rooted.c,
 *     per edge in plan_edges.c);
 *   plain intra- and inter-communicators: MPI's own collective (global.c,
 *     global_core.c, global_routes.c, descriptors.c). */
#ifndef CC_COLL_H
#define CC_COLL_H

#include <mpi.h>

#include "cartcoll.h"
#include "bind/binding.h"
#include "req/request.h"
#include "topo/adopt.h" /* cc_adopt, cc_detect: neighbourhoods of communicators cartcoll did not make */

enum { CC_MODE_BLOCKING, CC_MODE_NONBLOCKING, CC_MODE_PERSISTENT };

/* What a collective's arguments mean, for the one check (check.c) and for
 * the copies a persistent call keeps.  "V": a counts array (and
 * displacements, where the call has them) of one entry per peer plus one
 * datatype; "W": an array of datatypes as well. */
enum {
    CC_F_ROOT = 1 << 0,       /* has a root */
    CC_F_OP = 1 << 1,         /* has a reduction operation */
    CC_F_SEND = 1 << 2,       /* sendcount/sendtype significant on every process */
    CC_F_SEND_ROOT = 1 << 3,  /* ... at the root only (scatter) */
    CC_F_RECV = 1 << 4,       /* recvcount/recvtype significant on every process */
    CC_F_RECV_ROOT = 1 << 5,  /* ... at the root only (gather) */
    CC_F_NO_NBH = 1 << 6,     /* undefined on neighbourhoods (MPI_ERR_TOPOLOGY) */
    CC_F_SENDV = 1 << 7,      /* sendcounts/sdispls/sendtype on every process */
    CC_F_SENDV_ROOT = 1 << 8, /* ... at the root only (scatterv) */
    CC_F_RECVV = 1 << 9,      /* recvcounts/rdispls/recvtype on every process */
    CC_F_RECVV_ROOT = 1 << 10,/* ... at the root only (gatherv) */
    CC_F_SENDW = 1 << 11,     /* sendcounts, byte displacements and datatypes arrays */
    CC_F_LOCAL_N = 1 << 12,   /* arrays have one entry per process of the local group (reduce_scatter) */
    CC_F_RECVW = 1 << 13,     /* recvcounts, byte displacements and datatypes arrays */
    CC_F_W = CC_F_SENDW | CC_F_RECVW
};

/* One collective: what its arguments mean and MPI's implementation (global
 * and inter-communicator meaning). */
typedef struct cc_coll {
    const char *name;
    unsigned flags;
    int nbh;          /* the collective with neighbourhood meaning (CC_BCAST ...), 0: undefined there */
    int variant;      /* CC_REGULAR, CC_VECTOR, CC_W (bind/call.h) */
    int (*blocking)(const cc_call *c);
    int (*istart)(const cc_mpirun *m, MPI_Request *rq);
    /* MPI's persistent collective (MPI_X_init / MPIX_X_init), NULL where
     * the MPI has none or it is not trusted (descriptors.c) */
    int (*pinit)(const cc_call *c, MPI_Info info, MPI_Request *rq);
    /* MPI has no such collective (the three above are NULL): global meaning
     * runs it as this one's call (allgatherw: alltoallw; global_core.c) */
    const struct cc_coll *via;
    /* How it is planned with neighbourhood meaning: its entry family
     * (family.h: cartesian, allreduce, tree, per edge), NULL where it has
     * none (nbh 0) */
    const struct cc_family *plan;
} cc_coll;

/* The descriptors cc_coll_barrier ... cc_coll_alltoallw: one per row of
 * the list of collectives (maint/collectives.py), defined in descriptors.c. */
struct cc_family;
#include "coll/collectives.gen.h"
#define CC_COLL_EXTERN(lower, ...) extern const cc_coll cc_coll_##lower;
CC_COLLECTIVES(CC_COLL_EXTERN)
CC_COLLECTIVES_VIA(CC_COLL_EXTERN)
#undef CC_COLL_EXTERN

/* Where a call runs: which meaning its collective has there. */
enum { CC_MEANING_GLOBAL, CC_MEANING_INTER, CC_MEANING_NBH };

/* Run call c with its global (or inter-communicator) meaning: the check,
 * then MPI's collective in the given mode (global.c; w calls are
 * converted first, global_core.c).  Errors are raised on
 * c->comm. */
int cc_global_run(const char *who, const cc_call *c, int inter, int mode, MPI_Info info, Cart_request *request);

/* A w call (c->coll->variant CC_W) as MPI_Alltoallw takes it
 * (global_core.c): int byte displacements, and a collective MPI lacks
 * (c->coll->via: allgatherw) as the call of the one that runs it.  *m gets
 * the converted call and owns its arrays.  Returns MPI_SUCCESS or an error
 * code (not raised). */
int cc_global_w(const char *who, const cc_call *c, int inter, cc_mpirun *m);

/* Where the MPI underneath gets run m of its collective (m->call.coll)
 * wrong in this mode (the route table of global_routes.c): route it
 * through MPI calls that are right (m->istart, and what it needs in
 * m->scratch or in m->owned, which must be NULL then; a changed m->istart
 * means MPI's persistent form must not be used).  Called once the call's
 * arguments are checked and kept.  Returns MPI_SUCCESS or an error code
 * (not raised). */
int cc_global_route(const char *who, cc_mpirun *m, int inter, int mode);

/* Run call c on a communicator with a neighbourhood (kind CC_KIND_NBH with
 * its cc_comm cs, or CC_KIND_CART / CC_KIND_GRAPH, adopted here): the one
 * check, the call as blocks (neighbor.c; *c becomes that), then the
 * pipeline of nbh_run.c with the plans of nbh_plan.c.  Errors are raised
 * on c->comm. */
int cc_nbh_call(const char *who, cc_call *c, int kind, cc_comm *cs, int mode, MPI_Info info,
                Cart_request *request);

/* The pipeline (nbh_run.c) for call a as blocks (a->collective,
 * a->variant) on the neighbourhood of cs.  `checked`: the result of its
 * check, MPI_SUCCESS unless persistent (a persistent call's processes
 * agree, so one that failed its check fails the call everywhere).  Errors
 * are raised on comm. */
int cc_nbh_run(const char *who, const cc_call *a, MPI_Comm comm, cc_comm *cs, int mode, MPI_Info info,
               Cart_request *request, int checked);

#endif

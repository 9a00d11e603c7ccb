/* The collectives by family, below the front (api/front.c) that dispatches
 * to them: what they share.  One descriptor per collective (cc_coll, made
 * from the list maint/collectives.py), the call modes and the argument
 * flags, and each family's entry:
 *   neighbourhoods: the pipeline of nbh_run.c (checks, run, requests) with
 *     its planning in nbh_plan.c -- Cartesian schedules for the six [core]
 *     collectives, the allreduce on the way, per-edge plans -- and the
 *     rooted trees of rooted.c; the seed-000 collectives enter it through
 *     neighbor.c;
 *   plain intra- and inter-communicators: MPI's own collective (global.c,
 *     global_core.c, global_check.c, global_routes.c, descriptors.c). */
#ifndef CC_COLL_H
#define CC_COLL_H

#include <mpi.h>

#include "cartcoll.h"
#include "bind/binding.h"
#include "req/request.h"
#include "topo/adopt.h" /* cc_adopt, cc_detect: neighbourhoods of communicators cartcoll did not make */

enum { CC_MODE_BLOCKING, CC_MODE_NONBLOCKING, CC_MODE_PERSISTENT };

/* What a collective's arguments mean, for the checks and for the copies a
 * persistent call keeps.  "V": a counts array (and displacements, where
 * the call has them) of one entry per process plus one datatype; "W": an
 * array of datatypes as well. */
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
    CC_F_W = 1 << 11,         /* counts, displacements and datatypes arrays on both sides */
    CC_F_LOCAL_N = 1 << 12    /* arrays have one entry per process of the local group (reduce_scatter) */
};

/* One collective: its checks and MPI's implementation (global and
 * inter-communicator meaning) as a non-blocking call. */
typedef struct cc_coll {
    const char *name;
    unsigned flags;
    int nbh;          /* the collective with neighbourhood meaning (CC_BCAST ...), 0: undefined there */
    int (*blocking)(const cc_mpicall *c);
    int (*istart)(const cc_mpicall *c, MPI_Request *rq);
    /* MPI's persistent collective (MPI_X_init / MPIX_X_init), NULL where
     * the MPI has none or it is not trusted (global.c) */
    int (*pinit)(const cc_mpicall *c, MPI_Info info, MPI_Request *rq);
} cc_coll;

/* The descriptors cc_coll_barrier ... cc_coll_alltoallw: one per row of
 * the list of collectives (maint/collectives.py), defined in descriptors.c. */
#include "coll/collectives.gen.h"
#define CC_COLL_EXTERN(lower, ...) extern const cc_coll cc_coll_##lower;
CC_COLLECTIVES(CC_COLL_EXTERN)
#undef CC_COLL_EXTERN

/* Run call c of collective `coll` with its global (or inter-communicator)
 * meaning: local checks, then MPI's collective in the given mode.  Errors
 * are raised on c->comm. */
int cc_global_run(const cc_coll *coll, const char *who, cc_mpicall *c, int inter, int mode, MPI_Info info,
                  Cart_request *request);

/* Where the MPI underneath gets call c of collective `coll` wrong in this
 * mode (the route table of global_routes.c): route it through MPI calls
 * that are right (c->istart, and what it needs in c->scratch or in
 * c->owned, which must be NULL then; a changed c->istart means MPI's
 * persistent form must not be used).  Called once the call's arguments are
 * checked and kept.  Returns MPI_SUCCESS or an error code (not raised). */
int cc_global_route(const cc_coll *coll, const char *who, cc_mpicall *c, int inter, int mode);

/* Local checks of call c of collective k on an intra-communicator whose
 * argument arrays have nsend / nrecv entries (-1: one per process): request,
 * root (*root_here: this process is it), operation, significant counts,
 * arrays and datatypes.  Returns MPI_SUCCESS or an error code (not raised). */
int cc_coll_check(const cc_coll *k, const char *who, const cc_mpicall *c, int nsend, int nrecv, int mode,
                  const Cart_request *request, int *root_here);

/* Rooted collectives along trees (rooted.c; the tree is chosen by
 * choose/choose.h's cc_rooted_tree).  cc_rooted_blocks: the call's blocks for
 * a tree (what this process sends, receives, and the layout of scratch on
 * the way); cc_rooted_plan: the plan (its local plan depends on the root
 * and is owned by the plan).  Local: MPI_SUCCESS or an error code. */
int cc_rooted_blocks(const cc_args *a, const cc_nbh *n, cc_blocks **out);
int cc_rooted_plan(const char *who, const cc_args *a, cc_nbh *n, MPI_Comm priv, int persistent, int tree,
                   cc_choice want, int tag, cc_blocks *blocks, cc_plan **plan);

/* Run call a on a communicator with a neighbourhood (kind CC_KIND_NBH with
 * its cc_comm cs, or CC_KIND_CART / CC_KIND_GRAPH, adopted here): the
 * pipeline of nbh_run.c (checks, then the plans of nbh_plan.c).  Errors
 * are raised on comm. */
int cc_nbh_run(const char *who, const cc_args *a, MPI_Comm comm, int kind, cc_comm *cs, int mode, MPI_Info info,
               Cart_request *request);

/* The seed-000 collectives with neighbourhood meaning (neighbor.c): checks,
 * then cc_nbh_run.  c is released. */
int cc_nbh_call(const cc_coll *coll, const char *who, cc_mpicall *c, int kind, cc_comm *cs, int mode,
                MPI_Info info, Cart_request *request);

/* The six [core] collectives (call a) with global meaning. */
int cc_global_core(const char *who, const cc_args *a, MPI_Comm comm, int inter, int mode, MPI_Info info,
                   Cart_request *request);

#endif

/* One description of a call, from its entry point to its plan or MPI's
 * collective: the descriptor of the collective it calls and the arguments
 * as the user passed them.  Every Cart_ collective fills one
 * (api/entry_points.gen.c, made from maint/collectives.py), the front
 * completes it from the descriptor (api/front.c), one check reads it
 * (coll/check.c), and then it is either blocks for a plan (bind/call.c:
 * regular, v and w are three ways to describe block i, not three code
 * paths) or the arguments of MPI's own collective (coll/global.c). */
#ifndef CC_CALL_H
#define CC_CALL_H

#include <mpi.h>

struct cc_coll; /* the collective's descriptor (coll/coll.h), opaque below coll/ */

enum { CC_REGULAR = 0, CC_VECTOR = 1, CC_W = 2 };
enum { CC_SIDE_SEND = 0, CC_SIDE_RECV = 1 };

typedef struct cc_call {
    const struct cc_coll *coll;  /* what is called (its flags drive the check) */
    int collective;              /* its meaning on a neighbourhood: CC_ALLGATHER ... CC_BARRIER (sched/schedule.h) */
    int variant;                 /* CC_REGULAR, CC_VECTOR, CC_W: the side with one block per
                                  * neighbour (gatherv: receive, scatterv: send) */
    MPI_Comm comm;               /* the user's communicator */
    const void *sendbuf;
    void *recvbuf;
    int sendcount, recvcount;    /* regular (allgather: sendcount always) */
    MPI_Datatype sendtype, recvtype;
    const int *sendcounts, *recvcounts;
    const int *sdispls, *rdispls;          /* v: in extents; MPI_Alltoallw's int bytes (coll/global_core.c) */
    const MPI_Aint *sdisplsw, *rdisplsw;   /* w: in bytes */
    const MPI_Datatype *sendtypes, *recvtypes;
    int root;                    /* rooted collectives */
    int in_place;                /* the root passed MPI_IN_PLACE (gather, scatter) */
    MPI_Op op;                   /* reductions */
} cc_call;

#endif

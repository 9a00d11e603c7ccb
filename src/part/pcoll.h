/* A partitioned collective (Cart_p*_init) as one row: its name, the
 * collective, how its arguments come (family), the shape of its
 * partitions on each side and the transports it may use.  One generic
 * _init (init.c) runs every row: the checks and whole counts (shape.c),
 * the persistent collective on the whole buffers, the early bird or the
 * slices beside it (transport.h), and the request (part.h). */
#ifndef CC_PART_PCOLL_H
#define CC_PART_PCOLL_H

#include <mpi.h>

#include "cartcoll.h"
#include "part/transport.h"

/* How the arguments come. */
enum {
    CC_PA_ROOT = 1 << 0,       /* a root ("here": this process is it; else every process is) */
    CC_PA_OP = 1 << 1,         /* a reduction operation */
    CC_PA_ONE_BUFFER = 1 << 2, /* one partitions and count for both sides, checked once (bcast,
                                * reductions; reduce_scatter: one array of each) */
    CC_PA_SEND_V = 1 << 3,     /* the send blocks as arrays: partitions, counts, displacements */
    CC_PA_RECV_V = 1 << 4,     /* the receive blocks likewise */
    CC_PA_W = 1 << 5           /* a datatype per block; displacements in bytes */
};

/* The shape of the partitions (default: every process sends one buffer to
 * every destination and receives one buffer). */
enum {
    CC_PS_SEND_BLOCKS = 1 << 0,   /* the send side is one block per destination */
    CC_PS_RECV_BLOCKS = 1 << 1,   /* the receive side is one block per source */
    CC_PS_SEND_ROOT = 1 << 2,     /* only the root sends (bcast, scatter) */
    CC_PS_RECV_ROOT = 1 << 3,     /* only the root receives (gather, reduce) */
    CC_PS_RECV_NOT_ROOT = 1 << 4, /* every process but the root receives (bcast) */
    CC_PS_IN_PLACE_RECV = 1 << 5, /* MPI_IN_PLACE is the root's receive buffer (scatter); else the
                                   * send buffer (at the root, where rooted) */
    CC_PS_TO_ROOT = 1 << 6,       /* global meaning: the send buffer goes to the root alone */
    CC_PS_PER_PROCESS = 1 << 7    /* a block per process of the group, not per neighbour */
};

/* The transports beside the whole-buffer request. */
enum {
    CC_PT_EARLY = 1 << 0,        /* the early bird unless a combining algorithm is asked for */
    CC_PT_EARLY_ALWAYS = 1 << 1, /* the early bird (no other transport but the whole buffers) */
    CC_PT_EARLY_GLOBAL = 1 << 2, /* the early bird with global meaning */
    CC_PT_SLICES = 1 << 3        /* pipelined slices where they pay */
};

typedef struct cc_pcoll {
    const char *name;            /* the entry point, for messages */
    int coll;                    /* CC_PC_*: the collective (its whole-buffer _init) */
    unsigned family;             /* CC_PA_* */
    unsigned shape;              /* CC_PS_* */
    unsigned transports;         /* CC_PT_* */
    const char *swhat, *rwhat;   /* the sides in messages ("send buffer", "receive block") */
} cc_pcoll;

/* The rows, indexed by CC_PC_*. */
extern const cc_pcoll cc_pcolls[CC_PC_N];

/* The arguments of one call, as given (those it does not take: zero). */
typedef struct {
    const void *sendbuf;
    void *recvbuf;                       /* bcast: the buffer (also sendbuf) */
    int sp, rp;                          /* partitions of a send / receive block or buffer */
    MPI_Count sc, rc;                    /* elements of a partition */
    const int *sparts, *rparts;          /* v, w: per block */
    const MPI_Count *scnts, *rcnts;
    const MPI_Aint *sdispls, *rdispls;   /* v: in elements; w: in bytes */
    MPI_Datatype stype, rtype;           /* ONE_BUFFER: stype */
    const MPI_Datatype *stypes, *rtypes; /* w */
    MPI_Op op;
    int root;
} cc_pargs;

/* Run call a of row on comm (w: where, from the front), making the
 * collectives with make.  Errors are raised on comm.  Collective. */
int cc_part_init(const cc_pcoll *row, const cc_pargs *a, MPI_Comm comm, MPI_Info info, const where *w,
                 cc_part_maker make, Cart_request *request);

/* This process is the root (or the collective has none). */
static inline int cc_part_here(const cc_pcoll *row, const cc_pargs *a, const where *w)
{
    return !(row->family & CC_PA_ROOT) || w->rank == a->root;
}

#endif

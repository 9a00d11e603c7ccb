/* Binding: a local plan plus the buffers, counts and datatypes of one call.
 *
 * A call (bind/call.h) is what the user passed; regular, v and w are
 * three ways to describe block i (cc_call_block), not three code paths.
 * A binding resolves every slot a local plan uses to a cc_blk: where the block is,
 * with which count and datatype MPI sees it, how many bytes its type
 * signature has, and (when its bytes are contiguous) a pointer for memcpy.
 * TEMP and TEMP2 slots live in one temporary buffer owned by the binding;
 * each holds a block with the signature of a receive block, laid out
 * compactly: the receive type itself when it is contiguous, a contiguous run
 * of its single basic type when it has one, otherwise the receive type's
 * own layout. */
#ifndef CC_BINDING_H
#define CC_BINDING_H

#include <mpi.h>
#include <stdatomic.h>

#include "bind/call.h"
#include "bind/typemap.h"
#include "sched/localize.h"
#include "sched/schedule.h"

typedef struct cc_blk {
    char *addr;          /* the datatype's origin */
    int count;
    MPI_Datatype type;
    MPI_Aint bytes;      /* count * type size */
    MPI_Aint extent;     /* of the datatype: element e starts at addr + e * extent */
    char *data;          /* first data byte if the block is contiguous, else NULL */
    int named;           /* the datatype is predefined */
} cc_blk;

/* Number of send blocks of the call with t out-neighbours (t for alltoall
 * and scatter, else 1), and of receive blocks with t in-neighbours (t for
 * allgather, alltoall and gather, else 1). */
int cc_call_nsend(const cc_call *a, int t);
int cc_call_nrecv(const cc_call *a, int t);
/* Whether the collective reduces (its temporaries keep the receive type's
 * layout, for MPI_Reduce_local). */
int cc_call_reduces(const cc_call *a);

/* Describe block i of a side.  `ti` caches the facts of the last datatype
 * seen (initialise its type to MPI_DATATYPE_NULL); walking blocks in order
 * with one cache queries each run of equal datatypes once.  Returns
 * MPI_SUCCESS or an MPI error class. */
int cc_call_block(const cc_call *a, int side, int i, cc_blk *out, cc_typeinfo *ti);

/* The blocks of one call, described once and shared (reference counted) by
 * every candidate plan made for it.  Derived datatypes are duplicated: the
 * user may free theirs when the call returns, we still pack and post with
 * them later. */
typedef struct cc_blocks {
    atomic_int refs;
    int t, nsend;                /* receive and send blocks */
    int reduces;                 /* a reduction with operation op */
    MPI_Op op;
    cc_blk *send, *recv;
    MPI_Datatype *owned;
    int nowned;
    cc_blk *result;              /* gathered reductions: the caller's receive buffer (recv[t]), else NULL */
    char *tempmem;               /* gathered reductions: the receive blocks' memory */
} cc_blocks;

/* Describe the nsend send and nrecv receive blocks of call `a` (counts from
 * cc_call_nsend/nrecv, or 0 for a side that is not significant on this
 * process); send[i] is the caller's send block sperm[i] (when nsend > 1),
 * recv[i] its receive block rperm[i] (NULL: i; an entry < 0: no such block,
 * an empty one stands in).  Returns MPI_SUCCESS or an MPI error class. */
int cc_blocks_new(const cc_call *a, int nsend, int nrecv, const int *sperm, const int *rperm, cc_blocks **out);
void cc_blocks_release(cc_blocks *b);

/* The blocks of a reduction (allreduce) run with an allgather schedule over
 * t in-neighbours: send[0] is the caller's send buffer, receive block i a
 * temporary with the receive type's own layout (in one buffer the blocks
 * own), and *result the caller's receive buffer, where the operands are
 * reduced after the last phase.  Returns MPI_SUCCESS or an MPI error class. */
int cc_blocks_new_gathered(const cc_call *a, int t, cc_blocks **out);

typedef struct cc_binding {
    cc_blocks *blocks;     /* reference held */
    int ntemp;
    cc_blk *temp, *temp2;
    char *tempbuf;
    atomic_int *refs;      /* bindings sharing temp, temp2 and tempbuf (cc_bind_share) */
} cc_binding;

/* Resolve the slots of `l` (schedule `s` gives temp_like) over `blocks`,
 * laying out the temporaries.  Takes a reference to blocks.  Returns
 * MPI_SUCCESS or an MPI error class (MPI_ERR_NO_MEM, MPI_ERR_COUNT, ...). */
int cc_bind(cc_binding *b, cc_blocks *blocks, const cc_schedule *s, const cc_local *l);
/* b becomes another reference to the binding `from` (same blocks, local
 * plan and temporaries): for candidate plans of one operation that differ
 * only in the executor, which never run at the same time.  Cannot fail. */
void cc_bind_share(cc_binding *b, const cc_binding *from);
void cc_binding_free(cc_binding *b);

static inline const cc_blk *cc_binding_slot(const cc_binding *b, int slot)
{
    int i = CC_SLOT_INDEX(slot);
    switch (CC_SLOT_KIND(slot)) {
    case CC_SLOT_SEND: return &b->blocks->send[i < b->blocks->nsend ? i : 0];
    case CC_SLOT_RECV: return &b->blocks->recv[i];
    case CC_SLOT_TEMP: return &b->temp[i];
    default: return &b->temp2[i];
    }
}

#endif

/* Partitioned requests (seed 004): a persistent operation whose send
 * buffer becomes ready partition by partition (Cart_pready*) and whose
 * receive buffer can be polled partition by partition (Cart_parrived*).
 *
 * The request (this header, request.c) numbers this process's send and
 * receive partitions and keeps lock-free marks (marks.c); how the data
 * moves is its transport, one table of operations (cc_part_ops), all
 * planned at _init (a started operation allocates nothing and creates no
 * MPI objects):
 *   - whole (whole.c): the persistent request of the same collective on
 *     the whole buffers, started once every send partition of this
 *     process is ready;
 *   - early bird (early.c, made by early_setup.c; regular neighbourhood
 *     alltoall and allgather, their v/w forms, global gatherv/scatterv):
 *     one persistent send per group of send partitions and destination,
 *     started as soon as its partitions are marked -- by the marking
 *     thread where it may call MPI (MPI_THREAD_MULTIPLE, or the thread
 *     that made the request), else in the next progress call -- and one
 *     persistent receive per message of each source, posted at Cart_start;
 *     a receive partition has arrived when the messages covering it have.
 *     Partitions a process sends to itself (offsets that wrap onto it) are
 *     copied by the marking thread at once, whatever the thread level: no
 *     MPI call, no wait for progress;
 *   - pipelined (pipeline.c, made by slices.c; on neighbourhoods:
 *     alltoall and allgather where a combining algorithm -- COMBINING,
 *     TORUS -- is asked for; bcast, gather, scatter, reduce and allreduce
 *     always, also with global meaning, where slices are MPI's collectives
 *     started in order; one datatype, every process with the same
 *     partitions per send block): slice s is the persistent collective (v
 *     form where blocks are strided) on a group of adjacent partitions of
 *     every block, with that collective's schedule or trees; it starts as
 *     soon as its partitions of every block this process sends are ready,
 *     and a receive partition has arrived (reduced: final) when the slices
 *     covering it have completed here.
 * Whatever waits for readiness starts in the progress of Cart_test,
 * Cart_wait and Cart_parrived, or at once in the Cart_pready call that
 * completes it under MPI_THREAD_MULTIPLE (where that thread can take the
 * request; else in the next progress call).  Marking is lock-free (atomic
 * counters), so OpenMP threads of a MPI_THREAD_FUNNELED program may mark
 * partitions: Cart_pready* make no MPI call then.  Otherwise a receive
 * partition is reported arrived once the whole operation has completed
 * here (final, never early). */
#ifndef CC_PART_PART_H
#define CC_PART_PART_H

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>

#include "cartcoll.h"
#include "req/request.h"

/* How the send side's partitions reach destinations. */
enum {
    CC_PART_NONE,  /* no send partitions here (bcast/scatter away from the root) */
    CC_PART_WHOLE, /* one buffer of `parts` partitions to each of ndest destinations */
    CC_PART_BLOCKS /* block i (parts[i] partitions) to destination i only */
};

typedef struct cc_part cc_part;

/* A transport: how the data of a partitioned request moves.  The request
 * (request.c, marks.c) does what is common and calls these. */
typedef struct cc_part_ops {
    /* a new cycle (the common marks are reset): reset the transport's
     * counters, start what waits for no mark */
    int (*start)(Cart_request r);
    /* partition k was claimed (marks.c) for destination dest >= 0, or for
     * `added` destinations (every one of a whole buffer, or its block's);
     * start what it completes where this thread may */
    int (*mark)(Cart_request r, int k, int dest, int added);
    int (*advance)(Cart_request r, int *done); /* caller holds r->busy */
    int (*wait_step)(Cart_request r);
    /* receive partition `partition` (of a source, or of the whole
     * receive side where source < 0) of an active operation not yet
     * complete here: *flag.  may_mpi: this thread may call MPI (and
     * advance r).  Returns MPI_SUCCESS or an MPI error.  NULL: arrived
     * once the whole operation has completed here. */
    int (*arrived)(Cart_request r, int partition, int source, int may_mpi, int *flag);
    int (*raise)(Cart_request r, int code);
    void (*free)(void *t);
} cc_part_ops;

struct cc_part {
    const cc_part_ops *ops; /* the transport, and its state: */
    void *t;
    int send_kind;          /* CC_PART_* */
    int ndest;              /* destinations (ranks, or out-neighbour indices) */
    int only_dest;          /* >= 0: the one destination's rank (global gather, reduce) */
    int nsend;              /* send partitions this process numbers */
    int *soff;              /* BLOCKS: ndest + 1 offsets of the blocks' partitions */
    int nsrc;               /* sources (ranks, or in-neighbour indices); 0: nothing received */
    int nrecv;              /* receive partitions this process numbers */
    int *roff;              /* nsrc + 1 offsets (a whole buffer: every source 0 ... nrecv) */
    int rwhole;             /* the receive buffer is one buffer from every source */
    atomic_int *marks;      /* per send partition: destinations it was marked ready for */
    atomic_int *pdmark;     /* WHOLE, per destination (early bird, pipelined): nsend * ndest,
                             * partition k marked for destination d (d*nsend+k); else NULL */
    atomic_int nready;      /* marks so far; all ready at `need` */
    int need;
    int cycles;             /* completed start/wait cycles */
    int multiple;           /* MPI_THREAD_MULTIPLE: a completing Cart_pready may start it */
    pthread_t owner;        /* the thread that made it: errors are raised there only */
};

/* Where this process's partitions go and come from (shape.c makes it). */
typedef struct cc_part_shape {
    int send_kind, ndest, nsend, only_dest;
    int *soff; /* BLOCKS: ndest + 1 */
    int nsrc, nrecv, rwhole;
    int *roff; /* blocks: nsrc + 1 */
} cc_part_shape;

/* Make the partitioned request of shape s (offsets copied), with no
 * transport yet: the caller gives it one (cc_part_use_whole, the early
 * bird, cc_part_use_slices) or destroys it.  Returns MPI_SUCCESS or
 * MPI_ERR_NO_MEM. */
int cc_part_request_new(Cart_request *out, MPI_Comm user, const char *who, const cc_part_shape *s);

/* Give r its transport: ops running state t (freed with r by ops->free). */
void cc_part_set_transport(Cart_request r, const cc_part_ops *ops, void *t);

/* The per-destination marks of a whole send buffer (Cart_pready_to):
 * MPI_SUCCESS or MPI_ERR_NO_MEM. */
int cc_part_alloc_pdmark(cc_part *p);

/* A cycle of r is over: r is done (*done = 1). */
void cc_part_cycle_done(Cart_request r, int *done);

/* The whole-buffer transport around `inner` (taken over, also on failure).
 * Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
int cc_part_use_whole(Cart_request r, Cart_request inner);

/* The pipelined transport: r takes over the n slice requests (slice s:
 * send partitions s*group ... (s+1)*group-1 of every block, selems
 * elements; freed on failure too).  Receive blocks (or the one receive
 * buffer) hold rblock elements in partitions of rcount.  ordered: a slice
 * starts only after the ones before it (slices that are MPI's collectives,
 * which every process must start in the same order); own: the slices'
 * communicator, freed with the request (also on failure), or
 * MPI_COMM_NULL.  pack (taken over, also on failure): reduce_scatter_block's
 * contiguous send data of each slice, pack_nb chunks of pack_cb bytes per
 * slice gathered from sbase (blocks pack_bb bytes apart) as it starts, or
 * NULL.  Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
typedef struct {
    Cart_request *slices;
    int n, group, selems, rblock, rcount, ordered;
    MPI_Comm own;
    char *pack;
    const void *sbase;
    int pack_nb;
    size_t pack_cb, pack_bb;
} cc_part_slicing;
int cc_part_use_slices(Cart_request r, const cc_part_slicing *s);

/* The thread may call MPI for r: MPI_THREAD_MULTIPLE, or r's owner. */
static inline int cc_part_may_mpi(const cc_part *p)
{
    return p->multiple || pthread_equal(pthread_self(), p->owner);
}

#endif

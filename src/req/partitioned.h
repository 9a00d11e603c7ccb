/* Partitioned requests (seed 004): a persistent operation whose send
 * buffer becomes ready partition by partition (Cart_pready*) and whose
 * receive buffer can be polled partition by partition (Cart_parrived*).
 *
 * Two transports, both planned at _init (a started operation allocates
 * nothing and creates no MPI objects):
 *   - early bird (regular neighbourhood alltoall and allgather on
 *     Cart_neighborhood_create communicators): one persistent send per
 *     send partition and destination, started as
 *     soon as the partition is marked -- by the marking thread where it may
 *     call MPI (MPI_THREAD_MULTIPLE, or the thread that made the request),
 *     else in the next progress call -- and one persistent receive per
 *     partition of each source, posted at Cart_start; a receive partition
 *     has arrived when the messages covering it have.  Partitions a process
 *     sends to itself (offsets that wrap onto it) are copied by the marking
 *     thread at once, whatever the thread level: no MPI call, no wait for
 *     progress;
 *   - pipelined (on neighbourhoods: alltoall and allgather where a
 *     combining algorithm -- COMBINING, TORUS -- is asked for; bcast,
 *     gather, scatter, reduce and allreduce always, also with global
 *     meaning, where slices are MPI's collectives started in order; one datatype, every process
 *     with the same partitions per send block): slice s is the persistent
 *     collective (v form where blocks are strided) on a group of adjacent
 *     partitions of every block (one partition unless they are tiny), with
 *     that collective's schedule or trees; it starts as soon as its
 *     partitions of every block this process sends are ready, so slices
 *     travel through the phases and along the trees one behind the other,
 *     and a receive partition has arrived (reduced: final) when the slices
 *     covering it have completed here;
 *   - otherwise the request wraps the persistent request of the same
 *     collective on the whole buffers and starts it once every send
 *     partition of this process is ready.
 * Whatever waits for readiness starts in the progress of Cart_test,
 * Cart_wait and Cart_parrived, or at once in the Cart_pready call that
 * completes it under MPI_THREAD_MULTIPLE (where that thread can take the
 * request; else in the next progress call).
 * Marking is lock-free (atomic counters), so OpenMP threads of a
 * MPI_THREAD_FUNNELED program may mark partitions: Cart_pready* make no MPI
 * call then.  Otherwise a receive partition is reported arrived once the
 * whole operation has completed here (final, never early). */
#ifndef CC_PARTITIONED_H
#define CC_PARTITIONED_H

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>

#include "cartcoll.h"

/* How the send side's partitions reach destinations. */
enum {
    CC_PART_NONE,  /* no send partitions here (bcast/scatter away from the root) */
    CC_PART_WHOLE, /* one buffer of `parts` partitions to each of ndest destinations */
    CC_PART_BLOCKS /* block i (parts[i] partitions) to destination i only */
};

typedef struct cc_part {
    Cart_request inner;     /* the persistent collective on the whole buffers */
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
    atomic_int nready;      /* marks so far; all ready at `need` */
    int need;
    atomic_int started;     /* the inner request was started for this cycle */
    int cycles;             /* completed start/wait cycles */
    int multiple;           /* MPI_THREAD_MULTIPLE: a completing Cart_pready may start it */
    pthread_t owner;        /* the thread that made it: errors are raised there only */
    /* early bird (direct): */
    int direct;
    MPI_Comm pcomm;         /* its own duplicate of the communicator (early bird; global
                             * slices: theirs), or MPI_COMM_NULL */
    MPI_Request *sreq;      /* nsmsg persistent sends */
    atomic_int *sstarted;   /* nsmsg: started in this cycle */
    atomic_int nstarted;
    int nrmsg;              /* persistent receives: the senders' partitions */
    MPI_Request *rreq;
    int *rfirst;            /* nsrc + 1: first receive of source j */
    int rblock;             /* pipelined: elements of one receive block */
    int rcount;             /* pipelined: elements of one receive partition */
    int *rblk, *rcnt;       /* early bird, nsrc: elements of receive block j, of its partitions */
    int *rfrom;             /* nsrc: the send block of this process whose messages fill receive
                             * block j (copied: an edge to itself), else -1 */
    int nsmsg;              /* send messages; those of block d are mfirst[d] ... mfirst[d+1]-1,
                             * each carrying adjacent partitions of that destination's block
                             * (aggregation) in order */
    int *mfirst;            /* ndest + 1 */
    int *magg;              /* nsmsg: partitions in the message (marks that send it) */
    int *pmsg;              /* BLOCKS, nsend: the message of send partition k */
    int agg;                /* WHOLE: partitions per message (every destination alike) */
    atomic_int *mmark;      /* nsmsg: partitions of the message marked for its destination */
    atomic_int *pdmark;     /* WHOLE: nsend * ndest: partition k marked for destination d (d*nsend+k) */
    unsigned char *kself;   /* nsmsg: the message goes to this process itself (copied, no MPI) */
    const char *sbase;      /* the send buffer and ... */
    char *rbase;            /* ... the receive buffer, for those copies: */
    MPI_Aint *msoff, *mroff; /* nsmsg: byte offsets of the message in the send buffer and, for
                              * those to this process itself, in the receive buffer */
    size_t *mbytes;         /* nsmsg: its bytes */
    /* pipelined: slice s is the collective on partitions s*sgroup ...
     * (s+1)*sgroup-1 of every block (of the one buffer) */
    int nslice;             /* 0: not pipelined */
    int sgroup;             /* send partitions per slice */
    int sneed;              /* marks that make a slice ready: sgroup per destination */
    Cart_request *slice;    /* nslice persistent requests */
    atomic_int *scount;     /* per slice: marks of its partitions so far */
    atomic_int *sstate;     /* per slice: 0 waiting, 1 running, 2 complete (this cycle) */
    int nsdone;             /* complete slices (advanced by the request's holder only) */
    int selems;             /* elements of one slice of a block */
    int sordered;           /* slices start in order (MPI's collectives: the same order everywhere) */
    char *pack;             /* reduce_scatter_block: slice k's send data, pack_nb chunks of
                             * pack_cb bytes at pack + k * pack_nb * pack_cb, copied from sbase
                             * (blocks pack_bb bytes apart) as the slice starts; else NULL */
    int pack_nb;
    size_t pack_cb, pack_bb;
} cc_part;

/* Life cycle: the request's table of operations (partitioned.c) calls these. */
int cc_part_start(Cart_request r);
int cc_part_advance(Cart_request r, int *done);
int cc_part_wait_step(Cart_request r);
void cc_part_free(cc_part *p);

/* Make the partitioned request around `inner` (taken over, also on
 * failure; CART_REQUEST_NULL for the early bird, whose fields the caller
 * sets after this).  Offsets are copied.  Returns MPI_SUCCESS or an error
 * class. */
int cc_part_request_new(Cart_request *out, MPI_Comm user, const char *who, Cart_request inner, int send_kind,
                        int ndest, int nsend, const int *soff, int nsrc, int nrecv, const int *roff, int rwhole);

/* Make r (made around a whole-buffer request) pipelined: it takes over the
 * n slice requests (slice s: send partitions s*group ... (s+1)*group-1 of
 * every block, selems elements; freed on failure too) and frees its
 * whole-buffer request.  Receive blocks (or the one receive buffer) hold
 * rblock elements in partitions of rcount.  ordered: a slice starts only
 * after the ones before it (slices that are MPI's collectives, which every
 * process must start in the same order); own: the slices' communicator,
 * freed with the request (also on failure), or MPI_COMM_NULL.  Returns
 * MPI_SUCCESS or MPI_ERR_NO_MEM. */
int cc_part_pipeline(Cart_request r, Cart_request *slices, int n, int group, int selems, int rblock, int rcount,
                     int ordered, MPI_Comm own);

#endif

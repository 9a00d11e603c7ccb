/* What the partitioned collectives' _init knows of a call and hands its
 * transports (init.c checks the arguments and makes the whole-buffer
 * request; these make the faster transports beside it, all planned at
 * _init):
 *   - early_setup.c: the early bird, one persistent message per group of
 *     partitions and edge, for the direct exchanges (allgather(v),
 *     alltoall(v, w)) and, with global meaning, gatherv and scatterv;
 *   - slices.c: slices, the collective on groups of partitions, pipelined
 *     through schedules, trees and MPI's collectives.
 * The collectives themselves (Cart_*_init) are the front's, a layer
 * above: the front hands them down as a cc_part_maker. */
#ifndef CC_PART_TRANSPORT_H
#define CC_PART_TRANSPORT_H

#include <mpi.h>

#include "cartcoll.h"
#include "topo/comm.h"
#include "topo/nbh.h"

/* The communicator's process count and degrees (global meaning: every
 * process is a destination and a source); cs: its neighbourhood, where it
 * has one (MPI_Cart_create and graph communicators get theirs as every
 * collective gives it to them: cc_adopt). */
typedef struct {
    int rank, size, nbh, indeg, outdeg;
    cc_comm *cs;
} where;

/* The collectives with a partitioned form, and the persistent calls
 * (their own _init) the transports are made of. */
enum {
    CC_PC_BCAST,
    CC_PC_GATHER,
    CC_PC_GATHERV,
    CC_PC_SCATTER,
    CC_PC_SCATTERV,
    CC_PC_ALLGATHER,
    CC_PC_ALLGATHERV,
    CC_PC_ALLTOALL,
    CC_PC_ALLTOALLV,
    CC_PC_ALLTOALLW,
    CC_PC_REDUCE,
    CC_PC_ALLREDUCE,
    CC_PC_SCAN,
    CC_PC_EXSCAN,
    CC_PC_REDUCE_SCATTER_BLOCK,
    CC_PC_REDUCE_SCATTER,
    CC_PC_N
};

/* A persistent collective call: the arguments of Cart_<coll>_init (those
 * coll does not take are ignored). */
typedef struct {
    int coll; /* CC_PC_* */
    const void *sendbuf;
    void *recvbuf;                          /* bcast: the buffer */
    int count;                              /* bcast, reductions (reduce_scatter_block: per block) */
    int sendcount, recvcount;
    const int *sendcounts, *sdispls;        /* v (alltoallw: sendcounts) */
    const int *recvcounts, *rdispls;        /* v (alltoallw, reduce_scatter: recvcounts) */
    const MPI_Aint *sdispls_w, *rdispls_w;  /* alltoallw: in bytes */
    MPI_Datatype sendtype, recvtype;        /* bcast, reductions: sendtype */
    const MPI_Datatype *sendtypes, *recvtypes;
    MPI_Op op;
    int root;
} cc_pwhole;

/* Make call c on comm, as its Cart_*_init does (errors raised there). */
typedef int (*cc_part_maker)(const cc_pwhole *c, MPI_Comm comm, MPI_Info info, Cart_request *out);

/* ---- pipelined slices (slices.c) --------------------------------------- */

/* A pipelined operation: this process's side of the collective. */
typedef struct {
    int kind, root;        /* kind: CC_PC_* (the regular form) */
    const void *sendbuf;   /* MPI_IN_PLACE where the collective allows it */
    void *recvbuf;         /* bcast: the buffer */
    int sp;                /* send partitions per block (of the one send buffer) */
    MPI_Count sc;          /* elements per send partition */
    MPI_Datatype type;     /* the send type (bcast, reductions: the type) */
    int recv;              /* this process receives (blocks, or a buffer) */
    int rp;                /* receive partitions per block (of the one buffer) */
    MPI_Count rc;          /* elements per receive partition */
    MPI_Datatype rtype;
    MPI_Op op;
    char *pack;            /* reduce_scatter_block: the slices' contiguous send data (set here) */
} pipe_args;

/* The slices made: n requests of g send partitions of sc elements each
 * (n = 0: none). */
typedef struct {
    Cart_request *sl;
    int n, g, ordered;
    MPI_Count sc;
    MPI_Comm comm; /* global meaning: the slices' own duplicate (MPI's collectives started by
                    * marking threads meet no other collective there), else MPI_COMM_NULL */
    char *pack;    /* reduce_scatter_block: nb chunks of pcb bytes per slice, gathered from
                    * the send blocks (pbb bytes apart) as the slice starts; else NULL */
    int pnb;
    size_t pcb, pbb;
} pipe_made;

/* ---- the early bird (early_setup.c) ------------------------------------ */

/* The blocks of an allgather(v) or alltoall(v, w) as the early bird sees
 * them.  Send block i holds sparts(i) partitions of scount(i) elements at
 * byte offset sdisp(i) (gather: the one send buffer, the same for every
 * destination); receive block j likewise.  NULL arrays: sp / sc / rp / rc
 * for every block, blocks one after another. */
typedef struct {
    int gather;
    const int *sparts, *rparts;
    const MPI_Count *scnt, *rcnt;
    const MPI_Aint *sdis, *rdis;
    int dis_bytes; /* displacements in bytes (w), else in elements */
    int sp, rp;
    MPI_Count sc, rc;
    int rooted, root; /* global gatherv (EB_GATHER): the one buffer to the root; scatterv
                       * (EB_SCATTER): block i from the root to rank i, one receive buffer */
    const MPI_Datatype *stypes, *rtypes; /* w: each block's datatype (else the call's) */
} eb_blocks;

enum { EB_ALL, EB_GATHER, EB_SCATTER };

/* ---- what the transports decide (choice.c) ----------------------------- */

/* Whether every process of c says yes (one small reduction). */
int cc_part_agree(MPI_Comm c, int yes);

/* The aggregation size in bytes (info cartcoll_part_aggregate, else
 * CARTCOLL_PART_AGGREGATE, else the cost model's overhead / beta, of n or
 * the environment's model where n is NULL).  Returns 0 on a bad value. */
int cc_part_aggregate_bytes(MPI_Info info, const cc_nbh *n, long long *bytes);

/* MPI_ERR_ARG raised for a bad aggregation size: here (good = 0) or on
 * another process. */
int cc_part_aggregate_error(MPI_Comm comm, const char *who, int good);

/* The algorithm asked for: this call's info, the communicator's defaults,
 * the environment. */
int cc_part_asked_algorithm(MPI_Info info, const where *w, const char *who);

/* The early bird request for blocks b where every process qualifies and
 * wanted is set (*made = 1, *request made, or an error raised), else
 * *made = 0.  Collective. */
int cc_part_early_bird(const char *who, const eb_blocks *b, const void *sendbuf, MPI_Datatype type, void *recvbuf,
                       MPI_Datatype rtype, MPI_Comm comm, const where *w, MPI_Info info, int wanted, int *made,
                       Cart_request *request);

/* The slices of a (made by make) where they pay and every process
 * qualifies (pm->n > 0), else pm->n = 0.  Collective. */
int cc_part_slices(const char *who, const pipe_args *a, MPI_Comm comm, const where *w, MPI_Info info,
                   cc_part_maker make, pipe_made *pm);

/* Hand the slices (if any) to the partitioned request made (rc) or free
 * them; returns rc or a new error. */
int cc_part_attach_slices(const char *who, MPI_Comm comm, int rc, Cart_request *request, pipe_made *pm,
                          const pipe_args *a);

#endif

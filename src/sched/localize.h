/* Localizing a schedule: what one process does.  Pure C, no MPI.
 *
 * From the global schedule and the process's coordinates: the peer ranks of
 * every round, the entries this process really sends and receives (on a
 * mesh, only instances whose origin and some final target exist; see
 * schedule.h), and the slots, with RECV i replaced by TEMP2 i where receive
 * block i must stay untouched because its source is off the mesh.  Sender
 * and receiver evaluate the same predicate, so their lists agree. */
#ifndef CC_LOCALIZE_H
#define CC_LOCALIZE_H

#include "geom/geometry.h"
#include "sched/schedule.h"

typedef struct cc_lround {
    int id;                    /* index of the round in the schedule */
    int send_rank, recv_rank;  /* CC_NONE: that half of the round is absent */
    int sfirst, scount;        /* slots[sfirst ..]: what is sent, in order */
    int rfirst, rcount;        /* slots[rfirst ..]: where received blocks go */
    /* The message is one block taken from the sender's send buffer and
     * stored in the receiver's receive block for that index (a DIRECT
     * exchange, or the first hop of a block alone in its round; the receive
     * block may be scratch on the way, or TEMP2 on a mesh, which has the
     * receive block's signature).  Executors send it with the user's
     * datatypes on both sides, without staging.  A property of the entry, so
     * sender and receiver agree. */
    unsigned char sdirect, rdirect;
} cc_lround;

typedef struct cc_local {
    int nphases, nrounds, nslots, ncopies;
    int *phase_first;    /* nphases+1: phase p has rounds [phase_first[p], phase_first[p+1]) */
    cc_lround *rounds;
    int *slots;
    int *copies;         /* 2*ncopies: src, dst slot references */
    int max_phase_rounds;/* largest number of rounds in one phase */
    long long sent;      /* entries sent by this process (its volume) */
    /* Reductions (schedule_edges.h): after the copies, receive block 0
     * becomes reduce[0] op reduce[1] op ... op reduce[nreduce-1] (slots, in
     * this order); nothing when nreduce is 0. */
    int nreduce;
    int *reduce;
    /* Folds of a reduction on the way (schedule.h), after each phase:
     * phase p runs folds[fold_first[p] .. fold_first[p+1]), each three ints
     * (CC_FOLD_COPY or CC_FOLD_OP, src, dst slots); NULL when none. */
    int nfolds;
    int *fold_first;
    int *folds;
} cc_local;

enum { CC_FOLD_COPY = 0, CC_FOLD_OP = 1 };

/* Localize `s` for the process at `coords` on grid `g` (the offsets in `s`
 * must be those reduced for g).  Returns CC_OK or CC_ENOMEM. */
int cc_localize(const cc_schedule *s, const cc_grid *g, const int coords[], cc_local **out);

/* Rooted collectives on an allgather or alltoall schedule (its
 * dimension-wise trees, helpers on the way included):
 *   CC_ROOT_FROM  bcast (allgather) and scatter (alltoall): only instances
 *                 that left the root travel; a process that is root + N[i]
 *                 gets the first (bcast) or last (scatter, `last`) such
 *                 block i in RECV 0, its one buffer (not the root of a
 *                 bcast: `deliver` = 0 there);
 *   CC_ROOT_TO    gather and reduce (allgather): only instances bound for
 *                 the root travel; the root's receive blocks are as in the
 *                 allgather.
 * Every other receive block becomes TEMP2 (scratch on the way, like the
 * receive block).  Sender and receiver evaluate the same predicate. */
enum { CC_ROOT_FROM = 1, CC_ROOT_TO = 2 };
typedef struct cc_rooted {
    int mode;
    const int *root;   /* the root's coordinates */
    int last, deliver; /* CC_ROOT_FROM, see above */
    int skip_self;     /* CC_ROOT_TO at the root (gather's MPI_IN_PLACE): its blocks from
                        * itself stay as they are (it has no send block) */
} cc_rooted;
int cc_localize_rooted(const cc_schedule *s, const cc_grid *g, const int coords[], const cc_rooted *rt,
                       cc_local **out);

/* The root's figures of a rooted collective on schedule s (built on offsets
 * as given), on a torus large enough that nothing wraps: its phases, the
 * rounds in which it sends (FROM) or receives (TO), and the blocks it sends
 * or receives.  Returns CC_OK, CC_ENOMEM or CC_ETOOBIG (no such torus fits
 * an int rank). */
int cc_rooted_stats(const cc_schedule *s, int mode, long long *phases, long long *rounds, long long *volume);
void cc_local_free(cc_local *l);

#endif

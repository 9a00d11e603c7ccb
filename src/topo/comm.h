/* The communicator state (cc_comm): the per-communicator attribute of a
 * neighbourhood communicator -- the neighbourhood it carries, its private
 * duplicate, the message tags in use -- and the functions that manage it
 * (comm.c: attribute, duplicates, life cycle; tags.c: tags).  The private
 * duplicate of a duplicated communicator is an MPI_Comm_idup of the
 * original's private communicator, started inside MPI_Comm_dup.  Requests
 * hold references, so MPI_Comm_free of the user's communicator does not
 * pull the private one from under an active persistent request. */
#ifndef CC_COMM_H
#define CC_COMM_H

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>

#include "topo/nbh.h"

/* A cache a higher layer keeps on the communicator state (the plan cache):
 * the state owns it and destroys it with itself. */
typedef struct cc_cache_base {
    void (*destroy)(struct cc_cache_base *self);
} cc_cache_base;

/* Tags on the private communicator: 0..6 for set-up exchanges, 7 for every
 * blocking operation (they never overlap at a process, and all of one
 * call's messages to a process are matched there before that process
 * returns, so a later call's messages cannot be taken for them: MPI orders
 * the messages of one sender), then a range for persistent requests (in
 * pairs: the operation and its tuning agreement), then the rest for
 * non-blocking operations. */
enum { CC_TAG_BLOCKING = 7, CC_TAG_FIRST = 8, CC_TAG_WINDOW = 32 };

typedef struct cc_comm {
    atomic_int refs;
    cc_nbh *nbh;
    MPI_Comm priv;            /* the private duplicate; MPI_COMM_NULL while `pending` runs */
    MPI_Request pending;      /* MPI_Comm_idup of a duplicate, started inside MPI_Comm_dup */
    MPI_Comm parent;          /* the communicator that idup reads (while pending) */
    struct cc_comm *parent_cc; /* the state whose private communicator that is (a copy's idup;
                                * held until the idup completes) */
    cc_list dup_link;         /* in nbh->dups (while pending) */
    int finishing;            /* cc_comm_finish_dup is completing `pending` */
    unsigned long seq;        /* blocking/non-blocking operations so far */
    int tag_split, tag_ub;    /* persistent pairs below tag_split, the others from it to tag_ub */
    unsigned long pseq;       /* where the search for a free persistent pair starts */
    int *live;                /* first tags of the pairs live persistent requests hold */
    int nlive, caplive;
    pthread_mutex_t lock;     /* guards `live` */
    _Atomic(cc_cache_base *) cache; /* plans of recent blocking/non-blocking calls (exec/plancache.h),
                                     * made on first use */
    atomic_int user_freed;    /* MPI_Comm_free was called on the user's communicator */
    MPI_Errhandler user_eh;   /* its error handler then (requests report errors through it) */
} cc_comm;

/* The tag bound of MPI_COMM_WORLD: always set, unlike on the Cartesian
 * communicators of some MPIs (Open MPI 4.1); CARTCOLL_TAG_UB lowers it
 * (tests). */
int cc_world_tag_ub(void);

/* Attach a new cc_comm for `nbh` (taking over one reference) and the private
 * communicator `priv` to `cart`.  Returns an MPI error code. */
int cc_comm_attach(MPI_Comm cart, cc_nbh *nbh, MPI_Comm priv);

/* The cc_comm of a communicator.  Returns MPI_SUCCESS, or an error code
 * (not raised) of class MPI_ERR_COMM (null, inter-communicator) or
 * MPI_ERR_TOPOLOGY (no neighbourhood).  `who` names the caller. */
int cc_comm_get(MPI_Comm comm, cc_comm **out, const char *who);
/* Attach a new cc_comm for `nbh` (taking over one reference on success) to
 * comm, which is not yet a neighbourhood communicator; its private
 * communicator is an MPI_Comm_idup of comm started now (collective: every
 * process attaches in the same order) and completed by the first operation.
 * Returns an MPI error code. */
int cc_comm_attach_idup(MPI_Comm comm, cc_nbh *nbh);

/* The cc_comm of comm, or NULL when it has none (no checks, no errors). */
cc_comm *cc_comm_find(MPI_Comm comm);
void cc_comm_retain(cc_comm *c);
void cc_comm_release(cc_comm *c);

/* Complete the pending MPI_Comm_idup of c with `wait` (cc_comm_wait: plain
 * MPI_Wait; the request layer passes one that advances other requests
 * meanwhile), so that c->priv can be used.  Returns the MPI error code. */
int cc_comm_wait(MPI_Request *rq);
int cc_comm_finish_dup(cc_comm *c, int (*wait)(MPI_Request *));

/* Complete the pending MPI_Comm_idup of every copy of c (they read
 * c->priv).  Call it before a non-blocking collective on c->priv: Open MPI
 * 4.1 starts an idup's rounds whenever it progresses, so they would meet
 * that collective's messages in a different order on different processes.
 * Collective (the idups were started in an earlier MPI_Comm_dup). */
void cc_comm_finish_copies(cc_comm *c);

/* MPI_Comm_dup of comm for the library's own messages: the copy carries no
 * neighbourhood (and starts no private duplicate of its own). */
int cc_comm_dup_plain(MPI_Comm comm, MPI_Comm *out);

/* The tag of a new blocking or non-blocking operation: the next of a
 * counter that every process advances in the same order (take it only once
 * the call cannot fail locally any more). */
int cc_comm_tag(cc_comm *c);

/* Persistent tag pairs.  The pairs in the window starting at c->pseq:
 * busy[j] = 1 when pair pseq+j is held by a live request of this process.
 * After the processes agreed (maximum of busy), cc_comm_take_pair moves
 * pseq past the first pair free everywhere and returns its first tag, or -1
 * when the whole window is busy (pseq then moves on by the window). */
void cc_comm_busy_pairs(cc_comm *c, int busy[CC_TAG_WINDOW]);
int cc_comm_take_pair(cc_comm *c, const int busy[CC_TAG_WINDOW]);
int cc_comm_npairs(const cc_comm *c);
/* A live request holds / gives back the pair starting at tag. */
int cc_comm_hold_pair(cc_comm *c, int tag);
void cc_comm_drop_pair(cc_comm *c, int tag);

#endif

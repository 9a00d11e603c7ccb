/* Plans: a bound schedule ready to run over MPI, and the phase engine.
 *
 * A plan owns a binding, the MPI description of every message (made by an
 * executor: derived datatypes over absolute addresses, or staging buffers)
 * and, for persistent operations, MPI persistent requests.  Running it:
 * phase by phase, each phase's messages posted together (receives first),
 * the next phase started once they completed; then the local copies.
 * Everything a run needs is made when the plan is created; starting and
 * progressing a persistent plan allocates nothing and creates no MPI
 * objects (except under an MPI whose persistent sends carry stale data,
 * SimGrid SMPI 3.32: there its messages are posted anew in every run). */
#ifndef CC_PLAN_H
#define CC_PLAN_H

#include <mpi.h>

#include "bind/binding.h"
#include "sched/localize.h"
#include "sched/schedule.h"

/* One half of a round as MPI sees it. */
typedef struct cc_msg {
    void *buf;
    int count;
    MPI_Datatype type;
    char *stage;      /* pack executor: the message goes through this staging area */
} cc_msg;

struct cc_exec;

/* A local copy resolved at plan creation: contiguous blocks are copied with
 * memcpy; otherwise (src_blk/dst_blk set) through the copy scratch.  Copies
 * of contiguous blocks that continue each other are fused at creation
 * (cc_fuse_copies): `bytes` then spans the run, and `reps` > 1 says the
 * source is replicated into reps consecutive destinations of `bytes` each
 * (an allgather's repeated blocks).  For the pack executor's slot
 * operations `span` is the number of slot entries one operation covers. */
typedef struct cc_copyop {
    const char *src;
    char *dst;
    MPI_Aint bytes;
    const cc_blk *src_blk, *dst_blk;
    int reps, span;
} cc_copyop;

typedef struct cc_plan {
    const cc_schedule *sched;
    const cc_local *local;
    cc_binding bind;
    int algorithm, executor, persistent;
    MPI_Comm comm;
    int tag;
    const struct cc_exec *ex;
    cc_msg *smsg, *rmsg;          /* per local round; count < 0: no message */
    MPI_Request *reqs;            /* persistent: all, in phase order; else one phase's */
    int *req_first;               /* persistent: phase p uses reqs[req_first[p] .. req_first[p+1]) */
    MPI_Request *breqs;           /* a cached plan's persistent requests for blocking runs (with
                                   * the blocking tag), made on its first reuse; NULL: none */
    int *breq_first;              /* as req_first, for breqs */
    int inb;                      /* the run in flight uses breqs */
    int nreqs;                    /* requests of the phase in flight */
    /* Unpacking as messages arrive (NULL reqround: not this plan, see
     * plan.c): the round of each request of the phase in flight (-1: a
     * send), the indices MPI_Waitsome/Testsome return, and how many of
     * the phase's requests are still incomplete. */
    int *reqround, *doneidx;
    int left;
    int phase;                    /* phase in flight; local->nphases when done */
    char *stagebuf;               /* pack executor */
    cc_copyop *copyops;           /* local->ncopies, resolved, fused: ncopyops */
    int ncopyops;
    cc_copyop *slotops;           /* pack executor: local->slots resolved (src = dst = data) */
    char *copybuf;                /* local copies between differently typed blocks */
    MPI_Aint copycap;
    MPI_Datatype *types;          /* datatypes created for messages */
    int ntypes, captypes;
    long type_entries, type_blocks; /* their entries, and the blocks they cover (CARTCOLL_VERBOSE) */
    int cached;                   /* the plan cache of its communicator owns this plan */
    cc_schedule *own_sched;       /* schedule and local plan made for this plan alone (per-edge */
    cc_local *own_local;          /* plans of rooted calls), freed with it; else NULL */
    /* The reduction after the last phase: *acc = reduce[0] op ... op
     * reduce[nreduce-1] (slots); the local plan's list (per-edge plans, acc
     * receive block 0) or one set with cc_plan_set_reduce. */
    const int *reduce;
    int nreduce;
    const cc_blk *acc;
    int *own_reduce;
} cc_plan;

typedef struct cc_exec {
    int (*prepare)(cc_plan *p);                 /* describe every message (smsg/rmsg) */
    /* Optional (NULL: nothing to stage), one round's message: pack it
     * before its send starts, unpack it once its receive completed.  The
     * plan runs them per phase, or per round as messages come and go where
     * a phase stages two or more (plan.c). */
    int (*pack_round)(cc_plan *p, int round);
    int (*unpack_round)(cc_plan *p, int round);
} cc_exec;

extern const cc_exec cc_exec_datatype;
extern const cc_exec cc_exec_pack;

/* Make a plan for one call's blocks: bind, let the executor describe the
 * messages, create persistent requests when `persistent`.  Returns
 * MPI_SUCCESS or an error class. */
int cc_plan_create(cc_plan **out, const cc_schedule *s, const cc_local *l, cc_blocks *blocks,
                   int algorithm, int executor, int persistent, MPI_Comm comm, int tag);
/* The same, sharing the binding (temporaries) of `like` where it was made
 * for the same schedule, local plan and blocks: candidates of one
 * operation that differ in the executor, of which one runs at a time.
 * like may be NULL. */
int cc_plan_create_like(cc_plan **out, const cc_schedule *s, const cc_local *l, cc_blocks *blocks,
                        int algorithm, int executor, int persistent, MPI_Comm comm, int tag, const cc_plan *like);
void cc_plan_free(cc_plan *p);

/* Reduce the slots reduce[0..n) in this order into blocks->result after the
 * last phase (a gathered reduction: an allgather schedule's receive blocks
 * as operands); the plan takes over `reduce` (malloc'ed).  Returns
 * MPI_SUCCESS or MPI_ERR_NO_MEM (the list is freed then too). */
int cc_plan_set_reduce(cc_plan *p, int *reduce, int n);

/* Run: start (posts phase 0), test (advances as far as it can without
 * blocking; *done when everything including local copies and the
 * reduction of a reducing plan finished). */
int cc_plan_start(cc_plan *p);
/* Start a blocking run of a non-persistent plan that is reused (cached)
 * with p->tag fixed for all such runs: through persistent requests made on
 * the first such start (falls back to posting when they cannot be made). */
int cc_plan_start_reused(cc_plan *p);
int cc_plan_test(cc_plan *p, int *done);
/* Block in MPI until the phase in flight completed (then cc_plan_test
 * moves on). */
int cc_plan_wait_phase(cc_plan *p);
/* Block in MPI until the run finished: every phase completed by waits
 * alone, never by a test (see cc_request_wait_alone). */
int cc_plan_wait(cc_plan *p);

/* Describe the blocks slots[0..n) as one message without copies: the
 * block's own count and type for one block, else a derived datatype over the
 * blocks' addresses relative to the first (made, committed and owned by the
 * plan).  lens/disps/types: scratch for n entries. */
int cc_msg_struct(cc_plan *p, const int *slots, int n, cc_msg *m, int *lens, MPI_Aint *disps, MPI_Datatype *types);

/* Fuse the copies ops[0..n) in place where they continue each other
 * (contiguous blocks only, source and destination ranges of a run
 * disjoint, so the order inside a run cannot matter): a source and
 * destination that both follow on become one memmove, one source into
 * consecutive destinations one replication; copies of 0 bytes go.
 * Returns the new number. */
int cc_fuse_copies(cc_copyop *ops, int n);
/* Run one (fused) copy of contiguous blocks. */
void cc_copy_run(const cc_copyop *op);

/* Keep a datatype the plan created (freed with the plan). */
int cc_plan_own_type(cc_plan *p, MPI_Datatype t);

/* The most bytes one MPI_Pack/MPI_Unpack run handles (INT_MAX, or less
 * with CARTCOLL_PACK_RUN for tests); an element larger than this cannot be
 * packed (blocks of smaller elements go in several runs). */
MPI_Aint cc_blk_run_limit(void);

/* Copy the bytes of block `src` into block `dst` (equal signatures), through
 * `scratch` (cap bytes) when neither is contiguous; `tag` is the operation's
 * (for elements beyond what MPI_Pack can take). */
int cc_blk_copy(const cc_blk *src, const cc_blk *dst, char *scratch, MPI_Aint cap, MPI_Comm comm, int tag);
/* Append block b at buf+*pos / read it from there (pack executor format:
 * the block's bytes in its type's native representation). */
int cc_blk_pack(const cc_blk *b, char *buf, MPI_Aint cap, MPI_Aint *pos, MPI_Comm comm);
int cc_blk_unpack(const cc_blk *b, const char *buf, MPI_Aint cap, MPI_Aint *pos, MPI_Comm comm);

#endif

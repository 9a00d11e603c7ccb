/* Requests: MPI request semantics.
 *
 * A request is one kind of operation behind one table of operations
 * (struct cc_req_ops): a plan of the library's own (plan_request.c; with
 * auto-tuning, tune.c), a collective MPI runs (mpi_request.c: global and
 * inter-communicator meaning), or a partitioned operation (part/request.c,
 * a layer above: it hands its table down).
 * The generic code (request.c, completion.c, progress.c) only calls
 * through the table.
 *
 * Persistent requests with several candidate plans (auto) run each
 * candidate in turn during their first starts, time them, agree on the
 * fastest with a small dissemination reduction over persistent
 * point-to-point requests made at init (maximum over processes, so every
 * process picks the same), then keep only it.
 *
 * Progress: a request advances when it is tested or waited on; waiting on
 * one request also advances the caller's other active requests (progress.c),
 * so operations may be completed in any order on different processes. */
#ifndef CC_REQUEST_H
#define CC_REQUEST_H

#include <mpi.h>
#include <sched.h>
#include <stdatomic.h>

#include "cartcoll.h"
#include "choose/choose.h"
#include "topo/comm.h"
#include "exec/plan.h"
#include "util/list.h"

enum { CC_REQ_INACTIVE = 0, CC_REQ_ACTIVE = 1, CC_REQ_DONE = 2 };

/* An operation that MPI itself runs (global and inter-communicator
 * meaning): the call (bind/call.h) as MPI's collective takes it and the
 * non-blocking MPI call that starts it.  Argument arrays the front had to
 * convert or copy live in `owned`, datatypes it duplicated in
 * dups[0..ndups); both are released with the run (cc_mpirun_release). */
typedef struct cc_mpirun {
    cc_call call;
    int (*istart)(const struct cc_mpirun *m, MPI_Request *rq);
    void *owned;
    MPI_Datatype *dups;
    int ndups;
    void *scratch; /* memory of a route's istart (coll/global_routes.c), freed with the run */
} cc_mpirun;

void cc_mpirun_release(cc_mpirun *m);
enum { CC_TUNE_TRIALS = 4 }; /* timed runs per candidate (the fastest counts) */
struct cc_part;

/* What one kind of request does; every entry is called with r->busy held
 * or while nobody else can reach r (a request being made or destroyed). */
struct cc_req_ops {
    /* Start a run: r->state becomes ACTIVE (DONE, with r->error, where a
     * failure leaves nothing running); returns MPI_SUCCESS or the error. */
    int (*start)(Cart_request r);
    /* Advance an active run; *done when it finished (state DONE). */
    int (*advance)(Cart_request r, int *done);
    /* Block until something of the current step can complete (nothing
     * else needs progress). */
    int (*wait_step)(Cart_request r);
    /* Finish the run by waits alone (CARTCOLL_TEST_LEAKS): 1 if it did, 0
     * if r must be driven as usual.  NULL: never. */
    int (*wait_alone)(Cart_request r);
    /* Report error `code` through the error handler that r's errors go to. */
    int (*raise)(Cart_request r, int code);
    /* Release what the kind holds (not r itself). */
    void (*destroy)(Cart_request r);
};

struct cart_request_s {
    const struct cc_req_ops *ops;
    int persistent;
    _Atomic int state;
    int error;                        /* code of a failed run, reported at completion */
    MPI_Comm user;                    /* its error handler gets our errors (cc_request_raise) */
    const char *who;                  /* the call that made it, for messages */
    /* exclusive access (cc_request_lock), the progress list (progress.c) */
    atomic_flag busy;
    cc_list link;
    int held; /* a progress sweep advances it with the list lock let go (progress.c) */
    /* the one private attachment (req/attach.h) */
    void *attach;
    void (*attach_free)(void *);
    /* MPI runs the operation (mpi_request.c; cs is then NULL): mreq is its
     * request, made by run.istart at each start, or (mpersist) MPI's
     * persistent request made once at _init and started with MPI_Start. */
    int mpersist;
    MPI_Request mreq;
    cc_mpirun run;
    /* Partitioned (part/part.h, the layer above: opaque here). */
    struct cc_part *part;
    /* A plan (plan_request.c): */
    cc_comm *cs;                      /* reference held */
    int pair;                         /* persistent: the tag pair held (plans, tuning agreement); else -1 */
    cc_plan *plan;                    /* what runs now */
    /* auto tuning */
    int ncand, starts, agreeing, round, nrounds;
    cc_plan *cand[CC_MAX_CANDIDATES];
    double best[CC_MAX_CANDIDATES], worst[CC_MAX_CANDIDATES], t0; /* over the trials after the first */
    double sbuf[CC_MAX_CANDIDATES + 1], rbuf[CC_MAX_CANDIDATES + 1]; /* timings and their spread */
    MPI_Request *agree;               /* 2 per dissemination round */
};

/* A zeroed request of kind `ops` (inactive; no pair).  NULL: no memory. */
Cart_request cc_request_alloc(const struct cc_req_ops *ops, MPI_Comm user, const char *who, int persistent);

/* Make a request running `plans` (n >= 1 candidates; n > 1 only when
 * persistent).  Takes ownership of the plans on success.  A persistent
 * request holds the tag pair starting at `pair` (its plans use the first
 * tag, the tuning agreement the second) until it is destroyed; -1: none.
 * Returns MPI_SUCCESS or an error class. */
int cc_request_new(Cart_request *out, cc_comm *cs, MPI_Comm user, const char *who, int persistent,
                   cc_plan **plans, int n, int pair);

/* Make an inactive request for an operation MPI runs: `run` (copied; the
 * request owns what it holds from now on, also on failure).  Returns
 * MPI_SUCCESS or an error class. */
int cc_request_new_mpi(Cart_request *out, MPI_Comm user, const char *who, int persistent, const cc_mpirun *run);

/* Report error `code` (made by cc_error_code) about r through the error
 * handler of the communicator r was made on -- as that handler was when the
 * communicator was freed, if it was -- or MPI_COMM_SELF's when r is
 * CART_REQUEST_NULL.  Returns the code. */
int cc_request_raise(Cart_request r, int code);

/* Start a request's (next) run; for non-persistent requests right after
 * cc_request_new.  Returns MPI_SUCCESS or an error code. */
static inline int cc_request_start(Cart_request r) { return r->ops->start(r); }

/* Advance r (caller holds r->busy).  *done when its run finished. */
static inline int cc_request_advance(Cart_request r, int *done)
{
    *done = r->state != CC_REQ_ACTIVE;
    return *done ? MPI_SUCCESS : r->ops->advance(r, done);
}

/* Block until something of r's current step can complete (caller holds
 * r->busy); used only when nothing else needs progress. */
static inline int cc_request_wait_step(Cart_request r)
{
    return r->state != CC_REQ_ACTIVE ? MPI_SUCCESS : r->ops->wait_step(r);
}

/* Finish r's run by waits alone, never completing a message by a test,
 * when r runs a plan or one MPI request and is not tuning (caller holds
 * r->busy; nothing else needs progress).  Returns 1 if it did (r is then
 * done), 0 if r must be driven as usual.  For CARTCOLL_TEST_LEAKS. */
static inline int cc_request_wait_alone(Cart_request r)
{
    return r->state == CC_REQ_ACTIVE && r->ops->wait_alone && r->ops->wait_alone(r);
}

/* Free r: what its kind holds, then its attachment (which may own memory
 * the operation used). */
void cc_request_destroy(Cart_request r);

/* Progress list (progress.c). */
void cc_progress_add(Cart_request r);
void cc_progress_remove(Cart_request r);
/* Advance every other active request that no other thread is advancing;
 * returns how many other requests are still active. */
int cc_progress_others(Cart_request self);
/* Complete an MPI request of the library's own (a private communicator
 * being made, an agreement) while advancing the caller's active requests.
 * Returns the MPI error code. */
int cc_progress_wait(MPI_Request *rq);
/* Start the asynchronous progress thread (once per process; it stops in
 * MPI_Finalize).  Needs MPI_THREAD_MULTIPLE: otherwise a warning on stderr.
 * Returns whether the thread runs. */
int cc_progress_async_start(void);

/* Exclusive access to a request's progress. */
static inline int cc_request_trylock(Cart_request r) { return !atomic_flag_test_and_set(&r->busy); }
/* Yield while another thread holds it: on oversubscribed cores a holder
 * preempted mid-advance (the progress thread, a marking thread) would
 * otherwise cost the spinner its whole time slice (ms; early bird 1.1x ->
 * 1.2x in partbench -c 500). */
static inline void cc_request_lock(Cart_request r)
{
    while (atomic_flag_test_and_set(&r->busy)) sched_yield();
}
static inline void cc_request_unlock(Cart_request r) { atomic_flag_clear(&r->busy); }

#endif

/* What the files of the PMPI drop-in (libcartcoll_preload.so) share:
 * the mode, the classification of communicators and the report's
 * counters (classify.c), the table of the
 * requests it hands out (requests.c), and the completion calls' view of
 * that table (completion.c).  Built on the public API only. */
#ifndef CC_PMPI_PRELOAD_H
#define CC_PMPI_PRELOAD_H

#include <cartcoll.h>
#include <mpi.h>

#include <stdatomic.h>

/* Only the MPI_ and mpi_ entry points leave the library. */
#pragma GCC visibility push(hidden)

/* ---- classify.c: mode, classification, counters ------------------------ */

/* Whether intercepted calls are handled here: the drop-in is not off.
 * Reads the environment on first use.  (The drop-in's copy of the library
 * calls MPI through PMPI, never through these entry points.) */
int pl_on(void);

/* Whether a neighbourhood call on comm goes through cartcoll; counts it
 * (calls, and accelerated when comm has Cartesian schedules) when `count`.
 * *cartesian (may be NULL) says whether it ran Cartesian schedules. */
int pl_take(MPI_Comm comm, int count, int *cartesian);

/* Classify communicator c, just made through the drop-in (Cartesian
 * schedules or a graph), and count it for the report. */
void pl_remember(MPI_Comm c, int is_cart);

/* The report's counters (communicators seen, Cartesian; calls, accelerated)
 * into v; returns -1 when the drop-in is off, else whether
 * CARTCOLL_PRELOAD_REPORT asks for the report. */
int pl_report(long v[4]);

/* Count one call that was taken (persistent requests count at each start). */
void pl_count(int cartesian);

/* MPI_Init_thread's level is MPI_THREAD_MULTIPLE. */
int pl_threaded(void);

/* Raise error class `cls` with the sentence `what` on MPI_COMM_WORLD's
 * handler (where both MPIs raise errors about requests) and return the
 * code. */
int pl_request_error(int cls, const char *what);

/* ---- requests.c: the drop-in's requests --------------------------------- */

enum { PL_INACTIVE, PL_ACTIVE, PL_DONE };

typedef struct pl_req pl_req;

/* A non-blocking operation: started cartcoll request `cr`; returns the
 * generalized request the program gets.  Returns an MPI error code. */
int pl_req_nonblocking(Cart_request cr, MPI_Request *handle);

/* A persistent operation (inactive `cr`): returns the inactive persistent
 * MPI request the program gets.  `cartesian`: counted as accelerated at
 * each start. */
int pl_req_persistent(Cart_request cr, int cartesian, MPI_Request *handle);

/* Any request of the drop-in exists (cheap; no lock). */
int pl_any(void);
/* Operations of the drop-in need progress (cheap; no lock). */
int pl_pending(void);

/* The drop-in's request behind handle, or NULL (cheap when it has none). */
pl_req *pl_find(MPI_Request handle);
/* A persistent request (else a non-blocking one: a real generalized
 * request, which MPI completes once the drop-in has completed it). */
int pl_is_persistent(const pl_req *e);

/* Advance every active operation of the drop-in once; completes those that
 * finished (non-blocking: MPI_Grequest_complete; persistent: PL_DONE).
 * Any thread that calls MPI may drive: cartcoll's progress thread never
 * comes here (the drop-in's copy of the library calls PMPI). */
void pl_drive(void);

/* Complete e's operation with Cart_wait (MPI_Wait on e alone): 1 when
 * done (then e is as pl_drive leaves a finished one), 0 when e is not
 * active or another thread advances it. */
int pl_wait(pl_req *e);

/* Persistent request e: its state; make a PL_DONE one inactive (the
 * program completed it) and fill *status (may be MPI_STATUS_IGNORE);
 * returns the code of its run. */
int pl_state(pl_req *e);
int pl_complete(pl_req *e, MPI_Status *status);

/* MPI_Start of e: an MPI error code. */
int pl_start(pl_req *e);

/* MPI_Request_free of the drop-in's request e, held by the program in
 * *handle: an active one is finished in the background. */
int pl_free(pl_req *e, MPI_Request *handle);

/* A status for a completed collective: error `err`, no elements, not
 * cancelled, source and tag as MPI's empty status. */
void pl_status(MPI_Status *status, int err);

/* Complete the operations the program freed while active (MPI_Finalize). */
void pl_drain(void);

#pragma GCC visibility pop

#endif

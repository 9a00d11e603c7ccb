/* An unmodified MPI program (mpi.h only) for the PMPI drop-in's requests:
 * the non-blocking MPI_Ineighbor_* and, on MPI-4, the persistent
 * MPI_Neighbor_*_init collectives on the communicators of graphs.c, their
 * requests mixed in one array with the program's own point-to-point
 * requests and completed with every completion call, in various orders:
 * Waitall, Wait (in reverse), Waitany / Waitsome / Testall / Testany /
 * Testsome / Test loops, Request_get_status polling.  Persistent
 * operations run three times (MPI_Startall of the program's persistent
 * point-to-point requests and the collectives together, or MPI_Start one by
 * one).  Also: MPI_Cancel of a collective request (an error), MPI_Request_free
 * of an active one then completion by other means (run.sh requires the
 * drop-in to accept it; both MPIs refuse it), a non-blocking operation
 * completed after MPI_Comm_free of its communicator, a process blocked in
 * MPI_Probe / MPI_Recv while its neighbours wait for its part of a
 * collective, arrays of null requests, and with --threads two threads that
 * do all this at once on their own communicators (MPI_THREAD_MULTIPLE) and
 * (MPI-4) cartcoll's progress thread started by a persistent call's info.
 *
 * Every result is compared with a point-to-point oracle; statuses of the
 * program's receives must come back at their index.  Prints the report
 * line the drop-in must print, and PASS or FAIL. */
#include "graphs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NRQ = 8, RING = 5, NMETHODS = 9 };
static const char *const method_name[NMETHODS] = { "MPI_Waitall",  "MPI_Wait in reverse", "MPI_Waitany",
                                                   "MPI_Waitsome", "MPI_Testall",         "MPI_Testany",
                                                   "MPI_Testsome", "MPI_Test",            "MPI_Request_get_status" };

/* One process's view of one round: a graph, its blocks, a ring exchange of
 * its own on `ring` (left -> me -> right), and the requests. */
typedef struct {
    const graph *g;
    blocks b;
    MPI_Comm ring;
    int rsend, rrecv, salt;
    MPI_Request rq[NRQ];
    MPI_Status st[NRQ];
} round_t;

static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;

static void fail(const round_t *r, const char *what, const char *how)
{
    pthread_mutex_lock(&fail_lock);
    fprintf(stderr, "neighbor_nb: rank %d: %s on %s (%s)\n", me, what, r->g->name, how);
    failures++;
    pthread_mutex_unlock(&fail_lock);
}

static void start_nonblocking(round_t *r)
{
    blocks *b = &r->b;
    MPI_Comm c = r->g->comm;
    MPI_Ineighbor_alltoall(b->sdata[C_ALLTOALL], M, MPI_INT, b->rdata[C_ALLTOALL], M, MPI_INT, c, &r->rq[0]);
    MPI_Ineighbor_allgather(b->sdata[C_ALLGATHER], M, MPI_INT, b->rdata[C_ALLGATHER], M, MPI_INT, c, &r->rq[1]);
    MPI_Ineighbor_alltoallv(b->sdata[C_ALLTOALLV], b->scnt, b->sdis, MPI_INT, b->rdata[C_ALLTOALLV], b->rcnt,
                            b->rdis, MPI_INT, c, &r->rq[2]);
    MPI_Ineighbor_alltoallw(b->sdata[C_ALLTOALLW], b->scnt, b->sdw, b->ty, b->rdata[C_ALLTOALLW], b->rcnt, b->rdw,
                            b->ty, c, &r->rq[3]);
    MPI_Ineighbor_allgatherv(b->sdata[C_ALLGATHERV], b->agcount, MPI_INT, b->rdata[C_ALLGATHERV], b->gcnt, b->gdis,
                             MPI_INT, c, &r->rq[4]);
}

static void ring_requests(round_t *r, int persistent)
{
    int n, rank;
    MPI_Comm_size(r->ring, &n);
    MPI_Comm_rank(r->ring, &rank);
    int left = (rank + n - 1) % n, right = (rank + 1) % n;
    if (persistent) {
        MPI_Recv_init(&r->rrecv, 1, MPI_INT, left, 9, r->ring, &r->rq[RING]);
        MPI_Send_init(&r->rsend, 1, MPI_INT, right, 9, r->ring, &r->rq[RING + 1]);
    } else {
        MPI_Irecv(&r->rrecv, 1, MPI_INT, left, 9, r->ring, &r->rq[RING]);
        MPI_Isend(&r->rsend, 1, MPI_INT, right, 9, r->ring, &r->rq[RING + 1]);
    }
}

/* ---- the completion calls ------------------------------------------------------ */

static int all_done(const int *done)
{
    for (int i = 0; i < NRQ; i++)
        if (!done[i]) return 0;
    return 1;
}

/* Requests in an unknown state (reported twice, never reported): nothing
 * after this could be trusted or even finish -- MPICH 4.0's own persistent
 * collectives are reported again and again by MPI_Testany --, so stop. */
static void fatal(round_t *r, const char *what, const char *how)
{
    fail(r, what, how);
    fprintf(stderr, "neighbor_nb: FAIL (requests in an unknown state: aborting)\n");
    MPI_Abort(MPI_COMM_WORLD, 3);
}

/* Indices reported complete: each once. */
static int mark(round_t *r, int *done, int i, const MPI_Status *s, const char *how)
{
    if (i < 0 || i >= NRQ || done[i]) {
        fatal(r, "a request was reported complete twice or at a bad index", how);
        return -1;
    }
    done[i] = 1;
    if (s) r->st[i] = *s;
    return 0;
}

static void complete_any(round_t *r, int *done, int wait, const char *how)
{
    for (;;) {
        int idx = -1, flag = 1;
        MPI_Status s;
        if (wait) MPI_Waitany(NRQ, r->rq, &idx, &s);
        else MPI_Testany(NRQ, r->rq, &idx, &flag, &s);
        if (!flag) continue;
        if (idx == MPI_UNDEFINED || mark(r, done, idx, &s, how)) return;
    }
}

static void complete_some(round_t *r, int *done, int wait, const char *how)
{
    for (;;) {
        int out = 0, idx[NRQ];
        MPI_Status s[NRQ];
        if (wait) MPI_Waitsome(NRQ, r->rq, &out, idx, s);
        else MPI_Testsome(NRQ, r->rq, &out, idx, s);
        if (out == MPI_UNDEFINED) return;
        for (int k = 0; k < out; k++)
            if (mark(r, done, idx[k], &s[k], how)) return;
    }
}

/* Complete r->rq with method m; the statuses land in r->st. */
static void complete(round_t *r, int m)
{
    const char *how = method_name[m];
    int done[NRQ] = { 0 }, flag = 0;
    switch (m) {
    case 0: MPI_Waitall(NRQ, r->rq, r->st); return;
    case 1:
        for (int i = NRQ - 1; i >= 0; i--) MPI_Wait(&r->rq[i], &r->st[i]);
        return;
    case 2: complete_any(r, done, 1, how); break;
    case 3: complete_some(r, done, 1, how); break;
    case 4:
        while (!flag) MPI_Testall(NRQ, r->rq, &flag, r->st);
        return;
    case 5: complete_any(r, done, 0, how); break;
    case 6: complete_some(r, done, 0, how); break;
    case 7:
        /* round robin, starting in the middle */
        for (int k = 3; !all_done(done); k++) {
            int i = k % NRQ;
            if (done[i]) continue;
            MPI_Test(&r->rq[i], &flag, &r->st[i]);
            done[i] = flag;
        }
        return;
    default:
        for (int i = 0; i < NRQ; i++) {
            for (flag = 0; !flag;) MPI_Request_get_status(r->rq[i], &flag, &r->st[i]);
            MPI_Wait(&r->rq[i], MPI_STATUS_IGNORE);
        }
        return;
    }
    /* the any/some loops: the null request (index NRQ - 1) is never reported */
    done[NRQ - 1] = 1;
    if (!all_done(done)) fatal(r, "a request was never reported complete", how);
}

/* After completion: non-blocking requests are MPI_REQUEST_NULL, persistent
 * ones still there; the program's receive status is at its index. */
static void check_round(round_t *r, int persistent, int m)
{
    const char *how = method_name[m];
    char what[160];
    int n, rank, count = -1;
    MPI_Comm_size(r->ring, &n);
    MPI_Comm_rank(r->ring, &rank);
    for (int i = 0; i < NRQ - 1; i++)
        if ((r->rq[i] == MPI_REQUEST_NULL) == persistent) {
            snprintf(what, sizeof what, "request %d is %s after completion", i,
                     persistent ? "MPI_REQUEST_NULL" : "not MPI_REQUEST_NULL");
            fail(r, what, how);
        }
    if (r->rrecv != r->salt * 1000 + (rank + n - 1) % n) fail(r, "the program's own receive got a wrong value", how);
    MPI_Get_count(&r->st[RING], MPI_INT, &count);
    if ((r->st[RING].MPI_SOURCE != (rank + n - 1) % n || r->st[RING].MPI_TAG != 9 || count != 1))
        fail(r, "the status of the program's own receive is wrong (not at its index?)", how);
    snprintf(what, sizeof what, "%s %s", persistent ? "persistent" : "non-blocking", how);
    check_blocks(what, r->g, &r->b);
}

/* ---- rounds ------------------------------------------------------------------ */

static void nonblocking_round(round_t *r, int salt, int m)
{
    make_blocks(r->g, &r->b, salt);
    clear_blocks(&r->b);
    r->salt = salt;
    int rank;
    MPI_Comm_rank(r->ring, &rank);
    r->rsend = salt * 1000 + rank;
    r->rrecv = -1;
    start_nonblocking(r);
    ring_requests(r, 0);
    r->rq[NRQ - 1] = MPI_REQUEST_NULL;
    complete(r, m);
    check_round(r, 0, m);
}

#if MPI_VERSION >= 4
static void init_persistent(round_t *r)
{
    blocks *b = &r->b;
    MPI_Comm c = r->g->comm;
    MPI_Info i = MPI_INFO_NULL;
    MPI_Neighbor_alltoall_init(b->sdata[C_ALLTOALL], M, MPI_INT, b->rdata[C_ALLTOALL], M, MPI_INT, c, i, &r->rq[0]);
    MPI_Neighbor_allgather_init(b->sdata[C_ALLGATHER], M, MPI_INT, b->rdata[C_ALLGATHER], M, MPI_INT, c, i,
                                &r->rq[1]);
    MPI_Neighbor_alltoallv_init(b->sdata[C_ALLTOALLV], b->scnt, b->sdis, MPI_INT, b->rdata[C_ALLTOALLV], b->rcnt,
                                b->rdis, MPI_INT, c, i, &r->rq[2]);
    MPI_Neighbor_alltoallw_init(b->sdata[C_ALLTOALLW], b->scnt, b->sdw, b->ty, b->rdata[C_ALLTOALLW], b->rcnt,
                                b->rdw, b->ty, c, i, &r->rq[3]);
    MPI_Neighbor_allgatherv_init(b->sdata[C_ALLGATHERV], b->agcount, MPI_INT, b->rdata[C_ALLGATHERV], b->gcnt,
                                 b->gdis, MPI_INT, c, i, &r->rq[4]);
}
#endif

/* Three starts of the five persistent collectives and the program's
 * persistent ring; 0 when MPI has no persistent neighbourhood collectives. */
static int persistent_rounds(round_t *r, int m0)
{
#if MPI_VERSION >= 4
    int rank;
    MPI_Comm_rank(r->ring, &rank);
    make_blocks(r->g, &r->b, 10);
    init_persistent(r);
    ring_requests(r, 1);
    r->rq[NRQ - 1] = MPI_REQUEST_NULL;
    for (int it = 0; it < 3; it++) {
        int m = (m0 + 4 * it) % NMETHODS;
        if (it) make_blocks(r->g, &r->b, 10 + it); /* new values, the same buffers */
        clear_blocks(&r->b);
        r->salt = 10 + it;
        r->rsend = r->salt * 1000 + rank;
        r->rrecv = -1;
        if (it == 1)
            for (int i = 0; i < NRQ - 1; i++) MPI_Start(&r->rq[i]);
        else MPI_Startall(NRQ - 1, r->rq);
        complete(r, m);
        check_round(r, 1, m);
        for (int c = 0; c < NCOLL; c++) count_call(r->g);
    }
    for (int i = 0; i < NRQ - 1; i++) MPI_Request_free(&r->rq[i]);
    return 1;
#else
    (void)r, (void)m0;
    return 0;
#endif
}

/* ---- single scenarios ------------------------------------------------------------ */

/* A collective request cannot be cancelled (an error on MPI_COMM_WORLD). */
static void cancel(round_t *r)
{
    make_blocks(r->g, &r->b, 20);
    clear_blocks(&r->b);
    MPI_Request q;
    MPI_Ineighbor_alltoall(r->b.sdata[0], M, MPI_INT, r->b.rdata[0], M, MPI_INT, r->g->comm, &q);
    count_call(r->g);
    int rc = MPI_Cancel(&q), cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    if (me == 0)
        printf("neighbor_nb: MPI_Cancel of a collective request: %s\n",
               rc == MPI_SUCCESS ? "accepted" : cls == MPI_ERR_REQUEST ? "MPI_ERR_REQUEST" : "another error class");
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    check("MPI_Ineighbor_alltoall after MPI_Cancel", r->g, r->b.rdata[0], r->b.want[0], r->g->in * M);
}

/* MPI_Request_free of an active collective request, then completion seen
 * in the receive buffer while the program calls MPI: MPI_Test on a null
 * request, MPI_Iprobe. */
static void free_active(round_t *r)
{
    make_blocks(r->g, &r->b, 21);
    clear_blocks(&r->b);
    MPI_Request q, null = MPI_REQUEST_NULL;
    MPI_Ineighbor_alltoall(r->b.sdata[0], M, MPI_INT, r->b.rdata[0], M, MPI_INT, r->g->comm, &q);
    count_call(r->g);
    int rc = MPI_Request_free(&q), ok = rc == MPI_SUCCESS, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (me == 0)
        printf("neighbor_nb: MPI_Request_free of an active collective request: %s\n", all ? "accepted" : "refused");
    if (!ok) {
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else {
        if (q != MPI_REQUEST_NULL) fail(r, "MPI_Request_free left the request", "MPI_Request_free");
        double t0 = MPI_Wtime();
        int n = r->g->in * M, flag;
        while (memcmp(r->b.rdata[0], r->b.want[0], sizeof(int) * (size_t)n) && MPI_Wtime() - t0 < 30) {
            MPI_Test(&null, &flag, MPI_STATUS_IGNORE);
            MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        }
    }
    check("MPI_Ineighbor_alltoall after MPI_Request_free", r->g, r->b.rdata[0], r->b.want[0], r->g->in * M);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* A non-blocking operation outlives its communicator: MPI_Comm_free with
 * the operation pending only marks the communicator for deallocation, the
 * operation completes normally (MPI 4.0 section 7.4.3). */
static void outlives_comm(round_t *r)
{
    make_blocks(r->g, &r->b, 24);
    clear_blocks(&r->b);
    MPI_Comm dup;
    MPI_Request q;
    MPI_Comm_dup(r->g->comm, &dup);
    MPI_Ineighbor_alltoall(r->b.sdata[0], M, MPI_INT, r->b.rdata[0], M, MPI_INT, dup, &q);
    count_call(r->g);
    MPI_Comm_free(&dup);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    if (q != MPI_REQUEST_NULL) fail(r, "MPI_Wait left the request", "after MPI_Comm_free");
    check("MPI_Ineighbor_alltoall completed after MPI_Comm_free", r->g, r->b.rdata[0], r->b.want[0], r->g->in * M);
}

/* Even ranks wait in MPI_Probe + MPI_Recv for the next odd rank, which
 * sends only after its collective completed: the even rank's share must
 * progress meanwhile (MPI's own MPI_Ineighbor_* would, inside MPI). */
static void blocked_in_recv(round_t *r)
{
    make_blocks(r->g, &r->b, 22);
    clear_blocks(&r->b);
    MPI_Request q;
    int token = 7;
    MPI_Status s;
    MPI_Ineighbor_alltoall(r->b.sdata[0], M, MPI_INT, r->b.rdata[0], M, MPI_INT, r->g->comm, &q);
    count_call(r->g);
    if (me % 2 == 0 && me + 1 < np) {
        MPI_Probe(me + 1, 5, MPI_COMM_WORLD, &s);
        MPI_Recv(&token, 1, MPI_INT, me + 1, 5, MPI_COMM_WORLD, &s);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else {
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        if (me % 2) MPI_Send(&token, 1, MPI_INT, me - 1, 5, MPI_COMM_WORLD);
    }
    check("MPI_Ineighbor_alltoall around a blocking MPI_Recv", r->g, r->b.rdata[0], r->b.want[0], r->g->in * M);
}

/* Errors go to the error handler of the communicator the call was given,
 * with MPI's error class; a failed non-blocking call leaves its request
 * alone. */
static MPI_Comm raised_on;
static int raised_class, raised;

static void on_error(MPI_Comm *comm, int *code, ...)
{
    raised_on = *comm;
    MPI_Error_class(*code, &raised_class);
    raised++;
}

static void errors(round_t *r)
{
    MPI_Errhandler eh, old;
    MPI_Comm c = r->g->comm;
    MPI_Request q = MPI_REQUEST_NULL;
    int x[MAXN * M];
    MPI_Comm_create_errhandler(on_error, &eh);
    MPI_Comm_get_errhandler(c, &old);
    MPI_Comm_set_errhandler(c, eh);
    raised = 0;
    int rc = MPI_Ineighbor_alltoall(x, -1, MPI_INT, x, -1, MPI_INT, c, &q);
    count_call(r->g);
    if (rc == MPI_SUCCESS || raised != 1 || raised_on != c || raised_class != MPI_ERR_COUNT || q != MPI_REQUEST_NULL)
        fail(r, "MPI_Ineighbor_alltoall with count -1: not MPI_ERR_COUNT on the communicator's handler", "errors");
    raised = 0;
    rc = MPI_Neighbor_alltoall(x, 1, MPI_DATATYPE_NULL, x, 1, MPI_INT, c);
    count_call(r->g);
    if (rc == MPI_SUCCESS || raised != 1 || raised_on != c || raised_class != MPI_ERR_TYPE)
        fail(r, "MPI_Neighbor_alltoall with MPI_DATATYPE_NULL: not MPI_ERR_TYPE on the communicator's handler",
             "errors");
    MPI_Comm_set_errhandler(c, old);
    MPI_Errhandler_free(&old);
    MPI_Errhandler_free(&eh);
}

/* Arrays of null requests: MPI_UNDEFINED, as MPI says. */
static void nulls(round_t *r)
{
    MPI_Request q[3] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    int idx = 0, flag = 0, out = 0, ind[3];
    MPI_Waitany(3, q, &idx, MPI_STATUS_IGNORE);
    if (idx != MPI_UNDEFINED) fail(r, "MPI_Waitany of null requests is not MPI_UNDEFINED", "nulls");
    MPI_Testany(3, q, &idx, &flag, MPI_STATUS_IGNORE);
    if (!flag || idx != MPI_UNDEFINED) fail(r, "MPI_Testany of null requests", "nulls");
    MPI_Waitsome(3, q, &out, ind, MPI_STATUSES_IGNORE);
    if (out != MPI_UNDEFINED) fail(r, "MPI_Waitsome of null requests", "nulls");
}

#if MPI_VERSION >= 4
/* One persistent request through its life: inactive (Test, get_status say
 * complete), started, polled with get_status, waited, three times. */
static void persistent_life(round_t *r)
{
    MPI_Request q;
    int flag = 0;
    make_blocks(r->g, &r->b, 23);
    MPI_Neighbor_alltoall_init(r->b.sdata[0], M, MPI_INT, r->b.rdata[0], M, MPI_INT, r->g->comm, MPI_INFO_NULL, &q);
    MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
    if (!flag || q == MPI_REQUEST_NULL) fail(r, "MPI_Test of an inactive persistent request", "life");
    for (int it = 0; it < 3; it++) {
        clear_blocks(&r->b);
        MPI_Start(&q);
        count_call(r->g);
        for (flag = 0; !flag;) MPI_Request_get_status(q, &flag, MPI_STATUS_IGNORE);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        check("persistent MPI_Neighbor_alltoall_init", r->g, r->b.rdata[0], r->b.want[0], r->g->in * M);
    }
    /* MPI_Start of an active request: MPI_ERR_REQUEST (MPI_COMM_WORLD
     * returns errors here), the run goes on */
    clear_blocks(&r->b);
    MPI_Start(&q);
    count_call(r->g);
    int rc = MPI_Start(&q), cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_REQUEST) fail(r, "MPI_Start of an active request is not MPI_ERR_REQUEST", "life");
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    check("persistent MPI_Neighbor_alltoall_init after a second MPI_Start", r->g, r->b.rdata[0], r->b.want[0],
          r->g->in * M);
    MPI_Request_free(&q);
    if (q != MPI_REQUEST_NULL) fail(r, "MPI_Request_free left the request", "life");
    /* a request outlives its communicator (MPI_Comm_free releases the
     * handle; the request keeps what it needs) */
    MPI_Comm dup;
    MPI_Comm_dup(r->g->comm, &dup);
    MPI_Neighbor_alltoall_init(r->b.sdata[0], M, MPI_INT, r->b.rdata[0], M, MPI_INT, dup, MPI_INFO_NULL, &q);
    MPI_Comm_free(&dup);
    for (int it = 0; it < 2; it++) {
        clear_blocks(&r->b);
        MPI_Start(&q);
        count_call(r->g);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        check("persistent MPI_Neighbor_alltoall_init after MPI_Comm_free", r->g, r->b.rdata[0], r->b.want[0],
              r->g->in * M);
    }
    MPI_Request_free(&q);
    /* the freed requests leave nothing behind: MPI's own persistent
     * collective still completes (MPICH 4.0.2 never completed one once a
     * persistent request with MPI_PROC_NULL had been freed, which the drop-in
     * used to hand out; a hang fails by run.sh's timeout) */
    int one = me + 1, sum = 0;
    MPI_Allreduce_init(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &q);
    MPI_Start(&q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Request_free(&q);
    if (sum != np * (np + 1) / 2) fail(r, "MPI_Allreduce_init after the freed persistent requests", "life");
}
#endif

#if MPI_VERSION >= 4
/* With MPI_THREAD_MULTIPLE, cartcoll's progress thread started by an info
 * key of a persistent collective (MPI ignores keys it does not know) rather
 * than by CARTCOLL_ASYNC_PROGRESS: it calls MPI_Test* while the drop-in's
 * operations are pending, and must not be made to drive them (it would take
 * cartcoll's list lock a second time and hang).  Started persistent and
 * non-blocking operations polled with MPI_Test, then waited. */
static void async_by_info(round_t *r)
{
    MPI_Info info;
    MPI_Request q, q2;
    blocks *b = &r->b;
    make_blocks(r->g, b, 25);
    MPI_Info_create(&info);
    MPI_Info_set(info, "cartcoll_async_progress", "true");
    MPI_Neighbor_alltoall_init(b->sdata[C_ALLTOALL], M, MPI_INT, b->rdata[C_ALLTOALL], M, MPI_INT, r->g->comm, info,
                               &q);
    MPI_Info_free(&info);
    for (int it = 0; it < 20; it++) {
        clear_blocks(b);
        MPI_Start(&q);
        MPI_Ineighbor_allgather(b->sdata[C_ALLGATHER], M, MPI_INT, b->rdata[C_ALLGATHER], M, MPI_INT, r->g->comm,
                                &q2);
        count_call(r->g);
        count_call(r->g);
        for (int flag = 0; !flag;) MPI_Test(&q2, &flag, MPI_STATUS_IGNORE);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        check("persistent MPI_Neighbor_alltoall_init, asynchronous progress by info", r->g, b->rdata[C_ALLTOALL],
              b->want[C_ALLTOALL], r->g->in * M);
        check("MPI_Ineighbor_allgather, asynchronous progress by info", r->g, b->rdata[C_ALLGATHER],
              b->want[C_ALLGATHER], r->g->in * M);
    }
    MPI_Request_free(&q);
}
#endif

/* NEIGHBOR_NB_TRACE=1: say on stderr what runs (to find a hang). */
static void trace(const char *where, const char *what)
{
    static int on = -1;
    if (on < 0) on = getenv("NEIGHBOR_NB_TRACE") != NULL;
    if (on) fprintf(stderr, "neighbor_nb: rank %d: %s: %s\n", me, where, what);
}

/* ---- threads -------------------------------------------------------------------- */

enum { THREADS = 2, THREAD_ROUNDS = 6 };
typedef struct {
    graph g;
    round_t r;
} thread_arg;

static void *thread_main(void *p)
{
    thread_arg *a = p;
    a->r.g = &a->g;
    for (int it = 0; it < THREAD_ROUNDS; it++) nonblocking_round(&a->r, 30 + it, (it * 5 + 1) % NMETHODS);
    return NULL;
}

/* Two threads at once, each on a duplicate of the stencil graph and its own
 * duplicate of MPI_COMM_WORLD (oracle and ring). */
static void threads(const graph *g0)
{
    static thread_arg a[THREADS];
    pthread_t t[THREADS];
    for (int k = 0; k < THREADS; k++) {
        a[k].g = *g0;
        a[k].g.made = 0;
        MPI_Comm_dup(g0->comm, &a[k].g.comm);
        MPI_Comm_dup(MPI_COMM_WORLD, &a[k].g.base);
        a[k].r.ring = a[k].g.base;
    }
    for (int k = 0; k < THREADS; k++) pthread_create(&t[k], NULL, thread_main, &a[k]);
    for (int k = 0; k < THREADS; k++) pthread_join(t[k], NULL);
    for (int k = 0; k < THREADS; k++) {
        for (int c = 0; c < THREAD_ROUNDS * NCOLL; c++) count_call(&a[k].g);
        MPI_Comm_free(&a[k].g.comm);
        MPI_Comm_free(&a[k].g.base);
    }
}

int main(int argc, char **argv)
{
    int want_threads = argc > 1 && !strcmp(argv[1], "--threads"), provided = MPI_THREAD_SINGLE;
    if (want_threads) MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); /* MPI_Cancel, MPI_Request_free */
    static graph g[MAXG];
    static round_t r;
    int n = make_graphs(g), persistent = 0;
    r.ring = MPI_COMM_WORLD;
    for (int k = 0; k < n; k++) {
        r.g = &g[k];
        for (int rep = 0; rep < 2; rep++) {
            trace(g[k].name, method_name[(2 * k + rep) % NMETHODS]);
            nonblocking_round(&r, rep, (2 * k + rep) % NMETHODS);
            for (int c = 0; c < NCOLL; c++) count_call(&g[k]);
        }
        trace(g[k].name, "persistent");
        persistent = persistent_rounds(&r, k % NMETHODS);
    }
    r.g = &g[0];
    trace(g[0].name, "MPI_Cancel");
    cancel(&r);
    trace(g[0].name, "MPI_Request_free");
    free_active(&r);
    trace(g[0].name, "MPI_Comm_free before MPI_Wait");
    outlives_comm(&r);
    trace(g[0].name, "blocked in MPI_Recv");
    blocked_in_recv(&r);
    nulls(&r);
    trace(g[0].name, "errors");
    errors(&r);
#if MPI_VERSION >= 4
    trace(g[0].name, "a persistent request's life");
    persistent_life(&r);
#endif
#if MPI_VERSION >= 4
    if (want_threads && provided == MPI_THREAD_MULTIPLE) {
        trace(g[0].name, "asynchronous progress by info");
        async_by_info(&r);
    }
#endif
    if (want_threads && provided == MPI_THREAD_MULTIPLE) threads(&g[0]);
    else if (want_threads && me == 0) printf("neighbor_nb: MPI_THREAD_MULTIPLE not provided, no threads\n");
    free_graphs(g, n);
    if (me == 0) printf("neighbor_nb: persistent collectives %s\n", persistent ? "tested" : "not in this MPI");
    print_expected("neighbor_nb");
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) printf("neighbor_nb: %s (%d processes, %d mismatches)\n", total ? "FAIL" : "PASS", np, total);
    MPI_Finalize();
    return total != 0;
}

/* Fortran entry points of the drop-in for its requests, Open MPI only (see
 * fortran.c): every call that completes, frees or cancels requests and
 * the blocking point-to-point calls (the five MPI_Ineighbor_* are in
 * fortran_wrappers.gen.c).
 *
 * Open MPI's own Fortran bindings of these call PMPI_ directly.  For a
 * request of the drop-in -- a generalized request that only the drop-in
 * completes -- its MPI_Wait would wait forever, and a process blocked in
 * its MPI_Recv would not forward the blocks of the drop-in's pending
 * operations that its neighbours wait for.  So these bindings convert the
 * handles and call the drop-in's C entry points (completion.c), which
 * handle the drop-in's requests in any mix with the program's own -- but
 * only where the drop-in is involved: while it has no request (completion
 * calls), nothing pending (point-to-point), or does not take the
 * communicator (MPI_Ineighbor_*), Open MPI's own binding runs, so
 * programs that never meet the drop-in's requests run exactly as without
 * it.
 *
 * Results are written back as Open MPI's bindings do: request handles
 * (MPI_REQUEST_NULL once freed), statuses (unless MPI_STATUS[ES]_IGNORE),
 * 1-based indices, LOGICAL flags; on success (and, for the array calls,
 * on MPI_ERR_IN_STATUS). */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "pmpi/fortran.h"

#ifdef OPEN_MPI

#include <stdlib.h>

/* Not the drop-in's business: no request of it exists (or it is off). */
static int no_requests(void) { return !pl_on() || !pl_any(); }
/* Nothing of the drop-in's waits for progress. */
static int nothing_pending(void) { return !pl_on() || !pl_pending(); }

/* ---- conversions ---------------------------------------------------------- */

/* Arrays of n C handles/statuses: on the stack up to 16, else allocated
 * (NULL when that fails). */
enum { SMALL = 16 };
typedef struct {
    MPI_Request small_r[SMALL], *r;
    MPI_Status small_s[SMALL], *s; /* MPI_STATUSES_IGNORE when ignored */
} carrays;

static int carrays_make(carrays *a, int n, const MPI_Fint *freqs, const MPI_Fint *fsts)
{
    size_t k = n > 0 ? (size_t)n : 1;
    int ignored = pl_f_statuses_ignored(fsts);
    a->r = k <= SMALL ? a->small_r : malloc(k * sizeof *a->r);
    /* (Open MPI's MPI_STATUSES_IGNORE is NULL) */
    a->s = ignored ? MPI_STATUSES_IGNORE : k <= SMALL ? a->small_s : malloc(k * sizeof *a->s);
    if (!a->r || (!ignored && !a->s)) return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++) a->r[i] = PMPI_Request_f2c(freqs[i]);
    return MPI_SUCCESS;
}

static void carrays_free(carrays *a)
{
    if (a->r && a->r != a->small_r) free(a->r);
    if (a->s && a->s != MPI_STATUSES_IGNORE && a->s != a->small_s) free(a->s);
}

/* Every handle back (completed ones are MPI_REQUEST_NULL now). */
static void requests_back(const carrays *a, int n, MPI_Fint *freqs)
{
    for (int i = 0; i < n; i++) freqs[i] = PMPI_Request_c2f(a->r[i]);
}

/* C status i to Fortran status j of the array fsts. */
static void status_back(const carrays *a, int i, MPI_Fint *fsts, int j)
{
    if (a->s != MPI_STATUSES_IGNORE) PMPI_Status_c2f(&a->s[i], fsts + (size_t)j * PL_F_STATUS_SIZE);
}

static void one_status_back(const MPI_Status *s, MPI_Fint *fst)
{
    if (!pl_f_status_ignored(fst)) PMPI_Status_c2f(s, fst);
}

static MPI_Status *one_status(MPI_Status *s, const MPI_Fint *fst)
{
    return pl_f_status_ignored(fst) ? MPI_STATUS_IGNORE : s;
}

/* A call that cannot even convert its arguments: MPI_ERR_NO_MEM on
 * MPI_COMM_WORLD's handler (where both MPIs raise errors about requests). */
static int no_memory(void)
{
    PMPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    return MPI_ERR_NO_MEM;
}

/* ---- one request ---------------------------------------------------------------- */

static void f_wait(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierror)
{
    PL_F_MPI_IF(no_requests(), f_wait, "mpi_wait_", request, status, ierror);
    MPI_Request r = PMPI_Request_f2c(*request);
    MPI_Status s;
    int rc = MPI_Wait(&r, one_status(&s, status));
    if (rc == MPI_SUCCESS) {
        *request = PMPI_Request_c2f(r);
        one_status_back(&s, status);
    }
    *ierror = rc;
}
FORTRAN_NAMES(f_wait, wait, MPI_WAIT);

static void f_test(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierror)
{
    PL_F_MPI_IF(no_requests(), f_test, "mpi_test_", request, flag, status, ierror);
    MPI_Request r = PMPI_Request_f2c(*request);
    MPI_Status s;
    int f = 0, rc = MPI_Test(&r, &f, one_status(&s, status));
    if (rc == MPI_SUCCESS) {
        *flag = f ? PL_F_TRUE : PL_F_FALSE;
        *request = PMPI_Request_c2f(r);
        if (f) one_status_back(&s, status);
    }
    *ierror = rc;
}
FORTRAN_NAMES(f_test, test, MPI_TEST);
FORTRAN_F08_PMPI_NAME(f_test, test);

static void f_request_get_status(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierror)
{
    PL_F_MPI_IF(no_requests(), f_request_get_status, "mpi_request_get_status_", request, flag, status, ierror);
    MPI_Status s;
    int f = 0, rc = MPI_Request_get_status(PMPI_Request_f2c(*request), &f, one_status(&s, status));
    if (rc == MPI_SUCCESS) {
        *flag = f ? PL_F_TRUE : PL_F_FALSE;
        if (f) one_status_back(&s, status);
    }
    *ierror = rc;
}
FORTRAN_NAMES(f_request_get_status, request_get_status, MPI_REQUEST_GET_STATUS);
FORTRAN_F08_PMPI_NAME(f_request_get_status, request_get_status);

static void f_request_free(MPI_Fint *request, MPI_Fint *ierror)
{
    PL_F_MPI_IF(no_requests(), f_request_free, "mpi_request_free_", request, ierror);
    MPI_Request r = PMPI_Request_f2c(*request);
    int rc = MPI_Request_free(&r);
    if (rc == MPI_SUCCESS) *request = PMPI_Request_c2f(MPI_REQUEST_NULL);
    *ierror = rc;
}
FORTRAN_NAMES(f_request_free, request_free, MPI_REQUEST_FREE);

static void f_cancel(MPI_Fint *request, MPI_Fint *ierror)
{
    PL_F_MPI_IF(no_requests(), f_cancel, "mpi_cancel_", request, ierror);
    MPI_Request r = PMPI_Request_f2c(*request);
    *ierror = MPI_Cancel(&r);
}
FORTRAN_NAMES(f_cancel, cancel, MPI_CANCEL);

/* ---- arrays of requests ----------------------------------------------------------- */

static void f_waitall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *statuses, MPI_Fint *ierror)
{
    PL_F_MPI_IF(no_requests(), f_waitall, "mpi_waitall_", count, requests, statuses, ierror);
    int n = *count;
    carrays a;
    int rc = carrays_make(&a, n, requests, statuses);
    if (rc == MPI_SUCCESS) rc = MPI_Waitall(n, a.r, a.s);
    else rc = no_memory();
    if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) {
        requests_back(&a, n, requests);
        for (int i = 0; i < n; i++) status_back(&a, i, statuses, i);
    }
    carrays_free(&a);
    *ierror = rc;
}
FORTRAN_NAMES(f_waitall, waitall, MPI_WAITALL);

static void f_testall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses, MPI_Fint *ierror)
{
    PL_F_MPI_IF(no_requests(), f_testall, "mpi_testall_", count, requests, flag, statuses, ierror);
    int n = *count, f = 0;
    carrays a;
    int rc = carrays_make(&a, n, requests, statuses);
    if (rc == MPI_SUCCESS) rc = MPI_Testall(n, a.r, &f, a.s);
    else rc = no_memory();
    if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) {
        *flag = f ? PL_F_TRUE : PL_F_FALSE;
        requests_back(&a, n, requests);
        for (int i = 0; i < n && f; i++) status_back(&a, i, statuses, i);
    }
    carrays_free(&a);
    *ierror = rc;
}
FORTRAN_NAMES(f_testall, testall, MPI_TESTALL);
FORTRAN_F08_PMPI_NAME(f_testall, testall);

/* index: 1-based, MPI_UNDEFINED as is. */
static void f_waitany(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status, MPI_Fint *ierror)
{
    PL_F_MPI_IF(no_requests(), f_waitany, "mpi_waitany_", count, requests, index, status, ierror);
    int n = *count, k = MPI_UNDEFINED;
    carrays a;
    MPI_Status s;
    int rc = carrays_make(&a, n, requests, NULL);
    if (rc == MPI_SUCCESS) rc = MPI_Waitany(n, a.r, &k, one_status(&s, status));
    else rc = no_memory();
    if (rc == MPI_SUCCESS) {
        requests_back(&a, n, requests);
        *index = k == MPI_UNDEFINED ? k : k + 1;
        one_status_back(&s, status);
    }
    carrays_free(&a);
    *ierror = rc;
}
FORTRAN_NAMES(f_waitany, waitany, MPI_WAITANY);

static void f_testany(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status,
                      MPI_Fint *ierror)
{
    PL_F_MPI_IF(no_requests(), f_testany, "mpi_testany_", count, requests, index, flag, status, ierror);
    int n = *count, k = MPI_UNDEFINED, f = 0;
    carrays a;
    MPI_Status s;
    int rc = carrays_make(&a, n, requests, NULL);
    if (rc == MPI_SUCCESS) rc = MPI_Testany(n, a.r, &k, &f, one_status(&s, status));
    else rc = no_memory();
    if (rc == MPI_SUCCESS) {
        requests_back(&a, n, requests);
        *flag = f ? PL_F_TRUE : PL_F_FALSE;
        *index = k == MPI_UNDEFINED ? k : k + 1;
        if (f) one_status_back(&s, status);
    }
    carrays_free(&a);
    *ierror = rc;
}
FORTRAN_NAMES(f_testany, testany, MPI_TESTANY);
FORTRAN_F08_PMPI_NAME(f_testany, testany);

/* outcount requests completed: indices 1-based, statuses in their order. */
static void some_back(const carrays *a, int n, int out, const int *idx, MPI_Fint *requests, MPI_Fint *outcount,
                      MPI_Fint *indices, MPI_Fint *statuses)
{
    requests_back(a, n, requests);
    *outcount = out;
    for (int i = 0; i < out && out != MPI_UNDEFINED; i++) {
        indices[i] = idx[i] + 1;
        status_back(a, i, statuses, i);
    }
}

/* Waitsome / Testsome (fn) on the C requests of a Fortran array. */
static int some(int (*fn)(int, MPI_Request[], int *, int[], MPI_Status[]), MPI_Fint *incount, MPI_Fint *requests,
                MPI_Fint *outcount, MPI_Fint *indices, MPI_Fint *statuses)
{
    int n = *incount, out = 0;
    carrays a;
    int *idx = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int rc = idx ? carrays_make(&a, n, requests, statuses) : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) rc = fn(n, a.r, &out, idx, a.s);
    else rc = no_memory();
    if (idx && (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS))
        some_back(&a, n, out, idx, requests, outcount, indices, statuses);
    if (idx) carrays_free(&a);
    free(idx);
    return rc;
}

static void f_waitsome(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
                       MPI_Fint *statuses, MPI_Fint *ierror)
{
    PL_F_MPI_IF(no_requests(), f_waitsome, "mpi_waitsome_", incount, requests, outcount, indices, statuses, ierror);
    *ierror = some(MPI_Waitsome, incount, requests, outcount, indices, statuses);
}
FORTRAN_NAMES(f_waitsome, waitsome, MPI_WAITSOME);

static void f_testsome(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
                       MPI_Fint *statuses, MPI_Fint *ierror)
{
    PL_F_MPI_IF(no_requests(), f_testsome, "mpi_testsome_", incount, requests, outcount, indices, statuses, ierror);
    *ierror = some(MPI_Testsome, incount, requests, outcount, indices, statuses);
}
FORTRAN_NAMES(f_testsome, testsome, MPI_TESTSOME);
FORTRAN_F08_PMPI_NAME(f_testsome, testsome);

/* ---- blocking point-to-point calls while operations are pending -------------------- */

static void f_send(void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *dest, MPI_Fint *tag, MPI_Fint *comm,
                   MPI_Fint *ierror)
{
    PL_F_MPI_IF(nothing_pending(), f_send, "mpi_send_", buf, count, datatype, dest, tag, comm, ierror);
    *ierror = MPI_Send(pl_f_sbuf(buf), *count, PMPI_Type_f2c(*datatype), *dest, *tag, PMPI_Comm_f2c(*comm));
}
FORTRAN_NAMES(f_send, send, MPI_SEND);

static void f_ssend(void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *dest, MPI_Fint *tag, MPI_Fint *comm,
                    MPI_Fint *ierror)
{
    PL_F_MPI_IF(nothing_pending(), f_ssend, "mpi_ssend_", buf, count, datatype, dest, tag, comm, ierror);
    *ierror = MPI_Ssend(pl_f_sbuf(buf), *count, PMPI_Type_f2c(*datatype), *dest, *tag, PMPI_Comm_f2c(*comm));
}
FORTRAN_NAMES(f_ssend, ssend, MPI_SSEND);

static void f_recv(void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm,
                   MPI_Fint *status, MPI_Fint *ierror)
{
    PL_F_MPI_IF(nothing_pending(), f_recv, "mpi_recv_", buf, count, datatype, source, tag, comm, status, ierror);
    MPI_Status s;
    int rc = MPI_Recv(pl_f_rbuf(buf), *count, PMPI_Type_f2c(*datatype), *source, *tag, PMPI_Comm_f2c(*comm),
                      one_status(&s, status));
    if (rc == MPI_SUCCESS) one_status_back(&s, status);
    *ierror = rc;
}
FORTRAN_NAMES(f_recv, recv, MPI_RECV);

static void f_sendrecv(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, MPI_Fint *dest, MPI_Fint *sendtag,
                       void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *source, MPI_Fint *recvtag,
                       MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierror)
{
    PL_F_MPI_IF(nothing_pending(), f_sendrecv, "mpi_sendrecv_", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                recvcount, recvtype, source, recvtag, comm, status, ierror);
    MPI_Status s;
    int rc = MPI_Sendrecv(pl_f_sbuf(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype), *dest, *sendtag,
                          pl_f_rbuf(recvbuf), *recvcount, PMPI_Type_f2c(*recvtype), *source, *recvtag,
                          PMPI_Comm_f2c(*comm), one_status(&s, status));
    if (rc == MPI_SUCCESS) one_status_back(&s, status);
    *ierror = rc;
}
FORTRAN_NAMES(f_sendrecv, sendrecv, MPI_SENDRECV);

static void f_probe(MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierror)
{
    PL_F_MPI_IF(nothing_pending(), f_probe, "mpi_probe_", source, tag, comm, status, ierror);
    MPI_Status s;
    int rc = MPI_Probe(*source, *tag, PMPI_Comm_f2c(*comm), one_status(&s, status));
    if (rc == MPI_SUCCESS) one_status_back(&s, status);
    *ierror = rc;
}
FORTRAN_NAMES(f_probe, probe, MPI_PROBE);

static void f_mprobe(MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *message, MPI_Fint *status,
                     MPI_Fint *ierror)
{
    PL_F_MPI_IF(nothing_pending(), f_mprobe, "mpi_mprobe_", source, tag, comm, message, status, ierror);
    MPI_Status s;
    MPI_Message msg = MPI_MESSAGE_NULL;
    int rc = MPI_Mprobe(*source, *tag, PMPI_Comm_f2c(*comm), &msg, one_status(&s, status));
    if (rc == MPI_SUCCESS) {
        *message = PMPI_Message_c2f(msg);
        one_status_back(&s, status);
    }
    *ierror = rc;
}
FORTRAN_NAMES(f_mprobe, mprobe, MPI_MPROBE);

static void f_mrecv(void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *message, MPI_Fint *status,
                    MPI_Fint *ierror)
{
    PL_F_MPI_IF(nothing_pending(), f_mrecv, "mpi_mrecv_", buf, count, datatype, message, status, ierror);
    MPI_Status s;
    MPI_Message msg = PMPI_Message_f2c(*message);
    int rc = MPI_Mrecv(pl_f_rbuf(buf), *count, PMPI_Type_f2c(*datatype), &msg, one_status(&s, status));
    if (rc == MPI_SUCCESS) {
        *message = PMPI_Message_c2f(msg);
        one_status_back(&s, status);
    }
    *ierror = rc;
}
FORTRAN_NAMES(f_mrecv, mrecv, MPI_MRECV);

#else

/* MPICH and the MPIs built from it: nothing here (see fortran.c). */
typedef int cc_pmpi_fortran_requests_unused;

#endif

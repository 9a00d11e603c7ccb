/* The MPI calls that take requests, for the drop-in's requests in any mix
 * with the program's own: MPI_Wait, Waitall, Waitany, Waitsome, Test,
 * Testall, Testany, Testsome, Start, Startall, Request_free,
 * Request_get_status, Cancel.
 *
 * Each first drives the drop-in's active operations (cartcoll advances
 * only inside its calls), then asks MPI; the blocking ones loop over MPI's
 * non-blocking test while anything of the drop-in's is pending, and block
 * in MPI once nothing is.  The drop-in's non-blocking requests are
 * generalized requests that MPI completes itself once pl_drive has
 * completed them; its persistent requests are inactive MPI requests (MPI
 * skips them, or gives them an empty status) whose active/complete states
 * are kept here.
 *
 * The blocking point-to-point calls (MPI_Send, Ssend, Recv, Sendrecv,
 * Probe, Mprobe, Mrecv) become their non-blocking form and the same loop
 * while operations are pending: a process waiting for a message must still
 * forward the blocks its neighbours wait for, or both could wait forever
 * where MPI's own MPI_Ineighbor_* would have progressed inside MPI.
 *
 * cartcoll itself never calls these (the drop-in's copy of the library
 * calls PMPI: cmake/CartcollPreload.cmake). */
#include "pmpi/preload.h"

#include <stddef.h>

/* Over reqs[0..n): *mine when any is the drop-in's; the number of its
 * persistent requests still active; *done: the first one complete (-1). */
static int scan(int n, const MPI_Request reqs[], int *mine, int *done)
{
    int active = 0;
    *mine = 0, *done = -1;
    if (!pl_any()) return 0;
    for (int i = 0; i < n; i++) {
        pl_req *e = pl_find(reqs[i]);
        if (!e) continue;
        *mine = 1;
        if (!pl_is_persistent(e)) continue;
        int s = pl_state(e);
        if (s == PL_ACTIVE) active++;
        else if (s == PL_DONE && *done < 0) *done = i;
    }
    return active;
}

static MPI_Status *status_at(MPI_Status *sts, int i)
{
    return sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[i];
}

/* After MPI completed an array (Waitall/Testall): the drop-in's persistent
 * requests in it become inactive with their status; MPI_ERR_IN_STATUS if
 * one of them failed. */
static int finish_all(int n, MPI_Request reqs[], MPI_Status sts[], int rc)
{
    for (int i = 0; i < n && pl_any(); i++) {
        pl_req *e = pl_find(reqs[i]);
        if (!e || !pl_is_persistent(e)) continue;
        int err = pl_complete(e, status_at(sts, i));
        if (err != MPI_SUCCESS && rc == MPI_SUCCESS) rc = MPI_ERR_IN_STATUS;
    }
    return rc;
}

/* ---- one request ------------------------------------------------------------ */

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    if (!pl_on() || !request) return PMPI_Wait(request, status);
    pl_req *e = pl_find(*request);
    if (e && pl_is_persistent(e)) {
        while (pl_state(e) == PL_ACTIVE && !pl_wait(e)) pl_drive();
        return pl_complete(e, status);
    }
    if (e && pl_wait(e)) return PMPI_Wait(request, status); /* complete now: MPI only collects it */
    while (pl_pending()) {
        int flag = 0;
        pl_drive();
        int rc = PMPI_Test(request, &flag, status);
        if (rc != MPI_SUCCESS || flag) return rc;
    }
    return PMPI_Wait(request, status);
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (!pl_on() || !request || !flag) return PMPI_Test(request, flag, status);
    pl_req *e = pl_find(*request);
    if (e && pl_is_persistent(e)) {
        pl_drive();
        *flag = pl_state(e) != PL_ACTIVE;
        return *flag ? pl_complete(e, status) : MPI_SUCCESS;
    }
    pl_drive();
    return PMPI_Test(request, flag, status);
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    if (!pl_on() || !flag) return PMPI_Request_get_status(request, flag, status);
    pl_req *e = pl_find(request);
    if (e && pl_is_persistent(e)) {
        pl_drive();
        int s = pl_state(e);
        *flag = s != PL_ACTIVE;
        if (*flag) pl_status(status, MPI_SUCCESS); /* the run's error comes with its completion */
        return MPI_SUCCESS;
    }
    pl_drive();
    return PMPI_Request_get_status(request, flag, status);
}

/* ---- all ------------------------------------------------------------------- */

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    if (!pl_on() || count <= 0 || !requests || !pl_any()) return PMPI_Waitall(count, requests, statuses);
    /* The drop-in's operations first, each with Cart_wait (which advances
     * the others, and MPI the program's own requests); what is left is
     * MPI's or advanced by another thread. */
    for (int i = 0; i < count; i++) {
        pl_req *e = pl_find(requests[i]);
        if (e) pl_wait(e);
    }
    for (;;) {
        int mine, done, active = scan(count, requests, &mine, &done);
        if (!active && !pl_pending())
            return finish_all(count, requests, statuses, PMPI_Waitall(count, requests, statuses));
        pl_drive();
        if (scan(count, requests, &mine, &done) > 0) continue;
        int flag = 0, rc = PMPI_Testall(count, requests, &flag, statuses);
        if (rc != MPI_SUCCESS || flag) return finish_all(count, requests, statuses, rc);
    }
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    if (!pl_on() || count <= 0 || !requests || !flag || !pl_any())
        return PMPI_Testall(count, requests, flag, statuses);
    int mine, done;
    scan(count, requests, &mine, &done);
    pl_drive();
    if (scan(count, requests, &mine, &done) > 0) { /* MPI's all-or-nothing: touch none */
        *flag = 0;
        return MPI_SUCCESS;
    }
    int rc = PMPI_Testall(count, requests, flag, statuses);
    return rc == MPI_SUCCESS && *flag ? finish_all(count, requests, statuses, rc) : rc;
}

/* ---- any ------------------------------------------------------------------- */

/* One round of Testany: a complete persistent request of the drop-in
 * first, then MPI's (which skips the drop-in's persistent ones as
 * inactive).  MPI's "none active" (index MPI_UNDEFINED) is only true when
 * none of the drop-in's is active either. */
static int any_once(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    int mine, done, active = scan(count, reqs, &mine, &done);
    if (done >= 0) {
        *index = done, *flag = 1;
        return pl_complete(pl_find(reqs[done]), status);
    }
    int rc = PMPI_Testany(count, reqs, index, flag, status);
    if (rc == MPI_SUCCESS && *flag && *index == MPI_UNDEFINED && active) *flag = 0;
    return rc;
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    if (!pl_on() || count <= 0 || !requests || !index || !pl_any())
        return PMPI_Waitany(count, requests, index, status);
    for (;;) {
        int mine, done, active = scan(count, requests, &mine, &done);
        if (done < 0 && !active && !pl_pending()) return PMPI_Waitany(count, requests, index, status);
        pl_drive();
        int flag = 0, rc = any_once(count, requests, index, &flag, status);
        if (rc != MPI_SUCCESS || flag) return rc;
    }
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    if (!pl_on() || count <= 0 || !requests || !index || !flag || !pl_any())
        return PMPI_Testany(count, requests, index, flag, status);
    int mine, done;
    scan(count, requests, &mine, &done);
    pl_drive();
    return any_once(count, requests, index, flag, status);
}

/* ---- some ------------------------------------------------------------------ */

/* One round of Testsome: the drop-in's complete persistent requests first
 * (made inactive), then MPI's completions after them in the output arrays.
 * *outcount is MPI_UNDEFINED only when nothing at all is active. */
static int some_once(int count, MPI_Request reqs[], int *outcount, int indices[], MPI_Status sts[])
{
    int m = 0, active = 0, first_error = MPI_SUCCESS;
    for (int i = 0; i < count && pl_any(); i++) {
        pl_req *e = pl_find(reqs[i]);
        if (!e || !pl_is_persistent(e)) continue;
        int s = pl_state(e);
        if (s == PL_ACTIVE) active++;
        if (s != PL_DONE) continue;
        int err = pl_complete(e, status_at(sts, m));
        if (err != MPI_SUCCESS && first_error == MPI_SUCCESS) first_error = MPI_ERR_IN_STATUS;
        indices[m++] = i;
    }
    int oc = 0;
    int rc = PMPI_Testsome(count, reqs, &oc, indices + m, sts == MPI_STATUSES_IGNORE ? sts : sts + m);
    if (oc == MPI_UNDEFINED) oc = m || active ? 0 : MPI_UNDEFINED;
    *outcount = oc == MPI_UNDEFINED ? oc : m + oc;
    return rc != MPI_SUCCESS ? rc : first_error;
}

int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[])
{
    if (!pl_on() || incount <= 0 || !requests || !outcount || !indices || !pl_any())
        return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
    for (;;) {
        int mine, done, active = scan(incount, requests, &mine, &done);
        if (done < 0 && !active && !pl_pending())
            return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
        pl_drive();
        int rc = some_once(incount, requests, outcount, indices, statuses);
        if (rc != MPI_SUCCESS || *outcount != 0) return rc;
    }
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[])
{
    if (!pl_on() || incount <= 0 || !requests || !outcount || !indices || !pl_any())
        return PMPI_Testsome(incount, requests, outcount, indices, statuses);
    int mine, done;
    scan(incount, requests, &mine, &done);
    pl_drive();
    return some_once(incount, requests, outcount, indices, statuses);
}

/* ---- start, free, cancel ------------------------------------------------------ */

int MPI_Start(MPI_Request *request)
{
    if (!pl_on() || !request) return PMPI_Start(request);
    pl_req *e = pl_find(*request);
    return e && pl_is_persistent(e) ? pl_start(e) : PMPI_Start(request);
}

/* In array order (persistent collectives must start in the same order on
 * every process); none is started when one of the drop-in's is active. */
int MPI_Startall(int count, MPI_Request requests[])
{
    if (!pl_on() || count <= 0 || !requests || !pl_any()) return PMPI_Startall(count, requests);
    int mine, done;
    if (scan(count, requests, &mine, &done) > 0 || done >= 0)
        return pl_request_error(MPI_ERR_REQUEST, "MPI_Startall: a persistent neighbourhood collective request in "
                                                 "the array is still active; complete it first");
    for (int i = 0; i < count; i++) {
        pl_req *e = pl_find(requests[i]);
        int rc = e && pl_is_persistent(e) ? pl_start(e) : PMPI_Start(&requests[i]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

int MPI_Request_free(MPI_Request *request)
{
    if (!pl_on() || !request) return PMPI_Request_free(request);
    pl_req *e = pl_find(*request);
    return e ? pl_free(e, request) : PMPI_Request_free(request);
}

/* Collectives cannot be cancelled (MPI: erroneous; both MPIs raise an
 * error on MPI_COMM_WORLD). */
int MPI_Cancel(MPI_Request *request)
{
    if (!pl_on() || !request || !pl_find(*request)) return PMPI_Cancel(request);
    return pl_request_error(MPI_ERR_REQUEST, "MPI_Cancel: a neighbourhood collective operation cannot be cancelled");
}

/* ---- blocking point-to-point calls while operations are pending ------------- */

static int need_loop(void) { return pl_on() && pl_pending(); }

/* Complete rq (n requests), driving the drop-in's operations meanwhile. */
static int wait_driving(int n, MPI_Request rq[], MPI_Status sts[])
{
    while (pl_pending()) {
        int flag = 0;
        pl_drive();
        int rc = PMPI_Testall(n, rq, &flag, sts);
        if (rc != MPI_SUCCESS || flag) return rc;
    }
    return PMPI_Waitall(n, rq, sts);
}

static int wait1(int rc, MPI_Request *rq, MPI_Status *status)
{
    if (rc != MPI_SUCCESS) return rc;
    MPI_Status st[1];
    rc = wait_driving(1, rq, st);
    if (status != MPI_STATUS_IGNORE) *status = st[0];
    return rc == MPI_ERR_IN_STATUS ? st[0].MPI_ERROR : rc;
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    if (!need_loop()) return PMPI_Send(buf, count, datatype, dest, tag, comm);
    MPI_Request rq;
    return wait1(PMPI_Isend(buf, count, datatype, dest, tag, comm, &rq), &rq, MPI_STATUS_IGNORE);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    if (!need_loop()) return PMPI_Ssend(buf, count, datatype, dest, tag, comm);
    MPI_Request rq;
    return wait1(PMPI_Issend(buf, count, datatype, dest, tag, comm, &rq), &rq, MPI_STATUS_IGNORE);
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    if (!need_loop()) return PMPI_Recv(buf, count, datatype, source, tag, comm, status);
    MPI_Request rq;
    return wait1(PMPI_Irecv(buf, count, datatype, source, tag, comm, &rq), &rq, status);
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    if (!need_loop())
        return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                             recvtag, comm, status);
    MPI_Request rq[2];
    MPI_Status st[2];
    int rc = PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &rq[0]);
    if (rc != MPI_SUCCESS) return rc;
    rc = PMPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &rq[1]);
    if (rc != MPI_SUCCESS) {
        PMPI_Cancel(&rq[0]);
        PMPI_Wait(&rq[0], MPI_STATUS_IGNORE);
        return rc;
    }
    rc = wait_driving(2, rq, st);
    if (status != MPI_STATUS_IGNORE) *status = st[0];
    if (rc == MPI_ERR_IN_STATUS) rc = st[0].MPI_ERROR != MPI_SUCCESS ? st[0].MPI_ERROR : st[1].MPI_ERROR;
    return rc;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    while (need_loop()) {
        int flag = 0;
        pl_drive();
        int rc = PMPI_Iprobe(source, tag, comm, &flag, status);
        if (rc != MPI_SUCCESS || flag) return rc;
    }
    return PMPI_Probe(source, tag, comm, status);
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    while (need_loop()) {
        int flag = 0;
        pl_drive();
        int rc = PMPI_Improbe(source, tag, comm, &flag, message, status);
        if (rc != MPI_SUCCESS || flag) return rc;
    }
    return PMPI_Mprobe(source, tag, comm, message, status);
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
    if (!need_loop()) return PMPI_Mrecv(buf, count, datatype, message, status);
    MPI_Request rq;
    return wait1(PMPI_Imrecv(buf, count, datatype, message, &rq), &rq, status);
}

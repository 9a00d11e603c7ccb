/* The one check of a call (coll/check.h), for every meaning, driven by
 * its descriptor's flags: what is significant on this process, then its
 * counts, arrays, datatypes and buffers, before MPI or a plan sees them
 * (an MPI crashes on some bad arguments instead of raising an error). */
#include "coll/check.h"

#include "base/errors.h"
#include "bind/typemap.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/* A communicator for probing datatypes (MPI_ERRORS_RETURN, never used for
 * messages). */
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static atomic_int probe_made; /* (skips pthread_once on every call) */
static MPI_Comm probe_comm = MPI_COMM_NULL;
static void make_probe(void)
{
    if (MPI_Comm_dup(MPI_COMM_SELF, &probe_comm) == MPI_SUCCESS)
        MPI_Comm_set_errhandler(probe_comm, MPI_ERRORS_RETURN);
}


/* (a v or w side whose arrays have no entries -- no neighbours -- is not
 * significant: its arrays may be NULL) */
static sides significant(unsigned f, const cc_call *c, int root, int nsend, int nrecv)
{
    sides s;
    s.nsend = nsend;
    s.nrecv = nrecv;
    int sp = c->sendbuf != MPI_IN_PLACE, rp = c->recvbuf != MPI_IN_PLACE;
    s.send = sp && ((f & CC_F_SEND) || ((f & CC_F_SEND_ROOT) && root));
    s.recv = rp && ((f & CC_F_RECV) || ((f & CC_F_RECV_ROOT) && root));
    s.sendv = sp && nsend != 0 && ((f & CC_F_SENDV) || ((f & CC_F_SENDV_ROOT) && root));
    s.recvv = nrecv != 0 && ((f & CC_F_RECVV) || ((f & CC_F_RECVV_ROOT) && root));
    s.sendw = sp && nsend != 0 && (f & CC_F_SENDW);
    s.recvw = nrecv != 0 && (f & CC_F_RECVW);
    return s;
}

/* The root of a rooted call: valid for the communicator, and whether this
 * process is it.  Inter-communicators: MPI_ROOT, MPI_PROC_NULL or a rank of
 * the remote group. */
static int check_root(const char *who, const cc_call *c, int inter, int *here)
{
    int size, rank = -1;
    if (inter) MPI_Comm_remote_size(c->comm, &size);
    else {
        MPI_Comm_size(c->comm, &size);
        MPI_Comm_rank(c->comm, &rank);
    }
    *here = inter ? c->root == MPI_ROOT : c->root == rank;
    if ((c->root >= 0 && c->root < size) || (inter && (c->root == MPI_ROOT || c->root == MPI_PROC_NULL)))
        return MPI_SUCCESS;
    return cc_error_code(MPI_ERR_ROOT, "%s: root = %d is not a rank of the %scommunicator (0..%d)%s", who, c->root,
                         inter ? "remote group of the inter-" : "", size - 1,
                         inter ? ", MPI_ROOT or MPI_PROC_NULL" : "");
}

/* (the parameter's name is spelt only for a message: a check runs on
 * every call, blocking ones included) */
static int check_type(const char *who, const char *side, int index, MPI_Datatype t)
{
    int why = cc_type_usable(probe_comm, t);
    if (!why) return MPI_SUCCESS;
    char name[24];
    snprintf(name, sizeof name, "%stype%s", side, index >= 0 ? "s" : "");
    return cc_type_error(who, name, index, why);
}

/* One side: a scalar count and type, or n counts with one type (v), or n
 * counts with n types (w). */
static int check_side(const char *who, const char *side, int n, int count, const int *counts, MPI_Datatype type,
                      const MPI_Datatype *types)
{
    if (!counts && count < 0) return cc_error_code(MPI_ERR_COUNT, "%s: %scount = %d is negative", who, side, count);
    if (counts)
        for (int i = 0; i < n; i++)
            if (counts[i] < 0)
                return cc_error_code(MPI_ERR_COUNT, "%s: %scounts[%d] = %d is negative", who, side, i, counts[i]);
    for (int i = 0; types && i < n; i++) {
        int rc = i > 0 && types[i] == types[i - 1] ? MPI_SUCCESS : check_type(who, side, i, types[i]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return types ? MPI_SUCCESS : check_type(who, side, -1, type);
}

/* f: the collective's flags (reduce_scatter's recvcounts have no
 * displacements; MPI names the one displacement array of a collective with
 * one array side `displs`).  Byte displacements are MPI_Aint (sdisplsw,
 * the Cart_ w calls) or int (sdispls, MPI_Alltoallw's, global_core.c). */
static int check_arrays(const char *who, unsigned f, const cc_call *c, const sides *s)
{
    const char *what = NULL;
    int both = (f & (CC_F_SENDV | CC_F_SENDV_ROOT | CC_F_SENDW)) && (f & (CC_F_RECVV | CC_F_RECVV_ROOT | CC_F_RECVW));
    const void *sd = c->sdisplsw ? (const void *)c->sdisplsw : (const void *)c->sdispls;
    const void *rd = c->rdisplsw ? (const void *)c->rdisplsw : (const void *)c->rdispls;
    if ((s->sendv || s->sendw) && !c->sendcounts) what = "sendcounts";
    else if ((s->recvv || s->recvw) && !c->recvcounts) what = "recvcounts";
    else if ((s->sendv || s->sendw) && !sd) what = both ? "sdispls" : "displs";
    else if ((s->recvv || s->recvw) && !(f & CC_F_LOCAL_N) && !rd) what = both ? "rdispls" : "displs";
    else if (s->sendw && !c->sendtypes) what = "sendtypes";
    else if (s->recvw && !c->recvtypes) what = "recvtypes";
    if (what) return cc_error_code(MPI_ERR_ARG, "%s: %s is NULL", who, what);
    int rc = MPI_SUCCESS;
    if (s->send) rc = check_side(who, "send", 1, c->sendcount, NULL, c->sendtype, NULL);
    if (rc == MPI_SUCCESS && s->recv) rc = check_side(who, "recv", 1, c->recvcount, NULL, c->recvtype, NULL);
    if (rc == MPI_SUCCESS && (s->sendv || s->sendw))
        rc = check_side(who, "send", s->nsend, 0, c->sendcounts, c->sendtype, s->sendw ? c->sendtypes : NULL);
    if (rc == MPI_SUCCESS && (s->recvv || s->recvw))
        rc = check_side(who, "recv", s->nrecv, 0, c->recvcounts, c->recvtype, s->recvw ? c->recvtypes : NULL);
    return rc;
}

/* MPI_IN_PLACE with neighbourhood meaning: never for the six [core]
 * collectives (checked first); for the others where the MPI collective of
 * the same name accepts it: as the root's send buffer of gather and
 * reduce, the root's receive buffer of scatter, every send buffer of
 * allreduce. */
static int in_place_refused(const char *who, const cc_call *c)
{
    if (!cc_coll_core(c->coll->nbh) || (c->sendbuf != MPI_IN_PLACE && c->recvbuf != MPI_IN_PLACE))
        return MPI_SUCCESS;
    return cc_error_code(MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is not allowed for neighbourhood collectives", who);
}

static int check_in_place(const char *who, const cc_call *c, int here)
{
    int coll = c->coll->nbh, s = c->sendbuf == MPI_IN_PLACE, r = c->recvbuf == MPI_IN_PLACE;
    if (coll == CC_BARRIER || (!s && !r)) return MPI_SUCCESS;
    const char *bad = NULL;
    if (coll == CC_BCAST) bad = "as the buffer";
    else if (r && coll != CC_SCATTER) bad = "as recvbuf";
    else if (s && (coll == CC_SCATTER || ((coll == CC_GATHER || coll == CC_REDUCE) && !here)))
        bad = coll == CC_SCATTER ? "as sendbuf" : "as sendbuf on a process other than the root";
    else if (r && !here) bad = "as recvbuf on a process other than the root";
    if (!bad) return MPI_SUCCESS;
    return cc_error_code(MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is not allowed %s", who, bad);
}

/* A NULL buffer is MPI_BOTTOM (address 0 on Open MPI and MPICH): right
 * with derived datatypes of absolute addresses, never with a predefined
 * datatype and something to move.  MPI itself crashes on some and names the
 * wrong class on others, so the library says it. */
static int named_bytes(MPI_Datatype t)
{
    int size = 0;
    return cc_type_named(t) && MPI_Type_size(t, &size) == MPI_SUCCESS && size > 0;
}

static long long sum_counts(const int *counts, int n)
{
    long long sum = 0;
    for (int i = 0; counts && i < n; i++) sum += counts[i];
    return sum;
}

static int null_buffer(const char *who, const char *name, const void *buf, long long count, MPI_Datatype t)
{
    if (buf || count <= 0 || !named_bytes(t)) return MPI_SUCCESS;
    const char *how = !strcmp(name, "sendbuf") ? "sent from" : !strcmp(name, "buffer") ? "broadcast in" : "received in";
    return cc_error_code(MPI_ERR_BUFFER, "%s: %s is NULL but %lld elements of a predefined datatype are to be %s it",
                         who, name, count, how);
}

/* Buffers of a call on an intra-communicator of `size` processes, once
 * counts and datatypes are valid (arrays of s->nsend / s->nrecv entries).
 * Reductions: the send buffer holds what this process contributes, in
 * recvtype. */
static int check_buffers(const char *who, const cc_call *c, const sides *s, int here)
{
    const cc_coll *k = c->coll;
    int rc = MPI_SUCCESS, size, rank;
    if (!(k->flags & CC_F_OP)) {
        const char *rname = k->nbh == CC_BCAST ? "buffer" : "recvbuf";
        if (s->send) rc = null_buffer(who, "sendbuf", c->sendbuf, c->sendcount, c->sendtype);
        if (rc == MPI_SUCCESS && s->sendv)
            rc = null_buffer(who, "sendbuf", c->sendbuf, sum_counts(c->sendcounts, s->nsend), c->sendtype);
        if (rc == MPI_SUCCESS && s->recv) rc = null_buffer(who, rname, c->recvbuf, c->recvcount, c->recvtype);
        if (rc == MPI_SUCCESS && s->recvv && c->recvbuf != MPI_IN_PLACE)
            rc = null_buffer(who, rname, c->recvbuf, sum_counts(c->recvcounts, s->nrecv), c->recvtype);
        return rc; /* (w sides: byte displacements, absolute addresses from MPI_BOTTOM are right) */
    }
    MPI_Comm_size(c->comm, &size);
    MPI_Comm_rank(c->comm, &rank);
    long long nsend = c->recvcount, nrecv = c->recvcount;
    if (k == &cc_coll_reduce_scatter_block) nsend = (long long)c->recvcount * size;
    if (k == &cc_coll_reduce_scatter) {
        nsend = sum_counts(c->recvcounts, size);
        nrecv = c->recvcounts[rank];
    }
    if (c->sendbuf != MPI_IN_PLACE) rc = null_buffer(who, "sendbuf", c->sendbuf, nsend, c->recvtype);
    int recv_here = (k->flags & CC_F_ROOT) ? here : !(k == &cc_coll_exscan && rank == 0);
    if (rc == MPI_SUCCESS && recv_here) rc = null_buffer(who, "recvbuf", c->recvbuf, nrecv, c->recvtype);
    return rc;
}

/* The arrays' lengths where they are one per process (-1). */
static void array_lengths(const cc_call *c, unsigned f, int inter, int *nsend, int *nrecv)
{
    if ((*nsend >= 0 && *nrecv >= 0) || !(f & (CC_F_SENDV | CC_F_SENDV_ROOT | CC_F_RECVV | CC_F_RECVV_ROOT | CC_F_W)))
        return;
    int size; /* inter-communicators: the remote group's size, but reduce_scatter's */
    if (inter && !(f & CC_F_LOCAL_N)) MPI_Comm_remote_size(c->comm, &size);
    else MPI_Comm_size(c->comm, &size);
    *nsend = *nsend < 0 ? size : *nsend;
    *nrecv = *nrecv < 0 ? size : *nrecv;
}

/* (coll/check.h) */
int cc_call_check(const char *who, const cc_call *c, int meaning, int nsend, int nrecv, int mode,
                  const Cart_request *request, int buffers, sides *s, int *here)
{
    const cc_coll *k = c->coll;
    int rc = MPI_SUCCESS, root = 0, inter = meaning == CC_MEANING_INTER;
    memset(s, 0, sizeof *s);
    *here = 0;
    if (mode != CC_MODE_BLOCKING && !request) return cc_error_code(MPI_ERR_ARG, "%s: request is NULL", who);
    if (meaning == CC_MEANING_NBH && (rc = in_place_refused(who, c)) != MPI_SUCCESS) return rc;
    if ((k->flags & CC_F_ROOT) && (rc = check_root(who, c, inter, &root)) != MPI_SUCCESS) return rc;
    *here = root;
    if ((k->flags & CC_F_OP) && c->op == MPI_OP_NULL)
        return cc_error_code(MPI_ERR_OP, "%s: op is MPI_OP_NULL", who);
    if (!atomic_load_explicit(&probe_made, memory_order_acquire)) {
        pthread_once(&probe_once, make_probe);
        atomic_store_explicit(&probe_made, 1, memory_order_release);
    }
    unsigned f = k->flags;
    if (inter) {
        if ((f & CC_F_ROOT) && c->root == MPI_PROC_NULL) return MPI_SUCCESS; /* nothing is significant */
        /* The root's group only sends (scatter) or receives (gather), the
         * other group does the rest; bcast's buffer and the reductions'
         * count and type count in both. */
        if ((f & CC_F_ROOT) && !(f & CC_F_OP) && k->nbh != CC_BCAST)
            f &= root ? ~(unsigned)(CC_F_SEND | CC_F_RECV | CC_F_SENDV | CC_F_RECVV)
                      : ~(unsigned)(CC_F_SEND_ROOT | CC_F_RECV_ROOT | CC_F_SENDV_ROOT | CC_F_RECVV_ROOT);
    }
    if (f == (CC_F_SEND | CC_F_RECV) && c->sendbuf != MPI_IN_PLACE && c->recvbuf != MPI_IN_PLACE) {
        /* (a scalar count and type on both sides -- the regular [core]
         * collectives, whose blocking calls come here every time) */
        s->send = s->recv = 1;
        s->nsend = nsend;
        s->nrecv = nrecv;
        rc = check_side(who, "send", 1, c->sendcount, NULL, c->sendtype, NULL);
        if (rc == MPI_SUCCESS) rc = check_side(who, "recv", 1, c->recvcount, NULL, c->recvtype, NULL);
    } else {
        array_lengths(c, f, inter, &nsend, &nrecv);
        *s = significant(f, c, root, nsend, nrecv);
        rc = check_arrays(who, f, c, s);
    }
    if (rc == MPI_SUCCESS && meaning == CC_MEANING_NBH) rc = check_in_place(who, c, root);
    if (rc != MPI_SUCCESS || !buffers) return rc;
    if (!inter) return check_buffers(who, c, s, root);
    if (!(f & CC_F_OP)) return check_buffers(who, c, s, 0);
    /* inter-communicator reductions: the root receives, its group's other
     * processes pass nothing, the other group sends (allreduce: both) */
    if (k == &cc_coll_reduce || k == &cc_coll_allreduce) {
        if (k == &cc_coll_allreduce || !root) rc = null_buffer(who, "sendbuf", c->sendbuf, c->recvcount, c->recvtype);
        if (rc == MPI_SUCCESS && (k == &cc_coll_allreduce || root))
            rc = null_buffer(who, "recvbuf", c->recvbuf, c->recvcount, c->recvtype);
    }
    return rc;
}

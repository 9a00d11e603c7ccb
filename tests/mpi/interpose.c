#include "interpose.h"

#include <mpi.h>

volatile int ip_window;
long ip_objects, ip_sends, ip_self_sends;
const char *ip_last_object = "";

void ip_reset(void)
{
    ip_objects = ip_sends = ip_self_sends = 0;
    ip_last_object = "";
}

static void object(const char *name)
{
    if (ip_window) {
        ip_objects++;
        ip_last_object = name;
    }
}

static void send_to(int dest, MPI_Comm comm)
{
    if (!ip_window || dest == MPI_PROC_NULL) return;
    int me;
    PMPI_Comm_rank(comm, &me);
    ip_sends++;
    ip_self_sends += dest == me;
}

/* Persistent send requests, to count their starts as messages. */
#define MAXP 8192
static MPI_Request psend[MAXP];
static int pdest_self[MAXP];
static int npsend;

static void remember(MPI_Request r, int dest, MPI_Comm comm)
{
    if (dest == MPI_PROC_NULL || npsend >= MAXP) return;
    int me;
    PMPI_Comm_rank(comm, &me);
    pdest_self[npsend] = dest == me;
    psend[npsend++] = r;
}

static void started(MPI_Request r)
{
    if (!ip_window) return;
    for (int i = 0; i < npsend; i++)
        if (psend[i] == r) {
            ip_sends++;
            ip_self_sends += pdest_self[i];
            return;
        }
}

/* ---- datatypes ---- */
int MPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype *t)
{
    object("MPI_Type_contiguous");
    return PMPI_Type_contiguous(count, old, t);
}
int MPI_Type_vector(int count, int bl, int stride, MPI_Datatype old, MPI_Datatype *t)
{
    object("MPI_Type_vector");
    return PMPI_Type_vector(count, bl, stride, old, t);
}
int MPI_Type_create_hvector(int count, int bl, MPI_Aint stride, MPI_Datatype old, MPI_Datatype *t)
{
    object("MPI_Type_create_hvector");
    return PMPI_Type_create_hvector(count, bl, stride, old, t);
}
int MPI_Type_indexed(int count, const int bl[], const int dp[], MPI_Datatype old, MPI_Datatype *t)
{
    object("MPI_Type_indexed");
    return PMPI_Type_indexed(count, bl, dp, old, t);
}
int MPI_Type_create_hindexed(int count, const int bl[], const MPI_Aint dp[], MPI_Datatype old, MPI_Datatype *t)
{
    object("MPI_Type_create_hindexed");
    return PMPI_Type_create_hindexed(count, bl, dp, old, t);
}
int MPI_Type_create_indexed_block(int count, int bl, const int dp[], MPI_Datatype old, MPI_Datatype *t)
{
    object("MPI_Type_create_indexed_block");
    return PMPI_Type_create_indexed_block(count, bl, dp, old, t);
}
int MPI_Type_create_hindexed_block(int count, int bl, const MPI_Aint dp[], MPI_Datatype old, MPI_Datatype *t)
{
    object("MPI_Type_create_hindexed_block");
    return PMPI_Type_create_hindexed_block(count, bl, dp, old, t);
}
int MPI_Type_create_struct(int count, const int bl[], const MPI_Aint dp[], const MPI_Datatype ty[], MPI_Datatype *t)
{
    object("MPI_Type_create_struct");
    return PMPI_Type_create_struct(count, bl, dp, ty, t);
}
int MPI_Type_create_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint ext, MPI_Datatype *t)
{
    object("MPI_Type_create_resized");
    return PMPI_Type_create_resized(old, lb, ext, t);
}
int MPI_Type_create_subarray(int nd, const int sz[], const int sub[], const int st[], int order, MPI_Datatype old,
                             MPI_Datatype *t)
{
    object("MPI_Type_create_subarray");
    return PMPI_Type_create_subarray(nd, sz, sub, st, order, old, t);
}
int MPI_Type_dup(MPI_Datatype old, MPI_Datatype *t)
{
    object("MPI_Type_dup");
    return PMPI_Type_dup(old, t);
}
int MPI_Type_commit(MPI_Datatype *t)
{
    object("MPI_Type_commit");
    return PMPI_Type_commit(t);
}

/* ---- communicators, infos, memory ---- */
int MPI_Comm_dup(MPI_Comm c, MPI_Comm *n)
{
    object("MPI_Comm_dup");
    return PMPI_Comm_dup(c, n);
}
int MPI_Comm_idup(MPI_Comm c, MPI_Comm *n, MPI_Request *r)
{
    object("MPI_Comm_idup");
    return PMPI_Comm_idup(c, n, r);
}
int MPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm *n)
{
    object("MPI_Comm_split");
    return PMPI_Comm_split(c, color, key, n);
}
int MPI_Comm_create(MPI_Comm c, MPI_Group g, MPI_Comm *n)
{
    object("MPI_Comm_create");
    return PMPI_Comm_create(c, g, n);
}
int MPI_Info_create(MPI_Info *i)
{
    object("MPI_Info_create");
    return PMPI_Info_create(i);
}
int MPI_Info_dup(MPI_Info i, MPI_Info *n)
{
    object("MPI_Info_dup");
    return PMPI_Info_dup(i, n);
}
int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *base)
{
    object("MPI_Alloc_mem");
    return PMPI_Alloc_mem(size, info, base);
}
int MPI_Op_create(MPI_User_function *f, int commute, MPI_Op *op)
{
    object("MPI_Op_create");
    return PMPI_Op_create(f, commute, op);
}

/* ---- point-to-point ---- */
int MPI_Isend(const void *b, int c, MPI_Datatype t, int dest, int tag, MPI_Comm comm, MPI_Request *r)
{
    object("MPI_Isend");
    send_to(dest, comm);
    return PMPI_Isend(b, c, t, dest, tag, comm, r);
}
int MPI_Issend(const void *b, int c, MPI_Datatype t, int dest, int tag, MPI_Comm comm, MPI_Request *r)
{
    object("MPI_Issend");
    send_to(dest, comm);
    return PMPI_Issend(b, c, t, dest, tag, comm, r);
}
int MPI_Irsend(const void *b, int c, MPI_Datatype t, int dest, int tag, MPI_Comm comm, MPI_Request *r)
{
    object("MPI_Irsend");
    send_to(dest, comm);
    return PMPI_Irsend(b, c, t, dest, tag, comm, r);
}
int MPI_Ibsend(const void *b, int c, MPI_Datatype t, int dest, int tag, MPI_Comm comm, MPI_Request *r)
{
    object("MPI_Ibsend");
    send_to(dest, comm);
    return PMPI_Ibsend(b, c, t, dest, tag, comm, r);
}
int MPI_Irecv(void *b, int c, MPI_Datatype t, int src, int tag, MPI_Comm comm, MPI_Request *r)
{
    object("MPI_Irecv");
    return PMPI_Irecv(b, c, t, src, tag, comm, r);
}
int MPI_Send(const void *b, int c, MPI_Datatype t, int dest, int tag, MPI_Comm comm)
{
    send_to(dest, comm);
    return PMPI_Send(b, c, t, dest, tag, comm);
}
int MPI_Ssend(const void *b, int c, MPI_Datatype t, int dest, int tag, MPI_Comm comm)
{
    send_to(dest, comm);
    return PMPI_Ssend(b, c, t, dest, tag, comm);
}
int MPI_Sendrecv(const void *sb, int sc, MPI_Datatype st, int dest, int stag, void *rb, int rc, MPI_Datatype rt,
                 int src, int rtag, MPI_Comm comm, MPI_Status *status)
{
    send_to(dest, comm);
    return PMPI_Sendrecv(sb, sc, st, dest, stag, rb, rc, rt, src, rtag, comm, status);
}
int MPI_Send_init(const void *b, int c, MPI_Datatype t, int dest, int tag, MPI_Comm comm, MPI_Request *r)
{
    object("MPI_Send_init");
    int rc = PMPI_Send_init(b, c, t, dest, tag, comm, r);
    if (rc == MPI_SUCCESS) remember(*r, dest, comm);
    return rc;
}
int MPI_Ssend_init(const void *b, int c, MPI_Datatype t, int dest, int tag, MPI_Comm comm, MPI_Request *r)
{
    object("MPI_Ssend_init");
    int rc = PMPI_Ssend_init(b, c, t, dest, tag, comm, r);
    if (rc == MPI_SUCCESS) remember(*r, dest, comm);
    return rc;
}
int MPI_Rsend_init(const void *b, int c, MPI_Datatype t, int dest, int tag, MPI_Comm comm, MPI_Request *r)
{
    object("MPI_Rsend_init");
    int rc = PMPI_Rsend_init(b, c, t, dest, tag, comm, r);
    if (rc == MPI_SUCCESS) remember(*r, dest, comm);
    return rc;
}
int MPI_Recv_init(void *b, int c, MPI_Datatype t, int src, int tag, MPI_Comm comm, MPI_Request *r)
{
    object("MPI_Recv_init");
    return PMPI_Recv_init(b, c, t, src, tag, comm, r);
}
int MPI_Start(MPI_Request *r)
{
    started(*r);
    return PMPI_Start(r);
}
int MPI_Startall(int n, MPI_Request r[])
{
    for (int i = 0; i < n; i++) started(r[i]);
    return PMPI_Startall(n, r);
}
int MPI_Request_free(MPI_Request *r)
{
    for (int i = 0; i < npsend; i++)
        if (psend[i] == *r) {
            psend[i] = psend[--npsend];
            pdest_self[i] = pdest_self[npsend];
            break;
        }
    return PMPI_Request_free(r);
}

/* ---- non-blocking collectives ---- */
int MPI_Iallreduce(const void *sb, void *rb, int c, MPI_Datatype t, MPI_Op op, MPI_Comm comm, MPI_Request *r)
{
    object("MPI_Iallreduce");
    return PMPI_Iallreduce(sb, rb, c, t, op, comm, r);
}
int MPI_Ibarrier(MPI_Comm comm, MPI_Request *r)
{
    object("MPI_Ibarrier");
    return PMPI_Ibarrier(comm, r);
}
int MPI_Ibcast(void *b, int c, MPI_Datatype t, int root, MPI_Comm comm, MPI_Request *r)
{
    object("MPI_Ibcast");
    return PMPI_Ibcast(b, c, t, root, comm, r);
}
int MPI_Ireduce(const void *sb, void *rb, int c, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm, MPI_Request *r)
{
    object("MPI_Ireduce");
    return PMPI_Ireduce(sb, rb, c, t, op, root, comm, r);
}
int MPI_Ialltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, MPI_Comm comm,
                  MPI_Request *r)
{
    object("MPI_Ialltoall");
    return PMPI_Ialltoall(sb, sc, st, rb, rc, rt, comm, r);
}

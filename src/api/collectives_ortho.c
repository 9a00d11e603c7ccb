/* The collectives of seed 000 beyond the six [core] ones (barrier, bcast,
 * gather(v), scatter(v), reduce, allreduce, reduce_scatter(_block), scan,
 * exscan), blocking, non-blocking and persistent: each entry point only
 * describes its arguments; api/front.h dispatches on the communicator. */
#include "cartcoll.h"

#include "api/front.h"

#define SEND_FIELDS .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype
#define RECV_FIELDS .recvbuf = recvbuf, .recvcount = recvcount, .recvtype = recvtype
#define RED_FIELDS(n) .sendbuf = sendbuf, .recvbuf = recvbuf, .recvcount = n, .recvtype = datatype, .op = op

int Cart_barrier(MPI_Comm comm)
{
    cc_mpicall c = { .comm = comm };
    return cc_front_call(&cc_coll_barrier, "Cart_barrier", &c, CC_MODE_BLOCKING, MPI_INFO_NULL, NULL);
}

int Cart_ibarrier(MPI_Comm comm, Cart_request *request)
{
    cc_mpicall c = { .comm = comm };
    return cc_front_call(&cc_coll_barrier, "Cart_ibarrier", &c, CC_MODE_NONBLOCKING, MPI_INFO_NULL, request);
}

int Cart_barrier_init(MPI_Comm comm, MPI_Info info,
                      Cart_request *request)
{
    cc_mpicall c = { .comm = comm };
    return cc_front_call(&cc_coll_barrier, "Cart_barrier_init", &c, CC_MODE_PERSISTENT, info, request);
}

int Cart_bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    cc_mpicall c = { .recvbuf = buffer, .recvcount = count, .recvtype = datatype, .root = root, .comm = comm };
    return cc_front_call(&cc_coll_bcast, "Cart_bcast", &c, CC_MODE_BLOCKING, MPI_INFO_NULL, NULL);
}

int Cart_ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, Cart_request *request)
{
    cc_mpicall c = { .recvbuf = buffer, .recvcount = count, .recvtype = datatype, .root = root, .comm = comm };
    return cc_front_call(&cc_coll_bcast, "Cart_ibcast", &c, CC_MODE_NONBLOCKING, MPI_INFO_NULL, request);
}

int Cart_bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                      Cart_request *request)
{
    cc_mpicall c = { .recvbuf = buffer, .recvcount = count, .recvtype = datatype, .root = root, .comm = comm };
    return cc_front_call(&cc_coll_bcast, "Cart_bcast_init", &c, CC_MODE_PERSISTENT, info, request);
}

int Cart_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    cc_mpicall c = { SEND_FIELDS, RECV_FIELDS, .root = root, .comm = comm };
    return cc_front_call(&cc_coll_gather, "Cart_gather", &c, CC_MODE_BLOCKING, MPI_INFO_NULL, NULL);
}

int Cart_igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, Cart_request *request)
{
    cc_mpicall c = { SEND_FIELDS, RECV_FIELDS, .root = root, .comm = comm };
    return cc_front_call(&cc_coll_gather, "Cart_igather", &c, CC_MODE_NONBLOCKING, MPI_INFO_NULL, request);
}

int Cart_gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      Cart_request *request)
{
    cc_mpicall c = { SEND_FIELDS, RECV_FIELDS, .root = root, .comm = comm };
    return cc_front_call(&cc_coll_gather, "Cart_gather_init", &c, CC_MODE_PERSISTENT, info, request);
}

int Cart_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    cc_mpicall c = { SEND_FIELDS, .recvbuf = recvbuf, .recvcounts = recvcounts, .rdispls = displs, .recvtype = recvtype, .root = root, .comm = comm };
    return cc_front_call(&cc_coll_gatherv, "Cart_gatherv", &c, CC_MODE_BLOCKING, MPI_INFO_NULL, NULL);
}

int Cart_igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, Cart_request *request)
{
    cc_mpicall c = { SEND_FIELDS, .recvbuf = recvbuf, .recvcounts = recvcounts, .rdispls = displs, .recvtype = recvtype, .root = root, .comm = comm };
    return cc_front_call(&cc_coll_gatherv, "Cart_igatherv", &c, CC_MODE_NONBLOCKING, MPI_INFO_NULL, request);
}

int Cart_gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      Cart_request *request)
{
    cc_mpicall c = { SEND_FIELDS, .recvbuf = recvbuf, .recvcounts = recvcounts, .rdispls = displs, .recvtype = recvtype, .root = root, .comm = comm };
    return cc_front_call(&cc_coll_gatherv, "Cart_gatherv_init", &c, CC_MODE_PERSISTENT, info, request);
}

int Cart_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    cc_mpicall c = { SEND_FIELDS, RECV_FIELDS, .root = root, .comm = comm };
    return cc_front_call(&cc_coll_scatter, "Cart_scatter", &c, CC_MODE_BLOCKING, MPI_INFO_NULL, NULL);
}

int Cart_iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, Cart_request *request)
{
    cc_mpicall c = { SEND_FIELDS, RECV_FIELDS, .root = root, .comm = comm };
    return cc_front_call(&cc_coll_scatter, "Cart_iscatter", &c, CC_MODE_NONBLOCKING, MPI_INFO_NULL, request);
}

int Cart_scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      Cart_request *request)
{
    cc_mpicall c = { SEND_FIELDS, RECV_FIELDS, .root = root, .comm = comm };
    return cc_front_call(&cc_coll_scatter, "Cart_scatter_init", &c, CC_MODE_PERSISTENT, info, request);
}

int Cart_scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    cc_mpicall c = { .sendbuf = sendbuf, .sendcounts = sendcounts, .sdispls = displs, .sendtype = sendtype, RECV_FIELDS, .root = root, .comm = comm };
    return cc_front_call(&cc_coll_scatterv, "Cart_scatterv", &c, CC_MODE_BLOCKING, MPI_INFO_NULL, NULL);
}

int Cart_iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, Cart_request *request)
{
    cc_mpicall c = { .sendbuf = sendbuf, .sendcounts = sendcounts, .sdispls = displs, .sendtype = sendtype, RECV_FIELDS, .root = root, .comm = comm };
    return cc_front_call(&cc_coll_scatterv, "Cart_iscatterv", &c, CC_MODE_NONBLOCKING, MPI_INFO_NULL, request);
}

int Cart_scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      Cart_request *request)
{
    cc_mpicall c = { .sendbuf = sendbuf, .sendcounts = sendcounts, .sdispls = displs, .sendtype = sendtype, RECV_FIELDS, .root = root, .comm = comm };
    return cc_front_call(&cc_coll_scatterv, "Cart_scatterv_init", &c, CC_MODE_PERSISTENT, info, request);
}

int Cart_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    cc_mpicall c = { RED_FIELDS(count), .root = root, .comm = comm };
    return cc_front_call(&cc_coll_reduce, "Cart_reduce", &c, CC_MODE_BLOCKING, MPI_INFO_NULL, NULL);
}

int Cart_ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, Cart_request *request)
{
    cc_mpicall c = { RED_FIELDS(count), .root = root, .comm = comm };
    return cc_front_call(&cc_coll_reduce, "Cart_ireduce", &c, CC_MODE_NONBLOCKING, MPI_INFO_NULL, request);
}

int Cart_reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Info info,
                      Cart_request *request)
{
    cc_mpicall c = { RED_FIELDS(count), .root = root, .comm = comm };
    return cc_front_call(&cc_coll_reduce, "Cart_reduce_init", &c, CC_MODE_PERSISTENT, info, request);
}

int Cart_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm)
{
    cc_mpicall c = { RED_FIELDS(count), .comm = comm };
    return cc_front_call(&cc_coll_allreduce, "Cart_allreduce", &c, CC_MODE_BLOCKING, MPI_INFO_NULL, NULL);
}

int Cart_iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, Cart_request *request)
{
    cc_mpicall c = { RED_FIELDS(count), .comm = comm };
    return cc_front_call(&cc_coll_allreduce, "Cart_iallreduce", &c, CC_MODE_NONBLOCKING, MPI_INFO_NULL, request);
}

int Cart_allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Info info,
                      Cart_request *request)
{
    cc_mpicall c = { RED_FIELDS(count), .comm = comm };
    return cc_front_call(&cc_coll_allreduce, "Cart_allreduce_init", &c, CC_MODE_PERSISTENT, info, request);
}

int Cart_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm)
{
    cc_mpicall c = { RED_FIELDS(recvcount), .comm = comm };
    return cc_front_call(&cc_coll_reduce_scatter_block, "Cart_reduce_scatter_block", &c, CC_MODE_BLOCKING, MPI_INFO_NULL, NULL);
}

int Cart_ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm, Cart_request *request)
{
    cc_mpicall c = { RED_FIELDS(recvcount), .comm = comm };
    return cc_front_call(&cc_coll_reduce_scatter_block, "Cart_ireduce_scatter_block", &c, CC_MODE_NONBLOCKING, MPI_INFO_NULL, request);
}

int Cart_reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm, MPI_Info info,
                      Cart_request *request)
{
    cc_mpicall c = { RED_FIELDS(recvcount), .comm = comm };
    return cc_front_call(&cc_coll_reduce_scatter_block, "Cart_reduce_scatter_block_init", &c, CC_MODE_PERSISTENT, info, request);
}

int Cart_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm)
{
    cc_mpicall c = { .sendbuf = sendbuf, .recvbuf = recvbuf, .recvcounts = recvcounts, .recvtype = datatype, .op = op, .comm = comm };
    return cc_front_call(&cc_coll_reduce_scatter, "Cart_reduce_scatter", &c, CC_MODE_BLOCKING, MPI_INFO_NULL, NULL);
}

int Cart_ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, Cart_request *request)
{
    cc_mpicall c = { .sendbuf = sendbuf, .recvbuf = recvbuf, .recvcounts = recvcounts, .recvtype = datatype, .op = op, .comm = comm };
    return cc_front_call(&cc_coll_reduce_scatter, "Cart_ireduce_scatter", &c, CC_MODE_NONBLOCKING, MPI_INFO_NULL, request);
}

int Cart_reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info info,
                      Cart_request *request)
{
    cc_mpicall c = { .sendbuf = sendbuf, .recvbuf = recvbuf, .recvcounts = recvcounts, .recvtype = datatype, .op = op, .comm = comm };
    return cc_front_call(&cc_coll_reduce_scatter, "Cart_reduce_scatter_init", &c, CC_MODE_PERSISTENT, info, request);
}

int Cart_scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    cc_mpicall c = { RED_FIELDS(count), .comm = comm };
    return cc_front_call(&cc_coll_scan, "Cart_scan", &c, CC_MODE_BLOCKING, MPI_INFO_NULL, NULL);
}

int Cart_iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, Cart_request *request)
{
    cc_mpicall c = { RED_FIELDS(count), .comm = comm };
    return cc_front_call(&cc_coll_scan, "Cart_iscan", &c, CC_MODE_NONBLOCKING, MPI_INFO_NULL, request);
}

int Cart_scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                      Cart_request *request)
{
    cc_mpicall c = { RED_FIELDS(count), .comm = comm };
    return cc_front_call(&cc_coll_scan, "Cart_scan_init", &c, CC_MODE_PERSISTENT, info, request);
}

int Cart_exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    cc_mpicall c = { RED_FIELDS(count), .comm = comm };
    return cc_front_call(&cc_coll_exscan, "Cart_exscan", &c, CC_MODE_BLOCKING, MPI_INFO_NULL, NULL);
}

int Cart_iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, Cart_request *request)
{
    cc_mpicall c = { RED_FIELDS(count), .comm = comm };
    return cc_front_call(&cc_coll_exscan, "Cart_iexscan", &c, CC_MODE_NONBLOCKING, MPI_INFO_NULL, request);
}

int Cart_exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                      Cart_request *request)
{
    cc_mpicall c = { RED_FIELDS(count), .comm = comm };
    return cc_front_call(&cc_coll_exscan, "Cart_exscan_init", &c, CC_MODE_PERSISTENT, info, request);
}

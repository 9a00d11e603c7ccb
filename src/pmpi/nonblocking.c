/* The non-blocking MPI_Ineighbor_* and (MPI-4) persistent
 * MPI_Neighbor_*_init collectives of the drop-in: the Cart_i* / Cart_*_init
 * collective of the same name on the same communicator, wrapped in a
 * request the program can give to any MPI call (requests.c).  Where the
 * drop-in does not take the communicator (off, passthrough on a graph that
 * is not Cartesian, no topology), MPI's own call runs and its request is
 * MPI's.
 *
 * Counting for the report: a non-blocking call counts when it is made, a
 * persistent one at each MPI_Start (requests.c), not at init. */
#include "pmpi/preload.h"

#include <stddef.h>

/* The program's request pointer is checked by MPI's own call (it raises
 * the error) rather than here. */
#define NONBLOCKING(pmpi_call, cart_call)                            \
    do {                                                             \
        if (!request || !pl_take(comm, 1, NULL)) return (pmpi_call); \
        Cart_request cr_ = CART_REQUEST_NULL;                        \
        int rc_ = (cart_call);                                       \
        if (rc_ != MPI_SUCCESS) return rc_;                          \
        return pl_req_nonblocking(cr_, request);                     \
    } while (0)

int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    NONBLOCKING(PMPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request),
                Cart_iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &cr_));
}

int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    NONBLOCKING(PMPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                          request),
                Cart_iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, &cr_));
}

int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    NONBLOCKING(PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request),
                Cart_ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &cr_));
}

int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm, MPI_Request *request)
{
    NONBLOCKING(PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                         recvtype, comm, request),
                Cart_ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                                &cr_));
}

int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request *request)
{
    NONBLOCKING(PMPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                         recvtypes, comm, request),
                Cart_ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                comm, &cr_));
}

/* MPI-4's persistent neighbourhood collectives (MPICH 4.0; Open MPI 4.1
 * has only its MPIX_ extension, which is left to MPI). */
#if MPI_VERSION >= 4

#define PERSISTENT(pmpi_call, cart_call)                               \
    do {                                                               \
        int cart_ = 0;                                                 \
        if (!request || !pl_take(comm, 0, &cart_)) return (pmpi_call); \
        Cart_request cr_ = CART_REQUEST_NULL;                          \
        int rc_ = (cart_call);                                         \
        if (rc_ != MPI_SUCCESS) return rc_;                            \
        return pl_req_persistent(cr_, cart_, request);                 \
    } while (0)

int MPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                MPI_Request *request)
{
    PERSISTENT(PMPI_Neighbor_allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                                            request),
               Cart_allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, &cr_));
}

int MPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    PERSISTENT(PMPI_Neighbor_allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                                             comm, info, request),
               Cart_allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, info,
                                    &cr_));
}

int MPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                               int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                               MPI_Request *request)
{
    PERSISTENT(PMPI_Neighbor_alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                                           request),
               Cart_alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, &cr_));
}

int MPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PERSISTENT(PMPI_Neighbor_alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                            recvtype, comm, info, request),
               Cart_alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                   comm, info, &cr_));
}

int MPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                MPI_Info info, MPI_Request *request)
{
    PERSISTENT(PMPI_Neighbor_alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                            recvtypes, comm, info, request),
               Cart_alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                   comm, info, &cr_));
}

#endif

/* The [part] prototypes of API.md (seed 004), for the test
 * fortran_bindings_part only: gen_bindings.py must bind them when they land
 * in include/cartcoll.h.  Not part of the library yet. */
#ifndef CARTCOLL_F08_TEST_PART_H
#define CARTCOLL_F08_TEST_PART_H
#include <cartcoll.h>

int Cart_pbcast_init(void *buffer, int partitions, MPI_Count count, MPI_Datatype datatype, int root,
                     MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_pgather_init(const void *sendbuf, int sendparts, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int recvparts, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_pgatherv_init(const void *sendbuf, int sendparts, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const int recvparts[], const MPI_Count recvcounts[],
                       const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_pscatter_init(const void *sendbuf, int sendparts, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvparts, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_pscatterv_init(const void *sendbuf, const int sendparts[], const MPI_Count sendcounts[],
                        const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf, int recvparts,
                        MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_pallgather_init(const void *sendbuf, int sendparts, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, int recvparts, MPI_Count recvcount, MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_pallgatherv_init(const void *sendbuf, int sendparts, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, const int recvparts[], const MPI_Count recvcounts[],
                          const MPI_Aint displs[], MPI_Datatype recvtype,
                          MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_palltoall_init(const void *sendbuf, int sendparts, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, int recvparts, MPI_Count recvcount, MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_palltoallv_init(const void *sendbuf, const int sendparts[], const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                         const int recvparts[], const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_palltoallw_init(const void *sendbuf, const int sendparts[], const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                         const int recvparts[], const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_preduce_init(const void *sendbuf, void *recvbuf, int partitions, MPI_Count count,
                      MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Info info,
                      Cart_request *request);
int Cart_pallreduce_init(const void *sendbuf, void *recvbuf, int partitions, MPI_Count count,
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                         Cart_request *request);
int Cart_preduce_scatter_block_init(const void *sendbuf, void *recvbuf, int partitions, MPI_Count recvcount,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                    Cart_request *request);
int Cart_preduce_scatter_init(const void *sendbuf, void *recvbuf, const int partitions[],
                              const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_pscan_init(const void *sendbuf, void *recvbuf, int partitions, MPI_Count count,
                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_pexscan_init(const void *sendbuf, void *recvbuf, int partitions, MPI_Count count,
                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, Cart_request *request);

int Cart_pready(int partition, Cart_request request);
int Cart_pready_range(int partition_low, int partition_high, Cart_request request);
int Cart_pready_list(int length, const int partitions[], Cart_request request);
int Cart_parrived(Cart_request request, int partition, int *flag);
/* seed 004 Fig. 3: per destination and per source */
int Cart_pready_to(int partition, int dest, Cart_request request);
int Cart_pready_range_to(int partition_low, int partition_high, int dest, Cart_request request);
int Cart_pready_list_to(int length, const int partitions[], int dest, Cart_request request);
int Cart_parrived_from(Cart_request request, int partition, int source, int *flag);

#endif

/* A user program built against an installed cartcoll: a 4-neighbour halo
 * on a ring of processes, checked. */
#include <cartcoll.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size, rank, dims[1], periods[1] = { 1 }, target[2] = { -1, 1 }, weight[2] = { 1, 1 };
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dims[0] = size;
    MPI_Comm ring;
    Cart_neighborhood_create(MPI_COMM_WORLD, 1, dims, periods, 2, target, weight, MPI_INFO_NULL, 0, &ring);
    MPI_Comm_rank(ring, &rank);
    int send[2] = { rank, rank }, recv[2] = { -1, -1 };
    Cart_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, ring);
    int ok = recv[0] == (rank + 1) % size && recv[1] == (rank + size - 1) % size;
    printf("consumer: rank %d %s\n", rank, ok ? "ok" : "WRONG");
    MPI_Comm_free(&ring);
    MPI_Finalize();
    return ok ? 0 : 1;
}

/* An unmodified MPI program (it includes only mpi.h) that uses the blocking
 * MPI neighbourhood collectives the way stencil codes do, for the PMPI
 * drop-in test (run.sh runs it with and without
 * LD_PRELOAD=libcartcoll_preload.so).
 *
 * Communicators (graphs.c): distributed graphs built by hand (row-major
 * ranks from MPI_Dims_create, any order of neighbours, a mesh, a repeated
 * edge, MPI_Dist_graph_create, a graph on an MPI_Comm_split communicator),
 * a graph that is not a stencil, MPI_Cart_create communicators (periodic
 * dimensions of size 1 and 2, a mesh dimension) and a duplicate.  Calls:
 * the five blocking MPI_Neighbor_* collectives, v/w with block sizes that
 * differ from edge to edge and from process to process.  Oracle: the same
 * blocks sent with MPI_Isend/MPI_Irecv, the standard's definition.  Prints
 * the report line the drop-in must print and PASS or FAIL. */
#include "graphs.h"

#include <stdio.h>

static blocks b;

static void run(const graph *g, int rep)
{
    make_blocks(g, &b, rep);
    clear_blocks(&b);
    MPI_Neighbor_alltoall(b.sdata[C_ALLTOALL], M, MPI_INT, b.rdata[C_ALLTOALL], M, MPI_INT, g->comm);
    MPI_Neighbor_allgather(b.sdata[C_ALLGATHER], M, MPI_INT, b.rdata[C_ALLGATHER], M, MPI_INT, g->comm);
    MPI_Neighbor_alltoallv(b.sdata[C_ALLTOALLV], b.scnt, b.sdis, MPI_INT, b.rdata[C_ALLTOALLV], b.rcnt, b.rdis,
                           MPI_INT, g->comm);
    MPI_Neighbor_alltoallw(b.sdata[C_ALLTOALLW], b.scnt, b.sdw, b.ty, b.rdata[C_ALLTOALLW], b.rcnt, b.rdw, b.ty,
                           g->comm);
    MPI_Neighbor_allgatherv(b.sdata[C_ALLGATHERV], b.agcount, MPI_INT, b.rdata[C_ALLGATHERV], b.gcnt, b.gdis,
                            MPI_INT, g->comm);
    for (int c = 0; c < NCOLL; c++) count_call(g);
    check_blocks("MPI_Neighbor_", g, &b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    graph g[MAXG];
    int n = make_graphs(g);
    for (int k = 0; k < n; k++)
        for (int rep = 0; rep < 2; rep++) run(&g[k], rep);
    free_graphs(g, n);
    print_expected("neighbor_prog");
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) printf("neighbor_prog: %s (%d processes, %d mismatches)\n", total ? "FAIL" : "PASS", np, total);
    MPI_Finalize();
    return total != 0;
}

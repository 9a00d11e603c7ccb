/* The default error handler (MPI_ERRORS_ARE_FATAL) aborts on a bad call
 * with a readable message.  Expected to abort: run_fatal.sh matches the
 * output against the function's name (tests/mpi/CMakeLists.txt); reaching
 * the end prints NOT ABORTED.
 *
 *   test_fatal create | collective | stencil
 */
#include <cartcoll.h>
#include <mpi.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *what = argc > 1 ? argv[1] : "create";
    int size, dims[2], periods[2] = { 1, 1 }, targets[2] = { 1, 0 }, w[1] = { 1 };
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dims[0] = size;
    dims[1] = 1;
    MPI_Comm cart = MPI_COMM_NULL;
    if (!strcmp(what, "create")) {
        /* d = 0 on MPI_COMM_WORLD, which has MPI_ERRORS_ARE_FATAL */
        Cart_neighborhood_create(MPI_COMM_WORLD, 0, dims, periods, 1, targets, w, MPI_INFO_NULL, 0, &cart);
    } else if (!strcmp(what, "collective")) {
        /* a negative count on a neighbourhood communicator (inherits the handler) */
        Cart_neighborhood_create(MPI_COMM_WORLD, 2, dims, periods, 1, targets, w, MPI_INFO_NULL, 0, &cart);
        int x = 1, y;
        Cart_alltoall(&x, -1, MPI_INT, &y, 1, MPI_INT, cart);
    } else {
        /* no communicator: MPI_COMM_SELF's handler */
        int count;
        Cart_stencil_count(2, 7, 0, 1, &count);
    }
    printf("test_fatal %s: NOT ABORTED\n", what);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}

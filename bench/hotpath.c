/* hotpath: the instructions of one persistent Cart_start + Cart_wait, for
 * scripts/callgrind.sh (issue 9's bar: d = 4 Moore neighbourhood of radius
 * n, blocks of m ints).  Usage: hotpath [d n m iterations algorithm form]
 * form p (default): persistent Cart_start + Cart_wait; b: blocking
 * Cart_alltoall (the plan cache's path).  The timed region is the loop
 * below; callgrind counts it through --toggle-collect on Cart_start,
 * Cart_wait and Cart_alltoall. */
#include <cartcoll.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int d = argc > 1 ? atoi(argv[1]) : 4, n = argc > 2 ? atoi(argv[2]) : 3, m = argc > 3 ? atoi(argv[3]) : 1;
    /* t = 0: clang cannot see that MPI_Abort below does not return. */
    int iters = argc > 4 ? atoi(argv[4]) : 1000, size, rank, t = 0;
    const char *alg = argc > 5 ? argv[5] : "auto";
    int blocking = argc > 6 && argv[6][0] == 'b';
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* Moore neighbourhood of radius r = n/2 (n points per dimension), as
     * cartbench's moore:d,n, without the zero vector. */
    int r = n / 2, dims[16] = { 0 }, periods[16];
    if (d < 1 || d > 16 || Cart_stencil_count(d, CART_CHEBYSHEV, 1, r, &t) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);
    int *targets = malloc(sizeof(int) * (size_t)(t * d + 1));
    Cart_stencil(d, CART_CHEBYSHEV, 1, r, t, targets);
    MPI_Dims_create(size, d, dims);
    for (int k = 0; k < d; k++) periods[k] = 1;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cartcoll_algorithm", alg);
    MPI_Comm cart;
    int *w = malloc(sizeof(int) * (size_t)(t + 1));
    for (int i = 0; i < t; i++) w[i] = 1;
    Cart_neighborhood_create(MPI_COMM_WORLD, d, dims, periods, t, targets, w, info, 0, &cart);
    int *sb = calloc((size_t)t * (size_t)m + 1, sizeof(int)), *rb = calloc((size_t)t * (size_t)m + 1, sizeof(int));
    Cart_request req;
    Cart_alltoall_init(sb, m, MPI_INT, rb, m, MPI_INT, cart, MPI_INFO_NULL, &req);
    for (int i = 0; i < 20; i++) { /* past the tuning starts (and the cache's first calls) */
        if (blocking) {
            Cart_alltoall(sb, m, MPI_INT, rb, m, MPI_INT, cart);
            continue;
        }
        Cart_start(&req);
        Cart_wait(&req);
    }
    MPI_Barrier(cart);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (blocking) {
            Cart_alltoall(sb, m, MPI_INT, rb, m, MPI_INT, cart);
            continue;
        }
        Cart_start(&req);
        Cart_wait(&req);
    }
    double dt = MPI_Wtime() - t0;
    if (rank == 0) printf("hotpath: d=%d n=%d m=%d t=%d %s: %d %s, %.2f us each\n", d, n, m, t, alg, iters,
                          blocking ? "Cart_alltoall" : "start+wait", dt / iters * 1e6);
    Cart_request_free(&req);
    MPI_Comm_free(&cart);
    MPI_Info_free(&info);
    free(targets);
    free(w);
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}

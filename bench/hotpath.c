/* hotpath: the instructions of one persistent Cart_start + Cart_wait, for
 * scripts/callgrind.sh (issue 9's bar: d = 4 Moore neighbourhood of radius
 * n, blocks of m ints).  Usage: hotpath [d n m iterations algorithm form executor]
 * form p (default): persistent Cart_start + Cart_wait; b: blocking
 * Cart_alltoall (the plan cache's path); f: the floor for the same data
 * (cartbench's floor variant: per distinct peer one contiguous persistent
 * message of all the bytes to it, packed once; the bytes to myself one
 * memcpy), no collective.  executor (7th argument, default auto): the
 * cartcoll_executor info value.  The timed region is the loop below;
 * callgrind counts it through --toggle-collect on Cart_start, Cart_wait,
 * Cart_alltoall and hotpath_floor_run. */
#include <cartcoll.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The floor: per distinct peer one persistent receive and one send of all
 * the ints to/from it; self: one memcpy. */
typedef struct floor_plan {
    MPI_Comm grid;       /* the floor's own Cartesian communicator */
    int n;               /* requests */
    MPI_Request req[64];
    MPI_Status st[64];   /* (not MPI_STATUSES_IGNORE: gcc warns on MPICH's prototype) */
    int *sbuf, *rbuf;
    size_t self_s, self_r, self_n;
} floor_plan;

/* Ints per peer rank for the vectors v (sign +1: destinations, -1:
 * sources), in rank order; cnt[size] ints each. */
static void peer_counts(MPI_Comm grid, int d, int t, const int *v, int sign, int m, int *cnt)
{
    int me, size, c[16], y[16], peer;
    MPI_Comm_rank(grid, &me);
    MPI_Comm_size(grid, &size);
    MPI_Cart_coords(grid, me, d, c);
    memset(cnt, 0, sizeof(int) * (size_t)size);
    for (int i = 0; i < t; i++) {
        for (int k = 0; k < d; k++) y[k] = c[k] + sign * v[i * d + k];
        MPI_Cart_rank(grid, y, &peer);
        cnt[peer] += m;
    }
}

static void floor_create(floor_plan *f, int d, const int *dims, const int *periods, int t, const int *v, int m)
{
    int size, me;
    MPI_Cart_create(MPI_COMM_WORLD, d, dims, periods, 0, &f->grid);
    MPI_Comm grid = f->grid;
    MPI_Comm_size(grid, &size);
    MPI_Comm_rank(grid, &me);
    int *sc = malloc(sizeof(int) * (size_t)size), *rc = malloc(sizeof(int) * (size_t)size);
    peer_counts(grid, d, t, v, 1, m, sc);
    peer_counts(grid, d, t, v, -1, m, rc);
    f->sbuf = calloc((size_t)t * (size_t)m + 1, sizeof(int));
    f->rbuf = calloc((size_t)t * (size_t)m + 1, sizeof(int));
    f->n = 0;
    size_t so = 0, ro = 0;
    for (int p = 0; p < size && f->n < 62; p++) {
        if (p == me) {
            f->self_s = so, f->self_r = ro, f->self_n = (size_t)sc[p];
        } else {
            if (rc[p]) MPI_Recv_init(f->rbuf + ro, rc[p], MPI_INT, p, 5, grid, &f->req[f->n++]);
            if (sc[p]) MPI_Send_init(f->sbuf + so, sc[p], MPI_INT, p, 5, grid, &f->req[f->n++]);
        }
        so += (size_t)sc[p];
        ro += (size_t)rc[p];
    }
    free(sc);
    free(rc);
}

/* Not inlined: callgrind toggles on its name. */
__attribute__((noinline)) void hotpath_floor_run(floor_plan *f);
__attribute__((noinline)) void hotpath_floor_run(floor_plan *f)
{
    MPI_Startall(f->n, f->req);
    if (f->self_n) memcpy(f->rbuf + f->self_r, f->sbuf + f->self_s, sizeof(int) * f->self_n);
    MPI_Waitall(f->n, f->req, f->st);
}

/* HOTPATH_DIMS=1,1,1,2: the grid's shape (else MPI_Dims_create's); at 2
 * processes a last dimension of 2 scatters the blocks to the other process
 * over the buffers, as on 2x2x2x2 with 16. */
static void env_dims(int d, int *dims)
{
    const char *ed = getenv("HOTPATH_DIMS");
    for (int k = 0; ed && k < d; k++) {
        dims[k] = atoi(ed);
        ed = strchr(ed, ',');
        ed = ed ? ed + 1 : NULL;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int d = argc > 1 ? atoi(argv[1]) : 4, n = argc > 2 ? atoi(argv[2]) : 3, m = argc > 3 ? atoi(argv[3]) : 1;
    /* t = 0: clang cannot see that MPI_Abort below does not return. */
    int iters = argc > 4 ? atoi(argv[4]) : 1000, size, rank, t = 0;
    const char *alg = argc > 5 ? argv[5] : "auto";
    int blocking = argc > 6 && argv[6][0] == 'b', flr = argc > 6 && argv[6][0] == 'f';
    const char *exe = argc > 7 ? argv[7] : "auto";
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* Moore neighbourhood of radius r = n/2 (n points per dimension), as
     * cartbench's moore:d,n, without the zero vector. */
    int r = n / 2, dims[16] = { 0 }, periods[16];
    if (d < 1 || d > 16 || Cart_stencil_count(d, CART_CHEBYSHEV, 1, r, &t) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);
    int *targets = malloc(sizeof(int) * (size_t)(t * d + 1));
    Cart_stencil(d, CART_CHEBYSHEV, 1, r, t, targets);
    env_dims(d, dims);
    MPI_Dims_create(size, d, dims);
    for (int k = 0; k < d; k++) periods[k] = 1;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cartcoll_algorithm", alg);
    MPI_Info_set(info, "cartcoll_executor", exe);
    MPI_Comm cart;
    int *w = malloc(sizeof(int) * (size_t)(t + 1));
    for (int i = 0; i < t; i++) w[i] = 1;
    Cart_neighborhood_create(MPI_COMM_WORLD, d, dims, periods, t, targets, w, info, 0, &cart);
    int *sb = calloc((size_t)t * (size_t)m + 1, sizeof(int)), *rb = calloc((size_t)t * (size_t)m + 1, sizeof(int));
    floor_plan fl;
    if (flr) floor_create(&fl, d, dims, periods, t, targets, m);
    Cart_request req;
    Cart_alltoall_init(sb, m, MPI_INT, rb, m, MPI_INT, cart, MPI_INFO_NULL, &req);
    for (int i = 0; i < 20; i++) { /* past the tuning starts (and the cache's first calls) */
        if (flr) {
            hotpath_floor_run(&fl);
            continue;
        }
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
        if (flr) {
            hotpath_floor_run(&fl);
            continue;
        }
        if (blocking) {
            Cart_alltoall(sb, m, MPI_INT, rb, m, MPI_INT, cart);
            continue;
        }
        Cart_start(&req);
        Cart_wait(&req);
    }
    double dt = MPI_Wtime() - t0;
    if (rank == 0) printf("hotpath: d=%d n=%d m=%d t=%d %s: %d %s, %.2f us each\n", d, n, m, t, alg, iters,
                          flr ? "floor" : blocking ? "Cart_alltoall" : "start+wait", dt / iters * 1e6);
    if (flr) {
        for (int i = 0; i < fl.n; i++) MPI_Request_free(&fl.req[i]);
        free(fl.sbuf);
        free(fl.rbuf);
        MPI_Comm_free(&fl.grid);
    }
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

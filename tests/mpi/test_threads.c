/* Thread safety as cartcoll.h states it: with MPI_THREAD_MULTIPLE, threads
 * may call cartcoll concurrently on different communicators and requests.
 * Each thread owns a duplicate of one neighbourhood communicator (collective
 * order is per communicator) and runs blocking, non-blocking and persistent
 * operations with multi-phase algorithms; every result is checked against the
 * first-principles source rank. */
#include <cartcoll.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 3
#define ROUNDS 60

typedef struct job {
    MPI_Comm comm;
    int t, id, bad;
    const int *src; /* source rank of block i (MPI_PROC_NULL: none) */
} job;

static int value(int rank, int id, int round, int i) { return ((rank * 7 + id) * 1000 + round) * 100 + i; }

static void check(job *j, const int *rb, int round, int alltoall)
{
    for (int i = 0; i < j->t; i++) {
        int want = j->src[i] == MPI_PROC_NULL ? -1 : value(j->src[i], j->id, round, alltoall ? i : 0);
        if (rb[i] != want) {
            if (j->bad++ < 3)
                fprintf(stderr, "test_threads: thread %d round %d block %d: got %d, expected %d\n", j->id, round, i,
                        rb[i], want);
        }
    }
}

static void *work(void *arg)
{
    job *j = arg;
    int rank, t = j->t;
    MPI_Comm_rank(j->comm, &rank);
    int *sb = malloc(sizeof(int) * (size_t)t), *rb = malloc(sizeof(int) * (size_t)t);
    int *psb = malloc(sizeof(int) * (size_t)t), *prb = malloc(sizeof(int) * (size_t)t);
    Cart_request p;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cartcoll_algorithm", j->id % 2 ? "torus" : "combining");
    Cart_alltoall_init(psb, 1, MPI_INT, prb, 1, MPI_INT, j->comm, info, &p);
    MPI_Info_free(&info);
    for (int r = 0; r < ROUNDS; r++) {
        int alltoall = r % 2 == 0;
        for (int i = 0; i < t; i++) {
            sb[i] = value(rank, j->id, r, alltoall ? i : 0);
            psb[i] = value(rank, j->id, r, i);
            rb[i] = prb[i] = -1;
        }
        switch (r % 3) {
        case 0: /* blocking */
            if (alltoall) Cart_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, j->comm);
            else Cart_allgather(sb, 1, MPI_INT, rb, 1, MPI_INT, j->comm);
            break;
        case 1: { /* non-blocking, completed by polling */
            Cart_request q;
            if (alltoall) Cart_ialltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, j->comm, &q);
            else Cart_iallgather(sb, 1, MPI_INT, rb, 1, MPI_INT, j->comm, &q);
            for (int flag = 0; !flag;) Cart_test(&q, &flag);
            break;
        }
        default: { /* non-blocking and persistent together */
            Cart_request q;
            if (alltoall) Cart_ialltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, j->comm, &q);
            else Cart_iallgather(sb, 1, MPI_INT, rb, 1, MPI_INT, j->comm, &q);
            Cart_start(&p);
            Cart_request both[2] = { p, q };
            Cart_waitall(2, both);
            check(j, prb, r, 1);
            break;
        }
        }
        check(j, rb, r, alltoall);
    }
    Cart_request_free(&p);
    free(sb);
    free(rb);
    free(psb);
    free(prb);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (!rank) printf("test_threads: this MPI does not provide MPI_THREAD_MULTIPLE; skipped\n");
        MPI_Finalize();
        return 77;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    /* A 2-D torus with the 24-neighbour Chebyshev ball of radius 2. */
    int d = 2, dims[2] = { 0, 0 }, periods[2] = { 1, 1 }, t;
    MPI_Dims_create(size, d, dims);
    Cart_stencil_count(d, CART_CHEBYSHEV, 1, 2, &t);
    int *target = malloc(sizeof(int) * (size_t)(t * d)), *w = malloc(sizeof(int) * (size_t)t);
    Cart_stencil(d, CART_CHEBYSHEV, 1, 2, t, target);
    for (int i = 0; i < t; i++) w[i] = 1;
    MPI_Comm cart;
    Cart_neighborhood_create(MPI_COMM_WORLD, d, dims, periods, t, target, w, MPI_INFO_NULL, 0, &cart);

    /* Sources from first principles: coordinates by MPI_Cart_coords. */
    int me, c[2], *src = malloc(sizeof(int) * (size_t)t);
    MPI_Comm_rank(cart, &me);
    MPI_Cart_coords(cart, me, 2, c);
    for (int i = 0; i < t; i++) {
        int s[2];
        for (int k = 0; k < 2; k++) s[k] = ((c[k] - target[i * d + k]) % dims[k] + dims[k]) % dims[k];
        MPI_Cart_rank(cart, s, &src[i]);
    }

    job jobs[NTHREADS];
    pthread_t th[NTHREADS];
    for (int k = 0; k < NTHREADS; k++) {
        jobs[k] = (job){ MPI_COMM_NULL, t, k, 0, src };
        MPI_Comm_dup(cart, &jobs[k].comm); /* the neighbourhood comes along */
    }
    for (int k = 0; k < NTHREADS; k++) pthread_create(&th[k], NULL, work, &jobs[k]);
    int bad = 0;
    for (int k = 0; k < NTHREADS; k++) {
        pthread_join(th[k], NULL);
        bad += jobs[k].bad;
        MPI_Comm_free(&jobs[k].comm);
    }
    int total;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (!rank)
        printf("test_threads: %s on %d processes: %d threads x %d rounds, %d wrong blocks\n", total ? "FAIL" : "PASS",
               size, NTHREADS, ROUNDS, total);
    MPI_Comm_free(&cart);
    free(target);
    free(w);
    free(src);
    MPI_Finalize();
    return total ? 1 : 0;
}

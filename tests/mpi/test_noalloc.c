/* Started persistent operations allocate nothing and create no MPI objects;
 * memory per process does not grow with the number of processes.
 *
 * Linked with cartcoll_static and -Wl,--wrap=malloc,calloc,realloc,free,...
 * so that every allocation made by the library's objects passes through the
 * counters below, and with interpose.c, which counts the MPI constructors
 * (datatypes, communicators, requests, infos) the library calls.
 *
 * Part 1: for every algorithm x executor x collective (regular, v, w of
 * allgather and alltoall), on a periodic and a mesh neighbourhood with
 * derived datatypes, every start (from the first, auto-tuned ones for 14
 * starts) is bracketed from Cart_start/Cart_startall to completion
 * (Cart_wait, Cart_waitall or a Cart_test loop): no malloc/calloc/realloc
 * and no MPI object may happen inside; frees are allowed and reported.
 * Results are checked too.
 *
 * Part 4: started partitioned operations (Cart_palltoall_init and
 * Cart_pallreduce_init, each algorithm, on the neighbourhood -- there also
 * Cart_pallgather_init; the early bird, and the pipelined slices of
 * allreduce and of combining schedules -- and with global meaning on a
 * plain duplicate of MPI_COMM_WORLD, there also
 * Cart_preduce_scatter_block_init, whose slices copy their send data
 * together as they start): from Cart_start through Cart_pready*,
 * Cart_parrived and Cart_wait, no allocation and no MPI object, 4 cycles.
 * (Global meaning is MPI's persistent collective, MPI_X_init or Open MPI's
 * MPIX_X_init; an MPI-3 library without that extension would start a
 * non-blocking collective per start, and fail.  MPICH's allgather family
 * keeps MPI_IX, so the global pallgather is left out.)
 *
 * Part 3: once its requests and communicators (and a duplicate) are freed,
 * nothing the library allocated for a neighbourhood is still held.
 * Part 2 (8 or more processes): bytes allocated by the library for create +
 * *_init of the same neighbourhood on sub-communicators of 4..8 processes,
 * on grids where no two offsets meet: equal for structurally identical
 * grids (p = 5..8 for a ring), within 64 bytes between p = 4 and p = 8.
 */
#include "interpose.h"
#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- allocation counters (--wrap) ---- */
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
int __real_posix_memalign(void **p, size_t a, size_t n);
void *__real_aligned_alloc(size_t a, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
int __wrap_posix_memalign(void **p, size_t a, size_t n);
void *__wrap_aligned_alloc(size_t a, size_t n);

static volatile int count_allocs; /* inside a start..completion window */
static volatile int track_bytes;  /* inside a create/init measurement */
static long n_alloc, n_free;
/* Blocks allocated during a measurement and not freed yet: bytes retained. */
#define MAXBLK 16384
static void *blk_ptr[MAXBLK];
static size_t blk_size[MAXBLK];
static int nblk, blk_overflow;
static long long bytes_gross;

static void on_alloc(void *p, size_t n)
{
    if (count_allocs) n_alloc++;
    if (track_bytes && p) {
        bytes_gross += (long long)n;
        if (nblk < MAXBLK) {
            blk_ptr[nblk] = p;
            blk_size[nblk++] = n;
        } else {
            blk_overflow = 1;
        }
    }
}
static void on_free(void *p)
{
    if (!p) return;
    if (count_allocs) n_free++;
    if (track_bytes)
        for (int i = nblk - 1; i >= 0; i--)
            if (blk_ptr[i] == p) {
                blk_ptr[i] = blk_ptr[--nblk];
                blk_size[i] = blk_size[nblk];
                break;
            }
}
static long long bytes_retained(void)
{
    long long s = 0;
    for (int i = 0; i < nblk; i++) s += (long long)blk_size[i];
    return s;
}
void *__wrap_malloc(size_t n)
{
    void *p = __real_malloc(n);
    on_alloc(p, n);
    return p;
}
void *__wrap_calloc(size_t n, size_t m)
{
    void *p = __real_calloc(n, m);
    on_alloc(p, n * m);
    return p;
}
void *__wrap_realloc(void *p, size_t n)
{
    on_free(p);
    void *q = __real_realloc(p, n);
    on_alloc(q, n);
    return q;
}
void __wrap_free(void *p)
{
    on_free(p);
    __real_free(p);
}
int __wrap_posix_memalign(void **p, size_t a, size_t n)
{
    int rc = __real_posix_memalign(p, a, n);
    if (!rc) on_alloc(*p, n);
    return rc;
}
void *__wrap_aligned_alloc(size_t a, size_t n)
{
    void *p = __real_aligned_alloc(a, n);
    on_alloc(p, n);
    return p;
}

static void window_open(void)
{
    n_alloc = n_free = 0;
    ip_reset();
    count_allocs = 1;
    ip_window = 1;
}
static void window_close(void)
{
    count_allocs = 0;
    ip_window = 0;
}

/* ---- part 1 ---- */

#define MAXT 32
#define B 2 /* ints per block */
typedef struct {
    MPI_Comm cart;
    int d, dims[3], periods[3], t, targets[MAXT * 3], me, src[MAXT];
} nbh_t;

static long n_windows, n_frees_seen, init_allocs, init_objects;

static void make(nbh_t *n, int d, const int periods[], const int *targets, int t)
{
    memset(n, 0, sizeof *n);
    n->d = d;
    n->t = t;
    MPI_Dims_create(mt_size, d, n->dims);
    memcpy(n->periods, periods, sizeof(int) * (size_t)d);
    memcpy(n->targets, targets, sizeof(int) * (size_t)(t * d));
    int rc = Cart_neighborhood_create(MPI_COMM_WORLD, d, n->dims, n->periods, t, n->targets, MPI_UNWEIGHTED,
                                      MPI_INFO_NULL, 0, &n->cart);
    if (rc != MPI_SUCCESS) {
        mt_fail(__FILE__, __LINE__, "Cart_neighborhood_create failed (%d)", rc);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Comm_rank(n->cart, &n->me);
    for (int i = 0; i < t; i++) n->src[i] = mt_shift(n->me, d, n->dims, n->periods, n->targets + i * d, -1);
}

static int val(int src, int blk, int k, int it) { return 100000 * it + 1000 * src + 10 * (blk + 1) + k; }

/* Buffers: send blocks of B ints, receive blocks of B ints laid out with a
 * stride-2 vector type (w variants) or contiguously. */
typedef struct {
    int sb[MAXT * B], rb[MAXT * B * 2 + 4];
    int counts[MAXT], displs[MAXT];
    MPI_Aint sdw[MAXT], rdw[MAXT];
    MPI_Datatype stypes[MAXT], rtypes[MAXT];
} bufs_t;

static MPI_Datatype vec2; /* B ints at stride 2 */

static int init_coll(int coll, bufs_t *b, const nbh_t *n, MPI_Info info, Cart_request *r)
{
    int gather = coll < 3, variant = coll % 3;
    for (int i = 0; i < n->t; i++) {
        b->counts[i] = B;
        b->displs[i] = i * B;
        b->sdw[i] = (MPI_Aint)(i * B * (int)sizeof(int));
        b->rdw[i] = (MPI_Aint)(i * B * 2 * (int)sizeof(int));
        b->stypes[i] = MPI_INT;
        b->rtypes[i] = vec2;
    }
    int ones[MAXT];
    for (int i = 0; i < MAXT; i++) ones[i] = 1;
    switch (coll) {
    case 0: return Cart_allgather_init(b->sb, B, MPI_INT, b->rb, B, MPI_INT, n->cart, info, r);
    case 1: return Cart_allgatherv_init(b->sb, B, MPI_INT, b->rb, b->counts, b->displs, MPI_INT, n->cart, info, r);
    case 2: return Cart_allgatherw_init(b->sb, B, MPI_INT, b->rb, ones, b->rdw, b->rtypes, n->cart, info, r);
    case 3: return Cart_alltoall_init(b->sb, B, MPI_INT, b->rb, B, MPI_INT, n->cart, info, r);
    case 4:
        return Cart_alltoallv_init(b->sb, b->counts, b->displs, MPI_INT, b->rb, b->counts, b->displs, MPI_INT, n->cart,
                                   info, r);
    default:
        (void)gather;
        (void)variant;
        return Cart_alltoallw_init(b->sb, b->counts, b->sdw, b->stypes, b->rb, ones, b->rdw, b->rtypes, n->cart, info,
                                   r);
    }
}

static void fill(int coll, bufs_t *b, const nbh_t *n, int it)
{
    for (size_t i = 0; i < sizeof b->rb / sizeof b->rb[0]; i++) b->rb[i] = -1;
    for (int i = 0; i < (coll < 3 ? 1 : n->t); i++)
        for (int k = 0; k < B; k++) b->sb[i * B + k] = val(n->me, coll < 3 ? -1 : i, k, it);
}

static void check(int coll, const bufs_t *b, const nbh_t *n, int it, const char *what)
{
    int bad = 0;
    for (int i = 0; i < n->t; i++)
        for (int k = 0; k < B; k++) {
            int at = coll % 3 == 2 ? i * B * 2 + 2 * k : i * B + k;
            int want = n->src[i] == MPI_PROC_NULL ? -1 : val(n->src[i], coll < 3 ? -1 : i, k, it);
            if (b->rb[at] != want && !bad++)
                mt_fail(__FILE__, __LINE__, "%s start %d: block %d element %d is %d, expected %d", what, it, i, k,
                        b->rb[at], want);
        }
    mt_checks++;
}

static const char *const coll_name[6] = { "allgather", "allgatherv", "allgatherw", "alltoall", "alltoallv", "alltoallw" };

static void part1(const nbh_t *n, const char *nname)
{
    static bufs_t b[6];
    char what[256];
    for (int alg = 0; alg < 4; alg++)
        for (int exec = 0; exec < 3; exec++) {
            MPI_Info info = mt_info(mt_alg_name[alg], mt_exec_name[exec]);
            Cart_request r[6];
            for (int c = 0; c < 6; c++) {
                window_open(); /* not asserted: shows that the counters see the library */
                int rc = init_coll(c, &b[c], n, info, &r[c]);
                window_close();
                init_allocs += n_alloc;
                init_objects += ip_objects;
                if (rc != MPI_SUCCESS) {
                    mt_fail(__FILE__, __LINE__, "%s: %s_init failed (%d)", nname, coll_name[c], rc);
                    MPI_Abort(MPI_COMM_WORLD, 3);
                }
            }
            mt_info_free(&info);
            int starts = alg == 0 || exec == 0 ? 14 : 4;
            for (int it = 0; it < starts; it++) {
                int how = it % 4;
                for (int c = 0; c < 6; c++) fill(c, &b[c], n, it);
                int rc = MPI_SUCCESS, flag;
                if (how == 3) { /* all six at once */
                    window_open();
                    rc |= Cart_startall(6, r);
                    rc |= Cart_waitall(6, r);
                    window_close();
                    n_windows++;
                    n_frees_seen += n_free;
                    snprintf(what, sizeof what, "%s, %s/%s, Cart_startall + Cart_waitall of all six", nname,
                             mt_alg_name[alg], mt_exec_name[exec]);
                    MT_CHECK(rc == MPI_SUCCESS, "%s: failed", what);
                    MT_CHECK(n_alloc == 0, "%s, start %d: %ld allocations by the library", what, it + 1, n_alloc);
                    MT_CHECK(ip_objects == 0, "%s, start %d: %ld MPI objects created (last: %s)", what, it + 1,
                             ip_objects, ip_last_object);
                } else {
                    for (int c = 0; c < 6; c++) {
                        window_open();
                        if (how == 0) {
                            rc |= Cart_start(&r[c]);
                            rc |= Cart_wait(&r[c]);
                        } else if (how == 1) {
                            rc |= Cart_startall(1, &r[c]);
                            do
                                rc |= Cart_test(&r[c], &flag);
                            while (!flag && rc == MPI_SUCCESS);
                        } else {
                            rc |= Cart_start(&r[c]);
                            rc |= Cart_waitall(1, &r[c]);
                        }
                        window_close();
                        n_windows++;
                        n_frees_seen += n_free;
                        snprintf(what, sizeof what, "%s, %s, %s/%s, %s", nname, coll_name[c], mt_alg_name[alg],
                                 mt_exec_name[exec],
                                 how == 0   ? "Cart_start + Cart_wait"
                                 : how == 1 ? "Cart_startall + Cart_test loop"
                                            : "Cart_start + Cart_waitall");
                        MT_CHECK(rc == MPI_SUCCESS, "%s: failed", what);
                        MT_CHECK(n_alloc == 0, "%s, start %d: %ld allocations by the library", what, it + 1,
                                 n_alloc);
                        MT_CHECK(ip_objects == 0, "%s, start %d: %ld MPI objects created (last: %s)", what, it + 1,
                                 ip_objects, ip_last_object);
                    }
                }
                for (int c = 0; c < 6; c++) {
                    snprintf(what, sizeof what, "%s, %s, %s/%s", nname, coll_name[c], mt_alg_name[alg],
                             mt_exec_name[exec]);
                    check(c, &b[c], n, it, what);
                }
                if (rc != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 3);
            }
            for (int c = 0; c < 6; c++) Cart_request_free(&r[c]);
        }
}

/* ---- part 4 ---- */

static void part4(MPI_Comm comm, int t, const char *cname, int gather)
{
    enum { P = 3, C = 2 }; /* partitions per block, ints per partition */
    int n = t > 0 ? t : 1;
    int *sb = calloc((size_t)n * P * C, sizeof(int)), *rb = calloc((size_t)n * P * C, sizeof(int));
    int *rg = calloc((size_t)n * P * C, sizeof(int));
    int sr[P * C], rr[P * C];
    for (int a = 0; a < 4; a++) {
        MPI_Info info = mt_info(mt_alg_name[a], NULL);
        /* one partition per message or slice: the pipelined transport too */
        MPI_Info_set(info, "cartcoll_part_aggregate", "0");
        Cart_request r[3];
        int rc = Cart_palltoall_init(sb, P, C, MPI_INT, rb, P, C, MPI_INT, comm, info, &r[0]);
        if (rc == MPI_SUCCESS) rc = Cart_pallreduce_init(sr, rr, P, C, MPI_INT, MPI_SUM, comm, info, &r[1]);
        r[2] = CART_REQUEST_NULL;
        if (rc == MPI_SUCCESS && gather)
            rc = Cart_pallgather_init(sr, P, C, MPI_INT, rg, P, C, MPI_INT, comm, info, &r[2]);
        else if (rc == MPI_SUCCESS) /* global: reduce_scatter_block's slices gather their chunks at the start */
            rc = Cart_preduce_scatter_block_init(sb, rg, P, C, MPI_INT, MPI_SUM, comm, info, &r[2]);
        mt_info_free(&info);
        MT_CHECK(rc == MPI_SUCCESS, "part 4, %s: init failed", cname);
        if (rc != MPI_SUCCESS) break;
        for (int it = 0; it < 4; it++) {
            for (int i = 0; i < P * C; i++) sr[i] = mt_rank + it;
            int flag = 0;
            window_open();
            for (int q = 0; q < 3; q++) {
                rc |= Cart_start(&r[q]);
                rc |= Cart_pready_range(0, q == 1 || (q == 2 && gather) ? P - 1 : n * P - 1, r[q]);
            }
            while (!flag && rc == MPI_SUCCESS) rc = Cart_parrived(r[1], P - 1, &flag);
            for (int q = 0; q < 3; q++) rc |= Cart_wait(&r[q]);
            window_close();
            n_windows++;
            MT_CHECK(rc == MPI_SUCCESS, "part 4, %s, %s: failed", cname, mt_alg_name[a]);
            MT_CHECK(n_alloc == 0, "part 4, %s, %s, cycle %d: %ld allocations", cname, mt_alg_name[a], it + 1,
                     n_alloc);
            MT_CHECK(ip_objects == 0, "part 4, %s, %s, cycle %d: %ld MPI objects created (last: %s)", cname,
                     mt_alg_name[a], it + 1, ip_objects, ip_last_object);
        }
        for (int q = 0; q < 3; q++) Cart_request_free(&r[q]);
    }
    free(sb);
    free(rb);
    free(rg);
}

/* ---- part 2 ---- */

typedef struct {
    long long gross, retained;
} mem_t;

/* Library allocations of create + four *_init (three forced algorithms and
 * one auto), this process's view: gross bytes requested and bytes held. */
static mem_t measure(MPI_Comm comm, int d, const int dims[], const int targets[], int t)
{
    int periods[3] = { 1, 1, 1 };
    static int sb[64], rb[64];
    mem_t m = { 0, 0 };
    MPI_Comm cart;
    Cart_request r[4];
    MPI_Info info[3];
    for (int a = 0; a < 3; a++) info[a] = mt_info(mt_alg_name[a + 1], a == 1 ? "datatype" : "pack");
    MPI_Barrier(comm);
    bytes_gross = 0;
    nblk = blk_overflow = 0;
    track_bytes = 1;
    Cart_neighborhood_create(comm, d, dims, periods, t, targets, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &cart);
    for (int a = 0; a < 3; a++) Cart_alltoall_init(sb, 1, MPI_INT, rb, 1, MPI_INT, cart, info[a], &r[a]);
    Cart_allgather_init(sb, 1, MPI_INT, rb, 1, MPI_INT, cart, MPI_INFO_NULL, &r[3]);
    track_bytes = 0;
    m.gross = bytes_gross;
    m.retained = blk_overflow ? -1 : bytes_retained();
    for (int a = 0; a < 4; a++) Cart_request_free(&r[a]);
    MPI_Comm_free(&cart);
    for (int a = 0; a < 3; a++) mt_info_free(&info[a]);
    return m;
}

static mem_t measure_on(int q, int d, const int dims[], const int targets[], int t)
{
    MPI_Comm c;
    mem_t m = { 0, 0 };
    MPI_Comm_split(MPI_COMM_WORLD, mt_rank < q ? 0 : MPI_UNDEFINED, mt_rank, &c);
    if (c != MPI_COMM_NULL) {
        m = measure(c, d, dims, targets, t);
        MPI_Comm_free(&c);
    }
    return m;
}

static void part2(void)
{
    if (mt_size < 8) {
        if (!mt_rank) printf("test_noalloc: memory comparison needs 8 processes, skipped\n");
        return;
    }
    /* 1-D ring with offsets -1, 1, 0 on q = 4..8 processes (never two offsets
     * on one neighbour); 2-D with positive offsets only on 2x2, 2x3, 2x4. */
    int t1[3] = { -1, 1, 0 }, t2[6] = { 0, 1, 1, 0, 1, 1 };
    int e[3][2] = { { 2, 2 }, { 2, 3 }, { 2, 4 } };
    int d8[1] = { 8 };
    (void)measure(MPI_COMM_WORLD, 1, d8, t1, 3); /* one-time initialisation */
    mem_t ring[9], grid[3];
    for (int q = 4; q <= 8; q++) {
        int dq[1] = { q };
        ring[q] = measure_on(q, 1, dq, t1, 3);
    }
    for (int k = 0; k < 3; k++) grid[k] = measure_on(4 + 2 * k, 2, e[k], t2, 3);
    if (mt_rank == 0) {
        printf("test_noalloc: library bytes (requested/still held) for create + 4 *_init on rank 0:\n  1-D ring:");
        for (int q = 4; q <= 8; q++) printf(" p=%d %lld/%lld", q, ring[q].gross, ring[q].retained);
        printf("\n  2-D:");
        for (int k = 0; k < 3; k++) printf(" %dx%d %lld/%lld", e[k][0], e[k][1], grid[k].gross, grid[k].retained);
        printf("\n");
        /* Structurally identical neighbourhoods use equal memory; p=4 against
         * p=8 may differ in a detail of the plan by a few words, while any
         * O(p) array would also grow from p=5 to p=8. */
        for (int q = 5; q <= 8; q++)
            MT_CHECK(ring[q].gross == ring[8].gross && ring[q].retained == ring[8].retained,
                     "1-D ring: p=%d uses %lld/%lld bytes, p=8 %lld/%lld", q, ring[q].gross, ring[q].retained,
                     ring[8].gross, ring[8].retained);
        MT_CHECK(grid[1].gross == grid[2].gross && grid[1].retained == grid[2].retained,
                 "2-D: 2x3 uses %lld/%lld bytes, 2x4 %lld/%lld", grid[1].gross, grid[1].retained, grid[2].gross,
                 grid[2].retained);
        MT_CHECK(llabs(ring[4].retained - ring[8].retained) <= 64 && llabs(grid[0].retained - grid[2].retained) <= 64,
                 "held bytes differ by more than 64 between p=4 and p=8 (ring %lld/%lld, 2-D %lld/%lld)",
                 ring[4].retained, ring[8].retained, grid[0].retained, grid[2].retained);
        MT_CHECK(ring[8].retained >= 0 && grid[2].retained >= 0, "too many blocks to track");
    }
}

/* ---- part 3: MPI_Comm_free releases everything ---- */

/* Every block the library allocates for a neighbourhood, its duplicate, a
 * schedule query, blocking, non-blocking and persistent operations of every
 * algorithm is freed again once the requests and communicators are freed. */
static void part3(void)
{
    int dims[2] = { 0, 0 }, periods[2] = { 1, 0 }, tg[10] = { 1, 0, -1, 0, 0, 1, 1, 1, 2, -1 };
    MPI_Dims_create(mt_size, 2, dims);
    static int sb[64], rb[64];
    for (int round = 0; round < 2; round++) {
        nblk = blk_overflow = 0;
        track_bytes = 1;
        MPI_Comm c, dup;
        Cart_neighborhood_create(MPI_COMM_WORLD, 2, dims, periods, 5, tg, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c);
        MPI_Comm_dup(c, &dup);
        int ph, ro, vo;
        for (int a = 0; a <= 3; a++) Cart_schedule_stats(dup, CART_ALLGATHER, a, &ph, &ro, &vo);
        Cart_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, c);
        Cart_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, c); /* a cached plan */
        Cart_request r[5];
        Cart_iallgather(sb, 1, MPI_INT, rb, 1, MPI_INT, dup, &r[0]);
        Cart_wait(&r[0]);
        for (int a = 0; a <= 3; a++) {
            MPI_Info info = mt_info(mt_alg_name[a], a == 2 ? "datatype" : NULL);
            Cart_alltoall_init(sb, 1, MPI_INT, rb, 1, MPI_INT, a % 2 ? c : dup, info, &r[a + 1]);
            mt_info_free(&info);
        }
        for (int it = 0; it < 14; it++) { /* through auto-tuning */
            Cart_startall(4, r + 1);
            Cart_waitall(4, r + 1);
        }
        for (int a = 1; a <= 4; a++) Cart_request_free(&r[a]);
        MPI_Comm_free(&c);
        MPI_Comm_free(&dup);
        track_bytes = 0;
        long long held = blk_overflow ? -1 : bytes_retained();
        /* round 0 may keep one-time state (options, keyvals); round 1 must not */
        if (round == 1)
            MT_CHECK(held == 0, "%lld bytes in %d blocks allocated by the library are still held after all "
                     "requests and communicators were freed", held, nblk);
        else if (!mt_rank && held)
            printf("test_noalloc: first use keeps %lld bytes in %d blocks (one-time state)\n", held, nblk);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "test_noalloc");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Type_vector(B, 1, 2, MPI_INT, &vec2);
    MPI_Type_commit(&vec2);
    int periodic[2] = { 1, 1 }, mixed[3] = { 0, 1, 0 };
    /* 2-D Moore radius 1 plus a long offset; 3-D mesh with assorted offsets. */
    int m2[18] = { -1, -1, -1, 0, -1, 1, 0, -1, 0, 1, 1, -1, 1, 0, 1, 1, 2, -1 };
    int m3[21] = { 1, 0, 0, 0, -1, 0, 0, 0, 2, 1, 1, 0, -1, 0, 1, 1, -1, -1, 0, 2, -2 };
    nbh_t n;
    make(&n, 2, periodic, m2, 9);
    part1(&n, "2-D periodic Moore+1");
    part4(n.cart, n.t, "2-D periodic Moore+1", 1);
    MPI_Comm_free(&n.cart);
    make(&n, 3, mixed, m3, 7);
    part1(&n, "3-D mixed");
    MPI_Comm_free(&n.cart);
    /* Global meaning: MPI's persistent alltoall and allreduce, made at
     * _init, where the MPI has them (MPI-4, Open MPI's MPIX_ extension). */
    MPI_Comm plain;
    MPI_Comm_dup(MPI_COMM_WORLD, &plain);
    MPI_Comm_set_errhandler(plain, MPI_ERRORS_RETURN);
    part4(plain, mt_size, "global (MPI_COMM_WORLD's duplicate)", 0);
    MPI_Comm_free(&plain);
    /* Self-test of the instrumentation: planning allocates and makes MPI objects. */
    MT_CHECK(init_allocs > 0 && init_objects > 0,
             "instrumentation sees no allocation (%ld) or MPI object (%ld) in the *_init calls", init_allocs,
             init_objects);
    part2();
    part3();
    MPI_Type_free(&vec2);
    long mine[2] = { n_windows, n_frees_seen }, mx[2];
    MPI_Reduce(mine, mx, 2, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (!mt_rank)
        printf("test_noalloc: %ld start..completion windows checked per process (%ld frees inside them); "
               "rank 0's *_init calls: %ld allocations, %ld MPI objects\n",
               mx[0], mx[1], init_allocs, init_objects);
    return mt_finish();
}

/* Life cycles of partitioned requests: what one request leaves behind must
 * not disturb the next (defect D4: a Cart_palltoall_init on a 1-d mesh,
 * freed unstarted, hung every later MPI-4 persistent collective on MPICH
 * 4.0, so a Cart_pscan_init on a fresh duplicate never completed).
 *
 * For every Cart_p*_init of cartcoll.h (the global-only ones on plain
 * communicators alone), on a plain communicator, a 1-d mesh and a 1-d torus
 * (offsets +1, -1: an ordinary halo; the mesh's ends have MPI_PROC_NULL
 * edges), with three infos (none; cartcoll_part_aggregate = 0: the early
 * bird's one message per partition, slices of the rooted and reducing
 * collectives; plus cartcoll_algorithm = combining: the pipelined
 * alltoall/allgather), a "first" request is made on a fresh communicator
 * and freed unstarted, or started, completed, checked and freed, and the
 * communicator freed.  Then every kind runs to completion on fresh
 * communicators (plain, and a neighbourhood of the same periodicity) and
 * its data is checked against first principles: MPI's meaning on plain
 * communicators, cartcoll.h's neighbourhood meaning (dst[i] = R + N[i],
 * src[j] = R - N[j], nothing across a mesh's edge) on neighbourhoods.
 *
 *   test_lifecycle [--first plain|mesh|torus] [--kind K] [--then K] [--info 0|1|2]
 *                  [--free-only] [--multiple] [--verbose] [--break-oracle]
 *
 * --first restricts the first requests to one communicator kind (the
 * ctest runs split the work so); --kind, --then, --info, --free-only narrow
 * a replay (the first kind, the later kind, the first info, only freeing
 * unstarted); --multiple runs under MPI_THREAD_MULTIPLE (the early bird's
 * and slices' progress thread runs); --break-oracle corrupts the expectation
 * of one kind, so the run must fail.  A hang is caught by ctest's TIMEOUT. */
#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    K_BCAST, K_GATHER, K_GATHERV, K_SCATTER, K_SCATTERV, K_ALLGATHER, K_ALLGATHERV, K_ALLTOALL, K_ALLTOALLV,
    K_ALLTOALLW, K_REDUCE, K_ALLREDUCE, K_RSB, K_RS, K_SCAN, K_EXSCAN, NKINDS
};
static const char *const kname[NKINDS] = { "pbcast",     "pgather",     "pgatherv",  "pscatter",
                                           "pscatterv",  "pallgather",  "pallgatherv", "palltoall",
                                           "palltoallv", "palltoallw",  "preduce",   "pallreduce",
                                           "preduce_scatter_block", "preduce_scatter", "pscan", "pexscan" };
enum { E = 4, SP = 2, RP = 4, UNTOUCHED = -777 }; /* ints per block; partitions per send / receive block */
enum { C_PLAIN, C_MESH, C_TORUS, NCTX };
static const char *const cname[NCTX] = { "plain", "mesh", "torus" };
enum { I_NONE, I_AGG0, I_COMBINING, NINFO };
static const char *const iname[NINFO] = { "no info", "aggregate 0", "combining, aggregate 0" };
static MPI_Info infos[NINFO];
static int broken = -1; /* --break-oracle: this kind's expectation is wrong */

static int global_only(int k) { return k == K_RSB || k == K_RS || k == K_SCAN || k == K_EXSCAN; }

/* A communicator of kind ctx (fresh) and its neighbours (one process's
 * view): deg blocks on each side; src[j], dst[i] (-1: none). */
typedef struct {
    int ctx, rank, size, deg;
    MPI_Comm comm;
    int src[2], dst[2];
} world;

static int nb_of(int r, int off, int size, int per)
{
    int q = r + off;
    if (q >= 0 && q < size) return q;
    return per ? (q % size + size) % size : -1;
}

static void open_world(world *w, int ctx)
{
    w->ctx = ctx;
    w->rank = mt_rank, w->size = mt_size;
    if (ctx == C_PLAIN) {
        MPI_Comm_dup(MPI_COMM_WORLD, &w->comm);
        w->deg = w->size;
        return;
    }
    int dims[1] = { mt_size }, per[1] = { ctx == C_TORUS }, offs[2] = { 1, -1 };
    int rc = Cart_neighborhood_create(MPI_COMM_WORLD, 1, dims, per, 2, offs, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                      &w->comm);
    MT_CHECK(rc == MPI_SUCCESS, "Cart_neighborhood_create (%s) failed: %d", cname[ctx], rc);
    w->deg = 2;
    for (int i = 0; i < 2; i++) {
        w->dst[i] = nb_of(w->rank, offs[i], w->size, per[0]);
        w->src[i] = nb_of(w->rank, -offs[i], w->size, per[0]);
    }
}

static int supported(int k, const world *w) { return w->ctx == C_PLAIN || !global_only(k); }

/* Element e of send block i of process q in run `salt`. */
static int V(int q, int i, int e, int salt) { return 1 + salt * 100000 + q * 1000 + i * 100 + e; }

/* One operation's buffers and argument arrays. */
typedef struct {
    int kind, root, salt;
    int sb[64 * E], rb[64 * E], want[64 * E], check[64 * E];
    int parts[64], sparts[64];
    MPI_Count cnt[64], scnt[64];
    MPI_Aint dis[64], disb[64];
    MPI_Datatype types[64];
} op;

static void fill(op *o, const world *w, int kind, int salt)
{
    memset(o, 0, sizeof *o);
    o->kind = kind, o->salt = salt;
    o->root = w->size - 1; /* the mesh's end: one MPI_PROC_NULL edge */
    int nb = w->deg > w->size ? w->deg : w->size;
    for (int i = 0; i < nb; i++)
        for (int e = 0; e < E; e++) o->sb[i * E + e] = V(w->rank, i, e, salt);
    for (int i = 0; i < 64 * E; i++) o->rb[i] = UNTOUCHED;
    for (int i = 0; i < 64; i++) {
        o->parts[i] = RP, o->cnt[i] = E / RP, o->dis[i] = (MPI_Aint)i * E;
        o->sparts[i] = SP, o->scnt[i] = E / SP;
        o->disb[i] = (MPI_Aint)i * E * (MPI_Aint)sizeof(int);
        o->types[i] = MPI_INT;
    }
}

static int make(op *o, const world *w, MPI_Info in, Cart_request *r)
{
    MPI_Comm m = w->comm;
    int *s = o->sb, *b = o->rb;
    switch (o->kind) {
    case K_BCAST: return Cart_pbcast_init(s, SP, E / SP, MPI_INT, o->root, m, in, r);
    case K_GATHER: return Cart_pgather_init(s, SP, E / SP, MPI_INT, b, RP, E / RP, MPI_INT, o->root, m, in, r);
    case K_GATHERV:
        return Cart_pgatherv_init(s, SP, E / SP, MPI_INT, b, o->parts, o->cnt, o->dis, MPI_INT, o->root, m, in, r);
    case K_SCATTER: return Cart_pscatter_init(s, SP, E / SP, MPI_INT, b, RP, E / RP, MPI_INT, o->root, m, in, r);
    case K_SCATTERV:
        return Cart_pscatterv_init(s, o->sparts, o->scnt, o->dis, MPI_INT, b, RP, E / RP, MPI_INT, o->root, m, in,
                                   r);
    case K_ALLGATHER: return Cart_pallgather_init(s, SP, E / SP, MPI_INT, b, RP, E / RP, MPI_INT, m, in, r);
    case K_ALLGATHERV:
        return Cart_pallgatherv_init(s, SP, E / SP, MPI_INT, b, o->parts, o->cnt, o->dis, MPI_INT, m, in, r);
    case K_ALLTOALL: return Cart_palltoall_init(s, SP, E / SP, MPI_INT, b, RP, E / RP, MPI_INT, m, in, r);
    case K_ALLTOALLV:
        return Cart_palltoallv_init(s, o->sparts, o->scnt, o->dis, MPI_INT, b, o->parts, o->cnt, o->dis, MPI_INT, m,
                                    in, r);
    case K_ALLTOALLW:
        return Cart_palltoallw_init(s, o->sparts, o->scnt, o->disb, o->types, b, o->parts, o->cnt, o->disb, o->types,
                                    m, in, r);
    case K_REDUCE: return Cart_preduce_init(s, b, SP, E / SP, MPI_INT, MPI_SUM, o->root, m, in, r);
    case K_ALLREDUCE: return Cart_pallreduce_init(s, b, SP, E / SP, MPI_INT, MPI_SUM, m, in, r);
    case K_RSB: return Cart_preduce_scatter_block_init(s, b, SP, E / SP, MPI_INT, MPI_SUM, m, in, r);
    case K_RS: return Cart_preduce_scatter_init(s, b, o->sparts, o->scnt, MPI_INT, MPI_SUM, m, in, r);
    case K_SCAN: return Cart_pscan_init(s, b, SP, E / SP, MPI_INT, MPI_SUM, m, in, r);
    default: return Cart_pexscan_init(s, b, SP, E / SP, MPI_INT, MPI_SUM, m, in, r);
    }
}

/* This process's send partitions (numbered over the whole send side). */
static int nsend(const op *o, const world *w)
{
    int here = w->rank == o->root;
    switch (o->kind) {
    case K_BCAST: return here ? SP : 0;
    case K_SCATTER:
    case K_SCATTERV: return here ? w->deg * SP : 0;
    case K_ALLTOALL:
    case K_ALLTOALLV:
    case K_ALLTOALLW: return w->deg * SP;
    case K_RSB:
    case K_RS: return w->size * SP;
    default: return SP;
    }
}

/* The expected result, from first principles: want[] where check[] is set
 * (bcast: in sb, the others in rb). */
static void expect(op *o, const world *w)
{
    int me = w->rank, k = o->kind, here = me == o->root, plain = w->ctx == C_PLAIN, s = o->salt;
    for (int i = 0; i < 64 * E; i++) o->check[i] = 0, o->want[i] = UNTOUCHED;
    /* (plain: every process is everybody's neighbour, block j from j) */
    switch (k) {
    case K_BCAST: {
        int gets = plain;
        for (int i = 0; !plain && i < 2; i++) gets |= nb_of(o->root, i ? -1 : 1, w->size, w->ctx == C_TORUS) == me;
        for (int e = 0; e < E; e++) o->check[e] = 1, o->want[e] = V(gets && !here ? o->root : me, 0, e, s);
        break;
    }
    case K_GATHER:
    case K_GATHERV:
        if (!here) break;
        for (int j = 0; j < w->deg; j++) {
            int q = plain ? j : w->src[j];
            for (int e = 0; e < E; e++) o->check[j * E + e] = 1, o->want[j * E + e] = q < 0 ? UNTOUCHED : V(q, 0, e, s);
        }
        break;
    case K_SCATTER:
    case K_SCATTERV: {
        int blk = plain ? me : -1; /* the root's block for me: its last edge to me */
        for (int i = 0; !plain && i < 2; i++)
            if (nb_of(o->root, i ? -1 : 1, w->size, w->ctx == C_TORUS) == me) blk = i;
        for (int e = 0; e < E; e++) o->check[e] = 1, o->want[e] = blk < 0 ? UNTOUCHED : V(o->root, blk, e, s);
        break;
    }
    case K_ALLGATHER:
    case K_ALLGATHERV:
    case K_ALLTOALL:
    case K_ALLTOALLV:
    case K_ALLTOALLW:
        for (int j = 0; j < w->deg; j++) {
            int q = plain ? j : w->src[j], blk = k >= K_ALLTOALL ? (plain ? me : j) : 0;
            for (int e = 0; e < E; e++)
                o->check[j * E + e] = 1, o->want[j * E + e] = q < 0 ? UNTOUCHED : V(q, blk, e, s);
        }
        break;
    case K_REDUCE:
    case K_ALLREDUCE:
        if (k == K_REDUCE && !here) break;
        for (int e = 0; e < E; e++) {
            int sum = 0, any = 0;
            for (int j = 0; j < w->deg; j++) {
                int q = plain ? j : w->src[j];
                if (q >= 0) sum += V(q, 0, e, s), any = 1;
            }
            o->check[e] = 1, o->want[e] = any ? sum : UNTOUCHED;
        }
        break;
    case K_RSB:
    case K_RS:
        for (int e = 0; e < E; e++) {
            int sum = 0;
            for (int q = 0; q < w->size; q++) sum += V(q, me, e, s);
            o->check[e] = 1, o->want[e] = sum;
        }
        break;
    default: /* scan, exscan (exscan: nothing defined at rank 0) */
        if (k == K_EXSCAN && me == 0) break;
        for (int e = 0; e < E; e++) {
            int sum = 0;
            for (int q = 0; q < (k == K_SCAN ? me + 1 : me); q++) sum += V(q, 0, e, s);
            o->check[e] = 1, o->want[e] = sum;
        }
    }
    if (k == broken)
        for (int i = 0; i < 64 * E; i++)
            if (o->check[i]) o->want[i] ^= 1;
}

static void verify(op *o, const world *w, const char *what)
{
    expect(o, w);
    const int *got = o->kind == K_BCAST ? o->sb : o->rb;
    int bad = 0, first = -1;
    for (int i = 0; i < 64 * E; i++)
        if (o->check[i] && got[i] != o->want[i] && !bad++) first = i;
    MT_CHECK(!bad, "%s: %d wrong elements, first [%d] = %d, expected %d", what, bad, first, first >= 0 ? got[first] : 0,
             first >= 0 ? o->want[first] : 0);
}

/* Start, mark every send partition, wait, check; salt: the run's values. */
static void run(op *o, const world *w, Cart_request *r, const char *what)
{
    int rc = Cart_start(r);
    MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_start failed: %d", what, rc);
    int n = nsend(o, w);
    if (n > 0) {
        rc = Cart_pready_range(0, n - 1, *r);
        MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_pready_range(0, %d) failed: %d", what, n - 1, rc);
    }
    rc = Cart_wait(r);
    MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_wait failed: %d", what, rc);
    verify(o, w, what);
}

static int salt_counter, verbose;

static int kind_named(const char *n)
{
    for (int k = 0; k < NKINDS; k++)
        if (!strcmp(n, kname[k])) return k;
    return -1;
}

/* One kind on a fresh communicator of kind ctx, with info i: made, run
 * (twice: a second start with new values) unless free_only, freed. */
static void life(int kind, int ctx, int i, int free_only, const char *stage)
{
    world w;
    open_world(&w, ctx);
    if (supported(kind, &w)) {
        op *o = malloc(sizeof *o);
        char what[200];
        snprintf(what, sizeof what, "%s: %s on %s (%s)%s", stage, kname[kind], cname[ctx], iname[i],
                 free_only ? ", freed unstarted" : "");
        fill(o, &w, kind, ++salt_counter % 20);
        if (verbose) printf("[%d] %s\n", mt_rank, what);
        Cart_request r = CART_REQUEST_NULL;
        int rc = make(o, &w, infos[i], &r);
        MT_CHECK(rc == MPI_SUCCESS, "%s: init failed: %d", what, rc);
        if (rc == MPI_SUCCESS && !free_only) {
            run(o, &w, &r, what);
            fill(o, &w, kind, ++salt_counter % 20); /* same addresses, new values */
            run(o, &w, &r, what);
        }
        if (r != CART_REQUEST_NULL) Cart_request_free(&r);
        free(o);
    }
    MPI_Comm_free(&w.comm);
}

int main(int argc, char **argv)
{
    int multiple = 0;
    for (int a = 1; a < argc; a++) multiple |= !strcmp(argv[a], "--multiple");
    if (multiple) { /* (mt_init's work, with MPI_Init_thread) */
        int provided = MPI_THREAD_SINGLE;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
        MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
        mt_name = "test_lifecycle";
        setvbuf(stdout, NULL, _IOLBF, 0);
        if (provided < MPI_THREAD_MULTIPLE) {
            if (mt_rank == 0) printf("test_lifecycle: MPI_THREAD_MULTIPLE not provided: skipped\n");
            MPI_Finalize();
            return 77;
        }
    } else {
        mt_init(&argc, &argv, "test_lifecycle");
    }
    int first_lo = 0, first_hi = NCTX - 1, free_only = 0, only_first = -1, only_then = -1, only_info = -1;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--break-oracle")) broken = K_SCAN;
        else if (!strcmp(argv[a], "--free-only")) free_only = 1;
        else if (!strcmp(argv[a], "--verbose")) verbose = 1;
        else if (!strcmp(argv[a], "--kind") && a + 1 < argc) only_first = kind_named(argv[++a]);
        else if (!strcmp(argv[a], "--then") && a + 1 < argc) only_then = kind_named(argv[++a]);
        else if (!strcmp(argv[a], "--info") && a + 1 < argc) only_info = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--first") && a + 1 < argc) {
            a++;
            for (int c = 0; c < NCTX; c++)
                if (!strcmp(argv[a], cname[c])) first_lo = first_hi = c;
        }
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    infos[I_NONE] = MPI_INFO_NULL;
    MPI_Info_create(&infos[I_AGG0]);
    MPI_Info_set(infos[I_AGG0], "cartcoll_part_aggregate", "0");
    MPI_Info_create(&infos[I_COMBINING]);
    MPI_Info_set(infos[I_COMBINING], "cartcoll_part_aggregate", "0");
    MPI_Info_set(infos[I_COMBINING], "cartcoll_algorithm", "combining");
    for (int c = first_lo; c <= first_hi; c++)
        for (int i = 0; i < NINFO; i++)
            for (int k = 0; k < NKINDS; k++)
                for (int mode = free_only; mode < 2; mode++) {
                    if ((c != C_PLAIN && global_only(k)) || (only_first >= 0 && k != only_first) ||
                        (only_info >= 0 && i != only_info))
                        continue;
                    /* the first request: freed unstarted (mode 1) or run and freed (mode 0) */
                    life(k, c, i, mode == 1, "first");
                    /* then every kind to completion: plain, and a neighbourhood of this one's
                     * periodicity (the info rotates, so every pair meets over the run) */
                    char stage[160];
                    snprintf(stage, sizeof stage, "after %s on %s (%s)%s", kname[k], cname[c], iname[i],
                             mode ? " freed unstarted" : " run");
                    for (int k2 = 0; k2 < NKINDS; k2++) {
                        if (only_then >= 0 && k2 != only_then) continue;
                        life(k2, C_PLAIN, (i + k2) % NINFO, 0, stage);
                        if (!global_only(k2)) life(k2, c == C_TORUS ? C_TORUS : C_MESH, (i + k2 + 1) % NINFO, 0, stage);
                    }
                }
    MPI_Info_free(&infos[I_AGG0]);
    MPI_Info_free(&infos[I_COMBINING]);
    return mt_finish();
}

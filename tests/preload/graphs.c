/* See graphs.h.  Plain MPI: nothing here knows cartcoll. */
#include "graphs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int me, np, failures;
static long seen, cartesian, calls, accelerated;

const char *const coll_name[NCOLL] = { "alltoall", "allgather", "alltoallv", "alltoallw", "allgatherv" };

static int wrap(int x, int n) { return ((x % n) + n) % n; }

/* The neighbour lists as MPI reports them (also for graphs made with
 * MPI_Dist_graph_create, where MPI orders them). */
static void neighbours(graph *g)
{
    int w;
    MPI_Topo_test(g->comm, &w);
    g->cart = w == MPI_CART;
    if (w == MPI_CART) {
        int d;
        MPI_Cartdim_get(g->comm, &d);
        g->in = g->out = 2 * d;
        for (int k = 0; k < d; k++) {
            MPI_Cart_shift(g->comm, k, 1, &g->src[2 * k], &g->src[2 * k + 1]);
            g->dst[2 * k] = g->src[2 * k];
            g->dst[2 * k + 1] = g->src[2 * k + 1];
        }
        return;
    }
    int sw[MAXN], dw[MAXN];
    MPI_Dist_graph_neighbors_count(g->comm, &g->in, &g->out, &w);
    /* the degrees, not the arrays' size: MPICH 4.0 copies maxindegree and
     * maxoutdegree entries, reading past its own arrays (valgrind) */
    MPI_Dist_graph_neighbors(g->comm, g->in, g->src, sw, g->out, g->dst, dw);
}

static int on_grid(int r, int c, const int *dims) { return r >= 0 && r < dims[0] && c >= 0 && c < dims[1]; }

/* The Moore neighbours (offsets in {-1,0,1}^2 except 0, row-major) of
 * `rank` on the row-major grid dims of a communicator, as codes compute
 * them by hand: torus (wrap) or mesh (the destinations R + N and the
 * sources R - N that are off the grid left out -- the same number, the
 * stencil being symmetric); `extra` repeats offset (0,1) at the end. */
static int moore(int rank, const int *dims, int torus, int extra, int *src, int *dst)
{
    int r = rank / dims[1], c = rank % dims[1], ns = 0, nd = 0;
    for (int a = -1; a <= 1; a++)
        for (int b = -1; b <= 1; b++) {
            if (!a && !b) continue;
            if (torus || on_grid(r + a, c + b, dims)) dst[nd++] = wrap(r + a, dims[0]) * dims[1] + wrap(c + b, dims[1]);
            if (torus || on_grid(r - a, c - b, dims)) src[ns++] = wrap(r - a, dims[0]) * dims[1] + wrap(c - b, dims[1]);
        }
    if (extra) {
        dst[nd++] = r * dims[1] + wrap(c + 1, dims[1]);
        src[ns++] = r * dims[1] + wrap(c - 1, dims[1]);
    }
    return nd;
}

static void adjacent(graph *g, MPI_Comm base, int t, const int *src, const int *dst, const char *name)
{
    g->base = base, g->made = 1, g->name = name;
    MPI_Dist_graph_create_adjacent(base, t, src, MPI_UNWEIGHTED, t, dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g->comm);
}

static MPI_Comm sub; /* MPI_Comm_split of the world */

int make_graphs(graph *g)
{
    int dims[2] = { 0, 0 }, periods[2] = { 1, 1 }, src[MAXN], dst[MAXN], n = 0;
    memset(g, 0, sizeof *g * MAXG);
    MPI_Dims_create(np, 2, dims);
    int t = moore(me, dims, 1, 0, src, dst);
    adjacent(&g[n++], MPI_COMM_WORLD, t, src, dst, "the Moore stencil graph");
    g[n - 1].stencil = 1;
    /* the same stencil, sources and destinations in a per-process order */
    int s2[MAXN], d2[MAXN];
    for (int i = 0; i < t; i++) s2[i] = src[(i * 3 + me) % t], d2[i] = dst[(i * 5 + 2 * me) % t];
    adjacent(&g[n++], MPI_COMM_WORLD, t, s2, d2, "the shuffled stencil graph");
    g[n - 1].stencil = 1;
    /* not a stencil (from 2 processes on): u -> u+1 (mod p) and u -> 0 */
    int ns = 0, nsrc[MAXN], ndst[2] = { (me + 1) % np, 0 };
    for (int u = 0; u < np; u++) {
        if ((u + 1) % np == me) nsrc[ns++] = u;
        if (me == 0) nsrc[ns++] = u;
    }
    g[n].base = MPI_COMM_WORLD, g[n].made = 1, g[n].name = "the non-stencil graph", g[n].stencil = np == 1;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, ns, nsrc, MPI_UNWEIGHTED, 2, ndst, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                   0, &g[n++].comm);
    /* MPI_Cart_create: periodic dimensions of size 1 and 2 on 1, 2, 4 processes */
    g[n].base = MPI_COMM_WORLD, g[n].made = 1, g[n].name = "an MPI_Cart_create torus", g[n].stencil = 1;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &g[n++].comm);
    g[n] = g[0];
    g[n].made = 0, g[n].name = "a duplicate of the stencil graph";
    MPI_Comm_dup(g[0].comm, &g[n++].comm);
    /* a mesh: border processes list fewer neighbours */
    t = moore(me, dims, 0, 0, src, dst);
    adjacent(&g[n++], MPI_COMM_WORLD, t, src, dst, "the Moore mesh graph");
    g[n - 1].stencil = 1;
    /* a repeated edge */
    t = moore(me, dims, 1, 1, src, dst);
    adjacent(&g[n++], MPI_COMM_WORLD, t, src, dst, "the stencil graph with a repeated edge");
    g[n - 1].stencil = 1;
    /* MPI_Dist_graph_create, each process giving its own out-edges, weighted */
    int w[MAXN];
    t = moore(me, dims, 1, 0, src, dst);
    for (int i = 0; i < t; i++) w[i] = 1 + i % 2;
    g[n].base = MPI_COMM_WORLD, g[n].made = 1, g[n].name = "a weighted MPI_Dist_graph_create stencil";
    g[n].stencil = 1;
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &me, &t, dst, w, MPI_INFO_NULL, 0, &g[n++].comm);
    /* a stencil graph on the ranks of an MPI_Comm_split communicator */
    int sme, sp, sdims[2] = { 0, 0 };
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &sub);
    MPI_Comm_rank(sub, &sme);
    MPI_Comm_size(sub, &sp);
    MPI_Dims_create(sp, 2, sdims);
    t = moore(sme, sdims, 1, 0, src, dst);
    adjacent(&g[n++], sub, t, src, dst, "a stencil graph on MPI_Comm_split's communicator");
    g[n - 1].stencil = 1;
    /* a 3-D MPI_Cart_create, periodic but for one dimension */
    int d3[3] = { 0, 0, 0 }, p3[3] = { 1, 0, 1 };
    MPI_Dims_create(np, 3, d3);
    g[n].base = MPI_COMM_WORLD, g[n].made = 1, g[n].name = "a 3-D MPI_Cart_create, one dimension a mesh";
    g[n].stencil = 1;
    MPI_Cart_create(MPI_COMM_WORLD, 3, d3, p3, 0, &g[n++].comm);
    for (int k = 0; k < n; k++) {
        neighbours(&g[k]);
        seen += g[k].made;
        cartesian += g[k].made && g[k].stencil;
    }
    return n;
}

void free_graphs(graph *g, int n)
{
    for (int k = 0; k < n; k++) MPI_Comm_free(&g[k].comm);
    MPI_Comm_free(&sub);
}

void oracle(const graph *g, int *const *sblk, const int *scnt, int **rblk, const int *rcnt)
{
    MPI_Request rq[2 * MAXN];
    int n = 0;
    for (int j = 0; j < g->in; j++)
        if (g->src[j] != MPI_PROC_NULL)
            MPI_Irecv(rblk[j], rcnt[j], MPI_INT, g->src[j], g->cart ? 100 + (j ^ 1) : 77, g->base, &rq[n++]);
    for (int i = 0; i < g->out; i++)
        if (g->dst[i] != MPI_PROC_NULL)
            MPI_Isend(sblk[i], scnt[i], MPI_INT, g->dst[i], g->cart ? 100 + i : 77, g->base, &rq[n++]);
    MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
}

/* Threads of neighbor_nb --threads check at once. */
static pthread_mutex_t check_lock = PTHREAD_MUTEX_INITIALIZER;

void check(const char *what, const graph *g, const int *got, const int *want, int n)
{
    for (int e = 0; e < n; e++)
        if (got[e] != want[e]) {
            pthread_mutex_lock(&check_lock);
            fprintf(stderr, "preload test: rank %d: %s on %s: int %d is %d, expected %d\n", me, what, g->name, e,
                    got[e], want[e]);
            failures++;
            pthread_mutex_unlock(&check_lock);
            return;
        }
}

void count_call(const graph *g)
{
    calls++;
    accelerated += g->stencil;
}

static int count_of(int u, int v) { return 1 + (u * 7 + v * 3) % 3; } /* edge u->v, ragged */
static int value(int u, int i, int e, int salt) { return 1000000 * (salt + 1) + 1000 * (u + 1) + 30 * i + e; }

void make_blocks(const graph *g, blocks *b, int salt)
{
    int *sb[MAXN], *rb[MAXN], cnt[MAXN], rc[MAXN], bme;
    MPI_Comm_rank(g->base, &bme); /* the graph's ranks are the base's */
    for (int i = 0; i < MAXN; i++) b->ty[i] = MPI_INT;
    memset(b->want, 0xff, sizeof b->want);
    /* alltoall: M ints per block; allgather: block 0 to everyone */
    for (int i = 0; i < g->out; i++) {
        cnt[i] = M;
        sb[i] = b->sdata[C_ALLTOALL] + i * M;
        for (int e = 0; e < M; e++) sb[i][e] = value(me, i, e, salt);
    }
    for (int e = 0; e < M; e++) b->sdata[C_ALLGATHER][e] = value(me, 99, e, salt);
    for (int j = 0; j < g->in; j++) rc[j] = M, rb[j] = b->want[C_ALLTOALL] + j * M;
    oracle(g, sb, cnt, rb, rc);
    for (int i = 0; i < g->out; i++) sb[i] = b->sdata[C_ALLGATHER];
    for (int j = 0; j < g->in; j++) rb[j] = b->want[C_ALLGATHER] + j * M;
    oracle(g, sb, cnt, rb, rc);
    /* v and w: counts per edge, blocks packed in reverse order */
    int at = 0;
    for (int i = g->out - 1; i >= 0; i--) {
        b->scnt[i] = g->dst[i] == MPI_PROC_NULL ? 0 : count_of(bme, g->dst[i]);
        b->sdis[i] = at, b->sdw[i] = (MPI_Aint)at * (MPI_Aint)sizeof(int), sb[i] = b->sdata[C_ALLTOALLV] + at;
        for (int e = 0; e < b->scnt[i]; e++) sb[i][e] = value(me, i, e + 7, salt);
        at += b->scnt[i];
    }
    memcpy(b->sdata[C_ALLTOALLW], b->sdata[C_ALLTOALLV], sizeof b->sdata[0]);
    at = 0;
    for (int j = g->in - 1; j >= 0; j--) {
        b->rcnt[j] = g->src[j] == MPI_PROC_NULL ? 0 : count_of(g->src[j], bme);
        b->rdis[j] = at, b->rdw[j] = (MPI_Aint)at * (MPI_Aint)sizeof(int), rb[j] = b->want[C_ALLTOALLV] + at;
        at += b->rcnt[j];
    }
    b->vtotal = at;
    oracle(g, sb, b->scnt, rb, b->rcnt);
    memcpy(b->want[C_ALLTOALLW], b->want[C_ALLTOALLV], sizeof b->want[0]);
    /* allgatherv: the send count differs from process to process */
    b->agcount = 1 + bme % 3;
    for (int e = 0; e < b->agcount; e++) b->sdata[C_ALLGATHERV][e] = value(me, 98, e, salt);
    at = 0;
    for (int j = g->in - 1; j >= 0; j--) {
        b->gcnt[j] = g->src[j] == MPI_PROC_NULL ? 0 : 1 + g->src[j] % 3;
        b->gdis[j] = at, rb[j] = b->want[C_ALLGATHERV] + at;
        at += b->gcnt[j];
    }
    for (int i = 0; i < g->out; i++) sb[i] = b->sdata[C_ALLGATHERV], cnt[i] = b->agcount;
    oracle(g, sb, cnt, rb, b->gcnt);
}

void clear_blocks(blocks *b) { memset(b->rdata, 0xff, sizeof b->rdata); }

void check_blocks(const char *how, const graph *g, const blocks *b)
{
    char what[128];
    int n[NCOLL] = { g->in * M, g->in * M, b->vtotal, b->vtotal, MAXN * M };
    for (int c = 0; c < NCOLL; c++) {
        snprintf(what, sizeof what, "%s %s", how, coll_name[c]);
        check(what, g, b->rdata[c], b->want[c], n[c]);
    }
}

void print_expected(const char *prog)
{
    long v[4] = { seen, cartesian, calls, accelerated }, s[4];
    MPI_Reduce(v, s, 4, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("%s: expect cartcoll_preload: communicators %ld seen, %ld Cartesian; calls %ld, %ld accelerated\n",
               prog, s[0], s[1], s[2], s[3]);
}

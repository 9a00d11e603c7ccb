/* An unmodified MPI program (it includes only mpi.h) that uses the MPI
 * neighbourhood collectives the way stencil codes do, for the PMPI drop-in
 * test (run.sh runs it with and without LD_PRELOAD=libcartcoll_preload.so).
 *
 * Communicators: a distributed graph built by hand on MPI_COMM_WORLD (row-
 * major ranks from MPI_Dims_create, the 8 Moore neighbours of a 2-D torus,
 * sources R - N[i] and destinations R + N[i]), the same with the neighbour
 * order shuffled per process, a graph that is not a stencil, an
 * MPI_Cart_create torus, and a duplicate of the first graph.  (With one
 * process every graph is a stencil, the non-stencil one included.)  Calls: the
 * five blocking MPI_Neighbor_* collectives, v/w with counts that differ from
 * edge to edge.  Oracle: the same blocks sent with MPI_Isend/MPI_Irecv in
 * list order, which is the standard's definition (the k-th edge u->v meets
 * the k-th occurrence of u among v's sources). */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M = 3, MAXN = 64 };
static int me, p, failures;

typedef struct {
    MPI_Comm comm;
    int in, out, src[MAXN], dst[MAXN];
    int cart; /* MPI_Cart_create: matched by direction */
    const char *name;
} graph;

static int count_of(int u, int v) { return 1 + (u * 7 + v * 3) % 3; } /* edge u->v, ragged */
static int value(int u, int i, int e) { return 100000 * (u + 1) + 100 * i + e; }

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
    MPI_Dist_graph_neighbors_count(g->comm, &g->in, &g->out, &w);
    MPI_Dist_graph_neighbors(g->comm, g->in, g->src, MPI_UNWEIGHTED, g->out, g->dst, MPI_UNWEIGHTED);
}

/* The oracle: block i of this process to dst[i], block j from src[j].  On
 * graphs the k-th message from u to v meets the k-th occurrence of u among
 * v's sources: one tag, posted in list order.  On Cartesian communicators
 * the standard says by direction: receive block 2k (from the -1 neighbour)
 * is what that neighbour sent towards +1 (its block 2k+1), which differs
 * from list order where a periodic dimension has size 1 or 2. */
static void oracle(const graph *g, int *const *sblk, const int *scnt, int **rblk, const int *rcnt)
{
    MPI_Request rq[2 * MAXN];
    int n = 0;
    for (int j = 0; j < g->in; j++)
        if (g->src[j] != MPI_PROC_NULL)
            MPI_Irecv(rblk[j], rcnt[j], MPI_INT, g->src[j], g->cart ? 100 + (j ^ 1) : 77, MPI_COMM_WORLD, &rq[n++]);
    for (int i = 0; i < g->out; i++)
        if (g->dst[i] != MPI_PROC_NULL)
            MPI_Isend(sblk[i], scnt[i], MPI_INT, g->dst[i], g->cart ? 100 + i : 77, MPI_COMM_WORLD, &rq[n++]);
    MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
}

static void check(const char *what, const graph *g, const int *got, const int *want, int n)
{
    for (int e = 0; e < n; e++)
        if (got[e] != want[e]) {
            fprintf(stderr, "neighbor_prog: rank %d: %s on %s: int %d is %d, expected %d\n", me, what, g->name, e,
                    got[e], want[e]);
            failures++;
            return;
        }
}

/* Ranks in g->comm equal ranks in MPI_COMM_WORLD here (reorder 0). */
static void run(const graph *g)
{
    int sdata[MAXN * M], rdata[MAXN * M], want[MAXN * M], scnt[MAXN], rcnt[MAXN], sdis[MAXN], rdis[MAXN];
    MPI_Aint sdw[MAXN], rdw[MAXN];
    MPI_Datatype ty[MAXN];
    int *sb[MAXN], *rb[MAXN];
    for (int i = 0; i < MAXN; i++) ty[i] = MPI_INT;
    /* alltoall / allgather: M ints per block */
    for (int i = 0; i < g->out; i++) {
        scnt[i] = M;
        sb[i] = sdata + i * M;
        for (int e = 0; e < M; e++) sb[i][e] = value(me, i, e);
    }
    for (int j = 0; j < g->in; j++) rcnt[j] = M, rb[j] = want + j * M;
    memset(want, 0xff, sizeof want);
    memset(rdata, 0xff, sizeof rdata);
    oracle(g, sb, scnt, rb, rcnt);
    MPI_Neighbor_alltoall(sdata, M, MPI_INT, rdata, M, MPI_INT, g->comm);
    check("MPI_Neighbor_alltoall", g, rdata, want, g->in * M);
    for (int i = 0; i < g->out; i++) sb[i] = sdata; /* allgather: block 0 to everyone */
    memset(want, 0xff, sizeof want);
    memset(rdata, 0xff, sizeof rdata);
    oracle(g, sb, scnt, rb, rcnt);
    MPI_Neighbor_allgather(sdata, M, MPI_INT, rdata, M, MPI_INT, g->comm);
    check("MPI_Neighbor_allgather", g, rdata, want, g->in * M);
    /* v and w: counts per edge, blocks packed in reverse order */
    int at = 0;
    for (int i = g->out - 1; i >= 0; i--) {
        scnt[i] = g->dst[i] == MPI_PROC_NULL ? 0 : count_of(me, g->dst[i]);
        sdis[i] = at, sdw[i] = (MPI_Aint)at * (MPI_Aint)sizeof(int), sb[i] = sdata + at;
        for (int e = 0; e < scnt[i]; e++) sb[i][e] = value(me, i, e + 7);
        at += scnt[i];
    }
    at = 0;
    for (int j = g->in - 1; j >= 0; j--) {
        rcnt[j] = g->src[j] == MPI_PROC_NULL ? 0 : count_of(g->src[j], me);
        rdis[j] = at, rdw[j] = (MPI_Aint)at * (MPI_Aint)sizeof(int), rb[j] = want + at;
        at += rcnt[j];
    }
    memset(want, 0xff, sizeof want);
    oracle(g, sb, scnt, rb, rcnt);
    memset(rdata, 0xff, sizeof rdata);
    MPI_Neighbor_alltoallv(sdata, scnt, sdis, MPI_INT, rdata, rcnt, rdis, MPI_INT, g->comm);
    check("MPI_Neighbor_alltoallv", g, rdata, want, at);
    memset(rdata, 0xff, sizeof rdata);
    MPI_Neighbor_alltoallw(sdata, scnt, sdw, ty, rdata, rcnt, rdw, ty, g->comm);
    check("MPI_Neighbor_alltoallw", g, rdata, want, at);
    /* allgatherv: one block of M ints from each source */
    for (int i = 0; i < g->out; i++) scnt[i] = M, sb[i] = sdata;
    for (int j = 0; j < g->in; j++) rcnt[j] = M, rdis[j] = (g->in - 1 - j) * M, rb[j] = want + rdis[j];
    memset(want, 0xff, sizeof want);
    oracle(g, sb, scnt, rb, rcnt);
    memset(rdata, 0xff, sizeof rdata);
    MPI_Neighbor_allgatherv(sdata, M, MPI_INT, rdata, rcnt, rdis, MPI_INT, g->comm);
    check("MPI_Neighbor_allgatherv", g, rdata, want, g->in * M);
}

static int wrap(int x, int n) { return ((x % n) + n) % n; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int dims[2] = { 0, 0 }, periods[2] = { 1, 1 }, src[8], dst[8], t = 0;
    MPI_Dims_create(p, 2, dims);
    int r = me / dims[1], c = me % dims[1];
    for (int a = -1; a <= 1; a++)
        for (int b = -1; b <= 1; b++) {
            if (!a && !b) continue;
            src[t] = wrap(r - a, dims[0]) * dims[1] + wrap(c - b, dims[1]);
            dst[t] = wrap(r + a, dims[0]) * dims[1] + wrap(c + b, dims[1]);
            t++;
        }
    graph g[5];
    memset(g, 0, sizeof g);
    g[0].name = "the Moore stencil graph";
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, t, src, MPI_UNWEIGHTED, t, dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                   &g[0].comm);
    /* the same stencil, sources and destinations in a per-process order */
    int s2[8], d2[8];
    for (int i = 0; i < t; i++) s2[i] = src[(i * 3 + me) % t], d2[i] = dst[(i * 5 + 2 * me) % t];
    g[1].name = "the shuffled stencil graph";
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, t, s2, MPI_UNWEIGHTED, t, d2, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                   &g[1].comm);
    /* not a stencil (from 2 processes on): u -> u+1 (mod p) and u -> 0 */
    int ns = 0, nsrc[MAXN], ndst[2] = { (me + 1) % p, 0 };
    for (int u = 0; u < p; u++) {
        if ((u + 1) % p == me) nsrc[ns++] = u;
        if (me == 0) nsrc[ns++] = u;
    }
    g[2].name = "the non-stencil graph";
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, ns, nsrc, MPI_UNWEIGHTED, 2, ndst, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                   0, &g[2].comm);
    g[3].name = "an MPI_Cart_create torus";
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &g[3].comm);
    g[4].name = "a duplicate of the stencil graph";
    MPI_Comm_dup(g[0].comm, &g[4].comm);
    for (int k = 0; k < 5; k++) {
        neighbours(&g[k]);
        for (int rep = 0; rep < 2; rep++) run(&g[k]);
    }
    for (int k = 0; k < 5; k++) MPI_Comm_free(&g[k].comm);
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) printf("neighbor_prog: %s (%d processes, %d mismatches)\n", total ? "FAIL" : "PASS", p, total);
    MPI_Finalize();
    return total != 0;
}

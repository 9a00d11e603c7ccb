/* [ortho] The six [core] collectives on graph communicators made by plain
 * MPI: the MPI standard's neighbourhood meaning (API.md, "One interface
 * set", the distributed-graph row).
 *
 * With in-neighbours S[0..indeg) and out-neighbours D[0..outdeg) as
 * MPI_Dist_graph_neighbors (MPI_Graph_neighbors) returns them, alltoall
 * sends send block i to D[i] and receive block j comes from S[j]; allgather
 * sends its one block to every D[i].  Repeated edges: the k-th edge u->v in
 * u's destination order meets the k-th occurrence of u in v's sources.
 *
 * Oracle, from first principles (never MPI_Neighbor_*: MPICH 4.0 gets
 * repeated edges wrong): every process generates the whole graph from the
 * seed, creates the communicator with plain MPI, then gathers every
 * process's neighbour lists as the new communicator reports them (so
 * reorder = 1 and MPI_Dist_graph_create, whose neighbour order MPI chooses,
 * are judged in the new ranks and orders) and checks them against the
 * generated graph.  The receiver of block j (from u = S[j], the k-th u in
 * S) expects content(u, i, round, element) where i is the index of u's k-th
 * edge to it in u's destinations.  Buffers are compared int by int:
 * receive blocks, the gaps between them and around them (sentinels), and
 * the send buffer (unchanged).
 *
 * Covered: MPI_Dist_graph_create_adjacent (unweighted, weighted, reorder 0
 * and 1), MPI_Dist_graph_create with every edge given by a process other
 * than its source (sources repeated in runs, weighted or not, reorder 0/1),
 * MPI_Graph_create (symmetric multigraphs, some processes outside the
 * graph); comm_old MPI_COMM_WORLD's dup or with the ranks reversed.  Random
 * graphs with indegree != outdegree, processes without in- or
 * out-neighbours, empty graphs, self-loops, the same edge up to 3 times
 * interleaved with others, sources shuffled independently of the senders'
 * destination orders.  Block sizes 0, 1, 4 elements (x1 or x2 ints), per
 * edge (u, v, k) for the v/w variants; MPI_INT, strided vectors
 * (vector(2,1,3,int), vector(4,1,2,int)), send and receive types differing
 * with equal signatures, one type per block in the w variants; NULL
 * buffers where a side is empty.  Forms: blocking, Cart_iX + Cart_wait or a
 * Cart_test loop, Cart_X_init (info cycling algorithm/executor, ignored on
 * graphs) + 3 x Cart_start (sometimes 10, past auto-tuning) with new
 * contents + Cart_request_free, and the six non-blocking calls outstanding
 * at once beside an active persistent one, completed in a rank-dependent
 * order (Cart_wait each, or Cart_waitall).  The graph's first Cart_ call is
 * blocking, non-blocking or *_init in turn.  Argument arrays are
 * overwritten and derived datatypes freed right after the non-blocking and
 * *_init calls.  One communicator serves ~45 operations; MPI_Comm_dup of it
 * after the calls is used again, with the original still in use or freed
 * (a persistent request made on it then still runs).  Cart_neighbor_count,
 * Cart_neighbor_get and Cart_schedule_stats return MPI_ERR_TOPOLOGY on
 * graphs and duplicates (MPI_ERRORS_RETURN), outputs untouched, before and
 * after collectives, which keep working.  Run under
 * CARTCOLL_ALGORITHM=combining too (ignored on graphs).  Rank 0 prints how
 * many graphs had each feature.
 *
 * MPI defect worked around: Open MPI 4.1's MPI_Dist_graph_create with
 * reorder = 1 on a comm_old whose ranks differ from MPI_COMM_WORLD's
 * numbers the new communicator like MPI_COMM_WORLD but reports the
 * neighbours in comm_old's ranks (an inconsistent graph); there comm_old
 * keeps MPI_COMM_WORLD's order.  Any inconsistency MPI reports fails the
 * case before a collective runs.
 *
 * Options: --seed S, --first C, --cases N, --verbose, --maxmult M (up to M
 * edges between one ordered pair, degrees up to M x processes; default 3),
 * --break-oracle (match the LAST occurrence of a repeated edge instead of
 * the k-th: the run passes only if the test then finds mismatches). */
#include "graphcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int opt_first = 0, opt_cases = 24; /* opt_seed, opt_verbose, opt_break: graphcheck.c */
static int opt_maxmult = 3; /* the most edges between one ordered pair */

static int edge_weight(int u, int v, int k) { return (u * 7 + v * 3 + k * 5) % 11; }

/* ---- graphs ------------------------------------------------------------------ */

typedef struct {
    int p, cap;
    int *nout, *nin;
    int **dst, **src;
} graph_t;

static void graph_init(graph_t *g, int p)
{
    g->p = p;
    g->cap = opt_maxmult * p + 4;
    g->nout = calloc((size_t)p, sizeof(int));
    g->nin = calloc((size_t)p, sizeof(int));
    g->dst = calloc((size_t)p, sizeof(int *));
    g->src = calloc((size_t)p, sizeof(int *));
    for (int u = 0; u < p; u++) {
        g->dst[u] = calloc((size_t)g->cap, sizeof(int));
        g->src[u] = calloc((size_t)g->cap, sizeof(int));
    }
}

static void graph_free(graph_t *g)
{
    for (int u = 0; u < g->p; u++) {
        free(g->dst[u]);
        free(g->src[u]);
    }
    free(g->nout);
    free(g->nin);
    free(g->dst);
    free(g->src);
}

enum { SHAPE_RANDOM, SHAPE_DENSE, SHAPE_EMPTY };
static const char *const shape_name[3] = { "random", "dense", "empty" };

/* Sources of every process from the destinations, then put in an order of
 * their own (shuffled, or reversed): the k-th u in v's list stays u's k-th
 * edge to v whatever the order, as occurrences of u are alike. */
static void derive_sources(mt_rng *r, graph_t *g)
{
    for (int v = 0; v < g->p; v++) {
        g->nin[v] = 0;
        for (int u = 0; u < g->p; u++)
            for (int i = 0; i < g->nout[u]; i++)
                if (g->dst[u][i] == v) g->src[v][g->nin[v]++] = u;
        if (mt_chance(r, 80)) {
            shuffle(r, g->src[v], g->nin[v]);
        } else {
            for (int a = 0, b = g->nin[v] - 1; a < b; a++, b--) {
                int t = g->src[v][a];
                g->src[v][a] = g->src[v][b];
                g->src[v][b] = t;
            }
        }
    }
}

/* A directed multigraph: self-loops, edges up to 3 times, some process
 * without out-edges, some without in-edges. */
static void gen_digraph(mt_rng *r, graph_t *g, int shape)
{
    int p = g->p, maxdeg = opt_maxmult > 3 ? opt_maxmult * p : 3 * p < 2 * p + 3 ? 3 * p : 2 * p + 3;
    for (int u = 0; u < p; u++) {
        g->nout[u] = 0;
        if (shape == SHAPE_EMPTY) continue;
        int want = shape == SHAPE_DENSE ? maxdeg : mt_uniform(r, 0, maxdeg);
        int rep = shape == SHAPE_DENSE ? 70 : 35;
        for (int guard = 0; g->nout[u] < want && guard < 200; guard++) {
            int v = mt_chance(r, 15) ? u : mt_uniform(r, 0, p - 1);
            int m = mt_chance(r, rep) ? mt_uniform(r, 2, opt_maxmult) : 1;
            int have = occurrences(g->dst[u], g->nout[u], v);
            for (; m > 0 && have < opt_maxmult && g->nout[u] < want; m--, have++) g->dst[u][g->nout[u]++] = v;
        }
        if (mt_chance(r, 80)) shuffle(r, g->dst[u], g->nout[u]); /* repeats interleaved with other edges */
    }
    if (shape != SHAPE_EMPTY && p >= 2 && mt_chance(r, 35)) g->nout[mt_uniform(r, 0, p - 1)] = 0;
    if (shape != SHAPE_EMPTY && p >= 2 && mt_chance(r, 35)) {
        int y = mt_uniform(r, 0, p - 1);
        for (int u = 0; u < p; u++) {
            int n = 0;
            for (int i = 0; i < g->nout[u]; i++)
                if (g->dst[u][i] != y) g->dst[u][n++] = g->dst[u][i];
            g->nout[u] = n;
        }
    }
    derive_sources(r, g);
}

/* A symmetric multigraph for MPI_Graph_create (neighbourhood collectives
 * need v to list u as often as u lists v); sources = destinations. */
static void gen_symmetric(mt_rng *r, graph_t *g)
{
    int p = g->p;
    for (int u = 0; u < p; u++) g->nout[u] = 0;
    int isolated = p >= 2 && mt_chance(r, 30) ? mt_uniform(r, 0, p - 1) : -1;
    for (int u = 0; u < p; u++)
        for (int v = u; v < p; v++) {
            if (u == isolated || v == isolated || !mt_chance(r, u == v ? 35 : 55)) continue;
            int m = mt_chance(r, 40) ? mt_uniform(r, 2, opt_maxmult) : 1;
            for (int k = 0; k < m; k++) {
                g->dst[u][g->nout[u]++] = v;
                if (u != v) g->dst[v][g->nout[v]++] = u;
            }
        }
    for (int u = 0; u < p; u++) {
        if (mt_chance(r, 85)) shuffle(r, g->dst[u], g->nout[u]);
        g->nin[u] = g->nout[u];
        memcpy(g->src[u], g->dst[u], sizeof(int) * (size_t)g->nout[u]);
    }
}

/* ---- creating the communicator ------------------------------------------------ */

enum { M_ADJACENT, M_CREATE, M_GRAPH, NMETHODS };
static const char *const method_name[NMETHODS] = { "MPI_Dist_graph_create_adjacent", "MPI_Dist_graph_create",
                                                   "MPI_Graph_create" };

static MPI_Comm create_graph(int method, int weighted, int reorder, const graph_t *g, MPI_Comm old, mt_rng *lr)
{
    int me, p;
    MPI_Comm_rank(old, &me);
    MPI_Comm_size(old, &p);
    MPI_Comm out = MPI_COMM_NULL;
    int total = 0;
    for (int u = 0; u < g->p; u++) total += g->nout[u];
    int *a = calloc((size_t)(4 * total + 3 * g->p + 4), sizeof(int));
    if (method == M_ADJACENT) {
        int *sw = a, *dw = a + g->nin[me];
        for (int j = 0; j < g->nin[me]; j++)
            sw[j] = edge_weight(g->src[me][j], me, occurrences(g->src[me], j, g->src[me][j]));
        for (int i = 0; i < g->nout[me]; i++)
            dw[i] = edge_weight(me, g->dst[me][i], occurrences(g->dst[me], i, g->dst[me][i]));
        MPI_Dist_graph_create_adjacent(old, g->nin[me], g->src[me], weighted ? sw : MPI_UNWEIGHTED, g->nout[me],
                                       g->dst[me], weighted ? dw : MPI_UNWEIGHTED, MPI_INFO_NULL, reorder, &out);
    } else if (method == M_CREATE) {
        /* Every edge is given by a process other than its source (p >= 2),
         * in runs: a source may appear several times. */
        int *sources = a, *degrees = a + total + 1, *dests = a + 2 * total + 2, *w = a + 3 * total + 3;
        int *order = a + 4 * total + 4, n = 0, nd = 0;
        for (int u = 0; u < g->p; u++) order[u] = u;
        shuffle(lr, order, g->p);
        for (int x = 0; x < g->p; x++) {
            int u = order[x];
            for (int i = 0; i < g->nout[u]; i++) {
                int spec = p > 1 ? (u + 1 + (int)(hsh(0x5EC, u, i, g->nout[u]) % (uint64_t)(p - 1))) % p : 0;
                if (spec != me) continue;
                if (n == 0 || sources[n - 1] != u || mt_chance(lr, 30)) {
                    sources[n] = u;
                    degrees[n++] = 0;
                }
                degrees[n - 1]++;
                w[nd] = edge_weight(u, g->dst[u][i], occurrences(g->dst[u], i, g->dst[u][i]));
                dests[nd++] = g->dst[u][i];
            }
        }
        MPI_Dist_graph_create(old, n, sources, degrees, dests, weighted ? w : MPI_UNWEIGHTED, MPI_INFO_NULL,
                              reorder, &out);
    } else {
        int *index = a, *edges = a + g->p + 1, ne = 0;
        for (int u = 0; u < g->p; u++) {
            for (int i = 0; i < g->nout[u]; i++) edges[ne++] = g->dst[u][i];
            index[u] = ne;
        }
        MPI_Graph_create(old, g->p, index, edges, reorder, &out);
    }
    free(a);
    return out;
}

/* What the graphs of this run contained (rank 0 counts, from the views). */
enum { COV_SELF, COV_REPEAT, COV_NOIN, COV_NOOUT, COV_ASYM, COV_EMPTY, COV_REORDERED, NCOV };
static const char *const cov_name[NCOV] = { "self-loops", "repeated edges", "a process without in-neighbours",
                                            "a process without out-neighbours", "indegree != outdegree",
                                            "no edges", "ranks changed by reorder" };
static int coverage[NCOV], cases_run;

static void tally(const view_t *w)
{
    int has[NCOV] = { 0 }, edges = 0;
    for (int u = 0; u < w->p; u++) {
        edges += w->nout[u];
        has[COV_NOIN] |= w->nin[u] == 0;
        has[COV_NOOUT] |= w->nout[u] == 0;
        has[COV_ASYM] |= w->nin[u] != w->nout[u];
        has[COV_REORDERED] |= w->old[u] != u;
        for (int i = 0; i < w->nout[u]; i++) {
            has[COV_SELF] |= w->D[u][i] == u;
            has[COV_REPEAT] |= occurrences(w->D[u], i, w->D[u][i]) > 0;
        }
    }
    has[COV_EMPTY] = edges == 0;
    for (int k = 0; k < NCOV; k++) coverage[k] += has[k];
    cases_run++;
}

/* The six non-blocking calls outstanding together, completed in an order of
 * this process's own (Cart_wait each, or one Cart_waitall). */
static void run_concurrent(MPI_Comm g, const view_t *w, uint64_t gsalt, mt_rng *lr)
{
    gcall c[NCOLL], pc;
    scratch s[NCOLL];
    Cart_request rq[NCOLL], prq = CART_REQUEST_NULL;
    int round[NCOLL], ok[NCOLL], order[NCOLL];
    /* a persistent alltoallw, started before the others and completed last */
    call_build(&pc, C_ALLTOALLW, w, gsalt + 99);
    int pok = check_rc(mt_collective(2, C_ALLTOALLW, &pc.mc, g, MPI_INFO_NULL, &prq), "Cart_alltoallw_init");
    int pround = callno++ % 16;
    call_fill(&pc, w->me, pround);
    if (pok) pok = check_rc(Cart_start(&prq), "Cart_start");
    for (int k = 0; k < NCOLL; k++) {
        call_build(&c[k], k, w, gsalt + (uint64_t)k);
        round[k] = callno++ % 16;
        call_fill(&c[k], w->me, round[k]);
        scratch_make(&s[k], &c[k]);
        rq[k] = CART_REQUEST_NULL;
        ok[k] = check_rc(mt_collective(1, k, &s[k].mc, g, MPI_INFO_NULL, &rq[k]), coll_name[k]);
        scratch_scribble(&s[k]);
        order[k] = k;
    }
    shuffle(lr, order, NCOLL);
    if (gsalt & 2) {
        if (check_rc(Cart_waitall(NCOLL, rq), "Cart_waitall of six non-blocking collectives"))
            for (int k = 0; k < NCOLL; k++) {
                MT_CHECK(rq[k] == CART_REQUEST_NULL, "Cart_waitall left request %d set", k);
                if (ok[k]) call_check(&c[k], F_CONCURRENT, round[k]);
            }
    } else {
        for (int x = 0; x < NCOLL; x++) {
            int k = order[x];
            if (ok[k] && complete(&rq[k], 0, coll_name[k])) call_check(&c[k], F_CONCURRENT, round[k]);
        }
    }
    if (pok && check_rc(Cart_wait(&prq), "Cart_wait of the persistent request")) {
        call_check(&pc, F_CONCURRENT, pround);
        check_rc(Cart_request_free(&prq), "Cart_request_free");
    }
    call_free(&pc);
    for (int k = 0; k < NCOLL; k++) {
        scratch_free(&s[k]);
        call_free(&c[k]);
    }
}

/* Cart_neighbor_count and Cart_schedule_stats on a graph: MPI_ERR_TOPOLOGY
 * (the communicator's handler is MPI_ERRORS_RETURN), outputs untouched. */
static void topo_checks(MPI_Comm g, const char *when)
{
    int t = -77, ph = -77, ro = -77, vo = -77, cls = -1;
    int rc = Cart_neighbor_count(g, &t);
    MPI_Error_class(rc, &cls);
    mt_checks++;
    if (rc == MPI_SUCCESS || cls != MPI_ERR_TOPOLOGY || t != -77)
        failure("Cart_neighbor_count on a graph %s: returned %d (class %d, expected MPI_ERR_TOPOLOGY = %d), t = %d "
                "(expected untouched -77)",
                when, rc, rc == MPI_SUCCESS ? MPI_SUCCESS : cls, MPI_ERR_TOPOLOGY, t);
    int srcs[2] = { -77, -77 }, dsts[2] = { -77, -77 }, sw[2], dw[2];
    rc = Cart_neighbor_get(g, 2, srcs, sw, 2, dsts, dw);
    cls = -1;
    MPI_Error_class(rc, &cls);
    mt_checks++;
    if (rc == MPI_SUCCESS || cls != MPI_ERR_TOPOLOGY || srcs[0] != -77 || dsts[0] != -77)
        failure("Cart_neighbor_get on a graph %s: returned %d (class %d, expected MPI_ERR_TOPOLOGY = %d), outputs %d %d "
                "(expected untouched -77)",
                when, rc, rc == MPI_SUCCESS ? MPI_SUCCESS : cls, MPI_ERR_TOPOLOGY, srcs[0], dsts[0]);
    const int colls[2] = { CART_ALLTOALL, CART_ALLGATHER }, algs[2] = { CART_ALGORITHM_AUTO, CART_ALGORITHM_COMBINING };
    for (int k = 0; k < 2; k++) {
        rc = Cart_schedule_stats(g, colls[k], algs[k], &ph, &ro, &vo);
        cls = -1;
        MPI_Error_class(rc, &cls);
        mt_checks++;
        if (rc == MPI_SUCCESS || cls != MPI_ERR_TOPOLOGY || ph != -77 || ro != -77 || vo != -77)
            failure("Cart_schedule_stats(%s, %s) on a graph %s: returned %d (class %d, expected MPI_ERR_TOPOLOGY = "
                    "%d), outputs %d %d %d (expected untouched -77)",
                    k ? "CART_ALLGATHER" : "CART_ALLTOALL", k ? "COMBINING" : "AUTO", when, rc,
                    rc == MPI_SUCCESS ? MPI_SUCCESS : cls, MPI_ERR_TOPOLOGY, ph, ro, vo);
    }
}

/* The neighbour lists MPI reports against the graph generated (in the old
 * ranks).  With reorder = 0 MPI_Dist_graph_create_adjacent and
 * MPI_Graph_create keep the lists as given. */
static int view_matches(const view_t *w, const graph_t *G, int method, int reorder, int weighted)
{
    mt_checks++;
    if (w->topo != (method == M_GRAPH ? MPI_GRAPH : MPI_DIST_GRAPH)) {
        failure("MPI_Topo_test gives %d for a communicator made by %s", w->topo, method_name[method]);
        return 0;
    }
    if (w->topo == MPI_DIST_GRAPH && w->weighted != weighted) {
        failure("MPI_Dist_graph_neighbors_count says weighted = %d, created with weighted = %d", w->weighted, weighted);
        return 0;
    }
    if (w->p != G->p) {
        failure("the graph communicator has %d processes, the graph %d nodes", w->p, G->p);
        return 0;
    }
    for (int u = 0; u < w->p; u++)
        for (int v = 0; v < w->p; v++) {
            int mg = occurrences(G->dst[w->old[u]], G->nout[w->old[u]], w->old[v]);
            int mo = occurrences(w->D[u], w->nout[u], v), mi = occurrences(w->S[v], w->nin[v], u);
            if (mg != mo || mg != mi) {
                failure("MPI reports %d edges %d->%d among %d's destinations and %d among %d's sources; %d were "
                        "created (old ranks %d->%d)",
                        mo, u, v, u, mi, v, mg, w->old[u], w->old[v]);
                return 0;
            }
        }
    if (!reorder && method != M_CREATE)
        for (int u = 0; u < w->p; u++) {
            int same = w->old[u] == u && w->nin[u] == G->nin[u] && w->nout[u] == G->nout[u] &&
                       !memcmp(w->S[u], G->src[u], sizeof(int) * (size_t)G->nin[u]) &&
                       !memcmp(w->D[u], G->dst[u], sizeof(int) * (size_t)G->nout[u]);
            if (!same) {
                failure("with reorder = 0, %s changed the neighbour lists of rank %d", method_name[method], u);
                return 0;
            }
        }
    return 1;
}

/* The forms in turn, starting with `first`: the graph's first Cart_ call
 * (which derives its neighbourhood) is blocking, non-blocking or an *_init. */
static void run_all(MPI_Comm g, const view_t *w, uint64_t csalt, int first)
{
    for (int x = 0; x < F_CONCURRENT; x++) {
        int form = (first + x) % F_CONCURRENT;
        for (int coll = 0; coll < NCOLL; coll++) run_form(g, w, (coll + first) % NCOLL, form, hsh(csalt, form, coll, callno));
        if (form == F_BLOCKING) topo_checks(g, "after blocking collectives");
    }
}

static void run_case(int cs)
{
    mt_rng gr, lr;
    mt_seed(&gr, opt_seed, (uint64_t)cs);
    mt_seed(&lr, opt_seed, 1000000 + (uint64_t)cs * 64 + (uint64_t)mt_rank);
    int p = mt_size, method = cs % 3, weighted = method != M_GRAPH && (cs / 3) % 2, reorder = (cs / 6) % 2;
    int reversed = mt_chance(&gr, 50);
#ifdef OPEN_MPI
    /* Open MPI 4.1's MPI_Dist_graph_create with reorder = 1 numbers the new
     * communicator like MPI_COMM_WORLD but leaves the neighbour lists in
     * comm_old's ranks (see the top of this file): comm_old = MPI_COMM_WORLD's
     * order there. */
    if (method == M_CREATE && reorder) reversed = 0;
#endif
    MPI_Comm old;
    if (reversed) MPI_Comm_split(MPI_COMM_WORLD, 0, p - 1 - mt_rank, &old);
    else MPI_Comm_dup(MPI_COMM_WORLD, &old);
    graph_t G;
    int shape = SHAPE_RANDOM;
    if (method == M_GRAPH) {
        graph_init(&G, p >= 3 && mt_chance(&gr, 30) ? p - 1 : p);
        gen_symmetric(&gr, &G);
    } else {
        graph_init(&G, p);
        shape = cs % 10 == 4 ? SHAPE_EMPTY : mt_chance(&gr, 20) ? SHAPE_DENSE : SHAPE_RANDOM;
        gen_digraph(&gr, &G, shape);
    }
    cur_case = cs;
    cur_view = NULL;
    callno = 0; /* processes outside the last case's graph did not count */
    snprintf(case_desc, sizeof case_desc, "case %d (%s, %s graph on %d of %d processes, %sweighted, reorder %d, "
             "comm_old %s)", cs, method_name[method], method == M_GRAPH ? "symmetric" : shape_name[shape], G.p, p,
             weighted ? "" : "un", reorder, reversed ? "with reversed ranks" : "= dup of MPI_COMM_WORLD");
    if (opt_verbose && mt_rank == 0) printf("%s\n", case_desc);
    MPI_Comm g = create_graph(method, weighted, reorder, &G, old, &lr);
    if (g == MPI_COMM_NULL) { /* outside an MPI_Graph_create graph */
        MPI_Comm_free(&old);
        graph_free(&G);
        return;
    }
    view_t w;
    view_build(g, old, &w);
    MPI_Comm_free(&old);
    cur_view = &w;
    int good = view_matches(&w, &G, method, reorder, weighted), ngood = 0;
    tally(&w);
    MPI_Allreduce(&good, &ngood, 1, MPI_INT, MPI_MIN, g);
    if (ngood) {
        uint64_t csalt = hsh(opt_seed, cs, 7, 7);
        MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
        if (mt_chance(&gr, 50)) topo_checks(g, "before any collective");
        run_all(g, &w, csalt, cs % F_CONCURRENT);
        run_concurrent(g, &w, hsh(csalt, 9, 9, callno), &lr);
        /* A duplicate made after the calls carries the graph (the original
         * freed first, or still in use) */
        MPI_Comm g2;
        MPI_Comm_dup(g, &g2);
        int topo = MPI_UNDEFINED;
        MPI_Topo_test(g2, &topo);
        MT_EQ(topo, w.topo, "MPI_Topo_test of MPI_Comm_dup of the graph");
        if (mt_chance(&gr, 50)) {
            /* a persistent request outlives its communicator */
            gcall pc;
            Cart_request prq = CART_REQUEST_NULL;
            call_build(&pc, C_ALLTOALLV, &w, hsh(csalt, 10, 0, callno));
            int ok = check_rc(mt_collective(2, C_ALLTOALLV, &pc.mc, g, MPI_INFO_NULL, &prq), "Cart_alltoallv_init");
            MPI_Comm_free(&g);
            for (int k = 0; ok && k < 2; k++) {
                int round = callno++ % 16;
                call_fill(&pc, w.me, round);
                ok = check_rc(Cart_start(&prq), "Cart_start after MPI_Comm_free of the graph") &&
                     check_rc(Cart_wait(&prq), "Cart_wait after MPI_Comm_free of the graph");
                if (ok) call_check(&pc, F_PERSISTENT, round); /* a mismatch must not change what runs */
            }
            if (prq != CART_REQUEST_NULL) check_rc(Cart_request_free(&prq), "Cart_request_free");
            call_free(&pc);
        } else {
            run_form(g, &w, C_ALLTOALLV, F_BLOCKING, hsh(csalt, 11, 0, callno));
        }
        run_form(g2, &w, C_ALLTOALLW, F_NONBLOCKING, hsh(csalt, 12, 0, callno));
        run_form(g2, &w, C_ALLTOALL, F_BLOCKING, hsh(csalt, 13, 0, callno));
        run_form(g2, &w, C_ALLGATHERV, F_PERSISTENT, hsh(csalt, 14, 0, callno));
        topo_checks(g2, "on MPI_Comm_dup of the graph");
        run_form(g2, &w, C_ALLTOALLV, F_PERSISTENT, hsh(csalt, 15, 0, callno));
        MPI_Comm_free(&g2);
    }
    if (g != MPI_COMM_NULL) MPI_Comm_free(&g);
    cur_view = NULL;
    view_free(&w);
    graph_free(&G);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "test_graph");
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--seed") && a + 1 < argc) opt_seed = strtoull(argv[++a], NULL, 10);
        else if (!strcmp(argv[a], "--first") && a + 1 < argc) opt_first = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--cases") && a + 1 < argc) opt_cases = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--verbose")) opt_verbose = 1;
        else if (!strcmp(argv[a], "--break-oracle")) opt_break = 1;
        else if (!strcmp(argv[a], "--maxmult") && a + 1 < argc) opt_maxmult = atoi(argv[++a]);
        else {
            if (mt_rank == 0) fprintf(stderr, "test_graph: unknown option %s\n", argv[a]);
            MPI_Finalize();
            return 2;
        }
    }
    if (opt_maxmult < 3 || opt_maxmult * mt_size > 255) { /* send block indices must fit content() */
        if (mt_rank == 0) fprintf(stderr, "test_graph: --maxmult must be in [3, 255 / processes]\n");
        MPI_Finalize();
        return 2;
    }
    make_types();
    double t0 = MPI_Wtime();
    for (int cs = opt_first; cs < opt_first + opt_cases; cs++) run_case(cs);
    if (mt_rank == 0) {
        printf("test_graph: %d cases in %.2f s; graphs with", opt_cases, MPI_Wtime() - t0);
        for (int k = 0; k < NCOV; k++) printf("%s %s: %d", k ? "," : "", cov_name[k], coverage[k]);
        printf(" (of %d)\n", cases_run);
    }
    MPI_Type_free(&ty[TY_VEC2]);
    MPI_Type_free(&ty[TY_VEC4]);
    if (!opt_break) return mt_finish();
    /* The broken oracle must be caught. */
    long f = mt_failures, sum = 0;
    MPI_Allreduce(&f, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    mt_failures = 0;
    int rc = mt_finish();
    if (mt_rank == 0)
        printf("test_graph --break-oracle: %ld mismatches found: %s\n", sum,
               sum > 0 ? "the test detects a wrong matching of repeated edges" : "NOT DETECTED");
    return rc || sum == 0 ? 1 : 0;
}

/* cartbench: per neighbourhood, the Cart communicators and the MPI
 * baseline's graph; per case (neighbourhood, collective, block size), the
 * set-up by the collective's family (cb_ops.h) and the release. */
#define _POSIX_C_SOURCE 200809L
#include "cb_cases.h"

#include "cb_ops.h"
#include "cb_p2p.h"
#include "cb_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Per neighbourhood: communicators and the baseline graph ----------- */

MPI_Info make_info(int alg, int ex)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cartcoll_algorithm", alg_name[alg]);
    MPI_Info_set(info, "cartcoll_executor", ex_name[ex]);
    return info;
}

int share_nbh(const char *spec, cb_nbh *nbh, MPI_Comm world)
{
    int hdr[4] = { 0, 0, 0, 0 };
    char err[256];
    if (!world_rank) {
        if (cb_nbh_parse(spec, nbh, err, sizeof err)) {
            fprintf(stderr, "cartbench: %s\n", err);
            hdr[0] = -1;
        } else {
            hdr[0] = nbh->d;
            hdr[1] = nbh->t;
            hdr[2] = (int)nbh->kind;
            hdr[3] = nbh->p[0];
        }
    }
    MPI_Bcast(hdr, 4, MPI_INT, 0, world);
    if (hdr[0] < 0) return -1;
    if (world_rank) {
        nbh->d = hdr[0];
        nbh->t = hdr[1];
        nbh->kind = (enum cb_kind)hdr[2];
        nbh->v = xmalloc(sizeof(int) * (size_t)hdr[0] * (size_t)hdr[1]);
    }
    MPI_Bcast(nbh->name, (int)sizeof nbh->name, MPI_CHAR, 0, world);
    MPI_Bcast(nbh->p, 3, MPI_INT, 0, world);
    MPI_Bcast(nbh->v, hdr[0] * hdr[1], MPI_INT, 0, world);
    return 0;
}

/* The rank of R + sign N[i] computed from the grid alone: the oracle that
 * Cart_neighbor_get is checked against. */
static void expected_ranks(nbhctx *c, int sign, int *out)
{
    int me, coords[32], x[32];
    MPI_Comm base = c->comm[0][0];
    MPI_Comm_rank(base, &me);
    MPI_Cart_coords(base, me, c->d, coords);
    for (int i = 0; i < c->t; i++) {
        int off = 0;
        for (int k = 0; k < c->d; k++) {
            long y = (long)coords[k] + (long)sign * c->nbh.v[(size_t)i * c->d + k];
            if (c->periods[k]) {
                y %= c->dims[k];
                if (y < 0) y += c->dims[k];
            } else if (y < 0 || y >= c->dims[k]) {
                off = 1;
            }
            x[k] = (int)y;
        }
        if (off)
            out[i] = MPI_PROC_NULL;
        else
            MPI_Cart_rank(base, x, &out[i]);
    }
}

/* Cart_stencil must list exactly what cartbench generated. */
static int stencil_agrees(const cb_nbh *n)
{
    int metric, shadow, depth;
    if (n->kind == CB_VONNEUMANN) {
        metric = CART_MANHATTAN, shadow = 1, depth = n->p[0];
    } else if (n->kind == CB_CHEBYSHEV) {
        metric = CART_CHEBYSHEV, shadow = 1, depth = n->p[0];
    } else if (n->kind == CB_SHELLS) {
        metric = CART_CHEBYSHEV, shadow = n->p[0], depth = n->p[1];
    } else {
        return 1;
    }
    int cnt = -1;
    if (Cart_stencil_count(n->d, metric, shadow, depth, &cnt) != MPI_SUCCESS || cnt != n->t) return 0;
    int *v = malloc(sizeof(int) * (size_t)n->t * (size_t)n->d + 1);
    int ok = Cart_stencil(n->d, metric, shadow, depth, n->t, v) == MPI_SUCCESS &&
             !memcmp(v, n->v, sizeof(int) * (size_t)n->t * (size_t)n->d);
    free(v);
    return ok;
}

/* One Cart communicator per (algorithm, executor) a blocking or
 * non-blocking variant needs, [0][0] always (the grid, the schedule
 * statistics, the persistent variants). */
static int create_comms(nbhctx *c, MPI_Comm world, const int need[NALG][NEX])
{
    int t = c->t, rc = MPI_SUCCESS;
    int *w = malloc(sizeof(int) * (size_t)t + 1);
    for (int i = 0; i < t; i++) w[i] = cb_nbh_nonzeros(&c->nbh, i) + 1; /* any real weights */
    for (int a = 0; a < NALG; a++)
        for (int e = 0; e < NEX; e++) {
            c->comm[a][e] = MPI_COMM_NULL;
            if (!need[a][e] && (a || e)) continue;
            if (rc != MPI_SUCCESS) continue; /* the rest stay MPI_COMM_NULL */
            MPI_Info info = make_info(a, e);
            rc = Cart_neighborhood_create(world, c->d, c->dims, c->periods, t, c->nbh.v, w, info, 0, &c->comm[a][e]);
            MPI_Info_free(&info);
            if (rc != MPI_SUCCESS)
                report_error("Cart_neighborhood_create", rc);
            else
                MPI_Comm_set_errhandler(c->comm[a][e], MPI_ERRORS_RETURN);
        }
    free(w);
    return rc == MPI_SUCCESS ? 0 : -1;
}

/* The library must describe the neighbourhood as the grid does: src/dst
 * from Cart_neighbor_get against the expected ranks, the vectors against
 * Cart_stencil; sets c->nbh_ok on every process. */
static int check_neighbours(nbhctx *c, MPI_Comm world, int *src, int *sw, int *dst, int *dw)
{
    int t = c->t;
    int rc = Cart_neighbor_get(c->comm[0][0], t, src, sw, t, dst, dw);
    if (rc != MPI_SUCCESS) {
        report_error("Cart_neighbor_get", rc);
        return -1;
    }
    int ok[2] = { stencil_agrees(&c->nbh), !memcmp(src, c->exp_src, sizeof(int) * (size_t)t) &&
                                               !memcmp(dst, c->exp_dst, sizeof(int) * (size_t)t) };
    MPI_Allreduce(MPI_IN_PLACE, ok, 2, MPI_INT, MPI_MIN, world);
    c->nbh_ok = ok[0] && ok[1];
    if (!world_rank && !ok[0]) fprintf(stderr, "cartbench: %s: Cart_stencil does not list these vectors\n", c->nbh.name);
    if (!world_rank && !ok[1])
        fprintf(stderr, "cartbench: %s: Cart_neighbor_get disagrees with MPI_Cart_coords/MPI_Cart_rank\n", c->nbh.name);
    return 0;
}

/* Leave MPI_PROC_NULL neighbours out of the graph's edge lists (compacted
 * in place, unit weights); remember which neighbour each edge is. */
static void compact_edges(nbhctx *c, int *src, int *sw, int *dst, int *dw)
{
    int t = c->t;
    c->src_idx = malloc(sizeof(int) * (size_t)t + 1);
    c->dst_idx = malloc(sizeof(int) * (size_t)t + 1);
    c->indeg = c->outdeg = 0;
    for (int i = 0; i < t; i++) {
        if (src[i] != MPI_PROC_NULL) {
            c->src_idx[c->indeg] = i;
            src[c->indeg] = src[i];
            sw[c->indeg++] = 1;
        }
        if (dst[i] != MPI_PROC_NULL) {
            c->dst_idx[c->outdeg] = i;
            dst[c->outdeg] = dst[i];
            dw[c->outdeg++] = 1;
        }
    }
}

/* MPICH 4.0's neighbourhood collectives hang on graphs where a process has
 * in-edges but no matching out-edges (a mesh, an octant); the baseline is
 * skipped there and cartcoll is checked against the grid's expectation
 * alone. */
static void guard_mpich(nbhctx *c, MPI_Comm world)
{
#ifdef MPICH_VERSION
    int asym = c->indeg != c->outdeg;
    MPI_Allreduce(MPI_IN_PLACE, &asym, 1, MPI_INT, MPI_MAX, world);
    c->mpi_unsafe = asym;
    if (!world_rank && asym)
        fprintf(stderr, "cartbench: %s: MPI baseline skipped (MPICH hangs on graphs with unequal in- and out-degree)\n",
                c->nbh.name);
#else
    (void)c;
    (void)world;
#endif
}

int comm_fits(const cb_nbh *n, int comm)
{
    int ok = 1;
    if (comm == COMM_MPICART) {
        ok = n->t == 2 * n->d;
        for (int i = 0; ok && i < n->t; i++)
            for (int k = 0; k < n->d; k++)
                ok &= n->v[(size_t)i * n->d + k] == (k == i / 2 ? (i % 2 ? 1 : -1) : 0);
    }
    if (!ok && !world_rank)
        fprintf(stderr, "cartbench: %s: --comm mpicart needs MPI's Cartesian neighbourhood, exactly -e_0, +e_0, "
                        "-e_1, +e_1, ... in that order (e.g. file:bench/mpicart2.nbh)\n", n->name);
    return ok ? 0 : -1;
}

/* The cartcoll variants' communicator for --comm graph (the baseline's
 * edges, compacted, with comm[0][0] as comm_old) or mpicart (MPI_Cart_create
 * with the same grid, no reordering, so the ranks are the same), in
 * c->alt[kind]. */
static int create_alt(nbhctx *c, int kind, MPI_Comm world, const int *src, const int *sw, const int *dst,
                      const int *dw)
{
    int rc = MPI_SUCCESS;
    MPI_Comm *alt = &c->alt[kind];
    if (kind == COMM_GRAPH) {
        rc = Cart_dist_graph_create_adjacent(c->comm[0][0], c->indeg, src, sw, c->outdeg, dst, dw, MPI_INFO_NULL, 0,
                                             alt);
        if (rc != MPI_SUCCESS) report_error("Cart_dist_graph_create_adjacent", rc);
    } else if (kind == COMM_MPICART) {
        rc = MPI_Cart_create(world, c->d, c->dims, c->periods, 0, alt);
        if (rc != MPI_SUCCESS) report_error("MPI_Cart_create", rc);
    }
    if (rc == MPI_SUCCESS && *alt != MPI_COMM_NULL) MPI_Comm_set_errhandler(*alt, MPI_ERRORS_RETURN);
    return rc;
}

int setup_nbh(nbhctx *c, const options *o, MPI_Comm world, const int need[NALG][NEX])
{
    c->kind = o->comm;
    for (int k = 0; k < NCOMM; k++) c->alt[k] = MPI_COMM_NULL;
    c->d = c->nbh.d;
    c->t = c->nbh.t;
    for (int k = 0; k < c->d; k++) {
        c->dims[k] = 0;
        c->periods[k] = !o->mesh;
    }
    MPI_Dims_create(world_size, c->d, c->dims);
    if (create_comms(c, world, need)) return -1;
    int t = c->t;
    c->exp_src = malloc(sizeof(int) * (size_t)t + 1);
    c->exp_dst = malloc(sizeof(int) * (size_t)t + 1);
    expected_ranks(c, -1, c->exp_src);
    expected_ranks(c, +1, c->exp_dst);

    /* The baseline: the same neighbourhood as an MPI distributed graph. */
    int *src = malloc(sizeof(int) * (size_t)t + 1), *dst = malloc(sizeof(int) * (size_t)t + 1);
    int *sw = malloc(sizeof(int) * (size_t)t + 1), *dw = malloc(sizeof(int) * (size_t)t + 1);
    int rc = MPI_ERR_OTHER;
    c->graph = c->plain = MPI_COMM_NULL;
    if (!check_neighbours(c, world, src, sw, dst, dw)) {
        compact_edges(c, src, sw, dst, dw);
        guard_mpich(c, world);
        rc = setup_p2p(c, world) ? MPI_ERR_OTHER : MPI_SUCCESS;
        if (rc == MPI_SUCCESS && o->need_graph) {
            rc = MPI_Dist_graph_create_adjacent(c->comm[0][0], c->indeg, src, sw, c->outdeg, dst, dw, MPI_INFO_NULL,
                                                0, &c->graph);
            if (rc != MPI_SUCCESS) report_error("MPI_Dist_graph_create_adjacent", rc);
        }
        for (int i = 0; i < o->ncomm && rc == MPI_SUCCESS; i++) rc = create_alt(c, o->comms[i], world, src, sw, dst, dw);
    }
    free(src);
    free(dst);
    free(sw);
    free(dw);
    if (rc != MPI_SUCCESS) return -1;
    if (c->graph != MPI_COMM_NULL) MPI_Comm_set_errhandler(c->graph, MPI_ERRORS_RETURN);
    return 0;
}

void free_nbh(nbhctx *c)
{
    for (int a = 0; a < NALG; a++)
        for (int e = 0; e < NEX; e++)
            if (c->comm[a][e] != MPI_COMM_NULL) MPI_Comm_free(&c->comm[a][e]);
    if (c->graph != MPI_COMM_NULL) MPI_Comm_free(&c->graph);
    if (c->plain != MPI_COMM_NULL) MPI_Comm_free(&c->plain);
    for (int k = 0; k < NCOMM; k++)
        if (c->alt[k] != MPI_COMM_NULL) MPI_Comm_free(&c->alt[k]);
    free(c->src_idx);
    free(c->dst_idx);
    free(c->exp_src);
    free(c->exp_dst);
    free(c->p2p_src);
    free(c->p2p_dst);
    cb_nbh_free(&c->nbh);
}

/* ---- Per case: buffers through the collective's family ---------------- */

int setup_case(kase *k, const nbhctx *c, const options *o, int op, int m)
{
    memset(k, 0, sizeof *k);
    return cb_family_of(op)->setup(k, c, o, op, m);
}

void free_case(kase *k)
{
    if (k->cref != k->ref) free(k->cref);
    void *p[] = { k->cnt,  k->sd,   k->rd,   k->sbuf,  k->rbuf,   k->sdb,    k->rdb,   k->types,
                  k->msbuf, k->mrbuf, k->mscnt, k->mrcnt, k->msd,    k->mrd,    k->mpos,  k->msdb,
                  k->mrdb,  k->mtypes, k->expect, k->ref,  k->dsbuf,  k->drbuf,  k->dmrbuf, k->dexpect,
                  k->dmgbuf };
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) free(p[i]);
    memset(k, 0, sizeof *k);
}


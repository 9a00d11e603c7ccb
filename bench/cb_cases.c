/* cartbench: per neighbourhood, the Cart communicators and the MPI
 * baseline's graph; per case (neighbourhood, collective, block size), the
 * buffers of both and the values every receive buffer must hold. */
#define _POSIX_C_SOURCE 200809L
#include "cartbench.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
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

/* ---- Per case (neighbourhood, collective, block size): buffers ---------- */

/* Value of element k of send block b of process r (b = 0 for allgather):
 * never SENTINEL or GAP, and different for nearby (r, b, k). */
static int send_value(int r, int b, int k)
{
    uint64_t x = (uint64_t)(unsigned)r * 0x9E3779B97F4A7C15ull + (uint64_t)(unsigned)b * 0xC2B2AE3D27D4EB4Full +
                 (uint64_t)(unsigned)k * 0x165667B19E3779F9ull;
    x ^= x >> 29;
    return (int)(x % 2000000000u) + 1;
}

void fill_ints(int *p, size_t n, int x)
{
    for (size_t i = 0; i < n; i++) p[i] = x;
}

/* Whether the buffers would exceed --max-mib (or int offsets); sizes in
 * doubles so that a huge case is skipped without overflow. */
static int case_too_large(const nbhctx *c, const options *o, int op, int m)
{
    double total = 0;
    for (int i = 0; i < c->t; i++) {
        double b = m;
        if (irregular_blocks(o, op)) {
            int z = cb_nbh_nonzeros(&c->nbh, i);
            b = z ? pow(m, c->d - z) : 0;
        }
        total += b + 1;
    }
    return total * sizeof(int) > o->max_mib * 1048576.0 || total > INT_MAX / 2;
}

/* Block sizes and the payload received per process. */
static void set_counts(kase *k, const nbhctx *c, const options *o)
{
    k->cnt = xmalloc(sizeof(int) * (size_t)k->t);
    k->bytes = 0;
    for (int i = 0; i < k->t; i++) {
        if (irregular_blocks(o, k->op)) {
            int z = cb_nbh_nonzeros(&c->nbh, i);
            k->cnt[i] = z ? (int)llround(pow(k->m, c->d - z)) : 0;
        } else {
            k->cnt[i] = k->m;
        }
        if (c->exp_src[i] != MPI_PROC_NULL) k->bytes += (long long)k->cnt[i] * (long long)sizeof(int);
    }
}

/* Regular: blocks back to back.  v/w: send blocks forward, receive blocks
 * in reverse order, each followed by a one-int gap that must stay
 * untouched (so a library that ignores displacements fails the check). */
static void lay_out(kase *k)
{
    int t = k->t;
    k->sd = xmalloc(sizeof(int) * (size_t)t);
    k->rd = xmalloc(sizeof(int) * (size_t)t);
    size_t s = 0, r = 0;
    if (op_is_regular(k->op)) {
        for (int i = 0; i < t; i++) {
            k->sd[i] = (int)s;
            k->rd[i] = (int)r;
            s += (size_t)k->cnt[i];
            r += (size_t)k->cnt[i];
        }
    } else {
        for (int i = 0; i < t; i++) {
            k->sd[i] = (int)s;
            s += (size_t)k->cnt[i] + 1;
        }
        for (int i = t - 1; i >= 0; i--) {
            k->rd[i] = (int)r;
            r += (size_t)k->cnt[i] + 1;
        }
    }
    k->slen = op_is_alltoall(k->op) ? s : (size_t)k->m;
    k->rlen = r;
}

/* cartcoll's buffers, the send buffer filled with process me's values, and
 * the w variants' byte displacements and types. */
static void make_buffers(kase *k, int me)
{
    int t = k->t;
    k->sbuf = xmalloc(sizeof(int) * k->slen);
    k->rbuf = xmalloc(sizeof(int) * k->rlen);
    fill_ints(k->sbuf, k->slen, GAP);
    if (op_is_alltoall(k->op)) {
        for (int i = 0; i < t; i++)
            for (int e = 0; e < k->cnt[i]; e++) k->sbuf[k->sd[i] + e] = send_value(me, i, e);
    } else {
        for (int e = 0; e < k->m; e++) k->sbuf[e] = send_value(me, 0, e);
    }
    k->sdb = xmalloc(sizeof(MPI_Aint) * (size_t)t);
    k->rdb = xmalloc(sizeof(MPI_Aint) * (size_t)t);
    k->types = xmalloc(sizeof(MPI_Datatype) * (size_t)t);
    for (int i = 0; i < t; i++) {
        k->sdb[i] = (MPI_Aint)k->sd[i] * (MPI_Aint)sizeof(int);
        k->rdb[i] = (MPI_Aint)k->rd[i] * (MPI_Aint)sizeof(int);
        k->types[i] = MPI_INT;
    }
}

/* The baseline's send side: alltoall needs a compact buffer (only the
 * neighbours present on the graph); the others address the cartcoll
 * layout (allgatherw: every block at 0). */
static void make_baseline_send(kase *k, const nbhctx *c)
{
    int out = c->outdeg, m = k->m;
    k->mscnt = xmalloc(sizeof(int) * (size_t)out);
    k->msd = xmalloc(sizeof(int) * (size_t)out);
    k->msdb = xmalloc(sizeof(MPI_Aint) * (size_t)out);
    if (k->op == OP_ALLTOALL) {
        k->mslen = (size_t)out * (size_t)m;
        k->msbuf = xmalloc(sizeof(int) * k->mslen);
        for (int j = 0; j < out; j++)
            memcpy(k->msbuf + (size_t)j * m, k->sbuf + k->sd[c->dst_idx[j]], sizeof(int) * (size_t)m);
    } else {
        k->mslen = k->slen;
        k->msbuf = xmalloc(sizeof(int) * k->mslen);
        memcpy(k->msbuf, k->sbuf, sizeof(int) * k->slen);
    }
    for (int j = 0; j < out; j++) {
        int i = c->dst_idx[j];
        k->mscnt[j] = k->cnt[i];
        k->msd[j] = k->op == OP_ALLGATHERW ? 0 : k->sd[i];
        k->msdb[j] = (MPI_Aint)k->msd[j] * (MPI_Aint)sizeof(int);
    }
}

/* The baseline's receive side: compact for the regular collectives, the
 * cartcoll layout for v/w. */
static void make_baseline_recv(kase *k, const nbhctx *c)
{
    int in = c->indeg, out = c->outdeg, m = k->m;
    k->mrcnt = xmalloc(sizeof(int) * (size_t)in);
    k->mrd = xmalloc(sizeof(int) * (size_t)in);
    k->mrdb = xmalloc(sizeof(MPI_Aint) * (size_t)in);
    k->mpos = xmalloc(sizeof(int) * (size_t)in);
    k->mtypes = xmalloc(sizeof(MPI_Datatype) * (size_t)(in > out ? in : out));
    for (int j = 0; j < (in > out ? in : out); j++) k->mtypes[j] = MPI_INT;
    k->mrlen = op_is_regular(k->op) ? (size_t)in * (size_t)m : k->rlen;
    k->mrbuf = xmalloc(sizeof(int) * k->mrlen);
    for (int j = 0; j < in; j++) {
        int i = c->src_idx[j];
        k->mrcnt[j] = k->cnt[i];
        k->mpos[j] = op_is_regular(k->op) ? j * m : k->rd[i];
        k->mrd[j] = k->mpos[j];
        k->mrdb[j] = (MPI_Aint)k->mrd[j] * (MPI_Aint)sizeof(int);
    }
}

/* What every receive buffer must hold: block i from R - N[i]. */
static void make_expectation(kase *k, const nbhctx *c)
{
    k->expect = xmalloc(sizeof(int) * k->rlen);
    k->ref = xmalloc(sizeof(int) * k->rlen);
    fill_ints(k->expect, k->rlen, SENTINEL);
    for (int i = 0; i < k->t; i++)
        if (c->exp_src[i] != MPI_PROC_NULL)
            for (int e = 0; e < k->cnt[i]; e++)
                k->expect[k->rd[i] + e] = send_value(c->exp_src[i], op_is_alltoall(k->op) ? i : 0, e);
    memcpy(k->ref, k->expect, sizeof(int) * k->rlen); /* until the baseline has run */
    k->cref = k->ref;
    if (c->alt[COMM_MPICART] != MPI_COMM_NULL) {
        k->cref = xmalloc(sizeof(int) * k->rlen);
        update_cart_ref(k);
    }
}

/* On MPI_Cart_create communicators receive block i comes from R + N[i] =
 * R - N[i^1] (MPI's meaning; comm_fits made N = -e_0, +e_0, ...), so it
 * holds cartbench's block i^1; blocks i and i^1 have equal counts. */
void update_cart_ref(kase *k)
{
    if (k->cref == k->ref) return;
    memcpy(k->cref, k->ref, sizeof(int) * k->rlen); /* gaps */
    for (int i = 0; i < k->t; i++) memcpy(k->cref + k->rd[i], k->ref + k->rd[i ^ 1], sizeof(int) * (size_t)k->cnt[i]);
}

int setup_case(kase *k, const nbhctx *c, const options *o, int op, int m)
{
    memset(k, 0, sizeof *k);
    if (op == OP_ALLREDUCE) return setup_global_case(k, o, m);
    if (op == OP_NALLREDUCE) return setup_nreduce_case(k, c, o, m);
    if (op_rooted(op)) return setup_rooted_case(k, c, o, op, m);
    int me;
    MPI_Comm_rank(c->comm[0][0], &me);
    k->op = op;
    k->m = m;
    k->t = c->t;
    if (case_too_large(c, o, op, m)) return 1;
    set_counts(k, c, o);
    lay_out(k);
    make_buffers(k, me);
    make_baseline_send(k, c);
    make_baseline_recv(k, c);
    make_expectation(k, c);
    return 0;
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

void expand_mpi(const kase *k, const nbhctx *c, int *full)
{
    fill_ints(full, k->rlen, SENTINEL);
    for (int j = 0; j < c->indeg; j++) {
        int i = c->src_idx[j];
        memcpy(full + k->rd[i], k->mrbuf + k->mpos[j], sizeof(int) * (size_t)k->cnt[i]);
    }
}

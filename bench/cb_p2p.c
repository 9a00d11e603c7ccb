/* cartbench's own point-to-point variants, on a plain duplicate of
 * MPI_COMM_WORLD with the neighbours' ranks computed from the grid (no
 * MPI topology at all, so they run where MPI_Dist_graph_create is missing,
 * as under SimGrid SMPI):
 *   p2p, p2p-p  one MPI_Irecv/MPI_Isend per neighbour (per edge), what Open
 *               MPI's and MPICH's neighbourhood collectives do; blocking
 *               (posted and waited each call) or persistent (MPI_Recv_init/
 *               MPI_Send_init once, MPI_Startall + MPI_Waitall each call).
 *               The result lands in the cartcoll layout and is checked
 *               against the grid's expectation.
 *   floor       one contiguous message per distinct peer rank carrying all
 *               the bytes of every edge to it (packed once at set-up, never
 *               per call; the bytes to itself: one memcpy), persistent:
 *               the floor of the machine for the collective's data volume
 *               (allgather too: a copy of the send block per edge, as the
 *               collective delivers).
 *               Not a collective (nothing is placed per block while timed);
 *               the check unpacks the received bytes afterwards.
 * Messages between two processes match in posting order (one tag): the
 * edges i with A + N[i] = B are exactly those with B - N[i] = A, listed in
 * the same order of i on both sides. */
#define _POSIX_C_SOURCE 200809L
#include "cb_p2p.h"

#include "cb_state.h"

#include <stdlib.h>
#include <string.h>

enum { P2P_TAG = 77 };

struct p2p_plan {
    int kind, form;
    int n, nrecv;          /* messages; the first nrecv are receives */
    int **buf;             /* each message's first int */
    int *cnt, *peer;       /* ints, rank in c->plain */
    MPI_Request *req;
    MPI_Status *st;
    MPI_Comm comm;
    /* floor */
    int *spack, *rpack;    /* packed send (filled once) and receive buffers */
    size_t slen, rlen;     /* their lengths in ints */
    size_t self_s, self_r, self_n; /* the ints to myself: one memcpy */
    int *order;            /* receive blocks in packed order (existing sources) */
    size_t *uoff;          /* where block order[j] is in rpack */
    int norder;
};

/* ---- Ranks ---------------------------------------------------------------- */

/* The row-major rank of R + sign N[i] (MPI's Cartesian rank order without
 * reordering), MPI_PROC_NULL off a mesh. */
static int grid_rank(const nbhctx *c, const int *me, int sign, int i)
{
    long r = 0;
    for (int k = 0; k < c->d; k++) {
        long y = (long)me[k] + (long)sign * c->nbh.v[(size_t)i * c->d + k];
        if (c->periods[k]) {
            y %= c->dims[k];
            if (y < 0) y += c->dims[k];
        } else if (y < 0 || y >= c->dims[k]) {
            return MPI_PROC_NULL;
        }
        r = r * c->dims[k] + y;
    }
    return (int)r;
}

int setup_p2p(nbhctx *c, MPI_Comm world)
{
    int rc = MPI_Comm_dup(world, &c->plain);
    if (rc != MPI_SUCCESS) {
        report_error("MPI_Comm_dup", rc);
        c->plain = MPI_COMM_NULL;
        return -1;
    }
    MPI_Comm_set_errhandler(c->plain, MPI_ERRORS_RETURN);
    int me[32], r;
    MPI_Comm_rank(c->plain, &r);
    for (int k = c->d - 1; k >= 0; k--) {
        me[k] = r % c->dims[k];
        r /= c->dims[k];
    }
    c->p2p_src = xmalloc(sizeof(int) * (size_t)c->t + 1);
    c->p2p_dst = xmalloc(sizeof(int) * (size_t)c->t + 1);
    for (int i = 0; i < c->t; i++) {
        c->p2p_src[i] = grid_rank(c, me, -1, i);
        c->p2p_dst[i] = grid_rank(c, me, +1, i);
    }
    return 0;
}

static int p2p_supports(const variant *v, int op)
{
    if (op_reduces(op)) return 0;
    if (op_rooted(op)) return v->kind == VK_P2P && v->form == F_BLOCKING; /* the rooted baseline */
    return 1;
}

/* ---- Plans ---------------------------------------------------------------- */

/* Send block i of case k (allgather: the one send block). */
static int *send_block(const kase *k, int i)
{
    return op_is_alltoall(k->op) ? k->sbuf + k->sd[i] : k->sbuf;
}

static p2p_plan *plan_alloc(const nbhctx *c, const variant *v, int nmax)
{
    p2p_plan *p = xmalloc(sizeof *p);
    memset(p, 0, sizeof *p);
    p->kind = v->kind;
    p->form = v->form;
    p->comm = c->plain;
    size_t n = (size_t)nmax + 1;
    p->buf = xmalloc(sizeof(int *) * n);
    p->cnt = xmalloc(sizeof(int) * n);
    p->peer = xmalloc(sizeof(int) * n);
    p->req = xmalloc(sizeof(MPI_Request) * n);
    p->st = xmalloc(sizeof(MPI_Status) * n);
    for (int j = 0; j < nmax + 1; j++) p->req[j] = MPI_REQUEST_NULL;
    return p;
}

static void add_msg(p2p_plan *p, int *buf, int cnt, int peer)
{
    p->buf[p->n] = buf;
    p->cnt[p->n] = cnt;
    p->peer[p->n++] = peer;
}

/* p2p: a receive per existing source, a send per existing destination. */
static void p2p_messages(p2p_plan *p, const kase *k, const nbhctx *c)
{
    for (int i = 0; i < c->t; i++)
        if (c->p2p_src[i] != MPI_PROC_NULL) add_msg(p, k->rbuf + k->rd[i], k->cnt[i], c->p2p_src[i]);
    p->nrecv = p->n;
    for (int i = 0; i < c->t; i++)
        if (c->p2p_dst[i] != MPI_PROC_NULL) add_msg(p, send_block(k, i), k->cnt[i], c->p2p_dst[i]);
}

/* Edges sorted by (peer, index): qsort's comparison on pairs. */
typedef struct {
    int peer, i;
} edge;
static int edge_cmp(const void *a, const void *b)
{
    const edge *x = a, *y = b;
    if (x->peer != y->peer) return x->peer < y->peer ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* The existing edges of ranks (src or dst) sorted by (peer, index); their
 * number. */
static int sorted_edges(const int *ranks, int t, edge *e)
{
    int n = 0;
    for (int i = 0; i < t; i++)
        if (ranks[i] != MPI_PROC_NULL) e[n++] = (edge){ ranks[i], i };
    qsort(e, (size_t)n, sizeof *e, edge_cmp);
    return n;
}

/* floor: the edges grouped by peer; per group one message over the packed
 * bytes (the send side packed now), the group of myself one memcpy.  -1 if
 * the bytes to myself and from myself differ (they cannot on a grid). */
static int floor_messages(p2p_plan *p, const kase *k, const nbhctx *c, int me)
{
    int t = c->t;
    edge *e = xmalloc(sizeof(edge) * (size_t)t + 1);
    size_t self_s = 0, self_r = 0, ns = (size_t)-1, nr = (size_t)-1;
    /* receives: packed in (source, index) order, unpacked by p->order */
    int n = sorted_edges(c->p2p_src, t, e);
    p->order = xmalloc(sizeof(int) * (size_t)t + 1);
    p->uoff = xmalloc(sizeof(size_t) * (size_t)t + 1);
    p->norder = n;
    p->rlen = 0;
    for (int j = 0; j < n; j++) p->rlen += (size_t)k->cnt[e[j].i];
    p->rpack = xmalloc(sizeof(int) * p->rlen + 1);
    size_t off = 0;
    for (int j = 0; j < n; j++) {
        int first = j == 0 || e[j].peer != e[j - 1].peer, i = e[j].i;
        if (first) {
            if (e[j].peer == me)
                self_r = off, nr = 0;
            else
                add_msg(p, p->rpack + off, 0, e[j].peer);
        }
        p->order[j] = i;
        p->uoff[j] = off;
        if (e[j].peer == me)
            nr += (size_t)k->cnt[i];
        else
            p->cnt[p->n - 1] += k->cnt[i];
        off += (size_t)k->cnt[i];
    }
    p->nrecv = p->n;
    /* sends: packed once, in (destination, index) order */
    n = sorted_edges(c->p2p_dst, t, e);
    p->slen = 0;
    for (int j = 0; j < n; j++) p->slen += (size_t)k->cnt[e[j].i];
    p->spack = xmalloc(sizeof(int) * p->slen + 1);
    off = 0;
    for (int j = 0; j < n; j++) {
        int i = e[j].i, first = j == 0 || e[j].peer != e[j - 1].peer;
        if (first) {
            if (e[j].peer == me)
                self_s = off, ns = 0;
            else
                add_msg(p, p->spack + off, 0, e[j].peer);
        }
        if (e[j].peer == me)
            ns += (size_t)k->cnt[i];
        else
            p->cnt[p->n - 1] += k->cnt[i];
        memcpy(p->spack + off, send_block(k, i), sizeof(int) * (size_t)k->cnt[i]);
        off += (size_t)k->cnt[i];
    }
    free(e);
    p->self_s = self_s;
    p->self_r = self_r;
    p->self_n = ns == (size_t)-1 ? 0 : ns;
    return ns == nr ? 0 : -1;
}

static void p2p_free(p2p_plan *p)
{
    if (!p) return;
    for (int j = 0; j < p->n; j++)
        if (p->req[j] != MPI_REQUEST_NULL) MPI_Request_free(&p->req[j]);
    void *f[] = { p->buf, p->cnt, p->peer, p->req, p->st, p->spack, p->rpack, p->order, p->uoff, p };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) free(f[i]);
}

static p2p_plan *p2p_create(const kase *k, const nbhctx *c, const variant *v, int *rc)
{
    int me;
    MPI_Comm_rank(c->plain, &me);
    p2p_plan *p = plan_alloc(c, v, 2 * c->t);
    *rc = MPI_SUCCESS;
    if (v->kind == VK_FLOOR) {
        if (floor_messages(p, k, c, me)) *rc = MPI_ERR_TOPOLOGY;
    } else {
        p2p_messages(p, k, c);
    }
    if (*rc == MPI_SUCCESS && (v->kind == VK_FLOOR || v->form == F_PERSISTENT))
        for (int j = 0; j < p->n && *rc == MPI_SUCCESS; j++)
            *rc = j < p->nrecv ? MPI_Recv_init(p->buf[j], p->cnt[j], MPI_INT, p->peer[j], P2P_TAG, p->comm, &p->req[j])
                               : MPI_Send_init(p->buf[j], p->cnt[j], MPI_INT, p->peer[j], P2P_TAG, p->comm, &p->req[j]);
    if (*rc != MPI_SUCCESS) {
        p2p_free(p);
        return NULL;
    }
    return p;
}

static int p2p_run(p2p_plan *p, const kase *k)
{
    (void)k;
    int rc = MPI_SUCCESS;
    if (p->kind == VK_FLOOR || p->form == F_PERSISTENT) {
        rc = MPI_Startall(p->n, p->req);
    } else {
        for (int j = 0; j < p->n && rc == MPI_SUCCESS; j++)
            rc = j < p->nrecv ? MPI_Irecv(p->buf[j], p->cnt[j], MPI_INT, p->peer[j], P2P_TAG, p->comm, &p->req[j])
                              : MPI_Isend(p->buf[j], p->cnt[j], MPI_INT, p->peer[j], P2P_TAG, p->comm, &p->req[j]);
    }
    if (p->self_n) memcpy(p->rpack + p->self_r, p->spack + p->self_s, sizeof(int) * p->self_n);
    int wrc = MPI_Waitall(p->n, p->req, p->st);
    return rc != MPI_SUCCESS ? rc : wrc;
}

static void p2p_clear(p2p_plan *p)
{
    if (p->rpack) fill_ints(p->rpack, p->rlen, SENTINEL);
}

static void floor_unpack(const p2p_plan *p, const kase *k)
{
    for (int j = 0; j < p->norder; j++) {
        int i = p->order[j];
        memcpy(k->rbuf + k->rd[i], p->rpack + p->uoff[j], sizeof(int) * (size_t)k->cnt[i]);
    }
}

const cb_p2p_ops cb_p2p_runner = { .supports = p2p_supports, .create = p2p_create, .run = p2p_run,
                                   .clear = p2p_clear, .unpack = floor_unpack, .release = p2p_free };

/* [ortho] The six [core] collectives on communicators made by plain
 * MPI_Cart_create (not Cart_neighborhood_create): MPI's neighbourhood meaning
 * on Cartesian communicators (API.md, "One interface set"; cartcoll.h,
 * "[ortho] One interface set").
 *
 * The 2d neighbours of a process are, for each dimension k in turn, the
 * process at -1 and the one at +1 along k; MPI_PROC_NULL off a non-periodic
 * dimension (nothing sent, receive block untouched).  Send block 2k goes to
 * the -1 neighbour, 2k+1 to the +1 neighbour; receive block 2k comes from
 * the -1 neighbour, which sent it towards +1 (its block 2k+1), receive block
 * 2k+1 from the +1 neighbour (its block 2k).  Allgather sends its one block
 * to all 2d neighbours.  This holds also on periodic dimensions of size 1
 * and 2, where both neighbours are one process and only the direction tells
 * the blocks apart.
 *
 * Oracle, from first principles only: each process takes its coordinates
 * from MPI_Cart_coords, steps -1 / +1 along each dimension itself (wrapping
 * on periodic dimensions), gets the neighbour's rank from MPI_Cart_rank, and
 * derives every receive element from the deterministic content function
 * content(source rank, source block, round, element).  No MPI neighbourhood
 * collective is used (MPI implementations have matched the size-2 case
 * wrongly); MPI_Cart_shift only cross-checks the test's own neighbours.
 * Whole buffers are compared int by int: gaps of derived datatypes, gaps
 * between blocks and blocks from MPI_PROC_NULL must keep their sentinel, send
 * buffers must stay unchanged.
 *
 * Covered: grids of d = 1, 2, 3 from MPI_Dims_create and hand-made shapes
 * with dimensions of size 1 and 2 (periodic, non-periodic, mixed), reorder 0
 * and 1, grids smaller than MPI_COMM_WORLD (the processes outside get
 * MPI_COMM_NULL and skip), a grid over a communicator with ranks reversed,
 * Cartesian communicators from MPI_Cart_sub; counts 0, 1, 5 (all blocks
 * empty: NULL buffers), and 5000 (blocks up to 80 KB:
 * rendezvous protocols) in a few cases per grid; MPI_INT, a strided
 * MPI_Type_vector, and vector sends received as MPI_INT (w: types differ
 * block by block); v and w variants with counts per edge direction c(k,dir)
 * (send block 2k+1 and the receiver's block 2k have equal size, -1 and +1
 * sizes differ), displacements out of block order with gaps; blocking (two
 * calls on the same buffers: cached plans), Cart_iX + Cart_wait, then
 * again + a Cart_test loop,
 * Cart_X_init + 3 x (Cart_start, Cart_wait) with new contents +
 * Cart_request_free; after non-blocking and *_init calls the argument
 * arrays are overwritten and duplicated derived datatypes freed, as
 * cartcoll.h allows.  Many calls on one communicator (cached
 * neighbourhood); MPI_Comm_dup of a communicator already used, taken while
 * a non-blocking operation on it is outstanding (and a dup of the dup, and
 * a dup taken before the first call); persistent and
 * non-blocking requests completed together in one Cart_waitall (first start
 * with Cart_startall).  Persistent requests cycle cartcoll_algorithm through
 * the *_init info unless CARTCOLL_ALGORITHM is set (then the environment's
 * algorithm runs everywhere); CARTCOLL_EXECUTOR applies throughout.
 *
 * A mismatch is reported once per case (the first one): rank, collective,
 * form, round, grid, block, element, expected and got (decoded as source
 * rank / block / round / element).
 *
 * Options: --level 1|2 (default 2: every count x type kind for every
 * collective and form on every grid; 1: a rotation of three of the nine),
 * --verbose. */
#include "mpitest.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXD 3
#define MAXB (2 * MAXD)
#define SENT_R (-7) /* receive-buffer sentinel: never a content value */
#define SENT_S (-5) /* send-buffer gaps */

enum { C_AG, C_AGV, C_AGW, C_A2A, C_A2AV, C_A2AW, NCOLL };
static const char *const coll_name[NCOLL] = { "Cart_allgather", "Cart_allgatherv", "Cart_allgatherw",
                                              "Cart_alltoall",  "Cart_alltoallv",  "Cart_alltoallw" };
static const char *const form_name[3] = { "blocking", "non-blocking", "persistent" };
static const int counts[3] = { 0, 1, 5 };
#define BIG 5000 /* count of the large-block cases */
static const char *const tk_name[3] = { "int", "vector", "vector->int" };

static int verbose = 0, level = 2, info_cycle = 1;
static int round_ctr = 0;  /* a new round number for every fill (per grid) */
static long ncases = 0, ncases_failed = 0;
static int alg_ctr = 0;

/* Deterministic contents: distinct for every (rank < 16, block < 8, round
 * < 4096, element < 2048), always positive. */
static int content(int rank, int block, int round, int v)
{
    return 1 + ((((rank & 15) * 8 + (block & 7)) * 4096 + (round & 4095)) * 2048 + (v & 2047));
}

static void describe(int val, char *s, size_t n)
{
    if (val == SENT_R)
        snprintf(s, n, "%d (receive sentinel: untouched)", val);
    else if (val == SENT_S)
        snprintf(s, n, "%d (send-gap sentinel)", val);
    else if (val > 0) {
        int x = val - 1, v = x % 2048;
        x /= 2048;
        int r = x % 4096;
        x /= 4096;
        snprintf(s, n, "%d (rank %d block %d round %d element %d mod 2048)", val, x / 8, x % 8, r, v);
    } else
        snprintf(s, n, "%d", val);
}

/* ---- datatypes: an element is ipe ints at off[] within an extent of ext ints */
typedef struct {
    const char *name;
    MPI_Datatype dt;
    int ipe, ext, off[2];
} ltype;
static ltype T_INT = { "MPI_INT", MPI_DATATYPE_NULL, 1, 1, { 0, 0 } };
static ltype T_VEC = { "vector(2,1,3,MPI_INT)", MPI_DATATYPE_NULL, 2, 4, { 0, 3 } };

/* tk 0: int -> int; 1: vector -> vector; 2: vector sent, MPI_INT received
 * (w variants: types alternate block by block, so that the types of the two
 * ends of an edge differ). */
static const ltype *stype_of(int tk, int coll, int i)
{
    if (tk == 0) return &T_INT;
    if (tk == 2 && coll == C_A2AW) return i % 2 == 0 ? &T_VEC : &T_INT;
    return &T_VEC;
}
static const ltype *rtype_of(int tk, int coll, int i)
{
    if (tk == 0) return &T_INT;
    if (tk == 1) return &T_VEC;
    if (coll == C_A2AW || coll == C_AGW) return i % 2 == 0 ? &T_VEC : &T_INT;
    return &T_INT;
}

/* Counts of the v and w alltoalls per edge direction: c(k, 0) for blocks
 * travelling towards -1 along k, c(k, 1) towards +1.  Equal on all
 * processes; -1 and +1 differ (except k = 1 at cnt 1), zeros mixed in. */
static int cdir(int cnt, int k, int dir)
{
    if (dir == 0) return cnt + k;
    int c = 2 * cnt + 1 - k;
    return c < 0 ? 0 : c;
}

/* ---- grids */
typedef struct {
    MPI_Comm comm;
    int d, dims[MAXD], periods[MAXD], reorder;
    int rank, coords[MAXD], nbr[MAXB];
    char desc[128];
} grid;

static void grid_desc(grid *g, const char *extra)
{
    int n = snprintf(g->desc, sizeof g->desc, "dims {");
    for (int k = 0; k < g->d; k++) n += snprintf(g->desc + n, sizeof g->desc - (size_t)n, "%s%d", k ? "," : "", g->dims[k]);
    n += snprintf(g->desc + n, sizeof g->desc - (size_t)n, "} periods {");
    for (int k = 0; k < g->d; k++)
        n += snprintf(g->desc + n, sizeof g->desc - (size_t)n, "%s%d", k ? "," : "", g->periods[k]);
    snprintf(g->desc + n, sizeof g->desc - (size_t)n, "} reorder %d%s", g->reorder, extra);
}

/* The oracle's neighbours: coordinates stepped by direction, wrapped on
 * periodic dimensions, MPI_PROC_NULL off a non-periodic one; the rank from
 * MPI_Cart_rank.  Cross-checked with MPI_Cart_shift and MPI_Cart_get. */
static void grid_neighbours(grid *g)
{
    int d = -1, dims[MAXD], periods[MAXD], coords[MAXD];
    MPI_Comm_rank(g->comm, &g->rank);
    MPI_Cartdim_get(g->comm, &d);
    MT_EQ(d, g->d, "MPI_Cartdim_get");
    MPI_Cart_get(g->comm, g->d, dims, periods, coords);
    MPI_Cart_coords(g->comm, g->rank, g->d, g->coords);
    for (int k = 0; k < g->d; k++) {
        MT_EQ(dims[k], g->dims[k], "MPI_Cart_get dims");
        MT_EQ(!!periods[k], !!g->periods[k], "MPI_Cart_get periods");
        MT_EQ(coords[k], g->coords[k], "MPI_Cart_get coords");
    }
    for (int k = 0; k < g->d; k++) {
        for (int dir = 0; dir < 2; dir++) {
            int c[MAXD];
            memcpy(c, g->coords, sizeof c);
            c[k] += dir ? 1 : -1;
            int nb;
            if (c[k] < 0 || c[k] >= g->dims[k]) {
                if (g->periods[k])
                    c[k] = (c[k] + g->dims[k]) % g->dims[k];
                else
                    c[k] = -1;
            }
            if (c[k] < 0)
                nb = MPI_PROC_NULL;
            else
                MPI_Cart_rank(g->comm, c, &nb);
            g->nbr[2 * k + dir] = nb;
        }
        int src, dst;
        MPI_Cart_shift(g->comm, k, 1, &src, &dst);
        MT_EQ(src, g->nbr[2 * k], "oracle's -1 neighbour vs MPI_Cart_shift source");
        MT_EQ(dst, g->nbr[2 * k + 1], "oracle's +1 neighbour vs MPI_Cart_shift dest");
    }
}

/* ---- one operation: buffers, blocks and arguments */
typedef struct {
    long off; /* ints from the buffer start */
    int count, n; /* elements of its type; ints of its signature */
    const ltype *t;
} blk;

typedef struct {
    int coll, tk, cnt;
    int nsb, nrb;
    blk sb[MAXB], rb[MAXB];
    int *sbuf, *rbuf, *sref, *exp;
    long slen, rlen;
    mt_call c;
    int sc, rc;
    MPI_Datatype st, rt;
    int scounts[MAXB], sdispls[MAXB], rcounts[MAXB], rdispls[MAXB];
    MPI_Aint sdw[MAXB], rdw[MAXB];
    MPI_Datatype stypes[MAXB], rtypes[MAXB];
    int reported; /* first mismatch of the case already shown */
} op;

static long pos_of(const blk *b, int v)
{
    return b->off + (long)(v / b->t->ipe) * b->t->ext + b->t->off[v % b->t->ipe];
}

/* Lay blocks out: mode 0 contiguous in block order, 1 (v) reverse order in
 * units of the type's extent with a one-extent gap, 2 (w) odd blocks then
 * even ones with 3-int gaps.  Returns the buffer length in ints. */
static long lay_out(blk *b, int nb, int mode, int disp[], MPI_Aint dispw[])
{
    long pos = 0, len = 0;
    if (mode == 0) {
        for (int i = 0; i < nb; i++) {
            b[i].off = pos;
            pos += (long)b[i].count * b[i].t->ext;
        }
        len = pos;
    } else if (mode == 1) {
        long u = 1; /* in extents; all blocks share one type */
        for (int i = nb - 1; i >= 0; i--) {
            disp[i] = (int)u;
            b[i].off = u * b[i].t->ext;
            u += b[i].count + 1;
        }
        len = u * (nb ? b[0].t->ext : 1);
    } else {
        pos = 2;
        for (int pass = 1; pass >= 0; pass--)
            for (int i = pass; i < nb; i += 2) {
                b[i].off = pos;
                dispw[i] = (MPI_Aint)(pos * (long)sizeof(int));
                pos += (long)b[i].count * b[i].t->ext + 3;
            }
        len = pos;
    }
    for (int i = 0; i < nb; i++)
        if (b[i].off + (long)b[i].count * b[i].t->ext > len) len = b[i].off + (long)b[i].count * b[i].t->ext;
    return len + 1;
}

static void op_setup(op *o, int coll, int cnt, int tk, int d)
{
    memset(o, 0, sizeof *o);
    o->coll = coll;
    o->cnt = cnt;
    o->tk = tk;
    int ag = coll <= C_AGW;
    o->nsb = ag ? 1 : 2 * d;
    o->nrb = 2 * d;
    int unit = tk == 0 ? 1 : 2; /* ints per count unit of the v/w alltoalls */
    for (int i = 0; i < o->nsb; i++) {
        blk *b = &o->sb[i];
        b->t = stype_of(tk, coll, i);
        if (coll == C_A2AV || coll == C_A2AW)
            b->n = cdir(cnt, i / 2, i % 2) * unit;
        else
            b->n = cnt * b->t->ipe;
        b->count = b->n / b->t->ipe;
    }
    for (int j = 0; j < o->nrb; j++) {
        blk *b = &o->rb[j];
        b->t = rtype_of(tk, coll, j);
        if (coll == C_A2AV || coll == C_A2AW)
            b->n = cdir(cnt, j / 2, 1 - j % 2) * unit; /* block 2k arrives travelling towards +1 */
        else
            b->n = cnt * stype_of(tk, coll, 0)->ipe;
        b->count = b->n / b->t->ipe;
    }
    int smode = coll == C_A2AV ? 1 : coll == C_A2AW ? 2 : 0;
    int rmode = (coll == C_AGV || coll == C_A2AV) ? 1 : (coll == C_AGW || coll == C_A2AW) ? 2 : 0;
    o->slen = lay_out(o->sb, o->nsb, smode, o->sdispls, o->sdw);
    o->rlen = lay_out(o->rb, o->nrb, rmode, o->rdispls, o->rdw);
    o->sbuf = malloc(sizeof(int) * (size_t)o->slen);
    o->sref = malloc(sizeof(int) * (size_t)o->slen);
    o->rbuf = malloc(sizeof(int) * (size_t)o->rlen);
    o->exp = malloc(sizeof(int) * (size_t)o->rlen);
    if (!o->sbuf || !o->sref || !o->rbuf || !o->exp) {
        fprintf(stderr, "test_cartcomm: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    o->st = o->sb[0].t->dt;
    o->rt = o->rb[0].t->dt;
    o->sc = o->sb[0].count;
    o->rc = o->rb[0].count;
    for (int i = 0; i < o->nsb; i++) {
        o->scounts[i] = o->sb[i].count;
        o->stypes[i] = o->sb[i].t->dt;
    }
    for (int j = 0; j < o->nrb; j++) {
        o->rcounts[j] = o->rb[j].count;
        o->rtypes[j] = o->rb[j].t->dt;
    }
}

static void op_free(op *o)
{
    free(o->sbuf);
    free(o->sref);
    free(o->rbuf);
    free(o->exp);
}

/* New contents for a round: send blocks from content(), gaps SENT_S, the
 * receive buffer all SENT_R. */
static void op_fill(op *o, const grid *g, int round)
{
    for (long x = 0; x < o->slen; x++) o->sbuf[x] = SENT_S;
    for (int i = 0; i < o->nsb; i++)
        for (int v = 0; v < o->sb[i].n; v++) o->sbuf[pos_of(&o->sb[i], v)] = content(g->rank, i, round, v);
    memcpy(o->sref, o->sbuf, sizeof(int) * (size_t)o->slen);
    for (long x = 0; x < o->rlen; x++) o->rbuf[x] = SENT_R;
}

/* Which send block of the neighbour lands in receive block j. */
static int source_block(int coll, int j)
{
    if (coll <= C_AGW) return 0; /* allgather: the one block */
    int k = j / 2;
    /* Receive block 2k comes from the -1 neighbour, which sent it towards
     * +1: its block 2k+1.  Receive block 2k+1 comes from the +1 neighbour,
     * which sent it towards -1: its block 2k. */
    return j % 2 == 0 ? 2 * k + 1 : 2 * k;
}

static void op_expect(op *o, const grid *g, int round)
{
    for (long x = 0; x < o->rlen; x++) o->exp[x] = SENT_R;
    for (int j = 0; j < o->nrb; j++) {
        int src = g->nbr[j];
        if (src == MPI_PROC_NULL) continue; /* untouched */
        int sbk = source_block(o->coll, j);
        for (int v = 0; v < o->rb[j].n; v++) o->exp[pos_of(&o->rb[j], v)] = content(src, sbk, round, v);
    }
}

/* Where buffer position x lies: block and element, or a gap. */
static void locate(const blk *b, int nb, long x, char *s, size_t n)
{
    for (int i = 0; i < nb; i++)
        for (int v = 0; v < b[i].n; v++)
            if (pos_of(&b[i], v) == x) {
                snprintf(s, n, "block %d (dim %d, %s) element %d", i, i / 2, i % 2 ? "+1" : "-1", v);
                return;
            }
    snprintf(s, n, "gap at int %ld (no block element)", x);
}

static const char *case_tag(const op *o, int form, const grid *g, int round, int nrounds, char *s, size_t n)
{
    char r[32] = "";
    if (nrounds > 0) snprintf(r, sizeof r, " (call %d of %d)", round, nrounds);
    snprintf(s, n, "%s %s%s, grid %s, count %d, types %s", coll_name[o->coll], form_name[form], r, g->desc, o->cnt,
             tk_name[o->tk]);
    return s;
}

static void mismatch(op *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void mismatch(op *o, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    mt_checks++;
    if (o->reported) {
        mt_failures++;
        return;
    }
    o->reported = 1;
    mt_fail(__FILE__, __LINE__, "%s", msg);
}

/* Compare the whole receive buffer with the oracle and the send buffer with
 * its copy; the first mismatch of the case is reported. */
static void op_check(op *o, const grid *g, int form, int round, int rno, int nrounds)
{
    char tag[400], where[120], e[96], got[96];
    op_expect(o, g, round);
    for (long x = 0; x < o->rlen; x++) {
        if (o->rbuf[x] == o->exp[x]) continue;
        locate(o->rb, o->nrb, x, where, sizeof where);
        describe(o->exp[x], e, sizeof e);
        describe(o->rbuf[x], got, sizeof got);
        int j = -1;
        for (int i = 0; i < o->nrb && j < 0; i++)
            for (int v = 0; v < o->rb[i].n; v++)
                if (pos_of(&o->rb[i], v) == x) j = i;
        char from[40] = "";
        if (j >= 0 && g->nbr[j] == MPI_PROC_NULL)
            snprintf(from, sizeof from, " (from MPI_PROC_NULL)");
        else if (j >= 0)
            snprintf(from, sizeof from, " (from rank %d)", g->nbr[j]);
        mismatch(o, "rank %d (world %d): %s: receive %s%s: expected %s, got %s", g->rank, mt_rank,
                 case_tag(o, form, g, rno, nrounds, tag, sizeof tag), where, from, e, got);
        return;
    }
    for (long x = 0; x < o->slen; x++) {
        if (o->sbuf[x] == o->sref[x]) continue;
        locate(o->sb, o->nsb, x, where, sizeof where);
        describe(o->sref[x], e, sizeof e);
        describe(o->sbuf[x], got, sizeof got);
        mismatch(o, "rank %d (world %d): %s: send buffer changed at %s: was %s, now %s", g->rank, mt_rank,
                 case_tag(o, form, g, rno, nrounds, tag, sizeof tag), where, e, got);
        return;
    }
    mt_checks++;
}

static void report_rc(op *o, const grid *g, int form, const char *what, int rc)
{
    char tag[400], s[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, s, &len);
    mismatch(o, "rank %d (world %d): %s: %s returned %d: %s", g->rank, mt_rank,
             case_tag(o, form, g, 0, 0, tag, sizeof tag), what, rc, s);
}

/* Issue the collective (form 0 blocking, 1 non-blocking, 2 *_init) with
 * copies of the argument arrays; after non-blocking and *_init calls the
 * copies are overwritten and duplicated derived datatypes freed. */
static int op_issue(op *o, int form, MPI_Comm comm, MPI_Info info, Cart_request *req)
{
    int scounts[MAXB], sdispls[MAXB], rcounts[MAXB], rdispls[MAXB];
    MPI_Aint sdw[MAXB], rdw[MAXB];
    MPI_Datatype stypes[MAXB], rtypes[MAXB], st = o->st, rt = o->rt;
    MPI_Datatype dups[2 * MAXB + 2];
    int ndups = 0;
    memcpy(scounts, o->scounts, sizeof scounts);
    memcpy(sdispls, o->sdispls, sizeof sdispls);
    memcpy(rcounts, o->rcounts, sizeof rcounts);
    memcpy(rdispls, o->rdispls, sizeof rdispls);
    memcpy(sdw, o->sdw, sizeof sdw);
    memcpy(rdw, o->rdw, sizeof rdw);
    memcpy(stypes, o->stypes, sizeof stypes);
    memcpy(rtypes, o->rtypes, sizeof rtypes);
    if (form != 0) {
#define DUP_DERIVED(t)                                   \
    do {                                                 \
        if ((t) == T_VEC.dt) {                           \
            MPI_Type_dup((t), &dups[ndups]);             \
            (t) = dups[ndups++];                         \
        }                                                \
    } while (0)
        DUP_DERIVED(st);
        DUP_DERIVED(rt);
        for (int i = 0; i < o->nsb; i++) DUP_DERIVED(stypes[i]);
        for (int j = 0; j < o->nrb; j++) DUP_DERIVED(rtypes[j]);
#undef DUP_DERIVED
    }
    /* Buffers whose blocks are all empty are passed as NULL (allowed). */
    int sempty = 1, rempty = 1;
    for (int i = 0; i < o->nsb; i++) sempty &= o->sb[i].n == 0;
    for (int j = 0; j < o->nrb; j++) rempty &= o->rb[j].n == 0;
    mt_call c = { .sb = sempty ? NULL : o->sbuf, .rb = rempty ? NULL : o->rbuf, .sc = o->sc, .rc = o->rc,
                  .st = st, .rt = rt,
                  .scounts = scounts, .sdispls = sdispls, .rcounts = rcounts, .rdispls = rdispls,
                  .sdispw = sdw, .rdispw = rdw, .stypes = stypes, .rtypes = rtypes };
    int rc = mt_collective(form, o->coll, &c, comm, info, req);
    if (form != 0) {
        for (int i = 0; i < MAXB; i++) {
            scounts[i] = rcounts[i] = -1;
            sdispls[i] = rdispls[i] = -1000000;
            sdw[i] = rdw[i] = -((MPI_Aint)1 << 40);
            stypes[i] = rtypes[i] = MPI_DATATYPE_NULL;
        }
        for (int i = 0; i < ndups; i++) MPI_Type_free(&dups[i]);
    }
    return rc;
}

static MPI_Info next_info(void)
{
    if (!info_cycle) return MPI_INFO_NULL;
    static const char *const algs[4] = { NULL, "direct", "combining", "torus" };
    return mt_info(algs[alg_ctr++ % 4], NULL);
}

/* One case: a collective in one form with one count and type kind. */
static void run_case(grid *g, int coll, int form, int cnt, int tk)
{
    op o;
    op_setup(&o, coll, cnt, tk, g->d);
    ncases++;
    if (form < 2) {
        const int nrounds = 2; /* the same buffers twice: cached plans */
        for (int r = 0; r < nrounds; r++) {
            int round = round_ctr++;
            op_fill(&o, g, round);
            Cart_request req = CART_REQUEST_NULL;
            int rc = op_issue(&o, form, g->comm, MPI_INFO_NULL, form ? &req : NULL);
            if (rc != MPI_SUCCESS) {
                report_rc(&o, g, form, "the call", rc);
                break;
            }
            if (form == 1) {
                /* First round Cart_wait, second a Cart_test loop. */
                int flag = 0;
                if (r == 0)
                    rc = Cart_wait(&req);
                else
                    while (rc == MPI_SUCCESS && !flag) rc = Cart_test(&req, &flag);
                if (rc != MPI_SUCCESS) {
                    report_rc(&o, g, form, r == 0 ? "Cart_wait" : "Cart_test", rc);
                    break;
                }
                MT_CHECK(req == CART_REQUEST_NULL, "Cart_wait/Cart_test left a completed non-blocking request non-null");
            }
            op_check(&o, g, form, round, r + 1, nrounds);
        }
    } else {
        const int nrounds = 3;
        Cart_request req = CART_REQUEST_NULL;
        MPI_Info info = next_info();
        int rc = op_issue(&o, 2, g->comm, info, &req);
        mt_info_free(&info);
        if (rc != MPI_SUCCESS) {
            report_rc(&o, g, form, "the *_init call", rc);
        } else {
            MT_CHECK(req != CART_REQUEST_NULL, "*_init returned CART_REQUEST_NULL");
            for (int r = 0; r < nrounds; r++) {
                int round = round_ctr++;
                op_fill(&o, g, round);
                rc = Cart_start(&req);
                if (rc == MPI_SUCCESS) rc = Cart_wait(&req);
                if (rc != MPI_SUCCESS) {
                    report_rc(&o, g, form, "Cart_start/Cart_wait", rc);
                    break;
                }
                MT_CHECK(req != CART_REQUEST_NULL, "Cart_wait freed a persistent request");
                op_check(&o, g, form, round, r + 1, nrounds);
            }
            rc = Cart_request_free(&req);
            if (rc != MPI_SUCCESS) report_rc(&o, g, form, "Cart_request_free", rc);
            MT_CHECK(req == CART_REQUEST_NULL, "Cart_request_free left the request non-null");
        }
    }
    if (o.reported) ncases_failed++;
    op_free(&o);
}

/* Every collective in every form on one communicator.  Level 2: all nine
 * (count, type kind) pairs; level 1 rotates three of them so that each
 * count and each type kind meets each (collective, form) on every grid;
 * level 0 (duplicates): one pair per collective and form. */
static void run_grid(grid *g, int gi, int lvl)
{
    for (int coll = 0; coll < NCOLL; coll++)
        for (int form = 0; form < 3; form++) {
            if (lvl >= 2) {
                for (int ci = 0; ci < 3; ci++)
                    for (int tk = 0; tk < 3; tk++) run_case(g, coll, form, counts[ci], tk);
            } else if (lvl == 1) {
                for (int j = 0; j < 3; j++)
                    run_case(g, coll, form, counts[(coll + form + gi + j) % 3], (gi + form + j * 2) % 3);
            } else {
                run_case(g, coll, form, counts[(coll + form + gi) % 3 == 0 ? 2 : 1], (gi + coll + form) % 3);
            }
        }
}

/* Blocks of up to 80 KB (rendezvous protocols; on size-2 periodic
 * dimensions two large messages of different sizes to one process). */
static void run_big(grid *g)
{
    run_case(g, C_A2AV, 2, BIG, 2);
    run_case(g, C_A2AW, 1, BIG, 2);
    run_case(g, C_AG, 0, BIG, 1);
    run_case(g, C_A2A, 0, BIG, 0);
}

/* Persistent and non-blocking requests in one Cart_waitall. */
static void run_mixed(grid *g)
{
    enum { NP = 3, NN = 3 };
    static const int spec[NP + NN][3] = { /* coll, count, type kind */
                                          { C_A2A, 5, 1 },  { C_AGW, 1, 2 }, { C_A2AV, 5, 2 },
                                          { C_A2AW, 1, 2 }, { C_AG, 5, 0 },  { C_AGV, 1, 1 } };
    op o[NP + NN];
    Cart_request req[NP + NN];
    for (int i = 0; i < NP + NN; i++) {
        op_setup(&o[i], spec[i][0], spec[i][1], spec[i][2], g->d);
        req[i] = CART_REQUEST_NULL;
        ncases++;
    }
    int ok = 1;
    for (int i = 0; i < NP; i++) {
        MPI_Info info = next_info();
        int rc = op_issue(&o[i], 2, g->comm, info, &req[i]);
        mt_info_free(&info);
        if (rc != MPI_SUCCESS) {
            report_rc(&o[i], g, 2, "the *_init call (mixed waitall)", rc);
            ok = 0;
        }
    }
    for (int r = 0; ok && r < 3; r++) {
        int round[NP + NN];
        for (int i = 0; i < NP + NN; i++) {
            round[i] = round_ctr++;
            op_fill(&o[i], g, round[i]);
        }
        /* Round 0: Cart_startall, then the non-blocking calls; round 1:
         * non-blocking first; round 2: interleaved. */
        int rc = MPI_SUCCESS;
        if (r == 0) rc = Cart_startall(NP, req);
        for (int i = 0; i < NN && rc == MPI_SUCCESS; i++) {
            if (r == 2) rc = Cart_start(&req[i]);
            if (rc == MPI_SUCCESS) rc = op_issue(&o[NP + i], 1, g->comm, MPI_INFO_NULL, &req[NP + i]);
        }
        if (r == 1)
            for (int i = 0; i < NP && rc == MPI_SUCCESS; i++) rc = Cart_start(&req[i]);
        if (rc == MPI_SUCCESS) rc = Cart_waitall(NP + NN, req);
        if (rc != MPI_SUCCESS) {
            report_rc(&o[0], g, 2, "start/non-blocking/Cart_waitall (mixed)", rc);
            break;
        }
        for (int i = 0; i < NP + NN; i++) {
            MT_CHECK((i < NP) == (req[i] != CART_REQUEST_NULL),
                     "Cart_waitall (mixed): request %d is %snull afterwards", i, req[i] ? "non-" : "");
            op_check(&o[i], g, i < NP ? 2 : 1, round[i], r + 1, 3);
        }
    }
    for (int i = 0; i < NP; i++)
        if (req[i] != CART_REQUEST_NULL) Cart_request_free(&req[i]);
    for (int i = 0; i < NP + NN; i++) {
        if (o[i].reported) ncases_failed++;
        op_free(&o[i]);
    }
}

/* ---- the list of grids */
typedef struct {
    int d, dims[MAXD], periods[MAXD], reorder;
    int dup;  /* 1: dup after use, 2: dup before the first call */
    int base; /* 1: MPI_Cart_create over MPI_COMM_WORLD with ranks reversed */
    int remain[MAXD], sub; /* sub: use MPI_Cart_sub(remain) of the grid */
} gspec;

static int nspecs = 0;
static gspec specs[128];

static void add_spec(int d, const int dims[], const int periods[], int reorder, int dup)
{
    if (nspecs >= (int)(sizeof specs / sizeof specs[0])) return;
    gspec *s = &specs[nspecs++];
    memset(s, 0, sizeof *s);
    s->d = d;
    memcpy(s->dims, dims, sizeof(int) * (size_t)d);
    memcpy(s->periods, periods, sizeof(int) * (size_t)d);
    s->reorder = reorder;
    s->dup = dup;
}

/* Period patterns: all periodic, none, alternating from periodic,
 * alternating from non-periodic (d = 1: the first two). */
static void periods_of(int pat, int d, int periods[])
{
    for (int k = 0; k < d; k++)
        periods[k] = pat == 0 ? 1 : pat == 1 ? 0 : pat == 2 ? (k % 2 == 0) : (k % 2 == 1);
}

/* A shape with npat period patterns, unless already listed; reorder
 * alternates in a pattern that gives each period pattern both values. */
static void add_shape(int d, const int dims[], int npat)
{
    for (int pat = 0; pat < npat && pat < (d == 1 ? 2 : 4); pat++) {
        int periods[MAXD], seen = 0;
        periods_of(pat, d, periods);
        for (int i = 0; i < nspecs && !seen; i++)
            seen = specs[i].d == d && !memcmp(specs[i].dims, dims, sizeof(int) * (size_t)d) &&
                   !memcmp(specs[i].periods, periods, sizeof(int) * (size_t)d);
        if (!seen) add_spec(d, dims, periods, (nspecs + nspecs / 4) % 2, 0);
    }
}

static void build_specs(int p)
{
    /* Hand-made shapes with dimensions of size 1 and 2. */
    static const int hand[][5] = {
        /* p, d, dims... */
        { 1, 1, 1, 0, 0 }, { 1, 2, 1, 1, 0 }, { 1, 3, 1, 1, 1 },
        { 2, 1, 2, 0, 0 }, { 2, 2, 1, 2, 0 }, { 2, 2, 2, 1, 0 }, { 2, 3, 2, 1, 1 }, { 2, 3, 1, 1, 2 },
        { 3, 1, 3, 0, 0 }, { 3, 2, 1, 3, 0 }, { 3, 3, 3, 1, 1 },
        { 4, 2, 2, 2, 0 }, { 4, 2, 4, 1, 0 }, { 4, 2, 1, 4, 0 }, { 4, 3, 2, 1, 2 }, { 4, 1, 4, 0, 0 },
        { 6, 2, 3, 2, 0 }, { 6, 2, 2, 3, 0 }, { 6, 1, 6, 0, 0 }, { 6, 3, 1, 2, 3 }, { 6, 3, 3, 1, 2 },
        { 8, 3, 2, 2, 2 }, { 8, 2, 4, 2, 0 }, { 8, 1, 8, 0, 0 },
    };
    for (size_t i = 0; i < sizeof hand / sizeof hand[0]; i++)
        if (hand[i][0] == p) add_shape(hand[i][1], &hand[i][2], 4);
    /* MPI_Dims_create grids of d = 1, 2, 3 over all processes. */
    for (int d = 1; d <= 3; d++) {
        int dims[MAXD] = { 0, 0, 0 };
        MPI_Dims_create(p, d, dims);
        add_shape(d, dims, 2);
    }
    /* Processes outside the grid (MPI_COMM_NULL): grids over p - 1. */
    if (p >= 2) {
        for (int d = 1; d <= 2; d++) {
            int dims[MAXD] = { 0, 0, 0 };
            MPI_Dims_create(p - 1, d, dims);
            add_shape(d, dims, d == 1 ? 2 : 3);
        }
    }
    /* A fully periodic grid used again through duplicates: dup after use,
     * and dup before the first call (reorder 1 and 0). */
    int dims[MAXD] = { 0, 0, 0 }, per[MAXD] = { 1, 1, 1 }, mix[MAXD] = { 1, 0, 1 };
    MPI_Dims_create(p, 2, dims);
    add_spec(2, dims, per, 1, 1);
    add_spec(2, dims, mix, 0, 2);
    int one[MAXD] = { 0, 0, 0 };
    MPI_Dims_create(p, 3, one);
    add_spec(3, one, mix, 1, 1);
    /* Over a communicator whose ranks run opposite to MPI_COMM_WORLD's. */
    add_spec(2, dims, mix, 0, 0);
    specs[nspecs - 1].base = 1;
    add_spec(1, &p, per, 1, 0);
    specs[nspecs - 1].base = 1;
    /* Cartesian communicators made by MPI_Cart_sub. */
    static const int remains[2][MAXD] = { { 1, 0, 1 }, { 0, 1, 0 } };
    for (int i = 0; i < 2; i++) {
        add_spec(3, one, mix, i, 0);
        specs[nspecs - 1].sub = 1;
        memcpy(specs[nspecs - 1].remain, remains[i], sizeof remains[i]);
    }
}

/* On a duplicate: every collective and form once.  The dup is taken while a
 * non-blocking alltoallv on the original is outstanding. */
static void run_dup(grid *g, const char *what)
{
    grid gd = *g;
    char extra[64];
    op pend;
    op_setup(&pend, C_A2AV, 5, 1, g->d);
    ncases++;
    int pround = round_ctr++;
    op_fill(&pend, g, pround);
    Cart_request preq = CART_REQUEST_NULL;
    int rc = op_issue(&pend, 1, g->comm, MPI_INFO_NULL, &preq);
    MPI_Comm_dup(g->comm, &gd.comm);
    if (rc == MPI_SUCCESS) rc = Cart_wait(&preq);
    if (rc != MPI_SUCCESS)
        report_rc(&pend, g, 1, "Cart_ialltoallv/Cart_wait around MPI_Comm_dup", rc);
    else
        op_check(&pend, g, 1, pround, 1, 1);
    if (pend.reported) ncases_failed++;
    op_free(&pend);
    snprintf(extra, sizeof extra, " [%s]", what);
    grid_desc(&gd, extra);
    grid_neighbours(&gd);
    run_grid(&gd, 1, 0);
    /* A dup of the dup, used once, then the parent and the original. */
    grid gdd = gd;
    MPI_Comm_dup(gd.comm, &gdd.comm);
    snprintf(extra, sizeof extra, " [%s of dup]", what);
    grid_desc(&gdd, extra);
    grid_neighbours(&gdd);
    run_case(&gdd, C_A2AV, 1, 5, 2);
    run_case(&gdd, C_A2A, 2, 1, 1);
    MPI_Comm_free(&gdd.comm);
    run_case(&gd, C_A2AW, 0, 5, 2);
    MPI_Comm_free(&gd.comm);
    run_case(g, C_A2A, 0, 5, 0);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "test_cartcomm");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--level") && i + 1 < argc)
            level = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--verbose"))
            verbose = 1;
        else {
            if (mt_rank == 0) fprintf(stderr, "usage: test_cartcomm [--level 1|2] [--verbose]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (getenv("CARTCOLL_ALGORITHM")) info_cycle = 0; /* the info would override it */
    MPI_Type_vector(2, 1, 3, MPI_INT, &T_VEC.dt);
    MPI_Type_commit(&T_VEC.dt);
    T_INT.dt = MPI_INT;
    {
        MPI_Aint lb, ext;
        MPI_Type_get_extent(T_VEC.dt, &lb, &ext);
        MT_EQ(ext, T_VEC.ext * (MPI_Aint)sizeof(int), "extent of the vector type");
    }
    build_specs(mt_size);
    double t0 = MPI_Wtime();
    for (int gi = 0; gi < nspecs; gi++) {
        gspec *s = &specs[gi];
        grid g;
        memset(&g, 0, sizeof g);
        g.d = s->d;
        memcpy(g.dims, s->dims, sizeof g.dims);
        memcpy(g.periods, s->periods, sizeof g.periods);
        g.reorder = s->reorder;
        MPI_Comm base = MPI_COMM_WORLD, rev = MPI_COMM_NULL;
        int brank = mt_rank;
        if (s->base) {
            MPI_Comm_split(MPI_COMM_WORLD, 0, mt_size - mt_rank, &rev);
            base = rev;
            MPI_Comm_rank(rev, &brank);
        }
        MPI_Cart_create(base, g.d, g.dims, g.periods, g.reorder, &g.comm);
        if (rev != MPI_COMM_NULL) MPI_Comm_free(&rev);
        char extra[96] = "";
        if (s->base) snprintf(extra, sizeof extra, " [ranks reversed]");
        if (s->sub) {
            grid_desc(&g, "");
            snprintf(extra, sizeof extra, " [MPI_Cart_sub of dims {%d,%d,%d} remain {%d,%d,%d}]", g.dims[0],
                     g.dims[1], g.dims[2], s->remain[0], s->remain[1], s->remain[2]);
            if (g.comm != MPI_COMM_NULL) {
                MPI_Comm sub;
                MPI_Cart_sub(g.comm, s->remain, &sub);
                MPI_Comm_free(&g.comm);
                g.comm = sub;
            }
            int d = 0;
            for (int k = 0; k < s->d; k++)
                if (s->remain[k]) {
                    g.dims[d] = s->dims[k];
                    g.periods[d++] = s->periods[k];
                }
            g.d = d;
        }
        grid_desc(&g, extra);
        if (verbose && mt_rank == 0) printf("grid %d: %s%s\n", gi, g.desc, s->dup == 2 ? " (dup first)" : "");
        if (g.comm == MPI_COMM_NULL) {
            int prod = 1;
            for (int k = 0; k < s->d; k++) prod *= s->dims[k];
            MT_CHECK(brank >= prod, "MPI_Cart_create gave MPI_COMM_NULL inside the grid");
            continue; /* outside the grid: skip */
        }
        /* Processes outside earlier grids skipped them: count rounds per
         * grid (and the *_init info cycle) so that all members agree. */
        round_ctr = 0;
        alg_ctr = 0;
        MPI_Comm_set_errhandler(g.comm, MPI_ERRORS_RETURN);
        grid_neighbours(&g);
        if (s->dup == 2) run_dup(&g, "dup before first use");
        run_grid(&g, gi, level);
        run_big(&g);
        if (gi % 3 == 0 || s->dup) run_mixed(&g);
        if (s->dup == 1) run_dup(&g, "dup after use");
        MPI_Comm_free(&g.comm);
    }
    double t1 = MPI_Wtime();
    long mine[2] = { ncases, ncases_failed }, sum[2] = { 0, 0 };
    MPI_Reduce(mine, sum, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (mt_rank == 0) {
        const char *ea = getenv("CARTCOLL_ALGORITHM"), *ee = getenv("CARTCOLL_EXECUTOR");
        printf("test_cartcomm: %d grids, %ld process-cases, %ld failed (%.2f s); algorithm %s, executor %s\n",
               nspecs, sum[0], sum[1], t1 - t0, ea ? ea : "auto, cycled through the *_init info", ee ? ee : "auto");
    }
    MPI_Type_free(&T_VEC.dt);
    return mt_finish();
}

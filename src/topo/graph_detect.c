/* Detection of Cartesian graphs (seed 000 sec. 3.2, extended to meshes and
 * to communicators without a naming): Cart_dist_graph_create[_adjacent]
 * decide whether the new graph is a stencil S on a grid (geom/detect.h:
 * every process lists the offsets of S that stay on the grid, with
 * multiplicity and in any order, MPI_PROC_NULL allowed anywhere, e.g. in
 * place of the ones that leave it) and attach a Cartesian neighbourhood
 * whose offset i is the caller's send block sperm[i] and receive block
 * rperm[i] (-1: the caller has none; MPI_PROC_NULL entries take the
 * offsets that leave the grid, in order).
 *
 * The grids tried ("slots"): comm_old's naming when it has one (in the
 * graph's ranks, which are comm_old's: cc_detect_reorder gives MPI reorder
 * = 0 for a named comm_old, and a reordering is refused here); otherwise
 * the row-major grids MPI_Dims_create(p, d) gives for d = 1..8 (those with
 * a trailing dimension of size 1 repeat a smaller d and are left out), all
 * periodic or all not, in that order (d = 1 periodic, d = 1 not, d = 2
 * ...), in the graph's own ranks, so a reordering by MPI cannot make them
 * stale.  Mixed periodicity is not guessed, but a graph that wraps around
 * some dimensions is also a mesh graph with a wider stencil (its
 * wrap-around offsets reach exactly the border processes) and is detected
 * as such when that stencil's box is small.
 *
 * Every process decides alike with at most three MPI_Allreduce calls:
 *   1. per slot: a local reason not to (a rank off the grid ...), whether
 *      the process's sources mirror its destinations (MPI_PROC_NULL
 *      entries aside: "uniform"), the number and two hashes of its sorted
 *      destination offsets, the bounds of those offsets; and the cost
 *      model (559 long longs).  A slot where everyone is uniform with equal
 *      lists is a stencil every process lists in full (a torus, or a mesh
 *      no offset leaves): the first such slot is taken at once (its t, the
 *      common number of neighbours, is the smallest any slot can have).
 *   2. otherwise, for the other slots whose box of offsets [lo, hi] has at
 *      most 4096 cells (16384 for all slots together): the maximum over
 *      the processes of each offset's multiplicity, which is S.
 *   3. whether every process's lists match S restricted to the grid.
 * The slot taken is then the one with the smallest stencil, the first on a
 * tie.  Memory O(t*d) (plus the constant-size histogram), never O(p).
 *
 * On a mesh a block may pass through a process that has no block of its
 * own for that offset: regular calls must then give the same block
 * signature on every process (cartcoll.h), which bind/call.c uses for
 * those blocks' temporaries.
 *
 * Not detected (the per-edge plan, which is correct, runs instead): grids
 * larger or smaller than the communicator, namings of more than 64
 * dimensions, graphs whose ranks MPI reordered on a named comm_old, boxes
 * of offsets too large, column-major or mixed guessed grids.
 * CARTCOLL_VERBOSE=1 prints the outcome and the reason on rank 0. */
#include "topo/adopt.h"

#include "base/errors.h"
#include "base/model.h"
#include "base/options.h"
#include "geom/detect.h"
#include "topo/comm.h"
#include "topo/naming.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    NSLOT = 17,          /* 0: comm_old's naming; 1..16: guessed grids */
    DMAX_NAMED = 64,     /* dimensions of a naming that detection handles */
    DMAX_GUESS = 8,      /* guessed grids: d = 1..8 */
    BOX_LIMIT = 4096,    /* cells of one slot's box of offsets */
    HIST_LIMIT = 16384,  /* cells of all slots' boxes together (one reduction) */
    NV = 10              /* round-1 values per slot (below) */
};
#define EMPTY_BOUND (-(1LL << 40)) /* bound of a process without destinations: below any offset */

/* Why a slot is not taken; the largest code wins in the reductions, so the
 * order is that of the sentence worth printing.  (WHY_, not R_: <unistd.h>
 * defines R_OK, and SimGrid's smpicc includes it in every file.) */
enum {
    WHY_OK = 0,
    WHY_MISMATCH,   /* the lists are not one stencil restricted to the grid */
    WHY_BOX,        /* the box of offsets is too large for the histogram */
    WHY_DIFFER,     /* the processes' lists differ (and no mesh reading was possible) */
    WHY_OFFGRID,    /* a neighbour has no grid position */
    WHY_NAMING,     /* the processes' namings differ */
    WHY_DIMS,       /* more than 64 dimensions */
    WHY_COVER,      /* the naming's grid does not cover the communicator exactly */
    WHY_REORDERED,  /* MPI reordered the ranks (named comm_old) */
    WHY_NOMEM,
    WHY_ABSENT      /* the slot does not apply (named vs unnamed) */
};
static const char *const reason_text[] = {
    "",
    "the processes' neighbour lists are not one stencil restricted to the grid",
    "the offsets span more than 4096 cells (too wide a stencil to agree on)",
    "the processes' neighbourhoods differ",
    "a neighbour has no position on the grid",
    "the processes' namings of comm_old differ",
    "the naming has more than 64 dimensions",
    "the naming's grid does not cover the communicator exactly",
    "MPI reordered the ranks",
    "out of memory",
    "the processes disagree on whether comm_old has a naming",
};

typedef struct slot {
    int d, colmajor;
    int dims[DMAX_NAMED], periods[DMAX_NAMED];
    cc_grid g;
    int reason;              /* local, then agreed */
    int uniform;             /* agreed: every process lists all of one stencil */
    int lo[DMAX_NAMED], hi[DMAX_NAMED]; /* agreed box of destination offsets */
    long long cells, hoff;   /* its cells; its offset in the histogram (-1: not counted) */
    long long t;             /* the stencil's size, once agreed */
} slot;

/* One process's graph, in the graph's ranks; CC_NONE for MPI_PROC_NULL. */
typedef struct lists {
    int rank, size, in, out;
    int *src, *dst;
} lists;

/* One process's sides on one grid (geom/detect.h), with scratch. */
typedef struct sides {
    int *me, *oo, *ro, *oi, *ri, *tmp, *perm, *sorted;
    int nvo, nvi;
} sides;

static void slot_grid(slot *s)
{
    s->g.d = s->d;
    s->g.size = 1;
    for (int k = 0; k < s->d; k++) s->g.size *= s->dims[k];
    s->g.dims = s->dims;
    s->g.periods = s->periods;
    s->g.colmajor = s->colmajor;
}

static int sides_alloc(sides *x, const lists *l, int d)
{
    size_t n = (size_t)(l->in > l->out ? l->in : l->out) + 1, D = (size_t)d;
    memset(x, 0, sizeof *x);
    x->me = malloc(sizeof(int) * (D + 2 * (size_t)l->out * D + 2 * (size_t)l->in * D + 6 * n + 2));
    if (!x->me) return -1;
    x->oo = x->me + D;
    x->oi = x->oo + (size_t)l->out * D;
    x->sorted = x->oi + (size_t)l->in * D;
    x->ro = x->sorted + (size_t)l->out * D;
    x->ri = x->ro + n;
    x->tmp = x->ri + n;
    x->perm = x->tmp + n;
    return 0;
}

/* The offsets of both sides on s's grid: 0, or -1 (a rank off the grid). */
static int sides_eval(sides *x, const lists *l, const slot *s)
{
    cc_grid_coords(&s->g, l->rank, x->me);
    x->nvo = cc_detect_side(&s->g, x->me, l->out, l->dst, 1, x->oo, x->ro, x->tmp);
    x->nvi = cc_detect_side(&s->g, x->me, l->in, l->src, -1, x->oi, x->ri, x->tmp);
    return x->nvo < 0 || x->nvi < 0 ? -1 : 0;
}

/* ---- the slots ---------------------------------------------------------- */

/* Slot 0 from comm_old's naming (named: *named = 1), or the guessed grids. */
static void make_slots(MPI_Comm comm_old, MPI_Comm g, const lists *l, slot *s, int *named)
{
    cc_naming *nm = NULL;
    int cmp = MPI_UNEQUAL;
    MPI_Comm_compare(comm_old, g, &cmp);
    for (int i = 0; i < NSLOT; i++) s[i].reason = WHY_ABSENT;
    *named = cc_naming_find(comm_old, "detection", &nm) == MPI_SUCCESS && nm != NULL;
    if (*named) {
        const cc_grid *ng = &nm->grid;
        s[0].reason = WHY_OK;
        if (cmp != MPI_CONGRUENT && cmp != MPI_IDENT) s[0].reason = WHY_REORDERED;
        else if (ng->d > DMAX_NAMED) s[0].reason = WHY_DIMS;
        else if (ng->size != l->size) s[0].reason = WHY_COVER;
        if (s[0].reason == WHY_OK) {
            s[0].d = ng->d;
            s[0].colmajor = ng->colmajor;
            for (int k = 0; k < ng->d; k++) {
                s[0].dims[k] = ng->dims[k];
                s[0].periods[k] = ng->periods[k] != 0;
            }
            slot_grid(&s[0]);
        }
        cc_naming_free(nm);
        return;
    }
    for (int d = 1; d <= DMAX_GUESS; d++) {
        int dims[DMAX_GUESS] = { 0 };
        if (MPI_Dims_create(l->size, d, dims) != MPI_SUCCESS) continue;
        if (d > 1 && dims[d - 1] == 1) continue; /* = the grid of d-1 dimensions */
        for (int per = 1; per >= 0; per--) {
            slot *x = &s[2 * d - per];
            x->reason = WHY_OK;
            x->d = d;
            x->colmajor = 0;
            for (int k = 0; k < d; k++) {
                x->dims[k] = dims[k];
                x->periods[k] = per;
            }
            slot_grid(x);
        }
    }
}

static void describe_slot(const slot *s, int named, char *buf, size_t n)
{
    char dims[120];
    size_t at = 0;
    int per = 0, mesh = 0;
    dims[0] = 0;
    for (int k = 0; k < s->d && at + 16 < sizeof dims; k++)
        at += (size_t)snprintf(dims + at, sizeof dims - at, "%s%d", k ? "x" : "", s->dims[k]);
    for (int k = 0; k < s->d; k++) {
        per |= s->periods[k] != 0;
        mesh |= s->periods[k] == 0;
    }
    snprintf(buf, n, "%lld offsets on %s, %s %s", s->t,
             named ? (s->colmajor ? "comm_old's column-major naming" : "comm_old's naming")
                   : "a row-major grid guessed for the unnamed comm_old",
             dims, per && mesh ? "partly periodic" : per ? "periodic" : "non-periodic");
}

/* ---- the three reductions ---------------------------------------------- */

/* Round 1, local part: slot i's values at v (NV), its bounds at b (2*d). */
static void round1_local(const lists *l, slot *s, long long *v, long long *b, int bd)
{
    memset(v, 0, sizeof(long long) * NV);
    for (int k = 0; k < bd; k++) b[k] = b[bd + k] = EMPTY_BOUND;
    if (s->reason == WHY_OK) {
        sides x;
        if (sides_alloc(&x, l, s->d)) {
            s->reason = WHY_NOMEM;
        } else if (sides_eval(&x, l, s)) {
            s->reason = WHY_OFFGRID;
        } else {
            int d = s->d, lo[DMAX_NAMED], hi[DMAX_NAMED];
            /* uniform: the sources mirror the destinations (MPI_PROC_NULL
             * entries aside) */
            cc_detect_gather(d, x.oo, x.ro, x.nvo, x.sorted);
            int uniform = cc_detect_match(&s->g, x.me, x.nvo, x.sorted, -1, l->in, x.oi, x.ri, x.nvi, x.perm) == 0;
            long long td = (long long)x.nvo * d;
            long long h = cc_hash_ints(x.sorted, td, 1469598103934665603ULL);
            long long h2 = cc_hash_ints(x.sorted, td, 0x9e3779b97f4a7c15ULL ^ (unsigned long long)td);
            v[1] = !uniform;
            v[2] = x.nvo;
            v[3] = -(long long)x.nvo;
            v[4] = h;
            v[5] = -h;
            v[6] = h2;
            v[7] = -h2;
            cc_detect_bounds(d, x.oo, x.ro, x.nvo, lo, hi);
            for (int k = 0; x.nvo > 0 && k < d; k++) {
                b[k] = hi[k];
                b[bd + k] = -(long long)lo[k];
            }
        }
        free(x.me);
    }
    if (s->reason == WHY_OK && s->d > 0) { /* the naming itself, equal everywhere? */
        unsigned long long h = (unsigned long long)cc_hash_ints(&s->d, 1, 7ULL + (unsigned)s->colmajor);
        h = (unsigned long long)cc_hash_ints(s->dims, s->d, h);
        v[8] = cc_hash_ints(s->periods, s->d, h);
        v[9] = -v[8];
    }
    v[0] = s->reason;
}

/* Round 1, agreed: reason, uniform, box. */
static void round1_agreed(slot *s, const long long *r, const long long *b, int bd)
{
    s->reason = (int)r[0];
    if (s->reason == WHY_OK && r[8] != -r[9]) s->reason = WHY_NAMING;
    if (s->reason != WHY_OK) return;
    s->uniform = r[1] == 0 && r[2] == -r[3] && r[4] == -r[5] && r[6] == -r[7];
    s->t = r[2];
    if (s->uniform) return;
    s->cells = 0;
    if (b[0] == EMPTY_BOUND) return; /* nobody has a destination */
    for (int k = 0; k < s->d && k < bd; k++) {
        s->hi[k] = (int)b[k];
        s->lo[k] = (int)-b[bd + k];
    }
    s->cells = cc_box_cells(s->d, s->lo, s->hi, BOX_LIMIT);
    if (s->cells < 0) s->reason = WHY_BOX;
}

/* Round 3, local: the stencil of slot s from its histogram, and whether
 * this process's lists are that stencil restricted to the grid; with
 * sperm/rperm (t each) when wanted.  *S is the stencil (free it). */
static int verify(const lists *l, slot *s, const int *hist, int **S, int *sperm, int *rperm)
{
    *S = NULL;
    int d = s->d;
    long long t = s->cells ? cc_detect_stencil(d, s->lo, s->hi, s->cells, hist, (1LL << 28) / (d + 1), NULL) : 0;
    if (t < 0) return WHY_MISMATCH;
    s->t = t;
    sides x;
    if (sides_alloc(&x, l, d)) return WHY_NOMEM;
    int *own = malloc(sizeof(int) * (size_t)(2 * t + 2)), rc = WHY_OK;
    *S = malloc(sizeof(int) * (size_t)(t * d + 1));
    if (!own || !*S) {
        rc = WHY_NOMEM;
    } else {
        if (t) cc_detect_stencil(d, s->lo, s->hi, s->cells, hist, t, *S);
        int *sp = sperm ? sperm : own, *rp = rperm ? rperm : own + t + 1;
        if (sides_eval(&x, l, s) ||
            cc_detect_match(&s->g, x.me, (int)t, *S, 1, l->out, x.oo, x.ro, x.nvo, sp) ||
            cc_detect_match(&s->g, x.me, (int)t, *S, -1, l->in, x.oi, x.ri, x.nvi, rp))
            rc = WHY_MISMATCH;
    }
    free(own);
    free(x.me);
    return rc;
}

/* The uniform slot's stencil: this process's sorted destination offsets. */
static int uniform_stencil(const lists *l, slot *s, int **S, int *sperm, int *rperm)
{
    sides x;
    *S = NULL;
    if (sides_alloc(&x, l, s->d)) return WHY_NOMEM;
    int rc = WHY_OK;
    *S = malloc(sizeof(int) * ((size_t)l->out * (size_t)s->d + 1));
    if (!*S || sides_eval(&x, l, s)) {
        rc = *S ? WHY_OFFGRID : WHY_NOMEM;
    } else {
        cc_detect_gather(s->d, x.oo, x.ro, x.nvo, *S);
        memcpy(sperm, x.ro, sizeof(int) * (size_t)x.nvo);
        if (cc_detect_match(&s->g, x.me, x.nvo, *S, -1, l->in, x.oi, x.ri, x.nvi, rperm)) rc = WHY_MISMATCH;
    }
    free(x.me);
    return rc;
}

/* ---- the neighbourhood -------------------------------------------------- */

static int attach(MPI_Comm g, MPI_Info info, const lists *l, const slot *s, const int *S, int *sperm, int *rperm,
                  const cc_cost_params *model, const char *who, int (*wait)(MPI_Request *))
{
    int t = (int)s->t;
    cc_nbh *n = cc_nbh_new(s->d, s->dims, s->periods, t, S, NULL);
    if (!n) return MPI_ERR_NO_MEM;
    n->grid.colmajor = s->colmajor;
    cc_nbh_place(n, l->rank);
    n->detected = 1;
    n->ragged = 1; /* MPI's meaning: v/w block sizes agree per edge only */
    n->indeg = l->in; /* the caller's own numbers of blocks */
    n->outdeg = l->out;
    n->sperm = sperm;
    n->rperm = rperm;
    /* every process must choose alike without talking: environment and
     * the creation's info (equal everywhere, as MPI requires of info in
     * collective calls); the model agreed in round 1 */
    int rc = cc_options_env(&n->defaults);
    if (rc == MPI_SUCCESS) rc = cc_options_info(info, &n->defaults, who);
    n->model = *model;
    if (rc == MPI_SUCCESS) rc = cc_comm_attach_idup(g, n);
    if (rc != MPI_SUCCESS) {
        cc_nbh_release(n); /* frees sperm, rperm */
        return rc;
    }
    /* Complete the private duplicate now (advancing the caller's requests
     * meanwhile): Open MPI 4.1 can hang when the program makes another
     * communicator from g while an MPI_Comm_idup of g is pending
     * (open-mpi/ompi#2025), and programs do that right after creating a
     * graph. */
    cc_comm *cs = cc_comm_find(g);
    if (cs && (rc = cc_comm_finish_dup(cs, wait)) != MPI_SUCCESS) return cc_error_mpi_code(rc, who);
    return MPI_SUCCESS;
}

/* This process's lists (MPI_PROC_NULL -> CC_NONE).  MPI_SUCCESS or a code. */
static int read_lists(MPI_Comm g, lists *l)
{
    int weighted = 0;
    int rc = MPI_Dist_graph_neighbors_count(g, &l->in, &l->out, &weighted);
    if (rc != MPI_SUCCESS) return rc;
    size_t n = (size_t)l->in + (size_t)l->out;
    l->src = malloc(sizeof(int) * (2 * n + 2));
    if (!l->src) return MPI_ERR_NO_MEM;
    l->dst = l->src + l->in;
    int *w = l->dst + l->out + 1;
    rc = MPI_Dist_graph_neighbors(g, l->in, l->src, weighted ? w : MPI_UNWEIGHTED, l->out, l->dst,
                                  weighted ? w + l->in : MPI_UNWEIGHTED);
    for (size_t i = 0; rc == MPI_SUCCESS && i < n; i++)
        if (l->src[i] == MPI_PROC_NULL) l->src[i] = CC_NONE;
    return rc;
}

/* CARTCOLL_VERBOSE: the outcome, one line (rank 0). */
static void verbose_line(const char *who, const slot *s, int named, int pick, int rc, int size)
{
    char desc[200];
    if (pick >= 0) {
        describe_slot(&s[pick], named, desc, sizeof desc);
        fprintf(stderr, "cartcoll: %s: Cartesian (message-combining schedules): %s\n", who, desc);
        return;
    }
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "cartcoll: %s: not Cartesian: an error occurred during detection\n", who);
        return;
    }
    int why = WHY_OK, tried = 0;
    for (int i = 1; i < NSLOT; i++)
        if (s[i].reason != WHY_ABSENT) {
            tried++;
            if (s[i].reason > why) why = s[i].reason;
        }
    if (named || tried == 0) {
        why = s[0].reason > WHY_OK && s[0].reason <= WHY_ABSENT ? s[0].reason : WHY_MISMATCH;
        fprintf(stderr, "cartcoll: %s: not Cartesian with respect to comm_old's naming: %s\n", who, reason_text[why]);
        return;
    }
    fprintf(stderr,
            "cartcoll: %s: not Cartesian: comm_old has no naming and none of the %d row-major grids "
            "MPI_Dims_create(%d, d) gives for d = 1..8, periodic or not, fits (%s)\n",
            who, tried, size, reason_text[why > WHY_OK && why < WHY_ABSENT ? why : WHY_MISMATCH]);
}

/* The state of one detection, shared by its rounds. */
typedef struct detection {
    lists l;
    slot s[NSLOT];
    int *h;                 /* histogram and verdict scratch, allocated before round 1 */
    int named, pick, rc, mrc;
    cc_cost_params model;
    int *S, *sperm, *rperm; /* the chosen slot's stencil and permutations */
} detection;

/* Round 1: every slot's local values, bounds and the cost model, reduced
 * once; a slot where every process is uniform with equal lists is taken. */
static void round1(detection *D, MPI_Comm g)
{
    /* [slot values | slot 0 bounds (64 dims) | guessed bounds (8 each) | model] */
    enum { B0 = NSLOT * NV, BG = B0 + 2 * DMAX_NAMED, MODEL = BG + (NSLOT - 1) * 2 * DMAX_GUESS, LEN1 = MODEL + CC_MODEL_FIELDS };
    long long v1[LEN1], r1[LEN1];
    for (int i = 0; i < NSLOT; i++) {
        int bd = i ? DMAX_GUESS : DMAX_NAMED;
        long long *b = i ? v1 + BG + (i - 1) * 2 * DMAX_GUESS : v1 + B0;
        round1_local(&D->l, &D->s[i], v1 + i * NV, b, bd);
    }
    cc_cost_params m;
    int need;
    (void)cc_model_local(&m, &need); /* a bad environment value: unknown, the defaults after agreeing */
    cc_model_to_bits(&m, v1 + MODEL);
    D->mrc = MPI_Allreduce(v1, r1, LEN1, MPI_LONG_LONG, MPI_MAX, g);
    cc_model_from_bits(r1 + MODEL, &D->model);
    D->pick = -1;
    for (int i = 0; D->mrc == MPI_SUCCESS && i < NSLOT; i++) {
        int bd = i ? DMAX_GUESS : DMAX_NAMED;
        const long long *b = i ? r1 + BG + (i - 1) * 2 * DMAX_GUESS : r1 + B0;
        round1_agreed(&D->s[i], r1 + i * NV, b, bd);
        if (D->pick < 0 && D->s[i].reason == WHY_OK && D->s[i].uniform) D->pick = i;
    }
}

/* Room in the histogram for the slots that may be meshes. */
static long long histogram_cells(detection *D)
{
    long long cells = 0;
    for (int i = 0; i < NSLOT; i++) {
        slot *x = &D->s[i];
        x->hoff = -1;
        if (D->mrc != MPI_SUCCESS || D->pick >= 0 || x->reason != WHY_OK) continue;
        if (cells + x->cells > HIST_LIMIT) {
            x->reason = WHY_BOX;
            continue;
        }
        x->hoff = cells;
        cells += x->cells;
    }
    return cells;
}

static int alloc_perms(detection *D)
{
    D->sperm = malloc(sizeof(int) * (size_t)(D->s[D->pick].t + 1));
    D->rperm = malloc(sizeof(int) * (size_t)(D->s[D->pick].t + 1));
    return D->sperm && D->rperm ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

/* Rounds 2 and 3 when no slot is uniform: the histogram of the slots that
 * may be meshes (the maximum multiplicity of each offset is S), then the
 * verdicts; the smallest stencil wins. */
static void mesh_rounds(detection *D, MPI_Comm g)
{
    long long cells = histogram_cells(D);
    int *h = D->h, *hr = h + cells + 1, *verdict = hr + cells + 1, *vr = verdict + NSLOT, counted = 0;
    memset(h, 0, sizeof(int) * (size_t)(cells + 1));
    for (int i = 0; i < NSLOT; i++) {
        if (D->s[i].hoff < 0) continue;
        counted = 1;
        sides x;
        if (sides_alloc(&x, &D->l, D->s[i].d) == 0 && sides_eval(&x, &D->l, &D->s[i]) == 0)
            cc_detect_count(D->s[i].d, D->s[i].lo, D->s[i].hi, x.oo, x.ro, x.nvo, h + D->s[i].hoff);
        free(x.me);
    }
    if (!counted) return;
    D->mrc = MPI_Allreduce(h, hr, (int)cells + 1, MPI_INT, MPI_MAX, g);
    for (int i = 0; i < NSLOT; i++) {
        verdict[i] = WHY_ABSENT;
        if (D->mrc != MPI_SUCCESS || D->s[i].hoff < 0) continue;
        verdict[i] = verify(&D->l, &D->s[i], hr + D->s[i].hoff, &D->S, NULL, NULL);
        free(D->S);
        D->S = NULL;
    }
    if (D->mrc == MPI_SUCCESS) D->mrc = MPI_Allreduce(verdict, vr, NSLOT, MPI_INT, MPI_MAX, g);
    for (int i = 0; D->mrc == MPI_SUCCESS && i < NSLOT; i++) {
        if (D->s[i].hoff < 0) continue;
        D->s[i].reason = vr[i];
        if (vr[i] == WHY_OK && (D->pick < 0 || D->s[i].t < D->s[D->pick].t)) D->pick = i;
    }
    /* the chosen slot's stencil and permutations, again (memory for one slot
     * at a time) */
    if (D->mrc == MPI_SUCCESS && D->pick >= 0 && (D->rc = alloc_perms(D)) == MPI_SUCCESS &&
        verify(&D->l, &D->s[D->pick], hr + D->s[D->pick].hoff, &D->S, D->sperm, D->rperm) != WHY_OK)
        D->rc = MPI_ERR_INTERN;
}

int cc_detect_reorder(MPI_Comm comm_old, int reorder)
{
    cc_naming *n = NULL;
    int size = -1, named = 0;
    if (reorder && cc_naming_find(comm_old, "detection", &n) == MPI_SUCCESS && n) {
        MPI_Comm_size(comm_old, &size);
        named = n->grid.size == size;
    }
    cc_naming_free(n);
    return named ? 0 : reorder;
}

int cc_detect(MPI_Comm comm_old, MPI_Comm g, MPI_Info info, const char *who, int (*wait)(MPI_Request *))
{
    detection D;
    memset(&D, 0, sizeof D);
    MPI_Comm_rank(g, &D.l.rank);
    MPI_Comm_size(g, &D.l.size);
    /* Everything a process needs to take part in rounds 2 and 3, allocated
     * before round 1: a process short of memory declines there, so every
     * process stays in step. */
    D.h = malloc(sizeof(int) * (2 * HIST_LIMIT + 2 * NSLOT + 2));
    if (D.h && read_lists(g, &D.l) == MPI_SUCCESS) {
        make_slots(comm_old, g, &D.l, D.s, &D.named);
    } else {
        /* out of memory (or no lists to look at, which cannot happen after
         * a successful create): take part as a process that declines; the
         * graph stays a correct MPI graph */
        free(D.l.src);
        D.l.src = D.l.dst = NULL;
        D.l.in = D.l.out = 0;
        for (int i = 0; i < NSLOT; i++) D.s[i].reason = WHY_NOMEM;
    }
    round1(&D, g);
    if (D.mrc == MPI_SUCCESS && D.pick < 0 && D.h) {
        mesh_rounds(&D, g);
    } else if (D.mrc == MPI_SUCCESS && D.pick >= 0) {
        if ((D.rc = alloc_perms(&D)) == MPI_SUCCESS &&
            uniform_stencil(&D.l, &D.s[D.pick], &D.S, D.sperm, D.rperm) != WHY_OK)
            D.rc = MPI_ERR_INTERN;
    }
    int rc = D.mrc != MPI_SUCCESS ? D.mrc : D.rc;
    int cart = rc == MPI_SUCCESS && D.pick >= 0;
    if (cart) {
        rc = attach(g, info, &D.l, &D.s[D.pick], D.S, D.sperm, D.rperm, &D.model, who, wait);
    } else {
        free(D.sperm);
        free(D.rperm);
    }
    if (cc_verbose() && D.l.rank == 0)
        verbose_line(who, D.s, D.named, cart && rc == MPI_SUCCESS ? D.pick : -1, rc, D.l.size);
    free(D.S);
    free(D.l.src);
    free(D.h);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : cc_error_mpi(g, rc, who);
}

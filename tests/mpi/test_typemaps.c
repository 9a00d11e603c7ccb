/* Randomized test of derived datatypes with unusual type maps in the
 * Cartesian collectives.
 *
 * Every process draws the same cases from a seeded RNG: a grid of d <= 3
 * dimensions (sizes 1..4, periodic and mesh dimensions, sometimes fewer grid
 * points than processes), t <= 12 offsets with repeats, zero vectors and
 * offsets larger than the grid, and on it several operations: one of the six
 * collectives (allgather, alltoall; regular, v, w), blocking, non-blocking or
 * persistent (started twice with new data), the algorithm and executor
 * cycled through the create and *_init info.  Each operation has a focus
 * category; its send and receive datatypes are built at random from it, with
 * plain types mixed in:
 *   plain      predefined types, contiguous of them
 *   negstride  vector / hvector with negative strides (reversed runs whose
 *              origin is the last element), alone, in contiguous, resized
 *   overlap    send types whose map reads a byte more than once (struct or
 *              hindexed_block with repeated displacements, vectors with
 *              stride < blocklength, resized below the true extent)
 *   resized    larger extent, negative lower bound, data before lb
 *   indexed    indexed / hindexed / (h)indexed_block, displacements out of
 *              order, some negative, with and without gaps
 *   struct     int/double/char structs with gaps in any memory order
 *   compose    contiguous / vector / hvector of the above
 * Send block i and receive block i have the same signature: a family's base
 * sequence (one basic type, or a mixed int/double/char sequence) repeated.
 *
 * The types are built together with a model of their type maps (offset and
 * basic type of every primitive, in type-map order; lb, extent), checked
 * against MPI_Type_size/get_extent/get_true_extent and against MPI_Pack of
 * two elements.
 * Oracle 1 (first principles): process R receives block i from R - N[i]
 * (row-major rank arithmetic here); the source's send buffer is rebuilt
 * locally, its block read primitive by primitive through the model (so an
 * overlapping map reads what the buffer holds), and written through the
 * model of receive block i.  Every other byte keeps its sentinel (blocks
 * from MPI_PROC_NULL, gaps, margins); the send buffer is unchanged.
 * Oracle 2: MPI_Isend/MPI_Irecv of every block with the same datatypes, one
 * tag per block, on the neighbourhood communicator.
 * Oracle 3: MPI_Neighbor_alltoallw on an MPI_Dist_graph_create_adjacent
 * graph from Cart_neighbor_get (where mt_neighbor_graph_usable says the MPI
 * gets it right).
 * Oracles 2 and 3 must agree with oracle 1 (else the test model is wrong);
 * the library must agree with oracle 1.
 *
 * Operations are tallied per category, and separately where a block's type
 * is a "memcpy trap": its size equals its true extent but the map does not
 * run forward through memory (reversed, permuted, overlapping), used with
 * count 1 or extent == size -- one memcpy of the true extent is wrong there.
 *
 *   test_typemaps [--seed S] [--cases N] [--first C] [--only CAT,...] [--verbose]
 * Closing line: "test_typemaps: N passed, M failed" (operations).
 * A failure prints the case, the operation and the command that replays it.
 */
#include "mpitest.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXT 12
#define MAXD 3
#define MAXPRIM 48  /* primitives per element of one datatype */
#define MAXREPS 48  /* base repetitions per block */
#define POOL 512    /* datatypes per operation */
#define MARGIN 64   /* bytes before the base pointer */
#define TAIL 64     /* bytes after the last block */
#define SENTINEL 0x5A

/* ---- basic types and families ---------------------------------------------- */

enum { B_INT, B_DOUBLE, B_CHAR, NB };
static const MPI_Aint bsize[NB] = { 4, 8, 1 };
static const char *const bname[NB] = { "int", "double", "char" };

static MPI_Datatype btype(int b)
{
    return b == B_INT ? MPI_INT : b == B_DOUBLE ? MPI_DOUBLE : MPI_CHAR;
}

/* The base sequence every signature of an operation repeats. */
typedef struct {
    int nb;
    unsigned char b[4];
} fam_t;

enum { CAT_PLAIN, CAT_NEG, CAT_OVERLAP, CAT_RESIZED, CAT_INDEXED, CAT_STRUCT, CAT_COMPOSE, NCAT };
static const char *const cat_name[NCAT] = { "plain", "negstride", "overlap", "resized", "indexed", "struct", "compose" };

/* ---- datatypes with a model of their type maps ----------------------------- */

typedef struct {
    MPI_Datatype type;
    int n;                    /* primitives per element */
    MPI_Aint off[MAXPRIM];    /* byte offset of each primitive, type-map order */
    unsigned char bt[MAXPRIM];
    MPI_Aint lb, ext;         /* as MPI_Type_get_extent */
    MPI_Aint tlb, tub, size;  /* true lb, true ub, bytes of data */
    int m;                    /* signature: the family's base m times */
    int named, checked, valid, forward;
    char name[200];
} tm_t;

static tm_t tm_pool[POOL];
static int tm_npool;
static tm_t tm_basic[NB];

static tm_t *tm_new(void)
{
    if (tm_npool == POOL) return NULL;
    tm_t *t = &tm_pool[tm_npool++];
    t->type = MPI_DATATYPE_NULL;
    t->named = t->checked = t->valid = 0;
    t->name[0] = 0;
    return t;
}

/* Free the types made after `mark`. */
static void tm_release(int mark)
{
    while (tm_npool > mark) {
        tm_t *t = &tm_pool[--tm_npool];
        if (t->type != MPI_DATATYPE_NULL) MPI_Type_free(&t->type);
    }
}

static void tm_name(tm_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tm_name(tm_t *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->name, sizeof t->name, fmt, ap);
    va_end(ap);
}

/* Append to a string of capacity cap. */
static void app(char *s, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void app(char *s, size_t cap, const char *fmt, ...)
{
    size_t len = strlen(s);
    if (len + 1 >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s + len, cap - len, fmt, ap);
    va_end(ap);
}

/* True bounds, size and whether the map runs forward (each primitive
 * starting where the previous one ended). */
static void finish_map(tm_t *t)
{
    t->size = 0;
    t->forward = 1;
    for (int j = 0; j < t->n; j++) {
        MPI_Aint a = t->off[j], e = a + bsize[t->bt[j]];
        if (!j || a < t->tlb) t->tlb = a;
        if (!j || e > t->tub) t->tub = e;
        if (j && a != t->off[j - 1] + bsize[t->bt[j - 1]]) t->forward = 0;
        t->size += bsize[t->bt[j]];
    }
}

/* t's map: copies of c at byte displacements D[0..nc-1], in that order.
 * Bounds from the copies' bounds (MPI's rule for a single child type). */
static int place(tm_t *t, const tm_t *c, const MPI_Aint *D, int nc)
{
    if (nc < 1 || nc * c->n > MAXPRIM) return 0;
    MPI_Aint lo = 0, hi = 0;
    t->n = 0;
    for (int j = 0; j < nc; j++) {
        for (int k = 0; k < c->n; k++) {
            t->off[t->n] = D[j] + c->off[k];
            t->bt[t->n++] = c->bt[k];
        }
        MPI_Aint a = D[j] + c->lb, e = a + c->ext;
        if (!j || a < lo) lo = a;
        if (!j || e > hi) hi = e;
    }
    t->lb = lo;
    t->ext = hi - lo;
    t->m = nc * c->m;
    finish_map(t);
    return 1;
}

static tm_t *mk_contig(int n, const tm_t *c)
{
    MPI_Aint D[MAXPRIM];
    if (!c || n < 1 || n * c->n > MAXPRIM) return NULL;
    tm_t *t = tm_new();
    if (!t) return NULL;
    for (int j = 0; j < n; j++) D[j] = j * c->ext;
    place(t, c, D, n);
    MPI_Type_contiguous(n, c->type, &t->type);
    tm_name(t, "contiguous(%d,%s)", n, c->name);
    return t;
}

/* vector (stride in extents of c) or hvector (stride in bytes). */
static tm_t *mk_vector(int h, int cnt, int bl, MPI_Aint stride, const tm_t *c)
{
    MPI_Aint D[MAXPRIM];
    if (!c || cnt < 1 || bl < 1 || cnt * bl * c->n > MAXPRIM) return NULL;
    /* Open MPI 4.1.4 builds a (h)vector of a 1-byte type with a stride of
     * -1 byte as a forward run (tests/mpi/README.md): not made here. */
    if (c->ext == 1 && cnt > 1 && (h ? stride : stride * c->ext) == -1) return NULL;
    tm_t *t = tm_new();
    if (!t) return NULL;
    for (int j = 0; j < cnt; j++)
        for (int k = 0; k < bl; k++) D[j * bl + k] = (h ? j * stride : j * stride * c->ext) + k * c->ext;
    place(t, c, D, cnt * bl);
    if (h)
        MPI_Type_create_hvector(cnt, bl, stride, c->type, &t->type);
    else
        MPI_Type_vector(cnt, bl, (int)stride, c->type, &t->type);
    tm_name(t, "%s(%d,%d,%ld,%s)", h ? "hvector" : "vector", cnt, bl, (long)stride, c->name);
    return t;
}

/* kind 0 indexed, 1 hindexed, 2 indexed_block, 3 hindexed_block; disp in
 * extents of c (0, 2) or bytes (1, 3); the block kinds use bl[0]. */
static tm_t *mk_indexed(int kind, int n, const int *bl, const MPI_Aint *disp, const tm_t *c)
{
    static const char *const kn[4] = { "indexed", "hindexed", "indexed_block", "hindexed_block" };
    MPI_Aint D[MAXPRIM];
    int nc = 0, h = kind & 1, blk = kind >= 2;
    if (!c || n < 1) return NULL;
    for (int j = 0; j < n; j++) nc += blk ? bl[0] : bl[j];
    if (nc * c->n > MAXPRIM) return NULL;
    tm_t *t = tm_new();
    if (!t) return NULL;
    nc = 0;
    for (int j = 0; j < n; j++)
        for (int k = 0; k < (blk ? bl[0] : bl[j]); k++) D[nc++] = (h ? disp[j] : disp[j] * c->ext) + k * c->ext;
    place(t, c, D, nc);
    int idisp[MAXPRIM], ibl[MAXPRIM];
    for (int j = 0; j < n; j++) {
        idisp[j] = (int)disp[j];
        ibl[j] = blk ? bl[0] : bl[j];
    }
    switch (kind) {
    case 0: MPI_Type_indexed(n, ibl, idisp, c->type, &t->type); break;
    case 1: MPI_Type_create_hindexed(n, ibl, disp, c->type, &t->type); break;
    case 2: MPI_Type_create_indexed_block(n, ibl[0], idisp, c->type, &t->type); break;
    default: MPI_Type_create_hindexed_block(n, ibl[0], disp, c->type, &t->type); break;
    }
    char s[120] = "";
    for (int j = 0; j < n; j++) app(s, sizeof s, "%s%d@%ld", j ? "," : "", ibl[j], (long)disp[j]);
    tm_name(t, "%s([%s],%s)", kn[kind], s, c->name);
    return t;
}

static tm_t *mk_resized(const tm_t *c, MPI_Aint lb, MPI_Aint ext)
{
    if (!c || ext < 1) return NULL;
    tm_t *t = tm_new();
    if (!t) return NULL;
    t->n = c->n;
    memcpy(t->off, c->off, sizeof(MPI_Aint) * (size_t)c->n);
    memcpy(t->bt, c->bt, (size_t)c->n);
    t->m = c->m;
    finish_map(t);
    t->lb = lb;
    t->ext = ext;
    MPI_Type_create_resized(c->type, lb, ext, &t->type);
    tm_name(t, "resized(%s,%ld,%ld)", c->name, (long)lb, (long)ext);
    return t;
}

/* A struct of n basic types (blocklength 1) at byte displacements, always
 * resized: an unresized struct's extent has implementation-defined
 * alignment padding.  m: base repetitions it holds. */
static tm_t *mk_struct(int n, const unsigned char *bt, const MPI_Aint *disp, MPI_Aint lb, MPI_Aint ext, int m)
{
    if (n < 1 || n > MAXPRIM || ext < 1) return NULL;
    tm_t *t = tm_new();
    if (!t) return NULL;
    int ones[MAXPRIM];
    MPI_Datatype ty[MAXPRIM], raw;
    char s[120] = "";
    t->n = n;
    for (int j = 0; j < n; j++) {
        t->off[j] = disp[j];
        t->bt[j] = bt[j];
        ones[j] = 1;
        ty[j] = btype(bt[j]);
        app(s, sizeof s, "%s%s@%ld", j ? "," : "", bname[bt[j]], (long)disp[j]);
    }
    t->m = m;
    finish_map(t);
    t->lb = lb;
    t->ext = ext;
    MPI_Type_create_struct(n, ones, disp, ty, &raw);
    MPI_Type_create_resized(raw, lb, ext, &t->type);
    MPI_Type_free(&raw);
    tm_name(t, "struct{%s}[%ld,+%ld]", s, (long)lb, (long)ext);
    return t;
}

static void init_basics(void)
{
    for (int b = 0; b < NB; b++) {
        tm_t *t = &tm_basic[b];
        memset(t, 0, sizeof *t);
        t->type = btype(b);
        t->n = 1;
        t->bt[0] = (unsigned char)b;
        t->m = 1;
        t->ext = bsize[b];
        t->named = t->checked = t->valid = 1;
        finish_map(t);
        tm_name(t, "%s", bname[b]);
    }
}

/* ---- values ------------------------------------------------------------------ */

/* Decimal so that a wrong int can be read: case, source, block, start, index. */
static unsigned value(long caseno, int src, int blk, int iter, int k)
{
    return 100000000u * (unsigned)(1 + caseno % 20) + (unsigned)src * 1000000u + (unsigned)(blk + 1) * 10000u +
           (unsigned)iter * 1000u + (unsigned)k;
}

static void put_prim(unsigned char *a, int b, unsigned v)
{
    if (b == B_INT) {
        int x = (int)v;
        memcpy(a, &x, sizeof x);
    } else if (b == B_DOUBLE) {
        double x = (double)v + 0.25;
        memcpy(a, &x, sizeof x);
    } else {
        unsigned char x = (unsigned char)((v ^ (v >> 8) ^ (v >> 16)) * 37u + 11u);
        *a = x == SENTINEL ? 0xA5 : x;
    }
}

/* Write count elements of t at addr (element e at e*extent), primitive by
 * primitive in map order (later writes win where the map overlaps). */
static void put_elems(unsigned char *addr, const tm_t *t, int count, long caseno, int src, int blk, int iter)
{
    int k = 0;
    for (int e = 0; e < count; e++)
        for (int q = 0; q < t->n; q++) put_prim(addr + e * t->ext + t->off[q], t->bt[q], value(caseno, src, blk, iter, k++));
}

/* ---- model check against MPI ---------------------------------------------- */

static long n_model_bad;

/* Commit once and compare the model with what MPI says: size, bounds, and
 * MPI_Pack of two elements unpacked into a contiguous copy of the
 * signature must give the primitives at the model's offsets, in order. */
static int tm_ready(tm_t *t)
{
    if (t->checked) return t->valid;
    t->checked = 1;
    MPI_Type_commit(&t->type);
    MPI_Count size = -1;
    MPI_Aint lb = -1, ext = -1, tlb = -1, text = -1;
    MPI_Type_size_x(t->type, &size);
    MPI_Type_get_extent(t->type, &lb, &ext);
    MPI_Type_get_true_extent(t->type, &tlb, &text);
    if (size != t->size || lb != t->lb || ext != t->ext || tlb != t->tlb || text != t->tub - t->tlb) {
        mt_fail(__FILE__, __LINE__,
                "test model of %s: MPI says size %ld lb %ld extent %ld true lb %ld true extent %ld, model %ld %ld %ld "
                "%ld %ld",
                t->name, (long)size, (long)lb, (long)ext, (long)tlb, (long)text, (long)t->size, (long)t->lb,
                (long)t->ext, (long)t->tlb, (long)(t->tub - t->tlb));
        n_model_bad++;
        return t->valid = 0;
    }
    /* Two elements: data in [tlb, tub + ext); buffer covers from min(0, tlb). */
    MPI_Aint lo = t->tlb < 0 ? t->tlb : 0, hi = t->tub + t->ext;
    size_t span = (size_t)(hi - lo), nbytes = 2 * (size_t)t->size;
    unsigned char *buf = malloc(span), *stream = malloc(nbytes + 1), *want = malloc(nbytes + 1);
    for (size_t i = 0; i < span; i++) buf[i] = (unsigned char)(i * 37 + 11);
    unsigned char *origin = buf - lo;
    put_elems(origin, t, 2, 0, 0, 0, 0);
    int psize = 0, pos = 0;
    MPI_Pack_size(2, t->type, MPI_COMM_SELF, &psize);
    char *packed = malloc((size_t)psize + 1);
    MPI_Pack(origin, 2, t->type, packed, psize, &pos, MPI_COMM_SELF);
    /* The signature laid out contiguously: a struct of the primitives. */
    int N = 2 * t->n, ones[2 * MAXPRIM];
    MPI_Aint disp[2 * MAXPRIM], at = 0;
    MPI_Datatype ty[2 * MAXPRIM], flat;
    for (int j = 0; j < N; j++) {
        int b = t->bt[j % t->n];
        const unsigned char *from = origin + (j / t->n) * t->ext + t->off[j % t->n];
        memcpy(want + at, from, (size_t)bsize[b]);
        ones[j] = 1;
        disp[j] = at;
        ty[j] = btype(b);
        at += bsize[b];
    }
    MPI_Type_create_struct(N, ones, disp, ty, &flat);
    MPI_Type_commit(&flat);
    memset(stream, 0, nbytes);
    int upos = 0;
    MPI_Unpack(packed, psize, &upos, stream, 1, flat, MPI_COMM_SELF);
    MPI_Type_free(&flat);
    t->valid = !memcmp(stream, want, nbytes);
    if (!t->valid) {
        mt_fail(__FILE__, __LINE__, "test model of %s: MPI_Pack of two elements differs from the model's map", t->name);
        n_model_bad++;
    }
    free(buf);
    free(stream);
    free(want);
    free(packed);
    return t->valid;
}

/* ---- random datatypes --------------------------------------------------------- */

static void shuffle(mt_rng *r, int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = mt_uniform(r, 0, i), x = a[i];
        a[i] = a[j];
        a[j] = x;
    }
}

static MPI_Aint roundup(MPI_Aint x, MPI_Aint u)
{
    MPI_Aint q = x / u * u;
    return q < x ? q + u : q;
}

/* The family's base as a struct with gaps, in any memory order (sometimes
 * tight: no gaps, extent == size). */
static tm_t *struct_leaf(mt_rng *r, const fam_t *f)
{
    int perm[4] = { 0, 1, 2, 3 }, tight = mt_chance(r, 20);
    if (mt_chance(r, 60)) shuffle(r, perm, f->nb);
    MPI_Aint disp[4], cur = tight ? 0 : mt_uniform(r, 0, 1) * 4;
    for (int j = 0; j < f->nb; j++) {
        int q = perm[j];
        MPI_Aint bs = bsize[f->b[q]];
        if (!tight) {
            if (mt_chance(r, 50)) cur += mt_uniform(r, 1, 6);
            if (mt_chance(r, 85)) cur = roundup(cur, bs);
        }
        disp[q] = cur;
        cur += bs;
    }
    MPI_Aint lb = tight || mt_chance(r, 70) ? 0 : -4 * mt_uniform(r, 1, 2);
    MPI_Aint ext = tight ? cur : roundup(cur - lb, 8) + 8 * mt_uniform(r, 0, 1);
    return mk_struct(f->nb, f->b, disp, lb, ext, 1);
}

static tm_t *leaf(mt_rng *r, const fam_t *f)
{
    return f->nb == 1 ? &tm_basic[f->b[0]] : struct_leaf(r, f);
}

static tm_t *gen(mt_rng *r, const fam_t *f, int cat, int send, int depth);

/* Overlapping maps (send side only; single-basic families). */
static tm_t *gen_overlap(mt_rng *r, const fam_t *f)
{
    tm_t *B = &tm_basic[f->b[0]];
    MPI_Aint bs = B->ext, disp[8];
    int bl[8], x = mt_uniform(r, 0, 3);
    tm_t *t = NULL, *c;
    if (x == 0) { /* n primitives on n slots with a repeat: size == true extent */
        int n = mt_uniform(r, 3, 6), pos[8];
        pos[0] = 0;
        pos[1] = n - 1;
        for (int j = 2; j < n; j++) pos[j] = mt_uniform(r, 0, n - 1);
        pos[2] = pos[mt_uniform(r, 0, 1)]; /* a sure repeat */
        shuffle(r, pos, n);
        unsigned char bt[8];
        for (int j = 0; j < n; j++) {
            bt[j] = f->b[0];
            disp[j] = pos[j] * bs;
            bl[j] = 1;
        }
        int y = mt_uniform(r, 0, 2);
        if (y == 0) {
            t = mk_struct(n, bt, disp, 0, n * bs, n);
        } else {
            if (y == 2)
                for (int j = 0; j < n; j++) disp[j] = pos[j];
            t = mk_indexed(y == 1 ? 3 : 2, n, bl, disp, B);
        }
    } else if (x == 1) { /* vector with |stride| < blocklength */
        int b2 = mt_uniform(r, 2, 3);
        c = mt_chance(r, 70) ? B : mk_contig(2, B);
        t = mk_vector(0, mt_uniform(r, 2, 4), b2, mt_uniform(r, 1 - b2, b2 - 1), c);
    } else if (x == 2) { /* resized below the true extent, then repeated */
        c = mt_chance(r, 60) ? mk_contig(mt_uniform(r, 2, 4), B) : mk_vector(0, 2, 1, 2, B);
        if (!c) return NULL;
        MPI_Aint span = c->tub - c->tlb;
        c = mk_resized(c, c->tlb, bs * mt_uniform(r, 1, (int)(span / bs) - 1));
        t = mk_contig(mt_uniform(r, 2, 3), c);
    } else { /* (h)indexed with a repeated displacement, out of order */
        int n = mt_uniform(r, 2, 4), h = mt_chance(r, 50);
        for (int j = 0; j < n; j++) {
            bl[j] = mt_uniform(r, 1, 3);
            disp[j] = mt_uniform(r, -3, 3) * (h ? bs : 1);
        }
        disp[mt_uniform(r, 1, n - 1)] = disp[0];
        t = mk_indexed(h, n, bl, disp, B);
    }
    if (t && mt_chance(r, 20)) t = mk_contig(2, t);
    return t;
}

static tm_t *gen(mt_rng *r, const fam_t *f, int cat, int send, int depth)
{
    MPI_Aint al = f->nb == 1 ? bsize[f->b[0]] : 8; /* alignment unit */
    tm_t *c, *t;
    switch (cat) {
    case CAT_PLAIN:
        c = leaf(r, f);
        return mt_chance(r, 50) ? c : mk_contig(mt_uniform(r, 2, 4), c);
    case CAT_NEG: {
        int x = mt_uniform(r, 0, 9);
        c = leaf(r, f);
        if (c && x >= 6) c = x < 8 ? mk_contig(mt_uniform(r, 2, 3), c) : mk_resized(c, c->lb, c->ext + al * mt_uniform(r, 1, 2));
        if (!c) return NULL;
        int cnt = mt_uniform(r, 2, 4), bl = mt_uniform(r, 1, 2), dense = mt_chance(r, 60);
        if (c->ext == 1) bl = 2; /* see mk_vector */
        if (mt_chance(r, 50))
            t = mk_vector(0, cnt, bl, -(bl + (dense ? 0 : mt_uniform(r, 1, 2))), c);
        else
            t = mk_vector(1, cnt, bl, -(bl * c->ext + (dense ? 0 : al * mt_uniform(r, 1, 3))), c);
        if (t && mt_chance(r, 25)) t = mk_contig(mt_uniform(r, 2, 3), t);
        else if (t && mt_chance(r, 15)) t = mk_resized(t, t->tlb - al, t->tub - t->tlb + 2 * al);
        return t;
    }
    case CAT_OVERLAP:
        if (!send || f->nb != 1) {
            static const int alt[3] = { CAT_PLAIN, CAT_INDEXED, CAT_RESIZED };
            return gen(r, f, alt[mt_uniform(r, 0, 2)], send, depth);
        }
        return gen_overlap(r, f);
    case CAT_RESIZED: {
        int y = mt_uniform(r, 0, 3);
        c = leaf(r, f);
        if (y == 1) c = mk_contig(mt_uniform(r, 2, 3), c);
        if (y == 2) {
            int bl = mt_uniform(r, 1, 2);
            c = mk_vector(0, mt_uniform(r, 2, 3), bl, bl + mt_uniform(r, 1, 2), c);
        }
        if (y == 3 && c) c = mk_vector(1, 2, 1, c->ext + al * mt_uniform(r, 1, 2), c);
        if (!c) return NULL;
        MPI_Aint span = c->tub - c->tlb, lb, ext;
        int z = mt_uniform(r, 0, 2);
        if (z == 0) { /* larger extent */
            lb = c->tlb;
            ext = span + al * mt_uniform(r, 1, 3);
        } else if (z == 1) { /* negative lower bound */
            lb = (c->tlb < 0 ? c->tlb : 0) - al * mt_uniform(r, 1, 3);
            ext = c->tub - lb + al * mt_uniform(r, 0, 2);
        } else { /* data before lb */
            lb = c->tlb + al * mt_uniform(r, 1, 2);
            ext = span + al * mt_uniform(r, 0, 2);
        }
        t = mk_resized(c, lb, ext);
        if (t && mt_chance(r, 20)) t = mk_resized(t, t->lb - al, t->ext + al);
        if (t && mt_chance(r, 20)) t = mk_contig(2, t);
        return t;
    }
    case CAT_INDEXED: {
        c = leaf(r, f);
        if (mt_chance(r, 25)) c = mk_contig(2, c);
        if (!c) return NULL;
        int n = mt_uniform(r, 2, 5), kind = mt_uniform(r, 0, 3), h = kind & 1, bl[8], order[8];
        MPI_Aint disp[8], sdisp[8], cur = h ? al * mt_uniform(r, -4, 2) : mt_uniform(r, -4, 2);
        int sbl[8];
        for (int j = 0; j < n; j++) {
            bl[j] = kind >= 2 ? (j ? bl[0] : mt_uniform(r, 1, 2)) : mt_uniform(r, 1, 3);
            disp[j] = cur;
            int gap = mt_chance(r, 50) ? 0 : mt_uniform(r, 1, 2);
            cur += h ? bl[j] * c->ext + gap * al : bl[j] + gap;
            order[j] = j;
        }
        shuffle(r, order, n);
        int sorted = 1;
        for (int j = 1; j < n; j++) sorted &= order[j] > order[j - 1];
        if (sorted) {
            order[0] = n - 1;
            order[n - 1] = 0;
        }
        for (int j = 0; j < n; j++) {
            sdisp[j] = disp[order[j]];
            sbl[j] = bl[order[j]];
        }
        t = mk_indexed(kind, n, sbl, sdisp, c);
        if (t && mt_chance(r, 25)) t = mk_contig(2, t);
        else if (t && mt_chance(r, 15)) t = mk_resized(t, t->lb, t->ext + al);
        return t;
    }
    case CAT_STRUCT: {
        c = leaf(r, f);
        int y = mt_uniform(r, 0, 19);
        if (!c || y < 9) return c;
        if (y < 13) return mk_contig(mt_uniform(r, 2, 3), c);
        if (y < 17) return mk_vector(0, mt_uniform(r, 2, 3), 1, 2, c);
        return mk_resized(c, c->lb - 8, c->ext + 16);
    }
    default: { /* CAT_COMPOSE */
        int sub[4] = { CAT_PLAIN, CAT_RESIZED, CAT_INDEXED, CAT_STRUCT };
        int s = sub[mt_uniform(r, 0, f->nb == 1 ? 2 : 3)];
        if (depth < 1 && mt_chance(r, 30)) s = CAT_COMPOSE;
        c = gen(r, f, s, send, depth + 1);
        if (!c) return NULL;
        int y = mt_uniform(r, 0, 3), bl = mt_uniform(r, 1, 2);
        if (y < 2) return mk_contig(mt_uniform(r, 2, 3), c);
        if (y == 2) return mk_vector(0, mt_uniform(r, 2, 3), bl, bl + mt_uniform(r, 0, 1), c);
        return mk_vector(1, mt_uniform(r, 2, 3), bl, bl * c->ext + al * mt_uniform(r, 0, 2), c);
    }
    }
}

/* A type for one side: the focus category, or 25% plain; retried when too
 * large for the model. */
static tm_t *pick(mt_rng *r, const fam_t *f, int cat, int send)
{
    for (int tries = 0; tries < 20; tries++) {
        int mark = tm_npool;
        tm_t *t = gen(r, f, mt_chance(r, 25) ? CAT_PLAIN : cat, send, 0);
        if (t && t->m <= MAXREPS) return t;
        tm_release(mark);
    }
    return leaf(r, f);
}

/* A receive type whose element divides `reps` base repetitions. */
static tm_t *pick_dividing(mt_rng *r, const fam_t *f, int cat, int reps)
{
    for (int tries = 0; tries < 10; tries++) {
        int mark = tm_npool;
        tm_t *t = pick(r, f, cat, 0);
        if (reps % t->m == 0) return t;
        tm_release(mark);
    }
    return leaf(r, f);
}

/* ---- cases and operations ------------------------------------------------------ */

enum { C_ALLGATHER, C_ALLGATHERV, C_ALLGATHERW, C_ALLTOALL, C_ALLTOALLV, C_ALLTOALLW };
static const char *const coll_name[6] = { "allgather", "allgatherv", "allgatherw", "alltoall", "alltoallv", "alltoallw" };
enum { M_BLOCKING, M_NONBLOCKING, M_PERSISTENT };
static const char *const mode_name[3] = { "blocking", "non-blocking", "persistent" };

typedef struct {
    int d, dims[MAXD], periods[MAXD], t, targets[MAXT * MAXD], reorder;
    int calg, cexec; /* create info: index, -1 key absent; calg == -2: MPI_INFO_NULL */
    int nops;
} case_t;

typedef struct {
    int coll, mode, nstarts, ialg, iexec, cat, trap;
    fam_t fam;
    int ns, nb;
    tm_t *st[MAXT], *rt[MAXT];
    int scount[MAXT], rcount[MAXT];
    MPI_Aint sdisp[MAXT], rdisp[MAXT]; /* bytes from the base pointer */
    size_t sbytes, rbytes;
} op_t;

static int pick_size(mt_rng *r)
{
    int x = mt_uniform(r, 0, 99);
    return x < 25 ? 1 : x < 65 ? 2 : x < 85 ? 3 : 4;
}

static void gen_case(mt_rng *r, int p, long caseno, case_t *cs)
{
    memset(cs, 0, sizeof *cs);
    cs->d = mt_uniform(r, 1, MAXD);
    int prod = 1;
    for (int k = 0; k < cs->d; k++) {
        int s = pick_size(r);
        while (prod * s > p) s--;
        cs->dims[k] = s;
        prod *= s;
        cs->periods[k] = mt_chance(r, 50);
    }
    int x = mt_uniform(r, 0, 99);
    cs->t = x < 3 ? 0 : x < 70 ? mt_uniform(r, 1, 6) : mt_uniform(r, 7, MAXT);
    for (int i = 0; i < cs->t; i++) {
        int *v = cs->targets + i * cs->d;
        if (i > 0 && mt_chance(r, 12)) /* a repeat */
            memcpy(v, cs->targets + mt_uniform(r, 0, i - 1) * cs->d, sizeof(int) * (size_t)cs->d);
        else if (mt_chance(r, 8)) /* the zero vector */
            for (int k = 0; k < cs->d; k++) v[k] = 0;
        else /* mostly near, some larger than the grid */
            for (int k = 0; k < cs->d; k++) v[k] = mt_chance(r, 65) ? mt_uniform(r, -1, 1) : mt_uniform(r, -7, 7);
    }
    cs->reorder = mt_chance(r, 25);
    int combo = (int)(caseno % 13);
    cs->calg = combo == 12 ? -2 : combo / 3;
    cs->cexec = combo == 12 ? -1 : combo % 3;
    cs->nops = mt_uniform(r, 3, 6);
}

static int gcd(int a, int b) { return b ? gcd(b, a % b) : a; }
static int lcm(int a, int b) { return a / gcd(a, b) * b; }

/* Base repetitions of a block pair: u*L with L = lcm of the two elements. */
static int pick_units(mt_rng *r, int L)
{
    int maxu = MAXREPS / L;
    if (maxu > 3) maxu = 3;
    if (maxu < 1 || mt_chance(r, 12)) return 0;
    return mt_uniform(r, 1, maxu);
}

/* Lay out n blocks of one side.  variant 0: block i at D0 + i*count*extent
 * (one type and count); 1: displacements multiples of the extent; 2: 8-byte
 * aligned.  1 and 2 in random order with gaps.  A block's data lies in
 * [disp + tlb, disp + (count-1)*extent + tub): a negative true lb (a
 * reversed vector) puts the origin above the block's first byte.  Returns
 * the bytes used after the base pointer. */
static size_t layout(mt_rng *r, int variant, int n, tm_t *const *ty, const int *cnt, MPI_Aint *disp)
{
    if (n == 0) return 0;
    if (variant == 0) {
        const tm_t *t = ty[0];
        MPI_Aint D0 = 8 * mt_uniform(r, 0, 1), end = D0;
        if (cnt[0] > 0) {
            D0 = roundup(D0 - t->tlb > 0 ? D0 - t->tlb : 0, 8);
            end = D0 + (MPI_Aint)(n - 1) * cnt[0] * t->ext + (MPI_Aint)(cnt[0] - 1) * t->ext + t->tub;
        }
        for (int i = 0; i < n; i++) disp[i] = D0 + (MPI_Aint)i * cnt[i] * t->ext;
        return (size_t)end;
    }
    int order[MAXT];
    for (int i = 0; i < n; i++) order[i] = i;
    shuffle(r, order, n);
    MPI_Aint cur = 0;
    for (int j = 0; j < n; j++) {
        int i = order[j];
        const tm_t *t = ty[i];
        MPI_Aint unit = variant == 1 ? t->ext : 8, start = cur + 8 * mt_uniform(r, 0, 2);
        if (cnt[i] == 0) {
            disp[i] = roundup(start, unit);
            continue;
        }
        MPI_Aint D = start - t->tlb;
        D = D < 0 ? 0 : roundup(D, unit);
        disp[i] = D;
        MPI_Aint e = D + (MPI_Aint)(cnt[i] - 1) * t->ext + t->tub;
        if (e > cur) cur = e;
    }
    return (size_t)cur;
}

/* One memcpy of the true extent would be wrong for this block. */
static int is_trap(const tm_t *t, int count)
{
    return count > 0 && t->size == t->tub - t->tlb && !t->forward && (count == 1 || t->ext == t->size);
}

static void gen_op(mt_rng *r, const case_t *cs, long opno, int catmask, op_t *op)
{
    memset(op, 0, sizeof *op);
    int t = cs->t;
    op->coll = mt_uniform(r, 0, 5);
    int x = mt_uniform(r, 0, 99);
    op->mode = x < 35 ? M_BLOCKING : x < 65 ? M_NONBLOCKING : M_PERSISTENT;
    op->nstarts = op->mode == M_PERSISTENT ? 2 : 1;
    int combo = (int)(opno % 13);
    op->ialg = combo == 12 ? -2 : combo / 3;
    op->iexec = combo == 12 ? -1 : combo % 3;
    int cats[NCAT], nc = 0;
    for (int k = 0; k < NCAT; k++)
        if (catmask & (1 << k)) cats[nc++] = k;
    op->cat = cats[mt_uniform(r, 0, nc - 1)];
    int mixed = op->cat == CAT_STRUCT ||
                (op->cat != CAT_PLAIN && op->cat != CAT_OVERLAP && mt_chance(r, 30));
    fam_t *f = &op->fam;
    if (mixed) {
        f->nb = mt_uniform(r, 2, 4);
        for (int j = 0; j < f->nb; j++) f->b[j] = (unsigned char)mt_uniform(r, 0, NB - 1);
        if (f->b[0] == f->b[1]) f->b[1] = (unsigned char)((f->b[0] + 1) % NB);
    } else {
        f->nb = 1;
        x = mt_uniform(r, 0, 9);
        f->b[0] = x < 6 ? B_INT : x < 8 ? B_DOUBLE : B_CHAR;
    }
    int gather = op->coll <= C_ALLGATHERW, variant = op->coll % 3, cat = op->cat;
    op->ns = gather ? 1 : t;
    op->nb = t;
    if (gather) {
        tm_t *S = pick(r, f, cat, 1);
        int cs0 = pick_units(r, S->m), reps = cs0 * S->m;
        op->st[0] = S;
        op->scount[0] = cs0;
        tm_t *R = variant == 2 ? NULL : pick_dividing(r, f, cat, reps);
        for (int i = 0; i < t; i++) {
            op->rt[i] = variant == 2 ? pick_dividing(r, f, cat, reps) : R;
            op->rcount[i] = reps / op->rt[i]->m;
        }
    } else if (variant == 2) {
        for (int i = 0; i < t; i++) {
            tm_t *S = pick(r, f, cat, 1), *R = pick(r, f, cat, 0);
            if (lcm(S->m, R->m) > MAXREPS) R = leaf(r, f);
            int L = lcm(S->m, R->m), u = pick_units(r, L);
            op->st[i] = S;
            op->rt[i] = R;
            op->scount[i] = u * L / S->m;
            op->rcount[i] = u * L / R->m;
        }
    } else {
        tm_t *S = pick(r, f, cat, 1), *R = pick(r, f, cat, 0);
        if (lcm(S->m, R->m) > MAXREPS) R = leaf(r, f);
        int L = lcm(S->m, R->m), u = pick_units(r, L);
        for (int i = 0; i < t; i++) {
            if (variant == 1) u = pick_units(r, L);
            op->st[i] = S;
            op->rt[i] = R;
            op->scount[i] = u * L / S->m;
            op->rcount[i] = u * L / R->m;
        }
    }
    op->sbytes = layout(r, gather ? 0 : variant, op->ns, op->st, op->scount, op->sdisp);
    op->rbytes = layout(r, variant, op->nb, op->rt, op->rcount, op->rdisp);
    for (int i = 0; i < op->ns; i++) op->trap |= is_trap(op->st[i], op->scount[i]);
    for (int i = 0; i < op->nb; i++) op->trap |= is_trap(op->rt[i], op->rcount[i]);
}

/* Every type valid, the signatures of block pairs equal, receive blocks
 * disjoint and inside the arena (else the test itself is wrong). */
static int op_sane(const op_t *op, long caseno)
{
    int ok = 1, gather = op->coll <= C_ALLGATHERW;
    for (int i = 0; i < op->ns; i++) ok &= tm_ready(op->st[i]);
    for (int i = 0; i < op->nb; i++) ok &= tm_ready(op->rt[i]);
    if (!ok) return 0;
    for (int j = 0; j < op->ns && ok; j++) {
        const tm_t *S = op->st[j];
        for (int e = 0; e < op->scount[j]; e++)
            for (int q = 0; q < S->n; q++) {
                MPI_Aint at = op->sdisp[j] + e * S->ext + S->off[q];
                if (at < 0 || at + bsize[S->bt[q]] > (MPI_Aint)op->sbytes) ok = 0;
            }
    }
    unsigned char *mark = calloc(op->rbytes + 1, 1);
    for (int i = 0; i < op->nb && ok; i++) {
        const tm_t *S = op->st[gather ? 0 : i], *R = op->rt[i];
        int sc = op->scount[gather ? 0 : i], rc = op->rcount[i];
        if ((long)sc * S->n != (long)rc * R->n) ok = 0;
        for (int k = 0; ok && k < sc * S->n; k++)
            if (S->bt[k % S->n] != R->bt[k % R->n]) ok = 0;
        for (int e = 0; ok && e < rc; e++)
            for (int q = 0; ok && q < R->n; q++)
                for (MPI_Aint b = 0; ok && b < bsize[R->bt[q]]; b++) {
                    MPI_Aint at = op->rdisp[i] + e * R->ext + R->off[q] + b;
                    if (at < 0 || at >= (MPI_Aint)op->rbytes || mark[at]++) ok = 0;
                }
    }
    free(mark);
    MT_CHECK(ok, "case %ld: test generator made an invalid operation (signatures or overlapping receive blocks)",
             caseno);
    if (!ok) n_model_bad++;
    return ok;
}

/* ---- the context of a running case -------------------------------------------- */

typedef struct {
    long seed, caseno;
    int p, verbose;
    const char *only;
    const case_t *cs;
    MPI_Comm cart, graph;
    int me;
    int src[MAXT], dst[MAXT];   /* first principles */
    int nsrc[MAXT], ndst[MAXT]; /* Cart_neighbor_get */
    int reported;
} ctx_t;

static void describe(ctx_t *c, const op_t *op, int iter)
{
    const case_t *cs = c->cs;
    char buf[2048] = "";
    app(buf, sizeof buf, "case %ld: d=%d dims=(", c->caseno, cs->d);
    for (int k = 0; k < cs->d; k++) app(buf, sizeof buf, "%s%d", k ? "," : "", cs->dims[k]);
    app(buf, sizeof buf, ") periods=(");
    for (int k = 0; k < cs->d; k++) app(buf, sizeof buf, "%s%d", k ? "," : "", cs->periods[k]);
    app(buf, sizeof buf, ") reorder=%d t=%d targets=", cs->reorder, cs->t);
    for (int i = 0; i < cs->t; i++) {
        app(buf, sizeof buf, "(");
        for (int k = 0; k < cs->d; k++) app(buf, sizeof buf, "%s%d", k ? "," : "", cs->targets[i * cs->d + k]);
        app(buf, sizeof buf, ")");
    }
    app(buf, sizeof buf, " create-info alg=%s exec=%s", cs->calg >= 0 ? mt_alg_name[cs->calg] : "-",
        cs->cexec >= 0 ? mt_exec_name[cs->cexec] : "-");
    fprintf(stderr, "%s: rank %d (cart rank %d): %s\n", mt_name, mt_rank, c->me, buf);
    if (op) {
        fprintf(stderr, "%s:   op %s %s start %d/%d init-info alg=%s exec=%s category %s%s\n", mt_name,
                coll_name[op->coll], mode_name[op->mode], iter + 1, op->nstarts,
                op->ialg >= 0 ? mt_alg_name[op->ialg] : "-", op->iexec >= 0 ? mt_exec_name[op->iexec] : "-",
                cat_name[op->cat], op->trap ? " (memcpy trap)" : "");
        for (int i = 0; i < op->ns; i++) {
            const tm_t *t = op->st[i];
            fprintf(stderr, "%s:   send %d -> %d: count %d at %ld: %s (lb %ld extent %ld true [%ld,%ld) size %ld)\n",
                    mt_name, i, op->coll <= C_ALLGATHERW ? -1 : c->dst[i], op->scount[i], (long)op->sdisp[i], t->name,
                    (long)t->lb, (long)t->ext, (long)t->tlb, (long)t->tub, (long)t->size);
        }
        for (int i = 0; i < op->nb; i++) {
            const tm_t *t = op->rt[i];
            fprintf(stderr, "%s:   recv %d <- %d: count %d at %ld: %s (lb %ld extent %ld true [%ld,%ld) size %ld)\n",
                    mt_name, i, c->src[i], op->rcount[i], (long)op->rdisp[i], t->name, (long)t->lb, (long)t->ext,
                    (long)t->tlb, (long)t->tub, (long)t->size);
        }
    }
    fprintf(stderr, "%s: replay: mpirun -n %d test_typemaps --seed %ld --first %ld --cases 1%s%s\n", mt_name, c->p,
            c->seed, c->caseno, c->only ? " --only " : "", c->only ? c->only : "");
}

/* Compare a receive (recv = 1) or send arena with its expected image;
 * report the first difference and the primitive it lies in. */
static int compare(ctx_t *c, const op_t *op, int iter, const char *what, int recv, const unsigned char *got,
                   const unsigned char *want, size_t n)
{
    mt_checks++;
    if (!memcmp(got, want, n)) return 1;
    size_t at = 0;
    while (got[at] == want[at]) at++;
    long off = (long)at - MARGIN;
    char where[160] = "outside every primitive", g[40] = "", w[40] = "";
    int pb = -1;
    MPI_Aint pa = 0;
    for (int i = 0; recv && i < op->nb; i++) {
        const tm_t *t = op->rt[i];
        for (int e = 0; e < op->rcount[i]; e++)
            for (int q = 0; q < t->n; q++) {
                MPI_Aint a = op->rdisp[i] + e * t->ext + t->off[q];
                if (off >= a && off < a + bsize[t->bt[q]]) {
                    snprintf(where, sizeof where, "block %d (source %d) element %d primitive %d (%s at %ld)", i,
                             c->src[i], e, q, bname[t->bt[q]], (long)a);
                    pb = t->bt[q];
                    pa = a;
                }
            }
    }
    if (pb == B_INT || pb == B_DOUBLE) { /* the primitive's value */
        const unsigned char *gp = got + MARGIN + pa, *wp = want + MARGIN + pa;
        int gi, wi;
        double gd, wd;
        if (pb == B_INT) {
            memcpy(&gi, gp, 4);
            memcpy(&wi, wp, 4);
            snprintf(g, sizeof g, "int %d", gi);
            snprintf(w, sizeof w, "%d", wi);
        } else {
            memcpy(&gd, gp, 8);
            memcpy(&wd, wp, 8);
            snprintf(g, sizeof g, "double %.2f", gd);
            snprintf(w, sizeof w, "%.2f", wd);
        }
    } else { /* bytes */
        app(g, sizeof g, "bytes ");
        for (size_t k = at; k < at + 8 && k < n; k++) {
            app(g, sizeof g, "%02x", got[k]);
            app(w, sizeof w, "%02x", want[k]);
        }
    }
    mt_fail(__FILE__, __LINE__, "case %ld %s %s %s start %d: %s differs at byte %ld, %s: got %s, expected %s",
            c->caseno, cat_name[op->cat], coll_name[op->coll], mode_name[op->mode], iter + 1, what, off, where, g, w);
    if (!c->reported++ && mt_failures <= 25) describe(c, op, iter);
    return 0;
}

/* A process's send arena at start iter. */
static void fill_send(unsigned char *arena, size_t n, const op_t *op, long caseno, int who, int iter)
{
    int gather = op->coll <= C_ALLGATHERW;
    memset(arena, SENTINEL, n);
    for (int j = 0; j < op->ns; j++)
        put_elems(arena + MARGIN + op->sdisp[j], op->st[j], op->scount[j], caseno, who, gather ? -1 : j, iter);
}

/* Oracle 1: each receive block from an existing source holds the source's
 * send block read through the send model, written through the receive
 * model; everything else the sentinel. */
static void expected_recv(ctx_t *c, const op_t *op, int iter, unsigned char *want, size_t rtot, unsigned char *scratch,
                          size_t stot)
{
    int gather = op->coll <= C_ALLGATHERW;
    memset(want, SENTINEL, rtot);
    for (int i = 0; i < op->nb; i++) {
        if (c->src[i] == MPI_PROC_NULL) continue;
        fill_send(scratch, stot, op, c->caseno, c->src[i], iter);
        int j = gather ? 0 : i, k = 0;
        const tm_t *S = op->st[j], *R = op->rt[i];
        for (int e = 0; e < op->rcount[i]; e++)
            for (int q = 0; q < R->n; q++, k++) {
                const unsigned char *from = scratch + MARGIN + op->sdisp[j] + (k / S->n) * S->ext + S->off[k % S->n];
                memcpy(want + MARGIN + op->rdisp[i] + e * R->ext + R->off[q], from, (size_t)bsize[R->bt[q]]);
            }
    }
}

/* ---- calling the library ------------------------------------------------------- */

typedef struct {
    int scounts[MAXT + 1], rcounts[MAXT + 1], sdispls[MAXT + 1], rdispls[MAXT + 1];
    MPI_Aint sdispw[MAXT + 1], rdispw[MAXT + 1];
    MPI_Datatype stypes[MAXT + 1], rtypes[MAXT + 1];
} args_t;

static void build_args(const op_t *op, args_t *a)
{
    for (int i = 0; i < op->ns; i++) {
        a->scounts[i] = op->scount[i];
        a->sdispw[i] = op->sdisp[i];
        a->sdispls[i] = (int)(op->sdisp[i] / op->st[i]->ext);
        a->stypes[i] = op->st[i]->type;
    }
    for (int i = 0; i < op->nb; i++) {
        a->rcounts[i] = op->rcount[i];
        a->rdispw[i] = op->rdisp[i];
        a->rdispls[i] = (int)(op->rdisp[i] / op->rt[i]->ext);
        a->rtypes[i] = op->rt[i]->type;
    }
}

static int invoke(const op_t *op, args_t *a, unsigned char *sbase, unsigned char *rbase, MPI_Comm cart, MPI_Info info,
                  Cart_request *req)
{
    int gather = op->coll <= C_ALLGATHERW, regular = op->coll % 3 == 0;
    int sc = op->ns ? a->scounts[0] : 0, rc = op->nb ? a->rcounts[0] : 0;
    MPI_Datatype st = op->ns ? a->stypes[0] : MPI_INT, rt = op->nb ? a->rtypes[0] : MPI_INT;
    const void *sb = (gather || regular) && op->ns ? (const void *)(sbase + op->sdisp[0]) : (const void *)sbase;
    void *rb = regular && op->nb ? (void *)(rbase + op->rdisp[0]) : (void *)rbase;
    mt_call call = { sb, rb, sc, rc, st, rt, a->scounts, a->sdispls, a->rcounts, a->rdispls,
                     a->sdispw, a->rdispw, a->stypes, a->rtypes };
    return mt_collective(op->mode, op->coll, &call, cart, info, req);
}

static void fatal_rc(ctx_t *c, const op_t *op, int iter, const char *call, int rc)
{
    char s[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, s, &len);
    mt_fail(__FILE__, __LINE__, "case %ld: %s returned %d (%s)", c->caseno, call, rc, s);
    describe(c, op, iter);
    /* Other processes may be inside the operation: do not leave them hanging. */
    MPI_Abort(MPI_COMM_WORLD, 3);
}

/* ---- oracles 2 and 3 -------------------------------------------------------------- */

static long n_p2p, n_nbr;

/* Every block by point-to-point with the same datatypes, tag = block. */
static void p2p_oracle(ctx_t *c, const op_t *op, unsigned char *sbase, unsigned char *rbase)
{
    MPI_Request rq[2 * MAXT];
    int n = 0, gather = op->coll <= C_ALLGATHERW;
    for (int i = 0; i < op->nb; i++)
        if (c->nsrc[i] != MPI_PROC_NULL)
            MPI_Irecv(rbase + op->rdisp[i], op->rcount[i], op->rt[i]->type, c->nsrc[i], i, c->cart, &rq[n++]);
    for (int i = 0; i < op->nb; i++) {
        int j = gather ? 0 : i;
        if (c->ndst[i] != MPI_PROC_NULL)
            MPI_Isend(sbase + op->sdisp[j], op->scount[j], op->st[j]->type, c->ndst[i], i, c->cart, &rq[n++]);
    }
    int rc = MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
    MT_CHECK(rc == MPI_SUCCESS, "case %ld: point-to-point oracle failed", c->caseno);
    n_p2p++;
}

/* MPI_Neighbor_alltoallw on the graph: blocks to/from MPI_PROC_NULL left out. */
static void nbr_oracle(ctx_t *c, const op_t *op, unsigned char *sbase, unsigned char *rbase)
{
    int sc[MAXT + 1], rcn[MAXT + 1], nin = 0, nout = 0, gather = op->coll <= C_ALLGATHERW;
    MPI_Aint sd[MAXT + 1], rd[MAXT + 1];
    MPI_Datatype st[MAXT + 1], rt[MAXT + 1];
    for (int i = 0; i < op->nb; i++) {
        int j = gather ? 0 : i;
        if (c->ndst[i] != MPI_PROC_NULL) {
            sc[nout] = op->scount[j];
            sd[nout] = op->sdisp[j];
            st[nout++] = op->st[j]->type;
        }
        if (c->nsrc[i] != MPI_PROC_NULL) {
            rcn[nin] = op->rcount[i];
            rd[nin] = op->rdisp[i];
            rt[nin++] = op->rt[i]->type;
        }
    }
    int rc = MPI_Neighbor_alltoallw(sbase, sc, sd, st, rbase, rcn, rd, rt, c->graph);
    MT_CHECK(rc == MPI_SUCCESS, "case %ld: MPI_Neighbor_alltoallw failed", c->caseno);
    n_nbr++;
}

/* ---- one operation ---------------------------------------------------------------- */

static long tally[NCAT][2][2]; /* [category][memcpy trap][failed], on cart rank 0 */
static long n_oracle_bad, n_invocations;

static void run_op(ctx_t *c, const op_t *op)
{
    size_t stot = MARGIN + op->sbytes + TAIL, rtot = MARGIN + op->rbytes + TAIL;
    unsigned char *sa = malloc(stot), *simg = malloc(stot), *scratch = malloc(stot), *so = malloc(stot);
    unsigned char *ra = malloc(rtot), *want = malloc(rtot), *oa = malloc(rtot);
    args_t a;
    build_args(op, &a);
    MPI_Info info = MPI_INFO_NULL;
    if (op->mode == M_PERSISTENT && op->ialg != -2)
        info = mt_info(mt_alg_name[op->ialg], op->iexec >= 0 ? mt_exec_name[op->iexec] : NULL);
    Cart_request req = CART_REQUEST_NULL;
    int lib_bad = 0, oracle_bad = 0, rc;
    for (int iter = 0; iter < op->nstarts; iter++) {
        fill_send(sa, stot, op, c->caseno, c->me, iter);
        memcpy(simg, sa, stot);
        memset(ra, SENTINEL, rtot);
        if (op->mode == M_BLOCKING || iter == 0) {
            rc = invoke(op, &a, sa + MARGIN, ra + MARGIN, c->cart, info, &req);
            if (rc != MPI_SUCCESS) fatal_rc(c, op, iter, coll_name[op->coll], rc);
        }
        if (op->mode == M_PERSISTENT) {
            rc = Cart_start(&req);
            if (rc != MPI_SUCCESS) fatal_rc(c, op, iter, "Cart_start", rc);
        }
        if (op->mode != M_BLOCKING) {
            rc = Cart_wait(&req);
            if (rc != MPI_SUCCESS) fatal_rc(c, op, iter, "Cart_wait", rc);
        }
        n_invocations++;
        expected_recv(c, op, iter, want, rtot, scratch, stot);
        if (!compare(c, op, iter, "receive buffer", 1, ra, want, rtot)) lib_bad = 1;
        if (!compare(c, op, iter, "send buffer", 0, sa, simg, stot)) lib_bad = 1;
        /* The MPI oracles must agree with the model. */
        memcpy(so, simg, stot);
        memset(oa, SENTINEL, rtot);
        p2p_oracle(c, op, so + MARGIN, oa + MARGIN);
        if (!compare(c, op, iter, "point-to-point oracle (test model or MPI defect)", 1, oa, want, rtot))
            oracle_bad = 1;
        if (c->graph != MPI_COMM_NULL) {
            memcpy(so, simg, stot);
            memset(oa, SENTINEL, rtot);
            nbr_oracle(c, op, so + MARGIN, oa + MARGIN);
            if (!compare(c, op, iter, "MPI_Neighbor_alltoallw oracle (test model or MPI defect)", 1, oa, want, rtot))
                oracle_bad = 1;
        }
    }
    if (op->mode == M_PERSISTENT) {
        rc = Cart_request_free(&req);
        if (rc != MPI_SUCCESS) fatal_rc(c, op, 0, "Cart_request_free", rc);
    }
    mt_info_free(&info);
    int bad[2] = { lib_bad, oracle_bad };
    MPI_Allreduce(MPI_IN_PLACE, bad, 2, MPI_INT, MPI_MAX, c->cart);
    if (c->me == 0) {
        tally[op->cat][op->trap][bad[0]]++;
        n_oracle_bad += bad[1];
    }
    if (c->verbose && c->me == 0) describe(c, op, 0);
    free(sa);
    free(simg);
    free(scratch);
    free(so);
    free(ra);
    free(want);
    free(oa);
}

/* ---- one case ------------------------------------------------------------------------ */

static long n_cases_run;

static void run_case(long seed, long caseno, int p, int catmask, const char *only, int verbose)
{
    mt_rng r;
    mt_seed(&r, (uint64_t)seed, (uint64_t)caseno);
    case_t cs;
    gen_case(&r, p, caseno, &cs);
    MPI_Info info = cs.calg == -2 ? MPI_INFO_NULL : mt_info(mt_alg_name[cs.calg], mt_exec_name[cs.cexec]);
    ctx_t c;
    memset(&c, 0, sizeof c);
    c.seed = seed;
    c.caseno = caseno;
    c.p = p;
    c.verbose = verbose;
    c.only = only;
    c.cs = &cs;
    c.cart = c.graph = MPI_COMM_NULL;
    c.me = -1;
    int rc = Cart_neighborhood_create(MPI_COMM_WORLD, cs.d, cs.dims, cs.periods, cs.t, cs.targets, MPI_UNWEIGHTED,
                                      info, cs.reorder, &c.cart);
    mt_info_free(&info);
    if (rc != MPI_SUCCESS) fatal_rc(&c, NULL, 0, "Cart_neighborhood_create", rc);
    if (c.cart == MPI_COMM_NULL) return;
    MPI_Comm_rank(c.cart, &c.me);
    if (c.me == 0) n_cases_run++;
    for (int i = 0; i < cs.t; i++) {
        c.src[i] = mt_shift(c.me, cs.d, cs.dims, cs.periods, cs.targets + i * cs.d, -1);
        c.dst[i] = mt_shift(c.me, cs.d, cs.dims, cs.periods, cs.targets + i * cs.d, +1);
    }
    rc = Cart_neighbor_get(c.cart, MAXT, c.nsrc, MPI_UNWEIGHTED, MAXT, c.ndst, MPI_UNWEIGHTED);
    MT_CHECK(rc == MPI_SUCCESS, "case %ld: Cart_neighbor_get failed", caseno);
    for (int i = 0; i < cs.t; i++)
        MT_CHECK(c.nsrc[i] == c.src[i] && c.ndst[i] == c.dst[i],
                 "case %ld: neighbour %d: Cart_neighbor_get says %d/%d, row-major arithmetic %d/%d", caseno, i,
                 c.nsrc[i], c.ndst[i], c.src[i], c.dst[i]);
    if (mt_neighbor_graph_usable(c.cart)) {
        rc = mt_neighbor_graph(c.cart, &c.graph);
        MT_CHECK(rc == MPI_SUCCESS, "case %ld: MPI_Dist_graph_create_adjacent failed", caseno);
        if (rc != MPI_SUCCESS) c.graph = MPI_COMM_NULL;
    }
    for (int o = 0; o < cs.nops; o++) {
        op_t op;
        int mark = tm_npool;
        gen_op(&r, &cs, caseno * 7 + o, catmask, &op);
        int sane = op_sane(&op, caseno), all = 0;
        MPI_Allreduce(&sane, &all, 1, MPI_INT, MPI_LAND, c.cart);
        if (all) run_op(&c, &op);
        else if (!c.reported++) describe(&c, &op, 0);
        tm_release(mark);
    }
    if (c.graph != MPI_COMM_NULL) MPI_Comm_free(&c.graph);
    MPI_Comm_free(&c.cart);
}

static int parse_only(const char *s)
{
    int mask = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int k = 0;
        while (k < NCAT && strcmp(tok, cat_name[k])) k++;
        if (k == NCAT) return 0;
        mask |= 1 << k;
    }
    return mask;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "test_typemaps");
    long seed = 20240607, ncases = 50, first = 0;
    int verbose = 0, catmask = (1 << NCAT) - 1;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = atol(argv[++i]);
        else if (!strcmp(argv[i], "--cases") && i + 1 < argc) ncases = atol(argv[++i]);
        else if (!strcmp(argv[i], "--first") && i + 1 < argc) first = atol(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc && (catmask = parse_only(argv[i + 1])) != 0) only = argv[++i];
        else if (!strcmp(argv[i], "--verbose")) verbose = 1;
        else {
            if (!mt_rank)
                fprintf(stderr, "usage: test_typemaps [--seed S] [--cases N] [--first C] [--only CAT,...] [--verbose]\n"
                                "categories: plain negstride overlap resized indexed struct compose\n");
            MPI_Finalize();
            return 2;
        }
    }
    /* Errors come back as codes so that the failing case can be reported. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    init_basics();
    double t0 = mt_now();
    for (long cno = first; cno < first + ncases; cno++) run_case(seed, cno, mt_size, catmask, only, verbose);
    double el = mt_now() - t0;
    long mine[NCAT * 4 + 6], sum[NCAT * 4 + 6];
    memcpy(mine, tally, sizeof tally);
    mine[NCAT * 4] = n_oracle_bad;
    mine[NCAT * 4 + 1] = n_cases_run;
    mine[NCAT * 4 + 2] = n_model_bad;
    mine[NCAT * 4 + 3] = n_invocations;
    mine[NCAT * 4 + 4] = n_p2p;
    mine[NCAT * 4 + 5] = n_nbr;
    MPI_Reduce(mine, sum, NCAT * 4 + 6, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    long passed = 0, failed = 0;
    if (!mt_rank) {
        long(*tl)[2][2] = (long(*)[2][2])sum;
        printf("test_typemaps: p=%d seed=%ld cases %ld..%ld: %ld neighbourhoods, %ld invocations checked (process "
               "sums: %ld point-to-point and %ld MPI_Neighbor_alltoallw oracle runs), %.1f s\n",
               mt_size, seed, first, first + ncases - 1, sum[NCAT * 4 + 1], sum[NCAT * 4 + 3], sum[NCAT * 4 + 4],
               sum[NCAT * 4 + 5], el);
        printf("test_typemaps: %-10s %8s %8s   %s\n", "category", "passed", "failed",
               "of which with a memcpy-trap block: passed failed");
        for (int k = 0; k < NCAT; k++) {
            long p0 = tl[k][0][0] + tl[k][1][0], f0 = tl[k][0][1] + tl[k][1][1];
            if (p0 + f0 == 0) continue;
            printf("test_typemaps: %-10s %8ld %8ld   %ld %ld\n", cat_name[k], p0, f0, tl[k][1][0], tl[k][1][1]);
            passed += p0;
            failed += f0;
        }
        if (sum[NCAT * 4] || sum[NCAT * 4 + 2])
            printf("test_typemaps: %ld operations where an MPI oracle disagreed with the model, %ld model defects "
                   "(test defects, not library defects)\n",
                   sum[NCAT * 4], sum[NCAT * 4 + 2]);
    }
    return mt_finish_tally(passed, failed);
}

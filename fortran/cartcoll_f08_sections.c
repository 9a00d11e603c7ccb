/* Hand-written glue of the Fortran module cartcoll_f08: non-contiguous
 * array sections in non-blocking and persistent calls, described by
 * datatypes (or copied where no datatype can describe them).  Split out of
 * cartcoll_f08_support.c (issue 27 item 8: no file over 600 lines), one
 * concept per file; see cartcoll_f08_support.h and README.md. */

#include "cartcoll_f08_internal.h"

#include <limits.h>

/* ------------------------------------------------------------------------
 * Non-contiguous sections in non-blocking and persistent calls: datatypes
 * ------------------------------------------------------------------------ */

/* A section as nested levels of items of a predefined datatype: level 0 the
 * items within one array element, level k + 1 the array's dimension k.  A
 * block of the call is a range of items in array element order; it is
 * described by at most 2 * levels + 1 pieces (a partial slice, whole slices,
 * a partial slice at each level), joined by one struct datatype. */
#define LEVELS (CFI_MAX_RANK + 1)
typedef struct sect {
    int nlev;
    MPI_Datatype item;
    MPI_Aint s;                    /* item size (= extent) */
    MPI_Aint n[LEVELS], st[LEVELS]; /* extent and byte stride of each level */
    long long per[LEVELS + 1];     /* items in one slice of level k */
    long long total;
    MPI_Datatype full[LEVELS + 1]; /* one slice of level k, made on demand */
} sect;

typedef struct pieces {
    int n;
    int len[2 * LEVELS + 2];
    MPI_Aint disp[2 * LEVELS + 2];
    MPI_Datatype type[2 * LEVELS + 2];
} pieces;

static const char *const sect_advice = "pass a contiguous array, or use the blocking call";

/* The items of section d in datatype t; 0 with an error recorded when t is
 * not a predefined datatype whose items tile the array elements. */
static int sect_init(ccf_call *c, sect *x, const CFI_cdesc_t *d, MPI_Datatype t, const char *buf)
{
    int ni, na, nd, combiner, size = 0;
    MPI_Aint lb = 0, ext = 0;
    if (MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) != MPI_SUCCESS || combiner != MPI_COMBINER_NAMED) {
        ccf_fail(c, MPI_ERR_BUFFER,
                 "%s: %s is a non-contiguous array section with a derived datatype: non-blocking and persistent "
                 "calls describe sections for predefined datatypes only (%s)",
                 c->who, buf, sect_advice);
        return 0;
    }
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &ext);
    if (size <= 0 || lb != 0 || ext != size || d->elem_len % (size_t)size) {
        ccf_fail(c, MPI_ERR_BUFFER,
                 "%s: %s is a non-contiguous array section whose elements are not made of whole elements of the "
                 "datatype (%s)",
                 c->who, buf, sect_advice);
        return 0;
    }
    x->item = t;
    x->s = size;
    x->nlev = d->rank + 1;
    x->n[0] = (MPI_Aint)(d->elem_len / (size_t)size);
    x->st[0] = size;
    for (int k = 0; k < d->rank; k++) {
        x->n[k + 1] = d->dim[k].extent;
        x->st[k + 1] = d->dim[k].sm;
    }
    x->per[0] = 1;
    for (int k = 0; k < x->nlev; k++) x->per[k + 1] = x->per[k] * x->n[k];
    x->total = x->per[x->nlev];
    x->full[0] = t;
    for (int k = 1; k <= x->nlev; k++) x->full[k] = MPI_DATATYPE_NULL;
    return 1;
}

/* The datatype of `count` consecutive slices of level k at stride st[k]
 * (count 1: one slice); MPI_DATATYPE_NULL with an error recorded. */
static MPI_Datatype slices(ccf_call *c, sect *x, int k, long long count)
{
    if (x->full[k] == MPI_DATATYPE_NULL) {
        MPI_Datatype inner = slices(c, x, k - 1, x->n[k - 1]); /* n[k-1] slices of level k-1 */
        if (inner == MPI_DATATYPE_NULL) return MPI_DATATYPE_NULL;
        x->full[k] = inner;
    }
    if (count == 1) return x->full[k];
    MPI_Datatype t;
    if (count > INT_MAX || MPI_Type_create_hvector((int)count, 1, x->st[k], x->full[k], &t) != MPI_SUCCESS)
        goto fail;
    return ccf_track(c, &t) ? t : MPI_DATATYPE_NULL;
fail:
    ccf_fail(c, MPI_ERR_BUFFER, "%s: an array section too large to describe with a datatype (%s)", c->who,
             sect_advice);
    return MPI_DATATYPE_NULL;
}

static int add_piece(ccf_call *c, pieces *p, MPI_Aint disp, long long len, MPI_Datatype t)
{
    if (t == MPI_DATATYPE_NULL) return 0;
    if (len > INT_MAX || p->n == (int)(sizeof p->len / sizeof p->len[0])) {
        ccf_fail(c, MPI_ERR_INTERN, "%s: cannot describe an array section", c->who);
        return 0;
    }
    p->disp[p->n] = disp;
    p->len[p->n] = (int)len;
    p->type[p->n++] = t;
    return 1;
}

/* Items [a, b) of one slab of level k (a, b <= n[k] * per[k]) at byte
 * offset off, in order. */
static int emit(ccf_call *c, sect *x, pieces *p, int k, MPI_Aint off, long long a, long long b)
{
    if (a >= b) return 1;
    if (k == 0) return add_piece(c, p, off + (MPI_Aint)a * x->st[0], b - a, x->item);
    long long P = x->per[k], ia = a / P, ib = b / P, ra = a % P, rb = b % P;
    if (ia == ib) return emit(c, x, p, k - 1, off + (MPI_Aint)ia * x->st[k], ra, rb);
    if (ra) {
        if (!emit(c, x, p, k - 1, off + (MPI_Aint)ia * x->st[k], ra, P)) return 0;
        ia++;
    }
    if (ib > ia && !add_piece(c, p, off + (MPI_Aint)ia * x->st[k], 1, slices(c, x, k, ib - ia))) return 0;
    return emit(c, x, p, k - 1, off + (MPI_Aint)ib * x->st[k], 0, rb);
}

/* A committed datatype of items [first, first + count) of section x,
 * relative to the section's first element; MPI_DATATYPE_NULL with an
 * error recorded. */
static MPI_Datatype range_type(ccf_call *c, sect *x, long long first, long long count)
{
    pieces p;
    p.n = 0;
    if (!emit(c, x, &p, x->nlev - 1, 0, first, first + count)) return MPI_DATATYPE_NULL;
    MPI_Datatype t;
    if (MPI_Type_create_struct(p.n, p.len, p.disp, p.type, &t) != MPI_SUCCESS) {
        ccf_fail(c, MPI_ERR_INTERN, "%s: cannot describe an array section", c->who);
        return MPI_DATATYPE_NULL;
    }
    if (!ccf_track(c, &t)) return MPI_DATATYPE_NULL;
    MPI_Type_commit(&t);
    return t;
}

/* Whether datatype t is one sect_init takes for section d (a predefined
 * datatype whose items tile the elements); invalid handles count as
 * taken (the library rejects them). */
static int tiles(const CFI_cdesc_t *d, MPI_Datatype t)
{
    int ni, na, nd, comb, size = 0;
    MPI_Aint lb = 0, ext = 0;
    if (t == MPI_DATATYPE_NULL || MPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS) return 1;
    if (comb != MPI_COMBINER_NAMED) return 0;
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &ext);
    return size > 0 && lb == 0 && ext == size && d->elem_len % (size_t)size == 0;
}

void *ccf_single_or_copy(ccf_call *c, CFI_cdesc_t *d, void *base, int out, int *count, MPI_Datatype *type)
{
    if (c->err) return base;
    if (*count > 0 && !tiles(d, *type)) return ccf_async_copy(c, d, out);
    ccf_single(c, d, count, type);
    return base;
}

void ccf_single(ccf_call *c, CFI_cdesc_t *d, int *count, MPI_Datatype *type)
{
    if (c->err || *count <= 0 || *type == MPI_DATATYPE_NULL) return; /* nothing to describe, or rejected */
    sect x;
    if (!sect_init(c, &x, d, *type, "the buffer")) return;
    if (*count > x.total) {
        ccf_fail(c, MPI_ERR_BUFFER, "%s: a block of %d elements is larger than its array section", c->who, *count);
        return;
    }
    MPI_Datatype t = range_type(c, &x, 0, *count);
    if (t == MPI_DATATYPE_NULL) return;
    *count = 1;
    *type = t;
}

int ccf_unsupported_section(ccf_call *c, const char *what)
{
    if (c->comm == MPI_COMM_NULL) return CCF_PASS; /* the library reports the communicator */
    ccf_fail(c, MPI_ERR_BUFFER,
             "%s: %s is a non-contiguous array section; partitioned calls take contiguous buffers only (pass a "
             "contiguous array)",
             c->who, what);
    return ccf_raise(c);
}

/* Block i of a side in its buffer's own element order; 0 when the
 * arguments are invalid (the library rejects them). */
static int side_block(const ccf_side *x, int i, int *cnt, MPI_Datatype *t, MPI_Aint *off)
{
    MPI_Aint lb, ext = 0;
    *t = x->kind == CCF_W ? x->types[i] : x->type;
    *cnt = x->kind == CCF_REG ? x->count : x->counts[i];
    if (*cnt < 0 || *t == MPI_DATATYPE_NULL) return 0;
    if (x->kind != CCF_W && MPI_Type_get_extent(*t, &lb, &ext) != MPI_SUCCESS) return 0;
    if (x->kind == CCF_REG)
        *off = (MPI_Aint)i * (MPI_Aint)x->count * ext;
    else if (x->kind == CCF_V)
        *off = (MPI_Aint)x->idispls[i] * ext;
    else
        *off = x->adispls[i];
    return 1;
}

/* The n blocks of side x as the arrays of a w call: unchanged for a
 * contiguous buffer, one datatype each for a section.  1: done, 0: the
 * arguments are invalid (pass), -1: error recorded. */
static int side_w(ccf_call *c, const ccf_side *x, int n, const char *buf, int **counts, MPI_Aint **displs,
                  MPI_Datatype **types)
{
    *counts = ccf_alloc(c, sizeof(int) * (size_t)n);
    *displs = ccf_alloc(c, sizeof(MPI_Aint) * (size_t)n);
    *types = ccf_alloc(c, sizeof(MPI_Datatype) * (size_t)n);
    if (c->err) return -1;
    sect sx;
    int have = 0;
    for (int i = 0; i < n; i++) {
        int cnt;
        MPI_Datatype t;
        MPI_Aint off;
        if (!side_block(x, i, &cnt, &t, &off)) return 0;
        (*counts)[i] = cnt;
        (*displs)[i] = off;
        (*types)[i] = t;
        if (!x->nc || cnt == 0) continue;
        if (!have || sx.item != t) {
            if (!sect_init(c, &sx, x->d, t, buf)) return -1;
            have = 1;
        }
        if (off < 0 || off % sx.s || off / sx.s > sx.total - cnt) {
            ccf_fail(c, MPI_ERR_BUFFER, "%s: block %d of %s does not lie within its array section", c->who, i, buf);
            return -1;
        }
        if (((*types)[i] = range_type(c, &sx, off / sx.s, cnt)) == MPI_DATATYPE_NULL) return -1;
        (*counts)[i] = 1;
        (*displs)[i] = 0;
    }
    return 1;
}

/* Whether every non-empty block of side x has a predefined datatype whose
 * items tile the elements of its section (what side_w / ccf_single can
 * describe); invalid arguments count as describable (the library rejects
 * them). */
static int describable(const ccf_side *x, int n)
{
    for (int i = 0; i < n; i++) {
        int cnt;
        MPI_Datatype t;
        MPI_Aint off;
        if (!side_block(x, i, &cnt, &t, &off)) return 1;
        if (cnt > 0 && !tiles(x->d, t)) return 0;
    }
    return 1;
}

/* A section side that datatypes cannot describe (derived datatypes) takes
 * a contiguous copy kept with the request instead (ccf_async_copy). */
static void copy_if_needed(ccf_call *c, ccf_side *x, int n, int out)
{
    if (!x->nc || c->err || describable(x, n)) return;
    x->base = ccf_async_copy(c, x->d, out);
    x->nc = 0;
}

int ccf_alltoall_sections(ccf_call *c, ccf_side *s, ccf_side *r, MPI_Comm comm, MPI_Info info, int persistent,
                          Cart_request *request)
{
    int *sc, *rc;
    MPI_Aint *sd, *rd;
    MPI_Datatype *st, *rt;
    if (!ccf_block_counts(c)) return CCF_PASS;
    copy_if_needed(c, s, c->nsend, 0);
    copy_if_needed(c, r, c->nrecv, 1);
    if (c->err) return ccf_raise(c);
    int k = side_w(c, s, c->nsend, "sendbuf", &sc, &sd, &st);
    if (k > 0) k = side_w(c, r, c->nrecv, "recvbuf", &rc, &rd, &rt);
    if (k < 0) return ccf_raise(c);
    if (k == 0) return CCF_PASS;
    if (persistent) return Cart_alltoallw_init(s->base, sc, sd, st, r->base, rc, rd, rt, comm, info, request);
    return Cart_ialltoallw(s->base, sc, sd, st, r->base, rc, rd, rt, comm, request);
}

int ccf_allgather_sections(ccf_call *c, ccf_side *s, ccf_side *r, MPI_Comm comm, MPI_Info info, int persistent,
                           Cart_request *request)
{
    int *rc, scount = s->count;
    MPI_Aint *rd;
    MPI_Datatype *rt, stype = s->type;
    if (!ccf_block_counts(c)) return CCF_PASS;
    ccf_side one = *s; /* the send buffer is one block */
    one.kind = CCF_REG;
    copy_if_needed(c, &one, 1, 0);
    s->base = one.base;
    s->nc = one.nc;
    copy_if_needed(c, r, c->nrecv, 1);
    if (c->err) return ccf_raise(c);
    if (s->nc) ccf_single(c, s->d, &scount, &stype);
    int k = c->err ? -1 : side_w(c, r, c->nrecv, "recvbuf", &rc, &rd, &rt);
    if (k < 0) return ccf_raise(c);
    if (k == 0) return CCF_PASS;
    if (persistent) return Cart_allgatherw_init(s->base, scount, stype, r->base, rc, rd, rt, comm, info, request);
    return Cart_iallgatherw(s->base, scount, stype, r->base, rc, rd, rt, comm, request);
}

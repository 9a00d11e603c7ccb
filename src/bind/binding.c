#include "bind/binding.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- type maps --------------------------------------------------------- */

/* Facts of one datatype needed to compose its parents. */
typedef struct tfacts {
    MPI_Aint size, extent, true_lb;
    int dense;
} tfacts;

static int type_dense(MPI_Datatype type, int depth);

static int tfacts_get(MPI_Datatype type, tfacts *f, int depth)
{
    MPI_Count size;
    MPI_Aint lb, true_extent;
    if (MPI_Type_size_x(type, &size) != MPI_SUCCESS || MPI_Type_get_extent(type, &lb, &f->extent) != MPI_SUCCESS ||
        MPI_Type_get_true_extent(type, &f->true_lb, &true_extent) != MPI_SUCCESS)
        return 0;
    f->size = (MPI_Aint)size;
    f->dense = type_dense(type, depth + 1);
    return 1;
}

/* The pieces of a type map, in type-map order, must follow each other in
 * memory without gap or overlap. */
typedef struct run {
    int ok, started;
    MPI_Aint next;
} run;

/* `count` copies of a child, `stride` bytes apart, the first at byte `disp`. */
static void run_add(run *r, const tfacts *c, MPI_Aint count, MPI_Aint stride, MPI_Aint disp)
{
    if (count <= 0 || c->size == 0) return;
    if (!c->dense || (count > 1 && (c->size != c->extent || stride != c->extent))) {
        r->ok = 0;
        return;
    }
    MPI_Aint start = disp + c->true_lb;
    if (r->started && start != r->next) r->ok = 0;
    r->started = 1;
    r->next = start + count * c->size;
}

/* Does the type map, read in order, run forward through memory one byte
 * after the other (so that memcpy of [true_lb, true_lb + size) is the same
 * as MPI_Pack)?  Decided from the type's construction: a size equal to the
 * true extent is not enough (negative strides, overlapping maps).
 * Constructors we do not analyse count as not dense, which is only slower. */
static int type_dense(MPI_Datatype type, int depth)
{
    int ni, na, nd, comb;
    if (depth > 64 || MPI_Type_get_envelope(type, &ni, &na, &nd, &comb) != MPI_SUCCESS) return 0;
    if (comb == MPI_COMBINER_NAMED) {
        MPI_Aint lb, tlb, ext, text;
        MPI_Count size;
        if (MPI_Type_size_x(type, &size) != MPI_SUCCESS || MPI_Type_get_extent(type, &lb, &ext) != MPI_SUCCESS ||
            MPI_Type_get_true_extent(type, &tlb, &text) != MPI_SUCCESS)
            return 0;
        return (MPI_Aint)size == text; /* pair types such as MPI_SHORT_INT have holes */
    }
    switch (comb) {
    case MPI_COMBINER_DUP: case MPI_COMBINER_CONTIGUOUS: case MPI_COMBINER_VECTOR: case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_INDEXED: case MPI_COMBINER_HINDEXED: case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK: case MPI_COMBINER_STRUCT: case MPI_COMBINER_RESIZED:
        break;
    default:
        return 0;
    }
    int *ints = malloc(sizeof(int) * (size_t)(ni + 1));
    MPI_Aint *aints = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
    run r = { 0, 0, 0 };
    tfacts c;
    if (ints && aints && types && MPI_Type_get_contents(type, ni, na, nd, ints, aints, types) == MPI_SUCCESS) {
        r.ok = 1;
        int n = ni > 0 ? ints[0] : 0;
        if (comb != MPI_COMBINER_STRUCT && !tfacts_get(types[0], &c, depth)) r.ok = 0;
        if (r.ok) switch (comb) {
        case MPI_COMBINER_DUP:
        case MPI_COMBINER_RESIZED: /* same type map; lb and extent are checked by the caller */
            r.ok = c.dense;
            break;
        case MPI_COMBINER_CONTIGUOUS:
            run_add(&r, &c, n, c.extent, 0);
            break;
        case MPI_COMBINER_VECTOR: /* count, blocklength, stride in extents */
            if (ints[0] > 0 && ints[1] > 0) {
                if (ints[0] > 1 && ints[2] != ints[1]) r.ok = 0;
                else run_add(&r, &c, (MPI_Aint)ints[0] * ints[1], c.extent, 0);
            }
            break;
        case MPI_COMBINER_HVECTOR: /* count, blocklength; stride in bytes */
            if (ints[0] > 0 && ints[1] > 0) {
                if (ints[0] > 1 && aints[0] != (MPI_Aint)ints[1] * c.extent) r.ok = 0;
                else run_add(&r, &c, (MPI_Aint)ints[0] * ints[1], c.extent, 0);
            }
            break;
        case MPI_COMBINER_INDEXED: /* count, blocklengths[count], displacements[count] in extents */
            for (int j = 0; j < n && r.ok; j++) run_add(&r, &c, ints[1 + j], c.extent, (MPI_Aint)ints[1 + n + j] * c.extent);
            break;
        case MPI_COMBINER_HINDEXED: /* count, blocklengths[count]; displacements in bytes */
            for (int j = 0; j < n && r.ok; j++) run_add(&r, &c, ints[1 + j], c.extent, aints[j]);
            break;
        case MPI_COMBINER_INDEXED_BLOCK: /* count, blocklength, displacements[count] in extents */
            for (int j = 0; j < n && r.ok; j++) run_add(&r, &c, ints[1], c.extent, (MPI_Aint)ints[2 + j] * c.extent);
            break;
        case MPI_COMBINER_HINDEXED_BLOCK: /* count, blocklength; displacements in bytes */
            for (int j = 0; j < n && r.ok; j++) run_add(&r, &c, ints[1], c.extent, aints[j]);
            break;
        case MPI_COMBINER_STRUCT: /* count, blocklengths[count]; displacements; types */
            for (int j = 0; j < n && r.ok; j++) {
                if (!tfacts_get(types[j], &c, depth)) r.ok = 0;
                else run_add(&r, &c, ints[1 + j], c.extent, aints[j]);
            }
            break;
        default:
            r.ok = 0;
        }
        for (int j = 0; j < nd; j++) {
            int a, b, e, cb;
            if (MPI_Type_get_envelope(types[j], &a, &b, &e, &cb) == MPI_SUCCESS && cb != MPI_COMBINER_NAMED)
                MPI_Type_free(&types[j]);
        }
    }
    free(ints);
    free(aints);
    free(types);
    return r.ok;
}

int cc_typeinfo_get(MPI_Datatype type, cc_typeinfo *ti)
{
    int rc, ni, na, nd, comb;
    MPI_Count size;
    ti->type = type;
    if ((rc = MPI_Type_size_x(type, &size)) != MPI_SUCCESS) return rc;
    ti->size = (MPI_Aint)size;
    if ((rc = MPI_Type_get_extent(type, &ti->lb, &ti->extent)) != MPI_SUCCESS) return rc;
    if ((rc = MPI_Type_get_true_extent(type, &ti->true_lb, &ti->true_extent)) != MPI_SUCCESS) return rc;
    if ((rc = MPI_Type_get_envelope(type, &ni, &na, &nd, &comb)) != MPI_SUCCESS) return rc;
    ti->predefined = comb == MPI_COMBINER_NAMED;
    ti->dense = ti->size == ti->true_extent && (ti->predefined || type_dense(type, 0));
    return MPI_SUCCESS;
}

/* Contiguous: the data of `count` elements is one run of count*size bytes
 * in type-map order. */
static char *contiguous_data(char *addr, int count, const cc_typeinfo *ti)
{
    if (count == 0 || ti->size == 0) return addr;
    if (!ti->dense) return NULL;
    if (count > 1 && ti->extent != ti->size) return NULL;
    return addr + ti->true_lb;
}

int cc_args_nsend(const cc_args *a, int t) { return a->collective == CC_ALLTOALL ? t : 1; }

/* The count, type and byte displacement of block i of one side. */
static void describe(const cc_args *a, int side, int i, int *count, MPI_Datatype *type, MPI_Aint *disp,
                     int *disp_in_extents)
{
    int send = side == CC_SIDE_SEND;
    *disp_in_extents = 1;
    if (send && a->collective == CC_ALLGATHER) {
        *count = a->sendcount;
        *type = a->sendtype;
        *disp = 0;
        return;
    }
    switch (a->variant) {
    case CC_REGULAR:
        *count = send ? a->sendcount : a->recvcount;
        *type = send ? a->sendtype : a->recvtype;
        *disp = (MPI_Aint)i * *count; /* in extents */
        break;
    case CC_VECTOR:
        *count = send ? a->sendcounts[i] : a->recvcounts[i];
        *type = send ? a->sendtype : a->recvtype;
        *disp = send ? a->sdispls[i] : a->rdispls[i];
        break;
    default:
        *count = send ? a->sendcounts[i] : a->recvcounts[i];
        *type = send ? a->sendtypes[i] : a->recvtypes[i];
        *disp = send ? a->sdisplsw[i] : a->rdisplsw[i];
        *disp_in_extents = 0;
        break;
    }
}

int cc_args_block(const cc_args *a, int side, int i, cc_blk *out, cc_typeinfo *ti)
{
    int count, in_ext, rc;
    MPI_Datatype type;
    MPI_Aint disp;
    describe(a, side, i, &count, &type, &disp, &in_ext);
    if (ti->type != type && (rc = cc_typeinfo_get(type, ti)) != MPI_SUCCESS) return rc;
    /* Integer arithmetic: the base may be MPI_BOTTOM with absolute
     * displacements (the w variants). */
    uintptr_t base = side == CC_SIDE_SEND ? (uintptr_t)a->sendbuf : (uintptr_t)a->recvbuf;
    out->addr = (char *)(base + (uintptr_t)(in_ext ? disp * ti->extent : disp));
    out->count = count;
    out->type = type;
    out->bytes = (MPI_Aint)count * ti->size;
    out->extent = ti->extent;
    out->data = contiguous_data(out->addr, count, ti);
    out->named = ti->predefined;
    return MPI_SUCCESS;
}

/* ---- compact temporary blocks ------------------------------------------ */

/* The single predefined type a datatype's signature consists of, if there
 * is one (walks the type's construction).  Returns 1 and *basic, or 0. */
static int single_basic(MPI_Datatype t, MPI_Datatype *basic, int depth)
{
    int ni, na, nd, comb;
    if (depth > 32 || MPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS) return 0;
    if (comb == MPI_COMBINER_NAMED) {
        if (*basic == MPI_DATATYPE_NULL) *basic = t;
        return *basic == t;
    }
    int *ints = malloc(sizeof(int) * (size_t)(ni + 1));
    MPI_Aint *aints = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
    int ok = ints && aints && types &&
             MPI_Type_get_contents(t, ni, na, nd, ints, aints, types) == MPI_SUCCESS;
    if (ok) {
        for (int j = 0; j < nd; j++) {
            if (ok && !single_basic(types[j], basic, depth + 1)) ok = 0;
            int a, b, c, cb;
            MPI_Type_get_envelope(types[j], &a, &b, &c, &cb);
            if (cb != MPI_COMBINER_NAMED) MPI_Type_free(&types[j]);
        }
    }
    free(ints);
    free(aints);
    free(types);
    return ok;
}

typedef struct tempkind {
    MPI_Datatype type;   /* the receive type this was computed for */
    MPI_Datatype basic;  /* single basic type, or MPI_DATATYPE_NULL */
    cc_typeinfo ti, bi;  /* of type and of basic */
} tempkind;

/* Layout of a temporary block like receive block `like`: sets *blk except
 * addr/data and returns the bytes of memory it needs, and the offset of the
 * block's origin from that memory (so that addr = mem + origin). */
static int temp_layout(const cc_blocks *b, int like, tempkind *cache, int *ncache, cc_blk *blk,
                       MPI_Aint *span, MPI_Aint *origin)
{
    const cc_blk *r = &b->recv[like];
    tempkind *k = NULL;
    for (int j = 0; j < *ncache && !k; j++)
        if (cache[j].type == r->type) k = &cache[j];
    if (!k) {
        k = &cache[*ncache < 8 ? (*ncache)++ : 7];
        k->type = r->type;
        k->basic = MPI_DATATYPE_NULL;
        int rc = cc_typeinfo_get(r->type, &k->ti);
        if (rc != MPI_SUCCESS) return rc;
        if (!contiguous_data(r->addr, 2, &k->ti) && single_basic(r->type, &k->basic, 0)) {
            rc = cc_typeinfo_get(k->basic, &k->bi);
            if (rc != MPI_SUCCESS) return rc;
        } else {
            k->basic = MPI_DATATYPE_NULL;
        }
    }
    blk->bytes = r->bytes;
    if (r->count == 0 || r->bytes == 0) {
        blk->count = 0;
        blk->type = r->type;
        *span = 0;
        *origin = 0;
    } else if (contiguous_data(r->addr, r->count, &k->ti)) {
        blk->count = r->count;
        blk->type = r->type;
        *span = r->bytes;
        *origin = -k->ti.true_lb;
    } else if (k->basic != MPI_DATATYPE_NULL && k->bi.size > 0 && k->bi.size == k->bi.true_extent &&
               k->bi.extent == k->bi.size && r->bytes / k->bi.size <= 0x7fffffff) {
        /* (more basic elements than an int counts: the receive type's layout below) */
        MPI_Aint n = r->bytes / k->bi.size;
        blk->count = (int)n;
        blk->type = k->basic;
        *span = r->bytes;
        *origin = -k->bi.true_lb;
    } else {
        /* The receive type's own layout: count elements, extent apart. */
        MPI_Aint step = (MPI_Aint)(r->count - 1) * k->ti.extent;
        MPI_Aint lo = k->ti.true_lb + (step < 0 ? step : 0);
        MPI_Aint hi = k->ti.true_lb + k->ti.true_extent + (step > 0 ? step : 0);
        blk->count = r->count;
        blk->type = r->type;
        *span = hi - lo;
        *origin = -lo;
    }
    return MPI_SUCCESS;
}

/* The user may free a datatype as soon as the call returns (MPI allows it
 * for pending operations), but we use the types later (packing, posting
 * later phases): work on duplicates of the derived ones. */
static int own_types(cc_blocks *b)
{
    enum { RECENT = 8 };
    MPI_Datatype from[RECENT], to[RECENT];
    int nrecent = 0, cap = 0, rc;
    for (int j = 0; j < b->nsend + b->t; j++) {
        cc_blk *blk = j < b->nsend ? &b->send[j] : &b->recv[j - b->nsend];
        int k = 0;
        while (k < nrecent && from[k] != blk->type) k++;
        if (k < nrecent) {
            blk->type = to[k];
            continue;
        }
        int ni, na, nd, comb;
        if ((rc = MPI_Type_get_envelope(blk->type, &ni, &na, &nd, &comb)) != MPI_SUCCESS) return rc;
        MPI_Datatype mine = blk->type;
        if (comb != MPI_COMBINER_NAMED) {
            if (b->nowned == cap) {
                cap = cap ? 2 * cap : 8;
                MPI_Datatype *o = realloc(b->owned, sizeof(MPI_Datatype) * (size_t)cap);
                if (!o) return MPI_ERR_NO_MEM;
                b->owned = o;
            }
            if ((rc = MPI_Type_dup(blk->type, &mine)) != MPI_SUCCESS) return rc;
            b->owned[b->nowned++] = mine;
        }
        k = nrecent < RECENT ? nrecent++ : RECENT - 1;
        from[k] = blk->type;
        to[k] = mine;
        blk->type = mine;
    }
    return MPI_SUCCESS;
}

static MPI_Aint align16(MPI_Aint x) { return (x + 15) & ~(MPI_Aint)15; }

int cc_blocks_new(const cc_args *a, int t, cc_blocks **out)
{
    *out = NULL;
    cc_blocks *b = calloc(1, sizeof *b);
    if (!b) return MPI_ERR_NO_MEM;
    atomic_init(&b->refs, 1);
    b->t = t;
    b->nsend = cc_args_nsend(a, t);
    b->send = malloc(sizeof(cc_blk) * (size_t)(b->nsend ? b->nsend : 1));
    b->recv = malloc(sizeof(cc_blk) * (size_t)(t ? t : 1));
    int rc = b->send && b->recv ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    cc_typeinfo ti = CC_TYPEINFO_NONE;
    for (int i = 0; i < b->nsend && rc == MPI_SUCCESS; i++) rc = cc_args_block(a, CC_SIDE_SEND, i, &b->send[i], &ti);
    ti.type = MPI_DATATYPE_NULL;
    for (int i = 0; i < t && rc == MPI_SUCCESS; i++) rc = cc_args_block(a, CC_SIDE_RECV, i, &b->recv[i], &ti);
    if (rc == MPI_SUCCESS) rc = own_types(b);
    if (rc != MPI_SUCCESS) {
        cc_blocks_release(b);
        return rc;
    }
    *out = b;
    return MPI_SUCCESS;
}

void cc_blocks_release(cc_blocks *b)
{
    if (!b || atomic_fetch_sub(&b->refs, 1) != 1) return;
    for (int i = 0; i < b->nowned; i++) MPI_Type_free(&b->owned[i]);
    free(b->owned);
    free(b->send);
    free(b->recv);
    free(b);
}

int cc_bind(cc_binding *b, cc_blocks *blocks, const cc_schedule *s, const cc_local *l)
{
    memset(b, 0, sizeof *b);
    int t = s->t, rc = MPI_SUCCESS;
    atomic_fetch_add(&blocks->refs, 1);
    b->blocks = blocks;
    b->ntemp = s->ntemp;
    b->temp = calloc((size_t)(s->ntemp ? s->ntemp : 1), sizeof(cc_blk));
    b->temp2 = calloc((size_t)(t ? t : 1), sizeof(cc_blk));
    /* Which temporaries this process uses (TEMP2 only on meshes). */
    unsigned char *used = calloc((size_t)s->ntemp + (size_t)t + 1, 1);
    MPI_Aint *off = malloc(sizeof(MPI_Aint) * ((size_t)s->ntemp + (size_t)t + 1));
    if (!b->temp || !b->temp2 || !used || !off) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (int j = 0; j < l->nslots; j++) {
        int sl = l->slots[j], k = CC_SLOT_KIND(sl), i = CC_SLOT_INDEX(sl);
        if (k == CC_SLOT_TEMP) used[i] = 1;
        if (k == CC_SLOT_TEMP2) used[s->ntemp + i] = 1;
    }
    for (int j = 0; j < 2 * l->ncopies; j++) {
        int sl = l->copies[j], k = CC_SLOT_KIND(sl), i = CC_SLOT_INDEX(sl);
        if (k == CC_SLOT_TEMP) used[i] = 1;
        if (k == CC_SLOT_TEMP2) used[s->ntemp + i] = 1;
    }
    tempkind cache[8];
    int ncache = 0;
    MPI_Aint total = 0;
    for (int j = 0; j < s->ntemp + t; j++) {
        if (!used[j]) continue;
        cc_blk *blk = j < s->ntemp ? &b->temp[j] : &b->temp2[j - s->ntemp];
        int like = j < s->ntemp ? s->temp_like[j] : j - s->ntemp;
        MPI_Aint span, origin;
        rc = temp_layout(blocks, like, cache, &ncache, blk, &span, &origin);
        if (rc != MPI_SUCCESS) goto out;
        off[j] = total + origin; /* origin relative to the buffer, resolved below */
        total = align16(total + span);
    }
    b->tempbuf = malloc((size_t)(total ? total : 1));
    if (!b->tempbuf) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    cc_typeinfo tti = CC_TYPEINFO_NONE;
    for (int j = 0; j < s->ntemp + t; j++) {
        if (!used[j]) continue;
        cc_blk *blk = j < s->ntemp ? &b->temp[j] : &b->temp2[j - s->ntemp];
        blk->addr = b->tempbuf + off[j];
        if (tti.type != blk->type && (rc = cc_typeinfo_get(blk->type, &tti)) != MPI_SUCCESS) goto out;
        blk->data = contiguous_data(blk->addr, blk->count, &tti);
        blk->extent = tti.extent;
    }
out:
    free(used);
    free(off);
    if (rc != MPI_SUCCESS) cc_binding_free(b);
    return rc;
}

void cc_binding_free(cc_binding *b)
{
    free(b->temp);
    free(b->temp2);
    free(b->tempbuf);
    cc_blocks_release(b->blocks);
    memset(b, 0, sizeof *b);
}

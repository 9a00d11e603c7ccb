/* Temporaries of a binding: where blocks that travel several hops wait,
 * laid out compactly, and the resolution of every slot of a local plan. */
#include "bind/binding.h"
#include "util/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
    cc_contents k;
    int ok = cc_contents_get(t, &k);
    for (int j = 0; ok && j < k.nd; j++) ok = single_basic(k.types[j], basic, depth + 1);
    cc_contents_free(&k); /* safe after a failed cc_contents_get too */
    return ok;
}

typedef struct tempkind {
    MPI_Datatype type;   /* the receive type this was computed for */
    MPI_Datatype basic;  /* single basic type, or MPI_DATATYPE_NULL */
    cc_typeinfo ti, bi;  /* of type and of basic */
    MPI_Aint align_ti, align_bi; /* elem_align of each (16 for a derived type) */
} tempkind;

/* The alignment a temporary of predefined elements `size` bytes apart
 * (their extent) needs: the largest power of two dividing it, at most 16
 * (C's alignment of a type divides its size).  Temporaries of one such
 * type then sit back to back, as the blocks of a user's array do, so that
 * a message's consecutive temporaries merge into one datatype entry;
 * padding each to 16 bytes kept every block of m ints (m not a multiple
 * of 4) apart. */
static MPI_Aint elem_align(MPI_Aint size)
{
    MPI_Aint a = 1;
    while (a < 16 && size % (2 * a) == 0) a *= 2;
    return a;
}

/* Layout of a temporary block like receive block `like`: sets *blk except
 * addr/data and returns the bytes of memory it needs, the offset of the
 * block's origin from that memory (so that addr = mem + origin) and the
 * alignment the memory needs. */
static int temp_layout(const cc_blocks *b, int like, tempkind *cache, int *ncache, cc_blk *blk,
                       MPI_Aint *span, MPI_Aint *origin, MPI_Aint *align)
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
        k->align_ti = k->ti.predefined ? elem_align(k->ti.extent) : 16; /* MPI_DOUBLE_INT: extent 16 */
        if (!cc_type_data(r->addr, 2, &k->ti) && single_basic(r->type, &k->basic, 0)) {
            rc = cc_typeinfo_get(k->basic, &k->bi);
            if (rc != MPI_SUCCESS) return rc;
            k->align_bi = elem_align(k->bi.size);
        } else {
            k->basic = MPI_DATATYPE_NULL;
        }
    }
    blk->bytes = r->bytes;
    *align = 16; /* derived types: as malloc aligns */
    if (r->count == 0 || r->bytes == 0) {
        blk->count = 0;
        blk->type = r->type;
        *span = 0;
        *origin = 0;
    } else if (cc_type_data(r->addr, r->count, &k->ti)) {
        blk->count = r->count;
        blk->type = r->type;
        *span = r->bytes;
        *origin = -k->ti.true_lb;
        *align = k->align_ti;
    } else if (!b->reduces && k->basic != MPI_DATATYPE_NULL && k->bi.size > 0 && k->bi.size == k->bi.true_extent &&
               k->bi.extent == k->bi.size && r->bytes / k->bi.size <= 0x7fffffff) {
        /* (more basic elements than an int counts: the receive type's layout below) */
        MPI_Aint n = r->bytes / k->bi.size;
        blk->count = (int)n;
        blk->type = k->basic;
        *span = r->bytes;
        *origin = -k->bi.true_lb;
        *align = k->align_bi;
    } else {
        /* The receive type's own layout. */
        blk->count = r->count;
        blk->type = r->type;
        *span = cc_type_span(r->count, &k->ti, origin);
    }
    return MPI_SUCCESS;
}

/* used[i]: TEMP i, used[ntemp + i]: TEMP2 i. */
static void mark_used(unsigned char *used, int ntemp, int slot)
{
    int k = CC_SLOT_KIND(slot), i = CC_SLOT_INDEX(slot);
    if (k == CC_SLOT_TEMP) used[i] = 1;
    if (k == CC_SLOT_TEMP2) used[ntemp + i] = 1;
}

static MPI_Aint align_up(MPI_Aint x, MPI_Aint a) { return (x + a - 1) & ~(a - 1); }

int cc_bind(cc_binding *b, cc_blocks *blocks, const cc_schedule *s, const cc_local *l)
{
    memset(b, 0, sizeof *b);
    int t = s->t, rc = MPI_SUCCESS;
    atomic_fetch_add(&blocks->refs, 1);
    b->blocks = blocks;
    b->ntemp = s->ntemp;
    /* Which temporaries this process uses (TEMP2 only on meshes). */
    unsigned char *used = calloc((size_t)s->ntemp + (size_t)t + 1, 1);
    MPI_Aint *off = malloc(sizeof(MPI_Aint) * ((size_t)s->ntemp + (size_t)t + 1));
    if (!used || !off) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (int j = 0; j < l->nslots; j++) mark_used(used, s->ntemp, l->slots[j]);
    for (int j = 0; j < 2 * l->ncopies; j++) mark_used(used, s->ntemp, l->copies[j]);
    /* (a fold's target may be written by no message) */
    for (int j = 0; j < l->nfolds; j++) mark_used(used, s->ntemp, l->folds[3 * j + 2]);
    /* TEMP2 i is indexed by receive block: t entries, but only where some
     * are used (zeroing t blocks per plan showed in set-up times). */
    int any2 = memchr(used + s->ntemp, 1, (size_t)t) != NULL;
    b->temp = cc_alloc_zarray((size_t)s->ntemp, sizeof(cc_blk));
    b->temp2 = cc_alloc_zarray(any2 ? (size_t)t : 1, sizeof(cc_blk));
    if ((b->refs = malloc(sizeof *b->refs)) != NULL) atomic_init(b->refs, 1);
    if (!b->temp || !b->temp2 || !b->refs) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    tempkind cache[8];
    int ncache = 0;
    MPI_Aint total = 0;
    for (int j = 0; j < s->ntemp + t; j++) {
        if (!used[j]) continue;
        cc_blk *blk = j < s->ntemp ? &b->temp[j] : &b->temp2[j - s->ntemp];
        int like = j < s->ntemp ? s->temp_like[j] : j - s->ntemp;
        MPI_Aint span, origin, align;
        rc = temp_layout(blocks, like, cache, &ncache, blk, &span, &origin, &align);
        if (rc != MPI_SUCCESS) goto out;
        total = align_up(total, align);
        off[j] = total + origin; /* origin relative to the buffer, resolved below */
        total += span;
    }
    b->tempbuf = cc_alloc_array((size_t)total, 1);
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
        blk->data = cc_type_data(blk->addr, blk->count, &tti);
        blk->extent = tti.extent;
        blk->named = tti.predefined; /* consecutive temporaries merge into one entry (exec/message.c) */
    }
out:
    free(used);
    free(off);
    if (rc != MPI_SUCCESS) cc_binding_free(b);
    return rc;
}

void cc_bind_share(cc_binding *b, const cc_binding *from)
{
    *b = *from;
    atomic_fetch_add(&b->blocks->refs, 1);
    atomic_fetch_add(b->refs, 1);
}

void cc_binding_free(cc_binding *b)
{
    if (!b->refs || atomic_fetch_sub(b->refs, 1) == 1) {
        free(b->temp);
        free(b->temp2);
        free(b->tempbuf);
        free(b->refs);
    }
    cc_blocks_release(b->blocks);
    memset(b, 0, sizeof *b);
}

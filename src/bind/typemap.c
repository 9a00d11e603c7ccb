/* Type maps: facts about datatypes, and whether a type's map runs forward
 * through memory (decided from its construction). */
#include "bind/typemap.h"
#include "base/errors.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Whether the envelope's counts are those the combiner has (MPI 4.1
 * Table 5.1): the arrays are read only then.  SimGrid SMPI 3.32 describes a
 * struct type as MPI_COMBINER_INDEXED with a struct's counts; read as an
 * indexed type, that would run past the integer array. */
static int contents_consistent(const cc_contents *k)
{
    int n = k->ni > 0 ? k->ints[0] : -1, ni, na = 0, nd = 1;
    switch (k->combiner) {
    case MPI_COMBINER_DUP: ni = 0; break;
    case MPI_COMBINER_CONTIGUOUS: ni = 1; break;
    case MPI_COMBINER_VECTOR: ni = 3; break;
    case MPI_COMBINER_HVECTOR: ni = 2, na = 1; break;
    case MPI_COMBINER_INDEXED: ni = 2 * n + 1; break;
    case MPI_COMBINER_HINDEXED: ni = n + 1, na = n; break;
    case MPI_COMBINER_INDEXED_BLOCK: ni = n + 2; break;
    case MPI_COMBINER_HINDEXED_BLOCK: ni = 2, na = n; break;
    case MPI_COMBINER_STRUCT: ni = n + 1, na = n, nd = n; break;
    case MPI_COMBINER_RESIZED: ni = 0, na = 2; break;
    default: return 0;
    }
    return k->ni == ni && k->na == na && k->nd == nd;
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
    cc_contents k;
    run r = { 0, 0, 0 };
    tfacts c;
    int have = cc_contents_get(type, &k);
    if (have && !contents_consistent(&k)) {
        cc_contents_free(&k); /* not analysed: r.ok stays 0 */
        have = 0;
    }
    if (have) {
        const int *ints = k.ints;
        const MPI_Aint *aints = k.aints;
        const MPI_Datatype *types = k.types;
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
        cc_contents_free(&k);
    }
    return r.ok;
}

int cc_contents_get(MPI_Datatype type, cc_contents *c)
{
    memset(c, 0, sizeof *c);
    if (MPI_Type_get_envelope(type, &c->ni, &c->na, &c->nd, &c->combiner) != MPI_SUCCESS ||
        c->combiner == MPI_COMBINER_NAMED)
        return 0;
    c->ints = malloc(sizeof(int) * (size_t)(c->ni + 1));
    c->aints = malloc(sizeof(MPI_Aint) * (size_t)(c->na + 1));
    c->types = malloc(sizeof(MPI_Datatype) * (size_t)(c->nd + 1));
    if (c->ints && c->aints && c->types &&
        MPI_Type_get_contents(type, c->ni, c->na, c->nd, c->ints, c->aints, c->types) == MPI_SUCCESS)
        return 1;
    c->nd = 0; /* no child types to free */
    cc_contents_free(c);
    return 0;
}

void cc_contents_free(cc_contents *c)
{
#ifdef CARTCOLL_CONTENTS_BORROWED
    /* SimGrid SMPI 3.32 hands out the constructor's own child types
     * without a reference: freeing them would free the user's types. */
    c->nd = 0;
#endif
    for (int j = 0; j < c->nd; j++) {
        int a, b, e, cb;
        if (MPI_Type_get_envelope(c->types[j], &a, &b, &e, &cb) == MPI_SUCCESS && cb != MPI_COMBINER_NAMED)
            MPI_Type_free(&c->types[j]);
    }
    free(c->ints);
    free(c->aints);
    free(c->types);
    memset(c, 0, sizeof *c);
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
MPI_Aint cc_type_span(int count, const cc_typeinfo *ti, MPI_Aint *origin)
{
    MPI_Aint step = (MPI_Aint)(count - 1) * ti->extent; /* count elements, extent apart */
    MPI_Aint lo = ti->true_lb + (step < 0 ? step : 0);
    MPI_Aint hi = ti->true_lb + ti->true_extent + (step > 0 ? step : 0);
    *origin = -lo;
    return hi - lo;
}

char *cc_type_data(char *addr, int count, const cc_typeinfo *ti)
{
    if (count == 0 || ti->size == 0) return addr;
    if (!ti->dense) return NULL;
    if (count > 1 && ti->extent != ti->size) return NULL;
    return addr + ti->true_lb;
}


int cc_type_named(MPI_Datatype t)
{
    /* the usual ones without asking MPI (an envelope query costs ~300
     * instructions, and a blocking call asks several times) */
    if (t == MPI_INT || t == MPI_DOUBLE || t == MPI_FLOAT || t == MPI_CHAR || t == MPI_BYTE || t == MPI_LONG ||
        t == MPI_UNSIGNED || t == MPI_LONG_LONG || t == MPI_SHORT || t == MPI_UNSIGNED_CHAR)
        return 1;
    int ni, na, nd, comb;
    return MPI_Type_get_envelope(t, &ni, &na, &nd, &comb) == MPI_SUCCESS && comb == MPI_COMBINER_NAMED;
}

int cc_type_usable(MPI_Comm probe, MPI_Datatype t)
{
    if (t == MPI_DATATYPE_NULL) return 1;
    if (cc_type_named(t)) return 0; /* predefined types are always committed (and the probe costs ~1k instructions) */
    char b = 0;
    int pos = 0;
    return MPI_Pack(&b, 0, t, &b, 0, &pos, probe) != MPI_SUCCESS ? 2 : 0;
}

int cc_type_error(const char *who, const char *name, int index, int why)
{
    char where[24] = "";
    if (index >= 0) snprintf(where, sizeof where, "[%d]", index);
    return cc_error_code(MPI_ERR_TYPE, "%s: %s%s is %s", who, name, where,
                         why == 1 ? "MPI_DATATYPE_NULL" : "not a committed datatype (call MPI_Type_commit)");
}

/* Does MPI_Type_dup keep the type map?  SimGrid SMPI 3.32 copies a vector
 * (or indexed) type by passing the stored stride, already in bytes, to the
 * constructor that multiplies it by the old type's extent again
 * (Type_Vector::clone), so the duplicate reads elsewhere.  Asked once per
 * process: a duplicate of vector(2, 1, 2, MPI_INT) must pack ints 0 and 2. */
static int dup_faithful(void)
{
    static atomic_int known; /* 0 unknown, 1 faithful, 2 not */
    int k = atomic_load(&known);
    if (k) return k == 1;
    int src[16], out[2] = { -1, -1 }, pos = 0; /* src: room for the wrong reading */
    for (int i = 0; i < 16; i++) src[i] = i;
    MPI_Datatype v = MPI_DATATYPE_NULL, d = MPI_DATATYPE_NULL;
    int ok = MPI_Type_vector(2, 1, 2, MPI_INT, &v) == MPI_SUCCESS && MPI_Type_commit(&v) == MPI_SUCCESS &&
             MPI_Type_dup(v, &d) == MPI_SUCCESS &&
             MPI_Pack(src, 1, d, out, (int)sizeof out, &pos, MPI_COMM_SELF) == MPI_SUCCESS && out[0] == 0 &&
             out[1] == 2;
    if (d != MPI_DATATYPE_NULL) MPI_Type_free(&d);
    if (v != MPI_DATATYPE_NULL) MPI_Type_free(&v);
    atomic_store(&known, ok ? 1 : 2);
    return ok;
}

int cc_type_keep(MPI_Datatype t, MPI_Datatype *copy)
{
    if (dup_faithful()) return MPI_Type_dup(t, copy);
    /* One element of t at displacement 0: the same type map, bounds and
     * extent, and it holds t as a duplicate would. */
    int one = 1, rc;
    MPI_Aint zero = 0;
    if ((rc = MPI_Type_create_struct(1, &one, &zero, &t, copy)) != MPI_SUCCESS) return rc;
    if ((rc = MPI_Type_commit(copy)) != MPI_SUCCESS) MPI_Type_free(copy);
    return rc;
}

/* Hand-written glue of the Fortran module cartcoll_f08: array sections,
 * handle arrays, mpi_f08's sentinels, the glue's own errors, temporaries
 * kept with requests.  See cartcoll_f08_support.h and README.md. */
#include "cartcoll_f08_support.h"

#include "req/attach.h"

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The Fortran side passes INTEGER for MPI_Fint and int, INTEGER(C_INTPTR_T)
 * for MPI_Aint and INTEGER(C_LONG_LONG) for MPI_Count. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint must be a C int");
_Static_assert(sizeof(MPI_Aint) == sizeof(intptr_t), "MPI_Aint must have the size of intptr_t");
_Static_assert(sizeof(MPI_Count) == sizeof(long long), "MPI_Count must have the size of long long");

/* ------------------------------------------------------------------------
 * mpi_f08's sentinels, registered by the module at the first use
 * ------------------------------------------------------------------------ */

static pthread_once_t sentinel_once = PTHREAD_ONCE_INIT;
static const void *f_in_place, *f_bottom, *f_unweighted, *f_weights_empty;

void cartcoll_f08_register(CFI_cdesc_t *in_place, CFI_cdesc_t *bottom, CFI_cdesc_t *unweighted,
                           CFI_cdesc_t *weights_empty)
{
    f_in_place = in_place->base_addr;
    f_bottom = bottom->base_addr;
    f_unweighted = unweighted->base_addr;
    f_weights_empty = weights_empty->base_addr;
}

static void sentinels_init(void)
{
    cartcoll_f08_sentinels();
}

static void sentinels(void)
{
    pthread_once(&sentinel_once, sentinels_init);
}

const int *ccf_weights_in(const int *w)
{
    sentinels();
    if (w && (const void *)w == f_unweighted) return MPI_UNWEIGHTED;
    if (w && (const void *)w == f_weights_empty) return MPI_WEIGHTS_EMPTY;
    return w;
}

int *ccf_weights_out(int *w)
{
    sentinels();
    if (w && (const void *)w == f_unweighted) return MPI_UNWEIGHTED;
    return w;
}

/* ------------------------------------------------------------------------
 * Errors found by the glue itself
 * ------------------------------------------------------------------------ */

/* A code of the class with the sentence as its MPI_Error_string, made once
 * per sentence; the bare class where the MPI cannot attach strings to
 * codes of predefined classes (MPICH 4.0) or too many sentences exist. */
#define NMSG 256
static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;
static int strings_work = 1;
static struct {
    int cls, code;
    char *msg;
} msgs[NMSG];
static int nmsgs;

static int code_for(int cls, const char *msg)
{
    int code = cls;
    pthread_mutex_lock(&err_lock);
    for (int i = 0; i < nmsgs; i++)
        if (msgs[i].cls == cls && !strcmp(msgs[i].msg, msg)) {
            code = msgs[i].code;
            goto out;
        }
    if (strings_work && nmsgs < NMSG) {
        int k, len, back = -1;
        char s[MPI_MAX_ERROR_STRING];
        char *copy = malloc(strlen(msg) + 1);
        if (copy && MPI_Add_error_code(cls, &k) == MPI_SUCCESS && MPI_Add_error_string(k, msg) == MPI_SUCCESS &&
            MPI_Error_class(k, &back) == MPI_SUCCESS && back == cls &&
            MPI_Error_string(k, s, &len) == MPI_SUCCESS && !strcmp(s, msg)) {
            strcpy(copy, msg);
            msgs[nmsgs].cls = cls;
            msgs[nmsgs].code = k;
            msgs[nmsgs++].msg = copy;
            code = k;
        } else {
            free(copy);
            if (copy) strings_work = 0;
        }
    }
out:
    pthread_mutex_unlock(&err_lock);
    return code;
}

void ccf_fail(ccf_call *c, int cls, const char *fmt, ...)
{
    if (c->err) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    c->err = cls;
}

int ccf_raise(ccf_call *c)
{
    MPI_Comm comm = c->comm == MPI_COMM_NULL ? MPI_COMM_SELF : c->comm;
    int code = code_for(c->err, c->msg);
    if (code == c->err) {
        /* The sentence is not in the code: print it where a fatal handler
         * would otherwise lose it (as the C library does). */
        const char *v = getenv("CARTCOLL_VERBOSE_ERRORS");
        int verbose = v && *v && strcmp(v, "0") != 0;
        MPI_Errhandler eh;
        if (!verbose && MPI_Comm_get_errhandler(comm, &eh) == MPI_SUCCESS) {
            verbose = eh == MPI_ERRORS_ARE_FATAL;
            MPI_Errhandler_free(&eh);
        }
        if (verbose) fprintf(stderr, "cartcoll: %s\n", c->msg);
    }
    MPI_Comm_call_errhandler(comm, code);
    return code;
}

/* ------------------------------------------------------------------------
 * A call's temporaries
 * ------------------------------------------------------------------------ */

void ccf_begin(ccf_call *c, const char *who, int async)
{
    c->who = who;
    c->async = async;
    c->comm = MPI_COMM_NULL;
    c->err = 0;
    c->msg[0] = '\0';
    c->blocks = c->nsend = c->nrecv = 0;
    c->ncopy = 0;
    c->nacopy = 0;
    c->pre = NULL;
    c->mem = NULL;
    c->nmem = c->capmem = 0;
    c->types = NULL;
    c->ntypes = c->captypes = 0;
}

void ccf_set_comm(ccf_call *c, MPI_Comm comm)
{
    c->comm = comm;
}

/* n bytes (at least one) freed with the call; NULL with an error recorded. */
static void *alloc(ccf_call *c, size_t n)
{
    if (c->nmem == c->capmem) {
        int cap = c->capmem ? 2 * c->capmem : 8;
        void **m = realloc(c->mem, sizeof(void *) * (size_t)cap);
        if (!m) goto nomem;
        c->mem = m;
        c->capmem = cap;
    }
    void *p = malloc(n ? n : 1);
    if (!p) goto nomem;
    c->mem[c->nmem++] = p;
    return p;
nomem:
    ccf_fail(c, MPI_ERR_NO_MEM, "%s: out of memory in the Fortran bindings", c->who);
    return NULL;
}

/* Remember a datatype made here (freed with the call); 0 when it could not
 * be recorded (then it is freed at once and an error recorded). */
static int track(ccf_call *c, MPI_Datatype *t)
{
    if (c->ntypes == c->captypes) {
        int cap = c->captypes ? 2 * c->captypes : 8;
        MPI_Datatype *m = realloc(c->types, sizeof(MPI_Datatype) * (size_t)cap);
        if (!m) {
            MPI_Type_free(t);
            ccf_fail(c, MPI_ERR_NO_MEM, "%s: out of memory in the Fortran bindings", c->who);
            return 0;
        }
        c->types = m;
        c->captypes = cap;
    }
    c->types[c->ntypes++] = *t;
    return 1;
}

static void release(void **mem, int nmem, MPI_Datatype *types, int ntypes)
{
    for (int i = 0; i < nmem; i++) free(mem[i]);
    free(mem);
    for (int i = 0; i < ntypes; i++) MPI_Type_free(&types[i]);
    free(types);
}

/* ------------------------------------------------------------------------
 * Temporaries kept with a request until the library frees it: the
 * request's private attachment (req/attach.h), found in O(1) and released
 * by the library with the request however that is freed (also by a
 * completion outside these bindings), so no table keyed by addresses the
 * library may reuse is needed.  A request is used by one thread at a time.
 * ------------------------------------------------------------------------ */

typedef struct ccf_kept {
    void **mem;
    int nmem;
    MPI_Datatype *types;
    int ntypes;
    ccf_copy copy[3]; /* ccf_async_copy's copies (their descriptors are copies too) */
    int ncopy;
    int active; /* started (or made, non-blocking) and not yet copied back */
} kept;

static void free_copies(ccf_copy *copy, int n)
{
    for (int i = 0; i < n; i++) {
        free(copy[i].tmp);
        free(copy[i].d);
    }
}

static void free_kept(void *data)
{
    kept *k = data;
    if (!k) return;
    release(k->mem, k->nmem, k->types, k->ntypes);
    free_copies(k->copy, k->ncopy);
    free(k);
}

/* Keep c's temporaries with req; 0 when there is no memory for that
 * (never with async copies: their entry was allocated with them). */
static int keep(ccf_call *c, Cart_request req)
{
    kept *k = c->pre ? c->pre : malloc(sizeof *k);
    if (!k) return 0;
    c->pre = NULL;
    k->mem = c->mem;
    k->nmem = c->nmem;
    k->types = c->types;
    k->ntypes = c->ntypes;
    k->ncopy = c->nacopy;
    memcpy(k->copy, c->acopy, sizeof k->copy);
    k->active = c->async == CCF_NONBLOCKING; /* a persistent request starts inactive */
    c->nacopy = 0;
    cc_request_attach(req, k, free_kept);
    c->mem = NULL;
    c->types = NULL;
    c->nmem = c->ntypes = 0;
    return 1;
}

static void transfer(const CFI_cdesc_t *d, char *flat, int to_flat);

/* Copy an entry's receive copies back into their sections, once per start. */
static void copy_back(kept *k)
{
    if (!k || !k->active) return;
    for (int i = 0; i < k->ncopy; i++)
        if (k->copy[i].out) transfer(k->copy[i].d, k->copy[i].tmp, 0);
    k->active = 0;
}

/* Before a completion, which may free the request: take what was kept
 * with it (the copies must outlive the request), for settle(). */
static kept *take(const Cart_request *request)
{
    return request && *request != CART_REQUEST_NULL ? cc_request_detach(*request) : NULL;
}

/* After it: the copies go back into the sections when the request
 * completed (done); what was kept is released once the library has freed
 * the request (*request is then CART_REQUEST_NULL), else it stays with it. */
static void settle(kept *k, const Cart_request *request, int done)
{
    if (!k) return;
    if (done) copy_back(k);
    if (*request == CART_REQUEST_NULL) free_kept(k);
    else cc_request_attach(*request, k, free_kept);
}

/* Before a start: refresh the copies kept with req from their sections
 * (all of them: the parts of a receive buffer the operation does not write
 * must come back unchanged). */
static void refresh(Cart_request req)
{
    kept *k = cc_request_attached(req);
    if (k)
        for (int i = 0; i < k->ncopy; i++) transfer(k->copy[i].d, k->copy[i].tmp, 1);
}

/* After a successful start: the copies of req go back at its completion. */
static void started(Cart_request req)
{
    kept *k = cc_request_attached(req);
    if (k) k->active = 1;
}

static int any_kept(int count, const Cart_request requests[])
{
    for (int i = 0; i < count; i++)
        if (cc_request_attached(requests[i])) return 1;
    return 0;
}

int cartcoll_f08_cart_start(Cart_request *request)
{
    Cart_request r = request ? *request : CART_REQUEST_NULL;
    refresh(r);
    int rc = Cart_start(request);
    if (rc == MPI_SUCCESS) started(r);
    return rc;
}

int cartcoll_f08_cart_startall(int count, Cart_request requests[])
{
    if (count <= 0 || !requests || !any_kept(count, requests)) return Cart_startall(count, requests);
    for (int i = 0; i < count; i++) refresh(requests[i]);
    int rc = Cart_startall(count, requests);
    if (rc == MPI_SUCCESS)
        for (int i = 0; i < count; i++) started(requests[i]);
    return rc;
}

int cartcoll_f08_cart_wait(Cart_request *request)
{
    kept *k = take(request);
    int rc = Cart_wait(request);
    settle(k, request, rc == MPI_SUCCESS);
    return rc;
}

int cartcoll_f08_cart_test(Cart_request *request, int *flag)
{
    kept *k = take(request);
    int rc = Cart_test(request, flag);
    settle(k, request, rc == MPI_SUCCESS && *flag);
    return rc;
}

/* (the library frees what was kept with the request) */
int cartcoll_f08_cart_request_free(Cart_request *request) { return Cart_request_free(request); }

int cartcoll_f08_cart_waitall(int count, Cart_request requests[])
{
    if (count <= 0 || !requests || !any_kept(count, requests)) return Cart_waitall(count, requests);
    kept **k = malloc(sizeof *k * (size_t)count);
    for (int i = 0; k && i < count; i++) k[i] = take(&requests[i]);
    int rc = Cart_waitall(count, requests);
    /* Requests completed before a failure are freed too: release those (and
     * copy them back); a persistent one counts as completed only when all
     * did. */
    for (int i = 0; k && i < count; i++)
        settle(k[i], &requests[i], rc == MPI_SUCCESS || requests[i] == CART_REQUEST_NULL);
    free(k);
    return rc;
}

/* ------------------------------------------------------------------------
 * Choice buffers
 * ------------------------------------------------------------------------ */

/* Whether d is contiguous; *bytes its size (0 for assumed-size arrays,
 * which are contiguous and never copied). */
static int contiguous(const CFI_cdesc_t *d, size_t *bytes)
{
    *bytes = d->elem_len;
    for (int k = 0; k < d->rank; k++)
        if (d->dim[k].extent == 0) {
            *bytes = 0;
            return 1;
        }
    CFI_index_t expect = (CFI_index_t)d->elem_len;
    int contig = 1;
    for (int k = 0; k < d->rank; k++) {
        CFI_index_t e = d->dim[k].extent;
        if (e < 0) { /* assumed size (last dimension) */
            *bytes = 0;
            return 1;
        }
        if (e != 1 && d->dim[k].sm != expect) contig = 0;
        expect *= e;
    }
    *bytes = (size_t)expect;
    return contig;
}

/* Copy the elements of a non-contiguous section d (rank >= 1, no zero
 * extent) into flat, in array element order, or back. */
static void transfer(const CFI_cdesc_t *d, char *flat, int to_flat)
{
    size_t L = d->elem_len;
    int r = d->rank;
    CFI_index_t idx[CFI_MAX_RANK] = { 0 }, n0 = d->dim[0].extent, sm0 = d->dim[0].sm;
    for (;;) {
        char *p = (char *)d->base_addr;
        for (int k = 1; k < r; k++) p += idx[k] * d->dim[k].sm;
        if (sm0 == (CFI_index_t)L) {
            size_t run = (size_t)n0 * L;
            if (to_flat)
                memcpy(flat, p, run);
            else
                memcpy(p, flat, run);
            flat += run;
        } else {
            for (CFI_index_t i = 0; i < n0; i++, p += sm0, flat += L) {
                if (to_flat)
                    memcpy(flat, p, L);
                else
                    memcpy(p, flat, L);
            }
        }
        int k = 1;
        for (; k < r; k++) {
            if (++idx[k] < d->dim[k].extent) break;
            idx[k] = 0;
        }
        if (k >= r) return;
    }
}

void *ccf_async_copy(ccf_call *c, CFI_cdesc_t *d, int out)
{
    void *p = d->base_addr;
    if (c->err) return p;
    if (c->nacopy == (int)(sizeof c->acopy / sizeof c->acopy[0])) { /* not with the generated calls */
        ccf_fail(c, MPI_ERR_INTERN, "%s: too many array sections", c->who);
        return p;
    }
    size_t bytes;
    contiguous(d, &bytes);
    size_t dsize = sizeof(CFI_cdesc_t) + CFI_MAX_RANK * sizeof(CFI_dim_t);
    void *tmp = malloc(bytes);
    CFI_cdesc_t *dc = malloc(dsize);
    if (!c->pre) c->pre = malloc(sizeof *c->pre);
    if (!tmp || !dc || !c->pre) {
        free(tmp);
        free(dc);
        ccf_fail(c, MPI_ERR_NO_MEM, "%s: no memory for a contiguous copy of a non-contiguous array section", c->who);
        return p;
    }
    memcpy(dc, d, sizeof(CFI_cdesc_t) + (size_t)d->rank * sizeof(CFI_dim_t));
    transfer(dc, tmp, 1);
    c->acopy[c->nacopy].d = dc;
    c->acopy[c->nacopy].tmp = tmp;
    c->acopy[c->nacopy++].out = out;
    return tmp;
}

void *ccf_buf(ccf_call *c, CFI_cdesc_t *d, int out, int *nc)
{
    *nc = 0;
    sentinels();
    void *p = d->base_addr;
    if (p && p == f_in_place) return MPI_IN_PLACE;
    if (p && p == f_bottom) return MPI_BOTTOM;
    size_t bytes;
    if (contiguous(d, &bytes)) return p;
    if (c->async) {
        *nc = 1;
        return p;
    }
    if (c->ncopy == (int)(sizeof c->copy / sizeof c->copy[0])) { /* not with the generated calls */
        ccf_fail(c, MPI_ERR_INTERN, "%s: too many array sections", c->who);
        return p;
    }
    void *tmp = malloc(bytes);
    if (!tmp) {
        ccf_fail(c, MPI_ERR_NO_MEM, "%s: no memory for a contiguous copy of a non-contiguous array section", c->who);
        return p;
    }
    transfer(d, tmp, 1);
    c->copy[c->ncopy].d = d;
    c->copy[c->ncopy].tmp = tmp;
    c->copy[c->ncopy++].out = out;
    return tmp;
}

/* ------------------------------------------------------------------------
 * How many blocks a collective has on a communicator (for arrays of
 * datatype handles, whose length Fortran does not pass)
 * ------------------------------------------------------------------------ */

/* The neighbour count of a communicator with a cartcoll neighbourhood; 0
 * when it has none (an MPI_Cart_create communicator no Cart_ collective has
 * met yet).  The probe must not reach the user's error handler. */
static int nbh_count(MPI_Comm comm, int *t)
{
    MPI_Errhandler eh;
    if (MPI_Comm_get_errhandler(comm, &eh) != MPI_SUCCESS) return 0;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int ok = Cart_neighbor_count(comm, t) == MPI_SUCCESS;
    MPI_Comm_set_errhandler(comm, eh);
    MPI_Errhandler_free(&eh);
    return ok;
}

/* The counts are cached on the communicator (they never change for it):
 * an attribute of our own, not copied to duplicates. */
static pthread_once_t counts_once = PTHREAD_ONCE_INIT;
static int counts_keyval = MPI_KEYVAL_INVALID;

static int counts_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    free(attr);
    return MPI_SUCCESS;
}

static void counts_init(void)
{
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, counts_delete, &counts_keyval, NULL) != MPI_SUCCESS)
        counts_keyval = MPI_KEYVAL_INVALID;
}

/* c->nsend, c->nrecv: the blocks of the six [core] collectives on c->comm
 * (as the one interface set defines them); 0 when the communicator is null
 * or invalid, which the library reports. */
static int block_counts(ccf_call *c)
{
    if (c->blocks) return c->blocks > 0;
    c->blocks = -1;
    MPI_Comm comm = c->comm;
    int inter = 0, topo = MPI_UNDEFINED, n = 0, in = 0, out = 0, weighted, rank, flag = 0;
    int *cached = NULL;
    if (comm == MPI_COMM_NULL) return 0;
    pthread_once(&counts_once, counts_init);
    if (counts_keyval != MPI_KEYVAL_INVALID && MPI_Comm_get_attr(comm, counts_keyval, &cached, &flag) == MPI_SUCCESS &&
        flag) {
        c->nsend = cached[0];
        c->nrecv = cached[1];
        c->blocks = 1;
        return 1;
    }
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return 0;
    if (inter) {
        if (MPI_Comm_remote_size(comm, &n) != MPI_SUCCESS) return 0;
        in = out = n;
    } else if (MPI_Topo_test(comm, &topo) != MPI_SUCCESS) {
        return 0;
    } else if (topo == MPI_DIST_GRAPH) {
        if (MPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted) != MPI_SUCCESS) return 0;
    } else if (topo == MPI_GRAPH) {
        if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Graph_neighbors_count(comm, rank, &n) != MPI_SUCCESS)
            return 0;
        in = out = n;
    } else if (topo == MPI_CART) {
        if (!nbh_count(comm, &n)) { /* MPI's neighbourhood: -e_k, +e_k per dimension */
            if (MPI_Cartdim_get(comm, &n) != MPI_SUCCESS) return 0;
            n *= 2;
        }
        in = out = n;
    } else {
        if (MPI_Comm_size(comm, &n) != MPI_SUCCESS) return 0;
        in = out = n;
    }
    c->nsend = out;
    c->nrecv = in;
    c->blocks = 1;
    if (counts_keyval != MPI_KEYVAL_INVALID && (cached = malloc(2 * sizeof(int)))) {
        cached[0] = out;
        cached[1] = in;
        if (MPI_Comm_set_attr(comm, counts_keyval, cached) != MPI_SUCCESS) free(cached);
    }
    return 1;
}

const MPI_Datatype *ccf_types(ccf_call *c, const MPI_Fint *f, int side)
{
    static MPI_Datatype none[1]; /* the library rejects the communicator first */
    if (!block_counts(c)) return none;
    int n = side == CCF_SEND ? c->nsend : c->nrecv;
    MPI_Datatype *t = alloc(c, sizeof(MPI_Datatype) * (size_t)n);
    if (!t) return none;
    for (int i = 0; i < n; i++) t[i] = MPI_Type_f2c(f[i]);
    return t;
}

int cartcoll_f08_nomem(MPI_Fint comm, const char *who)
{
    ccf_call c;
    ccf_begin(&c, who, 0);
    ccf_set_comm(&c, MPI_Comm_f2c(comm));
    ccf_fail(&c, MPI_ERR_NO_MEM, "%s: out of memory in the Fortran bindings", who);
    return ccf_raise(&c);
}

int cartcoll_f08_naming_dims(MPI_Fint f)
{
    MPI_Comm comm = MPI_Comm_f2c(f);
    int flag = 0, d = 0, size = 0;
    if (comm == MPI_COMM_NULL || Cart_test_name(comm, &flag, &d, &size) != MPI_SUCCESS || !flag || d < 0) return 0;
    return d;
}

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
    return track(c, &t) ? t : MPI_DATATYPE_NULL;
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
    if (!track(c, &t)) return MPI_DATATYPE_NULL;
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
    *counts = alloc(c, sizeof(int) * (size_t)n);
    *displs = alloc(c, sizeof(MPI_Aint) * (size_t)n);
    *types = alloc(c, sizeof(MPI_Datatype) * (size_t)n);
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
    if (!block_counts(c)) return CCF_PASS;
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
    if (!block_counts(c)) return CCF_PASS;
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

/* ------------------------------------------------------------------------
 * The end of a call
 * ------------------------------------------------------------------------ */

int ccf_end(ccf_call *c, int rc, Cart_request *request)
{
    for (int i = 0; i < c->ncopy; i++) {
        if (rc == MPI_SUCCESS && c->copy[i].out) transfer(c->copy[i].d, c->copy[i].tmp, 0);
        free(c->copy[i].tmp);
    }
    int inter = 0;
    int live = rc == MPI_SUCCESS && request && *request != CART_REQUEST_NULL;
    if (live && c->nacopy) { /* cannot fail: c->pre */
        if (c->comm == MPI_COMM_NULL || MPI_Comm_test_inter(c->comm, &inter) != MPI_SUCCESS || !inter) {
            release(c->mem, c->nmem, c->types, c->ntypes);
            c->mem = NULL;
            c->types = NULL;
            c->nmem = c->ntypes = 0;
        }
        keep(c, *request);
        return rc;
    }
    if (rc == MPI_SUCCESS && c->async == CCF_NONBLOCKING) /* completed at once (no request) */
        for (int i = 0; i < c->nacopy; i++)
            if (c->acopy[i].out) transfer(c->acopy[i].d, c->acopy[i].tmp, 0);
    free_copies(c->acopy, c->nacopy); /* the call failed, or made no request */
    c->nacopy = 0;
    free(c->pre);
    c->pre = NULL;
    if (live && (c->nmem || c->ntypes) && c->comm != MPI_COMM_NULL &&
        MPI_Comm_test_inter(c->comm, &inter) == MPI_SUCCESS && inter && keep(c, *request))
        return rc;
    release(c->mem, c->nmem, c->types, c->ntypes);
    return rc;
}

/* Hand-written glue of the Fortran module cartcoll_f08: one call's life
 * cycle (ccf_begin, its temporaries, ccf_end) and the errors the glue finds
 * itself.  Split out of cartcoll_f08_support.c (issue 27 item 8: no file
 * over 600 lines), one concept per file; see cartcoll_f08_support.h for the
 * whole and cartcoll_f08_internal.h for what the files share. */

#include "cartcoll_f08_internal.h"

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

int cartcoll_f08_nomem(MPI_Fint comm, const char *who)
{
    ccf_call c;
    ccf_begin(&c, who, 0);
    ccf_set_comm(&c, MPI_Comm_f2c(comm));
    ccf_fail(&c, MPI_ERR_NO_MEM, "%s: out of memory in the Fortran bindings", who);
    return ccf_raise(&c);
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
void *ccf_alloc(ccf_call *c, size_t n)
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
int ccf_track(ccf_call *c, MPI_Datatype *t)
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

void ccf_release(void **mem, int nmem, MPI_Datatype *types, int ntypes)
{
    for (int i = 0; i < nmem; i++) free(mem[i]);
    free(mem);
    for (int i = 0; i < ntypes; i++) MPI_Type_free(&types[i]);
    free(types);
}

/* ------------------------------------------------------------------------
 * The end of a call
 * ------------------------------------------------------------------------ */

int ccf_end(ccf_call *c, int rc, Cart_request *request)
{
    for (int i = 0; i < c->ncopy; i++) {
        if (rc == MPI_SUCCESS && c->copy[i].out) ccf_transfer(c->copy[i].d, c->copy[i].tmp, 0);
        free(c->copy[i].tmp);
    }
    int inter = 0;
    int live = rc == MPI_SUCCESS && request && *request != CART_REQUEST_NULL;
    if (live && c->nacopy) { /* cannot fail: c->pre */
        if (c->comm == MPI_COMM_NULL || MPI_Comm_test_inter(c->comm, &inter) != MPI_SUCCESS || !inter) {
            ccf_release(c->mem, c->nmem, c->types, c->ntypes);
            c->mem = NULL;
            c->types = NULL;
            c->nmem = c->ntypes = 0;
        }
        ccf_keep(c, *request);
        return rc;
    }
    if (rc == MPI_SUCCESS && c->async == CCF_NONBLOCKING) /* completed at once (no request) */
        for (int i = 0; i < c->nacopy; i++)
            if (c->acopy[i].out) ccf_transfer(c->acopy[i].d, c->acopy[i].tmp, 0);
    ccf_free_copies(c->acopy, c->nacopy); /* the call failed, or made no request */
    c->nacopy = 0;
    free(c->pre);
    c->pre = NULL;
    if (live && (c->nmem || c->ntypes) && c->comm != MPI_COMM_NULL &&
        MPI_Comm_test_inter(c->comm, &inter) == MPI_SUCCESS && inter && ccf_keep(c, *request))
        return rc;
    ccf_release(c->mem, c->nmem, c->types, c->ntypes);
    return rc;
}

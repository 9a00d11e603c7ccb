/* Hand-written glue of the Fortran module cartcoll_f08: choice buffers
 * (mpi_f08's sentinels, contiguous or copied sections, the asynchronous
 * copies kept with a request) and weights.  The sentinels live here, with
 * the only functions that compare against them, so they stay private.
 * Split out of cartcoll_f08_support.c (issue 27 item 8: no file over 600
 * lines), one concept per file; see cartcoll_f08_support.h and README.md. */

#include "cartcoll_f08_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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
void ccf_transfer(const CFI_cdesc_t *d, char *flat, int to_flat)
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
    ccf_transfer(dc, tmp, 1);
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
    ccf_transfer(d, tmp, 1);
    c->copy[c->ncopy].d = d;
    c->copy[c->ncopy].tmp = tmp;
    c->copy[c->ncopy++].out = out;
    return tmp;
}

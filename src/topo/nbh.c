#include "topo/nbh.h"

#include "base/errors.h"
#include "sched/schedule_edges.h"
#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

cc_nbh *cc_nbh_new(int d, const int dims[], const int periods[], int t, const int targets[],
                   const int weights[])
{
    cc_nbh *n = calloc(1, sizeof *n);
    if (!n) return NULL;
    size_t td = (size_t)t * (size_t)d;
    atomic_init(&n->refs, 1);
    pthread_mutex_init(&n->lock, NULL);
    cc_list_init(&n->dups);
    n->d = d;
    n->t = t;
    n->dims = malloc(sizeof(int) * (size_t)d);
    n->periods = malloc(sizeof(int) * (size_t)d);
    n->coords = malloc(sizeof(int) * (size_t)d);
    n->offsets = cc_alloc_array(td, sizeof(int));
    n->reduced = cc_alloc_array(td, sizeof(int));
    n->unreachable = malloc((size_t)t + 1);
    if (weights) n->weights = malloc(sizeof(int) * ((size_t)t + 1));
    if (!n->dims || !n->periods || !n->coords || !n->offsets || !n->reduced || !n->unreachable ||
        (weights && !n->weights)) {
        cc_nbh_release(n);
        return NULL;
    }
    n->grid.d = d;
    n->grid.size = 1;
    for (int k = 0; k < d; k++) {
        n->dims[k] = dims[k];
        n->periods[k] = periods[k] != 0;
        n->grid.size *= dims[k];
    }
    n->grid.dims = n->dims;
    n->grid.periods = n->periods;
    if (td) memcpy(n->offsets, targets, td * sizeof(int));
    cc_grid_reduce_all(&n->grid, t, n->offsets, n->reduced, n->unreachable);
    if (weights && t) memcpy(n->weights, weights, (size_t)t * sizeof(int));
    n->rank = CC_NONE;
    return n;
}

static int *copy_ranks(int n, const int r[])
{
    int *out = cc_alloc_array((size_t)(n > 0 ? n : 0), sizeof(int));
    for (int i = 0; out && i < n; i++) out[i] = r[i] == MPI_PROC_NULL ? CC_NONE : r[i];
    return out;
}

cc_nbh *cc_nbh_new_graph(int indeg, const int src[], int outdeg, const int dst[])
{
    cc_nbh *n = calloc(1, sizeof *n);
    if (!n) return NULL;
    atomic_init(&n->refs, 1);
    pthread_mutex_init(&n->lock, NULL);
    cc_list_init(&n->dups);
    n->graph = 1;
    n->t = n->indeg = indeg;
    n->outdeg = outdeg;
    n->srcs = copy_ranks(indeg, src);
    n->dsts = copy_ranks(outdeg, dst);
    n->rank = CC_NONE;
    if (!n->srcs || !n->dsts) {
        cc_nbh_release(n);
        return NULL;
    }
    return n;
}

void cc_nbh_place(cc_nbh *n, int rank)
{
    n->rank = rank;
    cc_grid_coords(&n->grid, rank, n->coords);
}

void cc_nbh_release(cc_nbh *n)
{
    if (!n || atomic_fetch_sub(&n->refs, 1) != 1) return;
    for (int c = 0; c < 3; c++)
        for (int a = 0; a < 4; a++) {
            cc_schedule_free(n->sched[c][a]);
            cc_local_free(n->local[c][a]);
        }
    pthread_mutex_destroy(&n->lock);
    free(n->dims);
    free(n->periods);
    free(n->coords);
    free(n->offsets);
    free(n->reduced);
    free(n->unreachable);
    free(n->weights);
    free(n->rperm);
    free(n->sperm);
    free(n->srcs);
    free(n->dsts);
    free(n->esrc);
    free(n->edst);
    free(n);
}

cc_nset cc_nbh_nset(const cc_nbh *n)
{
    return (cc_nset){ n->d, n->t, n->reduced, n->unreachable, n->periods };
}

/* Row of the tables: CC_ALLGATHER (1) and CC_ALLTOALL (2) their own, the
 * allreduce that reduces on the way the free row 0. */
static int table_row(int collective) { return collective == CC_ALLREDUCE ? 0 : collective; }

int cc_nbh_schedule(cc_nbh *n, int collective, int algorithm, const cc_schedule **out)
{
    int rc = CC_OK, c = table_row(collective);
    if (n->graph) algorithm = CC_DIRECT;
    pthread_mutex_lock(&n->lock);
    if (n->graph && !n->sched[c][algorithm]) {
        cc_edges e = { n->rank, n->indeg, n->outdeg, n->srcs, n->dsts };
        rc = cc_schedule_edges(collective, &e, CC_NONE, 0, &n->sched[c][algorithm], &n->local[c][algorithm]);
    } else if (!n->sched[c][algorithm]) {
        /* Reductions on the way run on the offsets as given (windows wrap
         * around small periodic dimensions by themselves). */
        cc_nset ns = collective == CC_ALLREDUCE ? (cc_nset){ n->d, n->t, n->offsets, NULL, n->periods } : cc_nbh_nset(n);
        rc = cc_schedule_build(&ns, collective, algorithm, &n->sched[c][algorithm]);
    }
    *out = n->sched[c][algorithm];
    pthread_mutex_unlock(&n->lock);
    return rc;
}

int cc_nbh_counts(cc_nbh *n, int collective, int algorithm, cc_sched_counts *out)
{
    int rc = CC_OK, c = table_row(collective);
    if (n->graph || c == 0 || algorithm < CC_DIRECT || algorithm > CC_COMBINING) return CC_ETOOBIG;
    pthread_mutex_lock(&n->lock);
    const cc_schedule *s = n->sched[c][algorithm];
    if (s) {
        *out = (cc_sched_counts){ s->nphases, s->nrounds, s->nentries, s->ncopies };
    } else if (n->counted[c][algorithm]) {
        *out = n->counts[c][algorithm];
    } else {
        cc_nset ns = cc_nbh_nset(n);
        if ((rc = cc_schedule_counts(&ns, collective, algorithm, out)) == CC_OK) {
            n->counts[c][algorithm] = *out;
            n->counted[c][algorithm] = 1;
        }
    }
    pthread_mutex_unlock(&n->lock);
    return rc;
}

int cc_nbh_local(cc_nbh *n, int collective, int algorithm, const cc_local **out)
{
    const cc_schedule *s;
    int rc = cc_nbh_schedule(n, collective, algorithm, &s), c = table_row(collective);
    if (rc) return rc;
    if (n->graph) algorithm = CC_DIRECT; /* made with its schedule */
    pthread_mutex_lock(&n->lock);
    if (!n->local[c][algorithm]) rc = cc_localize(s, &n->grid, n->coords, &n->local[c][algorithm]);
    *out = n->local[c][algorithm];
    pthread_mutex_unlock(&n->lock);
    return rc;
}

int cc_nbh_edges(cc_nbh *n, cc_edges *e)
{
    int rc = CC_OK;
    e->me = n->rank;
    e->indeg = cc_nbh_nrecvblocks(n);
    e->outdeg = cc_nbh_nsendblocks(n);
    if (n->graph) {
        e->src = n->srcs;
        e->dst = n->dsts;
        return CC_OK;
    }
    pthread_mutex_lock(&n->lock);
    if (!n->esrc) {
        int *src = cc_alloc_array((size_t)e->indeg, sizeof(int)), *dst = cc_alloc_array((size_t)e->outdeg, sizeof(int));
        if (src && dst) {
            for (int j = 0; j < e->indeg; j++) src[j] = CC_NONE;
            for (int i = 0; i < e->outdeg; i++) dst[i] = CC_NONE;
            for (int i = 0; i < n->t; i++) {
                const int *off = n->offsets + (size_t)i * (size_t)n->d;
                int si = n->sperm ? n->sperm[i] : i, ri = n->rperm ? n->rperm[i] : i;
                if (si >= 0 && si < e->outdeg) dst[si] = cc_grid_shift(&n->grid, n->coords, off, 1);
                if (ri >= 0 && ri < e->indeg) src[ri] = cc_grid_shift(&n->grid, n->coords, off, -1);
            }
            n->esrc = src;
            n->edst = dst;
        } else {
            free(src);
            free(dst);
            rc = CC_ENOMEM;
        }
    }
    e->src = n->esrc;
    e->dst = n->edst;
    pthread_mutex_unlock(&n->lock);
    return rc;
}

/* Detection of Cartesian graphs (seed 000 sec. 3.2, extended): a graph is
 * Cartesian with respect to comm_old's naming when every process has the
 * same sorted list of offsets to its destinations, its sources mirror them,
 * and the graph keeps comm_old's ranks.  The offsets are the shortest
 * representatives on periodic dimensions, so distinct offsets mean distinct
 * processes; the stable sort then maps the k-th edge to a neighbour onto the
 * k-th copy of its offset on both sides, which is MPI's rule for repeated
 * edges.  One MPI_Allreduce of twelve integers decides for everyone and agrees on
 * the cost model.
 *
 * Not yet detected (they keep the per-edge plan, which is correct): meshes
 * whose border processes list fewer neighbours or MPI_PROC_NULL, comm_old
 * without a naming (no guessing of grids yet), grids that do not cover the
 * communicator exactly, graphs whose ranks MPI reordered. */
#include "api/front.h"

#include "base/errors.h"
#include "base/options.h"
#include "choose/choose.h"
#include "geom/detect.h"
#include "topo/comm.h"
#include "topo/naming.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct analysis {
    const char *why;        /* not Cartesian here: the reason, else NULL */
    cc_naming *naming;
    int rank, t;
    int *mem;               /* everything below lives here */
    int *sorted, *sperm, *rperm;
    long long hash, hash2, nhash;
} analysis;

/* The graph's offsets on the naming, sorted; the permutations. */
static const char *offsets(analysis *a, const int *src, const int *dst, int *me)
{
    const cc_grid *g = &a->naming->grid;
    int t = a->t, d = g->d;
    size_t td = (size_t)t * (size_t)d;
    int *out = a->mem, *in = out + td, *tmp = in + td;
    a->sorted = tmp + t;
    a->sperm = a->sorted + td;
    a->rperm = a->sperm + t;
    cc_grid_coords(g, a->rank, me);
    if (cc_detect_offsets(g, me, t, dst, 1, out) || cc_detect_offsets(g, me, t, src, -1, in))
        return "a neighbour is MPI_PROC_NULL or has no grid position";
    cc_detect_order(d, t, out, a->sperm, tmp);
    cc_detect_order(d, t, in, a->rperm, tmp);
    for (int i = 0; i < t; i++) {
        if (memcmp(out + (size_t)a->sperm[i] * d, in + (size_t)a->rperm[i] * d, sizeof(int) * (size_t)d))
            return "the sources do not mirror the destinations (meshes whose border processes list fewer "
                   "neighbours are not detected yet)";
        memcpy(a->sorted + (size_t)i * d, out + (size_t)a->sperm[i] * d, sizeof(int) * (size_t)d);
    }
    /* two independent hashes of the offset list: equal lists everywhere,
     * up to a negligible chance */
    a->hash = cc_hash_ints(a->sorted, (long long)td, 1469598103934665603ULL);
    a->hash2 = cc_hash_ints(a->sorted, (long long)td, 0x9e3779b97f4a7c15ULL ^ (unsigned long long)td);
    unsigned long long h = (unsigned long long)cc_hash_ints(&d, 1, 7ULL + (unsigned)g->colmajor);
    h = (unsigned long long)cc_hash_ints(g->dims, d, h);
    a->nhash = cc_hash_ints(g->periods, d, h);
    return NULL;
}

/* This process's view: naming, neighbour lists, offsets. */
static const char *analyse(MPI_Comm comm_old, MPI_Comm g, analysis *a)
{
    int cmp, size, in, out, weighted;
    MPI_Comm_rank(g, &a->rank);
    MPI_Comm_compare(comm_old, g, &cmp);
    if (cmp != MPI_CONGRUENT && cmp != MPI_IDENT) return "MPI reordered the ranks";
    if (cc_naming_of(comm_old, "detection", &a->naming) != MPI_SUCCESS) return "comm_old has no naming";
    MPI_Comm_size(g, &size);
    if (a->naming->grid.size != size) return "the naming's grid does not cover the communicator exactly";
    if (MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted) != MPI_SUCCESS) return "no graph";
    if (in != out) return "in- and out-degrees differ";
    int d = a->naming->grid.d;
    size_t t = (size_t)in, td = t * (size_t)d;
    a->t = in;
    /* out, in, tmp, sorted, sperm, rperm | src, dst, weights */
    a->mem = malloc(sizeof(int) * (4 * td + 6 * t + 1));
    int *me = malloc(sizeof(int) * (size_t)d);
    if (!a->mem || !me) {
        free(me);
        return "out of memory";
    }
    int *src = a->mem + 3 * td + 3 * t, *dst = src + t, *w = dst + t;
    int rc = MPI_Dist_graph_neighbors(g, in, src, weighted ? w : MPI_UNWEIGHTED, out, dst,
                                      weighted ? w + t : MPI_UNWEIGHTED);
    const char *why = rc == MPI_SUCCESS ? offsets(a, src, dst, me) : "no graph";
    free(me);
    return why;
}

/* The Cartesian neighbourhood of a detected graph, attached to g. */
static int attach(MPI_Comm g, MPI_Info info, analysis *a, const double model[3], const char *who)
{
    const cc_grid *gr = &a->naming->grid;
    cc_nbh *n = cc_nbh_new(gr->d, gr->dims, gr->periods, a->t, a->sorted, NULL);
    if (!n) return MPI_ERR_NO_MEM;
    n->grid.colmajor = gr->colmajor;
    cc_nbh_place(n, a->rank);
    n->detected = 1;
    n->indeg = n->outdeg = a->t;
    n->sperm = malloc(sizeof(int) * (size_t)(a->t + 1));
    n->rperm = malloc(sizeof(int) * (size_t)(a->t + 1));
    int rc = n->sperm && n->rperm ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        memcpy(n->sperm, a->sperm, sizeof(int) * (size_t)a->t);
        memcpy(n->rperm, a->rperm, sizeof(int) * (size_t)a->t);
        /* every process must choose alike without talking: environment and
         * the creation's info (equal everywhere, as MPI requires of info
         * in collective calls); the model agreed below */
        rc = cc_options_env(&n->defaults);
    }
    if (rc == MPI_SUCCESS) rc = cc_options_info(info, &n->defaults, who);
    n->alpha = model[0];
    n->beta = model[1];
    n->overhead = model[2];
    cc_model_defaults(&n->alpha, &n->beta, &n->overhead);
    if (rc == MPI_SUCCESS) rc = cc_comm_attach_idup(g, n);
    if (rc != MPI_SUCCESS) cc_nbh_release(n);
    return rc;
}

int cc_detect(MPI_Comm comm_old, MPI_Comm g, MPI_Info info, const char *who)
{
    analysis a;
    memset(&a, 0, sizeof a);
    const char *why = analyse(comm_old, g, &a);
    /* maximum of each value and of its negation: equal everywhere?  And
     * the cost model, as far as this process knows it (measured by an
     * earlier Cart_neighborhood_create, or the environment): the maximum,
     * so that every process chooses alike, as on the neighbourhood. */
    double m[3] = { -1, -1, -1 };
    int need;
    if (cc_model_local(&m[0], &m[1], &m[2], &need) != MPI_SUCCESS) m[0] = m[1] = m[2] = -1;
    long long v[12] = { why != NULL, a.t, -(long long)a.t, a.hash, -a.hash, a.nhash, -a.nhash, a.hash2, -a.hash2,
                        cc_model_bits(m[0]), cc_model_bits(m[1]), cc_model_bits(m[2]) };
    long long r[12];
    int rc = MPI_Allreduce(v, r, 12, MPI_LONG_LONG, MPI_MAX, g);
    int cart = rc == MPI_SUCCESS && !r[0] && r[1] == -r[2] && r[3] == -r[4] && r[5] == -r[6] && r[7] == -r[8];
    const double model[3] = { cc_model_value(r[9]), cc_model_value(r[10]), cc_model_value(r[11]) };
    if (rc == MPI_SUCCESS && cart) rc = attach(g, info, &a, model, who);
    if (cc_verbose() && a.rank == 0)
        fprintf(stderr, "cartcoll: %s: %s%s\n", who, cart && rc == MPI_SUCCESS ? "Cartesian (message-combining schedules)"
                : "not Cartesian: ", cart ? "" : why ? why : "the processes' neighbourhoods differ");
    cc_naming_free(a.naming);
    free(a.mem);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : cc_error_mpi(g, rc, who);
}

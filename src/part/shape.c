/* Partition arithmetic (shape.h), driven by a collective's row
 * (pcoll.h). */
#include "part/shape.h"

#include "base/errors.h"
#include "util/alloc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

int cc_part_in_place(const cc_pcoll *row, const cc_pargs *a, const where *w)
{
    const void *b = row->shape & CC_PS_IN_PLACE_RECV ? a->recvbuf : a->sendbuf;
    return cc_part_here(row, a, w) && b == MPI_IN_PLACE;
}

int cc_part_sends(const cc_pcoll *row, const cc_pargs *a, const where *w)
{
    return row->shape & CC_PS_SEND_ROOT ? cc_part_here(row, a, w) : !cc_part_in_place(row, a, w);
}

int cc_part_receives(const cc_pcoll *row, const cc_pargs *a, const where *w)
{
    if (row->shape & CC_PS_RECV_ROOT) return cc_part_here(row, a, w);
    if (row->shape & CC_PS_RECV_NOT_ROOT) return !cc_part_here(row, a, w);
    if (row->shape & CC_PS_IN_PLACE_RECV) return !cc_part_in_place(row, a, w);
    return 1;
}

/* parts * count elements as an int (the whole block). */
static int whole(const char *who, MPI_Comm comm, const char *what, int parts, MPI_Count count, int *out)
{
    if (parts < 0) return cc_error(comm, MPI_ERR_ARG, "%s: %s: partitions = %d is negative", who, what, parts);
    if (count < 0) return cc_error(comm, MPI_ERR_COUNT, "%s: %s: count = %lld is negative", who, what, (long long)count);
    if (count > 0 && parts > INT_MAX / count)
        return cc_error(comm, MPI_ERR_COUNT,
                        "%s: %s: %d partitions of %lld elements exceed an int, the largest block this release "
                        "supports",
                        who, what, parts, (long long)count);
    *out = (int)(parts * count);
    return MPI_SUCCESS;
}

/* The whole-block counts and int displacements of a v form: n entries. */
static int v_arrays(const char *who, MPI_Comm comm, int n, const int parts[], const MPI_Count counts[],
                    const MPI_Aint displs[], int **wc, int **wd)
{
    *wc = cc_alloc_array((size_t)n + 1, sizeof(int));
    *wd = displs ? cc_alloc_array((size_t)n + 1, sizeof(int)) : NULL;
    if (!*wc || (displs && !*wd)) return cc_error(comm, MPI_ERR_NO_MEM, "%s: out of memory", who);
    if (n > 0 && (!parts || !counts))
        return cc_error(comm, MPI_ERR_ARG, "%s: the partitions and counts arrays must not be NULL", who);
    for (int i = 0; i < n; i++) {
        char what[32];
        snprintf(what, sizeof what, "block %d", i);
        int rc = whole(who, comm, what, parts[i], counts[i], &(*wc)[i]);
        if (rc != MPI_SUCCESS) return rc;
        if (displs) {
            if (displs[i] < INT_MIN || displs[i] > INT_MAX)
                return cc_error(comm, MPI_ERR_ARG, "%s: displs[%d] = %lld exceeds an int", who, i,
                                (long long)displs[i]);
            (*wd)[i] = (int)displs[i];
        }
    }
    return MPI_SUCCESS;
}

/* Blocks per side: per neighbour, or per process of the group. */
static int nblocks(const cc_pcoll *row, const where *w, int out)
{
    if (row->shape & CC_PS_PER_PROCESS) return w->size;
    return out ? w->outdeg : w->indeg;
}

/* One side's whole counts: a regular side's elements (*n), or a v or w
 * side's arrays.  A v side alone checks its displacements here. */
static int side_counts(const cc_pcoll *row, MPI_Comm comm, int out, int nb, int parts, MPI_Count count,
                       const int *vparts, const MPI_Count *vcounts, const MPI_Aint *displs, int *n, int **wc,
                       int **wd)
{
    unsigned v = out ? CC_PA_SEND_V : CC_PA_RECV_V, both = CC_PA_SEND_V | CC_PA_RECV_V;
    if (!(row->family & v)) return whole(row->name, comm, out ? row->swhat : row->rwhat, parts, count, n);
    int w = row->family & CC_PA_W;
    if (!w && (row->family & both) != both && !displs)
        return cc_error(comm, MPI_ERR_ARG, "%s: displs is NULL", row->name);
    return v_arrays(row->name, comm, nb, vparts, vcounts, w ? NULL : displs, wc, wd);
}

int cc_part_counts_of(const cc_pcoll *row, const cc_pargs *a, const where *w, MPI_Comm comm, cc_part_counts *k)
{
    *k = (cc_part_counts){ 0, 0, NULL, NULL, NULL, NULL };
    unsigned f = row->family, both = CC_PA_SEND_V | CC_PA_RECV_V;
    if (f & CC_PA_ONE_BUFFER) {
        if (f & CC_PA_SEND_V)
            return v_arrays(row->name, comm, nblocks(row, w, 1), a->sparts, a->scnts, NULL, &k->swc, &k->swd);
        return whole(row->name, comm, row->swhat, a->sp, a->sc, &k->ns);
    }
    int in_place = cc_part_in_place(row, a, w);
    if ((f & both) == both && !(f & CC_PA_W) && (!a->rdispls || (!in_place && !a->sdispls)))
        return cc_error(comm, MPI_ERR_ARG, "%s: sdispls and rdispls must not be NULL", row->name);
    int rc = MPI_SUCCESS;
    if (cc_part_sends(row, a, w))
        rc = side_counts(row, comm, 1, nblocks(row, w, 1), a->sp, a->sc, a->sparts, a->scnts, a->sdispls, &k->ns,
                         &k->swc, &k->swd);
    if (rc == MPI_SUCCESS && cc_part_receives(row, a, w))
        rc = side_counts(row, comm, 0, nblocks(row, w, 0), a->rp, a->rc, a->rparts, a->rcnts, a->rdispls, &k->nr,
                         &k->rwc, &k->rwd);
    return rc;
}

void cc_part_counts_free(cc_part_counts *k)
{
    free(k->swc);
    free(k->swd);
    free(k->rwc);
    free(k->rwd);
}

/* Offsets of n blocks of parts[i] partitions (or `each` when parts is
 * NULL); NULL (error raised) when out of memory or negative. */
static int *offsets(const char *who, MPI_Comm comm, int n, const int *parts, int each, int *rc)
{
    int *off = cc_alloc_array((size_t)n + 1, sizeof(int));
    if (!off) {
        *rc = cc_error(comm, MPI_ERR_NO_MEM, "%s: out of memory", who);
        return NULL;
    }
    off[0] = 0;
    for (int i = 0; i < n; i++) {
        int p = parts ? parts[i] : each;
        if (p < 0 || off[i] > INT_MAX - p) {
            *rc = cc_error(comm, p < 0 ? MPI_ERR_ARG : MPI_ERR_COUNT, "%s: partitions[%d] = %d %s", who, i, p,
                           p < 0 ? "is negative" : "makes too many partitions");
            free(off);
            return NULL;
        }
        off[i + 1] = off[i] + p;
    }
    *rc = MPI_SUCCESS;
    return off;
}

int cc_part_shape_of(const cc_pcoll *row, const cc_pargs *a, const where *w, MPI_Comm comm, cc_part_shape *s)
{
    *s = (cc_part_shape){ CC_PART_NONE, 0, 0, -1, NULL, 0, 0, 1, NULL };
    int rc = MPI_SUCCESS, nout = nblocks(row, w, 1), nin = nblocks(row, w, 0);
    if (cc_part_sends(row, a, w)) {
        if (row->shape & CC_PS_SEND_BLOCKS) { /* block i to destination i */
            s->send_kind = CC_PART_BLOCKS, s->ndest = nout;
            s->soff = offsets(row->name, comm, nout, a->sparts, a->sp, &rc);
            if (s->soff) s->nsend = s->soff[nout];
        } else { /* one buffer to every destination, or to the root */
            int to_root = (row->shape & CC_PS_TO_ROOT) && !w->nbh;
            s->send_kind = CC_PART_WHOLE, s->nsend = a->sp, s->ndest = to_root ? 1 : nout;
            s->only_dest = to_root ? a->root : -1;
        }
    }
    if (rc != MPI_SUCCESS || !cc_part_receives(row, a, w)) return rc;
    s->nsrc = nin;
    if (row->shape & CC_PS_RECV_BLOCKS) { /* block j from source j */
        s->rwhole = 0;
        s->roff = offsets(row->name, comm, nin, a->rparts, a->rp, &rc);
        if (s->roff) s->nrecv = s->roff[nin];
    } else { /* one buffer (reduce_scatter: this process's block) */
        s->nrecv = a->rparts ? a->rparts[w->rank] : a->rp;
    }
    return rc;
}

/* Pipelined partitioned collectives made: slice s is the collective on a
 * group of adjacent partitions of every block (its own persistent request,
 * through the schedule, trees or reduction of that collective, or MPI's
 * collective with global meaning), started once those partitions are
 * marked (pipeline.c runs them).  See cc_part_slices. */
#include "part/part.h"
#include "part/transport.h"

#include "base/errors.h"
#include "bind/typemap.h"
#include "choose/choose.h"
#include "req/request.h"
#include "util/alloc.h"

#include <limits.h>
#include <stdlib.h>

static const void *shifted(const void *buf, MPI_Aint bytes)
{
    return buf == MPI_IN_PLACE ? buf : (const char *)buf + bytes;
}

/* Slice s of a: the collective on send partitions s*g ... s*g+g-1 of
 * every block (count = g*sc elements at s*count in each block of `block`):
 * the v form where blocks are strided; cnt, sd, rd: scratch of nb ints. */
static int make_slice(const pipe_args *a, MPI_Comm comm, MPI_Info info, cc_part_maker make, int nb, long long block,
                      MPI_Aint ext, int s, int count, int *cnt, int *sd, int *rd, Cart_request *out)
{
    long long off = (long long)s * count;
    for (int i = 0; i < nb; i++) {
        cnt[i] = count;
        sd[i] = rd[i] = (int)(i * block + off);
    }
    MPI_Aint at = (MPI_Aint)off * ext;
    void *rb = a->recv ? (char *)a->recvbuf + at : a->recvbuf; /* (not significant where nothing arrives) */
    cc_pwhole c = { .coll = a->kind, .sendbuf = shifted(a->sendbuf, at), .recvbuf = rb, .count = count,
                    .sendcount = count, .recvcount = count, .sendcounts = cnt, .sdispls = sd, .recvcounts = cnt,
                    .rdispls = rd, .sendtype = a->type, .recvtype = a->rtype, .op = a->op, .root = a->root };
    switch (a->kind) {
    case CC_PC_ALLTOALL: /* strided blocks: the v forms */
        c.coll = CC_PC_ALLTOALLV, c.sendbuf = a->sendbuf, c.recvbuf = a->recvbuf;
        break;
    case CC_PC_ALLGATHER: c.coll = CC_PC_ALLGATHERV, c.recvbuf = a->recvbuf; break;
    case CC_PC_GATHER: c.coll = CC_PC_GATHERV, c.recvbuf = a->recvbuf; break;
    case CC_PC_SCATTER: c.coll = CC_PC_SCATTERV, c.sendbuf = a->sendbuf; break;
    case CC_PC_BCAST: c.recvbuf = (char *)a->recvbuf + at; break;
    case CC_PC_REDUCE_SCATTER_BLOCK: /* this slice's chunks of every block, gathered at its start */
        c.sendbuf = a->pack + (MPI_Aint)s * nb * count * ext;
        break;
    default: break; /* reduce, allreduce, scan, exscan */
    }
    return make(&c, comm, info, out);
}

/* Slice s is the collective on a group of g adjacent send partitions of
 * every block, so that those partitions travel -- through the phases of a
 * combining schedule, along the trees of a rooted collective, reduced on
 * the way -- as soon as they are ready here, behind or ahead of the
 * others.  g: the most partitions that divide sp and fit the cost model's
 * break-even size (overhead / beta; cartcoll_part_aggregate,
 * CARTCOLL_PART_AGGREGATE override it, as for the early bird); more than
 * one slice or nothing.  On neighbourhoods (rooted and reducing
 * collectives with any algorithm; alltoall and allgather where COMBINING or
 * TORUS is asked for: else the early bird serves them) and, for the rooted
 * and reducing collectives, with global meaning (slices are MPI's own
 * collectives on the communicator there, started in order), one datatype on
 * both sides, buffers given, blocks of the same elements on both sides,
 * and every process with the same sp and g (one reduction on the private
 * communicator; scatter: the root's, which the receivers learn there and
 * check in a second reduction); else pm->n = 0 and the caller keeps the
 * whole-buffer request.  Collective. */
/* What this process knows of the slices (slices_here) and what every
 * process agreed on (slices_agree). */
typedef struct {
    int global, nb, scatter, rsb, knows, ok, good, tsize, g, sp;
    long long block;   /* elements of a block */
    MPI_Aint ext;      /* of the one datatype */
    MPI_Count sc;      /* elements of a send partition (scatter: agreed) */
    MPI_Comm agree;    /* where to agree */
} slice_plan;

/* Whether slices qualify here, and their group g. */
static void slices_here(slice_plan *s, const pipe_args *a, const where *w, MPI_Info info, const char *who)
{
    int alg = cc_part_asked_algorithm(info, w, who), root = w->rank == a->root;
    s->scatter = a->kind == CC_PC_SCATTER;
    s->rsb = a->kind == CC_PC_REDUCE_SCATTER_BLOCK;
    int blocks = a->kind == CC_PC_ALLTOALL || a->kind == CC_PC_ALLGATHER || a->kind == CC_PC_GATHER || s->scatter ||
                 s->rsb;
    /* the send side's partitions: scatter's are the root's alone */
    int knows = s->knows = !s->scatter || root;
    long long block = s->block = knows ? (long long)a->sp * a->sc : (long long)a->rp * a->rc;
    int sends = (a->kind != CC_PC_BCAST || root) && knows;
    int ok = (!knows || (a->sp > 1 && a->sc > 0)) && (a->recvbuf || !a->recv) && (a->sendbuf || !sends);
    if (a->kind == CC_PC_ALLTOALL || a->kind == CC_PC_ALLGATHER) ok &= alg == CC_COMBINING || alg == CC_TORUS;
    if (blocks) {
        ok &= a->sendbuf != MPI_IN_PLACE && a->recvbuf != MPI_IN_PLACE && (long long)(s->nb + 1) * block <= INT_MAX;
        if (a->recv && knows) ok &= a->type == a->rtype && block == (long long)a->rp * a->rc;
    }
    /* scatter: the receivers cut their block by the root's partitions, so
     * both sides count one predefined datatype of the same size */
    MPI_Datatype unit = knows ? a->type : a->rtype;
    s->tsize = 0;
    if (s->scatter) ok &= cc_type_named(unit) && MPI_Type_size(unit, &s->tsize) == MPI_SUCCESS;
    long long target = 0;
    s->good = cc_part_aggregate_bytes(info, s->global ? NULL : w->cs->nbh, &target); /* (bad: an error everywhere) */
    MPI_Aint lb;
    s->ext = 0;
    if (ok) ok = s->good && MPI_Type_get_extent(unit, &lb, &s->ext) == MPI_SUCCESS;
    s->g = 1;
    for (int c = a->sp; ok && knows && c > 1; c--)
        if (a->sp % c == 0 && (long long)c * a->sc * s->ext <= target) {
            s->g = c;
            break;
        }
    s->ok = ok;
}

/* Every process qualifies with the same sp and g (*yes; s->sp, s->g,
 * s->sc agreed).  Returns MPI_SUCCESS or an error raised on comm. */
static int slices_agree(slice_plan *s, const pipe_args *a, MPI_Comm comm, const char *who, int *yes)
{
    /* equal everywhere (MIN of x and -x); INT_MAX: not known here */
    const int U = INT_MAX;
    int knows = s->knows, st = s->scatter && knows;
    int mine[8] = { s->ok, knows ? a->sp : U, knows ? -a->sp : U, knows ? s->g : U, knows ? -s->g : U,
                    st ? s->tsize : U, st ? -s->tsize : U, s->good };
    int all[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
    *yes = 0;
    if (MPI_Allreduce(mine, all, 8, MPI_INT, MPI_MIN, s->agree) != MPI_SUCCESS)
        return cc_error(comm, MPI_ERR_OTHER, "%s: agreeing on the transport failed", who);
    if (!all[7]) return cc_part_aggregate_error(comm, who, s->good);
    if (!all[0] || all[1] != -all[2] || all[3] != -all[4] || (s->scatter && all[5] != -all[6])) return MPI_SUCCESS;
    s->sp = all[1];
    s->g = all[3];
    s->sc = a->sc;
    if (s->scatter) { /* a second reduction: can every receiver cut its block so? */
        int ok = s->ok;
        if (!knows) {
            ok = s->tsize == all[5] && s->block % s->sp == 0;
            s->sc = s->block / s->sp;
        }
        if (MPI_Allreduce(&ok, yes, 1, MPI_INT, MPI_MIN, s->agree) != MPI_SUCCESS) {
            *yes = 0;
            return cc_error(comm, MPI_ERR_OTHER, "%s: agreeing on the transport failed", who);
        }
        if (!*yes) return MPI_SUCCESS;
    }
    *yes = s->sp / s->g >= 2;
    return MPI_SUCCESS;
}

/* The n = sp / g slices of a (with the agreed partitions) into pm. */
static int slices_make(const slice_plan *s, const pipe_args *given, MPI_Comm comm, MPI_Info info,
                       cc_part_maker make, const char *who, pipe_made *pm)
{
    pipe_args a = *given; /* with the agreed partitions */
    a.sp = s->sp;
    a.sc = s->sc;
    int n = s->sp / s->g, made = 0, nb = s->nb;
    Cart_request *sl = cc_alloc_array((size_t)n, sizeof(Cart_request));
    int *cnt = cc_alloc_array((size_t)nb + 1, sizeof(int)), *sd = cc_alloc_array((size_t)nb + 1, sizeof(int));
    int *rd = cc_alloc_array((size_t)nb + 1, sizeof(int));
    /* reduce_scatter_block: contiguous send data for every slice (filled
     * as each starts) */
    char *pack = s->rsb ? cc_alloc_array((size_t)nb * (size_t)s->block + 1, (size_t)s->ext) : NULL;
    a.pack = pack;
    int rc = sl && cnt && sd && rd && (pack || !s->rsb) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    /* global meaning: the slices are MPI's collectives, which marking
     * threads may start at any moment: on a duplicate of their own they
     * meet neither the program's collectives nor other requests' slices
     * (only their own order matters, which is partition order) */
    MPI_Comm sc_comm = comm, own = MPI_COMM_NULL;
    if (rc == MPI_SUCCESS && s->global) {
        rc = MPI_Comm_dup(comm, &own) == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_OTHER;
        sc_comm = own;
    }
    for (int k = 0; rc == MPI_SUCCESS && k < n; k++) {
        rc = make_slice(&a, sc_comm, info, make, nb, s->block, s->ext, k, (int)(s->g * a.sc), cnt, sd, rd, &sl[k]);
        if (rc == MPI_SUCCESS) made++;
    }
    free(cnt);
    free(sd);
    free(rd);
    if (rc != MPI_SUCCESS) { /* (raised by the collective, or out of memory here) */
        for (int k = 0; k < made; k++) Cart_request_free(&sl[k]);
        free(sl);
        free(pack);
        if (own != MPI_COMM_NULL) MPI_Comm_free(&own);
        if (rc == MPI_ERR_OTHER) return cc_error(comm, rc, "%s: MPI_Comm_dup failed", who);
        return rc == MPI_ERR_NO_MEM ? cc_error(comm, rc, "%s: out of memory", who) : rc;
    }
    *pm = (pipe_made){ .sl = sl, .n = n, .g = s->g, .ordered = s->global, .sc = s->sc, .comm = own, .pack = pack,
                       .pnb = nb, .pcb = (size_t)(s->g * s->sc) * (size_t)s->ext,
                       .pbb = (size_t)s->block * (size_t)s->ext };
    return MPI_SUCCESS;
}

int cc_part_slices(const char *who, const pipe_args *a, MPI_Comm comm, const where *w, MPI_Info info,
                   cc_part_maker make, pipe_made *pm)
{
    pm->sl = NULL;
    pm->n = 0;
    pm->g = 1;
    slice_plan s = { .global = !w->nbh, .nb = w->outdeg > w->indeg ? w->outdeg : w->indeg };
    int blockwise = a->kind == CC_PC_ALLTOALL || a->kind == CC_PC_ALLGATHER;
    if ((s.global && blockwise) || (!s.global && !w->cs)) return MPI_SUCCESS; /* (the same on every process) */
    s.agree = s.global ? comm : w->cs->priv; /* global: MPI's collectives run on comm itself */
    slices_here(&s, a, w, info, who);
    int yes = 0, rc = slices_agree(&s, a, comm, who, &yes);
    return rc != MPI_SUCCESS || !yes ? rc : slices_make(&s, a, comm, info, make, who, pm);
}

/* Hand the slices (if any) to the partitioned request made (rc) or free
 * them. */
int cc_part_attach_slices(const char *who, MPI_Comm comm, int rc, Cart_request *request, pipe_made *pm,
                          const pipe_args *a)
{
    if (pm->n == 0) return rc;
    if (rc != MPI_SUCCESS) {
        for (int k = 0; k < pm->n; k++) Cart_request_free(&pm->sl[k]);
        if (pm->comm != MPI_COMM_NULL) MPI_Comm_free(&pm->comm);
        free(pm->pack);
    } else {
        cc_part_slicing s = { pm->sl, pm->n, pm->g, (int)(pm->g * pm->sc), a->recv ? (int)(a->rp * a->rc) : 1,
                              a->recv ? (int)a->rc : 1, pm->ordered, pm->comm, pm->pack, a->sendbuf, pm->pnb,
                              pm->pcb, pm->pbb };
        if (cc_part_use_slices(*request, &s) != MPI_SUCCESS) {
            cc_request_destroy(*request);
            *request = CART_REQUEST_NULL;
            rc = cc_error(comm, MPI_ERR_NO_MEM, "%s: out of memory", who);
        } else if ((*request)->part->multiple) {
            /* slices must move while the threads compute: the progress
             * thread (asleep while no operation is active) drives them */
            cc_progress_async_start();
        }
    }
    free(pm->sl);
    pm->sl = NULL;
    return rc;
}

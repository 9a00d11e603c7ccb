/* Pipelined partitioned collectives: slice s is the collective on a group
 * of adjacent partitions of every block (its own persistent request,
 * through the schedule, trees or reduction of that collective, or MPI's
 * collective with global meaning), started once those partitions are
 * marked.  See cc_part_slices. */
#include "api/part_transport.h"

#include "base/errors.h"
#include "base/mpi_compat.h"
#include "base/options.h"
#include "bind/typemap.h"
#include "choose/choose.h"
#include "req/partitioned.h"
#include "req/request.h"
#include "util/alloc.h"

#include <limits.h>
#include <stdlib.h>

/* The algorithm this call's info, the communicator's defaults (create's
 * info) and the environment ask for, in that order. */
int cc_part_asked_algorithm(MPI_Info info, const where *w, const char *who)
{
    cc_choice ch = { CC_AUTO, CC_EXEC_AUTO, 0 };
    if (w->cs) ch = w->cs->nbh->defaults;
    else cc_options_env(&ch);
    cc_options_info(info, &ch, who);
    return ch.algorithm;
}

static const void *shifted(const void *buf, MPI_Aint bytes)
{
    return buf == MPI_IN_PLACE ? buf : (const char *)buf + bytes;
}

/* Slice s of a: the collective on send partitions s*g ... s*g+g-1 of
 * every block (count = g*sc elements at s*count in each block of `block`):
 * the v form where blocks are strided; cnt, sd, rd: scratch of nb ints. */
static int make_slice(const pipe_args *a, MPI_Comm comm, MPI_Info info, int nb, long long block, MPI_Aint ext,
                      int s, int count, int *cnt, int *sd, int *rd, Cart_request *out)
{
    long long off = (long long)s * count;
    for (int i = 0; i < nb; i++) {
        cnt[i] = count;
        sd[i] = rd[i] = (int)(i * block + off);
    }
    MPI_Aint at = (MPI_Aint)off * ext;
    void *rb = a->recv ? (char *)a->recvbuf + at : a->recvbuf; /* (not significant where nothing arrives) */
    switch (a->kind) {
    case PL_ALLTOALL:
        return Cart_alltoallv_init(a->sendbuf, cnt, sd, a->type, a->recvbuf, cnt, rd, a->rtype, comm, info, out);
    case PL_ALLGATHER:
        return Cart_allgatherv_init(shifted(a->sendbuf, at), count, a->type, a->recvbuf, cnt, rd, a->rtype, comm, info,
                                    out);
    case PL_BCAST: return Cart_bcast_init((char *)a->recvbuf + at, count, a->type, a->root, comm, info, out);
    case PL_GATHER:
        return Cart_gatherv_init(shifted(a->sendbuf, at), count, a->type, a->recvbuf, cnt, rd, a->rtype, a->root, comm,
                                 info, out);
    case PL_SCATTER:
        return Cart_scatterv_init(a->sendbuf, cnt, sd, a->type, rb, count, a->rtype, a->root, comm, info, out);
    case PL_REDUCE:
        return Cart_reduce_init(shifted(a->sendbuf, at), rb, count, a->type, a->op, a->root, comm, info, out);
    case PL_RSB: /* this slice's chunks of every block, gathered at its start */
        return Cart_reduce_scatter_block_init(a->pack + (MPI_Aint)s * nb * count * ext,
                                              rb, count, a->type, a->op, comm, info, out);
    case PL_SCAN: return Cart_scan_init(shifted(a->sendbuf, at), rb, count, a->type, a->op, comm, info, out);
    case PL_EXSCAN: return Cart_exscan_init(shifted(a->sendbuf, at), rb, count, a->type, a->op, comm, info, out);
    default: return Cart_allreduce_init(shifted(a->sendbuf, at), rb, count, a->type, a->op, comm, info, out);
    }
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
int cc_part_slices(const char *who, const pipe_args *a, MPI_Comm comm, const where *w, MPI_Info info,
                           pipe_made *pm)
{
    pm->sl = NULL;
    pm->n = 0;
    pm->g = 1;
    int global = !w->nbh, blockwise = a->kind == PL_ALLTOALL || a->kind == PL_ALLGATHER;
    if ((global && blockwise) || (!global && !w->cs)) return MPI_SUCCESS; /* (the same on every process) */
    MPI_Comm agree = global ? comm : w->cs->priv; /* global: MPI's collectives run on comm itself */
    int alg = cc_part_asked_algorithm(info, w, who), nb = w->outdeg > w->indeg ? w->outdeg : w->indeg;
    int scatter = a->kind == PL_SCATTER, root = w->rank == a->root;
    int rsb = a->kind == PL_RSB;
    int blocks = a->kind == PL_ALLTOALL || a->kind == PL_ALLGATHER || a->kind == PL_GATHER || scatter || rsb;
    /* the send side's partitions: scatter's are the root's alone */
    int knows = !scatter || root;
    long long block = knows ? (long long)a->sp * a->sc : (long long)a->rp * a->rc;
    int sends = (a->kind != PL_BCAST || root) && knows;
    int ok = (!knows || (a->sp > 1 && a->sc > 0)) && (a->recvbuf || !a->recv) && (a->sendbuf || !sends);
    if (a->kind == PL_ALLTOALL || a->kind == PL_ALLGATHER) ok &= alg == CC_COMBINING || alg == CC_TORUS;
    if (blocks) {
        ok &= a->sendbuf != MPI_IN_PLACE && a->recvbuf != MPI_IN_PLACE && (long long)(nb + 1) * block <= INT_MAX;
        if (a->recv && knows) ok &= a->type == a->rtype && block == (long long)a->rp * a->rc;
    }
    /* scatter: the receivers cut their block by the root's partitions, so
     * both sides count one predefined datatype of the same size */
    MPI_Datatype unit = knows ? a->type : a->rtype;
    int tsize = 0;
    if (scatter) ok &= cc_type_named(unit) && MPI_Type_size(unit, &tsize) == MPI_SUCCESS;
    long long target = 0;
    int good = cc_part_aggregate_bytes(info, global ? NULL : w->cs->nbh, &target); /* (a bad value: an error everywhere) */
    MPI_Aint lb, ext = 0;
    if (ok) ok = good && MPI_Type_get_extent(unit, &lb, &ext) == MPI_SUCCESS;
    int g = 1;
    for (int c = a->sp; ok && knows && c > 1; c--)
        if (a->sp % c == 0 && (long long)c * a->sc * ext <= target) {
            g = c;
            break;
        }
    /* equal everywhere (MIN of x and -x); INT_MAX: not known here */
    const int U = INT_MAX;
    int mine[8] = { ok, knows ? a->sp : U, knows ? -a->sp : U, knows ? g : U, knows ? -g : U,
                    scatter && knows ? tsize : U, scatter && knows ? -tsize : U, good };
    int all[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
    if (MPI_Allreduce(mine, all, 8, MPI_INT, MPI_MIN, agree) != MPI_SUCCESS)
        return cc_error(comm, MPI_ERR_OTHER, "%s: agreeing on the transport failed", who);
    if (!all[7]) return cc_part_aggregate_error(comm, who, good);
    if (!all[0] || all[1] != -all[2] || all[3] != -all[4] || (scatter && all[5] != -all[6])) return MPI_SUCCESS;
    int sp = all[1];
    g = all[3];
    MPI_Count sc = a->sc;
    if (scatter) { /* a second reduction: can every receiver cut its block so? */
        if (!knows) {
            ok = tsize == all[5] && block % sp == 0;
            sc = block / sp;
        }
        int yes = 0;
        if (MPI_Allreduce(&ok, &yes, 1, MPI_INT, MPI_MIN, agree) != MPI_SUCCESS)
            return cc_error(comm, MPI_ERR_OTHER, "%s: agreeing on the transport failed", who);
        if (!yes) return MPI_SUCCESS;
    }
    if (sp / g < 2) return MPI_SUCCESS;
    pipe_args b = *a; /* with the agreed partitions */
    b.sp = sp;
    b.sc = sc;
    a = &b;
    int n = sp / g, made = 0;
    Cart_request *sl = cc_alloc_array((size_t)n, sizeof(Cart_request));
    int *cnt = cc_alloc_array((size_t)nb + 1, sizeof(int)), *sd = cc_alloc_array((size_t)nb + 1, sizeof(int));
    int *rd = cc_alloc_array((size_t)nb + 1, sizeof(int));
    /* reduce_scatter_block: contiguous send data for every slice (filled
     * as each starts) */
    char *pack = rsb ? cc_alloc_array((size_t)nb * (size_t)block + 1, (size_t)ext) : NULL;
    b.pack = pack;
    int rc = sl && cnt && sd && rd && (pack || !rsb) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    /* global meaning: the slices are MPI's collectives, which marking
     * threads may start at any moment: on a duplicate of their own they
     * meet neither the program's collectives nor other requests' slices
     * (only their own order matters, which is partition order) */
    MPI_Comm sc_comm = comm, own = MPI_COMM_NULL;
    if (rc == MPI_SUCCESS && global) {
        rc = MPI_Comm_dup(comm, &own) == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_OTHER;
        sc_comm = own;
    }
    for (int k = 0; rc == MPI_SUCCESS && k < n; k++) {
        rc = make_slice(a, sc_comm, info, nb, block, ext, k, (int)(g * a->sc), cnt, sd, rd, &sl[k]);
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
    *pm = (pipe_made){ .sl = sl, .n = n, .g = g, .ordered = global, .sc = sc, .comm = own, .pack = pack, .pnb = nb,
                       .pcb = (size_t)(g * sc) * (size_t)ext, .pbb = (size_t)block * (size_t)ext };
    return MPI_SUCCESS;
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
    } else if (cc_part_pipeline(*request, pm->sl, pm->n, pm->g, (int)(pm->g * pm->sc),
                                a->recv ? (int)(a->rp * a->rc) : 1, a->recv ? (int)a->rc : 1, pm->ordered,
                                pm->comm) != MPI_SUCCESS) {
        free(pm->pack);
        cc_request_destroy(*request);
        *request = CART_REQUEST_NULL;
        rc = cc_error(comm, MPI_ERR_NO_MEM, "%s: out of memory", who);
    } else {
        cc_part *p = (*request)->part;
        p->pack = pm->pack, p->pack_nb = pm->pnb, p->pack_cb = pm->pcb, p->pack_bb = pm->pbb;
        if (pm->pack) p->sbase = a->sendbuf;
        /* slices must move while the threads compute: the progress thread
         * (asleep while no operation is active) drives them */
        if (p->multiple) cc_progress_async_start();
    }
    free(pm->sl);
    pm->sl = NULL;
    return rc;
}


/* Local queries: neighbour counts and ranks, the neighbourhood as given,
 * relative rank/coordinate helpers, schedule statistics. */
#include "cartcoll.h"

#include "choose/choose.h"
#include "base/errors.h"
#include "topo/comm.h"
#include "topo/naming.h"
#include "util/alloc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The neighbourhood of a communicator, or raise. */
static int get_nbh(MPI_Comm comm, const char *who, cc_nbh **out)
{
    cc_comm *c;
    *out = NULL;
    int rc = cc_comm_get(comm, &c, who);
    if (rc != MPI_SUCCESS) return cc_error_raise(comm, rc);
    if (c->nbh->graph)
        return cc_error(comm, MPI_ERR_TOPOLOGY, "%s: the communicator is a graph that is not Cartesian (query it "
                        "with MPI_Dist_graph_neighbors)", who);
    *out = c->nbh;
    return MPI_SUCCESS;
}

int Cart_neighbor_count(MPI_Comm cartcomm, int *t)
{
    cc_nbh *n = NULL;
    int rc = get_nbh(cartcomm, "Cart_neighbor_count", &n);
    if (rc != MPI_SUCCESS) return rc;
    if (!t) return cc_error(cartcomm, MPI_ERR_ARG, "Cart_neighbor_count: t is NULL");
    *t = n->t;
    return MPI_SUCCESS;
}

static void fill_weights(const cc_nbh *n, int w[])
{
    for (int i = 0; i < n->t; i++) w[i] = n->weights ? n->weights[i] : 1;
}

int Cart_neighbor_get(MPI_Comm cartcomm, int maxin, int sources[], int sourceweights[],
                      int maxout, int targets[], int targetweights[])
{
    static const char *const who = "Cart_neighbor_get";
    cc_nbh *n = NULL;
    int rc = get_nbh(cartcomm, who, &n);
    if (rc != MPI_SUCCESS) return rc;
    if (maxin < n->t || maxout < n->t)
        return cc_error(cartcomm, MPI_ERR_ARG, "%s: maxin = %d and maxout = %d must be at least t = %d", who,
                        maxin, maxout, n->t);
    if (n->t > 0 && (!sources || !targets || !sourceweights || !targetweights))
        return cc_error(cartcomm, MPI_ERR_ARG, "%s: sources, targets and the weights arguments must not be NULL "
                        "(pass MPI_UNWEIGHTED to skip weights)", who);
    for (int i = 0; i < n->t; i++) {
        const int *v = n->offsets + (size_t)i * n->d;
        int s = cc_grid_shift(&n->grid, n->coords, v, -1), d = cc_grid_shift(&n->grid, n->coords, v, +1);
        sources[i] = s == CC_NONE ? MPI_PROC_NULL : s;
        targets[i] = d == CC_NONE ? MPI_PROC_NULL : d;
    }
    if (sourceweights != MPI_UNWEIGHTED) fill_weights(n, sourceweights);
    if (targetweights != MPI_UNWEIGHTED) fill_weights(n, targetweights);
    return MPI_SUCCESS;
}

int Cart_neighborhood_get(MPI_Comm cartcomm, int maxt, int relatives[], int weights[])
{
    static const char *const who = "Cart_neighborhood_get";
    cc_nbh *n = NULL;
    int rc = get_nbh(cartcomm, who, &n);
    if (rc != MPI_SUCCESS) return rc;
    if (maxt < n->t) return cc_error(cartcomm, MPI_ERR_ARG, "%s: maxt = %d is smaller than t = %d", who, maxt, n->t);
    if (n->t > 0 && (!relatives || !weights))
        return cc_error(cartcomm, MPI_ERR_ARG, "%s: relatives and weights must not be NULL (pass MPI_UNWEIGHTED "
                        "to skip weights)", who);
    if (n->t > 0) memcpy(relatives, n->offsets, sizeof(int) * (size_t)n->t * (size_t)n->d);
    if (weights != MPI_UNWEIGHTED) fill_weights(n, weights);
    return MPI_SUCCESS;
}

/* ---- relative helpers: every named communicator (topo/naming.h) ------- */

/* The naming of comm and the coordinates of `rank`, or raise. */
static int named_at(MPI_Comm comm, const char *who, int rank, cc_naming **n, int **coords)
{
    int rc = cc_naming_at(comm, who, rank, n, coords);
    return rc == MPI_SUCCESS ? rc : cc_error_raise(comm, rc);
}

static int proc(int r) { return r == CC_NONE ? MPI_PROC_NULL : r; }

int Cart_relative_rank(MPI_Comm comm, int rank, const int relative[], int *dest)
{
    static const char *const who = "Cart_relative_rank";
    cc_naming *n;
    int *c, rc = named_at(comm, who, rank, &n, &c);
    if (rc != MPI_SUCCESS) return rc;
    if (!relative || !dest) rc = cc_error(comm, MPI_ERR_ARG, "%s: relative and dest must not be NULL", who);
    else *dest = proc(cc_naming_shift(n, c, relative, +1));
    free(c);
    cc_naming_free(n);
    return rc;
}

int Cart_relative_shift(MPI_Comm comm, int rank, const int relative[], int *inrank, int *outrank)
{
    static const char *const who = "Cart_relative_shift";
    cc_naming *n;
    int *c, rc = named_at(comm, who, rank, &n, &c);
    if (rc != MPI_SUCCESS) return rc;
    if (!relative || !inrank || !outrank) {
        rc = cc_error(comm, MPI_ERR_ARG, "%s: relative, inrank and outrank must not be NULL", who);
    } else {
        *outrank = proc(cc_naming_shift(n, c, relative, +1));
        *inrank = proc(cc_naming_shift(n, c, relative, -1));
    }
    free(c);
    cc_naming_free(n);
    return rc;
}

int Cart_relative_coordinates(MPI_Comm comm, int rank, int dest, int relative[])
{
    static const char *const who = "Cart_relative_coordinates";
    cc_naming *n;
    int *c, rc = named_at(comm, who, rank, &n, &c);
    if (rc != MPI_SUCCESS) return rc;
    int *dc = malloc(sizeof(int) * ((size_t)n->grid.d + 1));
    if (!dc) rc = cc_error(comm, MPI_ERR_NO_MEM, "%s: out of memory", who);
    else if (!cc_naming_placed(n, dest))
        rc = cc_error(comm, MPI_ERR_RANK, "%s: dest %d has no position in the grid (%d positions, %d processes)", who,
                      dest, n->grid.size, n->nprocs);
    else if (!relative) rc = cc_error(comm, MPI_ERR_ARG, "%s: relative is NULL", who);
    else {
        cc_grid_coords(&n->grid, dest, dc);
        cc_grid_relative(&n->grid, c, dc, relative);
    }
    free(dc);
    free(c);
    cc_naming_free(n);
    return rc;
}

/* ---- schedule statistics ------------------------------------------------ */

/* The root's figures: its phases, and the rounds and blocks in which it
 * sends (bcast, scatter) or receives (gather, reduce). */
static int rooted_stats(const cc_nset *raw, int routed, int collective, int algorithm, long long *p, long long *r,
                        long long *v)
{
    cc_schedule *s;
    int mode = collective == CART_BCAST || collective == CART_SCATTER ? CC_ROOT_FROM : CC_ROOT_TO;
    int st = cc_schedule_build(raw, routed, algorithm, &s);
    if (st == CC_OK) st = cc_rooted_stats(s, mode, p, r, v);
    cc_schedule_free(s);
    return st;
}

int Cart_schedule_stats(MPI_Comm cartcomm, int collective, int algorithm, int *phases, int *rounds, int *volume)
{
    static const char *const who = "Cart_schedule_stats";
    cc_nbh *n = NULL;
    int rc = get_nbh(cartcomm, who, &n);
    if (rc != MPI_SUCCESS) return rc;
    if (collective < CART_ALLGATHER || collective > CART_ALLREDUCE)
        return cc_error(cartcomm, MPI_ERR_ARG, "%s: collective = %d is not one of CART_ALLGATHER ... CART_ALLREDUCE",
                        who, collective);
    if (algorithm < CART_ALGORITHM_AUTO || algorithm > CART_ALGORITHM_TORUS)
        return cc_error(cartcomm, MPI_ERR_ARG, "%s: unknown algorithm %d", who, algorithm);
    /* An allreduce reduces on the way on box-shaped neighbourhoods (a
     * commutative operation assumed), else it runs the allgather's
     * schedules and reduces at the end. */
    int onway = 0;
    if (collective == CART_ALLREDUCE && algorithm == CART_ALGORITHM_AUTO &&
        cc_choose_allreduce(n, MPI_SUM, (double)sizeof(int), (cc_choice){ CC_AUTO, CC_EXEC_AUTO, 0 }, &onway) != CC_OK)
        return cc_error(cartcomm, MPI_ERR_NO_MEM, "%s: out of memory", who);
    if (onway) algorithm = onway;
    /* Rooted collectives ride on the allgather's (alltoall's: scatter)
     * trees. */
    int rooted = collective >= CART_BCAST && collective <= CART_REDUCE;
    int routed = collective == CART_ALLREDUCE || (rooted && collective != CART_SCATTER) ? CART_ALLGATHER
                 : collective == CART_SCATTER                                            ? CART_ALLTOALL
                                                                                         : collective;
    if (algorithm == CART_ALGORITHM_AUTO) {
        /* What a one-int block would use. */
        cc_blk *recv = cc_alloc_zarray((size_t)n->t, sizeof *recv);
        if (!recv) return cc_error(cartcomm, MPI_ERR_NO_MEM, "%s: out of memory", who);
        for (int i = 0; i < n->t; i++) recv[i].bytes = (MPI_Aint)sizeof(int);
        cc_candidates cand;
        int st = cc_choose(n, routed, recv, (cc_choice){ CC_AUTO, CC_EXEC_AUTO, 0 }, 0, 1, &cand);
        free(recv);
        if (st != CC_OK) return cc_error(cartcomm, MPI_ERR_NO_MEM, "%s: out of memory", who);
        algorithm = cand.c[0].algorithm;
    }
    cc_nset raw = { n->d, n->t, n->offsets, NULL, n->periods };
    long long p, r, v;
    int st = rooted ? rooted_stats(&raw, routed, collective, algorithm, &p, &r, &v)
                    : cc_schedule_stats(&raw, collective, algorithm, &p, &r, &v);
    if (st != CC_OK)
        return cc_error(cartcomm, st == CC_ENOMEM ? MPI_ERR_NO_MEM : MPI_ERR_COUNT, "%s: %s", who,
                        st == CC_ENOMEM ? "out of memory" : "the neighbourhood is too large for these figures");
    /* A TORUS phase, as in seed 001, is a dimension; internally its hop steps
     * are separate phases (each depends on the one before). */
    long long dims_used = 0, unused;
    if (algorithm == CART_ALGORITHM_TORUS &&
        cc_schedule_stats(&raw, routed, CART_ALGORITHM_COMBINING, &dims_used, &unused, &unused) == CC_OK)
        p = dims_used;
    if (p > INT_MAX || r > INT_MAX || v > INT_MAX)
        return cc_error(cartcomm, MPI_ERR_COUNT, "%s: the figures exceed an int (rounds %lld, volume %lld)", who, r, v);
    if (phases) *phases = (int)p;
    if (rounds) *rounds = (int)r;
    if (volume) *volume = (int)v;
    return MPI_SUCCESS;
}

/* Cartesian naming (seed 000, Listings 3-6): Cart_name and the queries on
 * every named communicator (topo/naming.h), Cart_create_sub, and
 * Cart_comm_base (seed 000, Listing 1). */
#include "cartcoll.h"

#include "api/stencil.h"
#include "base/errors.h"
#include "req/agree.h"
#include "topo/comm.h"
#include "topo/naming.h"

#include <limits.h>
#include <stdlib.h>

/* Cart_comm_base of an inter-communicator: the tag of its
 * MPI_Comm_create_group over MPI_COMM_WORLD. */
enum { BASE_TAG = 31415 };

static int proc(int r) { return r == CC_NONE ? MPI_PROC_NULL : r; }

/* The naming of comm, or raise. */
static int named(MPI_Comm comm, const char *who, cc_naming **n)
{
    int rc = cc_naming_of(comm, who, n);
    return rc == MPI_SUCCESS ? rc : cc_error_raise(comm, rc);
}

/* The naming of comm and the coordinates of `rank`, or raise. */
static int named_at(MPI_Comm comm, const char *who, int rank, cc_naming **n, int **coords)
{
    int rc = cc_naming_at(comm, who, rank, n, coords);
    return rc == MPI_SUCCESS ? rc : cc_error_raise(comm, rc);
}

/* Whether comm is an inter-communicator; raises on a null or bad handle. */
static int test_inter(MPI_Comm comm, const char *who, int *inter)
{
    if (comm == MPI_COMM_NULL) return cc_error(comm, MPI_ERR_COMM, "%s: the communicator is MPI_COMM_NULL", who);
    if (MPI_Comm_test_inter(comm, inter) != MPI_SUCCESS)
        return cc_error(comm, MPI_ERR_COMM, "%s: the communicator is not valid", who);
    return MPI_SUCCESS;
}

int Cart_name(MPI_Comm comm, int d, int dimorder, const int order[], const int periods[], int *size)
{
    static const char *const who = "Cart_name";
    int inter = 0, rc = test_inter(comm, who, &inter);
    if (rc != MPI_SUCCESS) return rc;
    if (inter) return cc_error(comm, MPI_ERR_COMM, "%s: comm is an inter-communicator, which cannot be named", who);
    if (d < 1) return cc_error(comm, MPI_ERR_DIMS, "%s: d = %d must be at least 1", who, d);
    if (dimorder != CART_ROW_MAJOR && dimorder != CART_COL_MAJOR)
        return cc_error(comm, MPI_ERR_ARG, "%s: dimorder = %d is neither CART_ROW_MAJOR nor CART_COL_MAJOR", who,
                        dimorder);
    if (!order || !periods || !size)
        return cc_error(comm, MPI_ERR_ARG, "%s: order, periods and size must not be NULL", who);
    long long p = 1;
    for (int k = 0; k < d; k++) {
        if (order[k] < 1) return cc_error(comm, MPI_ERR_ARG, "%s: order[%d] = %d must be at least 1", who, k, order[k]);
        if ((p *= order[k]) > INT_MAX)
            return cc_error(comm, MPI_ERR_ARG, "%s: the grid has more than INT_MAX positions (order[0..%d])", who, k);
    }
    rc = cc_naming_attach(comm, d, dimorder == CART_COL_MAJOR, order, periods);
    if (rc != MPI_SUCCESS) return cc_error_raise(comm, rc);
    *size = (int)p;
    return MPI_SUCCESS;
}

int Cart_test_name(MPI_Comm comm, int *flag, int *d, int *size)
{
    static const char *const who = "Cart_test_name";
    cc_naming *n;
    int rc = cc_naming_find(comm, who, &n);
    if (rc != MPI_SUCCESS) return cc_error_raise(comm, rc);
    if (flag) *flag = n != NULL;
    if (d) *d = n ? n->grid.d : -1;
    if (size) *size = n ? n->grid.size : -1;
    cc_naming_free(n);
    return MPI_SUCCESS;
}

int Cart_get(MPI_Comm comm, int *dimorder, int maxd, int order[], int periods[])
{
    static const char *const who = "Cart_get";
    cc_naming *n;
    int rc = named(comm, who, &n);
    if (rc != MPI_SUCCESS) return rc;
    if (maxd < 0) rc = cc_error(comm, MPI_ERR_ARG, "%s: maxd = %d is negative", who, maxd);
    else if (!dimorder || (maxd > 0 && (!order || !periods)))
        rc = cc_error(comm, MPI_ERR_ARG, "%s: dimorder, order and periods must not be NULL", who);
    else {
        *dimorder = n->grid.colmajor ? CART_COL_MAJOR : CART_ROW_MAJOR;
        for (int k = 0; k < n->grid.d && k < maxd; k++) {
            order[k] = n->grid.dims[k];
            periods[k] = n->grid.periods[k];
        }
    }
    cc_naming_free(n);
    return rc;
}

int Cart_rank(MPI_Comm comm, const int coordinates[], int *rank)
{
    static const char *const who = "Cart_rank";
    cc_naming *n;
    int rc = named(comm, who, &n);
    if (rc != MPI_SUCCESS) return rc;
    if (!coordinates || !rank) rc = cc_error(comm, MPI_ERR_ARG, "%s: coordinates and rank must not be NULL", who);
    else *rank = proc(cc_naming_shift(n, coordinates, NULL, +1));
    cc_naming_free(n);
    return rc;
}

int Cart_coordinates(MPI_Comm comm, int rank, int coordinates[])
{
    static const char *const who = "Cart_coordinates";
    cc_naming *n;
    int *c, rc = named_at(comm, who, rank, &n, &c);
    if (rc != MPI_SUCCESS) return rc;
    if (!coordinates) rc = cc_error(comm, MPI_ERR_ARG, "%s: coordinates is NULL", who);
    else
        for (int k = 0; k < n->grid.d; k++) coordinates[k] = c[k];
    free(c);
    cc_naming_free(n);
    return rc;
}

/* n vectors of d ints to ranks: each at `from` + vector (from NULL: the
 * vector itself). */
static void map_ranks(const cc_naming *nm, const int from[], int n, const int vecs[], int ranks[])
{
    size_t d = (size_t)nm->grid.d;
    for (int i = 0; i < n; i++) {
        const int *v = vecs + (size_t)i * d;
        ranks[i] = proc(from ? cc_naming_shift(nm, from, v, +1) : cc_naming_shift(nm, v, NULL, +1));
    }
}

int Cart_allranks(MPI_Comm comm, int n, const int coordinates[], int ranks[])
{
    static const char *const who = "Cart_allranks";
    cc_naming *nm;
    int rc = named(comm, who, &nm);
    if (rc != MPI_SUCCESS) return rc;
    if (n < 0) rc = cc_error(comm, MPI_ERR_ARG, "%s: n = %d is negative", who, n);
    else if (n > 0 && (!coordinates || !ranks))
        rc = cc_error(comm, MPI_ERR_ARG, "%s: coordinates and ranks must not be NULL", who);
    else map_ranks(nm, NULL, n, coordinates, ranks);
    cc_naming_free(nm);
    return rc;
}

int Cart_allranks_relative(MPI_Comm comm, int source, int n, const int relatives[], int ranks[])
{
    static const char *const who = "Cart_allranks_relative";
    cc_naming *nm;
    int *c, rc = named_at(comm, who, source, &nm, &c);
    if (rc != MPI_SUCCESS) return rc;
    if (n < 0) rc = cc_error(comm, MPI_ERR_ARG, "%s: n = %d is negative", who, n);
    else if (n > 0 && (!relatives || !ranks))
        rc = cc_error(comm, MPI_ERR_ARG, "%s: relatives and ranks must not be NULL", who);
    else map_ranks(nm, c, n, relatives, ranks);
    free(c);
    cc_naming_free(nm);
    return rc;
}

/* What Cart_neighbors[_count] share: the naming, the coordinates of rank,
 * the stencil's arguments checked (as Cart_stencil's), the count. */
static int neighbors_of(MPI_Comm comm, const char *who, int rank, int metric, int shadow, int depth,
                        cc_naming **n, int **coords, long long *count)
{
    long long full;
    int rc = named_at(comm, who, rank, n, coords);
    if (rc != MPI_SUCCESS) return rc;
    rc = cc_stencil_check(comm, who, (*n)->grid.d, metric, shadow, depth, &full);
    if (rc == MPI_SUCCESS && (*count = cc_naming_neighbors(*n, *coords, metric, shadow, depth, NULL)) < 0)
        rc = cc_error(comm, MPI_ERR_NO_MEM, "%s: out of memory", who);
    if (rc != MPI_SUCCESS) {
        free(*coords);
        cc_naming_free(*n);
    }
    return rc;
}

int Cart_neighbors_count(MPI_Comm comm, int rank, int metric, int shadow, int depth, int *count)
{
    static const char *const who = "Cart_neighbors_count";
    cc_naming *n;
    int *c;
    long long cnt;
    int rc = neighbors_of(comm, who, rank, metric, shadow, depth, &n, &c, &cnt);
    if (rc != MPI_SUCCESS) return rc;
    if (!count) rc = cc_error(comm, MPI_ERR_ARG, "%s: count is NULL", who);
    else *count = (int)cnt; /* at most the stencil's count, an int */
    free(c);
    cc_naming_free(n);
    return rc;
}

int Cart_neighbors(MPI_Comm comm, int rank, int metric, int shadow, int depth, int maxcount, int relatives[])
{
    static const char *const who = "Cart_neighbors";
    cc_naming *n;
    int *c;
    long long cnt;
    int rc = neighbors_of(comm, who, rank, metric, shadow, depth, &n, &c, &cnt);
    if (rc != MPI_SUCCESS) return rc;
    if (maxcount < cnt)
        rc = cc_error(comm, MPI_ERR_ARG, "%s: maxcount = %d is smaller than the %lld vectors", who, maxcount, cnt);
    else if (cnt > 0 && !relatives) rc = cc_error(comm, MPI_ERR_ARG, "%s: relatives is NULL", who);
    else if (cnt > 0 && cc_naming_neighbors(n, c, metric, shadow, depth, relatives) < 0)
        rc = cc_error(comm, MPI_ERR_NO_MEM, "%s: out of memory", who);
    free(c);
    cc_naming_free(n);
    return rc;
}

/* Complete the pending private MPI_Comm_idup of a cartcoll communicator
 * before making a communicator from it: Open MPI 4.1 can hang when an
 * MPI_Comm_split runs while an MPI_Comm_idup of the same communicator is
 * pending (open-mpi/ompi#2025).  Collective like the caller. */
static int settle(MPI_Comm comm, const char *who)
{
    cc_comm *cs = cc_comm_find(comm);
    MPI_Comm priv;
    int rc = cs ? cc_comm_ready(cs, who, &priv) : MPI_SUCCESS;
    return rc == MPI_SUCCESS ? MPI_SUCCESS : cc_error_raise(comm, rc);
}

int Cart_create_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *subcomm)
{
    static const char *const who = "Cart_create_sub";
    cc_naming *n;
    int rc = named(comm, who, &n), me = 0, color = MPI_UNDEFINED, key = 0;
    if (rc != MPI_SUCCESS) return rc;
    int *c = malloc(sizeof(int) * ((size_t)n->grid.d + 1));
    if (!remain_dims || !subcomm) rc = cc_error(comm, MPI_ERR_ARG, "%s: remain_dims and subcomm must not be NULL", who);
    else if (!c) rc = cc_error(comm, MPI_ERR_NO_MEM, "%s: out of memory", who);
    else if ((rc = MPI_Comm_rank(comm, &me)) != MPI_SUCCESS) rc = cc_error_mpi(comm, rc, who);
    else if (cc_naming_placed(n, me)) {
        cc_grid_coords(&n->grid, me, c);
        if (cc_naming_split(n, c, remain_dims, &color, &key) < 0)
            rc = cc_error(comm, MPI_ERR_NO_MEM, "%s: out of memory", who);
    }
    /* Processes without a position take part with MPI_UNDEFINED and get
     * MPI_COMM_NULL; MPI_Comm_split copies neither attributes nor topology,
     * so the result is unnamed. */
    MPI_Comm out = MPI_COMM_NULL;
    if (rc == MPI_SUCCESS) rc = settle(comm, who);
    if (rc == MPI_SUCCESS && (rc = MPI_Comm_split(comm, color, key, &out)) != MPI_SUCCESS)
        rc = cc_error_mpi(comm, rc, who);
    if (rc == MPI_SUCCESS) *subcomm = out;
    free(c);
    cc_naming_free(n);
    return rc;
}

/* The local group of an inter-communicator as an intra-communicator,
 * collective over that group only (seed 000: the remote group has no part
 * in it).  MPI_Comm_create_group needs an intra-communicator holding the
 * group; MPI-3 has no other local way, so that is MPI_COMM_WORLD. */
static int local_group_comm(MPI_Comm comm, const char *who, MPI_Comm *out)
{
    MPI_Group g = MPI_GROUP_NULL, wg = MPI_GROUP_NULL, common = MPI_GROUP_NULL;
    int cmp = MPI_UNEQUAL, rc = MPI_Comm_group(comm, &g);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_group(MPI_COMM_WORLD, &wg);
    if (rc == MPI_SUCCESS) rc = MPI_Group_intersection(g, wg, &common);
    if (rc == MPI_SUCCESS) rc = MPI_Group_compare(g, common, &cmp); /* MPI_IDENT: g lies in MPI_COMM_WORLD */
    if (rc != MPI_SUCCESS) rc = cc_error_mpi(comm, rc, who);
    else if (cmp != MPI_IDENT)
        rc = cc_error(comm, MPI_ERR_UNSUPPORTED_OPERATION,
                      "%s: the local group of this inter-communicator is not part of MPI_COMM_WORLD (dynamic "
                      "processes); no local base communicator can be made for it", who);
    else if ((rc = MPI_Comm_create_group(MPI_COMM_WORLD, g, BASE_TAG, out)) != MPI_SUCCESS)
        rc = cc_error_mpi(comm, rc, who);
    MPI_Group *gs[3] = { &g, &wg, &common };
    for (int i = 0; i < 3; i++)
        if (*gs[i] != MPI_GROUP_NULL) MPI_Group_free(gs[i]);
    return rc;
}

int Cart_comm_base(MPI_Comm comm, MPI_Comm *basecomm)
{
    static const char *const who = "Cart_comm_base";
    int inter = 0, rc = test_inter(comm, who, &inter), me = 0;
    if (rc != MPI_SUCCESS) return rc;
    if (!basecomm) return cc_error(comm, MPI_ERR_ARG, "%s: basecomm is NULL", who);
    MPI_Comm out = MPI_COMM_NULL;
    if (inter) {
        rc = local_group_comm(comm, who, &out);
    } else {
        /* One color, keys in rank order: the group in its order, without
         * topology or attributes (MPI_Comm_split copies neither). */
        if ((rc = settle(comm, who)) != MPI_SUCCESS) return rc;
        rc = MPI_Comm_rank(comm, &me);
        if (rc == MPI_SUCCESS) rc = MPI_Comm_split(comm, 0, me, &out);
        if (rc != MPI_SUCCESS) rc = cc_error_mpi(comm, rc, who);
    }
    if (rc == MPI_SUCCESS) *basecomm = out;
    return rc;
}

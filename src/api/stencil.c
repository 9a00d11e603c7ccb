/* Cart_stencil_count and Cart_stencil (seed 000, Listing 6). */
#include "cartcoll.h"

#include "api/stencil.h"
#include "base/errors.h"
#include "geom/stencil_core.h"

#include <limits.h>

_Static_assert(CC_METRIC_MANHATTAN == CART_MANHATTAN && CC_METRIC_CHEBYSHEV == CART_CHEBYSHEV, "metric codes");

int cc_stencil_check(MPI_Comm comm, const char *who, int d, int metric, int shadow, int depth, long long *count)
{
    if (d < 1) return cc_error(comm, MPI_ERR_DIMS, "%s: d = %d must be at least 1", who, d);
    if (metric != CART_MANHATTAN && metric != CART_CHEBYSHEV)
        return cc_error(comm, MPI_ERR_ARG, "%s: metric = %d is neither CART_MANHATTAN nor CART_CHEBYSHEV", who,
                        metric);
    if (depth < 0) return cc_error(comm, MPI_ERR_ARG, "%s: depth = %d is negative", who, depth);
    if (shadow < 0 || shadow > depth)
        return cc_error(comm, MPI_ERR_ARG, "%s: shadow = %d must lie in [0, depth = %d]", who, shadow, depth);
    /* The count is returned as an int; Cart_stencil indexes with 64 bits. */
    long long n = cc_stencil_count(d, metric, shadow, depth, INT_MAX);
    if (n < 0) return cc_error(comm, MPI_ERR_ARG, "%s: the stencil has more than %d vectors (INT_MAX)", who, INT_MAX);
    *count = n;
    return MPI_SUCCESS;
}

int Cart_stencil_count(int d, int metric, int shadow, int depth, int *count)
{
    long long n;
    int rc = cc_stencil_check(MPI_COMM_SELF, "Cart_stencil_count", d, metric, shadow, depth, &n);
    if (rc != MPI_SUCCESS) return rc;
    if (!count) return cc_error(MPI_COMM_SELF, MPI_ERR_ARG, "Cart_stencil_count: count is NULL");
    *count = (int)n;
    return MPI_SUCCESS;
}

int Cart_stencil(int d, int metric, int shadow, int depth, int maxcount, int relatives[])
{
    long long n;
    int rc = cc_stencil_check(MPI_COMM_SELF, "Cart_stencil", d, metric, shadow, depth, &n);
    if (rc != MPI_SUCCESS) return rc;
    if (maxcount < n)
        return cc_error(MPI_COMM_SELF, MPI_ERR_ARG, "Cart_stencil: maxcount = %d is smaller than the %lld vectors",
                        maxcount, n);
    if (n > 0 && !relatives) return cc_error(MPI_COMM_SELF, MPI_ERR_ARG, "Cart_stencil: relatives is NULL");
    if (n > 0 && cc_stencil_list(d, metric, shadow, depth, relatives) < 0)
        return cc_error(MPI_COMM_SELF, MPI_ERR_NO_MEM, "Cart_stencil: out of memory");
    return MPI_SUCCESS;
}

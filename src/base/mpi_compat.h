/* Wrappers for MPI calls that take MPI_STATUSES_IGNORE.  MPICH defines it as
 * (MPI_Status *)1 and gcc 12 then warns (-Wstringop-overflow) that the call
 * writes to "a region of size 0", a false positive; the wrappers keep the
 * suppression in one place. */
#ifndef CC_MPI_COMPAT_H
#define CC_MPI_COMPAT_H

#include <mpi.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

static inline int cc_waitall(int n, MPI_Request *r) { return MPI_Waitall(n, r, MPI_STATUSES_IGNORE); }
static inline int cc_testall(int n, MPI_Request *r, int *flag) { return MPI_Testall(n, r, flag, MPI_STATUSES_IGNORE); }
static inline int cc_waitsome(int n, MPI_Request *r, int *out, int *idx)
{
    return MPI_Waitsome(n, r, out, idx, MPI_STATUSES_IGNORE);
}
static inline int cc_testsome(int n, MPI_Request *r, int *out, int *idx)
{
    return MPI_Testsome(n, r, out, idx, MPI_STATUSES_IGNORE);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif

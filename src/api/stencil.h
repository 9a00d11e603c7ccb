/* The argument checks of Cart_stencil, shared with Cart_neighbors (whose
 * vectors are that stencil's). */
#ifndef CC_API_STENCIL_H
#define CC_API_STENCIL_H

#include <mpi.h>

/* Check d, metric, shadow and depth, raising on comm as `who`; *count =
 * the number of vectors (at most INT_MAX).  Returns an MPI error code. */
int cc_stencil_check(MPI_Comm comm, const char *who, int d, int metric, int shadow, int depth, long long *count);

#endif

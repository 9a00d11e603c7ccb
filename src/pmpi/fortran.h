/* What the Fortran entry points of the drop-in share (Open MPI only: see
 * fortran.c): the sentinels of Open MPI's Fortran layer, the fall-through
 * to Open MPI's own binding, and the names one implementation is defined
 * under. */
#ifndef CC_PMPI_FORTRAN_H
#define CC_PMPI_FORTRAN_H

#include "pmpi/preload.h"

#ifdef OPEN_MPI

#include <dlfcn.h>

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER arrays are passed to C as int arrays");

/* A Fortran status is MPI_STATUS_SIZE INTEGERs: Open MPI's MPI_Status
 * word for word (how its configure defines MPI_STATUS_SIZE). */
enum { PL_F_STATUS_SIZE = sizeof(MPI_Status) / sizeof(MPI_Fint) };

/* Fortran LOGICAL values as Open MPI's gfortran build writes them. */
enum { PL_F_TRUE = 1, PL_F_FALSE = 0 };

#pragma GCC visibility push(hidden)

/* Buffers: MPI_BOTTOM (and, for send buffers, MPI_IN_PLACE) from their
 * Fortran common blocks to C's. */
const void *pl_f_sbuf(const void *b);
void *pl_f_rbuf(void *b);
/* Weights: MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY. */
const int *pl_f_weights(const MPI_Fint *w);
/* MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE. */
int pl_f_status_ignored(const MPI_Fint *s);
int pl_f_statuses_ignored(const MPI_Fint *s);
/* The in- and out-degree of c (the length of the w variants' type
 * arrays; 0 without a topology: the call then fails as MPI's would). */
void pl_f_degrees(MPI_Comm c, int *in, int *out);
/* The C handles of an alltoallw's send types (the first *out) and
 * receive types (after them), malloc'ed; NULL after raising
 * MPI_ERR_NO_MEM on c and setting *ierror.  They live only for the call:
 * cartcoll plans a non-blocking operation (and its plan cache copies what
 * it keeps) before Cart_ialltoallw returns. */
MPI_Datatype *pl_f_w_types(MPI_Comm c, const MPI_Fint *sendtypes, const MPI_Fint *recvtypes, int *out, MPI_Fint *ierror);

/* Open MPI's binding where the drop-in does not take the communicator of
 * a non-blocking collective (off, passthrough on a graph that is not
 * Cartesian, no topology, an invalid handle, which Open MPI's binding
 * reports). */
static inline int pl_f_not_taken(MPI_Comm c) { return !c || c == MPI_COMM_NULL || !pl_take(c, 0, NULL); }

#pragma GCC visibility pop

/* Where `cond` holds, Open MPI's own binding of the same name runs (the
 * drop-in changes nothing then) and the caller returns; the gfortran
 * spelling names it, Open MPI defines all spellings at one address.  Goes
 * on to the drop-in's conversion if it cannot be found. */
#define PL_F_MPI_IF(cond, impl, sym, ...)                              \
    do {                                                               \
        if (cond) {                                                    \
            static __typeof__(impl) *next_;                            \
            if (!next_) *(void **)(&next_) = dlsym(RTLD_NEXT, sym);    \
            if (next_ && next_ != impl) {                              \
                next_(__VA_ARGS__);                                    \
                return;                                                \
            }                                                          \
        }                                                              \
    } while (0)

/* CARTCOLL_PRELOAD=off: Open MPI's binding. */
#define OFF_GOES_TO_MPI(impl, sym, ...) PL_F_MPI_IF(!pl_on(), impl, sym, __VA_ARGS__)

/* The names of one implementation: the four spellings compilers use for
 * mpif.h and `use mpi` (mpi_x, mpi_x_, mpi_x__, MPI_X), and Open MPI's
 * internal ompi_x_f, through which its `use mpi_f08` bindings call most
 * functions (libmpi_usempif08 imports them from libmpi_mpifh, so the
 * drop-in's definition comes first). */
#define FORTRAN_NAMES(impl, name, upper)                                        \
    extern __typeof__(impl) mpi_##name __attribute__((alias(#impl)));          \
    extern __typeof__(impl) mpi_##name##_ __attribute__((alias(#impl)));       \
    extern __typeof__(impl) mpi_##name##__ __attribute__((alias(#impl)));      \
    extern __typeof__(impl) upper __attribute__((alias(#impl)));               \
    extern __typeof__(impl) ompi_##name##_f __attribute__((alias(#impl)))

/* Functions whose `use mpi_f08` binding calls the profiling spelling
 * pmpi_x_ instead (MPI_Test*, MPI_Request_get_status, the topology
 * constructors: they convert LOGICALs in Fortran). */
#define FORTRAN_F08_PMPI_NAME(impl, name) \
    extern __typeof__(impl) pmpi_##name##_ __attribute__((alias(#impl)))

#endif /* OPEN_MPI */

#endif

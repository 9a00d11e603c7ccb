/* The naming of a communicator (seed 000, Listings 3-6): one lookup for
 * every named communicator.  Cart_name caches a naming on a communicator
 * in an attribute that MPI_Comm_dup and friends do not copy; communicators
 * made by Cart_neighborhood_create and by MPI_Cart_create are named by
 * their grid (row-major). */
#ifndef CC_TOPO_NAMING_H
#define CC_TOPO_NAMING_H

#include <mpi.h>

#include "geom/naming.h"

/* Attach a naming to the intra-communicator comm, replacing any earlier
 * Cart_name naming (arguments already validated; copied).  Returns
 * MPI_SUCCESS or an error code, not raised. */
int cc_naming_attach(MPI_Comm comm, int d, int colmajor, const int dims[], const int periods[]);

/* The naming of comm, looked up in this order: a Cart_name attribute; a
 * cartcoll neighbourhood on a communicator without MPI topology; MPI's
 * Cartesian topology (MPI_Cart_create and Cart_neighborhood_create
 * communicators).  Graphs and inter-communicators have none.  On success *out is a
 * private copy (free with cc_naming_free), so a concurrent Cart_name cannot
 * pull it away.  Otherwise an error code, not raised, of class
 * MPI_ERR_COMM (null or inter-communicator), MPI_ERR_TOPOLOGY (no naming)
 * or MPI_ERR_NO_MEM; `who` names the caller in its sentence. */
int cc_naming_of(MPI_Comm comm, const char *who, cc_naming **out);
/* The same where being unnamed is an answer (Cart_test_name): MPI_SUCCESS
 * and *out NULL for an unnamed or inter-communicator, no error code made. */
int cc_naming_find(MPI_Comm comm, const char *who, cc_naming **out);
void cc_naming_free(cc_naming *n);

/* cc_naming_of plus the coordinates of `rank` (d ints, free with free()):
 * an error code of class MPI_ERR_RANK, not raised, when rank has no
 * position (cc_naming_placed).  On error there is nothing to free. */
int cc_naming_at(MPI_Comm comm, const char *who, int rank, cc_naming **out, int **coords);

#endif

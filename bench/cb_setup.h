/* cartbench --setup (cb_setup.c). */
#ifndef CB_SETUP_H
#define CB_SETUP_H

#include "cb_options.h"

/* Time Cart_neighborhood_create (+ Cart_alltoall_init / Cart_allgather_init
 * per algorithm) for every neighbourhood of o; rank 0 prints a table.
 * Returns nonzero on a failure. */
int run_setup(const options *o, MPI_Comm world);

#endif

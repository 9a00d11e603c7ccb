/* What the processes settle together outside the operations themselves:
 * the private communicator of a duplicated communicator, and the agreement
 * of a persistent *_init call.  Both wait while advancing the caller's other
 * requests, so that waiting here never holds up an operation another
 * process needs finished first. */
#ifndef CC_AGREE_H
#define CC_AGREE_H

#include <mpi.h>

#include "topo/comm.h"
#include "base/options.h"

/* The private communicator of cs, completing the MPI_Comm_idup started when
 * the communicator was duplicated.  Returns MPI_SUCCESS or an error code
 * (not raised). */
int cc_comm_ready(cc_comm *cs, const char *who, MPI_Comm *priv);

/* Agreement of a persistent *_init: `local` is this process's error code
 * (MPI_SUCCESS when its arguments are fine), *want the algorithm and executor
 * it asks for, `root` the root of a rooted collective (-1: none).  Every
 * process learns whether any failed and whether the choices or roots differ; on success *tag is the first of a pair of tags that no live
 * persistent request of any process holds.  Returns MPI_SUCCESS or an error
 * code (not raised): the local error, or a code saying what another process
 * got wrong. */
int cc_agree_init(cc_comm *cs, MPI_Comm priv, const char *who, int local, const cc_choice *want, int root, int *tag);

#endif

/* cartbench --ops bcast,gather,scatter,reduce (cb_rooted.c): the rooted
 * collectives with neighbourhood meaning, root 0, against one message per
 * neighbour by point-to-point. */
#ifndef CB_ROOTED_H
#define CB_ROOTED_H

#include "cb_types.h"

/* OP_NBCAST ... OP_NREDUCE: buffers and the values expected from first
 * principles (the root's in/out-neighbours); the baseline, blocking: one
 * message per neighbour (MPI_Isend/MPI_Irecv) on c->plain, reduce summing
 * at the root; the check: every process's buffer against first principles
 * (untouched where not significant). */
extern const cb_family cb_rooted_family;

#endif

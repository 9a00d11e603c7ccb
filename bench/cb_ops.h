/* cartbench's op table: which family of collectives (cb_types.h's
 * cb_family) sets up, checks and, where MPI has none, runs the baseline of
 * each collective (cb_ops.c). */
#ifndef CB_OPS_H
#define CB_OPS_H

#include "cb_types.h"

/* The family of op (OP_*, OP_ALLREDUCE included). */
const cb_family *cb_family_of(int op);

#endif

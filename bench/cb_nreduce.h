/* cartbench --ops allreduce (cb_nreduce.c): the neighbourhood
 * Cart_allreduce against MPI_Neighbor_allgather and a local sum. */
#ifndef CB_NREDUCE_H
#define CB_NREDUCE_H

#include "cb_types.h"

/* k->m doubles of send, receive and expected sum (over the existing
 * sources R - N[i]; -1 where none), and `gathered` blocks for the
 * baseline; returns the number of sources. */
int nreduce_buffers(kase *k, const nbhctx *c, size_t gathered);
/* OP_NALLREDUCE: m doubles, the baseline's t*m gathered doubles, the sum
 * over the existing sources R - N[i] (untouched, -1, where none); the check
 * is the global allreduce's (cb_global.h). */
extern const cb_family cb_nreduce_family;

#endif

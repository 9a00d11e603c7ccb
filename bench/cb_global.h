/* cartbench --global-allreduce (cb_global.c): Cart_allreduce on a
 * communicator without topology against MPI_Allreduce; its communicators,
 * buffers and check (the neighbourhood allreduce's check too). */
#ifndef CB_GLOBAL_H
#define CB_GLOBAL_H

#include "cb_types.h"

/* Two duplicates of world: c->graph for MPI_Allreduce, c->alt[COMM_PLAIN]
 * for Cart_allreduce; the row columns name it "global"; -1 on an MPI error. */
int setup_global(nbhctx *c, MPI_Comm world);
/* Element e of process r's allreduce send buffer: small integers, so every
 * partial sum is exact in double whatever the order of additions. */
double allreduce_value(int r, int e);
/* An allreduce's receive buffer (cartcoll's or MPI's, s's) to -1, never a
 * sum of the positive values; its result against k->dexpect. */
void allreduce_clear(vstate *s, const kase *k, const nbhctx *c);
void allreduce_verify(vstate *s, kase *k, const nbhctx *c, int inject_fault);
/* OP_ALLREDUCE. */
extern const cb_family cb_global_family;

#endif

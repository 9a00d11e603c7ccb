/* cartbench's point-to-point variants (cb_p2p.c): p2p and p2p-p, one
 * message per neighbour as MPI's neighbourhood collectives do, and floor,
 * one message per distinct peer with all its bytes; on a plain duplicate of
 * MPI_COMM_WORLD with ranks from the grid. */
#ifndef CB_P2P_H
#define CB_P2P_H

#include "cb_types.h"

/* c->p2p_src/p2p_dst from the grid alone (row-major ranks, as MPI's
 * Cartesian ranks without reordering) and c->plain; -1 on an MPI error. */
int setup_p2p(nbhctx *c, MPI_Comm world);
/* p2p, p2p-p and floor (cb_types.h's cb_p2p_ops). */
extern const cb_p2p_ops cb_p2p_runner;

#endif

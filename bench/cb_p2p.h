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
/* The messages of a p2p or floor variant v for case k; persistent ones
 * initialised.  NULL (and *rc an MPI error) on failure. */
p2p_plan *p2p_create(const kase *k, const nbhctx *c, const variant *v, int *rc);
/* One operation: p2p into k->rbuf (the cartcoll layout), floor into its
 * packed receive buffer. */
int p2p_run(p2p_plan *p, const kase *k);
/* floor only: the packed receive buffer into k->rbuf's blocks (untimed,
 * for the check). */
void floor_unpack(const p2p_plan *p, const kase *k);
/* floor only: SENTINEL into the packed receive buffer (before a checked
 * call, so that bytes that never arrived show). */
void p2p_clear(p2p_plan *p);
void p2p_free(p2p_plan *p);
/* Whether variant v (p2p, floor) can run collective op. */
int p2p_supports(const variant *v, int op);

#endif

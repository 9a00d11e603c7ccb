/* Automatic choice: the alpha-beta cost model, its calibration, and which
 * algorithm/executor an operation uses.  Every input of a choice is the same
 * on all processes (agreed alpha and beta, the schedules of the reduced
 * neighbourhood, block sizes that the API requires to be equal), so every
 * process makes the same choice without communication. */
#ifndef CC_CHOOSE_H
#define CC_CHOOSE_H

#include <mpi.h>

#include "base/model.h" /* the model's parameters: cc_model_local ... */
#include "bind/binding.h"
#include "topo/comm.h"

/* Collective over priv: measure with a few exchanges
 * between pairs of processes -- one message (alpha: the latency of a
 * phase), a burst of concurrent messages (the overhead of each further
 * message in a phase), a large message (beta) -- for what *m (this
 * process's cc_model_local) does not know yet, then agree on every
 * parameter (maximum over processes). */
int cc_model_agree(MPI_Comm priv, cc_cost_params *m);
/* (When no process needs a measurement, Cart_neighborhood_create agrees on
 * the values within its argument check instead, saving a collective.) */

/* Modelled time of schedule s when receive block i weighs recv[i].bytes:
 * phases*alpha + rounds*overhead + bytes moved*beta plus a small per-block
 * handling cost.  Rounds of one phase overlap, phases do not; with
 * overhead = alpha this is seed 002's C*alpha + V*m*beta. */
double cc_model_cost(const cc_nbh *n, const cc_schedule *s, const cc_blk *recv);

/* An allreduce on a Cartesian neighbourhood: *onway = the algorithm of a
 * schedule that reduces on the way (CC_COMBINING, CC_TORUS), or 0 when it
 * gathers and reduces at the end (the allgather's choice then applies).
 * On the way needs a commutative operation and a box-shaped neighbourhood
 * (sched/schedule.h); DIRECT asked for means gathering, CC_AUTO compares
 * the model's costs of reducing on the way and of one message per
 * neighbour, for `bytes` per block.  Returns CC_OK or a CC_E* status. */
int cc_choose_allreduce(cc_nbh *n, MPI_Op op, double bytes, cc_choice want, int *onway);

/* A rooted collective with neighbourhood meaning (choose_rooted.c):
 * cc_rooted_base is the collective whose schedules it rides on (the
 * alltoall's for scatter, the allgather's for bcast, gather, reduce);
 * cc_rooted_tree sets *tree to that schedule's algorithm for call a under
 * `want`, or 0 for one message per edge (the same decision on every
 * process).  Local: MPI_SUCCESS or an error code (not raised). */
int cc_rooted_base(int collective);
int cc_rooted_tree(const char *who, const cc_call *a, cc_nbh *n, cc_choice want, int *tree);

#define CC_MAX_CANDIDATES 5
typedef struct cc_candidates {
    int n;
    cc_choice c[CC_MAX_CANDIDATES];  /* best modelled first */
} cc_candidates;

/* What to run for `collective` with receive blocks recv[0..t) given the
 * requested choice (CC_AUTO parts are decided).  Non-persistent operations get one candidate; persistent ones
 * with something left to auto get every candidate the model does not rule
 * out, to be timed.  The executor, when auto, is the zero-copy datatype
 * executor for plans that are reused (`reused`: persistent, or cached
 * because all datatypes are predefined) and the pack executor for plans made
 * for a single call, which would otherwise pay for derived datatypes each
 * time; except a reused DIRECT alltoall whose messages combine several
 * blocks of at most 2 KiB on average (a small grid): pack, whose few
 * memcpy and contiguous message cost less there than a derived datatype.
 * Returns CC_OK or a CC_E* status. */
int cc_choose(cc_nbh *n, int collective, const cc_blk *recv, cc_choice want, int persistent, int reused,
              cc_candidates *out);

#endif

/* Per-edge (DIRECT) plans from a process's neighbour lists: the MPI
 * standard's neighbourhood meaning, one message per edge, all in one phase.
 * Pure C, no MPI.
 *
 * Serves every collective on graphs that are not Cartesian (allgather,
 * alltoall), and the collectives of seed 000 (barrier, bcast, gather,
 * scatter, reduce, allreduce) on every communicator with a neighbourhood,
 * Cartesian ones included (their lists: dst[i] = R + N[i], src[j] = R - N[j]).
 * Meanings, with in-neighbours src[j] and out-neighbours dst[i] (CC_NONE:
 * no neighbour, nothing moves):
 *   allgather  SEND 0 to every dst[i]; RECV j from src[j]
 *   alltoall   SEND i to dst[i]; RECV j from src[j]
 *   barrier    an empty message along every edge, all received into the one
 *              (empty) receive block 0 (the one slot written several times
 *              in a phase, harmless as it holds no data)
 *   bcast      the root sends SEND 0 once to each distinct dst[i] other than
 *              itself; a process that has the root among its sources
 *              receives RECV 0 once
 *   gather     SEND 0 to the root once per edge to it; the root receives
 *              RECV j from every src[j]
 *   scatter    the root sends SEND i to dst[i] for the last i of each
 *              distinct destination (repeated edges deliver one block into
 *              one buffer: the last edge's); a process that has the root
 *              among its sources receives RECV 0 once
 *   reduce     SEND 0 to the root once per edge to it; the root receives
 *              from every src[j] into a temporary and reduces them in
 *              neighbour order into RECV 0 (a root without sources gets
 *              no reduction: RECV 0 stays untouched)
 *   allreduce  every process is a root
 * `in_place` (the root's MPI_IN_PLACE): gather and scatter leave out the
 * root's messages to itself (its blocks stay where they are).
 *
 * Repeated edges are correct because MPI matches the messages between two
 * processes in the order they were posted: the k-th send to v meets v's
 * k-th receive from this process, the standard's rule for neighbourhood
 * collectives.  Messages to the process itself go through MPI too. */
#ifndef CC_SCHEDULE_EDGES_H
#define CC_SCHEDULE_EDGES_H

#include "sched/localize.h"
#include "sched/schedule.h"

typedef struct cc_edges {
    int me;                /* this process's rank */
    int indeg, outdeg;
    const int *src, *dst;  /* ranks in the caller's block order, CC_NONE: none */
} cc_edges;

/* The schedule shell (what the binding needs: t = indeg, the temporaries of
 * a reduction, like receive block 0) and the local plan of `collective`
 * (CC_ALLGATHER ... CC_BARRIER) with root `root` (ignored where there is
 * none).  O(indeg + outdeg log outdeg).  Returns CC_OK or CC_ENOMEM; on
 * failure *s and *l are NULL. */
int cc_schedule_edges(int collective, const cc_edges *e, int root, int in_place, cc_schedule **s, cc_local **l);

#endif

/* The DIRECT plan of a neighbourhood given as a graph (distributed-graph
 * communicators that are not Cartesian): one message per edge, all in one
 * phase.  Pure C, no MPI.
 *
 * Round i sends send block i (allgather: the one send block) to dst[i] and
 * receives receive block i from src[i]; CC_NONE on either side means no
 * message.  Repeated edges stay correct because MPI matches messages
 * between two processes in the order they were posted: the k-th send to v
 * meets v's k-th receive from this process, the MPI standard's rule for
 * neighbourhood collectives. */
#ifndef CC_SCHEDULE_GRAPH_H
#define CC_SCHEDULE_GRAPH_H

#include "sched/localize.h"
#include "sched/schedule.h"

/* The schedule (what the binding needs of it: no temporaries, t = indeg)
 * and the local plan.  Returns CC_OK or CC_ENOMEM. */
int cc_schedule_graph(int collective, int indeg, const int src[], int outdeg, const int dst[], cc_schedule **s,
                      cc_local **l);

#endif

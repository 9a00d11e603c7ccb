/* The neighbourhood cached on a communicator.
 *
 * cc_nbh is what Cart_neighborhood_create computed: the grid, the offsets as
 * given and as reduced for the grid, weights, defaults, the agreed cost model
 * and this process's position.  It is immutable except for the schedules and
 * local plans built lazily under its lock, and it is shared (reference
 * counted) by duplicates of the communicator (topo/comm.h). */
#ifndef CC_NBH_H
#define CC_NBH_H

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>

#include "geom/geometry.h"
#include "sched/localize.h"
#include "base/options.h"
#include "sched/schedule.h"
#include "sched/schedule_cost.h"
#include "sched/schedule_edges.h"
#include "util/list.h"

typedef struct cc_nbh {
    atomic_int refs;
    int d, t;
    int *dims, *periods;
    cc_grid grid;
    int rank;                 /* in the grid */
    int *coords;              /* d */
    int *offsets;             /* t*d offsets as given */
    int *reduced;             /* t*d offsets reduced for the grid (what schedules route) */
    unsigned char *unreachable; /* t: offset i never reaches a process (mesh) */
    int *weights;             /* t, or NULL: unweighted */
    /* A graph that is not Cartesian (graph = 1; d = 0, t = indeg): the
     * neighbours' ranks in the graph's order, CC_NONE for MPI_PROC_NULL. */
    int graph, indeg, outdeg; /* also set on detected graphs (their degrees, which
                               * are less than t at the border of a mesh) */
    int *srcs, *dsts;
    int detected;             /* a graph found Cartesian (Cart_dist_graph_create*): blocks per edge */
    int ragged;               /* MPI's meaning (detected graphs, MPI_Cart_create communicators): block
                               * sizes may differ from edge to edge, so v and w calls run DIRECT */
    int *sperm;               /* t, or NULL (identity): the send block of offset i is the caller's
                               * block sperm[i] (detected graphs) */
    int *rperm;               /* t, or NULL (identity): the receive block of offset i is the caller's
                               * block rperm[i] (MPI_Cart_create communicators, detected graphs) */
    cc_choice defaults;       /* from create's info / the environment */
    cc_cost_params model;     /* the agreed cost model (sched/schedule_cost.h) */
    pthread_mutex_t lock;     /* guards the lazily built tables below */
    cc_schedule *sched[3][4]; /* [collective][algorithm], on reduced offsets; row 0: the
                               * allreduce that reduces on the way, on the offsets as given */
    cc_local *local[3][4];
    cc_sched_counts counts[3][4]; /* what the model reads of a schedule not built (cc_nbh_counts) */
    unsigned char counted[3][4];
    cc_list dups;             /* of cc_comm.dup_link: duplicates whose private MPI_Comm_idup is pending */
    int *esrc, *edst;         /* Cartesian: the neighbours' ranks in the caller's block order
                               * (cc_nbh_edges), built on first use under the lock */
} cc_nbh;

/* Allocate a neighbourhood for the given (already validated) arguments:
 * copies everything, reduces the offsets for the grid.  NULL if out of
 * memory.  rank/coords are set later (cc_nbh_place). */
cc_nbh *cc_nbh_new(int d, const int dims[], const int periods[], int t, const int targets[],
                   const int weights[]);
void cc_nbh_place(cc_nbh *n, int rank);
/* A graph neighbourhood (copies the lists; MPI_PROC_NULL becomes CC_NONE).
 * NULL if out of memory. */
cc_nbh *cc_nbh_new_graph(int indeg, const int src[], int outdeg, const int dst[]);
void cc_nbh_release(cc_nbh *n);

/* Schedule / local plan of (collective, algorithm), built on first use (a
 * graph has only DIRECT, whatever the algorithm asked for).
 * Return CC_OK, CC_ENOMEM or CC_ETOOBIG. */
int cc_nbh_schedule(cc_nbh *n, int collective, int algorithm, const cc_schedule **out);
int cc_nbh_local(cc_nbh *n, int collective, int algorithm, const cc_local **out);

/* The counts of schedule (collective, algorithm) (DIRECT or COMBINING
 * allgather/alltoall): from the schedule where it is built, else computed
 * without building it (cc_schedule_counts) and kept.  Returns CC_OK,
 * CC_ENOMEM or CC_ETOOBIG (not countable: build it). */
int cc_nbh_counts(cc_nbh *n, int collective, int algorithm, cc_sched_counts *out);

/* How many send (receive) blocks the caller's arguments have: the graph's
 * out- (in-)degree on graphs, detected or not, else t. */
static inline int cc_nbh_nsendblocks(const cc_nbh *n) { return n->graph || n->detected ? n->outdeg : n->t; }
static inline int cc_nbh_nrecvblocks(const cc_nbh *n) { return n->graph || n->detected ? n->indeg : n->t; }

/* This process's neighbour lists in the caller's block order (graphs: as
 * the graph gives them; Cartesian: dst[i] = R + N[i], src[j] = R - N[j],
 * through the permutations of MPI_Cart_create communicators and detected
 * graphs), for the per-edge plans.  Returns CC_OK or CC_ENOMEM. */
int cc_nbh_edges(cc_nbh *n, cc_edges *e);

/* The neighbour set of the reduced offsets (what executions route). */
cc_nset cc_nbh_nset(const cc_nbh *n);

#endif

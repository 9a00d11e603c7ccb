/* The neighbourhood cached on a communicator.
 *
 * cc_nbh is what Cart_neighborhood_create computed: the grid, the offsets as
 * given and as reduced for the grid, weights, defaults, the agreed cost model
 * and this process's position.  It is immutable except for the schedules and
 * local plans built lazily under its lock, and it is shared (reference
 * counted) by duplicates of the communicator.
 *
 * cc_comm is the per-communicator state kept as an MPI attribute: the private
 * duplicate the library's messages travel on (created lazily for duplicates
 * of the user's communicator), and the operation counter that gives every
 * operation its own tag.  Requests hold references, so MPI_Comm_free of the
 * user's communicator does not pull the private one from under an active
 * persistent request. */
#ifndef CC_NBH_H
#define CC_NBH_H

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>

#include "geometry.h"
#include "localize.h"
#include "options.h"
#include "schedule.h"

typedef struct cc_nbh {
    atomic_int refs;
    int d, t;
    int *dims, *periods;
    cc_grid grid;
    int rank;                 /* in the grid */
    int *coords;              /* d */
    int *raw;                 /* t*d offsets as given */
    int *red;                 /* t*d offsets reduced for the grid */
    unsigned char *dead;      /* t: never reaches a process (mesh) */
    int *weights;             /* t, or NULL: unweighted */
    cc_choice defaults;       /* from create's info / the environment */
    double alpha, beta;       /* agreed latency of a phase [s] and time per byte [s] */
    double overhead;          /* agreed cost of each further message in a phase [s] */
    pthread_mutex_t lock;     /* guards the lazily built tables below */
    cc_schedule *sched[3][4]; /* [collective][algorithm], on reduced offsets */
    cc_local *local[3][4];
} cc_nbh;

struct cc_plancache;

typedef struct cc_comm {
    atomic_int refs;
    cc_nbh *nbh;
    MPI_Comm priv;            /* MPI_COMM_NULL until first needed (duplicates) */
    unsigned long seq;        /* operations so far: tags */
    int tag_ub;
    pthread_mutex_t lock;     /* guards the creation of `cache` */
    struct cc_plancache *cache; /* plans of recent blocking/non-blocking calls */
} cc_comm;

/* Allocate a neighbourhood for the given (already validated) arguments:
 * copies everything, reduces the offsets for the grid.  NULL if out of
 * memory.  rank/coords are set later (cc_nbh_place). */
cc_nbh *cc_nbh_new(int d, const int dims[], const int periods[], int t, const int targets[],
                   const int weights[]);
void cc_nbh_place(cc_nbh *n, int rank);
void cc_nbh_release(cc_nbh *n);

/* Attach a new cc_comm for `nbh` (taking over one reference) and the private
 * communicator `priv` to `cart`.  Returns an MPI error code. */
int cc_comm_attach(MPI_Comm cart, cc_nbh *nbh, MPI_Comm priv);

/* The cc_comm of a communicator.  Returns MPI_SUCCESS, or an error code
 * (not raised) of class MPI_ERR_COMM (null, inter-communicator) or
 * MPI_ERR_TOPOLOGY (no neighbourhood).  `who` names the caller. */
int cc_comm_get(MPI_Comm comm, cc_comm **out, const char *who);
void cc_comm_retain(cc_comm *c);
void cc_comm_release(cc_comm *c);

/* The private communicator of c, duplicating `user` the first time (a
 * collective call: only from collective operations). */
int cc_comm_private(cc_comm *c, MPI_Comm user, MPI_Comm *priv);

/* A tag for a new operation (collective: same value on every process). */
int cc_comm_tag(cc_comm *c);

/* Schedule / local plan of (collective, algorithm), built on first use.
 * Return CC_OK, CC_ENOMEM or CC_ETOOBIG. */
int cc_nbh_schedule(cc_nbh *n, int collective, int algorithm, const cc_schedule **out);
int cc_nbh_local(cc_nbh *n, int collective, int algorithm, const cc_local **out);

/* The neighbour set of the reduced offsets (what executions route). */
cc_nset cc_nbh_nset(const cc_nbh *n);

#endif

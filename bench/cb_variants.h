/* cartbench: the collectives, algorithms, executors, forms and
 * communicator kinds, and the variants made from them (cb_variants.c). */
#ifndef CB_VARIANTS_H
#define CB_VARIANTS_H

#include <mpi.h>

/* NOPS neighbourhood collectives (--ops); OP_NALLREDUCE is the
 * neighbourhood Cart_allreduce (sum of doubles; baseline:
 * MPI_Neighbor_allgather and a local sum, what users write today);
 * OP_NBCAST ... OP_NREDUCE the rooted ones with neighbourhood meaning, root
 * 0 (baseline: one message per neighbour by point-to-point, cb_rooted.c);
 * OP_ALLREDUCE the global Cart_allreduce of --global-allreduce, never in
 * --ops. */
enum { OP_ALLGATHER, OP_ALLGATHERV, OP_ALLGATHERW, OP_ALLTOALL, OP_ALLTOALLV, OP_ALLTOALLW, OP_NALLREDUCE,
       OP_NBCAST, OP_NGATHER, OP_NSCATTER, OP_NREDUCE, NOPS, OP_ALLREDUCE = NOPS, NOPS_ALL };
static inline int op_reduces(int op) { return op == OP_ALLREDUCE || op == OP_NALLREDUCE; }
static inline int op_rooted(int op) { return op >= OP_NBCAST && op <= OP_NREDUCE; }
extern const char *const op_name[NOPS_ALL];
/* The MPI collective each one is compared with (allgatherw: alltoallw with
 * every send block at displacement 0, since MPI has no allgatherw). */
extern const char *const op_mpi[NOPS_ALL];
static inline int op_is_alltoall(int op) { return op >= OP_ALLTOALL && op <= OP_ALLTOALLW; }
static inline int op_is_regular(int op) { return op == OP_ALLGATHER || op == OP_ALLTOALL; }

enum { ALG_AUTO, ALG_DIRECT, ALG_COMBINING, ALG_TORUS, NALG };
extern const char *const alg_name[NALG];
extern const int alg_const[NALG]; /* CART_ALGORITHM_* */
enum { EX_AUTO, EX_DATATYPE, EX_PACK, NEX };
extern const char *const ex_name[NEX];
enum { F_BLOCKING, F_NONBLOCKING, F_PERSISTENT, NFORMS };
extern const char *const form_name[NFORMS];
extern const char *const form_tag[NFORMS]; /* "", "-i", "-p": part of a variant's name */

#if MPI_VERSION >= 4
#define HAVE_MPI_PERSISTENT_NEIGHBOR 1
#else
#define HAVE_MPI_PERSISTENT_NEIGHBOR 0
#endif

/* The communicators the cartcoll variants run on (--comm, a list;
 * --global-allreduce: COMM_PLAIN).  The MPI baseline always runs on MPI's
 * own communicator. */
enum { COMM_NBH, COMM_MPICART, COMM_GRAPH, COMM_PLAIN, NCOMM };
extern const char *const comm_name[NCOMM]; /* nbh, mpicart, graph, plain */

/* Whether this MPI has MPI_Dist_graph_create_adjacent (SimGrid SMPI has
 * not: bench/CMakeLists.txt sets 0 there); without it the mpi variants of
 * the neighbourhood collectives cannot run and the default baseline is
 * p2p. */
#ifndef HAVE_MPI_DIST_GRAPH
#define HAVE_MPI_DIST_GRAPH 1
#endif

/* What runs a variant: MPI's neighbourhood collectives, point-to-point by
 * cartbench itself (p2p: a message per neighbour; floor: one message per
 * distinct peer, cb_p2p.c), or cartcoll. */
enum { VK_CART, VK_MPI, VK_P2P, VK_FLOOR, NVK };
extern const char *const kind_name[NVK]; /* cart, mpi, p2p, floor */

/* One way of running a collective: the MPI baseline in a form, p2p in a
 * form, the floor, or cartcoll in a form with an algorithm and an
 * executor.  mpi is set for every variant that is not cartcoll's (it runs
 * once per case, not per --comm, on cartbench's own communicators). */
typedef struct {
    int mpi, form, alg, ex, kind;
    char name[48]; /* mpi-i, p2p-p, floor, cart-p-torus-pack, ... */
} variant;

#define MAXVAR (3 + 2 + 1 + NFORMS * NALG * NEX)
/* What a case times: each selected MPI variant once (on MPI's graph), each
 * selected cartcoll variant once per --comm communicator. */
typedef struct {
    int var;  /* index into allvar */
    int comm; /* COMM_*: where a cartcoll variant runs (MPI: the first --comm) */
} run_sel;
#define MAXRUN (MAXVAR * NCOMM)
/* Every variant this MPI can run, in --list-variants order (blocking MPI
 * first: the baseline).  Filled once by make_variants, read-only after. */
extern variant allvar[MAXVAR];
extern int nallvar;

/* Fill allvar (mpi-p only with MPI >= 4): mpi, p2p, p2p-p, floor, cart... */
void make_variants(void);
/* A variant name with explicit parts (cart-b-auto-pack, mpi-b) -> its index
 * in allvar; -1 if it names none. */
int canonical_variant(const char *s);
/* Whether a variant can run with cartcoll on communicator kind comm: on
 * communicators cartcoll did not make, the algorithm and executor of a
 * blocking or non-blocking call cannot be chosen (they come from the
 * environment), only through a persistent call's info; on COMM_PLAIN
 * (MPI's own collective) never. */
int variant_allowed(const variant *v, int comm);

#endif

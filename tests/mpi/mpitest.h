/* Shared helpers of the MPI tests: failure reporting, a seeded RNG, an
 * independent oracle for Cartesian rank arithmetic, info objects and an
 * error handler that records what it was called with.
 *
 * The oracle here is written from the MPI standard (row-major ranks, as
 * MPI_Cart_create) and from cartcoll.h, never from the library's sources. */
#ifndef CC_MPITEST_H
#define CC_MPITEST_H

#include <cartcoll.h>
#include <mpi.h>

#include <stdint.h>

extern int mt_rank, mt_size; /* in MPI_COMM_WORLD */
extern long mt_failures, mt_checks;
extern const char *mt_name; /* program name for messages */

/* MPI_Init, remember the name, line-buffer output. */
void mt_init(int *argc, char ***argv, const char *name);
/* Sum failures over MPI_COMM_WORLD, print one verdict line on rank 0,
 * MPI_Finalize, and return the exit status (0 pass, 1 fail). */
int mt_finish(void);

void mt_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define MT_CHECK(cond, ...)                                  \
    do {                                                     \
        mt_checks++;                                         \
        if (!(cond)) mt_fail(__FILE__, __LINE__, __VA_ARGS__); \
    } while (0)
/* Equality of two integers with both values in the message. */
#define MT_EQ(a, b, what)                                                                           \
    do {                                                                                            \
        long long a_ = (long long)(a), b_ = (long long)(b);                                         \
        MT_CHECK(a_ == b_, "%s: %s = %lld, expected %s = %lld", (what), #a, a_, #b, b_);            \
    } while (0)

/* Deterministic RNG (splitmix64): all processes seeded alike draw alike. */
typedef struct {
    uint64_t s;
} mt_rng;
void mt_seed(mt_rng *r, uint64_t seed, uint64_t stream);
uint64_t mt_next(mt_rng *r);
int mt_uniform(mt_rng *r, int lo, int hi); /* inclusive */
int mt_chance(mt_rng *r, int percent);

/* Row-major Cartesian arithmetic (MPI_Cart_create's rank order). */
void mt_coords(int rank, int d, const int dims[], int coords[]);
int mt_rank_of(int d, const int dims[], const int coords[]);
/* Rank of coords(rank) + sign*vec: wraps on periodic dimensions, and is
 * MPI_PROC_NULL when it leaves a non-periodic one. */
int mt_shift(int rank, int d, const int dims[], const int periods[], const int vec[], int sign);

/* Algorithm / executor names as the info keys spell them. */
extern const char *const mt_alg_name[4];  /* auto direct combining torus */
extern const char *const mt_exec_name[3]; /* auto datatype pack */
/* An info with cartcoll_algorithm/cartcoll_executor set (NULL: key left
 * out).  Free with mt_info_free (accepts MPI_INFO_NULL). */
MPI_Info mt_info(const char *alg, const char *exec);
void mt_info_free(MPI_Info *info);

/* Error handler that records its calls instead of aborting. */
typedef struct {
    int calls;
    int code;
    MPI_Comm comm; /* the communicator it was invoked on */
} mt_errlog;
extern mt_errlog mt_err;
extern MPI_Errhandler mt_errhandler;
/* Create mt_errhandler and install it on MPI_COMM_WORLD and MPI_COMM_SELF. */
void mt_install_errhandler(void);
void mt_err_reset(void);
/* Does this MPI return a string added with MPI_Add_error_string for a code
 * made with MPI_Add_error_code(MPI_ERR_ARG)?  (MPICH 4.0.2 does not.) */
int mt_error_strings_work(void);
int mt_error_class(int code);

/* Wall clock of rank 0's view (MPI_Wtime). */
double mt_now(void);

/* Added for test_typemaps (shared helpers; nothing above changed). */

/* As mt_finish, then a closing line "NAME: N passed, M failed" on rank 0
 * (N and M counted by the caller, already totalled on rank 0).  Fails also
 * when failed > 0. */
int mt_finish_tally(long passed, long failed);

/* A distributed graph with the neighbourhood of `cart` as Cart_neighbor_get
 * gives it, MPI_PROC_NULL entries dropped, for MPI's own neighbourhood
 * collectives as an oracle (blocks in neighbour order, off-mesh blocks left
 * out).  Collective over cart. */
int mt_neighbor_graph(MPI_Comm cart, MPI_Comm *graph);

/* Whether MPI_Neighbor_alltoallw on mt_neighbor_graph(cart) can serve as an
 * oracle.  MPICH 4.0.2 delivers repeated edges between one pair of
 * processes in the wrong order and hangs when in- and out-degree differ;
 * there this is true only where every process of cart has distinct in- and
 * distinct out-neighbours, equally many.  Collective over cart (on other
 * MPIs: 1 without communication). */
int mt_neighbor_graph_usable(MPI_Comm cart);

/* The 18 collective entry points by number: coll 0..5 = allgather,
 * allgatherv, allgatherw, alltoall, alltoallv, alltoallw; mode 0..2 =
 * blocking, non-blocking, persistent (info and req used where they apply). */
typedef struct mt_call {
    const void *sb;
    void *rb;
    int sc, rc;                        /* regular counts (allgather: sc always) */
    MPI_Datatype st, rt;               /* regular and v types (allgather: st always) */
    const int *scounts, *sdispls, *rcounts, *rdispls;
    const MPI_Aint *sdispw, *rdispw;
    const MPI_Datatype *stypes, *rtypes;
} mt_call;
int mt_collective(int mode, int coll, const mt_call *c, MPI_Comm cart, MPI_Info info, Cart_request *req);

#endif

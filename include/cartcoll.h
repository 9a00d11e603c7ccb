/*
 * cartcoll: Cartesian collective communication on top of MPI.
 *
 * Every process of a d-dimensional torus or mesh talks to the same relative
 * neighbourhood (a list of t offset vectors).  Because all neighbourhoods are
 * identical, each process computes a message-combining schedule locally and
 * the six neighbourhood collectives below run in about sum_k C_k combined
 * rounds instead of t messages (see docs/references.md for the papers).
 *
 * Conventions (as in MPI):
 *  - Every function returns MPI_SUCCESS or an MPI error code.  Use
 *    MPI_Error_class() to get the class (MPI_ERR_ARG, MPI_ERR_COUNT, ...) and
 *    MPI_Error_string() for a sentence saying what was wrong (on MPICH,
 *    whose own MPI_Error_string cannot show strings added to codes of
 *    predefined classes, libcartcoll defines MPI_Error_string through the
 *    profiling interface: its own codes give the sentence, every other code
 *    MPICH's text).  Before
 *    returning an error, the error handler of the communicator the call was
 *    given is invoked (requests: the communicator they were created on;
 *    calls without a communicator: MPI_COMM_SELF), so the default
 *    MPI_ERRORS_ARE_FATAL aborts with that sentence and MPI_ERRORS_RETURN
 *    returns the code.
 *  - A failed call leaves its output arguments and all library state
 *    unchanged; a failed blocking or non-blocking collective consumes
 *    nothing, so processes that failed differently (and handled their
 *    errors) stay in step for the next call.  Cart_neighborhood_create and
 *    the persistent *_init calls agree on errors: if any process fails, every
 *    process fails and none is left waiting.  The blocking and non-blocking
 *    collectives check their arguments locally, as MPI does (agreeing would
 *    cost a reduction per call): when only some processes pass invalid
 *    arguments, the others may wait for them, so keep the default
 *    MPI_ERRORS_ARE_FATAL unless every process checks and handles the
 *    returned codes.
 *  - Errors about a request go to the error handler of the communicator it
 *    was made on; if that communicator was freed meanwhile (allowed: the
 *    request keeps what it needs), to the handler it had when it was freed
 *    (a user-defined handler then receives a library-internal communicator).
 *  - Library messages travel on a private duplicate of the communicator and
 *    never match user messages.
 *  - Thread safety: with MPI_THREAD_MULTIPLE, different threads may call
 *    cartcoll concurrently on different communicators and different requests.
 *    As in MPI, collective calls on one communicator must be issued in the
 *    same order on every process, and one request must not be completed by
 *    two threads at once.  MPI_Comm_dup / MPI_Comm_idup of a cartcoll
 *    communicator must not run while another thread makes the first
 *    cartcoll call on an earlier duplicate of the same communicator (both
 *    complete that duplicate's private MPI_Comm_idup).
 *  - Progress: as in MPI, an operation advances inside cartcoll calls -- any
 *    Cart_wait/Cart_test/blocking collective also advances the caller's
 *    other active operations.  Multi-phase schedules forward blocks for other
 *    processes, so a process that blocks in plain MPI (MPI_Recv, MPI_Barrier)
 *    while its cartcoll operations are pending can stall processes that wait
 *    for those blocks, where MPI_Ineighbor_* would progress inside MPI.  For
 *    such programs enable asynchronous progress: CARTCOLL_ASYNC_PROGRESS=1
 *    or the info key cartcoll_async_progress=true (Cart_neighborhood_create
 *    or *_init) starts one progress thread per process (stopped in
 *    MPI_Finalize).  It needs MPI_Init_thread with MPI_THREAD_MULTIPLE;
 *    otherwise a warning is printed and progress stays inside cartcoll
 *    calls.
 *  - Memory per process is O(t*d) for t neighbours in d dimensions (the
 *    TORUS algorithm: O(sum_i |N_i|_1)); nothing grows with the number of
 *    processes.
 *
 * Algorithm and executor choice (info keys of Cart_neighborhood_create and of
 * every *_init call, environment variables as defaults):
 *    cartcoll_algorithm = auto | direct | combining | torus  (CARTCOLL_ALGORITHM)
 *    cartcoll_executor  = auto | datatype | pack             (CARTCOLL_EXECUTOR)
 *    cartcoll_async_progress = true | false                  (CARTCOLL_ASYNC_PROGRESS)
 * The *_init info overrides the communicator's, which overrides the
 * environment.  Unknown values are an MPI_ERR_ARG error.  The values must
 * be the same on every process: Cart_neighborhood_create and the *_init
 * calls check this and fail on every process (MPI_ERR_ARG) when they
 * differ.  See the "Automatic
 * choice" section at the end of this file for what `auto` does.
 */
#ifndef CARTCOLL_H
#define CARTCOLL_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CARTCOLL_VERSION_MAJOR 0
#define CARTCOLL_VERSION_MINOR 3
#define CARTCOLL_VERSION_PATCH 0

#define CART_ALGORITHM_AUTO      0  /* library chooses */
#define CART_ALGORITHM_DIRECT    1  /* one exchange per non-zero neighbor [Traff & Hunold 2019, Listing 4] */
#define CART_ALGORITHM_COMBINING 2  /* d phases, sum_k C_k rounds, direct along dimensions [Traff & Hunold 2019, Sec. 3] */
#define CART_ALGORITHM_TORUS     3  /* d phases, hop by hop between torus neighbours, D rounds [Traff et al. 2016, Sec. 3] */

#define CART_ALLGATHER 1
#define CART_ALLTOALL  2
#define CART_BCAST     3            /* [ortho] collective codes for Cart_schedule_stats */
#define CART_GATHER    4
#define CART_SCATTER   5
#define CART_REDUCE    6
#define CART_ALLREDUCE 7

#define CART_MANHATTAN 1            /* von Neumann neighbourhoods: sum |n_k| */
#define CART_CHEBYSHEV 2            /* Moore neighbourhoods: max |n_k| */

#define CART_ROW_MAJOR 1            /* [ortho] */
#define CART_COL_MAJOR 2            /* [ortho] */

typedef struct cart_request_s *Cart_request;
#define CART_REQUEST_NULL ((Cart_request)0)

/* ------------------------------------------------------------------------
 * Neighbourhoods
 * ------------------------------------------------------------------------ */

/*
 * Cart_neighborhood_create - make a communicator with a Cartesian
 * neighbourhood attached.
 *
 * Collective over `comm`.  The processes are laid out row-major on the
 * d-dimensional grid `dims` (periodic where periods[k] is non-zero), exactly
 * as MPI_Cart_create does: the new communicator has an MPI Cartesian topology,
 * so MPI_Cart_coords and friends work on it, and processes beyond
 * prod(dims) get MPI_COMM_NULL.  `targets` holds t relative offset vectors,
 * flattened (t*d ints, vector i at targets[i*d .. i*d+d-1]); any integers are
 * allowed, as are repeats and the zero vector, and offsets larger than the
 * grid wrap around periodic dimensions.  Process R sends its i-th block to
 * R + N[i] and receives its i-th block from R - N[i]; on a non-periodic
 * dimension a neighbour off the mesh is MPI_PROC_NULL (nothing is sent and
 * the receive block is left untouched).
 *
 * `weights` is MPI_UNWEIGHTED or t non-negative ints (MPI_WEIGHTS_EMPTY is
 * accepted when t == 0); they are stored and returned by the query functions.
 * `reorder` is passed to MPI_Cart_create.  `info` may be MPI_INFO_NULL; the
 * keys cartcoll_algorithm and cartcoll_executor set this communicator's
 * defaults.
 *
 * Every process must pass the same d, dims, periods, t and targets (in the
 * same order).  The call checks this with two small reductions; where the
 * arguments differ, or any process passed an invalid argument, every process
 * fails (MPI_ERR_ARG, or the class of its own local error) with a message
 * saying what differed.  The first call on a process may also time a tiny
 * exchange to calibrate the cost model (see "Automatic choice").
 *
 * Errors: MPI_ERR_COMM (comm is MPI_COMM_NULL or an inter-communicator),
 * MPI_ERR_DIMS (d < 1, a dimension < 1, or prod(dims) larger than comm),
 * MPI_ERR_ARG (t < 0, NULL dims/periods/targets/cartcomm, negative weights,
 * bad info values, processes disagree), MPI_ERR_COUNT (t*d too large),
 * MPI_ERR_NO_MEM.
 *
 * The result is freed with MPI_Comm_free, which releases everything cached.
 * MPI_Comm_dup of the result carries the neighbourhood over.
 */
int Cart_neighborhood_create(MPI_Comm comm, int d, const int dims[], const int periods[],
                             int t, const int targets[], const int weights[],
                             MPI_Info info, int reorder, MPI_Comm *cartcomm);

/* Cart_neighbor_count - the number t of neighbours of a neighbourhood
 * communicator.  Local.  Errors: MPI_ERR_TOPOLOGY (no neighbourhood),
 * MPI_ERR_ARG (t is NULL). */
int Cart_neighbor_count(MPI_Comm cartcomm, int *t);

/* Cart_neighbor_get - the ranks of the calling process's neighbours, in
 * neighbour order: sources[i] = rank of R - N[i], targets[i] = rank of
 * R + N[i], MPI_PROC_NULL off a mesh.  maxin and maxout must be at least t.
 * Either weights argument may be MPI_UNWEIGHTED to skip it; for an
 * unweighted neighbourhood the weights returned are all 1.  The output has
 * the shape MPI_Dist_graph_create_adjacent expects (after removing
 * MPI_PROC_NULL entries on meshes).  Local. */
int Cart_neighbor_get(MPI_Comm cartcomm, int maxin, int sources[], int sourceweights[],
                      int maxout, int targets[], int targetweights[]);

/* Cart_neighborhood_get - the t relative vectors (t*d ints) and weights as
 * given to Cart_neighborhood_create.  maxt must be at least t; weights may be
 * MPI_UNWEIGHTED to skip them (all 1 for an unweighted neighbourhood).
 * Local. */
int Cart_neighborhood_get(MPI_Comm cartcomm, int maxt, int relatives[], int weights[]);

/* Cart_relative_rank - *dest = rank of the process at coordinates
 * coords(rank) + relative, or MPI_PROC_NULL when that is off a mesh.
 * `comm` is any communicator with a Cartesian layout: one made by
 * Cart_neighborhood_create or MPI_Cart_create.  Local.
 * Errors: MPI_ERR_TOPOLOGY, MPI_ERR_RANK (rank not in the grid), MPI_ERR_ARG. */
int Cart_relative_rank(MPI_Comm comm, int rank, const int relative[], int *dest);

/* Cart_relative_coordinates - the offset vector from `rank` to `dest`
 * (d ints): coords(dest) - coords(rank), taking on periodic dimensions the
 * shortest offset (for a tie, the positive one).  Local. */
int Cart_relative_coordinates(MPI_Comm comm, int rank, int dest, int relative[]);

/* Cart_relative_shift - *outrank = rank of coords(rank) + relative,
 * *inrank = rank of coords(rank) - relative (MPI_PROC_NULL off a mesh); the
 * generalisation of MPI_Cart_shift to any offset vector.  Local. */
int Cart_relative_shift(MPI_Comm comm, int rank, const int relative[], int *inrank, int *outrank);

/* Cart_stencil_count - the number of offset vectors in d dimensions whose
 * distance from the origin under `metric` (CART_MANHATTAN or CART_CHEBYSHEV)
 * lies in [shadow, depth].  0 <= shadow <= depth.  Local, no MPI
 * communicator needed (errors go to MPI_COMM_SELF's handler).
 * Errors: MPI_ERR_ARG (bad metric, shadow/depth out of range, count does not
 * fit in an int, count is NULL), MPI_ERR_DIMS (d < 1). */
int Cart_stencil_count(int d, int metric, int shadow, int depth, int *count);

/* Cart_stencil - the offset vectors counted by Cart_stencil_count, written to
 * relatives (count*d ints) in row-major order of the vectors with coordinates
 * from -depth to depth: Cart_stencil(2, CART_CHEBYSHEV, 1, 1, 8, r) gives the
 * 8-neighbour Moore stencil, first (-1,-1), last (1,1).  maxcount must be at
 * least the count.  The result can be passed as `targets` to
 * Cart_neighborhood_create. */
int Cart_stencil(int d, int metric, int shadow, int depth, int maxcount, int relatives[]);

/* Cart_schedule_stats - properties of the schedule of `algorithm` for
 * `collective` (CART_ALLGATHER ... CART_ALLREDUCE) on this neighbourhood:
 * the number of phases (DIRECT: one; COMBINING and TORUS: the dimensions
 * with a non-zero coordinate, worked through one after the other), the
 * rounds (combined messages sent per process per operation; the rounds of a
 * COMBINING phase run concurrently, those of a TORUS phase hop by hop) and
 * the volume (blocks sent per process per operation, counting forwarding).
 * Computed from the neighbourhood alone, as if the grid were large enough
 * that no offset wraps, so they reproduce [Traff & Hunold 2019, Table 1]:
 *   DIRECT     1 phase; one round per distinct non-zero vector; volume: the
 *              non-zero blocks (alltoall) or the rounds (allgather);
 *   COMBINING  one phase per dimension used; sum_k C_k rounds (C_k distinct
 *              non-zero k-th coordinates); volume sum_i z_i (z_i non-zero
 *              coordinates of N[i]) for alltoall, the non-zero edges of the
 *              allgather tree for allgather (the tree's dimension order is
 *              chosen to minimise them);
 *   TORUS      D = sum_k (max positive + max negative k-th coordinate)
 *              rounds, hop by hop; volume sum_i |N_i|_1 for alltoall, the
 *              hops of the shared prefix trie for allgather.
 * CART_ALLREDUCE (neighbourhood meaning): on a box-shaped neighbourhood
 * (see Cart_allreduce) COMBINING and TORUS report the schedule that reduces
 * on the way, one block per round (a radius-1 Moore neighbourhood: 2
 * rounds and 2 blocks per dimension; TORUS: D rounds); DIRECT, and every
 * algorithm elsewhere, the allgather's figures (it gathers, then reduces).
 * These are the figures for commutative operations; non-commutative ones
 * always use the allgather's schedules.  The rooted CART_BCAST ...
 * CART_REDUCE report the ROOT's figures for the trees their regular calls
 * use (bcast, gather and reduce ride on the allgather's schedules, scatter
 * on the alltoall's): its phases, the rounds in which it sends (bcast,
 * scatter) or receives (gather, reduce) and the blocks it sends or
 * receives (each distinct neighbour's block once, scatter each non-zero
 * vector's; a bcast root sends its one block once per round).  DIRECT: one
 * round per distinct non-zero vector.
 * CART_ALGORITHM_AUTO reports the algorithm the library would pick for a
 * block of one int.  Any of the output pointers may be NULL.  Local (the
 * first query of a schedule builds it).  On a small grid execution uses
 * offsets reduced modulo the grid, which can only lower rounds and volume.
 * Errors: MPI_ERR_TOPOLOGY, MPI_ERR_ARG (unknown collective or algorithm),
 * MPI_ERR_COUNT (a figure exceeds an int). */
int Cart_schedule_stats(MPI_Comm cartcomm, int collective, int algorithm,
                        int *phases, int *rounds, int *volume);

/* ------------------------------------------------------------------------
 * Collectives
 *
 * Signatures and buffer conventions are those of the MPI neighbourhood
 * collectives: send and receive buffers hold blocks in neighbour order (block
 * i goes to R + N[i] and comes from R - N[i]).  Allgather sends the same block
 * to all t neighbours.  The v variants take displacements in units of the
 * datatype's extent, the w variants in bytes.  Cart_allgatherw (not in MPI)
 * takes one receive datatype per block.  As for isomorphic collectives
 * [Traff et al. 2016], all processes must give the same block size (type signature) for
 * block i; send block i must match receive block i.  MPI_IN_PLACE is not
 * allowed (as for MPI neighbourhood collectives); send and receive buffer may
 * be the same array as long as the blocks do not overlap (halo exchange).
 * Receive blocks whose source is off a mesh are not touched.  A buffer may
 * be MPI_BOTTOM where its blocks are given by absolute addresses: derived
 * datatypes built on absolute addresses, or the byte displacements of the w
 * variants taken with MPI_Get_address.  Any type map MPI accepts works
 * (negative strides, overlapping send types, resized types); blocks of more
 * than 2 GiB work too.
 *
 * Errors (every variant): MPI_ERR_COMM, MPI_ERR_TOPOLOGY (communicator has no
 * neighbourhood), MPI_ERR_COUNT (negative count), MPI_ERR_TYPE (null or
 * uncommitted datatype), MPI_ERR_BUFFER (NULL buffer with non-empty blocks,
 * MPI_IN_PLACE), MPI_ERR_ARG (NULL count/displacement/type arrays, NULL
 * request pointer, bad info value).
 * ------------------------------------------------------------------------ */

int Cart_allgather (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm cartcomm);
int Cart_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, const int recvcounts[], const int displs[],
                    MPI_Datatype recvtype, MPI_Comm cartcomm);
int Cart_allgatherw(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, const int recvcounts[], const MPI_Aint displs[],
                    const MPI_Datatype recvtypes[], MPI_Comm cartcomm);
int Cart_alltoall  (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm cartcomm);
int Cart_alltoallv (const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm cartcomm);
int Cart_alltoallw (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm cartcomm);

/* Non-blocking variants: start the operation and return a request to be
 * completed with Cart_wait/Cart_test (which free it and set it to
 * CART_REQUEST_NULL).  Buffers, count/displacement/type arrays and datatypes
 * may be reused or freed as soon as the call returns, except the buffers
 * themselves, which must stay untouched (send) and unread (receive) until
 * completion.  Concurrent non-blocking operations on one communicator are
 * allowed and may be completed in any order.  Each operation travels under
 * its own message tag, taken in turn from half of MPI_COMM_WORLD's
 * MPI_TAG_UB (persistent requests use the other half, blocking calls one
 * tag of their own): a non-blocking operation must be completed before that
 * many later non-blocking operations are started on the same communicator
 * (at least 16380; about 10^9 on Open MPI, 1.3*10^8 on MPICH). */
int Cart_iallgather (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm cartcomm,
                     Cart_request *request);
int Cart_iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, const int recvcounts[], const int displs[],
                     MPI_Datatype recvtype, MPI_Comm cartcomm, Cart_request *request);
int Cart_iallgatherw(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, const int recvcounts[], const MPI_Aint displs[],
                     const MPI_Datatype recvtypes[], MPI_Comm cartcomm, Cart_request *request);
int Cart_ialltoall  (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm cartcomm,
                     Cart_request *request);
int Cart_ialltoallv (const void *sendbuf, const int sendcounts[], const int sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                     const int rdispls[], MPI_Datatype recvtype, MPI_Comm cartcomm,
                     Cart_request *request);
int Cart_ialltoallw (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm cartcomm,
                     Cart_request *request);

/* Persistent variants (MPI-4 persistent collectives): collective calls that
 * plan the operation once -- schedule, buffers, derived datatypes, MPI
 * persistent requests -- and return an inactive request.  Each Cart_start
 * (collective, in the same order on all processes) runs the operation on the
 * buffers given here; it allocates no memory and creates no MPI objects.
 * Complete with Cart_wait/Cart_test (the request becomes inactive and can be
 * started again), free with Cart_request_free.  The count/displacement/type
 * arrays may be freed after the call; the datatypes too.  `info` may be
 * MPI_INFO_NULL; its cartcoll_algorithm/cartcoll_executor override the
 * communicator's.  Unlike MPI's non-blocking calls, an *_init call
 * synchronises: the processes agree (one small reduction, during which the
 * caller's other cartcoll operations advance) on success, on the info
 * values, and on a message tag that no live persistent request of any of
 * them uses, so persistent operations never exchange each other's data
 * however many operations run in between.  Errors: as the blocking calls;
 * when another process failed, MPI_ERR_ARG ("another process passed invalid
 * arguments"); MPI_ERR_OTHER when every tag of the communicator's
 * persistent range (half of MPI_TAG_UB) is held by a live request. */
int Cart_allgather_init (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm cartcomm,
                         MPI_Info info, Cart_request *request);
int Cart_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[], const int displs[],
                         MPI_Datatype recvtype, MPI_Comm cartcomm, MPI_Info info,
                         Cart_request *request);
int Cart_allgatherw_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[], const MPI_Aint displs[],
                         const MPI_Datatype recvtypes[], MPI_Comm cartcomm, MPI_Info info,
                         Cart_request *request);
int Cart_alltoall_init  (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm cartcomm,
                         MPI_Info info, Cart_request *request);
int Cart_alltoallv_init (const void *sendbuf, const int sendcounts[], const int sdispls[],
                         MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                         const int rdispls[], MPI_Datatype recvtype, MPI_Comm cartcomm,
                         MPI_Info info, Cart_request *request);
int Cart_alltoallw_init (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                         const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                         const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm cartcomm,
                         MPI_Info info, Cart_request *request);

/* ------------------------------------------------------------------------
 * Requests (MPI request semantics)
 * ------------------------------------------------------------------------ */

/* Cart_start - start an inactive persistent request.  Errors: MPI_ERR_ARG
 * (request pointer NULL), MPI_ERR_REQUEST (CART_REQUEST_NULL, an active
 * request, or a non-persistent one). */
int Cart_start(Cart_request *request);

/* Cart_startall - Cart_start on each of count requests, in order.  All
 * requests are checked first; if any is invalid none is started. */
int Cart_startall(int count, Cart_request requests[]);

/* Cart_wait - complete an operation.  A non-blocking request is freed and set
 * to CART_REQUEST_NULL; a persistent one becomes inactive.  Waiting on
 * CART_REQUEST_NULL or an inactive request returns at once.  While it waits
 * it also advances the caller's other active cartcoll requests, so
 * operations may be completed in any order on different processes. */
int Cart_wait(Cart_request *request);

/* Cart_waitall - complete count requests (entries may be CART_REQUEST_NULL),
 * advancing all of them together.  The same request twice is an error
 * (MPI_ERR_REQUEST; nothing is completed), as for Cart_startall. */
int Cart_waitall(int count, Cart_request requests[]);

/* Cart_test - advance an operation without blocking; *flag becomes true when
 * it completed (then as Cart_wait).  CART_REQUEST_NULL and inactive requests
 * give true at once. */
int Cart_test(Cart_request *request, int *flag);

/* Cart_request_free - free an inactive persistent request or a completed
 * one and set it to CART_REQUEST_NULL.  Errors: MPI_ERR_REQUEST
 * (CART_REQUEST_NULL, or an active request: complete it first, as MPI
 * requires for collective requests; a started request stays active until
 * Cart_wait / Cart_test / Cart_waitall completes it, even where progress
 * has already finished its messages).  A refused free leaves the request
 * as it was, still working. */
int Cart_request_free(Cart_request *request);

/* ------------------------------------------------------------------------
 * [ortho] Naming [Traff et al. 2021, Listings 3-6]
 *
 * A naming says where a process sits in a d-dimensional grid; it is separate
 * from who talks to whom.  Named communicators: those given a naming with
 * Cart_name, those made by MPI_Cart_create (row-major, as MPI lays them out)
 * and those made by Cart_neighborhood_create; a Cart_name naming takes
 * precedence.  Namings are local and cached on the communicator; a
 * Cart_name naming is never inherited by MPI_Comm_dup, MPI_Comm_split or any
 * other constructor (a duplicate of an MPI_Cart_create or
 * Cart_neighborhood_create communicator is named by the Cartesian topology
 * MPI copies to it).  Distributed graphs and inter-communicators are never
 * named.  The [core] relative helpers (Cart_relative_rank,
 * Cart_relative_coordinates, Cart_relative_shift) accept every named
 * communicator too, in its layout, with MPI_PROC_NULL at positions without a
 * process.
 *
 * Errors common to the functions below: MPI_ERR_COMM (MPI_COMM_NULL, or an
 * inter-communicator where a naming is needed), MPI_ERR_TOPOLOGY (comm is
 * not named), MPI_ERR_ARG (a NULL array or output where one is used),
 * MPI_ERR_RANK (a rank without a position: negative, >= the grid's size or
 * >= the communicator's size).  A failed call changes no output and no
 * naming.
 * ------------------------------------------------------------------------ */

/* Attach a naming to comm (local, no new communicator, no reordering): a
 * grid of d >= 1 dimensions of sizes order[k] >= 1, periodic where
 * periods[k], ranks laid out CART_ROW_MAJOR (last coordinate fastest, as
 * MPI_Cart_create) or CART_COL_MAJOR (first fastest).  *size = product of
 * order (at most INT_MAX).  The grid may be larger or smaller than the
 * communicator: positions without a process have rank MPI_PROC_NULL, ranks
 * beyond the grid have no coordinates.  Naming a named communicator
 * replaces the naming (the naming functions then use the new one; an MPI
 * topology or neighbourhood, which decide what collectives mean, stays as
 * it is).  Errors: MPI_ERR_COMM (null or inter-communicator), MPI_ERR_DIMS
 * (d < 1), MPI_ERR_ARG (bad dimorder, a size < 1, order, periods or size
 * NULL, product beyond INT_MAX). */
int Cart_name(MPI_Comm comm, int d, int dimorder, const int order[], const int periods[], int *size);

/* Local query: *flag true when comm is named; then *d and *size give the
 * dimensions and number of grid positions; -1 both when unnamed (also for
 * inter-communicators).  Any output may be NULL.  Errors: MPI_ERR_COMM
 * (MPI_COMM_NULL). */
int Cart_test_name(MPI_Comm comm, int *flag, int *d, int *size);

/* The naming of comm: *dimorder (CART_ROW_MAJOR for MPI_Cart_create and
 * Cart_neighborhood_create communicators), and the first min(d, maxd) sizes
 * and periodicity flags (0 or 1; either array may be NULL when maxd is 0).
 * Errors: MPI_ERR_ARG (maxd < 0, dimorder NULL). */
int Cart_get(MPI_Comm comm, int *dimorder, int maxd, int order[], int periods[]);

/* Rank of the process at coordinates[d]: periodic coordinates wrap (any
 * integer), a coordinate off a non-periodic dimension or a position beyond
 * the communicator gives MPI_PROC_NULL. */
int Cart_rank(MPI_Comm comm, const int coordinates[], int *rank);

/* Coordinates (d ints) of rank; MPI_ERR_RANK when rank has no position in
 * the grid (negative, >= the grid's size or >= the communicator's size). */
int Cart_coordinates(MPI_Comm comm, int rank, int coordinates[]);

/* n >= 0 coordinate vectors (n*d ints) to n ranks at once, as Cart_rank.
 * The arrays may be NULL when n is 0. */
int Cart_allranks(MPI_Comm comm, int n, const int coordinates[], int ranks[]);

/* n >= 0 offset vectors (n*d ints) relative to rank `source` to n ranks:
 * ranks[i] = Cart_rank(coordinates(source) + relatives[i*d..]) (computed
 * without overflow).  MPI_ERR_RANK when source has no position. */
int Cart_allranks_relative(MPI_Comm comm, int source, int n, const int relatives[], int ranks[]);

/* The offset vectors of Cart_stencil(d, metric, shadow, depth), in that
 * order, without those leading from `rank` off a non-periodic dimension
 * (vectors that lead to a position without a process are kept; their rank
 * is MPI_PROC_NULL): Cart_neighbors_count counts them, Cart_neighbors
 * stores them (d ints each) into relatives, which may be NULL when there
 * are none.  d is the naming's.  Errors: MPI_ERR_RANK (rank without a
 * position), MPI_ERR_ARG (bad metric, depth < 0, shadow < 0 or shadow >
 * depth, a stencil of more than INT_MAX vectors, maxcount smaller than
 * the count, count or relatives NULL), MPI_ERR_DIMS (a naming of 0
 * dimensions: MPI_Cart_create with ndims = 0). */
int Cart_neighbors_count(MPI_Comm comm, int rank, int metric, int shadow, int depth, int *count);
int Cart_neighbors(MPI_Comm comm, int rank, int metric, int shadow, int depth, int maxcount, int relatives[]);

/* Collective over comm (every process passes the same naming): split a named
 * communicator like MPI_Cart_sub -- remain_dims[k] true keeps dimension k --
 * keeping the relative order of the processes: one part per position in
 * the removed dimensions, ranked there by the position in the kept ones.
 * The result is unnamed and has no topology; processes outside the grid
 * get MPI_COMM_NULL.  Arguments are checked locally (as MPI does): an
 * error on some processes only leaves the others waiting. */
int Cart_create_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *subcomm);

/* A new fully connected intra-communicator over the group of comm (the
 * local group of an inter-communicator) in the same rank order, without
 * topology or naming; the caller frees it.  Any communicator: plain,
 * named, Cartesian, graph or inter.  Collective over comm's (local) group
 * only.  For an inter-communicator it is made from MPI_COMM_WORLD
 * (MPI_Comm_create_group, tag 31415): its local group must lie in
 * MPI_COMM_WORLD, else MPI_ERR_UNSUPPORTED_OPERATION (dynamic processes).
 * Errors: MPI_ERR_COMM (MPI_COMM_NULL), MPI_ERR_ARG (basecomm NULL). */
int Cart_comm_base(MPI_Comm comm, MPI_Comm *basecomm);

/* ------------------------------------------------------------------------
 * [ortho] One interface set for every communicator [Traff et al. 2021, Secs. 2, 3]
 *
 * Every Cart_ collective works on every communicator; its structure decides
 * the meaning:
 *   - from Cart_neighborhood_create, or a graph detected as Cartesian:
 *     Cartesian neighbourhood meaning, message-combining schedules;
 *   - a distributed graph: the MPI standard's neighbourhood meaning, blocks
 *     in the graph's neighbour order;
 *   - MPI_Cart_create: MPI's neighbourhood meaning on Cartesian
 *     communicators (the 2d neighbours -1, +1 of each dimension in turn,
 *     MPI_PROC_NULL off a mesh; on periodic dimensions of size 1 and 2 the
 *     block sent towards +1 arrives in the receiver's -1 block, as MPI-4.1
 *     specifies), run with Cartesian schedules;
 *   - an intra-communicator without topology (named or not): the global MPI
 *     collective of the same name;
 *   - an inter-communicator: the MPI inter-communicator collective.
 * What a communicator is gets decided the first time a Cart_ call meets it
 * and is cached on it.  With global meaning the call is MPI's own
 * collective: a persistent Cart_X_init on an intra-communicator is MPI's
 * persistent collective (MPI-4's MPI_X_init, or Open MPI 4.1's MPIX_X_init
 * extension), made once, so that Cart_start creates nothing; where the MPI
 * has none, on inter-communicators, and for MPICH's gather, scatter and
 * allgather families (MPICH 4.0's persistent versions deliver wrong data),
 * Cart_start starts MPI's non-blocking MPI_IX instead.  Where the MPI
 * underneath gets a combination wrong, the call takes a route through MPI
 * calls that are right, with the same result (found by the test
 * test_mpibugs, listed in tests/mpi/README.md):
 *   - MPICH: MPI_Ibcast on an inter-communicator with a root other than
 *     rank 0 of its group leaves the receivers' buffers untouched, or with
 *     stale data (MPI_Bcast is right).  Non-blocking and persistent bcasts on inter-communicators
 *     run as one MPI_Ialltoallv in which the root sends its buffer to every
 *     process of the other group (one message each, no tree; every root:
 *     the root's group cannot tell which rank the root is);
 *   - MPICH 4.0: the blocking MPI_Reduce with MPI_IN_PLACE at a root other
 *     than 0 crashes above 512 ints.  That root passes a copy of its
 *     receive buffer instead (allocated for the call);
 *   - Open MPI 4.1: MPI_Ibarrier on an inter-communicator lets a process
 *     leave before every process of the other group entered.  Non-blocking
 *     and persistent barriers on inter-communicators run as an
 *     MPI_Iallreduce of one int;
 *   - Open MPI 4.1: MPI_Ireduce and MPIX_Reduce_init with a datatype
 *     whose true lower bound is not 0 write past a temporary buffer of
 *     their own (heap corruption; the result is right).  Non-blocking and
 *     persistent reduces with such a datatype run as MPI_Iallreduce, the
 *     other processes' results going to scratch planned at the call;
 *   - Open MPI 4.1 (alltoallv, alltoallw) and MPICH 4.0 (alltoallw): the
 *     in-place non-blocking and persistent forms leave the communicator's
 *     later non-blocking collectives hanging when some processes have no
 *     data (Open MPI) or deliver wrong data when the receive types differ
 *     (MPICH).  Such calls are MPI's non-blocking call without
 *     MPI_IN_PLACE, sending from a packed copy of the receive blocks made
 *     at each start into memory planned at the call; the blocks may then
 *     total at most INT_MAX bytes per process (MPI_ERR_COUNT).
 * A combination known wrong without such a route fails with
 * MPI_ERR_UNSUPPORTED_OPERATION and a sentence instead of delivering wrong
 * data (none is known at present).  Non-blocking and persistent calls keep copies of
 * the argument arrays and of derived datatypes, so those may be changed or
 * freed when the call returns -- except on inter-communicators, where they
 * must stay valid until the request completes (non-blocking) or is freed
 * (persistent).  Requests of every kind mix freely in
 * Cart_waitall/Cart_startall.
 *
 * Neighbourhood meaning of the collectives below (in-neighbours src[j],
 * out-neighbours dst[i], one contribution per edge): barrier returns once
 * every in-neighbour entered it; bcast sends the root's buffer to the root's
 * out-neighbours; gather(v) fills block j of the root's receive buffer from
 * src[j]; scatter(v) sends block i of the root's send buffer to dst[i];
 * reduce combines at the root the send buffers of its in-neighbours;
 * allreduce does that at every process at once.  A process with no
 * contribution leaves its receive buffer untouched.  Non-commutative
 * operations are applied in neighbour order j = 0, 1, ... (left to right).
 * Reduce_scatter and the scans are MPI_ERR_TOPOLOGY on neighbourhood
 * communicators.  Details:
 *   - the lists are those of the communicator in its block order: a graph's
 *     (MPI_Dist_graph_neighbors), MPI's 2d neighbours of an MPI_Cart_create
 *     communicator, dst[i] = R + N[i] and src[j] = R - N[j] on a
 *     Cart_neighborhood_create communicator; MPI_PROC_NULL entries take part
 *     in nothing;
 *   - the argument arrays of gatherv (recvcounts, displs: indegree entries)
 *     and scatterv (sendcounts, displs: outdegree entries) have one entry per
 *     neighbour, as MPI's neighbourhood collectives have;
 *   - repeated edges: gather and reduce take one contribution per edge;
 *     bcast and scatter deliver one buffer per process, so a process that
 *     is the root's out-neighbour several times receives once (scatter: the
 *     block of the root's last edge to it);
 *   - MPI_IN_PLACE as in the MPI collective of the same name: the root's
 *     sendbuf of gather (its blocks from itself stay as they are) and reduce
 *     (its contribution, where it is its own in-neighbour, is its recvbuf),
 *     the root's recvbuf of scatter (it sends nothing to itself), any
 *     sendbuf of allreduce; elsewhere MPI_ERR_BUFFER;
 *   - every process must give the same root; persistent calls check it
 *     (MPI_ERR_ROOT), blocking and non-blocking ones cannot without
 *     communication;
 *   - a user-defined operation must stay valid while a request using it
 *     exists (persistent: until Cart_request_free).
 * Allreduce on Cartesian neighbourhoods (Cart_neighborhood_create,
 * MPI_Cart_create, detected graphs):
 *   - with a commutative operation on a box-shaped neighbourhood (the
 *     offsets are, each once, the points of a box prod_k [lo_k, hi_k]
 *     around the zero vector, with or without it: Moore neighbourhoods of
 *     any radius, the 3^d - 1 and 3^d point stencils) it REDUCES ON THE WAY:
 *     per dimension a window sum of partial results, one block per round,
 *     so volume no longer grows with t (d = 3 radius 1: 6 rounds and 6
 *     blocks instead of 26; d = 4: 8 instead of 80).  COMBINING takes, per
 *     dimension, direct receives or (periodic dimensions, radius >= 2)
 *     window doubling, at most 4 rounds per dimension up to radius 4 on a
 *     torus and radius 2 on a mesh; TORUS runs two pipelines hop by hop
 *     (D rounds).  No subtraction: MPI_MAX, MPI_LAND and user operations
 *     work; results of floating-point sums may differ from a
 *     neighbour-order sum in the last bits, as with any MPI reduction;
 *   - otherwise (a non-commutative operation, another neighbourhood,
 *     CART_ALGORITHM_DIRECT) it runs the allgather's schedules (DIRECT,
 *     COMBINING or TORUS, chosen like the allgather's) into temporaries and
 *     reduces them in neighbour order after the last phase.
 *   CART_ALGORITHM_AUTO compares the two with the cost model (at one block
 *   of a few bytes one message per neighbour in a single phase may win on a
 *   few processes); the cartcoll_algorithm info key and CARTCOLL_ALGORITHM
 *   apply (DIRECT: gather; COMBINING/TORUS: on the way where possible).
 * Bcast, gather, scatter and reduce (neighbourhood meaning) on
 * Cart_neighborhood_create communicators, regular (not v) calls: along the
 * dimension-wise trees of the allgather's schedules (scatter: the
 * alltoall's), so the root sends or receives about one message per
 * distinct coordinate and dimension instead of one per neighbour; other
 * processes, also outside the root's neighbourhood, forward on the way
 * ([Traff et al. 2021] allows helpers).  A gather's or reduce's blocks arrive at the
 * root combined; a reduce then reduces them in neighbour order (any
 * operation).  CART_ALGORITHM_AUTO compares the trees with one message per
 * edge by the cost model at the call's block size; Cart_schedule_stats
 * gives the root's figures.  The v calls, barrier, and every rooted
 * collective on MPI_Cart_create communicators and graphs run one message
 * per edge (DIRECT).
 *
 * Arguments of every meaning are checked by the library before MPI sees
 * them, with the same class on every MPI (blocking, non-blocking, and
 * persistent calls at _init): a NULL counts, displacements or datatypes
 * array the call uses is MPI_ERR_ARG; a NULL buffer where elements of a
 * predefined datatype are to be sent or received is MPI_ERR_BUFFER (NULL is
 * MPI_BOTTOM, right with derived datatypes of absolute addresses and with
 * the byte displacements of the w variants).  On an inter-communicator only
 * what this process's group uses is checked (nothing with MPI_PROC_NULL as
 * root).  Checks are local: a bad argument given on some processes only
 * leaves the others waiting in the collective, as in MPI.
 *
 * Status of this release: global and inter-communicator meaning of every
 * collective; neighbourhood meaning of every collective on every
 * communicator with a topology (the six [core] ones with Cartesian
 * schedules on Cart_neighborhood_create and MPI_Cart_create communicators
 * and on detected graphs, one message per edge on other graphs; the others
 * as said above).  Graphs made by Cart_dist_graph_create[_adjacent] are
 * detected as Cartesian as described below.
 * ------------------------------------------------------------------------ */

int Cart_barrier(MPI_Comm comm);
int Cart_bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int Cart_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int Cart_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm);
int Cart_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int Cart_scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int Cart_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm);
int Cart_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm);
int Cart_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm);
int Cart_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm);
int Cart_scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int Cart_exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);

/* Non-blocking forms: the same arguments plus a trailing request. */
int Cart_ibarrier(MPI_Comm comm, Cart_request *request);
int Cart_ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                Cart_request *request);
int Cart_igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, Cart_request *request);
int Cart_igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                  Cart_request *request);
int Cart_iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, Cart_request *request);
int Cart_iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   Cart_request *request);
int Cart_ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, Cart_request *request);
int Cart_iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, Cart_request *request);
int Cart_ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm, Cart_request *request);
int Cart_ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, Cart_request *request);
int Cart_iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
               Cart_request *request);
int Cart_iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, Cart_request *request);

/* Persistent forms: the same arguments plus trailing info and request
 * (start with Cart_start, free with Cart_request_free). */
int Cart_barrier_init(MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Info info, Cart_request *request);
int Cart_gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     Cart_request *request);
int Cart_gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      Cart_request *request);
int Cart_scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                     int root, MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                   MPI_Op op, MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                             Cart_request *request);
int Cart_scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm, MPI_Info info, Cart_request *request);

/* ------------------------------------------------------------------------
 * [ortho] Detection of Cartesian graphs
 *
 * Same arguments and result as MPI_Dist_graph_create_adjacent and
 * MPI_Dist_graph_create: an MPI distributed-graph communicator on which
 * every MPI query works.  Cart_ collectives on it have the MPI standard's
 * neighbourhood meaning; when the graph is Cartesian, cartcoll runs them
 * with Cartesian schedules while keeping the graph's block order: every
 * process's own order of sources and destinations, repeated edges matched
 * k-th to k-th as MPI defines.  The check is collective and costs at most
 * three small MPI_Allreduce calls.
 *   - Cartesian means: there is one stencil S (offsets, repeats allowed)
 *     such that every process lists as destinations exactly the offsets of
 *     S that stay on the grid, in any order, and as sources their mirror
 *     images; MPI_PROC_NULL may stand in place of the offsets that leave a
 *     mesh (as codes that pass MPI_Cart_shift results do).  So tori, meshes
 *     whose border processes list fewer neighbours, and meshes with
 *     MPI_PROC_NULL are detected.
 *   - The grid: comm_old's naming (Cart_name, MPI_Cart_create, a
 *     Cart_neighborhood_create communicator); without one, the row-major
 *     grids MPI_Dims_create(p, d) gives for d = 1..8, all dimensions
 *     periodic, then none (how codes lay out ranks by hand); the smallest
 *     stencil wins.  Stencils whose bounding box exceeds 4096 cells are only
 *     detected when every process lists the whole stencil (tori).
 *   - Reordering: with a named comm_old, MPI is asked for reorder = 0 (the
 *     naming describes comm_old's ranks); with an unnamed one the caller's
 *     reorder is passed on (the guessed grids lie on the graph's own ranks).
 *   - On a detected graph the v and w variants run DIRECT (block sizes are
 *     only agreed per edge); the regular ones may combine messages and so
 *     need the same block size on every process, also on processes that
 *     have no neighbours (blocks may pass through them).
 *   - The detection also agrees on the cost model (what an earlier
 *     Cart_neighborhood_create measured, or CARTCOLL_ALPHA / CARTCOLL_BETA,
 *     or the defaults), so a detected graph chooses like a neighbourhood
 *     communicator, and it completes the communicator's private duplicate
 *     before returning.
 *   - CARTCOLL_VERBOSE=1: rank 0 says whether and, if not, why.
 * ------------------------------------------------------------------------ */
int Cart_dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree, const int destinations[],
                                    const int destweights[], MPI_Info info, int reorder,
                                    MPI_Comm *comm_dist_graph);
int Cart_dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info, int reorder,
                           MPI_Comm *comm_dist_graph);

/* ------------------------------------------------------------------------
 * Automatic choice (cartcoll_algorithm = auto, the default)
 *
 * An executed schedule with P phases (whose rounds run concurrently), R
 * rounds (messages) and V bytes sent per process is modelled as
 *     P*alpha + R*o + V*beta   (+ a few ns per block handled)
 * with alpha the latency of a phase, o the cost of each further message in
 * a phase and beta the time per byte; with o = alpha this is
 * [Traff & Hunold 2019, Sec. 3.1] (combining wins for
 * m < (alpha/beta)(t-C)/(V-t)).  Schedules are those of the neighbourhood
 * reduced for the grid (on 4 processes a 5-dimensional neighbourhood talks
 * to 3 peers).  auto chooses between DIRECT (one message
 * per distinct peer, one phase) and COMBINING; TORUS never wins under this
 * model and is only used when forced (for networks where only neighbour
 * links are cheap).  alpha, o and beta are measured once per process at the
 * first Cart_neighborhood_create (ping-pong, a burst of messages, a large
 * message between pairs of processes) and agreed among the processes
 * (maximum) so that all pick the same; CARTCOLL_ALPHA and CARTCOLL_BETA
 * (seconds, seconds per byte) override the measurement (o is then alpha/4).
 * Executor: the zero-copy datatype executor for plans that are reused --
 * persistent requests, and blocking/non-blocking calls repeated with the
 * same buffers, counts and predefined datatypes (their plans are cached;
 * DIRECT whose combined messages are small: pack) -- and the pack executor
 * for one-off plans.  Persistent requests (auto) plan every candidate
 * within 3x of the best modelled time, each with both executors where they
 * differ (COMBINING; DIRECT where its messages carry several blocks, as on
 * small grids), time each during the first starts (4 runs each,
 * interleaved; the fastest counts), agree on the fastest (slowest process
 * counts) with one small reduction, and keep the model's favourite unless
 * another was faster by more than twice the trials' spread (at least 2%,
 * at most 10%); from then on only that plan runs.
 * ------------------------------------------------------------------------ */

/* ------------------------------------------------------------------------
 * [part] Partitioned collectives [Holmes et al. 2021]
 *
 * Persistent collectives whose buffers are split into partitions: threads
 * mark send partitions ready one by one (Cart_pready*) and receivers poll
 * receive partitions (Cart_parrived*).  The one-interface rule applies: on
 * a communicator with a neighbourhood (Cart_neighborhood_create,
 * MPI_Cart_create, graphs) each operation has the neighbourhood meaning of
 * the collective of the same name (so the Pneighbor operations of [Holmes et al. 2021] are
 * these functions), on a plain intra-communicator its global meaning
 * (Cart_preduce_scatter*, Cart_pscan and Cart_pexscan: global only,
 * MPI_ERR_TOPOLOGY on neighbourhoods).  Inter-communicators: not in this
 * release (MPI_ERR_COMM).
 *
 * Counts are elements PER PARTITION, as in MPI_Psend_init: a block of
 * `parts` partitions holds parts * count elements (this release: at most
 * INT_MAX elements per block, else MPI_ERR_COUNT); the send and receive
 * sides may partition a block differently as long as the type signatures
 * of the whole blocks match (the collective's own rule).  Displacements of
 * the v forms are in elements of the datatype (w: bytes), as in the
 * collective of the same name.
 *
 * Partition numbers.  A process numbers the partitions of its send buffer,
 * and of its receive buffer, consecutively, block by block in block order
 * (block i of `parts` partitions holds i*parts ... i*parts+parts-1; v and w
 * forms: the running sum of the parts arrays).  A buffer that goes whole
 * to several peers (bcast, gather's and allgather's send buffer, the
 * reductions) or comes whole (bcast's and scatter's receive buffer, the
 * reductions') has just its own partitions.  Cart_pready(k) marks send
 * partition k ready for every destination that receives it;
 * Cart_pready_to(k, dest) for one destination, k numbered within that
 * destination's block: dest is a rank (global meaning; gather and reduce:
 * the root) or an out-neighbour index (neighbourhood meaning).  A whole
 * buffer's partition is ready once marked for every destination: every
 * rank (global bcast, allgather, allreduce, scan, exscan), the root
 * (global gather, reduce), or every out-neighbour index (neighbourhood
 * meaning).  Cart_parrived(k) is true once receive partition k holds its
 * final value (reductions: fully reduced); Cart_parrived_from(k, source)
 * numbers k within source's block (source: a rank, or an in-neighbour
 * index).  Processes without send partitions (bcast and scatter away from
 * the root, MPI_IN_PLACE where the data is the receive buffer) call no
 * Cart_pready; their part counts as ready at Cart_start.
 *
 * Semantics (MPI-4 partitioned requests): Cart_start before any
 * Cart_pready; every send partition must be marked exactly once per
 * destination before Cart_wait / Cart_test can complete (Cart_wait waits
 * for the other threads' marks); Cart_parrived true means final; freeing
 * an active request is an error (MPI_ERR_REQUEST); start, wait, test and
 * free are Cart_start, Cart_wait, Cart_test, Cart_request_free.  Info
 * keys: those of the collective (cartcoll_algorithm, cartcoll_executor).
 *
 * Threads: Cart_pready* may be called concurrently from any number of
 * threads on one request.  Marking is lock-free; below
 * MPI_THREAD_MULTIPLE it makes no MPI call, so OpenMP threads of an
 * MPI_THREAD_FUNNELED program may mark partitions while the main thread
 * drives progress in Cart_test, Cart_wait or Cart_parrived (errors found
 * on other threads are returned as the bare error class, without the
 * error handler).  Under MPI_THREAD_MULTIPLE the mark that completes the
 * set starts the transfer at once, from the calling thread.
 *
 * Transport of this release (planned in _init; a started operation
 * allocates nothing and creates no MPI objects):
 *   - EARLY BIRD for Cart_palltoall_init and Cart_pallgather_init on
 *     every communicator with a neighbourhood (Cart_neighborhood_create,
 *     MPI_Cart_create, graph; algorithm auto or direct), for
 *     Cart_palltoallv_init, Cart_palltoallw_init and Cart_pallgatherv_init
 *     there whatever the algorithm (irregular blocks are not pipelined),
 *     and for all five with global meaning on plain communicators (every
 *     rank a destination and a source), as for Cart_pgatherv_init and
 *     Cart_pscatterv_init there (every rank's partitions straight to the
 *     root, the root's straight to their ranks); any datatypes (w: each
 *     block's), not MPI_IN_PLACE, each receive block as many bytes as the
 *     block sent to it and cut into messages of whole receive elements.
 *     Messages are matched edge by
 *     edge as the collective's meaning says (Cartesian: along the offset,
 *     also where several offsets reach one process; graphs: the k-th edge
 *     between two processes meets the k-th): one
 *     persistent message per send partition and destination on a
 *     duplicate of the communicator, started as soon as the partition is
 *     marked (by the marking thread under MPI_THREAD_MULTIPLE or when it
 *     is the thread that made the request, else at the next Cart_test /
 *     Cart_wait / Cart_parrived); receives are posted at Cart_start, and
 *     Cart_parrived reports a receive partition as soon as the messages
 *     covering it have arrived.  A partition to the process itself (an
 *     offset that wraps onto it) is copied by the marking thread at once,
 *     at any thread level (no MPI call), where both sides have the same
 *     predefined datatype (else it is a message like the others).  Adjacent
 *     partitions of one
 *     destination's block travel as one message (sent once all of them are
 *     marked) up to the size where a message's fixed cost equals its
 *     transfer time in the cost model (overhead / beta); info key
 *     cartcoll_part_aggregate (or environment CARTCOLL_PART_AGGREGATE) =
 *     bytes overrides it, 0 = one message per partition; where the
 *     early bird or the pipelined transport below is considered, a value
 *     that is not a non-negative integer fails with MPI_ERR_ARG: the value
 *     must be one or more decimal digits and nothing else (no sign, no
 *     spaces; an empty info value is an error, an empty environment
 *     variable counts as unset; values beyond 2^63 - 1 mean "no limit"),
 *     on every MPI.
 *     Under MPI_THREAD_MULTIPLE the library's
 *     progress thread is started (it sleeps while no operation is active)
 *     so that early messages move while threads compute.  The algorithm
 *     asked for is the call's info cartcoll_algorithm, else the
 *     communicator's (create's info, CARTCOLL_ALGORITHM);
 *   - PIPELINED on neighbourhood communicators: Cart_pbcast_init,
 *     Cart_pgather_init, Cart_pscatter_init, Cart_preduce_init and
 *     Cart_pallreduce_init with any algorithm, Cart_palltoall_init and Cart_pallgather_init where
 *     COMBINING or TORUS is asked for (else the early bird serves them);
 *     one datatype on both sides, buffers given, blocks of the same
 *     elements on both sides, the same send partitions per block on every
 *     process (agreed with one reduction; scatter: the root's partitions,
 *     and a predefined datatype of one size on both sides, since the
 *     receivers cut their block by them), not MPI_IN_PLACE for the block
 *     collectives.  Slice s, a group of g adjacent send partitions of
 *     every block, is its own persistent collective (the v form where
 *     blocks are strided) with the schedule, trees or reduction of that
 *     collective; it starts as soon as its partitions of every block this
 *     process sends are marked (by the marking thread where it may call MPI
 *     and can take the request, else at the next Cart_test / Cart_wait /
 *     Cart_parrived; slices that wait for no mark start at Cart_start; the
 *     progress thread runs under MPI_THREAD_MULTIPLE), so slices pass
 *     through the phases and along the trees one behind the other and a
 *     reduced partition is final as soon as it is reduced; Cart_parrived
 *     reports a receive partition once the slices covering it have
 *     completed here.  g is the most partitions that divide the partitions
 *     per block and fit the size cartcoll_part_aggregate gives (as above:
 *     overhead / beta by default, from CARTCOLL_ALPHA / CARTCOLL_BETA /
 *     CARTCOLL_OVERHEAD or built-in defaults where there is no
 *     neighbourhood); with a single slice the whole-buffer transport below
 *     runs instead.  The same for bcast, gather, scatter, reduce,
 *     allreduce, scan, exscan and reduce_scatter_block with global
 *     meaning (plain communicators; reduce_scatter_block copies a slice's
 *     chunk of every block into contiguous send data, planned at _init, as
 *     the slice starts): there slice s
 *     is MPI's own collective on partition group s, on a duplicate of
 *     the communicator made at _init for this request alone (so slices
 *     that marking threads or progress start at any moment never meet
 *     the program's own collectives or another request's slices), and
 *     slices start in order (slice s only after the ones before it),
 *     since every process must start MPI's collectives in the same order;
 *   - every other case: the persistent request of the collective on the
 *     whole buffers, on the library's private communicator, started once
 *     all of this process's send partitions are ready; a receive partition
 *     is reported arrived when the operation has completed at this
 *     process.
 *
 * Errors: partition numbers out of range, partition_low > partition_high
 * (MPI_ERR_ARG); a partition marked twice, in one call or across calls
 * (MPI_ERR_ARG); a Cart_pready* call that fails marks nothing (every
 * partition it names is checked first), so the program may correct the
 * call and mark again; dest / source not
 * a destination / source (MPI_ERR_RANK); Cart_pready* on an inactive or
 * non-partitioned request, or on a process that sends no partitions
 * (MPI_ERR_REQUEST); negative partitions (MPI_ERR_ARG) or counts
 * (MPI_ERR_COUNT); and every check of the collective of the same name.
 * ------------------------------------------------------------------------ */

int Cart_pbcast_init(void *buffer, int partitions, MPI_Count count, MPI_Datatype datatype, int root,
                     MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_pgather_init(const void *sendbuf, int sendparts, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int recvparts, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_pgatherv_init(const void *sendbuf, int sendparts, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const int recvparts[], const MPI_Count recvcounts[],
                       const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_pscatter_init(const void *sendbuf, int sendparts, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvparts, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_pscatterv_init(const void *sendbuf, const int sendparts[], const MPI_Count sendcounts[],
                        const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf, int recvparts,
                        MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_pallgather_init(const void *sendbuf, int sendparts, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, int recvparts, MPI_Count recvcount, MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_pallgatherv_init(const void *sendbuf, int sendparts, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, const int recvparts[], const MPI_Count recvcounts[],
                          const MPI_Aint displs[], MPI_Datatype recvtype,
                          MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_palltoall_init(const void *sendbuf, int sendparts, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, int recvparts, MPI_Count recvcount, MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_palltoallv_init(const void *sendbuf, const int sendparts[], const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                         const int recvparts[], const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_palltoallw_init(const void *sendbuf, const int sendparts[], const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                         const int recvparts[], const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_preduce_init(const void *sendbuf, void *recvbuf, int partitions, MPI_Count count,
                      MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Info info,
                      Cart_request *request);
int Cart_pallreduce_init(const void *sendbuf, void *recvbuf, int partitions, MPI_Count count,
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                         Cart_request *request);
int Cart_preduce_scatter_block_init(const void *sendbuf, void *recvbuf, int partitions, MPI_Count recvcount,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                    Cart_request *request);
int Cart_preduce_scatter_init(const void *sendbuf, void *recvbuf, const int partitions[],
                              const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_pscan_init(const void *sendbuf, void *recvbuf, int partitions, MPI_Count count,
                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, Cart_request *request);
int Cart_pexscan_init(const void *sendbuf, void *recvbuf, int partitions, MPI_Count count,
                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, Cart_request *request);

/* Cart_pready, Cart_pready_range (partition_low ... partition_high),
 * Cart_pready_list - mark send partitions ready for every destination.
 * Cart_pready_to, Cart_pready_range_to, Cart_pready_list_to - for one
 * destination (a rank; an out-neighbour index on neighbourhoods), the
 * partitions numbered within its block.  Thread-safe, lock-free. */
int Cart_pready(int partition, Cart_request request);
int Cart_pready_range(int partition_low, int partition_high, Cart_request request);
int Cart_pready_list(int length, const int partitions[], Cart_request request);
/* Cart_parrived - *flag = whether receive partition `partition` holds its
 * final value (drives progress).  Cart_parrived_from - the same for
 * partition `partition` of source's block (a rank; an in-neighbour index
 * on neighbourhoods).  On an inactive request that has completed, true. */
int Cart_parrived(Cart_request request, int partition, int *flag);
/* [Holmes et al. 2021, Fig. 3]: per destination and per source */
int Cart_pready_to(int partition, int dest, Cart_request request);
int Cart_pready_range_to(int partition_low, int partition_high, int dest, Cart_request request);
int Cart_pready_list_to(int length, const int partitions[], int dest, Cart_request request);
int Cart_parrived_from(Cart_request request, int partition, int source, int *flag);

#ifdef __cplusplus
}
#endif

#endif /* CARTCOLL_H */

! Error behaviour of cartcoll_f08, as in C: the error handler of the
! communicator the call was given (MPI_COMM_SELF for calls without one) is
! invoked exactly once with the code the call returns; the optional ierror
! receives it (a call without ierror returns normally after the handler);
! MPI_Error_class gives the documented class and MPI_Error_string a readable
! sentence (naming the function where the MPI lets codes carry strings).
! A Fortran error handler that counts its calls is set on MPI_COMM_WORLD
! (inherited by the communicators made from it) and MPI_COMM_SELF.
!
! One bad input per family (every process passes it, so collectives fail
! alike): neighbourhood creation, queries, stencils, schedule statistics,
! blocking / non-blocking / persistent [core] collectives, datatype arrays,
! requests, naming, the seed-000 collectives, detection, and the errors of
! the bindings themselves (a block beyond its non-contiguous section in a
! non-blocking or persistent call).
! Requests of failed calls stay as they were.
MODULE errors_state
  USE, INTRINSIC :: ISO_C_BINDING, ONLY: C_INT
  USE mpi_f08
  USE cartcoll_f08
  USE f08check
  IMPLICIT NONE
  INTEGER :: ncalls = 0, lastcode = MPI_SUCCESS
  TYPE(MPI_Comm) :: lastcomm
  LOGICAL :: strings = .FALSE.

CONTAINS

  SUBROUTINE counting(comm, code) BIND(C)
    TYPE(MPI_Comm) :: comm
    INTEGER(C_INT) :: code ! INTEGER of MPI_Comm_errhandler_function
    ncalls = ncalls + 1
    lastcode = code
    lastcomm = comm
  END SUBROUTINE counting

  ! Can this MPI attach our own strings to codes of predefined classes?
  SUBROUTINE probe_strings()
    INTEGER :: code, len
    CHARACTER(LEN=MPI_MAX_ERROR_STRING) :: s
    CALL MPI_Add_error_code(MPI_ERR_ARG, code)
    CALL MPI_Add_error_string(code, 'cartcoll_f08 probe')
    CALL MPI_Error_string(code, s, len)
    strings = s(1:len) == 'cartcoll_f08 probe'
  END SUBROUTINE probe_strings

  ! The call just made returned rc (ierror present) and must have failed
  ! with class cls, calling the handler once on comm with rc; before: the
  ! handler calls before it.
  SUBROUTINE expect(rc, cls, before, comm, fname, what)
    INTEGER, INTENT(IN) :: rc, cls, before
    TYPE(MPI_Comm), INTENT(IN) :: comm
    CHARACTER(*), INTENT(IN) :: fname, what
    CHARACTER(LEN=MPI_MAX_ERROR_STRING) :: s
    INTEGER :: len, result
    CALL check_class(rc, cls, fname//': '//what)
    CALL check(ncalls == before + 1 .AND. lastcode == rc, fname//': '//what//': handler called once with the code')
    CALL MPI_Comm_compare(lastcomm, comm, result)
    CALL check(result == MPI_IDENT, fname//': '//what//': the handler of the right communicator')
    s = ''
    CALL MPI_Error_string(rc, s, len)
    CALL check(len > 0, fname//': '//what//': MPI_Error_string')
    IF (strings) CALL check(INDEX(s(1:len), fname) > 0, fname//': '//what//': the sentence names the function: '// &
                            s(1:len))
  END SUBROUTINE expect

  ! The same call without ierror: the handler ran once more, the program goes on.
  SUBROUTINE expect_absent(before, fname)
    INTEGER, INTENT(IN) :: before
    CHARACTER(*), INTENT(IN) :: fname
    CALL check(ncalls == before + 1 .AND. lastcode /= MPI_SUCCESS, fname//': without ierror, handler called once')
  END SUBROUTINE expect_absent

END MODULE errors_state

PROGRAM test_f08_errors
  USE mpi_f08
  USE cartcoll_f08
  USE f08check
  USE errors_state
  IMPLICIT NONE
  TYPE(MPI_Errhandler) :: eh
  TYPE(MPI_Comm) :: cart, plain, sub, graph
  TYPE(Cart_request) :: req, reqs(2)
  TYPE(MPI_Datatype) :: types(2), vec
  INTEGER :: ierr, b, dims(1), cnt, x(8), y(8), sc(2), coords(2), dimorder, order(2), size
  INTEGER, ASYNCHRONOUS :: ax(8), ay(8)
  INTEGER(KIND=MPI_ADDRESS_KIND) :: disp(2)
  LOGICAL :: per(2)

  CALL MPI_Init()
  CALL MPI_Comm_rank(MPI_COMM_WORLD, me)
  CALL MPI_Comm_size(MPI_COMM_WORLD, nproc)
  CALL probe_strings()
  CALL MPI_Comm_create_errhandler(counting, eh)
  CALL MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh)
  CALL MPI_Comm_set_errhandler(MPI_COMM_SELF, eh)
  dims = nproc
  CALL Cart_neighborhood_create(MPI_COMM_WORLD, 1, dims, [.TRUE.], 2, [1, -1], MPI_UNWEIGHTED, MPI_INFO_NULL, &
                                .FALSE., cart)
  CALL MPI_Comm_dup(MPI_COMM_WORLD, plain)
  x = 1
  y = 0
  ax = 1
  ay = 0

  ! --- neighbourhoods: d = 0 ---------------------------------------------
  b = ncalls
  CALL Cart_neighborhood_create(MPI_COMM_WORLD, 0, dims, [.TRUE.], 2, [1, -1], MPI_UNWEIGHTED, MPI_INFO_NULL, &
                                .FALSE., sub, ierr)
  CALL expect(ierr, MPI_ERR_DIMS, b, MPI_COMM_WORLD, 'Cart_neighborhood_create', 'd = 0')
  b = ncalls
  CALL Cart_neighborhood_create(MPI_COMM_WORLD, 0, dims, [.TRUE.], 2, [1, -1], MPI_UNWEIGHTED, MPI_INFO_NULL, &
                                .FALSE., sub)
  CALL expect_absent(b, 'Cart_neighborhood_create')

  ! --- queries -------------------------------------------------------------
  b = ncalls
  CALL Cart_neighbor_count(plain, cnt, ierr)
  CALL expect(ierr, MPI_ERR_TOPOLOGY, b, plain, 'Cart_neighbor_count', 'no neighbourhood')
  b = ncalls
  CALL Cart_neighbor_count(plain, cnt)
  CALL expect_absent(b, 'Cart_neighbor_count')
  b = ncalls
  CALL Cart_relative_rank(cart, nproc + 5, [1], cnt, ierr)
  CALL expect(ierr, MPI_ERR_RANK, b, cart, 'Cart_relative_rank', 'rank outside the grid')
  b = ncalls
  CALL Cart_neighbor_get(cart, 0, x, MPI_UNWEIGHTED, 0, y, MPI_UNWEIGHTED, ierr)
  CALL expect(ierr, MPI_ERR_ARG, b, cart, 'Cart_neighbor_get', 'maxin < t')

  ! --- stencils (MPI_COMM_SELF) ----------------------------------------------
  b = ncalls
  CALL Cart_stencil_count(2, 7, 0, 1, cnt, ierr)
  CALL expect(ierr, MPI_ERR_ARG, b, MPI_COMM_SELF, 'Cart_stencil_count', 'bad metric')
  b = ncalls
  CALL Cart_stencil(0, CART_CHEBYSHEV, 1, 1, 8, x, ierr)
  CALL expect(ierr, MPI_ERR_DIMS, b, MPI_COMM_SELF, 'Cart_stencil', 'd = 0')
  b = ncalls
  CALL Cart_stencil(0, CART_CHEBYSHEV, 1, 1, 8, x)
  CALL expect_absent(b, 'Cart_stencil')

  ! --- schedule statistics --------------------------------------------------
  b = ncalls
  CALL Cart_schedule_stats(cart, 99, CART_ALGORITHM_AUTO, sc(1), sc(2), cnt, ierr)
  CALL expect(ierr, MPI_ERR_ARG, b, cart, 'Cart_schedule_stats', 'unknown collective')

  ! --- [core] collectives -----------------------------------------------------
  b = ncalls
  CALL Cart_alltoall(x, -1, MPI_INTEGER, y, 1, MPI_INTEGER, cart, ierr)
  CALL expect(ierr, MPI_ERR_COUNT, b, cart, 'Cart_alltoall', 'negative count')
  b = ncalls
  CALL Cart_alltoall(x, -1, MPI_INTEGER, y, 1, MPI_INTEGER, cart)
  CALL expect_absent(b, 'Cart_alltoall')
  CALL check(ALL(y == 0), 'a failed collective leaves the receive buffer')
  types = [MPI_INTEGER, MPI_DATATYPE_NULL]
  sc = 1
  disp = [0_MPI_ADDRESS_KIND, 4_MPI_ADDRESS_KIND]
  b = ncalls
  CALL Cart_alltoallw(x, sc, disp, types, y, sc, disp, [MPI_INTEGER, MPI_INTEGER], cart, ierr)
  CALL expect(ierr, MPI_ERR_TYPE, b, cart, 'Cart_alltoallw', 'MPI_DATATYPE_NULL in the array')
  req = CART_REQUEST_NULL
  b = ncalls
  CALL Cart_ialltoall(ax, 1, MPI_DATATYPE_NULL, ay, 1, MPI_INTEGER, cart, req, ierr)
  CALL expect(ierr, MPI_ERR_TYPE, b, cart, 'Cart_ialltoall', 'MPI_DATATYPE_NULL')
  CALL check(req == CART_REQUEST_NULL, 'Cart_ialltoall: the request of a failed call is unchanged')
  b = ncalls
  CALL Cart_allgather_init(ax, -1, MPI_INTEGER, ay, 1, MPI_INTEGER, cart, MPI_INFO_NULL, req, ierr)
  CALL expect(ierr, MPI_ERR_COUNT, b, cart, 'Cart_allgather_init', 'negative count')
  CALL check(req == CART_REQUEST_NULL, 'Cart_allgather_init: the request of a failed call is unchanged')
  b = ncalls
  CALL Cart_allgather_init(ax, -1, MPI_INTEGER, ay, 1, MPI_INTEGER, cart, MPI_INFO_NULL, req)
  CALL expect_absent(b, 'Cart_allgather_init')

  ! --- requests (errors on a null request go to MPI_COMM_SELF) ----------------
  b = ncalls
  CALL Cart_start(req, ierr)
  CALL expect(ierr, MPI_ERR_REQUEST, b, MPI_COMM_SELF, 'Cart_start', 'CART_REQUEST_NULL')
  b = ncalls
  CALL Cart_request_free(req, ierr)
  CALL expect(ierr, MPI_ERR_REQUEST, b, MPI_COMM_SELF, 'Cart_request_free', 'CART_REQUEST_NULL')
  CALL Cart_alltoall_init(ax, 1, MPI_INTEGER, ay, 1, MPI_INTEGER, cart, MPI_INFO_NULL, reqs(1))
  reqs(2) = reqs(1)
  b = ncalls
  CALL Cart_startall(2, reqs, ierr)
  CALL expect(ierr, MPI_ERR_REQUEST, b, cart, 'Cart_startall', 'the same request twice')
  b = ncalls
  CALL Cart_startall(2, reqs)
  CALL expect_absent(b, 'Cart_startall')
  CALL Cart_request_free(reqs(1), ierr)
  CALL check_rc(ierr, 'Cart_request_free after the failed starts')

  ! --- naming ---------------------------------------------------------------------
  b = ncalls
  CALL Cart_rank(plain, [0], cnt, ierr)
  CALL expect(ierr, MPI_ERR_TOPOLOGY, b, plain, 'Cart_rank', 'unnamed communicator')
  b = ncalls
  CALL Cart_name(plain, 0, CART_ROW_MAJOR, dims, [.TRUE.], size, ierr)
  CALL expect(ierr, MPI_ERR_DIMS, b, plain, 'Cart_name', 'd = 0')
  b = ncalls
  CALL Cart_name(plain, 1, 5, dims, [.TRUE.], size, ierr)
  CALL expect(ierr, MPI_ERR_ARG, b, plain, 'Cart_name', 'bad dimorder')
  b = ncalls
  CALL Cart_get(cart, dimorder, -1, order, per, ierr)
  CALL expect(ierr, MPI_ERR_ARG, b, cart, 'Cart_get', 'maxd < 0')
  b = ncalls
  CALL Cart_coordinates(cart, nproc, coords, ierr)
  CALL expect(ierr, MPI_ERR_RANK, b, cart, 'Cart_coordinates', 'rank beyond the communicator')
  b = ncalls
  CALL Cart_create_sub(plain, [.TRUE.], sub, ierr)
  CALL expect(ierr, MPI_ERR_TOPOLOGY, b, plain, 'Cart_create_sub', 'unnamed communicator')
  b = ncalls
  CALL Cart_neighbors_count(cart, 0, CART_CHEBYSHEV, 2, 1, cnt, ierr)
  CALL expect(ierr, MPI_ERR_ARG, b, cart, 'Cart_neighbors_count', 'shadow > depth')
  b = ncalls
  CALL Cart_comm_base(MPI_COMM_NULL, sub, ierr)
  CALL expect(ierr, MPI_ERR_COMM, b, MPI_COMM_SELF, 'Cart_comm_base', 'MPI_COMM_NULL')

  ! --- the seed-000 collectives ----------------------------------------------
  b = ncalls
  CALL Cart_reduce_scatter_block(x, y, 1, MPI_INTEGER, MPI_SUM, cart, ierr)
  CALL expect(ierr, MPI_ERR_TOPOLOGY, b, cart, 'Cart_reduce_scatter_block', 'neighbourhood communicator')
  b = ncalls
  CALL Cart_bcast(x, 1, MPI_INTEGER, -1, plain, ierr)
  CALL expect(ierr, MPI_ERR_ROOT, b, plain, 'Cart_bcast', 'root -1')
  b = ncalls
  CALL Cart_iscan(ax, ay, 1, MPI_INTEGER, MPI_SUM, cart, req, ierr)
  CALL expect(ierr, MPI_ERR_TOPOLOGY, b, cart, 'Cart_iscan', 'neighbourhood communicator')
  b = ncalls
  CALL Cart_allreduce_init(ax, ay, 1, MPI_INTEGER, MPI_OP_NULL, plain, MPI_INFO_NULL, req, ierr)
  CALL expect(ierr, MPI_ERR_OP, b, plain, 'Cart_allreduce_init', 'MPI_OP_NULL')
  CALL check(req == CART_REQUEST_NULL, 'failed *_init calls leave the request')

  ! --- detection -------------------------------------------------------------------
  b = ncalls
  CALL Cart_dist_graph_create_adjacent(plain, -1, x, MPI_UNWEIGHTED, 0, y, MPI_UNWEIGHTED, MPI_INFO_NULL, .FALSE., &
                                       graph, ierr)
  CALL check(ierr /= MPI_SUCCESS .AND. ncalls == b + 1 .AND. lastcode == ierr, &
             'Cart_dist_graph_create_adjacent: negative indegree fails through the handler: '//TRIM(errstring(ierr)))

  ! --- errors of the bindings: a block beyond its section ------------------
  CALL MPI_Type_vector(1, 1, 2, MPI_INTEGER, vec)
  CALL MPI_Type_commit(vec)
  b = ncalls
  CALL Cart_ialltoallw(ax, sc, disp, [MPI_INTEGER, MPI_INTEGER], ay(1:8:2), sc, [0_MPI_ADDRESS_KIND, &
                       16_MPI_ADDRESS_KIND], [MPI_INTEGER, MPI_INTEGER], cart, req, ierr)
  CALL expect(ierr, MPI_ERR_BUFFER, b, cart, 'Cart_ialltoallw', 'a block beyond the section')
  CALL check(req == CART_REQUEST_NULL, 'Cart_ialltoallw: the request of a failed call is unchanged')
  b = ncalls
  CALL Cart_ialltoallw(ax, sc, disp, [MPI_INTEGER, MPI_INTEGER], ay(1:8:2), sc, [0_MPI_ADDRESS_KIND, &
                       16_MPI_ADDRESS_KIND], [MPI_INTEGER, MPI_INTEGER], cart, req)
  CALL expect_absent(b, 'Cart_ialltoallw')
  b = ncalls
  CALL Cart_alltoall_init(ax(1:8:2), 3, MPI_INTEGER, ay, 3, MPI_INTEGER, cart, MPI_INFO_NULL, req, ierr)
  CALL expect(ierr, MPI_ERR_BUFFER, b, cart, 'Cart_alltoall_init', 'a block beyond the section')
  ! A null communicator: the library's own error, on MPI_COMM_SELF.
  b = ncalls
  CALL Cart_ireduce(ax(1:8:2), ay(1:4), 4, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_NULL, req, ierr)
  CALL expect(ierr, MPI_ERR_COMM, b, MPI_COMM_SELF, 'Cart_ireduce', 'MPI_COMM_NULL')
  CALL check(req == CART_REQUEST_NULL, 'no request after the failed calls')

  CALL MPI_Type_free(vec)
  CALL MPI_Comm_free(cart)
  CALL MPI_Comm_free(plain)
  CALL MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)
  CALL MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL)
  CALL MPI_Errhandler_free(eh)
  CALL finish('test_f08_errors')
END PROGRAM test_f08_errors

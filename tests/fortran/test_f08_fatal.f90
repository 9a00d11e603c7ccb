! The default error handler (MPI_ERRORS_ARE_FATAL) aborts on a bad call
! with a readable message naming the function (run_fatal.sh checks it):
!   collective: a negative count (an error of the library);
!   section:    a block beyond its non-contiguous section in
!               Cart_ialltoall (an error of the bindings).
! Reaching the end prints NOT ABORTED.
PROGRAM test_f08_fatal
  USE mpi_f08
  USE cartcoll_f08
  IMPLICIT NONE
  CHARACTER(LEN=32) :: what
  TYPE(MPI_Comm) :: cart
  TYPE(Cart_request) :: req
  INTEGER :: x(4), y(4), dims(1), targets(2)
  CALL MPI_Init()
  what = 'collective'
  IF (COMMAND_ARGUMENT_COUNT() >= 1) CALL GET_COMMAND_ARGUMENT(1, what)
  CALL MPI_Comm_size(MPI_COMM_WORLD, dims(1))
  targets = [1, -1]
  CALL Cart_neighborhood_create(MPI_COMM_WORLD, 1, dims, [.TRUE.], 2, targets, MPI_UNWEIGHTED, MPI_INFO_NULL, &
                                .FALSE., cart)
  x = 1
  y = 0
  IF (what == 'collective') THEN
    CALL Cart_alltoall(x, -1, MPI_INTEGER, y, 1, MPI_INTEGER, cart)
  ELSE
    CALL Cart_ialltoall(x(1:4:2), 2, MPI_INTEGER, y, 2, MPI_INTEGER, cart, req) ! 2 blocks of 2 in 2 elements
  END IF
  WRITE (*, '(A,A,A)') 'test_f08_fatal ', TRIM(what), ': NOT ABORTED'
  CALL MPI_Finalize()
END PROGRAM test_f08_fatal

! A Fortran user program built against an installed cartcoll (module
! cartcoll_f08): on a ring of processes, Cart_alltoall and a persistent
! Cart_allgather with the neighbours -1 and +1, checked.
PROGRAM consumer
  USE mpi_f08
  USE cartcoll_f08
  IMPLICIT NONE
  TYPE(MPI_Comm) :: ring
  TYPE(Cart_request) :: req
  INTEGER :: size, rank, sendv(2), recvv(2), gath(2), ierr, left, right
  LOGICAL :: ok
  CALL MPI_Init()
  CALL MPI_Comm_size(MPI_COMM_WORLD, size)
  CALL Cart_neighborhood_create(MPI_COMM_WORLD, 1, [size], [.TRUE.], 2, [-1, 1], MPI_UNWEIGHTED, MPI_INFO_NULL, &
                                .FALSE., ring, ierr)
  CALL MPI_Comm_rank(ring, rank)
  left = MODULO(rank - 1, size)
  right = MODULO(rank + 1, size)
  sendv = [10 * rank + 1, 10 * rank + 2]
  recvv = -1
  CALL Cart_alltoall(sendv, 1, MPI_INTEGER, recvv, 1, MPI_INTEGER, ring)
  ! block 1 comes from R + 1 (its block 1 went to -1), block 2 from R - 1
  ok = recvv(1) == 10 * right + 1 .AND. recvv(2) == 10 * left + 2
  CALL Cart_allgather_init(rank, 1, MPI_INTEGER, gath, 1, MPI_INTEGER, ring, MPI_INFO_NULL, req)
  CALL Cart_start(req)
  CALL Cart_wait(req)
  CALL Cart_request_free(req)
  ok = ok .AND. gath(1) == right .AND. gath(2) == left .AND. req == CART_REQUEST_NULL
  IF (ok) THEN
    WRITE (*, '(A,I0,A)') 'consumer_f08: rank ', rank, ' ok'
  ELSE
    WRITE (*, '(A,I0,A)') 'consumer_f08: rank ', rank, ' WRONG'
  END IF
  CALL MPI_Comm_free(ring)
  CALL MPI_Finalize()
  IF (.NOT. ok) STOP 1
END PROGRAM consumer

! Shared by the Fortran tests: counted checks, readable error codes, the
! verdict of all processes.
MODULE f08check
  USE mpi_f08
  IMPLICIT NONE
  PRIVATE
  PUBLIC :: check, check_rc, check_class, errstring, finish, me, nproc, nfail, ncheck, arg

  INTEGER :: nfail = 0, ncheck = 0, me = 0, nproc = 1

CONTAINS

  SUBROUTINE check(ok, what)
    LOGICAL, INTENT(IN) :: ok
    CHARACTER(*), INTENT(IN) :: what
    ncheck = ncheck + 1
    IF (.NOT. ok) THEN
      nfail = nfail + 1
      IF (nfail <= 25) WRITE (*, '(A,I0,A,A)') 'rank ', me, ': FAILED: ', what
    END IF
  END SUBROUTINE check

  ! The text of an MPI error code (class and string).
  FUNCTION errstring(code) RESULT(s)
    INTEGER, INTENT(IN) :: code
    CHARACTER(LEN=MPI_MAX_ERROR_STRING + 40) :: s
    CHARACTER(LEN=MPI_MAX_ERROR_STRING) :: msg
    INTEGER :: len, cls, ierr
    msg = ''
    cls = -1
    CALL MPI_Error_class(code, cls, ierr)
    CALL MPI_Error_string(code, msg, len, ierr)
    WRITE (s, '(A,I0,A,I0,A,A)') 'code ', code, ' (class ', cls, '): ', TRIM(msg)
  END FUNCTION errstring

  SUBROUTINE check_rc(rc, what)
    INTEGER, INTENT(IN) :: rc
    CHARACTER(*), INTENT(IN) :: what
    IF (rc == MPI_SUCCESS) THEN
      CALL check(.TRUE., what)
    ELSE
      CALL check(.FALSE., what//' returned '//TRIM(errstring(rc)))
    END IF
  END SUBROUTINE check_rc

  ! rc is an error of class cls.
  SUBROUTINE check_class(rc, cls, what)
    INTEGER, INTENT(IN) :: rc, cls
    CHARACTER(*), INTENT(IN) :: what
    INTEGER :: got, ierr
    CHARACTER(LEN=16) :: want
    got = MPI_SUCCESS
    IF (rc /= MPI_SUCCESS) CALL MPI_Error_class(rc, got, ierr)
    WRITE (want, '(I0)') cls
    CALL check(got == cls, what//': expected class '//TRIM(want)//', got '//TRIM(errstring(rc)))
  END SUBROUTINE check_class

  ! The k-th command-line argument ('' when there is none).
  FUNCTION arg(k) RESULT(s)
    INTEGER, INTENT(IN) :: k
    CHARACTER(LEN=64) :: s
    s = ''
    IF (COMMAND_ARGUMENT_COUNT() >= k) CALL GET_COMMAND_ARGUMENT(k, s)
  END FUNCTION arg

  ! Print the verdict of all processes, finalize, exit 1 on a failure.
  SUBROUTINE finish(name)
    CHARACTER(*), INTENT(IN) :: name
    INTEGER :: fails(2), total(2)
    fails = [nfail, ncheck]
    CALL MPI_Allreduce(fails, total, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    IF (me == 0) THEN
      IF (total(1) == 0) THEN
        WRITE (*, '(A,A,I0,A,I0,A)') name, ': PASS (', total(2), ' checks on ', nproc, ' processes)'
      ELSE
        WRITE (*, '(A,A,I0,A,I0,A)') name, ': FAIL (', total(1), ' of ', total(2), ' checks failed)'
      END IF
    END IF
    CALL MPI_Finalize()
    IF (total(1) /= 0) STOP 1
  END SUBROUTINE finish

END MODULE f08check

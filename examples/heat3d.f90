! heat3d.f90: examples/heat3d.c in Fortran -- steady-state heat in a 3-D
! block by Jacobi iteration with the 27-point stencil, the halo exchange a
! persistent Cart_alltoallw whose 26 blocks are faces, edges and corners of
! the tile, described by subarray datatypes.
!
! n x n x n tiles on a non-periodic process grid of MPI_Dims_create(p, 3)
! made by Cart_neighborhood_create, stored with a halo of depth 1 in
! u(0:n+1, 0:n+1, 0:n+1).  Array dimension k runs along grid dimension k
! (coordinate k of MPI_Cart_coords, offset component k of the
! neighbourhood), whatever the memory order: the subarray datatypes say
! MPI_ORDER_FORTRAN, the byte displacements are column-major.  Ranks stay
! row-major as MPI_Cart_create lays them out (docs/fortran.md).
! Halo cells on the surface of the block hold the boundary temperature (1 on
! the face x = 0, global first index -1, and 0 elsewhere) and are never
! written.  Offset (a, b, c) of Cart_stencil(3, CART_CHEBYSHEV, 1, 1)
! exchanges a face (one non-zero component), an edge (two) or a corner
! (three).
!
! Check: every process runs the same Jacobi iteration serially on the whole
! block and compares its own tile and the iteration count; one
! MPI_Allreduce gives the verdict.  A wrong value prints FAIL and exits
! with status 1.
!
!   mpirun -n 4 heat3d_f90 [-n tile] [-i max_iterations] [-e tolerance]
!                          [--no-check] [--inject-fault]
!
! --inject-fault swaps the offsets (0,0,1) and (1,0,0) in the neighbourhood
! given to Cart_neighborhood_create (the blocks stay as they are): the check
! must catch it.
MODULE heat3d_mod
  USE, INTRINSIC :: IEEE_ARITHMETIC, ONLY: IEEE_IS_NAN
  USE mpi_f08
  USE cartcoll_f08
  IMPLICIT NONE
  INTEGER, PARAMETER :: dp = KIND(1.0D0)

  ! What the steps share (as the struct of heat3d.c).
  INTEGER :: n = 12, maxit = 200
  REAL(dp) :: tol = 1.0E-4_dp
  LOGICAL :: docheck = .TRUE., fault = .FALSE.
  INTEGER :: nproc, me, dims(3), coords(3), g(3)
  TYPE(MPI_Comm) :: cart
  INTEGER :: t
  INTEGER, ALLOCATABLE :: target(:, :), weight(:), counts(:)
  INTEGER(KIND=MPI_ADDRESS_KIND), ALLOCATABLE :: sdisp(:), rdisp(:)
  TYPE(MPI_Datatype) :: shape(7)
  TYPE(MPI_Datatype), ALLOCATABLE :: types(:)
  REAL(dp), ALLOCATABLE, ASYNCHRONOUS :: u(:, :, :, :) ! (0:n+1, 0:n+1, 0:n+1, 0:1)
  TYPE(Cart_request) :: req(0:1)
  INTEGER :: it, cur
  REAL(dp) :: diff, times(2)

CONTAINS

  ! The 27-point Jacobi update of a(x, y, z): faces weigh 14, edges 3,
  ! corners 1 (sum 128), in the same order for the parallel and the serial
  ! run, so both give the same bits.
  PURE REAL(dp) FUNCTION update27(a, x, y, z)
    REAL(dp), INTENT(IN) :: a(0:, 0:, 0:)
    INTEGER, INTENT(IN) :: x, y, z
    INTEGER, PARAMETER :: w(0:3) = [0, 14, 3, 1]
    INTEGER :: i, j, k
    update27 = 0.0_dp
    DO k = -1, 1
      DO j = -1, 1
        DO i = -1, 1
          update27 = update27 + w(ABS(i) + ABS(j) + ABS(k)) * a(x + i, y + j, z + k)
        END DO
      END DO
    END DO
    update27 = update27 / 128.0_dp
  END FUNCTION update27

  ! One sweep over the interior of a (extents m(1:3)) into b; the largest change.
  REAL(dp) FUNCTION sweep(a, b, m)
    REAL(dp), INTENT(IN) :: a(0:, 0:, 0:)
    REAL(dp), INTENT(INOUT) :: b(0:, 0:, 0:)
    INTEGER, INTENT(IN) :: m(3)
    INTEGER :: x, y, z
    REAL(dp) :: v
    sweep = 0.0_dp
    DO z = 1, m(3)
      DO y = 1, m(2)
        DO x = 1, m(1)
          v = update27(a, x, y, z)
          sweep = MAX(sweep, ABS(v - a(x, y, z)))
          b(x, y, z) = v
        END DO
      END DO
    END DO
  END FUNCTION sweep

  ! An array of extents m(1:3) plus halo at global offset o(1:3): the
  ! boundary set (1 where the global first index is -1, 0 elsewhere), the
  ! interior 0.
  SUBROUTINE block(a, m, o)
    REAL(dp), INTENT(OUT) :: a(0:, 0:, 0:)
    INTEGER, INTENT(IN) :: m(3), o(3)
    INTEGER :: x
    a = 0.0_dp
    DO x = 0, m(1) + 1
      IF (o(1) + x - 1 < 0) a(x, :, :) = 1.0_dp
    END DO
  END SUBROUTINE block

  ! The command line; ok when it is valid.
  SUBROUTINE options(ok)
    LOGICAL, INTENT(OUT) :: ok
    CHARACTER(LEN=64) :: opt, val
    INTEGER :: k, nargs, st
    ok = .TRUE.
    nargs = COMMAND_ARGUMENT_COUNT()
    k = 1
    DO WHILE (k <= nargs)
      CALL GET_COMMAND_ARGUMENT(k, opt)
      st = 0
      IF ((opt == '-n' .OR. opt == '-i' .OR. opt == '-e') .AND. k < nargs) THEN
        k = k + 1
        CALL GET_COMMAND_ARGUMENT(k, val)
        SELECT CASE (opt)
        CASE ('-n')
          READ (val, *, IOSTAT=st) n
        CASE ('-i')
          READ (val, *, IOSTAT=st) maxit
        CASE DEFAULT
          READ (val, *, IOSTAT=st) tol
        END SELECT
      ELSE IF (opt == '--no-check') THEN
        docheck = .FALSE.
      ELSE IF (opt == '--inject-fault') THEN
        fault = .TRUE.
      ELSE
        ok = .FALSE.
      END IF
      IF (st /= 0) ok = .FALSE.
      k = k + 1
    END DO
    ok = ok .AND. n >= 1 .AND. maxit >= 1 .AND. tol > 0
  END SUBROUTINE options

  ! The neighbourhood on a non-periodic mesh of all processes and this
  ! process's tile of the block.
  SUBROUTINE create_mesh()
    INTEGER, ALLOCATABLE :: given(:, :)
    INTEGER :: i, z, a, b
    CALL Cart_stencil_count(3, CART_CHEBYSHEV, 1, 1, t)
    ALLOCATE (target(3, t), given(3, t), weight(t))
    CALL Cart_stencil(3, CART_CHEBYSHEV, 1, 1, t, target)
    given = target
    IF (fault) THEN ! swap (0,0,1) and (1,0,0) in what the library is told
      a = 0
      b = 0
      DO i = 1, t
        IF (ALL(target(:, i) == [0, 0, 1])) a = i
        IF (ALL(target(:, i) == [1, 0, 0])) b = i
      END DO
      given(:, a) = target(:, b)
      given(:, b) = target(:, a)
    END IF
    DO i = 1, t ! cells exchanged
      z = COUNT(target(:, i) /= 0)
      weight(i) = MERGE(n * n, MERGE(n, 1, z == 2), z == 1)
    END DO
    dims = 0
    CALL MPI_Dims_create(nproc, 3, dims)
    CALL Cart_neighborhood_create(MPI_COMM_WORLD, 3, dims, [.FALSE., .FALSE., .FALSE.], t, given, weight, &
                                  MPI_INFO_NULL, .FALSE., cart)
    CALL MPI_Comm_rank(cart, me)
    CALL MPI_Cart_coords(cart, me, 3, coords)
    g = n * dims
  END SUBROUTINE create_mesh

  ! One subarray datatype per shape: bit k-1 of s says offset component k
  ! is non-zero (extent 1 there, n otherwise); the corner is one element.
  ! Subarrays start at 0: the byte displacement places them.
  SUBROUTINE create_shapes()
    INTEGER :: s, k, sub(3)
    DO s = 1, 7
      IF (s == 7) THEN
        shape(s) = MPI_DOUBLE_PRECISION
        CYCLE
      END IF
      DO k = 1, 3
        sub(k) = MERGE(1, n, BTEST(s, k - 1))
      END DO
      CALL MPI_Type_create_subarray(3, [n + 2, n + 2, n + 2], sub, [0, 0, 0], MPI_ORDER_FORTRAN, &
                                    MPI_DOUBLE_PRECISION, shape(s))
      CALL MPI_Type_commit(shape(s))
    END DO
  END SUBROUTINE create_shapes

  ! The t blocks of the exchange: faces, edges and corners of a tile.
  SUBROUTINE describe_blocks()
    INTEGER :: i, k, s, o, so(3), ro(3), w
    INTEGER(KIND=MPI_ADDRESS_KIND) :: elem
    ALLOCATE (counts(t), sdisp(t), rdisp(t), types(t))
    w = n + 2
    elem = STORAGE_SIZE(1.0_dp) / 8
    DO i = 1, t
      s = 0
      DO k = 1, 3
        o = target(k, i)
        IF (o /= 0) s = IBSET(s, k - 1)
        so(k) = MERGE(n, 1, o > 0)                   ! our border facing R + N(i)
        ro(k) = MERGE(0, MERGE(n + 1, 1, o < 0), o > 0) ! the halo facing R - N(i)
      END DO
      counts(i) = 1
      types(i) = shape(s)
      sdisp(i) = (so(1) + INT(w, MPI_ADDRESS_KIND) * (so(2) + INT(w, MPI_ADDRESS_KIND) * so(3))) * elem
      rdisp(i) = (ro(1) + INT(w, MPI_ADDRESS_KIND) * (ro(2) + INT(w, MPI_ADDRESS_KIND) * ro(3))) * elem
    END DO
  END SUBROUTINE describe_blocks

  ! Two persistent exchanges, one per array, each array both send and
  ! receive buffer (the blocks do not overlap).
  SUBROUTINE plan_exchange()
    INTEGER :: k, ierr
    DO k = 0, 1
      CALL Cart_alltoallw_init(u(:, :, :, k), counts, sdisp, types, u(:, :, :, k), counts, rdisp, types, cart, &
                               MPI_INFO_NULL, req(k), ierr)
      IF (ierr /= MPI_SUCCESS) THEN
        WRITE (*, '(A,I0,A)') 'heat3d.f90: rank ', me, ': cannot plan the halo exchange'
        CALL MPI_Abort(cart, 1)
      END IF
    END DO
  END SUBROUTINE plan_exchange

  ! Jacobi iterations; the halo of u(:,:,:,0) is filled first.  Times (the
  ! slowest process's): all, of which exchange.
  SUBROUTINE iterate()
    REAL(dp) :: t0, te, texch
    LOGICAL :: first
    texch = 0.0_dp
    t0 = MPI_Wtime()
    diff = 0.0_dp
    it = 0
    cur = 0
    first = .TRUE.
    DO
      te = MPI_Wtime()
      CALL Cart_start(req(cur))
      CALL Cart_wait(req(cur))
      texch = texch + (MPI_Wtime() - te)
      IF (.NOT. first) THEN
        CALL MPI_Allreduce(MPI_IN_PLACE, diff, 1, MPI_DOUBLE_PRECISION, MPI_MAX, cart)
        IF (diff < tol .OR. it == maxit) EXIT
      END IF
      first = .FALSE.
      diff = sweep(u(:, :, :, cur), u(:, :, :, 1 - cur), [n, n, n])
      cur = 1 - cur
      it = it + 1
    END DO
    times = [MPI_Wtime() - t0, texch]
    CALL MPI_Allreduce(MPI_IN_PLACE, times, 2, MPI_DOUBLE_PRECISION, MPI_MAX, cart)
  END SUBROUTINE iterate

  ! Against the serial solver (tile and iteration count): the verdict of
  ! all processes (.TRUE.: some value is wrong) and their largest difference.
  SUBROUTINE verdict(anybad, maxerr)
    LOGICAL, INTENT(OUT) :: anybad
    REAL(dp), INTENT(OUT) :: maxerr
    REAL(dp), ALLOCATABLE :: s(:, :, :, :)
    INTEGER :: bad, sit, scur, x, y, z, gx, gy, gz, st
    REAL(dp) :: e, sdiff
    bad = 0
    maxerr = 0.0_dp
    IF (docheck) THEN
      ALLOCATE (s(0:g(1) + 1, 0:g(2) + 1, 0:g(3) + 1, 0:1), STAT=st)
      IF (st /= 0) THEN
        WRITE (*, '(A,I0,A)') 'heat3d.f90: rank ', me, ': no memory for the serial check (use --no-check)'
        bad = 1
      ELSE
        CALL block(s(:, :, :, 0), g, [0, 0, 0])
        CALL block(s(:, :, :, 1), g, [0, 0, 0])
        sit = 0
        scur = 0
        DO WHILE (sit < maxit)
          sdiff = sweep(s(:, :, :, scur), s(:, :, :, 1 - scur), g)
          scur = 1 - scur
          sit = sit + 1
          IF (sdiff < tol) EXIT
        END DO
        DO z = 1, n
          DO y = 1, n
            DO x = 1, n
              gx = coords(1) * n + x
              gy = coords(2) * n + y
              gz = coords(3) * n + z
              e = ABS(u(x, y, z, cur) - s(gx, gy, gz, scur))
              IF (.NOT. (e <= 1.0E-12_dp)) THEN
                IF (bad < 3) WRITE (*, '(A,I0,A,3(I0,1X),A,ES24.17,A,ES24.17)') 'heat3d.f90: rank ', me, &
                  ': cell ', gx - 1, gy - 1, gz - 1, 'is ', u(x, y, z, cur), ', the serial solver gives ', &
                  s(gx, gy, gz, scur)
                bad = bad + 1
              END IF
              IF (IEEE_IS_NAN(e)) THEN
                maxerr = HUGE(1.0_dp)
              ELSE
                maxerr = MAX(maxerr, e)
              END IF
            END DO
          END DO
        END DO
        IF (sit /= it) THEN
          IF (bad == 0) WRITE (*, '(A,I0,A,I0,A,I0)') 'heat3d.f90: rank ', me, ': ', it, &
            ' iterations, the serial solver needs ', sit
          bad = bad + 1
        END IF
      END IF
    END IF
    anybad = bad /= 0
    CALL MPI_Allreduce(MPI_IN_PLACE, anybad, 1, MPI_LOGICAL, MPI_LOR, cart)
    CALL MPI_Allreduce(MPI_IN_PLACE, maxerr, 1, MPI_DOUBLE_PRECISION, MPI_MAX, cart)
  END SUBROUTINE verdict

  ! The result line (process 0).
  SUBROUTINE report(anybad, maxerr)
    LOGICAL, INTENT(IN) :: anybad
    REAL(dp), INTENT(IN) :: maxerr
    INTEGER :: phases, rounds, volume
    CHARACTER(LEN=400) :: line, part
    CHARACTER(LEN=14) :: t1, t2
    ! Rounds (messages per process) of one exchange: the library's choice.
    CALL Cart_schedule_stats(cart, CART_COLL_ALLTOALL, CART_ALGORITHM_AUTO, phases, rounds, volume)
    IF (me /= 0) RETURN
    IF (.NOT. docheck) THEN
      line = 'UNCHECKED'
    ELSE IF (anybad) THEN
      line = 'FAIL'
    ELSE
      line = 'PASS'
    END IF
    WRITE (part, '(A,I0,A,I0,A,I0,A,I0,A,I0,A,I0,A,I0,A,I0,A)') ' - ', nproc, ' processes (', dims(1), 'x', &
      dims(2), 'x', dims(3), ' mesh), ', n, '^3 tiles of a ', g(1), 'x', g(2), 'x', g(3), ' block'
    line = TRIM(line)//TRIM(part)
    WRITE (part, '(A,I0,A,I0,A)') ', 27-point Jacobi, halo by persistent Cart_alltoallw (', t, ' neighbours, ', &
      rounds, ' rounds)'
    line = TRIM(line)//TRIM(part)
    IF (fault) line = TRIM(line)//', FAULT INJECTED'
    WRITE (part, '(A,I0,A,ES9.3,A)') ': ', it, ' iterations, last change ', diff, ';'
    line = TRIM(line)//TRIM(part)
    IF (docheck) THEN
      IF (anybad) THEN
        WRITE (part, '(A,ES9.3,A)') ' DIFFERS FROM the serial solver (max difference ', maxerr, ');'
      ELSE
        WRITE (part, '(A,ES9.3,A)') ' matches the serial solver (max difference ', maxerr, ');'
      END IF
      line = TRIM(line)//TRIM(part)
    END IF
    WRITE (t1, '(F14.2)') 1.0E6_dp * times(1) / it
    WRITE (t2, '(F14.2)') 1.0E6_dp * times(2) / it
    WRITE (*, '(7A)') 'heat3d.f90: ', TRIM(line), ' ', TRIM(ADJUSTL(t1)), ' us per iteration, of which exchange ', &
      TRIM(ADJUSTL(t2)), ' us'
  END SUBROUTINE report

  SUBROUTINE destroy()
    INTEGER :: s, k
    DO k = 0, 1
      CALL Cart_request_free(req(k))
    END DO
    DO s = 1, 6
      CALL MPI_Type_free(shape(s))
    END DO
    CALL MPI_Comm_free(cart)
  END SUBROUTINE destroy

END MODULE heat3d_mod

PROGRAM heat3d
  USE mpi_f08
  USE heat3d_mod
  IMPLICIT NONE
  LOGICAL :: ok, anybad
  REAL(dp) :: maxerr
  INTEGER :: k, rank
  CALL MPI_Init()
  CALL MPI_Comm_size(MPI_COMM_WORLD, nproc)
  CALL MPI_Comm_rank(MPI_COMM_WORLD, rank)
  CALL options(ok)
  IF (.NOT. ok) THEN
    IF (rank == 0) WRITE (*, '(A)') 'usage: heat3d_f90 [-n tile >= 1] [-i max_iterations >= 1] [-e tolerance > 0] ' &
      //'[--no-check] [--inject-fault]'
    CALL MPI_Finalize()
    STOP 2
  END IF
  CALL create_mesh()
  CALL create_shapes()
  CALL describe_blocks()
  ALLOCATE (u(0:n + 1, 0:n + 1, 0:n + 1, 0:1))
  DO k = 0, 1
    CALL block(u(:, :, :, k), [n, n, n], coords * n)
  END DO
  CALL plan_exchange()
  CALL iterate()
  CALL verdict(anybad, maxerr)
  CALL report(anybad, maxerr)
  CALL destroy()
  CALL MPI_Finalize()
  IF (anybad) STOP 1
END PROGRAM heat3d

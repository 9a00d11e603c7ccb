! The six [core] collectives through cartcoll_f08: Cart_allgather(v,w) and
! Cart_alltoall(v,w), each blocking, as Cart_iX + Cart_wait / Cart_test and
! as Cart_X_init + Cart_start / Cart_wait (two starts with new data), on
!   A: a 2-D torus, Moore radius 1 plus (0,0), (2,-1) and a repeated (1,1);
!   B: a 3-D grid periodic in dimensions 1 and 3 only, the 26-point stencil
!      (neighbours off the mesh: MPI_PROC_NULL, their blocks untouched);
! with three buffer layouts:
!   0: contiguous arrays;
!   1: send ss(2,:) (stride 3), receive rs(1:2,:) (runs of 2, stride 3);
!   2: send ss2(1,ns:1:-1) (backwards), receive rp(1:2h-1:2), an array of
!      BIND(C) pairs of integers (two MPI_INTEGERs per element, stride 2).
! The v and w cases use per-block counts with gaps between blocks; the w
! receive blocks alternate MPI_INTEGER and a strided vector datatype (on a
! section in a non-blocking or persistent call that takes a contiguous copy
! kept with the request, see docs/fortran.md).
!
! Oracle (first principles): element e of send block i of rank r holds
! enc(r, i, e, round); receive block i must hold the block of the process
! at coords(R) - N[i] (row-major ranks computed here, wrapped on periodic
! dimensions), every gap, every block from MPI_PROC_NULL and every element
! outside the section keeps its sentinel, and send buffers are unchanged.
MODULE core_state
  USE, INTRINSIC :: ISO_C_BINDING, ONLY: C_INT
  USE mpi_f08
  USE cartcoll_f08
  USE f08check
  IMPLICIT NONE
  INTEGER, PARAMETER :: MAXT = 32, M = 2, SENT = -7, JUNK = -5, OTHER = -9
  INTEGER, PARAMETER :: M_BLOCK = 1, M_NB = 2, M_PERS = 3
  INTEGER, PARAMETER :: K_REG = 1, K_V = 2, K_W = 3
  CHARACTER(LEN=16), PARAMETER :: CNAME(6) = [CHARACTER(LEN=16) :: 'allgather', 'allgatherv', 'allgatherw', &
                                              'alltoall', 'alltoallv', 'alltoallw']
  CHARACTER(LEN=12), PARAMETER :: MNAME(3) = [CHARACTER(LEN=12) :: 'blocking', 'Cart_iX', 'Cart_X_init']

  TYPE, BIND(C) :: ipair
    INTEGER(C_INT) :: a, b
  END TYPE ipair

  TYPE(MPI_Comm) :: cart
  CHARACTER(LEN=1) :: config
  INTEGER :: d, t, rank
  INTEGER :: dims(3), coords(3)
  LOGICAL :: periods(3)
  INTEGER :: targets(3, MAXT), src(MAXT)

  ! The blocks of the current case, in elements from the start of the
  ! buffer read as one contiguous vector ("V"), 0-based.
  INTEGER :: scount(MAXT), sdisp(MAXT), rcount(MAXT), rcw(MAXT), rdisp(MAXT), rstride(MAXT), ns, nr
  INTEGER(KIND=MPI_ADDRESS_KIND) :: sdispb(MAXT), rdispb(MAXT)
  TYPE(MPI_Datatype) :: stypes(MAXT), rtypes(MAXT), vec(3)

  INTEGER, ALLOCATABLE :: sv(:), rv(:), expect(:)
  INTEGER, ALLOCATABLE, ASYNCHRONOUS :: sbufv(:), rbufv(:), ss(:, :), rs(:, :), ss2(:, :)
  TYPE(ipair), ALLOCATABLE, ASYNCHRONOUS :: rp(:)
  INTEGER :: h

CONTAINS

  INTEGER FUNCTION enc(r, i, e, round)
    INTEGER, INTENT(IN) :: r, i, e, round
    enc = round * 10000000 + r * 100000 + i * 100 + e + 1
  END FUNCTION enc

  ! Row-major rank of coordinates c, wrapped on periodic dimensions;
  ! MPI_PROC_NULL off the mesh.
  INTEGER FUNCTION rank_of(c)
    INTEGER, INTENT(IN) :: c(:)
    INTEGER :: k, x
    rank_of = 0
    DO k = 1, d
      x = c(k)
      IF (periods(k)) THEN
        x = MODULO(x, dims(k))
      ELSE IF (x < 0 .OR. x >= dims(k)) THEN
        rank_of = MPI_PROC_NULL
        RETURN
      END IF
      rank_of = rank_of * dims(k) + x
    END DO
  END FUNCTION rank_of

  SUBROUTINE make_neighbourhood(which)
    CHARACTER(LEN=1), INTENT(IN) :: which
    INTEGER :: k, i, r, cnt, weights(MAXT), mc(3)
    config = which
    dims = 0
    IF (which == 'A') THEN
      d = 2
      periods(1:2) = .TRUE.
      CALL Cart_stencil_count(2, CART_CHEBYSHEV, 1, 1, cnt)
      CALL Cart_stencil(2, CART_CHEBYSHEV, 1, 1, cnt, targets(1:2, 1:cnt))
      t = cnt + 3
      targets(1:2, cnt + 1) = [0, 0]
      targets(1:2, cnt + 2) = [2, -1]
      targets(1:2, cnt + 3) = [1, 1]
    ELSE
      d = 3
      periods(1:3) = [.TRUE., .FALSE., .TRUE.]
      CALL Cart_stencil_count(3, CART_CHEBYSHEV, 1, 1, t)
      CALL Cart_stencil(3, CART_CHEBYSHEV, 1, 1, t, targets, ierror=k)
      CALL check_rc(k, 'Cart_stencil')
    END IF
    CALL MPI_Dims_create(nproc, d, dims(1:d))
    weights = 1
    IF (which == 'A') THEN
      CALL Cart_neighborhood_create(MPI_COMM_WORLD, d, dims, periods, t, targets(1:d, 1:t), MPI_UNWEIGHTED, &
                                    MPI_INFO_NULL, .FALSE., cart)
    ELSE
      CALL Cart_neighborhood_create(MPI_COMM_WORLD, d, dims, periods, t, targets(1:d, 1:t), weights, &
                                    MPI_INFO_NULL, .FALSE., cart, k)
      CALL check_rc(k, 'Cart_neighborhood_create')
    END IF
    CALL MPI_Comm_rank(cart, rank)
    r = rank
    DO k = d, 1, -1
      coords(k) = MODULO(r, dims(k))
      r = r / dims(k)
    END DO
    CALL MPI_Cart_coords(cart, rank, d, mc(1:d))
    CALL check(ALL(mc(1:d) == coords(1:d)), 'row-major coordinates as MPI_Cart_coords')
    DO i = 1, t
      src(i) = rank_of(coords(1:d) - targets(1:d, i))
    END DO
  END SUBROUTINE make_neighbourhood

  ! The blocks of collective coll (1..6); derived: w receive blocks may use
  ! the vector datatypes.
  SUBROUTINE setup(coll, derived)
    INTEGER, INTENT(IN) :: coll
    LOGICAL, INTENT(IN) :: derived
    INTEGER :: kind, i
    LOGICAL :: a2a
    a2a = coll >= 4
    kind = MOD(coll - 1, 3) + 1
    DO i = 1, t
      IF (a2a .AND. kind /= K_REG) THEN
        scount(i) = 1 + MOD(i - 1, 3)
      ELSE
        scount(i) = M
      END IF
      rcount(i) = scount(i)
      rstride(i) = 1
      IF (kind == K_W .AND. derived .AND. MOD(i, 2) == 0) rstride(i) = 2
      rcw(i) = rcount(i)
      IF (rstride(i) == 2) rcw(i) = 1
    END DO
    IF (kind == K_REG) THEN
      DO i = 1, t
        sdisp(i) = (i - 1) * M
        rdisp(i) = (i - 1) * M
      END DO
      ns = t * M
      nr = t * M
    ELSE
      sdisp(1) = 1
      rdisp(1) = 2
      DO i = 1, t - 1
        sdisp(i + 1) = sdisp(i) + scount(i) + 1
        rdisp(i + 1) = rdisp(i) + rstride(i) * rcount(i) + 2
      END DO
      ns = sdisp(t) + scount(t) + 1
      nr = rdisp(t) + rstride(t) * rcount(t) + 1
    END IF
    IF (.NOT. a2a) ns = M + 1
    sdispb(1:t) = INT(sdisp(1:t), MPI_ADDRESS_KIND) * 4
    rdispb(1:t) = INT(rdisp(1:t), MPI_ADDRESS_KIND) * 4
    DO i = 1, t
      stypes(i) = MPI_INTEGER
      rtypes(i) = MPI_INTEGER
      IF (rstride(i) == 2) rtypes(i) = vec(rcount(i))
    END DO
    IF (ALLOCATED(sv)) DEALLOCATE (sv, rv, expect, sbufv, rbufv, ss, rs, ss2, rp)
    h = (nr + 1) / 2
    ALLOCATE (sv(0:ns - 1), rv(0:nr - 1), expect(0:nr - 1), sbufv(0:ns - 1), rbufv(0:nr - 1))
    ALLOCATE (ss(3, ns), rs(3, h), ss2(2, ns), rp(2 * h))
  END SUBROUTINE setup

  ! The send vector and the expected receive vector of a round.
  SUBROUTINE values(coll, round)
    INTEGER, INTENT(IN) :: coll, round
    INTEGER :: i, e
    sv = JUNK
    expect = SENT
    IF (coll >= 4) THEN
      DO i = 1, t
        DO e = 0, scount(i) - 1
          sv(sdisp(i) + e) = enc(rank, i, e, round)
        END DO
      END DO
    ELSE
      DO e = 0, M - 1
        sv(e) = enc(rank, 0, e, round)
      END DO
    END IF
    DO i = 1, t
      IF (src(i) == MPI_PROC_NULL) CYCLE
      DO e = 0, rcount(i) - 1
        IF (coll >= 4) THEN
          expect(rdisp(i) + rstride(i) * e) = enc(src(i), i, e, round)
        ELSE
          expect(rdisp(i) + rstride(i) * e) = enc(src(i), 0, e, round)
        END IF
      END DO
    END DO
  END SUBROUTINE values

  ! Fill the buffers of a layout: send = sv, receive = sentinels.
  SUBROUTINE fill(layout)
    INTEGER, INTENT(IN) :: layout
    INTEGER :: k
    SELECT CASE (layout)
    CASE (0)
      sbufv = sv
      rbufv = SENT
    CASE (1)
      ss = OTHER
      ss(2, :) = sv
      rs = OTHER
      rs(1:2, :) = SENT
    CASE (2)
      ss2 = OTHER
      DO k = 1, ns
        ss2(1, ns + 1 - k) = sv(k - 1)
      END DO
      rp = ipair(OTHER, OTHER)
      rp(1:2 * h - 1:2) = ipair(SENT, SENT)
    END SELECT
  END SUBROUTINE fill

  ! Read the receive vector back and check what must be untouched.
  SUBROUTINE collect(layout, what)
    INTEGER, INTENT(IN) :: layout
    CHARACTER(*), INTENT(IN) :: what
    INTEGER :: k, v(0:2 * h - 1)
    LOGICAL :: ok
    SELECT CASE (layout)
    CASE (0)
      rv = rbufv
      ok = ALL(sbufv == sv)
    CASE (1)
      DO k = 1, h
        v(2 * k - 2) = rs(1, k)
        v(2 * k - 1) = rs(2, k)
      END DO
      rv = v(0:nr - 1)
      ok = ALL(rs(3, :) == OTHER) .AND. ALL(ss(2, :) == sv) .AND. ALL(ss(1, :) == OTHER) .AND. ALL(ss(3, :) == OTHER)
      IF (2 * h > nr) ok = ok .AND. v(2 * h - 1) == SENT
    CASE (2)
      DO k = 1, h
        v(2 * k - 2) = rp(2 * k - 1)%a
        v(2 * k - 1) = rp(2 * k - 1)%b
      END DO
      rv = v(0:nr - 1)
      ok = ALL(rp(2:2 * h:2)%a == OTHER) .AND. ALL(rp(2:2 * h:2)%b == OTHER) .AND. ALL(ss2(2, :) == OTHER)
      DO k = 1, ns
        ok = ok .AND. ss2(1, ns + 1 - k) == sv(k - 1)
      END DO
      IF (2 * h > nr) ok = ok .AND. v(2 * h - 1) == SENT
    END SELECT
    CALL check(ok, what//': memory outside the blocks or the send buffer changed')
  END SUBROUTINE collect

  ! Run collective coll in mode `mode` on sbuf / rbuf (any layout).
  SUBROUTINE invoke(coll, mode, sbuf, rbuf, req, what)
    INTEGER, INTENT(IN) :: coll, mode
    TYPE(*), DIMENSION(..), ASYNCHRONOUS :: sbuf, rbuf
    TYPE(Cart_request), INTENT(INOUT) :: req
    CHARACTER(*), INTENT(IN) :: what
    INTEGER :: ierr
    ierr = MPI_SUCCESS
    SELECT CASE (coll * 10 + mode)
    CASE (11)
      CALL Cart_allgather(sbuf, M, MPI_INTEGER, rbuf, M, MPI_INTEGER, cart)
    CASE (12)
      CALL Cart_iallgather(sbuf, M, MPI_INTEGER, rbuf, M, MPI_INTEGER, cart, req, ierr)
    CASE (13)
      CALL Cart_allgather_init(sbuf, M, MPI_INTEGER, rbuf, M, MPI_INTEGER, cart, MPI_INFO_NULL, req, ierr)
    CASE (21)
      CALL Cart_allgatherv(sbuf, M, MPI_INTEGER, rbuf, rcount, rdisp, MPI_INTEGER, cart, ierr)
    CASE (22)
      CALL Cart_iallgatherv(sbuf, M, MPI_INTEGER, rbuf, rcount, rdisp, MPI_INTEGER, cart, req)
    CASE (23)
      CALL Cart_allgatherv_init(sbuf, M, MPI_INTEGER, rbuf, rcount, rdisp, MPI_INTEGER, cart, MPI_INFO_NULL, req)
    CASE (31)
      CALL Cart_allgatherw(sbuf, M, MPI_INTEGER, rbuf, rcw, rdispb, rtypes, cart, ierr)
    CASE (32)
      CALL Cart_iallgatherw(sbuf, M, MPI_INTEGER, rbuf, rcw, rdispb, rtypes, cart, req, ierr)
    CASE (33)
      CALL Cart_allgatherw_init(sbuf, M, MPI_INTEGER, rbuf, rcw, rdispb, rtypes, cart, MPI_INFO_NULL, req, ierr)
    CASE (41)
      CALL Cart_alltoall(sbuf, M, MPI_INTEGER, rbuf, M, MPI_INTEGER, cart, ierr)
    CASE (42)
      CALL Cart_ialltoall(sbuf, M, MPI_INTEGER, rbuf, M, MPI_INTEGER, cart, req, ierr)
    CASE (43)
      CALL Cart_alltoall_init(sbuf, M, MPI_INTEGER, rbuf, M, MPI_INTEGER, cart, MPI_INFO_NULL, req, ierr)
    CASE (51)
      CALL Cart_alltoallv(sbuf, scount, sdisp, MPI_INTEGER, rbuf, rcount, rdisp, MPI_INTEGER, cart)
    CASE (52)
      CALL Cart_ialltoallv(sbuf, scount, sdisp, MPI_INTEGER, rbuf, rcount, rdisp, MPI_INTEGER, cart, req, ierr)
    CASE (53)
      CALL Cart_alltoallv_init(sbuf, scount, sdisp, MPI_INTEGER, rbuf, rcount, rdisp, MPI_INTEGER, cart, &
                               MPI_INFO_NULL, req, ierr)
    CASE (61)
      CALL Cart_alltoallw(sbuf, scount, sdispb, stypes, rbuf, rcw, rdispb, rtypes, cart, ierr)
    CASE (62)
      CALL Cart_ialltoallw(sbuf, scount, sdispb, stypes, rbuf, rcw, rdispb, rtypes, cart, req, ierr)
    CASE (63)
      CALL Cart_alltoallw_init(sbuf, scount, sdispb, stypes, rbuf, rcw, rdispb, rtypes, cart, MPI_INFO_NULL, &
                               req, ierr)
    END SELECT
    CALL check_rc(ierr, what)
  END SUBROUTINE invoke

  SUBROUTINE call_layout(coll, mode, layout, req, what)
    INTEGER, INTENT(IN) :: coll, mode, layout
    TYPE(Cart_request), INTENT(INOUT) :: req
    CHARACTER(*), INTENT(IN) :: what
    SELECT CASE (layout)
    CASE (0)
      CALL invoke(coll, mode, sbufv, rbufv, req, what)
    CASE (1)
      CALL invoke(coll, mode, ss(2, :), rs(1:2, :), req, what)
    CASE (2)
      CALL invoke(coll, mode, ss2(1, ns:1:-1), rp(1:2 * h - 1:2), req, what)
    END SELECT
  END SUBROUTINE call_layout

  SUBROUTINE one_case(coll, mode, layout)
    INTEGER, INTENT(IN) :: coll, mode, layout
    TYPE(Cart_request) :: req
    CHARACTER(LEN=80) :: what
    INTEGER :: round, rounds, ierr, k
    LOGICAL :: flag
    WRITE (what, '(A,1X,A,1X,A,1X,A,I0,1X,A)') config, TRIM(CNAME(coll)), TRIM(MNAME(mode)), 'layout ', layout
    CALL setup(coll, .TRUE.)
    req = CART_REQUEST_NULL
    rounds = 1
    IF (mode == M_PERS) rounds = 2
    DO round = 1, rounds
      CALL values(coll, round)
      CALL fill(layout)
      IF (mode /= M_PERS .OR. round == 1) CALL call_layout(coll, mode, layout, req, TRIM(what))
      IF (mode == M_PERS) THEN
        CALL check(req /= CART_REQUEST_NULL, TRIM(what)//': persistent request made')
        CALL Cart_start(req, ierr)
        CALL check_rc(ierr, TRIM(what)//': Cart_start')
      END IF
      IF (mode /= M_BLOCK) THEN
        IF (MOD(coll + layout, 2) == 0) THEN
          CALL Cart_wait(req, ierr)
          CALL check_rc(ierr, TRIM(what)//': Cart_wait')
        ELSE
          flag = .FALSE.
          DO k = 1, 100000000
            CALL Cart_test(req, flag)
            IF (flag) EXIT
          END DO
          CALL check(flag, TRIM(what)//': Cart_test completes')
        END IF
        IF (mode == M_NB) CALL check(req == CART_REQUEST_NULL, TRIM(what)//': completed request is NULL')
        IF (mode == M_PERS) CALL check(req /= CART_REQUEST_NULL, TRIM(what)//': persistent request stays')
      END IF
      CALL collect(layout, TRIM(what))
      CALL check(ALL(rv == expect), TRIM(what)//': received blocks')
      IF (ANY(rv /= expect) .AND. nfail < 5) THEN
        WRITE (*, '(A,I0,A,*(1X,I0))') 'rank ', rank, ' got     ', rv
        WRITE (*, '(A,I0,A,*(1X,I0))') 'rank ', rank, ' expected', expect
      END IF
    END DO
    IF (mode == M_PERS) THEN
      CALL Cart_request_free(req, ierr)
      CALL check_rc(ierr, TRIM(what)//': Cart_request_free')
      CALL check(req == CART_REQUEST_NULL, TRIM(what)//': freed request is NULL')
    END IF
  END SUBROUTINE one_case

END MODULE core_state

PROGRAM test_f08_core
  USE mpi_f08
  USE cartcoll_f08
  USE f08check
  USE core_state
  IMPLICIT NONE
  INTEGER :: c, mode, layout, k, cfg
  CHARACTER(LEN=1), PARAMETER :: CONFIGS(2) = ['A', 'B']

  CALL MPI_Init()
  CALL MPI_Comm_rank(MPI_COMM_WORLD, me)
  CALL MPI_Comm_size(MPI_COMM_WORLD, nproc)
  DO k = 1, 3
    CALL MPI_Type_vector(k, 1, 2, MPI_INTEGER, vec(k))
    CALL MPI_Type_commit(vec(k))
  END DO
  DO cfg = 1, 2
    CALL make_neighbourhood(CONFIGS(cfg))
    DO c = 1, 6
      DO mode = M_BLOCK, M_PERS
        DO layout = 0, 2
          CALL one_case(c, mode, layout)
        END DO
      END DO
    END DO
    CALL MPI_Comm_free(cart)
  END DO
  DO k = 1, 3
    CALL MPI_Type_free(vec(k))
  END DO
  CALL finish('test_f08_core')
END PROGRAM test_f08_core

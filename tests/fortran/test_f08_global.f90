! The [ortho] collectives of cartcoll_f08 against first principles:
!   global meaning  the twelve seed-000 collectives (barrier, bcast,
!                   gather(v), scatter(v), reduce, allreduce,
!                   reduce_scatter(_block), scan, exscan), each blocking,
!                   Cart_iX + Cart_wait and Cart_X_init + two starts with new
!                   data, on a duplicate of MPI_COMM_WORLD; MPI_IN_PLACE in
!                   allreduce; non-contiguous sections in bcast's buffer,
!                   gather's send and scatter's receive buffer, the root's
!                   gatherv receive buffer, the buffers of reduce, allreduce
!                   and in-place allreduce (every form), and in every buffer
!                   of the blocking calls;
!   inter-communicator  Cart_alltoallw_init started twice, Cart_ialltoall
!                   with a non-contiguous receive section, Cart_ibarrier, in
!                   Cart_waitall (the bindings keep their datatype arrays
!                   until the request is freed);
!   neighbourhood meaning  Cart_allreduce and Cart_iallreduce on a ring made
!                   by Cart_neighborhood_create (the sum over in-neighbours);
!                   Cart_alltoallw there with MPI_BOTTOM and absolute
!                   addresses.
MODULE global_state
  USE mpi_f08
  USE cartcoll_f08
  USE f08check
  IMPLICIT NONE
  INTEGER, PARAMETER :: M_BLOCK = 1, M_NB = 2, M_PERS = 3, SENT = -7
  CHARACTER(LEN=12), PARAMETER :: MNAME(3) = [CHARACTER(LEN=12) :: 'blocking', 'Cart_iX', 'Cart_X_init']
  TYPE(MPI_Comm) :: comm
  INTEGER :: root

CONTAINS

  ! Run one operation in a mode: blocking, or complete the request it made
  ! (persistent: started here; `first` says whether it was just made).
  SUBROUTINE complete(mode, req, what)
    INTEGER, INTENT(IN) :: mode
    TYPE(Cart_request), INTENT(INOUT) :: req
    CHARACTER(*), INTENT(IN) :: what
    INTEGER :: ierr
    IF (mode == M_BLOCK) RETURN
    IF (mode == M_PERS) THEN
      CALL Cart_start(req, ierr)
      CALL check_rc(ierr, what//': Cart_start')
    END IF
    CALL Cart_wait(req, ierr)
    CALL check_rc(ierr, what//': Cart_wait')
  END SUBROUTINE complete

  SUBROUTINE done(mode, req)
    INTEGER, INTENT(IN) :: mode
    TYPE(Cart_request), INTENT(INOUT) :: req
    IF (mode == M_PERS) CALL Cart_request_free(req)
    CALL check(req == CART_REQUEST_NULL, 'request NULL at the end')
  END SUBROUTINE done

  SUBROUTINE barrier_bcast(mode, sect)
    INTEGER, INTENT(IN) :: mode
    LOGICAL, INTENT(IN) :: sect
    TYPE(Cart_request) :: req, req2
    TYPE(MPI_Datatype) :: tri
    INTEGER, ASYNCHRONOUS :: buf(3), sbuf(2, 3), dbuf(2, 3)
    INTEGER :: round, k, ierr
    CHARACTER(LEN=40) :: what
    WRITE (what, '(A,A,L1)') 'bcast ', TRIM(MNAME(mode)), sect
    req = CART_REQUEST_NULL
    req2 = CART_REQUEST_NULL
    ! a derived datatype on a section: a contiguous copy kept with the request
    CALL MPI_Type_contiguous(3, MPI_INTEGER, tri)
    CALL MPI_Type_commit(tri)
    DO round = 1, MERGE(2, 1, mode == M_PERS)
      buf = SENT
      sbuf = SENT
      dbuf = SENT
      IF (me == root) buf = [(round * 100 + k, k = 1, 3)]
      IF (me == root) sbuf(1, :) = buf
      IF (me == root) dbuf(2, :) = buf
      IF (round == 1 .OR. mode /= M_PERS) THEN
        ierr = MPI_SUCCESS
        IF (sect) THEN
          SELECT CASE (mode)
          CASE (M_BLOCK)
            CALL Cart_bcast(sbuf(1, :), 3, MPI_INTEGER, root, comm, ierr)
            IF (ierr == MPI_SUCCESS) CALL Cart_bcast(dbuf(2, :), 1, tri, root, comm, ierr)
          CASE (M_NB)
            CALL Cart_ibcast(sbuf(1, :), 3, MPI_INTEGER, root, comm, req, ierr)
            IF (ierr == MPI_SUCCESS) CALL Cart_ibcast(dbuf(2, :), 1, tri, root, comm, req2, ierr)
          CASE (M_PERS)
            CALL Cart_bcast_init(sbuf(1, :), 3, MPI_INTEGER, root, comm, MPI_INFO_NULL, req, ierr)
            IF (ierr == MPI_SUCCESS) CALL Cart_bcast_init(dbuf(2, :), 1, tri, root, comm, MPI_INFO_NULL, req2, ierr)
          END SELECT
        ELSE
          SELECT CASE (mode)
          CASE (M_BLOCK)
            CALL Cart_barrier(comm, ierr)
            CALL Cart_bcast(buf, 3, MPI_INTEGER, root, comm, ierr)
          CASE (M_NB)
            CALL Cart_ibarrier(comm, req, ierr)
            CALL Cart_wait(req)
            CALL Cart_ibcast(buf, 3, MPI_INTEGER, root, comm, req, ierr)
          CASE (M_PERS)
            CALL Cart_barrier_init(comm, MPI_INFO_NULL, req, ierr)
            CALL Cart_start(req)
            CALL Cart_wait(req)
            CALL Cart_request_free(req)
            CALL Cart_bcast_init(buf, 3, MPI_INTEGER, root, comm, MPI_INFO_NULL, req, ierr)
          END SELECT
        END IF
        CALL check_rc(ierr, TRIM(what))
      END IF
      CALL complete(mode, req, TRIM(what))
      IF (sect) CALL complete(mode, req2, TRIM(what)//' derived')
      IF (sect) THEN
        CALL check(ALL(sbuf(1, :) == [(round * 100 + k, k = 1, 3)]) .AND. ALL(sbuf(2, :) == SENT), TRIM(what))
        CALL check(ALL(dbuf(2, :) == [(round * 100 + k, k = 1, 3)]) .AND. ALL(dbuf(1, :) == SENT), &
                   TRIM(what)//': a derived datatype on a section')
      ELSE
        CALL check(ALL(buf == [(round * 100 + k, k = 1, 3)]), TRIM(what))
      END IF
    END DO
    CALL done(mode, req)
    IF (sect) CALL done(mode, req2)
    CALL MPI_Type_free(tri)
  END SUBROUTINE barrier_bcast

  ! gather, gatherv (blocks of 2 with a gap of 1 at the root), scatter,
  ! scatterv; sect: the one-block buffer (gather's send, scatter's
  ! receive) is a stride-2 section, and so is gatherv's receive buffer
  ! (the root's many-block buffer).
  SUBROUTINE rooted(mode, sect)
    INTEGER, INTENT(IN) :: mode
    LOGICAL, INTENT(IN) :: sect
    TYPE(Cart_request) :: req(4)
    INTEGER, ASYNCHRONOUS :: gs(2), gs2(2, 2), gr(0:2 * nproc - 1), gvr(0:3 * nproc - 1), gr2(2, 0:3 * nproc - 1)
    INTEGER, ASYNCHRONOUS :: ss(0:3 * nproc - 1), sr(2), sr2(2, 2), svr(2)
    INTEGER :: counts(nproc), displs(nproc), round, j, k, ierr, e, rounds
    CHARACTER(LEN=40) :: what
    WRITE (what, '(A,A,L1)') 'rooted ', TRIM(MNAME(mode)), sect
    counts = 2
    displs = [(3 * j, j = 0, nproc - 1)]
    req = CART_REQUEST_NULL
    rounds = MERGE(2, 1, mode == M_PERS)
    DO round = 1, rounds
      gs = [me * 10 + round, me * 10 + 5 + round]
      gs2 = SENT
      gs2(1, :) = gs
      gr = SENT
      gvr = SENT
      gr2 = SENT
      ss = SENT
      IF (me == root) ss = [(1000 * round + j, j = 0, 3 * nproc - 1)]
      sr = SENT
      sr2 = SENT
      svr = SENT
      IF (round == 1 .OR. mode /= M_PERS) THEN
        ierr = MPI_SUCCESS
        SELECT CASE (mode)
        CASE (M_BLOCK)
          IF (sect) THEN
            CALL Cart_gather(gs2(1, :), 2, MPI_INTEGER, gr, 2, MPI_INTEGER, root, comm, ierr)
            CALL Cart_gatherv(gs2(1, :), 2, MPI_INTEGER, gr2(2, :), counts, displs, MPI_INTEGER, root, comm, ierr)
            CALL Cart_scatter(ss(0:2 * nproc - 1), 2, MPI_INTEGER, sr2(1, :), 2, MPI_INTEGER, root, comm, ierr)
          ELSE
            CALL Cart_gather(gs, 2, MPI_INTEGER, gr, 2, MPI_INTEGER, root, comm, ierr)
            CALL Cart_gatherv(gs, 2, MPI_INTEGER, gvr, counts, displs, MPI_INTEGER, root, comm, ierr)
            CALL Cart_scatter(ss, 2, MPI_INTEGER, sr, 2, MPI_INTEGER, root, comm, ierr)
          END IF
          CALL Cart_scatterv(ss, counts, displs, MPI_INTEGER, svr, 2, MPI_INTEGER, root, comm, ierr)
        CASE (M_NB)
          IF (sect) THEN
            CALL Cart_igather(gs2(1, :), 2, MPI_INTEGER, gr, 2, MPI_INTEGER, root, comm, req(1), ierr)
            CALL Cart_iscatter(ss, 2, MPI_INTEGER, sr2(1, :), 2, MPI_INTEGER, root, comm, req(3), ierr)
          ELSE
            CALL Cart_igather(gs, 2, MPI_INTEGER, gr, 2, MPI_INTEGER, root, comm, req(1), ierr)
            CALL Cart_iscatter(ss, 2, MPI_INTEGER, sr, 2, MPI_INTEGER, root, comm, req(3), ierr)
          END IF
          IF (sect) THEN ! the root's many-block buffer: a contiguous copy kept with the request
            CALL Cart_igatherv(gs, 2, MPI_INTEGER, gr2(2, :), counts, displs, MPI_INTEGER, root, comm, req(2), ierr)
          ELSE
            CALL Cart_igatherv(gs, 2, MPI_INTEGER, gvr, counts, displs, MPI_INTEGER, root, comm, req(2), ierr)
          END IF
          CALL Cart_iscatterv(ss, counts, displs, MPI_INTEGER, svr, 2, MPI_INTEGER, root, comm, req(4), ierr)
        CASE (M_PERS)
          IF (sect) THEN
            CALL Cart_gather_init(gs2(1, :), 2, MPI_INTEGER, gr, 2, MPI_INTEGER, root, comm, MPI_INFO_NULL, req(1))
            CALL Cart_scatter_init(ss, 2, MPI_INTEGER, sr2(1, :), 2, MPI_INTEGER, root, comm, MPI_INFO_NULL, req(3))
          ELSE
            CALL Cart_gather_init(gs, 2, MPI_INTEGER, gr, 2, MPI_INTEGER, root, comm, MPI_INFO_NULL, req(1), ierr)
            CALL Cart_scatter_init(ss, 2, MPI_INTEGER, sr, 2, MPI_INTEGER, root, comm, MPI_INFO_NULL, req(3), ierr)
          END IF
          IF (sect) THEN
            CALL Cart_gatherv_init(gs, 2, MPI_INTEGER, gr2(2, :), counts, displs, MPI_INTEGER, root, comm, &
                                   MPI_INFO_NULL, req(2), ierr)
          ELSE
            CALL Cart_gatherv_init(gs, 2, MPI_INTEGER, gvr, counts, displs, MPI_INTEGER, root, comm, MPI_INFO_NULL, &
                                   req(2), ierr)
          END IF
          CALL Cart_scatterv_init(ss, counts, displs, MPI_INTEGER, svr, 2, MPI_INTEGER, root, comm, MPI_INFO_NULL, &
                                  req(4), ierr)
        END SELECT
        CALL check_rc(ierr, TRIM(what))
      END IF
      IF (mode == M_PERS) CALL Cart_startall(4, req)
      IF (mode /= M_BLOCK) CALL Cart_waitall(4, req)
      IF (me == root) THEN
        DO j = 0, nproc - 1
          DO e = 0, 1
            CALL check(gr(2 * j + e) == j * 10 + 5 * e + round, TRIM(what)//': gather')
            IF (sect) THEN
              CALL check(gr2(2, 3 * j + e) == j * 10 + 5 * e + round, TRIM(what)//': gatherv into a section')
            ELSE
              CALL check(gvr(3 * j + e) == j * 10 + 5 * e + round, TRIM(what)//': gatherv')
            END IF
          END DO
          CALL check(gvr(3 * j + 2) == SENT .AND. gr2(2, 3 * j + 2) == SENT, TRIM(what)//': gatherv gap')
        END DO
        CALL check(ALL(gr2(1, :) == SENT), TRIM(what)//': gatherv outside the section')
      ELSE
        CALL check(ALL(gr == SENT) .AND. ALL(gvr == SENT) .AND. ALL(gr2 == SENT), &
                   TRIM(what)//': non-root receive buffers untouched')
      END IF
      DO k = 1, 2
        IF (sect) THEN
          CALL check(sr2(1, k) == 1000 * round + 2 * me + k - 1 .AND. sr2(2, k) == SENT, TRIM(what)//': scatter')
        ELSE
          CALL check(sr(k) == 1000 * round + 2 * me + k - 1, TRIM(what)//': scatter')
        END IF
        CALL check(svr(k) == 1000 * round + 3 * me + k - 1, TRIM(what)//': scatterv')
      END DO
    END DO
    IF (mode == M_PERS) THEN
      DO k = 1, 4
        CALL Cart_request_free(req(k))
      END DO
    END IF
    CALL check(ALL(req == CART_REQUEST_NULL), TRIM(what)//': requests NULL at the end')
  END SUBROUTINE rooted

  ! reduce, allreduce (also MPI_IN_PLACE), reduce_scatter_block,
  ! reduce_scatter, scan, exscan with MPI_SUM; sect: the buffers of reduce,
  ! allreduce and the in-place allreduce are stride-3 sections (non-blocking
  ! and persistent: contiguous copies kept with the request, refreshed at
  ! every start and copied back at completion; a second Cart_wait on the
  ! inactive persistent request must not copy again).
  SUBROUTINE reductions(mode, sect)
    INTEGER, INTENT(IN) :: mode
    LOGICAL, INTENT(IN) :: sect
    TYPE(Cart_request) :: req(7)
    INTEGER, ASYNCHRONOUS :: s(2), r(2), ar(2), ip(2), rsb(2 * nproc), rsbr(2), rs(3 * nproc), rsr(2), sc(2), ex(2)
    INTEGER, ASYNCHRONOUS :: s2(3, 2), r3(3, 2), a3(3, 2), ip3(3, 2)
    INTEGER :: counts(nproc), round, j, k, ierr, off, tot
    CHARACTER(LEN=40) :: what
    WRITE (what, '(A,A,L1)') 'reductions ', TRIM(MNAME(mode)), sect
    counts = [(1 + MOD(j, 2), j = 0, nproc - 1)]
    req = CART_REQUEST_NULL
    DO round = 1, MERGE(2, 1, mode == M_PERS)
      s = [me + round, 2 * me + round]
      s2 = SENT
      s2(2, :) = s
      r = SENT
      r3 = SENT
      a3 = SENT
      ip3 = SENT
      ip3(2, :) = s
      ar = SENT
      ip = s
      rsb = [(me + 100 * j + round, j = 1, 2 * nproc)]
      rs = [(me + 100 * j + round, j = 1, 3 * nproc)]
      rsbr = SENT
      rsr = SENT
      sc = SENT
      ex = SENT
      IF (round == 1 .OR. mode /= M_PERS) THEN
        ierr = MPI_SUCCESS
        SELECT CASE (mode)
        CASE (M_BLOCK)
          IF (sect) THEN
            CALL Cart_reduce(s2(2, :), r3(2, :), 2, MPI_INTEGER, MPI_SUM, root, comm, ierr)
            CALL Cart_allreduce(s2(2, :), a3(3, :), 2, MPI_INTEGER, MPI_SUM, comm)
            CALL Cart_allreduce(MPI_IN_PLACE, ip3(2, :), 2, MPI_INTEGER, MPI_SUM, comm, ierr)
          ELSE
            CALL Cart_reduce(s, r, 2, MPI_INTEGER, MPI_SUM, root, comm, ierr)
            CALL Cart_allreduce(s, ar, 2, MPI_INTEGER, MPI_SUM, comm)
            CALL Cart_allreduce(MPI_IN_PLACE, ip, 2, MPI_INTEGER, MPI_SUM, comm, ierr)
          END IF
          CALL Cart_reduce_scatter_block(rsb, rsbr, 2, MPI_INTEGER, MPI_SUM, comm, ierr)
          CALL Cart_reduce_scatter(rs, rsr, counts, MPI_INTEGER, MPI_SUM, comm, ierr)
          CALL Cart_scan(s, sc, 2, MPI_INTEGER, MPI_SUM, comm, ierr)
          CALL Cart_exscan(s, ex, 2, MPI_INTEGER, MPI_SUM, comm, ierr)
        CASE (M_NB)
          IF (sect) THEN
            CALL Cart_ireduce(s2(2, :), r3(2, :), 2, MPI_INTEGER, MPI_SUM, root, comm, req(1), ierr)
            CALL Cart_iallreduce(s2(2, :), a3(3, :), 2, MPI_INTEGER, MPI_SUM, comm, req(2))
            CALL Cart_iallreduce(MPI_IN_PLACE, ip3(2, :), 2, MPI_INTEGER, MPI_SUM, comm, req(3), ierr)
          ELSE
            CALL Cart_ireduce(s, r, 2, MPI_INTEGER, MPI_SUM, root, comm, req(1), ierr)
            CALL Cart_iallreduce(s, ar, 2, MPI_INTEGER, MPI_SUM, comm, req(2))
            CALL Cart_iallreduce(MPI_IN_PLACE, ip, 2, MPI_INTEGER, MPI_SUM, comm, req(3), ierr)
          END IF
          CALL Cart_ireduce_scatter_block(rsb, rsbr, 2, MPI_INTEGER, MPI_SUM, comm, req(4), ierr)
          CALL Cart_ireduce_scatter(rs, rsr, counts, MPI_INTEGER, MPI_SUM, comm, req(5), ierr)
          CALL Cart_iscan(s, sc, 2, MPI_INTEGER, MPI_SUM, comm, req(6), ierr)
          CALL Cart_iexscan(s, ex, 2, MPI_INTEGER, MPI_SUM, comm, req(7), ierr)
        CASE (M_PERS)
          IF (sect) THEN
            CALL Cart_reduce_init(s2(2, :), r3(2, :), 2, MPI_INTEGER, MPI_SUM, root, comm, MPI_INFO_NULL, req(1), ierr)
            CALL Cart_allreduce_init(s2(2, :), a3(3, :), 2, MPI_INTEGER, MPI_SUM, comm, MPI_INFO_NULL, req(2))
            CALL Cart_allreduce_init(MPI_IN_PLACE, ip3(2, :), 2, MPI_INTEGER, MPI_SUM, comm, MPI_INFO_NULL, req(3), &
                                     ierr)
          ELSE
            CALL Cart_reduce_init(s, r, 2, MPI_INTEGER, MPI_SUM, root, comm, MPI_INFO_NULL, req(1), ierr)
            CALL Cart_allreduce_init(s, ar, 2, MPI_INTEGER, MPI_SUM, comm, MPI_INFO_NULL, req(2))
            CALL Cart_allreduce_init(MPI_IN_PLACE, ip, 2, MPI_INTEGER, MPI_SUM, comm, MPI_INFO_NULL, req(3), ierr)
          END IF
          CALL Cart_reduce_scatter_block_init(rsb, rsbr, 2, MPI_INTEGER, MPI_SUM, comm, MPI_INFO_NULL, req(4), ierr)
          CALL Cart_reduce_scatter_init(rs, rsr, counts, MPI_INTEGER, MPI_SUM, comm, MPI_INFO_NULL, req(5), ierr)
          CALL Cart_scan_init(s, sc, 2, MPI_INTEGER, MPI_SUM, comm, MPI_INFO_NULL, req(6), ierr)
          CALL Cart_exscan_init(s, ex, 2, MPI_INTEGER, MPI_SUM, comm, MPI_INFO_NULL, req(7), ierr)
        END SELECT
        CALL check_rc(ierr, TRIM(what))
      END IF
      IF (mode == M_PERS) CALL Cart_startall(7, req)
      IF (mode /= M_BLOCK) THEN
        DO k = 7, 1, -1 ! completed out of order
          CALL Cart_wait(req(k))
        END DO
      END IF
      ! sum over ranks of (r + round, 2 r + round)
      tot = nproc * (nproc - 1) / 2
      IF (sect) THEN
        CALL check(ALL(a3(3, :) == [tot + nproc * round, 2 * tot + nproc * round]), TRIM(what)//': allreduce')
        CALL check(ALL(a3(1:2, :) == SENT), TRIM(what)//': allreduce outside the section')
        IF (me == root) CALL check(ALL(r3(2, :) == [tot + nproc * round, 2 * tot + nproc * round]), &
                                   TRIM(what)//': reduce')
        IF (me /= root) CALL check(ALL(r3(2, :) == SENT), TRIM(what)//': reduce at non-roots')
        CALL check(ALL(r3(1, :) == SENT) .AND. ALL(r3(3, :) == SENT), TRIM(what)//': reduce outside the section')
        CALL check(ALL(ip3(2, :) == [tot + nproc * round, 2 * tot + nproc * round]), &
                   TRIM(what)//': allreduce MPI_IN_PLACE')
        CALL check(ALL(ip3(1, :) == SENT) .AND. ALL(ip3(3, :) == SENT), &
                   TRIM(what)//': allreduce MPI_IN_PLACE outside the section')
        CALL check(ALL(s2(2, :) == s) .AND. ALL(s2(1, :) == SENT) .AND. ALL(s2(3, :) == SENT), &
                   TRIM(what)//': send section unchanged')
        IF (mode == M_PERS) THEN ! an inactive request: waiting again copies nothing back
          a3(3, :) = -round
          CALL Cart_wait(req(2), ierr)
          CALL check_rc(ierr, TRIM(what)//': Cart_wait on an inactive request')
          CALL check(ALL(a3(3, :) == -round), TRIM(what)//': Cart_wait on an inactive request leaves the section')
        END IF
      ELSE
        CALL check(ALL(ar == [tot + nproc * round, 2 * tot + nproc * round]), TRIM(what)//': allreduce')
        IF (me == root) CALL check(ALL(r == [tot + nproc * round, 2 * tot + nproc * round]), TRIM(what)//': reduce')
        IF (me /= root) CALL check(ALL(r == SENT), TRIM(what)//': reduce at non-roots')
        CALL check(ALL(ip == [tot + nproc * round, 2 * tot + nproc * round]), TRIM(what)//': allreduce MPI_IN_PLACE')
      END IF
      ! block me of the sources: elements 2 me + 1, 2 me + 2 -> sum_r (r + 100 j + round)
      DO k = 1, 2
        j = 2 * me + k
        CALL check(rsbr(k) == tot + nproc * (100 * j + round), TRIM(what)//': reduce_scatter_block')
      END DO
      off = SUM(counts(1:me))
      DO k = 1, counts(me + 1)
        j = off + k
        CALL check(rsr(k) == tot + nproc * (100 * j + round), TRIM(what)//': reduce_scatter')
      END DO
      IF (counts(me + 1) < 2) CALL check(rsr(2) == SENT, TRIM(what)//': reduce_scatter beyond the count')
      ! prefix sums over ranks 0..me (inclusive) and 0..me-1 (exclusive)
      CALL check(ALL(sc == [me * (me + 1) / 2 + (me + 1) * round, me * (me + 1) + (me + 1) * round]), &
                 TRIM(what)//': scan')
      IF (me > 0) CALL check(ALL(ex == [(me - 1) * me / 2 + me * round, (me - 1) * me + me * round]), &
                             TRIM(what)//': exscan')
    END DO
    IF (mode == M_PERS) THEN
      DO k = 1, 7
        CALL Cart_request_free(req(k))
      END DO
    END IF
    CALL check(ALL(req == CART_REQUEST_NULL), TRIM(what)//': requests NULL at the end')
  END SUBROUTINE reductions

  ! Cart_alltoallw with MPI_BOTTOM on a ring neighbourhood: blocks given by
  ! absolute addresses (block 1 to +1, block 2 to -1).
  SUBROUTINE bottom()
    INTEGER, ASYNCHRONOUS, TARGET :: sv(2), rv(2)
    INTEGER(KIND=MPI_ADDRESS_KIND) :: sd(2), rd(2)
    INTEGER :: counts(2), j, dims(1)
    TYPE(MPI_Datatype) :: types(2)
    TYPE(MPI_Comm) :: ring
    dims = nproc
    CALL Cart_neighborhood_create(MPI_COMM_WORLD, 1, dims, [.TRUE.], 2, [1, -1], MPI_UNWEIGHTED, MPI_INFO_NULL, &
                                  .FALSE., ring)
    sv = [me * 10 + 1, me * 10 + 2]
    rv = SENT
    DO j = 1, 2
      CALL MPI_Get_address(sv(j), sd(j))
      CALL MPI_Get_address(rv(j), rd(j))
    END DO
    counts = 1
    types = MPI_INTEGER
    CALL Cart_alltoallw(MPI_BOTTOM, counts, sd, types, MPI_BOTTOM, counts, rd, types, ring)
    CALL check(rv(1) == MODULO(me - 1, nproc) * 10 + 1 .AND. rv(2) == MODULO(me + 1, nproc) * 10 + 2, &
               'Cart_alltoallw with MPI_BOTTOM')
    CALL MPI_Comm_free(ring)
  END SUBROUTINE bottom

  ! Inter-communicator between the even and the odd ranks (p >= 2).
  SUBROUTINE inter()
    TYPE(MPI_Comm) :: local, icomm
    TYPE(Cart_request) :: req(3)
    INTEGER :: color, rsize, lrank, j, round, ierr
    INTEGER, ALLOCATABLE, ASYNCHRONOUS :: sv(:), rv(:), nbs(:), nbr(:, :)
    INTEGER, ALLOCATABLE :: counts(:)
    INTEGER(KIND=MPI_ADDRESS_KIND), ALLOCATABLE :: sd(:), rd(:)
    TYPE(MPI_Datatype), ALLOCATABLE :: types(:)
    IF (nproc < 2) RETURN
    color = MOD(me, 2)
    CALL MPI_Comm_split(MPI_COMM_WORLD, color, me, local)
    CALL MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 77, icomm)
    CALL MPI_Comm_remote_size(icomm, rsize)
    CALL MPI_Comm_rank(local, lrank)
    ALLOCATE (sv(rsize), rv(rsize), counts(rsize), sd(rsize), rd(rsize), types(rsize), nbs(rsize), nbr(2, rsize))
    counts = 1
    sd = [(4 * (j - 1), j = 1, rsize)]
    rd = sd
    types = MPI_INTEGER
    CALL Cart_alltoallw_init(sv, counts, sd, types, rv, counts, rd, types, icomm, MPI_INFO_NULL, req(1), ierr)
    CALL check_rc(ierr, 'inter Cart_alltoallw_init')
    ! The datatype array may change after the call (the bindings keep their
    ! converted copy with the request); counts and displacements are passed
    ! on and, on inter-communicators, must stay valid as in C.
    types = MPI_DATATYPE_NULL
    DO round = 1, 2
      ! to remote rank j - 1 (world rank 2 (j - 1) + 1 - color): our world rank, j, round
      sv = [(me * 1000 + j * 10 + round, j = 1, rsize)]
      rv = SENT
      nbs = [(me * 100 + j, j = 1, rsize)]
      nbr = SENT
      CALL Cart_start(req(1))
      CALL Cart_ialltoall(nbs, 1, MPI_INTEGER, nbr(2, :), 1, MPI_INTEGER, icomm, req(2), ierr)
      CALL check_rc(ierr, 'inter Cart_ialltoall into a section')
      CALL Cart_ibarrier(icomm, req(3))
      CALL Cart_waitall(3, req, ierr)
      CALL check_rc(ierr, 'inter Cart_waitall')
      DO j = 1, rsize
        CALL check(rv(j) == (2 * (j - 1) + 1 - color) * 1000 + (lrank + 1) * 10 + round, 'inter Cart_alltoallw_init')
        CALL check(nbr(2, j) == (2 * (j - 1) + 1 - color) * 100 + lrank + 1 .AND. nbr(1, j) == SENT, &
                   'inter Cart_ialltoall into a section')
      END DO
    END DO
    CALL Cart_request_free(req(1))
    CALL MPI_Comm_free(icomm)
    CALL MPI_Comm_free(local)
  END SUBROUTINE inter

  ! Neighbourhood meaning on a ring: the sum over the in-neighbours.
  SUBROUTINE ring_allreduce()
    TYPE(MPI_Comm) :: ring
    TYPE(Cart_request) :: req
    INTEGER :: dims(1), left, right
    INTEGER, ASYNCHRONOUS :: x, y
    dims = nproc
    CALL Cart_neighborhood_create(MPI_COMM_WORLD, 1, dims, [.TRUE.], 2, [1, -1], MPI_UNWEIGHTED, MPI_INFO_NULL, &
                                  .FALSE., ring)
    left = MODULO(me - 1, nproc)
    right = MODULO(me + 1, nproc)
    x = me + 1
    y = SENT
    CALL Cart_allreduce(x, y, 1, MPI_INTEGER, MPI_SUM, ring)
    CALL check(y == left + right + 2, 'Cart_allreduce on a ring (neighbourhood meaning)')
    y = SENT
    CALL Cart_iallreduce(x, y, 1, MPI_INTEGER, MPI_SUM, ring, req)
    CALL Cart_wait(req)
    CALL check(y == left + right + 2, 'Cart_iallreduce on a ring (neighbourhood meaning)')
    CALL MPI_Comm_free(ring)
  END SUBROUTINE ring_allreduce

END MODULE global_state

PROGRAM test_f08_global
  USE mpi_f08
  USE f08check
  USE global_state
  IMPLICIT NONE
  INTEGER :: mode
  CALL MPI_Init()
  CALL MPI_Comm_rank(MPI_COMM_WORLD, me)
  CALL MPI_Comm_size(MPI_COMM_WORLD, nproc)
  CALL MPI_Comm_dup(MPI_COMM_WORLD, comm)
  root = nproc - 1
  DO mode = M_BLOCK, M_PERS
    CALL barrier_bcast(mode, .FALSE.)
    CALL barrier_bcast(mode, .TRUE.)
    CALL rooted(mode, .FALSE.)
    CALL rooted(mode, .TRUE.)
    CALL reductions(mode, .FALSE.)
    CALL reductions(mode, .TRUE.)
  END DO
  CALL bottom()
  CALL inter()
  CALL ring_allreduce()
  CALL MPI_Comm_free(comm)
  CALL finish('test_f08_global')
END PROGRAM test_f08_global

! The [part] bindings of cartcoll_f08: the sixteen Cart_p*_init with global
! meaning on a duplicate of MPI_COMM_WORLD (results from first principles:
! values made from ranks), Cart_palltoall_init on a Cartesian neighbourhood
! (the early bird; block i from Cart_neighbor_get's source i), every
! Cart_pready* and Cart_parrived* form, send and receive sides partitioned
! differently (2 partitions of 2 against 4 of 1), and one bad use.
PROGRAM test_f08_part
  USE mpi_f08
  USE cartcoll_f08
  USE f08check
  IMPLICIT NONE
  INTEGER, PARAMETER :: E = 4
  INTEGER(KIND=MPI_COUNT_KIND), PARAMETER :: C2 = 2, C1 = 1
  TYPE(MPI_Comm) :: w, cart
  TYPE(Cart_request) :: r
  INTEGER :: ierr, p, j, k, t, i
  INTEGER, ALLOCATABLE :: sb(:), rb(:), want(:), parts(:), rparts(:), lst(:), src(:), dst(:), wts(:)
  INTEGER(KIND=MPI_COUNT_KIND), ALLOCATABLE :: cnt(:), rcnt(:)
  INTEGER(KIND=MPI_ADDRESS_KIND), ALLOCATABLE :: dis(:), disb(:)
  TYPE(MPI_Datatype), ALLOCATABLE :: types(:)
  INTEGER :: dims(2), st(16)
  LOGICAL :: periods(2), flag

  CALL MPI_Init(ierr)
  CALL MPI_Comm_dup(MPI_COMM_WORLD, w)
  CALL MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN)
  CALL MPI_Comm_rank(w, me)
  CALL MPI_Comm_size(w, nproc)
  p = nproc
  ALLOCATE (sb(E * p), rb(E * p), want(E * p), parts(p), rparts(p), lst(2 * p), cnt(p), rcnt(p), dis(p), disb(p), &
            types(p))
  parts = 2
  rparts = 4
  cnt = 2
  rcnt = 1
  types = MPI_INTEGER
  DO j = 1, p
    dis(j) = (j - 1) * E
    disb(j) = (j - 1) * E * 4
  END DO

  ! --- bcast (root 1 or 0), Cart_pready one by one ---------------------------
  sb = -1
  IF (me == MIN(1, p - 1)) sb(1:E) = [(100 + k, k = 0, E - 1)]
  CALL Cart_pbcast_init(sb, 2, C2, MPI_INTEGER, MIN(1, p - 1), w, MPI_INFO_NULL, r, ierr)
  CALL check_rc(ierr, 'Cart_pbcast_init')
  CALL Cart_start(r, ierr)
  IF (me == MIN(1, p - 1)) THEN
    CALL Cart_pready(1, r, ierr)
    CALL Cart_pready(0, r, ierr)
    CALL check_rc(ierr, 'Cart_pready')
  END IF
  CALL finish_op(r, MERGE(0, 2, me == MIN(1, p - 1)))
  CALL check(ALL(sb(1:E) == [(100 + k, k = 0, E - 1)]), 'pbcast: the buffer')

  ! --- gather, gatherv (root 0), Cart_pready_list ----------------------------
  DO i = 1, 2
    sb(1:E) = [(me * 10 + k, k = 0, E - 1)]
    rb = -1
    IF (i == 1) THEN
      CALL Cart_pgather_init(sb, 2, C2, MPI_INTEGER, rb, 4, C1, MPI_INTEGER, 0, w, MPI_INFO_NULL, r, ierr)
    ELSE
      CALL Cart_pgatherv_init(sb, 2, C2, MPI_INTEGER, rb, rparts, rcnt, dis, MPI_INTEGER, 0, w, MPI_INFO_NULL, r, ierr)
    END IF
    CALL check_rc(ierr, 'Cart_pgather(v)_init')
    CALL Cart_start(r, ierr)
    CALL Cart_pready_list(2, [1, 0], r, ierr)
    CALL check_rc(ierr, 'Cart_pready_list')
    CALL finish_op(r, MERGE(4 * p, 0, me == 0))
    IF (me == 0) CALL check(ALL(rb == [((j * 10 + k, k = 0, E - 1), j = 0, p - 1)]), 'pgather(v): the blocks')
  END DO

  ! --- scatter, scatterv (root 0), Cart_pready_range -------------------------
  DO i = 1, 2
    sb = [((j * 10 + k, k = 0, E - 1), j = 0, p - 1)]
    rb = -1
    IF (i == 1) THEN
      CALL Cart_pscatter_init(sb, 2, C2, MPI_INTEGER, rb, 4, C1, MPI_INTEGER, 0, w, MPI_INFO_NULL, r, ierr)
    ELSE
      CALL Cart_pscatterv_init(sb, parts, cnt, dis, MPI_INTEGER, rb, 4, C1, MPI_INTEGER, 0, w, MPI_INFO_NULL, r, ierr)
    END IF
    CALL check_rc(ierr, 'Cart_pscatter(v)_init')
    CALL Cart_start(r, ierr)
    IF (me == 0) CALL Cart_pready_range(0, 2 * p - 1, r, ierr)
    CALL check_rc(ierr, 'Cart_pready_range')
    CALL finish_op(r, 4)
    CALL check(ALL(rb(1:E) == [(me * 10 + k, k = 0, E - 1)]), 'pscatter(v): my block')
  END DO

  ! --- allgather, allgatherv: Cart_pready_range_to per destination -----------
  DO i = 1, 2
    sb(1:E) = [(me * 10 + k, k = 0, E - 1)]
    rb = -1
    IF (i == 1) THEN
      CALL Cart_pallgather_init(sb, 2, C2, MPI_INTEGER, rb, 4, C1, MPI_INTEGER, w, MPI_INFO_NULL, r, ierr)
    ELSE
      CALL Cart_pallgatherv_init(sb, 2, C2, MPI_INTEGER, rb, rparts, rcnt, dis, MPI_INTEGER, w, MPI_INFO_NULL, r, ierr)
    END IF
    CALL check_rc(ierr, 'Cart_pallgather(v)_init')
    CALL Cart_start(r, ierr)
    DO j = 0, p - 1
      CALL Cart_pready_range_to(0, 1, j, r, ierr)
    END DO
    CALL check_rc(ierr, 'Cart_pready_range_to')
    CALL finish_op(r, 4 * p)
    CALL check(ALL(rb == [((j * 10 + k, k = 0, E - 1), j = 0, p - 1)]), 'pallgather(v): the blocks')
  END DO

  ! --- alltoall, v, w: Cart_pready_to / Cart_pready_list_to --------------------
  DO i = 1, 3
    sb = [((me * 100 + j * 10 + k, k = 0, E - 1), j = 0, p - 1)]
    rb = -1
    SELECT CASE (i)
    CASE (1)
      CALL Cart_palltoall_init(sb, 2, C2, MPI_INTEGER, rb, 4, C1, MPI_INTEGER, w, MPI_INFO_NULL, r, ierr)
    CASE (2)
      CALL Cart_palltoallv_init(sb, parts, cnt, dis, MPI_INTEGER, rb, rparts, rcnt, dis, MPI_INTEGER, w, &
                                MPI_INFO_NULL, r, ierr)
    CASE DEFAULT
      CALL Cart_palltoallw_init(sb, parts, cnt, disb, types, rb, rparts, rcnt, disb, types, w, MPI_INFO_NULL, r, ierr)
    END SELECT
    CALL check_rc(ierr, 'Cart_palltoall(v,w)_init')
    CALL Cart_start(r, ierr)
    DO j = 0, p - 1
      IF (MOD(j, 2) == 0) THEN
        CALL Cart_pready_to(0, j, r, ierr)
        CALL Cart_pready_to(1, j, r, ierr)
        CALL check_rc(ierr, 'Cart_pready_to')
      ELSE
        CALL Cart_pready_list_to(2, [0, 1], j, r, ierr)
        CALL check_rc(ierr, 'Cart_pready_list_to')
      END IF
    END DO
    CALL finish_op(r, 4 * p)
    CALL check(ALL(rb == [((j * 100 + me * 10 + k, k = 0, E - 1), j = 0, p - 1)]), 'palltoall(v,w): the blocks')
  END DO

  ! --- reductions ---------------------------------------------------------------
  sb(1:E) = [(me + k, k = 0, E - 1)]
  DO i = 1, 4
    rb = -1
    SELECT CASE (i)
    CASE (1)
      CALL Cart_preduce_init(sb, rb, 2, C2, MPI_INTEGER, MPI_SUM, 0, w, MPI_INFO_NULL, r, ierr)
      want(1:E) = [(p * (p - 1) / 2 + p * k, k = 0, E - 1)]
    CASE (2)
      CALL Cart_pallreduce_init(sb, rb, 2, C2, MPI_INTEGER, MPI_SUM, w, MPI_INFO_NULL, r, ierr)
      want(1:E) = [(p * (p - 1) / 2 + p * k, k = 0, E - 1)]
    CASE (3)
      CALL Cart_pscan_init(sb, rb, 2, C2, MPI_INTEGER, MPI_SUM, w, MPI_INFO_NULL, r, ierr)
      want(1:E) = [(me * (me + 1) / 2 + (me + 1) * k, k = 0, E - 1)]
    CASE DEFAULT
      CALL Cart_pexscan_init(sb, rb, 2, C2, MPI_INTEGER, MPI_SUM, w, MPI_INFO_NULL, r, ierr)
      want(1:E) = [(me * (me - 1) / 2 + me * k, k = 0, E - 1)]
    END SELECT
    CALL check_rc(ierr, 'Cart_p(all)reduce/scan/exscan_init')
    CALL Cart_start(r, ierr)
    CALL Cart_pready_range(0, 1, r, ierr)
    CALL finish_op(r, MERGE(0, 2, i == 1 .AND. me /= 0))
    IF ((i /= 1 .OR. me == 0) .AND. (i /= 4 .OR. me > 0)) &
      CALL check(ALL(rb(1:E) == want(1:E)), 'preduce/pallreduce/pscan/pexscan: the result')
  END DO
  DO i = 1, 2
    sb = [((me + j + k, k = 0, E - 1), j = 0, p - 1)]
    rb = -1
    IF (i == 1) THEN
      CALL Cart_preduce_scatter_block_init(sb, rb, 2, C2, MPI_INTEGER, MPI_SUM, w, MPI_INFO_NULL, r, ierr)
    ELSE
      CALL Cart_preduce_scatter_init(sb, rb, parts, cnt, MPI_INTEGER, MPI_SUM, w, MPI_INFO_NULL, r, ierr)
    END IF
    CALL check_rc(ierr, 'Cart_preduce_scatter(_block)_init')
    CALL Cart_start(r, ierr)
    CALL Cart_pready_range(0, 2 * p - 1, r, ierr)
    CALL finish_op(r, 2)
    CALL check(ALL(rb(1:E) == [(p * (p - 1) / 2 + p * (me + k), k = 0, E - 1)]), 'preduce_scatter(_block): my block')
  END DO

  ! --- the early bird on a neighbourhood, Cart_parrived_from ------------------
  dims = 0
  periods = .TRUE.
  CALL MPI_Dims_create(p, 2, dims, ierr)
  CALL Cart_stencil_count(2, CART_CHEBYSHEV, 1, 1, t, ierr)
  CALL Cart_stencil(2, CART_CHEBYSHEV, 1, 1, 8, st, ierr)
  CALL Cart_neighborhood_create(MPI_COMM_WORLD, 2, dims, periods, t, st, MPI_UNWEIGHTED, MPI_INFO_NULL, .FALSE., cart, &
                                ierr)
  ALLOCATE (src(t), dst(t), wts(2 * t))
  CALL Cart_neighbor_get(cart, t, src, wts, t, dst, wts(t + 1:), ierr)
  DEALLOCATE (sb, rb)
  ALLOCATE (sb(E * t), rb(E * t))
  sb = [((me * 100 + j * 10 + k, k = 0, E - 1), j = 0, t - 1)]
  rb = -1
  CALL Cart_palltoall_init(sb, 2, C2, MPI_INTEGER, rb, 4, C1, MPI_INTEGER, cart, MPI_INFO_NULL, r, ierr)
  CALL check_rc(ierr, 'Cart_palltoall_init on a neighbourhood')
  CALL Cart_start(r, ierr)
  CALL Cart_pready_range(0, 2 * t - 1, r, ierr)
  flag = .FALSE.
  DO WHILE (.NOT. flag)
    CALL Cart_parrived_from(r, 3, t - 1, flag, ierr)
  END DO
  CALL check(ALL(rb(E * (t - 1) + 4:E * t) == [src(t) * 100 + (t - 1) * 10 + 3]), &
             'Cart_parrived_from: an arrived partition holds its value')
  CALL finish_op(r, 4 * t)
  CALL check(ALL(rb == [((src(j + 1) * 100 + j * 10 + k, k = 0, E - 1), j = 0, t - 1)]), 'neighbourhood palltoall')
  ! a bad use: marking on an inactive request
  CALL MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN)
  CALL Cart_palltoall_init(sb, 2, C2, MPI_INTEGER, rb, 4, C1, MPI_INTEGER, cart, MPI_INFO_NULL, r, ierr)
  CALL Cart_pready(0, r, ierr)
  CALL check_class(ierr, MPI_ERR_REQUEST, 'Cart_pready on an inactive request')
  CALL Cart_request_free(r, ierr)
  CALL MPI_Comm_free(cart)
  CALL MPI_Comm_free(w)
  CALL finish('test_f08_part')

CONTAINS

  ! Poll the last receive partition with Cart_parrived, wait, check that it
  ! reads arrived afterwards, free.
  SUBROUTINE finish_op(req, nrecv)
    TYPE(Cart_request), INTENT(INOUT) :: req
    INTEGER, INTENT(IN) :: nrecv
    LOGICAL :: f
    INTEGER :: rc
    f = .FALSE.
    IF (nrecv > 0) THEN
      DO WHILE (.NOT. f)
        CALL Cart_parrived(req, nrecv - 1, f, rc)
        IF (rc /= MPI_SUCCESS) EXIT
      END DO
      CALL check_rc(rc, 'Cart_parrived')
    END IF
    CALL Cart_wait(req, rc)
    CALL check_rc(rc, 'Cart_wait')
    CALL Cart_request_free(req, rc)
    CALL check_rc(rc, 'Cart_request_free')
  END SUBROUTINE finish_op

END PROGRAM test_f08_part

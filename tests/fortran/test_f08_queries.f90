! The local functions of cartcoll_f08 and the requests, against first
! principles:
!   stencils      Cart_stencil_count / Cart_stencil against a brute-force walk
!                 of the cube (row-major order of the vectors);
!   neighbourhood Cart_neighbor_count, Cart_neighbor_get, Cart_neighborhood_get
!                 (weights, MPI_UNWEIGHTED in and out), Cart_relative_rank /
!                 _shift / _coordinates on a torus x mesh, Cart_schedule_stats
!                 (DIRECT and COMBINING figures of seed 002 computed here);
!   naming        Cart_name (column-major, a grid larger than the
!                 communicator), Cart_test_name, Cart_get (LOGICAL periods),
!                 Cart_rank, Cart_coordinates, Cart_allranks[_relative],
!                 Cart_neighbors[_count], Cart_create_sub (LOGICAL
!                 remain_dims), Cart_comm_base, the row-major naming of an
!                 MPI_Cart_create communicator;
!   detection     Cart_dist_graph_create_adjacent / Cart_dist_graph_create
!                 (MPI_UNWEIGHTED) of a ring, Cart_alltoall / Cart_allgather
!                 on them;
!   requests      CART_REQUEST_NULL, == and /=, Cart_test / Cart_wait on null
!                 requests, Cart_startall / Cart_waitall of persistent and
!                 non-blocking requests, Cart_request_free.
PROGRAM test_f08_queries
  USE mpi_f08
  USE cartcoll_f08
  USE f08check
  IMPLICIT NONE

  CALL MPI_Init()
  CALL MPI_Comm_rank(MPI_COMM_WORLD, me)
  CALL MPI_Comm_size(MPI_COMM_WORLD, nproc)
  CALL stencils()
  CALL neighbourhood()
  CALL naming()
  CALL detection()
  CALL requests()
  CALL finish('test_f08_queries')

CONTAINS

  ! Distance of vector v under metric.
  INTEGER FUNCTION dist(v, metric)
    INTEGER, INTENT(IN) :: v(:), metric
    IF (metric == CART_MANHATTAN) THEN
      dist = SUM(ABS(v))
    ELSE
      dist = MAXVAL(ABS(v))
    END IF
  END FUNCTION dist

  SUBROUTINE stencils()
    INTEGER :: d, metric, shadow, depth, cnt, n, k, ierr, i
    INTEGER :: v(3), rel(3, 400), want(3, 400)
    CHARACTER(LEN=60) :: what
    DO d = 1, 3
      DO metric = CART_MANHATTAN, CART_CHEBYSHEV
        DO depth = 0, 2
          DO shadow = 0, depth
            WRITE (what, '(A,4(1X,I0))') 'stencil', d, metric, shadow, depth
            ! brute force, row-major: the last component fastest
            n = 0
            DO k = 0, (2 * depth + 1)**d - 1
              i = k
              DO ierr = d, 1, -1
                v(ierr) = MOD(i, 2 * depth + 1) - depth
                i = i / (2 * depth + 1)
              END DO
              IF (dist(v(1:d), metric) >= shadow .AND. dist(v(1:d), metric) <= depth) THEN
                n = n + 1
                want(1:d, n) = v(1:d)
              END IF
            END DO
            CALL Cart_stencil_count(d, metric, shadow, depth, cnt, ierr)
            CALL check(ierr == MPI_SUCCESS .AND. cnt == n, TRIM(what)//': Cart_stencil_count')
            rel = -99
            CALL Cart_stencil(d, metric, shadow, depth, 400, rel)
            CALL check(ALL(RESHAPE(rel, [3 * 400]) == [RESHAPE(want(1:d, 1:n), [d * n]), &
                       (-99, i = 1, 3 * 400 - d * n)]), TRIM(what)//': Cart_stencil')
          END DO
        END DO
      END DO
    END DO
  END SUBROUTINE stencils

  ! Row-major rank of c on grid dims with periodicity per; MPI_PROC_NULL off it.
  INTEGER FUNCTION rm_rank(c, dims, per)
    INTEGER, INTENT(IN) :: c(:), dims(:)
    LOGICAL, INTENT(IN) :: per(:)
    INTEGER :: k, x
    rm_rank = 0
    DO k = 1, SIZE(c)
      x = c(k)
      IF (per(k)) x = MODULO(x, dims(k))
      IF (x < 0 .OR. x >= dims(k)) THEN
        rm_rank = MPI_PROC_NULL
        RETURN
      END IF
      rm_rank = rm_rank * dims(k) + x
    END DO
  END FUNCTION rm_rank

  SUBROUTINE neighbourhood()
    INTEGER, PARAMETER :: T = 6
    INTEGER :: targets(2, T), weights(T), dims(2), coords(2), c(2), rel(2, T), w(T), got(2)
    INTEGER :: srcs(T), dsts(T), sw(T), dw(T), n, i, k, r, dest, inr, outr, ierr, rank, phases, rounds, volume
    INTEGER :: distinct, ck, vals(2 * T), z
    LOGICAL :: periods(2), lper(2)
    TYPE(MPI_Comm) :: cart, plain
    targets = RESHAPE([-1, 0, 1, 0, 0, -1, 0, 1, 1, 1, 0, 2], [2, T])
    weights = [(10 + i, i = 1, T)]
    dims = 0
    CALL MPI_Dims_create(nproc, 2, dims)
    periods = [.TRUE., .FALSE.]
    CALL Cart_neighborhood_create(MPI_COMM_WORLD, 2, dims, periods, T, targets, weights, MPI_INFO_NULL, .FALSE., &
                                  cart, ierr)
    CALL check_rc(ierr, 'Cart_neighborhood_create')
    CALL MPI_Comm_rank(cart, rank)
    coords = [rank / dims(2), MOD(rank, dims(2))]
    CALL Cart_neighbor_count(cart, n, ierr)
    CALL check(ierr == MPI_SUCCESS .AND. n == T, 'Cart_neighbor_count')
    CALL Cart_neighbor_get(cart, T, srcs, sw, T, dsts, dw, ierr)
    CALL check_rc(ierr, 'Cart_neighbor_get')
    DO i = 1, T
      CALL check(srcs(i) == rm_rank(coords - targets(:, i), dims, periods), 'Cart_neighbor_get: sources')
      CALL check(dsts(i) == rm_rank(coords + targets(:, i), dims, periods), 'Cart_neighbor_get: targets')
    END DO
    CALL check(ALL(sw == weights) .AND. ALL(dw == weights), 'Cart_neighbor_get: weights')
    srcs = -5
    CALL Cart_neighbor_get(cart, T, srcs, MPI_UNWEIGHTED, T, dsts, MPI_UNWEIGHTED, ierr)
    CALL check(ierr == MPI_SUCCESS .AND. srcs(1) == rm_rank(coords - targets(:, 1), dims, periods), &
               'Cart_neighbor_get with MPI_UNWEIGHTED')
    CALL Cart_neighborhood_get(cart, T, rel, w)
    CALL check(ALL(rel == targets) .AND. ALL(w == weights), 'Cart_neighborhood_get')
    rel = 0
    CALL Cart_neighborhood_get(cart, T, rel, MPI_UNWEIGHTED, ierr)
    CALL check(ierr == MPI_SUCCESS .AND. ALL(rel == targets), 'Cart_neighborhood_get with MPI_UNWEIGHTED')
    DO i = 1, T
      CALL Cart_relative_rank(cart, rank, targets(:, i), dest)
      CALL check(dest == rm_rank(coords + targets(:, i), dims, periods), 'Cart_relative_rank')
      CALL Cart_relative_shift(cart, rank, targets(:, i), inr, outr, ierr)
      CALL check(ierr == MPI_SUCCESS .AND. inr == rm_rank(coords - targets(:, i), dims, periods) .AND. &
                 outr == rm_rank(coords + targets(:, i), dims, periods), 'Cart_relative_shift')
    END DO
    DO r = 0, nproc - 1
      c = [r / dims(2), MOD(r, dims(2))] - coords
      ! periodic dimension 1: the shortest offset, a tie positive
      c(1) = MODULO(c(1), dims(1))
      IF (2 * c(1) > dims(1)) c(1) = c(1) - dims(1)
      CALL Cart_relative_coordinates(cart, rank, r, got, ierr)
      CALL check(ierr == MPI_SUCCESS .AND. ALL(got == c), 'Cart_relative_coordinates')
    END DO
    ! Cart_schedule_stats (seed 002 Table 1): DIRECT one phase, one round per
    ! distinct non-zero vector; COMBINING one phase per dimension used,
    ! sum_k C_k rounds, volume sum_i z_i for alltoall.  (All vectors here
    ! are distinct and non-zero.)
    distinct = T
    CALL Cart_schedule_stats(cart, CART_COLL_ALLTOALL, CART_ALGORITHM_DIRECT, phases, rounds, volume, ierr)
    CALL check(ierr == MPI_SUCCESS .AND. phases == 1 .AND. rounds == distinct .AND. volume == distinct, &
               'Cart_schedule_stats DIRECT alltoall')
    CALL Cart_schedule_stats(cart, CART_COLL_ALLGATHER, CART_ALGORITHM_DIRECT, phases, rounds, volume)
    CALL check(phases == 1 .AND. rounds == distinct .AND. volume == distinct, 'Cart_schedule_stats DIRECT allgather')
    CALL Cart_schedule_stats(cart, CART_COLL_ALLREDUCE, CART_ALGORITHM_DIRECT, phases, rounds, volume)
    CALL check(phases == 1 .AND. rounds == distinct, 'Cart_schedule_stats DIRECT allreduce')
    ck = 0
    z = 0
    DO k = 1, 2
      n = 0
      DO i = 1, T
        IF (targets(k, i) /= 0 .AND. .NOT. ANY(vals(1:n) == targets(k, i))) THEN
          n = n + 1
          vals(n) = targets(k, i)
        END IF
      END DO
      ck = ck + n
    END DO
    z = COUNT(targets /= 0)
    CALL Cart_schedule_stats(cart, CART_COLL_ALLTOALL, CART_ALGORITHM_COMBINING, phases, rounds, volume, ierr)
    CALL check(ierr == MPI_SUCCESS .AND. phases == 2 .AND. rounds == ck .AND. volume == z, &
               'Cart_schedule_stats COMBINING alltoall')
    CALL MPI_Comm_free(cart)

    ! Unweighted: the weights read back are 1.
    CALL Cart_neighborhood_create(MPI_COMM_WORLD, 2, dims, periods, T, targets, MPI_UNWEIGHTED, MPI_INFO_NULL, &
                                  .FALSE., cart)
    CALL Cart_neighbor_get(cart, T, srcs, sw, T, dsts, dw)
    CALL Cart_neighborhood_get(cart, T, rel, w)
    CALL check(ALL(sw == 1) .AND. ALL(dw == 1) .AND. ALL(w == 1), 'unweighted neighbourhood: weights 1')
    CALL MPI_Comm_free(cart)

    ! t = 0 with MPI_WEIGHTS_EMPTY
    CALL Cart_neighborhood_create(MPI_COMM_WORLD, 2, dims, periods, 0, targets, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, &
                                  .FALSE., cart, ierr)
    CALL check_rc(ierr, 'Cart_neighborhood_create with t = 0, MPI_WEIGHTS_EMPTY')
    CALL Cart_neighbor_count(cart, n)
    CALL check(n == 0, 'no neighbours')
    CALL MPI_Comm_free(cart)

    ! A plain MPI_Cart_create communicator is named row-major.
    CALL MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .FALSE., plain)
    CALL Cart_get(plain, k, 2, c, lper)
    CALL check(k == CART_ROW_MAJOR .AND. ALL(c == dims) .AND. ALL(lper .EQV. periods), &
               'Cart_get on MPI_Cart_create: row-major')
    CALL MPI_Comm_free(plain)
  END SUBROUTINE neighbourhood

  SUBROUTINE naming()
    TYPE(MPI_Comm) :: comm, sub, base
    INTEGER :: order(2), size, d, dimorder, ord(2), c(2), r, ierr, n, i, k, cnt, topo, sz, rk
    INTEGER :: coordsall(2, 8), ranks(8), rels(2, 9), want(2, 9), st(2, 9)
    LOGICAL :: per(2), flag, gotper(2)
    CALL MPI_Comm_dup(MPI_COMM_WORLD, comm)
    CALL Cart_test_name(comm, flag, d, size)
    CALL check(.NOT. flag .AND. d == -1 .AND. size == -1, 'Cart_test_name on an unnamed communicator')
    ! A p x 2 grid, column-major, periodic in the first dimension only: the
    ! processes fill the first column (c2 = 0), positions (c1, 1) are empty.
    order = [nproc, 2]
    per = [.TRUE., .FALSE.]
    CALL Cart_name(comm, 2, CART_COL_MAJOR, order, per, size, ierr)
    CALL check(ierr == MPI_SUCCESS .AND. size == 2 * nproc, 'Cart_name')
    CALL Cart_test_name(comm, flag, d, size)
    CALL check(flag .AND. d == 2 .AND. size == 2 * nproc, 'Cart_test_name')
    gotper = [.FALSE., .TRUE.]
    CALL Cart_get(comm, dimorder, 2, ord, gotper, ierr)
    CALL check(ierr == MPI_SUCCESS .AND. dimorder == CART_COL_MAJOR .AND. ALL(ord == order), 'Cart_get')
    CALL check(gotper(1) .AND. .NOT. gotper(2), 'Cart_get: LOGICAL periods')
    CALL Cart_coordinates(comm, me, c)
    CALL check(ALL(c == [me, 0]), 'Cart_coordinates (column-major)')
    DO k = -1, 2
      DO i = -1, nproc
        CALL Cart_rank(comm, [i, k], r)
        ! column-major: c1 + p * c2, c1 wrapped, c2 not; no process beyond p - 1
        IF (k /= 0) THEN
          n = MPI_PROC_NULL
        ELSE
          n = MODULO(i, nproc)
        END IF
        CALL check(r == n, 'Cart_rank')
      END DO
    END DO
    n = 0
    DO k = 0, 1
      DO i = 0, 3
        n = n + 1
        coordsall(:, n) = [i, k]
      END DO
    END DO
    CALL Cart_allranks(comm, n, coordsall, ranks, ierr)
    CALL check_rc(ierr, 'Cart_allranks')
    DO i = 1, n
      CALL Cart_rank(comm, coordsall(:, i), r)
      CALL check(ranks(i) == r, 'Cart_allranks as Cart_rank')
    END DO
    CALL Cart_allranks_relative(comm, me, n, coordsall, ranks)
    DO i = 1, n
      CALL Cart_rank(comm, [me, 0] + coordsall(:, i), r)
      CALL check(ranks(i) == r, 'Cart_allranks_relative')
    END DO
    ! Moore neighbours of (me, 0): those with second component -1 leave the
    ! non-periodic dimension, the others stay (in stencil order).
    CALL Cart_stencil(2, CART_CHEBYSHEV, 1, 1, 8, st)
    cnt = 0
    DO i = 1, 8
      IF (st(2, i) >= 0) THEN
        cnt = cnt + 1
        want(:, cnt) = st(:, i)
      END IF
    END DO
    CALL Cart_neighbors_count(comm, me, CART_CHEBYSHEV, 1, 1, n, ierr)
    CALL check(ierr == MPI_SUCCESS .AND. n == cnt, 'Cart_neighbors_count')
    rels = -9
    CALL Cart_neighbors(comm, me, CART_CHEBYSHEV, 1, 1, 9, rels, ierr)
    CALL check(ierr == MPI_SUCCESS .AND. ALL(rels(:, 1:cnt) == want(:, 1:cnt)) .AND. ALL(rels(:, cnt + 1:) == -9), &
               'Cart_neighbors')
    ! Keep dimension 1: one part per c2 (all processes have c2 = 0), ranked by c1.
    CALL Cart_create_sub(comm, [.TRUE., .FALSE.], sub, ierr)
    CALL check_rc(ierr, 'Cart_create_sub')
    CALL MPI_Comm_size(sub, sz)
    CALL MPI_Comm_rank(sub, rk)
    CALL check(sz == nproc .AND. rk == me, 'Cart_create_sub keeping dimension 1')
    CALL MPI_Comm_free(sub)
    ! Keep dimension 2: one part per c1, each holding only this process.
    CALL Cart_create_sub(comm, [.FALSE., .TRUE.], sub)
    CALL MPI_Comm_size(sub, sz)
    CALL check(sz == 1, 'Cart_create_sub keeping dimension 2')
    CALL MPI_Comm_free(sub)
    CALL Cart_comm_base(comm, base, ierr)
    CALL check_rc(ierr, 'Cart_comm_base')
    CALL MPI_Comm_size(base, sz)
    CALL MPI_Comm_rank(base, rk)
    CALL MPI_Topo_test(base, topo)
    CALL Cart_test_name(base, flag, d, size)
    CALL check(sz == nproc .AND. rk == me .AND. topo == MPI_UNDEFINED .AND. .NOT. flag, 'Cart_comm_base')
    CALL MPI_Comm_free(base)
    CALL MPI_Comm_free(comm)
  END SUBROUTINE naming

  SUBROUTINE detection()
    TYPE(MPI_Comm) :: ring, graph
    INTEGER :: srcs(2), dsts(2), sendv(2), recvv(2), ierr, size, phases, rounds, volume, indeg, outdeg, i
    INTEGER :: sw(2), dw(2)
    LOGICAL :: weighted
    CALL MPI_Comm_dup(MPI_COMM_WORLD, ring)
    CALL Cart_name(ring, 1, CART_ROW_MAJOR, [nproc], [.TRUE.], size)
    ! destinations +1, -1; sources mirrored (-1, +1)
    dsts = [MODULO(me + 1, nproc), MODULO(me - 1, nproc)]
    srcs = [MODULO(me - 1, nproc), MODULO(me + 1, nproc)]
    CALL Cart_dist_graph_create_adjacent(ring, 2, srcs, MPI_UNWEIGHTED, 2, dsts, MPI_UNWEIGHTED, MPI_INFO_NULL, &
                                         .FALSE., graph, ierr)
    CALL check_rc(ierr, 'Cart_dist_graph_create_adjacent')
    CALL Cart_schedule_stats(graph, CART_COLL_ALLTOALL, CART_ALGORITHM_AUTO, phases, rounds, volume, ierr)
    CALL check_rc(ierr, 'the ring is detected as Cartesian (Cart_schedule_stats)')
    sendv = [me * 10 + 1, me * 10 + 2]
    recvv = -1
    CALL Cart_alltoall(sendv, 1, MPI_INTEGER, recvv, 1, MPI_INTEGER, graph)
    ! block 1 comes from me - 1, which sent its block 1 (to +1); block 2 from me + 1
    CALL check(recvv(1) == srcs(1) * 10 + 1 .AND. recvv(2) == srcs(2) * 10 + 2, 'Cart_alltoall on the ring graph')
    CALL MPI_Comm_free(graph)
    CALL Cart_dist_graph_create(ring, 1, [me], [2], dsts, MPI_UNWEIGHTED, MPI_INFO_NULL, .FALSE., graph, ierr)
    CALL check_rc(ierr, 'Cart_dist_graph_create')
    CALL MPI_Dist_graph_neighbors_count(graph, indeg, outdeg, weighted)
    CALL check(indeg == 2 .AND. outdeg == 2, 'Cart_dist_graph_create: degrees')
    CALL MPI_Dist_graph_neighbors(graph, 2, srcs, sw, 2, dsts, dw)
    recvv = -1
    CALL Cart_allgather(me * 10, 1, MPI_INTEGER, recvv, 1, MPI_INTEGER, graph)
    CALL check(ALL([(recvv(i) == srcs(i) * 10, i = 1, 2)]), 'Cart_allgather on Cart_dist_graph_create')
    CALL MPI_Comm_free(graph)
    CALL MPI_Comm_free(ring)
  END SUBROUTINE detection

  SUBROUTINE requests()
    TYPE(Cart_request) :: r, reqs(4)
    TYPE(MPI_Comm) :: ring
    LOGICAL :: flag
    INTEGER :: ierr, dims(1), round, left, right
    INTEGER, ASYNCHRONOUS :: a2a_s(2), a2a_r(2), ag_r(2), nb_s(2), nb_r(2)
    r = CART_REQUEST_NULL
    CALL check(r == CART_REQUEST_NULL .AND. .NOT. (r /= CART_REQUEST_NULL), 'CART_REQUEST_NULL == and /=')
    flag = .FALSE.
    CALL Cart_test(r, flag, ierr)
    CALL check(ierr == MPI_SUCCESS .AND. flag, 'Cart_test on CART_REQUEST_NULL')
    CALL Cart_wait(r, ierr)
    CALL check_rc(ierr, 'Cart_wait on CART_REQUEST_NULL')
    dims = nproc
    CALL Cart_neighborhood_create(MPI_COMM_WORLD, 1, dims, [.TRUE.], 2, [1, -1], MPI_UNWEIGHTED, MPI_INFO_NULL, &
                                  .FALSE., ring)
    left = MODULO(me - 1, nproc)
    right = MODULO(me + 1, nproc)
    CALL Cart_alltoall_init(a2a_s, 1, MPI_INTEGER, a2a_r, 1, MPI_INTEGER, ring, MPI_INFO_NULL, reqs(1))
    CALL Cart_allgather_init(a2a_s(1), 1, MPI_INTEGER, ag_r, 1, MPI_INTEGER, ring, MPI_INFO_NULL, reqs(2))
    CALL check(reqs(1) /= CART_REQUEST_NULL .AND. reqs(1) /= reqs(2), 'persistent requests differ')
    DO round = 1, 3
      a2a_s = [me * 10 + round, me * 10 + 5 + round]
      a2a_r = -1
      ag_r = -1
      CALL Cart_startall(2, reqs, ierr)
      CALL check_rc(ierr, 'Cart_startall')
      CALL Cart_ibarrier(ring, reqs(3))
      nb_s = [me, -me]
      nb_r = -1
      CALL Cart_ialltoall(nb_s, 1, MPI_INTEGER, nb_r, 1, MPI_INTEGER, ring, reqs(4))
      CALL Cart_waitall(4, reqs, ierr)
      CALL check_rc(ierr, 'Cart_waitall')
      CALL check(reqs(3) == CART_REQUEST_NULL .AND. reqs(4) == CART_REQUEST_NULL .AND. reqs(1) /= CART_REQUEST_NULL, &
                 'Cart_waitall: non-blocking requests NULL, persistent ones stay')
      ! block 1 (offset +1) comes from the left neighbour, block 2 from the right
      CALL check(a2a_r(1) == left * 10 + round .AND. a2a_r(2) == right * 10 + 5 + round, 'persistent Cart_alltoall')
      CALL check(ag_r(1) == left * 10 + round .AND. ag_r(2) == right * 10 + round, 'persistent Cart_allgather')
      CALL check(nb_r(1) == left .AND. nb_r(2) == -right, 'Cart_ialltoall in Cart_waitall')
    END DO
    CALL Cart_request_free(reqs(1))
    CALL Cart_request_free(reqs(2), ierr)
    CALL check(ierr == MPI_SUCCESS .AND. ALL(reqs(1:2) == CART_REQUEST_NULL), 'Cart_request_free')
    CALL MPI_Comm_free(ring)
  END SUBROUTINE requests

END PROGRAM test_f08_queries

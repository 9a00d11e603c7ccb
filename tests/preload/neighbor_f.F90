! An unmodified Fortran MPI program for the PMPI drop-in test (run.sh runs
! it with and without LD_PRELOAD=libcartcoll_preload.so).  Built three
! times: with `use mpi`, with -DUSE_MPIF with include 'mpif.h', and with
! -DUSE_F08 with `use mpi_f08` (handles and statuses are derived types
! there: the macros below).
!
! Communicators: a Moore torus graph by MPI_Dist_graph_create_adjacent with
! MPI_UNWEIGHTED; the same graph by MPI_Dist_graph_create, all edges given
! by rank 0, weighted, the other ranks passing MPI_WEIGHTS_EMPTY; an
! MPI_Cart_create torus (LOGICAL periods); a graph that is not a stencil
! (weighted); a duplicate.  The weighted flags and periods MPI reports show
! whether the Fortran sentinels and LOGICALs arrived.  Calls: the five
! blocking MPI_Neighbor_* collectives, v/w with ragged block sizes,
! alltoallw on MPI_BOTTOM with absolute addresses; then the same five as
! MPI_Ineighbor_*, each request in an array with the program's own
! point-to-point requests (a message to itself), an MPI_Sendrecv ring
! while it is pending, completed by one of nine methods (MPI_Waitall,
! MPI_Wait in reverse, MPI_Waitany / Waitsome / Testall / Testany /
! Testsome / Test loops, MPI_Request_get_status polling): every method
! meets every collective kind across the communicators and repetitions;
! with -DHAVE_PERSISTENT (MPI-4: MPICH) MPI_Neighbor_alltoall[w]_init too,
! each started twice and completed the same ways.
! Oracle: MPI_Isend /
! MPI_Irecv in list order (by direction on Cartesian communicators).
! Prints the report line the drop-in must print, and PASS or FAIL.
#ifdef USE_F08
#define COMM_T type(MPI_Comm)
#define TYPE_T type(MPI_Datatype)
#define REQ_T type(MPI_Request)
#define SOURCE_OF(s) s%MPI_SOURCE
#define SOURCE_AT(s, k) s(k)%MPI_SOURCE
#else
#define COMM_T integer
#define TYPE_T integer
#define REQ_T integer
#define SOURCE_OF(s) s(MPI_SOURCE)
#define SOURCE_AT(s, k) s(MPI_SOURCE, k)
#endif
program neighbor_f
#ifdef USE_F08
  use mpi_f08
#elif !defined(USE_MPIF)
  use mpi
#endif
  implicit none
#ifdef USE_MPIF
  include 'mpif.h'
#endif
  integer, parameter :: m = 3, maxn = 64, ng = 5
  integer :: me, np, ierr, dims(2), t, k, rep, total
  COMM_T :: comms(ng)
  integer :: src(maxn), dst(maxn), wts(maxn), wts2(maxn)
  logical :: stencil(ng), made(ng), periods(2), flag
  integer :: sbuf(maxn * m), rbuf(maxn * m), want(maxn * m)
  integer :: scnt(maxn), sdis(maxn), rcnt(maxn), rdis(maxn)
  TYPE_T :: types(maxn)
  integer(kind=MPI_ADDRESS_KIND) :: sadr(maxn), radr(maxn)
  integer :: failures = 0
  integer :: counts(4) = 0, sums(4)   ! seen, Cartesian, calls, accelerated
  character(len=48) :: names(ng)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  dims = 0
  call MPI_Dims_create(np, 2, dims, ierr)
  call moore(t)

  names(1) = 'the Moore graph (MPI_UNWEIGHTED)'
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, t, src, MPI_UNWEIGHTED, t, dst, MPI_UNWEIGHTED, &
                                      MPI_INFO_NULL, .false., comms(1), ierr)
  call expect_weighted(comms(1), .false., 'MPI_UNWEIGHTED')
  names(2) = 'the Moore graph (MPI_Dist_graph_create)'
  call all_from_rank0(comms(2))
  call expect_weighted(comms(2), .true., 'MPI_WEIGHTS_EMPTY')
  names(3) = 'an MPI_Cart_create torus'
  periods = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., comms(3), ierr)
  periods = .false.
  call MPI_Cart_get(comms(3), 2, dims, periods, src, ierr)
  if (.not. (periods(1) .and. periods(2))) call fail('MPI_Cart_create: the LOGICAL periods did not arrive', names(3))
  names(4) = 'the non-stencil graph'
  call non_stencil(comms(4))
  names(5) = 'a duplicate of the Moore graph'
  call MPI_Comm_dup(comms(1), comms(5), ierr)
  stencil = .true.
  stencil(4) = np == 1
  made = .true.
  made(5) = .false.
  do k = 1, ng
    if (made(k)) counts(1) = counts(1) + 1
    if (made(k) .and. stencil(k)) counts(2) = counts(2) + 1
    do rep = 0, 1
      call run(comms(k), names(k), stencil(k), rep, k)
    end do
  end do
  do k = 1, ng
    call MPI_Comm_free(comms(k), ierr)
  end do
  call MPI_Reduce(counts, sums, 4, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (me == 0) write (*, '(a,i0,a,i0,a,i0,a,i0,a)') 'neighbor_f: expect cartcoll_preload: communicators ', &
       sums(1), ' seen, ', sums(2), ' Cartesian; calls ', sums(3), ', ', sums(4), ' accelerated'
  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (me == 0) then
    if (total == 0) then
      write (*, '(a,i0,a)') 'neighbor_f: PASS (', np, ' processes)'
    else
      write (*, '(a,i0,a,i0,a)') 'neighbor_f: FAIL (', np, ' processes, ', total, ' mismatches)'
    end if
  end if
  call MPI_Finalize(ierr)
  if (total /= 0) stop 1

contains

  integer function wrap(x, n)
    integer, intent(in) :: x, n
    wrap = modulo(x, n)
  end function

  ! The Moore torus neighbours of me, row-major on dims: dst = R + N(i),
  ! src = R - N(i).
  subroutine moore(n)
    integer, intent(out) :: n
    integer :: r, c, a, b
    r = me / dims(2)
    c = mod(me, dims(2))
    n = 0
    do a = -1, 1
      do b = -1, 1
        if (a == 0 .and. b == 0) cycle
        n = n + 1
        dst(n) = wrap(r + a, dims(1)) * dims(2) + wrap(c + b, dims(2))
        src(n) = wrap(r - a, dims(1)) * dims(2) + wrap(c - b, dims(2))
      end do
    end do
  end subroutine

  ! MPI_Dist_graph_create: rank 0 gives every edge (weighted), the others
  ! none (MPI_WEIGHTS_EMPTY).
  subroutine all_from_rank0(comm)
    COMM_T, intent(out) :: comm
    integer :: srcs(maxn), degs(maxn), dsts(maxn * 9), w(maxn * 9), u, r, c, a, b, n
    if (me == 0) then
      n = 0
      do u = 0, np - 1
        srcs(u + 1) = u
        degs(u + 1) = 8
        r = u / dims(2)
        c = mod(u, dims(2))
        do a = -1, 1
          do b = -1, 1
            if (a == 0 .and. b == 0) cycle
            n = n + 1
            dsts(n) = wrap(r + a, dims(1)) * dims(2) + wrap(c + b, dims(2))
            w(n) = 1
          end do
        end do
      end do
      call MPI_Dist_graph_create(MPI_COMM_WORLD, np, srcs, degs, dsts, w, MPI_INFO_NULL, .false., comm, ierr)
    else
      call MPI_Dist_graph_create(MPI_COMM_WORLD, 0, srcs, degs, dsts, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, .false., &
                                 comm, ierr)
    end if
  end subroutine

  ! u -> u+1 (mod p) and u -> 0, weighted.
  subroutine non_stencil(comm)
    COMM_T, intent(out) :: comm
    integer :: ns, u, nsrc(maxn), ndst(2), w2(2)
    ns = 0
    do u = 0, np - 1
      if (mod(u + 1, np) == me) then
        ns = ns + 1
        nsrc(ns) = u
      end if
      if (me == 0) then
        ns = ns + 1
        nsrc(ns) = u
      end if
    end do
    ndst(1) = mod(me + 1, np)
    ndst(2) = 0
    wts = 1
    w2 = 1
    call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, ns, nsrc, wts, 2, ndst, w2, MPI_INFO_NULL, .false., comm, ierr)
  end subroutine

  subroutine expect_weighted(comm, weighted, what)
    COMM_T, intent(in) :: comm
    logical, intent(in) :: weighted
    character(len=*), intent(in) :: what
    integer :: indeg, outdeg
    logical :: w
    call MPI_Dist_graph_neighbors_count(comm, indeg, outdeg, w, ierr)
    if (w .neqv. weighted) call fail('the weighted flag is wrong: the sentinel ' // what // ' did not arrive', what)
  end subroutine

  subroutine fail(what, where)
    character(len=*), intent(in) :: what, where
    write (0, '(a,i0,a,a,a,a)') 'neighbor_f: rank ', me, ': ', what, ' on ', trim(where)
    failures = failures + 1
  end subroutine

  subroutine neighbours(comm, iscart, indeg, outdeg)
    COMM_T, intent(in) :: comm
    logical, intent(out) :: iscart
    integer, intent(out) :: indeg, outdeg
    integer :: topo, d, j
    logical :: w
    call MPI_Topo_test(comm, topo, ierr)
    iscart = topo == MPI_CART
    if (iscart) then
      call MPI_Cartdim_get(comm, d, ierr)
      indeg = 2 * d
      outdeg = 2 * d
      do j = 0, d - 1
        call MPI_Cart_shift(comm, j, 1, src(2 * j + 1), src(2 * j + 2), ierr)
        dst(2 * j + 1) = src(2 * j + 1)
        dst(2 * j + 2) = src(2 * j + 2)
      end do
    else
      call MPI_Dist_graph_neighbors_count(comm, indeg, outdeg, w, ierr)
      call MPI_Dist_graph_neighbors(comm, maxn, src, wts, maxn, dst, wts2, ierr)
    end if
  end subroutine

  ! The oracle: block i (scnt(i) ints at sdis(i)) to dst(i), block j from
  ! src(j) into want at rdis(j).
  subroutine oracle(iscart, indeg, outdeg)
    logical, intent(in) :: iscart
    integer, intent(in) :: indeg, outdeg
    REQ_T :: req(2 * maxn)
    integer :: n, i, j, tag
    n = 0
    want = -1
    do j = 1, indeg
      if (src(j) == MPI_PROC_NULL) cycle
      tag = 77
      if (iscart) tag = 100 + ieor(j - 1, 1)
      n = n + 1
      call MPI_Irecv(want(rdis(j) + 1), rcnt(j), MPI_INTEGER, src(j), tag, MPI_COMM_WORLD, req(n), ierr)
    end do
    do i = 1, outdeg
      if (dst(i) == MPI_PROC_NULL) cycle
      tag = 77
      if (iscart) tag = 100 + i - 1
      n = n + 1
      call MPI_Isend(sbuf(sdis(i) + 1), scnt(i), MPI_INTEGER, dst(i), tag, MPI_COMM_WORLD, req(n), ierr)
    end do
    call MPI_Waitall(n, req, MPI_STATUSES_IGNORE, ierr)
  end subroutine

  subroutine compare(what, where, n)
    character(len=*), intent(in) :: what, where
    integer, intent(in) :: n
    integer :: e
    do e = 1, n
      if (rbuf(e) /= want(e)) then
        call fail(what // ': a received block differs from the oracle', where)
        return
      end if
    end do
  end subroutine

  integer function cnt(u, v)
    integer, intent(in) :: u, v
    cnt = 1 + mod(u * 7 + v * 3, 3)
  end function

  ! MPI_Waitany/Testany's index when no request is active: MPI_UNDEFINED;
  ! MPICH 4.0's Fortran binding adds 1 to it too (with or without the
  ! drop-in).
  logical function none_active(idx)
    integer, intent(in) :: idx
    none_active = idx == MPI_UNDEFINED .or. idx == MPI_UNDEFINED + 1
  end function

  ! Complete the collective's request creq by `method`, in an array with a
  ! message to itself (receive first, send last) and after an MPI_Sendrecv
  ! ring while it is pending.
  subroutine complete(creq, method, what, where, persistent)
    REQ_T, intent(inout) :: creq
    integer, intent(in) :: method
    logical, intent(in) :: persistent
    character(len=*), intent(in) :: what, where
    REQ_T :: req(3)
    integer :: selfv, selfr, idx, outc, idxs(3), left, right, rv, sv, n, i
    logical :: flag
#ifdef USE_F08
    type(MPI_Status) :: st1, sts(3)
#else
    integer :: st1(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 3)
#endif
    selfv = 4242 + me
    selfr = -1
    call MPI_Irecv(selfr, 1, MPI_INTEGER, me, 55, MPI_COMM_WORLD, req(1), ierr)
    req(2) = creq
    call MPI_Isend(selfv, 1, MPI_INTEGER, me, 55, MPI_COMM_WORLD, req(3), ierr)
    right = mod(me + 1, np)
    left = mod(me - 1 + np, np)
    sv = 100 + me
    rv = -1
    call MPI_Sendrecv(sv, 1, MPI_INTEGER, right, 56, rv, 1, MPI_INTEGER, left, 56, MPI_COMM_WORLD, st1, ierr)
    if (rv /= 100 + left .or. SOURCE_OF(st1) /= left) call fail(what // ': MPI_Sendrecv while it was pending', where)
    n = 3
    select case (method)
    case (0)
      call MPI_Waitall(3, req, sts, ierr)
      if (SOURCE_AT(sts, 1) /= me) call fail(what // ': MPI_Waitall: the status of the receive', where)
    case (1)
      do i = 3, 1, -1
        call MPI_Wait(req(i), st1, ierr)
        if (i == 1 .and. SOURCE_OF(st1) /= me) call fail(what // ': MPI_Wait: the status of the receive', where)
      end do
    case (2)
      n = 0
      do
        call MPI_Waitany(3, req, idx, st1, ierr)
        if (none_active(idx)) exit
        n = n + 1
        if (idx == 1 .and. SOURCE_OF(st1) /= me) call fail(what // ': MPI_Waitany: the status of the receive', where)
      end do
    case (3, 6)
      n = 0
      do
        if (method == 3) then
          call MPI_Waitsome(3, req, outc, idxs, sts, ierr)
        else
          call MPI_Testsome(3, req, outc, idxs, sts, ierr)
        end if
        if (outc == MPI_UNDEFINED) exit
        do i = 1, outc
          if (idxs(i) == 1 .and. SOURCE_AT(sts, i) /= me) &
            call fail(what // ': MPI_Waitsome/Testsome: the status of the receive', where)
        end do
        n = n + outc
      end do
    case (4)
      flag = .false.
      do while (.not. flag)
        call MPI_Testall(3, req, flag, sts, ierr)
      end do
      if (SOURCE_AT(sts, 1) /= me) call fail(what // ': MPI_Testall: the status of the receive', where)
    case (5)
      n = 0
      do
        call MPI_Testany(3, req, idx, flag, st1, ierr)
        if (flag .and. none_active(idx)) exit
        if (.not. flag) cycle
        n = n + 1
        if (idx == 1 .and. SOURCE_OF(st1) /= me) call fail(what // ': MPI_Testany: the status of the receive', where)
      end do
    case (7)
      do i = 1, 3
        flag = .false.
        do while (.not. flag)
          call MPI_Test(req(i), flag, st1, ierr)
        end do
        if (i == 1 .and. SOURCE_OF(st1) /= me) call fail(what // ': MPI_Test: the status of the receive', where)
      end do
    case default
      flag = .false.
      do while (.not. flag)
        call MPI_Request_get_status(req(2), flag, st1, ierr)
      end do
      call MPI_Waitall(3, req, MPI_STATUSES_IGNORE, ierr)
    end select
    if (n /= 3) call fail(what // ': not three completions', where)
    do i = 1, 3
      if (i == 2 .and. persistent) then
        if (req(i) == MPI_REQUEST_NULL) call fail(what // ': a persistent request became MPI_REQUEST_NULL', where)
      else if (req(i) /= MPI_REQUEST_NULL) then
        call fail(what // ': a completed request is not MPI_REQUEST_NULL', where)
      end if
    end do
    if (selfr /= selfv) call fail(what // ': the message to itself did not arrive', where)
    creq = req(2)
  end subroutine

  ! Each collective blocking, then non-blocking completed by a method that
  ! changes with the collective, the repetition and the communicator.
  subroutine run(comm, name, st, rep, k)
    COMM_T, intent(in) :: comm
    integer, intent(in) :: rep, k
    character(len=*), intent(in) :: name
    logical, intent(in) :: st
    logical :: iscart
    integer :: indeg, outdeg, i, j, e, at, sc
    REQ_T :: creq
    call neighbours(comm, iscart, indeg, outdeg)
    ! alltoall: m ints per block
    do i = 1, outdeg
      scnt(i) = m
      sdis(i) = (i - 1) * m
      do e = 1, m
        sbuf(sdis(i) + e) = 1000000 * (rep + 1) + 1000 * (me + 1) + 30 * i + e
      end do
    end do
    do j = 1, indeg
      rcnt(j) = m
      rdis(j) = (j - 1) * m
    end do
    call oracle(iscart, indeg, outdeg)
    rbuf = -1
    call MPI_Neighbor_alltoall(sbuf, m, MPI_INTEGER, rbuf, m, MPI_INTEGER, comm, ierr)
    call compare('MPI_Neighbor_alltoall', name, indeg * m)
    rbuf = -1
    call MPI_Ineighbor_alltoall(sbuf, m, MPI_INTEGER, rbuf, m, MPI_INTEGER, comm, creq, ierr)
    call complete(creq, mod(0 + 5 * rep + 3 * k, 9), 'MPI_Ineighbor_alltoall', name, .false.)
    call compare('MPI_Ineighbor_alltoall', name, indeg * m)
#ifdef HAVE_PERSISTENT
    ! MPI-4: persistent, started twice, completed by two more methods
    call MPI_Neighbor_alltoall_init(sbuf, m, MPI_INTEGER, rbuf, m, MPI_INTEGER, comm, MPI_INFO_NULL, creq, ierr)
    do i = 1, 2
      rbuf = -1
      call MPI_Start(creq, ierr)
      call complete(creq, mod(i + 5 * rep + 3 * k, 9), 'MPI_Neighbor_alltoall_init', name, .true.)
      call compare('MPI_Neighbor_alltoall_init', name, indeg * m)
    end do
    call MPI_Request_free(creq, ierr)
#endif
    ! allgather: the first block to everyone
    sdis(1:outdeg) = 0
    call oracle(iscart, indeg, outdeg)
    rbuf = -1
    call MPI_Neighbor_allgather(sbuf, m, MPI_INTEGER, rbuf, m, MPI_INTEGER, comm, ierr)
    call compare('MPI_Neighbor_allgather', name, indeg * m)
    rbuf = -1
    call MPI_Ineighbor_allgather(sbuf, m, MPI_INTEGER, rbuf, m, MPI_INTEGER, comm, creq, ierr)
    call complete(creq, mod(1 + 5 * rep + 3 * k, 9), 'MPI_Ineighbor_allgather', name, .false.)
    call compare('MPI_Ineighbor_allgather', name, indeg * m)
    ! alltoallv: ragged counts, blocks in reverse order
    at = 0
    do i = outdeg, 1, -1
      scnt(i) = 0
      if (dst(i) /= MPI_PROC_NULL) scnt(i) = cnt(me, dst(i))
      sdis(i) = at
      do e = 1, scnt(i)
        sbuf(at + e) = 2000000 * (rep + 1) + 1000 * (me + 1) + 30 * i + e
      end do
      at = at + scnt(i)
    end do
    at = 0
    do j = indeg, 1, -1
      rcnt(j) = 0
      if (src(j) /= MPI_PROC_NULL) rcnt(j) = cnt(src(j), me)
      rdis(j) = at
      at = at + rcnt(j)
    end do
    call oracle(iscart, indeg, outdeg)
    rbuf = -1
    call MPI_Neighbor_alltoallv(sbuf, scnt, sdis, MPI_INTEGER, rbuf, rcnt, rdis, MPI_INTEGER, comm, ierr)
    call compare('MPI_Neighbor_alltoallv', name, at)
    rbuf = -1
    call MPI_Ineighbor_alltoallv(sbuf, scnt, sdis, MPI_INTEGER, rbuf, rcnt, rdis, MPI_INTEGER, comm, creq, ierr)
    call complete(creq, mod(2 + 5 * rep + 3 * k, 9), 'MPI_Ineighbor_alltoallv', name, .false.)
    call compare('MPI_Ineighbor_alltoallv', name, at)
    ! alltoallw on MPI_BOTTOM: absolute addresses
    do i = 1, outdeg
      call MPI_Get_address(sbuf(sdis(i) + 1), sadr(i), ierr)
    end do
    do j = 1, indeg
      call MPI_Get_address(rbuf(rdis(j) + 1), radr(j), ierr)
    end do
    types = MPI_INTEGER
    rbuf = -1
    ! (built with -O0, so rbuf is read from memory afterwards: no
    ! MPI_F_SYNC_REG, whose MPICH 4.0 version writes an ierror argument)
    call MPI_Neighbor_alltoallw(MPI_BOTTOM, scnt, sadr, types, MPI_BOTTOM, rcnt, radr, types, comm, ierr)
    call compare('MPI_Neighbor_alltoallw (MPI_BOTTOM)', name, at)
    rbuf = -1
    call MPI_Ineighbor_alltoallw(MPI_BOTTOM, scnt, sadr, types, MPI_BOTTOM, rcnt, radr, types, comm, creq, ierr)
    call complete(creq, mod(3 + 5 * rep + 3 * k, 9), 'MPI_Ineighbor_alltoallw (MPI_BOTTOM)', name, .false.)
    call compare('MPI_Ineighbor_alltoallw (MPI_BOTTOM)', name, at)
#ifdef HAVE_PERSISTENT
    call MPI_Neighbor_alltoallw_init(MPI_BOTTOM, scnt, sadr, types, MPI_BOTTOM, rcnt, radr, types, comm, &
                                     MPI_INFO_NULL, creq, ierr)
    do i = 1, 2
      rbuf = -1
      call MPI_Start(creq, ierr)
      call complete(creq, mod(i + 4 + 5 * rep + 3 * k, 9), 'MPI_Neighbor_alltoallw_init (MPI_BOTTOM)', name, .true.)
      call compare('MPI_Neighbor_alltoallw_init (MPI_BOTTOM)', name, at)
    end do
    call MPI_Request_free(creq, ierr)
#endif
    ! allgatherv: the send count differs from process to process
    sc = 1 + mod(me, 3)
    scnt(1:outdeg) = sc
    sdis(1:outdeg) = 0
    at = 0
    do j = indeg, 1, -1
      rcnt(j) = 0
      if (src(j) /= MPI_PROC_NULL) rcnt(j) = 1 + mod(src(j), 3)
      rdis(j) = at
      at = at + rcnt(j)
    end do
    call oracle(iscart, indeg, outdeg)
    rbuf = -1
    call MPI_Neighbor_allgatherv(sbuf, sc, MPI_INTEGER, rbuf, rcnt, rdis, MPI_INTEGER, comm, ierr)
    call compare('MPI_Neighbor_allgatherv', name, at)
    rbuf = -1
    call MPI_Ineighbor_allgatherv(sbuf, sc, MPI_INTEGER, rbuf, rcnt, rdis, MPI_INTEGER, comm, creq, ierr)
    call complete(creq, mod(4 + 5 * rep + 3 * k, 9), 'MPI_Ineighbor_allgatherv', name, .false.)
    call compare('MPI_Ineighbor_allgatherv', name, at)
    counts(3) = counts(3) + 10
    if (st) counts(4) = counts(4) + 10
#ifdef HAVE_PERSISTENT
    counts(3) = counts(3) + 4
    if (st) counts(4) = counts(4) + 4
#endif
  end subroutine

end program neighbor_f

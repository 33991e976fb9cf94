! Known point-to-point patterns in Fortran for the traffic recorder (MPITASKMAP_RECORD), the Fortran twin of
! traffic.c: tests/runtime/test_pmpi_recorder_fortran.py builds it three times, -DUSE_MPIF (include 'mpif.h'),
! -DUSE_MPI (use mpi) and -DUSE_F08 (use mpi_f08, every ierror left out: the OPTIONAL argument absent), and
! computes the matrix each pattern must give.  P = the size of MPI_COMM_WORLD, r = the rank.
!
!   traffic ring          r sends (r + 1) integers to (r + 1) % P four times: MPI_Isend, MPI_Send,
!                         MPI_Ssend, MPI_Sendrecv (P even)
!   traffic halo PX PY PZ STEPS
!                         a periodic PX x PY x PZ MPI_Cart_create grid (reorder = .false.); each step,
!                         each rank sends to its two neighbours in dimension d a face of F_d doubles
!                         (F_0 = 6, F_1 = 10, F_2 = 15), MPI_Isend / MPI_Irecv on the grid
!   traffic transpose     r sends (1 + r + 2 j) integers to every j /= r (MPI_Isend, MPI_Waitall)
!   traffic persistent    MPI_Send_init of (r + 1) doubles to (r + 1) % P, started 2 times with
!                         MPI_Start and 3 times with MPI_Startall; a second MPI_Ssend_init to
!                         (r + 2) % P never started; all freed with MPI_Request_free (P even, >= 4)
!   traffic pcontrol      MPI_Pcontrol(0); 5 sends to (r + 1) % P; MPI_Pcontrol(-1) and (2) (levels
!                         that neither pause nor resume); MPI_Pcontrol(1); 3 sends of (r + 1) integers to
!                         (r - 1) % P; MPI_Pcontrol(0); 2 sends to (r + 1) % P: only the 3 are recorded
!   traffic kinds         r sends 2**(k - 1) integers to (r + 1) % P with the k-th of the 14 calls
!                         MPI_Send, Bsend, Ssend, Rsend, Isend, Ibsend, Issend, Irsend, Sendrecv,
!                         Sendrecv_replace, Send_init, Bsend_init, Ssend_init, Rsend_init (each
!                         persistent one started once, then freed): 14 messages, 4 (2**14 - 1) bytes
!   traffic onesided      as traffic.c onesided: a window of 1 KiB per rank (disp_unit 1) on
!                         MPI_Comm_split(MPI_COMM_WORLD, 0, -r); every rank targets rank (s + 1) % P of it
!                         (world rank (r - 1) % P).  Between fences: MPI_Put of (r + 1) doubles, MPI_Get of 3
!                         integers, MPI_Accumulate of 2 doubles, MPI_Get_accumulate of 4 integers (result 4),
!                         MPI_Get_accumulate of MPI_NO_OP (result 5 integers), MPI_Fetch_and_op of an
!                         integer*8, MPI_Compare_and_swap of an integer, an MPI_Put to MPI_PROC_NULL; then
!                         MPI_Pcontrol(0), an MPI_Put of 9 doubles, MPI_Pcontrol(1); then under
!                         MPI_Win_lock_all: MPI_Rput of a double, MPI_Rget of 2 doubles, MPI_Raccumulate of
!                         an integer, MPI_Rget_accumulate of an integer (result an integer)
!   traffic neighbor      as traffic.c neighbor without MPI 4's MPI_Neighbor_alltoall_init: a (P/2, 2, 1)
!                         Cartesian grid, periods (T, F, T): MPI_Neighbor_allgather of r + 1 integers,
!                         MPI_Neighbor_alltoall of 2 doubles a block, MPI_Ineighbor_alltoallv (block i of
!                         i + 1 integers), MPI_Neighbor_alltoallw (block i: an integer, dimension i / 2 even,
!                         or a double; only where P >= 6 and not built with -DNO_F08_NEIGHBOR_ALLTOALLW:
!                         see below), MPI_Neighbor_allgatherv of 3
!                         characters; an MPI_Ineighbor_allgather of 50 integers between MPI_Pcontrol(0)
!                         and (1).  A distributed graph (r -> r + 1, r + 3): MPI_Neighbor_alltoallv of 5
!                         and 7 integers, MPI_Ineighbor_allgather of a double.  A graph (a ring):
!                         MPI_Neighbor_allgather of 2 integers
!   traffic collectives   as traffic.c collectives (the same calls, counts, roots and communicators);
!                         rank 0's MPI_Gather in place passes a send count of 99, which MPI ignores
!   traffic pcollectives  built with -DHAVE_MPI4 only (MPI 4's persistent collectives; MPICH 4 has them in
!                         Fortran, Open MPI 4.1 does not): on MPI_COMM_WORLD, MPI_Allreduce_init of 4
!                         integers, MPI_Bcast_init (root 0) of 2 doubles, MPI_Barrier_init and MPI_Gather_init
!                         of 3 integers to root 0 (in place at the root, which passes a send count of 99):
!                         the allreduce, barrier and gather each started twice with MPI_Start, then the
!                         allreduce and bcast twice with MPI_Startall, then the allreduce once between
!                         MPI_Pcontrol(0) and (1); on a 1-D periodic MPI_Cart_create ring of P,
!                         MPI_Neighbor_alltoall_init of an integer a block started twice; all freed
!   traffic split         as traffic.c split: MPI_Comm_split(color r % 2, key -r): rank s of each half sends
!                         (r + 1) integers to rank (s + 1) % size of its half; an intercommunicator between
!                         the halves: every rank sends r + 100 characters to remote rank 0; the halves freed,
!                         MPI_Comm_dup(MPI_COMM_WORLD): r sends 1 integer to (r + 1) % P on it (MPI_Sendrecv)
!   traffic threadring    the ring, after MPI_Init_thread(MPI_THREAD_FUNNELED) instead of MPI_Init
!   traffic fatal         MPI_Send to rank P under MPI_ERRORS_ARE_FATAL: MPI aborts the job
!   traffic badsend       MPI_ERRORS_RETURN on MPI_COMM_WORLD; MPI_Send and MPI_Isend to rank P (none
!                         such: MPI returns an error, rank 0 prints "bad send: error, error"), then one
!                         MPI_Send of (r + 1) integers to (r + 1) % P: only that one is recorded
!
! Rank 0 prints "done MODE" at the end.
#if defined(USE_F08)
#define HANDLE(kind) type(kind)
#define IERR
#define ONLY_IERR
#else
#define HANDLE(kind) integer
#define IERR , ierr
#define ONLY_IERR ierr
#endif
program traffic
#if defined(USE_F08)
  use mpi_f08
#elif defined(USE_MPI)
  use mpi
#endif
  implicit none
#if defined(USE_MPIF)
  include 'mpif.h'
#endif
  integer :: ierr, p, r, right, left
  integer :: iout(65536), iin(65536)
  double precision :: dout(4096), din(4096)
  character(len=32) :: mode, arg
  integer :: halo_dims(3), steps, i, provided

  ierr = 0
  call get_command_argument(1, mode)
  if (trim(mode) == 'threadring') then
    call MPI_Init_thread(MPI_THREAD_FUNNELED, provided IERR)
  else
    call MPI_Init(ONLY_IERR)
  end if
  call MPI_Comm_size(MPI_COMM_WORLD, p IERR)
  call MPI_Comm_rank(MPI_COMM_WORLD, r IERR)
  right = mod(r + 1, p)
  left = mod(r + p - 1, p)
  iout = 1
  dout = 1d0
  select case (trim(mode))
  case ('ring', 'threadring')
    call ring()
  case ('fatal')
    call MPI_Send(iout, 1, MPI_INTEGER, p, 0, MPI_COMM_WORLD IERR)
  case ('halo')
    do i = 1, 4
      call get_command_argument(i + 1, arg)
      if (i < 4) read(arg, *) halo_dims(i)
      if (i == 4) read(arg, *) steps
    end do
    call halo(halo_dims, steps)
  case ('transpose')
    call transpose()
  case ('persistent')
    call persistent()
  case ('pcontrol')
    call pcontrol()
  case ('kinds')
    call kinds()
  case ('split')
    call split()
  case ('badsend')
    call badsend()
  case ('onesided')
    call onesided()
  case ('neighbor')
    call neighbor()
  case ('collectives')
    call collectives()
  case ('pcollectives')
    call pcollectives()
  case default
    if (r == 0) write(0, '(2A)') 'traffic: unknown mode ', trim(mode)
    call MPI_Abort(MPI_COMM_WORLD, 2 IERR)
  end select
  if (r == 0) write(*, '(2A)') 'done ', trim(mode)
  call MPI_Finalize(ONLY_IERR)

contains

  subroutine ring()
    HANDLE(MPI_Request) :: req
    integer :: k
    call MPI_Isend(iout, r + 1, MPI_INTEGER, right, 0, MPI_COMM_WORLD, req IERR)
    call MPI_Recv(iin, left + 1, MPI_INTEGER, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE IERR)
    call MPI_Wait(req, MPI_STATUS_IGNORE IERR)
    do k = 0, 1
      if (mod(r, 2) == 0) then
        call send(k)
        call MPI_Recv(iin, left + 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE IERR)
      else
        call MPI_Recv(iin, left + 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE IERR)
        call send(k)
      end if
    end do
    call MPI_Sendrecv(iout, r + 1, MPI_INTEGER, right, 2, iin, left + 1, MPI_INTEGER, left, 2, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE IERR)
  end subroutine ring

  subroutine send(k)
    integer, intent(in) :: k
    if (k == 0) call MPI_Send(iout, r + 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD IERR)
    if (k == 1) call MPI_Ssend(iout, r + 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD IERR)
  end subroutine send

  subroutine halo(dims, nsteps)
    integer, intent(in) :: dims(3), nsteps
    HANDLE(MPI_Comm) :: cart
    HANDLE(MPI_Request) :: req(12)
    logical :: periods(3)
    integer :: face(3), s, d, k, lo, hi
    double precision :: hout(16, 6), hin(16, 6)
    face = (/ 6, 10, 15 /)
    periods = .true.
    hout = 1d0
    call MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, .false., cart IERR)
    do s = 1, nsteps
      k = 0
      do d = 0, 2
        call MPI_Cart_shift(cart, d, 1, lo, hi IERR)
        call MPI_Irecv(hin(1, 2 * d + 1), face(d + 1), MPI_DOUBLE_PRECISION, lo, d, cart, req(k + 1) IERR)
        call MPI_Irecv(hin(1, 2 * d + 2), face(d + 1), MPI_DOUBLE_PRECISION, hi, 10 + d, cart, req(k + 2) IERR)
        call MPI_Isend(hout(1, 2 * d + 1), face(d + 1), MPI_DOUBLE_PRECISION, hi, d, cart, req(k + 3) IERR)
        call MPI_Isend(hout(1, 2 * d + 2), face(d + 1), MPI_DOUBLE_PRECISION, lo, 10 + d, cart, req(k + 4) IERR)
        k = k + 4
      end do
      call MPI_Waitall(k, req, MPI_STATUSES_IGNORE IERR)
    end do
    call MPI_Comm_free(cart IERR)
  end subroutine halo

  subroutine transpose()
    HANDLE(MPI_Request), allocatable :: req(:)
    integer, allocatable :: tin(:, :)
    integer :: j, k
    allocate(req(2 * p), tin(3 * p + 1, p))
    k = 0
    do j = 0, p - 1
      if (j /= r) then
        call MPI_Irecv(tin(1, j + 1), 1 + j + 2 * r, MPI_INTEGER, j, 0, MPI_COMM_WORLD, req(k + 1) IERR)
        call MPI_Isend(iout, 1 + r + 2 * j, MPI_INTEGER, j, 0, MPI_COMM_WORLD, req(k + 2) IERR)
        k = k + 2
      end if
    end do
    call MPI_Waitall(k, req, MPI_STATUSES_IGNORE IERR)
    deallocate(req, tin)
  end subroutine transpose

  subroutine persistent()
    HANDLE(MPI_Request) :: req(2), unused(2)
    double precision :: far_out(4), far_in(4)
    integer :: k
    far_out = 1d0
    call MPI_Send_init(dout, r + 1, MPI_DOUBLE_PRECISION, right, 0, MPI_COMM_WORLD, req(1) IERR)
    call MPI_Recv_init(din, left + 1, MPI_DOUBLE_PRECISION, left, 0, MPI_COMM_WORLD, req(2) IERR)
    call MPI_Ssend_init(far_out, 4, MPI_DOUBLE_PRECISION, mod(r + 2, p), 1, MPI_COMM_WORLD, unused(1) IERR)
    call MPI_Recv_init(far_in, 4, MPI_DOUBLE_PRECISION, mod(r + p - 2, p), 1, MPI_COMM_WORLD, unused(2) IERR)
    do k = 1, 2
      call MPI_Start(req(2) IERR)
      call MPI_Start(req(1) IERR)
      call MPI_Waitall(2, req, MPI_STATUSES_IGNORE IERR)
    end do
    do k = 1, 3
      call MPI_Startall(2, req IERR)
      call MPI_Waitall(2, req, MPI_STATUSES_IGNORE IERR)
    end do
    do k = 1, 2
      call MPI_Request_free(req(k) IERR)
      call MPI_Request_free(unused(k) IERR)
    end do
  end subroutine persistent

  subroutine pcontrol()
    HANDLE(MPI_Request) :: req
    integer :: k
    call MPI_Pcontrol(0)
    do k = 1, 5
      call MPI_Isend(iout, 7, MPI_INTEGER, right, 0, MPI_COMM_WORLD, req IERR)
      call MPI_Recv(iin, 7, MPI_INTEGER, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE IERR)
      call MPI_Wait(req, MPI_STATUS_IGNORE IERR)
    end do
    call MPI_Pcontrol(-1)
    call MPI_Pcontrol(2)
    call MPI_Pcontrol(1)
    do k = 1, 3
      call MPI_Isend(iout, r + 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, req IERR)
      call MPI_Recv(iin, right + 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE IERR)
      call MPI_Wait(req, MPI_STATUS_IGNORE IERR)
    end do
    call MPI_Pcontrol(0)
    do k = 1, 2
      call MPI_Isend(iout, 9, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req IERR)
      call MPI_Recv(iin, 9, MPI_INTEGER, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE IERR)
      call MPI_Wait(req, MPI_STATUS_IGNORE IERR)
    end do
  end subroutine pcontrol

  ! The k-th call sends 2**(k - 1) integers to the right with tag k; the receive from the left is
  ! posted first and a barrier passed, so that the ready sends find it (and no send waits on another).
  subroutine kinds()
    HANDLE(MPI_Request) :: rreq, sreq
    double precision :: attached(65536)
    integer :: k, n
    call MPI_Buffer_attach(attached, 8 * 65536 IERR)
    do k = 1, 14
      n = 2 ** (k - 1)
      if (k == 9) then
        call MPI_Sendrecv(iout, n, MPI_INTEGER, right, k, iin, n, MPI_INTEGER, left, k, MPI_COMM_WORLD, &
                          MPI_STATUS_IGNORE IERR)
        cycle
      end if
      if (k == 10) then
        call MPI_Sendrecv_replace(iin, n, MPI_INTEGER, right, k, left, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE IERR)
        cycle
      end if
      call MPI_Irecv(iin, n, MPI_INTEGER, left, k, MPI_COMM_WORLD, rreq IERR)
      call MPI_Barrier(MPI_COMM_WORLD IERR)
      select case (k)
      case (1)
        call MPI_Send(iout, n, MPI_INTEGER, right, k, MPI_COMM_WORLD IERR)
      case (2)
        call MPI_Bsend(iout, n, MPI_INTEGER, right, k, MPI_COMM_WORLD IERR)
      case (3)
        call MPI_Ssend(iout, n, MPI_INTEGER, right, k, MPI_COMM_WORLD IERR)
      case (4)
        call MPI_Rsend(iout, n, MPI_INTEGER, right, k, MPI_COMM_WORLD IERR)
      case (5)
        call MPI_Isend(iout, n, MPI_INTEGER, right, k, MPI_COMM_WORLD, sreq IERR)
      case (6)
        call MPI_Ibsend(iout, n, MPI_INTEGER, right, k, MPI_COMM_WORLD, sreq IERR)
      case (7)
        call MPI_Issend(iout, n, MPI_INTEGER, right, k, MPI_COMM_WORLD, sreq IERR)
      case (8)
        call MPI_Irsend(iout, n, MPI_INTEGER, right, k, MPI_COMM_WORLD, sreq IERR)
      case (11)
        call MPI_Send_init(iout, n, MPI_INTEGER, right, k, MPI_COMM_WORLD, sreq IERR)
      case (12)
        call MPI_Bsend_init(iout, n, MPI_INTEGER, right, k, MPI_COMM_WORLD, sreq IERR)
      case (13)
        call MPI_Ssend_init(iout, n, MPI_INTEGER, right, k, MPI_COMM_WORLD, sreq IERR)
      case (14)
        call MPI_Rsend_init(iout, n, MPI_INTEGER, right, k, MPI_COMM_WORLD, sreq IERR)
      end select
      if (k >= 11) call MPI_Start(sreq IERR)
      if (k >= 5) call MPI_Wait(sreq, MPI_STATUS_IGNORE IERR)
      if (k >= 11) call MPI_Request_free(sreq IERR)
      call MPI_Wait(rreq, MPI_STATUS_IGNORE IERR)
    end do
  end subroutine kinds

  subroutine split()
    HANDLE(MPI_Comm) :: half, inter, dup
    HANDLE(MPI_Request) :: req
    integer :: s, n, k
    call MPI_Comm_split(MPI_COMM_WORLD, mod(r, 2), -r, half IERR)
    call MPI_Comm_rank(half, s IERR)
    call MPI_Comm_size(half, n IERR)
    call MPI_Isend(iout, r + 1, MPI_INTEGER, mod(s + 1, n), 0, half, req IERR)
    call MPI_Recv(iin, 65536, MPI_INTEGER, mod(s + n - 1, n), 0, half, MPI_STATUS_IGNORE IERR)
    call MPI_Wait(req, MPI_STATUS_IGNORE IERR)
    ! the halves' rank 0 are world ranks P - 2 (even) and P - 1 (odd)
    if (mod(r, 2) == 1) then
      call MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, p - 2, 5, inter IERR)
    else
      call MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, p - 1, 5, inter IERR)
    end if
    call MPI_Isend(iout, r + 100, MPI_CHARACTER, 0, 1, inter, req IERR)
    if (s == 0) then
      do k = 1, n
        call MPI_Recv(iin, 4 * 65536, MPI_CHARACTER, MPI_ANY_SOURCE, 1, inter, MPI_STATUS_IGNORE IERR)
      end do
    end if
    call MPI_Wait(req, MPI_STATUS_IGNORE IERR)
    call MPI_Comm_free(inter IERR)
    call MPI_Comm_free(half IERR)
    call MPI_Comm_dup(MPI_COMM_WORLD, dup IERR)
    call MPI_Sendrecv(iout, 1, MPI_INTEGER, mod(r + 1, p), 2, iin, 1, MPI_INTEGER, mod(r + p - 1, p), 2, dup, &
                      MPI_STATUS_IGNORE IERR)
    call MPI_Comm_free(dup IERR)
  end subroutine split

  subroutine onesided()
    HANDLE(MPI_Comm) :: rev
    HANDLE(MPI_Win) :: win
    HANDLE(MPI_Request) :: req(4)
    character :: base(1024)
    double precision :: d(32)
    integer :: ii(8), res(8), s, t, cmp, swap, got
    integer(kind=8) :: one, old
    d = 1d0
    ii = 1
    one = 1
    cmp = 0
    swap = 1
    call MPI_Comm_split(MPI_COMM_WORLD, 0, -r, rev IERR)
    call MPI_Comm_rank(rev, s IERR)
    t = mod(s + 1, p)
    call MPI_Win_create(base, 1024_MPI_ADDRESS_KIND, 1, MPI_INFO_NULL, rev, win IERR)
    call MPI_Win_fence(0, win IERR)
    call MPI_Put(d, r + 1, MPI_DOUBLE_PRECISION, t, 0_MPI_ADDRESS_KIND, r + 1, MPI_DOUBLE_PRECISION, win IERR)
    call MPI_Get(ii, 3, MPI_INTEGER, t, 128_MPI_ADDRESS_KIND, 3, MPI_INTEGER, win IERR)
    call MPI_Accumulate(d, 2, MPI_DOUBLE_PRECISION, t, 256_MPI_ADDRESS_KIND, 2, MPI_DOUBLE_PRECISION, MPI_SUM, &
                        win IERR)
    call MPI_Get_accumulate(ii(5), 4, MPI_INTEGER, res, 4, MPI_INTEGER, t, 320_MPI_ADDRESS_KIND, 4, MPI_INTEGER, &
                            MPI_SUM, win IERR)
    call MPI_Get_accumulate(ii, 0, MPI_INTEGER, res, 5, MPI_INTEGER, t, 384_MPI_ADDRESS_KIND, 5, MPI_INTEGER, &
                            MPI_NO_OP, win IERR)
    call MPI_Fetch_and_op(one, old, MPI_INTEGER8, t, 448_MPI_ADDRESS_KIND, MPI_SUM, win IERR)
    call MPI_Compare_and_swap(swap, cmp, got, MPI_INTEGER, t, 464_MPI_ADDRESS_KIND, win IERR)
    call MPI_Put(d, 4, MPI_DOUBLE_PRECISION, MPI_PROC_NULL, 0_MPI_ADDRESS_KIND, 4, MPI_DOUBLE_PRECISION, win IERR)
    call MPI_Win_fence(0, win IERR)
    call MPI_Pcontrol(0)
    call MPI_Put(d, 9, MPI_DOUBLE_PRECISION, t, 0_MPI_ADDRESS_KIND, 9, MPI_DOUBLE_PRECISION, win IERR)
    call MPI_Win_fence(0, win IERR)
    call MPI_Pcontrol(1)
    call MPI_Win_fence(0, win IERR)
    call MPI_Win_lock_all(0, win IERR)
    call MPI_Rput(d, 1, MPI_DOUBLE_PRECISION, t, 512_MPI_ADDRESS_KIND, 1, MPI_DOUBLE_PRECISION, win, req(1) IERR)
    call MPI_Rget(d(9), 2, MPI_DOUBLE_PRECISION, t, 520_MPI_ADDRESS_KIND, 2, MPI_DOUBLE_PRECISION, win, &
                  req(2) IERR)
    call MPI_Raccumulate(ii, 1, MPI_INTEGER, t, 544_MPI_ADDRESS_KIND, 1, MPI_INTEGER, MPI_SUM, win, req(3) IERR)
    call MPI_Rget_accumulate(ii(2), 1, MPI_INTEGER, res, 1, MPI_INTEGER, t, 560_MPI_ADDRESS_KIND, 1, MPI_INTEGER, &
                             MPI_SUM, win, req(4) IERR)
    call MPI_Waitall(4, req, MPI_STATUSES_IGNORE IERR)
    call MPI_Win_unlock_all(win IERR)
    call MPI_Win_free(win IERR)
    call MPI_Comm_free(rev IERR)
  end subroutine onesided

  subroutine neighbor()
    HANDLE(MPI_Comm) :: cart, dist, graph
    HANDLE(MPI_Request) :: req
    HANDLE(MPI_Datatype) :: types(6)
    integer :: dims(3), counts(6), displs(6), rcounts(6), rdispls(6), wcounts(6), gcounts(6), gdispls(6), k
    integer(kind=MPI_ADDRESS_KIND) :: wdispls(6), wrdispls(6)
    integer :: dst(2), src(2), dcounts(2), ddispls(2), drcounts(2)
    integer, allocatable :: index(:), edges(:)
    logical :: periods(3)
    dims = (/ p / 2, 2, 1 /)
    periods = (/ .true., .false., .true. /)
    do k = 0, 5
      counts(k + 1) = k + 1
      displs(k + 1) = 8 * k
      rcounts(k + 1) = 6
      rdispls(k + 1) = 8 * k
      wcounts(k + 1) = 1
      wdispls(k + 1) = 8 * k
      wrdispls(k + 1) = 64 * k
      types(k + 1) = MPI_INTEGER
      if (mod(k / 2, 2) == 1) types(k + 1) = MPI_DOUBLE_PRECISION
      gcounts(k + 1) = 3
      gdispls(k + 1) = 4 * k
    end do
    call MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, .false., cart IERR)
    call MPI_Neighbor_allgather(iout, r + 1, MPI_INTEGER, iin, 64, MPI_INTEGER, cart IERR)
    call MPI_Neighbor_alltoall(dout, 2, MPI_DOUBLE_PRECISION, din, 2, MPI_DOUBLE_PRECISION, cart IERR)
    call MPI_Ineighbor_alltoallv(iout, counts, displs, MPI_INTEGER, iin, rcounts, rdispls, MPI_INTEGER, cart, &
                                 req IERR)
    call MPI_Wait(req, MPI_STATUS_IGNORE IERR)
    ! Open MPI 4.1's Fortran binding converts as many types as the communicator has ranks, not
    ! neighbours (6 here): with fewer ranks it reads past the arrays and fails; MPICH 4.0's `use mpi_f08`
    ! one asks MPI_Dist_graph_neighbors_count of a Cartesian communicator and aborts (the test builds
    ! that program with -DNO_F08_NEIGHBOR_ALLTOALLW)
#if !defined(NO_F08_NEIGHBOR_ALLTOALLW)
    if (p >= 6) call MPI_Neighbor_alltoallw(dout, wcounts, wdispls, types, din, wcounts, wrdispls, types, cart IERR)
#endif
    call MPI_Neighbor_allgatherv(iout, 3, MPI_CHARACTER, iin, gcounts, gdispls, MPI_CHARACTER, cart IERR)
    call MPI_Pcontrol(0)
    call MPI_Ineighbor_allgather(iout, 50, MPI_INTEGER, iin, 50, MPI_INTEGER, cart, req IERR)
    call MPI_Wait(req, MPI_STATUS_IGNORE IERR)
    call MPI_Pcontrol(1)
    call MPI_Comm_free(cart IERR)

    dst = (/ mod(r + 1, p), mod(r + 3, p) /)
    src = (/ mod(r + p - 1, p), mod(r + p - 3, p) /)
    call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst, MPI_UNWEIGHTED, &
                                        MPI_INFO_NULL, .false., dist IERR)
    dcounts = (/ 5, 7 /)
    ddispls = (/ 0, 8 /)
    drcounts = (/ 8, 8 /)
    call MPI_Neighbor_alltoallv(iout, dcounts, ddispls, MPI_INTEGER, iin, drcounts, ddispls, MPI_INTEGER, dist IERR)
    call MPI_Ineighbor_allgather(dout, 1, MPI_DOUBLE_PRECISION, din, 1, MPI_DOUBLE_PRECISION, dist, req IERR)
    call MPI_Wait(req, MPI_STATUS_IGNORE IERR)
    call MPI_Comm_free(dist IERR)

    allocate(index(p), edges(2 * p))
    do k = 0, p - 1
      index(k + 1) = 2 * (k + 1)
      edges(2 * k + 1) = mod(k + p - 1, p)
      edges(2 * k + 2) = mod(k + 1, p)
    end do
    call MPI_Graph_create(MPI_COMM_WORLD, p, index, edges, .false., graph IERR)
    call MPI_Neighbor_allgather(iout, 2, MPI_INTEGER, iin, 2, MPI_INTEGER, graph IERR)
    call MPI_Comm_free(graph IERR)
    deallocate(index, edges)
  end subroutine neighbor

  subroutine collectives()
    HANDLE(MPI_Comm) :: w, dup, half
    HANDLE(MPI_Request) :: req(2)
    HANDLE(MPI_Datatype), allocatable :: types(:)
    integer, allocatable :: counts(:), displs(:), ones(:), rdispls(:), bdispls(:), mine(:), mdispls(:)
    integer :: k, at
    allocate(counts(p), displs(p), ones(p), rdispls(p), bdispls(p), mine(p), mdispls(p), types(p))
    at = 0
    do k = 0, p - 1
      counts(k + 1) = k + 1
      displs(k + 1) = at
      at = at + k + 1
      mine(k + 1) = r + 1
      mdispls(k + 1) = k * (r + 1)
      ones(k + 1) = 1
      rdispls(k + 1) = k
      bdispls(k + 1) = 4 * k
      types(k + 1) = MPI_INTEGER
    end do
    w = MPI_COMM_WORLD
    call MPI_Barrier(w IERR)
    call MPI_Bcast(iout, 10, MPI_INTEGER, 0, w IERR)
    call MPI_Allreduce(dout, din, 3, MPI_DOUBLE_PRECISION, MPI_SUM, w IERR)
    call MPI_Allreduce(MPI_IN_PLACE, dout, 3, MPI_DOUBLE_PRECISION, MPI_SUM, w IERR)
    call MPI_Reduce(iout, iin, 2, MPI_INTEGER, MPI_SUM, 1, w IERR)
    if (r == 0) then  ! in place: MPI ignores the send count
      call MPI_Gather(MPI_IN_PLACE, 99, MPI_INTEGER, iin, 1, MPI_INTEGER, 0, w IERR)
    else
      call MPI_Gather(iout, 1, MPI_INTEGER, iin, 1, MPI_INTEGER, 0, w IERR)
    end if
    call MPI_Scatter(iout, 2, MPI_INTEGER, iin, 2, MPI_INTEGER, 0, w IERR)
    call MPI_Allgather(dout, 1, MPI_DOUBLE_PRECISION, din, 1, MPI_DOUBLE_PRECISION, w IERR)
    call MPI_Alltoall(iout, 1, MPI_INTEGER, iin, 1, MPI_INTEGER, w IERR)
    call MPI_Alltoallv(iout, counts, displs, MPI_INTEGER, iin, mine, mdispls, MPI_INTEGER, w IERR)
    call MPI_Alltoallw(iout, ones, bdispls, types, iin, ones, bdispls, types, w IERR)
    call MPI_Reduce_scatter_block(iout, iin, 1, MPI_INTEGER, MPI_SUM, w IERR)
    call MPI_Reduce_scatter(iout, iin, ones, MPI_INTEGER, MPI_SUM, w IERR)
    call MPI_Scan(iout, iin, 1, MPI_INTEGER, MPI_SUM, w IERR)
    call MPI_Exscan(iout, iin, 1, MPI_INTEGER, MPI_SUM, w IERR)
    call MPI_Iallreduce(iout, iin, 5, MPI_INTEGER, MPI_SUM, w, req(1) IERR)
    call MPI_Ibcast(dout, 3, MPI_DOUBLE_PRECISION, p - 1, w, req(2) IERR)
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE IERR)
    call MPI_Gatherv(iout, r + 1, MPI_INTEGER, iin, counts, displs, MPI_INTEGER, 0, w IERR)
    call MPI_Scatterv(iout, counts, displs, MPI_INTEGER, iin, r + 1, MPI_INTEGER, 0, w IERR)
    call MPI_Allgatherv(iout, 1, MPI_INTEGER, iin, ones, rdispls, MPI_INTEGER, w IERR)
    call MPI_Pcontrol(0)
    call MPI_Barrier(w IERR)
    call MPI_Allreduce(iout, iin, 7, MPI_INTEGER, MPI_SUM, w IERR)
    call MPI_Pcontrol(1)
    call MPI_Comm_dup(w, dup IERR)
    call MPI_Allreduce(iout, iin, 1, MPI_INTEGER, MPI_SUM, dup IERR)
    call MPI_Comm_free(dup IERR)
    call MPI_Comm_split(w, mod(r, 2), r, half IERR)
    call MPI_Allreduce(iout, iin, 2, MPI_INTEGER, MPI_SUM, half IERR)
    call MPI_Bcast(iout, 1, MPI_INTEGER, 0, half IERR)
    call MPI_Comm_free(half IERR)
    call MPI_Allreduce(iout, iin, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_SELF IERR)
    deallocate(counts, displs, ones, rdispls, bdispls, mine, mdispls, types)
  end subroutine collectives

  subroutine pcollectives()
#if defined(HAVE_MPI4)
    HANDLE(MPI_Request) :: req(4), nreq
    HANDLE(MPI_Comm) :: ring_comm
    integer :: ain(4), aout(4), gin(3), gout(3 * 64), nout(2), nin(2), k
    double precision :: d(2)
    ain = 1
    gin = r
    nout = r
    d = 1d0
    call MPI_Allreduce_init(ain, aout, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, req(1) IERR)
    call MPI_Bcast_init(d, 2, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, MPI_INFO_NULL, req(2) IERR)
    call MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, req(3) IERR)
    if (r == 0) then
      call MPI_Gather_init(MPI_IN_PLACE, 99, MPI_INTEGER, gout, 3, MPI_INTEGER, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &
                           req(4) IERR)
    else
      call MPI_Gather_init(gin, 3, MPI_INTEGER, gout, 3, MPI_INTEGER, 0, MPI_COMM_WORLD, MPI_INFO_NULL, req(4) IERR)
    end if
    do k = 1, 2
      call MPI_Start(req(1) IERR)
      call MPI_Wait(req(1), MPI_STATUS_IGNORE IERR)
      call MPI_Start(req(3) IERR)
      call MPI_Wait(req(3), MPI_STATUS_IGNORE IERR)
      call MPI_Start(req(4) IERR)
      call MPI_Wait(req(4), MPI_STATUS_IGNORE IERR)
    end do
    do k = 1, 2
      call MPI_Startall(2, req IERR)
      call MPI_Waitall(2, req, MPI_STATUSES_IGNORE IERR)
    end do
    call MPI_Pcontrol(0)
    call MPI_Start(req(1) IERR)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE IERR)
    call MPI_Pcontrol(1)
    do k = 1, 4
      call MPI_Request_free(req(k) IERR)
    end do
    call MPI_Cart_create(MPI_COMM_WORLD, 1, [p], [.true.], .false., ring_comm IERR)
    call MPI_Neighbor_alltoall_init(nout, 1, MPI_INTEGER, nin, 1, MPI_INTEGER, ring_comm, MPI_INFO_NULL, nreq IERR)
    do k = 1, 2
      call MPI_Start(nreq IERR)
      call MPI_Wait(nreq, MPI_STATUS_IGNORE IERR)
    end do
    call MPI_Request_free(nreq IERR)
    call MPI_Comm_free(ring_comm IERR)
#else
    if (r == 0) write(0, '(A)') 'traffic: pcollectives needs MPI 4 (built without -DHAVE_MPI4)'
    call MPI_Abort(MPI_COMM_WORLD, 2 IERR)
#endif
  end subroutine pcollectives

  ! ierror passed explicitly in every interface (mpi_f08's too): the failed calls' codes are printed.
  subroutine badsend()
    HANDLE(MPI_Request) :: req
    integer :: e1, e2
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN IERR)
    call MPI_Send(iout, 3, MPI_INTEGER, p, 0, MPI_COMM_WORLD, e1)
    call MPI_Isend(iout, 3, MPI_INTEGER, p, 0, MPI_COMM_WORLD, req, e2)
    if (r == 0) write(*, '(4A)') 'bad send: ', trim(verdict(e1)), ', ', trim(verdict(e2))
    call MPI_Irecv(iin, left + 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, req IERR)
    call MPI_Send(iout, r + 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD IERR)
    call MPI_Wait(req, MPI_STATUS_IGNORE IERR)
  end subroutine badsend

  function verdict(code) result(word)
    integer, intent(in) :: code
    character(len=8) :: word
    word = 'error'
    if (code == MPI_SUCCESS) word = 'success'
  end function verdict

end program traffic

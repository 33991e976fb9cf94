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
  integer :: halo_dims(3), steps, i

  ierr = 0
  call MPI_Init(ONLY_IERR)
  call MPI_Comm_size(MPI_COMM_WORLD, p IERR)
  call MPI_Comm_rank(MPI_COMM_WORLD, r IERR)
  right = mod(r + 1, p)
  left = mod(r + p - 1, p)
  iout = 1
  dout = 1d0
  call get_command_argument(1, mode)
  select case (trim(mode))
  case ('ring')
    call ring()
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
  case ('badsend')
    call badsend()
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

! errhandlers.c in Fortran (same arguments but baddist, same output but the attribute line), built three times by tests/runtime/test_pmpi.py:
! -DUSE_MPIF (include 'mpif.h'), -DUSE_MPI (use mpi), -DUSE_F08 (use mpi_f08).
program errhandlers
#if defined(USE_F08)
  use mpi_f08
#elif defined(USE_MPI)
  use mpi
#endif
  implicit none
#if defined(USE_MPIF)
  include 'mpif.h'
#endif
#if defined(USE_F08)
  type(MPI_Comm) :: cart, target
#else
  integer :: cart, target
#endif
  integer :: ierr, rank, size, i, x, dims(1)
  logical :: ret, badcart, send, periods(1)
  character(len=16) :: arg

  ret = .false.
  badcart = .false.
  send = .true.
  do i = 1, command_argument_count()
    call get_command_argument(i, arg)
    if (arg == 'return') ret = .true.
    if (arg == 'badcart') badcart = .true.
    if (arg == 'nosend') send = .false.
  end do
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  if (ret) call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  if (rank == 0) then  ! flushed: an abort in the create below may kill this process
    write(*, '(4A)') 'before: world ', trim(eh_name(MPI_COMM_WORLD)), ' self ', trim(eh_name(MPI_COMM_SELF))
    flush(6)
  end if
  dims(1) = size
  if (badcart) dims(1) = size + 1
  periods(1) = .false.
  cart = MPI_COMM_NULL
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .true., cart, ierr)
  if (rank == 0) then
    write(*, '(2A)') 'create: ', trim(class_name(ierr))
    if (cart == MPI_COMM_NULL) then
      write(*, '(5A)') 'after: world ', trim(eh_name(MPI_COMM_WORLD)), ' self ', trim(eh_name(MPI_COMM_SELF)), &
                       ' cart null'
    else
      write(*, '(6A)') 'after: world ', trim(eh_name(MPI_COMM_WORLD)), ' self ', trim(eh_name(MPI_COMM_SELF)), &
                       ' cart ', trim(eh_name(cart))
    end if
    flush(6)
  end if
  if (send .and. rank == 0) then
    x = 1
    target = cart
    if (cart == MPI_COMM_NULL) target = MPI_COMM_WORLD
    call MPI_Send(x, 1, MPI_INTEGER, size, 0, target, ierr)
    write(*, '(2A)') 'send: error class ', trim(class_name(ierr))
    flush(6)
  end if
  if (cart /= MPI_COMM_NULL) call MPI_Comm_free(cart, ierr)
  call MPI_Finalize(ierr)

contains

  function eh_name(comm) result(name)
#if defined(USE_F08)
    type(MPI_Comm), intent(in) :: comm
    type(MPI_Errhandler) :: eh
#else
    integer, intent(in) :: comm
    integer :: eh
#endif
    character(len=6) :: name
    integer :: ierr2
    call MPI_Comm_get_errhandler(comm, eh, ierr2)
    name = 'other'
    if (eh == MPI_ERRORS_ARE_FATAL) name = 'fatal'
    if (eh == MPI_ERRORS_RETURN) name = 'return'
    call MPI_Errhandler_free(eh, ierr2)
  end function eh_name

  function class_name(code) result(name)
    integer, intent(in) :: code
    character(len=16) :: name
    integer :: cls, ierr2
    call MPI_Error_class(code, cls, ierr2)
    name = 'other'
    if (cls == MPI_SUCCESS) name = 'MPI_SUCCESS'
    if (cls == MPI_ERR_RANK) name = 'MPI_ERR_RANK'
    if (cls == MPI_ERR_ARG) name = 'MPI_ERR_ARG'
    if (cls == MPI_ERR_DIMS) name = 'MPI_ERR_DIMS'
    if (cls == MPI_ERR_TOPOLOGY) name = 'MPI_ERR_TOPOLOGY'
  end function class_name

end program errhandlers

! cart_then_world_f.f90 -- the LAMMPS pattern in Fortran (use mpi), a misuse:
! neighbours read from a Cartesian communicator created with reorder=1,
! the communicator freed, the exchange done with those ranks on
! MPI_COMM_WORLD.  Each process sends its grid rank and checks that it
! comes from its grid neighbour; rank 0 prints "moved M of N" and PASS or
! FAIL (exit status 1 on FAIL).  Right only while MPI keeps every rank.
program cart_then_world_f
  use mpi
  implicit none
  integer :: ierr, wrank, crank, size, cart, d, got, moved, bad, nbad
  integer :: dims(3), src(3), dst(3)
  logical :: periods(3)
  integer :: status(MPI_STATUS_SIZE)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, wrank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  dims = 0
  periods = .true.
  call MPI_Dims_create(size, 3, dims, ierr)
  call MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, .true., cart, ierr)
  call MPI_Comm_rank(cart, crank, ierr)
  do d = 1, 3
    call MPI_Cart_shift(cart, d - 1, 1, src(d), dst(d), ierr)
  end do
  call MPI_Comm_free(cart, ierr)
  bad = 0
  do d = 1, 3
    got = -1
    call MPI_Sendrecv(crank, 1, MPI_INTEGER, dst(d), d, got, 1, MPI_INTEGER, src(d), d, &
                      MPI_COMM_WORLD, status, ierr)
    if (got /= src(d)) then
      bad = bad + 1
      write (0, '(a,i0,a,i0,a,i0,a,i0)') 'rank ', wrank, ', dimension ', d - 1, &
        ': got grid rank ', got, ', expected ', src(d)
    end if
  end do
  call report(crank /= wrank, bad, moved, nbad)
  call MPI_Finalize(ierr)
  if (nbad /= 0) stop 1

contains

  subroutine report(me_moved, me_bad, moved, nbad)
    logical, intent(in) :: me_moved
    integer, intent(in) :: me_bad
    integer, intent(out) :: moved, nbad
    integer :: one, ierr2
    one = merge(1, 0, me_moved)
    call MPI_Allreduce(one, moved, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr2)
    call MPI_Allreduce(me_bad, nbad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr2)
    if (wrank == 0) then
      write (*, '(a,i0,a,i0)') 'moved ', moved, ' of ', size
      if (nbad == 0) then
        write (*, '(a)') 'PASS'
      else
        write (*, '(a)') 'FAIL'
      end if
    end if
  end subroutine report
end program cart_then_world_f

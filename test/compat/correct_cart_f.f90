! correct_cart_f.f90 -- the correct use in Fortran (use mpi): a halo
! exchange on the Cartesian communicator created with reorder=1, with the
! neighbours MPI_Cart_shift gives there.  Each process sends its grid rank
! and checks that it comes from its grid neighbour; rank 0 prints
! "moved M of N" and PASS or FAIL (exit status 1 on FAIL).
program correct_cart_f
  use mpi
  implicit none
  integer :: ierr, wrank, crank, size, cart, d, got, moved, bad, nbad, one
  integer :: dims(3), src, dst
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
  bad = 0
  do d = 1, 3
    call MPI_Cart_shift(cart, d - 1, 1, src, dst, ierr)
    got = -1
    call MPI_Sendrecv(crank, 1, MPI_INTEGER, dst, d, got, 1, MPI_INTEGER, src, d, cart, &
                      status, ierr)
    if (got /= src) then
      bad = bad + 1
      write (0, '(a,i0,a,i0,a,i0,a,i0)') 'grid rank ', crank, ', dimension ', d - 1, &
        ': got grid rank ', got, ', expected ', src
    end if
  end do
  call MPI_Comm_free(cart, ierr)
  one = merge(1, 0, crank /= wrank)
  call MPI_Allreduce(one, moved, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(bad, nbad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (wrank == 0) then
    write (*, '(a,i0,a,i0)') 'moved ', moved, ' of ', size
    if (nbad == 0) then
      write (*, '(a)') 'PASS'
    else
      write (*, '(a)') 'FAIL'
    end if
  end if
  call MPI_Finalize(ierr)
  if (nbad /= 0) stop 1
end program correct_cart_f

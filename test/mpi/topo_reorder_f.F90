! topo_reorder_f.F90 -- an unmodified Fortran MPI program (standard MPI only),
! built by test/mpi/fortran.sh with Debian's own mpif90.mpich (or the patched
! mpifort) and run against the patched libmpich / libmpichfort.
!
!   topo_reorder_f MAPFILE cart|dgraph|dgraph-default
!
! MAPFILE is the address table the job runs with (line r = x y z of world
! rank r on an NxNxN torus, N = 2 for 8 ranks, 4 for 64).  cart:
! MPI_CART_CREATE of a periodic NxNxN grid
! with reorder = .true.; dgraph: MPI_DIST_GRAPH_CREATE_ADJACENT of the same
! grid's graph with the info key rankmap_vertices=follow_rank (the program
! says the process that receives new rank v plays vertex v); dgraph-default:
! the same call with MPI_INFO_NULL (each process keeps its own edges, so the
! order must stay MPI's: rank 0 prints "moved 0").  Then:
!   - the torus hop distance between every process and its grid neighbours,
!     measured in the address table through MPI_GROUP_TRANSLATE_RANKS, must
!     be 1 (a placement-aware reorder) and some rank must have moved;
!   - a halo exchange (MPI_SENDRECV of the new rank to and from both
!     neighbours in each dimension) must deliver the neighbours' ranks;
!   - MPI_ALLREDUCE with MPI_SUM of one MPI_INTEGER and of one
!     MPI_DOUBLE_PRECISION, and MPI_BCAST of an MPI_INTEGER array, must give
!     the right values on the new communicator.
! Compiled with -DUSE_F08 it uses the mpi_f08 module, otherwise `use mpi`.
! Rank 0 prints "moved M worst W errors E"; exit status 0 = pass.
#ifdef USE_F08
#define COMM_T type(MPI_Comm)
#define GROUP_T type(MPI_Group)
#define STATUS_T type(MPI_Status)
#define INFO_T type(MPI_Info)
#else
#define COMM_T integer
#define GROUP_T integer
#define STATUS_T integer, dimension(MPI_STATUS_SIZE)
#define INFO_T integer
#endif
program topo_reorder_f
#ifdef USE_F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
  integer, parameter :: nd = 3
  integer :: n
  integer :: dims(nd), xyz(3, 0:63)
  logical :: periods(nd)
  integer :: wrank, wsize, rank, ierr, d, e, i, moved, total, worst, allworst
  integer :: src, dst, wnb(1), hops, delta, errors, allerrors, got
  integer :: isum, ione, nbrs(2 * nd), outs(2 * nd), innb, outnb, bcastbuf(5)
  logical :: weighted
  double precision :: dsum, dhalf
  character(len=256) :: mapfile, mode
  COMM_T :: topo
  GROUP_T :: g, w
  STATUS_T :: st
  INFO_T :: info

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, wrank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, wsize, ierr)
  n = merge(2, merge(4, 0, wsize == 64), wsize == 8)
  if (command_argument_count() /= 2 .or. n == 0) then
    if (wrank == 0) print '(a)', 'usage: topo_reorder_f MAPFILE cart|dgraph|dgraph-default (8 or 64 ranks)'
    call MPI_ABORT(MPI_COMM_WORLD, 2, ierr)
  end if
  call get_command_argument(1, mapfile)
  call get_command_argument(2, mode)
  call read_map(trim(mapfile), xyz, wsize)

  dims = n
  periods = .true.
  errors = 0
  if (trim(mode) == 'cart') then
    call MPI_CART_CREATE(MPI_COMM_WORLD, nd, dims, periods, .true., topo, ierr)
    call MPI_COMM_RANK(topo, rank, ierr)
    do d = 0, nd - 1
      call MPI_CART_SHIFT(topo, d, 1, src, dst, ierr)
      nbrs(2 * d + 1) = src
      nbrs(2 * d + 2) = dst
    end do
  else if (trim(mode) == 'dgraph' .or. trim(mode) == 'dgraph-default') then
    ! vertex wrank's neighbours in the periodic grid, row-major, last fastest
    call grid_neighbours(wrank, nbrs)
    if (trim(mode) == 'dgraph') then
      call MPI_INFO_CREATE(info, ierr)
      call MPI_INFO_SET(info, 'rankmap_vertices', 'follow_rank', ierr)
    else
      info = MPI_INFO_NULL
    end if
    call MPI_DIST_GRAPH_CREATE_ADJACENT(MPI_COMM_WORLD, 2 * nd, nbrs, MPI_UNWEIGHTED, &
         2 * nd, nbrs, MPI_UNWEIGHTED, info, .true., topo, ierr)
    if (trim(mode) == 'dgraph') call MPI_INFO_FREE(info, ierr)
    call MPI_COMM_RANK(topo, rank, ierr)
    call MPI_DIST_GRAPH_NEIGHBORS_COUNT(topo, innb, outnb, weighted, ierr)
    if (innb /= 2 * nd .or. outnb /= 2 * nd) errors = errors + 1
    ! this process now plays vertex `rank`: its lists are vertex rank's
    ! (in dgraph-default the order is kept, so rank = wrank)
    call MPI_DIST_GRAPH_NEIGHBORS(topo, 2 * nd, nbrs, MPI_UNWEIGHTED, 2 * nd, outs, &
         MPI_UNWEIGHTED, ierr)
    block
      integer :: want(2 * nd)
      call grid_neighbours(rank, want)
      do i = 1, 2 * nd
        if (nbrs(i) /= want(i) .or. outs(i) /= want(i)) errors = errors + 1
      end do
    end block
  else
    if (wrank == 0) print '(a)', 'topo_reorder_f: mode must be cart, dgraph or dgraph-default'
    call MPI_ABORT(MPI_COMM_WORLD, 2, ierr)
  end if
  moved = merge(1, 0, rank /= wrank)

  ! torus distance to every neighbour, measured in the address table
  call MPI_COMM_GROUP(topo, g, ierr)
  call MPI_COMM_GROUP(MPI_COMM_WORLD, w, ierr)
  worst = 0
  do i = 1, 2 * nd
    call MPI_GROUP_TRANSLATE_RANKS(g, 1, nbrs(i:i), w, wnb, ierr)
    hops = 0
    do e = 1, 3
      delta = abs(xyz(e, wrank) - xyz(e, wnb(1)))
      hops = hops + min(delta, n - delta)
    end do
    worst = max(worst, hops)
  end do

  ! halo exchange: send my rank up the list, receive the neighbour's
  do d = 0, nd - 1
    call MPI_SENDRECV(rank, 1, MPI_INTEGER, nbrs(2 * d + 2), d, got, 1, MPI_INTEGER, &
         nbrs(2 * d + 1), d, topo, st, ierr)
    if (got /= nbrs(2 * d + 1)) errors = errors + 1
  end do

  ! collectives on the new communicator
  ione = rank + 1
  call MPI_ALLREDUCE(ione, isum, 1, MPI_INTEGER, MPI_SUM, topo, ierr)
  if (isum /= wsize * (wsize + 1) / 2) errors = errors + 1
  dhalf = 0.5d0 * rank
  call MPI_ALLREDUCE(dhalf, dsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, topo, ierr)
  if (abs(dsum - 0.25d0 * wsize * (wsize - 1)) > 1d-9) errors = errors + 1
  bcastbuf = -1
  if (rank == 0) bcastbuf = (/ 3, 1, 4, 1, 5 /)
  call MPI_BCAST(bcastbuf, 5, MPI_INTEGER, 0, topo, ierr)
  if (any(bcastbuf /= (/ 3, 1, 4, 1, 5 /))) errors = errors + 1

  call MPI_ALLREDUCE(moved, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_ALLREDUCE(worst, allworst, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call MPI_ALLREDUCE(errors, allerrors, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (wrank == 0) print '(a,a,i0,a,i0,a,i0)', trim(mode), ': moved ', total, ' worst ', allworst, &
       ' errors ', allerrors
  call MPI_GROUP_FREE(g, ierr)
  call MPI_GROUP_FREE(w, ierr)
  call MPI_COMM_FREE(topo, ierr)
  call MPI_FINALIZE(ierr)
  ! exit status 1 on every rank, without the STOP message of each
  if (total == 0 .or. allworst /= 1 .or. allerrors /= 0) call exit(1)

contains

  subroutine grid_neighbours(v, out)
    integer, intent(in) :: v
    integer, intent(out) :: out(2 * nd)
    integer :: c(nd), k, r
    r = v
    do k = nd, 1, -1
      c(k) = mod(r, n)
      r = r / n
    end do
    do k = 1, nd
      out(2 * k - 1) = vertex_at(c, k, -1)
      out(2 * k) = vertex_at(c, k, +1)
    end do
  end subroutine grid_neighbours

  integer function vertex_at(c, k, step)
    integer, intent(in) :: c(nd), k, step
    integer :: cc(nd), j
    cc = c
    cc(k) = modulo(cc(k) + step, n)
    vertex_at = 0
    do j = 1, nd
      vertex_at = vertex_at * n + cc(j)
    end do
  end function vertex_at

  subroutine read_map(path, table, count)
    character(len=*), intent(in) :: path
    integer, intent(out) :: table(3, 0:63)
    integer, intent(in) :: count
    character(len=256) :: line
    integer :: u, ios, r
    r = 0
    open(newunit=u, file=path, status='old', action='read', iostat=ios)
    if (ios /= 0) call MPI_ABORT(MPI_COMM_WORLD, 3, ierr)
    do while (r < count)
      read(u, '(a)', iostat=ios) line
      if (ios /= 0) exit
      if (len_trim(line) == 0 .or. line(1:1) == '#') cycle
      read(line, *, iostat=ios) table(:, r)
      if (ios /= 0) call MPI_ABORT(MPI_COMM_WORLD, 3, ierr)
      r = r + 1
    end do
    close(u)
    if (r /= count) call MPI_ABORT(MPI_COMM_WORLD, 3, ierr)
  end subroutine read_map
end program topo_reorder_f

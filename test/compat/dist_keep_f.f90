! dist_keep_f.f90 -- the Fortran twin of dist_keep.c (use mpi): a correct
! program on distributed graph communicators created with reorder=1 cannot
! tell whether MPI reordered the ranks.
!
! Each process keeps its data where it is (a pure function of its rank in
! MPI_COMM_WORLD), declares its own lists with
! MPI_Dist_graph_create_adjacent and reorder=.true., and exchanges with
! MPI_Neighbor_alltoall and MPI_Neighbor_alltoallv on the new communicator,
! counts and displacements laid out in the order of the lists it passed.
! In the reading of Open MPI issue #11756 / PR #11793 MPI keeps each
! process's own edges and only renumbers the neighbours into the new
! communicator's ranks; then, whatever the new ranks:
!   - MPI_Dist_graph_neighbors, translated back to MPI_COMM_WORLD ranks
!     (MPI_Group_translate_ranks), returns exactly the lists the process
!     passed, in order, with their weights (weighted or not, as passed);
!   - element e of the block from source j is
!       1000000 s + 1000 d + 10 c + e
!     with s the j-th source the process passed, d its own MPI_COMM_WORLD
!     rank and c the collective; alltoallv's counts are 1 + mod(s + 2d, 3)
!     per edge, computed at both ends, with a poisoned gap after each block
!     and a poisoned tail, all compared.
! (The other reading, MPI_Graph_create's "new rank v plays vertex v", is
! the "follow" mode of dist_keep.c.)  Parallel edges carry the same blocks,
! so the check does not depend on how MPI pairs them.
!
! Cases: a 5-point stencil with periodic wrap on the grid MPI_Dims_create
! gives for all ranks (weighted: stencil-w, MPI_UNWEIGHTED: stencil-u), and
! the same stencil on all ranks but the last, which has no edges and passes
! MPI_WEIGHTS_EMPTY (holed-w) or MPI_UNWEIGHTED (holed-u).  Each process
! passes its sources in the reverse order of its destinations.  Small grids
! give parallel edges and self loops.  The cases exchange only once every
! process found its lists right, so every exchange is matched.  Rank 0
! prints "case NAME: PASS" or "case NAME: FAIL <first difference>", "moved
! M of N" and PASS or FAIL; the exit status is 1 on FAIL.
program dist_keep_f
  use mpi
  use, intrinsic :: iso_c_binding, only: c_f_pointer, c_loc
  implicit none
  integer, parameter :: ncase = 4, poison = -7, msglen = 200
  character(len=9), parameter :: names(ncase) = &
    [character(len=9) :: 'stencil-w', 'stencil-u', 'holed-w', 'holed-u']
  integer :: ierr, wrank, nproc, c, moved, deg
  integer :: comms(ncase), cranks(ncase), nbad(ncase), listbad(ncase), sums(2 * ncase)
  integer :: who(ncase), low(ncase), loc(2 * ncase)
  integer :: dst(4), src(4), dw(4), sw(4)
  character(len=msglen) :: first(ncase)
  logical :: weighted, holed, ok
  integer :: status(MPI_STATUS_SIZE)
  integer, pointer, contiguous :: unweighted(:), empty(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, wrank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  nbad = 0
  first = ''
  unweighted => as_array(MPI_UNWEIGHTED)
  empty => as_array(MPI_WEIGHTS_EMPTY)

  ! the communicators, each process with its own lists
  do c = 1, ncase
    weighted = mod(c, 2) == 1
    holed = c > 2
    call lists_of(wrank, holed, deg, dst, src, dw, sw)
    if (deg > 0 .and. weighted) then
      call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, deg, src, sw, deg, dst, dw, &
                                          MPI_INFO_NULL, .true., comms(c), ierr)
    else if (weighted) then
      call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, src, empty, 0, dst, empty, &
                                          MPI_INFO_NULL, .true., comms(c), ierr)
    else
      call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, deg, src, unweighted, deg, dst, &
                                          unweighted, MPI_INFO_NULL, .true., comms(c), ierr)
    end if
    call MPI_Comm_rank(comms(c), cranks(c), ierr)
  end do

  ! the lists MPI returns, then one allreduce: exchange only when all are right
  do c = 1, ncase
    call check_lists(c)
  end do
  call MPI_Allreduce(nbad, listbad, ncase, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  do c = 1, ncase
    if (listbad(c) == 0) then
      call exchange(c, 1)
      call exchange(c, 2)
    end if
  end do

  ! the verdicts: rank 0 prints the first difference of the lowest failing rank
  do c = 1, ncase
    loc(c) = nbad(c)
    loc(ncase + c) = merge(1, 0, cranks(c) /= wrank)
    who(c) = merge(wrank, nproc, nbad(c) > 0)
  end do
  call MPI_Allreduce(loc, sums, 2 * ncase, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(who, low, ncase, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr)
  ok = .true.
  moved = 0
  do c = 1, ncase
    if (sums(c) > 0 .and. low(c) /= 0) then
      if (wrank == low(c)) call MPI_Send(first(c), msglen, MPI_CHARACTER, 0, c, MPI_COMM_WORLD, ierr)
      if (wrank == 0) call MPI_Recv(first(c), msglen, MPI_CHARACTER, low(c), c, MPI_COMM_WORLD, &
                                    status, ierr)
    end if
    if (wrank == 0) then
      if (sums(c) == 0) then
        write (*, '(a,a,a)') 'case ', trim(names(c)), ': PASS'
      else
        write (*, '(a,a,a,a,a,i0,a,i0,a)') 'case ', trim(names(c)), ': FAIL ', trim(first(c)), &
          ' (', sums(c), ' differences, first on rank ', low(c), ')'
      end if
    end if
    ok = ok .and. sums(c) == 0
    moved = max(moved, sums(ncase + c))
    call MPI_Comm_free(comms(c), ierr)
  end do
  if (wrank == 0) then
    write (*, '(a,i0,a,i0)') 'moved ', moved, ' of ', nproc
    if (ok) then
      write (*, '(a)') 'PASS'
    else
      write (*, '(a)') 'FAIL'
    end if
  end if
  call MPI_Finalize(ierr)
  if (.not. ok) stop 1, quiet=.true.

contains

  ! A sentinel (MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY) as a rank-1 array at its
  ! own address.  MPICH declares them scalars, Open MPI arrays; MPICH's
  ! use mpi has no interface for the graph routines, so a file passing both
  ! a sentinel and a weight array to one of them gets gfortran's
  ! rank-mismatch warning.  Passed this way every call passes an array and
  ! MPI still sees the sentinel's address.
  function as_array(x) result(p)
    integer, target, intent(in) :: x(..)
    integer, pointer, contiguous :: p(:)
    call c_f_pointer(c_loc(x), p, [1])
  end function as_array

  integer function val(s, d, coll, e)
    integer, intent(in) :: s, d, coll, e
    val = 1000000 * s + 1000 * d + 10 * coll + e
  end function val

  integer function weight(s, d)
    integer, intent(in) :: s, d
    weight = 1 + mod(3 * s + 5 * d, 11)
  end function weight

  integer function count_of(s, d)
    integer, intent(in) :: s, d
    count_of = 1 + mod(s + 2 * d, 3)
  end function count_of

  ! The lists of vertex v: the stencil on m = nproc (or nproc - 1 when
  ! holed, the last rank without edges) vertices of a periodic grid.
  subroutine lists_of(v, holed, deg, dst, src, dw, sw)
    integer, intent(in) :: v
    logical, intent(in) :: holed
    integer, intent(out) :: deg, dst(4), src(4), dw(4), sw(4)
    integer :: x, y, k, m, dims(2), ierr
    m = nproc
    if (holed) m = nproc - 1
    deg = 0
    dst = -1
    src = -1
    dw = 0
    sw = 0
    if (v >= m) return
    dims = 0
    call MPI_Dims_create(m, 2, dims, ierr)
    x = v / dims(2)
    y = mod(v, dims(2))
    deg = 4
    dst(1) = mod(x + dims(1) - 1, dims(1)) * dims(2) + y
    dst(2) = mod(x + 1, dims(1)) * dims(2) + y
    dst(3) = x * dims(2) + mod(y + dims(2) - 1, dims(2))
    dst(4) = x * dims(2) + mod(y + 1, dims(2))
    do k = 1, 4
      src(k) = dst(5 - k)          ! the stencil is symmetric: the same ranks, reversed
      dw(k) = weight(v, dst(k))
      sw(k) = weight(src(k), v)
    end do
  end subroutine lists_of

  subroutine note(c, msg)
    integer, intent(in) :: c
    character(len=*), intent(in) :: msg
    if (nbad(c) == 0) first(c) = msg
    nbad(c) = nbad(c) + 1
  end subroutine note

  ! MPI_Dist_graph_neighbors, translated to MPI_COMM_WORLD ranks, against
  ! the lists this process passed: in order, with the weights.
  subroutine check_lists(c)
    integer, intent(in) :: c
    integer :: indeg, outdeg, k, deg, cg, wg
    integer :: gsrc(4), gdst(4), gsw(4), gdw(4), tsrc(4), tdst(4)
    integer :: dst(4), src(4), dw(4), sw(4)
    logical :: wflag, weighted
    character(len=msglen) :: msg
    weighted = mod(c, 2) == 1
    call lists_of(wrank, c > 2, deg, dst, src, dw, sw)
    call MPI_Dist_graph_neighbors_count(comms(c), indeg, outdeg, wflag, ierr)
    if (wflag .neqv. weighted) then
      write (msg, '(a,i0,a,l1,a,l1)') 'rank ', wrank, ': weighted = ', wflag, ', expected ', weighted
      call note(c, msg)
    end if
    if (indeg /= deg .or. outdeg /= deg) then
      write (msg, '(a,i0,a,i0,a,i0,a,i0)') 'rank ', wrank, ': degrees ', indeg, ' and ', outdeg, &
        ', expected ', deg
      call note(c, msg)
      return
    end if
    gsw = 0
    gdw = 0
    call MPI_Dist_graph_neighbors(comms(c), indeg, gsrc, gsw, outdeg, gdst, gdw, ierr)
    call MPI_Comm_group(comms(c), cg, ierr)
    call MPI_Comm_group(MPI_COMM_WORLD, wg, ierr)
    call MPI_Group_translate_ranks(cg, deg, gsrc, wg, tsrc, ierr)
    call MPI_Group_translate_ranks(cg, deg, gdst, wg, tdst, ierr)
    call MPI_Group_free(cg, ierr)
    call MPI_Group_free(wg, ierr)
    if (.not. weighted) then         ! no weights to compare
      gsw = sw
      gdw = dw
    end if
    do k = 1, deg
      if (tsrc(k) /= src(k) .or. gsw(k) /= sw(k)) then
        call list_note(c, 'source', k, tsrc(k), gsw(k), src(k), sw(k), weighted)
        return
      end if
      if (tdst(k) /= dst(k) .or. gdw(k) /= dw(k)) then
        call list_note(c, 'destination', k, tdst(k), gdw(k), dst(k), dw(k), weighted)
        return
      end if
    end do
  end subroutine check_lists

  subroutine list_note(c, what, k, got, gotw, want, wantw, weighted)
    integer, intent(in) :: c, k, got, gotw, want, wantw
    character(len=*), intent(in) :: what
    logical, intent(in) :: weighted
    character(len=msglen) :: msg
    if (weighted) then
      write (msg, '(a,i0,a,a,a,i0,a,i0,a,i0,a,i0,a,i0,a)') 'rank ', wrank, ': ', what, ' ', k, &
        ' is ', got, ' (weight ', gotw, '), expected ', want, ' (weight ', wantw, ')'
    else
      write (msg, '(a,i0,a,a,a,i0,a,i0,a,i0)') 'rank ', wrank, ': ', what, ' ', k, ' is ', got, &
        ', expected ', want
    end if
    call note(c, msg)
  end subroutine list_note

  ! One exchange on case c: kind 1 MPI_Neighbor_alltoall (2 elements per
  ! edge), kind 2 MPI_Neighbor_alltoallv (per-edge counts, a gap after
  ! each block); the whole receive buffer is compared.
  subroutine exchange(c, kind)
    integer, intent(in) :: c, kind
    integer :: deg, k, e, at, slen, rlen, i, j
    integer :: dst(4), src(4), dw(4), sw(4)
    integer :: scnt(4), sdis(4), rcnt(4), rdis(4)
    integer, allocatable :: sbuf(:), rbuf(:), want(:)
    character(len=msglen) :: msg
    character(len=22), parameter :: kname(2) = [character(len=22) :: &
      'MPI_Neighbor_alltoall', 'MPI_Neighbor_alltoallv']
    call lists_of(wrank, c > 2, deg, dst, src, dw, sw)
    slen = 0
    rlen = 0
    do k = 1, deg
      if (kind == 1) then
        scnt(k) = 2
        rcnt(k) = 2
        sdis(k) = slen
        rdis(k) = rlen
        slen = slen + 2
        rlen = rlen + 2
      else
        scnt(k) = count_of(wrank, dst(k))
        rcnt(k) = count_of(src(k), wrank)
        sdis(k) = slen
        rdis(k) = rlen
        slen = slen + scnt(k) + 1
        rlen = rlen + rcnt(k) + 1
      end if
    end do
    rlen = rlen + 4                  ! the tail
    allocate (sbuf(max(slen, 1)), rbuf(rlen), want(rlen))
    sbuf = poison
    rbuf = poison
    want = poison
    do k = 1, deg
      do e = 0, scnt(k) - 1
        sbuf(sdis(k) + e + 1) = val(wrank, dst(k), kind, e)
      end do
      do e = 0, rcnt(k) - 1
        want(rdis(k) + e + 1) = val(src(k), wrank, kind, e)
      end do
    end do
    if (kind == 1) then
      call MPI_Neighbor_alltoall(sbuf, 2, MPI_INTEGER, rbuf, 2, MPI_INTEGER, comms(c), ierr)
    else
      call MPI_Neighbor_alltoallv(sbuf, scnt, sdis, MPI_INTEGER, rbuf, rcnt, rdis, MPI_INTEGER, &
                                  comms(c), ierr)
    end if
    do i = 1, rlen
      if (rbuf(i) /= want(i)) then
        at = 0
        do j = 1, deg
          if (i > rdis(j) .and. i <= rdis(j) + rcnt(j)) at = j
        end do
        if (at > 0) then
          write (msg, '(a,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0)') trim(kname(kind)), ': rank ', wrank, &
            ', slot ', at, ' (source ', src(at), ') element ', i - rdis(at) - 1, ': got ', &
            rbuf(i), ', expected ', want(i)
        else
          write (msg, '(a,a,i0,a,i0,a)') trim(kname(kind)), ': rank ', wrank, ', element ', i, &
            ' outside the blocks overwritten (gap or tail)'
        end if
        call note(c, msg)
        exit
      end if
    end do
    deallocate (sbuf, rbuf, want)
  end subroutine exchange

end program dist_keep_f

#!/bin/sh
# mpich_topo_suite.sh STAGE_DIR STAGE_ROOT WORKDIR
# MPICH's own test suites for topologies (test/mpi/topo, and the Fortran
# test/mpi/f77/topo, f90/topo and f08/topo when the build has Fortran, of the
# MPICH tree the patched library was built from, recorded in
# STAGE_DIR/mpich-tree) against the patched library, with the address table
# a torus of the job's size whose
# ranks are scattered at random (so every reordering really moves ranks), in
# two passes:
#   on      MPIR_CVAR_RANKMAP_ENABLE=1: every reorder=1 call, MPI_Cart_map and
#           MPI_Graph_map go through the mapper;
#   forced  also MPIR_CVAR_RANKMAP_FORCE=1: reorder=0 calls reorder too.
# A test that fails is run again with MPIR_CVAR_RANKMAP_ENABLE=0 (MPICH's own
# behaviour) to tell our failures from MPICH's.
#
# Some tests of MPICH 4.0.2 compare the topology communicator's ranks with the
# caller's MPI_COMM_WORLD rank, which holds only when no rank moves:
#   distgraph1, dgraph_unwgt  after MPI_Dist_graph_create(..., reorder=1)
#   and dgraph_unwgt's        (verify_comm / validate_dgraph use the world rank)
#   Fortran ports             (f77/f90/f08 dgraph_unwgtf*, dgraph_wgtf*: the
#                             same validate_dgraph, with and without weights)
#   cartshift1                after MPI_Cart_create(..., reorder=0), which is
#                             right for reorder=0, so only the forced pass
# They are reported as expected failures ("xfail") when they fail with
# reordering and pass with MPIR_CVAR_RANKMAP_ENABLE=0; any other failure
# fails the suite.  The distributed-graph ones must then pass with
# MPIR_CVAR_RANKMAP_DIST_GRAPH=0 (reordering on for everything else).
# The Fortran programs are built with the build's mpifort, whose RUNPATH
# makes them run on the patched libraries.
stage=$1 root=$2 work=$3
tree=$(cat "$stage/mpich-tree" 2>/dev/null)
T=$tree/test/mpi
[ -f "$T/topo/testlist" ] || { echo "SKIP: no test/mpi/topo in the MPICH tree '$tree'"; exit 77; }
mkdir -p "$work" && cd "$work" || exit 1
cc=${CC:-cc}
cat >mpitestconf.h <<'H'
/* minimal configuration for MPICH's test utilities (no threads) */
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_NONE
#define HAVE_UNISTD_H 1
#define HAVE_STRING_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STDARG_H 1
#define USE_STDARG 1
H
flags="-w -I. -I$T/include -I$root/include"
libs="-L$root/lib -Wl,-rpath,$root/lib -lmpi"
fflags="-w -fallow-invalid-boz -fallow-argument-mismatch"
for f in mtest mtest_common mtest_single; do
  $cc $flags -c "$T/util/$f.c" -o $f.o || { echo "FAIL: cannot compile $f.c"; exit 1; }
done
suites="topo"
if [ -x "$root/bin/mpifort" ]; then
  suites="$suites f77/topo f90/topo f08/topo"
  fc=$root/bin/mpifort
  $fc $fflags -c "$T/util/mtest_f77.f" -o mtest_f77.o &&
    $fc $fflags -c "$T/util/mtest_f90.f90" -o mtest_f90.o &&
    $fc $fflags -c "$T/util/mtest_f08.f90" -o mtest_f08.o || { echo "FAIL: cannot compile MPICH's Fortran mtest"; exit 1; }
else
  echo "note: no mpifort in $root (a build without Fortran): C suite only"
fi

# compile SUITE NAME: the test program, in a directory per suite
compile() {
  case $1 in
    topo) $cc $flags -o "$1/$2" "$T/topo/$2.c" mtest.o mtest_common.o mtest_single.o $libs ;;
    f77/topo) $fc $fflags -o "$1/$2" "$T/$1/$2.f" mtest_f77.o ;;
    f90/topo) $fc $fflags -o "$1/$2" "$T/$1/$2.f90" mtest_f90.o ;;
    f08/topo) $fc $fflags -o "$1/$2" "$T/$1/$2.f90" mtest_f08.o ;;
  esac
}
fails=0 total=0 mpich_fails="" xfails=""
for suite in $suites; do
 mkdir -p "$suite"
 for pass in on forced; do
  if [ $pass = on ]; then force=0; assumes_identity="distgraph1 dgraph_unwgt* dgraph_wgtf*"
  else force=1; assumes_identity="distgraph1 dgraph_unwgt* dgraph_wgtf* cartshift1"; fi
  while read -r name np rest; do
    case $name in ''|'#'*) continue ;; esac
    total=$((total + 1))
    if [ $pass = on ] && ! compile "$suite" "$name"; then
      echo "FAIL $suite/$name (compile)"; fails=$((fails + 1)); continue
    fi
    out=$(MPIR_CVAR_RANKMAP_FORCE=$force MPIR_CVAR_RANKMAP_TOPOLOGY=torus:auto2 MPIR_CVAR_RANKMAP_MAPPING=random:7 \
          "$root/bin/mpiexec" -n "$np" "./$suite/$name" </dev/null 2>&1)
    if [ $? -eq 0 ] && echo "$out" | grep -q "No Errors"; then
      echo "ok   $suite/$name (np $np, $pass)"
    else
      base=$(MPIR_CVAR_RANKMAP_ENABLE=0 "$root/bin/mpiexec" -n "$np" "./$suite/$name" </dev/null 2>&1)
      if [ $? -eq 0 ] && echo "$base" | grep -q "No Errors"; then
        xf=no
        for pat in $assumes_identity; do case $name in $pat) xf=yes ;; esac; done
        if [ $xf = yes ]; then
          echo "xfail $suite/$name (np $np, $pass): compares new ranks with MPI_COMM_WORLD ranks; passes without reordering"
          xfails="$xfails $suite/$name($pass)"
        else
          echo "FAIL $suite/$name (np $np, $pass): fails only with reordering"; echo "$out" | head -20
          fails=$((fails + 1))
        fi
      else
        echo "FAIL $suite/$name (np $np, $pass): fails on MPICH's own behaviour too (MPIR_CVAR_RANKMAP_ENABLE=0)"
        echo "$out" | head -10
        mpich_fails="$mpich_fails $suite/$name($pass)"; fails=$((fails + 1))
      fi
    fi
  done <"$T/$suite/testlist"
 done
done
# the expected failures pass with MPIR_CVAR_RANKMAP_DIST_GRAPH=0, which keeps
# MPICH's order for distributed graphs alone (reordering otherwise on)
for t in topo/distgraph1 topo/dgraph_unwgt f77/topo/dgraph_unwgtf f77/topo/dgraph_wgtf \
         f90/topo/dgraph_unwgtf90 f90/topo/dgraph_wgtf90 f08/topo/dgraph_unwgtf90 f08/topo/dgraph_wgtf90; do
  [ -x "./$t" ] || continue
  total=$((total + 1))
  out=$(MPIR_CVAR_RANKMAP_DIST_GRAPH=0 MPIR_CVAR_RANKMAP_TOPOLOGY=torus:auto2 MPIR_CVAR_RANKMAP_MAPPING=random:7 \
        "$root/bin/mpiexec" -n 4 "./$t" </dev/null 2>&1)
  if [ $? -eq 0 ] && echo "$out" | grep -q "No Errors"; then
    echo "ok   $t (np 4, on, MPIR_CVAR_RANKMAP_DIST_GRAPH=0)"
  else
    echo "FAIL $t with MPIR_CVAR_RANKMAP_DIST_GRAPH=0"; echo "$out" | head -10; fails=$((fails + 1))
  fi
done
xn=$(echo $xfails | wc -w)
echo "MPICH $suites, 2 passes (+ the distributed-graph tests with MPIR_CVAR_RANKMAP_DIST_GRAPH=0): $((total - fails - xn)) of $total runs passed${xfails:+; expected failures (assume identity order):$xfails}${mpich_fails:+; failing without the patches too:$mpich_fails}"
[ $fails -eq 0 ]

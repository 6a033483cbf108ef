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
# The distributed-graph tests (distgraph1, dgraph_unwgt and their Fortran
# ports) compare the new communicator's neighbours with MPI_COMM_WORLD ranks,
# as programs written for "every process keeps its own edges" do: they pass
# in both passes, since a distributed graph keeps MPI's order unless the
# program opts in to moving its vertices.  One test of MPICH 4.0.2 compares
# ranks after MPI_Cart_create(..., reorder=0), which is right for reorder=0:
#   cartshift1                so it can only fail in the forced pass, where
#                             MPIR_CVAR_RANKMAP_FORCE reorders a reorder=0 call
#                             against the standard (the knob exists to put
#                             the rest of the suite through the mapper)
# It is reported as an expected failure ("xfail") when it fails forced and
# passes with MPIR_CVAR_RANKMAP_ENABLE=0; any other failure fails the suite.
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
  if [ $pass = on ]; then force=0; assumes_identity=""
  else force=1; assumes_identity="cartshift1"; fi
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
xn=$(echo $xfails | wc -w)
echo "MPICH $suites, 2 passes: $((total - fails - xn)) of $total runs passed${xfails:+; expected failures (a reorder=0 call reordered by MPIR_CVAR_RANKMAP_FORCE):$xfails}${mpich_fails:+; failing without the patches too:$mpich_fails}"
[ $fails -eq 0 ]

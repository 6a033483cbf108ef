#!/bin/sh
# mpich_bcast_suite.sh STAGE_DIR STAGE_ROOT WORKDIR [quick|full]
# MPICH's own broadcast tests (test/mpi/coll of the MPICH tree the patched
# library was built from, recorded in STAGE_DIR/mpich-tree) against the
# patched library with the torus broadcast forced on
# (MPIR_CVAR_RANKMAP_BCAST=always) and an address table the job fills:
#   bcasttest, bcastzerotype    as in MPICH's testlist / coll_cvars.txt
#                               (bcastzerotype only up to 10 ranks, as in its
#                               testlist: it stores rank*10+i in a char, so
#                               from 13 ranks on it fails with any algorithm)
#   bcast                       the DTPools datatype test (contiguous, vector,
#                               struct ... of MPI_INT and MPI_INT:4+MPI_DOUBLE:8)
#   icbcast                     intercommunicators: the local bcast inside
# on torus:2x2x2 with 8 ranks and torus:4x4x2 with 32 ranks (MTest also makes
# split, dup'ed and reordered sub-communicators: boxes and non-boxes), plus
# odd jobs whose world is not a box (10 and 5 ranks on torus:4x4x2: the
# fallback to MPICH's choice).  MPIR_CVAR_RANKMAP_VERBOSE=2 makes the root of
# every torus broadcast print one line; a run on a box job must show some.
# quick (CTest's default run): the 8-rank box runs and the odd 5- and
# 10-rank fallback runs; full (the long label, `make check-long`): all.
# Exit 0 when every run prints "No Errors"; 77 when the tree is missing.
stage=$1 root=$2 work=$3 mode=${4:-full}
tree=$(cat "$stage/mpich-tree" 2>/dev/null)
T=$tree/test/mpi
[ -f "$T/coll/bcasttest.c" ] || { echo "SKIP: no test/mpi/coll in the MPICH tree '$tree'"; exit 77; }
mkdir -p "$work/dtpinc" && cd "$work" || exit 1
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
# DTPools includes "../dtpoolsconf.h" relative to an include directory
cat >dtpoolsconf.h <<'H'
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_LIMITS_H 1
#define HAVE_UNISTD_H 1
#define HAVE_MEMSET 1
#define HAVE_STRDUP 1
H
flags="-w -I. -Idtpinc -I$T/include -I$T/dtpools/include -I$root/include"
libs="-L$root/lib -Wl,-rpath,$root/lib -lmpi"
objs=
for f in "$T"/util/mtest.c "$T"/util/mtest_common.c "$T"/util/mtest_single.c "$T"/dtpools/src/*.c; do
  o=$(basename "$f" .c).o
  $cc $flags -c "$f" -o "$o" || { echo "FAIL: cannot compile $f"; exit 1; }
  objs="$objs $o"
done
for t in bcasttest bcastzerotype bcast icbcast; do
  $cc $flags -o $t "$T/coll/$t.c" $objs $libs || { echo "FAIL: cannot compile $t.c"; exit 1; }
done

small="-typelist=MPI_INT,MPI_INT:4+MPI_DOUBLE:8 -counts=1,17,512 -seed=100 -testsizes=2,2"
large="-typelist=MPI_INT -counts=262144 -seed=101 -testsizes=1,1"
fails=0 total=0
# name np topology box args...; box 1: the run must show torus broadcasts
# (the job fills the topology and sends data)
run() {
  name=$1 np=$2 topo=$3 box=$4
  shift 4
  total=$((total + 1))
  t0=$(date +%s)
  out=$(MPIR_CVAR_RANKMAP_BCAST=always MPIR_CVAR_RANKMAP_TOPOLOGY=$topo \
        MPIR_CVAR_RANKMAP_VERBOSE=2 "$root/bin/mpiexec" -n "$np" "./$name" "$@" </dev/null 2>&1)
  rc=$?
  used=$(echo "$out" | grep -c "torus broadcast:")
  secs=$(( $(date +%s) - t0 ))
  if [ $rc -eq 0 ] && echo "$out" | grep -q "No Errors" && { [ "$box" = 0 ] || [ "$used" -gt 0 ]; }; then
    echo "ok   $name -n $np on $topo $*: $used torus broadcasts (${secs} s)"
  else
    echo "FAIL $name -n $np on $topo $*: exit $rc, $used torus broadcasts"
    echo "$out" | grep -v "torus broadcast:" | head -20
    fails=$((fails + 1))
  fi
}
run bcasttest 8 torus:2x2x2 1
run bcastzerotype 8 torus:2x2x2 0   # zero bytes: returns before the schedule
run bcast 8 torus:2x2x2 1 $small
run bcastzerotype 5 torus:4x4x2 0
run icbcast 10 torus:4x4x2 0
if [ "$mode" = full ]; then
  run bcast 8 torus:2x2x2 1 $large
  run bcasttest 32 torus:4x4x2 1
  run bcast 32 torus:4x4x2 1 $small
  run bcasttest 32 mesh:4x4x2 1
  run bcasttest 10 torus:4x4x2 0
  run bcastzerotype 10 torus:4x4x2 0
fi
echo "MPICH test/mpi/coll broadcast tests ($mode) with MPIR_CVAR_RANKMAP_BCAST=always: $((total - fails)) of $total runs passed"
[ $fails -eq 0 ]

#!/bin/sh
# profile_check.sh MPI BUILD_DIR SRC_DIR WORK_DIR     (MPI = mpich | openmpi)
# The traffic profiler: test/pmpi/prof_traffic.c (plain MPI, every send kind,
# a sub-communicator, an intercommunicator, MPI_PROC_NULL, self messages and
# 4 threads under MPI_THREAD_MULTIPLE) runs with librankmap-profile
# preloaded; the profile written at MPI_Finalize must hold exactly the pairs,
# histogram and self-message count that the program computes from its own
# pattern.  A pencil-FFT program (test/compat/pencil.c: MPI_Alltoall in the
# rows and columns of an MPI_Cart_sub grid) gives one all-to-all group per
# row and column, which `rankmap map --profile` reads as the cost model's
# groups.  Also: the file's format rules, no file without the profiler, a
# clear message and a clean exit when the path cannot be written, and (MPICH)
# the profiler preloaded together with the reorder plugin.
mpi=$1 build=$2 src=$3 work=$4
t=$src/test/pmpi
mkdir -p "$work" || exit 1
case $mpi in
  mpich) cc=mpicc.mpich np=6 lib=$build/.libs/librankmap-profile.so
    run() { mpiexec.mpich "$@"; }
    preload() { echo -genv LD_PRELOAD "$1"; } ;;
  openmpi) cc=mpicc.openmpi np=5 lib=$build/.libs/librankmap-profile-ompi.so
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
    run() { mpiexec.openmpi --oversubscribe --bind-to none "$@"; }
    preload() { echo -x LD_PRELOAD="$1"; } ;;
  *) echo "usage: profile_check.sh mpich|openmpi BUILD_DIR SRC_DIR WORK_DIR"; exit 2 ;;
esac
[ -f "$lib" ] || { echo "FAIL: $lib was not built"; exit 1; }
app=$work/prof_traffic-$mpi
"$cc" -O2 -pthread -o "$app" "$t/prof_traffic.c" || { echo "FAIL: $cc could not build prof_traffic.c"; exit 1; }
LD_LIBRARY_PATH=$build/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
fail=0
say() { echo "$1"; case $1 in FAIL*) fail=1 ;; esac; }

prof=$work/traffic-$mpi.prof exp=$work/expected-$mpi.txt
rm -f "$prof" "$exp"
RANKMAP_PROFILE=$prof run $(preload "$lib") -n $np "$app" "$exp" >"$work/p.out" 2>"$work/p.err" ||
  { say "FAIL: prof_traffic exited with an error"; cat "$work/p.err"; exit 1; }
[ -f "$prof" ] || { say "FAIL: no profile at $prof"; cat "$work/p.err"; exit 1; }
grep -q '^threads 1$' "$exp" && say "ok   MPI_THREAD_MULTIPLE part ran (4 threads)" ||
  say "FAIL: $mpi did not provide MPI_THREAD_MULTIPLE, the thread part did not run"

# the format: first line, tasks before any pair, unique pairs, SRC != DST, COUNT >= 1
if awk -v np=$np '
  NR == 1 { if ($0 != "rankmap-profile 1") { print "first line: " $0; bad = 1 } next }
  /^#/ || NF == 0 { next }
  $1 == "tasks" { tasks = $2; next }
  $1 == "pair" { if (tasks == "") { print "pair before tasks"; bad = 1 }
                 if (NF != 5 || $2 == $3 || $4 < 1 || $5 < 0 || $2 >= tasks || $3 >= tasks) { print "bad pair: " $0; bad = 1 }
                 if (seen[$2 " " $3]++) { print "pair twice: " $0; bad = 1 } next }
  $1 == "histogram" { if (NF != 3 || $2 < 0 || $2 > 64) { print "bad histogram: " $0; bad = 1 } next }
  $1 == "meta" { next }
  $1 == "alltoall" { next }
  { print "unknown line: " $0; bad = 1 }
  END { if (tasks != np) { print "tasks " tasks ", expected " np; bad = 1 } exit bad }' "$prof"; then
  say "ok   $mpi profile follows the format"
else
  say "FAIL: $mpi profile breaks the format"
fi
# the content: pairs, histogram and self messages as the pattern says
sel() { grep -E '^(pair|histogram|meta self_messages) ' "$1" | sort; }
sel "$exp" >"$work/exp.sorted"
sel "$prof" >"$work/prof.sorted"
if [ -s "$work/exp.sorted" ] && cmp -s "$work/prof.sorted" "$work/exp.sorted"; then
  say "ok   $mpi profile = expected traffic ($(grep -c '^pair' "$prof") pairs, $(awk '$1 == "pair" {m += $4} END {print m}' "$prof") messages)"
else
  say "FAIL: $mpi profile differs from the expected traffic (< profile, > expected):"
  diff "$work/prof.sorted" "$work/exp.sorted" | head -20
fi

# the CLI reads it (rankmap map --profile, when this build has it)
if "$build/rankmap" map --help 2>&1 | grep -q -- '--profile'; then
  if "$build/rankmap" map --topology torus:$np --profile "$prof" --json >"$work/map.json" 2>"$work/map.err" &&
     grep -q "\"n\": $np," "$work/map.json"; then
    say "ok   $mpi rankmap map --profile reads it: $(cut -c1-80 "$work/map.json")"
  else
    say "FAIL: rankmap map --profile cannot read $prof"; cat "$work/map.err"
  fi
fi

# all-to-all groups: a 2 x 3 grid (rows of 3, columns of 2) on 6 ranks, 3
# transposes each: rows {0 1 2} {3 4 5}, columns {0 3} {1 4} {2 5}; each
# member sends 16 ints to each other member per call
pencil=$work/pencil-$mpi pprof=$work/pencil-$mpi.prof
"$cc" -O2 -o "$pencil" "$src/test/compat/pencil.c" || { say "FAIL: $cc could not build pencil.c"; exit 1; }
rm -f "$pprof"
RANKMAP_PROFILE=$pprof run $(preload "$lib") -n 6 "$pencil" 2 3 >"$work/p.out" 2>"$work/p.err" ||
  { say "FAIL: pencil exited with an error"; cat "$work/p.err"; }
printf '%s\n' "alltoall 3 384 0 1 2" "alltoall 3 384 3 4 5" "alltoall 3 192 0 3" "alltoall 3 192 1 4" \
  "alltoall 3 192 2 5" | sort >"$work/groups.exp"
grep '^alltoall ' "$pprof" 2>/dev/null | sort >"$work/groups.got"
if cmp -s "$work/groups.got" "$work/groups.exp"; then
  say "ok   $mpi all-to-all groups of the pencil grid: $(wc -l <"$work/groups.got") rows and columns"
else
  say "FAIL: $mpi all-to-all groups (< profile, > expected):"; diff "$work/groups.got" "$work/groups.exp"
fi
if "$build/rankmap" map --topology tree:3x2 --profile "$pprof" >"$work/pmap.out" 2>&1 &&
   grep -q '^alltoall_groups *5 from the profile' "$work/pmap.out"; then
  say "ok   $mpi rankmap map --profile takes the groups to the cost model"
else
  say "FAIL: $mpi rankmap map --profile and the groups"; cat "$work/pmap.out"
fi

# without the profiler: no file
rm -f "$prof"
run -n 2 "$app" "$exp" >/dev/null 2>&1
[ ! -e "$prof" ] && [ ! -e rankmap.prof ] && say "ok   $mpi no profile without the profiler" ||
  say "FAIL: a profile appeared without the profiler"

# an unwritable path: a message naming it, the job still succeeds
RANKMAP_PROFILE=/nonexistent/dir/x.prof run $(preload "$lib") -n 2 "$app" "$exp" >"$work/p.out" 2>"$work/p.err"
st=$?
if [ $st -eq 0 ] && grep -q 'rankmap-profile: cannot write RANKMAP_PROFILE=/nonexistent/dir/x.prof' "$work/p.err"; then
  say "ok   $mpi unwritable RANKMAP_PROFILE: message, exit 0"
else
  say "FAIL: $mpi unwritable RANKMAP_PROFILE (exit $st)"; cat "$work/p.err"
fi

# MPICH: linked at build time instead of preloaded
if [ $mpi = mpich ]; then
  linked=$work/prof_traffic-linked
  "$cc" -O2 -pthread -o "$linked" "$t/prof_traffic.c" -L"$build/.libs" -lrankmap-profile -Wl,-rpath,"$build/.libs" ||
    { say "FAIL: cannot link prof_traffic with -lrankmap-profile"; exit 1; }
  rm -f "$prof"
  RANKMAP_PROFILE=$prof run -n $np "$linked" "$exp" >"$work/p.out" 2>"$work/p.err"
  sel "$prof" >"$work/prof.sorted" 2>/dev/null
  sel "$exp" >"$work/exp.sorted"
  if [ -s "$work/exp.sorted" ] && cmp -s "$work/prof.sorted" "$work/exp.sorted"; then
    say "ok   $mpi profiler linked into the program: profile = expected traffic"
  else
    say "FAIL: $mpi profiler linked into the program"; cat "$work/p.err" | head
  fi
fi

# MPICH: both rankmap libraries preloaded (MPI_Init/MPI_Finalize chained)
if [ $mpi = mpich ]; then
  plugin=$build/.libs/librankmap-pmpi.so map=$t/torus-2x2x2-scrambled.map
  topo=$work/topo_app-chain
  "$cc" -O2 -o "$topo" "$t/topo_app.c" || exit 1
  rm -f "$prof"
  RANKMAP_PROFILE=$prof MPIR_CVAR_RANKMAP_TOPOLOGY=torus:2x2x2 MPIR_CVAR_RANKMAP_MAPPING=$map \
    run -genv LD_PRELOAD "$lib:$plugin" -n 8 "$topo" dist-adjacent reorder "$map" 2x2x2 2x2x2 >"$work/p.out" 2>"$work/p.err"
  st=$?
  if [ $st -eq 0 ] && grep -q '^tasks 8$' "$prof" 2>/dev/null; then
    say "ok   profiler and reorder plugin preloaded together: reordered, profile written"
  else
    say "FAIL: profiler + reorder plugin together (exit $st)"; cat "$work/p.out" "$work/p.err" | head -20
  fi
fi
exit $fail

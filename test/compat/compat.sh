#!/bin/sh
# compat.sh MODE[_openmpi|_patched] BUILD_DIR SRC_DIR WORK_DIR [STAGE_ROOT]
# Programs that assume ranks do not move (doc/compatibility.md) under each
# MPI layer of rankmap, with one list of cases and the same expected outcome:
#   MODE           librankmap-pmpi preloaded into Debian's MPICH
#   MODE_openmpi   librankmap-pmpi-ompi into Debian's Open MPI (incall, skip)
#   MODE_patched   rankmap's patched MPICH of the staged install STAGE_ROOT
#                  (without rankmap: MPIR_CVAR_RANKMAP_ENABLE=0)
# 8 ranks on a 2x2x2 torus whose mapfile scatters the world ranks
# (test/pmpi/torus-2x2x2-scrambled.map), so the layer moves ranks.  The programs (test/compat/*.c, *.f90) check what
# they receive and print PASS or FAIL on rank 0:
#   correct_cart     halo exchange on the Cartesian communicator (correct)
#   ignored          the new communicator unused, exchange on MPI_COMM_WORLD (correct)
#   cart_then_world  neighbours read from the new communicator, used on
#                    MPI_COMM_WORLD after freeing it (LAMMPS; misuse)
#   world_by_hand    neighbours computed from the MPI_COMM_WORLD rank, used on
#                    the new communicator (misuse)
#   graph_then_world the LAMMPS pattern with MPI_Graph_create and a ring (misuse)
# MODE:
#   incall   in-call reordering: the correct programs reorder and pass; the
#            misuse programs print the diagnosis and end (watchdog and
#            MPIR_CVAR_RANKMAP_CHECK with MPIR_CVAR_RANKMAP_WATCHDOG_ACTION=abort); with the
#            traffic profiler preloaded before or after the plugin
#   skip     MPIR_CVAR_RANKMAP_SKIP_PROGRAMS / MPIR_CVAR_RANKMAP_CART=0: the
#            misuse programs pass; bad values of the new settings
#   launch   launch-time placement: `rankmap map` of the grid writes a
#            mapfile with a lower F than the scrambled one; run with it and
#            in-call reordering off, the misuse programs pass
#   wisdom   a diagnosis marks the program unsafe in $RANKMAP_WISDOM; the next
#            run keeps MPI's order and says why
#   fortran  the LAMMPS pattern and the correct one in Fortran (use mpi)
# Every mpiexec runs under `timeout 120` only as a safety net: a case that
# hangs fails instead of blocking the suite.
mode=$1 build=$2 src=$3 work=$4 stage=$5
t=$src/test/compat
rankmap=$build/rankmap
np=8
# PFX: how the layer's lines begin on this path
case $mode in
  *_openmpi)
    mode=${mode%_openmpi} mpi=openmpi cc=mpicc.openmpi mpiexec=mpiexec.openmpi
    plugin=$build/.libs/librankmap-pmpi-ompi.so PFX=rankmap-pmpi
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_rmaps_base_oversubscribe ;;
  *_patched)
    mode=${mode%_patched} mpi=patched cc=$stage/bin/mpicc mpiexec=$stage/bin/mpiexec
    plugin= PFX="MPICH rankmap"
    [ -x "$cc" ] || { echo "no patched MPICH in $stage (configured --without-mpich?): test skipped"; exit 77; }
    LD_LIBRARY_PATH=$stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export LD_LIBRARY_PATH ;;
  *) mpi=mpich cc=mpicc.mpich mpiexec=mpiexec.mpich plugin=$build/.libs/librankmap-pmpi.so PFX=rankmap-pmpi ;;
esac
mkdir -p "$work" || exit 1
for tool in $cc $mpiexec; do
  command -v $tool >/dev/null || { echo "$tool not found: test skipped"; exit 77; }
done
[ $mpi = patched ] || [ -f "$plugin" ] || { echo "FAIL: $plugin was not built"; exit 1; }

scrambled=$src/test/pmpi/torus-2x2x2-scrambled.map
LD_LIBRARY_PATH=$build/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# Debian's libmpich ahead of the plugin's run path: a plugin built in a
# prefix that also holds rankmap's patched MPICH finds that libmpich
# through its run path, and a Fortran program (libmpich reached through
# libmpichfort) would load it and the plugin step aside
if [ $mpi = mpich ]; then
  mpilib=$($cc -show 2>/dev/null | tr ' ' '\n' | sed -n 's/^-L//p' | head -1)
  LD_LIBRARY_PATH=$LD_LIBRARY_PATH${mpilib:+:$mpilib}
fi
MPIR_CVAR_RANKMAP_TOPOLOGY=torus:2x2x2 MPIR_CVAR_RANKMAP_MAPPING=$scrambled
export LD_LIBRARY_PATH MPIR_CVAR_RANKMAP_TOPOLOGY MPIR_CVAR_RANKMAP_MAPPING
# the suite's own settings come from the command lines below only
for v in $(env | sed -n 's/^\(MPIR_CVAR_RANKMAP_[A-Z_0-9]*\)=.*/\1/p'); do
  case $v in MPIR_CVAR_RANKMAP_TOPOLOGY|MPIR_CVAR_RANKMAP_MAPPING) ;; *) unset $v ;; esac
done
unset RANKMAP_WISDOM

build_c() {
  $cc -O2 -o "$work/$1" "$t/$1.c" || { echo "FAIL: $cc could not build $1.c"; exit 1; }
}

# run WITH_RANKMAP(0/1) PROGRAM [VAR=VALUE...]: the program on np ranks
run() {
  with=$1 prog=$2; shift 2
  case $mpi$with in
    mpich1) env "$@" timeout 120 mpiexec.mpich -genv LD_PRELOAD "$plugin" -n $np "$work/$prog" ;;
    mpich0) env "$@" timeout 120 mpiexec.mpich -n $np "$work/$prog" ;;
    patched1) env "$@" timeout 120 "$mpiexec" -n $np "$work/$prog" ;;
    patched0) env "$@" MPIR_CVAR_RANKMAP_ENABLE=0 timeout 120 "$mpiexec" -n $np "$work/$prog" ;;
    openmpi1) env "$@" timeout 120 mpiexec.openmpi --oversubscribe --bind-to none \
                -x LD_PRELOAD="$plugin" -n $np "$work/$prog" ;;
    openmpi0) env "$@" timeout 120 mpiexec.openmpi --oversubscribe --bind-to none -n $np "$work/$prog" ;;
  esac
}

fail=0
out=$work/out.txt err=$work/err.txt
# expect NAME STATUS OUT_RE ERR_RE NOT_ERR_RE -- WITH PROGRAM [VAR=VALUE...]
#   STATUS 0: exit 0; nonzero: any exit but 0 and 124 (the safety timeout);
#   OUT_RE / ERR_RE: extended regexps stdout / stderr must match (each ';'-
#   separated part), NOT_ERR_RE: stderr must not match ("" = no check)
expect() {
  name=$1 want=$2 outre=$3 errre=$4 noterr=$5; shift 6
  run "$@" >"$out" 2>"$err"
  st=$?
  ok=1 why=""
  case $want in
    0) [ $st -eq 0 ] || { ok=0; why="exit $st, expected 0"; } ;;
    *) { [ $st -ne 0 ] && [ $st -ne 124 ]; } || { ok=0; why="exit $st, expected an error exit before the safety timeout"; } ;;
  esac
  oldifs=$IFS IFS=';'
  for re in $outre; do [ -z "$re" ] || grep -Eq "$re" "$out" || { ok=0; why="$why; stdout lacks /$re/"; }; done
  for re in $errre; do [ -z "$re" ] || grep -Eq "$re" "$err" || { ok=0; why="$why; stderr lacks /$re/"; }; done
  IFS=$oldifs
  [ -z "$noterr" ] || ! grep -Eq "$noterr" "$err" || { ok=0; why="$why; stderr matches /$noterr/"; }
  if grep -Eqi 'segmentation|core dumped|signal 11' "$err"; then ok=0; why="$why; crash"; fi
  name="$mpi: $name"
  if [ $ok = 1 ]; then
    echo "ok   $name: $(grep -E '^moved' "$out" | head -1)$(grep -m1 -o "$PFX: .\{0,100\}" "$err" | sed 's/^/ | /')"
  else
    echo "FAIL $name ($why)"
    sed 's/^/  out: /' "$out" | head -10
    sed 's/^/  err: /' "$err" | head -20
    fail=1
  fi
}

# diagnoses (stderr) and verdicts (stdout)
FREED='MPI_Cart_create reordered [0-9]+ of 8 ranks and the program freed the new communicator without communicating on it; if it uses those ranks on MPI_COMM_WORLD it will hang'
WAYS='Set MPIR_CVAR_RANKMAP_SKIP_PROGRAMS=[a-z_]+ \(or MPIR_CVAR_RANKMAP_CART=0\), or place ranks at launch \(rankmap map --hostfile, see doc/compatibility.md\)'
WATCHED='rank [0-9]+ has waited [0-9]+ s in MPI_[A-Za-z_]+'
LAMMPS='calls MPI_Sendrecv with partner [0-9]+ on MPI_COMM_WORLD, a rank it read from the communicator MPI_Cart_create reordered'
BYHAND='grid neighbours? of its rank [0-9]+ of MPI_COMM_WORLD, not of its new rank [0-9]+: it computes neighbours from its old rank'
HINT='hint: MPI_Cart_create reordered [0-9]+ of 8 ranks but the program never communicated on the new communicator'
ANYLINE=$PFX
MOVED='^moved [1-9][0-9]* of 8$'
KEPT='^moved 0 of 8$'
ABORT='MPIR_CVAR_RANKMAP_WATCHDOG_ACTION=abort'
# a short watchdog that ends the job, for the misuse programs
ENDS="MPIR_CVAR_RANKMAP_WATCHDOG=2 MPIR_CVAR_RANKMAP_WATCHDOG_ACTION=abort"

for p in correct_cart ignored cart_then_world cart_then_dup world_by_hand graph_then_world; do build_c $p; done

case $mode in
incall)
  for p in correct_cart ignored cart_then_world world_by_hand graph_then_world; do
    expect "$p without rankmap: ranks kept, right" 0 "$KEPT;^PASS$" "" "$PFX" -- 0 $p
  done
  expect "cart_then_dup without rankmap: ranks kept, right" 0 "$KEPT;^PASS$" "" "$PFX" -- 0 cart_then_dup
  expect "correct_cart reordered: right, no diagnosis" 0 "$MOVED;^PASS$" "" "$ANYLINE" -- 1 correct_cart $ENDS
  expect "correct_cart with the checks on: no diagnosis" 0 "$MOVED;^PASS$" "" "$ANYLINE" -- 1 correct_cart $ENDS MPIR_CVAR_RANKMAP_CHECK=1
  expect "ignored reordered: right, one hint at MPI_Finalize" 0 "$MOVED;^PASS$" "$HINT" "will hang|hangs|has waited" -- 1 ignored $ENDS MPIR_CVAR_RANKMAP_CHECK=1
  [ "$(grep -c "$PFX: hint" "$err")" = 1 ] || { echo "FAIL ignored: the hint is not printed exactly once"; fail=1; }
  expect "cart_then_world, watchdog: diagnosis at MPI_Comm_free, then the stuck rank ends the job" x \
    "" "$FREED. $WAYS;$WATCHED on MPI_COMM_WORLD.*$ABORT" "^PASS$" -- 1 cart_then_world $ENDS
  [ "$(grep -c 'freed the new communicator' "$err")" = 1 ] || { echo "FAIL cart_then_world: the MPI_Comm_free diagnosis is not printed exactly once"; fail=1; }
  expect "cart_then_dup (the pattern on a duplicate of MPI_COMM_WORLD), watchdog: diagnosis at MPI_Comm_free, then the stuck rank ends the job" x \
    "" "MPI_Cart_create reordered [0-9]+ of 8 ranks and the program freed the new communicator without communicating on it; if it uses those ranks on the communicator it was made from it will hang. $WAYS;$WATCHED on a communicator.*$ABORT" "^PASS$" -- \
    1 cart_then_dup $ENDS
  expect "cart_then_dup, MPIR_CVAR_RANKMAP_CHECK=1: diagnosed before the exchange" x \
    "" "calls MPI_Sendrecv with partner [0-9]+ on the parent communicator, a rank it read from the communicator MPI_Cart_create reordered.*$WAYS.*$ABORT" "$WATCHED" -- \
    1 cart_then_dup $ENDS MPIR_CVAR_RANKMAP_CHECK=1 MPIR_CVAR_RANKMAP_WATCHDOG=60
  expect "cart_then_world, MPIR_CVAR_RANKMAP_CHECK=1: diagnosed before the exchange" x \
    "" "$LAMMPS.*$WAYS.*$ABORT" "$WATCHED" -- 1 cart_then_world $ENDS MPIR_CVAR_RANKMAP_CHECK=1 MPIR_CVAR_RANKMAP_WATCHDOG=60
  expect "graph_then_world, watchdog: diagnosis at MPI_Comm_free naming the graph setting, the stuck rank ends the job" x \
    "" "MPI_Graph_create reordered [0-9]+ of 8 ranks and the program freed the new communicator.*\(or MPIR_CVAR_RANKMAP_GRAPH=0\);$WATCHED on MPI_COMM_WORLD.*$ABORT" "^PASS$" -- \
    1 graph_then_world $ENDS
  expect "world_by_hand, watchdog: the stuck rank ends the job" x \
    "" "$WATCHED on the communicator MPI_Cart_create made.*$WAYS.*$ABORT" "^PASS$" -- 1 world_by_hand $ENDS
  expect "world_by_hand, MPIR_CVAR_RANKMAP_CHECK=1: diagnosed before the exchange" x \
    "" "$BYHAND.*$WAYS.*$ABORT" "$WATCHED" -- 1 world_by_hand $ENDS MPIR_CVAR_RANKMAP_CHECK=1 MPIR_CVAR_RANKMAP_WATCHDOG=60
  # with rankmap's traffic profiler, in either LD_PRELOAD order: the
  # profiler passes its sends on, so the plugin still sees them
  prof=$build/.libs/librankmap-profile.so
  [ $mpi = openmpi ] && prof=$build/.libs/librankmap-profile-ompi.so
  # (the patched MPICH's hooks are inside the library: no preload order)
  if [ -f "$prof" ] && [ $mpi != patched ]; then
    alone=$plugin
    plugin="$prof:$alone"
    expect "cart_then_world, traffic profiler preloaded first: the watchdog still ends the hang" x \
      "" "$WATCHED on MPI_COMM_WORLD.*$ABORT" "" -- 1 cart_then_world $ENDS RANKMAP_PROFILE="$work/first.prof"
    plugin="$alone:$prof"
    rm -f "$work/last.prof"
    expect "correct_cart, traffic profiler preloaded last: reordered, right" 0 "$MOVED;^PASS$" "" "$ANYLINE" -- \
      1 correct_cart $ENDS RANKMAP_PROFILE="$work/last.prof"
    # 8 ranks, 3 distinct grid neighbours each on the 2x2x2 torus
    n=$(grep -c '^pair ' "$work/last.prof" 2>/dev/null)
    [ "$n" = 24 ] || { echo "FAIL $mpi: the profiler preloaded after the plugin saw $n pairs, expected 24"; fail=1; }
    plugin=$alone
  fi
  # a legitimate long wait: rank 0 sleeps before the exchange while its
  # neighbours wait in MPI_Sendrecv; the default action only warns
  expect "correct_cart, rank 0 slow, default watchdog action (warn): the line, the job completes" 0 \
    "$MOVED;^PASS$" "$WATCHED.*raise MPIR_CVAR_RANKMAP_WATCHDOG" "$ABORT" -- \
    1 correct_cart COMPAT_SLOW=5 MPIR_CVAR_RANKMAP_WATCHDOG=1 ;;
skip)
  for p in cart_then_world world_by_hand; do
    expect "$p, MPIR_CVAR_RANKMAP_SKIP_PROGRAMS=lmp,$p: MPI's order, right" 0 "$KEPT;^PASS$" \
      "is in MPIR_CVAR_RANKMAP_SKIP_PROGRAMS.*rankmap map --hostfile" "will hang|hangs|has waited|hint" -- \
      1 $p "MPIR_CVAR_RANKMAP_SKIP_PROGRAMS=lmp, $p" MPIR_CVAR_RANKMAP_VERBOSE=1 $ENDS
    expect "$p, MPIR_CVAR_RANKMAP_CART=0: MPI's order, right" 0 "$KEPT;^PASS$" "" "$ANYLINE" -- \
      1 $p MPIR_CVAR_RANKMAP_CART=0 $ENDS
  done
  expect "graph_then_world, MPIR_CVAR_RANKMAP_GRAPH=0: MPI's order, right" 0 "$KEPT;^PASS$" "" "$ANYLINE" -- \
    1 graph_then_world MPIR_CVAR_RANKMAP_GRAPH=0 $ENDS
  expect "correct_cart, another program skipped: still reordered" 0 "$MOVED;^PASS$" "" "$ANYLINE" -- \
    1 correct_cart MPIR_CVAR_RANKMAP_SKIP_PROGRAMS=cart_then_world,world_by_hand
  expect "correct_cart, MPIR_CVAR_RANKMAP_GRAPH=0: Cartesian still reordered" 0 "$MOVED;^PASS$" "" "$ANYLINE" -- \
    1 correct_cart MPIR_CVAR_RANKMAP_GRAPH=0
  for bad in WATCHDOG_ACTION=kill WATCHDOG=soon WATCHDOG=-1 CHECK=maybe CART=2 GRAPH=none; do
    expect "bad MPIR_CVAR_RANKMAP_$bad: one warning naming it, MPI's order" 0 "$KEPT;^PASS$" \
      "$PFX: warning: MPIR_CVAR_RANKMAP_${bad%%=*}=\"${bad#*=}\": expected .*reordering disabled" "" -- \
      1 correct_cart "MPIR_CVAR_RANKMAP_$bad"
  done ;;
launch|wisdom|fortran)
  [ $mpi != openmpi ] || { echo "usage: mode $mode runs with MPICH only"; exit 2; } ;;
esac
case $mode in
launch)
  [ -x "$rankmap" ] || { echo "FAIL: $rankmap was not built"; exit 1; }
  "$rankmap" gen cubic1 --topology torus:2x2x2 --out "$work/grid.edges" >/dev/null 2>&1 &&
    "$rankmap" map --topology torus:2x2x2 --graph "$work/grid.edges" --cart 2x2x2:111 \
      --out "$work/grid.map" >/dev/null || { echo "FAIL: rankmap map"; exit 1; }
  f_of() { "$rankmap" eval --topology torus:2x2x2 --graph "$work/grid.edges" --mapping "$1" --json |
           sed -n 's/.*"F": *\([0-9.]*\).*/\1/p'; }
  f_scr=$(f_of "$scrambled") f_map=$(f_of "$work/grid.map")
  if [ -n "$f_scr" ] && [ -n "$f_map" ] && awk "BEGIN { exit !($f_map < $f_scr) }"; then
    echo "ok   F of the grid: scrambled placement $f_scr, rankmap map's $f_map"
  else
    echo "FAIL F of the grid: scrambled '$f_scr', rankmap map's '$f_map' (expected lower)"; fail=1
  fi
  for p in cart_then_world world_by_hand correct_cart ignored; do
    expect "$p placed at launch (mapfile of rankmap map), MPIR_CVAR_RANKMAP_CART=0: right" 0 "$KEPT;^PASS$" "" "$ANYLINE" -- \
      1 $p MPIR_CVAR_RANKMAP_MAPPING="$work/grid.map" MPIR_CVAR_RANKMAP_CART=0 $ENDS
  done ;;
wisdom)
  w=$work/wisdom
  rm -rf "$w"
  expect "cart_then_world with a mapping cache: diagnosed and marked unsafe" x \
    "" "$LAMMPS.*marked unsafe in $w/unsafe/cart_then_world" "" -- \
    1 cart_then_world RANKMAP_WISDOM="$w" MPIR_CVAR_RANKMAP_CHECK=1 $ENDS
  # rank 0's MPI_Comm_free diagnosis and the check's lines race for the
  # marker: either is the program's diagnosis
  if [ -f "$w/unsafe/cart_then_world" ] && grep -Eq "$LAMMPS|$FREED" "$w/unsafe/cart_then_world"; then
    echo "ok   marker $w/unsafe/cart_then_world holds the diagnosis"
  else
    echo "FAIL marker $w/unsafe/cart_then_world missing or without the diagnosis"; fail=1
  fi
  expect "cart_then_world, next run: the marker keeps MPI's order, right" 0 "$KEPT;^PASS$" \
    "unsafe/cart_then_world marks this program unsafe.*rankmap map --hostfile" "will hang|hangs|has waited" -- \
    1 cart_then_world RANKMAP_WISDOM="$w" MPIR_CVAR_RANKMAP_VERBOSE=1 $ENDS
  expect "correct_cart with the same cache: still reordered" 0 "$MOVED;^PASS$" "" "$ANYLINE" -- \
    1 correct_cart RANKMAP_WISDOM="$w" $ENDS
  expect "correct_cart, rank 0 slow: a watchdog warning (action warn)" 0 "$MOVED;^PASS$" "$WATCHED" "" -- \
    1 correct_cart RANKMAP_WISDOM="$w" COMPAT_SLOW=5 MPIR_CVAR_RANKMAP_WATCHDOG=1
  [ ! -e "$w/unsafe/correct_cart" ] || { echo "FAIL a watchdog warning (action warn) marked correct_cart"; fail=1; } ;;
fortran)
  fc=mpif90.mpich
  [ $mpi = patched ] && fc=$stage/bin/mpif90
  command -v "$fc" >/dev/null || { echo "$fc not found (an MPICH without Fortran): test skipped"; exit 77; }
  for p in correct_cart_f cart_then_world_f; do
    "$fc" -O2 -o "$work/$p" "$t/$p.f90" || { echo "FAIL: $fc could not build $p.f90"; exit 1; }
  done
  expect "correct_cart_f without rankmap" 0 "$KEPT;^PASS$" "" "$PFX" -- 0 correct_cart_f
  expect "cart_then_world_f without rankmap" 0 "$KEPT;^PASS$" "" "$PFX" -- 0 cart_then_world_f
  expect "correct_cart_f reordered through MPICH's Fortran binding: right" 0 "$MOVED;^PASS$" "" "$ANYLINE" -- \
    1 correct_cart_f $ENDS MPIR_CVAR_RANKMAP_CHECK=1
  expect "cart_then_world_f: diagnosed, ends" x "" \
    "calls MPI_Sendrecv with partner.*SKIP_PROGRAMS=cart_then_world_f.*$ABORT" "" -- \
    1 cart_then_world_f $ENDS MPIR_CVAR_RANKMAP_CHECK=1
  expect "cart_then_world_f, MPIR_CVAR_RANKMAP_SKIP_PROGRAMS: right" 0 "$KEPT;^PASS$" "" "$ANYLINE" -- \
    1 cart_then_world_f MPIR_CVAR_RANKMAP_SKIP_PROGRAMS=cart_then_world_f $ENDS ;;
incall|skip) ;;
*) echo "usage: compat.sh incall|skip|launch|wisdom|fortran[_openmpi|_patched] BUILD_DIR SRC_DIR WORK_DIR [STAGE_ROOT]"; exit 2 ;;
esac
exit $fail

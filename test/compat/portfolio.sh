#!/bin/sh
# portfolio.sh PATH_KIND MPICC MPIEXEC PLUGIN SRC_DIR WORK_DIR
#   PATH_KIND = patched (the patched MPICH decides, PLUGIN = -) or
#               plugin  (Debian's MPICH with PLUGIN = librankmap-pmpi.so preloaded)
# The portfolio (MPIR_CVAR_RANKMAP_PORTFOLIO, include/rankmap_glue.h): the
# first K ranks of the communicator map with their own seeds, and of the
# members whose F is within the guard's margin (2 %) of the lowest the one
# with the lowest predicted time for large messages wins.  On an unmodified
# program (test/pmpi/topo_app.c, on a scrambled torus):
#   - distributed graph of pseudo-random weighted edges (dist-random, 16
#     ranks on 4x2x2), K = 1 and K = 8: the new communicator behaves as MPI
#     promises, K = 8 ends with an F at most 2 % above rank 0 alone's, and two
#     runs with K = 8 give the same permutation and the same winner.  16
#     ranks: every search then ends well within the engine's wall-clock
#     safety net on this 2-core machine (at 32 ranks each process gets a
#     sixteenth of a core, a search can reach the net, and the result would
#     depend on the clock);
#   - a Cartesian grid (the grid reaches every member) and a graph, K = 8,
#     32 ranks on 4x4x2: every grid neighbour one hop away;
#   - no setting: the default K capped at the communicator's size;
#   - in these runs no member's search fails (each received the graph);
#   - an unknown mapper: every member fails, the call keeps MPI's order with
#     one line, never a hang;
#   - a bad value of the setting: one line naming it.
kind=$1 mpicc=$2 mpiexec=$3 plugin=$4 src=$5 work=$6
t=$src/test/pmpi
script=portfolio.sh
. "$src/test/compat/layer.sh"
MPIR_CVAR_RANKMAP_VERBOSE=1
export MPIR_CVAR_RANKMAP_VERBOSE
fail=0
# machine NP TORUS: NP ranks on the scrambled torus TORUS
machine() {
  np=$1 torus=$2 map=$t/torus-$2-scrambled.map
  MPIR_CVAR_RANKMAP_TOPOLOGY=torus:$torus MPIR_CVAR_RANKMAP_MAPPING=$map
  export MPIR_CVAR_RANKMAP_TOPOLOGY MPIR_CVAR_RANKMAP_MAPPING
}

# run TAG MODE EXPECT GRID ERR_REGEX [VAR=VALUE...]: topo_app must pass with
# EXPECT, stderr must match ERR_REGEX; output in $work/TAG.out, .err
run() {
  tag=$1 mode=$2 expect=$3 grid=$4 errre=$5; shift 5
  # shellcheck disable=SC2086
  env "$@" "$mpiexec" $pre -n $np "$app" "$mode" "$expect" "$map" $torus "$grid" \
    >"$work/$tag.out" 2>"$work/$tag.err"
  st=$?
  ok=1
  [ $st -eq 0 ] || ok=0
  grep -q PASS "$work/$tag.out" || ok=0
  grep -Eq "$errre" "$work/$tag.err" || ok=0
  if grep -Eqi 'segmentation|core dumped|signal 11|signal 6' "$work/$tag.err"; then ok=0; fi
  if [ $ok = 0 ]; then
    echo "FAIL $kind $tag: $mode expect $expect (exit $st; stderr should match: $errre)"
    sed 's/^/  out: /' "$work/$tag.out" | head -10; sed 's/^/  err: /' "$work/$tag.err" | head -10
    fail=1
  fi
  return $((1 - ok))
}
# F after the reorder, from the verbose line "N tasks, F a -> b"
f_after() { sed -n 's/.* tasks, F [0-9.e+]* -> \([0-9.e+]*\) .*/\1/p' "$work/$1.err" | head -1; }
order() { grep '^order' "$work/$1.out"; }
winner() { grep -o "portfolio of [0-9]* ranks, rank [0-9]*'s search won" "$work/$1.err"; }

machine 16 4x2x2
line='MPI_Dist_graph_create: 16 tasks, F [0-9.e+]+ -> [0-9.e+]+'
if run alone dist-random any 16 "$line" MPIR_CVAR_RANKMAP_PORTFOLIO=1 &&
  run eight dist-random any 16 "$line.*best of the portfolio" MPIR_CVAR_RANKMAP_PORTFOLIO=8 &&
  run again dist-random any 16 "portfolio of 8 ranks" MPIR_CVAR_RANKMAP_PORTFOLIO=8; then
  f1=$(f_after alone) f8=$(f_after eight)
  if [ -n "$f1" ] && [ -n "$f8" ] && awk -v a="$f8" -v b="$f1" 'BEGIN { exit !(a <= 1.02 * b) }'; then
    echo "ok   $kind distributed graph: F $f1 with rank 0 alone, $f8 with 8 ranks ($(winner eight))"
  else
    echo "FAIL $kind distributed graph: F '$f8' with 8 ranks is more than 2 % above F '$f1' with rank 0 alone"
    fail=1
  fi
  if [ -n "$(order eight)" ] && [ "$(order eight)" = "$(order again)" ] &&
    [ "$(winner eight)" = "$(winner again)" ]; then
    echo "ok   $kind the same permutation and winner in two runs"
  else
    echo "FAIL $kind two runs with 8 ranks differ:"
    echo "  $(order eight) / $(winner eight)"
    echo "  $(order again) / $(winner again)"
    fail=1
  fi
fi
# no setting: the default (RANKMAP_PORTFOLIO_DEFAULT, 32) capped at the
# communicator's 16 ranks
run default dist-random any 16 "portfolio of 16 ranks" &&
  echo "ok   $kind no setting: every one of the 16 ranks maps ($(winner default))"
machine 32 4x4x2
run cart cart reorder 4x4x2 'MPI_Cart 4px4px2p: .*best of the portfolio' MPIR_CVAR_RANKMAP_PORTFOLIO=8 &&
  echo "ok   $kind Cartesian grid, 8 ranks: every neighbour one hop away"
run graph graph reorder 4x4x2 'MPI_Graph: 32 tasks.*best of the portfolio' MPIR_CVAR_RANKMAP_PORTFOLIO=8 &&
  echo "ok   $kind graph, 8 ranks: every neighbour one hop away"
# five members: the graph's way to the members (a binomial tree in the
# patched MPICH) with a member count that is not a power of two
run five graph reorder 4x4x2 'MPI_Graph: portfolio of 5 ranks' MPIR_CVAR_RANKMAP_PORTFOLIO=5 &&
  echo "ok   $kind graph, 5 ranks: every neighbour one hop away"
# every member mapped: a member without the graph (the broadcast to the
# members failed) would fail its search and say so
members_err="$work/eight.err $work/again.err $work/default.err $work/cart.err $work/graph.err $work/five.err"
failed=$(cat $members_err 2>/dev/null | grep -c "search of the portfolio failed")
if [ "$failed" = 0 ]; then echo "ok   $kind every member of the portfolio mapped"; else
  echo "FAIL $kind $failed members' searches failed:"
  cat $members_err 2>/dev/null | grep "search of the portfolio failed" | head -3
  fail=1
fi
machine 16 4x2x2
if run nomapper dist-random identity 16 'reorder kept the identity order .*no-such' \
  MPIR_CVAR_RANKMAP_PORTFOLIO=8 MPIR_CVAR_RANKMAP_ALGORITHM=no-such; then
  n=$(grep -c 'reorder kept the identity order' "$work/nomapper.err")
  if [ "$n" = 1 ]; then echo "ok   $kind every member fails: MPI's order, one line"; else
    echo "FAIL $kind every member fails: $n lines instead of one"; fail=1
  fi
fi
# a bad setting: one line naming it, and MPI's order (both layers alike)
run bad cart identity 4x2x2 'MPIR_CVAR_RANKMAP_PORTFOLIO="0": expected an integer in 1\.\..*reordering disabled' \
  MPIR_CVAR_RANKMAP_PORTFOLIO=0 && echo "ok   $kind a bad setting: one line naming it, MPI's order"
exit $fail

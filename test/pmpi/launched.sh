#!/bin/sh
# launched.sh MPI BUILD_DIR SRC_DIR WORK_DIR
#   MPI = mpich | openmpi
# Launch-time placement on a virtual torus: `rankmap map` of the periodic
# 4x2x2 grid onto torus:4x2x2 writes a mapfile, the job runs with
# MPIR_CVAR_RANKMAP_MAPPING=that mapfile and creates its grid with reorder=0
# (test/pmpi/cart_launched.c), and the plugin's verbose line "as launched"
# must report the F that `rankmap map` printed.  The same for a placement
# `rankmap map --algorithm random` chose and for a scrambled mapfile (F from
# `rankmap eval`), so an F that does not follow the placement fails.  Ranks
# must not move: reorder=0 is honoured.
mpi=$1 build=$2 src=$3 work=$4
t=$src/test/pmpi
mkdir -p "$work" || exit 1
case $mpi in
  mpich)
    cc=mpicc.mpich plugin=$build/.libs/librankmap-pmpi.so
    run() { mpiexec.mpich -genv LD_PRELOAD "$plugin" "$@"; } ;;
  openmpi)
    cc=mpicc.openmpi plugin=$build/.libs/librankmap-pmpi-ompi.so
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_rmaps_base_oversubscribe
    run() { mpiexec.openmpi --oversubscribe --bind-to none -x LD_PRELOAD="$plugin" "$@"; } ;;
  *) echo "usage: launched.sh mpich|openmpi BUILD_DIR SRC_DIR WORK_DIR"; exit 2 ;;
esac
[ -f "$plugin" ] || { echo "FAIL: $plugin was not built"; exit 1; }
rankmap=$build/rankmap
app=$work/cart_launched-$mpi
"$cc" -O2 -o "$app" "$t/cart_launched.c" || { echo "FAIL: $cc could not build cart_launched.c"; exit 1; }
LD_LIBRARY_PATH=$build/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
MPIR_CVAR_RANKMAP_TOPOLOGY=torus:4x2x2 MPIR_CVAR_RANKMAP_VERBOSE=1
export LD_LIBRARY_PATH MPIR_CVAR_RANKMAP_TOPOLOGY MPIR_CVAR_RANKMAP_VERBOSE
fail=0

# the task graph of MPI_Cart_create(4x2x2, periodic): rank v (last
# coordinate fastest) talks to its neighbours at +-1 along every axis
awk 'BEGIN { d[0] = 4; d[1] = 2; d[2] = 2; s[2] = 1; s[1] = 2; s[0] = 4
  for (v = 0; v < 16; v++) for (k = 0; k < 3; k++) for (dir = -1; dir <= 1; dir += 2) {
    c = int(v / s[k]) % d[k]; x = (c + dir + d[k]) % d[k]; u = v + (x - c) * s[k]
    if (u != v) print v, u, 1 } }' >"$work/cart-4x2x2.edges"

# launched NAME MAPFILE F: the job on MAPFILE reports "as launched" with F
launched() {
  name=$1 map=$2 want=$3
  MPIR_CVAR_RANKMAP_MAPPING=$map run -n 16 "$app" 4x2x2 >"$work/out" 2>"$work/err"
  st=$?
  line=$(grep 'rankmap-pmpi: MPI_Cart .*as launched' "$work/err" | head -1)
  got=$(echo "$line" | sed -n 's/.* tasks, F \([0-9.e+]*\) (F_min.*/\1/p')
  if [ $st -eq 0 ] && grep -q '^PASS' "$work/out" && [ -n "$got" ] &&
     awk -v a="$got" -v b="$want" 'BEGIN { exit !(a + 0 == b + 0) }'; then
    echo "ok   $mpi $name: rankmap F $want, plugin: $line"
  else
    echo "FAIL $mpi $name (exit $st): rankmap F '$want', plugin F '$got'"
    sed 's/^/  out: /' "$work/out" | head -5; sed 's/^/  err: /' "$work/err" | head -10
    fail=1
  fi
  lines=$(grep -c 'as launched' "$work/err")
  [ "$lines" = 1 ] || { echo "FAIL $mpi $name: $lines 'as launched' lines (rank 0 alone prints one)"; fail=1; }
}

# F as `rankmap map` / `rankmap eval` print it (text report, "F  <value>")
report_F() { awk '$1 == "F" { print $2 }' "$1"; }

"$rankmap" map --topology torus:4x2x2 --graph "$work/cart-4x2x2.edges" --cart 4x2x2 --out "$work/auto.map" \
  >"$work/auto.txt" 2>/dev/null || { echo "FAIL: rankmap map"; exit 1; }
launched "rankmap map (auto) written as the launch placement" "$work/auto.map" "$(report_F "$work/auto.txt")"

"$rankmap" map --topology torus:4x2x2 --graph "$work/cart-4x2x2.edges" --algorithm random --seed 9 \
  --guard off --out "$work/random.map" >"$work/random.txt" 2>/dev/null || { echo "FAIL: rankmap map random"; exit 1; }
launched "rankmap map --algorithm random as the launch placement" "$work/random.map" "$(report_F "$work/random.txt")"

"$rankmap" eval --topology torus:4x2x2 --graph "$work/cart-4x2x2.edges" --mapping "$t/torus-4x2x2-scrambled.map" \
  >"$work/scrambled.txt" 2>/dev/null || { echo "FAIL: rankmap eval"; exit 1; }
launched "scrambled mapfile (F from rankmap eval)" "$t/torus-4x2x2-scrambled.map" "$(report_F "$work/scrambled.txt")"

# the three placements differ in F, or the comparison proves nothing
fa=$(report_F "$work/auto.txt") fr=$(report_F "$work/random.txt") fs=$(report_F "$work/scrambled.txt")
if awk -v a="$fa" -v r="$fr" -v s="$fs" 'BEGIN { exit !(a + 0 < r + 0 && a + 0 < s + 0) }'; then
  echo "ok   $mpi the launch placements differ: F $fa (auto), $fr (random), $fs (scrambled)"
else
  echo "FAIL $mpi the launch placements do not differ: F $fa, $fr, $fs"; fail=1
fi
exit $fail

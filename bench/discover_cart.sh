#!/bin/sh
# bench/discover_cart.sh [BUILD_DIR] -- the discovered machine at work: an
# unmodified Cartesian program (test/discover/cart_nodes.c) on the patched
# MPICH, 64 ranks, only MPIR_CVAR_RANKMAP_NODE_SIZE=16 set: grid edges whose
# ends sit on different nodes in rank order, after reorder=1 with the
# traffic undeclared (the default) and declared a stencil
# (MPIR_CVAR_RANKMAP_CART_ALLTOALL=none), and the least count over all
# partitions of the grid into boxes of 16 cells.  Prints the table of
# bench/results/discover-cart.md with its header.
# Uses BUILD_DIR/mpich-stage (after `make`); default BUILD_DIR _build/main.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../_build/main}" && pwd)
prefix=$(sed -n 's/^prefix = //p' "$build/Makefile")
mpiexec=$build/mpich-stage$prefix/bin/mpiexec
prog=$build/test/discover/cart_nodes
[ -x "$mpiexec" ] || { echo "bench/discover_cart.sh: no patched MPICH in $build/mpich-stage (run make)" >&2; exit 1; }
[ -x "$prog" ] || { echo "bench/discover_cart.sh: $prog not built" >&2; exit 1; }
export LD_LIBRARY_PATH="$build/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" MPIR_CVAR_RANKMAP_NODE_SIZE=16
commit=$(git -C "$here/.." describe --always --dirty 2>/dev/null || echo unknown)

# run GRID PERIODIC [VAR=VALUE...]: the program's line, "rank order R,
# reordered N, box minimum M (box B)"
run() {
  grid=$1 periodic=$2; shift 2
  env "$@" "$mpiexec" -n 64 "$prog" "$grid" "$periodic" 16 2>/dev/null | sed -n 's/.*edges crossing nodes: //p'
}
field() { echo "$1" | sed -n "s/.*$2 \([0-9]*\).*/\1/p"; }

echo "> date: $(date -u +%Y-%m-%d) · commit: $commit ·"
device=$("$build/mpich-stage$prefix/bin/mpichversion" 2>/dev/null | sed -n 's/^MPICH Device:[[:space:]]*//p')
echo "> machine: $(nproc) cores, 64 ranks oversubscribed, patched MPICH (${device:-device unknown}) ·"
echo "> command: \`bench/discover_cart.sh BUILD_DIR\` (test/discover/cart_nodes.c with MPIR_CVAR_RANKMAP_NODE_SIZE=16, mapper \`auto\`)"
echo
echo "| grid | edges crossing nodes, rank order | reordered, traffic undeclared | reordered, a stencil declared (\`none\`) | box minimum (box) |"
echo "|---|---:|---:|---:|---:|"
for c in "4x4x4 1 4x4x4 periodic" "4x4x4 0 4x4x4 mesh" "8x8 1 8x8 periodic" "8x8 0 8x8 mesh" \
         "4x4x4 0 4x4x4 mesh, stand-in node of 2 packages x 8 cores"; do
  set -- $c
  grid=$1 periodic=$2; shift 2
  extra=
  case "$*" in *stand-in*) extra="MPIR_CVAR_RANKMAP_DISCOVER=hwloc=synthetic:pack:2 core:8 pu:1" ;; esac
  a=$(run "$grid" "$periodic" ${extra:+"$extra"})
  b=$(run "$grid" "$periodic" MPIR_CVAR_RANKMAP_CART_ALLTOALL=none ${extra:+"$extra"})
  [ -n "$a" ] && [ -n "$b" ] || { echo "bench/discover_cart.sh: $grid $periodic gave no result" >&2; exit 1; }
  box=$(echo "$a" | sed -n 's/.*box minimum \([0-9]*\) (box \([0-9x]*\)).*/\1 (\2)/p')
  echo "| $* | $(field "$a" "rank order") | $(field "$a" reordered) | $(field "$b" reordered) | $box |"
done

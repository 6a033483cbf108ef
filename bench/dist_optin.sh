#!/bin/sh
# bench/dist_optin.sh BUILD_DIR [--record FILE] -- what a distributed graph
# gets by default and when the program opts in (rankmap_vertices=
# follow_rank), on both MPI paths, beside the Cartesian call of the same grid.
#
# The program is test/mpi/topo_reorder_f.F90, built with Debian's
# mpif90.mpich: a periodic 4x4x4 grid on a 4x4x4 torus whose address table
# scatters the ranks (test/mpi/torus-4x4x4-scrambled.map), 64 ranks,
# MPI_CART_CREATE (cart), MPI_DIST_GRAPH_CREATE_ADJACENT with the info key
# (dgraph) and with MPI_INFO_NULL (dgraph-default).  It runs on the patched
# MPICH in BUILD_DIR/mpich-stage and on Debian's MPICH with the plugin
# preloaded.  Per row: the layer's verbose line (F before and after, F_min,
# the model's predicted time for 1 MiB per unit of weight) and the
# program's own check (ranks moved, the worst hop count between grid
# neighbours, errors in its halo exchange and collectives).  SimGrid's SMPI
# has no graph constructors, so no simulated time: the predicted time is the
# cost model's (bench/results/cost-model*.md says where it was validated).
set -eu
b=$(cd "${1:?usage: dist_optin.sh BUILD_DIR [--record FILE]}" && pwd)
record=
[ "${2:-}" = --record ] && record=${3:?--record FILE}
src=$(cd "$(dirname "$0")/.." && pwd)
stage_mpiexec=$(find "$b/mpich-stage" -path "*/bin/mpiexec" 2>/dev/null | head -1)
[ -n "$stage_mpiexec" ] || { echo "dist_optin.sh: no patched MPICH in $b/mpich-stage (configure with the vendor MPICH and make)" >&2; exit 1; }
stage_lib=$(dirname "$(dirname "$stage_mpiexec")")/lib
command -v mpif90.mpich >/dev/null || { echo "dist_optin.sh: mpif90.mpich not found (apt-get install libmpich-dev gfortran)" >&2; exit 1; }
debian_lib=$(mpicc.mpich -show | tr ' ' '\n' | sed -n 's/^-L//p' | head -1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
map=$src/test/mpi/torus-4x4x4-scrambled.map
mpif90.mpich -cpp -O2 -w -o "$work/topo_f" "$src/test/mpi/topo_reorder_f.F90"

# row PATH MODE: one run, one table row
row() {
  path=$1 mode=$2
  if [ "$path" = "patched MPICH" ]; then
    out=$(LD_LIBRARY_PATH=$stage_lib:$b/.libs MPIR_CVAR_RANKMAP_VERBOSE=1 MPIR_CVAR_RANKMAP_TOPOLOGY=torus:4x4x4 \
          MPIR_CVAR_RANKMAP_MAPPING=$map timeout 600 "$stage_mpiexec" -n 64 "$work/topo_f" "$map" "$mode" 2>&1) || true
  else
    out=$(LD_LIBRARY_PATH=$debian_lib:$b/.libs timeout 600 mpiexec.mpich -genv LD_PRELOAD "$b/.libs/librankmap-pmpi.so" \
          -genv MPIR_CVAR_RANKMAP_VERBOSE 1 -genv MPIR_CVAR_RANKMAP_TOPOLOGY torus:4x4x4 \
          -genv MPIR_CVAR_RANKMAP_MAPPING "$map" -n 64 "$work/topo_f" "$map" "$mode" 2>&1) || true
  fi
  v=$(echo "$out" | grep -m1 -E 'MPI_(Cart [0-9px]*|Dist_graph_create[a-z_]*): ' || true)
  check=$(echo "$out" | sed -n "s/^$mode: moved \([0-9]*\) worst \([0-9]*\) errors \([0-9]*\)$/\1 | \2 | \3/p")
  [ -n "$check" ] || check="(no result: $(echo "$out" | tail -1)) | - | -"
  F=$(echo "$v" | sed -n 's/.* F \([0-9.e+]*\) -> \([0-9.e+]*\) (F_min \([0-9.e+]*\)).*/\1 -> \2 (F_min \3)/p')
  T=$(echo "$v" | sed "s/; as transposes.*//" | sed -n 's/.*predicted \([0-9.e+-]*\) s before, \([0-9.e+-]*\) s after.*/\1 s -> \2 s/p')
  kept=$(echo "$v" | grep -o 'order kept: [^(]*' | sed 's/[,;: ]*$//' || true)
  call=$(case $mode in cart) echo "MPI_Cart_create" ;; dgraph) echo "MPI_Dist_graph_create_adjacent, info rankmap_vertices=follow_rank" ;;
                       *) echo "MPI_Dist_graph_create_adjacent, MPI_INFO_NULL (default)" ;; esac)
  echo "| $path | $call | ${F:-${kept:-$(echo "$v" | cut -c1-80)}} | ${T:--} | $check |"
}

table=$(
  echo "| MPI path | call (reorder = true) | F (layer's verbose line) | predicted time, 1 MiB per unit | ranks moved | worst hops to a grid neighbour | errors |"
  echo "|---|---|---|---:|---:|---:|---:|"
  for path in "patched MPICH" "Debian's MPICH + plugin"; do
    for mode in cart dgraph dgraph-default; do row "$path" "$mode"; done
  done
)
echo "$table"
if [ -n "$record" ]; then
  {
    echo "> date: $(date -u +%Y-%m-%d) · commit: $(cd "$src" && git describe --always --dirty) ·"
    echo "> machine: $(nproc) cores, 64 ranks oversubscribed, $(. /etc/os-release && echo "$PRETTY_NAME") ·"
    echo "> command: \`bench/dist_optin.sh BUILD_DIR --record $record\` (test/mpi/topo_reorder_f.F90 built with Debian's mpif90.mpich; periodic 4x4x4 grid on a scrambled 4x4x4 torus)"
    echo
    echo "$table"
    echo
    echo "F and the predicted time are the layer's (MPIR_CVAR_RANKMAP_VERBOSE=1); the program measures the hops itself through MPI_Group_translate_ranks and the address table.  SMPI has no graph constructors, so there is no simulated time for the distributed graph."
  } >"$src/$record"
  echo "dist_optin.sh: recorded in $record"
fi

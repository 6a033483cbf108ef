#!/bin/sh
# smpi.sh BUILD_DIR SRC_DIR WORK_DIR
# The reorder plugin under SimGrid's SMPI (3.32): SMPI ignores `reorder`.
# test/pmpi/topo_app.c is built with smpicc twice, unchanged: alone, and with
# the plugin object (src/pmpi/rankmap-pmpi-smpi.o, built by `make` with
# smpicc) linked in.  It runs under smpirun on a simulated 4x4x2 torus
# (SimGrid cluster, TORUS topology) whose hostfile scatters the world ranks
# as the scrambled mapfile says; MPIR_CVAR_RANKMAP_TOPOLOGY/MAPPING describe
# the same placement.  Alone, ranks stay and grid neighbours are up to 5 hops
# apart; with the plugin every Cartesian neighbour is 1 hop away.  Graph and
# distributed-graph constructors are not implemented by SMPI 3.32 itself
# ("Not yet implemented: PMPI_Graph_create"), so only Cartesian reorder is
# tested; MPI_Cart_map, also missing from SMPI, is provided by the plugin.
# Also the plugin's torus broadcast (MPIR_CVAR_RANKMAP_BCAST=always) and its
# learning of the all-to-all hint (RANKMAP_WISDOM), and the profiler's SMPI
# object.
build=$1 src=$2 work=$3
t=$src/test/pmpi
obj=$build/src/pmpi/rankmap-pmpi-smpi.o
mkdir -p "$work" || exit 1
[ -f "$obj" ] || { echo "FAIL: $obj was not built (configure found no smpicc?)"; exit 1; }
map=$t/torus-4x4x2-scrambled.map
plat=$work/torus-4x4x2.xml hosts=$work/hosts-4x4x2.txt
cat >"$plat" <<'EOF'
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="torus" prefix="node-" suffix="" radical="0-31" speed="1Gf"
           bw="154MBps" lat="100ns" sharing_policy="SPLITDUPLEX"
           topology="TORUS" topo_parameters="4,4,2"
           loopback_bw="100GBps" loopback_lat="0"/>
</platform>
EOF
# SimGrid's torus host i sits at (i mod 4, i/4 mod 4, i/16): world rank r on
# the host at the coordinates of mapfile line r
grep -v '^#' "$map" | awk 'NF >= 3 {print "node-" ($1 + 4 * $2 + 16 * $3)}' >"$hosts"
plain=$work/topo_app-smpi-plain
with=$work/topo_app-smpi-plugin
smpicc -O2 -o "$plain" "$t/topo_app.c" 2>"$work/cc.err" ||
  { echo "FAIL: smpicc could not build topo_app.c"; cat "$work/cc.err"; exit 1; }
# librankmap by its path, and preloaded under smpirun: smpicc puts
# -L/usr/lib/x86_64-linux-gnu first and smpirun puts that directory first on
# LD_LIBRARY_PATH, where an installed package's older librankmap would win
# over the one built here
lib=$build/.libs/librankmap.so
smpicc -O2 -o "$with" "$t/topo_app.c" "$obj" "$lib" -Wl,-rpath,"$build/.libs" 2>"$work/cc.err" ||
  { echo "FAIL: smpicc could not link topo_app.c with $obj"; cat "$work/cc.err"; exit 1; }
MPIR_CVAR_RANKMAP_TOPOLOGY=torus:4x4x2 MPIR_CVAR_RANKMAP_MAPPING=$map
export MPIR_CVAR_RANKMAP_TOPOLOGY MPIR_CVAR_RANKMAP_MAPPING
fail=0
check() {
  name=$1; shift
  LD_PRELOAD=$lib smpirun -np 32 -platform "$plat" -hostfile "$hosts" --cfg=smpi/host-speed:1Gf "$@" >"$work/out" 2>"$work/err"
  st=$?
  if [ $st -eq 0 ] && grep -q ': PASS$' "$work/out"; then
    echo "ok   $name: $(grep '^moved' "$work/out")"
  else
    echo "FAIL $name (exit $st)"; cat "$work/out"; grep -v 'xbt_cfg/INFO' "$work/err" | head -20
    fail=1
  fi
}
check "SMPI alone: MPI_Cart_create keeps the ranks, neighbours scattered" \
  "$plain" cart-create scattered "$map" 4x4x2 4x4x2
check "SMPI + plugin: MPI_Cart_create puts neighbours 1 hop apart" \
  "$with" cart-create reorder "$map" 4x4x2 4x4x2
check "SMPI + plugin: MPI_Cart_create and MPI_Cart_map agree" \
  "$with" cart reorder "$map" 4x4x2 4x4x2
check "SMPI + plugin: a smaller 4x4 grid, the rest get MPI_COMM_NULL" \
  "$with" cart reorder "$map" 4x4x2 4x4
# the torus broadcast through the plugin, on the simulated torus
bapp=$work/bcast_app-smpi
smpicc -O2 -o "$bapp" "$t/bcast_app.c" "$obj" "$lib" -Wl,-rpath,"$build/.libs" 2>"$work/cc.err" ||
  { echo "FAIL: smpicc could not link bcast_app.c with $obj"; cat "$work/cc.err"; exit 1; }
MPIR_CVAR_RANKMAP_BCAST=always MPIR_CVAR_RANKMAP_VERBOSE=1 \
  LD_PRELOAD=$lib smpirun -np 32 -platform "$plat" -hostfile "$hosts" --cfg=smpi/host-speed:1Gf "$bapp" 32768 >"$work/out" 2>"$work/err"
st=$?
if [ $st -eq 0 ] && grep -q 'bcast_app: PASS' "$work/out" && grep -Eq 'MPI_Bcast on 32 ranks: the (torus|mesh) broadcast' "$work/err"; then
  echo "ok   SMPI + plugin: MPI_Bcast along the torus schedule delivers every byte"
else
  echo "FAIL SMPI + plugin: torus broadcast (exit $st)"; cat "$work/out"; grep -v 'xbt_cfg/INFO' "$work/err" | head -20
  fail=1
fi
# learning under SMPI as under the other plugin builds: a pencil FFT's first
# run writes the all-to-all hint under the program's own name (argv[0], not
# SimGrid's launcher), the second run maps with it
fapp=$work/fft-smpi wis=$work/wisdom
rm -rf "$wis"
smpicc -O2 -o "$fapp" "$src/bench/simgrid/kernels/fft.c" "$obj" "$lib" -Wl,-rpath,"$build/.libs" 2>"$work/cc.err" ||
  { echo "FAIL: smpicc could not link fft.c with $obj"; cat "$work/cc.err"; exit 1; }
for run in 1 2; do
  RANKMAP_WISDOM=$wis MPIR_CVAR_RANKMAP_VERBOSE=1 LD_PRELOAD=$lib smpirun -np 32 -platform "$plat" \
    -hostfile "$hosts" --cfg=smpi/host-speed:1Gf "$fapp" 8 4 65536 1 1 >"$work/out" 2>"$work/err"
  st=$?
  case $run in
    1) want='the next run maps the grid with the all-to-all hint 0,1 \(.*/alltoall/fft-smpi-4x8\)'
       [ "$(cat "$wis/alltoall/fft-smpi-4x8" 2>/dev/null)" = 0,1 ] || st=99 ;;
    2) want='all-to-all hint 0,1 learnt by an earlier run \(.*/alltoall/fft-smpi-4x8\)' ;;
  esac
  if [ $st -eq 0 ] && grep -q '^COMM_TIME' "$work/out" && grep -Eq "$want" "$work/err"; then
    echo "ok   SMPI + plugin: learning, run $run: $(grep -Eo "$want" "$work/err" | head -1)"
  else
    echo "FAIL SMPI + plugin: learning, run $run (exit $st; stderr should match: $want)"
    ls -R "$wis" 2>/dev/null | head; grep -v 'xbt_cfg/INFO' "$work/err" | head -20
    fail=1
  fi
done
# the profiler as an SMPI object (src/pmpi/rankmap-profile-smpi.o, what
# bench/apps links real applications with): a 4x8 stencil of 65536-byte
# messages, 3 iterations, gives exactly its grid neighbours as pairs
pobj=$build/src/pmpi/rankmap-profile-smpi.o papp=$work/stencil-smpi-profile prof=$work/stencil.prof
if [ ! -f "$pobj" ]; then
  echo "FAIL SMPI profiler: $pobj was not built"; fail=1
elif ! smpicc -O2 -o "$papp" "$src/bench/simgrid/kernels/stencil2d.c" "$pobj" 2>"$work/cc.err"; then
  echo "FAIL SMPI profiler: smpicc could not link stencil2d.c with $pobj"; cat "$work/cc.err"; fail=1
else
  rm -f "$prof"
  RANKMAP_PROFILE=$prof smpirun -np 32 -platform "$plat" -hostfile "$hosts" --cfg=smpi/host-speed:1Gf \
    "$papp" 4 8 65536 3 >"$work/out" 2>"$work/err"
  st=$?
  # expected: rank i*8+j sends 3 messages of 65536 bytes to each grid neighbour
  awk 'BEGIN { for (i = 0; i < 4; i++) for (j = 0; j < 8; j++) {
                 r = i * 8 + j
                 if (i > 0) print "pair", r, r - 8, 3, 196608
                 if (i < 3) print "pair", r, r + 8, 3, 196608
                 if (j > 0) print "pair", r, r - 1, 3, 196608
                 if (j < 7) print "pair", r, r + 1, 3, 196608 } }' | sort >"$work/want"
  grep '^pair ' "$prof" 2>/dev/null | sort >"$work/got"
  if [ $st -eq 0 ] && grep -q '^tasks 32$' "$prof" && [ -s "$work/want" ] && cmp -s "$work/want" "$work/got"; then
    echo "ok   SMPI profiler: the stencil's $(wc -l <"$work/got") neighbour pairs, 3 x 65536 bytes each"
  else
    echo "FAIL SMPI profiler (exit $st): pairs differ from the stencil's neighbours"
    diff "$work/want" "$work/got" | head; grep -v 'xbt_cfg/INFO' "$work/err" | head -10
    fail=1
  fi
fi
exit $fail

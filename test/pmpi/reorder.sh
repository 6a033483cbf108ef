#!/bin/sh
# reorder.sh MPI BUILD_DIR SRC_DIR WORK_DIR
#   MPI = mpich | openmpi
# The reorder plugin under an unpatched MPI: test/pmpi/topo_app.c, an
# unmodified program built with that MPI's own mpicc, runs on a torus whose
# mapfile scatters the world ranks.  Without the plugin MPI keeps every rank
# (so grid neighbours sit several hops apart); with librankmap-pmpi preloaded
# (and, for MPICH, linked at build time instead) Cartesian, graph and
# distributed-graph communicators get ranks that put every grid neighbour
# 1 hop away (F = F_min), and the new communicators behave as MPI promises.
mpi=$1 build=$2 src=$3 work=$4
t=$src/test/pmpi
mkdir -p "$work" || exit 1
case $mpi in
  mpich)
    # 16 ranks: the patched MPICH's own tests cover 32 and 64 (test/mpi)
    cc=mpicc.mpich plugin=$build/.libs/librankmap-pmpi.so np=16 torus=4x2x2 half=4x2
    run() { mpiexec.mpich "$@"; }
    preload() { echo -genv LD_PRELOAD "$plugin"; } ;;
  openmpi)
    cc=mpicc.openmpi plugin=$build/.libs/librankmap-pmpi-ompi.so np=16 torus=4x2x2 half=4x2
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_rmaps_base_oversubscribe
    run() { mpiexec.openmpi --oversubscribe --bind-to none "$@"; }
    preload() { echo -x LD_PRELOAD="$plugin"; } ;;
  *) echo "usage: reorder.sh mpich|openmpi BUILD_DIR SRC_DIR WORK_DIR"; exit 2 ;;
esac
[ -f "$plugin" ] || { echo "FAIL: $plugin was not built"; exit 1; }
map=$t/torus-$torus-scrambled.map
app=$work/topo_app-$mpi
"$cc" -O2 -o "$app" "$t/topo_app.c" || { echo "FAIL: $cc could not build topo_app.c"; exit 1; }
if nm "$app" | grep -qi rankmap; then echo "FAIL: $app is not a plain MPI program"; exit 1; fi
LD_LIBRARY_PATH=$build/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
MPIR_CVAR_RANKMAP_TOPOLOGY=torus:$torus MPIR_CVAR_RANKMAP_MAPPING=$map
export LD_LIBRARY_PATH MPIR_CVAR_RANKMAP_TOPOLOGY MPIR_CVAR_RANKMAP_MAPPING
fail=0
out=$work/out-$mpi.txt err=$work/err-$mpi.txt

# check NAME ERR_REGEX COMMAND...: the command must exit 0 and, if ERR_REGEX
# is not empty, print a line matching it on stderr
check() {
  name=$1 errre=$2; shift 2
  "$@" >"$out" 2>"$err"
  st=$?
  ok=1
  [ $st -eq 0 ] || ok=0
  [ -z "$errre" ] || grep -Eq "$errre" "$err" || ok=0
  if grep -Eqi 'segmentation|core dumped|signal 11|signal 6|assert' "$err"; then ok=0; fi
  if [ $ok = 1 ]; then echo "ok   $name: $(head -1 "$out")"; else
    echo "FAIL $name (exit $st)"; sed 's/^/  out: /' "$out" | head -20; sed 's/^/  err: /' "$err" | head -20
    fail=1
  fi
}

check "$mpi without the plugin: ranks kept, neighbours scattered" "" \
  run -n $np "$app" cart scattered "$map" $torus $torus
check "$mpi Cart_create, plugin preloaded: neighbours 1 hop apart" "" \
  run $(preload) -n $np "$app" cart reorder "$map" $torus $torus
# declared a stencil: undeclared, the stencil's order of this grid would be
# slower if its lines did all-to-all, and the current order stays
export MPIR_CVAR_RANKMAP_CART_ALLTOALL=none
check "$mpi Cart_create of a smaller 2-D grid: the rest get MPI_COMM_NULL" "" \
  run $(preload) -n $np "$app" cart reorder "$map" $torus $half
unset MPIR_CVAR_RANKMAP_CART_ALLTOALL
check "$mpi Graph_create of the torus graph" "" \
  run $(preload) -n $np "$app" graph reorder "$map" $torus $torus
check "$mpi Dist_graph_create_adjacent, info rankmap_vertices=follow_rank: new rank v plays vertex v" "" \
  run $(preload) -n $np "$app" dist-adjacent reorder "$map" $torus $torus
check "$mpi Dist_graph_create (edges named by other ranks, weighted), follow_rank" "" \
  run $(preload) -n $np "$app" dist-general reorder "$map" $torus $torus
# without the info key every process keeps the edges it described: the order stays
export TOPO_APP_OWN_EDGES=1
check "$mpi Dist_graph_create_adjacent without the info key: the order stays" "" \
  run $(preload) -n $np "$app" dist-adjacent scattered "$map" $torus $torus
check "$mpi Dist_graph_create without the info key: the order stays" "" \
  run $(preload) -n $np "$app" dist-general scattered "$map" $torus $torus
export MPIR_CVAR_RANKMAP_FOLLOW_PROGRAMS=$(basename "$app")
check "$mpi MPIR_CVAR_RANKMAP_FOLLOW_PROGRAMS names the program: new rank v plays vertex v" "" \
  run $(preload) -n $np "$app" dist-adjacent reorder "$map" $torus $torus
unset TOPO_APP_OWN_EDGES MPIR_CVAR_RANKMAP_FOLLOW_PROGRAMS
# the plugin of the other MPI preloaded by mistake: one line naming the right
# one, and the program runs to the end unreordered
case $mpi in mpich) other=$build/.libs/librankmap-pmpi-ompi.so right=librankmap-pmpi.so ;;
             openmpi) other=$build/.libs/librankmap-pmpi.so right=librankmap-pmpi-ompi.so ;; esac
if [ -f "$other" ]; then
  check "$mpi with the other MPI's plugin preloaded: one line, then runs unreordered" \
    "preload $right instead; running without rankmap" \
    run $(plugin=$other; preload) -n $np "$app" cart scattered "$map" $torus $torus
  lines=$(grep -c "running without rankmap" "$err")
  [ "$lines" = 1 ] && echo "ok   $mpi wrong plugin: the message is printed once" ||
    { echo "FAIL $mpi wrong plugin: the message is printed $lines times"; fail=1; }
fi
export MPIR_CVAR_RANKMAP_DIST_GRAPH=0
check "$mpi MPIR_CVAR_RANKMAP_DIST_GRAPH=0: distributed graph keeps the order" "" \
  run $(preload) -n $np "$app" dist-adjacent scattered "$map" $torus $torus
check "$mpi MPIR_CVAR_RANKMAP_DIST_GRAPH=0: Cartesian still reorders" "" \
  run $(preload) -n $np "$app" cart reorder "$map" $torus $torus
unset MPIR_CVAR_RANKMAP_DIST_GRAPH
export MPIR_CVAR_RANKMAP_VERBOSE=1
check "$mpi verbose: rank 0 reports F before and after" 'rankmap-pmpi: MPI_Cart [0-9px]+: [0-9]+ tasks, F [0-9.]+ -> [0-9.]+ \(F_min' \
  run $(preload) -n $np "$app" cart reorder "$map" $torus $torus
unset MPIR_CVAR_RANKMAP_VERBOSE
# F = F_min: in that verbose line the mapped F equals the bound
line=$(grep 'rankmap-pmpi: MPI_Cart' "$err" | head -1)
if echo "$line" | awk '{for (i = 1; i <= NF; i++) { if ($i == "->") after = $(i + 1); if ($i == "(F_min") fmin = $(i + 1) } sub(/\),?/, "", fmin); exit !(after + 0 == fmin + 0 && after > 0)}'; then
  echo "ok   $mpi F after reorder = F_min: $line"
else
  echo "FAIL $mpi F after reorder is not F_min: $line"; fail=1
fi
export MPIR_CVAR_RANKMAP_ENABLE=0
check "$mpi MPIR_CVAR_RANKMAP_ENABLE=0: identity" "" \
  run $(preload) -n $np "$app" cart scattered "$map" $torus $torus
unset MPIR_CVAR_RANKMAP_ENABLE
# no declared topology: the machine from the node size (and hwloc inside a
# node when librankmap has rankmap_discover); the mapping must not raise F
unset MPIR_CVAR_RANKMAP_TOPOLOGY MPIR_CVAR_RANKMAP_MAPPING
export MPIR_CVAR_RANKMAP_NODE_SIZE=4 MPIR_CVAR_RANKMAP_VERBOSE=1
check "$mpi no topology, MPIR_CVAR_RANKMAP_NODE_SIZE=4: nodes of 4 ranks" \
  'address table of [0-9]+ ranks on .*MPIR_CVAR_RANKMAP_NODE_SIZE' \
  run $(preload) -n $np "$app" cart any "$map" $torus $torus
line=$(grep 'rankmap-pmpi: MPI_Cart' "$err" | head -1)
if echo "$line" | awk '{for (i = 1; i <= NF; i++) { if ($i == "F" && before == "") before = $(i + 1); if ($i == "->" && after == "") after = $(i + 1) } exit !(after + 0 <= before + 0 && after > 0)}'; then
  echo "ok   $mpi node-size machine: F does not rise: $line"
else
  echo "FAIL $mpi node-size machine: $line"; fail=1
fi
unset MPIR_CVAR_RANKMAP_NODE_SIZE MPIR_CVAR_RANKMAP_VERBOSE
export MPIR_CVAR_RANKMAP_TOPOLOGY=torus:$torus MPIR_CVAR_RANKMAP_MAPPING=$map

# the torus broadcast (MPIR_CVAR_RANKMAP_BCAST=always: every size): every byte arrives
bapp=$work/bcast_app-$mpi
"$cc" -O2 -o "$bapp" "$t/bcast_app.c" || { echo "FAIL: $cc could not build bcast_app.c"; exit 1; }
check "$mpi bcast_app without the plugin (the check itself)" "" run -n $np "$bapp" 32768
export MPIR_CVAR_RANKMAP_BCAST=always MPIR_CVAR_RANKMAP_VERBOSE=1
check "$mpi MPI_Bcast along the torus schedule: every byte from 3 roots, 3 communicators" \
  'MPI_Bcast on [0-9]+ ranks: the (torus|mesh) broadcast' run $(preload) -n $np "$bapp" 32768
unset MPIR_CVAR_RANKMAP_BCAST MPIR_CVAR_RANKMAP_VERBOSE

if [ $mpi = mpich ]; then
  # linked at build time instead of preloaded: -lrankmap-pmpi before -lmpich
  linked=$work/topo_app-linked
  "$cc" -O2 -o "$linked" "$t/topo_app.c" -L"$build/.libs" -lrankmap-pmpi -Wl,-rpath,"$build/.libs" ||
    { echo "FAIL: cannot link topo_app with -lrankmap-pmpi"; exit 1; }
  check "$mpi plugin linked into the program" "" run -n $np "$linked" cart reorder "$map" $torus $torus
fi
exit $fail

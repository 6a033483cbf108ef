#!/usr/bin/env bash
# maint/demo.sh -- the main demo, from a fresh Debian bookworm machine:
# installs the Debian packages, builds in _build/main what it shows
# (`make demo-build`: the CLI, the benchmarks and the patched MPICH's stage,
# not the test programs, and nothing is installed: maint/test.sh or
# `make install` does that), then shows
#   1. one mapping with the CLI (cubic1 of Bhanot et al., "Optimizing task
#      layout on the Blue Gene/L supercomputer", labels scrambled);
#   2. an unmodified MPI program (built with Debian's mpicc.mpich) getting
#      reordered ranks from the patched MPICH on a declared virtual torus;
#   3. the fast subset of the SimGrid evaluation: simulated communication
#      time of rank order vs rankmap's placement (bench/simgrid/run.py --quick);
#   4. the workloads of Bhanot et al. on torus:8x8x8 with every mapper against Scotch
#      (bench/mapping --quick).
source "$(dirname "$0")/common.sh"
echo "rankmap demo: building in _build/main (logs there; the first build of the patched MPICH takes ~10 min) ..."
build_in "$src/_build/main" --prefix="$src/_build/install" -- demo-build
cd "$src/_build/main"
# the patched MPICH as staged in the build tree; libmpi finds librankmap in .libs
inst=$src/_build/main/mpich-stage$src/_build/install
export LD_LIBRARY_PATH=$src/_build/main/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

echo
echo "== 1. one mapping with the CLI: cubic1 of Bhanot et al., labels scrambled, on torus:8x8x8 =="
./rankmap gen cubic1 --topology torus:8x8x8 --scramble --out cubic1-scrambled.edges
echo "-- rank order (what MPI does today):"
./rankmap map --topology torus:8x8x8 --graph cubic1-scrambled.edges --algorithm identity
echo "-- rankmap's default mapper (auto):"
./rankmap map --topology torus:8x8x8 --graph cubic1-scrambled.edges --out cubic1.map

echo
echo "== 2. an unmodified program under the patched MPICH: 32 ranks on a virtual torus:4x4x2 =="
echo "   (built with Debian's mpicc.mpich; the ranks are scattered over the torus at random,"
echo "    MPIR_CVAR_RANKMAP_MAPPING=random:7, so reorder=1 has work to do.  The torus is virtual:"
echo "    what placement changes here is hops and link loads -- the verbose line gives F (hops x"
echo "    messages) before and after, F_min, the busiest link and the predicted time; step 3 times"
echo "    placements on a simulated torus)"
mpicc.mpich -O2 -o reorder_demo "$src/bench/reorder_demo.c"
echo "-- Debian's MPICH (reorder ignored):"
mpiexec.mpich -n 32 ./reorder_demo 4 4 2 5 4096
echo "-- the same binary against the patched MPICH (LD_LIBRARY_PATH only):"
LD_LIBRARY_PATH="$inst/lib:$LD_LIBRARY_PATH" MPIR_CVAR_RANKMAP_TOPOLOGY=torus:4x4x2 MPIR_CVAR_RANKMAP_MAPPING=random:7 \
  MPIR_CVAR_RANKMAP_VERBOSE=1 "$inst/bin/mpiexec" -n 32 ./reorder_demo 4 4 2 5 4096

echo
echo "== 3. simulated torus (SimGrid SMPI): communication time, rank order vs rankmap (bench/simgrid/run.py --quick) =="
/usr/bin/python3 "$src/bench/simgrid/run.py" --quick --build "$src/_build/main" --out "$src/_build/simgrid"

echo
echo "== 4. the workloads of Bhanot et al. on torus:8x8x8: every mapper against Scotch (bench/mapping --quick) =="
./bench/mapping --quick

#!/bin/sh
# bench/mpi_reorder.sh [BUILD_DIR] [REPS] -- reorder overhead of the patched
# MPICH at 16 and 64 ranks, in one run (the README table).  The machine is a
# torus of the job's size (torus:auto = MPI_Dims_create(size, 3)) with the
# ranks scattered at random over it, so reorder=1 has work to do.
# Uses BUILD_DIR/mpich-stage (after `make`) or, if absent, the installed prefix
# given by MPICH_PREFIX.
b=${1:-.}
reps=${2:-10}
b=$(cd "$b" && pwd)
mpiexec=$(find "$b/mpich-stage" -path "*/bin/mpiexec" 2>/dev/null | head -1)
[ -n "$mpiexec" ] || mpiexec=${MPICH_PREFIX:?no mpich-stage in $b; set MPICH_PREFIX}/bin/mpiexec
LD_LIBRARY_PATH=$b/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
mpichversion=$(dirname "$mpiexec")/mpichversion
device=$("$mpichversion" 2>/dev/null | sed -n 's/^MPICH Device:[[:space:]]*//p')
src=$(cd "$(dirname "$0")/.." && pwd)
echo "> date: $(date -u +%Y-%m-%d) · commit: $(cd "$src" && git rev-parse --short HEAD) ·"
echo "> machine: $(nproc) cores, ranks oversubscribed, load average $(cut -d' ' -f1 /proc/loadavg) at the start · MPICH device: ${device:-unknown} ·"
echo "> command: \`bench/mpi_reorder.sh BUILD_DIR $reps\` (median of $reps calls, slowest rank; torus of the job size, ranks scattered at random)"
echo
echo "| ranks | call | grid | reorder=0 ms | reorder=1 ms | overhead ms | mapper ms (rankmap_map) |"
echo "|---|---|---|---|---|---|---|"
for n in 16 64; do
  MPIR_CVAR_RANKMAP_TOPOLOGY=torus:auto MPIR_CVAR_RANKMAP_MAPPING=random:$n \
    "$mpiexec" -n $n "$b/bench/mpi_reorder" "$reps" || exit 1
done

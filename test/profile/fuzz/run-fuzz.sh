#!/usr/bin/env bash
# run-fuzz.sh FUZZ_DIR TARGET [libFuzzer args...]
# Builds the seed corpus of TARGET (topology, mapfile, graph, profile, cache)
# from test/fixtures and test/profile/fixtures into FUZZ_DIR/corpus-TARGET
# (kept between runs, so later runs start from what earlier ones found) and
# runs FUZZ_DIR/fuzz_TARGET on it under nice -n 10 with -max_len=4096
# -timeout=120 (wall clock).  Findings (crash-*, timeout-*, leak-*, oom-*;
# slow-unit-* are only notes) go to FUZZ_DIR/artifacts-TARGET/.  Prints the
# runs, CPU and wall seconds, executions, coverage and findings at the end.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fx=$here/../../fixtures
pfx=$here/../fixtures
dir=${1:?usage: run-fuzz.sh FUZZ_DIR TARGET [libFuzzer args...]}
target=${2:?usage: run-fuzz.sh FUZZ_DIR TARGET [libFuzzer args...]}
shift 2
bin=$dir/fuzz_$target
[ -x "$bin" ] || { echo "run-fuzz.sh: $bin not built (make fuzz)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "run-fuzz.sh: /usr/bin/time is missing (Debian package 'time'; maint/deps.sh installs it)" >&2; exit 1; }
corpus=$dir/corpus-$target
art=$dir/artifacts-$target
mkdir -p "$corpus" "$art"

# seed(NAME, PREFIX_BYTE_OCTAL, FILE): the targets read byte 0 as a selector.
seed() { { printf "\\$2"; cat "$3"; } >"$corpus/seed-$1"; }
seed_text() { { printf "\\$2"; printf '%s' "$3"; } >"$corpus/seed-$1"; }
case $target in
topology)
  i=0
  for s in torus:8x8x8 mesh:8x4x4 torus:8x8x8:wrap=110 torus:8x8x8x2:local=0.5 \
           tree:4x2x8:cost=100,10,1 tree:2x2 torus:4x4:metric=euclid mesh:4x4:metric=dim \
           torus:4x4x4:slots=2 tree:4x4:slots=3; do
    seed_text "s$i" 000 "$s"; i=$((i + 1))
  done
  for f in "$fx"/*.dist; do seed "$(basename "$f")" 001 "$f"; done ;;
mapfile)
  # selector: machine in bits 0-2, task count in bits 3-5 (see fuzz_mapfile.cpp)
  for f in "$fx"/*.map; do seed "$(basename "$f")" 021 "$f"; done   # torus:2x2, 4 tasks
  [ -f "$here/../../mpi/torus-4x4x4-scrambled.map" ] && seed scrambled 040 "$here/../../mpi/torus-4x4x4-scrambled.map"
  for f in "$pfx"/*.map; do [ -f "$f" ] && seed "$(basename "$f")" 040 "$f"; done ;;
graph)
  for f in "$fx"/*.edges; do seed "$(basename "$f")" 000 "$f"; done
  for f in "$fx"/*.graph; do seed "$(basename "$f")" 001 "$f"; done
  for f in "$fx"/*.mat; do seed "$(basename "$f")" 002 "$f"; done ;;
profile)
  for f in "$pfx"/*.prof; do seed "$(basename "$f")" 000 "$f"; done ;;
cache)
  # the target writes a valid entry of its job here (LLVMFuzzerInitialize)
  export RANKMAP_FUZZ_SEED_DIR=$corpus ;;
*) echo "run-fuzz.sh: unknown target '$target'" >&2; exit 2 ;;
esac

# Run in chunks until CPU_SECONDS (default 600) of CPU time are spent (on a
# loaded machine -max_total_time, which is wall clock, gives less) or
# WALL_SECONDS (default 0 = no limit) of wall time have passed.
cpu_target=${CPU_SECONDS:-600}
wall_limit=${WALL_SECONDS:-0}
chunk=${CHUNK_SECONDS:-300}
# scratch files of this run only (several campaigns, and CTest's smoke run,
# may fuzz at once: each removes just its own directory)
base=/dev/shm
[ -d "$base" ] && [ -w "$base" ] || base=$dir
scratch=$(mktemp -d "$base/rankmap-fuzz-run.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
cpu=0 wall=0 execs=0 rc=0 n=0
: >"$dir/log-$target.txt"
while awk -v c="$cpu" -v t="$cpu_target" 'BEGIN { exit !(c < t) }'; do
  if [ "$wall_limit" -gt 0 ]; then
    left=$((wall_limit - wall))
    [ "$left" -gt 0 ] || break
    [ "$chunk" -le "$left" ] || chunk=$left
  fi
  n=$((n + 1))
  start=$(date +%s)
  set +e
  TMPDIR=$scratch /usr/bin/time -f "%U %S" -o "$dir/time-$target.txt" nice -n 10 "$bin" \
    -max_total_time="$chunk" -max_len=4096 -timeout=120 -print_final_stats=1 \
    -artifact_prefix="$art/" "$@" "$corpus" >>"$dir/log-$target.txt" 2>&1
  rc=$?
  set -e
  wall=$((wall + $(date +%s) - start))
  cpu=$(awk -v c="$cpu" '{ print c + $1 + $2 }' "$dir/time-$target.txt" | tail -n 1)
  execs=$((execs + $(grep -o 'number_of_executed_units: [0-9]*' "$dir/log-$target.txt" | tail -n 1 | awk '{print $2}')))
  [ "$rc" -eq 0 ] || break
done
cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$dir/log-$target.txt" | tail -n 1)
echo "fuzz_$target: $n run(s), CPU $cpu s, wall $wall s, $execs executions, $cov, corpus $(ls "$corpus" | wc -l) files, findings $(ls "$art" | grep -cvE '^slow-unit-'), exit $rc"
exit "$rc"

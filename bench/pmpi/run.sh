#!/usr/bin/env bash
# bench/pmpi/run.sh BUILD_DIR [--ranks "8 27"] [--sizes "8 16 32"] [--reps 5] [--iters N] [--bursts 1000] [--mpi mpich|openmpi] [--perf]
#
# Overhead of the traffic profiler (librankmap-profile).  First the cost of
# one MPI_Isend call with and without it (bench/pmpi/isend_cost.c, 2 ranks,
# only the calls timed: the profiler's own cost, free of scheduling noise),
# then the issue's measure, a 3-D halo exchange
# (bench/pmpi/halo3d.c, compiled here with the MPI's own mpicc):
# for every rank count and block edge N (face = N*N doubles: N=8 -> 512 B,
# 16 -> 2 KiB, 32 -> 8 KiB), runs alternately without and with the profiler
# preloaded, REPS times each, and prints the medians of the slowest rank's
# time per iteration (itself the median over blocks of ITERS/100 iterations,
# so a block that lost its core to another job does not count) and their ratio.  Both variants run in the same script,
# interleaved (B P B2 / B2 P B triples), so load from other jobs hits them
# alike; B2/B, two identical runs compared the same way, is printed as the
# noise floor of the measurement.  The profiled runs
# write their profile to a scratch file whose pair count is checked
# (6 neighbours per rank, fewer when a grid dimension is 1 or 2).
# --perf (needs `perf`, Debian package linux-perf): a last, sampled run of
# the profiled halo exchange at the first rank count and face size prints
# the share of CPU samples spent in librankmap-profile, a measure of the
# profiler's cost that run-to-run scatter does not blur.
set -euo pipefail
build=${1:?usage: bench/pmpi/run.sh BUILD_DIR [--ranks LIST] [--sizes LIST] [--reps R] [--iters N] [--mpi mpich|openmpi]}
shift
ranks="8 27" sizes="8 16 32" reps=5 iters=0 bursts=1000 mpi=mpich perf=0
while [ $# -gt 0 ]; do
  case $1 in
    --ranks) ranks=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --bursts) bursts=$2; shift 2 ;;
    --mpi) mpi=$2; shift 2 ;;
    --perf) perf=1; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
src=$(cd "$(dirname "$0")/../.." && pwd)
case $mpi in
  mpich) cc=mpicc.mpich; run=(mpiexec.mpich); lib=$build/.libs/librankmap-profile.so
         pre() { echo -genv LD_PRELOAD "$lib"; } ;;
  openmpi) cc=mpicc.openmpi; run=(mpiexec.openmpi --oversubscribe --bind-to none); lib=$build/.libs/librankmap-profile-ompi.so
         export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
         pre() { echo -x LD_PRELOAD="$lib"; } ;;
  *) echo "--mpi mpich|openmpi" >&2; exit 2 ;;
esac
[ -f "$lib" ] || { echo "no $lib: build rankmap first (configure found no $cc?)" >&2; exit 1; }
work=$(mktemp -d /tmp/pmpi-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$cc" -O2 -o "$work/halo3d" "$src/bench/pmpi/halo3d.c"
"$cc" -O2 -o "$work/isend_cost" "$src/bench/pmpi/isend_cost.c"

median() { sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
once() { # once NP N ITERS [preload...] -> us per iteration
  local np=$1 n=$2 it=$3; shift 3
  "${run[@]}" "$@" -n "$np" "$work/halo3d" "$n" "$it" | awk '/^halo3d/ {print $NF}'
}

echo "rankmap PMPI profiler overhead: 3-D halo exchange (bench/pmpi/halo3d.c), $mpi, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "median of $reps runs each; per repetition a baseline, a profiled and a second baseline run, in alternating order;"
echo "us/iter = slowest rank's median, over blocks of iters/100 iterations, of the wall time per iteration;"
echo "the ratio is the median over the pairs of (profiled / baseline), which cancels slow changes of the machine's load"
echo
echo "MPI_Isend call on a duplicate of MPI_COMM_WORLD (2 ranks, median of $bursts bursts of 64 calls; median of $reps runs):"
echo
echo "| message bytes | baseline ns/call | profiled ns/call | added ns/call |"
echo "|---:|---:|---:|---:|"
for bytes in 8 2048; do
  : >"$work/base" ; : >"$work/prof"
  for r in $(seq "$reps"); do
    "${run[@]}" -n 2 "$work/isend_cost" $bytes $bursts | awk '/^isend_cost/ {print $NF}' >>"$work/base"
    RANKMAP_PROFILE=$work/isend.prof "${run[@]}" $(pre) -n 2 "$work/isend_cost" $bytes $bursts | awk '/^isend_cost/ {print $NF}' >>"$work/prof"
  done
  b=$(median <"$work/base") p=$(median <"$work/prof")
  echo "| $bytes | $b | $p | $(awk -v b="$b" -v p="$p" 'BEGIN {printf "%+.1f", p - b}') |"
done
echo
echo "3-D halo exchange:"
echo
echo "| ranks | face bytes | iters | baseline us/iter | profiled us/iter | profiled/baseline (median of paired runs) | its quartiles | baseline/baseline (noise floor) | overhead |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
worst=0
for np in $ranks; do
  for n in $sizes; do
    it=$iters
    # default: runs of ~0.1 s when every rank has a core (iterations take
    # microseconds), fewer when oversubscribed (milliseconds of scheduling)
    if [ "$it" -le 0 ]; then
      if [ "$np" -le "$(nproc)" ]; then it=$(( n <= 8 ? 20000 : n <= 16 ? 4000 : 1000 ))
      else it=$(( n <= 8 ? 200 : n <= 16 ? 100 : 50 )); fi
    fi
    : >"$work/base" ; : >"$work/prof" ; : >"$work/ratio" ; : >"$work/null"
    for r in $(seq "$reps"); do
      # a triple per repetition: baseline B, profiled P, second baseline B2,
      # in the order B P B2 or B2 P B (alternating, so neither variant
      # always runs first); P/B is the measure, B2/B the same measure between
      # two identical runs: the noise floor of this machine, same run
      if [ $((r % 2)) = 1 ]; then
        b1=$(once "$np" "$n" "$it")
        p1=$(RANKMAP_PROFILE=$work/halo.prof once "$np" "$n" "$it" $(pre))
        b2=$(once "$np" "$n" "$it")
      else
        b2=$(once "$np" "$n" "$it")
        p1=$(RANKMAP_PROFILE=$work/halo.prof once "$np" "$n" "$it" $(pre))
        b1=$(once "$np" "$n" "$it")
      fi
      echo "$b1" >>"$work/base"
      echo "$p1" >>"$work/prof"
      awk -v b="$b1" -v p="$p1" 'BEGIN {print p / b}' >>"$work/ratio"
      awk -v b="$b1" -v p="$b2" 'BEGIN {print p / b}' >>"$work/null"
    done
    pairs=$(grep -c '^pair ' "$work/halo.prof" || true)
    [ "$pairs" -gt 0 ] || { echo "profiled run wrote no pairs to $work/halo.prof" >&2; exit 1; }
    b=$(median <"$work/base") p=$(median <"$work/prof")
    ratio=$(median <"$work/ratio" | awk '{printf "%.3f", $1}')
    null=$(median <"$work/null" | awk '{printf "%.3f", $1}')
    iqr=$(sort -g "$work/ratio" | awk '{v[NR]=$1} END {printf "%.3f-%.3f", v[int((NR+3)/4)], v[int((3*NR+1)/4)]}')
    pct=$(awk -v r="$ratio" 'BEGIN {printf "%+.1f %%", 100 * (r - 1)}')
    echo "| $np | $((n * n * 8)) | $it | $b | $p | $ratio | $iqr | $null | $pct |"
    worst=$(awk -v w="$worst" -v r="$ratio" 'BEGIN {print (r > w ? r : w)}')
  done
done
echo
awk -v w="$worst" 'BEGIN {printf "largest profiled/baseline ratio: %.3f (target < 1.05): %s\n", w, (w < 1.05 ? "PASS" : "MISS")}'
echo "(on an oversubscribed machine an iteration takes milliseconds of scheduling; the profiler's own cost is"
echo " the added ns/call of the first table times 6 sends per iteration)"

if [ "$perf" = 1 ]; then
  if ! command -v perf >/dev/null 2>&1; then
    echo; echo "--perf: perf not found (apt-get install linux-perf): sampled run skipped"
  else
    np=${ranks%% *} n=${sizes%% *}
    it=$iters; [ "$it" -gt 0 ] || it=$(( np <= $(nproc) ? 100000 : 1000 ))
    RANKMAP_PROFILE=$work/halo.prof perf record -q -o "$work/perf.data" -- \
      "${run[@]}" $(pre) -n "$np" "$work/halo3d" "$n" "$it" >/dev/null 2>&1 || true
    share=$(perf report -i "$work/perf.data" --no-children --sort dso -g none 2>/dev/null \
            | awk '$2 ~ /^librankmap-profile/ {sub("%", "", $1); s += $1} END {printf "%.2f", s + 0}')
    echo
    echo "sampled profiled run ($np ranks, face $((n * n * 8)) bytes, $it iterations, perf record):"
    echo "share of all CPU samples in librankmap-profile: $share %"
  fi
fi

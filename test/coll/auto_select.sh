#!/bin/sh
# auto_select.sh MPIEXEC PROGRAM
# MPIR_CVAR_BCAST_INTRA_ALGORITHM=auto on a job that fills torus:2x2x2 (8
# ranks): the torus broadcast must run for every broadcast of at least
# MPIR_CVAR_BCAST_TORUS_MIN_MSG_SIZE bytes (default 262144) on a box, and
# never below; with MPIR_CVAR_BCAST_TORUS_MIN_MSG_SIZE=-1 never.  The root of
# every torus broadcast prints one line under MPIR_CVAR_RANKMAP_VERBOSE=2;
# PROGRAM (mpich_bcast_torus, quick: every size from the last root) checks
# the data of every broadcast.
mpiexec=$1 prog=$2
export MPIR_CVAR_BCAST_INTRA_ALGORITHM=auto MPIR_CVAR_RANKMAP_TOPOLOGY=torus:2x2x2 MPIR_CVAR_RANKMAP_VERBOSE=2
out=$("$mpiexec" -n 8 "$prog" quick 2>&1) || { echo "$out" | grep -v "torus broadcast:" | tail -20; echo "FAIL: data errors with auto selection"; exit 1; }
lines=$(echo "$out" | sed -n 's/.*torus broadcast: \([0-9]*\) bytes.*/\1/p')
n=$(echo "$lines" | grep -c .)
small=$(echo "$lines" | awk '$1 < 262144' | grep -c .)
sizes=$(echo "$lines" | sort -n | uniq | tr '\n' ' ')
echo "auto: $n torus broadcasts, message sizes: $sizes"
[ "$n" -gt 0 ] || { echo "FAIL: auto never chose the torus broadcast"; exit 1; }
[ "$small" -eq 0 ] || { echo "FAIL: auto chose it for $small broadcasts below 262144 bytes"; exit 1; }
for want in 262147 280004 1048579 16777216; do
  echo " $sizes" | grep -q " $want " || { echo "FAIL: no torus broadcast of $want bytes"; exit 1; }
done
out=$(MPIR_CVAR_BCAST_TORUS_MIN_MSG_SIZE=-1 "$mpiexec" -n 8 "$prog" quick 2>&1) || { echo "FAIL: data errors with MIN_MSG_SIZE=-1"; exit 1; }
n=$(echo "$out" | grep -c "torus broadcast:")
echo "MIN_MSG_SIZE=-1: $n torus broadcasts"
[ "$n" -eq 0 ] || { echo "FAIL: chosen although MPIR_CVAR_BCAST_TORUS_MIN_MSG_SIZE=-1"; exit 1; }
echo "PASS"

#!/bin/sh
# auto_select.sh MPIEXEC PROGRAM
# MPIR_CVAR_RANKMAP_BCAST=auto (the default) on a job that fills torus:2x2x2
# (8 ranks): the torus broadcast must run for every broadcast of at least
# MPIR_CVAR_RANKMAP_BCAST_MIN bytes (default 65536) on a box, and never
# below; with MPIR_CVAR_RANKMAP_BCAST=off never.  The root of every torus
# broadcast prints one line under MPIR_CVAR_RANKMAP_VERBOSE=2; PROGRAM
# (mpich_bcast_torus, quick: every size from the last root) checks the data
# of every broadcast.
mpiexec=$1 prog=$2
export MPIR_CVAR_RANKMAP_TOPOLOGY=torus:2x2x2 MPIR_CVAR_RANKMAP_VERBOSE=2
unset MPIR_CVAR_RANKMAP_BCAST MPIR_CVAR_RANKMAP_BCAST_MIN
out=$("$mpiexec" -n 8 "$prog" quick 2>&1) || { echo "$out" | grep -v "torus broadcast:" | tail -20; echo "FAIL: data errors with auto selection"; exit 1; }
lines=$(echo "$out" | sed -n 's/.*torus broadcast: \([0-9]*\) bytes.*/\1/p')
n=$(echo "$lines" | grep -c .)
small=$(echo "$lines" | awk '$1 < 65536' | grep -c .)
sizes=$(echo "$lines" | sort -n | uniq | tr '\n' ' ')
echo "auto: $n torus broadcasts, message sizes: $sizes"
[ "$n" -gt 0 ] || { echo "FAIL: auto never chose the torus broadcast"; exit 1; }
[ "$small" -eq 0 ] || { echo "FAIL: auto chose it for $small broadcasts below 65536 bytes"; exit 1; }
for want in 65543 262147 280004 1048579 16777216; do
  echo " $sizes" | grep -q " $want " || { echo "FAIL: no torus broadcast of $want bytes"; exit 1; }
done
out=$(MPIR_CVAR_RANKMAP_BCAST=off "$mpiexec" -n 8 "$prog" quick 2>&1) || { echo "FAIL: data errors with MPIR_CVAR_RANKMAP_BCAST=off"; exit 1; }
n=$(echo "$out" | grep -c "torus broadcast:")
echo "MPIR_CVAR_RANKMAP_BCAST=off: $n torus broadcasts"
[ "$n" -eq 0 ] || { echo "FAIL: chosen although MPIR_CVAR_RANKMAP_BCAST=off"; exit 1; }
echo "PASS"

#!/bin/sh
# torus_check.sh MPIEXEC NP PROGRAM [ARGS...]
# Runs test/coll/mpich_bcast_torus (every byte of every broadcast checked)
# with MPIR_CVAR_RANKMAP_BCAST=always and MPIR_CVAR_RANKMAP_VERBOSE=2 on the
# topology of the environment, and compares the lines the roots of torus
# broadcasts print with the count the program expects: every non-empty
# broadcast on a box communicator takes the torus schedule, and no other
# (not-a-box and single-rank communicators use MPICH's own).
mpiexec=$1 np=$2 prog=$3
shift 3
out=$(MPIR_CVAR_RANKMAP_BCAST=always MPIR_CVAR_RANKMAP_VERBOSE=2 "$mpiexec" -n "$np" "$prog" "$@" 2>&1)
st=$?
echo "$out" | grep -v "torus broadcast:" | grep -v "MPI_Bcast on"
[ $st -eq 0 ] || { echo "FAIL: exit status $st"; exit 1; }
expected=$(echo "$out" | sed -n 's/^torus broadcasts expected: \([0-9]*\)$/\1/p')
ran=$(echo "$out" | grep -c "torus broadcast:")
echo "torus broadcasts: $ran run, $expected expected"
[ -n "$expected" ] && [ "$expected" -gt 0 ] || { echo "FAIL: the program printed no expected count"; exit 1; }
[ "$ran" -eq "$expected" ] || { echo "FAIL: $ran torus broadcasts ran, $expected expected"; exit 1; }
echo "PASS"

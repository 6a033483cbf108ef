#!/bin/sh
# bad_settings.sh MPIEXEC CART_NODES -- bad discovery settings under the
# patched MPICH: rank 0 prints one warning naming the CVAR and the job runs
# with MPICH's identity order; with MPIR_CVAR_RANKMAP_STRICT=1 MPI_Init fails
# with the same message.
set -u
mpiexec=$1 prog=$2
fails=0
out=/tmp/rankmap-discover-bad.$$
trap 'rm -f $out' EXIT

expect() {   # expect NAME PATTERN [strict] -- env...
  name=$1 pattern=$2 mode=$3
  shift 4
  env "$@" "$mpiexec" -n 4 "$prog" 2x2 1 2 >$out 2>&1
  rc=$?
  if ! grep -q -- "$pattern" $out; then
    echo "FAIL $name: no message matching '$pattern'"; sed 's/^/    /' $out | head -20; fails=$((fails + 1))
  elif [ $rc = 0 ]; then
    # warn mode: cart_nodes finds no address table and fails; strict: MPI_Init fails
    echo "FAIL $name: exit status 0"; fails=$((fails + 1))
  elif [ "$mode" = warn ] && ! grep -q "reordering disabled" $out; then
    echo "FAIL $name: no 'reordering disabled' warning"; fails=$((fails + 1))
  elif [ "$mode" = strict ] && grep -q "^grid " $out; then
    echo "FAIL $name: the program ran past MPI_Init under MPIR_CVAR_RANKMAP_STRICT=1"; fails=$((fails + 1))
  else
    echo "ok   $name: $(grep -m1 -- "$pattern" $out)"
  fi
}
expect unknown-tier "MPIR_CVAR_RANKMAP_DISCOVER=\"tiers=gpu\".*unknown tier 'gpu'" warn -- \
  MPIR_CVAR_RANKMAP_NODE_SIZE=2 MPIR_CVAR_RANKMAP_DISCOVER=tiers=gpu
expect negative-node-size "MPIR_CVAR_RANKMAP_NODE_SIZE=\"-3\": expected an integer in 0\.\." warn -- MPIR_CVAR_RANKMAP_NODE_SIZE=-3
expect bad-xml "hwloc=xml:/nonexistent.xml" warn -- \
  MPIR_CVAR_RANKMAP_NODE_SIZE=2 MPIR_CVAR_RANKMAP_DISCOVER=hwloc=xml:/nonexistent.xml
expect cost-count "cost= gives 5 costs" warn -- \
  MPIR_CVAR_RANKMAP_NODE_SIZE=2 "MPIR_CVAR_RANKMAP_DISCOVER=tiers=none;cost=1,2,3,4,5"
expect strict "error: .*MPIR_CVAR_RANKMAP_DISCOVER=\"tiers=gpu\".*MPIR_CVAR_RANKMAP_STRICT=1" strict -- \
  MPIR_CVAR_RANKMAP_NODE_SIZE=2 MPIR_CVAR_RANKMAP_DISCOVER=tiers=gpu MPIR_CVAR_RANKMAP_STRICT=1
[ $fails = 0 ] && echo PASSED || echo "FAILED ($fails)"
[ $fails = 0 ]

#!/bin/sh
# rank0.sh BUILD_DIR SRC_DIR WORK_DIR
# Rank 0 under the reorder plugin (Debian's MPICH): test/pmpi/rank0_app.c
# makes a Cartesian communicator with reorder=1 on 32 ranks whose mapfile
# scatters them over a 4x4x2 machine, and aborts unless cart rank 0 is world
# rank 0 and some rank moved.  The machine is declared as a torus, a mesh
# and a tree over the same mapfile; MPIR_CVAR_RANKMAP_KEEP_RANK0=0 lets rank
# 0 move, at the same F on the torus (a translation costs nothing).
build=$1 src=$2 work=$3
t=$src/test/pmpi
plugin=$build/.libs/librankmap-pmpi.so
mkdir -p "$work" || exit 1
[ -f "$plugin" ] || { echo "FAIL: $plugin was not built"; exit 1; }
app=$work/rank0_app
mpicc.mpich -O2 -o "$app" "$t/rank0_app.c" || { echo "FAIL: mpicc.mpich could not build rank0_app.c"; exit 1; }
LD_LIBRARY_PATH=$build/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
MPIR_CVAR_RANKMAP_MAPPING=$t/torus-4x4x2-scrambled.map MPIR_CVAR_RANKMAP_VERBOSE=1
export LD_LIBRARY_PATH MPIR_CVAR_RANKMAP_MAPPING MPIR_CVAR_RANKMAP_VERBOSE
out=$work/rank0.out err=$work/rank0.err
fail=0

# check NAME WANT(pass|fail) TOPOLOGY [mpiexec arguments and program arguments...]
check() {
  name=$1 want=$2 topo=$3; shift 3
  MPIR_CVAR_RANKMAP_TOPOLOGY=$topo mpiexec.mpich "$@" >"$out" 2>"$err"
  st=$?
  ok=1
  if [ $want = pass ]; then [ $st -eq 0 ] || ok=0; else [ $st -ne 0 ] || ok=0; fi
  if grep -Eqi 'segmentation|core dumped|signal 11|assert' "$err"; then ok=0; fi
  if [ $ok = 1 ]; then echo "ok   $name: $(head -1 "$out")"; else
    echo "FAIL $name (exit $st)"; sed 's/^/  out: /' "$out" | head -10; sed 's/^/  err: /' "$err" | head -20
    fail=1
  fi
}
preload="-genv LD_PRELOAD $plugin"

# the check itself: without the plugin MPICH keeps every rank, so "keep" fails
check "without the plugin nothing moves and rank0_app says so" fail torus:4x4x2 \
  -n 32 "$app" keep 4x4x2 1
grep -q "no rank moved" "$err" || { echo "FAIL rank0_app did not name the reason"; fail=1; }

check "torus: ranks move, rank 0 stays" pass torus:4x4x2 $preload -n 32 "$app" keep 4x4x2 1
kept=$(grep 'rankmap-pmpi: MPI_Cart' "$err" | head -1)
check "mesh: ranks move, rank 0 stays" pass mesh:4x4x2 $preload -n 32 "$app" keep 4x4x2 0
check "tree: ranks move, rank 0 stays" pass tree:4x4x2 $preload -n 32 "$app" keep 4x4x2 1
check "torus, a 4x4 grid on 32 ranks: rank 0 stays" pass torus:4x4x2 $preload -n 32 "$app" keep 4x4 1

MPIR_CVAR_RANKMAP_KEEP_RANK0=0
export MPIR_CVAR_RANKMAP_KEEP_RANK0
check "torus, MPIR_CVAR_RANKMAP_KEEP_RANK0=0" pass torus:4x4x2 $preload -n 32 "$app" any 4x4x2 1
free=$(grep 'rankmap-pmpi: MPI_Cart' "$err" | head -1)
if grep -q 'cart rank 0 on world rank 0$' "$out"; then
  echo "FAIL MPIR_CVAR_RANKMAP_KEEP_RANK0=0: rank 0 did not move, so the setting shows nothing"; fail=1
else
  echo "ok   MPIR_CVAR_RANKMAP_KEEP_RANK0=0: rank 0 moves"
fi
# and rank0_app notices a moved rank 0
check "rank0_app keep fails when rank 0 moves" fail torus:4x4x2 $preload -n 32 "$app" keep 4x4x2 1
grep -q "not world rank 0" "$err" || { echo "FAIL rank0_app did not name the moved rank 0"; fail=1; }
unset MPIR_CVAR_RANKMAP_KEEP_RANK0
# the F after reordering (the number after "->") is the same kept or free
fk=$(echo "$kept" | sed -n 's/.*-> \([0-9.e+]*\) .*/\1/p') ff=$(echo "$free" | sed -n 's/.*-> \([0-9.e+]*\) .*/\1/p')
if [ -n "$fk" ] && [ "$fk" = "$ff" ]; then
  echo "ok   torus: F with rank 0 kept = F free = $fk"
else
  echo "FAIL torus: F with rank 0 kept '$fk' differs from F free '$ff'"; echo "  $kept"; echo "  $free"; fail=1
fi
exit $fail

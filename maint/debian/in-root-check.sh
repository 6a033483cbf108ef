#!/usr/bin/env bash
# maint/debian/in-root-check.sh DEBDIR -- run inside a fresh bookworm root
# (maint/debian/check-debs.sh): Debian's stock MPICH, then rankmap's packages
# installed over it, then Debian's packages back.  The same binaries, built
# once against the stock MPICH, must keep MPI's order before, reorder after
# the upgrade (no environment variable but the topology settings) and keep
# it again after the downgrade.  Prints one "RESULT" line per step.
set -uo pipefail
debs=$1
cd /root/rankmap
export DEBIAN_FRONTEND=noninteractive
fail=0
step() { echo "RESULT $*"; }
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends mpich libmpich-dev gfortran man-db >/dev/null ||
  { step "FAIL apt-get install mpich libmpich-dev gfortran man-db"; exit 1; }
stock=$(dpkg-query -W -f='${Version}' libmpich12)
w=/root/pkgcheck
mkdir -p $w
mpicc.mpich -o $w/abi_hello test/mpi/abi_hello.c || { step "FAIL mpicc.mpich abi_hello.c"; exit 1; }
mpif90.mpich -cpp -o $w/topo_f test/mpi/topo_reorder_f.F90 >/dev/null 2>&1 || { step "FAIL mpif90.mpich topo_reorder_f.F90"; exit 1; }
# the LAMMPS pattern (map cart/reorder): neighbours read from a reordered
# Cartesian communicator, used on MPI_COMM_WORLD after freeing it
mpicc.mpich -Itest/compat -o $w/cart_then_world test/compat/cart_then_world.c || { step "FAIL mpicc.mpich cart_then_world.c"; exit 1; }
map=test/mpi/torus-4x4x4-scrambled.map
export MPIR_CVAR_RANKMAP_TOPOLOGY=torus:4x4x4 MPIR_CVAR_RANKMAP_MAPPING=$PWD/$map

# run NAME EXPECT(reorder|identity)
run() {
  local c out st
  out=$(mpiexec -n 64 $w/abi_hello $map 4 4 4 2>&1); st=$?
  c=$(echo "$out" | grep -o 'moved [0-9]* worst [0-9]*' | head -1)
  if { [ $2 = reorder ] && [ $st = 0 ]; } || { [ $2 = identity ] && echo "$c" | grep -q '^moved 0 '; }; then
    step "ok   $1: C program built against Debian's MPICH: $c"
  else step "FAIL $1: C program: exit $st, ${c:-$(echo "$out" | tail -2)}"; fail=1; fi
  out=$(mpiexec -n 64 $w/topo_f $PWD/$map cart 2>&1); st=$?
  c=$(echo "$out" | grep -o 'cart: moved .*' | head -1)
  if { [ $2 = reorder ] && [ $st = 0 ]; } || { [ $2 = identity ] && echo "$c" | grep -q '^cart: moved 0 '; }; then
    step "ok   $1: Fortran program built against Debian's MPICH: $c"
  else step "FAIL $1: Fortran program: exit $st, ${c:-$(echo "$out" | tail -2)}"; fail=1; fi
}

run "stock libmpich12 $stock" identity
apt-get install -y -qq "$debs"/*.deb >/dev/null 2>&1 || { step "FAIL apt-get install $debs/*.deb"; exit 1; }
new=$(dpkg-query -W -f='${Version}' libmpich12)
step "ok   apt-get install ./*.deb: libmpich12 $stock -> $new, $(readlink -f /usr/bin/mpiexec)"
mpichversion | grep -q "^MPICH Custom Information:.*rankmap" &&
  step "ok   mpichversion: $(mpichversion | sed -n 's/^MPICH \(Version\|Device\|Custom Information\):[[:space:]]*/\1 /p' | paste -sd, | sed 's/,/, /g')" ||
  { step "FAIL mpichversion does not name rankmap"; fail=1; }
run "rankmap's libmpich12 $new" reorder
# misuse: the LAMMPS pattern ends in the diagnosis (no silent hang); named
# in MPIR_CVAR_RANKMAP_SKIP_PROGRAMS it keeps MPI's order and completes
misuse() {
  local out st
  out=$(env MPIR_CVAR_RANKMAP_TOPOLOGY=torus:2x2x2 MPIR_CVAR_RANKMAP_MAPPING=$PWD/test/pmpi/torus-2x2x2-scrambled.map \
        "$@" timeout 120 mpiexec -n 8 $w/cart_then_world 2>&1); st=$?
  echo "$out" >$w/misuse.out
  echo "$st"
}
st=$(misuse MPIR_CVAR_RANKMAP_WATCHDOG=2 MPIR_CVAR_RANKMAP_WATCHDOG_ACTION=abort)
if [ "$st" != 0 ] && [ "$st" != 124 ] && grep -q "MPI_Cart_create reordered .* ranks and the program freed the new communicator" $w/misuse.out &&
   grep -q "MPIR_CVAR_RANKMAP_WATCHDOG_ACTION=abort: exiting" $w/misuse.out; then
  step "ok   LAMMPS pattern (cart_then_world, built against Debian's MPICH): diagnosis, the watchdog ends the job (exit $st)"
else step "FAIL LAMMPS pattern: exit $st, $(grep -m1 'MPICH rankmap' $w/misuse.out)"; fail=1; fi
st=$(misuse MPIR_CVAR_RANKMAP_SKIP_PROGRAMS=cart_then_world MPIR_CVAR_RANKMAP_WATCHDOG=2 MPIR_CVAR_RANKMAP_WATCHDOG_ACTION=abort)
if [ "$st" = 0 ] && grep -q '^moved 0 of 8$' $w/misuse.out && grep -q '^PASS$' $w/misuse.out; then
  step "ok   LAMMPS pattern with MPIR_CVAR_RANKMAP_SKIP_PROGRAMS=cart_then_world: MPI's order, completes"
else step "FAIL LAMMPS pattern with SKIP_PROGRAMS: exit $st, $(tail -2 $w/misuse.out | paste -sd' ')"; fail=1; fi
for page in rankmap MPIX_Rank2torus rankmap-settings MPIR_CVAR_RANKMAP_TOPOLOGY; do
  if man -w "$page" >/dev/null 2>&1 && man "$page" 2>/dev/null | grep -q .; then step "ok   man $page"
  else step "FAIL man $page"; fail=1; fi
done
apt-get install -y -qq --allow-downgrades libmpich12="$stock" libmpich-dev="$stock" mpich="$stock" >/dev/null 2>&1 ||
  { step "FAIL apt-get install libmpich12=$stock (back to Debian's)"; exit 1; }
step "ok   back to Debian's packages: libmpich12 $(dpkg-query -W -f='${Version}' libmpich12)"
run "Debian's libmpich12 again" identity
exit $fail

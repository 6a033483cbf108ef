#!/bin/sh
# abi_debian.sh MPIEXEC PATCHED_LIBDIR RANKMAP_LIBDIR SRCDIR WORKDIR
# ABI check: test/mpi/abi_hello.c compiled with Debian's own mpicc (package
# mpich, which links libmpich.so.12) runs against the patched library through
# LD_LIBRARY_PATH and gets topology-aware ranks on a scrambled 4x4x4 torus.
mpiexec=$1 libdir=$2 rmlib=$3 src=$4 work=$5
cc=/usr/bin/mpicc.mpich
[ -x "$cc" ] || { echo "SKIP: $cc not found (apt-get install mpich libmpich-dev)"; exit 77; }
mkdir -p "$work" || exit 1
exe=$work/abi_hello
"$cc" -o "$exe" "$src/abi_hello.c" || { echo "FAIL: $cc could not build abi_hello.c"; exit 1; }
readelf -d "$exe" | grep -q 'NEEDED.*libmpich.so.12' || { echo "FAIL: $exe does not link libmpich.so.12"; exit 1; }
LD_LIBRARY_PATH=$libdir:$rmlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
resolved=$(ldd "$exe" | sed -n 's/.*libmpich.so.12 => \([^ ]*\).*/\1/p')
case $resolved in
  "$libdir"/*) echo "libmpich.so.12 => $resolved (patched)" ;;
  *) echo "FAIL: libmpich.so.12 resolves to '$resolved', not $libdir"; exit 1 ;;
esac
MPIR_CVAR_RANKMAP_TOPOLOGY=torus:4x4x4 MPIR_CVAR_RANKMAP_MAPPING=$src/torus-4x4x4-scrambled.map \
  "$mpiexec" -n 64 "$exe" "$src/torus-4x4x4-scrambled.map" 4 4 4
st=$?
[ $st -eq 0 ] && echo "PASS: Debian-built binary got reordered ranks, every neighbour 1 hop away" ||
  echo "FAIL: exit $st"
exit $st

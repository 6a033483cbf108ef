#!/bin/sh
# fortran.sh MPIEXEC STAGE_ROOT RANKMAP_LIBDIR SRCDIR WORKDIR
# Fortran programs on the patched MPICH: test/mpi/topo_reorder_f.F90 built
#   debian-mpi      with Debian's own mpif90.mpich, `use mpi`
#   debian-mpi_f08  with Debian's own mpif90.mpich, `use mpi_f08`
#   patched-mpi_f08 with the patched build's mpifort, `use mpi_f08`
# and run against the patched libmpich / libmpichfort (the Debian-built
# binaries through LD_LIBRARY_PATH, as an installed program would after the
# packages replace Debian's) on a scrambled 2x2x2 torus, 8 ranks (the
# program also takes 4x4x4 and 64 ranks):
# MPI_CART_CREATE, and MPI_DIST_GRAPH_CREATE_ADJACENT with reorder = .true.
# and the info key rankmap_vertices=follow_rank, must move ranks, put every
# grid neighbour one hop away and keep halo exchanges and collectives on
# MPI_INTEGER / MPI_DOUBLE_PRECISION right; the distributed graph without the
# key (MPI_INFO_NULL) and with MPIR_CVAR_RANKMAP_DIST_GRAPH=0 keeps MPI's order.
mpiexec=$1 root=$2 rmlib=$3 src=$4 work=$5
map=$src/../pmpi/torus-2x2x2-scrambled.map
fc=/usr/bin/mpif90.mpich
[ -x "$fc" ] || { echo "SKIP: $fc not found (apt-get install libmpich-dev gfortran)"; exit 77; }
[ -x "$root/bin/mpifort" ] || { echo "FAIL: $root/bin/mpifort missing: the patched MPICH was built without Fortran"; exit 1; }
mkdir -p "$work" && cd "$work" || exit 1
fails=0

build() { # name compiler flags...
  name=$1 comp=$2; shift 2
  if ! "$comp" -cpp "$@" -o "$name" "$src/topo_reorder_f.F90" >"$name.log" 2>&1; then
    echo "FAIL: $comp $* could not build topo_reorder_f.F90"; cat "$name.log"; fails=$((fails + 1)); return 1
  fi
}
run() { # name mode
  out=$(MPIR_CVAR_RANKMAP_TOPOLOGY=torus:2x2x2 MPIR_CVAR_RANKMAP_MAPPING=$map \
        "$mpiexec" -n 8 "./$1" "$map" "$2" </dev/null 2>&1)
  st=$?
  if [ $st -eq 0 ]; then echo "ok   $1 $2: $(echo "$out" | tail -1)"
  else echo "FAIL $1 $2: exit $st"; echo "$out" | tail -15; fails=$((fails + 1)); fi
}

# the Debian-built binaries must resolve both libraries to the patched build
LD_LIBRARY_PATH=$root/lib:$rmlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
for v in mpi mpi_f08; do
  flags=; [ $v = mpi_f08 ] && flags=-DUSE_F08
  build "debian-$v" "$fc" $flags || continue
  for lib in libmpich.so.12 libmpichfort.so.12; do
    resolved=$(ldd "debian-$v" | sed -n "s/.*$lib => \([^ ]*\).*/\1/p")
    case $resolved in
      "$root/lib"/*) ;;
      *) echo "FAIL: debian-$v: $lib resolves to '$resolved', not $root/lib"; fails=$((fails + 1)) ;;
    esac
  done
  run "debian-$v" cart
  run "debian-$v" dgraph
done
build patched-mpi_f08 "$root/bin/mpifort" -DUSE_F08 && run patched-mpi_f08 cart

# the distributed graph keeps MPICH's order without the info key (each process
# keeps its own edges) and with MPIR_CVAR_RANKMAP_DIST_GRAPH=0 (the program
# then reports "moved 0" and fails its own reorder check)
keeps() { # label mode [VAR=value]
  label=$1 mode=$2; shift 2
  out=$(env "$@" MPIR_CVAR_RANKMAP_TOPOLOGY=torus:2x2x2 MPIR_CVAR_RANKMAP_MAPPING=$map \
        "$mpiexec" -n 8 ./debian-mpi "$map" "$mode" </dev/null 2>&1)
  if echo "$out" | grep -q "^$mode: moved 0 worst [0-9]* errors 0\$"; then
    echo "ok   $label: distributed graph kept the order"
  else
    echo "FAIL $label: $(echo "$out" | tail -3)"; fails=$((fails + 1))
  fi
}
keeps "MPI_INFO_NULL" dgraph-default
keeps "MPIR_CVAR_RANKMAP_DIST_GRAPH=0 with the info key" dgraph MPIR_CVAR_RANKMAP_DIST_GRAPH=0

[ $fails -eq 0 ] && echo "PASS: Fortran programs reorder on the patched MPICH" || echo "FAIL: $fails failures"
[ $fails -eq 0 ]

#!/bin/sh
# bad_settings.sh BUILD_DIR SRC_DIR WORK_DIR
# The reorder plugin under Debian's MPICH with bad MPIR_CVAR_RANKMAP_*
# settings of its own reading (numbers, booleans, the algorithm): every bad
# setting gives one warning on rank 0 naming it and the job keeps MPI's own
# order (test/pmpi/topo_app.c: no rank moves); with MPIR_CVAR_RANKMAP_STRICT=1
# MPI_Init fails with the error instead.  Never a crash or a hang.  The
# address table's settings (topology, mapping, discovery) are checked
# against both layers by test/compat/table.sh.
build=$1 src=$2 work=$3
t=$src/test/pmpi fix=$src/test/fixtures
plugin=$build/.libs/librankmap-pmpi.so
mkdir -p "$work" || exit 1
[ -f "$plugin" ] || { echo "FAIL: $plugin was not built"; exit 1; }
app=$work/topo_app-bad
mpicc.mpich -O2 -o "$app" "$t/topo_app.c" || { echo "FAIL: mpicc.mpich could not build topo_app.c"; exit 1; }
LD_LIBRARY_PATH=$build/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
map=$t/torus-2x2x2-scrambled.map
out=$work/bad.out err=$work/bad.err
fail=0

# run NAME EXPECT(identity|reorder|abort) STDERR_REGEX [VAR=VALUE...]
# identity/reorder: topo_app's expectation on 8 ranks, exit 0; abort: exit != 0.
# A warning about a setting must come exactly once (rank 0, at MPI_Init); one
# about a topology call (regex starting "MPI_") once per call (topo_app makes
# two: MPI_Cart_create and MPI_Cart_map).
run() {
  name=$1 want=$2 errre=$3; shift 3
  times=1
  case $errre in MPI_*) times=2 ;; esac
  expect=$want
  [ "$want" = abort ] && expect=identity
  env "$@" mpiexec.mpich -genv LD_PRELOAD "$plugin" -n 8 "$app" cart $expect "$map" 2x2x2 2x2x2 \
    >"$out" 2>"$err"
  st=$?
  ok=1
  if [ "$want" = abort ]; then [ $st -ne 0 ] || ok=0; else [ $st -eq 0 ] || ok=0; fi
  if [ -n "$errre" ]; then
    n=$(grep -Ec "$errre" "$err")
    [ "$n" = $times ] || ok=0
  fi
  if grep -Eqi 'segmentation|core dumped|signal 11|assert' "$err"; then ok=0; fi
  if [ $ok = 1 ]; then echo "ok   $name"; else
    echo "FAIL $name (exit $st)"; sed 's/^/  out: /' "$out" | head -10; sed 's/^/  err: /' "$err" | head -20
    fail=1
  fi
}

T=MPIR_CVAR_RANKMAP_TOPOLOGY M=MPIR_CVAR_RANKMAP_MAPPING
run "good settings reorder" reorder '' $T=torus:2x2x2 $M="$map"
run "the MPICH_ alias of a setting works too" reorder '' MPICH_RANKMAP_TOPOLOGY=torus:2x2x2 $M="$map"
run "non-numeric seed setting" identity 'MPIR_CVAR_RANKMAP_SEED="abc"' \
  $T=torus:2x2x2 $M="$map" MPIR_CVAR_RANKMAP_SEED=abc
run "bad boolean" identity 'MPIR_CVAR_RANKMAP_FORCE="maybe"' \
  $T=torus:2x2x2 $M="$map" MPIR_CVAR_RANKMAP_FORCE=maybe
run "bad boolean for distributed graphs" identity 'MPIR_CVAR_RANKMAP_DIST_GRAPH="sometimes"' \
  $T=torus:2x2x2 $M="$map" MPIR_CVAR_RANKMAP_DIST_GRAPH=sometimes
run "bad boolean for rank 0" identity 'MPIR_CVAR_RANKMAP_KEEP_RANK0="perhaps"' \
  $T=torus:2x2x2 $M="$map" MPIR_CVAR_RANKMAP_KEEP_RANK0=perhaps
run "negative time limit" identity 'MPIR_CVAR_RANKMAP_TIME_LIMIT="-1"' \
  $T=torus:2x2x2 $M="$map" MPIR_CVAR_RANKMAP_TIME_LIMIT=-1
run "unknown algorithm: the call keeps the identity with a warning" identity \
  'MPI_Cart 2px2px2p: reorder kept the identity order .*nonsense' $T=torus:2x2x2 $M="$map" MPIR_CVAR_RANKMAP_ALGORITHM=nonsense
run "MPICH coordinates file with a malformed line: one warning naming file and line, ranks stay" identity \
  'dragonfly-2x1x2x2-bad.coords:4: expected .RANK: GROUP SWITCH PORT.' $T=dragonfly:2x1x2x2 \
  $M="$fix/dragonfly-2x1x2x2-bad.coords"
run "strict: a bad setting fails MPI_Init naming it" abort \
  'rankmap-pmpi: error: MPIR_CVAR_RANKMAP_SEED="abc"' $T=torus:2x2x2 MPIR_CVAR_RANKMAP_SEED=abc MPIR_CVAR_RANKMAP_STRICT=1
exit $fail

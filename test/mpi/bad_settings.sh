#!/bin/sh
# bad_settings.sh MPIEXEC INIT_SETTINGS FIXTURE_DIR
# Runs test/mpi/init_settings (8 ranks) under good and bad MPIR_CVAR_RANKMAP_*
# settings: a bad setting gives one warning naming the setting and the identity
# order (or, with MPIR_CVAR_RANKMAP_STRICT=1, an MPI_Init error naming it),
# never a crash.
mpiexec=$1 prog=$2 fix=$3
fail=0
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

# run NAME EXPECT_STATUS(0|nonzero) STDOUT_REGEX STDERR_REGEX [VAR=VALUE...]
# (an empty regex checks nothing)
run() {
  name=$1 want=$2 outre=$3 errre=$4; shift 4
  env "$@" "$mpiexec" -n 8 "$prog" >"$out" 2>"$err"
  st=$?
  ok=1
  if [ "$want" = 0 ] && [ $st -ne 0 ]; then ok=0; fi
  if [ "$want" != 0 ] && [ $st -eq 0 ]; then ok=0; fi
  [ -z "$outre" ] || grep -Eq "$outre" "$out" || ok=0
  [ -z "$errre" ] || grep -Eq "$errre" "$err" || ok=0
  if grep -Eqi 'segmentation|core dumped|signal 11|signal 6|assert' "$err"; then ok=0; fi
  if [ $ok = 1 ]; then echo "ok   $name"; else
    echo "FAIL $name (exit $st)"; sed 's/^/  out: /' "$out"; sed 's/^/  err: /' "$err" | head -20
    fail=1
  fi
}

T=MPIR_CVAR_RANKMAP_TOPOLOGY M=MPIR_CVAR_RANKMAP_MAPPING
run "no settings: one node keeps the order" 0 'ranks moved: 0' ''
run "declared torus, scattered ranks: reorder moves them" 0 'ranks moved: [1-8]; address table dims: 3' '' \
  $T=torus:2x2x2 $M=random:5
run "BG/L order ZYXT: the address table is used" 0 'ranks moved: [1-8]; address table dims: 3' '' \
  $T=torus:2x2x2 $M=ZYXT
run "unknown topology string" 0 'ranks moved: 0; address table dims: 0' \
  'warning: MPIR_CVAR_RANKMAP_TOPOLOGY="blob:8".*reordering disabled' $T=blob:8
run "malformed torus dims" 0 'ranks moved: 0' 'MPIR_CVAR_RANKMAP_TOPOLOGY="torus:2x2y2"' $T=torus:2x2y2
run "mapfile with a missing line" 0 'ranks moved: 0' \
  'MPIR_CVAR_RANKMAP_MAPPING=.*bad-missing-line.map.*7 lines for 8' $T=torus:2x2x2 $M="$fix/bad-missing-line.map"
run "mapfile with a duplicate coordinate" 0 'ranks moved: 0' \
  'MPIR_CVAR_RANKMAP_MAPPING=.*bad-duplicate-coord.map.*duplicate' $T=torus:2x2x2 $M="$fix/bad-duplicate-coord.map"
run "mapfile with an out-of-range coordinate" 0 'ranks moved: 0' \
  'MPIR_CVAR_RANKMAP_MAPPING=.*bad-out-of-range.map.*outside' $T=torus:2x2x2 $M="$fix/bad-out-of-range.map"
run "unreadable mapfile" 0 'ranks moved: 0' 'MPIR_CVAR_RANKMAP_MAPPING=.*cannot open' \
  $T=torus:2x2x2 $M=/nonexistent/rankmap.map
run "torus smaller than the job" 0 'ranks moved: 0' 'MPIR_CVAR_RANKMAP_TOPOLOGY="torus:2x2" is too small for 8' \
  $T=torus:2x2
run "bad mapping order" 0 'ranks moved: 0' 'MPIR_CVAR_RANKMAP_MAPPING="XQZ"' $T=torus:2x2x2 $M=XQZ
run "mapping without a topology" 0 'ranks moved: 0' 'MPIR_CVAR_RANKMAP_MAPPING="XYZT" needs MPIR_CVAR_RANKMAP_TOPOLOGY' \
  $M=XYZT
run "strict: bad topology fails MPI_Init naming the setting" nonzero '' \
  'error: MPIR_CVAR_RANKMAP_TOPOLOGY="blob:8": .*unknown kind.*MPI_Init fails' $T=blob:8 MPIR_CVAR_RANKMAP_STRICT=1
exit $fail

#!/bin/sh
# bad_settings.sh MPIEXEC INIT_SETTINGS FIXTURE_DIR
# Runs test/mpi/init_settings (8 ranks): the patched MPICH's MPIX query of the
# address table (MPIX_Torus_ndims) with and without settings, and
# MPIR_CVAR_RANKMAP_STRICT=1 failing MPI_Init with the error's text (the
# **rankmap message).  Every bad address-table setting is checked against
# both layers by test/compat/table.sh.
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
run "strict: a bad topology fails MPI_Init naming the setting" nonzero '' \
  'error: MPIR_CVAR_RANKMAP_TOPOLOGY="blob:8": .*unknown kind.*MPIR_CVAR_RANKMAP_STRICT=1' $T=blob:8 MPIR_CVAR_RANKMAP_STRICT=1
exit $fail

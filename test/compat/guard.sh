#!/bin/sh
# guard.sh PATH_KIND MPICC MPIEXEC PLUGIN SRC_DIR WORK_DIR
#   PATH_KIND = patched (the patched MPICH decides, PLUGIN = -) or
#               plugin  (Debian's MPICH with PLUGIN = librankmap-pmpi.so preloaded)
# The same cases against both reorder paths, which share one decision
# (rankmap_reorder_ranks(), include/rankmap_glue.h): the guard
# (MPIR_CVAR_RANKMAP_GUARD) and the all-to-all hint of Cartesian grids
# (MPIR_CVAR_RANKMAP_CART_ALLTOALL), on an unmodified program
# (test/pmpi/topo_app.c, 8 ranks, periodic 2x4 grid, 2x2x2 torus):
#   - a scattered launch order with the hint: reordered, the verbose line
#     gives the model's figures for both orders;
#   - the launch order already optimal: the guard keeps it and says why;
#     MPIR_CVAR_RANKMAP_GUARD=f says so in F terms;
#   - a bad hint: MPI's order with one line naming the setting;
#   - a bad guard value: one line naming the setting, the model guard;
#   - a 64-rank pencil FFT on a dragonfly: spread over the groups with
#     minimal routes declared, block order kept with the routing undeclared;
#   - (plugin) a pencil-FFT program teaches the hint to its next run, a halo
#     exchange the hint none.
kind=$1 mpicc=$2 mpiexec=$3 plugin=$4 src=$5 work=$6
t=$src/test/pmpi
script=guard.sh
. "$src/test/compat/layer.sh"
scrambled=$t/torus-2x2x2-scrambled.map
inorder=$work/torus-2x2x2-inorder.map
: >"$inorder"
# rank r = (i, j) of the 2x4 grid on z = i and the Gray code of j in (x, y):
# every grid neighbour one hop away, F = F_min
for r in 0 1 2 3 4 5 6 7; do
  j=$((r % 4)); g=$((j ^ (j >> 1)))
  echo "$((g % 2)) $((g / 2)) $((r / 4))" >>"$inorder"
done
MPIR_CVAR_RANKMAP_TOPOLOGY=torus:2x2x2 MPIR_CVAR_RANKMAP_VERBOSE=1
export MPIR_CVAR_RANKMAP_TOPOLOGY MPIR_CVAR_RANKMAP_VERBOSE
out=$work/out-$kind.txt err=$work/err-$kind.txt
fail=0

# case NAME EXPECT MAPFILE ERR_REGEX [VAR=VALUE...]: topo_app cart-create with
# EXPECT (reorder | identity, or moved: any rank moved) must pass, and stderr
# match ERR_REGEX
case_() {
  name=$1 expect=$2 map=$3 errre=$4; shift 4
  outre=PASS
  if [ "$expect" = moved ]; then expect=any outre='moved [1-9]'; fi
  # shellcheck disable=SC2086
  env MPIR_CVAR_RANKMAP_MAPPING="$map" "$@" "$mpiexec" $pre -n 8 "$app" cart-create "$expect" "$map" 2x2x2 2x4 \
    >"$out" 2>"$err"
  st=$?
  ok=1
  [ $st -eq 0 ] || ok=0
  grep -q PASS "$out" || ok=0
  grep -Eq "$outre" "$out" || ok=0
  grep -Eq "$errre" "$err" || ok=0
  if grep -Eqi 'segmentation|core dumped|signal 11|signal 6' "$err"; then ok=0; fi
  if [ $ok = 1 ]; then echo "ok   $kind $name"; else
    echo "FAIL $kind $name (exit $st; stderr should match: $errre)"
    sed 's/^/  out: /' "$out" | head -10; sed 's/^/  err: /' "$err" | head -10
    fail=1
  fi
}

case_ "hint, scattered order: reordered with the model's figures" moved "$scrambled" \
  'MPI_Cart 2px4p: 8 tasks, F [0-9.]+ -> [0-9.]+ .*predicted [0-9.e+-]+ s before, [0-9.e+-]+ s after.*busiest link' \
  MPIR_CVAR_RANKMAP_CART_ALLTOALL=all
case_ "launch order already optimal: the guard keeps it and says why" identity "$inorder" \
  'identity \(no gain\).*no clear gain.*: current order kept \(.*predicted'
case_ "guard f: kept, in F terms" identity "$inorder" 'F not lower: current order kept' \
  MPIR_CVAR_RANKMAP_GUARD=f
case_ "bad hint: MPI's order, the setting named" identity "$scrambled" \
  'MPI_Cart 2px4p \(MPIR_CVAR_RANKMAP_CART_ALLTOALL\): reorder kept the identity order \(all-to-all dimensions .2,x.' \
  MPIR_CVAR_RANKMAP_CART_ALLTOALL=2,x
case_ "bad guard: the setting named, MPI's order (a bad setting turns reordering off)" identity "$scrambled" \
  'MPIR_CVAR_RANKMAP_GUARD="sometimes": expected one of model,f,off; reordering disabled' \
  MPIR_CVAR_RANKMAP_GUARD=sometimes
# A pencil FFT of 64 ranks (16x4 grid, CART_ALLTOALL=all) launched in block
# order on a dragonfly of 8 groups of 8 routers, one host each: with minimal
# routes declared (:valiant=0) the tasks spread over the groups are taken
# (in block order every pairwise step of the columns loads one global link
# per group); with the routing not declared, adaptive routing would favour
# block order and the order stays.  The program checks every element.
dfmap=$work/dragonfly-8x1x8x1-block.map
: >"$dfmap"
for r in $(seq 0 63); do echo "$((r / 8)) 0 $((r % 8)) 0" >>"$dfmap"; done
pencil=$work/pencil
"$mpicc" -O2 -o "$pencil" "$src/test/compat/pencil.c" || { echo "FAIL: $mpicc could not build pencil.c"; exit 1; }
# dragonfly NAME TOPOLOGY ERR_REGEX
dragonfly() {
  name=$1 topo=$2 errre=$3
  env MPIR_CVAR_RANKMAP_TOPOLOGY="$topo" MPIR_CVAR_RANKMAP_MAPPING="$dfmap" MPIR_CVAR_RANKMAP_CART_ALLTOALL=all \
    "$mpiexec" $pre -n 64 "$pencil" 16 4 >"$out" 2>"$err"
  st=$?
  if [ $st -eq 0 ] && grep -q '^PASS' "$out" && grep -Eq "$errre" "$err"; then echo "ok   $kind $name"; else
    echo "FAIL $kind $name (exit $st; stderr should match: $errre)"
    sed 's/^/  out: /' "$out" | head -10; sed 's/^/  err: /' "$err" | head -10
    fail=1
  fi
}
dragonfly "dragonfly, minimal routes declared: the FFT's tasks spread over the groups" dragonfly:8x1x8x1:valiant=0 \
  'MPI_Cart 16x4: 64 tasks, .*spread \(dragonfly\).*spread over the groups taken'
dragonfly "dragonfly, routing not declared: block order kept, the setting named" dragonfly:8x1x8x1 \
  'MPI_Cart 16x4: .*spread over the groups: slower for large messages if the dragonfly routes adaptively.*:valiant='
# Both layers learn the hint: a pencil-FFT program (test/compat/pencil.c)
# whose grid was reordered runs MPI_Alltoall on MPI_Cart_sub lines; the run
# writes the hint into the mapping cache ($RANKMAP_WISDOM) and the next run
# of the same program and grid maps with it.  No false diagnosis: the grid
# is used through its lines.
if true; then
  wis=$work/wisdom
  rm -rf "$wis"
  # learn NAME OUT_REGEX ERR_REGEX [!ERR_REGEX]
  learn() {
    name=$1 outre=$2 errre=$3 noterr=$4
    env RANKMAP_WISDOM="$wis" MPIR_CVAR_RANKMAP_MAPPING="$scrambled" "$mpiexec" $pre -n 8 "$pencil" 2 4 \
      >"$out" 2>"$err"
    st=$?
    ok=1
    [ $st -eq 0 ] || ok=0
    grep -Eq "$outre" "$out" || ok=0
    grep -Eq "$errre" "$err" || ok=0
    if [ -n "$noterr" ] && grep -Eq "$noterr" "$err"; then ok=0; fi
    if [ $ok = 1 ]; then echo "ok   $kind $name"; else
      echo "FAIL $kind $name (exit $st; stderr should match: $errre${noterr:+, and not: $noterr})"
      sed 's/^/  out: /' "$out" | head -10; sed 's/^/  err: /' "$err" | head -10
      fail=1
    fi
  }
  learn "pencil FFT, first run: all-to-all on the grid's lines noticed and remembered" PASS \
    'MPI_Alltoall on the lines of dimension [01]; the next run maps the grid with the all-to-all hint' \
    'freed the new communicator without communicating|marked unsafe'
  [ -f "$wis/alltoall/pencil-2x4" ] && grep -qx '0,1' "$wis/alltoall/pencil-2x4" ||
    { echo "FAIL $kind the hint file $wis/alltoall/pencil-2x4 does not hold 0,1"; fail=1; }
  learn "pencil FFT, second run: mapped with the learnt hint" PASS \
    'MPI_Cart 2x4: all-to-all hint 0,1 learnt by an earlier run' ''
  # A halo exchange (test/compat/correct_cart.c, point-to-point on the
  # grid, no all-to-all) teaches the hint none: its next run maps the grid
  # as a stencil.
  halo=$work/correct_cart
  "$mpicc" -O2 -I"$src/test/compat" -o "$halo" "$src/test/compat/correct_cart.c" ||
    { echo "FAIL: $mpicc could not build correct_cart.c"; exit 1; }
  learn_halo() {
    name=$1 errre=$2
    env RANKMAP_WISDOM="$wis" MPIR_CVAR_RANKMAP_MAPPING="$scrambled" "$mpiexec" $pre -n 8 "$halo" >"$out" 2>"$err"
    st=$?
    if [ $st -eq 0 ] && grep -q '^PASS$' "$out" && grep -Eq "$errre" "$err"; then echo "ok   $kind $name"; else
      echo "FAIL $kind $name (exit $st; stderr should match: $errre)"
      sed 's/^/  out: /' "$out" | head -10; sed 's/^/  err: /' "$err" | head -10
      fail=1
    fi
  }
  learn_halo "halo exchange, first run: point-to-point and no all-to-all remembered as the hint none" \
    'point-to-point on the grid and no MPI_Alltoall on its lines; the next run maps the grid as a stencil'
  grep -qx 'none' "$wis/alltoall/correct_cart-2x2x2" 2>/dev/null ||
    { echo "FAIL $kind the hint file $wis/alltoall/correct_cart-2x2x2 does not hold none"; fail=1; }
  learn_halo "halo exchange, second run: mapped as a stencil with the learnt hint" \
    'MPI_Cart 2px2px2p: all-to-all hint none learnt by an earlier run'
fi
exit $fail

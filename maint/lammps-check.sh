#!/usr/bin/env bash
# maint/lammps-check.sh -- a real application under the PMPI plugin: Debian's
# LAMMPS (Open MPI) on a scrambled virtual torus, with in-call reordering and
# with launch-time placement (`make check-lammps`).
#
#   maint/lammps-check.sh BUILD_DIR [RANKS...]      (default: 8 64)
#
# LAMMPS with `processors * * * map cart/reorder` asks MPI_Cart_create for
# reordered ranks, reads its neighbours from the new communicator, frees it
# and talks to those ranks on MPI_COMM_WORLD: it assumes ranks do not move.
# For every rank count (torus:2x2x2 for 8 ranks, torus:4x4x4 for 64; the
# world ranks scattered over it by MPIR_CVAR_RANKMAP_MAPPING=random:7) it runs
# an LJ melt written here (fcc 0.8442, 20x20x20 lattice cells = 32,000
# atoms, lj/cut 2.5, nve, thermo every 50 steps) four times:
#   (a) without rankmap;
#   (b) `map cart/reorder` with librankmap-pmpi-ompi.so preloaded: in-call
#       reordering, under `timeout` and MPIR_CVAR_RANKMAP_WATCHDOG=20 with
#       MPIR_CVAR_RANKMAP_WATCHDOG_ACTION=abort; what happened is recorded;
#   (c) `map cart/reorder` with MPIR_CVAR_RANKMAP_SKIP_PROGRAMS=lmp: the
#       plugin loaded, in-call reordering off for lmp;
#   (d) launch-time placement: `rankmap map` of LAMMPS's Cartesian grid (the
#       "X by Y by Z MPI processor grid" of (a)) onto the torus writes a
#       mapfile, the job runs `map cart` (reorder=0) with
#       MPIR_CVAR_RANKMAP_MAPPING=that mapfile; the plugin's verbose "as
#       launched" F must equal the F `rankmap map` printed.
# (c) and (d) must print thermo lines (the Step/Temp/E_pair table, no
# timings) byte-identical to (a).  The table goes to
# bench/results/lammps.md (maint/check-docs.sh --update copies it into the
# docs); the exit status is 1 when (c) or (d) fails.
#
# Installs the Debian packages lammps and openmpi-bin when missing.
# LAMMPS_STEPS (default 200) sets the run length; LAMMPS_TIMEOUT (default
# 300) the seconds after which `timeout` ends a run.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: maint/lammps-check.sh BUILD_DIR [RANKS...]}" && pwd)
shift
sizes=${*:-8 64}
steps=${LAMMPS_STEPS:-200}
limit=${LAMMPS_TIMEOUT:-300}
record=$src/bench/results/lammps.md
plugin=$build/.libs/librankmap-pmpi-ompi.so
rankmap=$build/rankmap
work=$build/lammps-check
mkdir -p "$work"

die() { echo "lammps-check: $*" >&2; exit 1; }
[ -f "$plugin" ] || die "$plugin is missing: the Open MPI plugin is built when configure finds Open MPI (make in $build)"
[ -x "$rankmap" ] || die "$rankmap is missing (make in $build)"

need=()
command -v lmp >/dev/null || need+=(lammps)
command -v mpiexec.openmpi >/dev/null || need+=(openmpi-bin)
if [ ${#need[@]} -gt 0 ]; then
  echo "lammps-check: installing ${need[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}" >"$work/apt.log" 2>&1 ||
    { DEBIAN_FRONTEND=noninteractive apt-get update >>"$work/apt.log" 2>&1 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}" >>"$work/apt.log" 2>&1; } ||
    die "apt-get install ${need[*]} failed, see $work/apt.log"
fi
lmp=$(command -v lmp)

# input MAPSTYLE: the LJ melt with `processors * * * map MAPSTYLE`
input() {
  cat <<EOF
# LJ melt for maint/lammps-check.sh: 4 x 20^3 = 32,000 atoms
units           lj
atom_style      atomic
processors      * * * map $1
lattice         fcc 0.8442
region          box block 0 20 0 20 0 20
create_box      1 box
create_atoms    1 box
mass            1 1.0
velocity        all create 3.0 87287 loop geom
pair_style      lj/cut 2.5
pair_coeff      1 1 1.0 1.0 2.5
neighbor        0.3 bin
neigh_modify    delay 0 every 20 check no
fix             1 all nve
thermo          50
run             $steps
EOF
}
input cart >"$work/in.cart"
input cart/reorder >"$work/in.cart-reorder"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export LD_LIBRARY_PATH=$build/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# run NAME NP INPUT PRELOAD [VAR=VALUE...]: one job; sets $st (exit status,
# 124 = ended by timeout) and $secs; output in $work/NAME.out and .err.  The
# settings reach the ranks through the environment of mpiexec; LD_PRELOAD
# only through -x, so mpiexec itself runs without the plugin.
run() {
  local name=$1 np=$2 in=$3 preload=$4
  shift 4
  local pre=()
  [ "$preload" = yes ] && pre=(-x "LD_PRELOAD=$plugin")
  local t0 t1
  t0=$(date +%s.%N)
  env "$@" timeout "$limit" mpiexec.openmpi --allow-run-as-root --oversubscribe --bind-to none "${pre[@]}" \
    -n "$np" "$lmp" -in "$in" -log none >"$work/$name.out" 2>"$work/$name.err" </dev/null
  st=$?
  t1=$(date +%s.%N)
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')
}

# thermo NAME: the thermo table (header to the last step), no timing lines
thermo() { sed -n '/^ *Step /,/^Loop time/p' "$work/$1.out" | grep -v '^Loop time'; }

# the same thermo lines as (a): "yes", "no" or "no thermo"
same_thermo() {
  thermo "$1" >"$work/$1.thermo"
  if [ ! -s "$work/$1.thermo" ]; then echo "no thermo"
  elif cmp -s "$work/$1.thermo" "$work/$2.thermo"; then echo yes
  else echo no; fi
}

# F from a plugin line: "F a -> b (F_min m)" or "F a (F_min m), as launched"
plugin_lines() { grep -h 'rankmap-pmpi:' "$work/$1.err" | sed 's/^\[[^]]*\] *//' || true; }

rows=() notes=() fail=0
for np in $sizes; do
  case $np in
    8) torus=2x2x2 ;;
    64) torus=4x4x4 ;;
    *) die "no torus for $np ranks (8: torus:2x2x2, 64: torus:4x4x4)" ;;
  esac
  echo "lammps-check: $np ranks on torus:$torus ($steps steps)"
  scatter=(MPIR_CVAR_RANKMAP_TOPOLOGY=torus:$torus MPIR_CVAR_RANKMAP_MAPPING=random:7 MPIR_CVAR_RANKMAP_VERBOSE=1)

  # (a) no rankmap
  a=a-$np
  run "$a" "$np" "$work/in.cart-reorder" no
  thermo "$a" >"$work/$a.thermo"
  grid=$(sed -n 's/^ *\([0-9]*\) by \([0-9]*\) by \([0-9]*\) MPI processor grid.*/\1x\2x\3/p' "$work/$a.out" | head -1)
  if [ $st -ne 0 ] || [ ! -s "$work/$a.thermo" ] || [ -z "$grid" ]; then
    rows+=("| $np | (a) no rankmap | failed (exit $st) | ${secs} s | — | — |")
    fail=1
    continue
  fi
  rows+=("| $np | (a) no rankmap, \`map cart/reorder\` | completed, grid $grid | ${secs} s | (reference) | — |")

  # (b) in-call reordering with the plugin
  b=b-$np
  run "$b" "$np" "$work/in.cart-reorder" yes "${scatter[@]}" \
    MPIR_CVAR_RANKMAP_WATCHDOG=20 MPIR_CVAR_RANKMAP_WATCHDOG_ACTION=abort
  same=$(same_thermo "$b" "$a")
  if [ $st -eq 124 ]; then what="hung: ended by \`timeout\` after $limit s"
  elif grep -q 'WATCHDOG_ACTION=abort: exiting' "$work/$b.err"; then what="stopped by the plugin's watchdog (exit $st)"
  elif [ $st -ne 0 ]; then what="aborted (exit $st)"
  else what="completed"; fi
  fb=$(plugin_lines "$b" | sed -n 's/.*MPI_Cart [^:]*: [0-9]* tasks, F \([0-9.e+]*\) -> \([0-9.e+]*\) (F_min \([0-9.e+]*\)).*/\1 -> \2 (F_min \3)/p' | head -1)
  rows+=("| $np | (b) \`map cart/reorder\`, in-call reordering | $what | ${secs} s | $same | ${fb:-not reported} |")
  while IFS= read -r l; do notes+=("- $np ranks (b): \`$l\`"); done < <(plugin_lines "$b" | grep -v "address table" | head -3)

  # (c) in-call reordering off for lmp
  c=c-$np
  run "$c" "$np" "$work/in.cart-reorder" yes "${scatter[@]}" MPIR_CVAR_RANKMAP_SKIP_PROGRAMS=lmp
  same=$(same_thermo "$c" "$a")
  [ $st -eq 0 ] && what=completed || what="failed (exit $st)"
  fc=$(plugin_lines "$c" | sed -n 's/.*MPI_Cart [^:]*: [0-9]* tasks, F \([0-9.e+]*\) (F_min \([0-9.e+]*\)), as launched.*/\1 (F_min \2), as launched/p' | head -1)
  rows+=("| $np | (c) \`map cart/reorder\`, \`MPIR_CVAR_RANKMAP_SKIP_PROGRAMS=lmp\` | $what | ${secs} s | $same | ${fc:-not reported} |")
  while IFS= read -r l; do notes+=("- $np ranks (c): \`$l\`"); done < <(plugin_lines "$c" | grep -v 'address table' | head -2)
  [ $st -eq 0 ] && [ "$same" = yes ] || fail=1

  # (d) launch-time placement: the grid's graph (last coordinate fastest,
  # +-1 neighbours along every periodic axis, as MPI_Cart_create's) mapped
  # by rankmap, the mapfile as the address table, `map cart` (reorder=0)
  d=d-$np
  awk -v g="$grid" 'BEGIN { nd = split(g, d, "x"); s[nd] = 1
    for (k = nd - 1; k >= 1; k--) s[k] = s[k + 1] * d[k + 1]
    n = s[1] * d[1]
    for (v = 0; v < n; v++) for (k = 1; k <= nd; k++) for (dir = -1; dir <= 1; dir += 2) {
      c = int(v / s[k]) % d[k]; x = (c + dir + d[k]) % d[k]; u = v + (x - c) * s[k]
      if (u != v) print v, u, 1 } }' >"$work/cart-$grid.edges"
  "$rankmap" map --topology "torus:$torus" --graph "$work/cart-$grid.edges" --cart "$grid" \
    --out "$work/$d.map" >"$work/$d.rankmap" 2>&1 || die "rankmap map failed: $(cat "$work/$d.rankmap")"
  fmap=$(awk '$1 == "F" { print $2 }' "$work/$d.rankmap")
  fmin=$(awk '$1 == "F_min" { print $2 }' "$work/$d.rankmap")
  run "$d" "$np" "$work/in.cart" yes MPIR_CVAR_RANKMAP_TOPOLOGY="torus:$torus" \
    MPIR_CVAR_RANKMAP_MAPPING="$work/$d.map" MPIR_CVAR_RANKMAP_VERBOSE=1
  same=$(same_thermo "$d" "$a")
  [ $st -eq 0 ] && what=completed || what="failed (exit $st)"
  fd=$(plugin_lines "$d" | sed -n 's/.*MPI_Cart [^:]*: [0-9]* tasks, F \([0-9.e+]*\) (F_min.*as launched.*/\1/p' | head -1)
  if [ -n "$fd" ] && awk -v a="$fd" -v b="$fmap" 'BEGIN { exit !(a + 0 == b + 0) }'; then fok="= rankmap map's"
  else fok="differs from rankmap map's $fmap"; fail=1; fi
  # F of the scrambled table: (c)'s "as launched", else (b)'s "F before ->"
  fscr=$(echo "$fc" | sed -n 's/^\([0-9.e+]*\) .*/\1/p')
  [ -n "$fscr" ] || fscr=$(echo "$fb" | sed -n 's/^\([0-9.e+]*\) -> .*/\1/p')
  rows+=("| $np | (d) launch-time: \`rankmap map\` mapfile, \`map cart\` | $what | ${secs} s | $same | scrambled ${fscr:-?} -> as launched ${fd:-not reported} (F_min $fmin), $fok |")
  while IFS= read -r l; do notes+=("- $np ranks (d): \`$l\`"); done < <(plugin_lines "$d" | grep -v 'address table' | head -2)
  [ $st -eq 0 ] && [ "$same" = yes ] || fail=1
done

commit=$(cd "$src" && git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(cd "$src" && git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo " (with uncommitted changes)" || true)
{
  echo "> date: $(date -u +%Y-%m-%d) ($(date -u +%H:%M) UTC) · commit: $commit$dirty ·"
  echo "> machine: $(nproc) cores, Debian $(cat /etc/debian_version 2>/dev/null || echo '?'), $(lmp -h 2>/dev/null | sed -n 's/^Large-scale.* - \(.*\)$/LAMMPS \1/p' | head -1), $(mpiexec.openmpi --version 2>/dev/null | head -1) ·"
  echo "> command: \`maint/lammps-check.sh BUILD_DIR $sizes\` (what \`make check-lammps\` runs; LJ melt, 32,000 atoms, $steps steps)"
  echo
  echo "World ranks scattered over the torus by \`MPIR_CVAR_RANKMAP_MAPPING=random:7\`"
  echo "in (b) and (c); (d) runs on the mapfile of \`rankmap map\`.  Time: wall"
  echo "clock of \`mpiexec\`, one run each, ranks oversubscribed on cores other jobs"
  echo "shared: a time says that a run ended, not which case is faster.  Thermo"
  echo "identical: the Step/Temp/E_pair/E_mol/TotEng/Press lines equal those of (a)"
  echo "byte for byte."
  echo
  echo "| ranks | case | result | time | thermo identical | F |"
  echo "|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  if [ ${#notes[@]} -gt 0 ]; then
    echo
    echo "Plugin lines on stderr (the first of each run):"
    echo
    printf '%s\n' "${notes[@]}"
  fi
} >"$record.tmp" && mv "$record.tmp" "$record"
cat "$record"
exit $fail

#!/usr/bin/env bash
# loop.sh BUILD SRC [STAGE] -- the profile -> map -> rerun loop, end to end.
#
#  1. run test/profile/halo_app (a scrambled periodic 4x4x2 halo exchange,
#     32 ranks) under Debian MPICH with the profiler preloaded
#     (LD_PRELOAD=librankmap-profile.so, RANKMAP_PROFILE=app.prof), and check
#     the profile holds exactly the exchange the program reports (--expect);
#  2. rankmap map --profile app.prof --topology torus:4x4x2 --out app.map;
#  3. rankmap eval: F/F_min of app.map equals the mapper's and is below the
#     launch order's (identity placement);
#  4. rerun with app.map as the placement:
#     - patched MPICH stage (STAGE/bin/mpiexec, include/mpix_rankmap.h):
#       MPIR_CVAR_RANKMAP_MAPPING=app.map, profiler preloaded again; the
#       program writes where every rank ran (MPIX_Rank2torus, --where); that
#       placement must be app.map line for line, and F/F_min of the rerun's
#       own profile on it must be the mapper's;
#     - without the stage: the host-file route (Debian MPICH / any MPI) is
#       produced (hosts in app.map order) and checked for shape only.
# Exit 0 pass, 1 fail, 77 skip (no Debian MPICH).
set -uo pipefail
B=${1:?usage: loop.sh BUILD SRC [STAGE]}
S=${2:?usage: loop.sh BUILD SRC [STAGE]}
STAGE=${3:-}
RM=$B/rankmap
MPICC=${MPICC_MPICH:-$(command -v mpicc.mpich || true)}
MPIEXEC=${MPIEXEC_MPICH:-$(command -v mpiexec.mpich || true)}
[ -n "$MPICC" ] && [ -n "$MPIEXEC" ] || { echo "loop.sh: SKIP: no mpicc.mpich / mpiexec.mpich"; exit 77; }
PROF=
for p in "$B/.libs/librankmap-profile.so" "$B/src/pmpi/.libs/librankmap-profile.so" "$B/librankmap-profile.so"; do
  [ -f "$p" ] && { PROF=$p; break; }
done
[ -n "$PROF" ] || { echo "loop.sh: FAIL: the profiler librankmap-profile.so is not built in $B (src/pmpi)"; exit 1; }
# A profiler built with --enable-sanitizers needs the ASan runtime first in
# the process, which an uninstrumented MPI program preloading it lacks: the
# main (uninstrumented) build runs this test.
# (ldd's output captured first: under pipefail, `ldd | grep -q` fails at
# random when grep exits before ldd has written everything: SIGPIPE.)
prof_deps=$(ldd "$PROF" 2>/dev/null || true)
if [[ $prof_deps == *libasan* ]]; then
  echo "loop.sh: SKIP: $PROF is built with sanitizers and cannot be preloaded into an uninstrumented program"
  exit 77
fi

tmp=$(mktemp -d /tmp/rankmap-loop-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "loop.sh: FAIL: $*"; exit 1; }
json() { sed -n "s/.*\"$2\": \([-0-9.e+]*\).*/\1/p" "$1"; }
MPIRUN_ENV=(env HYDRA_LAUNCHER=fork)
G=4x4x2 N=32 # the grid, the torus and the ranks

echo "== 1. profile a scrambled $G halo exchange ($N ranks, Debian MPICH, profiler $PROF)"
"$MPICC" -O1 -o "$tmp/halo_app" "$S/test/profile/halo_app.c" || fail "cannot compile halo_app.c with $MPICC"
"${MPIRUN_ENV[@]}" RANKMAP_PROFILE="$tmp/app.prof" timeout 300 "$MPIEXEC" -n "$N" \
  -genv LD_PRELOAD "$PROF" -genv RANKMAP_PROFILE "$tmp/app.prof" \
  "$tmp/halo_app" "$G" 20 32768 --expect "$tmp/expect.txt" || fail "profiled run of halo_app"
[ -s "$tmp/app.prof" ] || fail "the profiler wrote no $tmp/app.prof"
head -1 "$tmp/app.prof" | grep -qx 'rankmap-profile 1' || fail "app.prof does not start with 'rankmap-profile 1'"
grep -qE "^tasks +$N\$" "$tmp/app.prof" || fail "app.prof lacks 'tasks $N'"
# The profile's pairs (a profiler may add pairs of its own collectives; the
# halo pairs must be there with the exact counts and bytes, and nothing else
# point-to-point).
awk '$1 == "pair" { print $2, $3, $4, $5 }' "$tmp/app.prof" | sort >"$tmp/got.txt"
sort "$tmp/expect.txt" >"$tmp/want.txt"
if ! cmp -s "$tmp/got.txt" "$tmp/want.txt"; then
  diff "$tmp/want.txt" "$tmp/got.txt" | head -10
  fail "profile pairs differ from the exchange halo_app performed ($(wc -l <"$tmp/want.txt") expected pairs)"
fi
echo "   app.prof: $(wc -l <"$tmp/got.txt") pairs, as the program reports"

echo "== 2. map the profile onto torus:$G"
"$RM" map --profile "$tmp/app.prof" --topology "torus:$G" --out "$tmp/app.map" --json --no-cache \
  >"$tmp/map.json" 2>"$tmp/map.err" || { cat "$tmp/map.err"; fail "rankmap map --profile"; }
cat "$tmp/map.json"
grep -q '"weights": "volume"' "$tmp/map.json" || fail "32 KiB messages should give volume weights"
r_map=$(json "$tmp/map.json" ratio)

echo "== 3. evaluate app.map and the launch order"
"$RM" eval --profile "$tmp/app.prof" --topology "torus:$G" --mapping "$tmp/app.map" --json >"$tmp/eval.json" ||
  fail "rankmap eval app.map"
r_eval=$(json "$tmp/eval.json" ratio)
"$RM" map --profile "$tmp/app.prof" --topology "torus:$G" --algorithm identity --out "$tmp/launch.map" --json \
  --no-cache >"$tmp/launch.json" 2>/dev/null || fail "identity placement"
r_launch=$(json "$tmp/launch.json" ratio)
echo "   F/F_min: mapper $r_map, eval of app.map $r_eval, launch order $r_launch"
[ "$r_eval" = "$r_map" ] || fail "eval of app.map gives $r_eval, the mapper reported $r_map"
awk -v a="$r_map" -v b="$r_launch" 'BEGIN { exit !(a < b) }' || fail "mapper $r_map is not below launch order $r_launch"

echo "== 4. rerun on app.map"
if [ -n "$STAGE" ] && [ -x "$STAGE/bin/mpiexec" ] && [ -f "$STAGE/include/mpix_rankmap.h" ]; then
  "$STAGE/bin/mpicc" -O1 -DHAVE_MPIX_RANKMAP -o "$tmp/halo_app_rm" "$S/test/profile/halo_app.c" ||
    fail "cannot compile halo_app.c with the patched MPICH"
  "${MPIRUN_ENV[@]}" timeout 300 "$STAGE/bin/mpiexec" -n "$N" \
    -genv MPIR_CVAR_RANKMAP_TOPOLOGY "torus:$G" -genv MPIR_CVAR_RANKMAP_MAPPING "$tmp/app.map" \
    -genv LD_PRELOAD "$PROF" -genv RANKMAP_PROFILE "$tmp/rerun.prof" \
    "$tmp/halo_app_rm" "$G" 20 32768 --where "$tmp/where.map" || fail "rerun under the patched MPICH"
  cmp -s <(grep -v '^#' "$tmp/app.map") "$tmp/where.map" ||
    { diff "$tmp/app.map" "$tmp/where.map" | head; fail "the rerun's placement (MPIX_Rank2torus) is not app.map"; }
  "$RM" eval --profile "$tmp/rerun.prof" --topology "torus:$G" --mapping "$tmp/where.map" --json \
    >"$tmp/rerun.json" || fail "rankmap eval of the rerun"
  r_rerun=$(json "$tmp/rerun.json" ratio)
  echo "   rerun placement = app.map; F/F_min of the rerun's traffic on it: $r_rerun (mapper $r_map)"
  [ "$r_rerun" = "$r_map" ] || fail "rerun F/F_min $r_rerun differs from the mapper's $r_map"
else
  # Any MPI: the host file in app.map order (node name = torus coordinates).
  awk '!/^#/ && NF { printf "node-%s-%s-%s\n", $1, $2, $3 }' "$tmp/app.map" >"$tmp/hosts"
  [ "$(wc -l <"$tmp/hosts")" = "$N" ] && [ "$(sort -u "$tmp/hosts" | wc -l)" = "$N" ] ||
    fail "host file from app.map is not $N distinct nodes"
  echo "   no patched MPICH stage: host file for 'mpiexec -f hosts' written ($(head -2 "$tmp/hosts" | tr '\n' ' ')...);"
  echo "   placement check of the rerun needs the stage (pass it as the third argument)"
fi
echo "loop.sh: PASS"

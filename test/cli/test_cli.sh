#!/usr/bin/env bash
# CLI behaviour: map/eval/gen round trip, JSON fields, and bad input giving
# a clear message and a non-zero exit (never a crash).
# usage: test_cli.sh RANKMAP_BINARY FIXTURE_DIR
set -u
rm_bin=$1
fx=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect_error "needle" args...: non-zero exit < 128 (no signal), message contains needle
expect_error() {
  local needle=$1; shift
  "$rm_bin" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ $rc -eq 0 ] || [ $rc -ge 128 ]; then bad "rankmap $* exited $rc"; return; fi
  if ! grep -qF -- "$needle" "$tmp/err"; then bad "rankmap $*: stderr lacks '$needle':"; cat "$tmp/err"; return; fi
  ok
}

# 1. gen -> map -> eval round trip on a scrambled cubic1
if "$rm_bin" gen cubic1 --topology torus:4x4x4 --scramble --seed 3 --out "$tmp/c1.edges" 2>/dev/null; then ok; else bad "gen cubic1"; fi
if "$rm_bin" map --topology torus:4x4x4 --graph "$tmp/c1.edges" --algorithm random --seed 2 --out "$tmp/c1.map" --json >"$tmp/map.json" 2>/dev/null; then ok; else bad "map"; fi
for key in '"algorithm"' '"n": 64' '"F"' '"F_min": 384' '"ratio"' '"seconds"'; do
  grep -qF -- "$key" "$tmp/map.json" && ok || bad "map --json lacks $key: $(cat "$tmp/map.json")"
done
[ "$(grep -vc '^#' "$tmp/c1.map")" = 64 ] && ok || bad "mapfile has not 64 lines"
"$rm_bin" eval --topology torus:4x4x4 --graph "$tmp/c1.edges" --mapping "$tmp/c1.map" --json >"$tmp/eval.json" 2>/dev/null && ok || bad "eval"
F1=$(sed 's/.*"F": \([0-9.e+]*\),.*/\1/' "$tmp/map.json"); F2=$(sed 's/.*"F": \([0-9.e+]*\),.*/\1/' "$tmp/eval.json")
[ "$F1" = "$F2" ] && ok || bad "eval F $F2 differs from map F $F1"
# same seed, same mapping
"$rm_bin" map --topology torus:4x4x4 --graph "$tmp/c1.edges" --algorithm random --seed 2 --out "$tmp/c1b.map" >/dev/null 2>&1
cmp -s "$tmp/c1.map" "$tmp/c1b.map" && ok || bad "same seed gave a different mapfile"

# 2. bad input: clear message naming file/line/setting, non-zero exit
expect_error "bad-rank-out-of-range.edges:4:" map --topology torus:2x2 --graph "$fx/bad-rank-out-of-range.edges"
expect_error "weight -3 is negative" map --topology torus:2x2 --graph "$fx/bad-negative-weight.edges"
expect_error "task 'x' is not a whole number" map --topology torus:2x2 --graph "$fx/bad-non-numeric.edges"
expect_error "header says 2 edges" map --topology torus:2x2 --graph "$fx/bad-wrong-count.graph"
expect_error "is too small" map --topology torus:2x2 --graph "$tmp/c1.edges"
expect_error "unknown algorithm 'sa'" map --topology torus:4x4x4 --graph "$tmp/c1.edges" --algorithm sa
expect_error "unknown kind 'cube'" map --topology cube:4 --graph "$tmp/c1.edges"
expect_error "duplicate coordinate" eval --topology torus:2x2 --graph "$fx/ring-4.edges" --mapping "$fx/bad-duplicate-coord.map"
expect_error "needs --topology" map --graph "$tmp/c1.edges"
expect_error "unknown workload" gen cubic7 --topology torus:2x2 --out "$tmp/x.edges"
expect_error "--seed" map --topology torus:4x4x4 --graph "$tmp/c1.edges" --seed -4
expect_error "cannot open" map --topology torus:2x2 --graph "$tmp/none.edges"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

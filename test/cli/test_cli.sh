#!/usr/bin/env bash
# CLI behaviour: map/eval/gen round trip, JSON fields, the launch files of
# `map --hosts`, and bad input giving a clear message and a non-zero exit
# (never a crash).
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
grep -qF '"predicted_time"' "$tmp/eval.json" && ok || bad "eval --json lacks predicted_time: $(cat "$tmp/eval.json")"
# the model's time by hand: ring-4 on torus:2x2 in rank order routes its four
# messages over six distinct links, so 154e6 B per message on 154 MB/s links
# take 1 s, plus the longest route's 2 hops x 100 ns
"$rm_bin" eval --topology torus:2x2 --graph "$fx/ring-4.edges" --mapping "$fx/torus-2x2-identity.map" \
  --bytes-per-unit 154e6 --json >"$tmp/pred.json" 2>/dev/null && ok || bad "eval --bytes-per-unit"
T=$(sed 's/.*"predicted_time": \([0-9.e+-]*\).*/\1/' "$tmp/pred.json")
awk -v t="$T" 'BEGIN { d = t - 1.0000002; exit !(d < 1e-12 && d > -1e-12) }' && ok ||
  bad "predicted_time $T, expected 1.0000002"
"$rm_bin" eval --topology torus:2x2 --graph "$fx/ring-4.edges" --mapping "$fx/torus-2x2-identity.map" \
  | grep -q '^predicted_time' && ok || bad "eval text output lacks predicted_time"
printf '0 1\n2 x\n' >"$tmp/bad.groups"
expect_error "bad.groups:2: 'x' is not a task number" eval --topology torus:2x2 --graph "$fx/ring-4.edges" \
  --mapping "$fx/torus-2x2-identity.map" --alltoall "$tmp/bad.groups"
expect_error "--bandwidth" eval --topology torus:2x2 --graph "$fx/ring-4.edges" \
  --mapping "$fx/torus-2x2-identity.map" --bandwidth 0
# a fat tree's routes (tree:...:up=U): the same step of a transpose, task i
# -> task i + 2 (mod 8) on tree:4x2:up=2, costs one uplink's message in
# launch order and two when hosts 3 and 4 are exchanged (D-mod-K: both
# senders of leaf switch 0 then leave on uplink 0); F is the same
printf '# tasks: 8\n' >"$tmp/step.edges"
for i in 0 1 2 3 4 5 6 7; do echo "$i $(( (i + 2) % 8 )) 125e6" >>"$tmp/step.edges"; done
printf '0 0\n0 1\n1 0\n1 1\n2 0\n2 1\n3 0\n3 1\n' >"$tmp/ft-launch.map"
printf '0 0\n0 1\n1 0\n2 0\n1 1\n2 1\n3 0\n3 1\n' >"$tmp/ft-swapped.map"
pt() { sed 's/.*"predicted_time": \([0-9.e+-]*\).*/\1/' "$1"; }
for m in launch swapped; do
  "$rm_bin" eval --topology tree:4x2:up=2 --graph "$tmp/step.edges" --mapping "$tmp/ft-$m.map" --json \
    >"$tmp/ft-$m.json" 2>/dev/null && ok || bad "eval on tree:4x2:up=2 ($m)"
done
awk -v a="$(pt "$tmp/ft-launch.json")" -v b="$(pt "$tmp/ft-swapped.json")" \
  'BEGIN { exit !(a > 0.999 && a < 1.01 && b > 1.999 && b < 2.01) }' && ok ||
  bad "fat tree: predicted $(pt "$tmp/ft-launch.json") s in launch order, $(pt "$tmp/ft-swapped.json") s swapped (expected 1 and 2)"
expect_error "the hosts' tier and those inside it have no up=" eval --topology tree:2x2:up=2,2 \
  --graph "$fx/ring-4.edges" --mapping "$fx/torus-2x2-identity.map"
# a grid whose traffic is not declared (--cart-alltoall unknown), decided as
# in the call: on a fat tree in block order its stencil order would split
# the rows' all-to-alls, so rank order stays and the guard says why;
# declared a stencil (none), its blocks per host would send every direction
# off the host where rank order keeps a row's two directions inside, so rank
# order stays too
"$rm_bin" map --topology tree:4x4x8:cost=100,10,1:up=4 --cart 16x8:00 --cart-alltoall unknown --no-cache \
  >"$tmp/undeclared.txt" 2>&1 && grep -q '^algorithm *identity (no gain)' "$tmp/undeclared.txt" &&
  grep -q 'as transposes.*not declared' "$tmp/undeclared.txt" && ok || bad "--cart-alltoall unknown: $(cat "$tmp/undeclared.txt")"
"$rm_bin" map --topology tree:4x4x8:cost=100,10,1:up=4 --cart 16x8:00 --cart-alltoall none --no-cache \
  >"$tmp/stencil.txt" 2>&1 && grep -q '^algorithm *identity (no gain)' "$tmp/stencil.txt" &&
  grep -q 'slower for small messages sent one direction at a time' "$tmp/stencil.txt" && ok ||
  bad "--cart-alltoall none: $(cat "$tmp/stencil.txt")"
# the transposes of a 32x4 grid in rank order on a dragonfly of 8 groups:
# with minimal routes declared the tasks spread over the groups are taken
# (every pairwise step of the columns loads one global link per group in
# rank order); with the routing not declared, adaptive routing would favour
# rank order, the readings disagree and rank order stays, naming the setting
"$rm_bin" map --topology dragonfly:8x1x8x1x2:valiant=0 --cart 32x4:00 --cart-alltoall all --no-cache \
  >"$tmp/df-min.txt" 2>&1 && grep -q '^algorithm *spread (dragonfly)' "$tmp/df-min.txt" &&
  grep -q 'spread over the groups taken instead of rank order' "$tmp/df-min.txt" && ok ||
  bad "dragonfly, minimal routes declared: $(cat "$tmp/df-min.txt")"
"$rm_bin" map --topology dragonfly:8x1x8x1x2 --cart 32x4:00 --cart-alltoall all --no-cache \
  >"$tmp/df-undeclared.txt" 2>&1 && grep -q '^algorithm *identity (no gain)' "$tmp/df-undeclared.txt" &&
  grep -q 'spread over the groups: slower for large messages if the dragonfly routes adaptively.*:valiant=' \
    "$tmp/df-undeclared.txt" && ok || bad "dragonfly, routing not declared: $(cat "$tmp/df-undeclared.txt")"
# a round-robin launch (rank r on host r mod 16) of an 8x8x8 stencil on 16
# hosts of 32 cores: the mapping's blocks would cross switches in every
# direction at a time and are refused, but the machine's own order (cores of
# a host first) is no slower in any reading and is taken instead
"$rm_bin" gen cubic1 --topology torus:8x8x8 --out "$tmp/st512.edges" >/dev/null 2>&1 && ok || bad "gen cubic1 8x8x8"
awk 'BEGIN { for (r = 0; r < 512; ++r) { h = r % 16; print int(h / 4), h % 4, int(r / 16) } }' >"$tmp/rr512.map"
awk 'BEGIN { for (r = 0; r < 512; ++r) { h = int(r / 32); print int(h / 4), h % 4, r % 32 } }' >"$tmp/blk512.map"
"$rm_bin" map --topology tree:4x4x32:cost=100,10,1:up=2 --graph "$tmp/st512.edges" --current "$tmp/rr512.map" \
  --no-cache --out "$tmp/rr512-out.map" >"$tmp/rr512.txt" 2>&1 &&
  grep -q "^algorithm *identity (the machine's order)" "$tmp/rr512.txt" &&
  grep -q "the machine's order taken instead of" "$tmp/rr512.txt" && cmp -s "$tmp/rr512-out.map" "$tmp/blk512.map" &&
  ok || bad "round-robin launch: $(cat "$tmp/rr512.txt")"
# from that block order itself nothing is taken (the machine's order is the current one)
"$rm_bin" map --topology tree:4x4x32:cost=100,10,1:up=2 --graph "$tmp/st512.edges" --current "$tmp/blk512.map" \
  --no-cache >"$tmp/blk512.txt" 2>&1 && grep -q '^algorithm *identity (no gain)' "$tmp/blk512.txt" && ok ||
  bad "block launch: $(cat "$tmp/blk512.txt")"
expect_error "--trace needs a declared --cart-alltoall" map --topology torus:4x4 --cart 4x4 --cart-alltoall unknown \
  --trace "$tmp/t.txt"
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

# 2b. --portfolio K: the call's K searches one after another and its
# election (rankmap_glue.h): the winner's F is within the guard's margin
# (2 %) of the lowest member F, and no member within that margin has a lower
# predicted time for large messages; the same result twice.  (On this
# UMT-like graph member 1 wins: its F is 1.7 % above member 0's, its busiest
# link 8 % lighter.)
"$rm_bin" gen umt --topology torus:4x4x4 --out "$tmp/umt.edges" 2>/dev/null && ok || bad "gen umt"
pf() { "$rm_bin" map --topology torus:4x4x4 --graph "$tmp/umt.edges" --portfolio 4 --no-cache --json -v --out "$tmp/pf$1.map" \
       >"$tmp/pf$1.json" 2>"$tmp/pf$1.err"; }
if pf 1 && pf 2; then
  w=$(sed -n 's/.*"portfolio_winner": \([0-9]*\).*/\1/p' "$tmp/pf1.json")
  grep -qF '"portfolio": 4' "$tmp/pf1.json" && [ -n "$w" ] && ok || bad "--portfolio --json lacks portfolio, portfolio_winner: $(cat "$tmp/pf1.json")"
  sed -n 's/^rankmap: portfolio member \([0-9]*\): F\/F_min \([0-9.]*\), busiest link [0-9.e+]*, \([0-9.e+-]*\) s for 1 MiB.*/\1 \2 \3/p' \
    "$tmp/pf1.err" >"$tmp/members"
  [ "$(wc -l <"$tmp/members")" = 4 ] && ok || bad "--portfolio 4 -v: not 4 member lines: $(cat "$tmp/pf1.err")"
  awk -v w="$w" '{ f[$1] = $2; t[$1] = $3; if (NR == 1 || $2 < lo) lo = $2 }
       END { if (f[w] > 1.02 * lo) exit 1
             for (i in f) if (f[i] <= 1.02 * lo && (t[i] < t[w] || (t[i] == t[w] && i + 0 < w + 0))) exit 1 }' \
    "$tmp/members" && ok || bad "--portfolio: member $w is not the election's winner: $(cat "$tmp/members")"
  cmp -s "$tmp/pf1.map" "$tmp/pf2.map" && ok || bad "--portfolio: two runs differ"
else
  bad "map --portfolio 4 failed: $(cat "$tmp/pf1.err" "$tmp/pf2.err" 2>/dev/null | tail -3)"
fi
# 2c. The members run the call's strategy (fast; quality only from the
# cache): above 1024 tasks the two differ, and member 0, with the seed
# itself, is `--algorithm fast`'s search.
"$rm_bin" gen umt --topology torus:12x12x8 --out "$tmp/u1152.edges" 2>/dev/null && ok || bad "gen umt 1152"
fast=$("$rm_bin" map --topology torus:12x12x8 --graph "$tmp/u1152.edges" --algorithm fast --no-cache --json \
       --out "$tmp/fast.map" 2>/dev/null | sed -n 's/.*"ratio": \([0-9.]*\).*/\1/p')
m0=$("$rm_bin" map --topology torus:12x12x8 --graph "$tmp/u1152.edges" --portfolio 2 --no-cache -v \
     --out "$tmp/pf1152.map" 2>&1 >/dev/null | sed -n 's/^rankmap: portfolio member 0: F\/F_min \([0-9.]*\),.*(fast, [0-9.]* s)$/\1/p')
[ -n "$fast" ] && [ "$fast" = "$m0" ] && ok || bad "--portfolio member 0 is not the fast search: F/F_min '$m0', fast '$fast'"
expect_error "--portfolio '0' must be a whole number in 1..4096" map --topology torus:4x4x4 --graph "$tmp/umt.edges" --portfolio 0
expect_error "--trace follows one search" map --topology torus:4x4x4 --graph "$tmp/umt.edges" --portfolio 2 --trace "$tmp/t"

# 3. launch files (--hosts with --rank-order/--hostfile/--ompi-hostfile/--rankfile):
# every file is checked against the mapfile of the same run.  check_launch
# TOPOLOGY GRAPH NAME: maps with all four files, then derives from the
# mapfile (node = x * ny + y on a 2-D torus of 2x2) what each must hold.
printf 'h0\nh1  # comment\n\nh2\nh3\n' >"$tmp/hosts"
check_launch() {
  local topo=$1 graph=$2 name=$3 d=$tmp/$3
  mkdir -p "$d"
  if ! "$rm_bin" map --topology "$topo" --graph "$graph" --algorithm random --seed 5 --out "$d/map" \
       --hosts "$tmp/hosts" --rank-order "$d/ro" --hostfile "$d/hy" --ompi-hostfile "$d/om" --rankfile "$d/rf" \
       >"$d/out" 2>"$d/err"; then bad "$name: map with launch files failed: $(cat "$d/err")"; return; fi
  # the host of every rank, from the mapfile and the hosts file (h<node>)
  awk '!/^#/ && NF { print "h" ($1 * 2 + $2) }' "$d/map" >"$d/want-host"
  # its slot: how many lower ranks share its node
  awk '!/^#/ && NF { v = $1 * 2 + $2; print "h" v, n[v]++ }' "$d/map" >"$d/want-slot"
  [ "$(wc -l <"$d/want-host")" -gt 0 ] && ok || bad "$name: empty mapfile"
  cmp -s "$d/om" "$d/want-host" && ok || bad "$name: --ompi-hostfile line r is not the host of rank r"
  awk -F: '{ for (i = 0; i < $2; i++) print $1 }' "$d/hy" | cmp -s - "$d/want-host" && ok ||
    bad "$name: --hostfile host:k lines do not put rank r on its node: $(tr '\n' ' ' <"$d/hy")"
  awk '$1 != "rank" || NF != 3 || $3 !~ /^slot=[0-9]+$/ { exit 1 }
       { split($2, a, "="); if (a[1] != NR - 1) exit 1; sub(/^slot=/, "", $3); print a[2], $3 }' "$d/rf" >"$d/got-slot" &&
    cmp -s "$d/got-slot" "$d/want-slot" && ok ||
    bad "$name: --rankfile is not 'rank r=host slot=s' in rank order with the mapfile's nodes"
  # rank order: line k lists, ascending, the ranks whose node is k
  awk '{ v = substr($1, 2); r[v] = r[v] (r[v] == "" ? "" : ",") (NR - 1) } END { for (k = 0; k < 4; k++) print r[k] }' \
    "$d/want-host" | cmp -s - "$d/ro" && ok || bad "$name: --rank-order lines are not the ranks of node k: $(tr '\n' ' ' <"$d/ro")"
  for launch in "launch: MPICH_RANK_REORDER_METHOD=3 MPICH_RANK_REORDER_FILE=$d/ro" "launch: mpiexec -f $d/hy" \
                "launch: mpirun --hostfile $d/om --map-by seq" "launch: mpirun --rankfile $d/rf"; do
    grep -qF -- "$launch" "$d/err" && ok || bad "$name: stderr lacks '$launch'"
  done
}
check_launch torus:2x2 "$fx/ring-4.edges" one-per-node
"$rm_bin" gen cubic1 --topology torus:2x2:slots=2 --tasks 8 --grid 2x2x2 --out "$tmp/c8.edges" 2>/dev/null && ok || bad "gen 8 tasks"
check_launch torus:2x2:slots=2 "$tmp/c8.edges" two-slots
grep -q ' slot=1$' "$tmp/two-slots/rf" && ok || bad "two-slots: no rank has slot 1"
# with --json the report stays one JSON object: launch lines go to stderr
"$rm_bin" map --topology torus:2x2 --graph "$fx/ring-4.edges" --json --hosts "$tmp/hosts" --hostfile "$tmp/j.hy" \
  >"$tmp/j.json" 2>"$tmp/j.err" && python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/j.json" &&
  grep -q "launch: mpiexec -f" "$tmp/j.err" && ok || bad "--json with --hostfile: stdout is not one JSON object"
# 6 tasks on 4 nodes of 2 slots: Hydra's file works, Cray's needs equal nodes
"$rm_bin" gen cubic1 --topology torus:2x2:slots=2 --tasks 6 --grid 3x2 --out "$tmp/c6.edges" 2>/dev/null && ok || bad "gen 6 tasks"
"$rm_bin" map --topology torus:2x2:slots=2 --graph "$tmp/c6.edges" --hosts "$tmp/hosts" --hostfile "$tmp/c6.hy" >/dev/null 2>&1 &&
  [ "$(awk -F: '{ s += $2 } END { print s }' "$tmp/c6.hy")" = 6 ] && ok || bad "6 tasks: --hostfile does not hold 6 ranks"
expect_error "Cray fills every node with the same number of ranks" \
  map --topology torus:2x2:slots=2 --graph "$tmp/c6.edges" --hosts "$tmp/hosts" --rank-order "$tmp/c6.ro"
# bad --hosts files: the file and line, or the count
printf 'h0\nh1\nh2\n' >"$tmp/hosts-short"
expect_error "hosts-short': 3 host names (to line 3) for the 4 nodes" \
  map --topology torus:2x2 --graph "$fx/ring-4.edges" --hosts "$tmp/hosts-short" --hostfile "$tmp/x"
printf 'h0\nh1 extra\nh2\nh3\n' >"$tmp/hosts-two-words"
expect_error "hosts-two-words:2: expected one host name per line, found 'h1 extra'" \
  map --topology torus:2x2 --graph "$fx/ring-4.edges" --hosts "$tmp/hosts-two-words" --rankfile "$tmp/x"
printf 'h0\nh1:2\nh2\nh3\n' >"$tmp/hosts-colon"
expect_error "hosts-colon:2: expected one host name per line, found 'h1:2'" \
  map --topology torus:2x2 --graph "$fx/ring-4.edges" --hosts "$tmp/hosts-colon" --hostfile "$tmp/x"
printf 'h0\nh1\n\nh0\nh3\n' >"$tmp/hosts-dup"
expect_error "hosts-dup:4: host 'h0' already names node 0 at line 1" \
  map --topology torus:2x2 --graph "$fx/ring-4.edges" --hosts "$tmp/hosts-dup" --ompi-hostfile "$tmp/x"
printf 'h0\nh1\nh2\nh3\nh4\n' >"$tmp/hosts-long"
expect_error "hosts-long:5: more host names than the 4 nodes" \
  map --topology torus:2x2 --graph "$fx/ring-4.edges" --hosts "$tmp/hosts-long" --rank-order "$tmp/x"
expect_error "cannot open" map --topology torus:2x2 --graph "$fx/ring-4.edges" --hosts "$tmp/none" --hostfile "$tmp/x"
expect_error "need --hosts" map --topology torus:2x2 --graph "$fx/ring-4.edges" --hostfile "$tmp/x"
expect_error "--hosts goes with" map --topology torus:2x2 --graph "$fx/ring-4.edges" --hosts "$tmp/hosts"
[ ! -e "$tmp/x" ] && ok || bad "a launch file was written although --hosts was bad"

# the messages' sizes reach the guard: a grid's phases are then judged by
# their time at those sizes, without them by distance; bad sizes are usage
# errors naming the option
"$rm_bin" gen cubic1 --topology torus:4x4x4 --out "$tmp/grid.edges" 2>/dev/null && ok || bad "gen cubic1 (grid)"
"$rm_bin" map --topology tree:8x8:cost=100,1 --graph "$tmp/grid.edges" --no-cache --seed 1 >"$tmp/g-plain" 2>&1
grep -q "one direction at a time: distance" "$tmp/g-plain" && ok || bad "map without sizes: $(grep guard "$tmp/g-plain")"
"$rm_bin" map --topology tree:8x8:cost=100,1 --graph "$tmp/grid.edges" --no-cache --seed 1 --bytes-per-unit 1e5 \
  --bandwidth 12.5e9,37.5e9 --latency 1e-6,0.3e-6 >"$tmp/g-sized" 2>&1
grep -q "one direction at a time at the given sizes" "$tmp/g-sized" && ok ||
  bad "map --bytes-per-unit: $(grep guard "$tmp/g-sized")"
expect_error "--bandwidth and --latency need the messages' sizes" map --topology tree:8x8:cost=100,1 \
  --graph "$tmp/grid.edges" --no-cache --bandwidth 1e9,1e9
expect_error "--bytes-per-unit '0' must be > 0" map --topology tree:8x8:cost=100,1 --graph "$tmp/grid.edges" \
  --no-cache --bytes-per-unit 0
expect_error "model: bandwidth needs 2 value(s)" map --topology tree:8x8:cost=100,1 --graph "$tmp/grid.edges" \
  --no-cache --bytes-per-unit 1 --bandwidth 1e9
expect_error "go with --graph or --profile" map --topology tree:8x8:cost=100,1 --cart 8x8 --cart-alltoall none \
  --no-cache --bytes-per-unit 1

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

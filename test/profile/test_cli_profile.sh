#!/usr/bin/env bash
# test_cli_profile.sh RANKMAP FIXTURES -- the CLI side of issue 5:
# map/eval --profile with the weight choice, --cache (wisdom), and
# `rankmap plot` (PNG and SVG; bad input gives file:line errors).
set -uo pipefail
RM=${1:?usage: test_cli_profile.sh RANKMAP FIXTURES}
FX=${2:?usage: test_cli_profile.sh RANKMAP FIXTURES}
tmp=$(mktemp -d /tmp/rankmap-cli-profile-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0 passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
has() { grep -qF -- "$2" "$1" && ok || bad "$3: '$2' not in: $(head -c 600 "$1")"; }

# ---- map --profile: weight choice printed, with its reason ----------------------
"$RM" map --profile "$FX/ring-8-small.prof" --topology torus:2x2x2 --algorithm greedy --no-cache \
  >"$tmp/out.txt" 2>"$tmp/err.txt" && ok || bad "map --profile ring-8-small: $(cat "$tmp/err.txt")"
has "$tmp/out.txt" "weights        count: median message size 12 B over 810 messages (from the size histogram) < threshold 16384 B: latency-bound" "auto weights"
"$RM" map --profile "$FX/pairs-4-large.prof" --topology torus:2x2 --no-cache --json >"$tmp/j.json" 2>/dev/null &&
  ok || bad "map --profile pairs-4-large"
has "$tmp/j.json" '"weights": "volume"' "large messages -> volume"
has "$tmp/j.json" '"median_bytes": 1048576' "median from pair means"
has "$tmp/j.json" '"cache": "off"' "--no-cache"
"$RM" map --profile "$FX/pairs-4-large.prof" --topology torus:2x2 --no-cache --threshold 4e6 --json \
  >"$tmp/j2.json" 2>/dev/null && ok || bad "--threshold"
has "$tmp/j2.json" '"weights": "count"' "threshold above the median -> count"
"$RM" map --profile "$FX/ring-8-small.prof" --topology torus:2x2x2 --weights volume --no-cache >"$tmp/f.txt" 2>/dev/null &&
  ok || bad "--weights volume"
has "$tmp/f.txt" "weights        volume: forced by the user" "forced weights"

# count vs volume give different F: (0,4) carries 10 messages but 163840 bytes
Fc=$("$RM" eval --profile "$FX/ring-8-small.prof" --weights count --topology torus:8 --mapping /dev/stdin --json \
  < <(seq 0 7) | sed 's/.*"F": \([0-9.e+]*\),.*/\1/')
Fv=$("$RM" eval --profile "$FX/ring-8-small.prof" --weights volume --topology torus:8 --mapping /dev/stdin --json \
  < <(seq 0 7) | sed 's/.*"F": \([0-9.e+]*\),.*/\1/')
# identity on an 8-ring: 8 ring pairs at distance 1 (+ wrap 7->0 at 1), (0,4) at 4
[ "$Fc" = 840 ] && ok || bad "eval --weights count: F=$Fc, expected 8*100*1 + 10*4 = 840"
[ "$Fv" = 668160 ] && ok || bad "eval --weights volume: F=$Fv, expected 8*1600*1 + 163840*4 = 668160"
# MPICH's coordinates file through a pipe (read once): ranks 0..7 one per
# host of dragonfly:2x1x2x2 (2 groups x 2 switches x 2 hosts), in block order,
# is the same placement as block order given by its node list.
Fd=$("$RM" eval --profile "$FX/ring-8-small.prof" --weights count --topology dragonfly:2x1x2x2 --mapping /dev/stdin \
  --json < <(for r in 0 1 2 3 4 5 6 7; do echo "$r: $((r / 4)) $((r / 2 % 2)) $((r % 2))"; done) |
  sed 's/.*"F": \([0-9.e+]*\),.*/\1/')
Fb=$("$RM" eval --profile "$FX/ring-8-small.prof" --weights count --topology dragonfly:2x1x2x2 --mapping /dev/stdin \
  --json < <(seq 0 7 | awk '{print int($1/4), 0, int($1/2)%2, $1%2}') | sed 's/.*"F": \([0-9.e+]*\),.*/\1/')
[ -n "$Fd" ] && [ "$Fd" = "$Fb" ] && ok || bad "coordinates file on stdin: F=$Fd, mapfile of the same hosts F=$Fb"

# ---- bad input: file:line errors, exit 1; usage errors, exit 2 -----------------
"$RM" map --profile "$FX/bad-duplicate-pair.prof" --topology torus:2x2 >/dev/null 2>"$tmp/e1.txt"
[ $? = 1 ] && ok || bad "bad profile exit status"
has "$tmp/e1.txt" "rankmap: error: $FX/bad-duplicate-pair.prof:5: pair 0 -> 1 already given at line 3" "duplicate pair message"
"$RM" map --profile "$FX/ring-8-small.prof" --topology torus:2x2x2 --weights bytes >/dev/null 2>"$tmp/e2.txt"
[ $? = 1 ] && ok || bad "--weights bytes exit status"
has "$tmp/e2.txt" "weights 'bytes' is unknown (auto, count or volume)" "--weights message"
"$RM" map --profile "$FX/ring-8-small.prof" --topology torus:2x2x2 --threshold -3 >/dev/null 2>"$tmp/e3.txt"
[ $? = 2 ] && ok || bad "--threshold -3 exit status"
"$RM" map --profile "$FX/ring-8-small.prof" --graph x.edges --topology torus:2x2x2 >/dev/null 2>&1
[ $? = 2 ] && ok || bad "--graph and --profile together"

# ---- the cache: miss, hit, corrupt entry ------------------------------------------
"$RM" gen cubic1 --topology torus:4x4x4 --scramble --out "$tmp/c1.edges" 2>/dev/null || bad "gen"
W=$tmp/wisdom
"$RM" map --graph "$tmp/c1.edges" --topology torus:4x4x4 --algorithm greedy --cache "$W" --out "$tmp/m1.map" \
  >"$tmp/c1.txt" 2>&1 && ok || bad "map --cache (miss)"
has "$tmp/c1.txt" "cache          miss, stored $W/" "miss reported"
RANKMAP_WISDOM=$W "$RM" map --graph "$tmp/c1.edges" --topology torus:4x4x4 --algorithm greedy --out "$tmp/m2.map" \
  >"$tmp/c2.txt" 2>&1 && ok || bad "map with RANKMAP_WISDOM (hit)"
has "$tmp/c2.txt" "cache          hit $W/" "hit reported"
cmp -s "$tmp/m1.map" "$tmp/m2.map" && ok || bad "the hit wrote a different mapfile"
entry=$(ls "$W"/*.wisdom)
printf 'garbage' | dd of="$entry" bs=1 seek=140 conv=notrunc 2>/dev/null
"$RM" map --graph "$tmp/c1.edges" --topology torus:4x4x4 --algorithm greedy --cache "$W" --out "$tmp/m3.map" \
  >"$tmp/c3.txt" 2>"$tmp/c3.err" && ok || bad "map with a corrupt entry must still map"
has "$tmp/c3.err" "rankmap: warning: wisdom entry '$entry': checksum mismatch (corrupt entry); ignored, mapping again" "corrupt warning"
has "$tmp/c3.txt" "cache          miss" "corrupt entry = miss"
cmp -s "$tmp/m1.map" "$tmp/m3.map" && ok || bad "recomputed mapping differs"
"$RM" map --graph "$tmp/c1.edges" --topology torus:4x4x4 --algorithm greedy --cache "$W" >"$tmp/c4.txt" 2>&1
has "$tmp/c4.txt" "cache          hit" "entry rewritten after corruption"
"$RM" map --graph "$tmp/c1.edges" --topology torus:4x4x4 --cache "" >/dev/null 2>&1
[ $? = 2 ] && ok || bad "--cache '' is a usage error"

# ---- rankmap plot -------------------------------------------------------------------
if "${RANKMAP_PYTHON:-/usr/bin/python3}" -c 'import matplotlib' 2>/dev/null; then
  export RANKMAP_PYTHON=${RANKMAP_PYTHON:-/usr/bin/python3}
  "$RM" map --graph "$tmp/c1.edges" --topology torus:4x4x4 --algorithm anneal --trace "$tmp/trace.txt" --no-cache \
    --out "$tmp/a.map" >/dev/null 2>&1 || bad "map --trace"
  "$RM" map --graph "$tmp/c1.edges" --topology torus:4x4x4 --algorithm identity --no-cache --out "$tmp/id.map" \
    >/dev/null 2>&1 || bad "identity map"
  "$RM" plot matrix --profile "$FX/ring-8-small.prof" --out "$tmp/m.png" 2>/dev/null && ok || bad "plot matrix --profile"
  "$RM" plot matrix --graph "$tmp/c1.edges" --out "$tmp/m.svg" 2>/dev/null && ok || bad "plot matrix --graph svg"
  "$RM" plot placement --topology torus:4x4x4 --before "$tmp/id.map" --mapping "$tmp/a.map" --color cart:4x4x4 \
    --out "$tmp/p.png" 2>/dev/null && ok || bad "plot placement"
  "$RM" plot placement --topology torus:4x4x4 --mapping "$tmp/a.map" --style scatter --out "$tmp/p.svg" 2>/dev/null &&
    ok || bad "plot placement scatter"
  "$RM" plot convergence --trace "$tmp/trace.txt" --out "$tmp/t.png" 2>/dev/null && ok || bad "plot convergence"
  for f in m.png p.png t.png; do
    [ "$(head -c 8 "$tmp/$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] && ok || bad "$f is not a PNG"
  done
  for f in m.svg p.svg; do grep -q '<svg' "$tmp/$f" && ok || bad "$f is not an SVG"; done
  printf '# step beta ratio acceptance\n0 1.5 2.0 0.2\n1 x 1.9 0.1\n' >"$tmp/bad-trace.txt"
  "$RM" plot convergence --trace "$tmp/bad-trace.txt" --out "$tmp/b.png" 2>"$tmp/pe.txt"
  [ $? = 1 ] && ok || bad "bad trace exit status"
  has "$tmp/pe.txt" "rankmap plot: error: $tmp/bad-trace.txt:3: 'x' is not a number" "bad trace message"
  "$RM" plot placement --topology torus:4x4x4 --mapping "$FX/../../fixtures/torus-2x2-identity.map" --out "$tmp/x.png" \
    2>"$tmp/pe2.txt"
  [ $? = 1 ] && ok || bad "mapfile of the wrong shape exit status"
  has "$tmp/pe2.txt" "torus-2x2-identity.map:1: expected 3 coordinates" "wrong-shape mapfile message"
else
  echo "SKIP: plots (no matplotlib for ${RANKMAP_PYTHON:-/usr/bin/python3})"
fi

echo "test_cli_profile: $passes passed, $fails failed"
[ "$fails" = 0 ]

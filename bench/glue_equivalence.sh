#!/bin/sh
# bench/glue_equivalence.sh BASE_RANKMAP NEW_RANKMAP -- the decisions of
# rankmap_reorder_ranks (src/capi/reorder.cpp) compared between two builds.
# `rankmap map` decides as inside an MPI call (src/cli/main.cpp,
# decide_as_in_call) for a grid whose traffic is not declared
# (--cart DIMS:PERIODS --cart-alltoall unknown) and for a graph of
# equal-weight cliques without --alltoall on a machine it fills; each case
# runs on both binaries with --no-cache --seed 1 --out FILE, and the output
# mapfiles (md5) and the text reports (every line but the times:
# algorithm, F, link load, the guard's note, the portfolio's winner) must be
# identical.  Graphs of `rankmap gen` (not cliques, so decided by the CLI's
# own guard) are compared too, as controls.  Prints a Markdown table, one
# row per case, and a summary; exits 1 when any case differs.
set -eu
[ $# -eq 2 ] || { echo "usage: bench/glue_equivalence.sh BASE_RANKMAP NEW_RANKMAP" >&2; exit 2; }
base=$1 new=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the transposes of a grid given as a graph: every pair of a line along
# dimension d joined by W / dims[d] (W = the product of the extents), both
# directions -- the cliques of rankmap_graph_cartesian_alltoall "all"
cliques() {
  echo "$1" | awk -F x '{
    nd = NF; W = 1
    for (k = 1; k <= nd; ++k) { d[k] = $k; W *= $k }
    n = W; s[nd] = 1
    for (k = nd - 1; k >= 1; --k) s[k] = s[k + 1] * d[k + 1]
    print "# tasks: " n
    for (t = 0; t < n; ++t)
      for (k = 1; k <= nd; ++k) {
        c = int(t / s[k]) % d[k]
        for (x = c + 1; x < d[k]; ++x) {
          u = t + (x - c) * s[k]
          print t, u, W / d[k]; print u, t, W / d[k]
        }
      }
  }'
}
# a round-robin launch: rank r on host r mod H of a tree whose last tier
# has C cores (hosts = the other tiers, in row-major order)
round_robin() {  # TIERS (e.g. 4x4x8)
  echo "$1" | awk -F x '{
    nd = NF; C = $nd; H = 1
    for (k = 1; k < nd; ++k) H *= $k
    for (r = 0; r < H * C; ++r) {
      h = r % H; line = ""
      for (k = nd - 1; k >= 1; --k) { line = (h % $k) (line == "" ? "" : " " line); h = int(h / $k) }
      print line, int(r / H)
    }
  }'
}

# rank r on node P-1-r (REVERSED) or on a node of a fixed shuffle of the
# machine's nodes (SHUFFLED), coordinates row-major over DIMS: member 0
# away from node 0, so that keeping rank 0 needs a symmetry or an exchange
placed() {  # DIMS reversed|shuffled
  echo "$1" | awk -F x -v how="$2" '{
    nd = NF; P = 1
    for (k = 1; k <= nd; ++k) P *= $k
    for (v = 0; v < P; ++v) node[v] = how == "reversed" ? P - 1 - v : v
    if (how == "shuffled") {
      srand(1)
      for (v = P - 1; v > 0; --v) { j = int(rand() * (v + 1)); x = node[v]; node[v] = node[j]; node[j] = x }
    }
    for (r = 0; r < P; ++r) {
      v = node[r]; line = ""
      for (k = nd; k >= 1; --k) { line = (v % $k) (line == "" ? "" : " " line); v = int(v / $k) }
      print line
    }
  }'
}

t16x8=tree:16x8:cost=100,1
t448u4=tree:4x4x8:cost=100,10,1:up=4
t448u2=tree:4x4x8:cost=100,10,1:up=2
t4432=tree:4x4x32:cost=100,10,1:up=2
cliques 16x8 >"$tmp/tr16x8.edges"
cliques 8x8x8 >"$tmp/tr8x8x8.edges"
cliques 4x4x4 >"$tmp/tr4x4x4.edges"
cliques 128 >"$tmp/a2a128.edges"
round_robin 16x8 >"$tmp/rr16x8.map"
round_robin 4x4x8 >"$tmp/rr4x4x8.map"
round_robin 4x4x32 >"$tmp/rr4x4x32.map"
for d in 16x8 4x4x8 4x4x4 4x4x2 8x8x8; do
  placed $d reversed >"$tmp/rev$d.map"
  placed $d shuffled >"$tmp/shuf$d.map"
done
for w in cubic1 sage umt; do "$base" gen $w --topology torus:4x4x4 --out "$tmp/$w.edges" >/dev/null 2>&1; done

# one case a line: TOPOLOGY and the rest of the `rankmap map` arguments
cat >"$tmp/cases" <<EOF
$t16x8 --cart 16x8:00 --cart-alltoall unknown
$t16x8 --cart 16x8:11 --cart-alltoall unknown
$t16x8 --cart 32x4:00 --cart-alltoall unknown
$t16x8 --cart 32x4:11 --cart-alltoall unknown
$t16x8 --cart 8x16:00 --cart-alltoall unknown
$t16x8 --cart 8x16:11 --cart-alltoall unknown
$t16x8 --cart 4x32:00 --cart-alltoall unknown
$t16x8 --cart 4x32:11 --cart-alltoall unknown
$t16x8 --cart 16x8:00 --cart-alltoall unknown --current $tmp/rr16x8.map
$t16x8 --cart 8x16:11 --cart-alltoall unknown --current $tmp/rr16x8.map
$t448u4 --cart 16x8:00 --cart-alltoall unknown
$t448u4 --cart 16x8:11 --cart-alltoall unknown
$t448u4 --cart 8x16:00 --cart-alltoall unknown
$t448u4 --cart 32x4:00 --cart-alltoall unknown
$t448u4 --cart 4x32:11 --cart-alltoall unknown
$t448u4 --cart 16x8:00 --cart-alltoall unknown --current $tmp/rr4x4x8.map
$t448u4 --cart 16x8:00 --cart-alltoall unknown --guard f
$t448u4 --cart 16x8:00 --cart-alltoall unknown --guard off
$t448u2 --cart 16x8:00 --cart-alltoall unknown
$t448u2 --cart 16x8:11 --cart-alltoall unknown
$t448u2 --cart 8x16:11 --cart-alltoall unknown
$t448u2 --cart 32x4:11 --cart-alltoall unknown
$t448u2 --cart 4x32:00 --cart-alltoall unknown
$t448u2 --cart 8x16:00 --cart-alltoall unknown --current $tmp/rr4x4x8.map
$t448u2 --cart 16x8:00 --cart-alltoall unknown --portfolio 4
$t4432 --cart 8x8x8:000 --cart-alltoall unknown
$t4432 --cart 8x8x8:111 --cart-alltoall unknown
$t4432 --cart 8x8x8:000 --cart-alltoall unknown --current $tmp/rr4x4x32.map
$t4432 --cart 8x8x8:111 --cart-alltoall unknown --current $tmp/rr4x4x32.map --portfolio 4
torus:8x8x8 --cart 8x8x8:111 --cart-alltoall unknown
torus:8x8x8 --cart 8x8x8:000 --cart-alltoall unknown
torus:8x8x8 --cart 8x8x8:111 --cart-alltoall unknown --portfolio 4
torus:4x4x4 --cart 4x4x4:111 --cart-alltoall unknown
torus:4x4x4 --cart 4x4x4:000 --cart-alltoall unknown
torus:4x4x4 --cart 16x4:11 --cart-alltoall unknown
torus:4x4x4 --cart 4x4x4:111 --cart-alltoall unknown --guard off
torus:4x4x4:wrap=100 --cart 4x4x4:000 --cart-alltoall unknown --guard off
torus:4x4x2:local=1 --cart 4x8:11 --cart-alltoall unknown --guard off
mesh:4x4x4 --cart 4x4x4:000 --cart-alltoall unknown
mesh:4x4x4 --cart 4x4x4:111 --cart-alltoall unknown
mesh:4x4x4 --cart 8x4:00 --cart-alltoall unknown --guard off
mesh:8x8x8 --cart 8x8x8:000 --cart-alltoall unknown --portfolio 4
$t16x8 --graph $tmp/tr16x8.edges
$t16x8 --graph $tmp/tr16x8.edges --current $tmp/rr16x8.map
$t16x8 --graph $tmp/a2a128.edges --current $tmp/rr16x8.map
$t448u4 --graph $tmp/tr16x8.edges
$t448u4 --graph $tmp/tr16x8.edges --current $tmp/rr4x4x8.map
$t448u2 --graph $tmp/tr16x8.edges
$t448u2 --graph $tmp/tr16x8.edges --current $tmp/rr4x4x8.map --portfolio 4
$t4432 --graph $tmp/tr8x8x8.edges
$t4432 --graph $tmp/tr8x8x8.edges --current $tmp/rr4x4x32.map
torus:8x8x8 --graph $tmp/tr8x8x8.edges
torus:4x4x4 --graph $tmp/tr4x4x4.edges
torus:4x4x4 --graph $tmp/tr4x4x4.edges --portfolio 4
mesh:4x4x4 --graph $tmp/tr4x4x4.edges
torus:4x4x4 --cart 4x4x4:111 --cart-alltoall unknown --current $tmp/rev4x4x4.map
torus:4x4x4 --cart 4x4x4:111 --cart-alltoall unknown --current $tmp/rev4x4x4.map --guard off
torus:4x4x4 --cart 4x4x4:111 --cart-alltoall unknown --current $tmp/shuf4x4x4.map --guard off
mesh:4x4x4 --cart 4x4x4:000 --cart-alltoall unknown --current $tmp/rev4x4x4.map --guard off
mesh:4x4x4 --cart 4x4x4:000 --cart-alltoall unknown --current $tmp/shuf4x4x4.map
mesh:4x4x4 --cart 4x4x4:000 --cart-alltoall unknown --current $tmp/shuf4x4x4.map --guard off
torus:4x4x4:wrap=100 --cart 4x4x4:000 --cart-alltoall unknown --current $tmp/shuf4x4x4.map --guard off
torus:4x4x2:local=1 --cart 4x8:11 --cart-alltoall unknown --current $tmp/rev4x4x2.map --guard off
torus:8x8x8 --cart 8x8x8:111 --cart-alltoall unknown --current $tmp/shuf8x8x8.map
$t16x8 --cart 16x8:00 --cart-alltoall unknown --current $tmp/rev16x8.map
$t16x8 --cart 16x8:00 --cart-alltoall unknown --current $tmp/shuf16x8.map --guard off
$t448u4 --cart 16x8:11 --cart-alltoall unknown --current $tmp/shuf4x4x8.map
$t448u4 --graph $tmp/tr16x8.edges --current $tmp/rev4x4x8.map
$t448u2 --graph $tmp/tr16x8.edges --current $tmp/shuf4x4x8.map
mesh:4x4x4 --graph $tmp/tr4x4x4.edges --current $tmp/shuf4x4x4.map
torus:4x4x4 --graph $tmp/cubic1.edges
torus:4x4x4 --graph $tmp/sage.edges
torus:4x4x4 --graph $tmp/umt.edges
EOF

echo "| # | case (\`rankmap map --topology ...\`) | algorithm | md5 of --out | guard note (start) | base vs new |"
echo "|---|---|---|---|---|---|"
same=0 differ=0 i=0
while read -r topo args; do
  i=$((i + 1))
  rm -f "$tmp/base.map" "$tmp/new.map"
  for b in base new; do
    if [ "$b" = base ]; then bin=$base; else bin=$new; fi
    # shellcheck disable=SC2086 # the arguments split at spaces
    "$bin" map --topology "$topo" $args --no-cache --seed 1 --out "$tmp/$b.map" >"$tmp/$b.txt" 2>&1 ||
      echo "exit $?" >>"$tmp/$b.txt"
    grep -v '^seconds ' "$tmp/$b.txt" | sed 's/; [0-9.]* s in all$//' >"$tmp/$b.report" || true
  done
  alg=$(sed -n 's/^algorithm *//p' "$tmp/new.txt")
  guard=$(sed -n 's/^guard *//p' "$tmp/new.txt" | cut -c1-60)
  touch "$tmp/base.map" "$tmp/new.map"  # a failed run writes none: its report says so
  if cmp -s "$tmp/base.map" "$tmp/new.map" && cmp -s "$tmp/base.report" "$tmp/new.report"; then
    same=$((same + 1)) verdict=identical
  else
    differ=$((differ + 1)) verdict=DIFFERS
  fi
  md5=$(md5sum <"$tmp/new.map" | cut -c1-8)
  echo "| $i | \`$topo $args\` | $alg | $md5 | ${guard:-(no guard line)} | $verdict |" | sed "s|$tmp/||g"
done <"$tmp/cases"
echo
echo "$same identical, $differ different"
[ "$differ" -eq 0 ]

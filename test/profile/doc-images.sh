#!/usr/bin/env bash
# doc-images.sh BUILD OUTDIR [PROFILE] -- regenerates the README pictures of
# doc/img from real runs of the build's `rankmap`:
#   matrix-sage-512.png       SAGE-like communication matrix, 512 tasks (Bhanot et al.,
#                             "Optimizing task layout on the Blue Gene/L supercomputer", Fig. 2/5)
#   matrix-halo-profile.png   the profile of test/profile/halo_app (PROFILE, if given)
#   placement-cubic1-16x8x4.png  an 8x8x8 task grid on torus:16x8x4, rank order vs auto,
#                             coloured by the task's grid coordinate
#   convergence-sage-512.png  F/F_min against the annealing step (Bhanot et al., Fig. 3/6)
set -euo pipefail
B=${1:?usage: doc-images.sh BUILD OUTDIR [PROFILE]}
OUT=${2:?usage: doc-images.sh BUILD OUTDIR [PROFILE]}
PROF=${3:-}
RM=$B/rankmap
export RANKMAP_PYTHON=${RANKMAP_PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d /tmp/rankmap-doc-images-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$OUT"

"$RM" gen sage --topology torus:8x8x8 --out "$tmp/sage.edges"
"$RM" plot matrix --graph "$tmp/sage.edges" --title "SAGE-like, 512 tasks: C(i,j) in bytes" \
  --out "$OUT/matrix-sage-512.png" --dpi 80
if [ -n "$PROF" ]; then
  "$RM" plot matrix --profile "$PROF" --title "profile of halo_app (64 ranks, scrambled 4x4x4 halo)" \
    --out "$OUT/matrix-halo-profile.png" --dpi 80
fi

"$RM" gen cubic1 --topology torus:8x8x8 --out "$tmp/grid.edges"
"$RM" map --graph "$tmp/grid.edges" --topology torus:16x8x4 --algorithm identity --out "$tmp/rank.map" --no-cache
"$RM" map --graph "$tmp/grid.edges" --topology torus:16x8x4 --out "$tmp/auto.map" --no-cache
"$RM" plot placement --topology torus:16x8x4 --before "$tmp/rank.map" --mapping "$tmp/auto.map" \
  --color cart:8x8x8 --title "8x8x8 task grid on torus:16x8x4: rank order (left) vs auto (right)" \
  --out "$OUT/placement-cubic1-16x8x4.png" --dpi 80

"$RM" map --graph "$tmp/sage.edges" --topology torus:8x8x8 --algorithm anneal --trace "$tmp/trace.txt" --no-cache
"$RM" plot convergence --trace "$tmp/trace.txt" --label "anneal, SAGE-like 512 tasks" \
  --title "simulated annealing on torus:8x8x8" --out "$OUT/convergence-sage-512.png" --dpi 80
ls -la "$OUT"

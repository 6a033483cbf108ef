#!/usr/bin/env bash
# maint/demo.sh -- the main demo, from a fresh Debian bookworm machine:
# installs the Debian packages, builds rankmap in _build/main, then maps the
# seeds' workloads (seed 000: cubic1 and cubic2 with scrambled labels,
# SAGE-like, UMT-like) on an 8x8x8 torus with every mapper and Scotch in the
# same run, printing the comparison table (bench/mapping --quick).
source "$(dirname "$0")/common.sh"
echo "rankmap demo: building in _build/main (logs there) ..."
build_in "$src/_build/main" --prefix="$src/_build/install"
cd "$src/_build/main"

echo
echo "== 1. one mapping with the CLI: cubic1 of seed 000, labels scrambled, on torus:8x8x8 =="
./rankmap gen cubic1 --topology torus:8x8x8 --scramble --out cubic1-scrambled.edges
echo "-- rank order (what MPI does today):"
./rankmap map --topology torus:8x8x8 --graph cubic1-scrambled.edges --algorithm identity
echo "-- rankmap's default mapper (auto):"
./rankmap map --topology torus:8x8x8 --graph cubic1-scrambled.edges --out cubic1.map
echo
echo "== 2. the seeds' workloads on torus:8x8x8: every mapper against Scotch (bench/mapping --quick) =="
./bench/mapping --quick

#!/usr/bin/env bash
# bench/simgrid/diagonal.sh BUILD [RECORD] -- a halo exchange sent to all
# 26 neighbours at once (a 27-point stencil, as the coarse levels of a
# multigrid such as hypre's PFMG post it), on SimGrid fat trees of 64 nodes
# x 8 cores in block launch order: the launch order, `rankmap map` (guarded
# against it) and Scotch's placement of the same graph.  The graph's
# diagonal edges tell the guard that the exchange is not sent one direction
# at a time (grid_exchange_phases), so the one-direction reading does not
# refuse the blocks; this run checks that the simulation agrees.
#   BUILD: a rankmap build tree (its rankmap binary); RECORD: the markdown
#   file to write (default: stdout only).  Needs smpicc/smpirun
#   (libsimgrid-dev).  About 12 simulations of 512 ranks: 10-20 minutes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: diagonal.sh BUILD [RECORD]}" && pwd)
record=${2:-}
rm_bin=$build/rankmap
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
smpicc -O2 -o replay "$here/kernels/replay.c" 2>/dev/null
# 8x8x8 tasks, 40^3 cells each: a face carries 40x40 doubles, an edge 40, a
# corner 1 (bytes per unit 1); the second reading sends a tenth of that
python3 - <<'PY'
n = 8
at = lambda x, y, z: x + n * y + n * n * z
with open("h27.edges", "w") as f:
    f.write("# rankmap edge list: src dst weight (0-based, directed)\n# tasks: 512\n")
    for z in range(n):
        for y in range(n):
            for x in range(n):
                for dz in (-1, 0, 1):
                    for dy in (-1, 0, 1):
                        for dx in (-1, 0, 1):
                            k = abs(dx) + abs(dy) + abs(dz)
                            X, Y, Z = x + dx, y + dy, z + dz
                            if k and 0 <= X < n and 0 <= Y < n and 0 <= Z < n:
                                f.write(f"{at(x, y, z)} {at(X, Y, Z)} {(0, 12800, 320, 8)[k]}\n")
with open("block.map", "w") as f:
    for r in range(512):
        h = r // 8
        f.write(f"{h // 8} {h % 8} {r % 8}\n")
PY
rows=()
sim() {  # sim UP MAPFILE UNIT -> communication time per iteration (s)
  local d
  d=$(mktemp -d "$work/run-XXXX")
  python3 "$here/sg_platform.py" fattree "8x8x8:$1:today" "$d/p.xml"
  python3 "$here/sg_platform.py" hostfile fattree "8x8x8:$1:today" "$2" "$d/hosts"
  (cd "$d" && smpirun -np 512 -platform p.xml -hostfile hosts --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 \
     --cfg=network/crosstraffic:0 --cfg=smpi/simulate-computation:no --cfg=smpi/coll-selector:mpich \
     --log=root.thres:error "$work/replay" "$work/h27.edges" "$3" 3 2>/dev/null) | awk '/COMM_TIME/ { print $2 }'
  rm -rf "$d"
}
table="| fat tree | face message | block launch (us) | rankmap map | guard | Scotch |
|---|---|---:|---:|---|---:|"
for up in 8 4; do
  topo=tree:8x8x8:cost=100,10,1:up=$up
  "$rm_bin" map --topology "$topo" --graph h27.edges --current block.map --no-cache --seed 1 \
    --out rankmap-$up.map >rankmap-$up.txt 2>&1
  "$rm_bin" map --topology "$topo" --graph h27.edges --algorithm scotch --guard off --no-cache --seed 1 \
    --out scotch-$up.map >/dev/null 2>&1
  guard=$(awk '/^guard/ { print $2, $3 }' rankmap-$up.txt)
  for unit in 1 0.1; do
    b=$(sim $up block.map $unit) r=$(sim $up rankmap-$up.map $unit) s=$(sim $up scotch-$up.map $unit)
    bis=$([ $up = 8 ] && echo "full bisection" || echo "tapered 8:4")
    face=$(awk -v u=$unit 'BEGIN { printf "%.1f KB", 12.8 * u }')
    table+="
| 8x8 nodes x 8 cores, $bis | $face | $(awk -v t="$b" 'BEGIN { printf "%.2f", t * 1e6 }') | $(awk -v b="$b" -v t="$r" 'BEGIN { printf "%.2f (%.2fx)", t * 1e6, b / t }') | $guard | $(awk -v b="$b" -v t="$s" 'BEGIN { printf "%.2f (%.2fx)", t * 1e6, b / t }') |"
    echo "diagonal.sh: up=$up unit=$unit: block $b, rankmap $r, scotch $s" >&2
  done
done
text="**A 27-point halo exchange posted at once (bench/simgrid/kernels/replay.c, 512 ranks, 8x8x8 tasks of 40^3 cells), on SimGrid fat trees of 100 Gb/s in block launch order: communication time per exchange and how many times faster than the launch order**

$table

The graph's diagonal edges mean one exchange at once (grid_exchange_phases gives no phases), so the guard reads F and the predicted time only."
if [ -n "$record" ]; then
  { echo "> date: $(date -u +%F) · commit: $(git -C "$here" rev-parse --short HEAD) ·"
    echo "> machine: 2 cores, 24 GiB, $(. /etc/os-release; echo "$PRETTY_NAME") (the times are simulated and deterministic) ·"
    echo "> command: \`bench/simgrid/diagonal.sh BUILD bench/results/smpi-diagonal.md\`"
    echo
    echo "$text"; } >"$record"
fi
echo "$text"

#!/bin/sh
# table.sh PATH_KIND MPICC MPIEXEC PLUGIN SRC_DIR WORK_DIR
#   PATH_KIND = patched (the patched MPICH, PLUGIN = -) or
#               plugin  (Debian's MPICH with PLUGIN = librankmap-pmpi.so preloaded)
# The address table of MPI_COMM_WORLD, the same cases against both layers,
# which build it through one glue (rankmap_table_declared/_discover,
# include/rankmap_glue.h): an unmodified program (test/pmpi/topo_app.c, 8
# ranks, periodic 2x2x2 grid) with MPIR_CVAR_RANKMAP_VERBOSE=1.
#   - good settings: the verbose "address table of 8 ranks on SOURCE" line,
#     identical under both layers, and the expected reorder;
#   - every bad setting: one warning on rank 0 naming it, MPI's own order;
#   - MPIR_CVAR_RANKMAP_STRICT=1: MPI_Init fails with the same message.
kind=$1 mpicc=$2 mpiexec=$3 plugin=$4 src=$5 work=$6
t=$src/test/pmpi fix=$src/test/fixtures
script=table.sh
. "$src/test/compat/layer.sh"
map=$t/torus-2x2x2-scrambled.map
out=$work/out-$kind.txt err=$work/err-$kind.txt
fail=0
T=MPIR_CVAR_RANKMAP_TOPOLOGY M=MPIR_CVAR_RANKMAP_MAPPING

# case NAME EXPECT ERR_REGEX [VAR=VALUE...]
#   EXPECT: reorder / identity / any (topo_app's expectation on 8 ranks, exit
#   0; the job's mapfile for the hop count is $map), or abort (MPI_Init fails,
#   exit != 0).  stderr must match ERR_REGEX exactly once (rank 0 alone
#   speaks, once, in MPI_Init).
case_() {
  name=$1 want=$2 errre=$3; shift 3
  expect=$want
  [ "$want" = abort ] && expect=identity
  # shellcheck disable=SC2086
  env MPIR_CVAR_RANKMAP_VERBOSE=1 "$@" timeout 120 "$mpiexec" $pre -n 8 $wrap "$app" cart-create "$expect" \
    "$map" 2x2x2 2x2x2 >"$out" 2>"$err"
  st=$?
  ok=1
  if [ "$want" = abort ]; then [ $st -ne 0 ] && [ $st -ne 124 ] || ok=0
  else [ $st -eq 0 ] && grep -q PASS "$out" || ok=0; fi
  n=$(grep -Ec "$errre" "$err")
  [ "$n" = 1 ] || ok=0
  if grep -Eqi 'segmentation|core dumped|signal 11|signal 6|assert' "$err"; then ok=0; fi
  if [ $ok = 1 ]; then echo "ok   $kind $name: $(grep -Em1 "$errre" "$err")"; else
    echo "FAIL $kind $name (exit $st; stderr should match once: $errre)"
    sed 's/^/  out: /' "$out" | head -10; sed 's/^/  err: /' "$err" | head -10
    fail=1
  fi
}

table='address table of 8 ranks on'
wrap=
case_ "declared torus and mapfile" reorder "$table torus:2x2x2, mapping .*torus-2x2x2-scrambled.map\$" \
  $T=torus:2x2x2 $M="$map"
case_ "the MPICH_ alias of a setting" reorder "$table torus:2x2x2, mapping " \
  MPICH_RANKMAP_TOPOLOGY=torus:2x2x2 $M="$map"
case_ "torus:auto3 = MPI_Dims_create(8, 3)" reorder "$table torus:2x2x2, mapping " $T=torus:auto3 $M="$map"
case_ "BG/L order ZYXT" any "$table torus:2x2x2, mapping ZYXT\$" $T=torus:2x2x2 $M=ZYXT
case_ "random:5 scatters the default order" any "$table torus:2x2x2, mapping random:5\$" \
  $T=torus:2x2x2 $M=random:5
case_ "no topology, MPIR_CVAR_RANKMAP_NODE_SIZE=4: discovered by rank 0" any \
  "$table tree:2x.* discovered \\(nodes from MPIR_CVAR_RANKMAP_NODE_SIZE, hwloc inside\\)\$" \
  MPIR_CVAR_RANKMAP_NODE_SIZE=4
case_ "unknown topology string" identity 'warning: MPIR_CVAR_RANKMAP_TOPOLOGY="blob:8".*reordering disabled' \
  $T=blob:8 $M="$map"
case_ "malformed torus dims" identity 'warning: MPIR_CVAR_RANKMAP_TOPOLOGY="torus:2x2y2"' \
  $T=torus:2x2y2 $M="$map"
case_ "bad torus:auto" identity 'warning: MPIR_CVAR_RANKMAP_TOPOLOGY="torus:auto9": expected torus:auto' \
  $T=torus:auto9 $M="$map"
# Mapfiles of torus:2x2x2, each with one fault.
good8='0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n'
printf "$good8" >"$work/missing-line.map"
printf "${good8}1 0 0\n" >"$work/duplicate-coord.map"
printf "${good8}1 2 1\n" >"$work/out-of-range.map"
case_ "mapfile with a missing line" identity \
  'warning: MPIR_CVAR_RANKMAP_MAPPING=.*missing-line.map": .*missing-line.map.: 7 lines for 8 tasks' \
  $T=torus:2x2x2 $M="$work/missing-line.map"
case_ "mapfile with a duplicate coordinate" identity \
  'warning: MPIR_CVAR_RANKMAP_MAPPING=.*duplicate-coord.map": .*duplicate-coord.map:8: duplicate coordinate: node already used at line 2' \
  $T=torus:2x2x2 $M="$work/duplicate-coord.map"
case_ "mapfile with an out-of-range coordinate" identity \
  'warning: MPIR_CVAR_RANKMAP_MAPPING=.*out-of-range.map": .*out-of-range.map:8: coordinate 1 = 2 is outside 0..1' \
  $T=torus:2x2x2 $M="$work/out-of-range.map"
case_ "unreadable mapfile" identity 'warning: MPIR_CVAR_RANKMAP_MAPPING="/nonexistent/rankmap.map"' \
  $T=torus:2x2x2 $M=/nonexistent/rankmap.map
case_ "torus smaller than the job" identity 'warning: MPIR_CVAR_RANKMAP_TOPOLOGY="torus:2x2" is too small for 8' \
  $T=torus:2x2 $M=XYT
case_ "bad mapping order" identity 'warning: MPIR_CVAR_RANKMAP_MAPPING="XQZ"' $T=torus:2x2x2 $M=XQZ
case_ "bad random seed" identity 'warning: MPIR_CVAR_RANKMAP_MAPPING="random:x1": expected random or random:SEED' \
  $T=torus:2x2x2 $M=random:x1
case_ "mapping without a topology" identity \
  'warning: MPIR_CVAR_RANKMAP_MAPPING="XYZT" needs MPIR_CVAR_RANKMAP_TOPOLOGY' $M=XYZT
case_ "negative node size" identity 'warning: MPIR_CVAR_RANKMAP_NODE_SIZE="-3": expected an integer in 0\.\.' \
  MPIR_CVAR_RANKMAP_NODE_SIZE=-3
case_ "bad discovery setting" identity \
  "warning: machine discovery \\(MPIR_CVAR_RANKMAP_NODE_SIZE=4, MPIR_CVAR_RANKMAP_DISCOVER=\"tiers=gpu\"\\)" \
  MPIR_CVAR_RANKMAP_NODE_SIZE=4 MPIR_CVAR_RANKMAP_DISCOVER=tiers=gpu
# Slurm's topology/tree plugin, its variables set by hand: rank r is on node
# r/2 (MPIR_CVAR_RANKMAP_NODE_SIZE=2) and node n under leaf switch n mod 2 of
# one top switch (SLURM_TOPOLOGY_ADDR=top.sS.nN, pattern switch.switch.node).
# $1 of the wrapper spoils one rank's address (a node then reports two
# switches) or leaves it out.
slurm=$work/slurm-env.sh
cat >"$slurm" <<'EOS'
#!/bin/sh
r=${PMI_RANK:?hydra sets PMI_RANK}; n=$((r / 2)); how=$1; shift
SLURM_TOPOLOGY_ADDR=top.s$((n % 2)).n$n
[ "$how" = spoil ] && [ "$r" = 3 ] && SLURM_TOPOLOGY_ADDR=top.s0.n1
SLURM_TOPOLOGY_ADDR_PATTERN=switch.switch.node
# topology/block: node n in block n mod 2 (a dragonfly group)
[ "$how" = blocks ] && SLURM_TOPOLOGY_ADDR=g$((n % 2)).n$n SLURM_TOPOLOGY_ADDR_PATTERN=block.node
export SLURM_TOPOLOGY_ADDR SLURM_TOPOLOGY_ADDR_PATTERN
[ "$how" = partial ] && [ "$r" = 5 ] && unset SLURM_TOPOLOGY_ADDR
exec "$@"
EOS
chmod +x "$slurm"
wrap="$slurm good"
case_ "SLURM_TOPOLOGY_ADDR: the switches above the nodes" any \
  "$table tree:2x2x.*:up=2.* discovered \\(nodes from MPIR_CVAR_RANKMAP_NODE_SIZE, hwloc inside, switches from SLURM_TOPOLOGY_ADDR\\)\$" \
  MPIR_CVAR_RANKMAP_NODE_SIZE=2
wrap="$slurm spoil"
case_ "SLURM_TOPOLOGY_ADDR differing inside a node: a warning, the nodes alone" any \
  'rankmap: warning: the processes of one node report different SLURM_TOPOLOGY_ADDR.*without their switches' \
  MPIR_CVAR_RANKMAP_NODE_SIZE=2
wrap="$slurm partial"
case_ "SLURM_TOPOLOGY_ADDR on 7 of 8 processes: a warning, the nodes alone" any \
  'rankmap: warning: SLURM_TOPOLOGY_ADDR is set for 7 of 8 processes' MPIR_CVAR_RANKMAP_NODE_SIZE=2
wrap="$slurm blocks"
case_ "network=dragonfly: Slurm's blocks are the dragonfly's groups" any \
  "$table dragonfly:2x1x2x1(x[0-9]+)? discovered \\(nodes from MPIR_CVAR_RANKMAP_NODE_SIZE, hwloc inside, dragonfly groups from SLURM_TOPOLOGY_ADDR\\)\$" \
  MPIR_CVAR_RANKMAP_NODE_SIZE=2 MPIR_CVAR_RANKMAP_DISCOVER=network=dragonfly
# Host names: each process gets its own (a UTS namespace, unshare --uts,
# root only) so that one machine stands for a cluster; $1 of the wrapper
# puts rank r on host r/2 (block) or r mod 2 (round-robin).
hosts=$work/hosts-env.sh
cat >"$hosts" <<'EOS'
#!/bin/sh
r=${PMI_RANK:?hydra sets PMI_RANK}; how=$1; shift
h=node$((r / 2)); [ "$how" = rr ] && h=node$((r % 2))
exec unshare --uts sh -c 'hostname "$0" && exec "$@"' "$h" "$@"
EOS
chmod +x "$hosts"
if unshare --uts true 2>/dev/null; then
  wrap="$hosts block"
  case_ "no topology: the nodes from the host names" any \
    "$table tree:4x2.* discovered \\(nodes from host names, hwloc inside\\)\$"
  wrap="$hosts rr"
  case_ "tree without a mapping, hosts dealt round-robin: the ranks where they run" any \
    "$table tree:2x4:cost=100,1, mapping default order, ranks where they run: the 2 hosts the processes run on, 4 leaves each\$" \
    $T=tree:2x4:cost=100,1
  case_ "a BG/L order against hosts dealt round-robin warns" any \
    'warning: MPIR_CVAR_RANKMAP_MAPPING="XYZT" puts ranks 0 and 2, which run on one host, on different nodes' \
    $T=torus:2x2x2 $M=XYZT
else
  echo "skip $kind host-name cases: unshare --uts is not permitted here (needs root)"
fi
wrap=
case_ "network=dragonfly without Slurm's addresses: a warning, the nodes alone" any \
  'warning: MPIR_CVAR_RANKMAP_DISCOVER="network=dragonfly" asks for network=dragonfly, but no process has SLURM_TOPOLOGY_ADDR' \
  MPIR_CVAR_RANKMAP_NODE_SIZE=2 MPIR_CVAR_RANKMAP_DISCOVER=network=dragonfly
case_ "MPICH coordinates file on a declared dragonfly" any \
  "$table dragonfly:2x1x2x2, mapping .*dragonfly-2x1x2x2.coords\$" $T=dragonfly:2x1x2x2 $M="$fix/dragonfly-2x1x2x2.coords"
case_ "MPICH coordinates file with a malformed line: a warning naming file and line" identity \
  'warning: MPIR_CVAR_RANKMAP_MAPPING=.*dragonfly-2x1x2x2-bad.coords:4: expected .RANK: GROUP SWITCH PORT.' \
  $T=dragonfly:2x1x2x2 $M="$fix/dragonfly-2x1x2x2-bad.coords"
# A declared machine against where the ranks run (rankmap_table_hosts):
# MPIR_CVAR_RANKMAP_NODE_SIZE stands in for the hosts of a cluster.
wrap=
case_ "tree without a mapping: the ranks where they run" any \
  "$table tree:2x4:cost=100,1, mapping default order, ranks where they run: the 2 hosts the processes run on, 4 leaves each\$" \
  $T=tree:2x4:cost=100,1 MPIR_CVAR_RANKMAP_NODE_SIZE=4
case_ "a BG/L order that splits a host warns" any \
  'warning: MPIR_CVAR_RANKMAP_MAPPING="XYZT" puts ranks 0 and 1, which run on one host, on different nodes' \
  $T=torus:2x2x2 $M=XYZT MPIR_CVAR_RANKMAP_NODE_SIZE=2
case_ "hosts that fit no tier of the tree warn" any \
  'warning: MPIR_CVAR_RANKMAP_TOPOLOGY="tree:2x4:cost=100,1" has no tier with a group for each of the 3 hosts' \
  $T=tree:2x4:cost=100,1 MPIR_CVAR_RANKMAP_NODE_SIZE=3
wrap="$slurm good"
case_ "tree without a mapping under Slurm's switches: hosts of one switch together" any \
  "$table tree:2x2x2:cost=100,10,1:up=1, mapping default order, ranks where they run: the 4 hosts" \
  $T=tree:2x2x2:cost=100,10,1:up=1 MPIR_CVAR_RANKMAP_NODE_SIZE=2
wrap=
case_ "strict: a bad topology fails MPI_Init naming the setting" abort \
  'error: MPIR_CVAR_RANKMAP_TOPOLOGY="blob:8"' $T=blob:8 MPIR_CVAR_RANKMAP_STRICT=1
exit $fail

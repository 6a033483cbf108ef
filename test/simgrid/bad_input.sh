#!/bin/sh
# bad_input.sh PYTHON SRCDIR BUILDDIR -- the SimGrid suite's helpers refuse
# malformed input with a message naming the file and line (no traceback,
# no silently wrong host file).
PY=$1 S=$2 B=$3
T=$(mktemp -d /tmp/simgrid-bad.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
fail=0
expect() {  # expect NAME REGEX CMD...: CMD fails and stderr matches REGEX
    name=$1 re=$2
    shift 2
    if "$@" >"$T/out" 2>"$T/err"; then
        echo "FAIL $name: exit status 0"; fail=1
    elif ! grep -Eq "$re" "$T/err"; then
        echo "FAIL $name: message does not match '$re':"; cat "$T/err"; fail=1
    elif grep -q Traceback "$T/err"; then
        echo "FAIL $name: Python traceback"; cat "$T/err"; fail=1
    else
        echo "ok   $name: $(head -1 "$T/err")"
    fi
}
P="$S/bench/simgrid/sg_platform.py"
printf '0 0 0\n4 0 0\n' >"$T/outside.map"
expect coords-outside "outside.map:2: coordinates" "$PY" "$P" hostfile torus 4x4x2 "$T/outside.map" "$T/h"
printf '0 0 0\n0 0 0\n' >"$T/dup.map"
expect duplicate-host "dup.map: two ranks on one host" "$PY" "$P" hostfile torus 4x4x2 "$T/dup.map" "$T/h"
printf '0 0 0\n1 x 0\n' >"$T/text.map"
expect not-integers "text.map:2: not a list of integers" "$PY" "$P" hostfile mesh 4x4x2 "$T/text.map" "$T/h"
printf '0 0\n0 1 0\n' >"$T/short.map"
expect cluster-short "short.map:1: expected 3 coordinates" "$PY" "$P" hostfile cluster 8x2:2 "$T/short.map" "$T/h"
expect bad-dims "bad dimensions '8xx4'" "$PY" "$P" torus 8xx4 "$T/p.xml"
expect bad-cluster "bad cluster '8x2:3'" "$PY" "$P" cluster 8x2:3 "$T/p.xml"
SG="$B/bench/simgrid/sg_maps"
if [ -x "$SG" ]; then
    expect sg-maps-grid "grid '16' must be NXxNY" "$SG" cart mesh:8x4x4 16 gray "$T/g"
    printf '0 1 1\n' >"$T/g.edges"
    expect sg-maps-size "has 2 tasks, topology tree:8x2 has 16 leaves" "$SG" partition tree:8x2 "$T/g.edges" 8 "$T/m"
    expect sg-maps-nodes "NODES=3 must divide the 16 leaves" "$SG" partition tree:8x2 "$T/g.edges" 3 "$T/m"
    # exhaustive optimum: 0-1 and 2-3 heavy, 0-2 light; best F = 5 + 5 + 1 x 10 = 20
    printf '0 1 5\n2 3 5\n0 2 1\n' >"$T/g4.edges"
    expect sg-maps-optimum-torus "needs a tree topology" "$SG" optimum torus:2x2 "$T/g4.edges" 100
    expect sg-maps-optimum-upper "UPPER 'abc' must be a positive number" "$SG" optimum tree:2x2:cost=10,1 "$T/g4.edges" abc
    expect sg-maps-optimum-unreached "no placement has F <= UPPER 19" "$SG" optimum tree:2x2:cost=10,1 "$T/g4.edges" 19
    if [ "$("$SG" optimum tree:2x2:cost=10,1 "$T/g4.edges" 100 | cut -d' ' -f1-3)" = "optimum F 20" ]; then
        echo "ok   sg-maps-optimum-small"
    else
        echo "FAIL sg-maps-optimum-small: $("$SG" optimum tree:2x2:cost=10,1 "$T/g4.edges" 100 2>&1)"; fail=1
    fi
fi
# a good host file for contrast: 32 distinct hosts in mapfile order
"$PY" -c 'print("\n".join(f"{i%4} {i//4%4} {i//16}" for i in range(32)))' >"$T/ok.map"
if "$PY" "$P" hostfile torus 4x4x2 "$T/ok.map" "$T/h" && [ "$(sort -u "$T/h" | wc -l)" -eq 32 ] &&
   [ "$(sed -n 6p "$T/h")" = "n-5" ]; then
    echo "ok   good-map"
else
    echo "FAIL good-map"; fail=1
fi
exit $fail

#!/usr/bin/env bash
# bench/placements_md5.sh -- are the placements of the mapping benchmarks the
# same as a recorded set?
#
#   [SCALE_SIZES=...] bench/placements_md5.sh BUILD_DIR REFERENCE.md OUT.md [WHAT]
#
# Runs `bench/mapping --quick --placements DIR` and `bench/scale --sizes
# $SCALE_SIZES --placements DIR` (default 8x8x8,16x16x16; 64x32x32 adds
# 65,536 tasks, about 25 minutes here) with BUILD_DIR's programs (no time
# limit: every placement depends only on the graph, the machine and the seed),
# takes the md5 of every placement file and compares each with the last md5
# column of REFERENCE.md's table (a record of this script or of
# bench/results/placements-md5.md's form).  Writes OUT.md with the header of
# bench/results, the count of equal files and the table; exits 1 when a file
# differs or is missing on either side.  WHAT, a sentence, says in OUT.md
# which change the comparison checks.
set -euo pipefail
build=$(cd "${1:?usage: placements_md5.sh BUILD_DIR REFERENCE.md OUT.md}" && pwd)
ref=${2:?reference record}
out=${3:?output record}
what=${4:-}
sizes=${SCALE_SIZES:-8x8x8,16x16x16}
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/mapping" "$work/scale"
"$build/bench/mapping" --quick --placements "$work/mapping" >"$work/mapping.log"
"$build/bench/scale" --sizes "$sizes" --placements "$work/scale" >"$work/scale.log"

(cd "$work" && find mapping scale -name '*.map' | LC_ALL=C sort | xargs md5sum) >"$work/now.md5"
# reference: the rows `| `file` | ... | `md5` | ...` of REFERENCE.md, the last md5 in each
python3 - "$ref" >"$work/ref.md5" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    m = re.match(r"\| `((?:mapping|scale)/[^`]+)` \|", line)
    if m:
        sums = re.findall(r"`([0-9a-f]{32})`", line)
        if sums:
            print(m.group(1), sums[-1])
PY

commit=$(cd "$src" && git rev-parse --short HEAD)
dirty=$(cd "$src" && git status --porcelain --untracked-files=no | grep -q . && echo " (with uncommitted changes)" || true)
python3 - "$work/ref.md5" "$work/now.md5" "$out" "$commit$dirty" "$ref" "$what" "$sizes" <<'PY'
import sys, datetime, os, platform
refp, nowp, outp, commit, refname, what, sizes = sys.argv[1:]
ref = dict(l.split() for l in open(refp) if l.strip())
now = {}
for l in open(nowp):
    m, f = l.split()
    now[f] = m
files = sorted(set(ref) | set(now))
same = sum(1 for f in files if ref.get(f) == now.get(f) and f in ref and f in now)
mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
osname = next((l.split("=", 1)[1].strip().strip('"') for l in open("/etc/os-release") if l.startswith("PRETTY_NAME=")), platform.system())
with open(outp, "w") as o:
    o.write("> date: %s · commit: %s ·\n" % (datetime.date.today().isoformat(), commit))
    o.write("> machine: %d cores, %.0f GiB, %s ·\n" % (os.cpu_count(), mem, osname))
    o.write("> command: `bench/placements_md5.sh BUILD %s OUT` (bench/mapping --quick and bench/scale --sizes %s with --placements)\n\n" % (refname, sizes))
    o.write("# Placements against %s\n\n" % refname)
    if what:
        o.write(what + "\n\n")
    o.write("**%d of %d files are the same** (the reference's last md5 column against this build's).\n\n" % (same, len(files)))
    o.write("| file | md5 reference | md5 now | same? |\n|---|---|---|---|\n")
    for f in files:
        a, b = ref.get(f, "missing"), now.get(f, "missing")
        o.write("| `%s` | `%s` | `%s` | %s |\n" % (f, a, b, "yes" if a == b and f in ref and f in now else "**no**"))
print("placements_md5: %d of %d files the same" % (same, len(files)))
sys.exit(0 if same == len(files) else 1)
PY

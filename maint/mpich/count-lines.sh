#!/usr/bin/env bash
# maint/mpich/count-lines.sh [--record FILE]
# What rankmap adds to MPICH, counted:
#   the patch series      lines the patches add (maint/mpich/patches/*.patch,
#                         the "+" lines of their hunks), per patch and in total;
#   rankmap's files       compiled into MPICH, which the build copies into its
#                         tree (include/mpix_rankmap.h, src/mpich/*; rankmap_mpi.h
#                         is the layer's interface, counted too), and the
#                         settings it generates (rankmap_cvars.c, from
#                         src/mpilayer/settings.cvars: not hand-written);
#   duplicates            blocks of 6 or more lines that the patches' added C
#                         shares with src/ (none expected: the patches are hooks).
# With --record FILE the table goes to FILE with the usual header.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
record=
[ "${1:-}" = --record ] && record=${2:?--record FILE}
series=$src/maint/mpich/patches/series
adds() { grep '^+' "$1" | grep -vc '^+++ ' || true; }
total=0
table="| what | lines |
|---|---:|"
while read -r p; do
  case $p in ''|'#'*) continue ;; esac
  n=$(adds "$src/maint/mpich/patches/$p")
  total=$((total + n))
  table="$table
| patch \`$p\` (added lines) | $n |"
done <"$series"
table="$table
| **the patch series, in total** | **$total** |"
for f in src/mpich/rankmap_mpich.c src/mpich/mpir_rankmap.h include/mpix_rankmap.h include/rankmap_mpi.h; do
  table="$table
| rankmap's \`$f\`, compiled into MPICH | $(wc -l <"$src/$f") |"
done
gen=$(mktemp)
python3 "$src/maint/gen-cvars.py" --mpich "$gen"
table="$table
| generated \`rankmap_cvars.c\` (CVAR block and getter, from \`src/mpilayer/settings.cvars\`) | $(wc -l <"$gen") |"
rm -f "$gen"
# shared blocks: every window of 6 added, non-blank, non-comment lines of the
# patches that also occurs, whitespace aside, in a file of src/
dup=$(python3 - "$src" <<'PY'
import pathlib, re, sys
root = pathlib.Path(sys.argv[1])
norm = lambda s: re.sub(r"\s+", " ", s.strip())
added = []
for p in sorted((root / "maint/mpich/patches").glob("*.patch")):
    for line in p.read_text().splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            s = norm(line[1:])
            if s and not s.startswith(("/*", "*", "#", "//")):
                added.append(s)
code = set()
for f in (root / "src").rglob("*"):
    if f.suffix in (".c", ".h", ".cpp", ".hpp"):
        lines = [norm(l) for l in f.read_text(errors="replace").splitlines()]
        lines = [l for l in lines if l and not l.startswith(("/*", "*", "#", "//"))]
        code.update("\n".join(lines[i:i + 6]) for i in range(len(lines) - 5))
print(sum("\n".join(added[i:i + 6]) in code for i in range(len(added) - 5)))
PY
)
table="$table
| blocks of 6 added lines shared with \`src/\` | $dup |"
echo "$table"
if [ -n "$record" ]; then
  {
    echo "> date: $(date -u +%Y-%m-%d) · commit: $(cd "$src" && git rev-parse --short HEAD)$(cd "$src" && git diff --quiet HEAD -- maint/mpich src/mpich include || echo -dirty) ·"
    echo "> machine: any (a count of the sources) ·"
    echo "> command: \`maint/mpich/count-lines.sh --record $record\`"
    echo
    echo "$table"
  } >"$src/$record"
fi

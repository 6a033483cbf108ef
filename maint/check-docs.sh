#!/bin/sh
# maint/check-docs.sh -- published figures come from bench/results, not from typing.
#
#   maint/check-docs.sh            check; exit 1 with FILE:LINE: messages
#   maint/check-docs.sh --update   refill every include block from its source
#                                  and regenerate doc/settings.md, then check
#
# What it enforces (README.md and doc/*.md are "the docs"):
#  1. Every file bench/results/*.md (except its README.md) opens with a header
#     of '> ' lines naming the date (YYYY-MM-DD), the commit, the machine and
#     the command that produced it:
#        > date: 2026-11-23 · commit: 1a2b3c4 ·
#        > machine: ... ·
#        > command: `bench/mapping --markdown`
#     ("commit: before X" = measured on the working tree that commit X then
#     recorded, when the run itself did not note its commit).
#  2. Include blocks in the docs,
#        <!-- include: bench/results/mapping.md -->
#        ...the file's text, verbatim...
#        <!-- end include -->
#     hold exactly their source file; --update rewrites them.
#  3. No measured figure outside include blocks.  A measured figure is,
#     narrowly: a number with a unit of time (s, ms, us, µs, ns, min), a
#     speed-up (a decimal followed by x or ×, e.g. 1.54x / 1.54 ×, or an
#     integer glued to it, e.g. 15x), or a decimal with three or more
#     fraction digits (F/F_min-style ratios, e.g. 1.289).  Allowed: version
#     numbers (4.0.2), topology strings (8x8x8), products written with
#     spaces (2 × 8), counts, section numbers, and anything inside `code
#     spans` (settings, commands, output formats).  A line that states a
#     setting in prose with a unit (e.g. a default budget in seconds) may end
#     with the marker <!-- not measured --> to say so.
#  4. doc/settings.md equals what maint/gen-settings-doc.py makes from the
#     CVAR blocks of maint/mpich/patches (the settings' one source).
#  5. The README opens with `bash maint/demo.sh` and `bash maint/test.sh`,
#     has at most 200 lines; no doc cites the papers by a path outside the
#     repository (shared/seeds) or narrates development history ("session N").
#  6. Relative links in the docs point to files that exist.
#  7. src/ passes maint/check-code.py: no function over 80 lines, no file over
#     800 lines, no figure narrative in a comment ("1.2 -> 0.9", "of N runs",
#     "N % slower").
#  8. The tuned numbers have one source: maint/check-tuning.py (every field
#     of a tuning context set by its preset in src/map/tuning.cpp, none with
#     a default in tuning.hpp, and doc/tuning.md giving each preset value).
#
# Registered in CTest as docs_results (test/CTestTestfile.cmake.in).
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
exec python3 - "$top" "$@" <<'PY'
import pathlib, re, subprocess, sys

top = pathlib.Path(sys.argv[1])
update = "--update" in sys.argv[2:]
errors = []

def err(path, line, msg):
    errors.append("%s:%d: %s" % (path.relative_to(top), line, msg))

docs = [top / "README.md"] + sorted((top / "doc").glob("*.md"))
results = sorted(p for p in (top / "bench" / "results").glob("*.md") if p.name != "README.md")

# 1. result headers
HEAD = re.compile(r"date:\s*\d{4}-\d{2}-\d{2}\b.*commit:\s*\S.*machine:\s*\S.*command:\s*\S", re.S)
for p in results:
    lines = p.read_text().splitlines()
    head = []
    for l in lines:
        if not l.startswith(">"):
            break
        head.append(l[1:].strip())
    if not HEAD.search(" ".join(head)):
        err(p, 1, "no header naming date (YYYY-MM-DD), commit, machine and command "
                  "('> date: ... · commit: ... ·' / '> machine: ... ·' / '> command: ...')")

# 4. settings page (before the includes, so --update refreshes it first)
gen = [sys.executable, str(top / "maint" / "gen-settings-doc.py")]
if update:
    subprocess.run(gen + ["--write"], check=True)
r = subprocess.run(gen + ["--check"], capture_output=True, text=True)
if r.returncode != 0:
    errors.append(r.stderr.strip() or "doc/settings.md: out of date")

# 2. include blocks
BEGIN = re.compile(r"^<!-- include: (\S+) -->\s*$")
END = "<!-- end include -->"
def blocks(lines):
    """(begin index, end index, source) of every include block."""
    out, i = [], 0
    while i < len(lines):
        m = BEGIN.match(lines[i])
        if m:
            j = i + 1
            while j < len(lines) and lines[j].strip() != END and not BEGIN.match(lines[j]):
                j += 1
            out.append((i, j if j < len(lines) and lines[j].strip() == END else None, m.group(1)))
            i = j
        i += 1
    return out

for p in docs:
    text = p.read_text()
    lines = text.split("\n")
    changed = False
    for b, e, src in reversed(blocks(lines)):
        if e is None:
            err(p, b + 1, "include of %s has no '%s' line" % (src, END))
            continue
        sp = top / src
        if not sp.is_file():
            err(p, b + 1, "included file %s does not exist" % src)
            continue
        want = sp.read_text().rstrip("\n").split("\n")
        if lines[b + 1:e] != want:
            if update:
                lines[b + 1:e] = want
                changed = True
            else:
                have = lines[b + 1:e]
                k = next((k for k in range(min(len(have), len(want))) if have[k] != want[k]),
                         min(len(have), len(want)))
                err(p, b + 2 + k, "included block differs from %s (line %d of it); "
                                  "run maint/check-docs.sh --update" % (src, k + 1))
    if changed:
        p.write_text("\n".join(lines))

# 3. measured figures outside include blocks; 5. README and history rules; 6. links
FIGURE = [
    (re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s?(?:s|ms|us|µs|ns|min)(?![\w])"), "a time"),
    (re.compile(r"(?<![\w.])\d+\.\d+\s?[x×](?![\w])"), "a speed-up"),
    (re.compile(r"(?<![\w.])\d+[x×](?![\w.])"), "a speed-up"),
    (re.compile(r"(?<![\w.])\d+\.\d{3,}(?![\d.])"), "a measured ratio"),
]
HISTORY = re.compile(r"\b(?:this |previous |earlier |last )?session \d+|\bthis session\b|\bshared/seeds\b", re.I)
LINK = re.compile(r"\]\(([^)\s]+)\)")
# pages a link may name before they exist (none now)
PENDING = set()
for p in docs:
    lines = p.read_text().split("\n")
    inside = set()
    for b, e, _ in blocks(lines):
        inside.update(range(b, (e if e is not None else len(lines)) + 1))
    for n, line in enumerate(lines):
        if n in inside:
            continue
        if HISTORY.search(line):
            err(p, n + 1, "history or a path outside the repository in the docs (%r): "
                          "history goes to git and NEWS; cite papers by author, title and venue"
                          % HISTORY.search(line).group(0))
        for target in LINK.findall(line):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            dest = (p.parent / target.split("#")[0]).resolve()
            if not dest.exists() and dest not in PENDING:
                err(p, n + 1, "link to %s: no such file" % target.split("#")[0])
        if line.rstrip().endswith("<!-- not measured -->"):
            continue
        bare = re.sub(r"`[^`]*`", "", line)
        for rx, what in FIGURE:
            m = rx.search(bare)
            if m:
                err(p, n + 1, "%s typed outside an include block: '%s' (measured figures come "
                              "from bench/results/*.md through <!-- include: ... -->)" % (what, m.group(0).strip()))
                break

readme = top / "README.md"
rl = readme.read_text().split("\n")
if len(rl) - (1 if rl[-1] == "" else 0) > 200:
    err(readme, 201, "README.md has %d lines (at most 200: the manual lives in doc/)" % len(rl))
head = "\n".join(rl[:12])
for cmd in ("bash maint/demo.sh", "bash maint/test.sh"):
    if cmd not in head:
        err(readme, 1, "the README must open with '%s'" % cmd)

# 7. the code rules
r = subprocess.run([sys.executable, str(top / "maint" / "check-code.py"), str(top)],
                   capture_output=True, text=True)
if r.returncode != 0:
    errors.extend(l for l in r.stderr.splitlines() if not l.startswith("check-code:"))

# 8. the tuning's one source
r = subprocess.run([sys.executable, str(top / "maint" / "check-tuning.py"), str(top)],
                   capture_output=True, text=True)
if r.returncode != 0:
    errors.extend(l for l in r.stderr.splitlines() if not l.startswith("check-tuning:"))

if errors:
    sys.stderr.write("\n".join(errors) + "\n")
    sys.stderr.write("check-docs: %d problem(s)\n" % len(errors))
    sys.exit(1)
print("check-docs: %d docs, %d result files: every published figure comes from bench/results" % (len(docs), len(results)))
PY

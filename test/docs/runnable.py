#!/usr/bin/env python3
"""runnable.py BUILD_DIR SRC_DIR -- runs every command block of README.md and
doc/*.md whose fence is marked runnable:

    ```sh runnable
    rankmap gen cubic1 --topology torus:8x8x8 --scramble --out c1.edges
    ```

Each block runs on its own in an empty temporary directory under
`bash -e -o pipefail`, with BUILD_DIR first on PATH (the `rankmap` built
there), at most 300 s.  A block that fails, or a page that marks no block
where one is expected (README.md and doc/user-guide.md), fails the test
with FILE:LINE.  Blocks not marked are examples that need a machine, an
application or an install prefix the test does not have.
"""
import os
import pathlib
import re
import subprocess
import sys
import tempfile

build, src = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve()
FENCE = re.compile(r"^(\s*)```sh\s+runnable\s*$")
pages = [src / "README.md"] + sorted((src / "doc").glob("*.md"))
must_have = {src / "README.md", src / "doc" / "user-guide.md"}
env = dict(os.environ, PATH="%s:%s" % (build, os.environ.get("PATH", "")))
failures = ran = 0
for page in pages:
    lines = page.read_text().split("\n")
    found = 0
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, indent = i + 1, len(m.group(1))
        j = start
        while j < len(lines) and lines[j].strip() != "```":
            j += 1
        if j == len(lines):
            print("FAIL %s:%d: runnable block without its closing fence" % (page.relative_to(src), start))
            failures += 1
            break
        body = "\n".join(l[indent:] for l in lines[start:j]) + "\n"
        found += 1
        with tempfile.TemporaryDirectory(prefix="rankmap-doc-") as tmp:
            try:
                r = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", body], cwd=tmp, env=env,
                                   capture_output=True, text=True, timeout=300)
                ok, out = r.returncode == 0, (r.stdout + r.stderr)
            except subprocess.TimeoutExpired:
                ok, out = False, "timed out after 300 s"
        where = "%s:%d" % (page.relative_to(src), start)
        ran += 1
        if ok:
            print("ok   %s (%d lines)" % (where, j - start))
        else:
            failures += 1
            print("FAIL %s:" % where)
            print("\n".join("  " + l for l in body.rstrip().split("\n")))
            print("\n".join("  | " + l for l in out.rstrip().split("\n")[-15:]))
        i = j + 1
    if page in must_have and not found:
        print("FAIL %s: no block marked runnable" % page.relative_to(src))
        failures += 1
print("%d passed, %d failed" % (ran - min(failures, ran), failures))
sys.exit(1 if failures else 0)

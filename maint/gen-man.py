#!/usr/bin/env python3
"""maint/gen-man.py -- manual pages generated from their single sources.

  gen-man.py --version V --out DIR

writes into DIR/man3 and DIR/man7:
  rankmap-settings.7   every setting, from the one settings source
                       src/mpilayer/settings.cvars (read by maint/gen-cvars.py,
                       which also writes the layer's table and the patched
                       MPICH's CVARs from it)
  MPIR_CVAR_*.7        one ".so" link per setting, so `man MPIR_CVAR_RANKMAP_TOPOLOGY` works
  MPIX_*.3             one page per MPIX function, from the /*@ ... @*/ blocks
                       of include/mpix_rankmap.h
rankmap(1) comes from the CLI's own --help (help2man, see Makefile.am).
Exit status 1 with a message naming the file and line on a malformed block.
"""
import argparse
import datetime
import importlib.util
import os
import pathlib
import re
import sys


ROOT = pathlib.Path(__file__).resolve().parent.parent
HEADER = ROOT / "include" / "mpix_rankmap.h"


class Bad(Exception):
    pass


def settings():
    """The settings of src/mpilayer/settings.cvars (maint/gen-cvars.py reads it)."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    spec = importlib.util.spec_from_file_location("gen_cvars", os.path.join(here, "gen-cvars.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    try:
        return mod.parse()
    except mod.Bad as e:
        raise Bad(str(e))


def doc_blocks(path=HEADER):
    """The /*@ NAME - summary ... @*/ blocks of the header, each followed by
    its prototype (the next line that names the function)."""
    patch = str(path)
    lines = [(no, text.rstrip("\n")) for no, text in enumerate(open(path, encoding="utf-8"), 1)]
    docs, i = [], 0
    while i < len(lines):
        no, text = lines[i]
        m = re.match(r"/\*@\s*(MPIX_\w+)\s+-\s+(.*)$", text)
        if not m:
            i += 1
            continue
        name, summary, body = m.group(1), m.group(2).strip(), []
        i += 1
        while i < len(lines) and not lines[i][1].startswith("@*/"):
            body.append(lines[i][1])
            i += 1
        if i == len(lines):
            raise Bad("%s:%d: block of %s has no closing @*/" % (os.path.basename(patch), no, name))
        i += 1
        proto = ""
        while i < len(lines) and name + "(" not in lines[i][1]:
            i += 1
        if i == len(lines):
            raise Bad("%s:%d: no prototype follows the block of %s" % (os.path.basename(patch), no, name))
        proto = lines[i][1].replace(" MPICH_API_PUBLIC", "").strip()
        sections, cur = {}, None
        for b in body:
            m2 = re.match(r"(Input|Output|Return|Notes):\s*$", b)
            if m2:
                cur = m2.group(1)
                sections[cur] = []
            elif cur is None:
                raise Bad("%s: text before the first section in the block of %s" % (os.path.basename(patch), name))
            else:
                sections[cur].append(b)
        docs.append({"name": name, "summary": summary, "proto": proto, "sections": sections})
    return docs


def roff(text):
    text = text.replace("\\", "\\e")
    return re.sub(r"^([.'])", r"\\&\1", text, flags=re.M)


def header(name, section, version, title):
    date = datetime.date.fromtimestamp(int(os.environ.get("SOURCE_DATE_EPOCH", "0")) or None) \
        if os.environ.get("SOURCE_DATE_EPOCH") else datetime.date.today()
    return '.TH %s %s "%s" "rankmap %s" "%s"\n' % (name, section, date.isoformat(), version, title)


def param_items(lines):
    """'  name - text' starts an item; deeper-indented lines continue it."""
    items = []
    for line in lines:
        m = re.match(r"\s{0,3}(\w+)\s+-\s+(.*)$", line)
        if m:
            items.append([m.group(1), m.group(2).strip()])
        elif items and line.strip():
            items[-1][1] += " " + line.strip()
    return items


def mpix_page(d, version):
    out = [header(d["name"], 3, version, "rankmap MPIX functions")]
    out.append(".SH NAME\n%s \\- %s\n" % (d["name"], roff(d["summary"])))
    out.append(".SH SYNOPSIS\n.nf\n#include <mpix_rankmap.h>\n\n%s\n.fi\n" % roff(d["proto"]))
    for sec, title in (("Input", "INPUT PARAMETERS"), ("Output", "OUTPUT PARAMETERS")):
        if sec in d["sections"]:
            out.append(".SH %s\n" % title)
            for n, t in param_items(d["sections"][sec]):
                out.append(".TP\n.I %s\n%s\n" % (n, roff(t)))
    for sec, title in (("Return", "RETURN VALUE"), ("Notes", "NOTES")):
        if sec in d["sections"]:
            text = " ".join(x.strip() for x in d["sections"][sec] if x.strip())
            out.append(".SH %s\n%s\n" % (title, roff(text)))
    out.append(".SH SEE ALSO\nrankmap-settings(7), rankmap(1), MPI_Cart_create(3)\n")
    return "".join(out)


def settings_page(cvars, version):
    out = [header("RANKMAP-SETTINGS", 7, version, "rankmap")]
    out.append(".SH NAME\nrankmap-settings \\- the MPIR_CVAR_RANKMAP_* settings of the patched MPICH and the PMPI plugin\n")
    out.append(".SH DESCRIPTION\n"
               "Each setting is an environment variable (also read as MPICH_... and MPIR_PARAM_..., "
               "the MPIR_CVAR_ form winning) and, in the patched MPICH, an MPI_T control variable "
               "(of type string: rankmap parses every value, so both paths accept the same ones). "
               "The PMPI plugin (librankmap-pmpi) reads the same variables. "
               "A bad value gives one warning on rank 0 naming the setting and leaves the rank order "
               "unchanged (MPIR_CVAR_RANKMAP_STRICT=1: MPI_Init fails instead).\n")
    out.append(".SH SETTINGS\n")
    for c in sorted(cvars, key=lambda c: c["name"]):
        default = c["default"]
        out.append('.TP\n.B %s\n(%s, default %s) %s\n' % (c["name"], c["type"], roff(default), roff(c["description"])))
    out.append(".SH SEE ALSO\nrankmap(1), MPIX_Rank2torus(3), mpiexec(1)\n")
    return "".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--version", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    try:
        cvars = settings()
        docs = doc_blocks()
    except (Bad, OSError) as e:
        sys.exit("gen-man.py: %s" % e)
    if not cvars or not docs:
        sys.exit("gen-man.py: no settings (%d) or MPIX functions (%d) found" % (len(cvars), len(docs)))
    for sec in ("man3", "man7"):
        os.makedirs(os.path.join(a.out, sec), exist_ok=True)
    with open(os.path.join(a.out, "man7", "rankmap-settings.7"), "w") as f:
        f.write(settings_page(cvars, a.version))
    for c in cvars:
        with open(os.path.join(a.out, "man7", c["name"] + ".7"), "w") as f:
            f.write(".so man7/rankmap-settings.7\n")
    for d in docs:
        with open(os.path.join(a.out, "man3", d["name"] + ".3"), "w") as f:
            f.write(mpix_page(d, a.version))


if __name__ == "__main__":
    main()

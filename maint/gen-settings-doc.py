#!/usr/bin/env python3
"""Write doc/settings.md from the CVAR blocks of the MPICH patch series.

MPICH declares every setting once, in a comment block of the C file that
reads it (=== BEGIN_MPI_T_CVAR_INFO_BLOCK === ... === END_MPI_T_CVAR_INFO_BLOCK ===);
its maint/extractcvars turns those blocks into the environment variables,
the MPI_T entries and README.envvar.  This script reads the same blocks from
the lines the patches in maint/mpich/patches add, so the manual's settings
reference has the same single source.

    maint/gen-settings-doc.py            print the page on stdout
    maint/gen-settings-doc.py --write    rewrite doc/settings.md
    maint/gen-settings-doc.py --check    exit 1 if doc/settings.md differs,
                                         or a default of the PMPI plugin
                                         differs from its CVAR's

The plugin reads the same settings from the environment with its own
defaults (parse_long / parse_bool in src/pmpi/table.c, a literal or a
RANKMAP_*_DEFAULT macro of include/); --check compares each with the
CVAR's default, so the two layers cannot drift apart.

Only the block syntax MPICH uses is understood: "- name : X" starts an entry,
"key : value" lines follow, "description : >-" continues on the following
more-indented lines.  A value added to an existing CVAR's enumeration (a line
"+    VALUE   - text" in a hunk of cvars.txt) is listed under that CVAR.

The PMPI plugin's settings that the patch series does not declare yet are
blocks of the same format in src/pmpi/settings.cvars (read_plugin()); they
get their own section.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PATCHES = ROOT / "maint" / "mpich" / "patches"
PAGE = ROOT / "doc" / "settings.md"
PLUGIN = ROOT / "src" / "pmpi" / "settings.cvars"


def series():
    names = []
    for line in (PATCHES / "series").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            names.append(line)
    return names


def parse_block(lines, patch, source):
    """Entries of one CVAR block (lines without the diff's '+')."""
    entries, cur, section, key = [], None, None, None
    for raw in lines:
        if re.match(r"^\S.*:\s*$", raw):  # "categories:" / "cvars:"
            section = raw.strip().rstrip(":")
            cur = None
            continue
        m = re.match(r"^\s*-\s*name\s*:\s*(\S+)", raw)
        if m:
            cur = {"name": m.group(1), "patch": patch, "source": source, "description": ""}
            if section == "cvars":
                entries.append(cur)
            key = "name"
            continue
        if cur is None:
            continue
        m = re.match(r"^\s*(\w+)\s*:\s*(.*)$", raw)
        if m and m.group(1) in ("category", "type", "default", "class", "verbosity", "scope", "description"):
            key, val = m.group(1), m.group(2).strip()
            if key == "description":
                cur[key] = "" if val in (">-", ">", "|") else val
            else:
                cur[key] = val
            continue
        if key == "description" and raw.strip():
            cur["description"] = (cur["description"] + " " + raw.strip()).strip()
    return entries


def read_patch(path):
    """(cvar entries, enum additions) of one patch file."""
    text = path.read_text().splitlines()
    entries, extra = [], []
    current_file, block = None, None
    hunk_names = []
    for i, line in enumerate(text):
        if line.startswith("diff --git "):
            current_file = line.split(" b/", 1)[-1]
            continue
        if line.startswith("@@"):
            hunk_names = []
            continue
        body = line[1:] if line[:1] in "+ -" else line
        if "=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===" in body and line.startswith("+"):
            block = []
            continue
        if block is not None:
            if "=== END_MPI_T_CVAR_INFO_BLOCK ===" in body:
                entries += parse_block(block, path.name, current_file)
                block = None
            elif line.startswith("+"):
                block.append(body)
            continue
        # a value added to an existing enumeration (cvars.txt)
        if current_file and current_file.endswith("cvars.txt"):
            m = re.match(r"^\+\s+(\w+)\s+-\s+(.*)$", line)
            if m:
                owner = None
                for later in text[i + 1:i + 8]:
                    n = re.match(r"^[ +]\s*-\s*name\s*:\s*(\S+)", later)
                    if n:
                        # MPICH lists X_INTRA_ALGORITHM right before X_INTER_ALGORITHM
                        owner = n.group(1).replace("_INTER_", "_INTRA_")
                        break
                extra.append({"owner": owner, "value": m.group(1), "text": m.group(2),
                              "patch": path.name, "source": current_file})
    return entries, extra


def read_plugin(path=PLUGIN):
    """Entries of the CVAR blocks of the plugin's settings file (no diff)."""
    entries, block = [], None
    rel = str(path.relative_to(ROOT)) if path.is_absolute() and ROOT in path.parents else str(path)
    for line in path.read_text().splitlines():
        if "=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===" in line:
            block = []
        elif "=== END_MPI_T_CVAR_INFO_BLOCK ===" in line and block is not None:
            entries += parse_block(block, None, rel)
            block = None
        elif block is not None:
            block.append(line)
    return entries


SCOPE = {
    "MPI_T_SCOPE_ALL_EQ": "same value on every process",
    "MPI_T_SCOPE_LOCAL": "per process",
}
VERBOSITY = {
    "MPI_T_VERBOSITY_USER_BASIC": "user",
    "MPI_T_VERBOSITY_MPIDEV_DETAIL": "MPI developer (testing)",
}


def facts_line(e):
    facts = ["type %s" % e.get("type", "?"), "default `%s`" % e.get("default", "?")]
    if e.get("scope") in SCOPE:
        facts.append(SCOPE[e["scope"]])
    if e.get("verbosity") in VERBOSITY:
        facts.append("audience: " + VERBOSITY[e["verbosity"]])
    if e["patch"]:
        facts.append("patch `%s`, `%s`" % (e["patch"], e["source"]))
    else:
        facts.append("`%s`" % e["source"])
    return " · ".join(facts)


def render():
    out = [
        "# Settings reference",
        "",
        "<!-- Generated by maint/gen-settings-doc.py from the CVAR blocks of",
        "     maint/mpich/patches/*.patch and src/pmpi/settings.cvars; do not edit:",
        "     change the patch (or settings.cvars) and run",
        "     maint/gen-settings-doc.py --write (maint/check-docs.sh checks it). -->",
        "",
        "Every setting below is declared once, in a CVAR block of the MPICH patch",
        "series; MPICH generates from the same block the environment variable,",
        "the MPI_T control variable and its `README.envvar`, and this page is",
        "generated from it too.  Each `MPIR_CVAR_X` can also be spelled",
        "`MPICH_X` or `MPIR_PARAM_X` in the environment.  The PMPI plugin reads",
        "the `MPIR_CVAR_RANKMAP_*` names from the environment with the same",
        "meaning (its own extra settings are in [the user guide](user-guide.md#settings)).",
        "",
    ]
    entries, extra = [], []
    for name in series():
        e, x = read_patch(PATCHES / name)
        entries += e
        extra += x
    if not entries:
        raise SystemExit("gen-settings-doc: no CVAR blocks found in " + str(PATCHES))
    by_cat = {}
    for e in entries:
        by_cat.setdefault(e.get("category", "?"), []).append(e)
    titles = {"RANKMAP": "Reordering (category RANKMAP)",
              "COLLECTIVE": "Torus broadcast (category COLLECTIVE)"}
    for cat, items in by_cat.items():
        out += ["## " + titles.get(cat, "Category " + cat), ""]
        for e in items:
            out += ["### `%s`" % e["name"], "", facts_line(e), "", e["description"], ""]
    if extra:
        out += ["## Values added to existing MPICH settings", ""]
        for x in extra:
            owner = "`%s`" % x["owner"] if x["owner"] else "a CVAR of `%s`" % x["source"]
            out += ["- %s = `%s` (patch `%s`): %s" % (owner, x["value"], x["patch"], x["text"])]
        out.append("")
    plugin = read_plugin()
    if plugin:
        out += ["## Settings of the PMPI plugin", "",
                "The PMPI plugin (`librankmap-pmpi`) reads every `MPIR_CVAR_RANKMAP_*` setting above from the",
                "environment, and these, its safety net for programs that assume ranks do",
                "not move, which only the plugin has.  They are declared in",
                "`src/pmpi/settings.cvars`, in the same CVAR block format.",
                "What the safety settings catch and cost: [compatibility.md](compatibility.md).",
                ""]
        for e in plugin:
            out += ["### `%s`" % e["name"], "", facts_line(e), "", e["description"], ""]
    return "\n".join(out).rstrip("\n") + "\n"


TABLE = ROOT / "src" / "pmpi" / "table.c"


def plugin_default_mismatches(entries):
    """file:line messages for plugin defaults that differ from the CVARs'."""
    macros = {}
    for h in sorted((ROOT / "include").glob("*.h")):
        for m in re.finditer(r"^#define\s+(RANKMAP_\w+_DEFAULT)\s+(\S+)", h.read_text(), re.M):
            macros[m.group(1)] = m.group(2)
    cvars = {e["name"]: e for e in entries}
    out, text = [], TABLE.read_text()
    for m in re.finditer(r'parse_(long|bool)\(\s*"(\w+)"\s*,\s*([^,]+?)\s*,', text):
        kind, name, val = m.groups()
        e = cvars.get("MPIR_CVAR_RANKMAP_" + name)
        if e is None:
            continue  # a plugin-only setting (src/pmpi/settings.cvars)
        val = macros.get(val, val)
        want = e.get("default", "")
        if kind == "bool":
            want = {"true": "1", "false": "0"}.get(want, want)
        if val != want:
            line = text.count("\n", 0, m.start()) + 1
            out.append("src/pmpi/table.c:%d: MPIR_CVAR_RANKMAP_%s defaults to %s in the plugin "
                       "but %s in patch %s" % (line, name, val, e.get("default"), e["patch"]))
    return out


def main(argv):
    page = render()
    if "--write" in argv:
        PAGE.write_text(page)
    elif "--check" in argv:
        if not PAGE.exists() or PAGE.read_text() != page:
            sys.stderr.write("doc/settings.md:1: out of date with the CVAR blocks of "
                             "maint/mpich/patches; run maint/gen-settings-doc.py --write\n")
            return 1
        entries = []
        for name in series():
            entries += read_patch(PATCHES / name)[0]
        bad = plugin_default_mismatches(entries)
        if bad:
            sys.stderr.write("\n".join(bad) + "\n")
            return 1
    else:
        sys.stdout.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

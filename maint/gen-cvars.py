#!/usr/bin/env python3
"""Generate code from the one settings source, src/mpilayer/settings.cvars.

    maint/gen-cvars.py --c-table FILE   the layer's table (RML_SETTING(...) lines,
                                        included by src/mpilayer/settings.c)
    maint/gen-cvars.py --mpich FILE     a C file for the patched MPICH's tree: the
                                        CVAR block (every setting an MPI_T string
                                        variable; MPICH's extractcvars reads it) and
                                        MPIR_Rankmap_setting(NAME), the getter the
                                        layer reads them through
    maint/gen-cvars.py --list           NAME TYPE DEFAULT RANGE, one per line

Every value is parsed by the layer, so both MPI paths accept and refuse the
same values with the same messages.  A malformed block: exit 1 with the line.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE = ROOT / "src" / "mpilayer" / "settings.cvars"
PREFIX = "MPIR_CVAR_RANKMAP_"
TYPES = {"boolean": "RML_T_BOOL", "int": "RML_T_INT", "double": "RML_T_DOUBLE",
         "string": "RML_T_STRING", "enum": "RML_T_ENUM"}


class Bad(Exception):
    pass


def parse(path=SOURCE):
    """The entries of the file's CVAR block, with their line numbers."""
    entries, cur, section, key, inside = [], None, None, None, False
    for no, raw in enumerate(path.read_text().splitlines(), 1):
        if "BEGIN_MPI_T_CVAR_INFO_BLOCK" in raw:
            inside = True
            continue
        if "END_MPI_T_CVAR_INFO_BLOCK" in raw:
            inside = False
            continue
        if not inside:
            continue
        if re.match(r"^\S.*:\s*$", raw):
            section, cur = raw.strip().rstrip(":"), None
            continue
        m = re.match(r"^\s*-\s*name\s*:\s*(\S+)", raw)
        if m:
            cur = {"name": m.group(1), "line": no, "description": "", "desc_lines": []}
            if section == "cvars":
                entries.append(cur)
            key = "name"
            continue
        if cur is None:
            continue
        m = re.match(r"^\s*(\w+)\s*:\s*(.*)$", raw)
        if m and m.group(1) in ("category", "type", "default", "class", "verbosity", "scope",
                                "description", "range"):
            key, val = m.group(1), m.group(2).strip()
            if key == "description":
                cur[key] = "" if val in (">-", ">", "|") else val
            else:
                cur[key] = val
            continue
        if key == "description" and raw.strip():
            cur["desc_lines"].append(raw.strip())
            cur["description"] = (cur["description"] + " " + raw.strip()).strip()
    for e in entries:
        for f in ("category", "type", "default", "scope", "description"):
            if f not in e:
                raise Bad("%s:%d: %s has no %s" % (SOURCE.name, e["line"], e["name"], f))
        if not e["name"].startswith(PREFIX):
            raise Bad("%s:%d: %s is not a %s* setting" % (SOURCE.name, e["line"], e["name"], PREFIX))
        if e["type"] not in TYPES:
            raise Bad("%s:%d: %s: unknown type %s" % (SOURCE.name, e["line"], e["name"], e["type"]))
        e["default"] = e["default"].strip('"')
        e["values"] = [m.group(1) for m in (re.match(r"^(\w+)\s+-\s", l) for l in e["desc_lines"]) if m]
        if e["type"] == "enum" and e["default"] not in e["values"]:
            raise Bad("%s:%d: %s: default %s is not one of %s" %
                      (SOURCE.name, e["line"], e["name"], e["default"], e["values"]))
        lo, hi = "0", "0"
        if "range" in e:
            m = re.match(r"^(-?[\d.e+]+)\.\.(-?[\d.e+]+)$", e["range"])
            if not m:
                raise Bad("%s:%d: %s: range must be LO..HI" % (SOURCE.name, e["line"], e["name"]))
            lo, hi = m.group(1), m.group(2)
        elif e["type"] in ("int", "double"):
            raise Bad("%s:%d: %s: a number needs a range" % (SOURCE.name, e["line"], e["name"]))
        e["lo"], e["hi"] = lo, hi
    return entries


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def c_table(entries):
    out = ["/* generated from src/mpilayer/settings.cvars by maint/gen-cvars.py; do not edit */"]
    for e in entries:
        short = e["name"][len(PREFIX):]
        out.append("RML_SETTING(%s, %s, %s, %s, %s, %s)" % (
            short, TYPES[e["type"]], c_string(e["default"]), e["lo"], e["hi"],
            c_string(",".join(e["values"]))))
    return "\n".join(out) + "\n"


def mpich_file(entries):
    out = ["/*",
           " * rankmap_cvars.c -- the MPIR_CVAR_RANKMAP_* settings of the patched MPICH,",
           " * generated from rankmap's src/mpilayer/settings.cvars by maint/gen-cvars.py",
           " * when MPICH is built; do not edit.  Every setting is an MPI_T string",
           " * variable: rankmap's layer parses the value (type and range in the",
           " * description), so MPICH and the PMPI plugin accept the same values.",
           " */", "", "/*", "=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===", "",
           "categories:", "    - name        : RANKMAP",
           "      description : topology-aware rank reordering (rankmap)", "", "cvars:"]
    for e in entries:
        kind = e["type"]
        if kind == "enum":
            kind += " (" + "|".join(e["values"]) + ")"
        elif "range" in e:
            kind += " in " + e["range"]
        out += ["    - name        : " + e["name"],
                "      category    : RANKMAP",
                "      type        : string",
                "      default     : " + c_string(e["default"]),
                "      class       : none",
                "      verbosity   : " + e.get("verbosity", "MPI_T_VERBOSITY_USER_BASIC"),
                "      scope       : " + e["scope"],
                "      description : >-",
                "        (rankmap: " + kind + ")"]
        out += ["        " + l for l in e["desc_lines"]]
        out.append("")
    out += ["=== END_MPI_T_CVAR_INFO_BLOCK ===", "*/", "",
            "const char *MPIR_Rankmap_setting(const char *name);",
            "const char *MPIR_Rankmap_setting(const char *name)", "{",
            "    static const struct { const char *name; const char **value; } s[] = {"]
    for e in entries:
        out.append("        { %s, (const char **) &%s }," % (c_string(e["name"][len(PREFIX):]), e["name"]))
    out += ["    };",
            "    for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)",
            "        if (!strcmp(name, s[i].name))",
            "            return *s[i].value;",
            "    return NULL;", "}"]
    return "\n".join(out) + "\n"


def main(argv):
    try:
        entries = parse()
    except Bad as e:
        print("gen-cvars.py: " + str(e), file=sys.stderr)
        return 1
    if len(argv) == 3 and argv[1] == "--c-table":
        pathlib.Path(argv[2]).write_text(c_table(entries))
    elif len(argv) == 3 and argv[1] == "--mpich":
        pathlib.Path(argv[2]).write_text(mpich_file(entries))
    elif len(argv) == 2 and argv[1] == "--list":
        for e in entries:
            print(e["name"], e["type"], e["default"] or '""', e.get("range", "-"))
    else:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

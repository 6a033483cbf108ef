#!/usr/bin/env python3
"""maint/check-tuning.py -- the tuned numbers have one source.

    maint/check-tuning.py [TOP]     check; exit 1 with FILE:LINE: messages

What it enforces, for every tuning context `struct XContext` of
src/map/tuning.hpp:
 1. No field has a default in the header (a value written there would be a
    second source beside the preset).
 2. The context's preset in src/map/tuning.cpp (`x_preset`, the struct name
    in snake case without "Context") sets every field exactly once before its
    first size-class branch (`if`), so no field is left uninitialised.
 3. doc/tuning.md names every field in the context's section, in a table row
    or as "`field` value" in prose, and the value it gives first (the
    "preset", "value" or "small" column) is the preset's value.  Values
    compare as numbers (3.0e7 = 3e7), booleans or hex words; `1 << 30` is
    written "no limit".  Fields that hold another context (`band`, `hier`,
    ...) are checked through that context.
Size-class and strategy overrides (the code after the first `if`, and the
other presets) are described by doc/tuning.md's other columns, which this
script does not read.
"""
import re
import sys
from pathlib import Path

top = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
hpp = top / "src/map/tuning.hpp"
cpp = top / "src/map/tuning.cpp"
doc = top / "doc/tuning.md"
errors = []


def err(path, line, msg):
    errors.append("%s:%d: %s" % (path.relative_to(top), line, msg))


def structs():
    """{name: [(field, line, has_default)]} in header order."""
    out, cur = {}, None
    for i, line in enumerate(hpp.read_text().split("\n"), 1):
        m = re.match(r"struct (\w+Context) \{", line)
        if m:
            cur = out.setdefault(m.group(1), [])
            continue
        if line.startswith("};"):
            cur = None
            continue
        if cur is None:
            continue
        code = line.split("//", 1)[0]
        m = re.match(r"\s+[\w:]+(?:<[^>]*>)?\s+(\w+)\s*(=|\{)?[^;]*;", code)
        if m:
            cur.append((m.group(1), i, m.group(2) is not None))
    return out


def preset_name(struct):
    base = struct[: -len("Context")]
    return re.sub(r"(?<!^)([A-Z])", r"_\1", base).lower() + "_preset"


def preset_bases():
    """{preset: ({field: (value, line)}, line of the function)}: the
    assignments before the function's first `if` or `return`."""
    out = {}
    lines = cpp.read_text().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"\w+Context (\w+_preset)\([^)]*\) \{", lines[i])
        if not m:
            i += 1
            continue
        name, start, sets = m.group(1), i + 1, {}
        i += 1
        while i < len(lines) and not re.match(r"\s+(if|return)\b", lines[i]) and lines[i] != "}":
            a = re.match(r"\s+c\.(\w+) = (.+);", lines[i].split("//", 1)[0].rstrip())
            if a:
                if a.group(1) in sets:
                    err(cpp, i + 1, "%s sets %s twice" % (name, a.group(1)))
                sets[a.group(1)] = (a.group(2).strip(), i + 1)
            i += 1
        out[name] = (sets, start)
    return out


def doc_sections():
    """{struct: [(line number, text)]}: each context's part of doc/tuning.md,
    from the heading that names it to the next heading."""
    lines = doc.read_text().split("\n")
    out, cur = {}, None
    for i, line in enumerate(lines, 1):
        if line.startswith("#"):
            m = re.search(r"\b(\w+Context)\b", line)
            cur = out.setdefault(m.group(1), []) if m else None
            continue
        if cur is not None:
            cur.append((i, line))
    return out


def cells(line):
    """A table row's cells; "\\|" is a pipe inside a cell."""
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def names_of(cell):
    """`calibration_min` / `_max` -> [calibration_min, calibration_max];
    the separator (" / " or ", ") splits the values too."""
    names = re.findall(r"`(\w+)`", cell)
    if not names:
        return [], None
    full = [names[0]]
    for n in names[1:]:
        full.append(names[0].rsplit("_", 1)[0] + n if n.startswith("_") else n)
    sep = " / " if "/" in cell else ", "
    return full, sep


def documented(section):
    """{field: (value text, line)} from the section's tables and prose."""
    out, col = {}, None
    for ln, line in section:
        if line.startswith("|"):
            cs = cells(line)
            if cs and cs[0] == "field":
                col = next((k for k, h in enumerate(cs) if h in ("preset", "value", "small")), None)
                continue
            if col is None or set(line) <= set("|- "):
                continue
            names, sep = names_of(cs[0])
            if not names or col >= len(cs):
                continue
            vals = [cs[col]] if len(names) == 1 else cs[col].split(sep)
            if len(vals) == 1:
                vals = vals * len(names)
            if len(vals) != len(names):
                continue
            for n, v in zip(names, vals):
                out.setdefault(n, (v.strip(), ln))
        else:
            col = None
            for m in re.finditer(r"`(\w+)` (-?[0-9][\w.+-]*|true|false)", line):
                out.setdefault(m.group(1), (m.group(2), ln))
    return out


def first_token(text):
    text = text.strip()
    if text.startswith("no limit"):
        return "no limit"
    m = re.match(r"(0x[0-9a-fA-F]+|-?[0-9]+(?:\.[0-9]+)?(?:e-?[0-9]+)?|true|false)", text)
    return m.group(1) if m else None


def same(code, text):
    if code == "1 << 30":
        return first_token(text) == "no limit"
    if code.startswith("{"):
        parts = [p.strip() for p in code.strip("{}").split(",")]
        got = [first_token(p) for p in text.split(",")]
        return len(parts) == len(got) and all(same(p, g or "") for p, g in zip(parts, got))
    tok = first_token(text)
    if tok is None:
        return False
    if code.startswith("0x") or code in ("true", "false"):
        return tok.lower() == code.lower()
    try:
        return float(code) == float(tok)
    except ValueError:
        return False


contexts = structs()
bases = preset_bases()
sections = doc_sections()
if not contexts:
    err(hpp, 1, "no tuning context found")
for struct, fields in contexts.items():
    for f, ln, has_default in fields:
        if has_default:
            err(hpp, ln, "%s::%s has a default: set it in %s (tuning.cpp) only" % (struct, f, preset_name(struct)))
    preset = preset_name(struct)
    if preset not in bases:
        err(cpp, 1, "no preset %s for %s" % (preset, struct))
        continue
    sets, start = bases[preset]
    for f, ln, _ in fields:
        if f not in sets:
            err(cpp, start, "%s does not set %s::%s before its first branch" % (preset, struct, f))
    for f in sets:
        if f not in {x[0] for x in fields}:
            err(cpp, sets[f][1], "%s sets %s, which %s does not have" % (preset, f, struct))
    if struct not in sections:
        err(doc, 1, "no section of doc/tuning.md names %s" % struct)
        continue
    docd = documented(sections[struct])
    for f, _, _ in fields:
        if f not in sets:
            continue
        value, vline = sets[f]
        if value.endswith("_preset()") or re.match(r"\w+_preset\(", value):
            continue
        if f not in docd:
            err(doc, sections[struct][0][0], "%s::%s (%s in %s) is not in this section" % (struct, f, value, preset))
        elif not same(value, docd[f][0]):
            err(doc, docd[f][1], "%s::%s: the doc says %r, %s sets %s (tuning.cpp:%d)"
                % (struct, f, docd[f][0], preset, value, vline))

if errors:
    sys.stderr.write("\n".join(errors) + "\n")
    sys.stderr.write("check-tuning: %d problem(s)\n" % len(errors))
    sys.exit(1)
print("check-tuning: %d contexts, %d fields: each set once by its preset and documented with its value"
      % (len(contexts), sum(len(f) for f in contexts.values())))

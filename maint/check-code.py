#!/usr/bin/env python3
"""maint/check-code.py -- src/ stays readable: short functions, short files,
comments that describe the code rather than narrate measurements.

    maint/check-code.py [TOP]     check; exit 1 with FILE:LINE: messages

Rules (every file under src/):
 1. A function (C, C++, Python) has at most MAX_FUNCTION lines, counted from
    the first line of its signature to its closing brace (or, in Python, its
    last line).  For C and C++ a brace-matching scanner over the text with
    comments, strings and preprocessor lines blanked out finds every body
    that follows a parameter list outside another function's body: free
    functions, methods defined in classes or headers, templates, and lambdas
    at namespace scope or in tables.  Lambdas inside a function count toward
    that function.  Python functions come from the ast module.
 2. A file has at most MAX_FILE lines.
 3. No comment line carries a figure narrative: a '->' or an arrow between
    two numbers ("1.2 -> 0.9"), "of N runs", "N % slower" / "N % faster".
    Comments say what the code does and why; measured figures live in
    bench/results (doc/tuning.md, "Measurements behind the source comments").

Called by maint/check-docs.sh (and so by the docs_results test).
"""
import ast
import bisect
import pathlib
import re
import sys

MAX_FUNCTION = 80
MAX_FILE = 800
# (file, function) over MAX_FUNCTION that another branch is splitting; each
# entry goes when that branch lands.  A listed function that is short again
# is reported, so the list cannot go stale.

C_EXT = {".c", ".h", ".cpp", ".hpp", ".cc", ".hh", ".cxx", ".hxx"}
HASH_COMMENT_EXT = {".py", ".mk", ".am", ".cvars", ".sh"}

NARRATIVE = [
    (re.compile(r"\d+(?:\.\d+)?\s*%?\s*(?:[a-zµ]{1,3}\s*)?(?:->|→)\s*[~≈]?\s*[-+]?\d+(?:\.\d+)?"),
     "a before -> after figure"),
    (re.compile(r"\bof\s+\d+\s+runs?\b", re.I), "'of N runs'"),
    (re.compile(r"\d\s*%\s*(?:slower|faster)\b", re.I), "'N % slower/faster'"),
]


def blank_c(text):
    """text with comments, string and character literals and preprocessor
    lines replaced by spaces (newlines kept), and the list of
    (line, comment text) of every comment line."""
    out = list(text)
    comments = []
    i, n, line = 0, len(text), 1
    bol = True  # only blanks since the start of the line

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            bol = True
            i += 1
            continue
        if bol and c == "#":
            j = i
            while j < n:
                if text[j] == "\n" and text[j - 1] != "\\":
                    break
                if text[j] == "/" and text[j + 1:j + 2] in ("/", "*"):
                    break
                j += 1
            blank(i, j)
            line += text.count("\n", i, j)
            i = j
            bol = False
            continue
        if c in " \t\r":
            i += 1
            continue
        bol = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            comments.append((line, text[i:j]))
            blank(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k, part in enumerate(text[i:j].split("\n")):
                comments.append((line + k, part))
            blank(i, j)
            line += text.count("\n", i, j)
            i = j
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            blank(i, j)
            line += text.count("\n", i, j)
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():   # digit separator 1'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            blank(i, j + 1)
            i = j + 1
        else:
            i += 1
    return "".join(out), comments


CONTAINER = re.compile(r"\b(?:namespace|class|struct|union|enum|extern)\b")
FUNCTION_HEAD = re.compile(r"\)\s*(?:const\b|noexcept\b(?:\s*\([^()]*\))?|override\b|final\b|mutable\b|"
                           r"&&?|->\s*[\w:<>,\s*&]+?|\s)*$")
LABEL = re.compile(r"^\s*(?:(?:public|private|protected)\s*:(?!:)\s*)+")


def c_functions(code):
    """(first line, last line, name) of every function body in blanked C/C++
    code that is not nested in another function body."""
    found = []
    stack = []       # kinds of the open braces: 'function' or 'scope'
    head_start = 0   # offset where the current statement's head begins
    lines = [0]
    for k, ch in enumerate(code):
        if ch == "\n":
            lines.append(k + 1)

    def line_of(off):
        return bisect.bisect_right(lines, off)

    in_function = 0
    for k, ch in enumerate(code):
        if ch == "{":
            head = code[head_start:k]
            kind = "scope"
            if not in_function:
                h = head.rstrip()
                if h.endswith("="):
                    kind = "scope"
                elif FUNCTION_HEAD.search(h) and "(" in h:
                    kind = "function"
                    m = LABEL.match(head)
                    start = head_start + (m.end() if m else 0)
                    while start < k and code[start].isspace():
                        start += 1
                    lam = re.search(r"([\w:]+)\s*=\s*\[[^\]]*\]\s*\(", h)
                    name = re.search(r"([~\w:]+(?:<[^()]*>)?|operator\s*\S+)\s*\(", h)
                    name = ("lambda " + lam.group(1) if lam else name.group(1) if name else "lambda")
                    found.append([line_of(start), None, name, k])
                    in_function = len(stack) + 1
            stack.append(kind)
            head_start = k + 1
        elif ch == "}":
            if stack:
                if in_function and len(stack) == in_function:
                    found[-1][1] = line_of(k)
                    in_function = 0
                stack.pop()
            head_start = k + 1
        elif ch == ";":
            head_start = k + 1
    return [(a, b, name) for a, b, name, _ in found if b is not None]


def check_c(path, text, err, rel):
    code, comments = blank_c(text)
    for first, last, name in c_functions(code):
        n = last - first + 1
        if n > MAX_FUNCTION:
            err(path, first, "function %s has %d lines (at most %d): split it into named helpers"
                % (name, n, MAX_FUNCTION))
    return comments


def check_py(path, text, err):
    try:
        tree = ast.parse(text)
    except SyntaxError as e:
        err(path, e.lineno or 1, "does not parse: %s" % e.msg)
        return []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            n = node.end_lineno - first + 1
            if n > MAX_FUNCTION:
                err(path, first, "function %s has %d lines (at most %d): split it into named helpers"
                    % (node.name, n, MAX_FUNCTION))
    return hash_comments(text)


def hash_comments(text):
    out = []
    for k, line in enumerate(text.split("\n"), 1):
        m = re.search(r"(?:^|\s)#(?![!{'\"])(.*)$", line)
        if m:
            out.append((k, m.group(1)))
    return out


def main():
    top = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    errors = []

    def err(path, line, msg):
        errors.append("%s:%d: %s" % (path.relative_to(top), line, msg))

    files = sorted(p for p in (top / "src").rglob("*") if p.is_file())
    for p in files:
        try:
            text = p.read_text()
        except UnicodeDecodeError:
            continue
        nlines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if nlines > MAX_FILE:
            err(p, MAX_FILE + 1, "file has %d lines (at most %d): split it along a seam" % (nlines, MAX_FILE))
        if p.suffix in C_EXT:
            comments = check_c(p, text, err, str(p.relative_to(top)))
        elif p.suffix == ".py":
            comments = check_py(p, text, err)
        elif p.suffix in HASH_COMMENT_EXT or p.name in ("Makefile.am",):
            comments = hash_comments(text)
        else:
            comments = []
        for line, c in comments:
            for rx, what in NARRATIVE:
                m = rx.search(c)
                if m:
                    err(p, line, "figure narrative in a comment (%s: '%s'): say what the code does and "
                                 "why; figures live in bench/results (doc/tuning.md)" % (what, m.group(0).strip()))
                    break
    if errors:
        sys.stderr.write("\n".join(errors) + "\n")
        sys.stderr.write("check-code: %d problem(s)\n" % len(errors))
        return 1
    print("check-code: %d files in src/: functions <= %d lines, files <= %d lines, no figure narratives"
          % (len(files), MAX_FUNCTION, MAX_FILE))
    return 0


if __name__ == "__main__":
    sys.exit(main())

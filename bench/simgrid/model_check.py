#!/usr/bin/env python3
"""model_check.py -- how well the cost model predicts SimGrid's simulated time.

  bench/simgrid/model_check.py --build BUILD --maps DIR [--maps DIR2 ...] [--out FILE] [--machine TEXT]
                               [--plain-trees] [--call-constants] [--families]

DIR is what `run.py --maps DIR` saves: every row's placement, graph,
all-to-all groups and simulated communication time (manifest.json).  For
each row this runs `rankmap eval --json` with the model's inputs (bytes per
unit of graph weight, the FFT's row/column groups, the cluster's link
constants) and compares its predicted_time with the simulated time:

  - Spearman rank correlation over all rows (ties get their mean rank);
  - per case (kernel on one platform): Spearman, and the share of placement
    pairs whose simulated times differ by more than 2 % that the model puts
    in the same order;
  - relative error |predicted - simulated| / simulated, worst row.

Prints a markdown report (or writes FILE with the bench/results header).
A row in several manifests is taken from the last one given.
--plain-trees judges fat trees (tree:...:up=...) as plain trees, one uplink
per switch, to show what the fat tree's routes add to the model.
--call-constants drops the platform's link constants (--bandwidth,
--latency): the model as the guard inside an MPI call sees the machine,
from the declared topology alone.
--families adds, per family of placements (the label before " #"), the
pairs it is in and the model's sign errors, and against the launch order
(the guard's decision) the harmful ones: simulated slower than the launch
order by more than 2 % while the model predicts a gain of more than the
guard's margin (RANKMAP_GUARD_MARGIN, 2 %).
"""
import re
import argparse
import datetime
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
TIE = 0.02  # simulated times closer than 2 % count as a tie in the pair check
MARGIN = 0.02  # the guard's margin (RANKMAP_GUARD_MARGIN in include/rankmap_glue.h)


def ranks(xs):
    """Ranks 1..n, tied values get their mean rank."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(a, b):
    """Pearson correlation of the ranks; None when either side is constant."""
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((y - mb) ** 2 for y in rb)
    if va == 0 or vb == 0:
        return None
    return cov / (va * vb) ** 0.5


def pair_agreement(sim, pred):
    """(agreeing, compared) over pairs whose simulated times differ by more than TIE."""
    ok = total = 0
    for i in range(len(sim)):
        for j in range(i + 1, len(sim)):
            lo, hi = sorted((sim[i], sim[j]))
            if hi <= lo * (1 + TIE):
                continue
            total += 1
            ok += (sim[i] < sim[j]) == (pred[i] < pred[j]) and pred[i] != pred[j]
    return ok, total


def predict(rankmap, d, row):
    cmd = [rankmap, "eval", "--topology", row["topology"], "--graph", os.path.join(d, row["graph"]),
           "--mapping", os.path.join(d, row["mapping"]), "--json",
           "--bytes-per-unit", repr(float(row["bytes_per_unit"])), *row["model_args"]]
    if row.get("alltoall"):
        cmd += ["--alltoall", os.path.join(d, row["alltoall"])]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"model_check.py: {' '.join(cmd)} failed: {p.stderr.strip()}")
    return json.loads(p.stdout)["predicted_time"]


def family(label):
    return label.split(" #")[0]


def family_lines(cases):
    """Per family: the pairs (same case, simulated more than TIE apart) it is
    in and the model's sign errors among them; against the case's launch
    order (its row "launch order" or "... (launch)", else its first row): the sign errors and the harmful ones (simulated
    slower than the launch order by more than TIE, predicted faster by more
    than MARGIN: the guard would take them)."""
    fam = {}
    harmful_rows = []
    for (k, p), xs in cases.items():
        base = next((i for i, x in enumerate(xs) if x[2] == "launch order" or x[2].endswith("(launch)")), 0)
        s0, m0 = xs[base][0], xs[base][1]
        for i, (si, mi, li) in enumerate(xs):
            f = fam.setdefault(family(li), dict(rows=0, pairs=0, wrong=0, vs=0, vs_wrong=0, harmful=0))
            f["rows"] += 1
            for j, (sj, mj, lj) in enumerate(xs):
                if i == j:
                    continue
                lo, hi = sorted((si, sj))
                if hi <= lo * (1 + TIE):
                    continue
                f["pairs"] += 1
                wrong = (si < sj) != (mi < mj) or mi == mj
                f["wrong"] += wrong
                if j == base:
                    f["vs"] += 1
                    f["vs_wrong"] += wrong
            if i != base and si > s0 * (1 + TIE) and mi < m0 * (1 - MARGIN):
                f["harmful"] += 1
                harmful_rows.append(f"{k} | {p} | {li}: simulated {si / s0:.3f}x the launch order's time, "
                                    f"predicted {mi / m0:.3f}x")
    total = sum(f["wrong"] for f in fam.values()) // 2
    out = [f"Per family ({total} sign errors among all pairs; a pair counts once in each of its two families; "
           f"\"against launch\": the pair with the case's launch order, the guard's decision):", "",
           "| family | rows | pairs | sign errors | pairs with launch | sign errors against launch | "
           "harmful (guard would take a slower placement) |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for name, f in fam.items():
        out.append(f"| {name} | {f['rows']} | {f['pairs']} | {f['wrong']} | {f['vs']} | {f['vs_wrong']} | "
                   f"{f['harmful']} |")
    if harmful_rows:
        out += ["", "Harmful rows:", ""] + [f"- {x}" for x in harmful_rows]
    return out


def fmt(x, spec="{:.2f}"):
    return "-" if x is None else spec.format(x)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(SRC, "_build"), help="rankmap build tree")
    ap.add_argument("--maps", action="append", required=True, help="a directory run.py --maps wrote")
    ap.add_argument("--out", help="write the report here with the bench/results header")
    ap.add_argument("--machine", default="", help="the machine, for the header")
    ap.add_argument("--plain-trees", action="store_true",
                    help="judge fat trees as plain trees (drop :up=... from every topology)")
    ap.add_argument("--call-constants", action="store_true",
                    help="drop the platform's link constants: the model as the guard in an MPI call sees it")
    ap.add_argument("--families", action="store_true",
                    help="sign errors per family of placements and against the launch order")
    a = ap.parse_args()
    rankmap = os.path.join(os.path.abspath(a.build), "rankmap")
    if not os.access(rankmap, os.X_OK):
        sys.exit(f"model_check.py: {rankmap} not found (build rankmap, or pass --build DIR)")

    rows, modes = {}, []
    for d in a.maps:
        with open(os.path.join(d, "manifest.json")) as f:
            man = json.load(f)
        modes.append(man["mode"])
        for r in man["rows"]:
            if a.plain_trees:
                r["topology"] = re.sub(r":up=[0-9,]+", "", r["topology"])
            if a.call_constants:
                r["model_args"] = []
            if r.get("comm_s"):
                key = (r["kernel"], r["platform"], r["placement"])
                rows.pop(key, None)  # the later manifest's row, in its order
                rows[key] = (d, r)
    table, cases = [], {}
    for key, (d, r) in rows.items():
        pred = predict(rankmap, d, r)
        err = abs(pred - r["comm_s"]) / r["comm_s"]
        table.append((key, r["comm_s"], pred, err))
        cases.setdefault(key[:2], []).append((r["comm_s"], pred, key[2]))

    sim = [t[1] for t in table]
    pred = [t[2] for t in table]
    rho = spearman(sim, pred)
    worst = max(table, key=lambda t: t[3])
    ok_all = tot_all = 0
    how = [x for x, on in (("fat trees judged as plain trees", a.plain_trees),
                           ("the call's constants: the declared topology alone", a.call_constants)) if on]
    out = [f"**Cost model{' (' + '; '.join(how) + ')' if how else ''} against SimGrid "
           f"({', '.join(modes)} run{'s' if len(modes) > 1 else ''}: "
           f"{len(table)} placements in {len(cases)} cases)**", "",
           f"- Spearman rank correlation over all rows: **{rho:.3f}** (issue 24 target: >= 0.9)"]
    case_lines = ["| kernel | platform | rows | Spearman | pairs in the simulated order | worst error |",
                  "|---|---|---:|---:|---:|---:|"]
    for (k, p), xs in cases.items():
        s = [x[0] for x in xs]
        m = [x[1] for x in xs]
        ok, tot = pair_agreement(s, m)
        ok_all += ok
        tot_all += tot
        rc = spearman(s, m) if len(xs) > 2 else None
        we = max(abs(y - x) / x for x, y, _ in xs)
        case_lines.append(f"| {k} | {p} | {len(xs)} | {fmt(rc)} | "
                          f"{f'{ok}/{tot}' if tot else '- (all within 2 %)'} | {we * 100:.0f} % |")
    out += [f"- placement pairs (same case, simulated times more than {TIE * 100:g} % apart) the model puts in "
            f"the simulated order: **{ok_all}/{tot_all}**",
            f"- worst relative error: **{worst[3] * 100:.0f} %** ({' | '.join(worst[0])}: simulated "
            f"{worst[1] * 1e3:.3f} ms, predicted {worst[2] * 1e3:.3f} ms); median "
            f"{sorted(t[3] for t in table)[len(table) // 2] * 100:.1f} %", "", "Per case:", ""]
    out += case_lines
    if a.families:
        out += [""] + family_lines(cases)
    out += ["", "Every row:", "",
            "| kernel | platform | placement | simulated (ms) | predicted (ms) | error |",
            "|---|---|---|---:|---:|---:|"]
    for (k, p, pl), s, m, e in table:
        out.append(f"| {k} | {p} | {pl} | {s * 1e3:.3f} | {m * 1e3:.3f} | {(m - s) / s * 100:+.1f} % |")
    out += ["", "predicted: `rankmap eval ... --bytes-per-unit U [--alltoall GROUPS] [--bandwidth ... --latency ...]`"
            " (src/cost/model.hpp); error: (predicted - simulated) / simulated."]
    text = "\n".join(out) + "\n"
    if a.out:
        commit = subprocess.run(["git", "-C", SRC, "describe", "--always", "--dirty"], capture_output=True,
                                text=True).stdout.strip() or "unknown"
        cmd = "bench/simgrid/model_check.py " + " ".join(
            f"--maps {os.path.relpath(d, SRC)}" for d in a.maps) + f" --build {os.path.relpath(a.build, SRC)}" + \
            (" --plain-trees" if a.plain_trees else "") + (" --call-constants" if a.call_constants else "") + \
            (" --families" if a.families else "")
        head = (f"> date: {datetime.date.today().isoformat()} · commit: {commit} ·\n"
                f"> machine: {a.machine or 'not stated'} ·\n"
                f"> command: `{cmd}` (placements and simulated times from `bench/simgrid/run.py ... --maps DIR`)\n\n")
        with open(a.out, "w") as f:
            f.write(head + text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())

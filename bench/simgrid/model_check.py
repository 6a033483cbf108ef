#!/usr/bin/env python3
"""model_check.py -- how well the cost model predicts SimGrid's simulated time.

  bench/simgrid/model_check.py --build BUILD --maps DIR [--maps DIR2 ...] [--out FILE] [--machine TEXT]
                               [--plain-trees]

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
            if r.get("comm_s"):
                key = (r["kernel"], r["platform"], r["placement"])
                rows.pop(key, None)  # the later manifest's row, in its order
                rows[key] = (d, r)
    table, cases = [], {}
    for key, (d, r) in rows.items():
        pred = predict(rankmap, d, r)
        err = abs(pred - r["comm_s"]) / r["comm_s"]
        table.append((key, r["comm_s"], pred, err))
        cases.setdefault(key[:2], []).append((r["comm_s"], pred))

    sim = [t[1] for t in table]
    pred = [t[2] for t in table]
    rho = spearman(sim, pred)
    worst = max(table, key=lambda t: t[3])
    ok_all = tot_all = 0
    out = [f"**Cost model{' (fat trees judged as plain trees)' if a.plain_trees else ''} against SimGrid "
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
        we = max(abs(y - x) / x for x, y in xs)
        case_lines.append(f"| {k} | {p} | {len(xs)} | {fmt(rc)} | "
                          f"{f'{ok}/{tot}' if tot else '- (all within 2 %)'} | {we * 100:.0f} % |")
    out += [f"- placement pairs (same case, simulated times more than {TIE * 100:g} % apart) the model puts in "
            f"the simulated order: **{ok_all}/{tot_all}**",
            f"- worst relative error: **{worst[3] * 100:.0f} %** ({' | '.join(worst[0])}: simulated "
            f"{worst[1] * 1e3:.3f} ms, predicted {worst[2] * 1e3:.3f} ms); median "
            f"{sorted(t[3] for t in table)[len(table) // 2] * 100:.1f} %", "", "Per case:", ""]
    out += case_lines
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
            (" --plain-trees" if a.plain_trees else "")
        head = (f"> date: {datetime.date.today().isoformat()} · commit: {commit} ·\n"
                f"> machine: {a.machine or 'not stated'} ·\n"
                f"> command: `{cmd}` (placements and simulated times from `bench/simgrid/run.py ... --maps DIR`)\n\n")
        with open(a.out, "w") as f:
            f.write(head + text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""plot.py -- bandwidth plot of bench/bcast/run.py results.

  bench/bcast/plot.py RESULTS.csv OUT.png [--dims 8x8x8]
"""
import argparse
import csv
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LINK_BW = 154e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("png")
    ap.add_argument("--dims", default="8x8x8")
    a = ap.parse_args()
    nd = sum(1 for x in a.dims.split("x") if int(x) > 1)
    data = defaultdict(lambda: defaultdict(dict))
    with open(a.csv) as f:
        for r in csv.DictReader(f):
            data[r["platform"]][r["algorithm"]][int(r["bytes"])] = float(r["seconds"])
    kinds = [k for k in ("torus", "mesh") if k in data]
    fig, axes = plt.subplots(1, len(kinds), figsize=(6.5 * len(kinds), 4.8), squeeze=False)
    for ax, kind in zip(axes[0], kinds):
        links = 2 * nd if kind == "torus" else nd
        for alg, pts in sorted(data[kind].items(), key=lambda kv: (kv[0] != "torus", kv[0])):
            xs = sorted(pts)
            ax.plot(xs, [x / pts[x] / 1e6 for x in xs], marker="o",
                    lw=2.5 if alg == "torus" else 1, label=alg + (" (this work)" if alg == "torus" else ""))
        ax.axhline(links * LINK_BW / 1e6, color="k", ls="--", lw=1, label=f"{links}-link bound")
        ax.axhline(0.8 * links * LINK_BW / 1e6, color="grey", ls=":", lw=1, label="80 % of bound")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel("broadcast bandwidth (MB/s)")
        ax.set_title(f"{a.dims} {kind}, 154 MB/s links (SimGrid SMPI)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(a.png, dpi=110)


if __name__ == "__main__":
    main()

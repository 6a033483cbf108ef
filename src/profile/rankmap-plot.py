#!/usr/bin/env python3
"""rankmap plot -- pictures of communication graphs, placements and annealing.

  rankmap plot matrix      (--graph G [--format F] | --profile P [--weights auto|count|volume]
                            [--threshold B]) --out X.png|X.svg [--title T] [--linear]
  rankmap plot placement   --topology torus:AxBxC --mapping M.map [--before M0.map]
                            [--color rank|cart:DIMS] [--style slices|scatter] --out X.png|X.svg
  rankmap plot convergence --trace FILE [--trace FILE2 ...] [--label L ...] --out X.png|X.svg

matrix: the communication matrix C(i,j) as a heat map (Bhanot et al., BG/L
task layout, Figures 2 and 5), logarithmic colour scale unless --linear.
placement: where each task sits on the machine, one panel per mapping
(--before, then --mapping), each z plane of a 3-D torus a small grid (slices)
or one 3-D scatter; colour = rank, or the task's coordinates in a Cartesian
task grid (cart:8x8x8 -> red/green/blue = x/y/z), so a good mapping shows
smooth colour gradients.  convergence: F/F_min against the annealing step
(`rankmap map --trace FILE` writes one line per beta step: step beta ratio
acceptance), every beta step marked, beta on the right axis (Bhanot et al.,
BG/L task layout, Figures 3 and 6).  Every error names the file and line; exit
status 1 on bad input, 2 on a usage error.
"""
import argparse
import math
import os
import sys


class InputError(Exception):
    pass


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _lines(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                yield n, line
    except OSError as e:
        raise InputError("%s: cannot open: %s" % (path, e.strerror))


def _num(path, n, text, kind=float):
    try:
        v = kind(text)
    except ValueError:
        raise InputError("%s:%d: '%s' is not a %s" % (path, n, text, "whole number" if kind is int else "number"))
    if kind is float and not math.isfinite(v):
        raise InputError("%s:%d: '%s' is not finite" % (path, n, text))
    return v


# ---- graphs -------------------------------------------------------------------

def read_edges(path):
    edges, n_decl, top = [], None, -1
    for n, line in _lines(path):
        if "#" in line:
            c = line[line.index("#") + 1:].strip()
            if c.startswith("tasks:"):
                n_decl = _num(path, n, c[6:].strip(), int)
            line = line[:line.index("#")]
        f = line.replace(",", " ").split()
        if not f:
            continue
        if len(f) not in (2, 3):
            raise InputError("%s:%d: expected 'src dst [weight]'" % (path, n))
        s, d = _num(path, n, f[0], int), _num(path, n, f[1], int)
        w = _num(path, n, f[2]) if len(f) == 3 else 1.0
        if s < 0 or d < 0 or w < 0:
            raise InputError("%s:%d: negative task or weight" % (path, n))
        top = max(top, s, d)
        edges.append((s, d, w))
    ntasks = n_decl if n_decl is not None else top + 1
    if ntasks <= 0:
        raise InputError("%s: no edges" % path)
    return ntasks, edges


def read_metis(path):
    header, edges, v, fmt = None, [], 0, "000"
    for n, line in _lines(path):
        if line.startswith("%"):
            continue
        f = line.split()
        if header is None:
            if not f:
                continue
            if len(f) < 2:
                raise InputError("%s:%d: METIS header must be 'n m [fmt [ncon]]'" % (path, n))
            header = [_num(path, n, x, int) for x in f[:2]]
            fmt = f[2].zfill(3) if len(f) > 2 else "000"
            ncon = _num(path, n, f[3], int) if len(f) > 3 else 1
            continue
        if v >= header[0]:
            continue
        i = (1 if fmt[0] == "1" else 0) + (ncon if fmt[1] == "1" else 0)
        step = 2 if fmt[2] == "1" else 1
        while i < len(f):
            u = _num(path, n, f[i], int) - 1
            w = _num(path, n, f[i + 1]) if step == 2 and i + 1 < len(f) else 1.0
            if not 0 <= u < header[0]:
                raise InputError("%s:%d: neighbour %s out of range" % (path, n, f[i]))
            edges.append((v, u, w))
            i += step
        v += 1
    if header is None:
        raise InputError("%s: no METIS header" % path)
    return header[0], edges


def read_matrix(path):
    rows = []
    for n, line in _lines(path):
        line = line.split("#")[0]
        f = line.replace(",", " ").split()
        if f:
            rows.append([_num(path, n, x) for x in f])
    if not rows or any(len(r) != len(rows) for r in rows):
        raise InputError("%s: the matrix must be square" % path)
    return len(rows), [(i, j, w) for i, r in enumerate(rows) for j, w in enumerate(r) if w > 0 and i != j]


def read_profile(path, weights="auto", threshold=16384.0):
    """'rankmap-profile 1' -> (ntasks, edges, chosen weights, median bytes).
    The weight choice repeats the engine's (src/profile/profile.cpp)."""
    ntasks, pairs, hist, first = None, [], [0] * 65, True
    for n, line in _lines(path):
        if first:
            if line.strip() != "rankmap-profile 1":
                raise InputError("%s:%d: not a rankmap profile (first line 'rankmap-profile 1')" % (path, n))
            first = False
            continue
        f = line.split("#")[0].split()
        if not f or f[0] == "meta":
            continue
        if f[0] == "tasks" and len(f) == 2:
            ntasks = _num(path, n, f[1], int)
        elif f[0] == "histogram" and len(f) == 3:
            k = _num(path, n, f[1], int)
            if not 0 <= k <= 64:
                raise InputError("%s:%d: histogram bin %d outside 0..64" % (path, n, k))
            hist[k] = _num(path, n, f[2], int)
        elif f[0] == "pair" and len(f) == 5:
            if ntasks is None:
                raise InputError("%s:%d: 'pair' before 'tasks N'" % (path, n))
            s, d, c, b = (_num(path, n, x, int) for x in f[1:])
            if not (0 <= s < ntasks and 0 <= d < ntasks) or c < 1 or b < 0:
                raise InputError("%s:%d: bad pair line" % (path, n))
            pairs.append((s, d, c, b))
        else:
            raise InputError("%s:%d: unknown or malformed record '%s'" % (path, n, f[0]))
    if ntasks is None:
        raise InputError("%s: no 'tasks N' line" % path)
    total = sum(hist)
    median = 0.0
    if total > 0:
        before = 0
        for k, h in enumerate(hist):
            if h and before + h >= total / 2:
                median = 0.0 if k == 0 else 2.0 ** (k - 1) * 2.0 ** ((total / 2 - before) / h)
                break
            before += h
    else:
        means = sorted((b / c, c) for _, _, c, b in pairs)
        total = sum(c for _, c in means)
        before = 0
        for size, c in means:
            before += c
            if before >= total / 2:
                median = size
                break
    if weights == "auto":
        weights = "volume" if total > 0 and median >= threshold else "count"
    edges = [(s, d, float(c if weights == "count" else b)) for s, d, c, b in pairs]
    return ntasks, edges, weights, median


def read_graph(path, fmt):
    if fmt == "auto":
        fmt = ("metis" if path.endswith((".graph", ".metis")) else
               "matrix" if path.endswith((".mat", ".matrix")) else
               "profile" if path.endswith(".prof") else "edges")
    if fmt == "edges":
        return read_edges(path)
    if fmt == "metis":
        return read_metis(path)
    if fmt == "matrix":
        return read_matrix(path)
    if fmt == "profile":
        return read_profile(path)[:2]
    raise InputError("graph format '%s' is unknown (edges, metis, matrix, profile)" % fmt)


# ---- machines and mapfiles ----------------------------------------------------

def topology_dims(spec):
    kind, _, rest = spec.partition(":")
    if kind not in ("torus", "mesh", "tree") or not rest:
        raise InputError("topology '%s': plot placement draws torus:, mesh: and tree: machines" % spec)
    dims = []
    for d in rest.split(":")[0].lower().split("x"):
        if not d.isdigit() or int(d) < 1:
            raise InputError("topology '%s': dimension '%s' is not valid" % (spec, d))
        dims.append(int(d))
    return dims


def read_mapfile(path, dims):
    coords = []
    for n, line in _lines(path):
        f = line.split("#")[0].replace(",", " ").split()
        if not f:
            continue
        if len(f) not in (len(dims), len(dims) + 1):
            raise InputError("%s:%d: expected %d coordinates" % (path, n, len(dims)))
        c = [_num(path, n, x, int) for x in f[:len(dims)]]
        for k, (x, d) in enumerate(zip(c, dims)):
            if not 0 <= x < d:
                raise InputError("%s:%d: coordinate %d = %d is outside 0..%d" % (path, n, k, x, d - 1))
        coords.append(c)
    if not coords:
        raise InputError("%s: no coordinates" % path)
    return coords


def task_colours(ntasks, colour):
    import matplotlib
    if colour == "rank":
        cmap = matplotlib.colormaps["viridis"] if hasattr(matplotlib, "colormaps") else matplotlib.cm.get_cmap("viridis")
        return [cmap(r / max(1, ntasks - 1)) for r in range(ntasks)]
    if colour.startswith("cart:"):
        g = [int(x) for x in colour[5:].lower().split("x") if x.isdigit()]
        if not g or math.prod(g) != ntasks:
            raise InputError("--color %s: the grid must hold exactly %d tasks" % (colour, ntasks))
        g3 = (g + [1, 1])[:3] if len(g) <= 3 else g[:3]
        out = []
        for r in range(ntasks):
            c, rest = [], r
            for d in reversed(g):
                c.append(rest % d)
                rest //= d
            c = list(reversed(c))[:3] + [0, 0]
            out.append(tuple(0.1 + 0.8 * (c[k] / max(1, g3[k] - 1)) for k in range(3)) + (1.0,))
        return out
    raise InputError("--color '%s' must be rank or cart:DIMS" % colour)


# ---- commands -----------------------------------------------------------------

def cmd_matrix(a):
    plt = _plt()
    import numpy as np
    from matplotlib.colors import LogNorm
    if bool(a.graph) == bool(a.profile):
        raise UsageError("plot matrix needs --graph G or --profile P")
    note = ""
    if a.profile:
        n, edges, w, median = read_profile(a.profile, a.weights, a.threshold)
        note = " (%s, median message %.0f B)" % ("bytes" if w == "volume" else "messages", median)
    else:
        n, edges = read_graph(a.graph, a.format)
    # Above 256 tasks, blocks of tasks are summed into one cell (a figure
    # has a few hundred pixels across; finer cells would drop diagonals).
    b = max(1, math.ceil(n / 256))
    m = np.zeros(((n + b - 1) // b, (n + b - 1) // b))
    for s, d, w in edges:
        m[s // b, d // b] += w
    fig, ax = plt.subplots(figsize=(6, 5.2))
    pos = m[m > 0]
    norm = LogNorm(vmin=pos.min(), vmax=pos.max()) if (not a.linear and pos.size and pos.min() < pos.max()) else None
    shown = np.ma.masked_where(m <= 0, m)
    cmap = plt.get_cmap("inferno_r").copy()
    cmap.set_bad("white")
    im = ax.imshow(shown, cmap=cmap, norm=norm, interpolation="nearest", origin="upper")
    fig.colorbar(im, ax=ax, label="C(i, j)" + note)
    ax.set_xlabel("receiver task j" + (" (blocks of %d)" % b if b > 1 else ""))
    ax.set_ylabel("sender task i" + (" (blocks of %d)" % b if b > 1 else ""))
    ax.set_title(a.title or "communication matrix: %s" % os.path.basename(a.profile or a.graph))
    fig.tight_layout()
    fig.savefig(a.out, dpi=a.dpi)


def _placement_panel(fig, grid_spec, dims, coords, colours, title, style, plt):
    import numpy as np
    d3 = (dims + [1, 1])[:3]
    if style == "scatter":
        ax = fig.add_subplot(grid_spec, projection="3d")
        # tasks sharing a node are nudged apart
        seen = {}
        xs, ys, zs = [], [], []
        for c in coords:
            c3 = (c + [0, 0])[:3]
            k = seen.get(tuple(c3), 0)
            seen[tuple(c3)] = k + 1
            xs.append(c3[0] + 0.15 * k)
            ys.append(c3[1])
            zs.append(c3[2])
        ax.scatter(xs, ys, zs, c=colours, s=max(6, 2400 / max(1, len(coords))), depthshade=False)
        ax.set_xlabel("x")
        ax.set_ylabel("y")
        ax.set_zlabel("z")
        ax.set_title(title)
        return
    # slices: one small x-y grid per z plane
    nz = d3[2]
    cols = min(nz, 4)
    rows = math.ceil(nz / cols)
    sub = grid_spec.subgridspec(rows, cols, wspace=0.08, hspace=0.25)
    img = np.ones((nz, d3[0], d3[1], 4))
    for c, col in zip(coords, colours):
        c3 = (c + [0, 0])[:3]
        img[c3[2], c3[0], c3[1]] = col
    for z in range(nz):
        ax = fig.add_subplot(sub[z // cols, z % cols])
        ax.imshow(img[z], interpolation="nearest", origin="lower")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title("z = %d" % z, fontsize=7)
    fig.text(0.0, 0.0, "")
    axes = fig.add_subplot(grid_spec, frameon=False)
    axes.set_xticks([])
    axes.set_yticks([])
    axes.set_title(title + "\n", fontsize=10)


def cmd_placement(a):
    plt = _plt()
    dims = topology_dims(a.topology)
    if len(dims) > 3:
        raise InputError("topology '%s': plot placement draws 1 to 3 dimensions" % a.topology)
    panels = []
    if a.before:
        panels.append(("before: " + os.path.basename(a.before), read_mapfile(a.before, dims)))
    panels.append(("after: " + os.path.basename(a.mapping), read_mapfile(a.mapping, dims)))
    n = len(panels[-1][1])
    for name, c in panels:
        if len(c) != n:
            raise InputError("%s has %d tasks, %s has %d" % (panels[0][0], len(panels[0][1]), name, len(c)))
    colours = task_colours(n, a.color)
    style = a.style or ("slices" if (dims + [1, 1])[2] <= 16 else "scatter")
    nz = (dims + [1, 1])[2]
    height = 5 if style == "scatter" else 1.4 + 2.2 * math.ceil(nz / min(nz, 4)) * (dims[0] / max(dims[1], 1)) ** 0.5
    fig = plt.figure(figsize=(5.2 * len(panels), min(9, height)))
    gs = fig.add_gridspec(1, len(panels), wspace=0.15)
    for k, (title, coords) in enumerate(panels):
        _placement_panel(fig, gs[0, k], dims, coords, colours, title, style, plt)
    fig.suptitle(a.title or "placement on %s, colour = %s" % (a.topology, a.color), fontsize=11)
    fig.savefig(a.out, dpi=a.dpi)


def read_trace(path):
    chains, cur, last = [], [], None
    for n, line in _lines(path):
        f = line.split("#")[0].split()
        if not f:
            continue
        if len(f) != 4:
            raise InputError("%s:%d: expected 'step beta ratio acceptance'" % (path, n))
        step, beta, ratio, acc = _num(path, n, f[0], int), _num(path, n, f[1]), _num(path, n, f[2]), _num(path, n, f[3])
        if last is not None and step <= last and cur:
            chains.append(cur)   # a new annealing run (auto runs several)
            cur = []
        cur.append((step, beta, ratio, acc))
        last = step
    if cur:
        chains.append(cur)
    if not chains:
        raise InputError("%s: no trace points (was it written by rankmap map --trace with an annealing mapper?)" % path)
    return chains


def cmd_convergence(a):
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax2 = ax.twinx()
    labels = a.label or []
    for t, path in enumerate(a.trace):
        chains = read_trace(path)
        for c, chain in enumerate(chains):
            lab = labels[t] if t < len(labels) else os.path.basename(path)
            if len(chains) > 1:
                lab += " (run %d)" % (c + 1)
            steps = [p[0] for p in chain]
            line, = ax.plot(steps, [p[2] for p in chain], marker="o", markersize=2.5, linewidth=1.2, label=lab)
            ax2.plot(steps, [p[1] for p in chain], linestyle=":", linewidth=1, color=line.get_color(), alpha=0.7)
    ax.set_xlabel("annealing step (one marker per beta step)")
    ax.set_ylabel("F / F_min")
    ax2.set_ylabel("beta (dotted)")
    ax2.set_yscale("log")
    ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
    ax.legend(loc="upper right", fontsize=8)
    ax.set_title(a.title or "annealing convergence")
    fig.tight_layout()
    fig.savefig(a.out, dpi=a.dpi)


class UsageError(Exception):
    pass


def main(argv):
    p = argparse.ArgumentParser(prog="rankmap plot", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="what")
    m = sub.add_parser("matrix", help="communication matrix heat map")
    m.add_argument("--graph")
    m.add_argument("--format", default="auto")
    m.add_argument("--profile")
    m.add_argument("--weights", default="auto", choices=["auto", "count", "volume"])
    m.add_argument("--threshold", type=float, default=16384.0)
    m.add_argument("--linear", action="store_true")
    pl = sub.add_parser("placement", help="tasks on the torus, before and after")
    pl.add_argument("--topology", required=True)
    pl.add_argument("--mapping", required=True)
    pl.add_argument("--before")
    pl.add_argument("--color", default="rank")
    pl.add_argument("--style", choices=["slices", "scatter"])
    c = sub.add_parser("convergence", help="F/F_min against the annealing step")
    c.add_argument("--trace", action="append", required=True)
    c.add_argument("--label", action="append")
    for s in (m, pl, c):
        s.add_argument("--out", required=True)
        s.add_argument("--title")
        s.add_argument("--dpi", type=int, default=110)
    a = p.parse_args(argv)
    if not a.what:
        p.print_help()
        return 2
    if not a.out.endswith((".png", ".svg", ".pdf")):
        print("rankmap plot: --out '%s' must end in .png or .svg" % a.out, file=sys.stderr)
        return 2
    try:
        {"matrix": cmd_matrix, "placement": cmd_placement, "convergence": cmd_convergence}[a.what](a)
    except UsageError as e:
        print("rankmap plot: %s" % e, file=sys.stderr)
        return 2
    except InputError as e:
        print("rankmap plot: error: %s" % e, file=sys.stderr)
        return 1
    except ImportError as e:
        print("rankmap plot: error: %s (install python3-matplotlib)" % e, file=sys.stderr)
        return 1
    print("rankmap plot: wrote %s" % a.out, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

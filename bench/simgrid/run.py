#!/usr/bin/env python3
"""run.py -- the founding papers' experiments on simulated machines (SimGrid SMPI).

  bench/simgrid/run.py [--quick | --smoke | --irregular | --clusters | --fattree | --harm [--sizes N,...]
                        | --validate] [--build DIR] [--out DIR] [--jobs N]
                       [--maps DIR] [--record FILE]

Builds the MPI kernels (kernels/*.c) with SimGrid's smpicc, generates the
platforms (sg_platform.py), the communication graphs (`rankmap gen`) and the
placements (`rankmap map`, sg_maps), runs every (kernel, platform,
placement) with smpirun -hostfile (line r = host of rank r) and prints one
table: kernel | platform | placement | cost F/F_min | max link load |
simulated communication time | speed-up over rank order | model | paper's
figure, then the issue's targets with PASS/MISS.  The papers: Bhanot et al.,
"Optimizing task layout on the Blue Gene/L supercomputer"; Smith and Bode,
"Performance effects of node mappings on the IBM BlueGene/L machine"; Chen
et al., "MPIPP: an automatic profile-guided parallel process placement
toolset for SMP clusters and multiclusters"; Jagode et al., "Task placement
of parallel multi-dimensional FFTs on a mesh communication network".
Writes DIR/<mode>.csv, .md and .png.
With --maps DIR it also saves every row's placement, graph and simulated
time (DIR/manifest.json) for the cost model's check (model_check.py).
With --record FILE it writes the table and the targets to FILE with the
header of bench/results (date, commit, machine, command).

  --quick   the fast subset (README main command): SAGE-like and scrambled
            cubic1 on 8x8x8, the 8x4x4 stencil, the FFT row/column phases,
            the three-tier 8x4 cluster; a few minutes on a quiet machine.
  --smoke   CTest smoke test: scrambled cubic1 on a 4x4x2 torus, rank order
            vs rankmap; exit 1 unless rankmap's time is lower.
  --irregular  SAGE-like and UMT-like on the 8x8x8 torus only: rank order,
            rankmap default, rankmap default in the call (K ranks) and
            rankmap congestion; with --seeds S also both defaults with the
            seeds 2..S (their spread is a target line).
The irregular workloads' "rankmap default in the call (K ranks)" row is
`rankmap map --portfolio K`, K the call's default (RANKMAP_PORTFOLIO_DEFAULT
in include/rankmap_glue.h): the K searches and the election of the call's
portfolio, run one after another.
  --clusters  only the clusters of Chen et al. (MPIPP) of the full run (8x2 /
            8x4, two- and three-tier, 3-D halo and irregular).  Clusters of at most 24
            cores also get the exhaustive optimum of F (sg_maps optimum),
            printed beside the "rankmap beats METIS" target.
  --fattree  today's clusters: two-level fat trees (D-mod-K routes) of 8 to
            32 hosts x 8 or 16 cores, full bisection and tapered 2:1, block
            and round-robin launch orders: pencil-FFT transposes at grid
            shapes whose rows fit a host, whose columns do, and neither;
            2-D and 3-D stencils and an irregular (UMT-like) graph.  Rows:
            the launch order, the same grouping on scrambled hosts,
            rankmap's default as rankmap map decides (FFT: with and
            without the all-to-all hint; graph files: also with their
            unit and the platform's links given, --bytes-per-unit,
            --bandwidth, --latency) and as the PMPI plugin decides
            inside MPI_Cart_create (SMPI), Scotch (tleaf) and METIS.
  --harm    do no harm where users run (issue 61): fat trees of 100 Gb/s
            declared as a node tree or with their switches, in the call
            (MAPPING unset or the launch order, hint or none) and through
            rankmap map with plain graph files; the 8x8x8 torus of today.
  --validate  the cost model on placements no mapper proposed (with --maps
            DIR, then model_check.py --maps DIR --families): launch orders
            with hosts permuted or ranks exchanged, tiles, random
            placements, the mapper before the guard.

SMPI settings: smpi/bw-factor:0:1 and smpi/lat-factor:0:1 (correction
factors 1), network/crosstraffic:0, smpi/simulate-computation:no (the time
is network time only), smpi/alltoall:pair (pairwise exchange, MPICH's
long-message all-to-all).  Platform parameters: see sg_platform.py.
"""
import argparse
import concurrent.futures
import csv
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, HERE)
import sg_platform as plat  # noqa: E402
import sg_record  # noqa: E402

SMPI_CFG = ["--cfg=smpi/bw-factor:0:1", "--cfg=smpi/lat-factor:0:1", "--cfg=network/crosstraffic:0",
            "--cfg=smpi/simulate-computation:no", "--cfg=smpi/alltoall:pair",
            "--cfg=smpi/display-timing:no", "--log=root.thres:error"]

# Bytes per unit of graph weight (bandwidth-dominated messages: hundreds of
# KiB, 1-2 ms on a 154 MB/s link, against 100 ns per hop).
UNIT = {"cubic1": 65536, "cubic2": 32768, "sage": 64, "umt": 8192}
FFT_BYTES = 4 << 20        # per task: a 512^3 complex-double volume on 512 tasks (Jagode et al.)
STENCIL_BYTES = 256 << 10  # per neighbour message of the 16x8 stencil


def portfolio_default():
    """RANKMAP_PORTFOLIO_DEFAULT of include/rankmap_glue.h: the call's K."""
    with open(os.path.join(SRC, "include", "rankmap_glue.h")) as f:
        m = re.search(r"^#define\s+RANKMAP_PORTFOLIO_DEFAULT\s+(\d+)", f.read(), re.M)
    if not m:
        sys.exit("run.py: include/rankmap_glue.h defines no RANKMAP_PORTFOLIO_DEFAULT")
    return int(m.group(1))


PORTFOLIO = portfolio_default()
IN_CALL = f"rankmap default in the call ({PORTFOLIO} ranks)"

BHANOT_T4 = "Bhanot et al. Table 4 (SAGE 512, BG/L): best map 1.79x less comm. time than rank order"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def sh(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise RuntimeError(f"command failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr.strip()}")
    return p.stdout


class Tools:
    def __init__(self, build, work):
        self.work = work
        self.build = build
        self.rankmap = os.path.join(build, "rankmap")
        self.sg_maps = os.path.join(build, "bench", "simgrid", "sg_maps")
        for exe in (self.rankmap, self.sg_maps):
            if not os.access(exe, os.X_OK):
                sys.exit(f"run.py: {exe} not found: build rankmap first (make), or pass --build DIR")
        for t in ("smpicc", "smpirun"):
            if not shutil.which(t):
                sys.exit(f"run.py: {t} not found (Debian package libsimgrid-dev)")
        self.bin = os.path.join(work, "bin")
        os.makedirs(self.bin, exist_ok=True)
        self.exe = {}

    def kernel(self, name):
        if name not in self.exe:
            out = os.path.join(self.bin, name)
            sh(["smpicc", "-O2", os.path.join(HERE, "kernels", name + ".c"), "-o", out])
            self.exe[name] = out
        return self.exe[name]

    def kernel_with_plugin(self, name):
        """The kernel linked with the PMPI plugin's SMPI object (reordering
        inside MPI_Cart_create, as test/pmpi/smpi.sh builds it), and the
        librankmap it must preload (smpirun puts the system's first)."""
        key = name + "+plugin"
        if key not in self.exe:
            obj = os.path.join(self.build, "src", "pmpi", "rankmap-pmpi-smpi.o")
            lib = os.path.join(self.build, ".libs", "librankmap.so")
            if not os.path.exists(obj):
                sh(["make", "-C", self.build, "src/pmpi/rankmap-pmpi-smpi.o"])
            out = os.path.join(self.bin, key)
            sh(["smpicc", "-O2", os.path.join(HERE, "kernels", name + ".c"), obj, lib,
                "-Wl,-rpath," + os.path.dirname(lib), "-o", out])
            self.exe[key] = out
        return self.exe[key], os.path.join(self.build, ".libs", "librankmap.so")

    def path(self, *parts):
        return os.path.join(self.work, *parts)

    def gen(self, workload, topo, out, extra=()):
        sh([self.rankmap, "gen", workload, "--topology", topo, "--out", out, *extra])
        return out

    def map(self, topo, graph, out, *args):
        t = time.time()
        sh([self.rankmap, "map", "--topology", topo, *(["--graph", graph] if graph else []), "--out", out, *args])
        return time.time() - t

    def map_default(self, case, out, *args, graph=True):
        """rankmap's default, as an MPI call decides: the mapping replaces the
        case's launch order (its baseline placement) only when the cost
        model predicts a clear gain (rankmap map's guard)."""
        return self.map(case.topo, case.graph if graph else None, out, "--seed", "1",
                        "--current", case.baseline_map(), *args)

    def eval(self, topo, graph, mapfile):
        d = json.loads(sh([self.rankmap, "eval", "--topology", topo, "--graph", graph, "--mapping", mapfile,
                           "--json"]))
        return d["ratio"], d["max_link_load"], d["F"]


# ---- graphs and maps written by the driver ---------------------------------

def write_edges(path, n, edges):
    with open(path, "w") as f:
        f.write(f"# tasks: {n}\n")
        for s, d, w in edges:
            f.write(f"{s} {d} {w:g}\n")
    return path


def read_edges(path):
    edges = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if len(line) >= 2:
                edges.append((int(line[0]), int(line[1]), float(line[2]) if len(line) > 2 else 1.0))
    return edges


def write_coords(path, coords):
    with open(path, "w") as f:
        for c in coords:
            f.write(" ".join(map(str, c)) + "\n")
    return path


def scramble(tools, name, topo, n, seed):
    """Cubic graph with labels scrambled by our own permutation: returns the
    scrambled graph and the ideal map (new label perm[v] on node v)."""
    plain = tools.gen(name, topo, tools.path(f"{name}-plain.edges"))
    rng = random.Random(seed)
    perm = list(range(n))
    rng.shuffle(perm)
    edges = [(perm[s], perm[d], w) for s, d, w in read_edges(plain)]
    g = write_edges(tools.path(f"{name}-scrambled.edges"), n, edges)
    dims = [int(x) for x in topo.split(":")[1].split("x")]
    ideal = [None] * n
    for v in range(n):  # rankmap numbers nodes row-major, last dimension fastest
        c, r = [], v
        for e in reversed(dims):
            c.append(r % e)
            r //= e
        ideal[perm[v]] = list(reversed(c))
    return g, write_coords(tools.path(f"{name}-ideal.map"), ideal)


def stencil_edges(nx, ny, msg):
    e = []
    for i in range(nx):
        for j in range(ny):
            r = i * ny + j
            for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                if 0 <= i + di < nx and 0 <= j + dj < ny:
                    e.append((r, (i + di) * ny + j + dj, msg))
    return e


def fft_edges(row, nrows, d):
    e = []
    for r in range(row * nrows):
        q, c = divmod(r, row)
        for c2 in range(row):
            if c2 != c:
                e.append((r, q * row + c2, d / row))
        for q2 in range(nrows):
            if q2 != q:
                e.append((r, q2 * row + c, d / nrows))
    return e


def fft_lines(row, nrows):
    """The all-to-all groups of a pencil FFT on an nrows x row grid: the rows,
    then the columns (the order the program runs them, one phase each)."""
    return [[q * row + k for k in range(row)] for q in range(nrows)] + \
        [[q * row + k for q in range(nrows)] for k in range(row)]


def write_groups(path, lines):
    with open(path, "w") as f:
        f.writelines(" ".join(map(str, x)) + "\n" for x in lines)
    return path


def fft_map_default(row, nrows, dims):
    # rank order, x fastest (BG/L XYZ): rows are lines along x
    return [plat.coords_of(r, dims) for r in range(row * nrows)]


def fft_map_cube(row, nrows, dims, side):
    """Small-cube map of Jagode et al.: row q on a side^3 cube displaced over
    the torus (8-cube: side 2 for 8-task rows; 64-cube: side 4)."""
    assert side ** 3 == row
    per = [e // side for e in dims]
    out = []
    for r in range(row * nrows):
        q, c = divmod(r, row)
        org = plat.coords_of(q, per)
        off = plat.coords_of(c, [side] * 3)
        out.append([o * side + f for o, f in zip(org, off)])
    return out


def fft_model(coords, row, nrows, dims, wrap, d, bw):
    """Equations (7), (12), (13), (16) of Jagode et al.: per phase, the largest
    effective length m_i over the directions and the communicators, and the
    bisection-bandwidth time max(m_i) * D / (4 B_l) with D the bytes per task.
    m_i: 0 if the image is one layer in direction i; the length L of the
    smallest (cyclic, on a torus) interval holding its coordinates if that is
    below n_i / g_t; else n_i / g_t (g_t = 2 torus, 1 mesh)."""
    def m_of(group):
        best = 0.0
        for i, n in enumerate(dims):
            xs = sorted({coords[r][i] for r in group})
            if len(xs) == 1:
                continue
            if wrap:
                gaps = [(xs[(k + 1) % len(xs)] - xs[k]) % n for k in range(len(xs))]
                span = n - max(gaps) + 1
                m = min(span, n / 2)
            else:
                m = xs[-1] - xs[0] + 1
            best = max(best, m)
        return best
    rows = [[q * row + c for c in range(row)] for q in range(nrows)]
    cols = [[q * row + c for q in range(nrows)] for c in range(row)]
    mr = max(m_of(g) for g in rows)
    mc = max(m_of(g) for g in cols)
    return mr, mc, mr * d / (4 * bw), mc * d / (4 * bw)


# ---- experiment description ---------------------------------------------------

class Case:
    """One kernel on one platform under several placements."""

    def __init__(self, kernel, platform, kind, spec, topo, graph, argv, paper="", baseline=None):
        self.kernel, self.platform, self.kind, self.spec = kernel, platform, kind, spec
        self.topo, self.graph, self.argv, self.paper = topo, graph, argv, paper
        self.placements = []  # (label, mapfile, extra dict)
        self.baseline = baseline
        self.optimum = None  # least F over all placements, when small enough to enumerate
        # For the cost model (rankmap eval --alltoall/--bytes-per-unit/--bandwidth/--latency):
        self.unit = 1.0      # bytes per unit of graph weight the kernel sends
        self.groups = None   # file of the all-to-all groups (FFT: rows, then columns)
        self.model_args = []  # platform constants that differ from the model's defaults

    def baseline_map(self):
        for lab, m, _ in self.placements:
            if lab == self.baseline:
                return m
        raise RuntimeError(f"{self.kernel} on {self.platform}: no baseline placement '{self.baseline}' yet")

    def add(self, label, mapfile, **extra):
        self.placements.append((label, mapfile, extra))


def platform_file(tools, kind, spec):
    path = tools.path(f"{kind}-{spec.replace(':', '_')}.xml")
    if not os.path.exists(path):
        text = {"torus": lambda: plat.torus_xml(plat.dims_of(spec),
                                                **({"bw": plat.TODAY_TORUS_BW} if plat.today(spec)[1] else {})),
                "mesh": lambda: plat.mesh_xml(plat.dims_of(spec)),
                "cluster": lambda: plat.cluster_xml(spec), "fattree": lambda: plat.fattree_xml(spec),
                "dragonfly": lambda: plat.dragonfly_xml(spec)}[kind]()
        with open(path, "w") as f:
            f.write(text)
    return path


def bhanot_cases(tools, dims, quick, irregular=False, nseeds=1):
    topo = "torus:" + dims
    n = plat.prod(plat.dims_of(dims))
    cases = []
    workloads = ["sage", "cubic1"] if quick else ["sage", "umt", "cubic1", "cubic2"]
    if irregular:  # --irregular: SAGE/UMT-like, rank order against rankmap's maps only
        workloads = ["sage", "umt"]
    papers = {"sage": BHANOT_T4,
              "umt": "Bhanot et al. Table 2 (UMT2000, cost only): SA map 1.68x lower F than rank order at 256 tasks",
              "cubic1": "Bhanot et al. Table 1: SA finds the ideal map (F/F_min = 1.0)",
              "cubic2": "Bhanot et al. Table 1: SA finds the ideal map (F/F_min = 1.0)"}
    for w in workloads:
        if w.startswith("cubic"):
            g, ideal = scramble(tools, w, topo, n, seed=1)
            label = w + " (scrambled)"
        else:
            g, ideal = tools.gen(w, topo, tools.path(f"{w}.edges")), None
            label = w + "-like"
        c = Case(label, dims + " torus", "torus", dims, topo, g,
                 [tools.kernel("replay"), g, str(UNIT[w]), "1"], paper=papers[w], baseline="rank order")
        c.unit = UNIT[w]
        # "greedy (seed 000)" (the greedy map of Bhanot et al.) is kept as
        # written: the placement's row key in the recorded results/ tables
        for alg, lab in (("identity", "rank order"), ("random", "random"), ("greedy", "greedy (seed 000)"),
                         ("auto", "rankmap default"), ("portfolio", IN_CALL),
                         ("congestion", "rankmap congestion")):
            if ((quick or irregular) and alg in ("random", "greedy")) or (ideal and alg == "random"):
                continue  # (a scrambled graph's rank order already is a random placement)
            if alg in ("congestion", "portfolio") and ideal:
                continue  # for the irregular workloads (auto is ideal on cubic)
            m = tools.path(f"{w}-{alg}.map")
            if alg == "auto":
                secs = tools.map_default(c, m)
            elif alg == "portfolio":  # the call's portfolio, its members one after another
                secs = tools.map_default(c, m, "--portfolio", str(PORTFOLIO))
            else:  # the peers, as their mappers return them
                secs = tools.map(topo, g, m, "--algorithm", alg, "--seed", "1", "--guard", "off")
            c.add(lab, m, map_seconds=secs)
        # --seeds S: the default's spread over the seeds 2..S (one rank, and
        # the call's portfolio, whose members' seeds derive from it)
        for seed in range(2, nseeds + 1):
            if ideal:
                break
            for extra, lab in (((), "rankmap default"), (("--portfolio", str(PORTFOLIO)), IN_CALL)):
                m = tools.path(f"{w}-seed{seed}-{'portfolio' if extra else 'auto'}.map")
                secs = tools.map(topo, g, m, "--seed", str(seed), "--current", c.baseline_map(), *extra)
                c.add(f"{lab}, seed {seed}", m, map_seconds=secs)
        if ideal:
            c.add("ideal (unscrambled)", ideal)
        cases.append(c)
    return cases


def fft_cases(tools, quick):
    dims_s, dims, bw = "8x8x8", [8, 8, 8], plat.TORUS_BW
    topo = "torus:" + dims_s
    cases = []
    # (row, nrows, side of the cube rows of Jagode et al. or None): their
    # grids and shapes whose lines fit no torus dimension (16, 32, 128)
    grids = [(8, 64, 2)] if quick else [(8, 64, 2), (64, 8, 4), (16, 32, None), (32, 16, None),
                                        (4, 128, None), (128, 4, None)]
    for row, nrows, side in grids:
        g = write_edges(tools.path(f"fft-{row}x{nrows}.edges"), row * nrows, fft_edges(row, nrows, FFT_BYTES))
        paper = ("Jagode et al. App. A (CO 8x64, 512^3): rows 8-cube 23.25 ms vs default 28.21 ms (1.21x); "
                 "columns 28.32 vs 28.85 ms" if row == 8 else
                 "Jagode et al. App. A (CO 64x8, 512^3): rows 64-cube 35.07 ms vs default 28.34 ms (0.81x)"
                 if row == 64 else "")
        c = Case(f"3-D FFT {row}x{nrows}", dims_s + " torus", "torus", dims_s, topo, g,
                 [tools.kernel("fft"), str(row), str(nrows), str(FFT_BYTES), "1"], paper=paper,
                 baseline="default (rank order)")
        c.groups = tools.path(f"fft-{row}x{nrows}.groups")
        with open(c.groups, "w") as f:  # rows (one phase), then columns (the next)
            f.writelines(" ".join(str(q * row + k) for k in range(row)) + "\n" for q in range(nrows))
            f.writelines(" ".join(str(q * row + k) for q in range(nrows)) + "\n" for k in range(row))
        maps = [("default (rank order)", fft_map_default(row, nrows, dims))]
        if side:
            # "(seed 003)" = Jagode et al., kept: the row key in results/
            maps.append((f"{row}-cube rows (seed 003)", fft_map_cube(row, nrows, dims, side)))
        for lab, coords in maps:
            c.add(lab, write_coords(tools.path(f"fft-{row}-{lab.split()[0]}.map"), coords), coords=coords)
        # as MPI_Cart_create(nrows x row, reorder=1) decides in the call: with
        # the all-to-all hint (MPIR_CVAR_RANKMAP_CART_ALLTOALL=all) and without
        # it (the traffic not declared: judged as a stencil and as transposes)
        grid = f"{nrows}x{row}:00"
        m = tools.path(f"fft-{row}-rankmap-hint.map")
        secs = tools.map_default(c, m, "--cart", grid, "--cart-alltoall", "all", graph=False)
        c.add("rankmap default, all-to-all hint", m, map_seconds=secs)
        if not quick:
            m = tools.path(f"fft-{row}-rankmap-nohint.map")
            secs = tools.map_default(c, m, "--cart", grid, "--cart-alltoall", "unknown", graph=False)
            c.add("rankmap default, no hint", m, map_seconds=secs)
        for lab, m, extra in c.placements:
            coords = extra.get("coords") or plat.read_mapfile(m)
            extra["model"] = fft_model(coords, row, nrows, dims, True, FFT_BYTES, bw)
        cases.append(c)
    return cases


def stencil_cases(tools, quick):
    spec, nx, ny = "8x4x4", 16, 8
    cases = []
    for kind in (["mesh"] if quick else ["mesh", "torus"]):
        topo = f"{kind}:{spec}"
        g = write_edges(tools.path(f"stencil-{kind}.edges"), nx * ny, stencil_edges(nx, ny, STENCIL_BYTES))
        c = Case(f"2-D stencil {nx}x{ny}", f"{spec} {kind}", kind, spec, topo, g,
                 [tools.kernel("stencil2d"), str(nx), str(ny), str(STENCIL_BYTES), "1"],
                 paper="Smith and Bode (NAS BT/CG/MG class A, 8x4x4): YZX, ZYX ~15 % faster than XYZ",
                 baseline="stock XYZ (rank order)")
        orders = ["XYZ", "YZX"] if quick else ["XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"]
        for o in orders:
            m = tools.path(f"stencil-{kind}-{o}.map")
            tools.map(topo, g, m, "--algorithm", "order", "--order", o)
            c.add(f"stock {o}" + (" (rank order)" if o == "XYZ" else ""), m)
        for fam in ("gray", "unfold"):
            prefix = tools.path(f"stencil-{kind}-{fam}")
            lines = sh([tools.sg_maps, "cart", topo, f"{nx}x{ny}", fam, prefix]).splitlines()
            keep = 3 if quick and fam == "gray" else (0 if quick else (12 if fam == "gray" else 6))
            for line in lines[:keep]:
                k, _, name = line.split(" ", 2)
                c.add(name.replace("grid-order ", "").replace("axis-order ", ""), f"{prefix}-{k}.map")
        m = tools.path(f"stencil-{kind}-auto.map")
        secs = tools.map_default(c, m)
        c.add("rankmap default", m, map_seconds=secs)
        cases.append(c)
    return cases


def cluster_cases(tools, quick):
    cases = []
    specs = ["8x4:2"] if quick else ["8x2:1", "8x2:2", "8x4:1", "8x4:2"]
    for spec in specs:
        nodes, cores, switches = plat.cluster_shape(spec)
        n = nodes * cores
        topo = f"tree:{nodes}x{cores}:cost=10,1" if switches == 1 else \
            f"tree:2x{nodes // 2}x{cores}:cost=100,10,1"
        name = f"{nodes}x{cores} {'two' if switches == 1 else 'three'}-tier"
        halo_grid = "4x2x2" if n == 16 else "4x4x2"
        kernels = [("umt", "irregular (UMT-like)")] if quick else [("cubic1", f"3-D halo {halo_grid}"),
                                                                  ("umt", "irregular (UMT-like)")]
        for w, label in kernels:
            gtopo = f"torus:{halo_grid}" if w == "cubic1" else f"tree:{nodes}x{cores}"
            g = tools.gen(w, gtopo, tools.path(f"cl-{spec.replace(':', '_')}-{w}.edges"))
            paper = ("Chen et al. (MPIPP) Table 2 (8x2, 3-tier): Zeusmp 5308 s default, 3223 s METIS, "
                     "1573 s mapping" if switches == 2 and cores == 2 else
                     "Chen et al. (MPIPP) Table 3 (8x4, 3-tier): Zeusmp 32640 s default, 13355 s mapping"
                     if switches == 2 else "Chen et al. (MPIPP) Tables 1/3 (two-tier): mapping = METIS or better")
            c = Case(label, name, "cluster", spec, topo, g,
                     [tools.kernel("replay"), g, str(UNIT[w] if w == "umt" else UNIT["cubic1"]), "1"],
                     paper=paper, baseline="round-robin (MPI default)")
            c.unit = UNIT[w] if w == "umt" else UNIT["cubic1"]
            bw = [plat.ETH_BW, plat.MEM_BW] if switches == 1 else \
                [plat.ETH_BW if cores <= 2 else plat.FAST_ETH_BW, plat.ETH_BW, plat.MEM_BW]
            lat = [plat.ETH_LAT, plat.MEM_LAT] if switches == 1 else [plat.ETH_LAT, plat.ETH_LAT, plat.MEM_LAT]
            c.model_args = ["--bandwidth", ",".join(f"{x:g}" for x in bw),
                            "--latency", ",".join(f"{x:g}" for x in lat)]
            rr = [None] * n
            for r in range(n):
                node, core = r % nodes, r // nodes
                rr[r] = [node // (nodes // 2), node % (nodes // 2), core] if switches == 2 else [node, core]
            c.add("round-robin (MPI default)", write_coords(tools.path(f"cl-{spec}-{w}-rr.map"), rr))
            m = tools.path(f"cl-{spec}-{w}-metis.map")
            sh([tools.sg_maps, "partition", topo, g, str(nodes), m])
            c.add("METIS partitioning", m)
            m = tools.path(f"cl-{spec}-{w}-auto.map")
            secs = tools.map_default(c, m)
            c.add("rankmap default", m, map_seconds=secs)
            if n <= 24:  # small enough for the exhaustive optimum (sg_maps optimum)
                f_auto = tools.eval(topo, g, m)[2]
                out = sh([tools.sg_maps, "optimum", topo, g, repr(f_auto * (1 + 1e-6))])
                c.optimum = float(out.split()[2])
            cases.append(c)
    return cases


def fattree_cases(tools):
    """Today's clusters: two-level fat trees (leaf switches x hosts x cores,
    full bisection or tapered), block and round-robin launch orders."""
    cases = []
    # (leaf switches, hosts per leaf switch, cores, uplinks per leaf switch, launch orders)
    machines = [(4, 4, 8, 4, ("block", "round-robin")), (4, 4, 8, 2, ("block",)), (2, 4, 16, 4, ("block",)),
                (8, 4, 8, 4, ("block",))]
    for leaves, hosts, cores, up, launches in machines:
        nhosts = leaves * hosts
        n = nhosts * cores
        spec = f"{leaves}x{hosts}x{cores}:{up}"
        topo = f"tree:{leaves}x{hosts}x{cores}:cost=100,10,1:up={up}"
        name = f"fat tree {leaves}x{hosts}x{cores} " + ("full bisection" if up == hosts else f"tapered {hosts}:{up}")
        model_args = ["--bandwidth", f"{plat.ETH_BW:g},{plat.ETH_BW:g},{plat.MEM_BW:g}",
                      "--latency", f"{plat.ETH_LAT:g},{plat.ETH_LAT:g},{plat.MEM_LAT:g}"]
        host_perm = list(range(nhosts))
        random.Random(1).shuffle(host_perm)

        def coords(host, core):
            return [host // hosts, host % hosts, core]

        for launch in launches:
            tag = f"ft{leaves}x{hosts}x{cores}u{up}-{launch}"
            if launch == "block":  # rank r on core r mod C of host r div C
                where = [(r // cores, r % cores) for r in range(n)]
            else:  # round-robin over the hosts
                where = [(r % nhosts, r // nhosts) for r in range(n)]
            base_label = f"{launch} order (launch)"
            base_coords = [coords(h, k) for h, k in where]

            def new_case(kernel, g, argv, unit=1.0):
                c = Case(kernel, name + ("" if launch == "block" else ", round-robin launch"), "fattree", spec,
                         topo, g, argv, baseline=base_label)
                c.model_args, c.unit = model_args, unit
                c.add(base_label, write_coords(tools.path(f"{tag}-{len(cases)}-launch.map"), base_coords))
                return c

            # pencil FFT grids NROWS x ROW (MPI_Cart_create({NROWS, ROW})):
            # rows that fit a host, columns that do, and shapes that fit neither
            row_sizes = [cores, n // cores, 4 * cores, n // (4 * cores)]
            for row in dict.fromkeys(r for r in row_sizes if 1 < r < n):
                nrows = n // row
                g = write_edges(tools.path(f"{tag}-fft-{row}.edges"), n, fft_edges(row, nrows, FFT_BYTES))
                c = new_case(f"3-D FFT {nrows}x{row} (rows of {row})", g,
                             [tools.kernel("fft"), str(row), str(nrows), str(FFT_BYTES), "1"])
                c.groups = tools.path(f"{tag}-fft-{row}.groups")
                lines = fft_lines(row, nrows)
                write_groups(c.groups, lines)
                # grouping can gain: a line fits a host but the launch order
                # keeps no line on one host
                c.grouping_gain = min(row, nrows) <= cores and \
                    not any(len({where[t][0] for t in g}) == 1 for g in lines)
                if launch == "block":
                    scr = [coords(host_perm[h], k) for h, k in where]
                    c.add("launch order, hosts scrambled", write_coords(tools.path(f"{tag}-fft-{row}-scr.map"), scr))
                grid = f"{nrows}x{row}:00"
                for hint, lab in (("all", "rankmap default, all-to-all hint"),
                                  ("unknown", "rankmap default, no hint")):
                    m = tools.path(f"{tag}-fft-{row}-rankmap-{hint}.map")
                    secs = tools.map_default(c, m, "--cart", grid, "--cart-alltoall", hint, graph=False)
                    c.add(lab, m, map_seconds=secs)
                # In the call: the same program with reorder=1 and the PMPI
                # plugin linked in, launched in this order (the address
                # table: the launch mapfile); the plugin decides inside
                # MPI_Cart_create.
                exe, lib = tools.kernel_with_plugin("fft")
                env = {"LD_PRELOAD": lib, "MPIR_CVAR_RANKMAP_TOPOLOGY": topo,
                       "MPIR_CVAR_RANKMAP_MAPPING": c.baseline_map(), "MPIR_CVAR_RANKMAP_VERBOSE": "1"}
                argv = [exe, str(row), str(nrows), str(FFT_BYTES), "1", "1"]
                c.add("in the call (plugin), no hint", c.baseline_map(), incall=True, argv=argv, env=env)
                c.add("in the call (plugin), all-to-all hint", c.baseline_map(), incall=True, argv=argv,
                      env=dict(env, MPIR_CVAR_RANKMAP_CART_ALLTOALL="all"))
                cases.append(c)
            # stencils and an irregular graph, with the peers: Scotch (tleaf
            # target of the tree) and METIS partitioning into hosts
            nx = 16
            ny = n // nx
            graphs = [(f"2-D stencil {nx}x{ny}", write_edges(tools.path(f"{tag}-st2.edges"), n,
                                                             stencil_edges(nx, ny, STENCIL_BYTES)),
                       [tools.kernel("stencil2d"), str(nx), str(ny), str(STENCIL_BYTES), "1"], 1.0)]
            halo = {128: "8x4x4", 256: "8x8x4"}[n]
            g3 = tools.gen("cubic1", f"torus:{halo}", tools.path(f"{tag}-halo.edges"))
            graphs.append((f"3-D halo {halo}", g3, [tools.kernel("replay"), g3, str(UNIT["cubic1"]), "1"],
                           UNIT["cubic1"]))
            gu = tools.gen("umt", f"tree:{nhosts}x{cores}", tools.path(f"{tag}-umt.edges"))
            graphs.append(("irregular (UMT-like)", gu, [tools.kernel("replay"), gu, str(UNIT["umt"]), "1"],
                           UNIT["umt"]))
            for kernel, g, argv, unit in graphs:
                c = new_case(kernel, g, argv, unit)
                m = tools.path(f"{tag}-{len(cases)}-auto.map")
                secs = tools.map_default(c, m)
                c.add("rankmap default", m, map_seconds=secs)
                # the graph file's weights are bytes and the links are
                # known: the guard judges the phases at those sizes
                m = tools.path(f"{tag}-{len(cases)}-sized.map")
                secs = tools.map_default(c, m, "--bytes-per-unit", f"{unit:g}", *model_args)
                c.add("rankmap default, sizes given", m, map_seconds=secs)
                if kernel.startswith("2-D stencil"):
                    # the grid's MPI_Cart_create with nothing declared (a
                    # first run): judged as a stencil and as transposes
                    m = tools.path(f"{tag}-{len(cases)}-undeclared.map")
                    secs = tools.map_default(c, m, "--cart", f"{nx}x{ny}:00", "--cart-alltoall", "unknown",
                                             graph=False)
                    c.add("rankmap default, no hint", m, map_seconds=secs)
                m = tools.path(f"{tag}-{len(cases)}-scotch.map")
                secs = tools.map(topo, g, m, "--algorithm", "scotch", "--seed", "1", "--guard", "off")
                c.add("Scotch (tleaf)", m, map_seconds=secs)
                m = tools.path(f"{tag}-{len(cases)}-metis.map")
                sh([tools.sg_maps, "partition", topo, g, str(nhosts), m])
                c.add("METIS partitioning", m)
                cases.append(c)
    return cases


def stencil_nd_edges(dims, periodic, msg):
    """Halo exchange of a grid (row-major, last dimension fastest): one
    message of msg bytes to each neighbour, across the boundary if periodic."""
    n = 1
    for d in dims:
        n *= d
    e = set()
    for r in range(n):
        c, x = [], r
        for d in reversed(dims):
            c.append(x % d)
            x //= d
        c.reverse()
        for k, d in enumerate(dims):
            for s in (-1, 1):
                q = list(c)
                q[k] += s
                if not 0 <= q[k] < d:
                    if not periodic or d < 3:
                        continue
                    q[k] %= d
                t = 0
                for j, dj in enumerate(dims):
                    t = t * dj + q[j]
                if t != r:
                    e.add((r, t))
    return [(a, b, msg) for a, b in sorted(e)]


def harm_cases(tools, sizes):
    """Issue 61 (do no harm where users run): fat trees of today (100 Gb/s
    links, shared memory 3 times faster; leaf switches x hosts x 8 cores,
    full bisection and tapered 2:1, block launch order), declared as the
    user guide invites -- the hosts as one tier (tree:HOSTSxCORES) or with
    the switches (tree:LxHxC:...:up=U) -- and the 8x8x8 torus of 200 Gb/s
    links.  Rows: the launch order; rankmap map with the plain graph file
    and nothing else (its guard against rank order); on the fat trees the
    pencil FFT and the 2-D stencil reordering inside MPI_Cart_create (the
    SMPI plugin), MPIR_CVAR_RANKMAP_MAPPING unset or the launch order, with
    and without the all-to-all hint."""
    cases = []
    for n in sizes:
        leaves, hosts, cores = {128: (4, 4, 8), 512: (8, 8, 8)}[n]
        nhosts = leaves * hosts
        for up in (hosts, hosts // 2):
            spec = f"{leaves}x{hosts}x{cores}:{up}:today"
            name = f"fat tree {leaves}x{hosts}x{cores} " + \
                ("full bisection" if up == hosts else f"tapered {hosts}:{up}") + ", 100 Gb/s"
            forms = [(f"tree:{nhosts}x{cores}:cost=100,1", lambda h, k: [h, k],
                      ["--bandwidth", f"{plat.TODAY_BW:g},{plat.TODAY_MEM_BW:g}",
                       "--latency", f"{plat.TODAY_LAT:g},{plat.TODAY_MEM_LAT:g}"]),
                     (f"tree:{leaves}x{hosts}x{cores}:cost=100,10,1:up={up}",
                      lambda h, k: [h // hosts, h % hosts, k],
                      ["--bandwidth", f"{plat.TODAY_BW:g},{plat.TODAY_BW:g},{plat.TODAY_MEM_BW:g}",
                       "--latency", f"{plat.TODAY_LAT:g},{plat.TODAY_LAT:g},{plat.TODAY_MEM_LAT:g}"])]
            where = [(r // cores, r % cores) for r in range(n)]  # block launch
            for topo, co, model_args in forms:
                tag = f"h{n}u{up}{'p' if len(co(0, 0)) == 2 else 's'}"
                plat_name = f"{name}, declared {topo.split(':')[0] + ':' + topo.split(':')[1]}" + \
                    ("" if "up=" not in topo else f" up={up}")

                def new_case(kernel, g, argv, unit=1.0, tag=tag, topo=topo, co=co, model_args=model_args,
                             plat_name=plat_name, spec=spec):
                    c = Case(kernel, plat_name, "fattree", spec, topo, g, argv, baseline="block order (launch)")
                    c.model_args, c.unit = model_args, unit
                    c.add("block order (launch)", write_coords(tools.path(f"{tag}-{len(cases)}-launch.map"),
                                                               [co(h, k) for h, k in where]))
                    return c

                def cli_row(c, tag=tag, topo=topo):
                    m = tools.path(f"{tag}-{len(cases)}-cli.map")
                    secs = tools.map(topo, c.graph, m, "--seed", "1", "--no-cache")
                    c.add("rankmap map, graph file", m, map_seconds=secs)

                def incall_rows(c, exe, argv, topo=topo):
                    env = {"LD_PRELOAD": tools.kernel_with_plugin("fft")[1], "MPIR_CVAR_RANKMAP_TOPOLOGY": topo,
                           "MPIR_CVAR_RANKMAP_VERBOSE": "1"}
                    for mapping in ("unset", "launch"):
                        e = dict(env, **({"MPIR_CVAR_RANKMAP_MAPPING": c.baseline_map()} if mapping == "launch"
                                         else {}))
                        lab = "in the call, MAPPING " + ("unset" if mapping == "unset" else "= launch order")
                        c.add(lab + ", no hint", c.baseline_map(), incall=True, argv=[exe, *argv], env=e)
                        c.add(lab + ", all-to-all hint", c.baseline_map(), incall=True, argv=[exe, *argv],
                              env=dict(e, MPIR_CVAR_RANKMAP_CART_ALLTOALL="all"))

                # pencil FFT at every grid shape NROWS x ROW
                row = 2
                while row < n:
                    nrows = n // row
                    g = write_edges(tools.path(f"{tag}-fft-{row}.edges"), n, fft_edges(row, nrows, FFT_BYTES))
                    c = new_case(f"3-D FFT {nrows}x{row} (rows of {row})", g,
                                 [tools.kernel("fft"), str(row), str(nrows), str(FFT_BYTES), "1"])
                    c.groups = tools.path(f"{tag}-fft-{row}.groups")
                    lines = fft_lines(row, nrows)
                    write_groups(c.groups, lines)
                    c.split_by_launch = min(row, nrows) <= cores and \
                        not any(len({where[t][0] for t in x}) == 1 for x in lines)
                    cli_row(c)
                    exe = tools.kernel_with_plugin("fft")[0]
                    incall_rows(c, exe, [str(row), str(nrows), str(FFT_BYTES), "1", "1"])
                    cases.append(c)
                    row *= 2
                # stencils (periodic or not) and irregular graphs: the graph file
                nx = {128: 16, 512: 32}[n]
                ny = n // nx
                d3 = {128: [8, 4, 4], 512: [8, 8, 8]}[n]
                for periodic in (0, 1):
                    p = ", periodic" if periodic else ""
                    g = write_edges(tools.path(f"{tag}-st2-{periodic}.edges"), n,
                                    stencil_nd_edges([nx, ny], periodic, STENCIL_BYTES))
                    c = new_case(f"2-D stencil {nx}x{ny}{p}", g,
                                 [tools.kernel("stencil2d"), str(nx), str(ny), str(STENCIL_BYTES), "1", str(periodic)])
                    cli_row(c)
                    exe = tools.kernel_with_plugin("stencil2d")[0]
                    env = {"LD_PRELOAD": tools.kernel_with_plugin("fft")[1], "MPIR_CVAR_RANKMAP_TOPOLOGY": topo,
                           "MPIR_CVAR_RANKMAP_VERBOSE": "1"}
                    argv = [exe, str(nx), str(ny), str(STENCIL_BYTES), "1", str(periodic), "1"]
                    c.add("in the call, MAPPING unset", c.baseline_map(), incall=True, argv=argv, env=env)
                    c.add("in the call, MAPPING = launch order", c.baseline_map(), incall=True, argv=argv,
                          env=dict(env, MPIR_CVAR_RANKMAP_MAPPING=c.baseline_map()))
                    cases.append(c)
                    dims3 = "x".join(map(str, d3))
                    g = write_edges(tools.path(f"{tag}-st3-{periodic}.edges"), n,
                                    stencil_nd_edges(d3, periodic, STENCIL_BYTES))
                    c = new_case(f"3-D stencil {dims3}{p}", g, [tools.kernel("replay"), g, "1", "1"])
                    cli_row(c)
                    cases.append(c)
                for w in ("sage", "umt"):
                    g = tools.gen(w, f"tree:{nhosts}x{cores}", tools.path(f"{tag}-{w}.edges"))
                    c = new_case(f"irregular ({w.upper()}-like)", g, [tools.kernel("replay"), g, str(UNIT[w]), "1"],
                                 UNIT[w])
                    cli_row(c)
                    cases.append(c)
    # the 8x8x8 torus of today: plain graph files through the CLI
    spec, topo = "8x8x8:today", "torus:8x8x8"
    dims = [8, 8, 8]
    model_args = ["--bandwidth", f"{plat.TODAY_TORUS_BW:g}"]

    def torus_case(kernel, g, argv, unit=1.0):
        c = Case(kernel, "8x8x8 torus, 200 Gb/s", "torus", spec, topo, g, argv, baseline="rank order (launch)")
        c.model_args, c.unit = model_args, unit
        c.add("rank order (launch)", write_coords(tools.path(f"t-{len(cases)}-launch.map"),
                                                  [plat.coords_of(r, dims) for r in range(512)]))
        m = tools.path(f"t-{len(cases)}-cli.map")
        secs = tools.map(topo, g, m, "--seed", "1", "--no-cache", "--current", c.baseline_map())
        c.add("rankmap map, graph file", m, map_seconds=secs)
        return c

    row = 2
    while row < 512:
        nrows = 512 // row
        g = write_edges(tools.path(f"t-fft-{row}.edges"), 512, fft_edges(row, nrows, FFT_BYTES))
        c = torus_case(f"3-D FFT {nrows}x{row} (rows of {row})", g,
                       [tools.kernel("fft"), str(row), str(nrows), str(FFT_BYTES), "1"])
        c.groups = write_groups(tools.path(f"t-fft-{row}.groups"), fft_lines(row, nrows))
        cases.append(c)
        row *= 2
    for periodic in (0, 1):
        p = ", periodic" if periodic else ""
        for d in ([32, 16], [8, 8, 8]):
            g = write_edges(tools.path(f"t-st{len(d)}-{periodic}.edges"), 512,
                            stencil_nd_edges(d, periodic, STENCIL_BYTES))
            cases.append(torus_case(f"{len(d)}-D stencil {'x'.join(map(str, d))}{p}", g,
                                    [tools.kernel("replay"), g, "1", "1"]))
    for w in ("sage", "umt"):
        g = tools.gen(w, topo, tools.path(f"t-{w}.edges"))
        cases.append(torus_case(f"irregular ({w.upper()}-like)", g, [tools.kernel("replay"), g, str(UNIT[w]), "1"],
                                UNIT[w]))
    return cases


def validate_cases(tools):
    """Issue 61 item 3: the cost model where it is weakest, on placements no
    mapper proposed.  128 ranks on today's fat trees (4 leaf switches x 4
    hosts x 8 cores, full bisection and tapered 2:1, 100 Gb/s), the suite's
    gigabit fat tree and a 4x4x8 torus of 200 Gb/s links; the FFT at two
    shapes, the 2-D stencil, the 3-D halo and the UMT-like graph.  Families
    (the part of a label before " #"): the launch order, round-robin launch,
    the launch order with its hosts permuted, with an eighth of the ranks
    exchanged, the task grid cut into tiles per host, random placements, the
    mapper's candidate before the guard (--guard off) and rankmap's default.
    model_check.py --families reports the sign errors per family."""
    cases = []
    n = 128
    nx, ny = 16, 8  # the task grid the tiles cut (every kernel's ranks read as 16x8)
    platforms = []
    for spec, bw in (("4x4x8:4:today", "today"), ("4x4x8:2:today", "today"), ("4x4x8:4", "gigabit")):
        leaves, hosts, cores, up = plat.fattree_shape(spec)
        link, lat, mbw, mlat = (plat.TODAY_BW, plat.TODAY_LAT, plat.TODAY_MEM_BW, plat.TODAY_MEM_LAT) \
            if bw == "today" else (plat.ETH_BW, plat.ETH_LAT, plat.MEM_BW, plat.MEM_LAT)
        name = f"fat tree {leaves}x{hosts}x{cores} " + \
            ("full bisection" if up == hosts else f"tapered {hosts}:{up}") + \
            (", 100 Gb/s" if bw == "today" else ", 1 Gb/s")
        platforms.append(dict(kind="fattree", spec=spec, name=name, nhosts=leaves * hosts, cores=cores,
                              topo=f"tree:{leaves}x{hosts}x{cores}:cost=100,10,1:up={up}",
                              co=lambda h, k, hosts=hosts: [h // hosts, h % hosts, k],
                              model_args=["--bandwidth", f"{link:g},{link:g},{mbw:g}",
                                          "--latency", f"{lat:g},{lat:g},{mlat:g}"]))
    platforms.append(dict(kind="torus", spec="4x4x8:today", name="4x4x8 torus, 200 Gb/s", nhosts=n, cores=1,
                          topo="torus:4x4x8", co=lambda h, k: plat.coords_of(h, [4, 4, 8]),
                          model_args=["--bandwidth", f"{plat.TODAY_TORUS_BW:g}"]))
    for pf in platforms:
        tag = f"v-{pf['kind']}-{pf['spec'].replace(':', '_')}"
        H, C, co = pf["nhosts"], pf["cores"], pf["co"]
        slots = [(h, k) for h in range(H) for k in range(C)]  # block launch: rank r on slots[r]
        kernels = []
        for row in (8, 16):
            nrows = n // row
            g = write_edges(tools.path(f"{tag}-fft-{row}.edges"), n, fft_edges(row, nrows, FFT_BYTES))
            groups = write_groups(tools.path(f"{tag}-fft-{row}.groups"), fft_lines(row, nrows))
            kernels.append((f"3-D FFT {nrows}x{row} (rows of {row})", g,
                            [tools.kernel("fft"), str(row), str(nrows), str(FFT_BYTES), "1"], 1.0, groups))
        kernels.append((f"2-D stencil {nx}x{ny}", write_edges(tools.path(f"{tag}-st2.edges"), n,
                                                              stencil_edges(nx, ny, STENCIL_BYTES)),
                        [tools.kernel("stencil2d"), str(nx), str(ny), str(STENCIL_BYTES), "1"], 1.0, None))
        g3 = tools.gen("cubic1", "torus:8x4x4", tools.path(f"{tag}-halo.edges"))
        kernels.append(("3-D halo 8x4x4", g3, [tools.kernel("replay"), g3, str(UNIT["cubic1"]), "1"],
                        UNIT["cubic1"], None))
        gu = tools.gen("umt", pf["topo"] if pf["kind"] == "torus" else f"tree:{H}x{C}", tools.path(f"{tag}-umt.edges"))
        kernels.append(("irregular (UMT-like)", gu, [tools.kernel("replay"), gu, str(UNIT["umt"]), "1"],
                        UNIT["umt"], None))

        def tiles(a, b):
            """the 16x8 task grid cut into a x b tiles, tile t on host t (or,
            on the torus, on the t-th block of a*b consecutive nodes)"""
            out = [None] * n
            per = ny // b
            for r in range(n):
                i, j = divmod(r, ny)
                t = (i // a) * per + j // b
                out[r] = slots[t * a * b + (i % a) * b + j % b]
            return out

        for kernel, g, argv, unit, groups in kernels:
            c = Case(kernel, pf["name"], pf["kind"], pf["spec"], pf["topo"], g, argv, baseline="launch order")
            c.model_args, c.unit, c.groups = pf["model_args"], unit, groups
            stem = tools.path(f"{tag}-{len(cases)}")

            def add(label, where, c=c, stem=stem):
                c.add(label, write_coords(f"{stem}-{len(c.placements)}.map", [co(h, k) for h, k in where]))

            add("launch order", slots)
            if C > 1:
                add("round-robin launch", [(r % H, r // H) for r in range(n)])
            for s in (1, 2):
                rng = random.Random(s)
                if C > 1:
                    perm = list(range(H))
                    rng.shuffle(perm)
                    add(f"launch order, hosts permuted #{s}", [(perm[h], k) for h, k in slots])
                where = list(slots)
                idx = list(range(n))
                rng.shuffle(idx)
                for a_, b_ in zip(idx[0:n // 8:2], idx[1:n // 8:2]):
                    where[a_], where[b_] = where[b_], where[a_]
                add(f"launch order, 1/8 of the ranks exchanged #{s}", where)
            for a_, b_ in ((2, 4), (4, 2)) if C == 8 else ((2, 4), (4, 2), (2, 2)):
                add(f"grid cut into {a_}x{b_} tiles", tiles(a_, b_))
            for s in (1, 2, 3):
                where = list(slots)
                random.Random(100 + s).shuffle(where)
                add(f"random #{s}", where)
            m = f"{stem}-mapper.map"
            tools.map(pf["topo"], g, m, "--seed", "1", "--no-cache", "--guard", "off", "--algorithm", "fast")
            c.add("mapper before the guard (fast)", m)
            m = f"{stem}-default.map"
            tools.map(pf["topo"], g, m, "--seed", "1", "--no-cache", "--current", c.baseline_map(),
                      *(["--alltoall", groups] if groups else []))
            c.add("rankmap default", m)
            cases.append(c)
    return cases


def smoke_cases(tools):
    topo, dims = "torus:4x4x2", "4x4x2"
    g, ideal = scramble(tools, "cubic1", topo, 32, seed=1)
    c = Case("cubic1 (scrambled)", dims + " torus", "torus", dims, topo, g,
             [tools.kernel("replay"), g, str(UNIT["cubic1"]), "1"], baseline="rank order")
    c.unit = UNIT["cubic1"]
    m = tools.path("smoke-identity.map")
    tools.map(topo, g, m, "--algorithm", "identity")
    c.add("rank order", m)
    m = tools.path("smoke-auto.map")
    tools.map_default(c, m)
    c.add("rankmap default", m)
    c.add("ideal (unscrambled)", ideal)
    return [c]


# ---- running ------------------------------------------------------------------

RUNNING = set()  # process groups of the simulations in flight
STOP = []


def stop(signum, _frame):
    """SIGTERM/SIGINT: kill the simulations in flight, start no new one."""
    STOP.append(signum)
    for pid in list(RUNNING):
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    raise SystemExit(128 + signum)


def simulate(tools, case, label, mapfile, timeout, extra=None):
    """extra (the placement's): argv replaces the case's program, env adds
    variables (the in-call rows: the program reorders inside the call)."""
    extra = extra or {}
    if STOP:
        return {}, 0.0, 0.0, "interrupted"
    hosts = plat.hosts_from_map(case.kind, case.spec, plat.read_mapfile(mapfile), mapfile)
    hf = mapfile + ".hosts"
    with open(hf, "w") as f:
        f.write("".join(h + "\n" for h in hosts))
    cmd = ["smpirun", "-np", str(len(hosts)), "-platform", platform_file(tools, case.kind, case.spec),
           "-hostfile", hf, *SMPI_CFG, *extra.get("argv", case.argv)]
    env = dict(os.environ, **extra.get("env", {}))
    t = time.time()
    # os.wait4 gives the CPU time of smpirun and the simulator it waits for
    # (a quiet-machine estimate of the wall time: SMPI runs on one core).
    with tempfile.TemporaryFile("w+") as fo, tempfile.TemporaryFile("w+") as fe:
        p = subprocess.Popen(cmd, stdout=fo, stderr=fe, start_new_session=True, env=env)
        RUNNING.add(p.pid)
        killed = []

        def kill():
            killed.append(1)
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        timer = threading.Timer(timeout, kill)
        timer.start()
        _, status, ru = os.wait4(p.pid, 0)
        timer.cancel()
        RUNNING.discard(p.pid)
        p.returncode = os.waitstatus_to_exitcode(status)
        fo.seek(0)
        fe.seek(0)
        out, err = fo.read(), fe.read()
    cpu = ru.ru_utime + ru.ru_stime
    if killed:
        return {}, time.time() - t, cpu, f"timeout after {timeout} s"
    res = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0].endswith("_TIME"):
            res[f[0]] = float(f[1])
    msg = "" if "COMM_TIME" in res else (err.strip().splitlines() or ["no output"])[-1]
    if "env" in extra:  # the plugin's verbose line: what the call decided
        said = [line for line in err.splitlines() if "rankmap-pmpi: MPI_Cart" in line]
        extra["decision"] = said[0].split("rankmap-pmpi: ", 1)[1] if said else ""
    return res, time.time() - t, cpu, msg


def run_all(tools, cases, jobs, timeout):
    tasks = [(c, lab, m, extra) for c in cases for lab, m, extra in c.placements]
    rows = []
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        futs = {ex.submit(simulate, tools, c, lab, m, timeout, extra): (c, lab, m, extra)
                for c, lab, m, extra in tasks}
        for k, f in enumerate(concurrent.futures.as_completed(futs), 1):
            c, lab, m, extra = futs[f]
            res, wall, cpu, msg = f.result()
            # in-call rows: the placement is decided inside the program
            F, load, f_abs = (None, None, None) if extra.get("incall") else tools.eval(c.topo, c.graph, m)
            rows.append(dict(case=c, kernel=c.kernel, platform=c.platform, placement=lab, ratio_F=F,
                             F=f_abs, link_load=load, res=res, wall=wall, cpu=cpu, extra=extra, msg=msg))
            t = res.get("COMM_TIME")
            log(f"[{k}/{len(tasks)} {time.time() - t0:5.0f} s] {c.kernel} | {c.platform} | {lab}: "
                + (f"{t * 1e3:.3f} ms" if t else f"FAILED ({msg})") + f"  (simulation {wall:.0f} s wall, {cpu:.0f} s CPU)")
    order = {(id(c), lab): i for i, (c, lab, _, _) in enumerate(tasks)}
    rows.sort(key=lambda r: order[(id(r["case"]), r["placement"])])
    return rows


def fmt_ms(t):
    return f"{t * 1e3:.3f}" if t else "-"


def table(rows, title):
    base = {}
    for r in rows:
        if r["placement"] == r["case"].baseline:
            base[id(r["case"])] = r
    lines = [f"**{title}**", "",
             "| kernel | platform | placement | F/F_min | max link load | comm time (ms) | vs rank order "
             "| model (ms) | paper's figure |",
             "|---|---|---|---:|---:|---:|---:|---|---|"]
    last = None
    for r in rows:
        c = r["case"]
        b = base.get(id(c))
        t = r["res"].get("COMM_TIME")
        bt = b["res"].get("COMM_TIME") if b else None
        sp = f"{bt / t:.2f}x" if t and bt else "-"
        if r["link_load"] is None:
            load = "-"
        else:
            load = f"{r['link_load'] / b['link_load']:.2f}" if b and b["link_load"] else f"{r['link_load']:.0f}"
        tcell = fmt_ms(t)
        model = ""
        if "ROW_TIME" in r["res"]:
            tcell = f"{fmt_ms(t)} (rows {fmt_ms(r['res']['ROW_TIME'])}, cols {fmt_ms(r['res']['COL_TIME'])})"
            if b and "ROW_TIME" in b["res"]:
                sp += f" (rows {b['res']['ROW_TIME'] / r['res']['ROW_TIME']:.2f}x)"
        if "model" in r["extra"]:
            mr, mc, tr, tc = r["extra"]["model"]
            model = f"rows {tr * 1e3:.2f} (m={mr:g}), cols {tc * 1e3:.2f} (m={mc:g})"
        paper = c.paper if last is not c else ""
        last = c
        ratio = "-" if r["ratio_F"] is None else f"{r['ratio_F']:.3f}"
        if r["extra"].get("decision"):
            model = r["extra"]["decision"].split(";")[0]
        lines.append(f"| {r['kernel']} | {r['platform']} | {r['placement']} | {ratio} | {load} "
                     f"| {tcell} | {sp} | {model} | {paper} |")
    lines += ["", "max link load: relative to the rank-order placement (rankmap eval's busiest link with "
              "dimension-order routes; tree topologies: its own measure). vs rank order: time of the rank-order "
              "(or round-robin / default) placement divided by this placement's time."]
    return "\n".join(lines)


def time_of(rows, kernel_prefix, platform_prefix, placement_prefix, key="COMM_TIME"):
    for r in rows:
        if r["kernel"].startswith(kernel_prefix) and r["platform"].startswith(platform_prefix) and \
                r["placement"].startswith(placement_prefix):
            return r["res"].get(key)
    return None


def targets(rows):
    out = []

    def check(name, ok, detail):
        if ok is None:
            return
        out.append(f"- {'PASS' if ok else 'MISS'}: {name}: {detail}")

    # every default placement against its case's launch order (do no harm)
    worst = None
    for r in rows:
        if r["placement"].startswith("rankmap default") and "COMM_TIME" in r["res"]:
            base = time_of([x for x in rows if x["case"] is r["case"]], "", "", r["case"].baseline)
            if base:
                x = base / r["res"]["COMM_TIME"]
                if worst is None or x < worst[0]:
                    worst = (x, f"{r['kernel']} on {r['platform']} ({r['placement']})")
    if worst:
        check("no rankmap default row slower than the launch order", worst[0] >= 1 - 1e-9,
              f"lowest {worst[0]:.3f}x: {worst[1]}")
    for k, need in (("sage", 1.85), ("umt", 1.9)):
        a = time_of(rows, k, "8x8x8", "rank order")
        for lab in ("rankmap default", IN_CALL, "rankmap congestion"):
            b = time_of(rows, k, "8x8x8", lab)
            if a and b:
                check(f"{k}-like 8x8x8: {lab} >= {need}x faster than rank order", a / b >= need,
                      f"{a / b:.2f}x ({fmt_ms(a)} -> {fmt_ms(b)} ms)")
    for k, need in (("sage", 1.85), ("umt", 1.9)):
        a = time_of(rows, k, "8x8x8", "rank order")
        for lab in ("rankmap default", IN_CALL):
            xs = [a / r["res"]["COMM_TIME"] for r in rows if r["kernel"].startswith(k) and
                  r["platform"].startswith("8x8x8") and "COMM_TIME" in r["res"] and
                  (r["placement"] == lab or (r["placement"].startswith(lab + ", seed ") and
                                             r["placement"][len(lab) + 7:].isdigit()))]
            if a and len(xs) > 1:
                xs.sort()
                check(f"{k}-like 8x8x8: {lab} >= {need}x faster than rank order with each of {len(xs)} seeds",
                      xs[0] >= need, f"lowest {xs[0]:.2f}x, median {xs[len(xs) // 2]:.2f}x, highest {xs[-1]:.2f}x")
    for k in ("cubic1", "cubic2"):
        a, b = time_of(rows, k, "8x8x8", "ideal"), time_of(rows, k, "8x8x8", "rankmap default")
        if a and b:
            check(f"{k} scrambled 8x8x8: rankmap within 5 % of the ideal layout", b <= 1.05 * a,
                  f"{b / a:.3f} of ideal ({fmt_ms(b)} vs {fmt_ms(a)} ms)")
    a = time_of(rows, "3-D FFT 8x64", "8x8x8", "default", "ROW_TIME")
    b = time_of(rows, "3-D FFT 8x64", "8x8x8", "8-cube", "ROW_TIME")
    if a and b:
        check("FFT 8x64: 8-cube rows faster than default rows", b < a,
              f"{fmt_ms(b)} vs {fmt_ms(a)} ms ({a / b:.2f}x; Jagode et al.: 1.21x)")
    for grid in ("8x64", "64x8"):
        a = time_of(rows, f"3-D FFT {grid}", "8x8x8", "default (rank order)")
        b = time_of(rows, f"3-D FFT {grid}", "8x8x8", "rankmap default, all-to-all hint")
        if a and b:
            check(f"FFT {grid}: rankmap default with the all-to-all hint >= 1.10x faster than rank order",
                  a / b >= 1.10, f"{a / b:.3f}x ({fmt_ms(a)} -> {fmt_ms(b)} ms)")
    for plat_name in ("8x4x4 mesh", "8x4x4 torus"):
        st = [r for r in rows if r["kernel"].startswith("2-D stencil") and r["platform"] == plat_name]
        peers = [r["res"]["COMM_TIME"] for r in st if "COMM_TIME" in r["res"] and
                 (r["placement"].startswith("stock") or r["placement"].startswith("gray"))]
        auto = [r["res"]["COMM_TIME"] for r in st if r["placement"] == "rankmap default" and "COMM_TIME" in r["res"]]
        if peers and auto:
            check(f"stencil {plat_name}: rankmap default at least as fast as the best stock/Gray map",
                  auto[0] <= min(peers) * (1 + 1e-9), f"{fmt_ms(auto[0])} vs best {fmt_ms(min(peers))} ms")
    # today's clusters (--fattree): block launch order is the baseline
    ft = [r for r in rows if r["platform"].startswith("fat tree") and "COMM_TIME" in r["res"]]
    if ft:
        def base_of(r):
            return time_of([x for x in rows if x["case"] is r["case"]], "", "", r["case"].baseline)
        hinted = [(base_of(r) / r["res"]["COMM_TIME"], r) for r in ft
                  if r["placement"] in ("rankmap default", "rankmap default, sizes given",
                                        "rankmap default, all-to-all hint", "in the call (plugin), all-to-all hint")]
        if hinted:
            x, r = min(hinted, key=lambda p: p[0])
            check("fat tree: rankmap's default with the traffic declared (the all-to-all hint, set or learnt; in "
                  "the call too) never slower than the launch order", x >= 1 - 1e-9,
                  f"lowest {x:.3f}x: {r['kernel']} on {r['platform']} ({r['placement']})")
        first = [(base_of(r) / r["res"]["COMM_TIME"], r) for r in ft if r["placement"].endswith("no hint")]
        if first:
            x, r = min(first, key=lambda p: p[0])
            check("fat tree: a grid without the hint (a first run: judged as a stencil and as transposes; in the "
                  "call too) never slower than the launch order", x >= 1 - 1e-9,
                  f"lowest {x:.3f}x: {r['kernel']} on {r['platform']} ({r['placement']})")
        for r in ft:
            kern, x = r["kernel"], base_of(r) / r["res"]["COMM_TIME"]
            if r["placement"] == "rankmap default, all-to-all hint" and getattr(r["case"], "grouping_gain", False):
                check(f"fat tree: FFT {kern.split()[2]}, whose rows or columns fit a host and are split by the "
                      f"launch order, gains >= 1.2x, {r['platform']}", x >= 1.2, f"{x:.2f}x")
            if r["placement"] == "rankmap default, sizes given" and kern == "2-D stencil 16x8":
                check(f"fat tree: 2-D stencil 16x8 (graph file in bytes, links given) >= 1.2x over the launch "
                      f"order, {r['platform']}", x >= 1.2, f"{x:.2f}x")
    out += harm_targets(rows)
    for r in rows:
        if r["kernel"].startswith("irregular") and "three-tier" in r["platform"] and \
                r["placement"] == "rankmap default":
            a = time_of(rows, "irregular", r["platform"], "METIS")
            b = r["res"].get("COMM_TIME")
            if a and b:
                note = ""
                opt = r["case"].optimum
                if opt is not None:
                    def f_text(name, f):
                        return f"{name} F {f:.6g}" + (" (optimal)" if f <= opt * (1 + 1e-9) else "")
                    parts = [f_text("rankmap", r["F"])] + \
                        [f_text("METIS", x["F"]) for x in rows
                         if x["case"] is r["case"] and x["placement"].startswith("METIS")]
                    note = f"; exhaustive optimum F {opt:.6g}: " + ", ".join(parts)
                check(f"{r['platform']} irregular: rankmap beats METIS partitioning", b < a,
                      f"{fmt_ms(b)} vs {fmt_ms(a)} ms ({a / b:.2f}x){note}")
    return out


def harm_targets(rows):
    """Issue 61's "done when" over the --harm rows."""
    out = []
    hr = [r for r in rows if ", 100 Gb/s" in r["platform"] or ", 200 Gb/s" in r["platform"]]
    if not hr:
        return out

    def ratio(r):
        base = time_of([x for x in rows if x["case"] is r["case"]], "", "", r["case"].baseline)
        t = r["res"].get("COMM_TIME")
        return base / t if base and t else None

    def line(ok, name, detail):
        out.append(f"- {'PASS' if ok else 'MISS'}: {name}: {detail}")

    # rankmap's rows: the CLI's and the call's (--validate's other rows are
    # placements no mapper proposed, there to test the model)
    ours = [(ratio(r), r) for r in hr if r["placement"] != r["case"].baseline and
            r["placement"].startswith(("rankmap", "in the call"))]
    failed = [(x, r) for x, r in ours if x is None]
    ours = [(x, r) for x, r in ours if x is not None]
    slower = sorted([(x, r) for x, r in ours if x < 1 - 1e-9], key=lambda p: p[0])
    worst = min(ours, key=lambda p: p[0]) if ours else None
    detail = f"{len(ours)} rows, lowest {worst[0]:.3f}x ({worst[1]['kernel']} | {worst[1]['platform']} | " \
             f"{worst[1]['placement']})" if worst else "no rows"
    if slower:
        detail += f"; {len(slower)} below 1.00x: " + "; ".join(
            f"{r['kernel']} | {r['platform']} | {r['placement']} {x:.3f}x" for x, r in slower[:12])
    if failed:
        detail += f"; {len(failed)} rows without a time"
    line(not slower and not failed, "no rankmap row slower than the launch order (fat trees and torus of today, "
         "in the call and through the CLI)", detail)

    def best(pred, label_pred):
        xs = [(x, r) for x, r in ours if pred(r) and label_pred(r["placement"])]
        return xs

    for name, pred, need in (
            ("2-D stencil 16x8 on the fat trees", lambda r: r["kernel"].startswith("2-D stencil 16x8")
             and "fat tree" in r["platform"], 1.2),
            ("SAGE-like on the fat trees", lambda r: r["kernel"].startswith("irregular (SAGE")
             and "fat tree" in r["platform"], 1.25),
            ("transposes split by the launch order", lambda r: getattr(r["case"], "split_by_launch", False), 1.25),
            ("SAGE-like on 8x8x8 through the CLI", lambda r: r["kernel"].startswith("irregular (SAGE")
             and "8x8x8" in r["platform"], 1.8),
            ("UMT-like on 8x8x8 through the CLI", lambda r: r["kernel"].startswith("irregular (UMT")
             and "8x8x8" in r["platform"], 1.6)):
        for lab, lp in (("through the CLI", lambda p: p.startswith("rankmap map")),
                        ("in the call, MAPPING unset, no hint", lambda p: p == "in the call, MAPPING unset, no hint"
                         or p == "in the call, MAPPING unset")):
            xs = best(pred, lp)
            if not xs:
                continue
            lo = min(xs, key=lambda p: p[0])
            line(lo[0] >= need, f"{name} >= {need}x, {lab}",
                 f"lowest {lo[0]:.2f}x of {len(xs)} rows ({lo[1]['kernel']} | {lo[1]['platform']})")
    return out


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("run.py: matplotlib missing, no plot")
        return
    cases = []
    for r in rows:
        if r["case"] not in cases:
            cases.append(r["case"])
    fig, axes = plt.subplots(len(cases), 1, figsize=(9, 1.0 + 0.32 * len(rows) + 0.6 * len(cases)),
                             squeeze=False,
                             gridspec_kw={"height_ratios": [len(c.placements) + 1 for c in cases]})
    for ax, c in zip(axes[:, 0], cases):
        rs = [r for r in rows if r["case"] is c and "COMM_TIME" in r["res"]]
        names = [r["placement"] for r in rs]
        colors = ["tab:red" if r["placement"] == c.baseline else
                  "tab:green" if r["placement"].startswith("rankmap") else "tab:gray" for r in rs]
        if all("ROW_TIME" in r["res"] and "model" in r["extra"] for r in rs):  # FFT on a torus: model of Jagode et al.
            rt = [r["res"]["ROW_TIME"] * 1e3 for r in rs]
            ax.barh(names, rt, color=colors, label="row all-to-all")
            ax.barh(names, [r["res"]["COL_TIME"] * 1e3 for r in rs], left=rt, color=colors, alpha=0.45,
                    label="column all-to-all")
            ax.scatter([r["extra"]["model"][2] * 1e3 for r in rs], names, marker="|", s=200, color="k",
                       label="model, rows (Jagode et al.)", zorder=3)
            ax.legend(fontsize=6, loc="lower right")
        else:
            ax.barh(names, [r["res"]["COMM_TIME"] * 1e3 for r in rs], color=colors)
        ax.invert_yaxis()
        ax.set_title(f"{c.kernel} on {c.platform}", fontsize=9)
        ax.tick_params(labelsize=7)
        ax.set_xlabel("simulated communication time (ms)", fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def save_maps(rows, out, mode):
    """Copies each row's mapfile, its graph and all-to-all groups into OUT and
    writes OUT/manifest.json: per row the kernel, platform, placement, the
    `rankmap eval` inputs of the cost model and the simulated times."""
    os.makedirs(out, exist_ok=True)
    copied = {}

    def keep(path, stem):
        if path not in copied:
            dst = f"{stem}-{len(copied):03d}{os.path.splitext(path)[1]}"
            shutil.copyfile(path, os.path.join(out, dst))
            copied[path] = dst
        return copied[path]

    entries = []
    for r in rows:
        c = r["case"]
        if r["extra"].get("incall"):
            continue  # placed inside the program: no mapfile to evaluate
        m = next(m for lab, m, _ in c.placements if lab == r["placement"])
        entries.append(dict(kernel=r["kernel"], platform=r["platform"], placement=r["placement"], topology=c.topo,
                            graph=keep(c.graph, "graph"), mapping=keep(m, "map"),
                            alltoall=keep(c.groups, "groups") if c.groups else None,
                            bytes_per_unit=c.unit, model_args=c.model_args,
                            comm_s=r["res"].get("COMM_TIME"), row_s=r["res"].get("ROW_TIME"),
                            col_s=r["res"].get("COL_TIME")))
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(dict(mode=mode, smpi_cfg=SMPI_CFG, rows=entries), f, indent=1)
    log(f"run.py: saved {len(entries)} placements in {out}/manifest.json")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="the fast subset")
    mode.add_argument("--smoke", action="store_true", help="the CTest smoke test")
    mode.add_argument("--irregular", action="store_true",
                      help="only SAGE-like and UMT-like on the 8x8x8 torus: rank order, auto, congestion")
    mode.add_argument("--clusters", action="store_true",
                      help="only the clusters of Chen et al. (MPIPP), as in the full run")
    mode.add_argument("--fattree", action="store_true",
                      help="only today's clusters: a two-level fat tree, block launch order")
    mode.add_argument("--validate", action="store_true",
                      help="issue 61: the cost model on placements no mapper proposed (use with --maps, then "
                           "model_check.py --families)")
    mode.add_argument("--harm", action="store_true",
                      help="issue 61: fat trees and a torus of today, declared as users declare them, in the call "
                           "and through the CLI with plain graph files")
    ap.add_argument("--sizes", default="128,512", help="with --harm: fat trees of these many ranks (128, 512)")
    ap.add_argument("--build", default=os.path.join(SRC, "_build"), help="rankmap build tree (default _build)")
    ap.add_argument("--out", default=os.path.join(HERE, "results"), help="where the table and plots go")
    ap.add_argument("--jobs", type=int, default=2, help="simulations at once (default 2)")
    ap.add_argument("--seeds", type=int, default=1,
                    help="with --irregular: the default's rows for the seeds 1..S (default 1)")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per simulation")
    ap.add_argument("--keep", action="store_true", help="keep the work directory (graphs, maps, platforms)")
    ap.add_argument("--record", metavar="FILE",
                    help="write the table and targets with the bench/results header (date, commit, machine, command)")
    ap.add_argument("--maps", metavar="DIR",
                    help="save every row's placement, graph and simulated time in DIR (manifest.json), "
                         "the input of model_check.py")
    a = ap.parse_args()
    name = "smoke" if a.smoke else "quick" if a.quick else "irregular" if a.irregular else \
        "clusters" if a.clusters else "fattree" if a.fattree else "harm" if a.harm else \
        "validate" if a.validate else "full"
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    work = tempfile.mkdtemp(prefix="rankmap-simgrid-")
    t0 = time.time()
    try:
        tools = Tools(os.path.abspath(a.build), work)
        if a.smoke:
            cases = smoke_cases(tools)
        elif a.irregular:
            cases = bhanot_cases(tools, "8x8x8", False, irregular=True, nseeds=a.seeds)
        elif a.clusters:
            cases = cluster_cases(tools, False)
        elif a.fattree:
            cases = fattree_cases(tools)
        elif a.harm:
            cases = harm_cases(tools, [int(x) for x in a.sizes.split(",")])
        elif a.validate:
            cases = validate_cases(tools)
        else:
            cases = bhanot_cases(tools, "8x8x8", a.quick) + stencil_cases(tools, a.quick) + \
                fft_cases(tools, a.quick) + cluster_cases(tools, a.quick)
        log(f"run.py: {sum(len(c.placements) for c in cases)} simulations prepared in {time.time() - t0:.0f} s")
        rows = run_all(tools, cases, a.jobs, a.timeout)
        if a.maps:
            save_maps(rows, a.maps, name)
    finally:
        if a.keep:
            log(f"run.py: work directory kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    wall = time.time() - t0
    cpu = sum(r["cpu"] for r in rows)
    title = (f"rankmap on simulated machines (SimGrid SMPI {name} run: {wall:.0f} s wall, of which "
             f"{cpu:.0f} s CPU in {len(rows)} simulations; comm times are simulated, deterministic)")
    text = table(rows, title)
    tg = targets(rows)
    print(text)
    if tg:
        print("\nTargets:")
        print("\n".join(tg))
    if a.smoke:
        base = time_of(rows, "cubic1", "4x4x2", "rank order")
        mine = time_of(rows, "cubic1", "4x4x2", "rankmap default")
        ok = bool(base and mine and mine < base)
        print(f"\nsmoke: rank order {fmt_ms(base)} ms, rankmap {fmt_ms(mine)} ms: {'OK' if ok else 'FAILED'}")
        return 0 if ok else 1
    if a.record:
        with open(a.record, "w") as f:
            f.write(sg_record.header("bench/simgrid/run.py") + text + "\n\nTargets:\n" + "\n".join(tg) + "\n")
        log(f"run.py: recorded in {a.record}")
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, f"{name}.md"), "w") as f:
        f.write(text + "\n\nTargets:\n" + "\n".join(tg) + "\n")
    with open(os.path.join(a.out, f"{name}.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kernel", "platform", "placement", "F_over_Fmin", "max_link_load", "comm_s", "row_s", "col_s",
                    "simulation_wall_s", "simulation_cpu_s"])
        for r in rows:
            w.writerow([r["kernel"], r["platform"], r["placement"],
                        "" if r["ratio_F"] is None else f"{r['ratio_F']:.4f}",
                        "" if r["link_load"] is None else f"{r['link_load']:.0f}",
                        r["res"].get("COMM_TIME", ""), r["res"].get("ROW_TIME", ""), r["res"].get("COL_TIME", ""),
                        f"{r['wall']:.1f}", f"{r['cpu']:.1f}"])
    plot(rows, os.path.join(a.out, f"{name}.png"))
    log(f"run.py: wrote {a.out}/{name}.md .csv .png ({wall:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

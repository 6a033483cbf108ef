#!/usr/bin/env python3
"""run.py -- torus broadcast vs SMPI's built-in broadcasts on a simulated
8x8x8 torus and mesh (SimGrid SMPI, Debian's libsimgrid-dev 3.32).

  bench/bcast/run.py [--quick] [--dims 8x8x8] [--out DIR] [--jobs 2]
                     [--sizes 65536,...] [--builtins a,b,...] [--timeout SEC]

Builds bench/bcast/bcast_bench.c + src/coll with smpicc, generates the
platforms (gen_platform.py: BG/L links, 154 MB/s payload per direction, 100 ns),
runs every algorithm with SMPI's correction factors set to 1 and no
computation simulated, and prints a table of bandwidth (bytes / time) and
of the fraction of the bound: 2n links x 154 MB/s on the torus, n links on
the mesh.  Results go to DIR/results.csv (plot.py draws them), rewritten
after every simulation, so an interrupted sweep keeps what finished; the
wall time of each simulation goes to DIR/wall.csv.  Simulations run in the
order: torus broadcast (torus, mesh), mesh built-ins, torus built-ins.
"""
import argparse
import concurrent.futures
import csv
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
LINK_BW = 154e6  # bytes/s per link and direction (platform.py)

CFG = ["--cfg=smpi/bw-factor:0:1", "--cfg=smpi/lat-factor:0:1",
       "--cfg=network/crosstraffic:0", "--cfg=smpi/simulate-computation:no"]

# SMPI 3.32 broadcasts: the selectors, then each algorithm.  (SMP_* and
# mvapich2_*_node need several ranks per host; automatic tries them all.)
BUILTIN_ALL = ["mpich", "ompi", "default", "binomial_tree", "flattree", "flattree_pipeline",
               "NTSB", "NTSL", "NTSL_Isend", "scatter_LR_allgather", "scatter_rdb_allgather",
               "ompi_pipeline", "ompi_split_bintree", "arrival_pattern_aware", "arrival_scatter"]
BUILTIN_QUICK = ["mpich", "binomial_tree", "scatter_LR_allgather", "scatter_rdb_allgather",
                 "ompi_pipeline", "NTSL"]
SIZES_ALL = [64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20]
MESH_BUILTINS = ["mpich", "binomial_tree", "scatter_LR_allgather"]
SIZES_QUICK = [1 << 20, 4 << 20]


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def build(out):
    inc = ["-I" + os.path.join(SRC, "include"), "-I" + os.path.join(SRC, "src")]
    exe = os.path.join(out, "bcast_bench")
    sh(["g++", "-std=c++17", "-O2", "-fPIC", *inc, "-c",
        os.path.join(SRC, "src/coll/bcast_schedule.cpp"), "-o", os.path.join(out, "sched.o")])
    for src, obj in (("src/coll/bcast_torus_mpi.c", "exec.o"), ("bench/bcast/bcast_bench.c", "bench.o")):
        sh(["smpicc", "-O2", *inc, "-c", os.path.join(SRC, src), "-o", os.path.join(out, obj)],
           stderr=subprocess.DEVNULL)
    sh(["smpicc", *[os.path.join(out, o) for o in ("bench.o", "exec.o", "sched.o")], "-lstdc++",
        "-o", exe], stderr=subprocess.DEVNULL)
    return exe


def run_one(exe, plat, hosts, n, dims, wrap, alg, sizes, timeout):
    if alg == "torus":
        extra, prog = [], ["torus"]
    elif alg in ("mpich", "ompi", "default"):
        extra, prog = ["--cfg=smpi/coll-selector:" + alg], ["mpi"]
    else:
        extra, prog = ["--cfg=smpi/bcast:" + alg], ["mpi"]
    cmd = ["smpirun", "-np", str(n), "-platform", plat, "-hostfile", hosts, *CFG, *extra, exe,
           *prog, dims, str(wrap), ",".join(map(str, sizes))]
    t = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        out = p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
    res = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[0] == "RESULT":
            res[int(f[2])] = float(f[3])
    return alg, res, time.time() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--dims", default="8x8x8")
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=900, help="seconds per simulation")
    ap.add_argument("--no-mesh", action="store_true")
    ap.add_argument("--sizes", help="comma-separated byte counts (default: 64 KiB..16 MiB, x4)")
    ap.add_argument("--builtins", help="comma-separated SMPI algorithms on the torus (default: all)")
    ap.add_argument("--mesh-builtins", default=",".join(MESH_BUILTINS),
                    help="comma-separated SMPI algorithms on the mesh (default: %(default)s)")
    ap.add_argument("--table", metavar="CSV[,CSV...]",
                    help="only print the table of existing results files (merged; later files win)")
    ap.add_argument("--no-torus-alg", action="store_true",
                    help="skip the torus broadcast itself (to complete an interrupted sweep)")
    a = ap.parse_args()
    if a.table:
        merged = {}
        for path in a.table.split(","):
            with open(path) as f:
                for r in csv.DictReader(f):
                    merged[(r["platform"], r["algorithm"], int(r["bytes"]))] = float(r["seconds"])
        rows = [(k, alg, b, t) for (k, alg, b), t in sorted(merged.items())]
        table(rows, [int(x) for x in a.dims.split("x")], sorted({b for _, _, b, _ in rows}))
        return
    os.makedirs(a.out, exist_ok=True)
    exe = build(a.out)
    dims = [int(x) for x in a.dims.split("x")]
    n = 1
    for e in dims:
        n *= e
    hosts = os.path.join(a.out, "hosts")
    sh([sys.executable, os.path.join(HERE, "gen_platform.py"), "hostfile", str(n), hosts])
    sizes = SIZES_QUICK if a.quick else SIZES_ALL
    if a.sizes:
        sizes = sorted(int(x) for x in a.sizes.split(","))
    builtins = BUILTIN_QUICK if a.quick else BUILTIN_ALL
    if a.builtins:
        builtins = a.builtins.split(",")
    plats = {}
    for kind in ("torus", "mesh"):
        plats[kind] = os.path.join(a.out, f"{kind}-{a.dims}.xml")
        sh([sys.executable, os.path.join(HERE, "gen_platform.py"), kind, a.dims, plats[kind]])
    kinds = [("torus", 1)] + ([] if a.no_mesh else [("mesh", 0)])
    jobs = [] if a.no_torus_alg else [(kind, wrap, "torus") for kind, wrap in kinds]
    if not a.no_mesh:
        jobs += [("mesh", 0, alg) for alg in a.mesh_builtins.split(",") if alg]
    jobs += [("torus", 1, alg) for alg in builtins]
    rows, walls = [], []

    def save():
        with open(os.path.join(a.out, "results.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["platform", "algorithm", "bytes", "seconds"])
            for r in sorted(rows):
                w.writerow(r)
        with open(os.path.join(a.out, "wall.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["platform", "algorithm", "sizes_done", "sizes", "wall_seconds"])
            for r in walls:
                w.writerow(r)

    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        futs = {ex.submit(run_one, exe, plats[kind], hosts, n, a.dims, wrap, alg, sizes, a.timeout): (kind, alg)
                for kind, wrap, alg in jobs}
        for f in concurrent.futures.as_completed(futs):
            kind, alg = futs[f]
            _, res, wall = f.result()
            print(f"# {kind:5s} {alg:22s} {len(res)}/{len(sizes)} sizes in {wall:.0f} s", file=sys.stderr,
                  flush=True)
            for size, t in res.items():
                rows.append((kind, alg, size, t))
            walls.append((kind, alg, len(res), len(sizes), round(wall)))
            save()
    table(rows, dims, sizes)


def table(rows, dims, sizes):
    nd = sum(1 for e in dims if e > 1)
    for kind in ("torus", "mesh"):
        links = 2 * nd if kind == "torus" else nd
        bound = links * LINK_BW
        data = {(alg, s): t for k, alg, s, t in rows if k == kind}
        if not data:
            continue
        algs = sorted({alg for alg, _ in data}, key=lambda x: (x != "torus", x))
        print(f"\n{kind} {'x'.join(map(str, dims))}: bandwidth MB/s (fraction of the "
              f"{links}-link bound {bound / 1e6:.0f} MB/s)")
        print(f"| {'algorithm':22s} | " + " | ".join(f"{s >> 10:>9d} KiB" for s in sizes) + " |")
        print("|" + "-" * 24 + "|" + "|".join("-" * 15 for _ in sizes) + "|")
        for alg in algs:
            cells = []
            for s in sizes:
                t = data.get((alg, s))
                cells.append(f"{s / t / 1e6:6.0f} ({s / t / bound:4.0%})" if t else f"{'-':>14s}")
            print(f"| {alg:22s} | " + " | ".join(cells) + " |")
        if kind == "torus":
            print("\nspeed-up of the torus broadcast over the best built-in:")
            for s in sizes:
                best = min((t for (alg, ss), t in data.items() if ss == s and alg != "torus"), default=None)
                mine = data.get(("torus", s))
                if best and mine:
                    who = [alg for (alg, ss), t in data.items() if ss == s and t == best][0]
                    nb = sum(1 for (alg, ss) in data if ss == s and alg != "torus")
                    print(f"  {s >> 10:>6d} KiB: {best / mine:5.2f}x (best built-in: {who}, of {nb} run at this size)")
    # the targets, measured on these rows
    print("\ntargets (issue 4):")
    for kind, s, t in sorted(rows_targets(rows, dims)):
        print(f"  {t}")


def rows_targets(rows, dims):
    nd = sum(1 for e in dims if e > 1)
    out = []
    for kind in ("torus", "mesh"):
        links = 2 * nd if kind == "torus" else nd
        bound = links * LINK_BW
        data = {(alg, s): t for k, alg, s, t in rows if k == kind}
        for (alg, s), t in sorted(data.items()):
            if alg != "torus":
                continue
            frac = s / t / bound
            if kind == "torus" and s >= 1 << 20:
                best = min((tt for (a2, ss), tt in data.items() if ss == s and a2 != "torus"), default=None)
                if best:
                    ok = best / t >= 3
                    out.append((kind, s, f"{'PASS' if ok else 'MISS'}  torus {s >> 10:>6d} KiB: "
                                         f"{best / t:5.2f}x the best built-in (>= 3x)"))
            if s >= 4 << 20:
                ok = frac >= 0.8
                out.append((kind, s, f"{'PASS' if ok else 'MISS'}  {kind:5s} {s >> 10:>6d} KiB: "
                                     f"{frac:4.0%} of the {links}-link bound (>= 80 %)"))
    return out


if __name__ == "__main__":
    main()

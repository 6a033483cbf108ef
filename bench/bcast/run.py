#!/usr/bin/env python3
"""run.py -- torus broadcast vs SMPI's built-in broadcasts on a simulated
8x8x8 torus and mesh (SimGrid SMPI, Debian's libsimgrid-dev 3.32).

  bench/bcast/run.py [--quick] [--dims 8x8x8] [--out DIR] [--jobs 2]
                     [--sizes 65536,...] [--builtins a,b,...] [--timeout SEC]
  bench/bcast/run.py --bound a,b,... [--bound-factor 3.1] [--sizes ...] [--out DIR]
  bench/bcast/run.py --table CSV[,CSV...] [--bounds CSV[,CSV...]]

Builds bench/bcast/bcast_bench.c + src/coll with smpicc, generates the
platforms (gen_platform.py: BG/L links, 154 MB/s payload per direction, 100 ns),
runs every algorithm with SMPI's correction factors set to 1 and no
computation simulated, and prints a table of bandwidth (bytes / time) and
of the fraction of the bound: 2n links x 154 MB/s on the torus, n links on
the mesh.  Results go to DIR/results.csv (plot.py draws them), rewritten
after every simulation, so an interrupted sweep keeps what finished; the
wall time of each simulation goes to DIR/wall.csv.  Simulations run in the
order: torus broadcast (torus, mesh), mesh built-ins, torus built-ins.

--bound: some built-ins (pipelines of small segments: thousands of
concurrent flows) take hours of wall time to simulate at 512 ranks.  For
those the question "is the torus broadcast at least F times faster?" is
answered without finishing them: the torus broadcast is simulated first (same
run), then each built-in, one size per simulation, with SimGrid's
debug/breakpoint set to its start + factor x the torus time (the start comes
from a 4 KiB calibration run of the same algorithm: everything before the
broadcast is the same).  SimGrid stops the simulation (SIGTRAP) when the
simulated clock gets there.  If the built-in had not printed its result by
then, its time is at least factor x t_torus minus twice the calibrated time
of the reductions that follow the broadcast (a lower bound, "kind" lower in
DIR/bounds.csv); if it finished, its exact time is recorded.
"""
import argparse
import concurrent.futures
import csv
import os
import resource
import signal
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


def run_one(exe, plat, hosts, n, dims, wrap, alg, sizes, timeout, more=(), info=None):
    if alg == "torus":
        extra, prog = [], ["torus"]
    elif alg in ("mpich", "ompi", "default"):
        extra, prog = ["--cfg=smpi/coll-selector:" + alg], ["mpi"]
    else:
        extra, prog = ["--cfg=smpi/bcast:" + alg], ["mpi"]
    cmd = ["smpirun", "-np", str(n), "-platform", plat, "-hostfile", hosts, *CFG, *extra, *more, exe,
           *prog, dims, str(wrap), ",".join(map(str, sizes))]
    t = time.time()
    rc = None
    try:
        # no core file when a breakpoint stops the simulation (SIGTRAP)
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CORE, (0, 0)))
        out, rc = p.stdout, p.returncode
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
    res = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[0] == "RESULT":
            res[int(f[2])] = float(f[3])
        elif info is not None and len(f) == 4 and f[0] in ("START", "END"):
            info[(f[0], int(f[2]))] = float(f[3])
    if info is not None:
        info["rc"] = rc
    return alg, res, time.time() - t


def bound_sweep(a, exe, plats, hosts, n):
    """--bound: lower bounds (or exact times) for slow built-ins, see the module doc."""
    sizes = sorted(int(x) for x in a.sizes.split(",")) if a.sizes else [1 << 20, 4 << 20, 16 << 20]
    algs = a.bound.split(",")
    plat = plats["torus"]
    rows, bounds = [], []

    def save():
        with open(os.path.join(a.out, "bounds.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["platform", "algorithm", "bytes", "kind", "seconds", "wall_seconds"])
            for r in bounds:
                w.writerow(r)
        with open(os.path.join(a.out, "results.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["platform", "algorithm", "bytes", "seconds"])
            for r in sorted(rows):
                w.writerow(r)

    _, tor, wall = run_one(exe, plat, hosts, n, a.dims, 1, "torus", sizes, a.timeout)
    print(f"# torus broadcast: {len(tor)}/{len(sizes)} sizes in {wall:.0f} s", file=sys.stderr, flush=True)
    for size, t in tor.items():
        rows.append(("torus", "torus", size, t))
    save()
    ends = []  # reduction times after the broadcast seen in calibrations
    for alg in algs:
        # calibration: a small broadcast (4 KiB: some SMPI algorithms fall
        # back to another below one byte per rank, arrival_scatter crashes)
        cal, csz = {}, 4096
        _, res1, wall = run_one(exe, plat, hosts, n, a.dims, 1, alg, [csz], a.timeout, info=cal)
        if ("START", csz) in cal and ("END", csz) in cal:
            t0, end_dt = cal[("START", csz)], cal[("END", csz)]
            ends.append(end_dt)
        else:
            # the small broadcast failed (SMPI 3.32's arrival_scatter aborts
            # below 1 MiB at 512 ranks): t0 from a probe of the first size
            # stopped right after the start, and the margin for the
            # reductions the largest any other algorithm needed (or 5 % of
            # the smallest cap)
            probe = {}
            run_one(exe, plat, hosts, n, a.dims, 1, alg, [sizes[0]], a.timeout,
                    more=["--cfg=debug/breakpoint:0.001"], info=probe)
            if ("START", sizes[0]) not in probe:
                print(f"# {alg}: calibration failed (rc {cal.get('rc')}) and the probe printed no START "
                      f"(rc {probe.get('rc')}): skipped", file=sys.stderr, flush=True)
                continue
            t0 = probe[("START", sizes[0])]
            end_dt = max(ends) if ends else 0.025 * a.bound_factor * min(tor.values())
            print(f"# {alg}: calibration run failed (rc {cal.get('rc')}); start {t0:.9f} s from a probe, "
                  f"reduction margin {end_dt:.6f} s", file=sys.stderr, flush=True)
        for size in sizes:
            if size not in tor:
                continue
            cap = a.bound_factor * tor[size]
            info = {}
            _, res, wall = run_one(exe, plat, hosts, n, a.dims, 1, alg, [size], a.timeout,
                                   more=[f"--cfg=debug/breakpoint:{t0 + cap:.9f}"], info=info)
            if size in res:
                kind, secs = "exact", res[size]
                rows.append(("torus", alg, size, secs))
            elif info.get(("START", size)) is not None and abs(info[("START", size)] - t0) < 1e-9 \
                    and info.get("rc") in (-signal.SIGTRAP, 128 + signal.SIGTRAP):  # smpirun: 133
                kind, secs = "lower", cap - 2 * end_dt
            else:
                kind, secs = "failed", float("nan")
            bounds.append(("torus", alg, size, kind, secs, round(wall)))
            print(f"# {alg:22s} {size >> 10:6d} KiB: {kind} {secs:.6f} s "
                  f"(torus {tor[size]:.6f} s, ratio {secs / tor[size]:.2f}, {wall:.0f} s wall)",
                  file=sys.stderr, flush=True)
            save()
    table(rows, [int(x) for x in a.dims.split("x")], sizes,
          {(p, al, b): (k, t) for p, al, b, k, t, _ in bounds if k == "lower"})


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
    ap.add_argument("--bound", metavar="ALG[,ALG...]",
                    help="lower bounds for slow built-ins on the torus (see the module doc)")
    ap.add_argument("--bound-factor", type=float, default=3.1,
                    help="stop each built-in at this multiple of the torus time (default %(default)s)")
    ap.add_argument("--bounds", metavar="CSV[,CSV...]",
                    help="with --table: lower bounds written by --bound")
    ap.add_argument("--no-torus-alg", action="store_true",
                    help="skip the torus broadcast itself (to complete an interrupted sweep)")
    a = ap.parse_args()
    if a.table:
        merged = {}
        for path in a.table.split(","):
            with open(path) as f:
                for r in csv.DictReader(f):
                    merged[(r["platform"], r["algorithm"], int(r["bytes"]))] = float(r["seconds"])
        lower = {}
        for path in (a.bounds.split(",") if a.bounds else []):
            with open(path) as f:
                for r in csv.DictReader(f):
                    key = (r["platform"], r["algorithm"], int(r["bytes"]))
                    if r["kind"] == "exact":
                        merged[key] = float(r["seconds"])
                    elif r["kind"] == "lower" and key not in merged:
                        lower[key] = ("lower", float(r["seconds"]))
        rows = [(k, alg, b, t) for (k, alg, b), t in sorted(merged.items())]
        table(rows, [int(x) for x in a.dims.split("x")], sorted({b for _, _, b, _ in rows}), lower)
        return
    os.makedirs(a.out, exist_ok=True)
    exe = build(a.out)
    dims = [int(x) for x in a.dims.split("x")]
    n = 1
    for e in dims:
        n *= e
    hosts = os.path.join(a.out, "hosts")
    sh([sys.executable, os.path.join(HERE, "gen_platform.py"), "hostfile", str(n), hosts])
    if a.bound:
        plat = os.path.join(a.out, f"torus-{a.dims}.xml")
        sh([sys.executable, os.path.join(HERE, "gen_platform.py"), "torus", a.dims, plat])
        bound_sweep(a, exe, {"torus": plat}, hosts, n)
        return
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


def table(rows, dims, sizes, lower=None):
    """lower: {(platform, alg, bytes): ("lower", seconds)} -- built-ins stopped
    by --bound, whose time is at least that many seconds."""
    lower = lower or {}
    nd = sum(1 for e in dims if e > 1)
    for kind in ("torus", "mesh"):
        links = 2 * nd if kind == "torus" else nd
        bound = links * LINK_BW
        data = {(alg, s): t for k, alg, s, t in rows if k == kind}
        low = {(alg, s): t for (k, alg, s), (_, t) in lower.items() if k == kind}
        if not data:
            continue
        algs = sorted({alg for alg, _ in data} | {alg for alg, _ in low}, key=lambda x: (x != "torus", x))
        print(f"\n{kind} {'x'.join(map(str, dims))}: bandwidth MB/s (fraction of the "
              f"{links}-link bound {bound / 1e6:.0f} MB/s)")
        print(f"| {'algorithm':22s} | " + " | ".join(f"{s >> 10:>9d} KiB" for s in sizes) + " |")
        print("|" + "-" * 24 + "|" + "|".join("-" * 15 for _ in sizes) + "|")
        for alg in algs:
            cells = []
            for s in sizes:
                t = data.get((alg, s))
                if t:
                    cells.append(f"{s / t / 1e6:6.0f} ({s / t / bound:4.0%})")
                elif (alg, s) in low:  # time >= low: bandwidth <= s / low
                    cells.append(f"<{s / low[(alg, s)] / 1e6:5.0f} (<{s / low[(alg, s)] / bound:3.0%})")
                else:
                    cells.append(f"{'-':>14s}")
            print(f"| {alg:22s} | " + " | ".join(cells) + " |")
        if kind == "torus":
            print("\nspeed-up of the torus broadcast over the best built-in:")
            for s in sizes:
                best = min((t for (alg, ss), t in data.items() if ss == s and alg != "torus"), default=None)
                mine = data.get(("torus", s))
                lows = [t for (alg, ss), t in low.items() if ss == s]
                extra = ""
                if lows and mine:
                    extra = (f"{len(lows)} stopped early, each >= {min(lows) / mine:.2f}x slower"
                             f" than the torus broadcast")
                if best and mine:
                    who = [alg for (alg, ss), t in data.items() if ss == s and t == best][0]
                    nb = sum(1 for (alg, ss) in data if ss == s and alg != "torus")
                    print(f"  {s >> 10:>6d} KiB: {best / mine:5.2f}x (best built-in: {who}, of {nb} run at this size"
                          f"{'; ' + extra if extra else ''})")
                elif extra:
                    print(f"  {s >> 10:>6d} KiB: >= {min(lows) / mine:5.2f}x ({extra})")
    # the targets, measured on these rows
    print("\ntargets (issue 4):")
    for kind, s, t in sorted(rows_targets(rows, dims, lower)):
        print(f"  {t}")


def rows_targets(rows, dims, lower=None):
    lower = lower or {}
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
                lows = [lt for (k2, a2, ss), (_, lt) in lower.items() if k2 == kind and ss == s]
                if best or lows:
                    ratio = min(([best] if best else []) + lows) / t  # a bound when a stopped one is the minimum
                    ok = ratio >= 3
                    how = " (of those run to the end and those stopped early)" if lows else ""
                    out.append((kind, s, f"{'PASS' if ok else 'MISS'}  torus {s >> 10:>6d} KiB: "
                                         f">= {ratio:5.2f}x the best built-in (>= 3x){how}"))
            if s >= 4 << 20:
                ok = frac >= 0.8
                out.append((kind, s, f"{'PASS' if ok else 'MISS'}  {kind:5s} {s >> 10:>6d} KiB: "
                                     f"{frac:4.0%} of the {links}-link bound (>= 80 %)"))
    return out


if __name__ == "__main__":
    main()

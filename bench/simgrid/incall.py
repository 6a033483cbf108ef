#!/usr/bin/env python3
"""incall.py -- the mapping step inside the MPI call, with the job's ranks
helping, measured in SimGrid SMPI (issue 23, item 3).

  bench/simgrid/incall.py [--build DIR] [--sizes 8x8x8,16x16x16]
                          [--workloads sage,umt] [--portfolio 1,K]
                          [--record bench/results/incall-smpi.md]

For every torus size and workload: the workload's graph (rankmap gen) with
its weights turned into edge multiplicities 1..16 (round(4 w / mean w)), as
MPI_Graph_map carries no weights; kernels/incall.c, linked with the PMPI
plugin's SMPI object, calls MPI_Graph_map on every rank of a simulated torus
of that size (rank r on host r, the address table told the same), once per
MPIR_CVAR_RANKMAP_PORTFOLIO value: 1 is the rank-0-only path, K > 1 lets K
ranks map with their own seeds (default: 1 and the call's default K,
RANKMAP_PORTFOLIO_DEFAULT of include/rankmap_glue.h).  SMPI runs each rank's computation for real
(smpi/simulate-computation) on a simulated core as fast as this machine's
(smpi/host-speed = the platform's 1 Gflop/s), so the call's simulated time is
what the job waits.  F/F_min comes from the plugin's verbose line.  In the
same run, on one core: `rankmap map --algorithm fast` and `--algorithm
quality` on the same graph (CPU time, as SMPI replays, and F/F_min), the
single-core paths.

SMPI runs every simulated rank on one core, one after another: a portfolio
of K costs K searches of real time, and their simulated times overlap.
"""
import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import importlib.util  # noqa: E402
import sg_platform as plat  # noqa: E402

# the suite's driver (its tools), by path: sg_platform puts bench/bcast, which
# has a run.py of its own, first on the path
_spec = importlib.util.spec_from_file_location("sg_run", os.path.join(HERE, "run.py"))
sg_run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sg_run)
Tools, sh, portfolio_default = sg_run.Tools, sg_run.sh, sg_run.portfolio_default

# The platform's host speed: a second of this machine's CPU is a simulated
# second; bursts under 1 ms between MPI calls are not replayed.  Tree-shaped
# scatter, gather, broadcast, reduce and allreduce (as MPICH's): SMPI's
# linear defaults make one root talk to every rank at once, which costs the
# simulator minutes at 4096 ranks (163 s against 71 s of wall time).  No
# cross-traffic (the acknowledgements' reverse flows): they double the flows
# the network solver re-solves at every event, which is where the
# simulator's time goes at 8192 ranks and more, and change a collective's
# simulated time by microseconds (the call on 4096 ranks, UMT-like, rank 0
# alone: 51 s of simulation with SMPI's reduce and cross-traffic, 20 s
# without, the same placement).
SMPI_CFG = ["--cfg=smpi/host-speed:1Gf", "--cfg=smpi/simulate-computation:yes",
            "--cfg=smpi/cpu-threshold:0.001", "--cfg=smpi/scatter:ompi_binomial",
            "--cfg=smpi/gather:ompi_binomial", "--cfg=smpi/bcast:binomial_tree",
            "--cfg=smpi/reduce:binomial", "--cfg=smpi/allreduce:rdb", "--cfg=network/crosstraffic:0",
            "--cfg=smpi/display-timing:no", "--log=root.thres:error"]
# multiplicities: an edge of mean weight is given 4 times, none more than 16
MULT_PER_MEAN, MULT_MAX = 4, 16


def multigraph(raw, out):
    edges = []
    with open(raw) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            s, d, w = line.split()[:3]
            edges.append((int(s), int(d), float(w)))
    mean = sum(w for _, _, w in edges) / len(edges)
    with open(out, "w") as f:
        f.write(f"# {os.path.basename(raw)}: weights as multiplicities round({MULT_PER_MEAN} w / mean), 1..{MULT_MAX}\n")
        for s, d, w in edges:
            f.write(f"{s} {d} {min(MULT_MAX, max(1, round(MULT_PER_MEAN * w / mean)))}\n")
    return out


def cli_map(tools, topo, graph, alg, launch):
    """CPU seconds of `rankmap map` (SMPI replays CPU time too, so both
    columns hold on a busy machine) and its F/F_min; its guard judges
    against the call's launch order (the mapfile `launch`)."""
    p = subprocess.Popen([tools.rankmap, "map", "--topology", topo, "--graph", graph, "--algorithm", alg,
                          "--seed", "1", "--no-cache", "--json", "--current", launch],
                         stdout=subprocess.PIPE, text=True)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"incall.py: rankmap map --algorithm {alg} on {graph} failed")
    return ru.ru_utime + ru.ru_stime, json.loads(out)["ratio"]


# SMPI privatizes every rank by mapping its own copy of the program: about
# 4-8 memory maps per rank (16,384 ranks exceed the kernel's default 65,530).
MAPS_PER_RANK = 6


def check_map_count(n):
    try:
        have = int(open("/proc/sys/vm/max_map_count").read())
    except OSError:
        return
    if have < MAPS_PER_RANK * n:
        sys.exit(f"incall.py: {n} simulated ranks need vm.max_map_count >= {MAPS_PER_RANK * n} (now {have}); "
                 "as root: sysctl -w vm.max_map_count=1000000")


def smpi_call(tools, exe, lib, dims, graph, k, work):
    n = 1
    for e in dims:
        n *= e
    check_map_count(n)
    spec = "x".join(map(str, dims))
    xml = os.path.join(work, f"torus-{spec}.xml")
    if not os.path.exists(xml):
        with open(xml, "w") as f:
            f.write(plat.torus_xml(dims))
    hosts = os.path.join(work, f"hosts-{spec}.txt")
    mapfile = os.path.join(work, f"order-{spec}.map")
    with open(hosts, "w") as fh, open(mapfile, "w") as fm:
        for r in range(n):
            c = plat.coords_of(r, dims)
            fh.write(f"n-{r}\n")
            fm.write(" ".join(map(str, c)) + "\n")
    env = dict(os.environ, LD_PRELOAD=lib, MPIR_CVAR_RANKMAP_TOPOLOGY="torus:" + spec,
               MPIR_CVAR_RANKMAP_MAPPING=mapfile, MPIR_CVAR_RANKMAP_VERBOSE="1",
               MPIR_CVAR_RANKMAP_PORTFOLIO=str(k))
    cmd = ["smpirun", "-np", str(n), "-platform", xml, "-hostfile", hosts, *SMPI_CFG, exe, graph]
    t = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.time() - t
    m = re.search(r"incall ranks (\d+) seconds ([0-9.]+) order ([0-9a-f]+) PASS", p.stdout)
    f = re.search(r"F ([0-9.e+]+) -> ([0-9.e+]+) \(F_min ([0-9.e+]+)\)", p.stderr)
    won = re.search(r"rank (\d+)'s search won", p.stderr)
    link = re.search(r"busiest link ([0-9.e+]+) before, ([0-9.e+]+) after", p.stderr)
    # the guard kept the launch order: its figures are those of the refused placement
    kept = re.search(r"\(F_min [0-9.e+]+\), identity \(no gain\)", p.stderr) is not None
    if p.returncode != 0 or not m or not f:
        tail = (p.stderr.strip().splitlines() or ["no output"])[-3:]
        sys.exit(f"incall.py: {' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}\n" + "\n".join(tail))
    return dict(seconds=float(m.group(2)), order=m.group(3), ratio=float(f.group(2)) / float(f.group(3)),
                link=1.0 if kept else
                float(link.group(2)) / float(link.group(1)) if link and float(link.group(1)) > 0 else None,
                winner=int(won.group(1)) if won else 0, wall=wall)


def write_table(a, ks, rows, show):
    """Prints the table of the rows so far and, with --record, writes it
    (after every row: a run stopped early keeps the rows it finished)."""
    lines = ["| torus (ranks) | workload | " + " | ".join(
        f"in the call, {'rank 0 alone' if k == 1 else f'{k} ranks'}: simulated s, F/F_min, busiest link"
        for k in ks)
        + " | one core fast: CPU s, F/F_min | one core quality: CPU s, F/F_min |",
        "|---|---|" + "---|" * (len(ks) + 2)]
    for r in rows:
        n = 1
        for e in r["size"].split("x"):
            n *= int(e)
        cells = [f"{r['calls'][k]['seconds']:.2f}, {r['calls'][k]['ratio']:.3f}, "
                 + (f"{r['calls'][k]['link']:.2f}" if r['calls'][k]['link'] is not None else "-") for k in ks]
        lines.append(f"| {r['size']} ({n}) | {r['workload']}-like | " + " | ".join(cells)
                     + f" | {r['fast'][0]:.2f}, {r['fast'][1]:.3f} | {r['quality'][0]:.2f}, {r['quality'][1]:.3f} |")
    table = "\n".join(lines)
    if show:
        print(table)
    if a.record:
        commit = subprocess.run(["git", "-C", SRC, "describe", "--always", "--dirty"], capture_output=True,
                                text=True).stdout.strip()
        cpu = ""
        try:
            cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
        except (OSError, StopIteration):
            pass
        with open(a.record, "w") as f:
            load = " ".join(f"{x:.2f}" for x in os.getloadavg())
            f.write(f"> date: {datetime.date.today()} · commit: {commit} ·\n"
                    f"> machine: {platform.node()} ({cpu}, {os.cpu_count()} cores; load average at the end "
                    f"{load}), SimGrid SMPI ·\n"
                    f"> command: `bench/simgrid/incall.py --sizes {a.sizes} --workloads {a.workloads} "
                    f"--portfolio {a.portfolio}`\n\n")
            f.write("The mapping step of `MPI_Graph_map` through the PMPI plugin, every rank of a simulated "
                    "torus calling it; simulated seconds of the call (its longest rank), each simulated "
                    "core as fast as this machine's; busiest link: the placement's over the launch order's "
                    "(dimension-order routes; 1.00 where the guard kept the launch order). "
                    "Weights are given as edge multiplicities "
                    f"(round({MULT_PER_MEAN} w / mean), 1..{MULT_MAX}). The one-core columns run "
                    "`rankmap map` on the same graph in the same run (CPU seconds, reading the graph included), "
                    "its guard against the call's launch order (`--current`).\n\n")
            f.write(table + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(SRC, "_build", "dev"))
    ap.add_argument("--sizes", default="8x8x8,16x16x16")
    ap.add_argument("--workloads", default="sage,umt")
    ap.add_argument("--portfolio", default=f"1,{portfolio_default()}")
    ap.add_argument("--work", default="/tmp/rankmap-incall")
    ap.add_argument("--record", help="write the table (markdown) here")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    tools = Tools(os.path.abspath(a.build), a.work)
    exe, lib = tools.kernel_with_plugin("incall")
    ks = [int(x) for x in a.portfolio.split(",")]
    rows = []
    for size in a.sizes.split(","):
        dims = [int(x) for x in size.split("x")]
        topo = "torus:" + size
        for w in a.workloads.split(","):
            raw = tools.gen(w, topo, os.path.join(a.work, f"{w}-{size}.edges"))
            g = multigraph(raw, os.path.join(a.work, f"{w}-{size}.mult.edges"))
            row = dict(size=size, workload=w, calls={})
            for k in ks:
                r = smpi_call(tools, exe, lib, dims, g, k, a.work)
                row["calls"][k] = r
                print(f"{w} {size} portfolio {k}: {r['seconds']:.3f} s simulated, F/F_min {r['ratio']:.4f}, "
                      f"busiest link {r['link']} of the launch order's "
                      f"(rank {r['winner']} won; simulation {r['wall']:.0f} s)", flush=True)
            for alg in ("fast", "quality"):
                row[alg] = cli_map(tools, topo, g, alg, os.path.join(a.work, f"order-{size}.map"))
                print(f"{w} {size} one core {alg}: {row[alg][0]:.2f} s, F/F_min {row[alg][1]:.4f}", flush=True)
            rows.append(row)
            if a.record:
                write_table(a, ks, rows, show=False)
    write_table(a, ks, rows, show=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

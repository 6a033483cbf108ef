#!/usr/bin/env python3
"""dragonfly.py -- rankmap on SimGrid dragonflies (issue 65).

  bench/simgrid/dragonfly.py [--spec GxCxBxN:K] [--build DIR] [--work DIR] [--jobs N] [--out FILE]

SimGrid's DragonflyZone (minimal routes; sg_platform.py's dragonfly
platform), by default 8 groups of 8 routers joined all to all (one
chassis, as an HPE Slingshot group) x 2 hosts x 4 cores = 512 ranks
(--spec 8x1x8x2:4), launched in block order (the cores of a host, then
the hosts in SimGrid's numbering, as Slurm and Hydra place) and
round-robin over the hosts.  Per kernel (2-D stencil, pencil-FFT transposes, SAGE-like and
UMT-like irregular exchanges), in one run:

  - the launch order, and placements no mapper proposed (the launch order
    with its hosts permuted, random placements) for the model check;
  - rankmap's default (`rankmap map --current LAUNCH`, the guard on), told
    the messages' sizes (--bytes-per-unit) or not, on the topology as
    discovery gives it (routing not declared: the guard also judges
    adaptive routing) and with the minimal routes of SimGrid's zone
    declared (`:valiant=0`);
  - Scotch's static mapping onto the tleaf of the dragonfly's tiers
    (group, router, host, core; costs 5, 3, 2, 0.5 -- about the links of a
    route leaving each tier) mapped back to the dragonfly's coordinates.

The figures are SMPI's simulated communication times; beside them the
model's prediction (`rankmap eval --bytes-per-unit U [--alltoall G]` on
the dragonfly with minimal routes declared, whose defaults are the
platform's constants), the
Spearman rank correlation of prediction and simulation per machine and
launch order, and every pair of placements of one case whose simulated
times differ by more than 2 % that the model orders the other way.

What SimGrid's zone cannot show: adaptive routing (its routes are minimal;
the model's valiant= split is not checked here), several global links per
group pair, and background traffic of other jobs.  Groups of one chassis
also keep clear of a defect of SimGrid 3.32's zone: inside a group of
several chassis, after a green hop its route continues from chassis 0
(the current router is reset to `group * routers + blade`), so it takes
the black link of chassis 0 or none at all -- a route rankmap's model (the
physical one) cannot and should not predict.
"""
import argparse
import datetime
import os
import platform as pyplatform
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run as R  # noqa: E402
import sg_platform as plat  # noqa: E402
from model_check import spearman, TIE  # noqa: E402

RANDOM_PLACEMENTS = 3


def set_machine(spec):
    """The machine's globals from SPEC (groups x chassis x blades x hosts
    per router : cores)."""
    global SPEC, G, CH, BL, NH, K, TOPO, TOPO_MIN, SCOTCH_TREE, HOSTS, N
    SPEC = spec
    G, CH, BL, NH, K = plat.dragonfly_shape(SPEC)
    TOPO = f"dragonfly:{G}x{CH}x{BL}x{NH}x{K}"
    TOPO_MIN = TOPO + ":valiant=0"
    SCOTCH_TREE = f"tree:{G}x{CH * BL}x{NH}x{K}:cost=5,3,2,0.5"
    HOSTS = G * CH * BL * NH
    N = HOSTS * K


set_machine("8x1x8x2:4")


def coords(host, core):
    r, n = divmod(host, NH)
    g, r = divmod(r, CH * BL)
    return [g, r // BL, r % BL, n, core]


def launch_where(launch):
    if launch == "block":
        return [(r // K, r % K) for r in range(N)]
    return [(r % HOSTS, r // HOSTS) for r in range(N)]


def scotch_map(tools, graph, out):
    """Scotch on the tleaf of the tiers, its tree coordinates turned into the
    dragonfly's (router r of a group: chassis r // B, blade r % B)."""
    tree_map = out + ".tree"
    secs = tools.map(SCOTCH_TREE, graph, tree_map, "--algorithm", "scotch", "--seed", "1", "--guard", "off")
    rows = plat.read_mapfile(tree_map)
    R.write_coords(out, [[g, r // BL, r % BL, n, k] for g, r, n, k in (row[:4] for row in rows)])
    return secs


def kernels(tools, tag):
    """(name, graph file, argv, bytes per unit, all-to-all groups file or None)."""
    out = []
    nx, ny = 16, N // 16
    g = R.write_edges(tools.path(f"{tag}-st2.edges"), N, R.stencil_edges(nx, ny, R.STENCIL_BYTES))
    out.append((f"2-D stencil {nx}x{ny}", g, [tools.kernel("stencil2d"), str(nx), str(ny), str(R.STENCIL_BYTES), "1"],
                1.0, None))
    for row in (16, 64):
        nrows = N // row
        g = R.write_edges(tools.path(f"{tag}-fft-{row}.edges"), N, R.fft_edges(row, nrows, R.FFT_BYTES))
        groups = R.write_groups(tools.path(f"{tag}-fft-{row}.groups"), R.fft_lines(row, nrows))
        out.append((f"3-D FFT {nrows}x{row} (rows of {row})", g,
                    [tools.kernel("fft"), str(row), str(nrows), str(R.FFT_BYTES), "1"], 1.0, groups))
    for wl in ("sage", "umt"):
        g = tools.gen(wl, f"tree:{HOSTS}x{K}", tools.path(f"{tag}-{wl}.edges"))
        out.append((f"irregular ({wl.upper()}-like)", g, [tools.kernel("replay"), g, str(R.UNIT[wl]), "1"],
                    R.UNIT[wl], None))
    return out


def build_cases(tools):
    cases = []
    for launch in ("block", "round-robin"):
        tag = f"df-{launch}"
        where = launch_where(launch)
        base_label = f"{launch} order (launch)"
        rng = random.Random(65)
        for name, g, argv, unit, groups in kernels(tools, tag):
            k = len(cases)
            c = R.Case(name, f"dragonfly {G}x{CH}x{BL}x{NH}x{K}, {launch} launch", "dragonfly", SPEC, TOPO, g, argv,
                       baseline=base_label)
            c.unit, c.groups = unit, groups
            c.add(base_label, R.write_coords(tools.path(f"{tag}-{k}-launch.map"), [coords(h, q) for h, q in where]))
            perm = list(range(HOSTS))
            rng.shuffle(perm)
            c.add("launch order, hosts permuted #1",
                  R.write_coords(tools.path(f"{tag}-{k}-perm.map"), [coords(perm[h], q) for h, q in where]))
            for i in range(RANDOM_PLACEMENTS):
                slots = [(h, q) for h in range(HOSTS) for q in range(K)]
                rng.shuffle(slots)
                c.add(f"random #{i + 1}", R.write_coords(tools.path(f"{tag}-{k}-rand{i}.map"),
                                                          [coords(h, q) for h, q in slots]))
            extra = ["--alltoall", groups] if groups else []
            m = tools.path(f"{tag}-{k}-default.map")
            c.add("rankmap default", m, map_seconds=tools.map_default(c, m, *extra))
            m = tools.path(f"{tag}-{k}-sized.map")
            c.add("rankmap default, sizes given", m,
                  map_seconds=tools.map_default(c, m, "--bytes-per-unit", f"{unit:g}", *extra))
            for label, more in (("rankmap default, minimal routes declared", []),
                                ("rankmap default, minimal routes declared, sizes given",
                                 ["--bytes-per-unit", f"{unit:g}"])):
                m = tools.path(f"{tag}-{k}-min{len(more)}.map")
                c.add(label, m, map_seconds=tools.map(TOPO_MIN, g, m, "--seed", "1", "--current", c.baseline_map(),
                                                      *more, *extra))
            m = tools.path(f"{tag}-{k}-scotch.map")
            c.add("Scotch (tleaf of the tiers)", m, map_seconds=scotch_map(tools, g, m))
            cases.append(c)
    return cases


def predict(tools, c, mapfile):
    cmd = [tools.rankmap, "eval", "--topology", TOPO_MIN, "--graph", c.graph, "--mapping", mapfile, "--json",
           "--bytes-per-unit", f"{c.unit:g}"] + (["--alltoall", c.groups] if c.groups else [])
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"dragonfly.py: {' '.join(cmd)} failed: {p.stderr.strip()}")
    return R.json.loads(p.stdout)["predicted_time"]


def sign_errors(rows):
    """Pairs of one case whose simulated times differ by more than TIE and
    whose predictions order them the other way (or tie)."""
    out, compared = [], 0
    for i, a in enumerate(rows):
        for b in rows[i + 1:]:
            if a["case"] is not b["case"]:
                continue
            sa, sb = a["res"].get("COMM_TIME"), b["res"].get("COMM_TIME")
            if not sa or not sb:
                continue
            lo, hi = sorted((sa, sb))
            if hi <= lo * (1 + TIE):
                continue
            compared += 1
            if (sa < sb) != (a["pred"] < b["pred"]) or a["pred"] == b["pred"]:
                out.append((a, b))
    return out, compared


def os_name():
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return pyplatform.system()


def report(rows, cmdline, minutes):
    commit = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2 ** 30
    lines = [f"> date: {datetime.date.today()} · commit: {commit} ·",
             f"> machine: {os.cpu_count()} cores, {mem:.0f} GiB, {os_name()} (the "
             "communication times are simulated and deterministic) ·",
             f"> command: `{cmdline}`", "",
             f"**SimGrid dragonfly: rankmap against the launch order and Scotch ({minutes:.0f} min)**", "",
             f"Machine: SimGrid DragonflyZone {SPEC} (sg_platform.py dragonfly; minimal routes), {N} ranks; "
             f"rankmap's model `{TOPO}` (routing not declared) or `{TOPO_MIN}` (minimal routes declared).  Times: SMPI's simulated communication time (ms); "
             "speed-up: launch order's time over this placement's; model: `rankmap eval`'s predicted time.", "",
             "| kernel | launch | placement | comm time (ms) | speed-up | model (ms) |",
             "|---|---|---|---:|---:|---:|"]
    base = {id(r["case"]): r["res"].get("COMM_TIME") for r in rows if r["placement"] == r["case"].baseline}
    for r in rows:
        t = r["res"].get("COMM_TIME")
        b = base.get(id(r["case"]))
        sp = f"{b / t:.2f}x" if t and b else "-"
        launch = r["platform"].split(", ")[-1]
        lines.append(f"| {r['kernel']} | {launch} | {r['placement']} | {R.fmt_ms(t)} | {sp} "
                     f"| {r['pred'] * 1e3:.3f} |")
    lines += ["", "## The model against the simulation", "",
              "| launch | kernel | placements | Spearman |", "|---|---|---:|---:|"]
    for launch in ("block", "round-robin"):
        for kern in dict.fromkeys(r["kernel"] for r in rows):
            sel = [r for r in rows if r["kernel"] == kern and r["platform"].endswith(launch + " launch")
                   and r["res"].get("COMM_TIME")]
            if len(sel) >= 3:
                rho = spearman([r["res"]["COMM_TIME"] for r in sel], [r["pred"] for r in sel])
                lines.append(f"| {launch} | {kern} | {len(sel)} | {'-' if rho is None else f'{rho:.2f}'} |")
    ok = [r for r in rows if r["res"].get("COMM_TIME")]
    rho = spearman([r["res"]["COMM_TIME"] for r in ok], [r["pred"] for r in ok])
    errs, compared = sign_errors(rows)
    lines += ["", f"All {len(ok)} placements together: Spearman {rho:.3f}.  Pairs of one case whose simulated "
              f"times differ by more than {TIE:.0%}: {compared}; the model orders {len(errs)} of them the other way"
              + (":" if errs else "."), ""]
    for a, b in errs:
        lines.append(f"- {a['kernel']}, {a['platform'].split(', ')[-1]}: {a['placement']} "
                     f"{a['res']['COMM_TIME'] * 1e3:.3f} ms vs {b['placement']} {b['res']['COMM_TIME'] * 1e3:.3f} ms "
                     f"simulated, {a['pred'] * 1e3:.3f} vs {b['pred'] * 1e3:.3f} ms predicted")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spec", default=SPEC, help="groups x chassis x blades x hosts per router : cores")
    ap.add_argument("--build", default=os.path.join(HERE, "..", "..", "_build", "main"))
    ap.add_argument("--work", default="/tmp/rankmap-dragonfly")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--out", default=os.path.join(HERE, "..", "results", "smpi-dragonfly.md"))
    a = ap.parse_args()
    set_machine(a.spec)
    os.makedirs(a.work, exist_ok=True)
    t0 = R.time.time()
    tools = R.Tools(os.path.abspath(a.build), a.work)
    cases = build_cases(tools)
    rows = R.run_all(tools, cases, a.jobs, a.timeout)
    for r in rows:
        r["pred"] = predict(tools, r["case"], dict((lab, m) for lab, m, _ in r["case"].placements)[r["placement"]])
    text = report(rows, "bench/simgrid/dragonfly.py " + " ".join(sys.argv[1:]), (R.time.time() - t0) / 60)
    with open(a.out, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()

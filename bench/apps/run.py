#!/usr/bin/env python3
"""run.py -- real applications on simulated machines (SimGrid SMPI): their
communication time under the launch order, rankmap's placement and Scotch's.

  bench/apps/run.py --build BUILD [--work DIR] [--apps lammps,hypre]
                    [--machines torus,fattree8,fattree32] [--jobs N]
                    [--timeout SEC] [--record FILE]

What it does, in order:
 1. Sources from Debian: `apt-get source lammps hypre` into DIR/src (the
    deb-src entries are derived from the machine's apt sources when missing,
    as maint/mpich/build-mpich.sh does; root is needed once).  Nothing of
    them enters the repository.
 2. Builds each application for SMPI with the fewest options that run its
    standard inputs: LAMMPS's traditional make (`make mpi`, packages
    MOLECULE, KSPACE, RIGID for in.rhodo; KISS FFT) with smpicxx; hypre's
    configure with smpicc and its test drivers.  Two executables each: the
    program as it is, and the program linked with rankmap's profiler
    (BUILD/src/pmpi/rankmap-profile-smpi.o).
 3. Runs the profiled program once per workload (the traffic of these codes
    depends on the rank count only, not on where ranks run) and gives the
    profile to `rankmap map --profile` (guarded against the launch order,
    with the machine's links, as a user runs it) and to `rankmap map --algorithm scotch` (Scotch's
    placement of the same profile, no guard).
 4. Runs the program as it is under every placement: rank order on the
    8x8x8 torus; block and round-robin launch on fat trees of 64 nodes x 8
    cores and 16 nodes x 32 cores, full bisection and tapered 2:1.  The
    figures are the application's own timers (LAMMPS's loop time and its
    per-section breakdown; hypre's setup and solve phases), which under SMPI
    read simulated time, and SMPI's total simulated time; rankmap's
    predicted time (`rankmap eval`) stands beside them.

Computation is not simulated (smpi/simulate-computation:no, as in
bench/simgrid): every simulated second is communication, so the times are
deterministic and compare placements, not this machine's load.  What that
cannot show: the overlap of computation with communication, and load
imbalance.  In-call rows: neither application is correct under in-call
reordering (LAMMPS's `map cart/reorder` goes on using world ranks for the
grid, see bench/results/lammps.md; hypre never declares its grid), so both
are placed at launch.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(SRC, "bench", "simgrid"))
import sg_platform as plat  # noqa: E402
import sg_record  # noqa: E402

# The SMPI configuration of bench/simgrid/run.py (SMPI_CFG): no bandwidth or
# latency factors, no reverse flows, computation not simulated; SMPI prints
# the total simulated time.
# SMPI also charges 100 us of simulated time for every MPI_Iprobe and
# MPI_Test by default, growing with repeated calls; hypre polls with them
# while it sets up, and those charges would outweigh its communication.
# Here each costs 1 us, the order of a real library's probe.  Collectives
# are MPICH's algorithms (SMPI's mpich selector): SMPI's default
# MPI_Alltoallv waits on 2P requests at once, which costs the simulator
# O(P^2) per rank, minutes per call at 512 ranks (LAMMPS's setup calls it).
SMPI_CFG = ["--cfg=smpi/bw-factor:0:1", "--cfg=smpi/lat-factor:0:1", "--cfg=network/crosstraffic:0",
            "--cfg=smpi/simulate-computation:no", "--cfg=smpi/coll-selector:mpich",
            "--cfg=smpi/iprobe:1e-6", "--cfg=smpi/test:1e-6",
            "--cfg=smpi/grow-injected-times:no", "--cfg=smpi/display-timing:yes",
            "--log=root.thres:error", "--log=smpi_utils.thres:info"]

# SMPI's helpers define malloc() and free() as macros for its shared-memory
# tricks; they break files that include <malloc.h> after them (LAMMPS's
# input.cpp), and neither application needs them.
NO_MALLOC = "-DSMPI_NO_OVERRIDE_MALLOC"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def sh(cmd, cwd=None, env=None, out=None):
    """Run cmd; on failure say which command and where its output is."""
    with open(out or os.devnull, "a") as f:
        r = subprocess.run(cmd, cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT)
    if r.returncode:
        sys.exit(f"run.py: {' '.join(cmd)} failed (exit {r.returncode})" + (f", see {out}" if out else ""))


# ---- sources and builds ------------------------------------------------------

def enable_deb_src():
    """deb-src twins of the machine's deb entries (deb822 and one-line)."""
    if subprocess.run(["apt-cache", "showsrc", "lammps"], capture_output=True, text=True).stdout.strip():
        return
    if os.getuid() != 0:
        sys.exit("run.py: apt-get source needs deb-src entries; run once as root (or add them)")
    out = "/etc/apt/sources.list.d/rankmap-deb-src"
    stanzas = []
    for f in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        if f.startswith(out):
            continue
        for st in open(f).read().split("\n\n"):
            if re.search(r"^Types:.*\bdeb\b", st, re.M) and not re.search(r"^Enabled:\s*no", st, re.M):
                stanzas.append(re.sub(r"^Types:.*$", "Types: deb-src", st.strip(), flags=re.M))
    lines = []
    for f in ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list")):
        if os.path.exists(f) and not f.startswith(out):
            lines += [re.sub(r"^\s*deb\s", "deb-src ", x) for x in open(f) if re.match(r"^\s*deb\s", x)]
    if stanzas:
        with open(out + ".sources", "w") as f:
            f.write("\n\n".join(stanzas) + "\n")
    if lines:
        with open(out + ".list", "w") as f:
            f.writelines(lines)
    if not stanzas and not lines:
        sys.exit("run.py: no apt source entries to derive deb-src from")
    sh(["apt-get", "update", "-q"])


def source(work, pkg):
    """The unpacked Debian source of pkg under work/src (fetched once)."""
    top = os.path.join(work, "src")
    found = [d for d in glob.glob(os.path.join(top, pkg + "-*")) if os.path.isdir(d)]
    if found:
        return sorted(found)[-1]
    enable_deb_src()
    os.makedirs(top, exist_ok=True)
    log(f"run.py: apt-get source {pkg}")
    sh(["apt-get", "source", "-q", pkg], cwd=top, out=os.path.join(top, pkg + ".log"))
    found = [d for d in glob.glob(os.path.join(top, pkg + "-*")) if os.path.isdir(d)]
    if not found:
        sys.exit(f"run.py: apt-get source {pkg} unpacked nothing into {top}")
    return sorted(found)[-1]


def shims(work):
    """smpi_scan.o (MPI_Scan by recursive doubling, see smpi_scan.c), after
    scan_check.c has passed with it under smpirun."""
    obj = os.path.join(work, "bin", "smpi_scan.o")
    if os.path.exists(obj):
        return obj
    os.makedirs(os.path.dirname(obj), exist_ok=True)
    check = os.path.join(work, "bin", "scan_check")
    sh(["smpicc", "-O2", "-c", "-o", obj + ".tmp", os.path.join(HERE, "smpi_scan.c")])
    sh(["smpicc", "-O2", "-o", check, os.path.join(HERE, "scan_check.c"), obj + ".tmp"])
    xml = os.path.join(work, "bin", "check.xml")
    with open(xml, "w") as f:
        f.write(plat.fattree_xml("2x2x4:2:today"))
    hosts = os.path.join(work, "bin", "check.hosts")
    with open(hosts, "w") as f:
        f.write("".join(f"h{r // 4}\n" for r in range(13)))
    r = subprocess.run(["smpirun", "-np", "13", "-platform", xml, "-hostfile", hosts, "--log=root.thres:error",
                        check], capture_output=True, text=True)
    if r.returncode or "scan_check: PASS" not in r.stdout:
        sys.exit(f"run.py: smpi_scan.c failed its check: {(r.stderr + r.stdout).strip()[-500:]}")
    os.rename(obj + ".tmp", obj)
    return obj


def binaries(work, pkg, name):
    """The source of pkg, its two executables (NAME and NAME+profile under
    work/bin) and, when they are still to be built, the build log's path
    (else None)."""
    src = source(work, pkg)
    exe, prof = os.path.join(work, "bin", name), os.path.join(work, "bin", name + "+profile")
    if os.path.exists(exe) and os.path.exists(prof):
        return src, exe, prof, None
    logf = os.path.join(work, pkg + "-build.log")
    log(f"run.py: building {pkg} for SMPI ({logf})")
    return src, exe, prof, logf


def build_lammps(work, profiler):
    """lmp (as it is) and lmp+profile, built with smpicxx."""
    src, exe, prof, logf = binaries(work, "lammps", "lmp")
    if not logf:
        return src, exe, prof
    s = os.path.join(src, "src")
    sh(["make", "yes-molecule", "yes-kspace", "yes-rigid"], cwd=s, out=logf)
    sh(["make", f"-j{os.cpu_count() or 1}", "mpi", "CC=smpicxx", "LINK=smpicxx",
        f"CCFLAGS=-O2 -std=c++11 {NO_MALLOC}", "LINKFLAGS=-O2"], cwd=s, out=logf)
    scan = shims(work)
    for out, extra in ((exe, []), (prof, [profiler])):
        sh(["smpicxx", "-O2", os.path.join(s, "Obj_mpi", "main.o"), scan, *extra, f"-L{s}", "-llammps_mpi",
            "-o", out], out=logf)
    return src, exe, prof


def build_hypre(work, profiler):
    """hypre's struct test driver (as it is, and with the profiler)."""
    src, exe, prof, logf = binaries(work, "hypre", "hypre-struct")
    if not logf:
        return src, exe, prof
    s = os.path.join(src, "src")
    if not os.path.exists(os.path.join(s, "config", "Makefile.config")):
        # SMPI_PRETEND_CC: smpicc acts as a plain compiler, so configure can
        # run its test programs
        sh(["./configure", "CC=smpicc", "CXX=smpicxx", f"CFLAGS=-O2 {NO_MALLOC}", "--disable-fortran",
            "--without-openmp", "--enable-shared=no"], cwd=s, out=logf,
           env=dict(os.environ, SMPI_PRETEND_CC="1"))
    sh(["make", f"-j{os.cpu_count() or 1}"], cwd=s, out=logf)
    sh(["make", "struct.o"], cwd=os.path.join(s, "test"), out=logf)
    lib = glob.glob(os.path.join(s, "hypre", "lib", "libHYPRE*.a"))
    if not lib:
        sys.exit(f"run.py: no libHYPRE*.a under {s}/hypre/lib, see {logf}")
    scan = shims(work)
    for out, extra in ((exe, []), (prof, [profiler])):
        sh(["smpicc", "-O2", os.path.join(s, "test", "struct.o"), scan, *extra, lib[0], "-lm", "-o", out], out=logf)
    return src, exe, prof


# ---- workloads -----------------------------------------------------------------

class Workload:
    """One application input: how to run it and how to read its timers."""

    def __init__(self, name, app, what, argv, inputs, parse):
        self.name, self.app, self.what = name, app, what
        self.argv, self.inputs, self.parse = argv, inputs, parse
        self.profile = None


def parse_lammps(out):
    """LAMMPS's loop time and its MPI task timing breakdown (avg column)."""
    res = {}
    m = re.search(r"^Loop time of (\S+) on (\d+) procs for (\d+) steps", out, re.M)
    if m:
        res["app"] = float(m.group(1))
    for sec in ("Pair", "Bond", "Kspace", "Neigh", "Comm", "Output", "Modify", "Other"):
        m = re.search(rf"^{sec}\s*\|\s*\S+\s*\|\s*(\S+)\s*\|", out, re.M)
        if m:
            res[sec] = float(m.group(1))
    return res


def parse_hypre(out):
    """hypre's timers: the setup and solve phases' wall clock times."""
    res = {}
    for phase in ("Setup", "Solve"):
        m = re.search(rf"^{phase} phase times:.*?wall clock time = (\S+) seconds", out, re.M | re.S)
        if m:
            res[phase] = float(m.group(1))
    if "Setup" in res and "Solve" in res:
        res["app"] = res["Setup"] + res["Solve"]
    m = re.search(r"^Iterations = (\d+)", out, re.M)
    if m:
        res["iterations"] = int(m.group(1))
    return res


def workloads(work, apps, profiler, ranks):
    out = []
    if "lammps" in apps:
        src, exe, prof = build_lammps(work, profiler)
        bench = os.path.join(src, "bench")
        out.append(Workload("LAMMPS in.lj", "lammps", "LJ melt, 32,000 atoms, 100 steps (bench/in.lj)",
                            lambda e: [e, "-in", "in.lj", "-log", "none"], [os.path.join(bench, "in.lj")],
                            parse_lammps))
        out.append(Workload("LAMMPS in.rhodo", "lammps",
                            "rhodopsin, 32,000 atoms, PPPM 1e-4, 100 steps (bench/in.rhodo)",
                            lambda e: [e, "-in", "in.rhodo", "-log", "none"],
                            [os.path.join(bench, "in.rhodo"), os.path.join(bench, "data.rhodo")], parse_lammps))
        for w in out:
            w.exe, w.prof = exe, prof
    if "hypre" in apps:
        _, exe, prof = build_hypre(work, profiler)
        p = {512: (8, 8, 8)}[ranks]
        w = Workload("hypre struct PFMG", "hypre",
                     "7-point Laplacian, 40^3 cells per rank, PFMG-preconditioned CG (test/struct -solver 11)",
                     lambda e: [e, "-n", "40", "40", "40", "-P", *map(str, p), "-solver", "11"], [], parse_hypre)
        w.exe, w.prof = exe, prof
        out.append(w)
    return out


# ---- machines and placements ----------------------------------------------------

class Machine:
    def __init__(self, key, name, kind, spec, topo, model_args, launches):
        self.key, self.name, self.kind, self.spec = key, name, kind, spec
        self.topo, self.model_args, self.launches = topo, model_args, launches


def machines(keys):
    bw, mbw = f"{plat.TODAY_BW:g}", f"{plat.TODAY_MEM_BW:g}"
    lat, mlat = f"{plat.TODAY_LAT:g}", f"{plat.TODAY_MEM_LAT:g}"
    out = []
    if "torus" in keys:
        out.append(Machine("torus", "8x8x8 torus, 200 Gb/s", "torus", "8x8x8:today", "torus:8x8x8",
                           ["--bandwidth", f"{plat.TODAY_TORUS_BW:g}"], ["rank order"]))
    for key, (leaves, hosts, cores) in (("fattree8", (8, 8, 8)), ("fattree32", (4, 4, 32))):
        if key not in keys:
            continue
        for up in (hosts, hosts // 2):
            bis = "full bisection" if up == hosts else f"tapered {hosts}:{up}"
            out.append(Machine(key, f"fat tree {leaves}x{hosts} nodes x {cores} cores, {bis}, 100 Gb/s", "fattree",
                               f"{leaves}x{hosts}x{cores}:{up}:today",
                               f"tree:{leaves}x{hosts}x{cores}:cost=100,10,1:up={up}",
                               ["--bandwidth", f"{bw},{bw},{mbw}", "--latency", f"{lat},{lat},{mlat}"],
                               ["block", "round-robin"]))
    return out


def launch_coords(m, launch, n):
    if m.kind == "torus":
        return [plat.coords_of(r, plat.dims_of(m.spec)) for r in range(n)]
    leaves, hosts, cores, _ = plat.fattree_shape(m.spec)
    nodes = leaves * hosts
    where = [(r // cores, r % cores) if launch == "block" else (r % nodes, r // nodes) for r in range(n)]
    return [(h // hosts, h % hosts, k) for h, k in where]


def write_map(path, coords):
    with open(path, "w") as f:
        f.write("".join(" ".join(map(str, c)) + "\n" for c in coords))
    return path


# ---- runs -------------------------------------------------------------------------

def simulate(work, w, m, mapfile, exe, timeout, profile=None):
    """One smpirun of w on machine m, rank r on the host mapfile's line r
    names; returns (timers, total simulated time, wall seconds, message)."""
    hosts = plat.hosts_from_map(m.kind, m.spec, plat.read_mapfile(mapfile), mapfile)
    xml = os.path.join(work, f"{m.kind}-{m.spec.replace(':', '_')}.xml")
    if not os.path.exists(xml):
        with open(xml, "w") as f:
            f.write(plat.torus_xml(plat.dims_of(m.spec), bw=plat.TODAY_TORUS_BW) if m.kind == "torus"
                    else plat.fattree_xml(m.spec))
    run = tempfile.mkdtemp(prefix="run-", dir=work)
    try:
        with open(os.path.join(run, "hosts"), "w") as f:
            f.write("".join(h + "\n" for h in hosts))
        for p in w.inputs:
            os.symlink(p, os.path.join(run, os.path.basename(p)))
        env = dict(os.environ)
        if profile:
            env["RANKMAP_PROFILE"] = profile
        cmd = ["smpirun", "-np", str(len(hosts)), "-platform", xml, "-hostfile", "hosts", *SMPI_CFG, *w.argv(exe)]
        t = time.time()
        try:
            r = subprocess.run(cmd, cwd=run, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {}, None, time.time() - t, f"timeout after {timeout} s"
        wall = time.time() - t
        res = w.parse(r.stdout)
        m2 = re.search(r"Simulated time: (\S+) seconds", r.stderr)
        total = float(m2.group(1)) if m2 else None
        msg = "" if r.returncode == 0 and "app" in res else \
            (f"exit {r.returncode}: " + ((r.stderr.strip().splitlines() or r.stdout.strip().splitlines()
                                          or ["no output"])[-1]))
        return res, total, wall, msg
    finally:
        shutil.rmtree(run, ignore_errors=True)


def rankmap(build, *args):
    r = subprocess.run([os.path.join(build, "rankmap"), *args], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"run.py: rankmap {' '.join(args)} failed: {r.stderr.strip()}")
    return r.stdout


def predicted(build, m, profile, mapfile):
    d = json.loads(rankmap(build, "eval", "--topology", m.topo, "--profile", profile, "--mapping", mapfile,
                           "--json", *m.model_args))
    return d.get("predicted_time"), d.get("F"), d.get("weights")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True, help="rankmap build tree (rankmap, src/pmpi/rankmap-profile-smpi.o)")
    ap.add_argument("--work", default="/var/cache/rankmap/apps", help="sources, builds and runs (not the repo)")
    ap.add_argument("--apps", default="lammps,hypre")
    ap.add_argument("--inputs", default="", help="only these workloads (comma-separated: lj,rhodo,struct)")
    ap.add_argument("--machines", default="torus,fattree8,fattree32")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=3600)
    ap.add_argument("--record", metavar="FILE")
    a = ap.parse_args()
    build, work = os.path.abspath(a.build), os.path.abspath(a.work)
    for t in ("smpicc", "smpicxx", "smpirun"):
        if not shutil.which(t):
            sys.exit(f"run.py: {t} not found (Debian package libsimgrid-dev)")
    profiler = os.path.join(build, "src", "pmpi", "rankmap-profile-smpi.o")
    if not os.path.exists(profiler):
        sh(["make", "-C", build, "src/pmpi/rankmap-profile-smpi.o"])
    os.makedirs(work, exist_ok=True)
    n = 512
    t0 = time.time()
    for key, given, known in (("--apps", a.apps, ("lammps", "hypre")),
                              ("--machines", a.machines, ("torus", "fattree8", "fattree32"))):
        bad = [x for x in given.split(",") if x not in known]
        if bad:
            sys.exit(f"run.py: {key} {','.join(bad)}: expected a comma-separated list of {', '.join(known)}")
    wls = workloads(work, a.apps.split(","), profiler, n)
    if a.inputs:
        wls = [w for w in wls if any(k in w.name for k in a.inputs.split(","))]
        if not wls:
            sys.exit(f"run.py: --inputs {a.inputs}: no workload of {a.apps} matches (lj, rhodo, struct)")
    ms = machines(a.machines.split(","))
    maps = os.path.join(work, "maps")
    os.makedirs(maps, exist_ok=True)

    # 1. one profile per workload, from its run in rank order on the torus
    # (or the first machine given)
    for w in wls:
        w.profile = os.path.join(maps, re.sub(r"\W+", "-", w.name) + ".prof")
        if os.path.exists(w.profile) and os.path.getmtime(w.profile) > os.path.getmtime(w.prof):
            log(f"run.py: {w.name}: profile of an earlier run, {w.profile}")
            continue
        m = ms[0]
        mf = write_map(os.path.join(maps, f"profile-{m.key}.map"), launch_coords(m, m.launches[0], n))
        log(f"run.py: profiling {w.name} ({n} ranks)")
        res, _, wall, msg = simulate(work, w, m, mf, w.prof, a.timeout, profile=w.profile)
        if msg or not os.path.exists(w.profile):
            sys.exit(f"run.py: the profiled run of {w.name} failed: {msg or 'no profile written'}")
        log(f"run.py: {w.name}: profile written ({wall:.0f} s)")

    # 2. placements
    tasks = []
    for w in wls:
        tag = re.sub(r"\W+", "-", w.name)
        for m in ms:
            mtag = f"{tag}-{m.spec.replace(':', '_')}"
            sc = os.path.join(maps, f"{mtag}-scotch.map")
            rankmap(build, "map", "--topology", m.topo, "--profile", w.profile, "--algorithm", "scotch",
                    "--seed", "1", "--guard", "off", "--no-cache", "--out", sc)
            for launch in m.launches:
                lm = write_map(os.path.join(maps, f"{mtag}-{launch}.map"), launch_coords(m, launch, n))
                tasks.append((w, m, launch, f"{launch} (launch)", lm))
                rm = os.path.join(maps, f"{mtag}-{launch}-rankmap.map")
                t = time.time()
                # the machine's links, as its users know them: the guard
                # judges the profile's messages at their sizes on them
                rankmap(build, "map", "--topology", m.topo, "--profile", w.profile, "--seed", "1",
                        "--current", lm, "--no-cache", *m.model_args, "--out", rm)
                tasks.append((w, m, launch, f"rankmap map --profile (from {launch})", rm, time.time() - t))
            tasks.append((w, m, m.launches[0], "Scotch (same profile)", sc))

    # 3. runs
    rows = []
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        futs = {ex.submit(simulate, work, t[0], t[1], t[4], t[0].exe, a.timeout): t for t in tasks}
        for k, f in enumerate(concurrent.futures.as_completed(futs), 1):
            t = futs[f]
            w, m, launch, label, mf = t[:5]
            res, total, wall, msg = f.result()
            pred, F, weights = predicted(build, m, w.profile, mf)
            rows.append(dict(w=w, m=m, launch=launch, label=label, res=res, total=total, wall=wall, msg=msg,
                             pred=pred, F=F, weights=weights, map_s=t[5] if len(t) > 5 else None))
            log(f"[{k}/{len(tasks)} {time.time() - t0:5.0f} s] {w.name} | {m.name} | {label}: "
                + (f"{res['app'] * 1e3:.3f} ms" if not msg else f"FAILED ({msg})") + f" ({wall:.0f} s)")
    order = {(id(t[0]), id(t[1]), t[3]): i for i, t in enumerate(tasks)}
    rows.sort(key=lambda r: order[(id(r["w"]), id(r["m"]), r["label"])])
    text = table(rows, n, time.time() - t0)
    short = summary(rows, n)
    print(short + "\n\n" + text)
    if a.record:
        record(a.record, short)
        record(re.sub(r"\.md$", "", a.record) + "-detail.md", text)
    return 0 if all(not r["msg"] for r in rows) else 1


def breakdown(r):
    res = r["res"]
    if r["w"].app == "lammps":
        parts = [(s, res[s]) for s in ("Comm", "Kspace", "Modify", "Output", "Neigh", "Other") if res.get(s)]
    else:
        parts = [(s, res[s]) for s in ("Setup", "Solve") if s in res]
    return ", ".join(f"{s} {v * 1e3:.2f}" for s, v in parts)


def moved(w, base, mine):
    """The parts of the application's time that changed most (ms)."""
    keys = ("Comm", "Kspace", "Modify", "Output") if w.app == "lammps" else ("Setup", "Solve")
    d = sorted(((base.get(k, 0) - mine.get(k, 0), k) for k in keys), reverse=True)
    return ", ".join(f"{k} {base.get(k, 0) * 1e3:.3f} -> {mine.get(k, 0) * 1e3:.3f}" for dv, k in d[:2]
                     if abs(dv) >= 0.005 * base.get("app", 1))


def summary(rows, n):
    """One line per application, machine and launch order: the launch
    order's time, rankmap's and Scotch's, and what moved."""
    out = [f"**Real applications, {n} simulated ranks: the application's own time (ms; SimGrid SMPI, "
           "computation not simulated), and how many times faster than the launch order**", "",
           "| application | machine | launch order | launch (ms) | rankmap map --profile | Scotch | "
           "what moved (ms, launch -> rankmap) |", "|---|---|---|---:|---:|---:|---|"]
    by = {}
    for r in rows:
        by.setdefault((id(r["w"]), id(r["m"])), []).append(r)
    for group in by.values():
        w, m = group[0]["w"], group[0]["m"]
        sc = next((r for r in group if r["label"].startswith("Scotch")), None)
        for launch in m.launches:
            b = next((r for r in group if r["label"] == f"{launch} (launch)"), None)
            rm = next((r for r in group if r["label"] == f"rankmap map --profile (from {launch})"), None)

            def cell(r):
                if r is None:
                    return "not run"
                if r["msg"]:
                    return "failed: " + r["msg"]
                t = r["res"]["app"]
                return f"{t * 1e3:.3f} ({b['res']['app'] / t:.2f}x)" if b and not b["msg"] else f"{t * 1e3:.3f}"
            bt = f"{b['res']['app'] * 1e3:.3f}" if b and not b["msg"] else "failed"
            mv = moved(w, b["res"], rm["res"]) if b and rm and not b["msg"] and not rm["msg"] else ""
            out.append(f"| {w.name} | {m.name} | {launch} | {bt} | {cell(rm)} | {cell(sc)} | {mv} |")
    worst = [b["res"]["app"] / r["res"]["app"] for r in rows for b in rows
             if r["label"].startswith("rankmap") and not r["msg"] and b["w"] is r["w"] and b["m"] is r["m"]
             and b["label"] == f"{r['launch']} (launch)" and not b["msg"]]
    if worst:
        out += ["", f"Lowest rankmap row against its launch order: {min(worst):.3f}x "
                f"({'none slower' if min(worst) >= 1.0 else 'SLOWER than the launch order'})."]
    out += ["", "Workloads:"] + sorted({f"- {r['w'].name}: {r['w'].what}" for r in rows})
    out += ["", "Per-row figures (every section of the application's timers, SMPI's total simulated time, "
            "rankmap's predicted time): [apps-detail.md](apps-detail.md)."]
    return "\n".join(out)


def table(rows, n, wall):
    lines = [f"**Real applications on simulated machines ({n} ranks; SimGrid SMPI, computation not simulated: "
             f"every time is communication; {wall:.0f} s wall)**", "",
             "| application | machine | placement | app time (ms) | vs launch | parts (ms) | "
             "total simulated (ms) | rankmap predicted (ms) |",
             "|---|---|---|---:|---:|---|---:|---:|"]
    base = {}
    for r in rows:
        if r["label"].endswith("(launch)") and not r["msg"]:
            base[(id(r["w"]), id(r["m"]), r["launch"])] = r["res"]["app"]
    for r in rows:
        b = base.get((id(r["w"]), id(r["m"]), r["launch"]))
        if r["msg"]:
            lines.append(f"| {r['w'].name} | {r['m'].name} | {r['label']} | failed: {r['msg']} | | | | |")
            continue
        t = r["res"]["app"]
        vs = f"{b / t:.2f}x" if b else ""
        if r["label"].startswith("Scotch") and len(r["m"].launches) > 1:
            vs = " / ".join(f"{base[(id(r['w']), id(r['m']), L)] / t:.2f}x {L}" for L in r["m"].launches
                            if (id(r["w"]), id(r["m"]), L) in base)
        total = f"{r['total'] * 1e3:.3f}" if r["total"] is not None else ""
        pred = f"{r['pred'] * 1e3:.3f}" if r["pred"] is not None else ""
        lines.append(f"| {r['w'].name} | {r['m'].name} | {r['label']} | {t * 1e3:.3f} | {vs} | {breakdown(r)} | "
                     f"{total} | {pred} |")
    lines += ["", "Workloads:"] + sorted({f"- {r['w'].name}: {r['w'].what}" for r in rows})
    return "\n".join(lines)


def record(path, text):
    with open(path, "w") as f:
        f.write(sg_record.header("bench/apps/run.py") + text + "\n")
    log(f"run.py: recorded in {path}")


if __name__ == "__main__":
    sys.exit(main())

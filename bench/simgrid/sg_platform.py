#!/usr/bin/env python3
"""sg_platform.py -- SimGrid platforms and host files for the evaluation suite.

  sg_platform.py torus 8x8x8 OUT.xml        BG/L-like 3-D torus (SimGrid TORUS cluster)
  sg_platform.py mesh 8x4x4 OUT.xml         the same box without wrap-around links
  sg_platform.py cluster 8x2:1 OUT.xml      SMP cluster of Chen et al. (MPIPP): 8 nodes x 2 cores, 1 switch
  sg_platform.py cluster 8x4:2 OUT.xml      ... 2 switches joined by the slow link (three-tier)
  sg_platform.py fattree 4x4x8:4 OUT.xml     two-level fat tree: 4 leaf switches x 4 hosts x 8 cores,
                                            4 uplinks per leaf switch (full bisection; :2 tapered)
  sg_platform.py dragonfly 4x2x4x4:4 OUT.xml  dragonfly: 4 groups x 2 chassis x 4 blades (routers)
                                            x 4 hosts per router, 4 cores per host
  sg_platform.py hostfile KIND SPEC MAPFILE OUT   host of each rank (KIND torus|mesh|cluster|fattree|dragonfly)

Parameters (all written into the XML and into the README):

Torus / mesh (Almási et al., "Implementing MPI on the BlueGene/L
supercomputer", section 3; Jagode et al., "Task placement of parallel
multi-dimensional FFTs on a mesh communication network", section 5.2):
  link bandwidth 154 MB/s per link and direction: 0.25 B/cycle raw x 89 %
  packet efficiency (240 payload bytes per 270 wire bytes) x 700 MHz;
  full duplex (SPLITDUPLEX: each direction its own resource);
  per-hop latency 100 ns (assumption: the papers give none per hop).
  Torus: SimGrid's TORUS cluster, dimension-order routing, shortest way round.
  Mesh: one duplex link per neighbour pair, Floyd shortest-path routing.
  Host of coordinates (x, y, z) is "n-<x + X*(y + Y*z)>" (x fastest, as in
  SimGrid's TorusZone); rankmap's mapfiles give (x, y, z) per rank.

SMP clusters (Chen et al., "MPIPP: an automatic profile-guided parallel
process placement toolset for SMP clusters and multiclusters", section 5:
8 two-way SMP nodes on gigabit Ethernet;
three-tier: 4 + 4 nodes on two switches joined by gigabit (Itanium, 8x2) or
100 Mbit/s Fast Ethernet (Xeon, 8x4)):
  node <-> switch: 1 Gbit/s = 125 MB/s per direction, 50 us;
  switch <-> switch: 125 MB/s (8x2) or 12.5 MB/s (8x4), full duplex, 50 us;
  cores of one node: shared-memory link of 2 GB/s, 1 us (an assumption).
  Host of (switch s, node n, core c) is "s<s>-n<n>-c<c>", n numbered globally.

Fat trees (today's clusters): SimGrid's FAT_TREE cluster, two levels: leaf
switches of H hosts, each leaf switch with U uplinks, one to each of U spine
switches (U = H: full bisection; U < H: tapered H:U), routed by D-mod-K
(SimGrid's FatTreeZone: up port = destination host mod U).  Every link
125 MB/s per direction (SPLITDUPLEX), 50 us; a host's cores share it and
talk through the host's loopback (2 GB/s, 1 us; FATPIPE: every flow its
full bandwidth).  Host k is "h<k>", hosts 0..H-1 on leaf switch 0, and so
on; several ranks run on one host (one per core).  rankmap's model of the
same machine: tree:LxHxC:cost=100,10,1:up=U.

Dragonflies (HPE Slingshot, Cray Aries; issue 65): SimGrid's DRAGONFLY
cluster (DragonflyZone, minimal routes only: host -> router, green link to
the router of the own chassis that leads to the target group, black link
to chassis 0, the blue link between the groups, then green and black links
to the target router, router -> host; it needs groups <= blades).  One
wire per link class; every link 25 GB/s per direction (200 Gb/s, as
Slingshot's), 500 ns (an assumption: a switch hop and its cable); a host's
cores talk through its loopback, 100 GB/s, 200 ns (FATPIPE).  Host k is
"d<k>" in SimGrid's numbering (group, chassis, blade, host; the last
fastest).  rankmap's model of the same machine: dragonfly:GxCxBxNxK (its
defaults are these constants).
"""
import os
import sys

TORUS_BW = 154e6      # bytes/s per link and direction
TORUS_LAT = 100e-9    # seconds per link
ETH_BW = 125e6        # gigabit Ethernet, per direction
FAST_ETH_BW = 12.5e6  # 100 Mbit/s Fast Ethernet
ETH_LAT = 50e-6
MEM_BW = 2e9
MEM_LAT = 1e-6
# Today's machines (spec suffix ":today"; issue 61): 100 Gb/s links and a
# switch hop of 1 us; shared memory 3 times a link's bandwidth, 0.3 us; a
# torus of 200 Gb/s links.
TODAY_BW = 12.5e9
TODAY_LAT = 1e-6
TODAY_MEM_BW = 37.5e9
TODAY_MEM_LAT = 0.3e-6
TODAY_TORUS_BW = 25e9
# Dragonflies: rankmap's model defaults (src/cost/model.cpp kDfly*).
DFLY_BW = 25e9
DFLY_LAT = 500e-9
DFLY_MEM_BW = 100e9
DFLY_MEM_LAT = 200e-9


def today(spec):
    """'4x4x8:2:today' -> ('4x4x8:2', True); other specs are returned as they are."""
    return (spec[:-len(":today")], True) if spec.endswith(":today") else (spec, False)

HEADER = ["<?xml version='1.0'?>",
          '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
          '<platform version="4.1">']


def dims_of(text):
    text = today(text)[0]
    try:
        dims = [int(x) for x in text.split("x")]
    except ValueError:
        sys.exit(f"sg_platform.py: bad dimensions '{text}' (expected e.g. 8x4x4)")
    if not dims or any(d < 1 for d in dims):
        sys.exit(f"sg_platform.py: bad dimensions '{text}'")
    return dims


def prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


# rank <-> coordinates, first dimension fastest: shared with the broadcast
# benchmark's generator
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bcast"))
from gen_platform import coords as coords_of, index as index_of  # noqa: E402


def torus_xml(dims, bw=TORUS_BW):
    n = prod(dims)
    return "\n".join(HEADER + [
        f"  <!-- {'x'.join(map(str, dims))} torus: {bw / 1e6:g} MB/s per link and direction, "
        f"{TORUS_LAT * 1e9:g} ns per hop -->",
        f'  <cluster id="torus" prefix="n-" suffix="" radical="0-{n - 1}" speed="1Gf"',
        f'           bw="{bw:.0f}Bps" lat="{TORUS_LAT * 1e9:g}ns" sharing_policy="SPLITDUPLEX"',
        f'           topology="TORUS" topo_parameters="{",".join(map(str, dims))}"',
        '           loopback_bw="100GBps" loopback_lat="0"/>',
        "</platform>", ""])


def mesh_xml(dims):
    n = prod(dims)
    out = HEADER + [f"  <!-- {'x'.join(map(str, dims))} mesh (no wrap-around): {TORUS_BW / 1e6:g} MB/s "
                    f"per link and direction, {TORUS_LAT * 1e9:g} ns per hop -->",
                    '  <zone id="mesh" routing="Floyd">']
    out += [f'    <host id="n-{i}" speed="1Gf"/>' for i in range(n)]
    routes = []
    for i in range(n):
        c = coords_of(i, dims)
        for d, e in enumerate(dims):
            if c[d] + 1 < e:
                c2 = list(c)
                c2[d] += 1
                j = index_of(c2, dims)
                out.append(f'    <link id="l{i}-{d}" bandwidth="{TORUS_BW:.0f}Bps" '
                           f'latency="{TORUS_LAT * 1e9:g}ns" sharing_policy="SPLITDUPLEX"/>')
                routes.append(f'    <route src="n-{i}" dst="n-{j}" symmetrical="NO">'
                              f'<link_ctn id="l{i}-{d}" direction="UP"/></route>')
                routes.append(f'    <route src="n-{j}" dst="n-{i}" symmetrical="NO">'
                              f'<link_ctn id="l{i}-{d}" direction="DOWN"/></route>')
    out += routes + ["  </zone>", "</platform>", ""]
    return "\n".join(out)


def cluster_shape(spec):
    """'8x2:1' -> (nodes, cores, switches)."""
    try:
        shape, sw = spec.split(":")
        nodes, cores = (int(x) for x in shape.split("x"))
        switches = int(sw)
    except ValueError:
        sys.exit(f"sg_platform.py: bad cluster '{spec}' (expected NODESxCORES:SWITCHES, e.g. 8x2:2)")
    if nodes < 1 or cores < 1 or switches not in (1, 2) or nodes % switches:
        sys.exit(f"sg_platform.py: bad cluster '{spec}' (1 or 2 switches dividing the node count)")
    return nodes, cores, switches


def cluster_host(spec, node, core):
    nodes, _, switches = cluster_shape(spec)
    return f"s{node // (nodes // switches)}-n{node}-c{core}"


def cluster_xml(spec):
    nodes, cores, switches = cluster_shape(spec)
    per = nodes // switches
    bb_bw = ETH_BW if cores <= 2 else FAST_ETH_BW
    hosts = [(n, c) for n in range(nodes) for c in range(cores)]
    out = HEADER + [f"  <!-- SMP cluster: {nodes} nodes x {cores} cores, {switches} switch(es); "
                    f"node link {ETH_BW / 1e6:g} MB/s, switch link {bb_bw / 1e6:g} MB/s, "
                    f"shared memory {MEM_BW / 1e9:g} GB/s -->",
                    '  <zone id="cluster" routing="Full">']
    out += [f'    <host id="{cluster_host(spec, n, c)}" speed="1Gf"/>' for n, c in hosts]
    for n in range(nodes):
        out.append(f'    <link id="nic{n}" bandwidth="{ETH_BW:.0f}Bps" latency="{ETH_LAT * 1e6:g}us" '
                   'sharing_policy="SPLITDUPLEX"/>')
        out.append(f'    <link id="mem{n}" bandwidth="{MEM_BW:.0f}Bps" latency="{MEM_LAT * 1e6:g}us"/>')
    if switches == 2:
        out.append(f'    <link id="backbone" bandwidth="{bb_bw:.0f}Bps" latency="{ETH_LAT * 1e6:g}us" '
                   'sharing_policy="SPLITDUPLEX"/>')
    for a in hosts:
        for b in hosts:
            if a == b:
                continue
            src, dst = cluster_host(spec, *a), cluster_host(spec, *b)
            if a[0] == b[0]:
                links = [f'<link_ctn id="mem{a[0]}"/>']
            else:
                links = [f'<link_ctn id="nic{a[0]}" direction="UP"/>']
                sa, sb = a[0] // per, b[0] // per
                if sa != sb:
                    links.append(f'<link_ctn id="backbone" direction="{"UP" if sa < sb else "DOWN"}"/>')
                links.append(f'<link_ctn id="nic{b[0]}" direction="DOWN"/>')
            out.append(f'    <route src="{src}" dst="{dst}" symmetrical="NO">{"".join(links)}</route>')
    out += ["  </zone>", "</platform>", ""]
    return "\n".join(out)


def fattree_shape(spec):
    """'4x4x8:4' -> (leaf switches, hosts per leaf switch, cores, uplinks)."""
    spec = today(spec)[0]
    try:
        shape, up = spec.split(":")
        leaves, hosts, cores = (int(x) for x in shape.split("x"))
        up = int(up)
    except ValueError:
        sys.exit(f"sg_platform.py: bad fat tree '{spec}' (expected LEAVESxHOSTSxCORES:UPLINKS, e.g. 4x4x8:4)")
    if min(leaves, hosts, cores, up) < 1:
        sys.exit(f"sg_platform.py: bad fat tree '{spec}' (every number >= 1)")
    return leaves, hosts, cores, up


def fattree_xml(spec):
    leaves, hosts, cores, up = fattree_shape(spec)
    bw, lat, mbw, mlat = (TODAY_BW, TODAY_LAT, TODAY_MEM_BW, TODAY_MEM_LAT) if today(spec)[1] else \
        (ETH_BW, ETH_LAT, MEM_BW, MEM_LAT)
    n = leaves * hosts
    return "\n".join(HEADER + [
        f"  <!-- fat tree: {leaves} leaf switches x {hosts} hosts x {cores} cores, {up} uplinks per leaf "
        f"switch ({hosts}:{up}); links {bw / 1e6:g} MB/s, {lat * 1e6:g} us; "
        f"loopback {mbw / 1e9:g} GB/s, {mlat * 1e6:g} us; D-mod-K routes -->",
        f'  <cluster id="fattree" prefix="h" suffix="" radical="0-{n - 1}" speed="1Gf" core="{cores}"',
        f'           bw="{bw:.0f}Bps" lat="{lat * 1e6:g}us" sharing_policy="SPLITDUPLEX"',
        f'           loopback_bw="{mbw:.0f}Bps" loopback_lat="{mlat * 1e6:g}us"',
        f'           topology="FAT_TREE" topo_parameters="2;{hosts},{leaves};1,{up};1,1"/>',
        "</platform>", ""])


def dragonfly_shape(spec):
    """'4x2x4x4:4' -> (groups, chassis, blades, hosts per router, cores)."""
    try:
        shape, cores = spec.split(":")
        g, c, b, n = (int(x) for x in shape.split("x"))
        k = int(cores)
    except ValueError:
        sys.exit(f"sg_platform.py: bad dragonfly '{spec}' (expected GxCxBxN:CORES, e.g. 4x2x4x4:4)")
    if min(g, c, b, n, k) < 1 or g > b:
        sys.exit(f"sg_platform.py: bad dragonfly '{spec}' (every number >= 1; SimGrid needs groups <= blades)")
    return g, c, b, n, k


def dragonfly_xml(spec):
    g, c, b, n, k = dragonfly_shape(spec)
    hosts = g * c * b * n
    return "\n".join(HEADER + [
        f"  <!-- dragonfly: {g} groups x {c} chassis x {b} blades x {n} hosts x {k} cores; links "
        f"{DFLY_BW / 1e9:g} GB/s, {DFLY_LAT * 1e9:g} ns; loopback {DFLY_MEM_BW / 1e9:g} GB/s, "
        f"{DFLY_MEM_LAT * 1e9:g} ns; minimal routes -->",
        f'  <cluster id="dragonfly" prefix="d" suffix="" radical="0-{hosts - 1}" speed="1Gf" core="{k}"',
        f'           bw="{DFLY_BW:.0f}Bps" lat="{DFLY_LAT * 1e9:g}ns" sharing_policy="SPLITDUPLEX"',
        f'           loopback_bw="{DFLY_MEM_BW:.0f}Bps" loopback_lat="{DFLY_MEM_LAT * 1e9:g}ns"',
        f'           topology="DRAGONFLY" topo_parameters="{g},1;{c},1;{b},1;{n}"/>',
        "</platform>", ""])


def read_mapfile(path):
    rows = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            try:
                rows.append([int(x) for x in line.split()])
            except ValueError:
                sys.exit(f"{path}:{lineno}: not a list of integers: {line!r}")
    return rows


def hosts_from_map(kind, spec, rows, path="mapfile"):
    """Host name of every rank.  torus/mesh: rows are (x, y, z); cluster:
    rows are rankmap tree coordinates -- (node, core) for one switch,
    (switch, node-in-switch, core) for two."""
    out = []
    if kind in ("torus", "mesh"):
        dims = dims_of(spec)
        for r, c in enumerate(rows):
            if len(c) < len(dims) or any(not 0 <= x < e for x, e in zip(c, dims)):
                sys.exit(f"{path}:{r + 1}: coordinates {c} outside {spec}")
            out.append(f"n-{index_of(c[:len(dims)], dims)}")
    elif kind == "dragonfly":
        dims = dragonfly_shape(spec)
        slots = set()
        for r, c in enumerate(rows):
            if len(c) != 5 or any(not 0 <= x < e for x, e in zip(c, dims)):
                sys.exit(f"{path}:{r + 1}: coordinates {c} outside dragonfly {spec} "
                         "(group, chassis, blade, host, core)")
            slots.add(tuple(c))
            out.append(f"d{((c[0] * dims[1] + c[1]) * dims[2] + c[2]) * dims[3] + c[3]}")
        if len(slots) != len(rows):
            sys.exit(f"{path}: two ranks on one core")
        return out
    elif kind == "fattree":
        leaves, hosts, cores, _ = fattree_shape(spec)
        slots = set()
        for r, c in enumerate(rows):
            if len(c) == 2 and 0 <= c[0] < leaves * hosts:  # the hosts as one tier (tree:HOSTSxCORES)
                c = [c[0] // hosts, c[0] % hosts, c[1]]
            if len(c) < 3 or not (0 <= c[0] < leaves and 0 <= c[1] < hosts and 0 <= c[2] < cores):
                sys.exit(f"{path}:{r + 1}: coordinates {c} outside fat tree {spec} (leaf, host, core)")
            slots.add(tuple(c[:3]))
            out.append(f"h{c[0] * hosts + c[1]}")
        if len(slots) != len(rows):
            sys.exit(f"{path}: two ranks on one core")
        return out
    else:
        nodes, cores, switches = cluster_shape(spec)
        per = nodes // switches
        for r, c in enumerate(rows):
            if switches == 1 and len(c) >= 2:
                node, core = c[0], c[1]
            elif switches == 2 and len(c) >= 3:
                node, core = c[0] * per + c[1], c[2]
            else:
                sys.exit(f"{path}:{r + 1}: expected {switches + 1} coordinates, got {c}")
            if not (0 <= node < nodes and 0 <= core < cores):
                sys.exit(f"{path}:{r + 1}: coordinates {c} outside cluster {spec}")
            out.append(cluster_host(spec, node, core))
    if len(set(out)) != len(out):
        sys.exit(f"{path}: two ranks on one host")
    return out


def main(argv):
    if len(argv) == 4 and argv[1] in ("torus", "mesh", "cluster", "fattree", "dragonfly"):
        kind, spec, path = argv[1:]
        text = {"torus": lambda: torus_xml(dims_of(spec)), "mesh": lambda: mesh_xml(dims_of(spec)),
                "cluster": lambda: cluster_xml(spec), "fattree": lambda: fattree_xml(spec),
                "dragonfly": lambda: dragonfly_xml(spec)}[kind]()
        with open(path, "w") as f:
            f.write(text)
    elif len(argv) == 6 and argv[1] == "hostfile":
        kind, spec, mapfile, path = argv[2:]
        hosts = hosts_from_map(kind, spec, read_mapfile(mapfile), mapfile)
        with open(path, "w") as f:
            f.write("".join(h + "\n" for h in hosts))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)

#!/usr/bin/env python3
"""gen_platform.py -- SimGrid platforms for the broadcast benchmark.

  gen_platform.py torus 8x8x8 OUT.xml   SimGrid cluster, topology TORUS
  gen_platform.py mesh  8x8x8 OUT.xml   the same box without wrap-around links
  gen_platform.py hostfile N OUT         node-0 .. node-(N-1), one rank per host

Link parameters (BG/L; Almási et al., "Implementing MPI on the BlueGene/L
supercomputer", section 3): a torus link moves 0.25 B/cycle raw,
eta*0.25 = 0.22 B/cycle of payload; at the 700 MHz target clock that is
154 MB/s of payload per link and direction, which we use as the link
bandwidth (SPLITDUPLEX: each direction has its own 154 MB/s).  Latency: the
paper gives none per hop; we use 100 ns per link (an assumption in the range
of BG/L's published per-hop router latency).  Hosts compute nothing
(smpi/simulate-computation:no in run.py).

Host i has coordinates (i mod X, i/X mod Y, i/(XY) ...), dimension 0 fastest,
as in SimGrid's TorusZone.  The mesh is a full-routing-free zone: Floyd
routing over one directed link per neighbour pair and direction.
"""
import sys

BW = "154MBps"   # 0.22 B/cycle * 700 MHz
LAT = "100ns"    # per link (assumption, see above)


def dims_of(s):
    return [int(x) for x in s.split("x")]


def coords(i, dims):
    c = []
    for e in dims:
        c.append(i % e)
        i //= e
    return c


def index(c, dims):
    i, m = 0, 1
    for x, e in zip(c, dims):
        i += x * m
        m *= e
    return i


def torus(dims):
    n = 1
    for e in dims:
        n *= e
    return f"""<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <!-- {'x'.join(map(str, dims))} torus, BG/L payload bandwidth per link and direction -->
  <cluster id="torus" prefix="node-" suffix="" radical="0-{n - 1}" speed="1Gf"
           bw="{BW}" lat="{LAT}" sharing_policy="SPLITDUPLEX"
           topology="TORUS" topo_parameters="{','.join(map(str, dims))}"
           loopback_bw="100GBps" loopback_lat="0"/>
</platform>
"""


def mesh(dims):
    n = 1
    for e in dims:
        n *= e
    out = ["<?xml version='1.0'?>",
           '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
           '<platform version="4.1">',
           f'  <!-- {"x".join(map(str, dims))} mesh (no wrap-around), BG/L link parameters -->',
           '  <zone id="mesh" routing="Floyd">']
    for i in range(n):
        out.append(f'    <host id="node-{i}" speed="1Gf"/>')
    routes = []
    for i in range(n):
        c = coords(i, dims)
        for d, e in enumerate(dims):
            if c[d] + 1 < e:
                c2 = list(c)
                c2[d] += 1
                j = index(c2, dims)
                out.append(f'    <link id="l-{i}-{d}" bandwidth="{BW}" latency="{LAT}" '
                           f'sharing_policy="SPLITDUPLEX"/>')
                routes.append(f'    <route src="node-{i}" dst="node-{j}" symmetrical="NO">'
                              f'<link_ctn id="l-{i}-{d}" direction="UP"/></route>')
                routes.append(f'    <route src="node-{j}" dst="node-{i}" symmetrical="NO">'
                              f'<link_ctn id="l-{i}-{d}" direction="DOWN"/></route>')
    out += routes
    out += ['  </zone>', '</platform>', '']
    return "\n".join(out)


def main(argv):
    if len(argv) != 4 or argv[1] not in ("torus", "mesh", "hostfile"):
        sys.exit(__doc__)
    kind, arg, path = argv[1:]
    if kind == "hostfile":
        text = "".join(f"node-{i}\n" for i in range(int(arg)))
    else:
        text = torus(dims_of(arg)) if kind == "torus" else mesh(dims_of(arg))
    with open(path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main(sys.argv)

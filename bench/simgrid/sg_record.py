"""sg_record.py -- the header of a bench/results file written by the
SimGrid benchmarks (bench/simgrid/run.py, bench/apps/run.py): date, commit,
machine and the command that made it (bench/results/README.md)."""
import os
import subprocess
import sys
import time

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def header(script):
    """'> date ... > command: `SCRIPT ARGS`' and a blank line; SCRIPT is the
    repository path of the benchmark, ARGS this process's arguments."""
    commit = subprocess.run(["git", "-C", SRC, "describe", "--always", "--dirty"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    try:
        osname = next(line.split("=", 1)[1].strip().strip('"') for line in open("/etc/os-release")
                      if line.startswith("PRETTY_NAME="))
    except (OSError, StopIteration):
        osname = "unknown OS"
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2 ** 30
    cmd = " ".join([script] + sys.argv[1:])
    return (f"> date: {time.strftime('%Y-%m-%d', time.gmtime())} · commit: {commit} ·\n"
            f"> machine: {os.cpu_count()} cores, {mem:.0f} GiB, {osname} (the communication times are "
            f"simulated and deterministic) ·\n> command: `{cmd}`\n\n")

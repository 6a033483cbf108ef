#!/usr/bin/env bash
# maint/deps.sh -- install the Debian (bookworm) packages rankmap builds and
# tests with.  Safe to run repeatedly: apt-get runs only when something is
# missing.  Needs root (or sudo) on a Debian machine.
set -euo pipefail
pkgs=(
  build-essential autoconf automake libtool pkg-config cmake
  libgtest-dev libmetis-dev libscotch-dev
  mpich libmpich-dev libhwloc-dev libnuma-dev hwloc
  gfortran libucx-dev libslurm-dev libfabric-dev chrpath   # the vendor MPICH build (Debian's configuration)
  python3 dpkg-dev time help2man                # time: /usr/bin/time for the fuzz runs' CPU accounting
  openmpi-bin libopenmpi-dev          # the PMPI plugin is also built and tested against Open MPI
  libsimgrid-dev                      # SMPI: smpicc/smpirun, the simulated torus (bench, tests)
  python3-matplotlib                  # rankmap plot, benchmark plots
  clang libclang-rt-14-dev            # libFuzzer targets for the parsers
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "rankmap: installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

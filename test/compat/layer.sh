# layer.sh -- sourced by the scripts that run the same cases against both MPI
# layers (guard.sh, table.sh), after they set kind, mpicc, plugin, src, work
# and script (their own name, for the usage line):
#   kind = patched (the staged patched MPICH decides; plugin = -) or
#          plugin  (Debian's MPICH with plugin = librankmap-pmpi.so preloaded)
# Builds test/pmpi/topo_app.c with mpicc into $app and sets $pre, the
# mpiexec arguments of the layer (the preload for the plugin).
mkdir -p "$work" || exit 1
app=$work/topo_app-$kind
"$mpicc" -O2 -o "$app" "$src/test/pmpi/topo_app.c" || { echo "FAIL: $mpicc could not build topo_app.c"; exit 1; }
case $kind in
  patched)
    # the staged patched MPICH, not an older one installed under the prefix
    # its mpicc names in the binaries' run path
    pre= root=$(cd "$(dirname "$mpicc")/.." && pwd)
    LD_LIBRARY_PATH=$root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export LD_LIBRARY_PATH ;;
  plugin) [ -f "$plugin" ] || { echo "FAIL: $plugin was not built"; exit 1; }; pre="-genv LD_PRELOAD $plugin" ;;
  *) echo "usage: $script patched|plugin MPICC MPIEXEC PLUGIN SRC_DIR WORK_DIR"; exit 2 ;;
esac

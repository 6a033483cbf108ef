# bench/simgrid/simgrid.mk -- included from the top Makefile.am.
# SimGrid evaluation suite (issue 6).  The MPI kernels (bench/simgrid/kernels)
# are compiled by run.py with SimGrid's smpicc at run time; the build only
# makes sg_maps, the helper that writes the Gray-code/unfold maps of Smith
# and Bode ("Performance effects of node mappings on the IBM BlueGene/L
# machine") and the METIS-partitioning placements from the engine's code.
noinst_PROGRAMS += bench/simgrid/sg_maps
DEMO_TARGETS += bench/simgrid/sg_maps$(EXEEXT)
bench_simgrid_sg_maps_SOURCES = bench/simgrid/sg_maps.cpp
bench_simgrid_sg_maps_LDADD = librankmap.la

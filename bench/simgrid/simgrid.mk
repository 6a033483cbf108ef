# bench/simgrid/simgrid.mk -- included from the top Makefile.am.

# src/map/hier/hier.mk -- included from the top Makefile.am.
# The sources of src/map/hier (the mapper on tree topologies).
# Hierarchy mappers: top-down multisection along the tiers of a
# tree topology and the node-aware Cartesian block map; bench/hierarchy
# (run on demand); GoogleTest unit tests in test/hier (driven by CTest via
# test/hier/CTestTestfile.cmake).
librankmap_la_SOURCES += src/map/hier/hier.hpp src/map/hier/hier.cpp src/map/hier/grid_blocks.cpp src/map/hier/kway.cpp

noinst_PROGRAMS += bench/hierarchy
bench_hierarchy_SOURCES = bench/hierarchy.cpp
bench_hierarchy_LDADD = librankmap.la $(SCOTCH_LIBS)

HIER_TESTS = test/hier/test_hierarchy
noinst_PROGRAMS += $(HIER_TESTS)
test_hier_test_hierarchy_SOURCES = test/hier/test_hierarchy.cpp
test_hier_test_hierarchy_LDADD = librankmap.la $(GTEST_LIBS)

# src/discover/discover.mk -- included from the top Makefile.am.
# Machine discovery: node tier from host names or a declared node
# size, tiers inside a node from hwloc, NUMA distances from libnuma; the C
# entry point rankmap_discover() (include/rankmap.h).  GoogleTest tests and
# the MPI test of the patched MPICH in test/discover (driven by CTest via
# test/discover/CTestTestfile.cmake).
librankmap_la_SOURCES += src/discover/discover.hpp src/discover/settings.cpp \
	src/discover/probe.cpp src/discover/hierarchy.cpp src/discover/discover_capi.cpp
AM_CPPFLAGS += $(HWLOC_CFLAGS)
librankmap_la_LIBADD += $(HWLOC_LIBS) $(NUMA_LIBS)

DISCOVER_TESTS = test/discover/test_discover
noinst_PROGRAMS += $(DISCOVER_TESTS)
test_discover_test_discover_SOURCES = test/discover/test_discover.cpp
test_discover_test_discover_CPPFLAGS = $(AM_CPPFLAGS) $(HWLOC_CFLAGS) \
	-DRANKMAP_DISCOVER_FIXTURES='"$(abs_top_srcdir)/test/discover"'
test_discover_test_discover_LDADD = librankmap.la $(GTEST_LIBS) $(HWLOC_LIBS)

EXTRA_DIST += test/discover

# The MPI test program (an unmodified Cartesian program) against the staged
# patched MPICH (compiled after the stage exists, linked like maint/mpich.mk's
# MPI tests; libmpi finds librankmap through LD_LIBRARY_PATH in the test).
if BUILD_MPICH
noinst_PROGRAMS += test/discover/cart_nodes
test_discover_cart_nodes_SOURCES = test/discover/cart_nodes.c
test_discover_cart_nodes_CPPFLAGS = -I'$(abs_top_builddir)/mpich-stage$(prefix)/include'
test_discover_cart_nodes_LDFLAGS = -L'$(abs_top_builddir)/mpich-stage$(prefix)/lib' \
	-Wl,-rpath,'$(abs_top_builddir)/mpich-stage$(prefix)/lib' \
	-Wl,-rpath-link,'$(abs_top_builddir)/.libs'
test_discover_cart_nodes_LDADD = -lmpi -lm
test/discover/cart_nodes-cart_nodes.$(OBJEXT): mpich-stage/.stamp
EXTRA_test_discover_cart_nodes_DEPENDENCIES = mpich-stage/.stamp
endif

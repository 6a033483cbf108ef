# src/coll/coll.mk -- torus broadcast schedule (pure code) and its tests;
# included from the top Makefile.am.
librankmap_la_SOURCES += src/coll/torus_bcast.h src/coll/bcast_schedule.hpp \
	src/coll/bcast_schedule.cpp src/coll/bcast_exec.c

noinst_PROGRAMS += test/unit/test_bcast_schedule
test_unit_test_bcast_schedule_SOURCES = test/unit/test_bcast_schedule.cpp
test_unit_test_bcast_schedule_LDADD = librankmap.la $(GTEST_LIBS)

# The executor (bcast_exec.c) is plain C in librankmap; its MPI adapter
# (bcast_torus_mpi.c) needs an mpi.h, so the SimGrid benchmark
# (bench/bcast/run.py, smpicc) and the test below compile it themselves.
EXTRA_DIST += src/coll/bcast_torus_mpi.c src/coll/bcast_torus_mpi.h test/coll

# MPI test of the executor against MPI_Bcast, built by `make` with Debian's
# MPICH (libmpich-dev: mpicc.mpich's flags, found by m4/rankmap_pmpi.m4; not
# the patched one) and run by CTest with mpiexec.mpich as
# coll_bcast_torus_executor.  Without that MPICH (an engine-only machine,
# or --without-pmpi) the program is not built.
if HAVE_PMPI_MPICH
noinst_PROGRAMS += test/coll/bcast_torus
test_coll_bcast_torus_SOURCES = test/coll/bcast_torus.c src/coll/bcast_torus_mpi.c \
	src/coll/bcast_torus_mpi.h
test_coll_bcast_torus_CPPFLAGS = $(AM_CPPFLAGS) $(PMPI_MPICH_CFLAGS)
test_coll_bcast_torus_CFLAGS = $(AM_CFLAGS) -std=gnu99
test_coll_bcast_torus_LDADD = librankmap.la $(PMPI_MPICH_LIBS)
endif

if BUILD_MPICH
# MPI test of MPIR_CVAR_BCAST_INTRA_ALGORITHM=torus, against the staged
# patched MPICH (maint/mpich.mk); run by CTest (test/coll/CTestTestfile.cmake).
COLL_MPI_TESTS = test/coll/mpich_bcast_torus
noinst_SCRIPTS = $(COLL_MPI_TESTS)
test/coll/mpich_bcast_torus: $(top_srcdir)/test/coll/mpich_bcast_torus.c mpich-stage/.stamp
	@$(MKDIR_P) test/coll
	$(AM_V_CC)$(CC) -std=gnu99 -O2 $(WARN_FLAGS) -I'$(MPICH_ROOT)/include' -o $@ $< \
	  -L'$(MPICH_ROOT)/lib' -Wl,-rpath,'$(MPICH_ROOT)/lib' -lmpi \
	  -Wl,-rpath-link,'$(abs_top_builddir)/.libs'
CLEANFILES += $(COLL_MPI_TESTS)
endif

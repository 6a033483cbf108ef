# src/coll/coll.mk -- torus broadcast schedule (pure code) and its tests;
# included from the top Makefile.am.
librankmap_la_SOURCES += src/coll/torus_bcast.h src/coll/bcast_schedule.hpp \
	src/coll/bcast_schedule.cpp

noinst_PROGRAMS += test/unit/test_bcast_schedule
test_unit_test_bcast_schedule_SOURCES = test/unit/test_bcast_schedule.cpp
test_unit_test_bcast_schedule_LDADD = librankmap.la $(GTEST_LIBS)

# The portable MPI executor is plain C + MPI and is not part of librankmap
# (which must not depend on MPI); the PMPI plugin and the SimGrid benchmark
# (bench/bcast/run.py, smpicc) compile src/coll/bcast_torus_mpi.c themselves.
EXTRA_DIST += src/coll/bcast_torus_mpi.c src/coll/bcast_torus_mpi.h test/coll

# MPI test of the executor against MPI_Bcast, with Debian's MPICH (not the
# patched one): `make test/coll/bcast_torus`, run by CTest as mpi_bcast_torus.
MPICC_DEBIAN = mpicc.mpich
test/coll/bcast_torus: $(top_srcdir)/test/coll/bcast_torus.c $(top_srcdir)/src/coll/bcast_torus_mpi.c \
		$(top_srcdir)/src/coll/bcast_torus_mpi.h $(top_srcdir)/src/coll/torus_bcast.h librankmap.la
	@mkdir -p test/coll
	$(MPICC_DEBIAN) -std=gnu99 -O2 -Wall -I$(top_srcdir)/include -I$(top_srcdir)/src \
	  $(top_srcdir)/test/coll/bcast_torus.c $(top_srcdir)/src/coll/bcast_torus_mpi.c -o $@ \
	  -L$(abs_top_builddir)/.libs -lrankmap -Wl,-rpath,$(abs_top_builddir)/.libs

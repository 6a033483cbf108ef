# src/pmpi/pmpi.mk -- included from the top Makefile.am.
# The PMPI reorder plugin and the traffic profiler, one shared
# library per MPI found by configure (m4/rankmap_pmpi.m4), installed into
# $(libdir) by `make install`:
#   librankmap-pmpi.so, librankmap-profile.so            Debian MPICH (libmpich.so.12)
#   librankmap-pmpi-ompi.so, librankmap-profile-ompi.so  Debian Open MPI (libmpi.so.40)
#   rankmap-pmpi-smpi.o      SimGrid SMPI: one object built with smpicc, linked into
#                            the program (smpicc builds programs as shared objects)
#   rankmap-profile-smpi.o   the profiler, the same way
# Tests: test/pmpi (CTest, compiles unmodified programs with each MPI's mpicc);
# test/compat (programs that assume ranks do not move, issue 26);
# overhead benchmark: bench/pmpi/run.sh.

# The plugin hooks the calls (wrappers.c) and gives rankmap's MPI layer
# (librankmap-mpi, src/mpilayer) its PMPI operations (ops.c); every decision
# is the layer's, the same code the patched MPICH runs.
PMPI_REORDER_SOURCES = src/pmpi/wrappers.c src/pmpi/ops.c src/pmpi/plugin.h src/pmpi/chain.h
PMPI_PROFILE_SOURCES = src/pmpi/profile.c src/pmpi/profile_write.c src/pmpi/profile.h src/pmpi/chain.h
EXTRA_DIST += src/pmpi/pmpi.mk test/pmpi test/compat bench/pmpi
# pmpi_flavour(SELF,MPI_LIB,OTHER_MPI_LIB,OTHER_PLUGIN): what a build tells
# about itself when preloaded into a program of another MPI (chain.h)
pmpi_flavour = -DRANKMAP_PMPI_SELF='"$(1)"' -DRANKMAP_PMPI_FLAVOUR_LIB='"$(2)"' \
	-DRANKMAP_PMPI_OTHER_LIB='"$(3)"' -DRANKMAP_PMPI_INSTEAD='"$(4)"'

if HAVE_PMPI_MPICH
lib_LTLIBRARIES += librankmap-pmpi.la librankmap-profile.la
librankmap_pmpi_la_SOURCES = $(PMPI_REORDER_SOURCES)
librankmap_pmpi_la_CPPFLAGS = $(AM_CPPFLAGS) $(PMPI_MPICH_CFLAGS) $(call pmpi_flavour,librankmap-pmpi.so,libmpich.so,libmpi.so.40,librankmap-pmpi-ompi.so)
librankmap_pmpi_la_LIBADD = librankmap-mpi.la librankmap.la $(PMPI_MPICH_LIBS) -lpthread -ldl
librankmap_pmpi_la_LDFLAGS = -avoid-version -R$(libdir)
librankmap_profile_la_SOURCES = $(PMPI_PROFILE_SOURCES)
librankmap_profile_la_CPPFLAGS = $(AM_CPPFLAGS) $(PMPI_MPICH_CFLAGS) $(call pmpi_flavour,librankmap-profile.so,libmpich.so,libmpi.so.40,librankmap-profile-ompi.so)
librankmap_profile_la_LIBADD = $(PMPI_MPICH_LIBS) -lpthread -ldl
librankmap_profile_la_LDFLAGS = -avoid-version
endif

if HAVE_PMPI_OPENMPI
lib_LTLIBRARIES += librankmap-pmpi-ompi.la librankmap-profile-ompi.la
librankmap_pmpi_ompi_la_SOURCES = $(PMPI_REORDER_SOURCES)
librankmap_pmpi_ompi_la_CPPFLAGS = $(AM_CPPFLAGS) $(PMPI_OPENMPI_CFLAGS) $(call pmpi_flavour,librankmap-pmpi-ompi.so,libmpi.so.40,libmpich.so,librankmap-pmpi.so)
librankmap_pmpi_ompi_la_LIBADD = librankmap-mpi.la librankmap.la $(PMPI_OPENMPI_LIBS) -lpthread -ldl
librankmap_pmpi_ompi_la_LDFLAGS = -avoid-version -R$(libdir)
librankmap_profile_ompi_la_SOURCES = $(PMPI_PROFILE_SOURCES)
librankmap_profile_ompi_la_CPPFLAGS = $(AM_CPPFLAGS) $(PMPI_OPENMPI_CFLAGS) $(call pmpi_flavour,librankmap-profile-ompi.so,libmpi.so.40,libmpich.so,librankmap-profile.so)
librankmap_profile_ompi_la_LIBADD = $(PMPI_OPENMPI_LIBS) -lpthread -ldl
librankmap_profile_ompi_la_LDFLAGS = -avoid-version
endif

if HAVE_PMPI_SMPI
# SMPI: the plugin as one relocatable object compiled by smpicc (its
# -include smpi_helpers.h and headers): `smpicc app.c rankmap-pmpi-smpi.o
# -lrankmap` puts the wrappers inside the program, where they take
# precedence over libsimgrid's MPI_ symbols (see test/pmpi/smpi.sh; an
# archive would not do: smpi.h declares the MPI_ functions weak, and weak
# references do not pull members out of an archive).  The layer's files are
# compiled into the object too, so SMPI privatises their state per simulated
# process with the program's.  The wrappers call PMPI_ directly (no
# RTLD_NEXT chaining under smpirun).
pmpismpidir = $(libdir)
pmpismpi_DATA = src/pmpi/rankmap-pmpi-smpi.o
PMPI_SMPI_OBJS = src/pmpi/smpi-wrappers.o src/pmpi/smpi-ops.o \
	$(patsubst src/mpilayer/%.c,src/pmpi/smpi-layer-%.o,$(filter %.c,$(MPILAYER_SOURCES)))
PMPI_SMPI_CC = $(SMPICC) -std=gnu99 -O2 $(WARN_FLAGS) -DRANKMAP_PMPI_NO_CHAIN -DRANKMAP_PMPI_SMPI \
	$(DEFS) -I$(top_builddir) -I$(top_builddir)/src -I$(top_srcdir)/include -I$(top_srcdir)/src
PMPI_SMPI_HDRS = $(top_srcdir)/src/pmpi/plugin.h $(top_srcdir)/src/pmpi/chain.h \
	$(top_srcdir)/include/rankmap.h $(top_srcdir)/include/rankmap_glue.h \
	$(top_srcdir)/include/rankmap_mpi.h $(top_srcdir)/src/mpilayer/layer.h \
	src/mpilayer/settings_table.h $(top_srcdir)/src/coll/torus_bcast.h config.h
src/pmpi/smpi-%.o: $(top_srcdir)/src/pmpi/%.c $(PMPI_SMPI_HDRS)
	@$(MKDIR_P) src/pmpi
	$(AM_V_CC)$(PMPI_SMPI_CC) -c -o $@ $<
src/pmpi/smpi-layer-%.o: $(top_srcdir)/src/mpilayer/%.c $(PMPI_SMPI_HDRS)
	@$(MKDIR_P) src/pmpi
	$(AM_V_CC)$(PMPI_SMPI_CC) -c -o $@ $<
src/pmpi/rankmap-pmpi-smpi.o: $(PMPI_SMPI_OBJS)
	$(AM_V_CCLD)$(LD) -r -o $@ $(PMPI_SMPI_OBJS)
# The profiler for SMPI, linked into the program the same way
# (`smpicxx app.o rankmap-profile-smpi.o`): bench/apps profiles real
# applications with it on the simulated machine.  It needs no librankmap.
pmpismpi_DATA += src/pmpi/rankmap-profile-smpi.o
PROFILE_SMPI_OBJS = $(patsubst src/pmpi/%.c,src/pmpi/profile-smpi-%.o,$(filter %.c,$(PMPI_PROFILE_SOURCES)))
src/pmpi/profile-smpi-%.o: $(top_srcdir)/src/pmpi/%.c $(top_srcdir)/src/pmpi/chain.h $(top_srcdir)/src/pmpi/profile.h config.h
	@$(MKDIR_P) src/pmpi
	$(AM_V_CC)$(PMPI_SMPI_CC) -fPIC -c -o $@ $<
src/pmpi/rankmap-profile-smpi.o: $(PROFILE_SMPI_OBJS)
	$(AM_V_CCLD)$(LD) -r -o $@ $(PROFILE_SMPI_OBJS)
endif

# src/mpilayer/mpilayer.mk -- rankmap's MPI layer (include/rankmap_mpi.h):
# librankmap-mpi.so, MPI-agnostic C that the PMPI plugin and the patched
# MPICH both call; included from the top Makefile.am.  The SimGrid plugin
# object compiles the same files with smpicc (src/pmpi/pmpi.mk).
include_HEADERS += include/rankmap_mpi.h
lib_LTLIBRARIES += librankmap-mpi.la
MPILAYER_SOURCES = src/mpilayer/layer.h src/mpilayer/settings.c src/mpilayer/table.c \
	src/mpilayer/machine.c src/mpilayer/program.c src/mpilayer/reorder.c \
	src/mpilayer/track.c src/mpilayer/watchdog.c src/mpilayer/check.c \
	src/mpilayer/bcast.c src/mpilayer/init.c
librankmap_mpi_la_SOURCES = $(MPILAYER_SOURCES)
nodist_librankmap_mpi_la_SOURCES = src/mpilayer/settings_table.h
librankmap_mpi_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_builddir)/src
librankmap_mpi_la_CFLAGS = $(AM_CFLAGS) -std=gnu99
librankmap_mpi_la_LIBADD = librankmap.la -lpthread
librankmap_mpi_la_LDFLAGS = -version-info 0:0:0 -export-symbols-regex '^rml_'
EXTRA_DIST += src/mpilayer/mpilayer.mk src/mpilayer/settings.cvars maint/gen-cvars.py

# the settings table, generated from the one settings source
BUILT_SOURCES += src/mpilayer/settings_table.h
CLEANFILES += src/mpilayer/settings_table.h
src/mpilayer/settings_table.h: $(top_srcdir)/src/mpilayer/settings.cvars $(top_srcdir)/maint/gen-cvars.py
	@$(MKDIR_P) src/mpilayer
	$(AM_V_GEN)$(PYTHON3) $(top_srcdir)/maint/gen-cvars.py --c-table $@

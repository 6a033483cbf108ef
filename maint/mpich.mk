# maint/mpich.mk -- the patched MPICH as part of `make` / `make install`
# (included at the end of Makefile.am).
#
# `make` runs maint/mpich/build-mpich.sh, which builds MPICH once per patch set
# and configuration in $(RANKMAP_CACHE_DIR) and installs it into the stage
# mpich-stage/$(prefix); the MPI tests (test/mpi, driven by CTest) and the
# benchmark bench/mpi_reorder run from the stage.  `make install` copies the
# stage under $(prefix): bin/mpicc, bin/mpiexec, lib/libmpi.so.12,
# include/mpix_rankmap.h next to rankmap's own files.  If MPICH cannot be
# built, `make` fails with the reason; configure --without-mpich skips it.

EXTRA_DIST += test/mpi bench/mpi_reorder.c bench/mpi_reorder.sh

if BUILD_MPICH
MPICH_STAGE = $(abs_top_builddir)/mpich-stage
MPICH_ROOT = $(MPICH_STAGE)$(prefix)
# what MPICH is built from (the same files build-mpich.sh hashes into its
# cache key); the MPI layer itself is not among them: libmpich links it
MPICH_DEPS = $(top_srcdir)/maint/mpich/build-mpich.sh $(top_srcdir)/include/rankmap_mpi.h \
	$(top_srcdir)/include/mpix_rankmap.h $(top_srcdir)/src/mpich/mpir_rankmap.h \
	$(top_srcdir)/src/mpich/rankmap_mpich.c $(top_srcdir)/src/mpilayer/settings.cvars \
	$(top_srcdir)/maint/gen-cvars.py $(top_srcdir)/maint/mpich/patches/series \
	$(wildcard $(top_srcdir)/maint/mpich/patches/*.patch) $(top_builddir)/config.status
EXTRA_DIST += src/mpich

mpich-stage/.stamp: $(MPICH_DEPS) | librankmap.la librankmap-mpi.la
	@rm -f $@
	@$(SHELL) $(top_srcdir)/maint/mpich/build-mpich.sh --prefix '$(prefix)' \
	  --rankmap-build '$(abs_top_builddir)' --rankmap-src '$(abs_top_srcdir)' \
	  --config '$(MPICH_CONFIG)' --cache-dir '$(RANKMAP_CACHE_DIR)' \
	  $(if $(MPICH_SRC),--with-mpich-src '$(MPICH_SRC)') --destdir '$(MPICH_STAGE)' || { \
	  echo "*** make: building the patched MPICH failed (see the messages above)." >&2; \
	  echo "*** Fix the cause, or configure --without-mpich to build rankmap without it." >&2; \
	  exit 1; }
	@touch $@

# MPI test programs and the benchmark: plain C against the staged MPICH.
# libmpi finds librankmap through LD_LIBRARY_PATH until `make install`.
MPI_TESTS = test/mpi/cart_reorder test/mpi/graph_reorder test/mpi/dist_graph_reorder \
	test/mpi/init_settings
MPI_CC = $(CC) -std=gnu99 -O2 -Wall -I'$(MPICH_ROOT)/include'
MPI_LINK = -L'$(MPICH_ROOT)/lib' -Wl,-rpath,'$(MPICH_ROOT)/lib' -lmpi \
	-Wl,-rpath-link,'$(abs_top_builddir)/.libs' -lm

$(MPI_TESTS): test/mpi/%: $(top_srcdir)/test/mpi/%.c $(top_srcdir)/test/mpi/mpi_check.h \
	mpich-stage/.stamp
	@$(MKDIR_P) test/mpi
	$(AM_V_CC)$(MPI_CC) -I'$(top_srcdir)/test/mpi' -o $@ $< $(MPI_LINK)
bench/mpi_reorder: $(top_srcdir)/bench/mpi_reorder.c mpich-stage/.stamp
	@$(MKDIR_P) bench
	$(AM_V_CC)$(MPI_CC) -o $@ $< $(MPI_LINK)

# the suites too long for every CI run (CTest label "long"), recorded in
# bench/results/long-suites.md; the default CTest run checks the record
check-long: all
	$(top_srcdir)/maint/long-suites.sh run '$(abs_top_builddir)'

all-local-mpich: mpich-stage/.stamp $(MPI_TESTS) bench/mpi_reorder
DEMO_TARGETS += mpich-stage/.stamp

install-exec-local: mpich-stage/.stamp
	$(MKDIR_P) '$(DESTDIR)$(prefix)'
	cd '$(MPICH_ROOT)' && cp -pPR . '$(DESTDIR)$(prefix)/'

uninstall-local-mpich:
	-cd '$(MPICH_ROOT)' && find . ! -type d | while read f; do rm -f "$(DESTDIR)$(prefix)/$$f"; done

clean-local-mpich:
	rm -rf mpich-stage $(MPI_TESTS) bench/mpi_reorder test/mpi/abi_hello
else
all-local-mpich:
uninstall-local-mpich:
clean-local-mpich:
endif
# the Debian packages of the vendor MPI (maint/debian/build-debs.sh, about an
# hour) and their check on a fresh bookworm root, recorded in
# bench/results/packages.md: run when the patch series or the packaging changes
debs:
	$(top_srcdir)/maint/debian/build-debs.sh '$(abs_top_builddir)/debs'
check-debs: debs
	$(top_srcdir)/maint/debian/check-debs.sh '$(abs_top_builddir)/fresh-debs-root' '$(abs_top_builddir)/debs'
.PHONY: debs check-debs check-long

all-local: all-local-mpich
uninstall-local: uninstall-local-mpich
clean-local: clean-local-mpich

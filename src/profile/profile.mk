# src/profile/profile.mk -- included from the top Makefile.am.
# Communication profiles and the weight choice of Chen et al. (MPIPP), the
# mapping cache ("wisdom"), `rankmap plot` (python3 + matplotlib), the
# libFuzzer targets of the parsers (`make fuzz`, opt-in), bench/cache, and the
# tests of test/profile (driven by CTest via test/profile/CTestTestfile.cmake).
librankmap_la_SOURCES += src/profile/profile.hpp src/profile/profile.cpp \
	src/profile/cache.hpp src/profile/cache.cpp src/profile/cached_map.cpp

# `rankmap plot` runs this script: installed in $(pkglibexecdir); a build
# tree falls back on the source tree's copy.
pkglibexec_SCRIPTS = src/profile/rankmap-plot.py
EXTRA_DIST += src/profile/rankmap-plot.py test/profile doc/img
rankmap_CPPFLAGS = $(AM_CPPFLAGS) -DRANKMAP_PLOT_SCRIPT='"$(pkglibexecdir)/rankmap-plot.py"' \
	-DRANKMAP_PLOT_SRC='"$(abs_top_srcdir)/src/profile/rankmap-plot.py"'

# ---- bench/cache: wisdom hit vs miss at 4096 tasks (run on demand) ----------
noinst_PROGRAMS += bench/cache
bench_cache_SOURCES = bench/cache.cpp
bench_cache_LDADD = librankmap.la $(SCOTCH_LIBS)

# ---- unit tests ---------------------------------------------------------------
PROFILE_TESTS = test/profile/test_profile test/profile/test_cache
noinst_PROGRAMS += $(PROFILE_TESTS)
test_profile_test_profile_SOURCES = test/profile/test_profile.cpp
test_profile_test_profile_LDADD = librankmap.la $(GTEST_LIBS)
test_profile_test_cache_SOURCES = test/profile/test_cache.cpp
test_profile_test_cache_LDADD = librankmap.la $(GTEST_LIBS)
# (test/profile/halo_app.c, the MPI program of the loop test, is compiled by
# test/profile/loop.sh with mpicc.mpich.)

# ---- fuzz targets (opt-in: make fuzz; make fuzz-run = 10 CPU-minutes each) -----
FUZZ_NAMES = topology mapfile graph profile cache
FUZZ_BINS = $(FUZZ_NAMES:%=fuzz/fuzz_%)
FUZZ_ENGINE = src/common/text.cpp src/topology/topology.cpp src/topology/torus.cpp src/topology/dragonfly.cpp src/topology/coordfile.cpp \
	src/topology/tree.cpp src/topology/matrix.cpp src/topology/parse.cpp src/topology/order.cpp \
	src/topology/mapfile.cpp src/topology/placement.cpp src/topology/symmetry.cpp src/graph/graph.cpp src/graph/readers.cpp src/cost/cost.cpp \
	src/cost/bound.cpp src/profile/profile.cpp src/profile/cache.cpp
FUZZ_OBJS = $(FUZZ_ENGINE:src/%.cpp=fuzz/obj/%.o)
FUZZ_FLAGS = -g -O1 -std=c++17 -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-DHAVE_CONFIG_H -I$(top_builddir) -I$(top_srcdir)/src -I$(top_srcdir)/include
.PHONY: fuzz fuzz-run
.SECONDARY: $(FUZZ_OBJS)
if HAVE_FUZZ
fuzz: $(FUZZ_BINS)
fuzz/obj/%.o: $(top_srcdir)/src/%.cpp
	@mkdir -p $(@D)
	$(AM_V_CXX)$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
fuzz/fuzz_%: $(top_srcdir)/test/profile/fuzz/fuzz_%.cpp $(top_srcdir)/test/profile/fuzz/fuzz_common.hpp $(FUZZ_OBJS)
	$(AM_V_CXXLD)$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer $< $(FUZZ_OBJS) -o $@
fuzz-run: fuzz
	for t in $(FUZZ_NAMES); do $(top_srcdir)/test/profile/fuzz/run-fuzz.sh fuzz $$t || exit 1; done
else
fuzz fuzz-run:
	@echo "make fuzz: no clang++ with -fsanitize=fuzzer (apt-get install clang libclang-rt-14-dev, reconfigure)"; exit 1
endif

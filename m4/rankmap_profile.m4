# m4/rankmap_profile.m4 -- configure checks of the profile/cache/plot/fuzz
# area (issue 5), called from configure.ac.
#   FUZZ_CXX       a clang++ that links -fsanitize=fuzzer,address,undefined
#                  (Debian: clang + libclang-rt-14-dev); `make fuzz` builds
#                  the libFuzzer targets of test/profile/fuzz with it.
#   PLOT_PYTHON    a python3 that imports matplotlib (python3-matplotlib),
#                  for `rankmap plot` and its tests.
#   MPICC_MPICH / MPIEXEC_MPICH  Debian MPICH, for the profile -> map ->
#                  rerun loop test (test/profile/loop.sh).
AC_DEFUN([RANKMAP_CHECK_PROFILE], [
  AC_ARG_VAR([FUZZ_CXX], [clang++ with libFuzzer for `make fuzz` (default: clang++-14 or clang++ in PATH)])
  AS_IF([test "x$FUZZ_CXX" = x], [AC_PATH_PROGS([FUZZ_CXX], [clang++-14 clang++])])
  have_fuzz=no
  AS_IF([test -n "$FUZZ_CXX"], [
    AC_MSG_CHECKING([whether $FUZZ_CXX links -fsanitize=fuzzer,address,undefined])
    cat >conftest-fuzz.cpp <<'_RMEOF'
#include <cstddef>
#include <cstdint>
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return n && *d == 1; }
_RMEOF
    AS_IF([$FUZZ_CXX -std=c++17 -fsanitize=fuzzer,address,undefined conftest-fuzz.cpp -o conftest-fuzz >&AS_MESSAGE_LOG_FD 2>&1],
      [have_fuzz=yes])
    rm -f conftest-fuzz.cpp conftest-fuzz
    AC_MSG_RESULT([$have_fuzz])
  ])
  AC_SUBST([have_fuzz])
  AM_CONDITIONAL([HAVE_FUZZ], [test "x$have_fuzz" = xyes])

  AC_ARG_VAR([PLOT_PYTHON], [python3 with matplotlib for rankmap plot (default: /usr/bin/python3)])
  AS_IF([test "x$PLOT_PYTHON" = x], [
    AS_IF([test -x /usr/bin/python3], [PLOT_PYTHON=/usr/bin/python3], [AC_PATH_PROG([PLOT_PYTHON], [python3])])])
  have_matplotlib=no
  AS_IF([test -n "$PLOT_PYTHON"], [
    AC_MSG_CHECKING([whether $PLOT_PYTHON has matplotlib])
    AS_IF([$PLOT_PYTHON -c 'import matplotlib' >/dev/null 2>&1], [have_matplotlib=yes])
    AC_MSG_RESULT([$have_matplotlib])
  ])
  AC_SUBST([have_matplotlib])

  AC_PATH_PROG([MPICC_MPICH], [mpicc.mpich])
  AC_PATH_PROG([MPIEXEC_MPICH], [mpiexec.mpich])
  AC_SUBST([MPICC_MPICH])
  AC_SUBST([MPIEXEC_MPICH])
  AC_MSG_NOTICE([profiles: fuzz targets (make fuzz) $have_fuzz, rankmap plot (matplotlib) $have_matplotlib])
])

# m4/rankmap_simgrid.m4 -- configure checks of this area, called from configure.ac.
# Finds SimGrid's SMPI compiler driver and launcher (Debian libsimgrid-dev)
# and a python3 that sees matplotlib, for bench/simgrid/run.py and the
# test/simgrid smoke test.  Nothing is required: without smpicc the smoke
# test reports "skipped" (exit 77).
AC_DEFUN([RANKMAP_CHECK_SIMGRID], [
  AC_ARG_VAR([SMPICC], [SimGrid SMPI C compiler driver (bench/simgrid)])
  AC_ARG_VAR([SMPIRUN], [SimGrid SMPI launcher (bench/simgrid)])
  AC_PATH_PROG([SMPICC], [smpicc], [])
  AC_PATH_PROG([SMPIRUN], [smpirun], [])
  dnl /usr/bin/python3 first: a pyenv python3 earlier in PATH lacks Debian's matplotlib.
  AC_PATH_PROG([SIMGRID_PYTHON], [python3], [], [/usr/bin$PATH_SEPARATOR$PATH])
  AS_IF([test -n "$SMPICC" && test -n "$SMPIRUN"],
        [rankmap_have_simgrid=yes], [rankmap_have_simgrid=no])
  AC_MSG_CHECKING([for SimGrid SMPI (bench/simgrid)])
  AC_MSG_RESULT([$rankmap_have_simgrid])
  AM_CONDITIONAL([HAVE_SIMGRID], [test "$rankmap_have_simgrid" = yes])
])

# m4/rankmap_pmpi.m4 -- configure checks of the PMPI reorder plugin and the
# traffic profiler (src/pmpi, issue 5), called from configure.ac.
#
# Finds the MPI installations the libraries are built for (each is optional;
# --without-pmpi skips all of them):
#   Debian MPICH   (mpicc.mpich, mpiexec.mpich)     -> librankmap-pmpi.so, librankmap-profile.so
#   Debian Open MPI (mpicc.openmpi, mpiexec.openmpi) -> librankmap-pmpi-ompi.so, librankmap-profile-ompi.so
#   SimGrid SMPI   (smpicc, smpirun)                 -> rankmap-pmpi-smpi.o (linked into programs)
# The shared libraries are built with libtool and the C compiler, with the
# include and link flags the wrapper reports (mpicc.mpich -compile_info /
# -link_info, mpicc.openmpi --showme:compile / --showme:link), verified by
# linking a PMPI call.  Also defines RANKMAP_HAVE_DISCOVER when rankmap.h
# declares rankmap_discover().
AC_DEFUN([RANKMAP_CHECK_PMPI], [
  AC_ARG_WITH([pmpi],
    [AS_HELP_STRING([--without-pmpi], [do not build the PMPI reorder plugin and profiler])],
    [], [with_pmpi=yes])
  AC_ARG_VAR([MPICC_MPICH], [Debian MPICH compiler wrapper for the PMPI plugin (default: mpicc.mpich in PATH)])
  AC_ARG_VAR([MPICC_OPENMPI], [Open MPI compiler wrapper for the PMPI plugin (default: mpicc.openmpi in PATH)])
  AC_ARG_VAR([SMPICC], [SimGrid SMPI compiler wrapper (default: smpicc in PATH)])
  have_pmpi_mpich=no
  have_pmpi_openmpi=no
  have_pmpi_smpi=no
  AS_IF([test "x$with_pmpi" != xno], [
    AC_LANG_PUSH([C])
    AC_PATH_PROG([MPICC_MPICH], [mpicc.mpich])
    AC_PATH_PROG([MPIEXEC_MPICH], [mpiexec.mpich])
    AS_IF([test -n "$MPICC_MPICH" && test -n "$MPIEXEC_MPICH"], [
      PMPI_MPICH_CFLAGS=
      for w in `$MPICC_MPICH -compile_info 2>/dev/null`; do
        case $w in -I*|-D*) PMPI_MPICH_CFLAGS="$PMPI_MPICH_CFLAGS $w" ;; esac
      done
      PMPI_MPICH_LIBS=
      for w in `$MPICC_MPICH -link_info 2>/dev/null`; do
        case $w in -L*|-l*) PMPI_MPICH_LIBS="$PMPI_MPICH_LIBS $w" ;; esac
      done
      RANKMAP_PMPI_TRY_LINK([MPICH], [$PMPI_MPICH_CFLAGS], [$PMPI_MPICH_LIBS], [have_pmpi_mpich=yes])
    ])
    AC_PATH_PROG([MPICC_OPENMPI], [mpicc.openmpi])
    AC_PATH_PROG([MPIEXEC_OPENMPI], [mpiexec.openmpi])
    AS_IF([test -n "$MPICC_OPENMPI" && test -n "$MPIEXEC_OPENMPI"], [
      PMPI_OPENMPI_CFLAGS=`$MPICC_OPENMPI --showme:compile 2>/dev/null`
      PMPI_OPENMPI_LIBS=`$MPICC_OPENMPI --showme:link 2>/dev/null`
      RANKMAP_PMPI_TRY_LINK([Open MPI], [$PMPI_OPENMPI_CFLAGS], [$PMPI_OPENMPI_LIBS], [have_pmpi_openmpi=yes])
    ])
    AC_PATH_PROG([SMPICC], [smpicc])
    AC_PATH_PROG([SMPIRUN], [smpirun])
    AS_IF([test -n "$SMPICC" && test -n "$SMPIRUN"], [have_pmpi_smpi=yes])

    save_CPPFLAGS=$CPPFLAGS
    CPPFLAGS="$CPPFLAGS -I$srcdir/include"
    AC_CHECK_DECL([rankmap_discover],
      [AC_DEFINE([RANKMAP_HAVE_DISCOVER], [1], [rankmap.h declares rankmap_discover()])],
      [], [[#include <rankmap.h>]])
    CPPFLAGS=$save_CPPFLAGS
    AC_LANG_POP([C])
  ])
  AC_SUBST([PMPI_MPICH_CFLAGS])
  AC_SUBST([PMPI_MPICH_LIBS])
  AC_SUBST([PMPI_OPENMPI_CFLAGS])
  AC_SUBST([PMPI_OPENMPI_LIBS])
  AC_SUBST([MPIEXEC_MPICH])
  AC_SUBST([MPIEXEC_OPENMPI])
  AC_SUBST([SMPIRUN])
  AC_SUBST([have_pmpi_mpich])
  AC_SUBST([have_pmpi_openmpi])
  AC_SUBST([have_pmpi_smpi])
  AM_CONDITIONAL([HAVE_PMPI_MPICH], [test "x$have_pmpi_mpich" = xyes])
  AM_CONDITIONAL([HAVE_PMPI_OPENMPI], [test "x$have_pmpi_openmpi" = xyes])
  AM_CONDITIONAL([HAVE_PMPI_SMPI], [test "x$have_pmpi_smpi" = xyes])
  AC_MSG_NOTICE([PMPI plugin and profiler: Debian MPICH $have_pmpi_mpich, Open MPI $have_pmpi_openmpi, SimGrid SMPI $have_pmpi_smpi])
])

# RANKMAP_PMPI_TRY_LINK(NAME, CFLAGS, LIBS, ACTION-IF-OK): links a program
# calling PMPI_Comm_split with these flags.
AC_DEFUN([RANKMAP_PMPI_TRY_LINK], [
  AC_MSG_CHECKING([whether $1 links with the C compiler ($2 $3)])
  save_CPPFLAGS=$CPPFLAGS
  save_LIBS=$LIBS
  CPPFLAGS="$CPPFLAGS $2"
  LIBS="$3 $LIBS"
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]],
      [[MPI_Comm c; return PMPI_Comm_split(MPI_COMM_WORLD, 0, 0, &c);]])],
    [AC_MSG_RESULT([yes]); $4], [AC_MSG_RESULT([no])])
  CPPFLAGS=$save_CPPFLAGS
  LIBS=$save_LIBS
])

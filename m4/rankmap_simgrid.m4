# m4/rankmap_simgrid.m4 -- configure checks of this area, called from configure.ac.
AC_DEFUN([RANKMAP_CHECK_SIMGRID], [
])

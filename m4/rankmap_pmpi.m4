# m4/rankmap_pmpi.m4 -- configure checks of this area, called from configure.ac.
AC_DEFUN([RANKMAP_CHECK_PMPI], [
])

# m4/rankmap_hier.m4 -- configure checks of this area, called from configure.ac.
AC_DEFUN([RANKMAP_CHECK_HIER], [
])

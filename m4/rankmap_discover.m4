# m4/rankmap_discover.m4 -- configure checks of this area, called from configure.ac.
AC_DEFUN([RANKMAP_CHECK_DISCOVER], [
])

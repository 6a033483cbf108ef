# m4/rankmap_profile.m4 -- configure checks of this area, called from configure.ac.
AC_DEFUN([RANKMAP_CHECK_PROFILE], [
])

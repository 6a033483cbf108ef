# m4/rankmap_discover.m4 -- configure checks of this area, called from configure.ac.
# Machine discovery (src/discover): hwloc (Debian libhwloc-dev, found with
# pkg-config hwloc) for the tiers inside a node, libnuma (libnuma-dev) for
# NUMA distances.  Both are on by default and required unless disabled:
# --without-hwloc builds discovery with the node tier only, --without-numa
# takes NUMA distances from hwloc alone.
AC_DEFUN([RANKMAP_CHECK_DISCOVER], [
  AC_ARG_WITH([hwloc],
    [AS_HELP_STRING([--without-hwloc], [discovery without hwloc: node tier only])],
    [], [with_hwloc=yes])
  have_hwloc=no
  AS_IF([test "x$with_hwloc" != xno], [
    PKG_CHECK_MODULES([HWLOC], [hwloc >= 2.0], [have_hwloc=yes], [
      save_LIBS=$LIBS
      AC_CHECK_HEADER([hwloc.h], [AC_CHECK_LIB([hwloc], [hwloc_topology_init],
        [have_hwloc=yes; HWLOC_CFLAGS=; HWLOC_LIBS=-lhwloc])])
      LIBS=$save_LIBS])
    AS_IF([test "x$have_hwloc" = xno],
      [AC_MSG_ERROR([hwloc >= 2 not found: apt-get install libhwloc-dev, or configure --without-hwloc])])
  ])
  AS_IF([test "x$have_hwloc" = xyes], [AC_DEFINE([RANKMAP_HAVE_HWLOC], [1], [hwloc available for discovery])])
  AC_SUBST([HWLOC_CFLAGS])
  AC_SUBST([HWLOC_LIBS])

  AC_ARG_WITH([numa],
    [AS_HELP_STRING([--without-numa], [NUMA distances from hwloc only, not libnuma])],
    [], [with_numa=yes])
  have_numa=no
  NUMA_LIBS=
  AS_IF([test "x$with_numa" != xno], [
    save_LIBS=$LIBS
    AC_CHECK_HEADER([numa.h], [AC_CHECK_LIB([numa], [numa_distance], [have_numa=yes; NUMA_LIBS=-lnuma])])
    LIBS=$save_LIBS
    AS_IF([test "x$have_numa" = xno],
      [AC_MSG_ERROR([libnuma not found: apt-get install libnuma-dev, or configure --without-numa])])
  ])
  AS_IF([test "x$have_numa" = xyes], [AC_DEFINE([RANKMAP_HAVE_NUMA], [1], [libnuma available for NUMA distances])])
  AC_SUBST([NUMA_LIBS])
  AC_MSG_NOTICE([discovery: hwloc $have_hwloc, libnuma $have_numa])
])

# AX_CXX_COMPILE_STDCXX_17_LOCAL: require a C++17 compiler (small local
# check; the autoconf-archive macro is not a Debian build dependency here).
AC_DEFUN([AX_CXX_COMPILE_STDCXX_17_LOCAL], [
  AC_LANG_PUSH([C++])
  save_CXXFLAGS=$CXXFLAGS
  CXXFLAGS="$CXXFLAGS -std=c++17"
  AC_MSG_CHECKING([whether $CXX supports C++17])
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <optional>
#include <string_view>]], [[std::optional<int> o = 1; std::string_view s = "x"; if constexpr (true) { return *o + (int)s.size() - 2; }]])],
    [AC_MSG_RESULT([yes])], [AC_MSG_RESULT([no]); AC_MSG_ERROR([a C++17 compiler is required])])
  CXXFLAGS=$save_CXXFLAGS
  AM_CXXFLAGS="-std=c++17"
  AC_SUBST([AM_CXXFLAGS])
  AC_LANG_POP([C++])
])

# test/compat/tests.cmake -- included by test/pmpi/CTestTestfile.cmake (which
# sets B, S, COMPAT_MPICH and COMPAT_OPENMPI from configure): programs that
# assume ranks do not move under the PMPI plugin, with Debian's MPICH (every
# mode) and Debian's Open MPI (incall, skip) (issue 26, doc/compatibility.md).
# Default label, each case seconds; the timeout is a safety net only
# (compat.sh also bounds every mpiexec).  Named mpi_* like every MPI test, so
# the sanitizer pass of maint/test.sh leaves them out.
macro(compat_test name mpi_found what)
  if("${mpi_found}" STREQUAL "yes")
    add_test(mpi_compat_${name} "${S}/test/compat/compat.sh" ${name} "${B}" "${S}"
             "${B}/test/compat/work/${name}")
    set_tests_properties(mpi_compat_${name} PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77)
  else()
    add_test(mpi_compat_${name} "/bin/sh" "-c" "echo '${what} not found by configure: test skipped'; exit 77")
    set_tests_properties(mpi_compat_${name} PROPERTIES SKIP_RETURN_CODE 77)
  endif()
endmacro()
foreach(mode incall skip launch wisdom fortran)
  compat_test(${mode} "${COMPAT_MPICH}" "Debian MPICH (mpicc.mpich, mpiexec.mpich)")
endforeach()
foreach(mode incall skip)
  compat_test(${mode}_openmpi "${COMPAT_OPENMPI}" "Open MPI (mpicc.openmpi, mpiexec.openmpi)")
endforeach()

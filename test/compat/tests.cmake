# test/compat/tests.cmake -- included by test/pmpi/CTestTestfile.cmake (which
# sets B, S and COMPAT_MPICH from configure): programs that assume ranks do
# not move under the PMPI plugin and Debian's MPICH (issue 26,
# doc/compatibility.md).  Default label, each case seconds; the timeout is a
# safety net only (compat.sh also bounds every mpiexec).  Named mpi_* like
# every MPI test, so the sanitizer pass of maint/test.sh leaves them out.
foreach(mode incall skip launch wisdom fortran)
  if(COMPAT_MPICH STREQUAL "yes")
    add_test(mpi_compat_${mode} "${S}/test/compat/compat.sh" ${mode} "${B}" "${S}"
             "${B}/test/compat/work/${mode}")
    set_tests_properties(mpi_compat_${mode} PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77)
  else()
    add_test(mpi_compat_${mode} "/bin/sh" "-c"
             "echo 'Debian MPICH (mpicc.mpich, mpiexec.mpich) not found by configure: test skipped'; exit 77")
    set_tests_properties(mpi_compat_${mode} PROPERTIES SKIP_RETURN_CODE 77)
  endif()
endforeach()

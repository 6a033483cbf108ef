# test/compat/tests.cmake -- included by test/pmpi/CTestTestfile.cmake (which
# sets B, S, STAGE, COMPAT_MPICH and COMPAT_OPENMPI from configure): programs
# that assume ranks do not move, under the PMPI plugin with Debian's MPICH
# (every mode) and Debian's Open MPI (incall, skip), and under the patched
# MPICH (every mode) (doc/compatibility.md).
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
# the same cases against the patched MPICH (its staged install): one list,
# two layers, the same expected outcome
foreach(mode incall skip launch wisdom fortran)
  add_test(mpi_compat_${mode}_patched "${S}/test/compat/compat.sh" ${mode}_patched "${B}" "${S}"
           "${B}/test/compat/work/${mode}_patched" "${STAGE}")
  set_tests_properties(mpi_compat_${mode}_patched PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77)
endforeach()

# distributed graphs: a correct program (it keeps its own data and exchanges
# it with the neighbourhood collectives) cannot tell rankmap is there, in
# the default reading (each process keeps its own edges) and with the info
# key rankmap_vertices=follow_rank; reordering forced, ranks scattered at
# random over the machine.  8 and 16 ranks by default, 64 in the long label.
macro(dist_keep_test name np label cc fc mpiexec)
  add_test(mpi_compat_dist_keep_${name}_${np} "${S}/test/compat/dist_keep.sh" ${cc} ${fc} ${mpiexec}
           "${B}/test/compat/work/dist_keep_${name}_${np}" ${np} -- ${ARGN})
  set_tests_properties(mpi_compat_dist_keep_${name}_${np} PROPERTIES TIMEOUT 1800
    ENVIRONMENT "LD_LIBRARY_PATH=${B}/.libs" SKIP_RETURN_CODE 77)
  if(NOT "${label}" STREQUAL "")
    set_tests_properties(mpi_compat_dist_keep_${name}_${np} PROPERTIES LABELS ${label})
  endif()
endmacro()
set(DK_MPICH -genv MPIR_CVAR_RANKMAP_TOPOLOGY torus:auto -genv MPIR_CVAR_RANKMAP_MAPPING random:7
    -genv MPIR_CVAR_RANKMAP_FORCE 1)
foreach(np 8 16 64)
  set(label "")
  if(np EQUAL 64)
    set(label long)
  endif()
  if("${COMPAT_MPICH}" STREQUAL "yes")
    dist_keep_test(mpich ${np} "${label}" mpicc.mpich mpif90.mpich mpiexec.mpich
                   -genv LD_PRELOAD "${B}/.libs/librankmap-pmpi.so" ${DK_MPICH})
  endif()
  if("${COMPAT_OPENMPI}" STREQUAL "yes")
    dist_keep_test(openmpi ${np} "${label}" mpicc.openmpi mpif90.openmpi mpiexec.openmpi
                   -x LD_PRELOAD=${B}/.libs/librankmap-pmpi-ompi.so -x LD_LIBRARY_PATH
                   -x MPIR_CVAR_RANKMAP_TOPOLOGY=torus:auto -x MPIR_CVAR_RANKMAP_MAPPING=random:7
                   -x MPIR_CVAR_RANKMAP_FORCE=1)
  endif()
  if(EXISTS "${STAGE}/bin/mpiexec")
    set(fc "${STAGE}/bin/mpif90")
    if(NOT EXISTS "${fc}")
      set(fc "-")
    endif()
    dist_keep_test(patched ${np} "${label}" "${STAGE}/bin/mpicc" "${fc}" "${STAGE}/bin/mpiexec" ${DK_MPICH})
  endif()
endforeach()

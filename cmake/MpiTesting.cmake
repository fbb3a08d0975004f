# mcb_add_mpi_test(NAME name SOURCES a.cpp ... LIBRARIES lib ... RANKS 1 2 4)
# Builds one GoogleTest binary (with the shared MPI gtest main) and registers it once per rank
# count as <name>_np_<n>, in the manner of Cabana's test harness. Tests must pass at any size.
set(MCB_MPI_TEST_ENV
  OMPI_ALLOW_RUN_AS_ROOT=1
  OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  OMPI_MCA_rmaps_base_oversubscribe=1
  OMPI_MCA_btl_vader_single_copy_mechanism=none)

function(mcb_add_mpi_test)
  cmake_parse_arguments(T "" "NAME" "SOURCES;LIBRARIES;RANKS;LABELS" ${ARGN})
  if(NOT T_RANKS)
    set(T_RANKS 1 2 4)
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBRARIES} mcb_mpi_gtest_main GTest::gtest)
  foreach(np IN LISTS T_RANKS)
    add_test(NAME ${T_NAME}_np_${np}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${MPIEXEC_PREFLAGS}
                     $<TARGET_FILE:${T_NAME}> ${MPIEXEC_POSTFLAGS})
    set_tests_properties(${T_NAME}_np_${np} PROPERTIES
      ENVIRONMENT "${MCB_MPI_TEST_ENV}" PROCESSORS ${np} LABELS "mpi;${T_LABELS}" TIMEOUT 300)
  endforeach()
endfunction()

# MCB_SMPI: the MPI programs built against SimGrid's SMPI instead of Open MPI, so smpirun runs
# them on a simulated platform (docs/smpi.md). This does what SimGrid's smpicxx wrapper does, as
# a CMake target, so ccache and the suite's own flags apply unchanged:
#  - SMPI's mpi.h (include/smpi) and smpi_helpers.h force-included, which routes sleep(),
#    clock_gettime() and exit() of the program to the simulation;
#  - every object position-independent and every program linked as a shared object with
#    libsimgrid: smpirun loads each program once per simulated rank (dlopen), which gives every
#    rank its own copy of the globals.
# The target is named MPI::MPI_C, so every library that links MPI gets SMPI without a change.
find_path(MCB_SMPI_INCLUDE_DIR smpi/mpi.h PATHS /usr/include /usr/local/include
          DOC "folder holding SimGrid's smpi/mpi.h")
find_library(MCB_SIMGRID_LIBRARY simgrid DOC "SimGrid's library (libsimgrid)")
find_program(MCB_SMPIRUN smpirun DOC "SimGrid's smpirun")
if(NOT MCB_SMPI_INCLUDE_DIR OR NOT MCB_SIMGRID_LIBRARY OR NOT MCB_SMPIRUN)
  message(FATAL_ERROR "MCB_SMPI=ON needs SimGrid's SMPI (Debian: libsimgrid-dev): "
                      "smpi/mpi.h '${MCB_SMPI_INCLUDE_DIR}', libsimgrid '${MCB_SIMGRID_LIBRARY}', "
                      "smpirun '${MCB_SMPIRUN}'")
endif()

# SimGrid's version, for the configure log (records take it from smpirun at run time).
execute_process(COMMAND ${MCB_SMPIRUN} --version OUTPUT_VARIABLE mcb_simgrid_version
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
message(STATUS "SMPI flavour: ${mcb_simgrid_version} (${MCB_SIMGRID_LIBRARY})")

add_library(MPI::MPI_C INTERFACE IMPORTED)
target_include_directories(MPI::MPI_C INTERFACE "${MCB_SMPI_INCLUDE_DIR}"
                                                "${MCB_SMPI_INCLUDE_DIR}/smpi")
target_compile_options(MPI::MPI_C INTERFACE -include smpi/smpi_helpers.h)
# The harness asks which MPI it runs on (refusals of what the simulation cannot do).
target_compile_definitions(MPI::MPI_C INTERFACE MCB_SMPI=1)
target_link_libraries(MPI::MPI_C INTERFACE "${MCB_SIMGRID_LIBRARY}")

set(CMAKE_POSITION_INDEPENDENT_CODE ON)

# Links @p target (an executable) as the shared object smpirun loads.
function(mcb_smpi_program target)
  target_link_options(${target} PRIVATE -shared -Wl,-z,defs)
endfunction()

# `cmake --install build [--prefix P]`: the programs in bin/, the analysis package where
# Debian's python3 imports it (lib/python3.X/dist-packages, not the multiarch libdir:
# /usr/local's is on its path), the
# scripts and analysis scripts in share/mcb/, and the tables, seed-002 platforms and campaign examples in
# share/mcb/ as well. Tests, benchmarks and fuzzers are not installed.
include(GNUInstallDirs)

foreach(program mcb-sim mcb-sim-mpi mcb-calibrate mcb-campaign mcb-poisson mcb-ensflow mcb-synth
                mcb-links mcb-match mcb-match-study mcb-batchgrid mcb-redundant mcb-load mcb-ensemble
                mcb-nodeload)
  if(TARGET ${program})
    # Keep the library folders the programs were linked with (Open MPI's): Open MPI's own
    # rpath flags make CMake's rewrite of the build rpath fail otherwise.
    set_target_properties(${program} PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
    install(TARGETS ${program} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()

# The analysis runs under Debian's interpreter (analysis/README.md); its version names the folder.
set(MCB_ANALYSIS_PYTHON "/usr/bin/python3" CACHE FILEPATH
    "Python with Debian's python3-matplotlib and python3-pandas, for analysis/")
execute_process(
  COMMAND ${MCB_ANALYSIS_PYTHON} -c
          "import sys; print(f'python{sys.version_info[0]}.{sys.version_info[1]}')"
  OUTPUT_VARIABLE mcb_python_version OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE mcb_py_rc)
if(NOT mcb_py_rc EQUAL 0 OR mcb_python_version STREQUAL "")
  set(mcb_python_version "python3")
endif()
set(MCB_PYTHON_INSTALL_DIR "lib/${mcb_python_version}/dist-packages"
    CACHE STRING "where cmake --install puts the mcb_analysis package, under the prefix")
install(DIRECTORY analysis/mcb_analysis DESTINATION ${MCB_PYTHON_INSTALL_DIR}
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)

set(mcb_share "${CMAKE_INSTALL_DATADIR}/mcb")
file(GLOB mcb_analysis_scripts "${PROJECT_SOURCE_DIR}/analysis/*.py")
install(PROGRAMS ${mcb_analysis_scripts} DESTINATION ${mcb_share}/analysis)
install(FILES analysis/README.md DESTINATION ${mcb_share}/analysis)
file(GLOB mcb_scripts "${PROJECT_SOURCE_DIR}/scripts/*.sh")
install(PROGRAMS ${mcb_scripts} DESTINATION ${mcb_share}/scripts)
install(FILES scripts/packages.txt DESTINATION ${mcb_share}/scripts)
install(DIRECTORY calibration/das2/ DESTINATION ${mcb_share}/tables/das2)
install(DIRECTORY tests/fixtures/simulator/das2-study/ DESTINATION ${mcb_share}/tables/das2-study)
install(DIRECTORY jobscripts/examples/ DESTINATION ${mcb_share}/campaigns)
install(DIRECTORY matching/platforms/ DESTINATION ${mcb_share}/platforms)

# MCB_REVISION: the git revision of the source tree (with -dirty when it has local changes),
# or "unknown" outside a git checkout. Records and tables carry it for provenance.
find_package(Git QUIET)
set(MCB_REVISION "unknown")
if(GIT_FOUND AND EXISTS "${PROJECT_SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" describe --always --dirty --abbrev=12
                  WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
                  OUTPUT_VARIABLE _rev OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE _rc ERROR_QUIET)
  if(_rc EQUAL 0 AND _rev)
    set(MCB_REVISION "${_rev}")
  endif()
endif()

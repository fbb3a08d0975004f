# cmake -DSOURCE_DIR=... -DOUTPUT=... -P WriteRevision.cmake
# Writes OUTPUT defining MCB_REVISION, touching it only when the revision changed so that
# nothing rebuilds needlessly.
set(revision "unknown")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" describe --always --dirty --abbrev=12
                  WORKING_DIRECTORY "${SOURCE_DIR}"
                  OUTPUT_VARIABLE described OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE rc ERROR_QUIET)
  if(rc EQUAL 0 AND described)
    set(revision "${described}")
  endif()
endif()
set(content "// Generated at build time by cmake/WriteRevision.cmake.\n#define MCB_REVISION \"${revision}\"\n")
include("${CMAKE_CURRENT_LIST_DIR}/WriteIfChanged.cmake")
mcb_write_if_changed("${OUTPUT}" "${content}")

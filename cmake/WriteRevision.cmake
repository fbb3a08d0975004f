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
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL content)
  file(WRITE "${OUTPUT}" "${content}")
endif()

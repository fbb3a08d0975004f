# The suite revision (git describe of the source tree, with -dirty for local changes, or
# "unknown" outside a git checkout) goes into every record and table. It is taken at build
# time, not configure time, so a rebuild after a commit never stamps the old revision:
# target mcb_revision rewrites ${MCB_GENERATED_DIR}/mcb_revision.hpp when the revision changed.
set(MCB_GENERATED_DIR "${PROJECT_BINARY_DIR}/generated")
add_custom_target(mcb_revision
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
          -DOUTPUT=${MCB_GENERATED_DIR}/mcb_revision.hpp
          -P ${PROJECT_SOURCE_DIR}/cmake/WriteRevision.cmake
  BYPRODUCTS ${MCB_GENERATED_DIR}/mcb_revision.hpp
  COMMENT "Suite revision"
  VERBATIM)

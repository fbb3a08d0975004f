# mcb_write_if_changed(PATH CONTENT): writes CONTENT to PATH only when it differs from what the
# file holds, so generated headers keep their time stamp and nothing rebuilds needlessly.
function(mcb_write_if_changed path content)
  set(old "")
  if(EXISTS "${path}")
    file(READ "${path}" old)
  endif()
  if(NOT old STREQUAL content)
    file(WRITE "${path}" "${content}")
  endif()
endfunction()

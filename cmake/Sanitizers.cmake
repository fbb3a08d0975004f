# Sanitizer builds: MCB_SANITIZE builds everything with AddressSanitizer and
# UndefinedBehaviorSanitizer (any undefined behaviour aborts, so a test fails on it);
# MCB_FUZZ adds libFuzzer coverage hooks (clang only) and the harnesses in fuzz/.
option(MCB_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(MCB_FUZZ "Build the libFuzzer harnesses (clang; implies MCB_SANITIZE)" OFF)

if(MCB_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "MCB_FUZZ needs clang (e.g. -DCMAKE_CXX_COMPILER=clang++-14)")
  endif()
  set(MCB_SANITIZE ON)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

if(MCB_SANITIZE)
  set(mcb_sanitizers -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all
      -fno-omit-frame-pointer)
  add_compile_options(${mcb_sanitizers})
  add_link_options(-fsanitize=address,undefined,float-cast-overflow)
endif()

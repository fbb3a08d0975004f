# Sourced by scripts/sanitize.sh and scripts/fuzz.sh: the one clang-14 build with AddressSanitizer,
# UndefinedBehaviorSanitizer and libFuzzer's coverage hooks (build-fuzz) that both use, so the
# libraries are compiled once for the tests and the harnesses. The hooks only count edges and
# comparisons (the sanitizer runtime's no-op versions serve them in the test programs); they change
# nothing the sanitizers check.
# Optimized as sanitizer builds usually are, -O1 with line tables only (-gline-tables-only): the
# reports keep their file:line stacks, and the build compiles in less time than -O2 -g
# (docs/DEVELOPING.md, "CI"). The compiler cache is the one every build shares (./mcb), with
# paths hashed relative to the clone (CCACHE_BASEDIR).
#   configure_sanitizer_build ROOT BUILD
configure_sanitizer_build() {
  local launcher=()
  command -v ccache >/dev/null &&
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$1}"
  CC=clang-14 CXX=clang++-14 cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DMCB_FUZZ=ON -DMCB_BUILD_TESTS=ON -DMCB_BUILD_BENCHMARKS=OFF -DMCB_WITH_PAPI=OFF \
    "${launcher[@]}" >/dev/null
}

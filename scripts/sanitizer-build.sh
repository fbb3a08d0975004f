# Sourced by scripts/sanitize.sh and scripts/fuzz.sh: the one clang-14 build with AddressSanitizer,
# UndefinedBehaviorSanitizer and libFuzzer's coverage hooks (build-fuzz) that both use, so the
# libraries are compiled once for the tests and the harnesses. The hooks only count edges and
# comparisons (the sanitizer runtime's no-op versions serve them in the test programs); they change
# nothing the sanitizers check.
#   configure_sanitizer_build ROOT BUILD
configure_sanitizer_build() {
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  CC=clang-14 CXX=clang++-14 cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMCB_FUZZ=ON -DMCB_BUILD_TESTS=ON -DMCB_BUILD_BENCHMARKS=OFF -DMCB_WITH_PAPI=OFF \
    "${launcher[@]}" >/dev/null
}

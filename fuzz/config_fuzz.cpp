// --config FILE, with mcb-sim's options (the largest option set, every value type).
#include "fuzz/fuzz_input.hpp"
#include "simulator/options.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = mcb::fuzz::write_input(data, size, ".ini");
  const char* argv[] = {"mcb-sim", "--config", path.c_str()};
  mcb::fuzz::expect_usage_errors_only([&] {
    mcb::sim::Options options;
    (void)mcb::sim::parse_options(3, argv, options);
  });
  return 0;
}

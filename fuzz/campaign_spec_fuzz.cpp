// The campaign spec (mcb-campaign COMMAND SPEC), read and checked.
#include "fuzz/fuzz_input.hpp"
#include "jobscripts/spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = mcb::fuzz::write_input(data, size, ".ini");
  mcb::fuzz::expect_usage_errors_only([&] { (void)mcb::campaign::load_spec(path); });
  return 0;
}

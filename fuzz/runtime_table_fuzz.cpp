// The runtime table (mcb-sim --tables FILE, as mcb-calibrate writes it).
#include "fuzz/fuzz_input.hpp"
#include "simulator/tables.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = mcb::fuzz::write_input(data, size, ".csv");
  mcb::fuzz::expect_usage_errors_only([&] { (void)mcb::sim::RuntimeTables::load({path}); });
  return 0;
}

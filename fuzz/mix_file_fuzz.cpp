// The job mix file (mcb-sim --workload FILE.ini).
#include "fuzz/fuzz_input.hpp"
#include "simulator/job_mix.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = mcb::fuzz::write_input(data, size, ".ini");
  mcb::fuzz::expect_usage_errors_only([&] { (void)mcb::sim::load_mix(path); });
  return 0;
}

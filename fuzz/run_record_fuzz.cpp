// The run record file (JSON Lines, mcb-calibrate --input FILE.jsonl).
#include "calibration/records.hpp"
#include "fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = mcb::fuzz::write_input(data, size, ".jsonl");
  mcb::fuzz::expect_usage_errors_only([&] { (void)mcb::calib::load_records({path}); });
  return 0;
}

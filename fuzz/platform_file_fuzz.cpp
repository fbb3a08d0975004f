// The platform file (--platform FILE: per cluster pair link latency and bandwidth), for four
// clusters.
#include "fuzz/fuzz_input.hpp"
#include "harness/wan_links.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = mcb::fuzz::write_input(data, size, ".platform");
  static const auto map = mcb::harness::ClusterMap::blocks(8, 4);
  mcb::fuzz::expect_usage_errors_only(
      [&] { (void)mcb::harness::LinkTable::from_platform_file(path, map, std::nullopt); });
  return 0;
}

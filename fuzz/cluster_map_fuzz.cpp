// The cluster map file (--cluster-map FILE), for eight ranks.
#include "fuzz/fuzz_input.hpp"
#include "harness/cluster_map.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = mcb::fuzz::write_input(data, size, ".map");
  mcb::fuzz::expect_usage_errors_only([&] { (void)mcb::harness::ClusterMap::from_file(path, 8); });
  return 0;
}

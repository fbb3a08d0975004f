// The CSV job list (mcb-sim --trace FILE.csv), through the scan mcb-sim makes before a run:
// every line read, summed and checked against four clusters of 16.
#include "fuzz/fuzz_input.hpp"
#include "simulator/placement.hpp"
#include "simulator/policy.hpp"
#include "simulator/trace_source.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto policy = mcb::sim::make_policy("gs", 4);
  static const auto placement = mcb::sim::make_placement("wf");
  mcb::sim::TraceSpec spec;
  spec.path = mcb::fuzz::write_input(data, size, ".csv");
  spec.machine = mcb::sim::parse_clusters("4x16");
  spec.component_limit = 8;
  mcb::fuzz::expect_usage_errors_only(
      [&] { (void)mcb::sim::TraceSource::scan(spec, *policy, *placement); });
  return 0;
}

// The SWF trace reader (mcb-sim --trace FILE.swf): header and every record.
#include "fuzz/fuzz_input.hpp"
#include "simulator/swf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = mcb::fuzz::write_input(data, size, ".swf");
  mcb::fuzz::expect_usage_errors_only([&] {
    mcb::sim::SwfReader reader(path);
    mcb::sim::SwfRecord record;
    while (reader.next(record)) {
    }
  });
  return 0;
}

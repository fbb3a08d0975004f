#include "apps/ensflow/random.hpp"

namespace mcb::ensflow {

std::uint64_t stream_seed(std::int64_t seed, StreamPurpose purpose, std::uint64_t index,
                          std::uint64_t sub_index) {
  std::uint64_t key =
      derive_seed(static_cast<std::uint64_t>(seed), static_cast<std::uint64_t>(purpose));
  key = derive_seed(key, index);
  return derive_seed(key, sub_index);
}

}  // namespace mcb::ensflow

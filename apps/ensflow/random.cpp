#include "apps/ensflow/random.hpp"

namespace mcb::ensflow {
namespace {

std::seed_seq key(std::int64_t seed, StreamPurpose purpose, std::uint64_t index,
                  std::uint64_t sub_index) {
  const auto s = static_cast<std::uint64_t>(seed);
  return std::seed_seq{static_cast<std::uint32_t>(s),
                       static_cast<std::uint32_t>(s >> 32),
                       static_cast<std::uint32_t>(purpose),
                       static_cast<std::uint32_t>(index),
                       static_cast<std::uint32_t>(index >> 32),
                       static_cast<std::uint32_t>(sub_index),
                       static_cast<std::uint32_t>(sub_index >> 32)};
}

}  // namespace

KeyedStream::KeyedStream(std::int64_t seed, StreamPurpose purpose, std::uint64_t index,
                         std::uint64_t sub_index) {
  std::seed_seq sequence = key(seed, purpose, index, sub_index);
  engine_.seed(sequence);
}

}  // namespace mcb::ensflow

// Ensflow's keyed streams: the key alone fixes the draws, bit for bit, on every platform and
// standard library (they go through common/rng.hpp, no std:: distribution), and distinct keys
// give distinct streams.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "apps/ensflow/random.hpp"

namespace mcb::ensflow {
namespace {

std::vector<double> normals(KeyedStream stream, int count) {
  std::vector<double> out;
  for (int i = 0; i < count; ++i) out.push_back(stream.normal());
  return out;
}

TEST(KeyedStream, TheKeyAloneFixesTheDraws) {
  // The values of the algorithm (derive_seed over the key, xoshiro256**, Marsaglia's polar
  // method), on any platform: a change here changes every ensemble a recorded seed names.
  EXPECT_EQ(stream_seed(3, StreamPurpose::member_perturbation, 17), 0x2502cc6685454b70ull);
  KeyedStream member(3, StreamPurpose::member_perturbation, 17);
  EXPECT_EQ(member.normal(), -0x1.468b2b72767f8p+0);
  EXPECT_EQ(member.normal(), 0x1.6f957cbdebb07p-2);
  KeyedStream sites(4, StreamPurpose::observation_sites);
  EXPECT_EQ(sites.below(225), 140u);
}

TEST(KeyedStream, TheSameKeyRepeatsItsDrawsAndEveryPartOfTheKeyCounts) {
  const KeyedStream key(3, StreamPurpose::observation_perturbation, 2, 5);
  const std::vector<double> first = normals(key, 64);
  EXPECT_EQ(normals(KeyedStream(3, StreamPurpose::observation_perturbation, 2, 5), 64), first);
  for (const KeyedStream& other : {KeyedStream(4, StreamPurpose::observation_perturbation, 2, 5),
                                   KeyedStream(3, StreamPurpose::rank_histogram, 2, 5),
                                   KeyedStream(3, StreamPurpose::observation_perturbation, 3, 5),
                                   KeyedStream(3, StreamPurpose::observation_perturbation, 2, 6),
                                   KeyedStream(3, StreamPurpose::observation_perturbation, 5, 2)}) {
    EXPECT_NE(normals(other, 64), first);
  }
}

}  // namespace
}  // namespace mcb::ensflow

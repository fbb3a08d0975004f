#pragma once
/// @file
/// @brief Random numbers keyed by what they are for, never by which process draws them: a
/// stream is named by (seed, purpose, index, sub-index), e.g. (seed, member perturbation,
/// member 17). A member's draws are therefore the same whichever rank holds it, which is what
/// makes the ensemble identical for every process count.

#include <cstdint>

#include "common/rng.hpp"

namespace mcb::ensflow {

/// @brief What a stream is used for (part of its key).
enum class StreamPurpose : std::uint32_t {
  truth_perturbation = 1,   //!< the truth's initial departure from the background
  member_perturbation = 2,  //!< a member's initial departure (index = member)
  observation_sites = 3,    //!< where the observations are
  observation_error = 4,    //!< the synthetic observations' errors (index = analysis)
  observation_perturbation =
      5,               //!< a member's perturbed observations (index = analysis, sub = member)
  rank_histogram = 6,  //!< observation noise added to a member for the rank histogram
                       //!< (index = analysis, sub = member)
  spinup_noise = 7,    //!< the small departure from rest the spin-up starts from
};

/// @brief The seed of the stream for one key: the key's parts hashed in turn with
/// `mcb::derive_seed`, so distinct keys give independent streams.
std::uint64_t stream_seed(std::int64_t seed, StreamPurpose purpose, std::uint64_t index = 0,
                          std::uint64_t sub_index = 0);

/// @brief A stream for one key, drawn through `mcb::Rng`, whose engine and distributions are
/// the suite's own: the key alone fixes the draws bit for bit on every standard library.
class KeyedStream {
 public:
  KeyedStream(std::int64_t seed, StreamPurpose purpose, std::uint64_t index = 0,
              std::uint64_t sub_index = 0)
      : rng_(stream_seed(seed, purpose, index, sub_index)) {}

  /// @brief A standard normal draw.
  double normal() { return rng_.normal(); }
  /// @brief A uniform integer in [0, bound), bound > 0.
  std::uint64_t below(std::uint64_t bound) { return rng_.below(bound); }

 private:
  Rng rng_;
};

}  // namespace mcb::ensflow

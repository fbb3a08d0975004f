#pragma once
/// @file
/// @brief The communication of an iteration, one of five patterns over an InstrumentedComm (so
/// messages between clusters take the emulated links), with data every rank can predict: word j
/// of the message from rank s to rank d in iteration k is base(seed, s, d, k) + j (mod 2^64).
/// Each received word is checked, and the sums of the messages received make a checksum whose
/// value the options alone give (expected_checksum), computed without any communication.

#include "apps/synth/options.hpp"
#include "harness/comm.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace mcb::synth {

/// @brief The first word of the message from @p source to @p dest in @p iteration (dest -1: a
/// rank's contribution to the all-reduce).
std::uint64_t message_base(std::int64_t seed, int source, int dest, long iteration);

/// @brief The sum of a message's @p words words starting at @p base (mod 2^64).
std::uint64_t message_sum(std::uint64_t base, std::uint64_t words);

/// @brief One rank's books of what it received.
struct Receipts {
  std::uint64_t messages = 0;   //!< messages (or all-reduce results) received
  std::uint64_t checksum = 0;   //!< sum of their words (mod 2^64)
  std::uint64_t bad_words = 0;  //!< words that differ from the prediction
};

/// @brief The channels of a pattern's InstrumentedComm.
std::vector<std::string> channel_names(Pattern pattern);

/// @brief What rank @p rank receives over the whole run, from the options alone.
Receipts expected_receipts(const SynthConfig& config, int rank);

/// @brief Runs one iteration's communication on @p comm.
class PatternRunner {
 public:
  PatternRunner(const SynthConfig& config, harness::InstrumentedComm& comm);
  /// @brief The pattern's messages of @p iteration, each received word checked into receipts().
  void run(long iteration);
  const Receipts& receipts() const { return receipts_; }
  /// @brief Seconds spent filling and checking message words (not communication).
  double check_time() const { return check_time_; }

 private:
  void fill(std::vector<std::uint64_t>& buffer, int dest, long iteration);
  void take(const std::vector<std::uint64_t>& buffer, std::uint64_t base, std::uint64_t step);
  void exchange(int channel, const std::vector<int>& peers, long iteration);
  void nearest(long iteration);
  void master_worker(long iteration);
  void allreduce(long iteration);

  const SynthConfig& config_;
  harness::InstrumentedComm& comm_;
  std::uint64_t words_;
  std::vector<std::vector<std::uint64_t>> send_, recv_;
  Receipts receipts_;
  double check_time_ = 0;
};

}  // namespace mcb::synth

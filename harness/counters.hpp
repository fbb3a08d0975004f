#pragma once
/// @file
/// @brief Hardware counters through PAPI where the machine has them. Where it has none (many
/// VMs), or the suite was built without PAPI, the counters are unavailable with a reason and
/// everything else goes on.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mcb::harness {

/// @brief A set of PAPI events counted around a region of one rank's work.
class Counters {
 public:
  /// @brief Tries to set up @p events (e.g. "PAPI_TOT_INS"). Never throws: on any failure the
  /// set is unavailable and reason() says why.
  explicit Counters(const std::vector<std::string>& events);
  ~Counters();
  Counters(const Counters&) = delete;
  Counters& operator=(const Counters&) = delete;

  void start();
  void stop();
  bool available() const { return available_; }
  const std::string& reason() const { return reason_; }
  /// @brief {"PAPI_TOT_INS": n, ...} after stop(), or null when unavailable.
  nlohmann::json values() const;

 private:
  std::vector<std::string> events_;
  std::vector<long long> values_;
  int event_set_ = -1;
  bool available_ = false;
  bool running_ = false;
  std::string reason_;
};

/// @brief Splits "A,B,C" into event names; empty means no counters.
std::vector<std::string> split_events(const std::string& list);

}  // namespace mcb::harness

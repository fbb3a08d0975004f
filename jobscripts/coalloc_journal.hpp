#pragma once
/// @file
/// @brief The co-allocation coordinator's state on disk: an append-only JSON Lines journal of
/// every decision (a request begun, a copy submitted, a pilot active, a copy cancelled and why,
/// the go, the record written). The coordinator writes an event before it acts where acting
/// twice would harm (a submission) and after it acts where the act can be checked again (a
/// cancel), so a coordinator killed at any moment rebuilds its state by replaying the journal
/// and neither loses nor duplicates a run. Written with mcb::append_line, read with
/// common/jsonl.hpp (a torn last line, a write cut by the kill, is ignored). Tests read the same
/// file as the coordinator's event log (docs: jobscripts/README.md, "Co-allocation").

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mcb::campaign {

class CoallocJournal {
 public:
  explicit CoallocJournal(std::string path) : path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  /// @brief Every whole event so far, in order (none when the file does not exist).
  /// @throws mcb::UsageError "<path>:<line>: ..." for a whole line that is not JSON.
  std::vector<nlohmann::json> replay() const;
  /// @brief Appends @p event with its time ("t", UTC seconds) as one whole line; returns it.
  nlohmann::json append(nlohmann::json event) const;

 private:
  std::string path_;
};

/// @brief Seconds since the epoch, as the journal and the pilots write times.
double utc_now();

}  // namespace mcb::campaign

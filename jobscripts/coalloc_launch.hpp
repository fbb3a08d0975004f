#pragma once
/// @file
/// @brief What the co-allocating executor does around the coordinator: the one ompi-server of
/// a campaign run (the join's rendezvous, docs/join.md), the go script each bound pilot runs
/// (its own launcher, the MCB_JOIN variables, the run's command line as in a heterogeneous-job
/// run), and the record: the application's own, plus the request's co-allocation timeline in
/// env.coalloc (docs/records.md).

#include "jobscripts/campaign_folder.hpp"
#include "jobscripts/coalloc_coordinator.hpp"
#include "jobscripts/expansion.hpp"
#include "jobscripts/spec.hpp"

#include <sys/types.h>

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace mcb::campaign {

/// @brief The ompi-server of a campaign run. One that a killed coordinator left running (its
/// pid in the journal) is adopted, since components may be joining through it.
class RendezvousServer {
 public:
  RendezvousServer(const CampaignSpec& spec, const CoallocJournal& journal, std::string dir);
  /// @brief The same for another launcher of joins (mcb-ensemble): @p program is ompi-server's
  /// path, @p env what it runs with.
  RendezvousServer(std::string program, std::vector<std::pair<std::string, std::string>> env,
                   const CoallocJournal& journal, std::string dir);
  ~RendezvousServer();
  RendezvousServer(const RendezvousServer&) = delete;
  RendezvousServer& operator=(const RendezvousServer&) = delete;

  /// @brief The file holding the server's URI (for `--ompi-server file:PATH`); starts the
  /// server on first use. @throws std::runtime_error when it does not start.
  const std::string& uri_file();
  /// @brief Ends the server (by its pid) and journals it.
  void stop();
  /// @brief Whether a server runs (started here, or adopted from the journal).
  bool running() const { return pid_ > 0; }

 private:
  std::string program_;
  std::vector<std::pair<std::string, std::string>> env_;
  const CoallocJournal& journal_;
  std::string dir_;
  std::string uri_file_;
  pid_t pid_ = -1;
  bool child_ = false;  // started by this process (else adopted)
};

/// @brief The join's name of a request (MCB_JOIN).
std::string join_name(const RequestState& r);

/// @brief The shell line that exports the MCB_JOIN variables of component @p k of @p components
/// (docs/join.md) for a launch script.
std::string join_exports(const std::string& name, int k, int components, int ranks, double timeout);

/// @brief Writes the go script of every bound copy of @p r whose pilot waits for it (not those
/// that ran their launch on starting), atomically: a pilot never runs half of one.
void write_go_scripts(const CampaignSpec& spec, const Plan& plan, const PlannedRun& run,
                      const CampaignFolder& folder, const RequestState& r, const std::string& dir,
                      RendezvousServer& server);

/// @brief launch = at-start: writes copy @p copy's launch script (DIR/TAG.launch) before it is
/// submitted; its pilot runs it at once if it claims the component.
void write_launch_script(const CampaignSpec& spec, const Plan& plan, const PlannedRun& run,
                         const CampaignFolder& folder, const RequestState& r, const CopyState& copy,
                         const std::string& dir, RendezvousServer& server);

/// @brief The request's co-allocation timeline (env.coalloc of its record); @p join is the
/// record's env.join (null when the run did not join).
nlohmann::json coalloc_timeline(const CampaignSpec& spec, const RequestState& r,
                                const nlohmann::json& join);

/// @brief Appends the run's record to the campaign's records: the application's (from the
/// request's own --output) with the timeline added, or a failure record with it. Does nothing
/// when the campaign's records already hold the run (a finish repeated after a kill).
/// Returns the status written ("" when nothing was written).
std::string write_coalloc_record(const CampaignSpec& spec, const Plan& plan, const PlannedRun& run,
                                 const CampaignFolder& folder, const RequestState& r,
                                 const std::string& dir);

/// @brief Where the application's record of request @p r goes.
std::string request_record_file(const std::string& dir, const RequestState& r);

}  // namespace mcb::campaign

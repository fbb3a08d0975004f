#pragma once
/// @file
/// @brief The co-allocation coordinator (seed 004, section 2; seed 003's coordinator, monitors
/// and submitters in one loop): each request needs one allocation per component, on the
/// component's own batch system or on one of its d duplicates elsewhere. Each copy is a pilot
/// job (jobscripts/templates/coalloc-pilot.sh) that reports its allocation active through the
/// shared file system and waits for the go. The first active copy of a component binds it and
/// its twins are cancelled at once; an allocation bound before its partners is held idle
/// (stop-and-wait), cancelled and submitted again (resubmission) or requeued (hibernation),
/// the last two once per request as in mcb-redundant; when every component is bound the
/// launcher is told to go. A request not co-allocated within the timeout is given up.
///
/// Any number of requests are in flight at once. The state is a fold over the journal
/// (coalloc_journal.hpp): every decision is appended first and then applied, so a coordinator
/// started again on the same journal carries on where the killed one stopped.

#include "jobscripts/coalloc_journal.hpp"
#include "jobscripts/coalloc_spec.hpp"
#include "jobscripts/queue.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mcb::campaign {

/// @brief What one co-allocated run asks for.
struct CoallocRequest {
  std::string id;            //!< unique in the journal; also the join's name
  std::string run_id;        //!< the plan's run id
  std::string run_key;       //!< the plan's run key (names files)
  std::vector<int> ranks;    //!< ranks (processors) of component 0, 1, ...
  double time_limit_s = 0;   //!< each pilot's limit: waiting, holding and running
  double run_timeout_s = 0;  //!< from the go to the last component's end
};

/// @brief One copy of a component: a pilot job on one system.
struct CopyState {
  std::string tag;  //!< names its files in the coordinator's folder
  int component = 0;
  std::string system;
  std::string job;  //!< "" until the submission returned its id
  double submitted = 0;
  std::optional<double> started;  //!< the pilot's own time of start
  std::string nodes;              //!< its hosts, comma-separated
  bool bound = false;
  bool launched_at_start = false;  //!< its pilot ran its launch script on starting
  bool gone = false;               //!< cancelled, lost, or its pilot finished
  std::string gone_why;
  double gone_at = 0;
  std::optional<int> exit_code;  //!< the launched component's exit code
  std::optional<double> ended;   //!< when it ended (the pilot's time)
};

enum class RequestPhase { allocating, launched, ended, recorded };

/// @brief Everything the journal says of one request.
struct RequestState {
  CoallocRequest request;
  RequestPhase phase = RequestPhase::allocating;
  std::vector<CopyState> copies;
  double first_submitted = 0;
  std::optional<double> go;    //!< when the go was written
  bool released_once = false;  //!< resubmission or hibernation done (once per request)
  std::string failure;         //!< why it ended without a run ("" when it ran)
  int next_copy = 0;

  /// @brief The bound copy of component @p k, or nullptr.
  const CopyState* bound(int k) const;
  /// @brief Every component has its bound copy: the request is ready for its go.
  bool all_bound() const;
  CopyState* find(const std::string& tag);
};

/// @brief What the coordinator asks of the executor.
struct CoallocHooks {
  /// launch = at-start: a copy is about to be submitted, or is queued when its request gave
  /// its early allocation back; write its launch script, which its pilot runs at once if it
  /// claims its component first (coalloc_claim()).
  std::function<void(const RequestState&, const CopyState&)> prepare;
  /// Every component is bound: write the go of each bound copy (the pilot runs it).
  std::function<void(const RequestState&)> launch;
  /// The request ended (ran, or was given up): write its record. Called again after a resume
  /// until the journal says "recorded", so it must not write a record twice.
  std::function<void(const RequestState&)> finish;
};

/// @brief The claim a pilot takes (a symbolic link naming its tag) when launch = at-start: the
/// first copy of component @p component to start makes it, and only that copy runs its ranks.
/// The coordinator takes it for a copy that waits for the go, so that the two kinds never both
/// bind one component (resubmission launches at start only after its release).
std::string coalloc_claim(const std::string& dir, const std::string& request, int component);

class CoallocCoordinator {
 public:
  /// @brief Replays @p journal; pilots live in @p dir. Orphans (a copy whose submission was
  /// journaled but whose job id was not) are told to cancel themselves and replaced.
  CoallocCoordinator(const CoallocSettings& settings, CoallocJournal journal, std::string dir,
                     CoallocHooks hooks);

  /// @brief Replays @p journal only: no orphan is adopted, nothing is submitted (for
  /// abandon()).
  static CoallocCoordinator replay_only(const CoallocSettings& settings, CoallocJournal journal,
                                        std::string dir);
  /// @brief Gives every request in flight up: each copy not yet gone (queued, holding or
  /// running) is cancelled, and the request ends with @p why, so a later run records it failed
  /// and submits nothing for it. Returns each copy cancelled ("TAG: SYSTEM job ID").
  std::vector<std::string> abandon(const std::string& why);

  /// @brief Starts a request: journals it and submits its copies.
  void begin(const CoallocRequest& request);
  /// @brief One look at every request in flight: pilots, queues, timeouts; decides and acts.
  void step();
  /// @brief Requests not yet recorded.
  std::size_t in_flight() const;
  /// @brief Whether the journal knows run @p run_id (recorded or in flight).
  const RequestState* find_run(const std::string& run_id) const;
  const std::map<std::string, RequestState>& requests() const { return requests_; }
  const CoallocJournal& journal() const { return journal_; }

 private:
  CoallocCoordinator(const CoallocSettings& settings, CoallocJournal journal, std::string dir,
                     CoallocHooks hooks, bool adopt);
  void apply(const nlohmann::json& event);
  void record(nlohmann::json event);
  void submit_copy(RequestState& r, int component, const std::string& system);
  void submit_component(RequestState& r, int component);
  void cancel_copy(RequestState& r, CopyState& c, const std::string& why);
  void adopt_orphans();
  bool release_pending(const RequestState& r) const;
  bool launches_at_start(const RequestState& r) const;
  void notice_starts(RequestState& r);
  void give_goes();
  void watch_copies(RequestState& r);
  void synchronize(RequestState& r);
  void cancel_twins(RequestState& r);
  void watch_launched(RequestState& r);
  void end_request(RequestState& r, const std::string& failure);
  bool status_due(const std::string& tag);
  BatchQueue& queue(const std::string& system);

  CoallocSettings settings_;
  CoallocJournal journal_;
  std::string dir_;
  CoallocHooks hooks_;
  std::map<std::string, RequestState> requests_;
  std::map<std::string, std::unique_ptr<BatchQueue>> queues_;
  std::map<std::string, double> last_status_;  // tag -> when its job's status was last asked
};

}  // namespace mcb::campaign

#pragma once
/// @file
/// @brief The multi-queue ensemble runner's state: a fold over its event log (an append-only
/// JSON Lines journal, coalloc_journal.hpp, written through common/jsonl's owner). Every
/// decision is journaled before it is acted on where acting twice would harm (a submission, a
/// segment's go) and after where the act can be checked again, so a runner killed at any moment
/// and started again on the same folder carries on: no pilot submitted twice, no model day lost
/// or computed twice.

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mcb::campaign {

/// @brief One pilot job: a submission to one queue.
struct EnsemblePilot {
  std::string queue;
  std::string tag;  //!< "<queue>-<k>": names its files in the pilots folder
  std::string job;  //!< "" until the submission returned its id
  double submitted = 0;
  std::optional<double> started;  //!< the pilot's own time of start
  bool gone = false;              //!< ended (time limit, failure, cancel) or never submitted
  std::string gone_why;
  int gos = 0;  //!< segments given to it
};

/// @brief One queue's share of a segment: its pilot runs `processors` ranks of it.
struct EnsemblePart {
  std::string queue;
  std::string tag;
  int go = 0;  //!< the pilot's go number (TAG.go.N)
  int processors = 0;
};

/// @brief A segment of model days: mcb-ensflow from the restart file of day `from` (none at 0)
/// to `to`, stopped there with a restart file; run by one pilot, or by the pilots of several
/// queues joined into one MPI job (docs/join.md), part 0 first (its rank 0 reads and writes the
/// restart file, in its queue's site folder).
struct EnsembleSegment {
  int n = 0;
  std::string queue;  //!< part 0's
  std::string tag;    //!< part 0's
  int go = 0;         //!< part 0's
  std::vector<EnsemblePart> parts;
  std::string join;      //!< MCB_JOIN of a joined segment ("" for one part)
  std::string stopping;  //!< why the runner stopped its parts ("" unless it did)
  int from = 0;
  int to = 0;
  double began = 0;
  double predicted = 0;             //!< s: a + b/P per day, plus the restart file's transfer
  double per_day = 0;               //!< s predicted per model day on its mapping
  std::vector<std::string> active;  //!< the active set when it was mapped
  /// The runner asked it to stop at its next analysis (its stop file, a remap mid-segment): the
  /// restart file it writes under day `to`'s name may then hold an earlier day.
  bool stop_asked = false;
};

struct EnsembleState {
  bool begun = false;
  std::string spec_text;
  std::map<std::string, EnsemblePilot> pilots;  //!< by tag
  std::map<std::string, std::string> current;   //!< queue -> tag of its newest pilot
  std::map<std::string, int> submissions;       //!< queue -> pilots submitted
  int day = 0;                                  //!< last model day done (committed)
  std::string site;                             //!< queue whose folder holds day's restart file
  std::optional<EnsembleSegment> running;
  std::vector<std::string> mapping;  //!< the queues of the last done segment (part 0 first)
  int segments = 0;
  int failures = 0;                 //!< segments in a row that failed (a kill is no failure)
  std::vector<std::string> active;  //!< the active set as last journaled
  int remaps = 0;
  /// The mapping a remap journaled mid-segment chose for the next segment (until it starts): the
  /// remap is that segment's, journaled once.
  std::vector<std::string> remap_pending;
  int kills = 0;
  /// The application's verdict of the last done segment's record (`valid`, `invalid`, or ""
  /// before one): a segment judges the run from day 1 to its stop day, so the last one's is
  /// the run's (apps/ensflow/README.md, "Checkpoint and restart").
  std::string verdict;
  std::string verdict_reason;
  int invalid_segments = 0;  //!< done segments whose record is not valid
  bool finished = false;
  std::string gave_up;

  /// @brief Folds one journaled event into the state.
  void apply(const nlohmann::json& event);
  /// @brief The queue's newest pilot while it is not gone, else nullptr.
  const EnsemblePilot* live_pilot(const std::string& queue) const;
};

}  // namespace mcb::campaign

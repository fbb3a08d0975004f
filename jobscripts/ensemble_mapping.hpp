#pragma once
/// @file
/// @brief Where the next segment of a multi-queue ensemble run goes (seed 003, section 3.2 and
/// 5): onto the one active queue, or the set of active queues joined into one MPI job, with the
/// smallest predicted time per model day. One queue: a + b/P there. A set: the members spread
/// over all its processes, so each rank computes M/P of them and the slowest part sets the pace,
/// max over the parts of (a_k + b_k/P) with P the set's processes; plus the analysis traffic
/// that crosses the inter-site link (Ensflow's channels, from the problem's shape: its record);
/// plus, per segment, the restart file's transfer to part 0's site when it lies elsewhere and
/// the restart data crossing the link (rank 0 broadcasts the file to every rank at the start and
/// gathers the members at the checkpoint). Only sets whose processes divide the members.

#include "jobscripts/ensemble_spec.hpp"
#include "jobscripts/ensemble_state.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mcb::campaign {

/// @brief What the coordinator needs of the application to predict a joined run: taken from a
/// segment's record (its `config`), so the model never restates mcb-ensflow's defaults.
struct EnsembleShape {
  int members = 0;         //!< M
  int observations = 0;    //!< m, per analysis
  int state_size = 0;      //!< n: layers x grid points of one member
  int analysis_every = 0;  //!< model days between analyses
  bool gathered = true;    //!< the analysis layout (regional has no all-gather of HX)
};

/// @brief The shape in an mcb-ensflow record, or none when the record lacks it.
std::optional<EnsembleShape> shape_of_record(const nlohmann::json& record);

/// @brief Seconds per model day of the analysis traffic over the inter-site link when the
/// members run on the parts' @p processors (one entry per site): the bytes of the `gather`,
/// `transpose` and `update` channels between ranks of different sites over the bandwidth, and a
/// latency per step of each channel's pairwise exchange (P-1 steps), per analysis.
double analysis_link_seconds(const EnsembleSpec& spec, const EnsembleShape& shape,
                             const std::vector<int>& processors);

/// @brief Where the next segment goes, as predicted.
struct SegmentChoice {
  const EnsembleQueue* queue = nullptr;     //!< part 0 (its site gets the restart file)
  std::vector<const EnsembleQueue*> parts;  //!< every queue of the set, part 0 first
  int days = 0;
  double transfer = 0;   //!< s predicted for the restart data over the link (0 on its own site)
  double per_day = 0;    //!< s predicted per model day, the link's analysis traffic included
  double traffic = 0;    //!< s of per_day that is the analysis traffic over the link
  double predicted = 0;  //!< s: transfer + days x per_day
  int processors() const;
};

/// @brief The best active queue alone for the segment starting after model day @p state.day, or
/// none (queue null) when no active pilot has time left for a model day.
/// @param restart_bytes the size of the restart file to move (0 at day 0)
SegmentChoice choose_queue(const EnsembleSpec& spec, const EnsembleState& state,
                           const std::vector<std::string>& active, double restart_bytes,
                           double now);

/// @brief The best mapping: choose_queue's, or (with spec.split and a known @p shape) a set of
/// two or more active queues whose predicted model days per second beat it. Part 0 of a set is
/// the queue holding the restart file when the set has it, else the set's first in spec order.
SegmentChoice choose_mapping(const EnsembleSpec& spec, const EnsembleState& state,
                             const std::vector<std::string>& active, double restart_bytes,
                             double now, const std::optional<EnsembleShape>& shape);

/// @brief A remap in the middle of the running segment: it stops at its next analysis (`stop`)
/// and the rest goes onto `choice`.
struct MidSegmentRemap {
  SegmentChoice choice;
  std::vector<std::string> from;  //!< the running segment's queues, part 0 first
  std::vector<std::string> to;    //!< the choice's
  int stop = 0;                   //!< the day it is estimated to stop at
  int days = 0;                   //!< days compared: the segment's after the stop, at most choice's
  double stay = 0;                //!< s predicted for them on the running mapping
  double move = 0;  //!< s predicted on the new one, the restart data's transfer included
};

/// @brief Whether the running segment (@p state.running) should stop at its next analysis and
/// the rest be remapped (seed 003: the application is rescheduled whenever the set of active
/// queues changes): only when @p active differs from the set the segment was mapped on, the
/// mapping choose_mapping would make at that analysis differs from the running one, and it is
/// predicted faster for the segment's days after that analysis with the restart file's transfer.
/// The stop day is estimated from the segment's predicted pace since it began, then the next
/// multiple of @p analysis_every (0: unknown, no remap), and the mapping is chosen with the
/// pilots' time left at that day's predicted time. @p restart_bytes: the restart file's size.
std::optional<MidSegmentRemap> mid_segment_remap(const EnsembleSpec& spec,
                                                 const EnsembleState& state,
                                                 const std::vector<std::string>& active,
                                                 int analysis_every, double restart_bytes,
                                                 double now,
                                                 const std::optional<EnsembleShape>& shape);

}  // namespace mcb::campaign

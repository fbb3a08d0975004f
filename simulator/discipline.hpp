#pragma once
/// @file
/// @brief Queue disciplines: which job of a queue starts next. One file each: FCFS (the
/// DAS-2 paper's), EASY backfilling, conservative backfilling.

#include "simulator/job.hpp"
#include "simulator/types.hpp"

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace mcb::sim {

class Sim;

/// @brief A queue discipline, applied to every queue of the policy.
class QueueDiscipline {
 public:
  virtual ~QueueDiscipline() = default;
  virtual std::string_view name() const = 0;
  /// Whether it plans with requested times (and re-enables a queue when a job arrives).
  virtual bool backfilling() const = 0;

  /// A job joined a queue.
  virtual void on_arrival(Sim& /*sim*/, JobId /*id*/) {}
  /// A job departed (before it is removed from the system).
  virtual void on_departure(Sim& /*sim*/, JobId /*id*/) {}
  /// Before the scheduling pass of an instant.
  virtual void begin_pass(Sim& /*sim*/) {}
  /// @brief A job of queue @p q that can start now, and where: writes its id and processors
  /// per cluster. False if none.
  virtual bool select(Sim& sim, int q, JobId& id, std::span<int> alloc) = 0;
  /// A job started.
  virtual void on_start(Sim& /*sim*/, JobId /*id*/) {}
  /// @brief A running job was suspended (Sim::preempt): it is back at the head of its queue,
  /// its plan the requested time it has left, and its processors (still in its alloc) were
  /// given back until its expected end.
  virtual void on_preempt(Sim& /*sim*/, JobId /*id*/) {}
  /// Next time after now at which a planned start is due (kNever: none).
  virtual Time next_wakeup(const Sim& /*sim*/) const { return kNever; }
};

/// @brief Whether a placement on @p sim's machine puts a rigid one-component job on its one
/// cluster exactly when the job's size is free there: one cluster, and a rule that places by
/// counts alone (link-aware weighs the links too). Backfilling then finds such a job's start
/// with one scan of its plan (Profile::earliest_one).
bool places_by_size(const Sim& sim);
/// @brief Whether @p job is such a job: one component of a rigid (unordered or non-fixed)
/// request, allowed on cluster 0.
inline bool rigid_on_first_cluster(const Job& job) {
  return (job.allowed & 1) && job.req.sizes.size() == 1 &&
         (job.req.type == RequestType::kUnordered || job.req.type == RequestType::kNonFixed);
}

/// @brief Conservative backfilling: the order in which the waiting jobs are taken out and put
/// back when the plan is compressed after a job ends early.
enum class Compression {
  kArrival,     //!< arrival order (Mu'alem and Feitelson 2001; the usual simulators)
  kReservation  //!< order of the current reservations
};

/// "arrival" or "reservation". @throws std::invalid_argument otherwise.
Compression parse_compression(std::string_view name);

/// @brief Conservative backfilling: which job ends compress the plan.
enum class CompressAt {
  /// Only an end before the requested time, which frees processors the plan held (Mu'alem and
  /// Feitelson 2001, literally).
  kEarlyEnd,
  /// Every end, also one exactly at the requested time: a gap an earlier pass left (a job
  /// re-inserted before a later one moved out of its way) is filled then (the peer pyss does).
  kEveryEnd
};
/// "early-end" or "every-end".
std::string compress_at_name(CompressAt at);

/// @brief The queue disciplines. Their names are spelled here alone (discipline_name), for
/// every program's options, tables and records.
enum class Discipline { kFcfs, kEasy, kCons };
inline constexpr std::array<Discipline, 3> kDisciplines{Discipline::kFcfs, Discipline::kEasy,
                                                        Discipline::kCons};

/// "fcfs", "easy" or "cons".
std::string discipline_name(Discipline discipline);
/// @brief The discipline called @p name; empty for a name that is none.
std::optional<Discipline> find_discipline(std::string_view name);
/// @brief The names for a message: "fcfs, easy or cons".
std::string discipline_names();

/// @p compression and @p compress_at matter to cons alone.
std::unique_ptr<QueueDiscipline> make_discipline(Discipline discipline,
                                                 Compression compression = Compression::kArrival,
                                                 CompressAt compress_at = CompressAt::kEarlyEnd);
/// @brief The discipline named fcfs, easy or cons. @throws std::invalid_argument otherwise.
std::unique_ptr<QueueDiscipline> make_discipline(std::string_view name,
                                                 Compression compression = Compression::kArrival,
                                                 CompressAt compress_at = CompressAt::kEarlyEnd);

}  // namespace mcb::sim

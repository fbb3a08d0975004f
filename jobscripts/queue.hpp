#pragma once
/// @file
/// @brief Batch systems behind one interface, for a coordinator that talks to several at once:
/// submit, status, cancel, hold and release, suspend and resume, requeue, queue length and the
/// system's own start estimate for a new request. Slurm and Grid Engine run for real on the rig
/// (jobscripts/testing/rig.sh); PBS is built on the same commands' documented outputs.
///
/// Each instance is named by its own configuration (Slurm: SLURM_CONF; Grid Engine: SGE_ROOT,
/// SGE_CELL and its ports), which goes into the environment of every command run for it, so one
/// process can talk to several instances of the same kind. Commands never see the variables of
/// their kind inherited from the caller (a coordinator inside a Slurm job carries
/// SLURM_WORKING_CLUSTER, which beats SLURM_CONF).

#include "jobscripts/process.hpp"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mcb::campaign {

/// @brief Environment variables, NAME and value, in order.
using EnvList = std::vector<std::pair<std::string, std::string>>;

/// @brief One batch-system instance: what rig.env (or a user's systems file) says of it.
struct QueueConfig {
  std::string name;  //!< "slurm-a", a name the user chose
  std::string kind;  //!< "slurm", "gridengine" or "pbs"
  EnvList env;       //!< what every command for it needs (SLURM_CONF=..., SGE_ROOT=...)
  /// Settings: "bin", the folder of the system's commands (default: found on PATH); Slurm
  /// "partition"; Grid Engine "pe" (default mpi) and "queue"; PBS "queue".
  std::map<std::string, std::string> settings;
};

/// @brief The systems of a systems file (the rig's DIR/rig.env): one [section] per system, named
/// by the section, with "kind = slurm|gridengine|pbs", any number of "env = NAME=VALUE" and the
/// kind's settings.
/// @throws mcb::UsageError "<path>:<line>: ..." for an unknown kind or key, a bad env entry, a
/// system without a kind, or no system at all.
std::vector<QueueConfig> read_queue_configs(const std::string& path);

/// @brief What to submit. The job gets the environment of the submitting command (the caller's,
/// without the kind's own variables, plus the instance's) and @p env.
struct JobRequest {
  std::string script;  //!< the batch script (absolute, or relative to workdir)
  std::vector<std::string> args;
  std::string name = "mcb";  //!< job name (characters outside [A-Za-z0-9._-] become '_')
  int processors = 1;
  double time_limit_s = 60;  //!< wall-clock limit; the system ends the job after it
  bool hold = false;         //!< submit held: it waits for release()
  std::string workdir;       //!< the job runs here; required, absolute
  std::string output;        //!< stdout file ("" = /dev/null)
  std::string error;         //!< stderr file ("" = into output)
  EnvList env;
};

/// @brief Where a job stands.
enum class JobPhase { pending, running, suspended, done, failed };

/// @brief "pending", "running", "suspended", "done", "failed".
std::string to_string(JobPhase phase);

/// @brief A job's status as its system reports it.
struct JobStatus {
  JobPhase phase = JobPhase::pending;
  bool held = false;               //!< pending because held (release() lets it go)
  std::string state;               //!< the system's own word: PENDING, hqw, R, ...
  std::string reason;              //!< why pending or how it failed ("" when nothing to say)
  std::vector<std::string> nodes;  //!< hosts of a started job, each once, in the system's order
};

/// @brief The queue of a system: jobs and the processors they ask for.
struct QueueState {
  int pending_jobs = 0;  //!< waiting to start (not held)
  int held_jobs = 0;
  int running_jobs = 0;  //!< running or suspended
  int pending_processors = 0;
  int running_processors = 0;
  int total_processors = 0;  //!< the system's processors (0 when unknown)
};

/// @brief The system's own estimate of when a new request would start.
struct StartEstimate {
  std::optional<double> start_time;  //!< seconds since the epoch; none when the system has none
  std::string source;                //!< how it was obtained, or why there is none (one line)
};

/// @brief The operations a system may lack.
enum class Operation { hold, release, suspend, resume, requeue };

/// @brief "hold", "release", ...
std::string to_string(Operation operation);

/// @brief An operation the batch system does not have.
class NotSupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// @brief Runs one command with an environment and a working folder (capture() in real use).
using CommandRunner = std::function<Captured(const std::vector<std::string>& argv,
                                             const std::string& cwd, const EnvList& env)>;

/// @brief One batch-system instance. Every call runs the system's commands; a command that fails
/// or cannot be understood throws std::runtime_error "<name>: <command>: <why>".
class BatchQueue {
 public:
  BatchQueue(QueueConfig config, CommandRunner runner);
  virtual ~BatchQueue() = default;
  BatchQueue(const BatchQueue&) = delete;
  BatchQueue& operator=(const BatchQueue&) = delete;

  const std::string& name() const { return config_.name; }
  const std::string& kind() const { return config_.kind; }

  /// @brief Submits @p request; returns the job id. @throws mcb::UsageError for a request no
  /// system could take (no workdir, no processors, no time).
  virtual std::string submit(const JobRequest& request) = 0;
  virtual JobStatus status(const std::string& id) = 0;
  /// @brief Removes a pending job or ends a running one.
  virtual void cancel(const std::string& id) = 0;
  virtual QueueState queue_state() = 0;
  /// @brief The system's estimate for a new request of @p processors for @p time_limit_s.
  virtual StartEstimate start_estimate(int processors, double time_limit_s) = 0;

  virtual bool supports(Operation operation) const = 0;
  /// @brief Why the system lacks @p operation, for the error of apply() and of a spec that needs
  /// it.
  virtual std::string why_unsupported(Operation operation) const {
    return "has no " + to_string(operation);
  }
  /// @brief The operation on job @p id. @throws NotSupported when the system lacks it.
  void apply(Operation operation, const std::string& id);
  void hold(const std::string& id) { apply(Operation::hold, id); }
  void release(const std::string& id) { apply(Operation::release, id); }
  void suspend(const std::string& id) { apply(Operation::suspend, id); }
  void resume(const std::string& id) { apply(Operation::resume, id); }
  void requeue(const std::string& id) { apply(Operation::requeue, id); }

 protected:
  /// @brief Runs the command for a supported operation.
  virtual void control(Operation operation, const std::string& id) = 0;
  /// @brief Runs @p argv with the instance's environment plus @p extra.
  Captured run(const std::vector<std::string>& argv, const EnvList& extra = {},
               const std::string& cwd = "") const;
  /// @brief What @p argv printed on stdout; throws "<name>: <argv[0]>: <why>" when it fails.
  std::string output_of(const std::vector<std::string>& argv, const EnvList& extra = {},
                        const std::string& cwd = "") const;
  /// @brief Throws the error of a failed @p result of @p argv.
  [[noreturn]] void fail(const std::vector<std::string>& argv, const Captured& result) const;
  /// @brief Checks what every system needs of a request. @throws mcb::UsageError.
  static void check_request(const JobRequest& request);
  const std::string& setting(const std::string& key, const std::string& fallback) const;

 private:
  QueueConfig config_;
  CommandRunner runner_;
};

/// @brief The runner that really runs commands: capture() with the caller's environment, less
/// the variables starting with one of @p drop_prefixes, plus the instance's and the request's.
CommandRunner system_runner(std::vector<std::string> drop_prefixes, double timeout_seconds = 60);

/// @brief The queue for @p config; @p runner replaces the real commands (unit tests of systems
/// that cannot run here). @throws mcb::UsageError for an unknown kind or setting.
std::unique_ptr<BatchQueue> make_queue(const QueueConfig& config, CommandRunner runner = {});

std::unique_ptr<BatchQueue> make_slurm_queue(const QueueConfig& config, CommandRunner runner);
std::unique_ptr<BatchQueue> make_gridengine_queue(const QueueConfig& config, CommandRunner runner);
std::unique_ptr<BatchQueue> make_pbs_queue(const QueueConfig& config, CommandRunner runner);

}  // namespace mcb::campaign

#pragma once
/// @file
/// @brief Child processes for the executors: short commands whose output is captured (sbatch,
/// squeue, an application's --help) and measurement runs that can be ended as a whole, however
/// their launcher spreads them over process groups.

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mcb::campaign {

/// @brief How a finished child ended.
struct ExitStatus {
  int code = 0;    //!< exit code when it exited
  int signal = 0;  //!< signal number when a signal ended it (code is then -1)

  bool success() const { return signal == 0 && code == 0; }
  /// @brief "exit code 3" or "killed by signal 9 (Killed)".
  std::string describe() const;
};

/// @brief A finished short command: how it ended and what it printed.
struct Captured {
  ExitStatus status;
  std::string out;
  std::string err;
  bool timed_out = false;
  std::string start_error;  //!< why it could not start at all ("" when it started)
};

/// @brief Runs @p argv (looked up on PATH) with stdin from /dev/null, in @p cwd when given,
/// and captures stdout and stderr. Ends it after @p timeout_seconds.
Captured capture(const std::vector<std::string>& argv, const std::string& cwd = "",
                 double timeout_seconds = 60);

/// @brief capture() with the child's whole environment given as "NAME=value" entries (and the
/// program looked up on the caller's PATH).
Captured capture(const std::vector<std::string>& argv, const std::string& cwd,
                 double timeout_seconds, const std::vector<std::string>& environment);

/// @brief True when @p program is a path to an executable file or found on PATH.
bool on_path(const std::string& program);

/// @brief A measurement run in its own session, its output in a log file, tagged through its
/// environment (MCB_CAMPAIGN_TOKEN) so every process it starts can be found and ended, even after
/// the launcher died or the executor was killed and restarted.
class TaggedRun {
 public:
  /// @brief Starts @p argv in @p cwd with @p env added, stdout and stderr appended to @p log.
  /// The run dies with the executor (parent-death signal).
  /// @throws std::runtime_error when it cannot start (the message says why).
  TaggedRun(const std::vector<std::string>& argv, const std::string& cwd,
            const std::vector<std::pair<std::string, std::string>>& env, const std::string& log,
            const std::string& token);
  ~TaggedRun();
  TaggedRun(const TaggedRun&) = delete;
  TaggedRun& operator=(const TaggedRun&) = delete;

  pid_t pid() const { return pid_; }
  /// @brief The launcher's status once it ended; nullopt while it runs. Does not block.
  std::optional<ExitStatus> poll();
  /// @brief Sends SIGTERM to the launcher, waits up to @p grace_seconds, then kills every
  /// process carrying the tag. Returns the launcher's status.
  ExitStatus terminate(double grace_seconds);
  /// @brief Kills what is left of the run (ranks the launcher left behind).
  void kill_leftovers() const;

 private:
  pid_t pid_ = -1;
  std::string token_;
  std::optional<ExitStatus> status_;
};

/// @brief Name of the environment variable that tags a run's processes.
inline constexpr const char* kTokenVariable = "MCB_CAMPAIGN_TOKEN";

/// @brief Pids of processes whose environment holds MCB_CAMPAIGN_TOKEN=@p token.
std::vector<pid_t> tagged_processes(const std::string& token);

/// @brief Sends SIGKILL to every process tagged @p token and waits (up to @p wait_seconds)
/// until none is left. Returns how many were left alive (0 on success).
int kill_tagged(const std::string& token, double wait_seconds = 10);

/// @brief A random hex string for tags.
std::string random_token();

}  // namespace mcb::campaign

#pragma once
/// @file
/// @brief Readers of what the batch systems' commands print, kept apart from running them so
/// that each is unit-tested on captured outputs (tests/jobscripts/queue_parse_test.cpp). Every
/// reader throws std::runtime_error naming what it could not read.

#include "jobscripts/queue.hpp"

#include <optional>
#include <string>
#include <vector>

namespace mcb::campaign::parse {

/// @brief A Slurm host list, expanded: "a[1-2],b[08-10,12],c" -> a1 a2 b08 b09 b10 b12 c.
std::vector<std::string> expand_hostlist(const std::string& list);

/// @brief Local calendar time "YYYY-MM-DDTHH:MM:SS" (Slurm's standard format) as seconds since
/// the epoch; nullopt for anything else ("Unknown", "N/A").
std::optional<double> local_time(const std::string& text);

/// @brief Seconds as Slurm's and PBS's "H:MM:SS" (rounded up to whole seconds, at least 1).
std::string hms(double seconds);

// --- Slurm -------------------------------------------------------------------------------------

/// @brief `scontrol --oneliner show job ID` (a heterogeneous job prints a line per component).
JobStatus slurm_job(const std::string& text);

/// @brief `sacct --noheader --parsable2 --allocations --format=State,NodeList,ExitCode` lines.
JobStatus slurm_accounted_job(const std::string& text);

/// @brief `squeue --noheader --format=%T|%C|%r` lines: states, processors, reasons.
QueueState slurm_queue(const std::string& text);

/// @brief `sinfo --noheader --format=%C`: "allocated/idle/other/total" processors; the total.
int slurm_total_processors(const std::string& text);

/// @brief The time in `sbatch --test-only` output ("sbatch: Job 5 to start at
/// 2026-11-27T17:02:31 using 4 processors on nodes a[1-2] in partition a").
double slurm_test_only_start(const std::string& text);

// --- Grid Engine -------------------------------------------------------------------------------

/// @brief One job of a qstat listing.
struct SgeJob {
  std::string id;
  std::string state;               //!< "qw", "hqw", "r", "s", "Eqw", "dr", "Rq", ...
  int slots = 0;                   //!< 0 in `-g t` listings (which have no slots column)
  std::vector<std::string> nodes;  //!< from `-g t` queue instances (all.q@host), each once
};

/// @brief `qstat -u '*'` or `qstat -u '*' -g t`: the jobs, in the listing's order.
std::vector<SgeJob> sge_jobs(const std::string& text);

/// @brief The status of a listed job from its state letters.
JobStatus sge_listed_status(const SgeJob& job);

/// @brief `qacct -j ID` of an ended job (the last record counts: a requeued job has one per
/// start): done when failed and exit_status are 0.
JobStatus sge_accounted_job(const std::string& text);

/// @brief Counts one listed job into @p q: held, pending or running (suspended jobs keep their
/// processors), with the processors it asks for.
void count_job(QueueState& q, const JobStatus& s, int processors);

/// @brief `qstat -u '*'` counted into a queue state (no total).
QueueState sge_queue(const std::vector<SgeJob>& jobs);

/// @brief `qstat -g c`: the TOTAL column summed over the cluster queues.
int sge_total_slots(const std::string& text);

// --- PBS ---------------------------------------------------------------------------------------

/// @brief One job of `qstat -f` (PBS Pro / OpenPBS "Job Id:" blocks of "key = value" lines).
struct PbsJob {
  std::string id;
  std::string state;               //!< job_state: Q, H, R, S, E, F, ...
  int ncpus = 0;                   //!< Resource_List.ncpus
  std::vector<std::string> nodes;  //!< from exec_host "n1/0*2+n2/0*2"
  std::optional<int> exit_status;  //!< Exit_status, once finished
  std::string comment;
};

/// @brief `qstat -f [-x] [ID]`: every job block.
std::vector<PbsJob> pbs_jobs(const std::string& text);

/// @brief The status of one job block.
JobStatus pbs_status(const PbsJob& job);

/// @brief The jobs of `qstat -f` counted into a queue state (no total).
QueueState pbs_queue(const std::vector<PbsJob>& jobs);

/// @brief `pbsnodes -a`: resources_available.ncpus summed over the nodes that are not down or
/// offline.
int pbs_total_processors(const std::string& text);

}  // namespace mcb::campaign::parse

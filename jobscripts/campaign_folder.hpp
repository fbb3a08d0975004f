#pragma once
/// @file
/// @brief A campaign's folder: where its records, plan, logs and jobscripts live, the lock that
/// keeps two executors apart, and the guard that keeps a folder to one spec.

#include "jobscripts/expansion.hpp"
#include "jobscripts/spec.hpp"

#include <string>

namespace mcb::campaign {

/// @brief Paths inside a campaign folder.
struct CampaignFolder {
  std::string root;

  std::string records() const { return root + "/records.jsonl"; }  //!< every run's record
  std::string plan() const { return root + "/plan.json"; }         //!< the expansion it runs
  std::string runs_dir() const { return root + "/runs"; }          //!< per-run logs and files
  std::string run_file(const std::string& key, const std::string& ext) const {
    return runs_dir() + "/" + key + ext;
  }
  std::string jobs_dir() const { return root + "/jobs"; }       //!< jobscripts and outputs
  std::string jobs_list() const { return root + "/jobs.txt"; }  //!< submitted job ids
  std::string inflight() const { return root + "/.inflight"; }  //!< the local run under way
  std::string lock_file() const { return root + "/.lock"; }
  std::string failed_attempts() const { return root + "/failed-attempts.log"; }

  /// @brief Creates the folder and its runs/ subfolder.
  void create() const;
};

/// @brief Holds the folder's lock for its lifetime (released by the kernel if the process dies).
class FolderLock {
 public:
  /// @throws std::runtime_error when another process holds it (naming that pid).
  explicit FolderLock(const CampaignFolder& folder);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

/// @brief Checks the plan against the one the folder was started with (same campaign, same
/// application, same arguments for every configuration index both know) and records it.
/// @throws mcb::UsageError naming the first difference.
void guard_plan(const CampaignSpec& spec, const Plan& plan, const CampaignFolder& folder);

/// @brief Checks the folder's stored plan (as guard_plan does) and records (readable, of a known
/// schema) without writing, then creates the folder: a refusal leaves nothing behind, no folder,
/// lock, runs/ or plan.json. Executors call it instead of CampaignFolder::create().
/// @throws UsageError naming the plan or the record's file and line.
void prepare_folder(const CampaignSpec& spec, const Plan& plan, const CampaignFolder& folder);

}  // namespace mcb::campaign

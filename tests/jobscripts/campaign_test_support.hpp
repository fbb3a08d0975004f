#pragma once
// Helpers of the mcb-campaign end-to-end tests: write a spec, run mcb-campaign, read records,
// find the processes of a campaign's runs.
#include "tests/support/command.hpp"
#include "tests/support/records.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace mcb::testing::campaign {

using nlohmann::json;

inline std::string poisson_binary() { return bin("mcb-poisson"); }

// Runs mcb-campaign with @p args (already quoted where needed).
inline CommandResult mcb_campaign(const std::string& args) {
  return run_command(quote(bin("mcb-campaign")) + " " + args);
}

inline std::string write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path.string();
}

using mcb::testing::read_records;

inline std::map<std::string, json> records_by_id(const std::filesystem::path& path) {
  std::map<std::string, json> by_id;
  for (const json& r : read_records(path)) by_id[r.at("run_id").get<std::string>()] = r;
  return by_id;
}

inline bool environ_has(pid_t pid, const std::string& entry) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  std::string item;
  while (std::getline(in, item, '\0')) {
    if (item == entry) return true;
  }
  return false;
}

inline std::string comm_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

// Live processes whose environment says they belong to run @p run_id (MCB_CAMPAIGN_RUN), and
// whose name is @p name when given.
inline std::vector<pid_t> run_processes(const std::string& run_id, const std::string& name = "") {
  std::vector<pid_t> pids;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string leaf = entry.path().filename().string();
    if (leaf.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(leaf));
    if (!environ_has(pid, "MCB_CAMPAIGN_RUN=" + run_id)) continue;
    if (!name.empty() && comm_of(pid) != name) continue;
    pids.push_back(pid);
  }
  return pids;
}

// Live processes of any run of campaign @p name (run ids "<name>-<index>-r<rep>").
inline std::vector<pid_t> campaign_processes(const std::string& name) {
  std::vector<pid_t> pids;
  const std::string prefix = "MCB_CAMPAIGN_RUN=" + name + "-";
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string leaf = entry.path().filename().string();
    if (leaf.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(leaf));
    std::ifstream in("/proc/" + leaf + "/environ", std::ios::binary);
    std::string item;
    while (std::getline(in, item, '\0')) {
      if (item.rfind(prefix, 0) == 0) {
        pids.push_back(pid);
        break;
      }
    }
  }
  return pids;
}

// Polls @p ready every 50 ms for up to @p seconds.
template <class Ready>
bool wait_for(Ready ready, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return ready();
}

// mcb-campaign started in the background, its output in files; killed if still running at the
// end of the test.
class BackgroundCampaign {
 public:
  BackgroundCampaign(const std::vector<std::string>& args, const std::string& out,
                     const std::string& err) {
    pid_ = ::fork();
    if (pid_ == 0) {
      const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(o, 1);
      ::dup2(e, 2);
      std::vector<std::string> words{bin("mcb-campaign")};
      words.insert(words.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (std::string& w : words) argv.push_back(w.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
  }
  ~BackgroundCampaign() {
    if (!done_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  BackgroundCampaign(const BackgroundCampaign&) = delete;
  BackgroundCampaign& operator=(const BackgroundCampaign&) = delete;

  pid_t pid() const { return pid_; }
  void signal(int sig) const { ::kill(pid_, sig); }
  // Exit code (or 128 + signal) once it ended, waiting up to @p seconds; -1 when still running.
  int wait(double seconds) {
    int status = 0;
    const bool ended = wait_for([&] { return ::waitpid(pid_, &status, WNOHANG) == pid_; }, seconds);
    if (!ended) return -1;
    done_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  pid_t pid_ = -1;
  bool done_ = false;
};

}  // namespace mcb::testing::campaign

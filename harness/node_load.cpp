#include "harness/node_load.hpp"

#include "harness/record.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

extern char** environ;

namespace mcb::harness {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr auto kStartTimeout = std::chrono::seconds(30);

std::string generator_path() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("--node-load: cannot find this program's folder");
  const fs::path path = self.parent_path() / "mcb-nodeload";
  if (!fs::exists(path)) {
    throw std::runtime_error("--node-load: " + path.string() + " is not built");
  }
  return path.string();
}

// The host the network load of @p host goes to: the next host of the run in rank order, and
// the host itself (over loopback) when the run has one.
std::string peer_of(const std::string& host, const std::vector<std::string>& hosts) {
  std::vector<std::string> distinct;
  for (const std::string& h : hosts) {
    if (std::find(distinct.begin(), distinct.end(), h) == distinct.end()) distinct.push_back(h);
  }
  if (distinct.size() < 2) return "localhost";
  const auto at = std::find(distinct.begin(), distinct.end(), host);
  return *(std::next(at) == distinct.end() ? distinct.begin() : std::next(at));
}

std::string ended_how(int status) {
  return WIFEXITED(status) ? "exit code " + std::to_string(WEXITSTATUS(status))
                           : "signal " + std::to_string(WTERMSIG(status));
}

}  // namespace

NodeLoadOnHosts::NodeLoadOnHosts(MPI_Comm world, const NodeLoadSpec& spec,
                                 const std::vector<std::string>& hosts)
    : world_(world), spec_(spec) {
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  const std::string& host = hosts.at(static_cast<std::size_t>(rank));
  const bool first_on_host =
      std::find(hosts.begin(), hosts.end(), host) - hosts.begin() == rank;
  if (!first_on_host) return;
  summary_ = (fs::temp_directory_path() /
              ("mcb-nodeload-" + std::to_string(getpid()) + ".json")).string();
  ready_ = summary_ + ".ready";
  try {
    const std::string program = generator_path();
    std::vector<std::string> words = {program,  "--load", format_node_load(spec),
                                      "--peer", peer_of(host, hosts),
                                      "--summary", summary_,   "--ready",
                                      ready_,  "--stop-with-parent"};
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    // posix_spawn, not fork: the rank's MPI library stays untouched in the parent.
    if (posix_spawn(&child_, program.c_str(), nullptr, nullptr, argv.data(), environ) != 0) {
      child_ = -1;
      throw std::runtime_error("--node-load: " + program + " could not be started");
    }
  } catch (const std::runtime_error& e) {
    start_failure_ = e.what();
  }
}

NodeLoadOnHosts::~NodeLoadOnHosts() {
  if (child_ > 0) {
    kill(child_, SIGTERM);
    waitpid(child_, nullptr, 0);
    std::error_code ec;
    fs::remove(summary_, ec);
    fs::remove(ready_, ec);
  }
}

void NodeLoadOnHosts::check_started() {
  if (!start_failure_.empty()) throw std::runtime_error(start_failure_);
  if (child_ <= 0) return;
  // The measurement starts only under its load: wait for the generator to say it runs.
  const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
  std::error_code ec;
  while (!fs::exists(ready_, ec)) {
    int status = 0;
    if (waitpid(child_, &status, WNOHANG) == child_) {
      child_ = -1;
      throw std::runtime_error("--node-load: mcb-nodeload ended before its load ran (" +
                               ended_how(status) + "; its message is above)");
    }
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("--node-load: mcb-nodeload did not start its load within 30 s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  fs::remove(ready_, ec);
}

void NodeLoadOnHosts::end() {
  if (child_ <= 0) return;
  kill(child_, SIGTERM);
  int status = 0;
  waitpid(child_, &status, 0);
  child_ = -1;
  std::ifstream in(summary_);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::error_code ec;
  fs::remove(summary_, ec);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || text.empty()) {
    throw std::runtime_error("--node-load: mcb-nodeload failed (" + ended_how(status) +
                             "; its message is above)");
  }
  summary_json_ = json::parse(text);
  read_node_load_summary(summary_json_);  // the summary's owner checks it
}

json NodeLoadOnHosts::record() const {
  const json all = gather_objects(world_, summary_json_);
  json hosts = json::array();
  for (const json& summary : all) {
    if (!summary.is_null()) hosts.push_back(summary);
  }
  return {{"load", node_load_json(spec_)}, {"hosts", hosts}};
}

}  // namespace mcb::harness

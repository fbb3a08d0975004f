#include "jobscripts/campaign_folder.hpp"

#include "common/errors.hpp"
#include "common/files.hpp"
#include "jobscripts/record_book.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace mcb::campaign {
namespace fs = std::filesystem;
using nlohmann::json;

void CampaignFolder::create() const {
  std::error_code ec;
  for (const std::string& dir : {root, runs_dir()}) {
    fs::create_directories(dir, ec);
    if (ec) throw std::runtime_error("cannot create folder '" + dir + "': " + ec.message());
  }
}

FolderLock::FolderLock(const CampaignFolder& folder) {
  fd_ = ::open(folder.lock_file().c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    throw std::runtime_error("cannot open '" + folder.lock_file() + "': " + std::strerror(errno));
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    char buf[32] = {};
    [[maybe_unused]] ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
    ::close(fd_);
    fd_ = -1;
    throw std::runtime_error("campaign folder '" + folder.root +
                             "' is in use by another mcb-campaign (pid " +
                             std::string(buf).substr(0, std::string(buf).find('\n')) + ")");
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) == 0) {
    [[maybe_unused]] ssize_t n = ::pwrite(fd_, pid.data(), pid.size(), 0);
  }
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {

// Refuses a stored plan that is not one or belongs to another campaign or spec; writes nothing.
void check_plan(const CampaignSpec& spec, const json& mine, const CampaignFolder& folder) {
  std::ifstream in(folder.plan());
  if (in) {
    json stored;
    try {
      stored = json::parse(in);
    } catch (const json::exception& e) {
      throw UsageError(folder.plan() + ": not a plan (" + e.what() + ")");
    }
    const std::string advice = "; use a new campaign name or --folder";
    if (stored.value("campaign", "") != spec.name) {
      throw UsageError(spec.where("", "name") + ": folder '" + folder.root + "' holds campaign '" +
                       stored.value("campaign", "") + "', not '" + spec.name + "'" + advice);
    }
    if (stored.value("app", "") != spec.app) {
      throw UsageError(spec.where("", "app") + ": campaign '" + spec.name + "' ran app '" +
                       stored.value("app", "") + "', not '" + spec.app + "'" + advice);
    }
    std::map<int, json> before;
    for (const json& c : stored.value("configurations", json::array())) {
      before[c.value("index", 0)] = c;
    }
    for (const json& c : mine["configurations"]) {
      const auto it = before.find(c["index"].get<int>());
      // Only configurations that run hold records under their ids; an invalid one has no
      // command line of its own (the application refused it).
      if (it == before.end() || !it->second.value("invalid", json()).is_null() ||
          !c["invalid"].is_null()) {
        continue;
      }
      for (const char* field : {"args", "ranks", "clusters"}) {
        if (it->second.value(field, json()) != c[field]) {
          throw UsageError(spec.file.path + ": the spec changed since campaign '" + spec.name +
                           "' started: configuration " + std::to_string(c["index"].get<int>()) +
                           " had " + field + " " + it->second.value(field, json()).dump() +
                           ", now " + c[field].dump() + advice);
        }
      }
    }
  }
}

}  // namespace

void guard_plan(const CampaignSpec& spec, const Plan& plan, const CampaignFolder& folder) {
  const json mine = plan.to_json(spec);
  check_plan(spec, mine, folder);
  write_file_atomically(folder.plan(), mine.dump(1) + "\n");
}

void prepare_folder(const CampaignSpec& spec, const Plan& plan, const CampaignFolder& folder) {
  // Everything a run would refuse is refused before the folder, its lock or runs/ exist.
  check_plan(spec, plan.to_json(spec), folder);
  RecordBook::read(folder.records());
  folder.create();
}

}  // namespace mcb::campaign

#include "common/environment.hpp"

#include "mcb_revision.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>

namespace mcb {

std::string suite_revision() { return MCB_REVISION; }

std::string utc_timestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string batch_job_id() {
  // The batch job the run belongs to, so a record can be matched to squeue/sacct (qstat, qacct).
  auto given = [](const char* name) {
    const char* value = std::getenv(name);
    return std::string(value ? value : "");
  };
  if (std::string slurm = given("SLURM_JOB_ID"); !slurm.empty()) return slurm;
  if (std::string pbs = given("PBS_JOBID"); !pbs.empty()) return pbs;
  // Grid Engine's JOB_ID is a name other tools use too: it counts only inside a Grid Engine job,
  // whose environment also holds SGE_ROOT.
  return given("SGE_ROOT").empty() ? "" : given("JOB_ID");
}

nlohmann::json environment_block(int argc, const char* const* argv) {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  nlohmann::json command = nlohmann::json::array();
  for (int i = 0; i < argc; ++i) command.push_back(argv[i]);
  const std::string batch = batch_job_id();
  return {{"host", host},
          {"batch_job_id", batch.empty() ? nlohmann::json(nullptr) : nlohmann::json(batch)},
          {"compiler", MCB_COMPILER},
          {"build_type", MCB_BUILD_TYPE},
          {"revision", suite_revision()},
          {"date", utc_timestamp()},
          {"command_line", command}};
}

}  // namespace mcb

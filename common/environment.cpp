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
  // The batch job the run belongs to, so a record can be matched to squeue/sacct (qstat).
  const char* slurm = std::getenv("SLURM_JOB_ID");
  const char* pbs = std::getenv("PBS_JOBID");
  if (slurm && *slurm) return slurm;
  return pbs && *pbs ? pbs : "";
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

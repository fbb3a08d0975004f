#include "jobscripts/smpi_executor.hpp"

#include "common/errors.hpp"
#include "common/files.hpp"
#include "jobscripts/local_executor.hpp"
#include "jobscripts/process.hpp"

namespace mcb::campaign {

std::string smpi_hostfile(const SmpiSettings& smpi, int ranks, int clusters) {
  const int per_cluster = ranks / clusters;
  std::string text;
  for (int rank = 0; rank < ranks; ++rank) {
    const int local = rank % per_cluster;
    text += smpi.clusters.at(static_cast<size_t>(rank / per_cluster)) + "-" +
            std::to_string(local / smpi.per_node) + "\n";
  }
  return text;
}

std::vector<std::string> smpi_command(const CampaignSpec& spec, const Plan& plan,
                                      const PlannedRun& run, const CampaignFolder& folder) {
  const Configuration& c = plan.of(run);
  const std::string hostfile = folder.run_file(run.key, ".hosts");
  write_file_atomically(hostfile, smpi_hostfile(spec.smpi, c.ranks, c.clusters));
  std::vector<std::string> argv{
      "smpirun",   "-np",   std::to_string(c.ranks), "-platform", spec.smpi.platform,
      "-hostfile", hostfile};
  argv.insert(argv.end(), spec.smpi.config.begin(), spec.smpi.config.end());
  argv.push_back(spec.smpi.binary);
  for (std::size_t i = 0; i < c.app_args.size(); ++i) {
    // smpirun drops empty words; "--counters ''" is the SMPI build's default anyway.
    if (c.app_args[i] == "--counters" && i + 1 < c.app_args.size() && c.app_args[i + 1].empty()) {
      ++i;
      continue;
    }
    argv.push_back(c.app_args[i]);
  }
  append_run_identity(argv, spec, run, folder);
  return argv;
}

void check_smpi_launcher(const CampaignSpec& spec) {
  if (!on_path("smpirun")) {
    throw UsageError(spec.where("", "executor") +
                     ": executor: 'smpi' needs SimGrid's smpirun on PATH (Debian: libsimgrid-dev)");
  }
}

}  // namespace mcb::campaign

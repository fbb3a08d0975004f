// PBS: one select statement with a chunk set per cluster (the cluster named through a chunk
// resource, e.g. select=2:ncpus=4:mpiprocs=4:cluster=A+2:ncpus=4:mpiprocs=4:cluster=B), runs
// launched over $PBS_NODEFILE, the rank-to-cluster map written from the chunk order.
#include "jobscripts/batch.hpp"

#include "jobscripts/shell.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace mcb::campaign {
namespace {

class PbsSystem : public BatchSystem {
 public:
  using BatchSystem::BatchSystem;

  std::string name() const override { return "pbs"; }
  std::string script_extension() const override { return ".pbs"; }

  std::string submit(const std::string& script) const override {
    std::string id = first_line(queue_command({"qsub", script}, folder_.root, "qsub"));
    if (id.empty()) throw std::runtime_error("qsub printed no job id");
    return id;
  }

  std::map<std::string, JobState> active_jobs() const override {
    // "qstat" lists queued, running and held jobs: "<id> <name> <user> <time> <state> <queue>".
    std::istringstream in(queue_command({"qstat"}, "", "qstat cannot read the queue"));
    std::map<std::string, JobState> jobs;
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::vector<std::string> f;
      std::string w;
      while (fields >> w) f.push_back(w);
      if (f.size() < 5 || f[0].find_first_of("0123456789") != 0) continue;
      if (f[4] == "F" || f[4] == "C") continue;  // finished, completed
      jobs[f[0]] = {f[4], "", std::nullopt, true};
      // qstat shortens long ids ("123.server-na*"); the number alone also identifies the job.
      jobs[f[0].substr(0, f[0].find('.'))] = {f[4], "", std::nullopt, true};
    }
    return jobs;
  }

  std::string final_state(const std::string&) const override { return ""; }

 protected:
  const std::string& jobscript_template() const override { return pbs_template(); }

  std::string directives(const JobBatch& batch) const override {
    const PbsSettings& p = spec_.pbs;
    const int chunks = batch.ranks / batch.clusters / p.procs_per_chunk;
    std::string select;
    for (int c = 0; c < batch.clusters; ++c) {
      if (c > 0) select += '+';
      select += std::to_string(chunks);
      select += ":ncpus=" + std::to_string(p.procs_per_chunk);
      select += ":mpiprocs=" + std::to_string(p.procs_per_chunk);
      if (!p.cluster_resource.empty() && !p.clusters.empty()) {
        select += ":" + p.cluster_resource + "=" + p.clusters[static_cast<std::size_t>(c)];
      }
    }
    std::ostringstream lines;
    lines << "#PBS -N mcb-" << plain_name(spec_.name, 12) << "-" << batch.name << "\n"
          << "#PBS -l select=" << select << "\n"
          << "#PBS -l walltime=" << walltime(batch) << "\n"
          << "#PBS -j oe\n"
          << "#PBS -o jobs/" << batch.name << ".out\n";
    if (!p.queue.empty()) lines << "#PBS -q " << p.queue << "\n";
    if (!p.account.empty()) lines << "#PBS -A " << p.account << "\n";
    for (const std::string& d : p.directives) lines << "#PBS " << d << "\n";
    return lines.str();
  }

  std::string run_lines(const JobBatch& batch, const PlannedRun& run) const override {
    const PbsSettings& p = spec_.pbs;
    std::ostringstream lines;
    std::vector<std::string> extra;
    if (batch.clusters > 1) {
      const std::string map = folder_.run_file(run.key, ".map");
      lines << "mcb_write_map " << shell_quote(map);
      for (int c = 0; c < batch.clusters; ++c) {
        const std::string label = p.clusters.empty() ? "cluster" + std::to_string(c)
                                                     : p.clusters[static_cast<std::size_t>(c)];
        lines << " " << batch.ranks / batch.clusters << " " << shell_quote(label);
      }
      lines << "\n";
      extra = {"--cluster-map", map};
    }
    std::string launch = shell_words(p.launcher) + " -np " + std::to_string(batch.ranks);
    if (!p.hostfile_flag.empty()) {
      launch += ' ';
      launch += shell_quote(p.hostfile_flag);
      launch += " \"$PBS_NODEFILE\"";
    }
    // mpirun, unlike srun here, returns when its ranks end: only the record marks the end.
    lines << run_prefix(run, 0) << " " << launch << " " << shell_words(app_command(run, extra))
          << "\n";
    return lines.str();
  }

 private:
  std::string walltime(const JobBatch& batch) const {
    if (!spec_.pbs.walltime.empty()) return spec_.pbs.walltime;
    const long s = static_cast<long>(std::ceil(job_seconds(batch)));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%02ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
    return buf;
  }
};

}  // namespace

std::unique_ptr<BatchSystem> make_pbs_system(const CampaignSpec& spec, const Plan& plan,
                                             const CampaignFolder& folder) {
  return std::make_unique<PbsSystem>(spec, plan, folder);
}

}  // namespace mcb::campaign

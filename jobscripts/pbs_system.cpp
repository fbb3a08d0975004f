// PBS: one select statement with a chunk set per cluster (the cluster named through a chunk
// resource, e.g. select=2:ncpus=4:mpiprocs=4:cluster=A+2:ncpus=4:mpiprocs=4:cluster=B), runs
// launched over $PBS_NODEFILE, the rank-to-cluster map written from the chunk order.
#include "jobscripts/batch.hpp"

#include "common/errors.hpp"
#include "jobscripts/process.hpp"
#include "jobscripts/shell.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace mcb::campaign {
namespace {

class PbsSystem : public BatchSystem {
 public:
  PbsSystem(const CampaignSpec& spec, const Plan& plan, const CampaignFolder& folder)
      : spec_(spec), plan_(plan), folder_(folder) {}

  std::string name() const override { return "pbs"; }
  std::string script_extension() const override { return ".pbs"; }
  int group_size() const override { return spec_.pbs.group; }

  std::string render(const JobBatch& batch) const override {
    const PbsSettings& p = spec_.pbs;
    const int per_cluster = batch.ranks / batch.clusters;
    const int chunks = per_cluster / p.procs_per_chunk;
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
    std::ostringstream directives;
    directives << "#PBS -N mcb-" << plain_name(spec_.name, 12) << "-" << batch.name << "\n"
               << "#PBS -l select=" << select << "\n"
               << "#PBS -l walltime=" << walltime(batch) << "\n"
               << "#PBS -j oe\n"
               << "#PBS -o jobs/" << batch.name << ".out\n";
    if (!p.queue.empty()) directives << "#PBS -q " << p.queue << "\n";
    if (!p.account.empty()) directives << "#PBS -A " << p.account << "\n";
    for (const std::string& d : p.directives) directives << "#PBS " << d << "\n";

    std::string keys;
    std::ostringstream runs;
    for (const PlannedRun* run : batch.runs) {
      keys += keys.empty() ? "" : " ";
      keys += run->key;
      std::vector<std::string> extra;
      if (batch.clusters > 1) {
        const std::string map = folder_.run_file(run->key, ".map");
        runs << "mcb_write_map " << shell_quote(map);
        for (int c = 0; c < batch.clusters; ++c) {
          const std::string label = p.clusters.empty() ? "cluster" + std::to_string(c)
                                                       : p.clusters[static_cast<std::size_t>(c)];
          runs << " " << per_cluster << " " << shell_quote(label);
        }
        runs << "\n";
        extra = {"--cluster-map", map};
      }
      std::string launch = shell_words(p.launcher) + " -np " + std::to_string(batch.ranks);
      if (!p.hostfile_flag.empty()) {
        launch += ' ';
        launch += shell_quote(p.hostfile_flag);
        launch += " \"$PBS_NODEFILE\"";
      }
      // mpirun, unlike srun here, returns when its ranks end: only the record marks the end.
      runs << mcb_run_prefix(spec_, *run, p.linger, 0) << " " << launch << " "
           << shell_words(batch_app_command(spec_, plan_, *run, folder_, extra)) << "\n";
    }
    std::string text = directives.str();
    text.pop_back();
    return fill_template(pbs_template(), {{"CAMPAIGN", plain_name(spec_.name, 80)},
                                          {"KEYS", keys},
                                          {"SCRIPT", "jobs/" + batch.name + script_extension()},
                                          {"DIRECTIVES", text},
                                          {"RUN_FUNCTIONS", run_functions_template()},
                                          {"FOLDER", shell_quote(folder_.root)},
                                          {"ENVIRONMENT", export_lines(spec_)},
                                          {"SETUP", setup_line(p.setup)},
                                          {"RUNS", runs.str()}});
  }

  std::string submit(const std::string& script) const override {
    const Captured r = capture({"qsub", script}, folder_.root, 120);
    if (!r.start_error.empty()) throw std::runtime_error("cannot run " + r.start_error);
    if (r.timed_out) throw std::runtime_error("qsub did not answer in 120 s");
    if (!r.status.success())
      throw std::runtime_error("qsub " + r.status.describe() + ": " + trim(r.err));
    const std::string id = trim(r.out);
    if (id.empty()) throw std::runtime_error("qsub printed no job id");
    return id;
  }

  std::map<std::string, std::string> active_jobs() const override {
    // "qstat" lists queued, running and held jobs: "<id> <name> <user> <time> <state> <queue>".
    const Captured r = capture({"qstat"}, "", 120);
    if (!r.start_error.empty()) throw std::runtime_error("cannot run " + r.start_error);
    if (r.timed_out || !r.status.success()) {
      throw std::runtime_error("qstat cannot read the queue: " +
                               (r.timed_out ? std::string("no answer in 120 s") : trim(r.err)));
    }
    std::map<std::string, std::string> jobs;
    std::istringstream in(r.out);
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::vector<std::string> f;
      std::string w;
      while (fields >> w) f.push_back(w);
      if (f.size() < 5 || f[0].find_first_of("0123456789") != 0) continue;
      if (f[4] == "F" || f[4] == "C") continue;  // finished, completed
      jobs[f[0]] = f[4];
      // qstat shortens long ids ("123.server-na*"); the number alone also identifies the job.
      jobs[f[0].substr(0, f[0].find('.'))] = f[4];
    }
    return jobs;
  }

  std::string final_state(const std::string&) const override { return ""; }

 private:
  static std::string trim(const std::string& text) {
    const auto b = text.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    return text.substr(b, text.find_last_not_of(" \t\r\n") - b + 1);
  }

  std::string walltime(const JobBatch& batch) const {
    if (!spec_.pbs.walltime.empty()) return spec_.pbs.walltime;
    const long s =
        static_cast<long>(std::ceil(batch_seconds(spec_, batch.runs.size(), spec_.pbs.linger)));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%02ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
    return buf;
  }

  const CampaignSpec& spec_;
  const Plan& plan_;
  const CampaignFolder& folder_;
};

}  // namespace

std::unique_ptr<BatchSystem> make_pbs_system(const CampaignSpec& spec, const Plan& plan,
                                             const CampaignFolder& folder) {
  return std::make_unique<PbsSystem>(spec, plan, folder);
}

}  // namespace mcb::campaign

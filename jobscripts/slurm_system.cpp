// Slurm: a single-cluster run is a plain job; a run over C clusters is a heterogeneous job with
// one component per cluster (partition from the spec, ranks/C tasks each), launched across all
// components with srun --het-group, each rank told its cluster by the partition of its component.
#include "jobscripts/batch.hpp"

#include "common/errors.hpp"
#include "jobscripts/process.hpp"
#include "jobscripts/shell.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>

namespace mcb::campaign {
namespace fs = std::filesystem;
namespace {

class SlurmSystem : public BatchSystem {
 public:
  using BatchSystem::BatchSystem;

  std::string name() const override { return "slurm"; }
  std::string script_extension() const override { return ".sbatch"; }

  std::string submit(const std::string& script) const override {
    // --parsable prints "<id>" or "<id>;<cluster>".
    const std::string line =
        first_line(queue_command({"sbatch", "--parsable", script}, folder_.root, "sbatch"));
    std::string id = line.substr(0, line.find(';'));
    if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
      throw std::runtime_error("sbatch printed no job id: '" + line + "'");
    }
    return id;
  }

  std::map<std::string, JobState> active_jobs() const override {
    // %i is "<id>" for plain jobs and "<leader>+<component>" for heterogeneous ones; %M the
    // time used ([D-][H:]M:SS), %N the nodes (empty while pending).
    return read_listing(queue_command({"squeue", "--noheader", "--me", "--format=%i|%T|%M|%N"}, "",
                                      "squeue cannot read the queue"),
                        /*from_accounting=*/false);
  }

  std::map<std::string, JobState> accounted_jobs(
      const std::vector<std::string>& ids) const override {
    std::string list;
    for (const std::string& id : ids) list += (list.empty() ? "" : ",") + id;
    return read_listing(
        queue_command({"sacct", "--noheader", "--parsable2", "--allocations", "--jobs=" + list,
                       "--format=JobID,State,ElapsedRaw,NodeList"},
                      "", "sacct"),
        /*from_accounting=*/true);
  }

  std::string final_state(const std::string& job_id) const override {
    const Captured r = capture({"scontrol", "--oneliner", "show", "job", job_id}, "", 30);
    if (!r.start_error.empty() || !r.status.success()) return "";
    std::string state;
    std::string reason;
    std::istringstream in(r.out);
    std::string word;
    while (in >> word) {
      if (word.rfind("JobState=", 0) == 0 && state.empty()) state = word.substr(9);
      if (word.rfind("Reason=", 0) == 0 && reason.empty()) reason = word.substr(7);
    }
    if (state.empty()) return "";
    return "Slurm state " + state +
           (reason.empty() || reason == "None" ? "" : ", reason " + reason);
  }

 protected:
  const std::string& jobscript_template() const override { return slurm_template(); }

  std::string directives(const JobBatch& batch) const override {
    const SlurmSettings& s = spec_.slurm;
    const bool srun = fs::path(s.launcher.front()).filename() == "srun";
    if (batch.clusters > 1 && !srun) {
      throw UsageError(spec_.where("slurm", "launcher") + ": launcher: '" + s.launcher.front() +
                       "' cannot span a heterogeneous job's components (use srun: mpirun inside "
                       "it sees only the first component)");
    }
    std::ostringstream lines;
    const std::string job_name = "mcb-" + plain_name(spec_.name, 24) + "-" + batch.name;
    lines << "#SBATCH --job-name=" << job_name << "\n"
          << "#SBATCH --output=jobs/" << batch.name << ".%j.out\n";
    for (int c = 0; c < batch.clusters; ++c) {
      if (c > 0) lines << "#SBATCH hetjob\n";
      lines << "#SBATCH --partition=" << s.partitions[static_cast<std::size_t>(c)] << "\n"
            << "#SBATCH --ntasks=" << batch.ranks / batch.clusters << "\n";
      if (s.tasks_per_node > 0) lines << "#SBATCH --ntasks-per-node=" << s.tasks_per_node << "\n";
      lines << "#SBATCH --time=" << time_limit(batch) << "\n";
      if (!s.account.empty()) lines << "#SBATCH --account=" << s.account << "\n";
      if (!s.qos.empty()) lines << "#SBATCH --qos=" << s.qos << "\n";
      for (const std::string& d : s.directives) lines << "#SBATCH " << d << "\n";
    }
    return lines.str();
  }

  std::string run_lines(const JobBatch& batch, const PlannedRun& run) const override {
    std::vector<std::string> launcher = spec_.slurm.launcher;
    if (batch.clusters > 1) {
      std::string groups;
      for (int c = 0; c < batch.clusters; ++c) {
        if (c > 0) groups += ',';
        groups += std::to_string(c);
      }
      launcher.push_back("--het-group=" + groups);
    }
    const std::vector<std::string> app = app_command(run, {"--cluster-map", "env:MCB_CLUSTER"});
    return run_prefix(run, plan_.of(run).ranks) + " " + shell_words(launcher) +
           " bash -c \"$mcb_task_label\" mcb-task " + shell_words(app) + "\n";
  }

 private:
  // Lines "ID|STATE|ELAPSED|NODES" of squeue or sacct; a heterogeneous job's components are
  // one job, their nodes joined. squeue lists only jobs that may still run; sacct lists ended
  // ones too, writes "CANCELLED by 0" (the state is the first word) and elapsed in seconds.
  static std::map<std::string, JobState> read_listing(const std::string& text,
                                                      bool from_accounting) {
    const bool raw_seconds = from_accounting;
    std::map<std::string, JobState> jobs;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      std::vector<std::string> f;
      std::istringstream fields(line);
      std::string field;
      while (std::getline(fields, field, '|')) f.push_back(field);
      if (f.size() < 3 || f[0].empty()) continue;
      JobState& job = jobs[f[0].substr(0, f[0].find('+'))];
      job.state = f[1].substr(0, f[1].find(' '));
      job.active = !from_accounting || kActive.count(job.state) > 0;
      if (const auto seconds = elapsed_seconds(f[2], raw_seconds))
        job.elapsed = std::max(job.elapsed.value_or(0), *seconds);
      if (f.size() > 3 && !f[3].empty() && f[3] != "None assigned")
        job.nodes += (job.nodes.empty() ? "" : ",") + f[3];
    }
    return jobs;
  }

  static std::optional<double> elapsed_seconds(const std::string& text, bool raw_seconds) {
    try {
      if (raw_seconds) return std::stod(text);
      const auto dash = text.find('-');
      const double days = dash == std::string::npos ? 0 : std::stod(text.substr(0, dash));
      return days * 86400 + parse_seconds(dash == std::string::npos ? text : text.substr(dash + 1));
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }

  // The states sacct gives a job that may still run.
  static inline const std::set<std::string> kActive = {
      "PENDING",   "RUNNING",     "CONFIGURING",  "COMPLETING", "SUSPENDED",
      "REQUEUED",  "REQUEUE_FED", "REQUEUE_HOLD", "RESIZING",   "SIGNALING",
      "STAGE_OUT", "STOPPED",     "RESV_DEL_HOLD"};

  std::string time_limit(const JobBatch& batch) const {
    if (!spec_.slurm.time.empty()) return spec_.slurm.time;
    return std::to_string(static_cast<long>(std::ceil(job_seconds(batch) / 60.0)));
  }
};

}  // namespace

std::unique_ptr<BatchSystem> make_slurm_system(const CampaignSpec& spec, const Plan& plan,
                                               const CampaignFolder& folder) {
  return std::make_unique<SlurmSystem>(spec, plan, folder);
}

}  // namespace mcb::campaign

// Slurm: a single-cluster run is a plain job; a run over C clusters is a heterogeneous job with
// one component per cluster (partition from the spec, ranks/C tasks each), launched across all
// components with srun --het-group, each rank told its cluster by the partition of its component.
#include "jobscripts/batch.hpp"

#include "common/errors.hpp"
#include "jobscripts/process.hpp"
#include "jobscripts/shell.hpp"

#include <cmath>
#include <filesystem>
#include <sstream>
#include <stdexcept>

namespace mcb::campaign {
namespace fs = std::filesystem;
namespace {

class SlurmSystem : public BatchSystem {
 public:
  SlurmSystem(const CampaignSpec& spec, const Plan& plan, const CampaignFolder& folder)
      : spec_(spec), plan_(plan), folder_(folder) {}

  std::string name() const override { return "slurm"; }
  std::string script_extension() const override { return ".sbatch"; }
  int group_size() const override { return spec_.slurm.group; }

  std::string render(const JobBatch& batch) const override {
    const SlurmSettings& s = spec_.slurm;
    const bool srun = fs::path(s.launcher.front()).filename() == "srun";
    if (batch.clusters > 1 && !srun) {
      throw UsageError(spec_.where("slurm", "launcher") + ": launcher: '" + s.launcher.front() +
                       "' cannot span a heterogeneous job's components (use srun: mpirun inside "
                       "it sees only the first component)");
    }
    std::ostringstream directives;
    const std::string job_name = "mcb-" + plain_name(spec_.name, 24) + "-" + batch.name;
    directives << "#SBATCH --job-name=" << job_name << "\n"
               << "#SBATCH --output=jobs/" << batch.name << ".%j.out\n";
    const int per_cluster = batch.ranks / batch.clusters;
    for (int c = 0; c < batch.clusters; ++c) {
      if (c > 0) directives << "#SBATCH hetjob\n";
      directives << "#SBATCH --partition=" << s.partitions[static_cast<std::size_t>(c)] << "\n"
                 << "#SBATCH --ntasks=" << per_cluster << "\n";
      if (s.tasks_per_node > 0)
        directives << "#SBATCH --ntasks-per-node=" << s.tasks_per_node << "\n";
      directives << "#SBATCH --time=" << time_limit(batch) << "\n";
      if (!s.account.empty()) directives << "#SBATCH --account=" << s.account << "\n";
      if (!s.qos.empty()) directives << "#SBATCH --qos=" << s.qos << "\n";
      for (const std::string& d : s.directives) directives << "#SBATCH " << d << "\n";
    }

    std::string keys;
    std::ostringstream runs;
    for (const PlannedRun* run : batch.runs) {
      keys += keys.empty() ? "" : " ";
      keys += run->key;
      std::vector<std::string> launcher = s.launcher;
      if (batch.clusters > 1) {
        std::string groups;
        for (int c = 0; c < batch.clusters; ++c) {
          if (c > 0) groups += ',';
          groups += std::to_string(c);
        }
        launcher.push_back("--het-group=" + groups);
      }
      const std::vector<std::string> app =
          batch_app_command(spec_, plan_, *run, folder_, {"--cluster-map", "env:MCB_CLUSTER"});
      runs << mcb_run_prefix(spec_, *run, s.linger, plan_.of(*run).ranks) << " "
           << shell_words(launcher)
           << " bash -c \"$mcb_task_label\" mcb-task " << shell_words(app) << "\n";
    }
    std::string text = directives.str();
    text.pop_back();
    return fill_template(slurm_template(), {{"CAMPAIGN", plain_name(spec_.name, 80)},
                                            {"KEYS", keys},
                                            {"SCRIPT", "jobs/" + batch.name + script_extension()},
                                            {"DIRECTIVES", text},
                                            {"RUN_FUNCTIONS", run_functions_template()},
                                            {"FOLDER", shell_quote(folder_.root)},
                                            {"ENVIRONMENT", export_lines(spec_)},
                                            {"SETUP", setup_line(s.setup)},
                                            {"RUNS", runs.str()}});
  }

  std::string submit(const std::string& script) const override {
    const Captured r = capture({"sbatch", "--parsable", script}, folder_.root, 120);
    if (!r.start_error.empty()) throw std::runtime_error("cannot run " + r.start_error);
    if (r.timed_out) throw std::runtime_error("sbatch did not answer in 120 s");
    if (!r.status.success())
      throw std::runtime_error("sbatch " + r.status.describe() + ": " + first_line(r.err));
    // --parsable prints "<id>" or "<id>;<cluster>".
    const std::string id = first_line(r.out).substr(0, first_line(r.out).find(';'));
    if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
      throw std::runtime_error("sbatch printed no job id: '" + first_line(r.out) + "'");
    }
    return id;
  }

  std::map<std::string, std::string> active_jobs() const override {
    // %i is "<id>" for plain jobs and "<leader>+<component>" for heterogeneous ones.
    const Captured r = capture({"squeue", "--noheader", "--me", "--format=%i %T"}, "", 120);
    if (!r.start_error.empty()) throw std::runtime_error("cannot run " + r.start_error);
    if (r.timed_out || !r.status.success()) {
      throw std::runtime_error(
          "squeue cannot read the queue: " +
          (r.timed_out ? std::string("no answer in 120 s") : first_line(r.err)));
    }
    std::map<std::string, std::string> jobs;
    std::istringstream in(r.out);
    std::string id;
    std::string state;
    while (in >> id >> state) jobs[id.substr(0, id.find('+'))] = state;
    return jobs;
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

 private:
  static std::string first_line(const std::string& text) {
    const auto start = text.find_first_not_of("\n");
    if (start == std::string::npos) return "";
    return text.substr(start, text.find('\n', start) - start);
  }

  std::string time_limit(const JobBatch& batch) const {
    if (!spec_.slurm.time.empty()) return spec_.slurm.time;
    const long minutes = static_cast<long>(
        std::ceil(batch_seconds(spec_, batch.runs.size(), spec_.slurm.linger) / 60.0));
    return std::to_string(minutes);
  }

  const CampaignSpec& spec_;
  const Plan& plan_;
  const CampaignFolder& folder_;
};

}  // namespace

std::unique_ptr<BatchSystem> make_slurm_system(const CampaignSpec& spec, const Plan& plan,
                                               const CampaignFolder& folder) {
  return std::make_unique<SlurmSystem>(spec, plan, folder);
}

}  // namespace mcb::campaign

#include "jobscripts/spec.hpp"

#include "common/errors.hpp"
#include "common/text.hpp"
#include "common/units.hpp"
#include "jobscripts/spec_reader.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

namespace mcb::campaign {
namespace fs = std::filesystem;
namespace {

using spec_detail::absolute_from;
using spec_detail::directive_safe;
using spec_detail::env_name;
using spec_detail::KeyRule;
using spec_detail::SpecReader;

// Keys each section accepts; those marked repeatable collect every line, others may appear once.
const spec_detail::KnownKeys& known_keys() {
  static const spec_detail::KnownKeys keys = {
      {"",
       {{"name", {}},
        {"app", {}},
        {"binary", {}},
        {"folder", {}},
        {"repetitions", {}},
        {"executor", {}},
        {"on-invalid", {}},
        {"timeout", {}},
        {"env", {true}}}},
      {"local", {{"launcher", {}}, {"np-flag", {}}}},
      {"smpi",
       {{"platform", {}}, {"clusters", {}}, {"per-node", {}}, {"binary", {}}, {"config", {}}}},
      {"slurm",
       {{"partitions", {}},
        {"tasks-per-node", {}},
        {"time", {}},
        {"account", {}},
        {"qos", {}},
        {"directive", {true}},
        {"launcher", {}},
        {"group", {}},
        {"setup", {}},
        {"linger", {}}}},
      {"pbs",
       {{"queue", {}},
        {"account", {}},
        {"cluster-resource", {}},
        {"clusters", {}},
        {"procs-per-chunk", {}},
        {"walltime", {}},
        {"directive", {true}},
        {"launcher", {}},
        {"hostfile-flag", {}},
        {"group", {}},
        {"setup", {}},
        {"linger", {}}}},
  };
  static const spec_detail::KnownKeys with_coalloc = [] {
    spec_detail::KnownKeys all = keys;
    for (const std::string& key : coalloc_keys()) all["coalloc"][key] = {};
    return all;
  }();
  return with_coalloc;
}

void read_options(const SpecReader& reader, const ini::File& file, CampaignSpec& spec) {
  for (const ini::Entry& e : file.entries) {
    if (e.section != "options") continue;
    std::vector<std::string> values = reader.words(e);
    if (values.empty()) {
      throw reader.error(e, "empty list of values (give one value, or several to sweep)");
    }
    auto it = std::find_if(spec.options.begin(), spec.options.end(),
                           [&](const OptionAxis& a) { return a.key == e.key; });
    if (it == spec.options.end()) {
      spec.options.push_back({e.key, std::move(values), e.line});
    } else {
      it->values.insert(it->values.end(), values.begin(), values.end());
    }
  }
  for (const OptionAxis& axis : spec.options) {
    std::set<std::string> seen;
    for (const std::string& v : axis.values) {
      if (!seen.insert(v).second) {
        throw UsageError(file.where(axis.line) + ": " + axis.key + ": '" + v + "' is listed twice");
      }
    }
  }
}

// The keys [slurm] and [pbs] share.
void read_batch_settings(const SpecReader& reader, const std::string& section,
                         const std::string& dir, BatchSettings& settings) {
  reader.set_directive_name(section, "account", settings.account);
  reader.set_directives(section, settings.directives);
  reader.set_words(section, "launcher", settings.launcher);
  reader.set_int(section, "group", settings.group, 1);
  reader.set_file(section, "setup", dir, settings.setup);
  reader.set_seconds(section, "linger", settings.linger, true);
}

bool known_executor(const std::string& name) {
  return name == "local" || name == "smpi" || name == "slurm" || name == "pbs" || name == "coalloc";
}

// [smpi]: the platform by name (platforms/smpi/NAME.xml of the source tree the programs were
// built from) or as a file, the zones of its clusters, and the SMPI build of the app.
void read_smpi_settings(const SpecReader& reader, CampaignSpec& spec) {
  SmpiSettings& smpi = spec.smpi;
  const fs::path source = fs::path(program_directory()).parent_path().parent_path();
  if (const ini::Entry* e = reader.find("smpi", "platform")) {
    const std::string value = reader.text(*e);
    const bool named = value.find('/') == std::string::npos && !value.ends_with(".xml");
    smpi.platform = named ? (source / "platforms" / "smpi" / (value + ".xml")).string()
                          : absolute_from(spec.dir, value);
    if (!fs::is_regular_file(smpi.platform)) {
      throw reader.error(*e, "'" + value + "': no platform file '" + smpi.platform + "'");
    }
  }
  reader.set_words("smpi", "clusters", smpi.clusters);
  reader.set_int("smpi", "per-node", smpi.per_node, 1);
  reader.set_words("smpi", "config", smpi.config);
  if (const ini::Entry* e = reader.find("smpi", "binary")) {
    smpi.binary = absolute_from(spec.dir, reader.text(*e));
  } else {
    smpi.binary = (source / "build-smpi" / "bin" / ("mcb-" + spec.app)).string();
  }
  if (spec.executor != "smpi") return;
  if (smpi.platform.empty()) {
    throw UsageError(spec.file.path +
                     ": [smpi] platform: missing (a name in platforms/smpi/, e.g. "
                     "'platform = das2-globus', or a SimGrid platform file)");
  }
  if (smpi.clusters.empty()) {
    throw UsageError(spec.file.path +
                     ": [smpi] clusters: missing (the platform's cluster of each cluster of "
                     "a run, e.g. 'clusters = fs0 fs1 fs2 fs3')");
  }
  if (::access(smpi.binary.c_str(), X_OK) != 0) {
    const ini::Entry* e = reader.find("smpi", "binary");
    const std::string why =
        "'" + smpi.binary + "' is not an executable SMPI build (./mcb smpi-build)";
    if (e) throw reader.error(*e, why);
    throw UsageError(spec.file.path + ": [smpi] binary: " + why);
  }
}

void check_executor_settings(const SpecReader& reader, const CampaignSpec& spec) {
  if (spec.executor == "slurm") {
    if (spec.slurm.partitions.empty()) {
      throw UsageError(spec.file.path +
                       ": [slurm] partitions: missing (the partition of each "
                       "cluster, e.g. 'partitions = clusterA clusterB')");
    }
    std::set<std::string> seen;
    const ini::Entry* e = reader.find("slurm", "partitions");
    for (const std::string& p : spec.slurm.partitions) {
      if (!directive_safe(p)) {
        throw reader.error(*e, "'" + p + "' may hold only letters, digits, '-', '_' and '.'");
      }
      if (!seen.insert(p).second) {
        throw reader.error(*e, "'" + p +
                                   "' is listed twice (each cluster needs its own "
                                   "partition: ranks learn their cluster from it)");
      }
    }
    if (!spec.slurm.time.empty() && !directive_safe(spec.slurm.time, ":")) {
      throw reader.error(*reader.find("slurm", "time"),
                         "'" + spec.slurm.time + "' is not a Slurm time ([D-]HH:MM:SS or minutes)");
    }
  }
  if (spec.executor == "pbs") {
    if (!spec.pbs.clusters.empty() && spec.pbs.cluster_resource.empty()) {
      throw UsageError(spec.file.path +
                       ": [pbs] clusters: needs cluster-resource (the chunk "
                       "resource whose value names a node's cluster)");
    }
    const ini::Entry* e = reader.find("pbs", "clusters");
    std::set<std::string> seen;
    for (const std::string& c : spec.pbs.clusters) {
      if (!directive_safe(c)) {
        throw reader.error(*e, "'" + c + "' may hold only letters, digits, '-', '_' and '.'");
      }
      if (!seen.insert(c).second) throw reader.error(*e, "'" + c + "' is listed twice");
    }
    if (!spec.pbs.walltime.empty() && !directive_safe(spec.pbs.walltime, ":")) {
      throw reader.error(*reader.find("pbs", "walltime"),
                         "'" + spec.pbs.walltime + "' is not a PBS walltime (HH:MM:SS)");
    }
  }
}

}  // namespace

std::string program_directory() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path().string() : self.parent_path().string();
}

double parse_seconds(const std::string& text) {
  // HH:MM:SS (or MM:SS), as batch systems write limits.
  if (text.find(':') != std::string::npos) {
    double total = 0;
    std::size_t start = 0;
    int parts = 0;
    while (true) {
      const auto colon = text.find(':', start);
      const std::string part =
          text.substr(start, colon == std::string::npos ? colon : colon - start);
      if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos) {
        throw std::invalid_argument("'" + text + "' is not HH:MM:SS");
      }
      total = total * 60 + std::stod(part);
      ++parts;
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
    if (parts > 3) throw std::invalid_argument("'" + text + "' is not HH:MM:SS");
    if (total > kLongestDuration) {
      throw std::invalid_argument("'" + text + "' is above the cap of 1e12 s");
    }
    return total;
  }
  return parse_duration(text);  // with its units (2h, 90min) and its cap
}

std::string CampaignSpec::where(const std::string& section, const std::string& key) const {
  for (const ini::Entry& e : file.entries) {
    if (e.section == section && e.key == key) return file.where(e.line);
  }
  return file.path;
}

const OptionAxis* CampaignSpec::axis(const std::string& key) const {
  for (const OptionAxis& a : options) {
    if (a.key == key) return &a;
  }
  return nullptr;
}

int CampaignSpec::executor_clusters() const {
  if (executor == "smpi") return static_cast<int>(smpi.clusters.size());
  if (executor == "coalloc") return static_cast<int>(coalloc.clusters.size());
  if (executor == "slurm") return static_cast<int>(slurm.partitions.size());
  if (executor == "pbs") return pbs.clusters.empty() ? 1 : static_cast<int>(pbs.clusters.size());
  return 0;
}

const BatchSettings& CampaignSpec::batch() const {
  if (executor == "slurm") return slurm;
  if (executor == "pbs") return pbs;
  throw std::logic_error("no batch settings for executor " + executor);
}

CampaignSpec load_spec(const std::string& path, const SpecOverrides& overrides) {
  CampaignSpec spec;
  if (!std::ifstream(path)) throw UsageError(path + ": cannot read the campaign spec");
  spec.file = ini::read_ini(path);
  spec.dir = fs::absolute(fs::path(path)).parent_path().lexically_normal().string();
  const SpecReader reader(spec.file);
  reader.check_keys(known_keys());

  reader.set_string("", "name", spec.name);
  if (spec.name.empty()) throw UsageError(path + ": name: missing (the campaign's name)");
  reader.set_string("", "app", spec.app);
  if (spec.app.empty()) throw UsageError(path + ": app: missing (e.g. 'app = poisson')");
  if (!directive_safe(spec.app)) {
    throw reader.error(*reader.find("", "app"),
                       "'" + spec.app + "' may hold only letters, digits, '-', '_' and '.'");
  }

  if (const ini::Entry* e = reader.find("", "binary")) {
    spec.binary = absolute_from(spec.dir, reader.text(*e));
    if (!fs::is_regular_file(spec.binary))
      throw reader.error(*e, "'" + spec.binary + "' does not exist");
    if (::access(spec.binary.c_str(), X_OK) != 0) {
      throw reader.error(*e, "'" + spec.binary + "' is not executable");
    }
  } else {
    spec.binary = (fs::path(program_directory()) / ("mcb-" + spec.app)).string();
    if (::access(spec.binary.c_str(), X_OK) != 0) {
      throw reader.error(*reader.find("", "app"), "'" + spec.app + "': no program '" + spec.binary +
                                                      "' (build it, or set 'binary = PATH')");
    }
  }

  if (!overrides.folder.empty()) {
    spec.folder = fs::absolute(overrides.folder).lexically_normal().string();
  } else if (const ini::Entry* e = reader.find("", "folder")) {
    spec.folder = absolute_from(spec.dir, reader.text(*e));
  } else {
    std::string leaf = spec.name;
    for (char& c : leaf) {
      if (c == '/') c = '_';
    }
    if (leaf == "." || leaf == "..") leaf = "campaign";
    spec.folder = (fs::path(spec.dir) / "campaigns" / leaf).lexically_normal().string();
  }

  reader.set_int("", "repetitions", spec.repetitions, 1);
  if (!overrides.executor.empty()) {
    spec.executor = overrides.executor;
    if (!known_executor(spec.executor)) {
      throw UsageError("--executor: '" + spec.executor +
                       "' is not one of local, smpi, slurm, pbs, coalloc");
    }
  } else if (const ini::Entry* e = reader.find("", "executor")) {
    spec.executor = reader.text(*e);
    if (!known_executor(spec.executor)) {
      throw reader.error(*e,
                         "'" + spec.executor + "' is not one of local, smpi, slurm, pbs, coalloc");
    }
  }
  if (const ini::Entry* e = reader.find("", "on-invalid")) {
    const std::string value = reader.text(*e);
    if (value == "skip") {
      spec.on_invalid = OnInvalid::skip;
    } else if (value == "refuse") {
      spec.on_invalid = OnInvalid::refuse;
    } else {
      throw reader.error(*e, "'" + value + "' is not one of skip, refuse");
    }
  }
  reader.set_seconds("", "timeout", spec.timeout, false);
  for (const ini::Entry* e : reader.all("", "env")) {
    const std::string value = reader.text(*e);
    const auto equals = value.find('=');
    const std::string name = value.substr(0, equals);
    if (equals == std::string::npos || !env_name(name)) {
      throw reader.error(*e, "'" + value + "' is not NAME=VALUE");
    }
    spec.env.emplace_back(name, value.substr(equals + 1));
  }
  read_options(reader, spec.file, spec);

  reader.set_words("local", "launcher", spec.local.launcher);
  reader.set_string("local", "np-flag", spec.local.np_flag);

  read_smpi_settings(reader, spec);

  reader.set_words("slurm", "partitions", spec.slurm.partitions);
  reader.set_int("slurm", "tasks-per-node", spec.slurm.tasks_per_node, 1);
  reader.set_string("slurm", "time", spec.slurm.time);
  reader.set_directive_name("slurm", "qos", spec.slurm.qos);
  read_batch_settings(reader, "slurm", spec.dir, spec.slurm);

  reader.set_directive_name("pbs", "queue", spec.pbs.queue);
  reader.set_directive_name("pbs", "cluster-resource", spec.pbs.cluster_resource);
  reader.set_words("pbs", "clusters", spec.pbs.clusters);
  reader.set_int("pbs", "procs-per-chunk", spec.pbs.procs_per_chunk, 1);
  reader.set_string("pbs", "walltime", spec.pbs.walltime);
  reader.set_string("pbs", "hostfile-flag", spec.pbs.hostfile_flag);
  read_batch_settings(reader, "pbs", spec.dir, spec.pbs);

  read_coalloc_settings(reader, spec.dir, spec.executor == "coalloc", spec.coalloc);
  check_executor_settings(reader, spec);
  return spec;
}

}  // namespace mcb::campaign

#include "jobscripts/spec.hpp"

#include "common/errors.hpp"
#include "common/text.hpp"
#include "common/units.hpp"

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

// Keys each section accepts; those marked repeatable collect every line, others may appear once.
struct KeyRule {
  bool repeatable = false;
};

const std::map<std::string, std::map<std::string, KeyRule>>& known_keys() {
  static const std::map<std::string, std::map<std::string, KeyRule>> keys = {
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
  return keys;
}

// Characters a value may hold when it lands in a batch directive (#SBATCH, #PBS) unquoted.
bool directive_safe(const std::string& value, const std::string& extra = "") {
  if (value.empty()) return false;
  for (const char c : value) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.' || extra.find(c) != std::string::npos;
    if (!ok) return false;
  }
  return true;
}

bool env_name(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (const char c : name) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

std::string absolute_from(const std::string& base, const std::string& path) {
  const fs::path p(path);
  return (p.is_absolute() ? p : fs::path(base) / p).lexically_normal().string();
}

// Reads the entries of one spec into the struct, one key at a time.
class SpecReader {
 public:
  explicit SpecReader(const ini::File& file) : file_(file) {}

  // Every entry, checked for known section and key and for repeats.
  void check_keys() const {
    std::map<std::pair<std::string, std::string>, int> first_line;
    for (const ini::Entry& e : file_.entries) {
      const std::string where = file_.where(e.line);
      if (e.section == "options") continue;  // application options: checked against its --help
      const auto section = known_keys().find(e.section);
      if (section == known_keys().end()) {
        throw UsageError(where + ": unknown section [" + e.section +
                         "] (known: options, local, smpi, slurm, pbs)");
      }
      const auto rule = section->second.find(e.key);
      if (rule == section->second.end()) {
        throw UsageError(where + ": unknown key '" + e.key + "'" +
                         (e.section.empty() ? "" : " in [" + e.section + "]"));
      }
      const auto [it, inserted] = first_line.emplace(std::make_pair(e.section, e.key), e.line);
      if (!inserted && !rule->second.repeatable) {
        throw UsageError(where + ": " + e.key + ": set twice (first on line " +
                         std::to_string(it->second) + ")");
      }
    }
  }

  const ini::Entry* find(const std::string& section, const std::string& key) const {
    for (const ini::Entry& e : file_.entries) {
      if (e.section == section && e.key == key) return &e;
    }
    return nullptr;
  }

  std::vector<const ini::Entry*> all(const std::string& section, const std::string& key) const {
    std::vector<const ini::Entry*> found;
    for (const ini::Entry& e : file_.entries) {
      if (e.section == section && e.key == key) found.push_back(&e);
    }
    return found;
  }

  UsageError error(const ini::Entry& e, const std::string& detail) const {
    return UsageError(file_.where(e.line) + ": " + e.key + ": " + detail);
  }

  std::string text(const ini::Entry& e) const {
    try {
      return ini::single_value(e.value);
    } catch (const std::invalid_argument& err) {
      throw error(e, err.what());
    }
  }

  std::vector<std::string> words(const ini::Entry& e) const {
    try {
      return ini::split_words(e.value);
    } catch (const std::invalid_argument& err) {
      throw error(e, err.what());
    }
  }

  void set_string(const std::string& section, const std::string& key, std::string& out) const {
    if (const ini::Entry* e = find(section, key)) out = text(*e);
  }

  void set_int(const std::string& section, const std::string& key, int& out, int minimum) const {
    const ini::Entry* e = find(section, key);
    if (!e) return;
    const std::string value = text(*e);
    const std::optional<long> parsed = whole_number(value);
    if (!parsed) throw error(*e, "'" + value + "' is not a whole number");
    if (*parsed < minimum || *parsed > 1000000) {
      throw error(*e, "'" + value + "' must be at least " + std::to_string(minimum));
    }
    out = static_cast<int>(*parsed);
  }

  void set_seconds(const std::string& section, const std::string& key, double& out,
                   bool allow_zero) const {
    const ini::Entry* e = find(section, key);
    if (!e) return;
    const std::string value = text(*e);
    try {
      out = parse_seconds(value);
    } catch (const std::invalid_argument& err) {
      throw error(*e, err.what());
    }
    if (!allow_zero && out <= 0) throw error(*e, "'" + value + "' must be positive");
  }

  void set_words(const std::string& section, const std::string& key,
                 std::vector<std::string>& out) const {
    const ini::Entry* e = find(section, key);
    if (!e) return;
    out = words(*e);
    if (out.empty()) throw error(*e, "empty value");
  }

  // A name that goes into a batch directive as is: letters, digits and a few safe marks only.
  void set_directive_name(const std::string& section, const std::string& key,
                          std::string& out) const {
    const ini::Entry* e = find(section, key);
    if (!e) return;
    out = text(*e);
    if (!directive_safe(out)) {
      throw error(*e, "'" + out + "' may hold only letters, digits, '-', '_' and '.'");
    }
  }

  void set_directives(const std::string& section, std::vector<std::string>& out) const {
    for (const ini::Entry* e : all(section, "directive")) {
      const std::string value = text(*e);
      if (value.empty() || value.front() != '-') {
        throw error(*e, "'" + value + "' is not an option (it must start with '-')");
      }
      out.push_back(value);
    }
  }

  void set_file(const std::string& section, const std::string& key, const std::string& base,
                std::string& out) const {
    const ini::Entry* e = find(section, key);
    if (!e) return;
    out = absolute_from(base, text(*e));
    if (!fs::is_regular_file(out)) throw error(*e, "'" + out + "' is not a file");
  }

 private:
  const ini::File& file_;
};

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
  return name == "local" || name == "smpi" || name == "slurm" || name == "pbs";
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
    return total;
  }
  if (text.size() > 1 && text.back() == 'h' && text.find_first_of("0123456789") == 0) {
    const double hours = parse_duration(text.substr(0, text.size() - 1) + "s");
    return hours * 3600;
  }
  return parse_duration(text);
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
  reader.check_keys();

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
      throw UsageError("--executor: '" + spec.executor + "' is not one of local, smpi, slurm, pbs");
    }
  } else if (const ini::Entry* e = reader.find("", "executor")) {
    spec.executor = reader.text(*e);
    if (!known_executor(spec.executor)) {
      throw reader.error(*e, "'" + spec.executor + "' is not one of local, smpi, slurm, pbs");
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

  check_executor_settings(reader, spec);
  return spec;
}

}  // namespace mcb::campaign

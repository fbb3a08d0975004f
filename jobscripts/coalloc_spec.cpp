#include "jobscripts/coalloc_spec.hpp"

#include "common/errors.hpp"
#include "jobscripts/spec_reader.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

namespace mcb::campaign {
namespace {

std::string names_of(const std::vector<QueueConfig>& systems) {
  std::string out;
  for (const QueueConfig& s : systems) out += (out.empty() ? "" : ", ") + s.name;
  return out;
}

template <class Enum>
Enum choice(const spec_detail::SpecReader& reader, const ini::Entry& e,
            const std::vector<std::pair<std::string, Enum>>& table) {
  const std::string value = reader.text(e);
  std::string known;
  for (const auto& [name, v] : table) {
    if (name == value) return v;
    known += (known.empty() ? "" : ", ") + name;
  }
  throw reader.error(e, "'" + value + "' is not one of " + known);
}

}  // namespace

std::string to_string(Ranking ranking) {
  return ranking == Ranking::random ? "random" : ranking == Ranking::qlen ? "qlen" : "est-qt";
}

std::string to_string(Synchronization sync) {
  return sync == Synchronization::stop_and_wait  ? "stop-and-wait"
         : sync == Synchronization::resubmission ? "resubmission"
                                                 : "hibernation";
}

std::string to_string(Launch launch) { return launch == Launch::at_start ? "at-start" : "at-go"; }

const QueueConfig& CoallocSettings::system(const std::string& name) const {
  for (const QueueConfig& s : systems) {
    if (s.name == name) return s;
  }
  throw std::logic_error("no batch system '" + name + "'");
}

const std::vector<std::string>& coalloc_keys() {
  static const std::vector<std::string> keys = {
      "systems",  "clusters", "duplicates",  "ranking", "synchronization",
      "timeout",  "seed",     "in-flight",   "poll",    "join-timeout",
      "launcher", "np-flag",  "ompi-server", "arrival", "launch"};
  return keys;
}

void read_coalloc_settings(const spec_detail::SpecReader& reader, const std::string& dir,
                           bool required, CoallocSettings& out) {
  if (const ini::Entry* e = reader.find("coalloc", "systems")) {
    out.systems_file = spec_detail::absolute_from(dir, reader.text(*e));
    if (!std::filesystem::is_regular_file(out.systems_file)) {
      throw reader.error(*e, "'" + out.systems_file +
                                 "' is not a file (a systems file, e.g. the rig's DIR/rig.env)");
    }
    // Its own errors name its own lines: an unknown kind of batch system, a bad env entry.
    out.systems = read_queue_configs(out.systems_file);
  }
  reader.set_words("coalloc", "clusters", out.clusters);
  reader.set_int("coalloc", "duplicates", out.duplicates, 0);
  if (const ini::Entry* e = reader.find("coalloc", "ranking")) {
    out.ranking = choice<Ranking>(
        reader, *e,
        {{"random", Ranking::random}, {"qlen", Ranking::qlen}, {"est-qt", Ranking::est_qt}});
  }
  if (const ini::Entry* e = reader.find("coalloc", "synchronization")) {
    out.synchronization =
        choice<Synchronization>(reader, *e,
                                {{"stop-and-wait", Synchronization::stop_and_wait},
                                 {"resubmission", Synchronization::resubmission},
                                 {"hibernation", Synchronization::hibernation}});
  }
  // Seed 004 synchronizes inside MPI initialization: ranks start with their allocation. A
  // hibernated allocation is requeued with its ranks waiting in the rendezvous, so there the
  // launch waits for the go.
  out.launch =
      out.synchronization == Synchronization::hibernation ? Launch::at_go : Launch::at_start;
  if (const ini::Entry* e = reader.find("coalloc", "launch")) {
    out.launch =
        choice<Launch>(reader, *e, {{"at-start", Launch::at_start}, {"at-go", Launch::at_go}});
    if (out.launch == Launch::at_start && out.synchronization == Synchronization::hibernation) {
      throw reader.error(*e,
                         "'at-start' needs synchronization = stop-and-wait or resubmission "
                         "(hibernation requeues allocations while their ranks wait to join)");
    }
  }
  reader.set_seconds("coalloc", "timeout", out.timeout, false);
  int seed = 1;
  reader.set_int("coalloc", "seed", seed, 0);
  out.seed = static_cast<std::uint64_t>(seed);
  reader.set_int("coalloc", "in-flight", out.in_flight, 1);
  reader.set_seconds("coalloc", "arrival", out.arrival, true);
  reader.set_seconds("coalloc", "poll", out.poll, false);
  reader.set_seconds("coalloc", "join-timeout", out.join_timeout, false);
  reader.set_words("coalloc", "launcher", out.launcher);
  reader.set_string("coalloc", "np-flag", out.np_flag);
  reader.set_string("coalloc", "ompi-server", out.ompi_server);
  if (!required) return;

  if (out.systems_file.empty()) {
    throw UsageError(reader.where_file() +
                     ": [coalloc] systems: missing (the systems file naming each batch system, "
                     "e.g. 'systems = /tmp/rig/rig.env' written by mcb-rig start)");
  }
  if (out.clusters.empty()) {
    throw UsageError(reader.where_file() +
                     ": [coalloc] clusters: missing (the batch system of each cluster, e.g. "
                     "'clusters = slurm-a slurm-b')");
  }
  const ini::Entry* e = reader.find("coalloc", "clusters");
  std::set<std::string> seen;
  for (const std::string& c : out.clusters) {
    const bool known = std::any_of(out.systems.begin(), out.systems.end(),
                                   [&](const QueueConfig& s) { return s.name == c; });
    if (!known) {
      throw reader.error(*e, "'" + c + "' is not a system of " + out.systems_file + " (it has " +
                                 names_of(out.systems) + ")");
    }
    if (!seen.insert(c).second) {
      throw reader.error(*e, "'" + c + "' is listed twice (each cluster is its own system)");
    }
  }
  if (out.duplicates > static_cast<int>(out.systems.size()) - 1) {
    throw reader.error(*reader.find("coalloc", "duplicates"),
                       "'" + std::to_string(out.duplicates) + "' copies need as many systems " +
                           "besides a component's own; " + out.systems_file + " has " +
                           std::to_string(out.systems.size()));
  }
  if (out.synchronization == Synchronization::hibernation) {
    for (const std::string& c : out.clusters) {
      const QueueConfig& s = out.system(c);
      const auto queue = make_queue(s);
      if (!queue->supports(Operation::requeue)) {
        throw reader.error(*reader.find("coalloc", "synchronization"),
                           "hibernation needs a system that can requeue a job; '" + c + "' (" +
                               s.kind + ") " + queue->why_unsupported(Operation::requeue));
      }
    }
  }
}

}  // namespace mcb::campaign
